"""Agentic judge and Harbor task benchmark; prints one JSON object.

1. One graded episode with the agentic judge against a scripted judge on loopback that takes 200 ms per call and
   inspects with three tool calls before its verdict: steps, tokens and wall time.
2. 16 agentic gradings at once on this machine: wall time, peak memory of this process (RSS), and the sandboxes
   left afterwards (must be 0).
3. Starting a Harbor task (``jobenv.make(path)`` + ``reset``: the Harbor layout and the workdir alias) versus the
   native sample task, median of 10 resets each, in the same run; on the local backend, and on the Docker backend
   (the Harbor task's Dockerfile built from the local image ``jobenv-test:minbase``, the native task in that same
   image; the first reset, which builds the image, reported apart).

Run: .venv/bin/python benchmarks/agentic_bench.py
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import jobenv  # noqa: E402
from jobenv.judge.agentic import AgenticJudge  # noqa: E402
from jobenv.tasks import Task, parse_rubrics  # noqa: E402


def _load(name: str, rel: str):  # by file path: another installed "tests" package may shadow ours
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / rel)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


_server = _load("jobenv_bench_openai_server", "tests/support/openai_server.py")
_procs = _load("jobenv_bench_procs", "tests/support/procs.py")
DELAY_S = 0.2
N_CRITERIA = 20


def _handler(req: dict):
    k = sum(1 for m in req["messages"] if m["role"] == "assistant")
    inspect = [{"name": "bash", "arguments": {"command": "cat output/memo.md | wc -c"}},
               {"name": "read", "arguments": {"file_path": "output/memo.md"}},
               {"name": "grep", "arguments": {"pattern": "total", "path": "output"}}]
    if k < len(inspect):
        return _server.Reply(tool_calls=[inspect[k]], delay_s=DELAY_S)
    verdicts = [{"index": i, "passed": True, "reasoning": "checked", "evidence": {"file": "output/memo.md",
                                                                                 "location": "line 1"}}
                for i in range(N_CRITERIA)]
    return _server.Reply(tool_calls=[{"name": "verdict", "arguments": {"verdicts": verdicts}}], delay_s=DELAY_S)


def _task(root: Path) -> Task:
    (root / "task_folder").mkdir(parents=True, exist_ok=True)
    rubrics = [{"rubric": f"Criterion {i}", "weight": 1, "criterion": [f"holds {i}"]} for i in range(N_CRITERIA)]
    return Task(split="bench", occupation="bench", number=1, instructions="Write the memo.",
                task_folder=root / "task_folder", rubrics=parse_rubrics({"rubrics": rubrics}), root=root)


def bench_agentic(tmp: Path) -> dict:
    from jobenv.sandbox.local import drain_warm_sandboxes

    task = _task(tmp / "task")
    out = tmp / "output"
    out.mkdir()
    (out / "memo.md").write_text("The total is 41,250.\n" * 50)
    with _server.OpenAIServer(_handler) as srv:
        judge = AgenticJudge(base_url=srv.base_url, api_key="k", model="bench")
        judge.grade_sync(task, out)  # warm-up
        t0 = time.perf_counter()
        one = judge.grade_sync(task, out)
        single = time.perf_counter() - t0
        assert one.status == "ok" and one.normalized_score == 1.0, one.error
        drain_warm_sandboxes()
        before = set(_procs.descendants(os.getpid()))

        async def many() -> list:
            return await asyncio.gather(*(judge.grade(task, out) for _ in range(16)))

        t0 = time.perf_counter()
        reports = asyncio.run(many())
        wall16 = time.perf_counter() - t0
        drain_warm_sandboxes()
        left = len(set(_procs.descendants(os.getpid())) - before)
    assert all(r.status == "ok" for r in reports), [r.error for r in reports if r.status != "ok"]
    return {"judge_delay_s": DELAY_S, "criteria": N_CRITERIA,
            "one": {"steps": one.agentic["steps"], "tokens": one.usage.total_tokens, "wall_s": round(single, 3),
                    "model_wait_s": round(DELAY_S * one.agentic["steps"], 3)},
            "sixteen_at_once": {"wall_s": round(wall16, 3), "vs_one": round(wall16 / single, 2),
                                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                                "sandboxes_left": left}}


def bench_harbor_start(tmp: Path) -> dict:
    root = tmp / "harbor-task"
    (root / "environment" / "files").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "task.toml").write_text('schema_version = "1.4"\n[agent]\ntimeout_sec = 600\n')
    (root / "instruction.md").write_text("Sum the invoices into /app/total.txt.\n")
    (root / "environment" / "files" / "invoices.csv").write_text("id,amount\n1,1000\n2,250\n")
    (root / "environment" / "Dockerfile").write_text("FROM x\nWORKDIR /app\nCOPY files/ /app/data/\n")
    (root / "tests" / "test.sh").write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")

    def resets(env_id: str, **kw) -> float:
        env = jobenv.make(env_id, **kw)
        try:
            t0 = time.perf_counter()
            env.reset(options={"index": 0})  # warm-up (on docker: the Harbor image is built here)
            first.append(time.perf_counter() - t0)
            times = []
            for _ in range(10):
                t0 = time.perf_counter()
                env.reset(options={"index": 0})
                times.append(time.perf_counter() - t0)
            return statistics.median(times)
        finally:
            env.close()

    first: list[float] = []
    harbor, native = resets(str(root)), resets("jobenv/sample")
    out: dict = {"local": {"harbor_reset_ms": round(harbor * 1000, 2), "native_reset_ms": round(native * 1000, 2),
                           "ratio": round(harbor / native, 2)}}
    image = "jobenv-test:minbase"
    try:
        from jobenv.harbor.image import image_tag
        from jobenv.harbor.spec import read_task_dir
        from jobenv.sandbox.docker import docker_client

        client = docker_client()
        client.images.get(image)
        (root / "environment" / "Dockerfile").write_text(f"FROM {image}\nWORKDIR /app\nCOPY files/ /app/data/\n")
        tag = image_tag(read_task_dir(root))
        try:
            client.images.remove(tag)  # so the first reset really builds
        except Exception:
            pass
        first.clear()
        harbor, native = resets(str(root), sandbox="docker"), resets("jobenv/sample", sandbox="docker",
                                                                     sandbox_image=image, judge="checks")
        out["docker"] = {"harbor_first_reset_with_build_ms": round(first[0] * 1000, 1),
                         "harbor_reset_ms": round(harbor * 1000, 2), "native_reset_ms": round(native * 1000, 2),
                         "ratio": round(harbor / native, 2)}
        client.close()
    except Exception as exc:  # no engine or no test image: say so in the result
        out["docker"] = {"skipped": f"{type(exc).__name__}: {exc}"}
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        result = {"agentic_judge": bench_agentic(Path(tmp)), "harbor_start": bench_harbor_start(Path(tmp))}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
