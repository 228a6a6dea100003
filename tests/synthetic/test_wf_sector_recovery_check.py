"""Sectors below pre-recession peak: the peak, trough and regained rules on hand-computed series, the solver and the
independent recheck on a tiny bureau export worked by hand (tied peaks and troughs, a sector back exactly at its
peak, a sector that regained its peak and slipped below it again, a persons workbook, a change column, a first
release, an unadjusted table, months past the story month), each shortcut moving the figure it should, and the
reward a drawn task pays for a correct answer written by hand in another layout, a wrong, a hedged and a blind
one, and the 2012 note's superseded procedure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import recovery as solver
from jobenv.synthetic.workflows.recovery import SECTOR_RECOVERY as WF
from jobenv.synthetic.workflows.recovery import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines


def test_peak_trough_and_regained_rules_by_hand():
    s = [("2007-01", 10.0), ("2007-02", 10.5), ("2007-03", 10.5), ("2007-04", 8.0), ("2007-05", 8.0),
         ("2007-06", 10.5), ("2007-07", 10.4)]
    r = solver.recovery(s, "2007-01", "2007-03")
    # tied peak -> the earliest month; tied trough -> the earliest; equal to the peak has regained it
    assert (r["peak_month"], r["trough_month"], r["regained_month"]) == ("2007-02", "2007-04", "2007-06")
    assert r["drawdown_raw"] == pytest.approx(2.5) and r["drawdown_pct_raw"] == pytest.approx(100 * 2.5 / 10.5)
    assert r["below"] is True  # regained in June, back below in July: status is the story month's
    # a series that never fell below its peak: trough at the peak, no regained month, recovered
    flat = solver.recovery([("2007-01", 5.0), ("2007-02", 5.0), ("2007-03", 5.2)], "2007-01", "2007-02")
    assert (flat["trough_month"], flat["drawdown_raw"], flat["regained_month"], flat["below"]) == (
        "2007-01", 0.0, None, False)
    assert solver.recovery(s, "2009-01", "2009-12") is None


_MONTHS = [f"2007-{m:02d}" for m in range(1, 11)]
_ALPHA = [10.0, 10.5, 10.5, 9.0, 8.0, 8.0, 10.5, 10.4, 11.0, 11.2]
_BETA = [20.0, 20.0, 19.0, 18.0, 17.0, 17.5, 19.0, 19.5, 21.0, 21.5]
_GOV = [5000, 5100, 5200, 5000, 4900, 4800, 5000, 5200, 5300, 5400]  # persons
_NSA_ALPHA = [9.5, 10.2, 10.9, 9.3, 8.4, 8.6, 10.9, 10.9, 11.5, 11.6]
_NSA_BETA = [19.5, 19.8, 19.6, 18.3, 17.2, 17.4, 19.4, 19.9, 21.5, 21.9]


def _table(path: Path, alpha: list[float], beta: list[float], n: int) -> None:
    tot = [round(a + b + g / 1000, 1) for a, b, g in zip(alpha, beta, _GOV)]
    rows = [[_MONTHS[i], tot[i], "" if i == 0 else round(tot[i] - tot[i - 1], 1), alpha[i], beta[i]] for i in range(n)]
    write_csv(path, ["month", "Total nonfarm", "Total nonfarm 1-month net change", "Alpha", "Beta"], rows)


def _tiny(folder: Path) -> dict:
    """Window 2007-01 to 2007-03, story month 2007-08; the revised file and the government workbook run to 2007-10.
    Total nonfarm (Alpha + Beta + Gov / 1,000): 35.0, 35.6, 34.7, 32.0, 29.9, 30.3, 34.5, 35.1 -> peak 35.6 in
    2007-02, trough 29.9 in 2007-05, 5.7 lost (16.0 %), story month 35.1 = -1.4 %: not back.
    Alpha: peak 10.5 (02 and 03 tie -> 02), trough 8.0 (05 and 06 tie -> 05), 2.5 = 23.8 %, regained 07 at exactly
    10.5, 10.4 in 08 -> below (-1.0 %). Beta: peak 20.0 (01), trough 17.0 (05), 3.0 = 15.0 %, 19.5 -> below (-2.5 %).
    Gov: 5.2 (03), trough 4.8 (06), 0.4 = 7.7 %, 5.2 in 08 = exactly its peak -> recovered, regained 08.
    Two sectors below; steepest Alpha; most jobs lost Beta. The draft's 'only 1' fails."""
    b = folder / "bureau"
    b.mkdir(parents=True, exist_ok=True)
    _table(b / "sa_revised.csv", _ALPHA, _BETA, 10)
    first_a, first_b = _ALPHA[:7] + [10.6], _BETA[:7] + [20.1]  # the first release had both back above their peaks
    _table(b / "sa_first.csv", first_a, first_b, 8)
    _table(b / "nsa.csv", _NSA_ALPHA, _NSA_BETA, 10)
    write_xlsx(b / "gov.xlsx", [("Government SA (persons)", ["period", "Gov"], [[m, g] for m, g in zip(_MONTHS, _GOV)])])
    return {"files": {"sa": "bureau/sa_revised.csv", "first": "bureau/sa_first.csv", "nsa": "bureau/nsa.csv",
                      "gov": "bureau/gov.xlsx"},
            "columns": {"month": "month", "gov_month": "period", "change": "Total nonfarm 1-month net change"},
            "total": "Total nonfarm", "sectors": ["Alpha", "Beta"], "gov_sectors": ["Gov"],
            "window": ["2007-01", "2007-03"], "story_month": "2007-08", "claim_below": 1}


_KEYS = ("jobs_lost", "nf_drop_pct", "nf_peak", "nf_trough", "nf_gap", "below_count", "below_list", "steepest",
         "biggest", "decision", "premise")


def test_the_solver_and_the_recheck_on_an_export_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert [f[k] for k in _KEYS] == [5.7, 16.0, "2007-02", "2007-05", -1.4, 2, ["Alpha", "Beta"], "Alpha", "Beta",
                                     False, False]
    by = {r["sector"]: r for r in f["rows"]}
    a, b, g = by["Alpha"], by["Beta"], by["Gov"]
    assert (a["peak_month"], a["trough_month"], a["drawdown_level"], a["drawdown_pct"], a["latest_level"],
            a["gap_pct"], a["regained_month"], a["below"]) == ("2007-02", "2007-05", 2.5, 23.8, 10.4, -1.0, "2007-07",
                                                               True)
    assert (b["peak_month"], b["drawdown_level"], b["drawdown_pct"], b["gap_pct"], b["regained_month"]) == (
        "2007-01", 3.0, 15.0, -2.5, None)
    assert (g["peak_month"], g["trough_month"], g["drawdown_level"], g["drawdown_pct"], g["latest_level"],
            g["regained_month"], g["below"]) == ("2007-03", "2007-06", 0.4, 7.7, 5.2, "2007-08", False)
    again = recheck(tmp_path, P)
    assert [again[k] for k in _KEYS] == [f[k] for k in _KEYS]
    for x, y in zip(again["rows"], f["rows"], strict=True):
        for k in ("sector", "peak_month", "trough_month", "drawdown_level", "drawdown_pct", "latest_level", "gap_pct",
                  "regained_month", "below"):
            assert x[k] == y[k], (x["sector"], k)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    naive = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    # persons read as thousands: Gov lost 400 "thousand", the biggest loss
    assert (naive["persons"]["biggest"], naive["persons"]["below_count"]) == ("Gov", 2)
    # the net-change column as a series: peak 0.6, trough -2.7 -> a 550 % "drop", the steepest
    ch = naive["change_column"]
    assert ch["steepest"] == "Total nonfarm 1-month net change" and len(ch["rows"]) == 5
    # the first release: both private sectors back above their peaks and total nonfarm at 35.9 (+0.8 %)
    fv = naive["first_vintage"]
    assert (fv["below_count"], fv["nf_gap"], fv["decision"]) == (0, 0.8, True)
    # the unadjusted table: total nonfarm peaks in March (35.7), and Alpha stands at its unadjusted peak
    ns = naive["nsa"]
    assert (ns["nf_peak"], ns["below_count"]) == ("2007-03", 0)
    # the last row (2007-10) as now: everyone above the peak
    lr = naive["latest_row"]
    assert (lr["below_count"], lr["decision"], lr["nf_gap"]) == (0, True, 7.0)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A reporter's own answer: the chart data with the columns in another order, a notes column and Yes/No; the
    memo's facts as bold Markdown lines with units."""
    import csv

    out.mkdir(parents=True, exist_ok=True)
    L, D, W = P["labels"], P["deliverables"], P["chart_labels"]
    keys = ["below_peak", "regained_month", "gap_pct", "latest_level", "drawdown_pct", "drawdown_level",
            "trough_level", "trough_month", "peak_level", "peak_month", "sector"]
    if not blind:
        with (out / D["chart"]).open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow([W[k] for k in keys] + ["notes"])
            for r in f["rows"]:
                vals = dict(r, below_peak="Yes" if r["below"] else "No", regained_month=r["regained_month"] or "",
                            drawdown_level=f"{r['drawdown_level'] + delta:.1f}")
                w.writerow([vals[k] for k in keys] + ["SA, revised vintage"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["jobs_lost"], f"{f['jobs_lost'] + delta:.1f} thousand"), (L["nf_drop_pct"], f"{f['nf_drop_pct']:.1f}%"),
             (L["nf_peak"], f["nf_peak"]), (L["nf_trough"], f["nf_trough"]), (L["nf_gap"], f"{f['nf_gap']:.1f} %"),
             (L["below_count"], f"{f['below_count']} sectors"), (L["below_list"], ", ".join(f["below_list"])),
             (L["steepest"], f["steepest"]), (L["biggest"], f["biggest"]), (L["decision"], yes(f["decision"])),
             (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = ["# Jobs story fact-check", "", *[f"**{k}:** {v}" for k, v in pairs], *(extra or []), "",
             "Seasonally adjusted, benchmark-revised levels; government converted from persons to thousands."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, delta=3.0)  # drawdowns three thousand jobs off
    assert score_output(task, tmp_path / "wrong") <= 0.8
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['jobs_lost']}:** {f['jobs_lost'] + 12:.1f} thousand"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_the_superseded_2012_note_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("nsa", "latest_row", "first_vintage"))
    assert old["rows"][0]["latest_month"] != f["rows"][0]["latest_month"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.6
