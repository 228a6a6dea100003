"""Checks bound to meaning: labelled facts, professional number formats, identifiers, line-aware patterns,
tables as professionals lay them out, prohibitions that need substance, and copies that cannot hedge.

Every case is a deliverable written by a real library (openpyxl, python-docx) or as plain text, graded by
the one evaluator (jobenv.judge.checks.evaluate_rubrics / evaluate_check)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jobenv.check_models import parse_check
from jobenv.extract import extract_output
from jobenv.judge.checks import CheckContext, evaluate_check, evaluate_rubrics
from jobenv.judge.reading import facts_from_lines, find_numbers
from jobenv.tasks import parse_rubrics


def run(check: dict[str, Any], out: Path) -> tuple[bool, str]:
    return evaluate_check(parse_check(check), CheckContext(extract_output(out, with_images=False)))


def memo(tmp_path: Path, text: str, name: str = "memo.md") -> Path:
    out = tmp_path / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_text(text, encoding="utf-8")
    return out


# ---- numbers -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, value", [
    ("$41,250", 41250.0), ("41.3%", 41.3), ("(1,234)", -1234.0), ("1.2 million", 1.2e6), ("41.25k", 41250.0),
    ("\u22127", -7.0), ("USD 4,874.00", 4874.0), ("seven", 7.0), ("twenty-one", 21.0), ("2bn", 2e9),
])
def test_professional_number_formats(text: str, value: float) -> None:
    assert [n.value for n in find_numbers(text)] == [value]


def test_number_words_and_dates() -> None:
    assert [n.value for n in find_numbers("Seven of the 12 SKUs")] == [7.0, 12.0]
    assert [n.value for n in find_numbers("posted 2026-07-01, reviewed 7/1/2026")] == []
    assert find_numbers("5 km, 3 months, Q3")[0].value == 5.0 and len(find_numbers("5 km, 3 months, Q3")) == 2


# ---- labelled facts ----------------------------------------------------------------------------------------


def test_facts_from_lines_reads_markup_lists_and_tables() -> None:
    facts = facts_from_lines([
        "# Memo", "- **Decision:** ESCALATE", "1. Total salary (USD): 1,234.00", "| Premise confirmed | no |",
        "|---|---|", "Source file = data.csv", "Owner \u2014 Ana",
    ])
    assert facts["decision"] == ["ESCALATE"]
    assert facts["total salary"] == ["1,234.00"] and facts["total salary (usd)"] == ["1,234.00"]
    assert facts["premise confirmed"] == ["no"] and facts["source file"] == ["data.csv"] and facts["owner"] == ["Ana"]


DECISION = {"kind": "field", "file": "memo.md", "label": "Decision", "equals": "ESCALATE",
            "options": ["ESCALATE", "NO ESCALATION"]}
PREMISE = {"kind": "field", "file": "memo.md", "label": "Premise confirmed", "equals": "no", "options": ["yes", "no"]}


@pytest.mark.parametrize("text, expected", [
    ("Decision: ESCALATE\n", True),
    ("**Decision**: Escalate.\n", True),
    ("Decision: ESCALATE - two ranks are above the limit\n", True),
    ("| Decision | ESCALATE |\n", True),
    ("Decision: NO ESCALATION\n", False),
    ("Decision: ESCALATE\n\nDecision: NO ESCALATION\n", False),  # one label, two answers
    ("Decision: ESCALATE or NO ESCALATION\n", False),  # answered both ways
    ("The decision is to escalate.\n", False),  # no labelled field
])
def test_choice_field(tmp_path: Path, text: str, expected: bool) -> None:
    assert run(DECISION, memo(tmp_path, text))[0] is expected


@pytest.mark.parametrize("text, expected", [
    ("Premise confirmed: no\n", True),
    ("Premise confirmed: No - Professor, not Associate Professor, has the highest average.\n", True),
    ("Premise confirmed: no\nPremise confirmed: yes\n", False),
    ("Premise confirmed: yes/no\n", False),
    ("Premise confirmed: yes\n", False),
])
def test_binary_field_answered_both_ways_fails(tmp_path: Path, text: str, expected: bool) -> None:
    assert run(PREMISE, memo(tmp_path, text))[0] is expected


TOTAL = {"kind": "field", "file": "memo.md", "label": "Total salary", "number": 1234567.25, "tolerance": 0.005}


@pytest.mark.parametrize("text, expected", [
    ("Total salary: 1234567.25\n", True),
    ("Total salary: $1,234,567.25\n", True),
    ("Total salary (USD): 1,234,567.25 USD\n", True),
    ("Total salary: 1,234,567.25 (after removing 4 duplicate rows)\n", True),
    ("Total salary: 1,234,567.25 or 1,301,002.00\n", False),  # competing candidates
    ("Total salary: 1.23 million\n", False),  # not to the stated precision
    ("Total salary: 1,234,567.25\nTotal salary: 1,198,000.00\n", False),
    ("Total salary: 1,234,576.25\n", False),
])
def test_number_field(tmp_path: Path, text: str, expected: bool) -> None:
    assert run(TOTAL, memo(tmp_path, text))[0] is expected


def test_number_field_sign_convention_and_words(tmp_path: Path) -> None:
    over = {"kind": "field", "file": "memo.md", "label": "Over budget by", "number": -4874, "tolerance": 1,
            "sign": "either"}
    assert run(over, memo(tmp_path, "Over budget by: $4,874 more than the approved budget\n"))[0]
    exact = dict(over, sign="exact")
    assert not run(exact, memo(tmp_path, "Over budget by: $4,874\n"))[0]
    count = {"kind": "field", "file": "memo.md", "label": "SKUs needing a PO", "number": 7}
    assert run(count, memo(tmp_path, "SKUs needing a PO: Seven\n"))[0]
    for text in ("SKUs needing a PO: Seven of the 12\n", "SKUs needing a PO: 7/12\n", "SKUs needing a PO: 7 out of 12\n"):
        assert run(count, memo(tmp_path, text))[0], text  # the base is context, not a candidate
    assert not run(count, memo(tmp_path, "SKUs needing a PO: seven or twelve\n"))[0]  # 12 competes


def test_interval_field(tmp_path: Path) -> None:
    ci = {"kind": "field", "file": "memo.md", "label": "95% CI", "numbers": [-9.27, -1.68], "tolerance": 0.005}
    for text in ("95% CI: (-9.27, -1.68)\n", "95% CI: \u22129.27 to \u22121.68 mmHg\n", "95% CI: [-9.27; -1.68]\n"):
        assert run(ci, memo(tmp_path, text))[0], text
    assert not run(ci, memo(tmp_path, "95% CI: -9.27 to -1.68 (or -9.30 to -1.60)\n"))[0]


GROUPS = ["Professor", "Associate Professor", "Assistant Professor"]


@pytest.mark.parametrize("text, contains, excludes, expected", [
    ("Groups above limit: Professor; Associate Professor\n", ["Associate Professor"], ["Assistant Professor"], True),
    ("Groups above limit: Associate Professor and Professor. The nearest below is Assistant Professor.\n",
     ["Professor"], ["Assistant Professor"], True),  # a later sentence that compares explains
    ("Groups above limit: Associate Professor and Professor. Assistant Professor.\n",
     ["Professor"], ["Assistant Professor"], False),  # one that just names another group lists it
    ("Groups above limit: Professor. Assistant Professor may also qualify.\n",
     ["Professor"], ["Assistant Professor"], False),
    ("Groups above limit: Professor\n\nThe nearest group below the limit is Assistant Professor.\n",
     ["Professor"], ["Assistant Professor"], True),  # a later sentence is not read as part of the line
    ("Groups above limit: Professor; Associate Professor; Assistant Professor\n", ["Professor"],
     ["Assistant Professor"], False),
    ("Groups above limit: Professor (the nearest below is Assistant Professor)\n", ["Professor"],
     ["Assistant Professor"], True),
    ("Groups above limit: Professor (or Assistant Professor)\n", ["Professor"], ["Assistant Professor"], False),
])
def test_list_field(tmp_path: Path, text: str, contains: list[str], excludes: list[str], expected: bool) -> None:
    check = {"kind": "field", "file": "memo.md", "label": "Groups above limit", "options": GROUPS,
             "contains": contains, "excludes": excludes}
    assert run(check, memo(tmp_path, text))[0] is expected


def test_choice_field_with_group_options(tmp_path: Path) -> None:
    top = {"kind": "field", "file": "memo.md", "label": "Highest average salary", "equals": "Professor",
           "options": GROUPS}
    assert run(top, memo(tmp_path, "Highest average salary: Professor (126,772.10 USD)\n"))[0]
    assert not run(top, memo(tmp_path, "Highest average salary: Associate Professor\n"))[0]
    assert not run(top, memo(tmp_path, "Highest average salary: Professor; Associate Professor\n"))[0]


def test_docx_fields_read_paragraphs_and_tables(tmp_path: Path) -> None:
    import docx

    out = tmp_path / "out"
    out.mkdir()
    d = docx.Document()
    d.add_paragraph("Briefing")
    p = d.add_paragraph()
    p.add_run("Decision:").bold = True
    p.add_run(" ESCALATE")
    t = d.add_table(rows=2, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "Premise confirmed", "no"
    t.cell(1, 0).text, t.cell(1, 1).text = "Entities compared", "12"
    d.save(out / "briefing.docx")
    assert run(dict(DECISION, file="briefing.docx"), out)[0]
    assert run(dict(PREMISE, file="briefing.docx"), out)[0]
    assert run({"kind": "field", "file": "briefing.docx", "label": "Entities compared", "number": 12}, out)[0]


# ---- identifiers, patterns -----------------------------------------------------------------------------------


def test_identifiers_against_real_ids(tmp_path: Path) -> None:
    ids = ["MRN-004512", "MRN-118830"]
    none = {"kind": "ids", "file": "brief.md", "ids": ids, "present": "none", "digits": True}
    assert run(none, memo(tmp_path, "No identifiers. 198 index stays, 16.7%.\n", "brief.md"))[0]
    assert not run(none, memo(tmp_path, "Readmitted: 4512, 118830\n", "brief.md"))[0]  # bare numbers count
    assert not run(none, memo(tmp_path, "See mrn-004512\n", "brief.md"))[0]
    some = {"kind": "ids", "file": "brief.md", "ids": ["JE-2026-10670"]}
    assert run(some, memo(tmp_path, "Duplicate JE-2026-10670 removed\n", "brief.md"))[0]
    assert not run(some, memo(tmp_path, "Duplicate JE-2026-106701 removed\n", "brief.md"))[0]


def test_line_anchored_patterns_keep_lines(tmp_path: Path) -> None:
    check = {"kind": "text", "file": "memo.md", "regex": True, "pattern": r"(?m)^Groups above limit:[^\n]*Assistant"}
    assert not run(check, memo(tmp_path, "Groups above limit: Professor\nAssistant Professor is below.\n"))[0]
    assert run(check, memo(tmp_path, "Groups above limit: Professor; Assistant Professor\n"))[0]
    phrase = {"kind": "text", "file": "memo.md", "pattern": "Cedar Park Endodontics"}
    assert run(phrase, memo(tmp_path, "NSF check from Cedar Park\nEndodontics re-established.\n"))[0]


# ---- tables ----------------------------------------------------------------------------------------------------


def _workbook(path: Path, rows: list[list[Any]], *, pct_col: int | None = None, title: str = "Variance") -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = title
    for r in rows:
        ws.append(r)
    if pct_col is not None:
        for row in ws.iter_rows(min_row=1):
            cell = row[pct_col]
            if isinstance(cell.value, float):
                cell.number_format = "0.0%"
    wb.save(path)


def test_tables_with_title_total_and_footnote_rows(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    _workbook(out / "v.xlsx", [
        ["Q3 2026 variance review"], [], ["Cost Center", "Account", "Variance %", "Status"],
        ["CC-110", 6410, 0.112, "Investigate"], ["CC-330", 6530, -0.153, "Investigate"], ["CC-440", 6210, 0.3, "OK"],
        ["Total", None, 0.02, None], [], ["Note: variance % = variance / budget"],
    ], pct_col=2)
    count = {"kind": "row_count", "file": "v.xlsx", "count": 3, "key": "Cost Center", "sheet": "Variance"}
    assert run(count, out)[0]
    assert run({"kind": "row_count", "file": "v.xlsx", "count": 2, "where": {"Status": "Investigate"}}, out)[0]
    pct = {"kind": "cell", "file": "v.xlsx", "match": {"Cost Center": "CC-330", "Account": "6530"},
           "column": "Variance %", "value": -15.3, "tolerance": 0.051}
    assert run(pct, out)[0]  # -0.153 with a percent format reads as -15.3
    (out / "r.csv").write_text("service_line,index_stays,readmission_rate_pct (%)\nCardiology,53,26.4%\n"
                               "All,198,16.7%\n* rates per 100 index stays\n")
    assert run({"kind": "row_count", "file": "r.csv", "count": 2}, out)[0]
    assert run({"kind": "cell", "file": "r.csv", "match": {"service_line": "All"}, "column": "readmission_rate_pct",
                "value": 16.7, "tolerance": 0.051}, out)[0]


def test_formulas_without_cached_values_read_through_recalculation(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """openpyxl writes formulas without cached values: the checks read what the formulas compute (the same
    recalculation the LLM judge's extraction uses); with no engine the cell fails as uncomputed, never as blank."""
    out = tmp_path / "out"
    out.mkdir()
    _workbook(out / "v.xlsx", [["Line", "Budget", "Actual", "Variance", "Variance %"],
                               ["A", 100, 80, "=C2-B2", "=ROUND(D2/B2*100,1)"], ["B", 40, 50, "=C3-B3", "=D3/B3"]])
    import openpyxl

    wb = openpyxl.load_workbook(out / "v.xlsx")
    wb.active["E3"].number_format = "0.0%"
    wb.save(out / "v.xlsx")
    var = {"kind": "cell", "file": "v.xlsx", "match": {"Line": "A"}, "column": "Variance", "value": -20}
    pct = {"kind": "cell", "file": "v.xlsx", "match": {"Line": "B"}, "column": "Variance %", "value": 25, "tolerance": 0.05}
    assert run(var, out)[0] and run(pct, out)[0]
    assert run({"kind": "cell", "file": "v.xlsx", "match": {"Line": "A"}, "column": "Variance %", "value": -20.0}, out)[0]
    monkeypatch.setenv("JOBENV_RECALC", "none")
    ok, ev = run(var, out)
    assert not ok and "formula" in ev


def test_duplicate_rows_and_sheets_cannot_hedge(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "s.csv").write_text("rank,total\nProfessor,100\nProfessor,120\n")
    assert not run({"kind": "cell", "file": "s.csv", "match": {"rank": "Professor"}, "column": "total",
                    "value": 100}, out)[0]


# ---- copies, prohibitions --------------------------------------------------------------------------------------


def test_several_candidate_deliverables_fail(tmp_path: Path) -> None:
    out = memo(tmp_path, "Decision: ESCALATE\n")
    check = dict(DECISION, alternatives=["memo.docx", "memo.txt"])
    assert run(check, out)[0]
    (out / "memo.txt").write_text("Decision: NO ESCALATION\n")
    ok, ev = run(check, out)
    assert not ok and "several candidate" in ev


def _rubrics(*items: tuple[str, dict[str, Any]]) -> list[Any]:
    return parse_rubrics({"rubrics": [{"rubric": f"r{i}", "weight": 6, "criterion": [c], "jobenv_checks": [k]}
                                      for i, (c, k) in enumerate(items)]})


def test_prohibition_pays_only_with_substance(tmp_path: Path) -> None:
    rubrics = _rubrics(
        ("total", TOTAL),
        ("no names", {"kind": "text", "file": "memo.md", "pattern": "Kofi", "absent": True}),
    )
    good = memo(tmp_path / "g", "Total salary: 1,234,567.25\n")
    assert [r[0][0] for r in evaluate_rubrics(rubrics, good)] == [True, True]  # type: ignore[index]
    placeholder = memo(tmp_path / "p", "Total salary: TBD\n")
    verdicts = evaluate_rubrics(rubrics, placeholder)
    assert verdicts[1][0] is not None and verdicts[1][0][0] is False and "substance" in verdicts[1][0][1]
    assert evaluate_rubrics(rubrics, tmp_path / "missing")[1][0][0] is False  # type: ignore[index]


def test_p_value_ban_reads_statements_not_words(tmp_path: Path) -> None:
    ban = {"kind": "text", "file": "n.md", "regex": True, "absent": True,
           "pattern": r"\bp(?:[- ]?values?)?\s*(?:=|<|>|\u2264|:|of|was|is)\s*0?\.\d"}
    assert run(ban, memo(tmp_path, "No p-value is reported, per SAP 9.3.\n", "n.md"))[0]
    assert not run(ban, memo(tmp_path, "p-value: 0.005\n", "n.md"))[0]
    assert not run(ban, memo(tmp_path, "difference significant (p < .01)\n", "n.md"))[0]


def test_empty_list_must_be_stated(tmp_path: Path) -> None:
    none = {"kind": "field", "file": "memo.md", "label": "Groups above limit", "options": GROUPS, "items": []}
    assert run(none, memo(tmp_path, "Groups above limit: none\n"))[0]
    assert run(none, memo(tmp_path, "Groups above limit: None - every rank is below the limit\n"))[0]
    assert not run(none, memo(tmp_path, "Groups above limit: <to be completed>\n"))[0]
    assert not run(none, memo(tmp_path, "Groups above limit: Professor\n"))[0]


def test_sub_checks_of_a_rubric_read_one_file(tmp_path: Path) -> None:
    """Two checks of one rubric cannot be satisfied by two different copies of the same deliverable."""
    total = {"kind": "field", "file": "memo.md", "alternatives": ["memo.txt"], "label": "Total", "number": 41250}
    rubrics = parse_rubrics({"rubrics": [{"rubric": "memo", "weight": 6, "criterion": ["decision", "premise", "total"],
                                          "jobenv_checks": [dict(DECISION, alternatives=["memo.txt"]),
                                                            dict(PREMISE, alternatives=["memo.txt"]), total]}]})
    out = memo(tmp_path, "Decision: ESCALATE\nPremise confirmed: yes\nTotal: 41,250\n")
    (out / "memo.txt").write_text("Decision: NO ESCALATION\nPremise confirmed: no\nTotal: 41,250\n")
    row = evaluate_rubrics(rubrics, out)[0]
    assert [v[0] for v in row] == [False, False, False]  # type: ignore[index]
    (out / "memo.md").unlink()
    row = evaluate_rubrics(rubrics, out)[0]
    assert [v[0] for v in row] == [False, True, True]  # type: ignore[index]  # the one declared alternative is graded


# ---- one answer per labelled value: hedges fail, correct answers in other words pass --------------------------

HEDGE_CHECKS = {
    "vendors": {"kind": "field", "file": "memo.md", "label": "Ineligible vendors", "items": ["Dunmore Tool & Die"],
                "options": ["Dunmore Tool & Die", "Hale Forge", "Pinecrest Supply"]},
    "none": {"kind": "field", "file": "memo.md", "label": "Providers above the limit", "items": []},
    "list": {"kind": "field", "file": "memo.md", "label": "Providers above the limit", "items": ["P030002", "P030007"]},
    "id": {"kind": "field", "file": "memo.md", "label": "Recording error check", "number": 10452},
    "count": {"kind": "field", "file": "memo.md", "label": "Duplicate records removed", "number": 4},
    "file": {"kind": "field", "file": "memo.md", "label": "Data file used", "equals": "claims_2024.xlsx"},
    "decision": DECISION,
    "month": {"kind": "field", "file": "memo.md", "label": "Peak month", "equals": "July",
              "options": ["June", "July", "August"]},
}


@pytest.mark.parametrize("check, value", [
    ("vendors", "Dunmore Tool & Die or none"),
    ("vendors", "Dunmore Tool & Die and/or Hale Forge"),
    ("none", "none or P030002"),
    ("none", "none (possibly P030002)"),
    ("none", "None, unless P030002's second claim counts"),
    ("id", "10452 or none"),
    ("id", "10452 (or 10453 if the rerun is used)"),
    ("count", "4 or 0"),
    ("count", "4, or 0 if the duplicates were intended"),
    ("count", "either 4 or 5"),
    ("file", "claims_2024.xlsx or claims_2023.xlsx"),
    ("file", "claims_2024.xlsx / claims_2023.xlsx"),
    ("decision", "NO ESCALATION (ESCALATE if the limit is read as inclusive)"),
    ("decision", "ESCALATE (possibly NO ESCALATION)"),
    ("decision", "ESCALATE, depending on the board's reading"),
    ("month", "July or August"),
    ("month", "July (perhaps August)"),
    ("month", "July, otherwise August"),
    ("month", "July (August on the rerun)"),
    ("month", "July (arguably August)"),
    ("vendors", "Dunmore Tool & Die (Dunmore Tool & Die; Hale Forge on the rerun)"),
    ("count", "4 (5 on a recount)"),
    ("count", "4 (7 under a stricter reading)"),
    ("month", "July (August on a stricter reading)"),
    ("month", "July (August)"),
    ("vendors", "Dunmore Tool & Die (Hale Forge pending review)"),
    ("month", "July, though August is possible on the superseded file"),
    ("list", "P030002; P030007 (P030002; all others on the rerun)"),
    ("list", "P030002; P030007; possibly P030011"),
    ("decision", "ESCALATE; NO ESCALATION could also be defended"),
])
def test_a_hedged_value_earns_nothing(tmp_path: Path, check: str, value: str) -> None:
    label = HEDGE_CHECKS[check]["label"]
    ok, why = run(HEDGE_CHECKS[check], memo(tmp_path, f"{label}: {value}\n"))
    assert not ok and "more than one answer" in why, why


@pytest.mark.parametrize("check, value", [
    ("vendors", "Dunmore Tool & Die"),
    ("vendors", "Dunmore Tool & Die (two late deliveries or more)"),
    ("none", "None"),
    ("none", "none - every provider is at or below the limit"),
    ("id", "10452"),
    ("id", "10452 (the only record at or above the threshold)"),
    ("count", "4 (after checking 1,210 rows)"),
    ("count", "Four"),
    ("file", "claims_2024.xlsx"),
    ("file", "claims_2024.xlsx - the file the e-mail names, or so the header says"),
    ("decision", "ESCALATE"),
    ("decision", "ESCALATE, even if the limit were read as inclusive"),
    ("decision", "ESCALATE - two ranks are above the limit, one of them by 12% or more"),
    ("month", "July"),
    ("month", "July (41 incidents, the most of any month)"),
    ("month", "July (August next, June lower)"),
    ("month", "July (ahead of August by 3 incidents)"),
    ("vendors", "Dunmore Tool & Die (Hale Forge was also reviewed and is not suspended)"),
    ("month", "July; August follows with 38 incidents"),
    ("list", "P030002; P030007 - both above the limit even if their repeated claims count once"),
    ("decision", "ESCALATE - two ranks are above the limit, so NO ESCALATION is not an option"),
])
def test_a_single_answer_in_other_words_still_passes(tmp_path: Path, check: str, value: str) -> None:
    label = HEDGE_CHECKS[check]["label"]
    ok, why = run(HEDGE_CHECKS[check], memo(tmp_path, f"{label}: {value}\n"))
    assert ok, why


@pytest.mark.parametrize("check, value, expected", [
    ({"number": 53.7, "tolerance": 0.05}, "53.7 per 100 incidents", True),  # a rate's base is not a rival
    ({"number": 53.7, "tolerance": 0.05}, "48.2 per 100 incidents", False),
    ({"number": 129}, "129 rows in records_2024-06-30.xlsx", True),  # a dated file name's digits
    ({"number": 129}, "130 rows (records_2024-06-30.xlsx)", False),
    ({"number": -28}, "a decrease of 28", True),  # sign words give the minus
    ({"number": -28}, "down 28 on last year", True),
    ({"number": -28}, "-28", True),
    ({"number": -28}, "28", False),  # a bare positive is still the wrong sign
    ({"number": -28}, "a decrease of 27", False),
    ({"number": 28}, "up 28", True),
    ({"number": 10452}, "#10452", True),
    ({"number": 10452}, "#10453", False),
    ({"equals": "claims_2024.xlsx"}, "task_folder/claims_2024.xlsx", True),  # the folder it is in, named
    ({"equals": "claims_2024.xlsx"}, "/workspace/task_folder/claims_2024.xlsx", True),
    ({"equals": "claims_2024.xlsx"}, "task_folder/claims_2023.xlsx", False),
    ({"number": 38.5, "tolerance": 0.05}, "10/26 = 38.5%", True),  # a worked value gives its result
    ({"number": 38.5, "tolerance": 0.05}, "10/26 = 38.0%", False),
    ({"number": 38.5, "tolerance": 0.05}, "38.5 vs 34.6 last year", True),  # a comparison's figure is context
    ({"number": 38.5, "tolerance": 0.05}, "34.6 vs 38.5 last year", False),
    ({"number": -4874, "tolerance": 1}, "4,874 below budget", True),
    ({"number": -4874, "tolerance": 1}, "$4,874 favourable", True),
    ({"mentions": ["Q-88231"]}, "coastal_quote_Q-88231.pdf", True),  # an id inside a file name
    ({"mentions": ["Q-88231"]}, "coastal_quote_Q-882310.pdf", False),
])
def test_correct_answers_in_common_forms(tmp_path: Path, check: dict[str, Any], value: str, expected: bool) -> None:
    field = {"kind": "field", "file": "memo.md", "label": "Answer", **check}
    ok, why = run(field, memo(tmp_path, f"Answer: {value}\n"))
    assert ok is expected, why


@pytest.mark.parametrize("want, value, instructions, expected", [
    (98.07, "98.070 billion cubic metres", "Total supply: <billion cubic metres, 3 decimals>", True),
    (98.07, "98.070 billion cubic metres", "Total supply: <cubic metres>", False),  # no such unit asked for
    (98.07, "98.570 billion cubic metres", "Total supply: <billion cubic metres, 3 decimals>", False),
    (42.853, "$42.853 million", "Report the total in $ millions.", True),
    (42_853_000, "$42.853 million", "Report the total in $ millions.", True),  # either reading names the figure
    (42.853, "$43.1 million", "Report the total in $ millions.", False),
])
def test_a_scale_word_that_is_the_stated_unit(tmp_path: Path, want: float, value: str, instructions: str,
                                              expected: bool) -> None:
    rubrics = parse_rubrics({"rubrics": [{"rubric": "total", "weight": 1, "criterion": ["total"], "jobenv_checks": [
        {"kind": "field", "file": "memo.md", "label": "Total", "number": want, "tolerance": 0.0005}]}]})
    verdict = evaluate_rubrics(rubrics, memo(tmp_path, f"Total: {value}\n"), instructions=instructions)[0][0]
    assert verdict is not None and verdict[0] is expected, verdict


# ---- substance: a criterion that proves no work needs a right fact on the same deliverable --------------------

def _decision_task() -> Any:
    return parse_rubrics({"rubrics": [
        {"rubric": "figures", "weight": 8, "criterion": ["peak value"], "jobenv_checks": [
            {"kind": "field", "file": "memo.md", "label": "Peak value", "number": 38.5, "tolerance": 0.05}]},
        {"rubric": "decision", "weight": 10, "criterion": ["none flagged", "decision", "not May"], "jobenv_checks": [
            {"kind": "field", "file": "memo.md", "label": "Months out of tolerance", "items": []},
            {"kind": "field", "file": "memo.md", "label": "Decision", "equals": "NO ACTION",
             "options": ["ENFORCEMENT ACTION", "NO ACTION"]},
            {"kind": "field", "file": "memo.md", "label": "Months out of tolerance", "excludes": ["May"]}]},
        {"rubric": "flags", "weight": 8, "criterion": ["flag"], "jobenv_checks": [
            {"kind": "cell", "file": "t.csv", "match": {"month": "May"}, "column": "flagged", "value": "NO"}]},
        {"rubric": "table", "weight": 8, "criterion": ["rate"], "jobenv_checks": [
            {"kind": "cell", "file": "t.csv", "match": {"month": "May"}, "column": "pct", "value": 3.8,
             "tolerance": 0.05}]},
    ]})


@pytest.mark.parametrize("peak, pct, passed", [
    ("38.5", "3.8", [True, True, True, True]),
    ("TBD", "3.8", [False, False, True, True]),  # the guessed negative decision needs the memo's figure
    ("38.5", "0", [True, True, False, False]),  # a guessed "NO" flag needs the table's figure
    ("41.0", "", [False, False, False, False]),
])
def test_a_guessed_decision_or_flag_needs_a_right_figure(tmp_path: Path, peak: str, pct: str,
                                                         passed: list[bool]) -> None:
    out = memo(tmp_path, f"Peak value: {peak}\nMonths out of tolerance: none\nDecision: NO ACTION\n\n"
               "We reviewed every reading against the limit set out in the house rules and found no month above it; "
               "the data were complete and no record needed correction, so no further action is proposed.\n")
    (out / "t.csv").write_text(f"month,pct,flagged\nMay,{pct},NO\nJune,{pct},NO\n", encoding="utf-8")
    verdicts = evaluate_rubrics(_decision_task(), out)
    assert [all(v is not None and v[0] for v in row) for row in verdicts] == passed, verdicts


SAMPLE = Path(__file__).resolve().parents[2] / "jobenv" / "data" / "sample"


def _sample_ban(task: str) -> Any:
    from jobenv.tasks import load_task_dir

    return load_task_dir(SAMPLE / task / "task1", "sample").rubrics[-1]


@pytest.mark.parametrize("sentence, banned", [
    ("The two-sided P value 0.003 (z-test) supports the effect.", True),
    ("p=0.01", True),
    ("z = 2.95", True),
    ("t-statistic: -2.4", True),
    ("The difference is significant at the 5 % level.", True),
    ("chi-square of 4.2", True),
    ("The test statistic was 2.1.", True),
    ("No p-value or test statistic is reported, as SAP 9.3 requires a descriptive summary.", False),
    ("The difference is not statistically significant-tested; N = 96 (Placebo 49).", False),
])
def test_the_hypothesis_test_ban_catches_test_results(tmp_path: Path, sentence: str, banned: bool) -> None:
    rubric = _sample_ban("biostatisticians")
    text = ("Analysis population N: 96\nTreatment difference: -5.47 mmHg\n95% CI: -9.27 to -1.68\n\n"
            f"{sentence}\n")
    ok, why = run(rubric.checks[0].model_dump(), memo(tmp_path, text, "primary_endpoint_summary.md"))
    assert ok is not banned, why


@pytest.mark.parametrize("line, banned", [
    ("- E1123: $3,162.00 lump sum at the G8 maximum", True),  # an individual's pay by employee id
    ("- Kofi Quintero receives 2.5%", True),
    ("- Lump-sum payments for employees reaching their range maximum: $3,162.00", False),
])
def test_the_individual_pay_ban_catches_ids_as_well_as_names(tmp_path: Path, line: str, banned: bool) -> None:
    rubric = _sample_ban("human_resources_specialists")
    ok, why = run(rubric.checks[0].model_dump(), memo(tmp_path, f"Merit budget: $94,818.00\n{line}\n",
                                                      "merit_summary.md"))
    assert ok is not banned, why
