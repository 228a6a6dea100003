"""Travel claims against per diem: the solver on a hand-computed trip, and the reward a drawn task pays for a
correct answer written by hand with its own formulas, for one wrong figure, for a hedge and for a blind guess."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import perdiem
from jobenv.synthetic.workflows.perdiem import TRAVEL_PER_DIEM as WF
from jobenv.synthetic.workflows.perdiem import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output

BREAKDOWN = {"breakfast": 16, "lunch": 17, "dinner": 31}


def test_mie_by_hand():
    lunch = {dt.date(2024, 6, 4): ("lunch",)}
    # 0.75 x 69 + 69 + 0.75 x 69 - 17 = 155.50
    assert perdiem.mie_allowed(dt.date(2024, 6, 3), dt.date(2024, 6, 5), 69.0, lunch, BREAKDOWN) == (155.5, 17.0)
    # every meal provided on a 75 % day: the day goes to zero, not below (51.75 deducted, 51.75 left)
    allday = {dt.date(2024, 6, 3): ("breakfast", "lunch", "dinner")}
    assert perdiem.mie_allowed(dt.date(2024, 6, 3), dt.date(2024, 6, 4), 69.0, allday, BREAKDOWN) == (51.75, 51.75)


def _tiny(folder: Path) -> dict:
    """One traveller, 3 to 5 June 2024 (peak season: lodging 150, off season 100; M&IE 69), lunch provided on the
    4th. M&IE 155.50; rooms 160 and 140 (taxes 20 and 17.50): 150 + 140 + 37.50 = 327.50; 100 miles at 0.67 = 67;
    registration 400. Allowable 950.00 against 1,011.50 claimed: 61.50 over."""
    write_csv(folder / "rates.csv", ["destination", "season_begin", "season_end", "lodging", "mie"],
              [["Testville", "2024-01-01", "2024-05-31", 100, 69], ["Testville", "2024-06-01", "2024-12-31", 150, 69],
               ["Elsewhere", "2024-01-01", "2024-12-31", 300, 79]])
    base = ["Ann Lee", "2024-06-03", "2024-06-05"]
    write_xlsx(folder / "claims.xlsx", [("Lines", ["traveller", "depart_date", "return_date", "expense_type", "amount",
                                                   "miles"],
                                         [base + ["M&IE", 207.0, ""], base + ["Lodging", 337.5, ""],
                                          base + ["Registration", 400.0, ""], base + ["Mileage", 67.0, 100]])])
    write_csv(folder / "folios.csv", ["traveller", "night_of", "room_rate", "tax"],
              [["Ann Lee", "2024-06-03", 160, 20], ["Ann Lee", "2024-06-04", 140, 17.5]])
    return {"files": {"per_diem": "rates.csv", "claims": "claims.xlsx", "receipts": "folios.csv"},
            "claims_sheet": "Lines", "destination": "Testville", "travel_day_pct": 75, "breakdown": BREAKDOWN,
            "mileage_rate": 0.67, "provided_meals": {"2024-06-04": ["lunch"]}, "as_claimed": ["Airfare", "Registration"],
            "travellers": ["Ann Lee"], "budget": 1000.0, "premise_traveller": "Ann Lee"}


def test_the_solver_and_the_recheck_on_a_hand_computed_trip(tmp_path):
    P = _tiny(tmp_path)
    f = perdiem.analyse(str(tmp_path), P)
    r = f["travellers"][0]
    assert (r["mie_allowed"], r["lodging_allowed"], r["mileage_allowed"], r["allowable"]) == (155.5, 327.5, 67.0, 950.0)
    assert (r["claimed"], r["over_claim"], f["decision"], f["premise"]) == (1011.5, 61.5, True, False)
    again = recheck(tmp_path, P)
    assert (again["total_allowable"], again["total_over"], again["named_mie"]) == (950.0, 61.5, 155.5)
    naive = {k: perdiem.analyse(str(tmp_path), P, (k,))["travellers"][0] for k in ("full_days", "meals", "season",
                                                                                   "lodging_tax")}
    assert (naive["full_days"]["mie_allowed"], naive["meals"]["mie_allowed"]) == (190.0, 172.5)
    assert (naive["season"]["lodging_allowed"], naive["lodging_tax"]["lodging_allowed"]) == (237.5, 300.0)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------


@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, False, True)


def _book(path: Path, rows: list[dict], extra: list[dict] = ()) -> None:
    """An administrator's workbook: inputs, then formulas of their own (M&IE from full-day equivalents)."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Claims"
    ws.append(["traveller", "claimed", "travel_days", "mie_rate", "meals_deducted", "room_allowed", "lodging_tax",
               "miles", "mileage_rate", "other_allowed", "mie_allowed", "lodging_allowed", "mileage_allowed",
               "allowable", "over_claim"])
    for k, r in enumerate([*rows, *extra], 2):
        ws.append([r["traveller"], r["claimed"], r["travel_days"], r["mie_rate"], r["meals_deducted"],
                   r["room_allowed"], r["lodging_tax"], r["miles"], r["mileage_rate"], r["other_allowed"],
                   f"=(C{k}-0.5)*D{k}-E{k}", f"=F{k}+G{k}", f"=ROUND(H{k}*I{k},2)", f"=K{k}+L{k}+M{k}+J{k}",
                   f"=B{k}-N{k}"])
    wb.save(path)


def _memo(path: Path, params: dict, facts: dict, overrides: dict | None = None) -> None:
    """The memo's lines in a Word table (label | value)."""
    import docx

    L = params["labels"]
    values = {"total": f"${facts['total_allowable']:,.2f}", "over": f"{facts['total_over']:.2f}",
              "worst": facts["worst"], "worst_over": f"{facts['worst_over']:.2f}",
              "decision": "Yes" if facts["decision"] else "No", "named_mie": f"{facts['named_mie']:.2f}",
              "premise": "Yes" if facts["premise"] else "No", **(overrides or {})}
    doc = docx.Document()
    table = doc.add_table(rows=0, cols=2)
    for key, value in values.items():
        cells = table.add_row().cells
        cells[0].text, cells[1].text = L[key], value
    doc.add_paragraph("Travel days at 75 %; the agenda's lunches deducted; rooms capped per night, taxes on top.")
    doc.save(str(path))


def _facts(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return perdiem.analyse(str(task / "task_folder"), params), params


def test_a_correct_answer_with_its_own_formulas_earns_full_credit(task, tmp_path):
    facts, params = _facts(task)
    D = params["deliverables"]
    _book(tmp_path / D["workbook"], facts["travellers"])
    _memo(tmp_path / D["memo"], params, facts)
    assert score_output(task, tmp_path) == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    facts, params = _facts(task)
    D = params["deliverables"]
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    rows = [dict(r) for r in facts["travellers"]]
    rows[0]["meals_deducted"] = 0.0  # one traveller's provided lunch not deducted
    _book(wrong / D["workbook"], rows)
    _memo(wrong / D["memo"], params, facts)
    assert score_output(task, wrong) < 1.0
    hedged = tmp_path / "hedged"
    hedged.mkdir()
    _book(hedged / D["workbook"], facts["travellers"], [dict(facts["travellers"][0], room_allowed=0.0)])
    _memo(hedged / D["memo"], params, facts, {"total": f"{facts['total_allowable']:.2f} or "
                                                      f"{facts['total_allowable'] + 50:.2f}"})
    assert score_output(task, hedged) < 1.0
    blind = tmp_path / "blind"
    blind.mkdir()
    guess = [dict(r, travel_days=4, mie_rate=69.0, meals_deducted=0.0, room_allowed=450.0, lodging_tax=60.0,
                  miles=0.0, claimed=1500.0) for r in facts["travellers"]]
    _book(blind / D["workbook"], guess)
    _memo(blind / D["memo"], params, facts, {"total": "6000.00", "over": "150.00", "worst": facts["travellers"][0]
                                             ["traveller"], "worst_over": "100.00", "decision": "No",
                                             "named_mie": "241.50", "premise": "No"})
    assert score_output(task, blind) <= 0.1
