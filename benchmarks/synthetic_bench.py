"""Benchmark of the synthetic generator: a whole split timed end to end, its report printed as JSON.

Usage: python benchmarks/synthetic_bench.py [--n 583] [--seed 0] [--jobs 1] [--checks-only] [--keep DIR]

``--n 583`` is the size of JobTasks. The printed JSON has the wall time, tasks per second on this machine, the
rejected draws by gate and the split report (workflows per profession, trap kinds, answer balance, instruction
similarity, deliverable types, folder sizes).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=583)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--checks-only", action="store_true")
    ap.add_argument("--keep", help="write the split here and keep it")
    args = ap.parse_args()
    from jobenv.synthetic.common import GENERATOR_VERSION
    from jobenv.synthetic.report import split_report
    from jobenv.synthetic.runner import GenerationStats, generate, progress_printer

    out = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="jobenv-synbench-"))
    stats = GenerationStats()
    t0 = time.perf_counter()
    paths = generate(args.n, args.seed, out, stats=stats, judgement=not args.checks_only, workers=args.jobs,
                     progress=progress_printer(max(1, args.n // 20), sys.stderr))
    dt = time.perf_counter() - t0
    rep = split_report(paths, stats)
    print(json.dumps({"generator_version": GENERATOR_VERSION, "n": args.n, "seed": args.seed,
                      "jobs": args.jobs, "cpus": os.cpu_count(),
                      "seconds": round(dt, 1), "tasks_per_second": round(len(paths) / dt, 3),
                      "report": rep}, indent=2))
    if not args.keep:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
