"""Sandbox cost, printed as JSON: start latency, per-command overhead, idle memory, concurrent sandboxes.

    .venv/bin/python benchmarks/sandbox_bench.py [--docker-image jobenv-test:minbase] [--no-docker]

Per backend: median start latency (``start(None)``, ms); median latency of ``run("true")`` divided by the median
of a raw ``subprocess.run(["bash", "-c", "true"])`` measured in the same run; memory of an idle sandbox (RSS and
PSS of its host processes for local; the container's cgroup usage for docker); and how many sandboxes started at
once all answer a command (local: 64 and 256; docker: fewer, it is much heavier). The local backend is measured
three ways in the same run: as shipped (native controller, warm sandboxes), cold (``JOBENV_WARM_SANDBOXES=0``:
every start launches) and with the Python controller, cold (the fallback, and the design before the native one).
Targets (local as shipped, 2 cores): start p50 < 5 ms, ``true`` <= 1.3x raw, < 1.5 MB PSS per idle sandbox, 256
concurrent without failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jobenv.sandbox import SandboxLimits, make_sandbox  # noqa: E402


def _ms(x: float) -> float:
    return round(x * 1000, 3)


def raw_true(n: int) -> float:
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(["bash", "-c", "true"])
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def _mem_kb(pid: int) -> tuple[int, int]:
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


async def bench_backend(backend: str, opts: dict[str, Any], starts: int, trues: int, concurrency: list[int],
                        raw: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    limits = SandboxLimits()
    ts, firsts = [], []
    for _ in range(starts):
        sb = make_sandbox(backend, limits=limits, **opts)
        t = time.perf_counter()
        await sb.start(None)
        ts.append(time.perf_counter() - t)
        t = time.perf_counter()
        await sb.run("true")  # the first command also pays for work start() left in the background
        firsts.append(time.perf_counter() - t)
        await sb.close()
    out["start_ms_median"] = _ms(statistics.median(ts))
    out["start_ms_p90"] = _ms(sorted(ts)[int(0.9 * (len(ts) - 1))])
    out["first_true_after_start_ms_median"] = _ms(statistics.median(firsts))
    out["start_plus_first_true_ms_median"] = _ms(statistics.median([a + b for a, b in zip(ts, firsts)]))

    sb = make_sandbox(backend, limits=limits, **opts)
    await sb.start(None)
    for _ in range(3):
        await sb.run("true")
    ts, raws = [], []
    for _ in range(trues):  # interleaved with raw runs, so machine load hits both alike
        t = time.perf_counter()
        r = await sb.run("true")
        ts.append(time.perf_counter() - t)
        assert r.exit_code == 0
        t = time.perf_counter()
        subprocess.run(["bash", "-c", "true"])
        raws.append(time.perf_counter() - t)
    out["true_ms_median"] = _ms(statistics.median(ts))
    out["raw_subprocess_true_ms_median_interleaved"] = _ms(statistics.median(raws))
    out["true_ratio_vs_raw_subprocess"] = round(statistics.median(ts) / statistics.median(raws), 3)
    await sb.close()

    # idle memory, averaged over a few idle sandboxes
    idle = [make_sandbox(backend, limits=limits, **opts) for _ in range(8)]
    for s in idle:
        await s.start(None)
        await s.run("true")
    if backend == "local":
        rss = pss = 0
        for s in idle:
            for pid in (s._state["proc"].pid, s._state["agent_pid"]):  # type: ignore[attr-defined]
                a, b = _mem_kb(pid)
                rss, pss = rss + a, pss + b
        out["idle_rss_mb_per_sandbox"] = round(rss / len(idle) / 1024, 2)
        out["idle_pss_mb_per_sandbox"] = round(pss / len(idle) / 1024, 2)
    else:
        from jobenv.sandbox.docker import docker_client

        client = docker_client(opts.get("base_url"))
        usage = []
        for s in idle:
            st = client.api.stats(s._state["container"], stream=False)  # type: ignore[attr-defined]
            usage.append(st.get("memory_stats", {}).get("usage", 0))
        client.close()
        out["idle_cgroup_mb_per_sandbox"] = round(statistics.mean(usage) / 2**20, 2)
    for s in idle:
        await s.close()

    conc: dict[str, Any] = {}
    for n in concurrency:
        boxes = [make_sandbox(backend, limits=limits, **opts) for _ in range(n)]
        t = time.perf_counter()
        started = await asyncio.gather(*(b.start(None) for b in boxes), return_exceptions=True)
        t_start = time.perf_counter() - t
        async def probe(b: Any, i: int) -> bool:
            r = await b.run(f"echo ok-{i} > output/x && cat output/x", timeout=120)
            return r.exit_code == 0 and r.output.strip() == f"ok-{i}"
        t = time.perf_counter()
        results = await asyncio.gather(*(probe(b, i) for i, b in enumerate(boxes)
                                         if not isinstance(started[i], BaseException)), return_exceptions=True)
        t_run = time.perf_counter() - t
        healthy = sum(1 for r in results if r is True)
        errors = sorted({repr(e)[:160] for e in list(started) + list(results) if isinstance(e, BaseException)})
        t = time.perf_counter()
        await asyncio.gather(*(b.close() for b in boxes), return_exceptions=True)
        conc[str(n)] = {"healthy": healthy, "of": n, "start_all_s": round(t_start, 3), "run_all_s": round(t_run, 3),
                        "close_all_s": round(time.perf_counter() - t, 3), "errors": errors[:3]}
    out["concurrent"] = conc
    return out


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docker-image", default=os.environ.get("JOBENV_TEST_DOCKER_IMAGE", "jobenv-test:minbase"))
    ap.add_argument("--no-docker", action="store_true")
    ap.add_argument("--starts", type=int, default=30)
    ap.add_argument("--trues", type=int, default=200)
    args = ap.parse_args()

    raw = raw_true(args.trues)
    result: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "loadavg_1m_at_start": round(os.getloadavg()[0], 2)},
        "raw_subprocess_true_ms_median": _ms(raw),
    }
    from jobenv.sandbox.local import controller_note, drain_warm_sandboxes

    for name, env in (("local", {}), ("local_cold", {"JOBENV_WARM_SANDBOXES": "0"}),
                      ("local_python_controller_cold", {"JOBENV_WARM_SANDBOXES": "0", "JOBENV_CONTROLLER": "python"})):
        drain_warm_sandboxes()
        saved = {k: os.environ.get(k) for k in ("JOBENV_WARM_SANDBOXES", "JOBENV_CONTROLLER")}
        os.environ.update(env)
        try:
            result[name] = {"controller": controller_note(),
                            **await bench_backend("local", {}, args.starts, args.trues, [64, 256], raw)}
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        drain_warm_sandboxes()
    if not args.no_docker:
        try:
            result["docker"] = await bench_backend("docker", {"image": args.docker_image}, 5, 30, [16], raw)
        except Exception as exc:  # report, do not hide: the local figures are still valid
            result["docker"] = {"error": repr(exc)[:300]}
    result["machine"]["loadavg_1m_at_end"] = round(os.getloadavg()[0], 2)
    result["targets_local"] = {
        "start_ms_p50_lt_5": result["local"]["start_ms_median"] < 5,
        "true_ratio_le_1_3": result["local"]["true_ratio_vs_raw_subprocess"] <= 1.3,
        "idle_pss_lt_1_5_mb": result["local"]["idle_pss_mb_per_sandbox"] < 1.5,
        "256_concurrent_healthy": result["local"]["concurrent"]["256"]["healthy"] == 256,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
