"""``jobenv validate [ENV]``: load and validate every task of an environment."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "validate"
HELP = "load and validate every task of an environment"


@dataclass(frozen=True)
class Options:
    env_id: str


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("env_id", nargs="?", default="jobenv/sample", help="environment id")


def run(opts: Options) -> int:
    """Prints the counts; a malformed task is a TaskFormatError naming the file (exit 2)."""
    from ..registry import load_tasks

    tasks = load_tasks(opts.env_id)
    rubrics = sum(len(t.rubrics) for t in tasks)
    criteria = sum(len(r.criteria) for t in tasks for r in t.rubrics)
    print(f"{opts.env_id}: {len(tasks)} tasks valid, {rubrics} rubrics, {criteria} criteria")
    return 0
