"""Jury summons planning: yield on summonses mailed, rates by reason code, each week's need after continuances and
returning postponed jurors, and summonses by source on hand-computed cases; the solver and the independent recheck on
a jury-system extract worked by hand; each shortcut moving the figure it should; and the reward a drawn task pays for a
correct answer written by hand in another layout, a wrong, a hedged and a blind one, and the superseded 2021 plan."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import jury as solver
from jobenv.synthetic.workflows.jury import JURY_SUMMONS_PLAN as WF
from jobenv.synthetic.workflows.jury import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines


def test_basis_points_round_half_up_and_the_need_rounds_up_exactly():
    assert solver.basis_points(6, 11) == 5455  # 54.5454...% -> 54.55
    assert solver.basis_points(1, 8) == 1250 and solver.basis_points(1, 16) == 625  # 6.25 exactly
    assert solver.basis_points(1, 30000) == 0 and solver.basis_points(3, 20000) == 2  # 1.5 bp rounds half up
    assert solver.week_need([40, 20, 30], 10) == 99  # 90 x 1.10 = 99.0 exactly, no float creep to 100
    assert solver.week_need([30], 10) == 33 and solver.week_need([82], 25) == 103  # 102.5 -> 103
    assert solver.ceil_div(570000, 5455) == 105  # 57 jurors at 54.55 % -> 104.49 -> 105 summonses


def test_a_summons_is_classified_by_its_reason_code_and_counted_once_under_its_first_list():
    codes = {"AGE70": "EXCUSED", "NONCIT": "DISQUALIFIED"}
    assert solver.category("DISQUALIFIED", "AGE70", codes) == "EXCUSED"
    assert solver.category("DISQUALIFIED", "AGE70", codes, ("status_column",)) == "DISQUALIFIED"
    assert solver.category("APPEARED", "", codes) == "APPEARED"
    P = {"window_start": "2025-02-09", "plan_date": "2026-02-09", "source_priority": ["VOTER", "DMV"]}
    rows = [{"summons_no": "A", "source": "DMV", "report_date": "2025-06-02", "status": "APPEARED", "reason_code": ""},
            {"summons_no": "A", "source": "VOTER", "report_date": "2025-06-02", "status": "APPEARED", "reason_code": ""},
            {"summons_no": "B", "source": "DMV", "report_date": "2026-02-09", "status": "FTA", "reason_code": ""}]
    t = solver.source_tally(rows, codes, P)  # A once under VOTER; B reports on the planning date: outside
    assert (t["VOTER"]["MAILED"], t["DMV"]["MAILED"]) == (1, 0)
    t = solver.source_tally(rows, codes, P, ("both_lists", "full_export"))
    assert (t["VOTER"]["MAILED"], t["DMV"]["MAILED"], t["DMV"]["APPEARED"]) == (1, 2, 1)


def _tiny(folder: Path) -> dict:
    """Planning date 9 February 2026, weeks of 2 and 9 March, VOTER 60 % / DMV 40 %, panels FEL 40, MISD 20, CIV 30,
    margin 10 % (the 2021 plan: 36, 18, 28, margin 25 %).
    History in the window: VOTER S1-S11, six appeared (S11 also written under DMV), S6 undeliverable, S7 NONCIT,
    S8 AGE70 posted as DISQUALIFIED, S9 MEDICAL, S10 FTA: yield 6/11 = 54.55 %. DMV D1-D8, three appeared, two
    undeliverable, a postponement, a hardship, an FTA: 3/8 = 37.50 %. Outside the window: one undeliverable each.
    Of 19 mailed: undeliverable 3 (15.79 %), disqualified 1 (5.26 %), excused 3 (15.79 %).
    Calendar: week of 2 March C1 FEL, C2 MISD (Tuesday), C6 CIV (continuance denied) = 90 seats -> 99 jurors;
    week of 9 March C3 CIV, C4 FEL continued to April, C5 MISD continued in from 23 February = 50 -> 55.
    Returning: 4 on 2 March, 2 in the week of 9 March (one on the Tuesday), 1 on 16 March -> net 95 and 53.
    Week 1: VOTER ceil(57 / .5455) = 105, DMV ceil(38 / .375) = 102 -> 207; week 2: VOTER 32 -> 59, DMV 22 -> 59 ->
    118. Month VOTER 164 (200 available), DMV 161 (150 available: no). Busiest week 2 March (the claim holds)."""
    hist = [[f"S{k}", f"J{k}", "VOTER", "2025-05-05", "2025-06-09", st, rc] for k, (st, rc) in enumerate(
        [("APPEARED", "")] * 5 + [("UNDELIVERABLE", ""), ("DISQUALIFIED", "NONCIT"), ("DISQUALIFIED", "AGE70"),
                                  ("EXCUSED", "MEDICAL"), ("FTA", ""), ("APPEARED", "")], 1)]
    hist.append(["S11", "J11", "DMV", "2025-05-05", "2025-06-09", "APPEARED", ""])
    hist += [[f"D{k}", f"K{k}", "DMV", "2025-07-07", "2025-08-11", st, rc] for k, (st, rc) in enumerate(
        [("APPEARED", "")] * 3 + [("UNDELIVERABLE", "")] * 2 + [("POSTPONED", ""), ("EXCUSED", "HARDSHIP"),
                                                                ("FTA", "")], 1)]
    hist += [["S0", "J0", "VOTER", "2024-12-02", "2025-01-06", "UNDELIVERABLE", ""],
             ["D0", "K0", "DMV", "2024-12-09", "2025-01-13", "UNDELIVERABLE", ""]]
    write_csv(folder / "hist.csv", ["summons_no", "juror_id", "source", "mailed_date", "report_date", "status",
                                    "reason_code"], hist)
    write_xlsx(folder / "codes.xlsx", [("Codes", ["reason_code", "description", "category"], [
        ["NONCIT", "x", "DISQUALIFIED"], ["AGE70", "x", "EXCUSED"], ["MEDICAL", "x", "EXCUSED"],
        ["HARDSHIP", "x", "EXCUSED"]])])
    write_csv(folder / "cal.csv", ["case_no", "case_type", "trial_date"], [
        ["C1", "FEL", "2026-03-02"], ["C2", "MISD", "2026-03-03"], ["C3", "CIV", "2026-03-09"],
        ["C4", "FEL", "2026-03-09"], ["C5", "MISD", "2026-02-23"], ["C6", "CIV", "2026-03-02"]])
    write_csv(folder / "docket.csv", ["case_no", "event_date", "event_code", "new_trial_date"], [
        ["C4", "2026-01-20", "ORCT", "2026-04-13"], ["C5", "2026-01-22", "ORCT", "2026-03-10"],
        ["C6", "2026-01-15", "MTCT", ""], ["C6", "2026-01-25", "ODEN", ""]])
    write_csv(folder / "post.csv", ["summons_no", "new_report_date"], [
        ["P1", "2026-03-02"], ["P2", "2026-03-02"], ["P3", "2026-03-02"], ["P4", "2026-03-02"], ["P5", "2026-03-09"],
        ["P6", "2026-03-10"], ["P7", "2026-03-16"]])
    write_csv(folder / "pool.csv", ["source", "names_on_list", "summoned_last_24_months"],
              [["VOTER", 5000, 4800], ["DMV", 3000, 2850]])
    return {"files": {"history": "hist.csv", "codes": "codes.xlsx", "calendar": "cal.csv", "docket": "docket.csv",
                      "postponed": "post.csv", "pool": "pool.csv"},
            "plan_date": "2026-02-09", "window_start": "2025-02-09", "source_priority": ["VOTER", "DMV"],
            "shares": {"VOTER": 60, "DMV": 40}, "weeks": ["2026-03-02", "2026-03-09"], "claim_week": "2026-03-02",
            "plan": {"panels": {"FEL": 40, "MISD": 20, "CIV": 30, "LIFE": 70}, "margin_pct": 10},
            "old_plan": {"panels": {"FEL": 36, "MISD": 18, "CIV": 28, "LIFE": 60}, "margin_pct": 25}}


def _figures(f: dict) -> tuple:
    return ([x["yield_bp"] for x in f["sources"]], f["rates"],
            [(x["need"], x["returning"], x["summonses"]) for x in f["weeks"]], [o["summonses"] for o in f["order"]])


def test_the_solver_and_the_recheck_on_an_extract_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    for f in (solver.analyse(str(tmp_path), P), recheck(tmp_path, P)):
        assert _figures(f) == ([5455, 3750], {"undeliverable": 1579, "disqualified": 526, "excused": 1579},
                               [(99, 4, 207), (55, 2, 118)], [105, 102, 59, 59])
        assert (f["totals"], f["total"], f["decision"], f["premise"]) == ({"VOTER": 164, "DMV": 161}, 325, False, True)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert [x["need"] for x in n["stale_calendar"]["weeks"]] == [99, 77]  # C4 stays, C5 never arrives
    assert (n["status_column"]["rates"]["disqualified"], n["status_column"]["rates"]["excused"]) == (1053, 1053)
    assert [x["yield_bp"] for x in n["both_lists"]["sources"]] == [5455, 4444]  # DMV 4 of 9
    assert n["both_lists"]["rates"]["undeliverable"] == 1500  # 3 of 20
    assert [x["need"] for x in n["old_plan"]["weeks"]] == [103, 58]  # 82 x 1.25 = 102.5; 46 x 1.25 = 57.5
    assert [o["summonses"] for o in n["no_returning"]["order"]][:2] == [110, 107]  # 99 -> 60 / .5455, 40 / .375
    assert [x["yield_bp"] for x in n["delivered_base"]["sources"]] == [6000, 5000]  # 6 of 10, 3 of 6
    assert [x["yield_bp"] for x in n["full_export"]["sources"]] == [5000, 3333]
    assert n["full_export"]["rates"]["undeliverable"] == 2381  # 5 of 21


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, need_delta: int = 0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A clerk's own answer: the mail-merge file with its columns in another order and a note column, weeks in
    reverse; the memo as bold labels, the per cent sign after rates and words after counts."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["columns"], P["labels"], P["deliverables"]
    if not blind:
        with (out / D["csv"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C["source"], C["summonses"], C["week"], "note"])
            w.writerows([o["source"], o["summonses"], o["week"], "first-class"] for o in reversed(f["order"]))
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    z = (lambda v: 0) if blind else (lambda v: v)  # noqa: E731
    lines = ["# Jury summons plan", "", f"**{L['decision']}:** {'No' if blind else yes(f['decision'])}",
             f"**{L['premise']}:** {'No' if blind else yes(f['premise'])}", f"**{L['total']}:** {z(f['total']):,}"]
    lines += [f"**{L['yield']} {x['source']}:** {z(x['yield_bp']) / 100:.2f}%" for x in f["sources"]]
    lines += [f"**{L[k]}:** {z(f['rates'][k]) / 100:.2f}%" for k in ("undeliverable", "disqualified", "excused")]
    for x in reversed(f["weeks"]):
        w = x["week"]
        lines += [f"**{L['need']} {w}:** {z(x['need'] + need_delta)} jurors",
                  f"**{L['returning']} {w}:** {z(x['returning'])} jurors",
                  f"**{L['week_total']} {w}:** {z(x['summonses'])} summonses"]
    lines += [f"**{L['source_total']} {s}:** {z(n)}" for s, n in f["totals"].items()]
    lines += [*(extra or []), "Yield on mailed summonses; trials after the continuance orders; returning jurors out."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, need_delta=5)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L, w = P["labels"], f["weeks"][0]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['need']} {w['week']}:** {w['need'] + 12}",
                                            f"**{L['decision']}:** {'No' if f['decision'] else 'Yes'}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_each_trap_of_the_drawn_task_loses(task, tmp_path):
    f, P = _load(task)
    assert score_output(task, task / "ground_truth" / "outputs") == 1.0
    for s in WF.shortcuts:
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert _figures(g) != _figures(f), s
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0, s


def test_the_superseded_2021_plan_loses(task, tmp_path):
    f, P = _load(task)
    # the 2021 plan: its own panel sizes and margin, yield on delivered summonses
    old = solver.analyse(str(task / "task_folder"), P, ("old_plan", "delivered_base"))
    assert old["weeks"] != f["weeks"] and old["sources"] != f["sources"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.5
