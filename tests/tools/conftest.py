"""Fixtures for tool tests: a small task folder with real text, office and SQLite files, and a runner that
starts a real local sandbox, hands a Toolbox to a test coroutine and always closes the sandbox."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest


def _make_task_folder(root: Path) -> Path:
    folder = root / "task_folder"
    (folder / "data" / "nested").mkdir(parents=True)
    (folder / "TASK_INSTRUCTIONS.txt").write_text("Summarise the sales.\nLocal Reference Files:\n- sales.csv\n")
    (folder / "notes.txt").write_text("".join(f"line {i}\n" for i in range(1, 51)))
    (folder / "sales.csv").write_text("region,amount\nNorth,120\nSouth,80\nnorth,5\n")
    (folder / "data" / "nested" / "deep.csv").write_text("k,v\nalpha,1\n")
    (folder / "data" / "readme.md").write_text("# Data\nAlpha and BETA.\n")
    (folder / "blob.bin").write_bytes(b"\x00\x01\x02binary\x00" * 10)
    (folder / "latin1.txt").write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))

    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Budget"
    ws.append(["item", "cost"])
    ws.append(["laptop", 1450])
    ws.append(["desk", 320])
    wb.save(folder / "budget.xlsx")

    import docx

    d = docx.Document()
    d.add_heading("Quarterly memo", level=1)
    d.add_paragraph("Revenue grew by 17 percent.")
    d.save(folder / "memo.docx")

    con = sqlite3.connect(folder / "crm.db")
    con.execute("create table customers (id integer primary key, name text)")
    con.executemany("insert into customers(name) values (?)", [("Ada",), ("Grace",)])
    con.commit()
    con.close()
    return folder


@pytest.fixture
def task_folder(tmp_path: Path) -> Path:
    return _make_task_folder(tmp_path)


@pytest.fixture
def with_tools(task_folder: Path) -> Callable[[Callable[..., Awaitable[Any]]], Any]:
    """``with_tools(async_fn)`` runs ``async_fn(toolbox, sandbox)`` in a fresh local sandbox."""
    from jobenv.sandbox import make_sandbox
    from jobenv.tools import Toolbox

    def run(fn: Callable[..., Awaitable[Any]]) -> Any:
        async def main() -> Any:
            sb = make_sandbox("local")
            await sb.start(task_folder)
            try:
                return await fn(Toolbox(sb), sb)
            finally:
                await sb.close()

        return asyncio.run(main())

    return run
