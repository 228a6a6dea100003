"""SLA credits claim: interval union, window exclusion and credit tiers on hand-computed cases, the solver and the
independent recheck on a two-month record worked by hand, each shortcut moving the figure it should, and the
reward a drawn task pays for a correct answer written by hand in another layout, a wrong, a hedged and a blind
one, and the superseded SLA schedule's tiers."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import sla as solver
from jobenv.synthetic.workflows.sla import SLA_CREDITS_CLAIM as WF
from jobenv.synthetic.workflows.sla import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines

T = dt.datetime


def test_union_of_outages_and_maintenance_windows_by_hand():
    # 02:00-03:00 and 02:30-03:20 overlap: one period 02:00-03:20 (80 minutes, not 60 + 50 = 110)
    merged = solver.merge([(T(2025, 3, 10, 2, 30), T(2025, 3, 10, 3, 20)), (T(2025, 3, 10, 2), T(2025, 3, 10, 3))])
    assert merged == [(T(2025, 3, 10, 2), T(2025, 3, 10, 3, 20))]
    # an outage 16:00-21:00 in a window 15:00-18:00: only the 180 minutes after the window's end remain
    left = solver.subtract([(T(2025, 4, 12, 16), T(2025, 4, 12, 21))], [(T(2025, 4, 12, 15), T(2025, 4, 12, 18))])
    assert left == [(T(2025, 4, 12, 18), T(2025, 4, 12, 21))]
    # a window inside an outage splits it in two
    assert len(solver.subtract([(T(2025, 1, 1, 0), T(2025, 1, 1, 5))], [(T(2025, 1, 1, 1), T(2025, 1, 1, 2))])) == 2
    assert solver.month_bounds("2024-02") == (T(2024, 2, 1), T(2024, 3, 1))  # 29 days: 41,760 minutes


def test_credit_tiers_take_the_highest_applicable_tier():
    tiers = [[99.9, 10.0], [99.5, 25.0], [99.0, 50.0]]
    assert solver.credit_pct(99.9, tiers) == 0.0  # at the target is not below it
    assert solver.credit_pct(99.899, tiers) == 10.0
    assert solver.credit_pct(99.41, tiers) == 25.0
    assert solver.credit_pct(98.2, tiers) == 50.0


def _tiny(folder: Path) -> dict:
    """March and April 2025, Service Months in UTC+10. Counted outages (UTC):
    I1 prod-db 10 Mar 02:00-03:00 and I2 prod-web 02:30-03:20 overlap: 80 minutes (summed: 110).
    I3 prod-web 31 Mar 13:30-14:30 UTC = 23:30-00:30 local: 30 minutes in March and 30 in April (UTC months: 60 in
    March). I9 prod-web 15 Mar 01:00-01:10 inside a cancelled window: counts, 10 minutes.
    I4 prod-db 5 Apr 00:00-00:45 labelled customer but with change CHG-1: counts, 45 minutes; I5 customer without a
    change id: out. I6 prod-db 12 Apr 16:00-21:00 in the approved window 15:00-18:00: 180 minutes after its end.
    Out of scope: a stg-web outage, a prod-web degradation.
    March: 80 + 30 + 10 = 120 of 44,640 minutes -> 99.731 % (10 % tier); April: 30 + 45 + 180 = 255 of 43,200 ->
    99.410 % (25 % tier). Monthly Fees (recurring lines) 25,000 each: credits 2,500.00 + 6,250.00 = 8,750.00, under
    the cap of 20 % x 50,000 = 10,000. Offer 5,000: declined."""
    C = {"id": "incident_id", "start": "outage_start_utc", "end": "outage_end_utc", "service": "service",
         "impact": "impact", "cause": "cause_category", "change": "vendor_change_id"}
    write_csv(folder / "inc.csv", list(C.values()), [
        ["I1", "2025-03-10 02:00", "2025-03-10 03:00", "prod-db", "outage", "vendor - software", ""],
        ["I2", "2025-03-10 02:30", "2025-03-10 03:20", "prod-web", "outage", "vendor - software", ""],
        ["I9", "2025-03-15 01:00", "2025-03-15 01:10", "prod-web", "outage", "vendor - network", ""],
        ["I7", "2025-03-20 00:00", "2025-03-20 05:00", "stg-web", "outage", "vendor - network", ""],
        ["I8", "2025-03-21 00:00", "2025-03-21 02:00", "prod-web", "degraded", "vendor - network", ""],
        ["I3", "2025-03-31 13:30", "2025-03-31 14:30", "prod-web", "outage", "vendor - network", ""],
        ["I4", "2025-04-05 00:00", "2025-04-05 00:45", "prod-db", "outage", "customer", "CHG-1"],
        ["I5", "2025-04-06 00:00", "2025-04-06 01:00", "prod-web", "outage", "customer", ""],
        ["I6", "2025-04-12 16:00", "2025-04-12 21:00", "prod-db", "outage", "planned maintenance", "CHG-2"]])
    write_csv(folder / "win.csv", ["window_id", "start_utc", "end_utc", "status", "change_id", "title"], [
        ["W2", "2025-03-15 00:00", "2025-03-15 04:00", "cancelled", "CHG-3", "postponed"],
        ["W1", "2025-04-12 15:00", "2025-04-12 18:00", "approved", "CHG-2", "upgrade"]])
    write_xlsx(folder / "inv.xlsx", [("Lines", ["invoice_no", "billing_period", "description", "charge_type",
                                                "amount_usd"], [
        ["A1", "2025-03", "Platform", "recurring", 20000.0], ["A1", "2025-03", "Database", "recurring", 5000.0],
        ["A1", "2025-03", "Migration support", "one-off", 3000.0], ["A2", "2025-04", "Platform", "recurring", 25000.0],
        ["A2", "2025-04", "Bandwidth overage", "pass-through", 1000.0]])])
    return {"files": {"incidents": "inc.csv", "windows": "win.csv", "invoices": "inv.xlsx"}, "columns": C,
            "services": ["prod-db", "prod-web"], "outage_impact": "outage", "customer_cause": "customer",
            "utc_offset_hours": 10, "months": ["2025-03", "2025-04"], "target": 99.9,
            "tiers": [[99.9, 10.0], [99.5, 25.0], [99.0, 50.0]], "old_tiers": [[99.9, 5.0], [99.5, 10.0], [99.0, 20.0]],
            "cap_pct": 20.0, "invoice_sheet": "Lines", "named_month": "2025-03", "offer": 5000.0}


def test_the_solver_and_the_recheck_on_a_record_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    march, april = f["rows"]
    assert (march["down"], march["avail"], march["pct"], march["fee"], march["credit"]) == (120, 99.731, 10.0, 25000.0,
                                                                                          2500.0)
    assert (april["down"], april["avail"], april["pct"], april["fee"], april["credit"]) == (255, 99.41, 25.0, 25000.0,
                                                                                          6250.0)
    assert (f["months_below"], f["total_down"], f["total"], f["named_avail"]) == (2, 375, 8750.0, 99.731)
    assert (f["premise"], f["decision"]) == (False, True)
    again = recheck(tmp_path, P)
    assert [(r["down"], r["avail"], r["pct"], r["credit"]) for r in again["rows"]] == [
        (r["down"], r["avail"], r["pct"], r["credit"]) for r in f["rows"]]
    assert (again["total"], again["premise"], again["decision"]) == (8750.0, False, True)
    capped = solver.analyse(str(tmp_path), dict(P, cap_pct=10.0))  # 10 % of 50,000 = 5,000 < 8,750
    assert capped["total"] == 5000.0 and recheck(tmp_path, dict(P, cap_pct=10.0))["total"] == 5000.0


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert n["overlap"]["rows"][0]["down"] == 150  # 60 + 50 + 30 + 10
    assert [r["down"] for r in n["utc_months"]["rows"]] == [150, 225]  # I3 wholly in March
    assert [r["credit"] for r in n["old_tiers"]["rows"]] == [1250.0, 2500.0] and n["old_tiers"]["total"] == 3750.0
    cust = n["customer_label"]["rows"][1]  # I4 dropped: 210 minutes, 99.514 %, only the 10 % tier
    assert (cust["down"], cust["avail"], cust["pct"]) == (210, 99.514, 10.0)
    assert n["overrun"]["rows"][1]["down"] == 75  # I6 dropped entirely
    assert [r["fee"] for r in n["invoice_total"]["rows"]] == [28000.0, 26000.0]


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, avail_delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """An IT manager's own answer: the monthly sheet typed in (no formulas) with the columns in reverse order,
    yes/no in capitals and a notes column; the letter's facts as a Markdown table with bold labels and units."""
    from openpyxl import Workbook

    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["out_columns"], P["labels"], P["deliverables"]
    keys = list(C)[::-1]
    if not blind:
        wb = Workbook()
        ws = wb.active
        ws.title = P["sheet"]
        ws.append([C[k] for k in keys] + ["notes"])
        for r in f["rows"]:
            vals = dict(r, met=r["met"].upper(), avail=r["avail"] + avail_delta)
            ws.append([vals[k] for k in keys] + ["checked against the incident export"])
        wb.save(out / D["workbook"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["months_below"], f"{f['months_below']} months"), (L["total_down"], f"{f['total_down']:,} min"),
             (L["named_avail"], f"{f['named_avail'] + avail_delta:.3f}%"), (L["premise"], yes(f["premise"])),
             (L["total"], f"${f['total']:,.2f}"), (L["decision"], yes(f["decision"]))]
    if blind:
        pairs = [(k, "0") if k not in (L["decision"], L["premise"]) else (k, "No") for k, _ in pairs]
    lines = ["Dear Service Delivery Manager,", "", "| Item | Value |", "|---|---|",
             *[f"| **{k}** | {v} |" for k, v in pairs], *(extra or []), "",
             "Overlapping outages were merged, the window overrun counted after the window's end, and the months cut "
             "in local time."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, avail_delta=0.05)
    assert score_output(task, tmp_path / "wrong") <= 0.7
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['total']} | {f['total'] + 900:.2f} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.05


def test_the_superseded_sla_schedule_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("old_tiers",))
    assert old["total"] < f["total"] and old["months_below"] == f["months_below"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
