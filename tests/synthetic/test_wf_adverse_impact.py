"""Adverse-impact workflow: the statistics on hand-computed cases, the test-stage population rules on a tiny
export, and the reward for a correct answer written another way, a wrong one, a hedged one and a blind one."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import adverse
from jobenv.synthetic.solvers._deliver import write_memo
from jobenv.synthetic.workflows import WORKFLOWS

from .conftest import score_output

WF = next(w for w in WORKFLOWS if w.key == "adverse_impact")


# ---- the statistics on hand-computed cases --------------------------------------------------------------

def test_fisher_two_sided_on_hand_computed_tables():
    # [[3,0],[0,3]]: margins 3/3 of 6; weights C(3,x)C(3,3-x) = 1, 9, 9, 1 of C(6,3) = 20; the two tables as
    # unlikely as the observed one (x = 0 and x = 3) give 2/20
    assert adverse.fisher_two_sided(3, 0, 0, 3) == pytest.approx(0.1, abs=1e-12)
    # [[2,1],[1,2]] has weight 9, the largest: every table counts
    assert adverse.fisher_two_sided(2, 1, 1, 2) == pytest.approx(1.0, abs=1e-12)
    # [[1,3],[4,0]]: margins row 4, col 5 of 8; weights C(5,x)C(3,4-x) for x=1..4: 5, 30, 30, 5 of C(8,4) = 70;
    # tables with weight <= 5: x = 1 and x = 4, so p = 10/70
    assert adverse.fisher_two_sided(1, 3, 4, 0) == pytest.approx(10 / 70, abs=1e-12)
    # [[1,4],[4,1]]: margins 5/5 of 10; weights C(5,x)^2: 1, 25, 100, 100, 25, 1 of 252; weight <= 25: 52/252
    assert adverse.fisher_two_sided(1, 4, 4, 1) == pytest.approx(52 / 252, abs=1e-12)


def test_fisher_agrees_with_scipy_on_a_larger_table():
    from scipy.stats import fisher_exact

    for table in ([[23, 41], [58, 37]], [[40, 60], [41, 59]], [[0, 12], [9, 3]]):
        (a, b), (c, d) = table
        assert adverse.fisher_two_sided(a, b, c, d) == pytest.approx(float(fisher_exact(table)[1]), rel=1e-9)


def test_pooled_two_proportion_z_by_hand():
    # 10/50 vs 20/50: pooled 0.3, se = sqrt(0.3 * 0.7 * (1/50 + 1/50)) = sqrt(0.0084); z = -0.2 / 0.0916515
    assert adverse.two_proportion_z(10, 50, 20, 50) == pytest.approx(-2.182179, abs=1e-6)


def _tiny_flow(folder: Path) -> dict:
    """Three groups; W: 10 tested, 6 passed, one withdrawn before the test, one withdrawn after it (a pass);
    B: 8 tested, 2 passed, one failing person on two requisitions, two withdrawn before; A: 5 tested, 4 passed;
    two undisclosed test-takers (both pass)."""
    C = dict(adverse_columns())
    rows = []
    n = 0

    def add(group, taken, passed, cid=None, withdrew=""):
        nonlocal n
        n += 1
        rows.append({C["requisition"]: "REQ-1", C["application"]: f"A{n}", C["candidate"]: cid or f"C{n}",
                     C["applied"]: "2024-01-02", C["sex"]: "", C["ethnicity"]: group, C["test_date"]: "2024-01-09",
                     C["taken"]: "Y" if taken else "N", C["score"]: "", C["passed"]: "Y" if passed else "N",
                     C["hired"]: "N", C["withdrew"]: withdrew})

    for k in range(10):
        add("W", True, k < 6, withdrew="2024-01-15" if k == 0 else "")
    add("W", False, False, withdrew="2024-01-05")
    for k in range(8):
        add("B", True, k < 2, cid="CB7" if k == 7 else None)
    add("B", True, False, cid="CB7")  # the same person on a second requisition
    add("B", False, False, withdrew="2024-01-04")
    add("B", False, False, withdrew="2024-01-06")
    for k in range(5):
        add("A", True, k < 4)
    add("ND", True, True)
    add("ND", True, True)
    path = folder / "flow.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return {"files": {"flow": "flow.csv"}, "columns": C, "groups": ["W", "B", "A"], "undisclosed": "ND",
            "threshold": 0.8, "alpha": 0.05, "premise_group": "A", "labels": {"below": "below", "meets": "meets"}}


def adverse_columns():
    from jobenv.synthetic.workflows.adverse import _COLUMNS

    return _COLUMNS


def test_population_rules_and_ratios_on_a_tiny_export(tmp_path):
    P = _tiny_flow(tmp_path)
    f = adverse.analyse(str(tmp_path), P)
    by = {g["group"]: g for g in f["groups"]}
    assert (by["W"]["tested"], by["W"]["passed"]) == (10, 6)
    assert (by["B"]["tested"], by["B"]["passed"]) == (8, 2)
    assert f["highest"] == "A" and f["lowest"] == "B"
    assert by["B"]["ratio"] == pytest.approx(0.25 / 0.8, abs=1e-4)  # 0.3125
    assert f["lowest_ratio"] == 0.313  # 0.3125 rounded half up
    assert f["shortfall"] == pytest.approx(0.8 * 8 - 2)  # 4.4
    assert f["undisclosed_tested"] == 2 and f["decision"] and f["premise"]
    # B [[2, 6]] vs A [[4, 1]]: margins row 8, col 6 of 13
    from math import comb

    weights = {x: comb(6, x) * comb(7, 8 - x) for x in range(1, 7)}
    p = sum(w for w in weights.values() if w <= weights[2]) / comb(13, 8)
    assert f["fisher_p"] == round(p, 4)
    naive = adverse.analyse(str(tmp_path), P, ("withdrawn", "duplicates"))
    nb = {g["group"]: g for g in naive["groups"]}
    assert (nb["W"]["tested"], nb["B"]["tested"]) == (11, 11)
    assert adverse.analyse(str(tmp_path), P, ("undisclosed",))["highest"] == "ND"
    assert adverse.analyse(str(tmp_path), P, ("majority_ref",))["groups"][0]["ratio"] == 1.0  # W is the largest


# ---- a drawn task and the reward it pays ------------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task):
    return workflow_task(WF, True, False)


def _facts(task: Path):
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return adverse.analyse(str(task / "task_folder"), params), params


def _hand_answer(out: Path, P: dict, f: dict, *, ratio_shift: float = 0.0, extra: str = "") -> None:
    """A different writer: a docx memo with a Word table, the workbook with typed values, percentages as text
    in an extra column, the groups in reverse order."""
    import docx
    from openpyxl import Workbook

    out.mkdir(parents=True, exist_ok=True)
    D, L, W = P["deliverables"], P["labels"], P["sheet_columns"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Rates"
    ws.append([W["group"], "Rate (%)", W["tested"], W["passed"], W["rate"], W["ratio"], W["four_fifths"]])
    for g in reversed(f["groups"]):
        ws.append([g["group"], f"{100 * g['rate']:.1f}%", g["tested"], g["passed"], g["rate"], g["ratio"],
                   g["four_fifths"]])
    wb.save(out / D["workbook"])
    yn = lambda b: "YES" if b else "NO"  # noqa: E731
    pairs = [(L["lowest_ratio"], f"{f['lowest_ratio'] + ratio_shift:.3f}"), (L["lowest"], f["lowest"]),
             (L["highest"], f["highest"]), (L["decision"], yn(f["decision"])), (L["fisher_p"], f"p = {f['fisher_p']:.4f}"),
             (L["z"], f"{f['z']:.2f}"), (L["shortfall"], f"{f['shortfall']:.1f}"),
             (L["undisclosed"], str(f["undisclosed_tested"]) + extra), (L["premise"], yn(f["premise"]))]
    doc = docx.Document()
    doc.add_paragraph("Adverse impact review of the screening test")
    table = doc.add_table(rows=0, cols=2)
    for k, v in pairs:
        cells = table.add_row().cells
        cells[0].text, cells[1].text = k, v
    doc.add_paragraph("Four-fifths rule against the highest-rate group; Fisher's exact test, two-sided.")
    doc.save(str(out / D["memo"]))


def test_a_hand_written_answer_in_another_style_earns_full_credit(task, tmp_path):
    f, P = _facts(task)
    _hand_answer(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _facts(task)
    _hand_answer(tmp_path / "wrong", P, f, ratio_shift=0.05)
    assert score_output(task, tmp_path / "wrong") < 1.0
    _hand_answer(tmp_path / "hedged", P, f, extra=f" or {f['undisclosed_tested'] + 3}")
    assert score_output(task, tmp_path / "hedged") < 1.0
    L = P["labels"]
    blind = tmp_path / "blind"
    write_memo(str(blind / P["deliverables"]["memo"]), [
        f"{L['lowest_ratio']}: 0.750", f"{L['lowest']}: Black", f"{L['highest']}: White", f"{L['decision']}: yes",
        f"{L['fisher_p']}: 0.0300", f"{L['z']}: -2.10", f"{L['shortfall']}: 5.0", f"{L['undisclosed']}: 10",
        f"{L['premise']}: no"])
    assert score_output(task, blind) <= 0.1


def test_the_workbook_formulas_recalculate_to_the_graded_rates(task):
    from openpyxl import load_workbook

    f, P = _facts(task)
    book = task / "ground_truth" / "outputs" / P["deliverables"]["workbook"]
    ws = load_workbook(book)["Rates"]
    assert str(ws["B2"].value).startswith("=COUNTIFS(") and str(ws["E2"].value).startswith("=")
    assert score_output(task, task / "ground_truth" / "outputs") == 1.0
