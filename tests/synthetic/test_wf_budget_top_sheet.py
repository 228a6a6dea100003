"""Budget top sheet: pension & health, payroll taxes to the wage base and the salary-capped qualified wages on
hand-computed cases, the solver and the independent recheck on a six-person budget worked by hand, each shortcut
moving the figure it should, and the reward a drawn task pays for a correct answer written by hand in another
layout, a wrong, a hedged and a blind one, and the superseded draft v3 with the old union rate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import topsheet as solver
from jobenv.synthetic.workflows.topsheet import BUDGET_TOP_SHEET as WF
from jobenv.synthetic.workflows.topsheet import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines

_TAXES = [(6.2, 150000.0), (1.45, None), (3.0, 10000.0)]


def test_pension_health_and_payroll_taxes_by_hand():
    # 15.5 % of 10,000 = 1,550.00; 300 budgeted hours at 9.85 an hour = 2,955.00
    assert solver.pension_health(10000, 0, "pct_of_wages", 15.5) == 1550.0
    assert solver.pension_health(10000, 300, "per_hour", 9.85) == 2955.0
    # 200,000 of wages: 6.2 % of the 150,000 base 9,300 + 1.45 % of all 2,900 + 3 % of the 10,000 base 300 = 12,500
    assert solver.payroll_tax(200000, _TAXES) == 12500.0
    # 8,000 of wages, under both bases: 496 + 116 + 240 = 852
    assert solver.payroll_tax(8000, _TAXES) == 852.0


def test_qualified_wages_stop_at_the_cap_and_exclude_non_residents():
    assert solver.qualified_wages(500000, True, 350000) == 350000
    assert solver.qualified_wages(120000, True, 350000) == 120000
    assert solver.qualified_wages(500000, False, 350000) == 0.0
    assert solver.qualified_wages(500000, True, None) == 500000  # the no_cap shortcut


def _tiny(folder: Path) -> dict:
    """Four accounts, six people. Fringe table: SDG 15 %, SAU 20 % of wages, L72 9.00 an hour (the payroll
    service's e-mail: 10.00); taxes 6.2 % to 150,000, 1.45 %, 3 % to 10,000; a week is 60 hours.
    Ada (director, SDG, resident) 400,000: P&H 60,000 + tax 9,300 + 5,800 + 300 = 75,400.
    Ben (lead, flat, non-resident) 600,000: no fringes.  Cy (cast, SAU, resident) 2 weeks x 10,000 = 20,000:
    P&H 4,000 + 1,240 + 290 + 300 = 5,830.  Dee (DP, L72, non-resident) 7 weeks x 8,000 = 56,000, 420 h: P&H 4,200
    + 3,472 + 812 + 300 = 8,784.  Eli (1st AC, L72, resident) 15,000, 300 h: 3,000 + 930 + 217.50 + 300 = 4,447.50.
    Fay (location manager, NU, resident) 12,000: no P&H, 744 + 174 + 300 = 1,218.
    Accounts 1300 400,000, 1400 620,000 (ATL 1,020,000); 3300 101,000, 3600 37,000 (BTL 138,000).
    ATL fringes 81,230 -> ATL 1,101,230.00; BTL fringes 14,449.50 -> BTL 152,449.50; fringes 95,679.50.
    Contingency 10 % of BTL with fringes 15,244.95; grand total 1,268,924.45.
    Qualified (cap 300,000): Ada 300,000 + Cy 20,000 + Eli 15,000 + Fay 12,000 + local site fees 25,000 (the
    camera package is from a non-resident vendor) = 372,000; credit 25 % = 93,000; net 1,175,924.45."""
    lines = [["1300", "Director - fee", "Ada Stone", "labor", "payroll", "SDG", "Y", 1, "allow", 400000],
             ["1400", "Lead actor - fee", "Ben Hale", "labor", "flat", "SAU", "N", 1, "allow", 600000],
             ["1400", "Supporting cast 1", "Cy Moss", "labor", "payroll", "SAU", "Y", 2, "week", 10000],
             ["3300", "DP - prep", "Dee Park", "labor", "payroll", "L72", "N", 2, "week", 8000],
             ["3300", "DP - shoot", "Dee Park", "labor", "payroll", "L72", "N", 5, "week", 8000],
             ["3300", "1st AC - shoot", "Eli Ruiz", "labor", "payroll", "L72", "Y", 5, "week", 3000],
             ["3300", "Camera package rental", "", "goods", "", "", "N", 5, "week", 6000],
             ["3600", "Location site fees", "", "goods", "", "", "Y", 10, "day", 2500],
             ["3600", "Location manager - prep", "Fay Lin", "labor", "payroll", "NU", "Y", 4, "week", 3000]]
    write_xlsx(folder / "detail.xlsx", [
        ("Detail", ["account", "description", "person", "cost_type", "deal", "union", "resident", "units", "unit",
                    "rate", "total"], [r + [r[7] * r[9]] for r in lines]),
        ("Accounts", ["account", "name", "section"], [["1300", "Director", "ATL"], ["1400", "Cast", "ATL"],
                                                       ["3300", "Camera", "BTL"], ["3600", "Locations", "BTL"]])])
    write_csv(folder / "fringes.csv", ["code", "description", "type", "applies_to", "basis", "rate", "wage_base"], [
        ["SDG", "", "pension_health", "SDG", "pct_of_wages", 15, ""], ["SAU", "", "pension_health", "SAU", "pct_of_wages", 20, ""],
        ["L72", "", "pension_health", "L72", "per_hour", 9, ""], ["SOC", "", "payroll_tax", "all", "pct_of_wages", 6.2, 150000],
        ["MED", "", "payroll_tax", "all", "pct_of_wages", 1.45, ""], ["SUI", "", "payroll_tax", "all", "pct_of_wages", 3, 10000]])
    write_xlsx(folder / "v3.xlsx", [("Top sheet v3", ["account", "description", "total"], [
        ["1300", "Director", 400000], ["1400", "Cast", 620000], ["3300", "Camera", 95000], ["3600", "Locations", 37000],
        ["Contingency", "", 13000]])])
    return {"files": {"detail": "detail.xlsx", "fringes": "fringes.csv", "v3": "v3.xlsx"}, "detail_sheet": "Detail",
            "accounts_sheet": "Accounts", "rate_update": {"union": "L72", "old": 9.0, "rate": 10.0},
            "hours_per_unit": {"week": 60, "day": 12, "allow": 0}, "incentive": {"rate": 25.0, "cap": 300000.0},
            "contingency": {"pct": 10.0, "with_fringes": True}, "named_person": "Ada Stone", "ceiling": 1200000.0}


def test_the_solver_and_the_recheck_on_a_budget_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert [(a["account"], a["total"]) for a in f["accounts"]] == [("1300", 400000.0), ("1400", 620000.0),
                                                                   ("3300", 101000.0), ("3600", 37000.0)]
    fr = {p["person"]: p["fringe"] for p in f["people"]}
    assert fr == {"Ada Stone": 75400.0, "Ben Hale": 0.0, "Cy Moss": 5830.0, "Dee Park": 8784.0, "Eli Ruiz": 4447.5,
                  "Fay Lin": 1218.0}
    assert (f["atl"], f["btl"], f["fringes"], f["contingency"]) == (1101230.0, 152449.5, 95679.5, 15244.95)
    assert (f["qualified"], f["credit"], f["net"], f["named_qualified"]) == (372000.0, 93000.0, 1175924.45, 300000.0)
    assert (f["decision"], f["premise"]) == (True, False)
    again = recheck(tmp_path, P)
    for k in ("atl", "btl", "fringes", "contingency", "qualified", "credit", "net", "named_qualified", "decision",
              "premise"):
        assert again[k] == f[k], k
    assert {p["person"]: p["fringe"] for p in again["people"]} == fr
    # the contingency base before fringes: 10 % of 138,000
    assert solver.analyse(str(tmp_path), dict(P, contingency={"pct": 10.0, "with_fringes": False}))["contingency"] == 13800.0


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    # Ben's 600,000 capped at 300,000 and Dee's 56,000 counted: 372,000 + 356,000
    assert (n["nonresident"]["qualified"], n["nonresident"]["credit"]) == (728000.0, 182000.0)
    assert n["no_cap"]["qualified"] == 472000.0  # Ada's whole 400,000
    # Ben fringed: 20 % of 600,000 = 120,000 + 9,300 + 8,700 + 300 = 138,300 more ATL fringes
    assert n["flat_fringed"]["atl"] == 1101230.0 + 138300.0
    # taxes on all wages: Ada +27,200, Cy +300, Dee +1,380, Eli +150, Fay +60
    assert n["no_wage_base"]["fringes"] == 95679.5 + 29090.0
    assert n["old_rate"]["fringes"] == 95679.5 - 720.0  # L72 at 9.00: Dee -420, Eli -300
    assert n["draft_v3"]["btl"] == 152449.5 - 6000.0  # Camera 95,000 in the draft
    assert n["nonresident"]["premise"] is False and n["no_cap"]["named_qualified"] == 400000.0


def test_the_workbook_is_live_formulas(tmp_path):
    from openpyxl import load_workbook

    (tmp_path / "in").mkdir()
    P = _tiny(tmp_path / "in")
    P.update(labels={k: k for k in ("atl", "btl", "fringes", "contingency", "qualified", "credit", "net", "decision",
                                    "named", "premise")},
             out_columns={"person": "person", "ph": "ph", "tax": "tax", "fringe": "fringe", "qualified": "qualified",
                          "account": "account", "amount": "amount"},
             top_rows={k: k for k in ("atl_fringes", "atl", "btl_fringes", "btl", "contingency", "grand", "credit",
                                      "net")}, deliverables={"workbook": "top.xlsx", "memo": "note.md"})
    solver.write_outputs(str(tmp_path / "out"), P, solver.analyse(str(tmp_path / "in"), P))
    wb = load_workbook(tmp_path / "out" / "top.xlsx")
    assert str(wb["TopSheet"]["D2"].value).startswith("=SUMIFS(Detail!")
    assert str(wb["Fringes"]["M2"].value).startswith("=IF(") and "MIN(G2,Rates!" in wb["Fringes"]["M2"].value
    assert "MIN(C2,Rates!$B$6)" in wb["Incentive"]["D2"].value
    assert "note.md" in [p.name for p in (tmp_path / "out").iterdir()]


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, atl_delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A line producer's own answer: the three sheets typed in (no formulas) with other column orders and a notes
    column; the note's figures as a Markdown table with bold labels, dollar signs and thousands separators."""
    from openpyxl import Workbook

    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["out_columns"], P["labels"], P["deliverables"]
    if not blind:
        wb = Workbook()
        ws = wb.active
        ws.title = "TopSheet"
        ws.append(["notes", C["amount"], C["account"]])
        for a in f["accounts"]:
            ws.append(["", a["total"], a["account"]])
        fr = wb.create_sheet("Fringes")
        fr.append([C["fringe"], C["person"], "union"])
        for p in f["people"]:
            fr.append([p["fringe"], p["person"], p["union"]])
        inc = wb.create_sheet("Incentive")
        inc.append([C["qualified"], "resident", C["person"]])
        for p in f["people"]:
            inc.append([p["qualified"], "yes" if p["resident"] else "no", p["person"]])
        wb.save(out / D["workbook"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["atl"], f"${f['atl'] + atl_delta:,.2f}"), (L["btl"], f"${f['btl']:,.2f}"),
             (L["fringes"], f"{f['fringes']:,.2f} USD"), (L["contingency"], f"${f['contingency']:,.2f}"),
             (L["qualified"], f"${f['qualified']:,.2f}"), (L["credit"], f"${f['credit']:,.2f}"),
             (L["net"], f"${f['net']:,.2f}"), (L["decision"], yes(f["decision"])),
             (L["named"], f"${f['named_qualified']:,.2f}"), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = ["# Top sheet v4", "", "| Item | Value |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
             *(extra or []), "", "Non-residents are out of qualified spend and wages stop at the cap."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, atl_delta=5000.0)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['credit']} | {f['credit'] + 250:.2f} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.05


def test_the_superseded_draft_v3_with_the_old_union_rate_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("draft_v3", "old_rate"))
    assert old["btl"] != f["btl"] and old["fringes"] != f["fringes"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
