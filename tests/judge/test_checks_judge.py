"""Deterministic checks on real deliverables (csv, xlsx by openpyxl, docx by python-docx), and judge selection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jobenv.check_models import parse_check
from jobenv.extract import extract_output
from jobenv.judge import ChecksJudge, make_judge, parse_numbers
from jobenv.judge.checks import CheckContext, evaluate_check
from tests.judge.conftest import make_task, n_criteria, verdict
from tests.support.openai_server import OpenAIServer


@pytest.fixture(scope="module")
def _deliverables_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import docx
    import openpyxl

    out = tmp_path_factory.mktemp("deliv") / "output"
    (out / "tables").mkdir(parents=True)
    (out / "tables" / "regions.csv").write_text(
        "Region, Revenue ,Status\nNorth,\"41,250\",open\nSouth,1200.5,Closed\nEast,-3,open\n", encoding="utf-8"
    )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Summary"
    ws.append(["Quarterly summary"])  # a title row above the header
    ws.append([])
    ws.append(["Quarter", "Total", "Margin"])
    ws.append(["Q1", 1000, 0.25])
    ws.append(["Q2", 2000.004, 0.3])
    wb.create_sheet("Raw").append(["a", "b"])
    wb.save(out / "Summary.xlsx")
    d = docx.Document()
    d.add_paragraph("The adjusted loss was (1,234.50) and growth 12.5% versus $41,250 last year.")
    d.add_paragraph("Approved by the committee.")
    d.save(out / "memo.docx")
    return out


@pytest.fixture
def deliverables(_deliverables_master: Path, tmp_path: Path) -> Path:
    """A private copy per test (some tests add files)."""
    import shutil

    return Path(shutil.copytree(_deliverables_master, tmp_path / "output"))


def run(check: dict[str, Any], out: Path) -> tuple[bool, str]:
    return evaluate_check(parse_check(check), CheckContext(extract_output(out, with_images=False)))


def test_parse_numbers_formats() -> None:
    assert parse_numbers("$1,234.50") == [1234.5]
    assert parse_numbers("(1,234)")[0] == -1234.0
    assert parse_numbers("growth 12.5% and \u22127 and -0.5") == [12.5, -7.0, -0.5]
    assert parse_numbers("Q3 FY2024 x2") == []
    assert parse_numbers("\u20ac 99") == [99.0]
    assert parse_numbers("1.2 million and 41.25k and USD 7") == [1.2e6, 41250.0, 7.0]
    assert parse_numbers("on 2026-07-01 and 7/1/2026") == []


@pytest.mark.parametrize(
    "check, expected",
    [
        ({"kind": "file_exists", "file": "summary.xlsx"}, True),  # case-insensitive
        ({"kind": "file_exists", "file": "output/Summary.xlsx"}, True),  # output/ in front is ignored
        ({"kind": "file_exists", "file": "regions.csv"}, False),  # graded at the named path, not anywhere
        ({"kind": "file_exists", "file": "tables/*.csv"}, True),
        ({"kind": "file_exists", "file": "*.pptx"}, False),
        ({"kind": "file_exists", "file": "report.docx", "alternatives": ["memo.docx"]}, True),
        ({"kind": "file_exists", "file": "*"}, False),  # three files: several candidates for one deliverable
        ({"kind": "text", "file": "memo.docx", "pattern": "approved by the committee"}, True),
        ({"kind": "text", "file": "memo.docx", "pattern": "approved by the committee", "case_sensitive": True}, False),
        ({"kind": "text", "pattern": r"loss was \(1,234\.50\)", "regex": True, "file": "*.docx"}, True),
        ({"kind": "text", "file": "memo.docx", "pattern": "rejected", "absent": True}, True),
        ({"kind": "text", "file": "memo.docx", "pattern": "Approved", "absent": True}, False),
        ({"kind": "text", "pattern": "Approved", "file": "*.csv"}, False),
        ({"kind": "number", "value": -1234.5, "file": "memo.docx"}, True),
        ({"kind": "number", "value": 12.5, "file": "memo.docx"}, True),
        ({"kind": "number", "value": 41250, "file": "memo.docx"}, True),
        ({"kind": "number", "value": 41300, "tolerance": 49, "file": "memo.docx"}, False),
        ({"kind": "number", "value": 41300, "rel_tolerance": 0.002, "file": "memo.docx"}, True),
        ({"kind": "number", "value": 1234.5, "sign": "either", "file": "memo.docx"}, True),
        ({"kind": "number", "value": 2000, "file": "*.xlsx", "tolerance": 0.01}, True),
        ({"kind": "number", "value": 7777, "file": "memo.docx"}, False),
        ({"kind": "columns", "file": "tables/*.csv", "columns": ["revenue", "REGION"]}, True),
        ({"kind": "columns", "file": "tables/*.csv", "columns": ["Profit"]}, False),
        ({"kind": "columns", "file": "summary.xlsx", "sheet": "summary", "columns": ["Quarter", "Total"]}, True),
        ({"kind": "columns", "file": "summary.xlsx", "sheet": "Raw", "columns": ["Quarter"]}, False),
        ({"kind": "cell", "file": "tables/*.csv", "match": {"Region": "north"}, "column": "Revenue", "value": 41250}, True),
        ({"kind": "cell", "file": "tables/*.csv", "match": {"Region": "South"}, "column": "Status", "value": "closed"}, True),
        ({"kind": "cell", "file": "tables/*.csv", "match": {"Region": "South"}, "column": "Status", "value": "open"}, False),
        ({"kind": "cell", "file": "tables/*.csv", "match": {"Region": "West"}, "column": "Status", "value": "open"}, False),
        ({"kind": "cell", "file": "*.xlsx", "match": {"Quarter": "Q2"}, "column": "Total", "value": 2000, "tolerance": 0.01}, True),
        ({"kind": "cell", "file": "*.xlsx", "match": {"Quarter": "Q2"}, "column": "Total", "value": 2000}, False),
        ({"kind": "row_count", "file": "tables/*.csv", "count": 3}, True),
        ({"kind": "row_count", "file": "tables/*.csv", "count": 2, "where": {"status": "OPEN"}}, True),
        ({"kind": "row_count", "file": "*.xlsx", "sheet": "Summary", "count": 2, "where": {"Quarter": "Q1"}}, False),
        ({"kind": "row_count", "file": "*.xlsx", "sheet": "Summary", "count": 1, "where": {"Quarter": "Q1"}}, True),
        ({"kind": "all_of", "checks": [{"kind": "number", "value": 12.5, "file": "memo.docx"},
                                       {"kind": "file_exists", "file": "memo.docx"}]}, True),
        ({"kind": "all_of", "checks": [{"kind": "number", "value": 12.5, "file": "memo.docx"},
                                       {"kind": "file_exists", "file": "x"}]}, False),
        ({"kind": "any_of", "checks": [{"kind": "number", "value": 1, "file": "memo.docx"},
                                       {"kind": "file_exists", "file": "x"}]}, False),
        ({"kind": "any_of", "checks": [{"kind": "number", "value": -3, "file": "tables/regions.csv"},
                                       {"kind": "file_exists", "file": "x"}]}, True),
        ({"kind": "not", "check": {"kind": "text", "file": "memo.docx", "pattern": "guarantee"}}, True),
        ({"kind": "not", "check": {"kind": "file_exists", "file": "*.docx"}}, False),
        ({"kind": "llm", "reason": "judgement"}, False),
    ],
)
def test_check_kinds(check: dict[str, Any], expected: bool, deliverables: Path) -> None:
    passed, evidence = run(check, deliverables)
    assert passed is expected, evidence
    assert evidence


def test_csv_cells_are_separate_numbers(tmp_path: Path) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (out / "t.csv").write_text('a,b\n100,200\n"1,500",x\n')
    assert run({"kind": "number", "value": 200, "file": "t.csv"}, out)[0] is True
    assert run({"kind": "number", "value": 1500, "file": "t.csv"}, out)[0] is True
    assert run({"kind": "number", "value": 100200, "file": "t.csv"}, out)[0] is False
    (out / "t.md").write_text("paid 41,250 in full")
    assert run({"kind": "number", "value": 250, "file": "*.md"}, out)[0] is False


def test_evidence_says_where(deliverables: Path) -> None:
    ok, ev = run({"kind": "number", "value": -1234.5, "file": "memo.docx"}, deliverables)
    assert ok and "memo.docx" in ev
    ok, ev = run({"kind": "cell", "file": "tables/*.csv", "match": {"Region": "South"}, "column": "Status",
                  "value": "open"}, deliverables)
    assert not ok and "tables/regions.csv" in ev and "'Closed'" in ev
    ok, ev = run({"kind": "file_exists", "file": "*"}, deliverables)
    assert not ok and "copies cannot hedge" in ev


def test_odd_deliverables_never_raise(tmp_path: Path) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (out / "bad.xlsx").write_bytes(b"not a workbook")
    (out / "bad.csv").write_bytes(b"\xff\xfe\x00\x00\"unterminated")
    for check in (
        {"kind": "columns", "file": "bad.xlsx", "columns": ["a"]},
        {"kind": "cell", "file": "bad.csv", "match": {"a": 1}, "column": "b", "value": 2},
        {"kind": "row_count", "file": "bad.xlsx", "count": 0},
        {"kind": "number", "file": "bad.xlsx", "value": 1},
        {"kind": "field", "file": "bad.xlsx", "label": "Total", "number": 1},
        {"kind": "ids", "file": "bad.csv", "ids": ["A-1"]},
    ):
        passed, ev = run(check, out)
        assert passed is False and ev


CHECKED = [
    {"rubric": "Totals", "weight": 10, "criterion": ["Q1 total 1000", "Has Margin column"],
     "jobenv_checks": [{"kind": "cell", "file": "*.xlsx", "match": {"Quarter": "Q1"}, "column": "Total", "value": 1000},
                       {"kind": "columns", "file": "*.xlsx", "columns": ["Margin"]}]},
    {"rubric": "Memo", "weight": 6, "criterion": ["States the loss of (1,234.50)", "No guarantee"],
     "jobenv_checks": [{"kind": "number", "value": -1234.5, "file": "memo.docx"},
                       {"kind": "text", "pattern": "guarantee", "file": "memo.docx", "absent": True}]},
    {"rubric": "Deck", "weight": 4, "criterion": ["Delivers a deck"], "jobenv_checks": [{"kind": "file_exists", "file": "*.pptx"}]},
]


def test_checks_judge_scores(tmp_path: Path, deliverables: Path) -> None:
    task = make_task(tmp_path, CHECKED)
    rep = ChecksJudge().grade_sync(task, deliverables)
    assert rep.status == "ok" and rep.judge_kind == "checks" and rep.judge_model is None
    assert (rep.total_score, rep.max_score, rep.normalized_score) == (16.0, 20.0, 0.8)
    assert [r.passed for r in rep.rubrics] == [True, True, False]
    assert rep.rubrics[2].criteria_results[0].evidence == "no deliverable named '*.pptx'"
    assert all(c.grader == "checks" for r in rep.rubrics for c in r.criteria_results)
    assert rep.usage.calls == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    rep0 = ChecksJudge().grade_sync(task, empty)
    assert rep0.status == "ok" and rep0.normalized_score == 0.0 and rep0.empty_output
    (deliverables / "evil").symlink_to("/etc/hostname")
    rep_err = ChecksJudge().grade_sync(task, deliverables)
    assert rep_err.status == "error" and rep_err.normalized_score == 0.0 and "evil" in rep_err.error


def test_rejected_manifest_from_export_is_an_error(tmp_path: Path, deliverables: Path) -> None:
    task = make_task(tmp_path, CHECKED)
    (deliverables / ".jobenv_rejected.json").write_text(json.dumps(["sneaky-link"]))
    rep = ChecksJudge().grade_sync(task, deliverables)
    assert rep.status == "error" and rep.rejected_files == ["sneaky-link"]


def test_checks_judge_on_llm_criteria_is_a_clear_error(tmp_path: Path, deliverables: Path) -> None:
    for rubrics in ([{"rubric": "Free text", "weight": 3, "criterion": ["Good prose"]}],
                    [CHECKED[0], {"rubric": "Judgement", "weight": 3, "criterion": ["Justified"],
                                  "jobenv_checks": [{"kind": "llm", "reason": "a justification"}]}]):
        task = make_task(tmp_path, rubrics)
        assert not task.has_checks
        rep = make_judge("checks").grade_sync(task, deliverables)
        assert rep.status == "error" and "need the LLM" in rep.error and rep.normalized_score == 0.0
        assert "judge='auto'" in rep.error


def test_auto_selection(tmp_path: Path, deliverables: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checked = make_task(tmp_path / "a", CHECKED)
    free = make_task(tmp_path / "b", [{"rubric": "Free text", "weight": 3, "criterion": ["Good prose", "Clear"]}])
    auto = make_judge("auto")  # no LLM configured: still constructible
    assert auto.grade_sync(checked, deliverables).judge_kind == "checks"
    rep = auto.grade_sync(free, deliverables)
    assert rep.status == "error"
    for var in ("JOBENV_JUDGE_BASE_URL", "JOBENV_JUDGE_API_KEY", "JOBENV_JUDGE_MODEL"):
        assert var in rep.error
    empty = tmp_path / "empty"
    empty.mkdir()
    assert auto.grade_sync(free, empty).normalized_score == 0.0 and auto.grade_sync(free, empty).status == "ok"
    with OpenAIServer(lambda req: json.dumps(verdict(n_criteria(req)))) as srv:
        monkeypatch.setenv("JOBENV_JUDGE_BASE_URL", srv.base_url)
        monkeypatch.setenv("JOBENV_JUDGE_API_KEY", "k")
        monkeypatch.setenv("JOBENV_JUDGE_MODEL", "m")
        auto2 = make_judge("auto", cache_dir=False)
        r_free = auto2.grade_sync(free, deliverables)
        r_checked = auto2.grade_sync(checked, deliverables)
        assert len(srv.requests) == 1  # only the task without checks used the LLM
    assert r_free.status == "ok" and r_free.judge_kind == "llm" and r_free.normalized_score == 1.0
    assert r_checked.judge_kind == "checks"


HYBRID = [
    {"rubric": "Totals and judgement", "weight": 10, "criterion": ["Q1 total 1000", "The recommendation is justified"],
     "jobenv_checks": [{"kind": "cell", "file": "*.xlsx", "match": {"Quarter": "Q1"}, "column": "Total", "value": 1000},
                       {"kind": "llm", "reason": "a justification"}]},
    {"rubric": "Deck", "weight": 4, "criterion": ["Delivers a deck"], "jobenv_checks": [{"kind": "file_exists", "file": "*.pptx"}]},
    {"rubric": "Prose", "weight": 6, "criterion": ["Reads well", "Names an owner"]},
]


def test_hybrid_auto_grades_only_llm_criteria_with_the_llm(tmp_path: Path, deliverables: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Checks decide what they can; one LLM call per rubric holding LLM criteria, asked only about those."""
    task = make_task(tmp_path, HYBRID)
    asked: list[int] = []

    def reply(req: dict[str, Any]) -> str:
        n = n_criteria(req)
        asked.append(n)
        return json.dumps(verdict(n))

    with OpenAIServer(reply) as srv:
        monkeypatch.setenv("JOBENV_JUDGE_BASE_URL", srv.base_url)
        monkeypatch.setenv("JOBENV_JUDGE_API_KEY", "k")
        monkeypatch.setenv("JOBENV_JUDGE_MODEL", "m")
        rep = make_judge("auto", cache_dir=False).grade_sync(task, deliverables)
        assert len(srv.requests) == 2  # rubric 0 (one LLM criterion) and rubric 2 (two); rubric 1 none
    assert sorted(asked) == [1, 2]
    assert rep.status == "ok" and rep.judge_kind == "auto" and rep.judge_model == "m"
    graders = [[c.grader for c in r.criteria_results] for r in rep.rubrics]
    assert graders == [["checks", "llm"], ["checks"], ["llm", "llm"]]
    assert [r.passed for r in rep.rubrics] == [True, False, True]  # no deck: the checks decide rubric 1
    assert rep.normalized_score == 0.8
    # a failing check is not rescued by the LLM: the rubric fails whoever passed the rest
    (deliverables / "Summary.xlsx").unlink()
    with OpenAIServer(lambda req: json.dumps(verdict(n_criteria(req)))) as srv:
        monkeypatch.setenv("JOBENV_JUDGE_BASE_URL", srv.base_url)
        rep2 = make_judge("auto", cache_dir=False).grade_sync(task, deliverables)
    assert rep2.rubrics[0].passed is False and rep2.rubrics[0].criteria_results[1].passed is True


def test_hybrid_llm_failure_is_an_error_not_a_partial_score(tmp_path: Path, deliverables: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    task = make_task(tmp_path, HYBRID)
    with OpenAIServer(lambda req: "no json here") as srv:
        monkeypatch.setenv("JOBENV_JUDGE_BASE_URL", srv.base_url)
        monkeypatch.setenv("JOBENV_JUDGE_API_KEY", "k")
        monkeypatch.setenv("JOBENV_JUDGE_MODEL", "m")
        rep = make_judge("auto", cache_dir=False, attempts=1).grade_sync(task, deliverables)
    assert rep.status == "error" and rep.normalized_score == 0.0


def test_unknown_kind_and_option() -> None:
    from jobenv.errors import JudgeConfigError

    with pytest.raises(JudgeConfigError):
        make_judge("oracle")
    with pytest.raises(JudgeConfigError, match="no_such_option"):
        make_judge("llm", base_url="http://127.0.0.1:9/v1", api_key="k", model="m", no_such_option=1)


def test_number_spraying_earns_nothing(deliverables: Path) -> None:
    check = {"kind": "number", "value": 41250, "tolerance": 0.5, "file": "numbers.txt"}
    (deliverables / "numbers.txt").write_text("total 41,250\n", encoding="utf-8")
    ok, _ = run(check, deliverables)
    assert ok
    # a file listing every number near the target, one step apart, must not be credited
    (deliverables / "numbers.txt").write_text("\n".join(str(41000 + i) for i in range(500)), encoding="utf-8")
    ok, evidence = run(check, deliverables)
    assert not ok and "number spraying" in evidence
    (deliverables / "numbers.txt").write_text(" ".join(f"{8.5 + i / 100:.2f}" for i in range(101)), encoding="utf-8")
    ok, evidence = run({"kind": "number", "value": 9.0, "tolerance": 0.005, "file": "numbers.txt"}, deliverables)
    assert not ok and "number spraying" in evidence
    # three candidate totals: the right one among them is not credited
    (deliverables / "numbers.txt").write_text("The total is 41,250 (or 41,300 if the late invoice counts).\n")
    ok, evidence = run(check, deliverables)
    assert not ok and "competing" in evidence
