"""``jobenv tasks ENV``: the tasks of one environment in index order."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from ._common import non_negative_int, positive_int

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "tasks"
HELP = "the tasks of one environment, in index order"


@dataclass(frozen=True)
class Options:
    env_id: str
    seed: int | None
    n: int | None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("env_id", help="environment id, e.g. jobenv/sample (see `jobenv list`), or a task folder path")
    p.add_argument("--seed", type=non_negative_int, default=None,
                   help="jobenv/synthetic only: the generator seed (default: 0)")
    p.add_argument("--n", type=positive_int, default=None, help="jobenv/synthetic only: how many tasks (default: 24)")


def run(opts: Options) -> int:
    """Index, task id, rubric count and whether checks grade it. UnknownEnvError / DatasetNotFoundError -> exit 2."""
    from ..registry import load_tasks

    options: dict[str, Any] = {k: v for k, v in (("seed", opts.seed), ("n", opts.n)) if v is not None}
    for i, task in enumerate(load_tasks(opts.env_id, **options)):
        print(f"{i:4d}  {task.uid:45} {len(task.rubrics):3d} rubrics  checks={'yes' if task.has_checks else 'no'}")
    return 0
