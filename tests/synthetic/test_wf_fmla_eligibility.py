"""FMLA eligibility: the break-in-service rule, hours worked (PTO out, USERRA military leave in) and the rolling-backward
year on hand-computed cases, the solver and the independent recheck on an HRIS extract worked by hand, each shortcut
moving the figure it should, and the reward a drawn task pays for a correct answer written by hand in another layout,
a wrong, a hedged and a blind one, and the superseded 2022 handbook."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import fmla as solver
from jobenv.synthetic.workflows.fmla import FMLA_ELIGIBILITY as WF
from jobenv.synthetic.workflows.fmla import recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines

D = dt.date


def test_service_counts_prior_employment_only_after_a_break_under_seven_years():
    start, hire = D(2026, 3, 2), D(2025, 6, 1)
    assert solver.service_days(start, hire) == 274  # June 2025 to 2 March 2026
    assert solver.service_days(start, hire, "2019-01-01", "2021-01-01") == 274 + 731  # break of 4.4 years
    assert solver.service_days(start, hire, "2010-01-01", "2017-01-01") == 274  # break of 8.4 years erases it
    assert solver.service_days(start, hire, "2010-01-01", "2017-01-01", ("any_break",)) == 274 + 2557
    assert solver.service_days(start, hire, "2019-01-01", "2021-01-01", ("current_stint_only",)) == 274
    assert solver.service_days(start, D(2024, 6, 1), "2010-01-01", "2017-06-01") == 639  # a break of exactly 7 years
    assert solver.service_days(start, D(2024, 5, 31), "2010-01-01", "2017-06-01") == 640 + 2708  # one day short


def test_hours_worked_take_regular_overtime_and_military_leave_in_the_twelve_months_before():
    start = D(2026, 3, 2)
    cards = [(D(2025, 3, 1), "REG", 8.0), (D(2025, 3, 2), "REG", 8.0), (D(2025, 7, 1), "REG", 1000.0),
             (D(2025, 7, 2), "OT", 50.0), (D(2025, 9, 1), "MIL", 400.0), (D(2025, 10, 1), "PTO", 80.0),
             (D(2025, 12, 25), "HOL", 8.0), (D(2026, 3, 2), "REG", 8.0)]
    assert solver.hours_worked(cards, start) == 1458.0  # 1 March 2025 and the start day itself are outside
    assert solver.hours_worked(cards, start, ("military_excluded",)) == 1058.0
    assert solver.hours_worked(cards, start, ("pto_counts",)) == 1546.0


def test_leave_used_rolls_backward_twelve_months_not_the_calendar_year():
    start = D(2026, 3, 2)
    leave = [(D(2025, 2, 15), 16.0), (D(2025, 3, 2), 4.0), (D(2025, 10, 15), 40.0), (D(2026, 1, 20), 20.0)]
    assert solver.leave_used(leave, start) == 64.0
    assert solver.leave_used(leave, start, ("calendar_year",)) == 20.0


def _tiny(folder: Path) -> dict:
    """Six requests, leave starting 2 March 2026. E1 rehired 1 June 2025 after a 4-year break (1,005 days: eligible),
    E2 rehired the same day after an 8-year break (274 days: not eligible), E3 part-time 20 h with 1,200 hours worked
    plus 116 of PTO and holiday (not eligible), E4 1,458 hours with 400 of military leave (eligible), E5 part-time
    30 h on intermittent leave with 60 FMLA hours in the rolling year (40 last October, 20 in January; 360 - 60 = 300
    left against 320 requested: not in full), E6 at a 20-person site with 40 more at 60 miles (60 within 75 miles)."""
    start = "2026-03-02"
    emp = [["E1", "WS-1", "2025-06-01", "2019-01-01", "2021-01-01", "40"],
           ["E2", "WS-1", "2025-06-01", "2010-01-01", "2017-01-01", "40"],
           ["E3", "WS-1", "2015-01-01", "", "", "20"], ["E4", "WS-1", "2015-01-01", "", "", "40"],
           ["E5", "WS-1", "2015-01-01", "", "", "30"], ["E6", "WS-2", "2015-01-01", "", "", "40"]]
    write_csv(folder / "emp.csv", ["employee_id", "worksite_id", "hire_date", "prior_hire_date", "prior_term_date",
                                   "scheduled_weekly_hours"], emp)
    write_csv(folder / "sites.csv", ["worksite_id", "city", "headcount"],
              [["WS-1", "A", 100], ["WS-2", "B", 20], ["WS-3", "C", 40]])
    write_csv(folder / "miles.csv", ["from_site", "to_site", "road_miles"],
              [["WS-1", "WS-2", 80], ["WS-2", "WS-3", 60], ["WS-1", "WS-3", 120]])
    cards = [["E1", "2025-07-01", "REG", 1400], ["E2", "2025-07-01", "REG", 1400],
             ["E3", "2025-05-01", "REG", 1200], ["E3", "2025-08-01", "PTO", 100], ["E3", "2025-12-25", "HOL", 16],
             ["E4", "2025-03-01", "REG", 300], ["E4", "2025-03-02", "REG", 8], ["E4", "2025-07-01", "REG", 1000],
             ["E4", "2025-07-02", "OT", 50], ["E4", "2025-09-01", "MIL", 400],
             ["E5", "2025-06-01", "REG", 1500], ["E5", "2025-10-15", "FML", 40], ["E6", "2025-06-01", "REG", 2000]]
    write_csv(folder / "time.csv", ["employee_id", "work_date", "pay_code", "hours"], cards)
    write_csv(folder / "leave.csv", ["employee_id", "leave_date", "hours", "fmla_designated"],
              [["E5", "2025-02-15", 16, "Y"], ["E5", "2025-10-15", 40, "Y"], ["E5", "2026-01-20", 20, "Y"],
               ["E5", "2026-02-01", 8, "N"]])
    write_csv(folder / "req.csv", ["request_id", "employee_id", "leave_start", "hours_requested"],
              [[f"R{k}", f"E{k}", start, 320 if k == 5 else 160] for k in range(1, 7)])
    return {"files": {"roster": "emp.csv", "sites": "sites.csv", "miles": "miles.csv", "time": "time.csv",
                      "leave": "leave.csv", "requests": "req.csv"}, "radius_miles": 75, "focus": "E5", "claim": "E1"}


def _by(f: dict) -> dict:
    return {x["employee_id"]: x for x in f["rows"]}


def test_the_solver_and_the_recheck_on_an_extract_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    for f in (solver.analyse(str(tmp_path), P), recheck(tmp_path, P)):
        b = _by(f)
        assert [b[e]["eligible"] for e in sorted(b)] == [True, False, False, True, True, True]
        assert (b["E3"]["hours_12mo"], b["E4"]["hours_12mo"], b["E6"]["employees_75mi"]) == (1200.0, 1458.0, 60)
        assert (b["E1"]["employees_75mi"], b["E5"]["hours_12mo"]) == (100, 1500.0)
        assert [b[e]["remaining"] for e in sorted(b)] == [480.0, 0.0, 0.0, 480.0, 300.0, 480.0]
        assert (f["eligible_count"], f["decision"], f["premise"]) == (4, False, False)
    assert _by(solver.analyse(str(tmp_path), P))["E1"]["service_days"] == 1005


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: _by(solver.analyse(str(tmp_path), P, (k,))) for k in WF.shortcuts}
    assert (n["pto_counts"]["E3"]["hours_12mo"], n["pto_counts"]["E3"]["eligible"]) == (1316.0, True)
    assert (n["military_excluded"]["E4"]["hours_12mo"], n["military_excluded"]["E4"]["eligible"]) == (1058.0, False)
    assert n["current_stint_only"]["E1"]["eligible"] is False and n["any_break"]["E2"]["eligible"] is True
    assert (n["site_only"]["E6"]["employees_75mi"], n["site_only"]["E6"]["eligible"]) == (20, False)
    assert n["calendar_year"]["E5"]["remaining"] == 340.0 and n["fulltime_hours"]["E5"]["remaining"] == 420.0
    assert solver.analyse(str(tmp_path), P, ("calendar_year",))["decision"] is True  # 340 covers the 320 requested
    assert solver.analyse(str(tmp_path), P, ("current_stint_only",))["premise"] is True


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, hours_delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """An HR partner's own answer: the upload with its columns in another order, eligibility in lower case and
    hours without trailing zeros; the notice facts as bold labels, employees in reverse order, words after numbers."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["columns"], P["labels"], P["deliverables"]
    keys = ("employee_id", "request_id", "eligible", "remaining", "used", "entitlement", "employees_75mi",
            "hours_12mo", "leave_start")
    rows = []
    for x in reversed(f["rows"]):
        v = dict(x, eligible="y" if x["eligible"] else "n", hours_12mo=round(x["hours_12mo"] + hours_delta, 2))
        rows.append([0 if blind and k != "employee_id" and k != "request_id" else v[k] for k in keys])
    if not blind:
        with (out / D["csv"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C[k] for k in keys])
            w.writerows(rows)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    lines = ["# FMLA determinations", "", f"**{L['count']}:** {f['eligible_count']} of {len(f['rows'])}",
             f"**{L['decision']}:** {yes(f['decision'])}", f"**{L['premise']}:** {yes(f['premise'])}", ""]
    for x in reversed(f["rows"]):
        e = x["employee_id"]
        lines += [f"**{e} {L['elig']}:** {yes(x['eligible'])}",
                  f"**{e} {L['hours']}:** {x['hours_12mo'] + hours_delta:,.2f} hours",
                  f"**{e} {L['near']}:** {x['employees_75mi']} employees",
                  f"**{e} {L['remaining']}:** {x['remaining']:.2f} hours", ""]
    if blind:
        lines = [ln.split(":**")[0] + ":** No" if ":**" in ln else ln for ln in lines]
    lines += [*(extra or []), "Rolling 12 months measured backward; USERRA hours counted; PTO is not hours worked."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, hours_delta=40.0)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L, focus = P["labels"], f["rows"][0]["employee_id"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{focus} {L['remaining']}:** {f['rows'][0]['remaining'] + 40:.2f}",
                                            f"**{L['decision']}:** {'No' if f['decision'] else 'Yes'}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_each_trap_of_the_drawn_task_loses(task, tmp_path):
    f, P = _load(task)
    full = score_output(task, task / "ground_truth" / "outputs")
    assert full == 1.0
    for s in WF.shortcuts:
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert g["rows"] != f["rows"], s
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0, s


def test_the_superseded_2022_policy_loses(task, tmp_path):
    f, P = _load(task)
    # the 2022 handbook: service from the last hire date only, leave counted in the calendar year
    old = solver.analyse(str(task / "task_folder"), P, ("current_stint_only", "calendar_year"))
    assert old["eligible_count"] < f["eligible_count"] and old["rows"] != f["rows"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
