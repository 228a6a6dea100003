"""Hostile deliverables: for each crafted file, the trainer's peak RSS growth and the wall time of one ``read``
step (episode time limit ``--time-limit``) and of grading a folder holding it; then ``--episodes`` concurrent
episodes, a tenth of them hostile, which must all end with status ok while the honest ones keep reward 1.
Prints one JSON object; targets: RSS growth under 256 MB, step time under the time limit + 1 s.

    python benchmarks/hostile_bench.py [--episodes 300] [--concurrency 300] [--time-limit 3]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jobenv.env import JobEnv  # noqa: E402
from jobenv.extract.service import extraction_service  # noqa: E402
from jobenv.sandbox import make_sandbox  # noqa: E402
from jobenv.tasks import load_task_dir  # noqa: E402
from jobenv.tools import Toolbox  # noqa: E402


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


H = _load("hostile_files", ROOT / "tests" / "support" / "hostile_files.py")
HOSTILE_NAME = "a" * 200
HOSTILE_GLOB = "*a" * 12 + "*c"


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class PeakRss:
    """Samples this process's RSS every 5 ms; ``growth`` is the peak above the level at entry."""

    def __enter__(self) -> PeakRss:
        self.base = self.peak = rss_mb()
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, rss_mb())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._t.join()
        self.growth = round(self.peak - self.base, 1)


def make_task(root: Path, crafted: bool) -> Any:
    d = root / ("hostile" if crafted else "honest") / "task1"
    folder = d / "task_folder"
    folder.mkdir(parents=True)
    (folder / "TASK_INSTRUCTIONS.txt").write_text("Write output/answer.md stating the total of 600.\n")
    if crafted:
        H.slow_sqlite(folder)
        H.glyph_pdf(folder)
        H.shared_strings_xlsx(folder, mb=40)
        H.printf_sqlite(folder, rows=2)
    (d / "RUBRICS.json").write_text(json.dumps({"rubrics": [{
        "rubric": "States the total", "weight": 1, "criterion": ["The answer states the total of 600"],
        "jobenv_checks": [{"kind": "number", "file": "answer.md", "value": 600}],
    }]}))
    return load_task_dir(d, "bench")


async def crafted_steps(root: Path, time_limit: float) -> dict[str, Any]:
    """One read step (and one glob) per crafted file in a real local sandbox, and grading folders of them."""
    folder = root / "crafted"
    folder.mkdir()
    files = {
        "zero_member_xlsx (500 MB member)": H.zero_member_xlsx(folder, mb=500),
        "shared_strings_xlsx (48 MB strings)": H.shared_strings_xlsx(folder, mb=48),
        "shared_strings_xlsx (30 MB, under budget)": H.shared_strings_xlsx(folder, mb=30, name="strings30.xlsx"),
        "glyph_pdf (300,000 glyphs)": H.glyph_pdf(folder),
        "slow_sqlite (generated columns)": H.slow_sqlite(folder),
        "printf_sqlite (100 MB values)": H.printf_sqlite(folder),
    }
    sb = make_sandbox("local")
    await sb.start(folder)
    out: dict[str, Any] = {}
    try:
        tb = Toolbox(sb)
        await sb.run(f"truncate -s 700M output/sparse.txt && truncate -s 700M output/sparse.xlsx && "
                     f"touch output/{HOSTILE_NAME}")
        steps = [(label, "read", {"file_path": f"task_folder/{p.name}"}) for label, p in files.items()]
        steps += [("sparse 700 MB .txt", "read", {"file_path": "output/sparse.txt"}),
                  ("sparse 700 MB .xlsx", "read", {"file_path": "output/sparse.xlsx"}),
                  ("catastrophic glob (k=12, 200-char name)", "glob", {"pattern": HOSTILE_GLOB}),
                  ("catastrophic ls ignore", "ls", {"path": "output", "ignore": [HOSTILE_GLOB]})]
        for label, tool, args in steps:
            tb.deadline = time.monotonic() + time_limit
            with PeakRss() as rss:
                t0 = time.perf_counter()
                r = await tb.call(tool, args)
                took = time.perf_counter() - t0
            out[label] = {"step_s": round(took, 2), "rss_growth_mb": rss.growth, "ok": r.ok,
                          "within_targets": took < time_limit + 1 and rss.growth < 256,
                          "says": r.text.splitlines()[1 if r.text.startswith("[/workspace") else 0][:100]}
    finally:
        await sb.close()
    # grading: each crafted file in an output folder, and 40 x 190 KB files, through the bounded extraction
    svc = extraction_service()
    for label, p in [*files.items(), ("40 x 190 KB text files", None)]:
        d = root / "grade" / str(abs(hash(label)))
        d.mkdir(parents=True)
        if p is None:
            H.many_text_files(d)
        else:
            (d / p.name).write_bytes(p.read_bytes())
        with PeakRss() as rss:
            t0 = time.perf_counter()
            ex = await svc.extract_output(d)
            took = time.perf_counter() - t0
        row = out.setdefault(label, {})
        row.update(grade_extract_s=round(took, 2), grade_rss_growth_mb=rss.growth, judge_text_chars=len(ex.text))
    return out


async def episode(task: Any, hostile: bool, time_limit: float) -> tuple[str, float, list[tuple[str, float, float]]]:
    """One episode; its status and reward come from the step that ended it (submit, or the time limit). Also
    returns each step's (tool, wall seconds, seconds on the episode's clock after it)."""
    env = JobEnv([task], sandbox="local", judge="checks", max_steps=None, time_limit_s=max(120.0, time_limit * 40))
    actions: list[dict[str, Any]] = []
    if hostile:
        actions += [{"name": "read", "arguments": {"file_path": f"task_folder/{n}"}}
                    for n in ("slow.db", "glyphs.pdf", "strings.xlsx", "huge_values.db")]
        actions += [{"name": "bash", "arguments": {"command": "cp task_folder/*.db task_folder/*.pdf task_folder/*.xlsx output/"}},
                    {"name": "glob", "arguments": {"pattern": HOSTILE_GLOB}}]
    actions += [{"name": "write", "arguments": {"file_path": "output/answer.md", "content": "Total: 600\n"}},
                {"name": "submit", "arguments": {}}]
    steps: list[tuple[str, float, float]] = []
    try:
        t0 = time.perf_counter()
        await env.areset()
        steps.append(("reset", round(time.perf_counter() - t0, 2), round(env.elapsed_s, 2)))
        for action in actions:
            t0 = time.perf_counter()
            _, reward, done, truncated, info = await env.astep(action)
            steps.append((action["name"], round(time.perf_counter() - t0, 2), round(env.elapsed_s, 2)))
            if done or truncated:
                return str(info.get("status")), float(reward), steps
        return "never ended", 0.0, steps
    finally:
        await env.aclose()


async def many_episodes(root: Path, n: int, concurrency: int, time_limit: float) -> dict[str, Any]:
    honest, hostile = make_task(root / "tasks", False), make_task(root / "tasks", True)
    sem = asyncio.Semaphore(concurrency)
    kinds = [i % 10 == 0 for i in range(n)]

    slow: list[dict[str, Any]] = []
    clocks: dict[bool, list[float]] = {True: [], False: []}

    async def one(h: bool) -> tuple[bool, str, float]:
        async with sem:
            try:
                status, reward, steps = await episode(hostile if h else honest, h, time_limit)
            except Exception as exc:  # counted, never hidden
                status, reward, steps = f"raised {type(exc).__name__}: {exc}", 0.0, []
            if status != "ok":
                slow.append({"hostile": h, "status": status, "steps": steps})
            # the episode's clock when it submitted (the last step before submit): the headroom to the limit
            clocks[h].append(steps[-2][2] if len(steps) >= 2 else 0.0)
            return h, status, reward

    with PeakRss() as rss:
        t0 = time.perf_counter()
        results = await asyncio.gather(*(one(h) for h in kinds))
        took = time.perf_counter() - t0
    statuses: dict[str, int] = {}
    for _, s, _ in results:
        statuses[s] = statuses.get(s, 0) + 1
    honest_rewards = [r for h, _, r in results if not h]
    return {
        "episodes": n, "hostile": sum(kinds), "concurrency": concurrency, "wall_s": round(took, 1),
        "statuses": statuses, "all_ok": statuses == {"ok": n},
        "honest_reward_mean": round(sum(honest_rewards) / max(1, len(honest_rewards)), 4),
        "honest_all_full_reward": all(r == 1.0 for r in honest_rewards),
        "trainer_rss_growth_mb": rss.growth,
        "time_limit_s": max(120.0, time_limit * 40),
        "clock_at_submit_s": {("hostile" if h else "honest"): {"p50": sorted(v)[len(v) // 2], "max": max(v)}
                              for h, v in clocks.items() if v},
        "not_ok_steps": slow[:10],  # (tool, wall s, episode clock s) of episodes that did not end ok
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=300)
    ap.add_argument("--concurrency", type=int, default=300)
    ap.add_argument("--time-limit", type=float, default=3.0)
    ap.add_argument("--skip-episodes", action="store_true")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="jobenv-hostile-bench-"))
    extraction_service().wait_ready()
    result: dict[str, Any] = {"time_limit_s": args.time_limit, "workers": extraction_service().limits.workers,
                              "cpus": os.cpu_count(), "load_avg_1m": os.getloadavg()[0]}
    result["crafted"] = asyncio.run(crafted_steps(root, args.time_limit))
    if not args.skip_episodes:
        result["concurrent"] = asyncio.run(many_episodes(root, args.episodes, args.concurrency, args.time_limit))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
