"""The task's input tables are read in the grader's own process, so a crafted one (generated columns that cost
seconds a row, a workbook that inflates without end) must stop being read within a CPU budget."""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import openpyxl
import pytest

from jobenv.judge import substance
from tests.support.hostile_files import printf_sqlite, slow_sqlite


def test_a_crafted_input_stops_being_read_within_the_cpu_budget(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(substance, "_INPUT_CPU_S", 1.0)
    (tmp_path / "a_ledger.csv").write_text("account,amount\n4010,125.50\n")
    slow_sqlite(tmp_path)  # generated columns that cost a minute of CPU
    start = time.thread_time()
    tables = substance.input_tables(tmp_path)
    used = time.thread_time() - start
    assert used < 3.0, used
    assert [["account", "amount"], ["4010", "125.50"]] in tables  # what came before is kept


def test_a_workbook_that_inflates_past_the_cap_is_not_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["site", "visits"])
    ws.append(["North", 41])
    wb.save(tmp_path / "sites.xlsx")
    assert [["site", "visits"], ["North", 41]] in substance.input_tables(tmp_path)
    with zipfile.ZipFile(tmp_path / "sites.xlsx") as z:
        inflated = sum(i.file_size for i in z.infolist())
    monkeypatch.setattr(substance, "_INPUT_MAX_UNZIPPED", inflated - 1)
    assert substance.input_tables(tmp_path) == []


def test_an_input_of_huge_generated_values_is_refused_not_held_in_memory(tmp_path: Path) -> None:
    printf_sqlite(tmp_path)  # each row's generated columns are 100 MB strings
    (tmp_path / "z_sites.csv").write_text("site,visits\nNorth,41\n")
    tables = substance.input_tables(tmp_path)
    assert [["site", "visits"], ["North", "41"]] in tables
    cells = [v for table in tables for row in table for v in row]
    assert max(len(str(v)) for v in cells) <= substance._INPUT_MAX_VALUE
