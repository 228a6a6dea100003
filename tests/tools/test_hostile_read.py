"""``read`` on crafted files: bounded time (the episode's deadline), no huge file pulled into this process."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.support import hostile_files as H


@pytest.mark.timeout(120)
def test_read_of_a_slow_database_ends_by_the_episode_deadline(task_folder, with_tools):
    H.slow_sqlite(task_folder)

    async def go(tb, sb):
        from jobenv.extract.service import extraction_service

        # workers still importing their parsers (slow on a loaded machine) are not the read's time
        assert await asyncio.to_thread(extraction_service().wait_ready, 120)
        tb.deadline = time.monotonic() + 3.0  # the episode has 3 s left
        t0 = time.perf_counter()
        r = await tb.call("read", {"file_path": "task_folder/slow.db"})
        return r, time.perf_counter() - t0

    r, took = with_tools(go)
    assert r.ok and "[extraction stopped: over the time budget]" in r.text
    assert took < 3.0 + 1.5


def test_read_refuses_a_huge_sparse_file_without_loading_it(with_tools):
    async def go(tb, sb):
        await sb.run("truncate -s 700M output/huge.txt && truncate -s 700M output/huge.xlsx")
        t0 = time.perf_counter()
        txt = await tb.call("read", {"file_path": "output/huge.txt"})
        xlsx = await tb.call("read", {"file_path": "output/huge.xlsx"})
        return txt, xlsx, time.perf_counter() - t0

    txt, xlsx, took = with_tools(go)
    for r in (txt, xlsx):
        assert not r.ok and r.metadata["error"] == "too_large" and "700.0 MB" in r.text and "bash" in r.text
    assert took < 5


def test_read_of_crafted_office_and_pdf_files_shows_markers(task_folder, with_tools):
    H.glyph_pdf(task_folder, glyphs=300_000)
    H.shared_strings_xlsx(task_folder, mb=40)

    async def go(tb, sb):
        return (await tb.call("read", {"file_path": "task_folder/glyphs.pdf"}),
                await tb.call("read", {"file_path": "task_folder/strings.xlsx"}))

    pdf, xlsx = with_tools(go)
    assert pdf.ok and "[extraction stopped: the page holds over 20,000 glyphs]" in pdf.text
    assert xlsx.ok and "[extraction stopped: its shared strings expand to" in xlsx.text
