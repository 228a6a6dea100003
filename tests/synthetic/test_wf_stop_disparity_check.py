"""Police-stop disparity check: the Wilson interval on hand-computed cases, the solver and the independent recheck on
a tiny person-level stop file worked by hand (a three-person stop, re-sent records, a prior-year row, an unknown race,
inventory and incident-to-arrest searches, a suppressed group), each shortcut moving the figure it should, and the
reward a drawn task pays for a correct answer written by hand in another layout, a wrong, a hedged and a blind one,
and the 2021 guidelines' superseded counting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import stops as solver
from jobenv.synthetic.workflows.stops import STOP_DISPARITY as WF
from jobenv.synthetic.workflows.stops import recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines


def test_wilson_interval_by_hand():
    # 1 of 2: centre = 0.5 + 1.96^2/4 = 1.4604; half = 1.96 x sqrt(0.125 + 0.2401) = 1.18430; denominator 2.9208
    lo, hi = solver.wilson(1, 2)
    assert round(lo, 4) == 0.0945 and round(hi, 4) == 0.9055
    # 2 of 2: the upper bound is exactly 1 and the lower 1 / 2.9208 = 0.3424
    lo, hi = solver.wilson(2, 2)
    assert round(lo, 4) == 0.3424 and hi == pytest.approx(1.0)
    # 30 of 100: centre 0.3 + 3.8416/200 = 0.319208; half = 1.96 x sqrt(0.0021 + 0.00009604) = 0.091849;
    # denominator 1.038416 -> 0.2189 to 0.3959 (the plain normal interval would be 0.2102 to 0.3898)
    lo, hi = solver.wilson(30, 100)
    assert round(lo, 4) == 0.2189 and round(hi, 4) == 0.3959
    assert solver.wilson(0, 0) == (None, None) and solver.per_thousand(6, 1000) == 6.0


_COLS = {"stop": "stop_id", "person": "person_seq", "version": "record_version", "date": "date", "time": "time",
         "beat": "beat", "reason": "reason_for_stop", "race": "race_code", "gender": "gender", "searched": "searched",
         "basis": "search_basis", "found": "contraband_or_evidence", "result": "outcome"}
_ROWS = [  # stop, person, version, date, race, searched, basis, found
    ("S1", 1, 1, "2025-03-01", "B", "Y", "Consent", "N"), ("S1", 2, 1, "2025-03-01", "B", "Y", "Probable cause", "Y"),
    ("S1", 3, 1, "2025-03-01", "W", "N", "", ""), ("S2", 1, 1, "2025-04-02", "W", "Y", "Consent", "Y"),
    ("S3", 1, 1, "2025-05-05", "W", "Y", "Inventory", "N"), ("S4", 1, 1, "2025-06-06", "B", "N", "", ""),
    ("S5", 1, 1, "2025-07-07", "U", "N", "", ""), ("S6", 1, 1, "2025-08-08", "W", "Y", "Probable cause", "N"),
    ("S7", 1, 1, "2024-12-15", "B", "Y", "Consent", "N"), ("S8", 1, 1, "2025-09-09", "H", "N", "", ""),
    ("S9", 1, 1, "2025-10-10", "W", "N", "", ""), ("S10", 1, 1, "2025-11-11", "U", "N", "", ""),
    ("S11", 1, 1, "2025-12-12", "W", "Y", "Incident to arrest", "Y"),
    ("S5", 1, 2, "2025-07-07", "B", "N", "", ""), ("S6", 1, 2, "2025-08-08", "W", "Y", "Probable cause", "Y")]


def _tiny(folder: Path) -> dict:
    """2025; residents Black 500 (520 'alone'), White 1,000 (1,500 'alone'), Hispanic 400; minimum 2 events.
    Persons in 2025 at their latest version: S1 (Black, Black, White), S2-S4, S5 (Black after review), S6 (hit
    after review), S8 (Hispanic), S9, S10 (unknown), S11 = 12 persons in 10 stops; S7 is December 2024.
    Black 4 stopped -> 8.0 per 1,000; White 6 -> 6.0; ratio 1.33. Searched: Black 2 -> 4.0, White 4 -> 4.0, ratio 1.00.
    Discretionary: Black 2 (1 hit) = 50.0 % (Wilson 9.5 - 90.5); White S2, S6 (2 hits) = 100.0 % (34.2 - 100.0); the
    inventory and incident-to-arrest searches stay out. Intervals overlap: no disparity. Hispanic has 1 person, 0
    searches: 3 rates suppressed. The draft's 'more than 1.5 times' fails (1.33)."""
    rows = [[s, p, v, d, "10:00", "N1", "Moving violation", r, "M", srch, b, f, "Warning"]
            for s, p, v, d, r, srch, b, f in _ROWS]
    write_csv(folder / "stops.csv", list(_COLS.values()), rows)
    write_csv(folder / "codes.csv", ["code", "group", "description"],
              [["B", "Black", ""], ["W", "White", ""], ["H", "Hispanic", ""], ["U", "Unknown", ""]])
    write_csv(folder / "pop.csv", ["census_row", "estimate", "margin_of_error"],
              [["White alone", "1,500", 40], ["White alone, not Hispanic or Latino", "1,000", 30],
               ["Black or African American alone", 520, 20],
               ["Black or African American alone, not Hispanic or Latino", 500, 20],
               ["Hispanic or Latino (of any race)", 400, 15]])
    groups = [{"group": "Black", "code": "B", "census_row": "Black or African American alone, not Hispanic or Latino",
               "alone_row": "Black or African American alone"},
              {"group": "White", "code": "W", "census_row": "White alone, not Hispanic or Latino",
               "alone_row": "White alone"},
              {"group": "Hispanic", "code": "H", "census_row": "Hispanic or Latino (of any race)",
               "alone_row": "Hispanic or Latino (of any race)"}]
    return {"files": {"stops": "stops.csv", "codebook": "codes.csv", "population": "pop.csv"}, "columns": _COLS,
            "year": 2025, "min_events": 2, "reference": "White", "comparison": "Black",
            "discretionary": ["Consent", "Probable cause"], "groups": groups, "claim_multiple": 1.5}


_KEYS = ("persons", "stops", "cmp_stop_rate", "ref_stop_rate", "stop_ratio", "cmp_search_rate", "ref_search_rate",
         "search_ratio", "cmp_hit", "cmp_low", "cmp_high", "ref_hit", "ref_low", "ref_high", "suppressed", "decision",
         "premise")


def test_the_solver_and_the_recheck_on_a_stop_file_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert [f[k] for k in _KEYS] == [12, 10, 8.0, 6.0, 1.33, 4.0, 4.0, 1.0, 50.0, 9.5, 90.5, 100.0, 34.2, 100.0, 3,
                                     False, False]
    black, white, his = f["groups"]
    assert (black["stopped"], black["searched"], black["tested"], black["hits"]) == (4, 2, 2, 1)
    assert (white["stopped"], white["searched"], white["tested"], white["hits"]) == (6, 4, 2, 2)
    assert (his["stopped"], his["stop_rate"], his["search_rate"], his["hit_rate"]) == (1, None, None, None)
    assert f["unknown"] == 1
    again = recheck(tmp_path, P)
    assert [again[k] for k in _KEYS] == [f[k] for k in _KEYS]
    for a, b in zip(again["groups"], f["groups"], strict=True):
        for k in ("stopped", "searched", "tested", "stop_rate", "search_rate", "stop_ratio", "hit_rate", "ci_low"):
            assert a[k] == b[k], (a["group"], k)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    naive = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    # drivers only: S1's passengers drop out -> 10 persons, Black 3 (6.0), White 5 (5.0), Black hit rate suppressed
    st = naive["stops"]
    assert (st["persons"], st["cmp_stop_rate"], st["ref_stop_rate"], st["stop_ratio"], st["cmp_hit"]) == (
        10, 6.0, 5.0, 1.2, None)
    # every version: S5 counted once unknown and once Black, S6 twice White -> 14 persons, White 7 (7.0)
    am = naive["amended"]
    assert (am["persons"], am["cmp_stop_rate"], am["ref_stop_rate"]) == (14, 8.0, 7.0)
    # December 2024 kept: Black 5 (10.0 per 1,000), 3 discretionary searches with 1 hit = 33.3 %
    oy = naive["out_of_year"]
    assert (oy["persons"], oy["cmp_stop_rate"], oy["cmp_hit"]) == (13, 10.0, 33.3)
    # 'alone' rows: White 6 / 1,500 = 4.0, Black 4 / 520 = 7.7, ratio 1.92 - and the draft's claim would wrongly hold
    ra = naive["race_alone"]
    assert (ra["ref_stop_rate"], ra["cmp_stop_rate"], ra["stop_ratio"], ra["premise"]) == (4.0, 7.7, 1.92, True)
    # every search: White 3 hits in 4 (inventory miss, incident-to-arrest hit) = 75.0 %
    assert (naive["all_searches"]["ref_hit"], naive["all_searches"]["cmp_hit"]) == (75.0, 50.0)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A reporter's own answer: the workbook typed in (no formulas), columns in reverse order with a notes column and
    suppressed rates as 'n<min'; the memo's facts as a table with bold labels and units."""
    from openpyxl import Workbook

    out.mkdir(parents=True, exist_ok=True)
    L, D, W = P["labels"], P["deliverables"], P["sheet_labels"]
    keys = ["ci_high", "ci_low", "hit_rate", "hits", "tested", "search_ratio", "search_rate", "searched",
            "stop_ratio", "stop_rate", "stopped", "population", "group"]
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    if not blind:
        wb = Workbook()
        ws = wb.active
        ws.title = P["sheet"]
        ws.append([W[k] for k in keys] + ["notes"])
        for g in f["groups"]:
            vals = dict(g, stop_rate=None if g["stop_rate"] is None else g["stop_rate"] + delta,
                        hit_rate=None if g["hit_rate"] is None else g["hit_rate"] + delta)
            ws.append([(f"n<{P['min_events']}" if vals[k] is None else vals[k]) for k in keys] + ["checked"])
        wb.save(out / D["workbook"])
    pairs = [(L["persons"], f"{f['persons']:,} persons"), (L["stops"], f"{f['stops']:,}"),
             (L["cmp_stop_rate"], f"{f['cmp_stop_rate'] + delta:.1f}"), (L["ref_stop_rate"], f"{f['ref_stop_rate']:.1f}"),
             (L["stop_ratio"], f"{f['stop_ratio']:.2f}x"), (L["cmp_search_rate"], f"{f['cmp_search_rate']:.1f}"),
             (L["ref_search_rate"], f"{f['ref_search_rate']:.1f}"), (L["search_ratio"], f"{f['search_ratio']:.2f}x"),
             (L["cmp_hit"], f"{f['cmp_hit'] + delta:.1f}%"), (L["cmp_low"], f"{f['cmp_low']:.1f}%"),
             (L["cmp_high"], f"{f['cmp_high']:.1f}%"), (L["ref_hit"], f"{f['ref_hit']:.1f} %"),
             (L["ref_low"], f"{f['ref_low']:.1f}%"), (L["ref_high"], f"{f['ref_high']:.1f}%"),
             (L["suppressed"], f"{f['suppressed']}"), (L["decision"], yes(f["decision"])),
             (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = ["Fact-check memo: stops story", "", "| Item | Value |", "|---|---|",
             *[f"| **{k}** | {v} |" for k, v in pairs], *(extra or []), "",
             "Persons, not stops, were counted; re-sent records once; the outcome test uses discretionary searches."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, delta=3.0)  # stop rates and hit rates three points off
    assert score_output(task, tmp_path / "wrong") <= 0.8
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['stop_ratio']} | {f['stop_ratio'] + 0.4:.2f} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_the_superseded_2021_guidelines_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("stops", "race_alone", "all_searches"))
    assert old["persons"] < f["persons"] and old["ref_stop_rate"] < f["ref_stop_rate"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.6
