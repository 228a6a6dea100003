"""Retention offer list: the renewal window with its 60th day, tenure of merged accounts, the 12-month offer cost and
the ARPU tiers on hand-computed cases, the solver and the independent recheck on a CRM export worked by hand, each
shortcut moving the figure it should, and the reward a drawn task pays for a correct answer written by hand in
another layout, a wrong, a hedged and a blind one, and the superseded rules' bands."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import retention as solver
from jobenv.synthetic.workflows.retention import RETENTION_OFFER_LIST as WF
from jobenv.synthetic.workflows.retention import recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines

D = dt.date


def test_the_window_runs_from_the_campaign_date_to_the_sixtieth_day_inclusive():
    T = D(2026, 5, 10)  # day 60 is 9 July
    assert solver.in_window(D(2026, 5, 10), T, 60) and solver.in_window(D(2026, 7, 9), T, 60)
    assert not solver.in_window(D(2026, 7, 10), T, 60) and not solver.in_window(D(2026, 5, 9), T, 60)
    assert not solver.in_window(D(2026, 7, 9), T, 60, ("boundary_exclusive",))


def test_the_twelve_month_cost_caps_the_discount_at_twelve_months():
    assert solver.cost_12(12, 24, 0) == 144.0  # 12 x 12, not 12 x 24
    assert solver.cost_12(12, 24, 0, ("full_term_cost",)) == 288.0
    assert solver.cost_12(8, 12, 25) == 121.0  # 8 x 12 + a 25 one-off credit
    assert solver.cost_12(4, 6, 0) == 24.0  # a 6-month discount costs 6 months


def test_tiers_take_the_band_floor_inclusive():
    bands = {"B": 40.0, "A": 80.0}
    assert [solver.tier_of(v, bands) for v in (39.99, 40.0, 79.99, 80.0)] == ["C", "B", "B", "A"]
    assert solver.year_before(D(2028, 2, 29)) == D(2027, 2, 28)


def _tiny(folder: Path) -> dict:
    """Campaign 10 May 2026 (window to 9 July; tenure start on or before 10 May 2025). Bands B from 40, A from 80
    (archived: 50 and 100). Offers A 12 x 24 months (12-month cost 144, take 0.40), B 8 x 12 + 25 (121, 0.30),
    C 4 x 6 (24, 0.20).
    K1 ends on day 60, ARPU 90 (A): in.  K2 own start Jan 2026, merged from a 2019 account, ARPU 30 (C): in.
    K3 on the suppression file only: out.  K4 accepted an offer in Nov 2024 (over 12 months), ARPU 45 (B): in.
    K5 accepted in Dec 2025: out.  K6 started exactly 10 May 2025, ends on the campaign date, ARPU 55 (B), promised
    the A offer in a note: in with the B offer.  K7 ends on day 61: out.  K8 CRM do-not-contact: out.  K9 started
    11 May 2025 (a day short): out.
    List by contract end: K6 (10 May) 1, K4 (20 May) 2, K2 (1 June) 3, K1 (9 July) 4; tiers A 1, B 2, C 1.
    Saves 0.40 + 2 x 0.30 + 0.20 = 1.2; cost 0.40 x 144 + 2 x 0.30 x 121 + 0.20 x 24 = 57.60 + 72.60 + 4.80 = 135.00;
    revenue 12 x (0.40 x 90 + 0.30 x 45 + 0.30 x 55 + 0.20 x 30) = 12 x 72 = 864.00; do-not-contact K3, K8."""
    k = {i: f"AC100000{i}" for i in range(1, 10)}
    cust = [[k[1], "Pro", "2020-01-01", "2026-07-09", "90.00", "N"], [k[2], "Plus", "2026-01-15", "2026-06-01", "30.00", "N"],
            [k[3], "Plus", "2021-01-01", "2026-06-15", "60.00", "N"], [k[4], "Plus", "2021-01-01", "2026-05-20", "45.00", "N"],
            [k[5], "Pro", "2022-01-01", "2026-06-01", "85.00", "N"], [k[6], "Plus", "2025-05-10", "2026-05-10", "55.00", "N"],
            [k[7], "Plus", "2020-01-01", "2026-07-10", "50.00", "N"], [k[8], "Ultra", "2020-01-01", "2026-06-01", "120.00", "Y"],
            [k[9], "Plus", "2025-05-11", "2026-06-01", "50.00", "N"]]
    write_csv(folder / "cust.csv", ["account_id", "plan", "start_date", "contract_end", "arpu", "dnc_flag"], cust)
    write_csv(folder / "merges.csv", ["surviving_account", "merged_account", "merged_account_start", "merge_date"],
              [[k[2], "AC7777777", "2019-03-01", "2026-01-15"]])
    write_csv(folder / "supp.csv", ["account_id", "added_date", "reason"], [[k[3], "2026-02-01", "complaint"],
                                                                           ["AC5555555", "2025-01-01", "TPS"]])
    write_csv(folder / "hist.csv", ["account_id", "offer_code", "offered_date", "outcome", "outcome_date"],
              [[k[4], "RET-B12", "2024-10-28", "accepted", "2024-11-01"],
               [k[5], "RET-A24", "2025-11-28", "accepted", "2025-12-01"]])
    write_csv(folder / "offers.csv", ["offer_code", "tier", "description", "monthly_discount", "discount_months",
                                      "one_off_cost", "take_rate", "status"],
              [["RET-A24", "A", "", 12, 24, 0, 0.40, "active"], ["RET-B12", "B", "", 8, 12, 25, 0.30, "active"],
               ["RET-C6", "C", "", 4, 6, 0, 0.20, "active"], ["WB-A12", "A", "", 20, 12, 0, 0.5, "retired"]])
    write_csv(folder / "notes.csv", ["account_id", "note_date", "agent", "note"],
              [[k[6], "2026-05-01", "Sam Lee", "Customer threatening to leave. Promised RET-A24 on the campaign."]])
    return {"files": {"customers": "cust.csv", "merges": "merges.csv", "suppression": "supp.csv", "history": "hist.csv",
                      "offers": "offers.csv", "notes": "notes.csv"},
            "campaign": "2026-05-10", "window_days": 60, "bands": {"B": 40.0, "A": 80.0},
            "old_bands": {"B": 50.0, "A": 100.0}, "budget": 150.0, "focus": k[6]}


def _ids(f: dict) -> list[tuple[str, str, int]]:
    return [(x["account"][-1], x["offer"], x["priority"]) for x in f["rows"]]


def test_the_solver_and_the_recheck_on_an_export_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    for f in (solver.analyse(str(tmp_path), P), recheck(tmp_path, P)):
        assert _ids(f) == [("6", "RET-B12", 1), ("4", "RET-B12", 2), ("2", "RET-C6", 3), ("1", "RET-A24", 4)]
        assert f["tiers"] == {"A": 1, "B": 2, "C": 1} and f["count"] == 4
        assert f["offer_cost"] == {"RET-A24": 144.0, "RET-B12": 121.0, "RET-C6": 24.0}
        assert (f["saves"], f["cost"], f["revenue"]) == (1.2, 135.0, 864.0)
        assert f["dnc"] == ["AC1000003", "AC1000008"] and (f["decision"], f["premise"]) == (True, True)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {s: solver.analyse(str(tmp_path), P, (s,)) for s in WF.shortcuts}
    assert [x[0] for x in _ids(n["boundary_exclusive"])] == ["6", "4", "2"]
    assert [x[0] for x in _ids(n["merge_start"])] == ["6", "4", "1"]
    assert n["crm_dnc_only"]["dnc"] == ["AC1000008"] and n["crm_dnc_only"]["count"] == 5
    assert [x[0] for x in _ids(n["history_any"])] == ["6", "2", "1"]
    assert n["old_bands"]["tiers"] == {"A": 0, "B": 2, "C": 2}  # 90 is B and 45 is C under the archived bands
    assert _ids(n["honour_promise"])[0] == ("6", "RET-A24", 1)
    assert n["full_term_cost"]["offer_cost"]["RET-A24"] == 288.0
    assert (n["full_term_cost"]["cost"], n["full_term_cost"]["decision"]) == (192.6, False)  # 115.20 + 72.60 + 4.80


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, cost_delta: float = 0.0, extra: list[str] | None = None,
          drop: int = 0) -> None:
    """A team lead's own answer: the dialler list with priority first and a tier column, in reverse order; the note
    with bold labels, money with thousands separators and a currency sign, lists with commas."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["columns"], P["labels"], P["deliverables"]
    with (out / D["list"]).open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([C["priority"], C["account"], "tier", C["offer"]])
        for x in reversed(f["rows"][drop:]):
            w.writerow([x["priority"], x["account"], x["tier"], x["offer"]])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    lines = ["# Retention campaign", "", f"**{L['count']}:** {f['count']} accounts"]
    lines += [f"**{L['tier'].format(t=t)}:** {f['tiers'][t]}" for t in "CBA"]
    lines += [f"**{L['offer_cost'].format(code=c)}:** ${v:,.2f}" for c, v in f["offer_cost"].items()]
    lines += [f"**{L['saves']}:** {f['saves']:.1f} accounts", f"**{L['cost']}:** ${f['cost'] + cost_delta:,.2f}",
              f"**{L['revenue']}:** ${f['revenue']:,.2f}", f"**{L['dnc']}:** {', '.join(reversed(f['dnc']))}",
              f"**{L['decision']}:** {yes(f['decision'])}", f"**{L['premise']}:** {yes(f['premise'])}", "",
              *(extra or []), "The suppression file overrides the CRM flag; the promised offer is not on the list."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, cost_delta=250.0)
    assert score_output(task, tmp_path / "wrong") < 1.0
    _hand(tmp_path / "short", P, f, drop=1)
    assert score_output(task, tmp_path / "short") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['premise']}:** {'No' if f['premise'] else 'Yes'}",
                                            f"**{L['cost']}:** {f['cost'] + 500:.2f}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    blind = tmp_path / "blind"
    blind.mkdir()
    (blind / P["deliverables"]["list"]).write_text(f"{P['columns']['account']},{P['columns']['offer']},"
                                                   f"{P['columns']['priority']}\n")
    write_memo_lines(blind / P["deliverables"]["memo"], [f"{L['count']}: 0", f"{L['decision']}: yes"])
    assert score_output(task, blind) <= 0.1


def test_each_trap_of_the_drawn_task_loses(task, tmp_path):
    f, P = _load(task)
    assert score_output(task, task / "ground_truth" / "outputs") == 1.0
    for s in WF.shortcuts:
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0, s


def test_the_superseded_rules_bands_loses(task, tmp_path):
    f, P = _load(task)
    # the archived rules: other ARPU bands (and the CRM flag as the only do-not-contact source)
    old = solver.analyse(str(task / "task_folder"), P, ("old_bands", "crm_dnc_only"))
    assert old["tiers"] != f["tiers"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.6
