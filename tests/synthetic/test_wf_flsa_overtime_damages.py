"""FLSA overtime damages: the regular rate with a quarterly bonus spread over its quarter, the half-time premium, the
two years from each consent filing on hand-computed cases, the solver and the independent recheck on a payroll worked
by hand, each shortcut moving the figure it should, and the reward a drawn task pays for a correct answer written by
hand in another layout, a wrong, a hedged and a blind one, and the archived 2022 protocol."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import flsa as solver
from jobenv.synthetic.workflows.flsa import FLSA_OVERTIME as WF
from jobenv.synthetic.workflows.flsa import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines

D = dt.date


def test_a_quarterly_bonus_is_spread_equally_over_the_quarters_workweeks():
    weeks = {"E1": [(D(2022, 3, 12), 50.0, 1000.0), (D(2022, 3, 19), 50.0, 1000.0), (D(2022, 3, 26), 38.0, 760.0),
                    (D(2022, 4, 16), 44.0, 880.0)]}
    q = [{"emp": "E1", "quarter": "2022Q1", "paid": D(2022, 4, 15), "amount": 300.0, "discretionary": False},
         {"emp": "E1", "quarter": "2022Q2", "paid": D(2022, 4, 20), "amount": 200.0, "discretionary": True}]
    a = solver.allocate(weeks, q)
    assert a == {("E1", D(2022, 3, 12)): 100.0, ("E1", D(2022, 3, 19)): 100.0, ("E1", D(2022, 3, 26)): 100.0}
    assert solver.allocate(weeks, q, ("bonus_week",)) == {("E1", D(2022, 4, 16)): 300.0}  # the week it was paid
    assert solver.allocate(weeks, q, ("discretionary",))[("E1", D(2022, 4, 16))] == 200.0
    # the regular rate of the week ending 19 March: (50 h x $20 + $100) / 50 h = $22; half of it on 10 hours = $110
    rr = (1000.0 + a[("E1", D(2022, 3, 19))]) / 50
    assert (rr, 0.5 * rr * 10) == (22.0, 110.0)


def test_two_years_back_from_the_consent_date():
    assert solver.years_back(D(2024, 3, 15), 2) == D(2022, 3, 15)
    assert solver.years_back(D(2024, 2, 29), 2) == D(2022, 2, 28)
    assert solver.quarter_of(D(2022, 4, 1)) == "2022Q2" and solver.quarter_of(D(2022, 12, 31)) == "2022Q4"


_PAY = ["employee_id", "employee_name", "week_ending", "hours_worked", "hourly_rate", "straight_time_pay"]


def _tiny(folder: Path, opposing: list[float] | None = None) -> dict:
    """Complaint 2024-03-01; named plaintiff E1 consents 2024-03-15 (period from 2022-03-15), opt-in E2 on 2024-05-10
    (from 2022-05-10), E3 consents and withdraws. E1: weeks ending 2022-03-12 (50 h, out of period), 03-19 (50 h),
    03-26 (38 h) at $20 with a $300 Q1 bonus ($100 a week) paid 2022-04-15, and 04-16 (44 h) with a $200 discretionary
    bonus: 110.00 + 40.00 = 150.00 over 3 weeks. E2: 05-07 (45 h, out) and 05-14 (48 h) at $18 with a $260 Q2 bonus
    ($130 a week): 0.5 x 994 / 48 x 8 = 82.83 over 1 week. Interest 6 % through 2024-12-31. Defense counsel's
    figures (140 + 72 = 212) leave the bonus out; the offer is $500."""
    rows = [["E1", "Ann Lee", "2022-03-12", "50", "20", "1000"], ["E1", "Ann Lee", "2022-03-19", "50", "20", "1000"],
            ["E1", "Ann Lee", "2022-03-26", "38", "20", "760"], ["E1", "Ann Lee", "2022-04-16", "44", "20", "880"],
            ["E2", "Bo Diaz", "2022-05-07", "45", "18", "810"], ["E2", "Bo Diaz", "2022-05-14", "48", "18", "864"],
            ["E3", "Cy Ruiz", "2024-01-06", "50", "20", "1000"]]
    write_csv(folder / "payroll.csv", _PAY, rows)
    write_csv(folder / "bonuses.csv", ["employee_id", "bonus_type", "earned_quarter", "paid_date", "amount"], [
        ["E1", "Quarterly production bonus", "2022Q1", "2022-04-15", "300"],
        ["E1", "Discretionary holiday bonus", "2022Q2", "2022-04-20", "200"],
        ["E2", "Quarterly production bonus", "2022Q2", "2022-07-15", "260"]])
    write_csv(folder / "consents.csv", ["employee_id", "name", "role", "consent_filed", "docket", "withdrawn"], [
        ["E1", "Ann Lee", "Named plaintiff", "2024-03-15", "ECF No. 3", ""],
        ["E2", "Bo Diaz", "Opt-in plaintiff", "2024-05-10", "ECF No. 12", ""],
        ["E3", "Cy Ruiz", "Opt-in plaintiff", "2024-04-01", "ECF No. 9", "2024-06-01"]])
    theirs = opposing or [140.0, 72.0]
    write_xlsx(folder / "opp.xlsx", [("Damages", ["employee_id", "name", "weeks", "back_wages", "liquidated", "interest"],
                                      [["E1", "Ann Lee", 3, theirs[0], theirs[0], 1.0],
                                       ["E2", "Bo Diaz", 1, theirs[1], theirs[1], 1.0]])])
    return {"files": {"payroll": "payroll.csv", "bonuses": "bonuses.csv", "consents": "consents.csv",
                      "opposing": "opp.xlsx"}, "opposing_sheet": "Damages", "complaint_filed": "2024-03-01",
            "opposing_date": "2024-09-01", "interest_through": "2024-12-31", "interest_rate": 6.0, "offer": 500.0}


def _interest() -> tuple[float, float]:
    end = D(2024, 12, 31)
    e1 = 110 * 0.06 * (end - D(2022, 3, 19)).days / 365 + 40 * 0.06 * (end - D(2022, 4, 16)).days / 365
    e2 = 0.5 * 994 / 48 * 8 * 0.06 * (end - D(2022, 5, 14)).days / 365
    return round(e1, 2), round(e2, 2)


def test_the_solver_and_the_recheck_on_a_payroll_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    i1, i2 = _interest()
    f = solver.analyse(str(tmp_path), P)
    assert [(r["id"], r["weeks"], r["back_wages"], r["interest"]) for r in f["rows"]] == [
        ("E1", 3, 150.0, i1), ("E2", 1, 82.83, i2)]
    assert (f["plaintiffs"], f["named_back_wages"], f["total_back_wages"], f["total_liquidated"]) == (2, 150.0, 232.83, 232.83)
    assert (f["total_recoverable"], f["total_interest"]) == (465.66, round(i1 + i2, 2))
    assert (f["opposing_error"], f["premise"], f["decision"]) == ("no_bonus", False, True)
    g = recheck(tmp_path, P)
    assert [(r["id"], r["weeks"], r["back_wages"], r["interest"]) for r in g["rows"]] == [
        ("E1", 3, 150.0, i1), ("E2", 1, 82.83, i2)]
    assert (g["total_back_wages"], g["total_recoverable"], g["opposing_error"], g["premise"], g["decision"]) == (
        232.83, 465.66, "no_bonus", False, True)


def test_defense_figures_that_match_ours_are_confirmed(tmp_path):
    P = _tiny(tmp_path, [150.0, 82.83])
    f, g = solver.analyse(str(tmp_path), P), recheck(tmp_path, P)
    assert (f["opposing_error"], f["premise"]) == (g["opposing_error"], g["premise"]) == ("none", True)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    bw = lambda f: [r["back_wages"] for r in f["rows"]]  # noqa: E731
    # E1: 100.00 + 0.5 x 1180 / 44 x 4; E2 is paid after the export ends, so its bonus vanishes: 0.5 x 18 x 8
    assert bw(n["bonus_week"]) == [153.64, 72.0]
    assert bw(n["discretionary"]) == [159.09, 82.83]  # the holiday bonus in the 16 April week
    assert bw(n["complaint_date"]) == [260.0, 135.06]  # the weeks ending 12 March and 7 May come in
    assert [r["weeks"] for r in n["complaint_date"]["rows"]] == [4, 2]
    assert bw(n["three_year"]) == [260.0, 135.06]
    assert bw(n["time_and_half"]) == [450.0, 248.5]
    s = n["interest_stacked"]
    assert s["total_recoverable"] == round(465.66 + s["total_interest"], 2)
    w = n["withdrawn"]
    assert (w["plaintiffs"], w["total_back_wages"]) == (3, 332.83)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, bw_delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """An associate's own answer: the csv with its columns in another order and a note column, rows from the latest
    consent back; the letter's totals as bold labels with dollar signs, thousands separators and words after them."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D_, E = P["out_columns"], P["labels"], P["deliverables"], P["error_words"]
    if not blind:
        with (out / D_["table"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C["name"], C["id"], C["back_wages"], C["liquidated"], C["total"], C["interest"], C["weeks"],
                        C["consent"], "note"])
            for r in reversed(f["rows"]):
                w.writerow([r["name"], r["id"], f"{r['back_wages'] + bw_delta:.2f}", f"{r['liquidated']:.2f}",
                            f"{r['total']:.2f}", f"{r['interest']:.2f}", r["weeks"], r["consent"], "two-year period"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    m = lambda x: f"${x:,.2f}"  # noqa: E731
    pairs = [(L["plaintiffs"], f"{f['plaintiffs']} plaintiffs"), (L["named"], f"{m(f['named_back_wages'])} ({P['named']})"),
             (L["back_wages"], m(f["total_back_wages"] + bw_delta * len(f["rows"]))),
             (L["liquidated"], f"{m(f['total_liquidated'])} (equal to back wages)"),
             (L["interest"], m(f["total_interest"])), (L["recoverable"], m(f["total_recoverable"])),
             (L["error"], E[f["opposing_error"]]), (L["premise"], yes(f["premise"])), (L["decision"], yes(f["decision"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "none") if k == L["error"] else (k, "0")
                 for k, _ in pairs]
    lines = ["Dear Counsel,", *[f"**{k}:** {v}" for k, v in pairs], *(extra or []), "",
             "We computed the half-time premium on the regular rate including the quarterly bonuses over each quarter."]
    write_memo_lines(out / D_["memo"], lines)


def test_a_correct_letter_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, bw_delta=25.0)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['back_wages']}:** ${f['total_back_wages'] * 1.2:,.2f}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_keeping_the_withdrawn_opt_in_or_stacking_interest_loses(task, tmp_path):
    f, P = _load(task)
    for s in ("withdrawn", "interest_stacked", "time_and_half"):
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert g["total_recoverable"] > f["total_recoverable"]
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0


def test_the_archived_2022_protocol_loses(task, tmp_path):
    f, P = _load(task)
    # the 2022 protocol: two years back from the complaint for everyone, each bonus in the week it was paid
    old = solver.analyse(str(task / "task_folder"), P, ("complaint_date", "bonus_week"))
    assert old["total_back_wages"] != f["total_back_wages"] and old["rows"] != f["rows"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
