"""Benchmark of the synthetic generator: tasks per second and bytes per task, printed as JSON.

Usage: python benchmarks/synthetic_bench.py [--n 26] [--seed 0]
Both runs (with and without the checks-judge gate) happen in this process, so their ratio is meaningful.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path


def _bytes(paths: list[Path], sub: str | None) -> list[int]:
    out = []
    for p in paths:
        root = p / sub if sub else p
        out.append(sum(f.stat().st_size for f in root.rglob("*") if f.is_file()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=26)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    from jobenv.synthetic.generator import GENERATOR_VERSION, GenerationStats, generate
    from jobenv.synthetic.families import base

    # load the source datasets once so both runs measure generation, not the first decompression
    from jobenv.synthetic.generator import combos

    t0 = time.perf_counter()
    for _, sc in combos():
        base.load_raw(sc.source)
    warm = time.perf_counter() - t0

    result: dict[str, object] = {"generator_version": GENERATOR_VERSION, "n": args.n, "seed": args.seed,
                                 "dataset_load_s": round(warm, 3)}
    for label, judge in (("with_judge_gate", True), ("self_check_only", False)):
        out = Path(tempfile.mkdtemp(prefix="jobenv-synbench-"))
        stats = GenerationStats()
        t0 = time.perf_counter()
        paths = generate(args.n, args.seed, out, stats=stats, verify_with_judge=judge)
        dt = time.perf_counter() - t0
        folder = _bytes(paths, "task_folder")
        whole = _bytes(paths, None)
        result[label] = {
            "seconds": round(dt, 3),
            "tasks_per_second": round(len(paths) / dt, 3),
            "rejected_draws": stats.rejected,
            "task_folder_bytes_mean": int(statistics.mean(folder)),
            "task_folder_bytes_max": max(folder),
            "task_dir_bytes_mean": int(statistics.mean(whole)),
            "occupations": len({p.parent.name for p in paths}),
        }
        shutil.rmtree(out, ignore_errors=True)
    a, b = result["with_judge_gate"], result["self_check_only"]
    result["judge_gate_slowdown"] = round(a["seconds"] / b["seconds"], 3)  # type: ignore[index]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
