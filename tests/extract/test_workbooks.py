"""Workbook extraction with real files written by openpyxl, with and without LibreOffice.

``engine`` runs each test twice: once with LibreOffice headless (installed by ``setup.sh --dev``; its
absence is a failure, not a skip) and once with ``soffice`` hidden from PATH, so the pure-Python
``formulas`` engine does the work as it would on a bare machine.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from jobenv.extract import extract_file, extract_output, formula_values
from jobenv.extract.recalc import recalculate, soffice_path
from jobenv.extract.sheets import fit_lines, share_budget, value_cells

LABEL = {"libreoffice": "LibreOffice", "formulas": "formulas"}


@pytest.fixture(params=["libreoffice", "formulas"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("JOBENV_RECALC", raising=False)
    if request.param == "libreoffice":
        assert soffice_path(), "LibreOffice (soffice) is missing: ./setup.sh --dev installs libreoffice-calc-nogui"
    else:
        monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # soffice hidden, as on a bare machine
        assert soffice_path() is None
    return str(request.param)


def budget_book(path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Costs"
    ws.append(["Item", "Amount"])
    for item, amount in (("Rent", 100), ("Staff", 200), ("Travel", 300)):
        ws.append([item, amount])
    ws["A5"] = "Total"
    ws["B5"] = "=SUM(B2:B4)"  # openpyxl writes no cached value
    ws["D5"] = '=IF(B5>500,"over","under")'
    wb.create_sheet("Notes").append(["checked by", "Ana"])
    wb.save(path)


def with_cached_value(path: Path, out: Path, formula: str, cached: str) -> None:
    """Copy of an openpyxl workbook where one formula carries a (stale) cached value, as Excel would save it."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                needle = f"<f>{formula}</f><v></v>".encode()
                assert needle in data
                data = data.replace(needle, f"<f>{formula}</f><v>{cached}</v>".encode())
            dst.writestr(info, data)


def test_formula_without_cached_value_shows_its_value(engine: str, tmp_path: Path) -> None:
    budget_book(tmp_path / "b.xlsx")
    text = extract_file(tmp_path / "b.xlsx")
    assert f"every formula recalculated by {LABEL[engine]}" in text.splitlines()[0]
    assert f"B5: =SUM(B2:B4); cached: none; recalculated ({engine}): 600" in text
    assert f'D5: =IF(B5>500,"over","under"); cached: none; recalculated ({engine}): "over"' in text
    # the grid, with row numbers and column letters, carries the value itself
    assert "Values (CSV; row numbers and column letters):\nrow,A,B,D\n1,Item,Amount,\n" in text
    assert "5,Total,600,over" in text
    assert "--- sheet: Notes ---" in text and "1,checked by,Ana" in text
    assert formula_values(tmp_path / "b.xlsx") == {"Costs": {"B5": 600, "D5": "over"}}


def test_stale_cached_value_is_recalculated_and_flagged(engine: str, tmp_path: Path) -> None:
    budget_book(tmp_path / "b.xlsx")
    with_cached_value(tmp_path / "b.xlsx", tmp_path / "stale.xlsx", "SUM(B2:B4)", "999")
    text = extract_file(tmp_path / "stale.xlsx")
    assert f"B5: =SUM(B2:B4); cached: 999; recalculated ({engine}): 600 [STALE CACHE" in text
    assert "5,Total,600,over" in text and "999," not in text.split("Values (CSV")[1]
    assert "1 cached value(s) disagree with the recalculation" in text
    # an honest cache is not flagged
    with_cached_value(tmp_path / "b.xlsx", tmp_path / "fresh.xlsx", "SUM(B2:B4)", "600")
    assert "STALE" not in extract_file(tmp_path / "fresh.xlsx")


def test_without_any_engine_formulas_are_marked_never_blank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBENV_RECALC", "none")
    budget_book(tmp_path / "b.xlsx")
    with_cached_value(tmp_path / "b.xlsx", tmp_path / "stale.xlsx", "SUM(B2:B4)", "999")
    text = extract_file(tmp_path / "b.xlsx")
    assert "no engine could run (recalculation switched off)" in text
    assert "5,Total,[not calculated],[not calculated]" in text
    assert "B5: =SUM(B2:B4); cached: none; not calculated by any engine" in text
    text = extract_file(tmp_path / "stale.xlsx")
    assert "5,Total,999 [cached; not recalculated],[not calculated]" in text


def test_volatile_functions_are_not_recalculated_but_marked(tmp_path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active["A1"] = "=TODAY()"
    wb.active["B1"] = "=1+1"
    wb.save(tmp_path / "v.xlsx")
    text = extract_file(tmp_path / "v.xlsx")
    assert "not recalculated (volatile or external functions)" in text and "Sheet!A1" in text
    assert "1,[not calculated],[not calculated]" in text  # as the official judge: no partial recalculation


def test_calculation_errors_are_shown_with_their_code(engine: str, tmp_path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append([10, 0, "=A1/B1", "=NOSUCHFUNCTION(A1)"])
    wb.save(tmp_path / "e.xlsx")
    text = extract_file(tmp_path / "e.xlsx")
    assert "1,10,0,#DIV/0! [calculation error],#NAME? [calculation error]" in text
    assert "2 formula cell(s) give a calculation error" in text
    assert ("functions it does not implement" in text) is (engine == "formulas")


def test_far_cells_keep_their_coordinates(tmp_path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "header"
    ws["F40"] = "far away"
    ws["B7"] = '=""'  # a formula giving "": a blank value row, counted as omitted
    wb.save(tmp_path / "far.xlsx")
    text = extract_file(tmp_path / "far.xlsx")
    assert "row,A,F\n1,header,\n40,,far away" in text
    assert "non-empty value rows: 2; blank value rows omitted: 1" in text
    assert 'B7: ="""";' in text or "B7: =\"\"" in text


def test_fill_down_copies_are_grouped_and_formulas_mode_lists_all(engine: str, tmp_path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["qty", "price", "total"])
    for r in range(2, 102):
        ws.append([r, 2, f"=A{r}*B{r}"])
    wb.save(tmp_path / "fill.xlsx")
    text = extract_file(tmp_path / "fill.xlsx")
    assert (f"C2:C101: 100 formulas filled down from C2 (=A2*B2); cached none: 100, zero: 0; "
            f"recalculated ({engine}): 100, blank 0, errors 0, stale caches 0") in text
    assert "C50: =A50*B50" not in text  # more than 32 formulas: the range line stands for them
    assert "101,101,2,202" in text
    full = extract_file(tmp_path / "fill.xlsx", mode="formulas")
    assert f"C50: =A50*B50; cached: none; recalculated ({engine}): 100" in full


def test_one_budget_shared_across_sheets_head_and_tail_kept(tmp_path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Big"
    for i in range(1, 3001):
        ws.append([i, f"row {i}"])
    wb.create_sheet("Small").append(["after", "the big one"])
    wb.create_sheet("Tiny").append(["last"])
    wb.save(tmp_path / "big.xlsx")
    text = extract_file(tmp_path / "big.xlsx", cap=20_000)
    assert len(text) <= 20_000
    assert "1,1,row 1\n2,2,row 2" in text and "3000,3000,row 3000" in text  # head and tail
    assert "of 3,000 value rows omitted here by jobenv" in text
    assert "--- sheet: Small ---" in text and "1,after,the big one" in text  # later sheets are whole
    assert "--- sheet: Tiny ---" in text and "1,last" in text
    whole = extract_file(tmp_path / "big.xlsx", cap=None)
    assert "1500,1500,row 1500" in whole and "omitted here" not in whole
    ex = extract_output(tmp_path, cap=20_000)
    assert ex.files[0].truncated


def test_write_only_workbook_without_dimension_record(engine: str, tmp_path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Stream")
    ws.append(["k", "v"])
    for i in range(50):
        ws.append([i, "=1+1" if i == 3 else i * 2])
    wb.save(tmp_path / "w.xlsx")
    text = extract_file(tmp_path / "w.xlsx")
    assert "--- sheet: Stream ---" in text and "row,A,B\n1,k,v\n2,0,0\n" in text
    assert "5,3,2\n" in text and "51,49,98" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.xlsx"]  # no temporary files left behind


def test_recalculation_names_its_engine_and_is_cached(engine: str, tmp_path: Path) -> None:
    budget_book(tmp_path / "b.xlsx")
    first = recalculate(tmp_path / "b.xlsx")
    assert first.engine == engine and LABEL[engine] in first.label
    assert first.get("Costs", "B5") is not None and first.get("Costs", "B5").value == 600
    assert recalculate(tmp_path / "b.xlsx") is first  # same bytes, same engine: no second run
    with pytest.raises(ValueError):
        recalculate(tmp_path / "b.xlsx", engine="excel")


def test_value_cells_skip_coordinates(tmp_path: Path) -> None:
    budget_book(tmp_path / "b.xlsx")
    cells = value_cells(extract_file(tmp_path / "b.xlsx"))
    assert "600" in cells and "Total" in cells and "5" not in cells  # the row number 5 is not a value


def test_budget_helpers() -> None:
    assert share_budget([10, 100, 1000], 500) == [10, 100, 390]
    assert share_budget([300, 300], 400) == [200, 200]
    lines = [f"line {i}" for i in range(100)]
    out = fit_lines(lines, 200, "rows")
    assert len(out) <= 200 and out.startswith("line 0\n") and out.endswith("line 99")
    assert "of 100 rows omitted here" in out
    assert fit_lines(lines[:3], 200, "rows") == "line 0\nline 1\nline 2"


def test_judge_text_carries_the_recalculated_value(engine: str, tmp_path: Path) -> None:
    """What the LLM judge is sent (through the real client) holds the value openpyxl never wrote."""
    from jobenv.judge import LLMJudge
    from tests.judge.conftest import make_task, n_criteria, prompt_text, verdict
    from tests.support.openai_server import OpenAIServer

    out = tmp_path / "out"
    out.mkdir()
    budget_book(out / "budget.xlsx")
    task = make_task(tmp_path, [{"rubric": "Totals the costs", "weight": 1, "criterion": ["Total is 600"]}])

    def judge(req: dict[str, Any]) -> str:
        return json.dumps(verdict(n_criteria(req)))

    with OpenAIServer(judge) as srv:
        rep = LLMJudge(base_url=srv.base_url, api_key="k", model="m", cache_dir=False).grade_sync(task, out)
        text = prompt_text(srv.requests[0])
    assert rep.status == "ok"
    assert "===== FILE: budget.xlsx =====" in text and "5,Total,600,over" in text and LABEL[engine] in text


def test_values_a_grader_reads_are_what_the_formulas_compute(engine: str, tmp_path: Path) -> None:
    """Correct answers written as formulas show their value; a wrong formula behind a right-looking cache, a
    wrong formula, a blind answer and mere row numbers do not show 600 among the values."""
    import openpyxl

    def book(name: str, total: str | int | None, filler: int = 0) -> Path:
        path = tmp_path / f"{name}.xlsx"
        wb = openpyxl.Workbook()
        ws = wb.active
        for item, amount in (("Rent", 100), ("Staff", 200), ("Travel", 300)):
            ws.append([item, amount])
        if total is not None:
            ws.append(["Total", total])
        for _ in range(filler):
            ws.append(["note", "see above"])
        wb.save(path)
        return path

    def values(path: Path) -> list[str]:
        return value_cells(extract_file(path))

    assert "600" in values(book("formula", "=SUM(B1:B3)"))  # no cached value: only recalculation shows 600
    assert "600" in values(book("literal", 600))
    wrong = book("wrong", "=SUM(B1:B2)")
    assert "300" in values(wrong) and "600" not in values(wrong)
    with_cached_value(wrong, tmp_path / "stale.xlsx", "SUM(B1:B2)", "600")  # right number, stale, wrong formula
    assert "600" not in values(tmp_path / "stale.xlsx") and "300" in values(tmp_path / "stale.xlsx")
    assert "600" not in values(book("blind", None))
    filled = book("rownum", None, filler=600)  # row numbers are coordinates, not values
    assert "\n600,note,see above" in extract_file(filled) and "600" not in values(filled)


def test_workbooks_recalculated_ahead_in_one_run_read_as_they_read_one_by_one(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A generator's gates grade a dozen answer workbooks in a row: one LibreOffice run recalculates them all, and
    each then reads exactly as its own run would have read it, without starting LibreOffice again; a file that is
    not a workbook is left for its own reading to report."""
    import openpyxl

    from jobenv.extract import recalc

    monkeypatch.delenv("JOBENV_RECALC", raising=False)
    assert soffice_path(), "LibreOffice (soffice) is missing: ./setup.sh --dev installs libreoffice-calc-nogui"
    paths = []
    for k in range(3):
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.append(["units", "price", "revenue"])
        for i in range(5):
            ws.append([i + k, 2.5, f"=A{i + 2}*B{i + 2}"])
        ws["D1"] = f'=IF(SUM(C2:C6)>{30 + k},"over","under")'
        paths.append(tmp_path / f"book{k}.xlsx")
        wb.save(paths[-1])
    (tmp_path / "broken.xlsx").write_bytes(b"not a workbook")
    one_by_one = [recalculate(p) for p in paths]
    assert one_by_one[2].get("Sheet", "C6").value == 15.0
    recalc._cache.clear()
    recalc._converted.clear()

    assert recalc.recalculate_batch([str(p) for p in [*paths, tmp_path / "broken.xlsx"]]) == 3

    def no_second_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("LibreOffice started again for a workbook recalculated ahead")

    with monkeypatch.context() as m:
        m.setattr(recalc.subprocess, "run", no_second_run)
        ahead = [recalculate(p) for p in paths]
    assert [r.cells for r in ahead] == [r.cells for r in one_by_one]
    assert all(r.engine == "libreoffice" for r in ahead)
    broken = recalculate(tmp_path / "broken.xlsx")
    assert broken.engine == "none" and "produced no file" in broken.note


def test_the_checks_recalculate_an_output_ahead_without_changing_its_reading(tmp_path: Path) -> None:
    import openpyxl

    from jobenv.extract.service import ExtractionService, ExtractLimits, extraction_service
    from jobenv.judge.checks import recalculate_ahead

    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    for rel, rate in (("b.xlsx", 1.25), ("sub/c.xlsx", 3.5)):
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.append(["path", "hours", "rate", "cost"])
        ws.append([str(tmp_path), 8, rate, "=B2*C2"])  # bytes no earlier test wrote: nothing is cached yet
        wb.save(out / rel)
    (out / "notes.md").write_text("cost: see the workbooks\n", encoding="utf-8")
    assert recalculate_ahead(out) == 2
    assert recalculate_ahead(out) == 0  # already recalculated
    ahead = extraction_service().extract_output_sync(out, mode="formulas").text
    fresh = ExtractionService(ExtractLimits(workers=1))
    try:
        plain = fresh.extract_output_sync(out, mode="formulas").text
    finally:
        fresh.close()
    assert ahead == plain
    assert "recalculated (libreoffice): 28" in ahead and "recalculated (libreoffice): 10" in ahead
