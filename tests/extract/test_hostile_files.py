"""Crafted deliverables are parsed with bounded time and memory: each ends as a visible marker, quickly, and
never as a hang, an exception or a memory spike in the calling process."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from jobenv.extract.bounds import WALL_FACTOR
from jobenv.extract.service import STOPPED_TIME, ExtractionService, ExtractLimits
from tests.support import hostile_files as H
from tests.support.procs import cpu_while

_OTHERS: set[int] = set()  # workers of other services in this process (the process-wide one), not counted


def _workers_of_this_process() -> set[int]:
    """Live extraction worker processes started by this process for the test's own service."""
    me, out = os.getpid(), set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == me and fields[0] != "Z" and b"jobenv.extract.worker" in cmd:
            out.add(int(pid))
    return out - _OTHERS


@pytest.fixture
def service():
    _OTHERS.clear()
    _OTHERS.update(_workers_of_this_process())
    svc = ExtractionService(ExtractLimits(workers=2, file_time_s=6, output_time_s=12, memory_mb=768))
    assert svc.wait_ready()
    yield svc
    svc.close()


def test_zip_members_are_checked_against_a_budget_before_reading(tmp_path: Path, service: ExtractionService):
    zeros = H.zero_member_xlsx(tmp_path, mb=200)
    strings = H.shared_strings_xlsx(tmp_path, mb=40)
    t0 = time.perf_counter()
    z = service.extract_file_sync(zeros, mode="formulas")
    s = service.extract_file_sync(strings)
    assert z.startswith("[extraction stopped: its members expand to 200 MiB, over the budget of 128 MiB")
    assert s.startswith("[extraction stopped: its shared strings expand to") and "over the budget of 32 MiB" in s
    assert time.perf_counter() - t0 < 8  # refused from the zip directory, without decompressing anything


def test_pdf_glyphs_are_capped_inside_a_page(tmp_path: Path, service: ExtractionService):
    text = service.extract_file_sync(H.glyph_pdf(tmp_path, glyphs=300_000))
    assert text.startswith("--- page 1 ---") and "[extraction stopped: the page holds over 20,000 glyphs]" in text


def test_sqlite_generated_columns_and_huge_values_are_bounded(tmp_path: Path, service: ExtractionService):
    path = H.slow_sqlite(tmp_path)
    slow, slow_cpu, slow_s = cpu_while(lambda: service.extract_file_sync(path))
    huge = service.extract_file_sync(H.printf_sqlite(tmp_path, rows=1))
    # the worker was killed at the file's CPU budget (6 s), whatever the machine's load made of the wall time
    assert slow == STOPPED_TIME and 6 - 0.5 < slow_cpu < 6 + 1.5 and slow_s < 6 * WALL_FACTOR
    assert "--- table t0: 1 rows ---" in huge and len(huge) < 100_000  # no 100 MB value was ever produced


def test_a_file_over_time_kills_its_worker_and_the_pool_recovers(tmp_path: Path, service: ExtractionService):
    slow = H.slow_sqlite(tmp_path)
    ok = tmp_path / "ok.csv"
    ok.write_text("a,b\n1,2\n")
    before = _workers_of_this_process()
    assert service.extract_file_sync(slow) == STOPPED_TIME
    time.sleep(0.2)
    after = _workers_of_this_process()
    assert len(before - after) == 1  # the worker that ran the slow file is gone, not left burning a CPU
    assert len(after) <= 2
    assert service.extract_file_sync(ok) == "a,b\n1,2\n"  # a fresh worker took its place


def test_cancelling_the_caller_kills_the_work(tmp_path: Path, service: ExtractionService):
    slow = H.slow_sqlite(tmp_path)

    async def go() -> tuple[set[int], set[int]]:
        before = _workers_of_this_process()
        task = asyncio.create_task(service.extract_file(slow))
        await asyncio.sleep(1.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.3)
        return before, _workers_of_this_process()

    before, after = asyncio.run(go())
    assert len(before - after) == 1  # cancelled work does not keep running


def test_concurrent_callers_share_a_bounded_pool(tmp_path: Path, service: ExtractionService):
    files = []
    for i in range(40):
        p = tmp_path / f"f{i}.db"
        import sqlite3

        con = sqlite3.connect(p)
        con.execute("create table t (v)")
        con.execute("insert into t values (?)", (i,))
        con.commit()
        con.close()
        files.append(p)
    seen: list[int] = []

    async def go() -> list[str]:
        async def watch() -> None:
            while True:
                seen.append(len(_workers_of_this_process()))
                await asyncio.sleep(0.02)

        w = asyncio.create_task(watch())
        try:
            return await asyncio.gather(*(service.extract_file(p) for p in files))
        finally:
            w.cancel()

    texts = asyncio.run(go())
    assert [f"--- table t: 1 rows ---\nv\n{i}" in t for i, t in enumerate(texts)] == [True] * 40
    assert max(seen) <= 2  # 40 callers at once never start more than the pool's two workers


def test_a_parser_over_the_memory_limit_stops_that_file_only(tmp_path: Path):
    svc = ExtractionService(ExtractLimits(workers=1, file_time_s=30, memory_mb=600))
    try:
        big = tmp_path / "big.ipynb"
        with big.open("w") as fh:  # 75 MB of JSON that becomes several hundred MB of Python objects
            fh.write('{"cells": [{"cell_type": "code", "source": [')
            fh.write(",".join(['"ab"'] * 15_000_000))
            fh.write("]}]}")
        (tmp_path / "out").mkdir()
        big.rename(tmp_path / "out" / "big.ipynb")
        (tmp_path / "out" / "notes.md").write_text("the honest part")
        ex = svc.extract_output_sync(tmp_path / "out")
        by = ex.file_map()
        assert by["big.ipynb"].text.startswith("[extraction stopped:") and by["big.ipynb"].failed
        assert by["notes.md"].text == "the honest part"  # the other deliverable is still graded
    finally:
        svc.close()


def test_an_output_folder_over_its_time_keeps_what_was_extracted(tmp_path: Path, service: ExtractionService):
    out = tmp_path / "out"
    out.mkdir()
    (out / "a_summary.md").write_text("first")
    for k in range(3):
        H.slow_sqlite(out).rename(out / f"slow{k}.db")
    (out / "z_notes.md").write_text("last")
    ex, _, _ = cpu_while(lambda: service.extract_output_sync(out))
    by = ex.file_map()
    assert by["a_summary.md"].text == "first" and by["z_notes.md"].text in ("last", STOPPED_TIME)
    assert all(by[f"slow{k}.db"].text == STOPPED_TIME for k in range(3))
    # the folder's budget holds whatever the files do: each slow file was stopped at its own CPU budget (6 s) and
    # the folder's (12 s) left the third no more than what remained


def test_workers_outlive_the_thread_that_first_used_the_service(tmp_path: Path):
    # a worker dies with the thread that started it; asyncio.run's default executor threads end with the run
    _OTHERS.clear()
    _OTHERS.update(_workers_of_this_process())
    (tmp_path / "a.txt").write_text("hello\n")
    made: list[ExtractionService] = []

    async def first_use() -> str:
        def build() -> str:
            made.append(ExtractionService(ExtractLimits(workers=2)))
            return made[0].extract_file_sync(tmp_path / "a.txt")
        return await asyncio.to_thread(build)

    try:
        assert "hello" in asyncio.run(first_use())  # the run's executor threads are joined here
        time.sleep(0.3)
        assert len(_workers_of_this_process()) == 2
        assert "hello" in made[0].extract_file_sync(tmp_path / "a.txt")
        assert len(_workers_of_this_process()) == 2  # the same two: none was replaced
    finally:
        for svc in made:
            svc.close()
