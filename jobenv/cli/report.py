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
    """Raises JobenvError (exit 2) for a missing file or one with no readable trajectory."""
    from rich.console import Console

    from ..errors import JobenvError
    from ..rollout.report import write_html
    from ..rollout.summary import print_summary, summarize
    from ..rollout.trajectory import read_trajectories

    trajs = read_trajectories(opts.trajectories)
    if not trajs:
        raise JobenvError(f"{opts.trajectories}: no readable trajectories (is this a `jobenv rollout` output?)")
    summary = summarize(trajs, include_errors=opts.include_errors)
    print_summary(summary, console=Console())
    if opts.html:
        p = write_html(trajs, opts.html, include_errors=opts.include_errors)
        Console(stderr=True).print(f"HTML report: {p}")
    return 0
