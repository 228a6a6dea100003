"""Rollout throughput and event-loop lag with many concurrent scripted episodes (prints one JSON object).

Each episode is real: a local sandbox per episode, a scripted policy served by the loopback
OpenAI-compatible server (tests/support/openai_server.py) and reached through the real ``openai`` client,
the checks judge grading on submit, one trajectory line per episode appended and fsynced. The default
script is the reference-solution agent (ls + read, write solution files, run them with bash, clean up,
submit); ``--script light`` skips running the solution (ls + read, submit), which isolates the
collector's own overhead from the CPU the solutions need.

Event-loop lag is measured by a ticker coroutine that asks to sleep ``--tick-ms`` and records how late it
wakes up; lag is what every other coroutine waits on top of its own work. CPU seconds per episode count this
process and its reaped children (the sandboxes), not the policy server.

    python benchmarks/rollout_bench.py --episodes 256 --concurrency 256
    python benchmarks/rollout_bench.py --script light --sizes 64,256,1000      # the scale table and targets
    python benchmarks/rollout_bench.py --script light --executor all --episodes 64   # local vs Ray 1 / 2 nodes

Targets (``--sizes``; each size runs that many episodes, all at once): at 1,000 loop-lag p99 < 100 ms and no
episode error; at 256 p99 < 50 ms; reset p50 under load within 5x the idle reset p50. A reset step starts once
the episode holds a start slot (``collect(start_concurrency=None)``: one per usable CPU for local sandboxes,
``start_slots`` in the output); the wait for that slot is printed beside it (``reset_wait_s``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# a `tests` package installed in site-packages by some dependency would shadow ours (a namespace package)
_tests = types.ModuleType("tests")
_tests.__path__ = [str(ROOT / "tests")]  # type: ignore[attr-defined]
sys.modules["tests"] = _tests

import jobenv  # noqa: E402
from jobenv.rollout import OpenAIChatPolicy, collect  # noqa: E402
from jobenv.sandbox import start_slots  # noqa: E402
from tests.rollout.scripted import ScriptedAgent  # noqa: E402
from tests.support.openai_server import OpenAIServer  # noqa: E402


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(math.ceil(q * len(s))) - 1)]


class _StallTracer:
    """Diagnostics: a thread that samples the event loop thread's stack whenever the loop has not run a
    callback for ``threshold_s``; ``report`` prints the commonest stalled stacks to stderr."""

    def __init__(self, threshold_s: float) -> None:
        self.threshold_s = threshold_s
        self.last = time.monotonic()
        self.hits: dict[str, int] = {}
        self._stop = threading.Event()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        ident = threading.get_ident()

        def beat() -> None:
            self.last = time.monotonic()
            if not self._stop.is_set():
                loop.call_later(self.threshold_s / 4, beat)

        def watch() -> None:
            while not self._stop.wait(self.threshold_s / 4):
                if time.monotonic() - self.last > self.threshold_s:
                    frame = sys._current_frames().get(ident)
                    if frame is not None:
                        st = traceback.extract_stack(frame)[::-1]
                        key = " <- ".join(f"{Path(f.filename).name}:{f.lineno}:{f.name}" for f in st
                                          if "importlib" not in f.filename and "asyncio" not in f.filename)[:600]
                        self.hits[key] = self.hits.get(key, 0) + 1

        beat()
        threading.Thread(target=watch, daemon=True).start()

    def report(self) -> None:
        self._stop.set()
        for key, n in sorted(self.hits.items(), key=lambda kv: -kv[1])[:10]:
            print(f"[stall x{n}] {key}", file=sys.stderr)


def _cpu_s() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _runqueue_s() -> float:
    """Seconds this thread has spent runnable but waiting for a CPU (Linux schedstat; 0 elsewhere)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def _own_cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


async def _idle_reset_s(tasks: list, sandbox: str, n: int = 5) -> float:
    """Median reset time of one env with nothing else running (the baseline of the reset target)."""
    from jobenv.env import JobEnv

    env = JobEnv(tasks, sandbox=sandbox, judge="checks")
    times = []
    try:
        for i in range(n + 1):
            t = time.perf_counter()
            await env.areset(options={"index": i % len(tasks)})
            times.append(time.perf_counter() - t)
    finally:
        await env.aclose()
    return statistics.median(times[1:])  # the first reset warms caches up


async def _run(args: argparse.Namespace, policy: OpenAIChatPolicy, tasks: list, out: Path,
               ray_address: str | None = None) -> dict:
    lags: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        period = args.tick_ms / 1000
        while not stop.is_set():
            t = time.perf_counter()
            await asyncio.sleep(period)
            lags.append(max(0.0, time.perf_counter() - t - period))

    async def idle_lag(seconds: float) -> list[float]:
        # the same ticker on an idle loop: what the shared machine alone costs (a baseline for the ratio)
        out: list[float] = []
        period = args.tick_ms / 1000
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            t = time.perf_counter()
            await asyncio.sleep(period)
            out.append(max(0.0, time.perf_counter() - t - period))
        return out

    idle = await idle_lag(args.idle_s)
    idle_reset = await _idle_reset_s(tasks, args.sandbox)
    stalls = _StallTracer(args.tick_ms / 1000 * 20) if args.trace_stalls else None
    attempts = math.ceil(args.episodes / len(tasks))
    tick = asyncio.create_task(ticker())
    if stalls is not None:
        stalls.start(asyncio.get_running_loop())
    t0, cpu0, own0, loop0, rq0 = time.perf_counter(), _cpu_s(), _own_cpu_s(), time.thread_time(), _runqueue_s()
    prof = None
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()  # this thread only: the event loop's
    ray_kw = {"executor": "ray", "ray_address": ray_address, "per_node": args.concurrency} if ray_address else {}
    res = await collect(tasks, policy, env_id=args.env, attempts=attempts, concurrency=args.concurrency, out=out,
                        env_kwargs={"sandbox": args.sandbox, "judge": "checks"}, max_steps=50,
                        start_concurrency=args.start_concurrency, **ray_kw)
    wall, cpu = time.perf_counter() - t0, _cpu_s() - cpu0
    own, loop_cpu, loop_rq = _own_cpu_s() - own0, time.thread_time() - loop0, _runqueue_s() - rq0
    if prof is not None:
        prof.disable()
        prof.dump_stats(args.profile)
    stop.set()
    await tick
    if stalls is not None:
        stalls.report()
    await policy.aclose()
    trajs = res.trajectories
    statuses: dict[str, int] = {}
    for t in trajs:
        statuses[t.status] = statuses.get(t.status, 0) + 1
    s = res.summary()
    tool_s = [st.duration_s for t in trajs for st in t.steps if st.kind == "tool"]
    model_s = [st.duration_s for t in trajs for st in t.steps if st.kind == "model"]
    reset_s = [st.duration_s for t in trajs for st in t.steps if st.kind == "reset"]
    # an episode waits for a start slot before its reset step begins: that queue is reported, not hidden
    reset_wait_s = [st.start_s for t in trajs for st in t.steps if st.kind == "reset"]
    return {
        "episodes": len(trajs),
        "concurrency": args.concurrency,
        "attempts_per_task": attempts,
        "tasks": len(tasks),
        "script": args.script,
        "wall_s": round(wall, 3),
        "episodes_per_s": round(len(trajs) / wall, 3),
        "cpu_s_per_episode": round(cpu / max(1, len(trajs)), 4),
        "collector_cpu_s_per_episode": round(own / max(1, len(trajs)), 4),
        "loop_thread_busy": round(loop_cpu / wall, 3),
        "loop_thread_runnable_waiting": round(loop_rq / wall, 3),  # ready to run, waiting for a CPU
        "tool_calls_per_s": round(sum(t.num_tool_calls for t in trajs) / wall, 2),
        "model_calls_per_s": round(sum(t.num_turns for t in trajs) / wall, 2),
        "statuses": statuses,
        "mean_reward": s.overall.mean_reward,
        "episode_s": {"p50": round(statistics.median([t.duration_s for t in trajs]), 3),
                      "max": round(max(t.duration_s for t in trajs), 3)},
        "reset_s_p50": round(statistics.median(reset_s), 4) if reset_s else None,
        "idle_reset_s_p50": round(idle_reset, 4),
        "start_slots": args.start_concurrency or start_slots(args.sandbox),
        "reset_wait_s": {"p50": round(_pct(reset_wait_s, 0.5), 3), "max": round(max(reset_wait_s, default=0.0), 3)},
        "tool_call_s": {"p50": round(_pct(tool_s, 0.5), 4), "p99": round(_pct(tool_s, 0.99), 4)},
        "model_call_s": {"p50": round(_pct(model_s, 0.5), 4), "p99": round(_pct(model_s, 0.99), 4)},
        "loop_lag_ms": {
            "tick_ms": args.tick_ms,
            "samples": len(lags),
            "mean": round(1000 * statistics.fmean(lags), 3) if lags else None,
            "p50": round(1000 * _pct(lags, 0.5), 3),
            "p99": round(1000 * _pct(lags, 0.99), 3),
            "max": round(1000 * max(lags), 3) if lags else None,
        },
        "idle_loop_lag_ms": {
            "seconds": args.idle_s,
            "mean": round(1000 * statistics.fmean(idle), 3) if idle else None,
            "p50": round(1000 * _pct(idle, 0.5), 3),
            "p99": round(1000 * _pct(idle, 0.99), 3),
            "max": round(1000 * max(idle), 3) if idle else None,
        },
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "trajectory_bytes": _trajectory_bytes(out, len(trajs)),
    }


def _trajectory_bytes(out: Path, episodes: int) -> dict:
    """Bytes per episode line (tool schemas and repeated texts are records of their own, once per file), the
    whole file per episode, and the object store next to it (full grading reports and saved deliverables)."""
    from jobenv.rollout.store import objects_dir

    lines = out.read_bytes().splitlines()
    sizes = [len(line) for line in lines if json.loads(line).get("record", "episode") == "episode"]
    store = objects_dir(out)
    store_bytes = sum(f.stat().st_size for f in store.rglob("*") if f.is_file()) if store.is_dir() else 0
    return {
        "episode_line_mean": round(statistics.fmean(sizes)) if sizes else None,
        "episode_line_max": max(sizes) if sizes else None,
        "file_per_episode": round(out.stat().st_size / max(1, episodes)),
        "object_store_per_episode": round(store_bytes / max(1, episodes)),
    }


def _agent(args: argparse.Namespace, tasks: list) -> ScriptedAgent:
    if args.script == "light":
        return ScriptedAgent(tasks, prelude=[[{"name": "ls", "arguments": {"path": "task_folder"}},
                                              {"name": "read", "arguments": {"file_path": "task_folder/TASK_INSTRUCTIONS.txt"}}]],
                             skip_solution=True)
    return ScriptedAgent(tasks)


def _serve(args: argparse.Namespace, tasks: list) -> None:
    """Child process: serve the scripted policy until stdin closes, then print the agent's counters."""
    agent = _agent(args, tasks)
    with OpenAIServer(agent) as srv:
        print(srv.base_url, flush=True)
        sys.stdin.read()
    print(json.dumps({"peak": agent.peak, "problems": len(agent.problems)}), flush=True)


def _ray_cluster(nodes: int, cpus: int) -> object:
    """A local Ray cluster of ``nodes`` nodes on this machine (Ray's own test-cluster API)."""
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": cpus, "include_dashboard": False})
    for _ in range(nodes - 1):
        c.add_node(num_cpus=cpus)
    c.wait_for_nodes()
    return c


def measure(args: argparse.Namespace, tasks: list, ray_address: str | None = None) -> dict:
    """One rollout of ``args.episodes`` episodes, ``args.concurrency`` at once; its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "traj.jsonl"
        if args.server == "thread":
            agent = _agent(args, tasks)
            with OpenAIServer(agent) as srv:
                policy = OpenAIChatPolicy("scripted", base_url=srv.base_url, api_key="bench", max_retries=3)
                result = asyncio.run(_run(args, policy, tasks, out, ray_address))
            counters = {"peak": agent.peak, "problems": len(agent.problems)}
        else:
            child = subprocess.Popen([sys.executable, __file__, "--serve", "--script", args.script,
                                      *(["--tasks-dir", args.tasks_dir] if args.tasks_dir else ["--env", args.env])],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                base_url = child.stdout.readline().strip()  # type: ignore[union-attr]
                policy = OpenAIChatPolicy("scripted", base_url=base_url, api_key="bench", max_retries=3)
                result = asyncio.run(_run(args, policy, tasks, out, ray_address))
                child.stdin.close()  # type: ignore[union-attr]
                counters = json.loads(child.stdout.readline())  # type: ignore[union-attr]
            finally:
                if child.poll() is None:
                    child.kill()
                child.wait()
    result["server"] = args.server
    result["server_peak_inflight"] = counters["peak"]
    result["policy_protocol_problems"] = counters["problems"]
    return result


def _targets(rows: dict[int, dict]) -> dict:
    out: dict[str, object] = {}
    for size, limit in ((1000, 100.0), (256, 50.0)):
        r = rows.get(size)
        if r is not None:
            p99 = r["loop_lag_ms"]["p99"]
            errors = sum(n for k, n in r["statuses"].items() if k != "ok")
            out[f"at_{size}"] = {"loop_lag_p99_ms": p99, "limit_ms": limit, "episode_errors": errors,
                                 "met": p99 < limit and (errors == 0 or size != 1000)}
    out["reset_under_load"] = {
        str(size): {"p50_s": r["reset_s_p50"], "idle_p50_s": r["idle_reset_s_p50"],
                    "ratio": round(r["reset_s_p50"] / max(1e-9, r["idle_reset_s_p50"]), 2),
                    "met": r["reset_s_p50"] <= 5 * r["idle_reset_s_p50"]}
        for size, r in rows.items() if r.get("reset_s_p50") is not None}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=256)
    p.add_argument("--concurrency", type=int, default=256)
    p.add_argument("--sizes", default=None,
                   help="comma-separated sizes (e.g. 64,256,1000): each runs that many episodes at once; prints "
                        "the scale table and the targets")
    p.add_argument("--executor", choices=["local", "ray", "all"], default="local",
                   help="local: one event loop here; ray: a local Ray cluster with one node, then two; all: both")
    p.add_argument("--sandbox", default="local")
    p.add_argument("--start-concurrency", type=int, default=None,
                   help="sandboxes starting at once (default: the backend's figure for this machine)")
    p.add_argument("--script", choices=["solution", "light"], default="solution")
    p.add_argument("--tick-ms", type=float, default=10.0)
    p.add_argument("--env", default="jobenv/sample", help="env id whose tasks have solution/solve.py")
    p.add_argument("--tasks-dir", default=None, help="a <occupation>/taskN tree to use instead of --env")
    p.add_argument("--server", choices=["process", "thread"], default="process",
                   help="run the policy server in its own process (default) or in threads of this one (its "
                        "threads then compete with the event loop for the GIL)")
    p.add_argument("--idle-s", type=float, default=3.0, help="seconds of idle-loop lag measured first (baseline)")
    p.add_argument("--trace-stalls", action="store_true", help="print the stacks that stalled the loop (stderr)")
    p.add_argument("--profile", default=None, help="write a cProfile of the event loop's thread to this file")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.tasks_dir:
        from jobenv.datasets import load_tree

        tasks = load_tree(Path(args.tasks_dir), "sample")
    else:
        tasks = jobenv.load_tasks(args.env)
    if args.serve:
        _serve(args, tasks)
        return
    report: dict[str, object] = {"cpus": os.cpu_count()}
    if args.sizes:
        rows: dict[int, dict] = {}
        for size in (int(x) for x in args.sizes.split(",")):
            args.episodes = args.concurrency = size
            rows[size] = measure(args, tasks)
            print(f"size {size}: {rows[size]['episodes_per_s']} eps/s, {rows[size]['cpu_s_per_episode']} CPU s/ep, "
                  f"loop lag p99 {rows[size]['loop_lag_ms']['p99']} ms, statuses {rows[size]['statuses']}",
                  file=sys.stderr, flush=True)
        report["scale"] = {str(k): {"episodes": r["episodes"], "episodes_per_s": r["episodes_per_s"],
                                    "cpu_s_per_episode": r["cpu_s_per_episode"], "loop_lag_ms": r["loop_lag_ms"],
                                    "reset_s_p50": r["reset_s_p50"], "idle_reset_s_p50": r["idle_reset_s_p50"],
                                    "reset_wait_s": r["reset_wait_s"], "start_slots": r["start_slots"],
                                    "collector_cpu_s_per_episode": r["collector_cpu_s_per_episode"],
                                    "statuses": r["statuses"], "wall_s": r["wall_s"]} for k, r in rows.items()}
        report["targets"] = _targets(rows)
        report["idle_loop_lag_ms"] = next(iter(rows.values()))["idle_loop_lag_ms"]
    else:
        runs: dict[str, dict] = {}
        if args.executor in ("local", "all"):
            runs["local"] = measure(args, tasks)
        if args.executor in ("ray", "all"):
            import ray

            for nodes in (1, 2):
                cluster = _ray_cluster(nodes, cpus=max(1, (os.cpu_count() or 2) // nodes))
                try:
                    runs[f"ray_{nodes}_node{'s' if nodes > 1 else ''}"] = measure(args, tasks, cluster.address)  # type: ignore[attr-defined]
                finally:
                    ray.shutdown()
                    cluster.shutdown()  # type: ignore[attr-defined]
        if len(runs) == 1:
            report.update(next(iter(runs.values())))
        else:
            report["runs"] = runs
            base = runs.get("local", {}).get("episodes_per_s")
            report["episodes_per_s"] = {k: r["episodes_per_s"] for k, r in runs.items()}
            if base:
                report["ratio_to_local"] = {k: round(r["episodes_per_s"] / base, 3) for k, r in runs.items()}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
