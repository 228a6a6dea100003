"""The python tool and the toolchain, printed as JSON (ratios measured in one run).

    .venv/bin/python benchmarks/python_tool_bench.py [--steps 5] [--episodes 64]

* ``pandas_step``: one analyst step (read a 5 MB CSV, group it, write an xlsx) as a cell of the warm python tool
  vs the same code through ``bash`` running ``python3 -c`` (a new interpreter that imports pandas each time): median
  wall and CPU (the sandbox's processes, from its cgroup-less view: the host's ``RUSAGE_CHILDREN`` is not theirs,
  so CPU is read from ``/proc/<pid>/stat`` of the interpreter and the bash command's time output). Target: warm
  ≥ 10x cheaper.
* ``idle_interpreter_kib``: PSS of a warm interpreter (pandas imported) between cells.
* ``many``: ``--episodes`` sandboxes each with a warm interpreter, then one cell in each (2 cores).
* ``start``: local sandbox start p50 with the toolchain mounted vs with ``JOBENV_TOOLCHAIN=none`` (run in a child
  process each, alternating). Target: the mount costs ≤ 2 ms at p50.
* ``toolchain``: its size on disk and the install time its manifest recorded.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jobenv.sandbox import toolchain  # noqa: E402
from jobenv.sandbox.local import LocalSandbox  # noqa: E402

STEP = """
import pandas as pd
df = pd.read_csv('data.csv')
summary = df.groupby('region').agg(total=('amount', 'sum'), n=('amount', 'size'))
summary.to_excel('output/summary.xlsx')
print(len(df))
"""
MAKE_CSV = ("python3 -c \"import random; random.seed(1); f = open('data.csv', 'w'); f.write('id,region,amount,note\\n'); "
            "[f.write(f'{i},r{random.randint(1, 40)},{random.random() * 1000:.2f},item number {i} of the extract\\n') "
            "for i in range(120000)]\"; du -k data.csv")


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _worker_pid(sb: LocalSandbox) -> int:
    agent = sb._state["agent_pid"]
    kids = Path(f"/proc/{agent}/task/{agent}/children").read_text().split()
    return int(kids[0])


async def pandas_step(steps: int) -> dict[str, object]:
    sb = LocalSandbox()
    await sb.start(None)
    try:
        made = await sb.run(MAKE_CSV, timeout=300)
        csv_kib = int(made.output.split()[0])
        await sb.run_python(STEP, timeout=300)  # warm-up: imports pandas once
        worker = _worker_pid(sb)
        warm_wall, warm_cpu = [], []
        for _ in range(steps):
            c0, t0 = _cpu_s(worker), time.perf_counter()
            r = await sb.run_python(STEP, timeout=300)
            warm_wall.append(time.perf_counter() - t0)
            warm_cpu.append(_cpu_s(worker) - c0)
            assert r.exit_code == 0, r.output
        idle_kib = _pss_kib(worker)
        cold_wall, cold_cpu = [], []
        quoted = STEP.replace("'", "'\"'\"'")
        for _ in range(steps):
            t0 = time.perf_counter()
            r = await sb.run(f"TIMEFORMAT='%U %S'; time python3 -c '{quoted}'", timeout=300)
            cold_wall.append(time.perf_counter() - t0)
            user, system = r.output.strip().splitlines()[-1].split()
            cold_cpu.append(float(user) + float(system))
    finally:
        await sb.close()
    med = statistics.median
    return {"csv_kib": csv_kib, "warm_wall_ms": round(med(warm_wall) * 1000, 1),
            "warm_cpu_ms": round(med(warm_cpu) * 1000, 1), "bash_wall_ms": round(med(cold_wall) * 1000, 1),
            "bash_cpu_ms": round(med(cold_cpu) * 1000, 1),
            "wall_ratio": round(med(cold_wall) / med(warm_wall), 2), "cpu_ratio": round(med(cold_cpu) / max(med(warm_cpu), 1e-3), 2),
            "idle_interpreter_kib": idle_kib}


async def many(n: int) -> dict[str, object]:
    boxes = [LocalSandbox() for _ in range(n)]
    t0 = time.perf_counter()
    await asyncio.gather(*(b.start(None) for b in boxes))
    started = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        await asyncio.gather(*(b.run_python("import pandas as pd\nx = 1", timeout=600) for b in boxes))
        warmed = time.perf_counter() - t0
        pss = sum(_pss_kib(_worker_pid(b)) for b in boxes)
        t0 = time.perf_counter()
        res = await asyncio.gather(*(b.run_python("x + 1", timeout=600) for b in boxes))
        cell = time.perf_counter() - t0
    finally:
        await asyncio.gather(*(b.close() for b in boxes))
    return {"episodes": n, "start_all_s": round(started, 2), "warm_all_s": round(warmed, 2),
            "one_cell_each_s": round(cell, 3), "all_answered": all(r.output.strip() == "2" for r in res),
            "interpreters_pss_mib": round(pss / 1024, 1)}


_START = """
import asyncio, json, statistics, time
from jobenv.sandbox.local import LocalSandbox
async def main():
    ts = []
    for _ in range({n}):
        sb = LocalSandbox(); t = time.perf_counter(); await sb.start(None); ts.append(time.perf_counter() - t)
        await sb.close()
    print(json.dumps(statistics.median(ts[2:]) * 1000))
asyncio.run(main())
"""


def start_compare(rounds: int, n: int) -> dict[str, object]:
    with_tc, without = [], []
    for _ in range(rounds):
        for bucket, extra in ((with_tc, {}), (without, {"JOBENV_TOOLCHAIN": "none"})):
            out = subprocess.run([sys.executable, "-c", _START.format(n=n)], capture_output=True, text=True,
                                 env={**os.environ, **extra}, check=True).stdout
            bucket.append(json.loads(out))
    a, b = statistics.median(with_tc), statistics.median(without)
    return {"with_toolchain_p50_ms": round(a, 2), "without_p50_ms": round(b, 2), "mount_cost_ms": round(a - b, 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--start-rounds", type=int, default=3)
    args = ap.parse_args()
    tc = toolchain.active_toolchain()
    out: dict[str, object] = {"toolchain": None if tc is None else {
        "root": tc.root, "size_mib": round(tc.manifest.size_bytes / 2**20), "install_s": tc.manifest.seconds,
        "packages": len(tc.manifest.packages)}}
    out["pandas_step"] = asyncio.run(pandas_step(args.steps))
    out["many"] = asyncio.run(many(args.episodes))
    out["start"] = start_compare(args.start_rounds, 22)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
