"""``jobenv export-trajectories``: one plain row per episode, the file to load with pandas or ``datasets``."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "export-trajectories"
HELP = "write one plain JSONL row per episode (the latest of each) for pandas or datasets"


@dataclass(frozen=True)
class Options:
    trajectories: str
    out: str
    full_reports: bool


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trajectories", help="a trajectories JSONL file written by `jobenv rollout`")
    p.add_argument("--out", required=True, help="the export (JSONL; tool schemas go to <out stem>.tools.json) (required)")
    p.add_argument("--full-reports", action="store_true",
                   help="inline each episode's full grading report (default: its scores)")


def run(opts: Options) -> int:
    """See :func:`jobenv.rollout.commands.run_export`."""
    from ..rollout.commands import run_export

    return run_export(opts.trajectories, opts.out, full_reports=opts.full_reports)
