"""Environment throughput: ``bash true`` steps per second (sync, async, concurrent async), episode resets per
second, and the overhead of ``env.step`` over the bare ``sandbox.run`` call. Prints one JSON object; every
ratio is measured in this run on this machine.

    python benchmarks/env_bench.py [--steps 300] [--concurrency 16] [--sandbox local]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jobenv.env import JobEnv  # noqa: E402
from jobenv.sandbox import make_sandbox  # noqa: E402
from jobenv.tasks import load_task_dir  # noqa: E402

BASH_TRUE = {"name": "bash", "arguments": {"command": "true"}}


def make_task(root: Path):
    d = root / "bench" / "task1"
    (d / "task_folder").mkdir(parents=True)
    (d / "task_folder" / "TASK_INSTRUCTIONS.txt").write_text("Benchmark task.\n")
    (d / "RUBRICS.json").write_text(json.dumps({"rubrics": [
        {"rubric": "r", "weight": 1, "criterion": ["c"], "jobenv_checks": [{"kind": "file_exists", "file": "x"}]}
    ]}))
    return load_task_dir(d, "bench")


async def bare_sandbox(task, steps: int, backend: str) -> float:
    sb = make_sandbox(backend)
    await sb.start(task.task_folder)
    try:
        await sb.run("true")
        t0 = time.perf_counter()
        for _ in range(steps):
            await sb.run("true")
        return (time.perf_counter() - t0) / steps
    finally:
        await sb.close()


async def env_async(task, steps: int, backend: str) -> float:
    env = JobEnv([task], sandbox=backend, judge="checks", max_steps=None)
    try:
        await env.areset(seed=0)
        await env.astep(BASH_TRUE)
        t0 = time.perf_counter()
        for _ in range(steps):
            await env.astep(BASH_TRUE)
        return (time.perf_counter() - t0) / steps
    finally:
        await env.aclose()


def env_sync(task, steps: int, backend: str) -> float:
    env = JobEnv([task], sandbox=backend, judge="checks", max_steps=None)
    try:
        env.reset(seed=0)
        env.step(BASH_TRUE)
        t0 = time.perf_counter()
        for _ in range(steps):
            env.step(BASH_TRUE)
        return (time.perf_counter() - t0) / steps
    finally:
        env.close()


async def env_concurrent(task, steps: int, k: int, backend: str) -> float:
    envs = [JobEnv([task], sandbox=backend, judge="checks", max_steps=None) for _ in range(k)]
    try:
        await asyncio.gather(*(e.areset(seed=0) for e in envs))
        per = max(1, steps // k)

        async def run(e: JobEnv) -> None:
            for _ in range(per):
                await e.astep(BASH_TRUE)

        t0 = time.perf_counter()
        await asyncio.gather(*(run(e) for e in envs))
        return (per * k) / (time.perf_counter() - t0)
    finally:
        await asyncio.gather(*(e.aclose() for e in envs))


def reset_latencies(task, n: int, backend: str) -> list[float]:
    """Seconds of each ``env.reset()`` (sync API: the previous episode's sandbox is closed first, then a new one
    starts and the task folder is staged), one episode after another."""
    env = JobEnv([task], sandbox=backend, judge="checks", max_steps=None)
    out = []
    try:
        env.reset(seed=0)
        for i in range(n):
            env.step(BASH_TRUE)
            t = time.perf_counter()
            env.reset(seed=i)
            out.append(time.perf_counter() - t)
        return out
    finally:
        env.close()


def episodes_sync(task, n: int, backend: str) -> float:
    env = JobEnv([task], sandbox=backend, judge="checks", max_steps=None)
    try:
        env.reset(seed=0)
        t0 = time.perf_counter()
        for i in range(n):
            env.reset(seed=i)
            env.step(BASH_TRUE)
            env.step({"name": "submit"})
        return n / (time.perf_counter() - t0)
    finally:
        env.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--episodes", type=int, default=50)
    ap.add_argument("--sandbox", default="local")
    ap.add_argument("--repeats", type=int, default=3, help="median of this many runs per measurement")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="jobenv-bench-") as tmp:
        task = make_task(Path(tmp))
        med = statistics.median
        # Interleaved rounds: load from other processes shifts over time, so each round measures the bare
        # sandbox and the env back to back and ratios are taken per round, then the median.
        bares, asyncs, syncs, concs, epss, resets = [], [], [], [], [], []
        for _ in range(a.repeats):
            bares.append(asyncio.run(bare_sandbox(task, a.steps, a.sandbox)))
            asyncs.append(asyncio.run(env_async(task, a.steps, a.sandbox)))
            syncs.append(env_sync(task, a.steps, a.sandbox))
            concs.append(asyncio.run(env_concurrent(task, a.steps, a.concurrency, a.sandbox)))
            epss.append(episodes_sync(task, a.episodes, a.sandbox))
            resets += reset_latencies(task, a.episodes, a.sandbox)
        bare, step_async, step_sync, conc, eps = med(bares), med(asyncs), med(syncs), med(concs), med(epss)
        ratio_async = med(x / b for x, b in zip(asyncs, bares))
        ratio_sync = med(x / b for x, b in zip(syncs, bares))

    out = {
        "benchmark": "env_bench",
        "sandbox": a.sandbox,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "steps_per_measure": a.steps,
        "bare_sandbox_run_ms": round(bare * 1e3, 3),
        "env_astep_ms": round(step_async * 1e3, 3),
        "env_step_sync_ms": round(step_sync * 1e3, 3),
        "async_steps_per_s": round(1 / step_async, 1),
        "sync_steps_per_s": round(1 / step_sync, 1),
        f"concurrent_async_steps_per_s_{a.concurrency}_envs": round(conc, 1),
        "episodes_per_s_sync_reset_bash_submit": round(eps, 1),
        "env_reset_ms_p50": round(med(resets) * 1e3, 3),
        "env_reset_ms_p90": round(sorted(resets)[int(0.9 * (len(resets) - 1))] * 1e3, 3),
        "astep_overhead_ms": round((step_async - bare) * 1e3, 3),
        "step_sync_overhead_ms": round((step_sync - bare) * 1e3, 3),
        "astep_over_bare_ratio": round(ratio_async, 3),
        "step_sync_over_bare_ratio": round(ratio_sync, 3),
        "repeats": a.repeats,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
