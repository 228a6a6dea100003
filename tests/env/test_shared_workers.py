"""An episode's clock leaves out the time its tools queue for the process's shared extraction workers: other
episodes' files cause that wait, so it must neither truncate the episode nor cut its own file short."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from jobenv.env import JobEnv
from jobenv.extract.service import STOPPED_TIME, ExtractLimits, configure_extraction
from jobenv.tasks import load_task_dir
from tests.support import hostile_files as H
from tests.support.tasks import write_task

RUBRICS = {"rubrics": [{"rubric": "States the total", "weight": 1, "criterion": ["The total is 200"],
                        "jobenv_checks": [{"kind": "number", "file": "report.md", "value": 200}]}]}


def _db(path: Path) -> bytes:
    con = sqlite3.connect(path)
    con.execute("create table sales (region text, amount int)")
    con.executemany("insert into sales values (?, ?)", [("North", 120), ("South", 80)])
    con.commit()
    con.close()
    return path.read_bytes()


def test_queueing_behind_another_episodes_slow_file_is_not_the_episodes_time(tmp_path: Path):
    task = load_task_dir(write_task(tmp_path / "t" / "clerks" / "task1", rubrics=RUBRICS, extras=False,
                                    files={"sales.db": _db(tmp_path / "sales.db")}), "t")
    slow = H.slow_sqlite(tmp_path)
    service = configure_extraction(ExtractLimits(workers=1, file_time_s=5))
    try:
        async def main() -> tuple[str, bool, float, str, float, str]:
            env = JobEnv([task], judge="checks", time_limit_s=3, max_steps=10)
            try:
                await env.areset()
                hog = asyncio.create_task(service.extract_file(slow))  # holds the only worker for ~5 s
                await asyncio.sleep(0.3)
                obs, _, _, truncated, _ = await env.astep({"name": "read", "arguments": {"file_path": "task_folder/sales.db"}})
                elapsed = env.elapsed_s
                await env.astep({"name": "write", "arguments": {"file_path": "output/report.md", "content": "Total: 200\n"}})
                _, reward, terminated, _, info = await env.astep({"name": "submit"})
                return obs, truncated or not terminated, elapsed, info["status"], reward, await hog
            finally:
                await env.aclose()

        obs, cut, elapsed, status, reward, hogged = asyncio.run(main())
    finally:
        configure_extraction(ExtractLimits())
    assert hogged == STOPPED_TIME  # the other job really held the worker past this episode's whole limit
    assert "North" in obs and STOPPED_TIME not in obs  # the read got its full time once it had a worker
    assert not cut and status == "ok" and reward == 1.0
    assert elapsed < 3  # the ~5 s in the queue are not the episode's


def test_gradings_waiting_for_the_workers_leave_other_episodes_file_io_alone(tmp_path: Path):
    # twelve submits queue behind a slow job for the only worker; meanwhile an episode's tool steps (file I/O
    # on threads) must run at once: a grading that waited on a thread of the loop's small default executor
    # (six threads on two cores) used to take them all
    from jobenv.judge.checks import ChecksJudge

    task = load_task_dir(write_task(tmp_path / "t" / "clerks" / "task1", rubrics=RUBRICS, extras=False,
                                    files={"sales.db": _db(tmp_path / "sales.db")}), "t")
    slow = H.slow_sqlite(tmp_path)
    outs = []
    for i in range(12):
        out = tmp_path / f"out{i}"
        out.mkdir()
        (out / "report.md").write_text("Total: 200\n")
        outs.append(out)
    service = configure_extraction(ExtractLimits(workers=1, file_time_s=5))
    try:
        async def main() -> tuple[float, list[float], str]:
            env = JobEnv([task], judge="checks", max_steps=10)
            try:
                await env.areset()
                hog = asyncio.create_task(service.extract_file(slow))  # holds the only worker for ~5 s
                await asyncio.sleep(0.3)
                gradings = [asyncio.create_task(ChecksJudge().grade(task, out)) for out in outs]
                await asyncio.sleep(0.3)
                t0 = asyncio.get_running_loop().time()
                obs, _, _, _, _ = await env.astep({"name": "write", "arguments": {"file_path": "output/report.md",
                                                                                  "content": "Total: 200\n"}})
                await env.astep({"name": "ls", "arguments": {"path": "output"}})
                took = asyncio.get_running_loop().time() - t0
                reports = await asyncio.gather(*gradings)
                await hog
                return took, [r.normalized_score for r in reports], obs
            finally:
                await env.aclose()

        took, rewards, obs = asyncio.run(main())
    finally:
        configure_extraction(ExtractLimits())
    assert rewards == [1.0] * 12  # every grading did get its turn
    assert took < 2.0, f"two file steps took {took:.1f} s while gradings queued for the worker"
