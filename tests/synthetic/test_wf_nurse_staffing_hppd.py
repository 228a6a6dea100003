"""Nurse staffing HPPD: the solver on a hand-computed pay period, and the reward a drawn task pays for a correct
answer written by hand with its own formulas, for one wrong figure, for a hedge and for a blind guess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import staffing
from jobenv.synthetic.workflows.staffing import NURSE_STAFFING_HPPD as WF
from jobenv.synthetic.workflows.staffing import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output

# ---- a pay period small enough to do by hand ------------------------------------------------------------------


def _tiny(folder: Path) -> dict:
    """Two days on cost centre 100. Census 10 + 12 = 22 patient days (the 9 on the day before is outside; the
    admissions are 3 + 4 = 7). Productive: REG 24 + float-pool REG 12 (home 999) + agency 12 = 48 hours; ORI 12
    and PTO 8 are non-productive. HPPD 48 / 22 = 2.18. ADC 11; FTE need 8.0 x 11 x 365 / 2080 / 0.88 = 17.548 (the
    superseded sheet: 7.0 and 10 % give 15.013); budget 10 + 5 = 15, gap 2.55."""
    write_csv(folder / "census.csv", ["census_date", "cost_center", "unit", "midnight_census", "admissions"],
              [["2024-03-02", "100", "Ward A", 9, 5], ["2024-03-03", "100", "Ward A", 10, 3],
               ["2024-03-04", "100", "Ward A", 12, 4]])
    write_csv(folder / "time.csv", ["employee_id", "home_cost_center", "worked_cost_center", "pay_code", "hours"],
              [["E1", "100", "100", "REG", 24], ["E1", "100", "100", "PTO", 8], ["E2", "100", "100", "ORI", 12],
               ["E3", "999", "100", "REG", 12]])
    write_xlsx(folder / "agency.xlsx", [("Shifts", ["cost_center", "hours"], [["100", 12]])])
    header = ["cost_center", "unit", "target_hppd", "nonproductive_pct"]
    write_xlsx(folder / "targets.xlsx", [("Old", header, [["100", "Ward A", 7.0, 10.0]]),
                                         ("New", header, [["100", "Ward A", 8.0, 12.0]])])
    write_csv(folder / "budget.csv", ["cost_center", "budgeted_fte"], [["100", 10.0], ["100", 5.0]])
    return {"files": {"census": "census.csv", "timeclock": "time.csv", "agency": "agency.xlsx",
                      "targets": "targets.xlsx", "budget": "budget.csv"}, "targets_sheet": "New",
            "old_targets_sheet": "Old", "agency_sheet": "Shifts", "period_start": "2024-03-03",
            "period_end": "2024-03-04", "days": 2, "productive_codes": ["REG", "OT", "CALLB", "CHG"],
            "nonproductive_codes": ["ORI", "EDU", "PTO", "SCK"], "requisitions": 2.0, "premise_unit": "100"}


def test_fte_need_by_hand():
    assert staffing.fte_needed(8.0, 25.0, 12.0) == pytest.approx(200 * 365 / 2080 / 0.88)
    assert round(staffing.fte_needed(8.0, 25.0, 12.0), 4) == 39.8820


def test_the_solver_and_the_recheck_on_a_hand_computed_period(tmp_path):
    P = _tiny(tmp_path)
    f = staffing.analyse(str(tmp_path), P)
    u = f["units"][0]
    assert (u["patient_days"], u["productive_hours"], u["hppd"]) == (22, 48.0, 2.18)
    assert (u["adc"], u["fte_needed"], u["budgeted_fte"], u["fte_gap"]) == (11.0, 17.55, 15.0, 2.55)
    assert (f["shortfall"], f["worst_unit"], f["decision"], f["premise"]) == (2.5, "Ward A", False, False)
    again = recheck(tmp_path, P)
    assert (again["shortfall"], again["units"][0]["hppd"], again["units"][0]["fte_gap"]) == (2.5, 2.18, 2.55)
    hppd = {k: staffing.analyse(str(tmp_path), P, (k,))["units"][0]["hppd"]
            for k in ("nonproductive", "agency", "admissions", "float_home")}
    assert hppd == {"nonproductive": 3.09, "agency": 1.64, "admissions": 6.86, "float_home": 1.64}
    assert staffing.analyse(str(tmp_path), P, ("old_targets",))["units"][0]["fte_needed"] == 15.01


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------


@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _facts(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return staffing.analyse(str(task / "task_folder"), params), params


def _book(path: Path, params: dict, units: list[dict], extra: list[dict] = ()) -> None:
    """The workbook a nurse manager builds: inputs first, then formulas of their own in another column order (gap
    before need, unrounded), the days of the period in a cell on another sheet."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Units"
    ws.append(["unit", "productive_hours", "patient_days", "target_hppd", "nonproductive_pct", "budgeted_fte",
               "hppd", "adc", "fte_gap", "fte_needed", "hppd_variance", "cost_center"])
    for k, u in enumerate([*units, *extra], 2):
        ws.append([u["unit"], u["productive_hours"], u["patient_days"], u["target_hppd"], u["nonproductive_pct"],
                   u["budgeted_fte"], f"=B{k}/C{k}", f"=C{k}/Notes!$B$1", f"=J{k}-F{k}",
                   f"=D{k}*H{k}*365/2080/(1-E{k}/100)", f"=G{k}-D{k}", u["cost_center"]])
    notes = wb.create_sheet("Notes")
    notes.append(["days in period", int(params["days"])])
    wb.save(path)


def _memo(path: Path, params: dict, facts: dict, overrides: dict | None = None) -> None:
    """The memo's labelled lines in a Word table (label | value), then a paragraph."""
    import docx

    L = params["labels"]
    values = {"shortfall": f"{facts['shortfall']:.1f} FTE", "overall": f"{facts['overall_hppd']:.2f}",
              "worst": facts["worst_unit"], "worst_gap": f"{facts['worst_gap']:.2f}",
              "decision": "Yes" if facts["decision"] else "No", "premise_hppd": f"{facts['premise_hppd']:.2f}",
              "premise": "Yes" if facts["premise"] else "No", **(overrides or {})}
    doc = docx.Document()
    doc.add_heading("Nursing HPPD and FTE gap", level=1)
    table = doc.add_table(rows=0, cols=2)
    for key, value in values.items():
        cells = table.add_row().cells
        cells[0].text, cells[1].text = L[key], value
    doc.add_paragraph("Agency hours counted as productive; orientation and PTO left out; approved targets used.")
    doc.save(str(path))


def test_a_correct_answer_with_its_own_formulas_earns_full_credit(task, tmp_path):
    facts, params = _facts(task)
    out = tmp_path / "right"
    out.mkdir()
    _book(out / params["deliverables"]["workbook"], params, facts["units"])
    _memo(out / params["deliverables"]["memo"], params, facts)
    assert score_output(task, out) == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    facts, params = _facts(task)
    D = params["deliverables"]
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    units = [dict(u) for u in facts["units"]]
    units[0]["budgeted_fte"] += 0.5  # one gap off by half an FTE
    _book(wrong / D["workbook"], params, units)
    _memo(wrong / D["memo"], params, facts)
    assert score_output(task, wrong) < 1.0
    hedged = tmp_path / "hedged"
    hedged.mkdir()
    second = dict(facts["units"][0], productive_hours=facts["units"][0]["productive_hours"] + 60)
    _book(hedged / D["workbook"], params, facts["units"], [second])  # two rows, two HPPDs for one unit
    _memo(hedged / D["memo"], params, facts, {"shortfall": f"{facts['shortfall']:.1f} or "
                                                           f"{facts['shortfall'] + 3:.1f}"})
    assert score_output(task, hedged) < 1.0
    blind = tmp_path / "blind"
    blind.mkdir()
    guess = [dict(u, productive_hours=u["target_hppd"] * 300, patient_days=300, budgeted_fte=30.0)
             for u in facts["units"]]
    _book(blind / D["workbook"], params, guess)
    _memo(blind / D["memo"], params, facts, {"shortfall": "5.0", "overall": "8.00", "worst": "Medical ICU",
                                             "worst_gap": "3.00", "decision": "No", "premise_hppd": "8.00",
                                             "premise": "No"})
    assert score_output(task, blind) <= 0.1
