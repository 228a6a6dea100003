"""``jobenv calibrate``: two judges on a finished run's saved deliverables, k times each: per-criterion agreement,
each judge's flip rate and its cost per graded episode."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from ._common import positive_int

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "calibrate"
HELP = "compare two judges on a finished run's saved deliverables: agreement, flip rate, cost per episode"


@dataclass(frozen=True)
class Options:
    trajectories: str
    judges: list[str]
    repeats: int
    concurrency: int
    json: str | None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trajectories", help="a trajectories JSONL file written by `jobenv rollout` (with its objects)")
    p.add_argument("--judge", dest="judges", action="append", required=True,
                   help="KIND or KIND:MODEL (checks, llm, auto; the LLM's endpoint from $JOBENV_JUDGE_*), given "
                        "twice (required)")
    p.add_argument("--repeats", type=positive_int, default=3, help="gradings of each episode by each judge")
    p.add_argument("--concurrency", type=positive_int, default=4, help="gradings at once")
    p.add_argument("--json", default=None, help="also write the report as JSON to this file (default: none)")


def run(opts: Options) -> int:
    """Exit 0; 1 when every grading by one of the judges errored (nothing was compared: the reason on stderr);
    bad input (not two judges, an unknown kind, a missing file, a judge endpoint that does not answer) is one
    line and exit 2."""
    from pathlib import Path

    from rich.console import Console
    from rich.table import Table

    from ..rollout.calibrate import calibrate_sync

    report = calibrate_sync(opts.trajectories, opts.judges, repeats=opts.repeats, concurrency=opts.concurrency)
    if opts.json:
        Path(opts.json).write_text(report.model_dump_json(indent=2), encoding="utf-8")
    table = Table(title=f"{report.episodes} episode(s), {report.repeats} repeat(s) per judge")
    for col in ("judge", "gradings", "errors", "flip rate", "calls/ep", "tokens/ep", "s/ep"):
        table.add_column(col, justify="left" if col == "judge" else "right")
    for j in report.judges:
        table.add_row(j.judge, str(j.gradings), str(j.errors), f"{j.flip_rate:.3f}", f"{j.calls_per_episode:g}",
                      f"{j.tokens_per_episode:g}", f"{j.seconds_per_episode:.3f}")
    console = Console()
    console.print(table)
    console.print(f"agreement: {report.agreement:.3f} over {report.compared} (episode, criterion) pairs")
    low = sorted(report.criteria, key=lambda c: c.agreement)[:5]
    for c in low:
        if c.agreement < 1:
            console.print(f"  {c.task_id} rubric {c.rubric} criterion {c.index}: {c.agreement:.2f} of {c.episodes}")
    failed = [j for j in report.judges if j.gradings and j.errors == j.gradings]
    for j in failed:
        print(f"error: every grading by judge {j.judge!r} failed ({j.errors} of {j.gradings}); first: "
              f"{j.first_error}", file=sys.stderr)
    return 1 if failed else 0
