"""``jobenv check PATH``: what a Harbor task's author runs before publishing it (see :mod:`jobenv.harbor.check`).

Exit status: 0 when every task loads, its oracle (``solution/solve.sh``) is graded 1.0 and its no-op below 1.0;
1 when any task fails that; 2 for bad arguments (a path holding no Harbor task, an unavailable backend), one line.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ._common import add_sandbox_arguments

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "check"
HELP = "run Harbor tasks' reference solutions and a no-op through jobenv, and table their rewards"


@dataclass(frozen=True)
class Options:
    path: str
    sandbox: str | None
    sandbox_image: str | None
    json: str | None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", help="a Harbor task directory, or a folder of them")
    add_sandbox_arguments(p)
    p.add_argument("--json", default=None, help="also write the results as JSON lines here (default: not written)")


def run(opts: Options) -> int:
    """Prints the table (see the module docstring for the exit status)."""
    import sys
    from pathlib import Path

    from ..harbor.check import all_passed, check_path, render_table, task_dirs
    from ..sandbox.config import SandboxConfig

    config = SandboxConfig.from_env(backend=opts.sandbox, image=opts.sandbox_image)
    task_dirs(Path(opts.path))  # a path holding no task: exit 2 before anything runs
    results = check_path(Path(opts.path), sandbox=config.backend, sandbox_image=config.options.get("image"),
                         progress=lambda r: print(f"checked {r.task} in {r.seconds:.1f}s", file=sys.stderr))
    print(render_table(results))
    if opts.json:
        Path(opts.json).write_text("".join(r.model_dump_json() + "\n" for r in results), encoding="utf-8")
    return 0 if all_passed(results) else 1
