"""One graded fact, one value: correct answers written in other forms (scale words, spelled-out numbers of any
size, decimal commas, fractions for a percentage, footnote markers, identifiers with a number sign, a file named
twice, a memo in another format) earn credit; a second candidate offered by a table row, a footnote, an aside,
a second line or a second file does not.

Deliverables are written as text or by real libraries (python-docx, openpyxl) and graded by the one evaluator
(jobenv.judge.checks.evaluate_rubrics / evaluate_check)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from jobenv.check_models import parse_check
from jobenv.extract import extract_output
from jobenv.judge.checks import CheckContext, evaluate_check, evaluate_rubrics
from jobenv.judge.reading import find_numbers
from jobenv.tasks import parse_rubrics


def run(check: dict[str, Any], out: Path, instructions: str = "", work: dict[str, Any] | None = None
        ) -> tuple[bool, str]:
    """The verdict on ``check`` graded with the task's other rubric ``work`` (a fact that proves work), if any."""
    rows = [{"rubric": "r", "weight": 1, "criterion": ["c"], "jobenv_checks": [check]}]
    if work:
        rows.append({"rubric": "w", "weight": 1, "criterion": ["w"], "jobenv_checks": [work]})
    verdict = evaluate_rubrics(parse_rubrics({"rubrics": rows}), out, instructions=instructions)[0][0]
    assert verdict is not None
    return verdict


def memo(tmp_path: Path, text: str, name: str = "memo.md") -> Path:
    out = tmp_path / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_text(text, encoding="utf-8")
    return out


def field(label: str = "Answer", **judgement: Any) -> dict[str, Any]:
    return {"kind": "field", "file": "memo.md", "label": label, **judgement}


# ---- numbers in words, scales and locales --------------------------------------------------------------------


@pytest.mark.parametrize("text, value", [
    ("one hundred and twelve", 112.0), ("Two thousand four hundred", 2400.0), ("nine hundred eighty-seven", 987.0),
    ("three thousand and six", 3006.0), ("fifteen hundred", 1500.0), ("a hundred", 100.0),
    ("one million, two hundred thousand", 1_200_000.0), ("four point two five", 4.25),
    ("forty-one thousand two hundred and fifty", 41250.0), ("26,9 %", 26.9), ("31,1 %", 31.1),
    ("1.234,56", 1234.56), ("12,5%", 12.5), ("7.1%[^1]", 7.1), ("7.1%\u00b2", 7.1), ("7.1% [3]", 7.1),
])
def test_numbers_read_in_words_and_locale_forms(text: str, value: float) -> None:
    assert [n.value for n in find_numbers(text)] == [value]


def test_lists_and_thousands_keep_their_reading() -> None:
    assert [n.value for n in find_numbers("sites 1,2,3")] == [1.0, 2.0, 3.0]
    assert [n.value for n in find_numbers("12,345 and 1,234,567.8")] == [12345.0, 1234567.8]
    assert [n.value for n in find_numbers("five six")] == [5.0, 6.0]  # two numbers, not eleven
    assert [n.value for n in find_numbers("one, two and three")] == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("value, expected", [
    ("one hundred and twelve", True), ("One Hundred Twelve records", True), ("112", True),
    ("one hundred and thirteen", False), ("one hundred and twelve or one hundred and twenty", False),
    ("one hundred and twelve (one hundred and twenty on the rerun)", False),
])
def test_spelled_out_counts_above_one_hundred(tmp_path: Path, value: str, expected: bool) -> None:
    assert run(field(number=112), memo(tmp_path, f"Answer: {value}\n"))[0] is expected


@pytest.mark.parametrize("value, expected", [
    ("USD 318.4m", True), ("318.4 mn", True), ("$318,400,000", True), ("$318.4 million (capex, FY2025)", True),
    ("$319.4 million", False), ("$318.4 million or $322.0 million", False),
])
def test_scale_words_in_the_stated_unit(tmp_path: Path, value: str, expected: bool) -> None:
    verdict = run(field(number=318.4, tolerance=0.05), memo(tmp_path, f"Answer: {value}\n"),
                  instructions="Answer: <USD millions, 1 decimal>")
    assert verdict[0] is expected, verdict


@pytest.mark.parametrize("value, number, expected", [
    ("19.0485 mm", 19.0485, True), ("19.0485mm", 19.0485, True), ("12.5 m", 12.5, True), ("0.212 mm", 0.212, True),
    ("19.0485 mm", 19_048_500.0, True), ("$19.0485mm", 19_048_500.0, True),  # a currency sign: millions only
    ("$19.0485mm", 19.0485, False), ("19.1485 mm", 19.0485, False), ("19.0485 mm or 19.2 mm", 19.0485, False),
])
def test_millimetres_and_metres_are_lengths_unless_a_currency_makes_them_millions(tmp_path: Path, value: str,
                                                                                   number: float, expected: bool) -> None:
    verdict = run(field(number=number, tolerance=0.00005), memo(tmp_path, f"Answer: {value}\n"))
    assert verdict[0] is expected, verdict


@pytest.mark.parametrize("instructions, expected", [
    ("Answer: <USD m, 1 decimal>", True), ("Answer: <in $mn>", True), ("Answer: <EUR millions>", True),
    ("Answer: <USD, whole dollars>", False), ("Answer: <mm of rainfall>", False),
])
def test_the_unit_a_request_writes_short(tmp_path: Path, instructions: str, expected: bool) -> None:
    verdict = run(field(number=318.4, tolerance=0.05), memo(tmp_path, "Answer: $318.4 million\n"),
                  instructions=instructions)
    assert verdict[0] is expected, verdict


def test_scale_words_in_table_cells(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "t.csv").write_text("firm,actual\nGE,$318.4 million\nGM,\"$1,204,700,000\"\n", encoding="utf-8")
    cell = {"kind": "cell", "file": "t.csv", "match": {"firm": "GE"}, "column": "actual", "value": 318.4,
            "tolerance": 0.05}
    assert run(cell, out, instructions="actual in USD millions")[0]
    assert run(dict(cell, match={"firm": "GM"}, value=1204.7), out, instructions="actual in USD millions")[0]
    assert not run(dict(cell, value=318.5, tolerance=0.01), out, instructions="actual in USD millions")[0]


@pytest.mark.parametrize("value, expected", [
    ("26,9 %", True), ("26,9%", True), ("0.269", True), ("103/383", True), ("103 of 383 stays", True),
    ("26.9 percent", True), ("twenty-six point nine per cent", True),
    ("26,8 %", False), ("0.27", False), ("103/390", False), ("26,9 % or 27,4 %", False),
])
def test_percentages_as_decimal_commas_proportions_and_fractions(tmp_path: Path, value: str, expected: bool) -> None:
    check = field("Readmission rate", number=26.9, tolerance=0.051)
    assert run(check, memo(tmp_path, f"Readmission rate: {value}\n"))[0] is expected


def test_a_proportion_is_no_percentage_where_the_label_asks_for_none(tmp_path: Path) -> None:
    assert not run(field("Units shipped", number=26.9, tolerance=0.051), memo(tmp_path, "Units shipped: 0.269\n"))[0]


# ---- footnotes and asides ------------------------------------------------------------------------------------


RATE = field("Overall rate", number=7.1, tolerance=0.05)


@pytest.mark.parametrize("text, expected", [
    ("Overall rate: 7.1%[^1]\n\n[^1]: Planned readmissions excluded per the measure spec.\n", True),
    ("Overall rate: 7.1%[^n]\n\n[^n]: Down from 7.9% last quarter.\n", True),
    ("Overall rate: 7.1%\u00b9\n\n\u00b9 Index stays only.\n", True),
    ("Overall rate: 7.1% [2]\n", True),
    ("Overall rate: 7.1% (95% CI 6.2 to 8.0)\n", True),
    ("Overall rate: 7.1% (about 7%)\n", True),
    ("Overall rate: 7.1% (Medicine 4.0, Surgery 3.1)\n", True),  # a breakdown summing to the answer
    ("Overall rate: 7.1% (7.0% in the raw extract)\n", True),
    ("Overall rate: 7.1% (the request quoted 7.9%)\n", True),
    ("Overall rate: 7.1% (not 7.4%: the re-sent stays are counted once)\n", True),
    ("Overall rate: 7.1% (8.0% on the stricter definition)\n", False),
    ("Overall rate: 7.1%[^1]\n\n[^1]: Counting transfers as readmissions gives 7.6%.\n", False),
    ("Overall rate: 7.1%[^a]\n\n[^a]: 7.5% when same-day returns are kept.\n", False),
    ("Overall rate: 7.1% (7.6% with the transfer rule applied)\n", False),
    ("Overall rate: 7.1% (alternative count: 7.4%)\n", False),
])
def test_footnotes_and_asides(tmp_path: Path, text: str, expected: bool) -> None:
    verdict = run(RATE, memo(tmp_path, text))
    assert verdict[0] is expected, verdict


SOURCE = field("Price source", equals="quote_Q-1177.pdf", options=["quote_Q-1177.pdf", "bid_tab_2026.xlsx"])


@pytest.mark.parametrize("value, expected", [
    ("quote_Q-1177.pdf (overrides bid_tab_2026.xlsx)", True),
    ("quote_Q-1177.pdf - bid_tab_2026.xlsx is out of date", True),
    ("quote_Q-1177.pdf (bid_tab_2026.xlsx prices are stale)", True),
    ("the signed vendor quote, quote_Q-1177.pdf", True),
    ("Coastal's written quotation, quote_Q-1177.pdf, which replaces bid_tab_2026.xlsx", True),
    ("quote_Q-1177.pdf (bid_tab_2026.xlsx on a strict reading)", False),
    ("the signed vendor quote, bid_tab_2026.xlsx", False),
    ("quote_Q-1177.pdf, though bid_tab_2026.xlsx is also defensible", False),
    ("the signed vendor quote", False),
])
def test_a_choice_named_twice_or_set_against_a_superseded_one(tmp_path: Path, value: str, expected: bool) -> None:
    verdict = run(SOURCE, memo(tmp_path, f"Price source: {value}\nUnit price: 4.18\n"),
                  work=field("Unit price", number=4.18, tolerance=0.005))
    assert verdict[0] is expected, verdict


@pytest.mark.parametrize("value, expected", [
    ("#20917", True), ("Cheque no. 20917", True), ("check #20917 (posted as $1,254.00)", True),
    ("No. 20917 - transposed digits", True), ("ref 20917", True), ("20971", False), ("#20917 and #20918", False),
    ("20917 or 20918", False), ("209170", False),
])
def test_identifiers_with_a_number_sign(tmp_path: Path, value: str, expected: bool) -> None:
    verdict = run(field("Error check", equals="20917"), memo(tmp_path, f"Error check: {value}\n"))
    assert verdict[0] is expected, verdict


@pytest.mark.parametrize("value, expected", [
    ("none", True), ("None (Notes: see notes)", True), ("none - nothing above the limit", True),
    ("none or Canada", False), ("Canada", False),
])
def test_a_text_answer_none_with_a_note(tmp_path: Path, value: str, expected: bool) -> None:
    verdict = run(field("Countries above the threshold", equals="none"),
                  memo(tmp_path, f"Overall rate: 7.1%\nCountries above the threshold: {value}\n"), work=RATE)
    assert verdict[0] is expected, verdict


@pytest.mark.parametrize("value, expected", [
    ("the March reissue, extract_2025-03.csv", True), ("output/extract_2025-03.csv", True),
    ("extract_2025-03.csv (extract_2025-03.csv in the folder)", True),
    ("extract_2025-03.csv and extract_2024-12.csv", False), ("the March reissue", False),
    ("extract_2025-03.csv (supersedes extract_2024-12.csv)", True),
    ("extract_2025-03.csv (extract_2024-12.csv)", False), ("extract_2025-03.csv (to be confirmed)", False),
])
def test_a_file_named_twice_is_one_answer(tmp_path: Path, value: str, expected: bool) -> None:
    verdict = run(field("Data file", equals="extract_2025-03.csv"), memo(tmp_path, f"Data file: {value}\n"))
    assert verdict[0] is expected, verdict


# ---- table rows ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("table, expected", [
    ("| Measure | Value |\n|---|---|\n| Overall rate | 7.1% |\n", True),
    ("| Measure | Value | Note |\n|---|---|---|\n| Overall rate | 7.1% | index stays only |\n", True),
    ("| Measure | Q3 2026 | Q3 2025 |\n|---|---|---|\n| Overall rate | 7.1% | 7.9% |\n", True),
    ("| Measure | Value | Prior quarter |\n|---|---|---|\n| Overall rate | 7.1% | 6.9% |\n", True),
    ("| Overall rate | 7.1% | 7.4% |\n", False),
    ("| Measure | Base | Sensitivity |\n|---|---|---|\n| Overall rate | 7.1% | 7.5% |\n", False),
    ("| Measure | Value | Alternative |\n|---|---|---|\n| Overall rate | 7.1% | 6.8% |\n", False),
])
def test_a_table_row_offering_two_values(tmp_path: Path, table: str, expected: bool) -> None:
    verdict = run(RATE, memo(tmp_path, table))
    assert verdict[0] is expected, verdict


def test_a_word_table_row_offering_two_values(tmp_path: Path) -> None:
    import docx

    for k, cells in enumerate((["7.1%", "index stays"], ["7.1%", "7.6%"])):
        out = tmp_path / f"out{k}"
        out.mkdir()
        d = docx.Document()
        d.add_paragraph("Readmissions")
        t = d.add_table(rows=2, cols=3)
        for j, h in enumerate(["Measure", "Value", "Other"]):
            t.cell(0, j).text = h
        for j, v in enumerate(["Overall rate", *cells]):
            t.cell(1, j).text = v
        d.save(str(out / "memo.docx"))
        ctx = CheckContext(extract_output(out, with_images=False))
        assert evaluate_check(parse_check(dict(RATE, file="memo.docx")), ctx)[0] is (k == 0)


# ---- second lines and second files ---------------------------------------------------------------------------


def test_a_second_file_offering_another_value(tmp_path: Path) -> None:
    out = memo(tmp_path, "Overall rate: 7.1%\n")
    (out / "memo_alt.md").write_text("Overall rate: 7.1%\n", encoding="utf-8")
    assert run(RATE, out)[0]  # the same value twice is one answer
    (out / "memo_alt.md").write_text("# Alternative\nOverall rate: 7.6%\n", encoding="utf-8")
    verdict = run(RATE, out)
    assert not verdict[0] and "memo_alt.md" in verdict[1]


def test_a_second_workbook_with_another_cell_value(tmp_path: Path) -> None:
    import openpyxl

    out = tmp_path / "out"
    out.mkdir()

    def book(name: str, corrections: float) -> None:
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.title = "Reconciliation"
        for row in (["Line", "Amount"], ["Balance per books", 5120.4], ["Error corrections", corrections]):
            ws.append(row)
        wb.save(out / name)

    cell = {"kind": "cell", "file": "rec.xlsx", "sheet": "Reconciliation", "match": {"Line": "Error corrections"},
            "column": "Amount", "value": 9.0, "tolerance": 0.005}
    book("rec.xlsx", 9.0)
    book("rec copy.xlsx", 9.0)
    assert run(cell, out)[0]
    book("rec copy.xlsx", 0.0)  # the book error ignored in the second copy
    assert not run(cell, out)[0]


def test_a_second_line_beside_a_figure(tmp_path: Path) -> None:
    check = {"kind": "number", "file": "memo.md", "value": 26.4, "tolerance": 0.051}
    assert run(check, memo(tmp_path, "Cardiology: 26.4%\nOrthopedics: 12.0%\n"))[0]
    assert not run(check, memo(tmp_path, "Cardiology: 26.4%\nCardiology (alternative): 27.9%\n"))[0]


@pytest.mark.parametrize("fmt", ["docx", "xlsx", "txt"])
def test_a_memo_asked_as_markdown_and_written_in_another_format(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    lines = [("Overall rate", "7.1%"), ("Decision", "ESCALATE")]
    if fmt == "docx":
        import docx

        d = docx.Document()
        for a, b in lines:
            d.add_paragraph(f"{a}: {b}")
        d.save(str(out / "memo.docx"))
    elif fmt == "xlsx":
        import openpyxl

        wb = openpyxl.Workbook()
        for a, b in lines:
            wb.active.append([a, b])
        wb.save(out / "Memo.xlsx")
    else:
        (out / "memo.txt").write_text("\n".join(f"{a}: {b}" for a, b in lines), encoding="utf-8")
    assert run(RATE, out)[0]
    decision = field("Decision", equals="ESCALATE", options=["ESCALATE", "NO ESCALATION"])
    assert run(decision, out, work=RATE)[0]
    (out / "memo.md").write_text("Overall rate: 7.6%\n", encoding="utf-8")  # and a markdown memo that differs
    assert not run(RATE, out)[0]


def test_a_memo_in_another_folder_is_not_the_deliverable(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "drafts").mkdir(parents=True)
    (out / "drafts" / "memo.docx").write_bytes(b"")
    assert not run(RATE, out)[0]


@pytest.mark.parametrize("row, expected", [
    ("| Duplicate ids | JE-2026-10670 |", True),
    ("| Duplicate ids | JE-2026-10670 | re-sent on 14 Aug with the same amount |", True),
    ("| Duplicate ids | JE-2026-10670 | JE-2026-10670; all others |", False),
    ("| Duplicate ids | JE-2026-10670 | JE-2026-10671 |", False),
])
def test_a_table_row_offering_a_second_list(tmp_path: Path, row: str, expected: bool) -> None:
    check = field("Duplicate ids", items=["JE-2026-10670"])
    assert run(check, memo(tmp_path, row + "\n"))[0] is expected


def test_the_probes_offer_second_answers_beside_the_value(tmp_path: Path) -> None:
    """jobenv.judge.probes.hedge's SECOND_ANSWERS (a row's further cell, a footnote, a second memo) lose the
    rubrics they hedge, while the output they start from keeps them."""
    from jobenv.judge.probes import SECOND_ANSWERS, hedge

    checks = [RATE, field("Data file", equals="extract_2025-03.csv"), field("Duplicate ids", items=["JE-2026-10670"]),
              field("Decision", equals="ESCALATE", options=["ESCALATE", "NO ESCALATION"])]
    rubrics = parse_rubrics({"rubrics": [{"rubric": f"r{i}", "weight": 1, "criterion": ["c"], "jobenv_checks": [c]}
                                         for i, c in enumerate(checks)]})
    src = memo(tmp_path / "src", "# Memo\n\nOverall rate: 7.1%\nData file: extract_2025-03.csv\n"
                                 "Duplicate ids: JE-2026-10670\nDecision: ESCALATE\n")
    assert all(v is not None and v[0] for row in evaluate_rubrics(rubrics, src) for v in row)
    for how in SECOND_ANSWERS:
        out, must_fail = hedge(src, tmp_path / how, rubrics, how)
        verdicts = evaluate_rubrics(rubrics, out)
        assert must_fail == [0, 1, 2, 3]
        assert [v[0] for row in verdicts for v in row if v is not None] == [False] * 4, (how, verdicts)


# ---- substance: figures the inputs state ---------------------------------------------------------------------

def _copy_task(tmp_path: Path, rows: int) -> tuple[Path, list[Any]]:
    inputs = tmp_path / "task_folder"
    inputs.mkdir()
    (inputs / "approved_budget.csv").write_text(
        "firm,approved_budget\nAcme,52.0\nBolt,17.5\nCrest,8.25\n", encoding="utf-8")
    checks = [
        [{"kind": "cell", "file": "cmp.csv", "match": {"firm": "Acme"}, "column": "budget", "value": 52.0,
          "tolerance": 0.05}],
        [{"kind": "cell", "file": "cmp.csv", "match": {"firm": "Acme"}, "column": "actual", "value": 61.3,
          "tolerance": 0.05}],
        [{"kind": "columns", "file": "cmp.csv", "columns": ["firm", "budget", "actual"]},
         {"kind": "row_count", "file": "cmp.csv", "count": rows}],
    ]
    rubrics = parse_rubrics({"rubrics": [{"rubric": f"r{i}", "weight": 1, "criterion": [f"c{j}" for j in range(len(c))],
                                          "jobenv_checks": c} for i, c in enumerate(checks)]})
    return inputs, rubrics


def _cmp(tmp_path: Path, name: str, body: str) -> Path:
    out = tmp_path / name
    out.mkdir()
    (out / "cmp.csv").write_text("firm,budget,actual\n" + body, encoding="utf-8")
    return out


def test_a_column_copied_from_the_inputs_proves_no_work(tmp_path: Path) -> None:
    """Copying the inputs' budget column into the required layout, with nothing computed, earns nothing; the same
    copied column beside a right computed figure earns its rubric."""
    inputs, rubrics = _copy_task(tmp_path, 3)
    blind = _cmp(tmp_path, "blind", "Acme,52.0,0\nBolt,17.5,0\nCrest,8.25,0\n")
    right = _cmp(tmp_path, "right", "Acme,52.0,61.3\nBolt,17.5,20.1\nCrest,8.25,9.0\n")
    credit = [[v is not None and v[0] for v in row] for row in evaluate_rubrics(rubrics, blind, inputs=inputs)]
    assert credit == [[False], [False], [False, False]], credit
    assert all(all(v is not None and v[0] for v in row) for row in evaluate_rubrics(rubrics, right, inputs=inputs))
    # without the inputs the copied figure is indistinguishable from a computed one
    assert evaluate_rubrics(rubrics, blind)[0][0] == (True, mock.ANY)


def test_rows_selected_from_the_inputs_prove_work(tmp_path: Path) -> None:
    """A table that keeps some of an input's rows (a row count below the input's) shows a selection: its copied
    cells prove work."""
    inputs, rubrics = _copy_task(tmp_path, 2)
    out = _cmp(tmp_path, "sel", "Acme,52.0,0\nCrest,8.25,0\n")
    credit = [[v is not None and v[0] for v in row] for row in evaluate_rubrics(rubrics, out, inputs=inputs)]
    assert credit == [[True], [False], [True, True]], credit


def test_a_pivot_of_every_input_key_is_a_copy(tmp_path: Path) -> None:
    """An input with a row per firm and year, pivoted into a row per firm (every firm kept), states the copied
    cells: they prove no work even though the deliverable has fewer rows than the input."""
    inputs = tmp_path / "task_folder"
    inputs.mkdir()
    (inputs / "capex.csv").write_text("firm,year,capex\nAcme,1950,40.0\nAcme,1951,52.0\nBolt,1950,15.0\n"
                                      "Bolt,1951,17.5\n", encoding="utf-8")
    checks = [[{"kind": "cell", "file": "cmp.csv", "match": {"firm": "Acme"}, "column": "c1951", "value": 52.0}],
              [{"kind": "cell", "file": "cmp.csv", "match": {"firm": "Acme"}, "column": "growth", "value": 30.0}],
              [{"kind": "row_count", "file": "cmp.csv", "count": 2}]]
    rubrics = parse_rubrics({"rubrics": [{"rubric": f"r{i}", "weight": 1, "criterion": ["c"], "jobenv_checks": c}
                                         for i, c in enumerate(checks)]})
    out = tmp_path / "out"
    out.mkdir()
    (out / "cmp.csv").write_text("firm,c1950,c1951,growth\nAcme,40.0,52.0,0\nBolt,15.0,17.5,0\n", encoding="utf-8")
    credit = [[v is not None and v[0] for v in row] for row in evaluate_rubrics(rubrics, out, inputs=inputs)]
    assert credit == [[False], [False], [False]], credit
    (out / "cmp.csv").write_text("firm,c1950,c1951,growth\nAcme,40.0,52.0,30.0\nBolt,15.0,17.5,16.7\n",
                                 encoding="utf-8")
    credit = [[v is not None and v[0] for v in row] for row in evaluate_rubrics(rubrics, out, inputs=inputs)]
    assert credit == [[True], [True], [True]], credit
