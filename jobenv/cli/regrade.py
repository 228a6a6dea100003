"""``jobenv regrade``: judge a finished run's saved deliverables again into a new file (no policy call)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ._common import JUDGE_CHOICES, SCORING_CHOICES, positive_int

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "regrade"
HELP = "judge a finished run's saved deliverables again into a new trajectories file (no policy call)"


@dataclass(frozen=True)
class Options:
    trajectories: str
    out: str
    judge: str
    scoring: str | None
    concurrency: int


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trajectories", help="a trajectories JSONL file written by `jobenv rollout`")
    p.add_argument("--out", required=True, help="the new trajectories file (must not exist) (required)")
    p.add_argument("--judge", choices=JUDGE_CHOICES, default="auto", help="judge kind ($JOBENV_JUDGE_* for the LLM)")
    p.add_argument("--scoring", choices=SCORING_CHOICES, default=None,
                   help="which report score is the reward (default: each episode's own)")
    p.add_argument("--concurrency", type=positive_int, default=4, help="episodes graded at once")


def run(opts: Options) -> int:
    """See :func:`jobenv.rollout.commands.run_regrade`: exit 0, 1 when episodes still errored, 2 for bad input."""
    from ..rollout.commands import run_regrade

    return run_regrade(opts.trajectories, opts.out, judge=opts.judge, scoring=opts.scoring,
                       concurrency=opts.concurrency)
