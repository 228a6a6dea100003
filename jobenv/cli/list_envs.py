"""``jobenv list``: registered environment ids, task counts and whether each is on disk."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "list"
HELP = "registered environment ids, task counts and whether each is downloaded"


@dataclass(frozen=True)
class Options:
    pass


def add_arguments(p: argparse.ArgumentParser) -> None:
    pass


def run(opts: Options) -> int:
    """One line per environment id. Never raises for data that is missing (that is what the line says)."""
    from ..datasets import data_dir
    from ..registry import DEFAULT_SYNTHETIC_TASKS, DOWNLOAD_HINT, ENV_SPECS, load_tasks

    for env_id, spec in ENV_SPECS.items():
        if spec.dataset == "sample":
            state, count = "bundled", str(len(load_tasks(env_id)))
        elif spec.dataset == "synthetic":
            state, count = "generated on demand", "-"
        else:
            present = all((data_dir() / spec.dataset / s).is_dir() for s in spec.splits)
            if spec.dataset == "jobtasks" and not present:
                state, count = "generated stand-in (not downloaded)", str(DEFAULT_SYNTHETIC_TASKS)
            else:
                state = "downloaded" if present else f"not downloaded: {DOWNLOAD_HINT[spec.dataset]}"
                count = str(spec.expected_count or "?")
        print(f"{env_id:18} {count:>4} tasks  {state}")
    return 0
