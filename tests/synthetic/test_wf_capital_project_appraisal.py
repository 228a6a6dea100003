"""Capital project appraisal: IRR, NPV, discounted payback and the MACRS salvage tax on hand-checked cases, and the
reward a drawn task pays for answers written by hand (right in another layout, one fact wrong, hedged, blind)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import capex as solver
from jobenv.synthetic.workflows import capex

from .conftest import score_output

WF = capex.CAPITAL_APPRAISAL


# ---- the method on hand-computed cases ---------------------------------------------------------------------

def test_irr_npv_and_discounted_payback_by_hand():
    flows = [-1000, 300, 400, 500, 200]
    assert round(solver.irr(flows) * 100, 2) == round(capex._irr_secant(flows) * 100, 2) == 15.32  # Excel IRR
    # 1000 out, 500 a year for three years at 10 %: discounted 454.55, 413.22, 375.66; after two years -132.23
    # remains, so payback = 2 + 132.23 / 375.66 = 2.35 years
    assert round(solver.discounted_payback([-1000, 500, 500, 500], 0.10), 2) == 2.35
    assert solver.discounted_payback([-1000, 100, 100], 0.10) is None
    assert solver.irr([-1000, -10]) is None


def test_macrs_table_and_the_salvage_tax():
    assert round(sum(capex.MACRS7), 4) == 1.0
    # basis 1,000,000 after six years has 8.93 % + 4.46 % = 133,900 left; salvage 100,000 at 25 % tax is a loss
    # of 33,900, so the sale brings 100,000 + 8,475 = 108,475 after tax; the year-6 flow adds the shield
    # 0.25 x 89,200 and the working capital of 50,000
    years = [(y, 0.0, 0.0) for y in range(1, 7)]
    flows, _ = capex._model({"capex": 1_000_000}, years, 0.0, 0.0, 50_000, 100_000, 0.25, 10.0)
    assert flows[0] == -1_050_000
    assert round(flows[1], 2) == 35_725.00  # 0.25 x 142,900
    assert round(flows[6], 2) == round(0.25 * 89_200 + 50_000 + 108_475, 2)


# ---- a drawn task and hand-written answers ---------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task):
    path = workflow_task(WF, True, True)
    params = json.loads((path / "ground_truth" / "params.json").read_text())
    return path, params, solver.analyse(str(path / "task_folder"), params)


def _answer(out: Path, P: dict, facts: dict, *, npv: float | None = None, second_irr: float | None = None,
            blind: bool = False) -> None:
    """An answer by hand: the FCF sheet with the years across columns turned into rows of its own layout (year,
    discounted flow, flow), Valuation formulas over those rows, and a Word memo whose facts sit in a table."""
    import docx
    from openpyxl import Workbook

    out.mkdir(parents=True)
    L, D = P["labels"], P["deliverables"]
    f = dict(facts)
    if blind:
        f.update(npv=250_000.0, irr=12.0, payback=4.0, capex=5_000_000.0, nwc_release=400_000.0, decision=True,
                 premise=True, rows=[{"year": r["year"], "fcf": 100_000.0} for r in facts["rows"]])
    wb = Workbook()
    ws = wb.active
    ws.title = "FCF"
    ws.append(["Year", "Discounted", "FCF"])
    for k, r in enumerate(f["rows"], 2):
        ws.append([r["year"], f"=C{k}/(1+{P['wacc'] / 100!r})^A{k}", r["fcf"]])
    end = len(f["rows"]) + 1
    v = wb.create_sheet("Valuation")
    v.append(["Line", "Value", "Comment"])
    v.append([L["npv"], f"=SUM(FCF!B2:B{end})" if npv is None and not blind else (npv or f["npv"]), "end-year"])
    v.append([L["irr"], f"=IRR(FCF!C2:C{end})*100" if not blind else f["irr"], ""])
    if second_irr is not None:
        v.append([L["irr"], second_irr, "alternative"])
    wb.save(out / D["workbook"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    rows = [(L["capex"], f"${f['capex']:,.2f}"), (L["npv"], f"${(npv or f['npv']):,.2f}"), (L["irr"], f"{f['irr']:.2f} %"),
            (L["payback"], "not within the project life" if f["payback"] is None else f"{f['payback']:.2f}"),
            (L["nwc"], f"${f['nwc_release']:,.2f}"), (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    doc = docx.Document()
    doc.add_paragraph("Investment committee paper - press line")
    tab = doc.add_table(rows=1, cols=2)
    tab.rows[0].cells[0].text, tab.rows[0].cells[1].text = "Measure", "Result"
    for k, val in rows:
        cells = tab.add_row().cells
        cells[0].text, cells[1].text = k, val
    doc.add_paragraph("Development spend already incurred is sunk; the later WACC memo governs.")
    doc.save(str(out / D["memo"]))


def test_a_correct_answer_in_another_layout_earns_full_credit(task, tmp_path):
    path, P, facts = task
    _answer(tmp_path / "right", P, facts)
    assert score_output(path, tmp_path / "right") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    path, P, facts = task
    _answer(tmp_path / "wrong", P, facts, npv=round(facts["npv"] * 1.1 + 1000, 2))
    assert score_output(path, tmp_path / "wrong") < 1.0
    _answer(tmp_path / "hedged", P, facts, second_irr=round(facts["irr"] + 1.5, 2))
    assert score_output(path, tmp_path / "hedged") < 1.0
    _answer(tmp_path / "blind", P, facts, blind=True)
    assert score_output(path, tmp_path / "blind") <= 0.1


def test_the_governing_wacc_and_the_sunk_spend_change_the_answer(task):
    path, P, facts = task
    folder = str(path / "task_folder")
    assert facts["wacc_used"] == P["wacc"] and facts["decision"] and facts["premise"]
    assert solver.analyse(folder, P, ("sunk",))["capex"] > facts["capex"]
    assert solver.analyse(folder, P, ("wacc",))["npv"] > facts["npv"]  # the superseded memo's rate is lower
    assert solver.analyse(folder, P, ("nwc",))["nwc_release"] == 0.0
