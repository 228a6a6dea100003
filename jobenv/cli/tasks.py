"""``jobenv tasks ENV``: the tasks of one environment in index order."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "tasks"
HELP = "the tasks of one environment, in index order"


@dataclass(frozen=True)
class Options:
    env_id: str


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("env_id", help="environment id, e.g. jobenv/sample (see `jobenv list`)")


def run(opts: Options) -> int:
    """Index, task id, rubric count and whether checks grade it. UnknownEnvError / DatasetNotFoundError -> exit 2."""
    from ..registry import load_tasks

    for i, task in enumerate(load_tasks(opts.env_id)):
        print(f"{i:4d}  {task.uid:45} {len(task.rubrics):3d} rubrics  checks={'yes' if task.has_checks else 'no'}")
    return 0
