"""``jobenv report``: summarise a trajectories file (terminal table and HTML)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "report"
HELP = "summarise a trajectories file (terminal table and HTML)"


@dataclass(frozen=True)
class Options:
    trajectories: str
    html: str | None
    include_errors: bool


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trajectories", help="a trajectories JSONL file written by `jobenv rollout`")
    p.add_argument("--html", default=None, help="write a self-contained HTML report here (default: none)")
    p.add_argument("--include-errors", action="store_true",
                   help="count errored episodes as reward 0 (default: leave them out)")


def run(opts: Options) -> int:
    """See :func:`jobenv.rollout.commands.run_report`. Raises JobenvError (exit 2) for a missing or empty file."""
    from ..rollout.commands import run_report

    return run_report(opts.trajectories, opts.html, opts.include_errors)
