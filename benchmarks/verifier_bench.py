"""The Harbor verifier's cost by the number of test files, printed as JSON (Harbor v2 issue 48: 488 test files
must grade within 2x the time of 3).

    .venv/bin/python benchmarks/verifier_bench.py [--docker-image jobenv-test:minbase] [--no-docker] [--runs 3]

Per backend: the wall time of one whole grading (``HarborVerifier.grade``: the verifier's sandbox started over a
copy of a small workdir, the tests staged as one archive, a test.sh that counts them, the reward read and the
sandbox closed) for a task with 3 and with 488 files in ``tests/``, and their ratio: the first grading of each
task (its tests' archive made) and the median of the next ``--runs`` (the archive reused, as a trainer grading
one task many times has it). Target: 488 files within 2x the time of 3.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jobenv  # noqa: E402
from jobenv.harbor.verifier import HarborVerifier  # noqa: E402

TOML = "version = \"1.0\"\n[verifier]\ntimeout_sec = 120\n[environment]\nmemory_mb = 1024\n"
TEST_SH = ("#!/bin/bash\nn=$(find /tests/ -type f | wc -l)\n[ \"$n\" = {n} ] && echo 1 > /logs/verifier/reward.txt "
           "|| echo 0 > /logs/verifier/reward.txt\n")


def make_task(root: Path, n_files: int, image: str) -> Path:
    """A Harbor task with ``n_files`` files in tests/ (test.sh among them), checking that all arrived."""
    (root / "environment" / "files").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "task.toml").write_text(TOML)
    (root / "instruction.md").write_text("Write the total to /app/total.txt.\n")
    (root / "environment" / "files" / "data.csv").write_text("id,amount\n1,1000\n")
    (root / "environment" / "Dockerfile").write_text(f"FROM {image}\nWORKDIR /app\nCOPY files/ /app/data/\n")
    (root / "tests" / "test.sh").write_text(TEST_SH.format(n=n_files))
    for i in range(n_files - 1):
        f = root / "tests" / "cases" / f"g{i % 10}" / f"case_{i:03d}.py"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"VALUE = {i}\n" + "# padding\n" * 20)
    return root


async def grade_once(verifier: HarborVerifier, task: Any, output: Path) -> float:
    t0 = time.perf_counter()
    report = await verifier.grade(task, output)
    if report.status != "ok" or report.normalized_score != 1.0:
        raise SystemExit(f"the grading failed: {report.error or report.verifier}")
    return time.perf_counter() - t0


def bench(backend: str, image: str, runs: int, tmp: Path) -> dict[str, Any]:
    """Gradings of the two tasks alternate, so that a load change on a shared machine hits both alike."""
    options: dict[str, Any] = {"image": image} if backend == "docker" else {}
    verifier = HarborVerifier(backend, **options)
    cases = {}
    for n in (3, 488):
        root = make_task(tmp / f"{backend}-{n}" / "task", n, image)
        (task,) = jobenv.load_tasks(str(root))
        output = tmp / f"{backend}-{n}" / "out"
        (output / "data").mkdir(parents=True)
        (output / "data" / "data.csv").write_text("id,amount\n1,1000\n")
        cases[n] = (task, output)
    times: dict[int, list[float]] = {3: [], 488: []}
    for _ in range(runs + 1):
        for n, (task, output) in cases.items():
            times[n].append(asyncio.run(grade_once(verifier, task, output)))
    out: dict[str, Any] = {}
    for n, ts in times.items():
        out[f"files_{n}_first_s"] = round(ts[0], 3)  # the tests' archive made (later gradings reuse it)
        out[f"files_{n}_s"] = round(statistics.median(ts[1:]), 3)
    out["ratio_488_over_3"] = round(out["files_488_s"] / out["files_3_s"], 2)
    out["ratio_first_488_over_3"] = round(out["files_488_first_s"] / out["files_3_first_s"], 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docker-image", default="jobenv-test:minbase")
    ap.add_argument("--no-docker", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="jobenv-verifier-bench-") as tmp:
        result["local"] = bench("local", args.docker_image, args.runs, Path(tmp))
        if not args.no_docker:
            result["docker"] = bench("docker", args.docker_image, args.runs, Path(tmp))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
