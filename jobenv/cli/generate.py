"""``jobenv generate``: synthetic JobTasks-style tasks (profession workflows on stated generated data)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from ._common import non_negative_int, positive_int

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "generate"
HELP = "generate synthetic JobTasks-style tasks: profession workflows on stated generated data"


@dataclass(frozen=True)
class Options:
    n: int
    seed: int
    out: str
    force: bool
    checks_only: bool = False
    jobs: int = 1
    progress_every: int = 10


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=positive_int, default=20, help="number of tasks")
    p.add_argument("--seed", type=non_negative_int, default=0, help="random seed (same seed, same tasks)")
    p.add_argument("--out", required=True,
                   help="output folder (required; new, empty, or holding an interrupted run of the same generation, "
                        "which is resumed; otherwise refused unless --force)")
    p.add_argument("--force", action="store_true", help="write into a non-empty folder (default: refuse)")
    p.add_argument("--checks-only", action="store_true",
                   help="leave out the LLM-graded judgement rubrics, so every criterion grades with judge='checks' (default: include them)")
    p.add_argument("--jobs", type=positive_int, default=1,
                   help="worker processes drawing tasks (the tasks do not depend on it)")
    p.add_argument("--progress-every", type=positive_int, default=10,
                   help="a progress line on stderr every this many tasks")


def run(opts: Options) -> int:
    """Writes the tasks and prints the split report, with progress lines on stderr. An ``--out`` holding a run of
    the same generation is resumed; any other non-empty ``--out`` without ``--force`` or a missing ``synthetic``
    extra is a JobenvError (exit 2) before anything is written."""
    import sys
    import time

    from ..errors import JobenvError

    out = Path(opts.out)
    if out.exists() and not out.is_dir():
        raise JobenvError(f"--out {out}: exists and is not a folder")
    from ..extras import require

    require("synthetic", "jobenv generate")
    from ..synthetic.runner import GenerationStats, generate, progress_printer, resumable

    judgement = not opts.checks_only
    if out.is_dir() and any(out.iterdir()) and not opts.force and not resumable(out, opts.seed, judgement):
        raise JobenvError(f"--out {out}: folder is not empty and holds no run of this generation to resume "
                          "(pass --force to write into it)")
    stats = GenerationStats()
    t0 = time.perf_counter()
    paths = generate(opts.n, opts.seed, out, stats=stats, judgement=judgement, workers=opts.jobs,
                     progress=progress_printer(opts.progress_every, sys.stderr))
    dt = time.perf_counter() - t0
    from ..synthetic.report import format_report, split_report

    rejected = ", ".join(f"{k}={v}" for k, v in sorted(stats.rejected.items())) or "none"
    kept = f"; {stats.resumed} kept from an earlier run" if stats.resumed else ""
    print(f"generated {len(paths)} tasks in {out} in {dt:.1f}s (seed {opts.seed}{kept}); draws rejected by quality "
          f"gates: {rejected}")
    if paths:
        print(format_report(split_report(paths, stats)), end="")
    return 0
