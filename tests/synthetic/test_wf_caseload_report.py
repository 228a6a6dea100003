"""The annual caseload report workflow: the clock rules on a hand-computed docket, and the reward a drawn task
pays for a correct answer written by hand in another style, a wrong one, a hedged one and a blind one."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import caseload as solver
from jobenv.synthetic.workflows.caseload import CASELOAD_REPORT, CODES, recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output

D = dt.date


# ---- the clock on a tiny docket, computed by hand --------------------------------------------------------

def test_inactive_time_counts_end_minus_start_and_an_open_period_runs_to_the_day():
    periods = [(D(2024, 2, 11), D(2024, 6, 10)), (D(2024, 11, 1), None)]
    assert solver.inactive_days(periods, D(2024, 7, 1)) == 120  # 18 + 31 + 30 + 31 + 10
    assert solver.inactive_days(periods, D(2024, 12, 31)) == 120 + 60
    assert solver.inactive_days(periods, D(2024, 2, 11)) == 0
    assert solver.inactive_on(periods, D(2024, 12, 31)) and not solver.inactive_on(periods, D(2024, 6, 10))


def test_a_continuance_does_not_stop_the_clock_but_the_shortcut_pauses_it():
    filed, disp, conts = D(2024, 1, 10), D(2024, 5, 1), [(D(2024, 2, 1), D(2024, 3, 1))]
    assert solver.elapsed(filed, disp, [], conts) == 112
    assert solver.elapsed(filed, disp, [], conts, pause_continuances=True) == 112 - 29
    warrant = [(D(2024, 2, 11), D(2024, 6, 10))]
    assert solver.elapsed(D(2024, 2, 1), D(2024, 7, 1), warrant) == 151 - 120
    assert solver.elapsed(D(2024, 2, 1), D(2024, 7, 1), warrant, exclude_inactive=False) == 151


_CASES = [  # case, type, filed, disposed, reopened, reopen disposed
    ("2024-CF-00001", "2024-01-10", "2024-05-01", "", ""),   # continued 29 days: elapsed 112
    ("2024-CF-00002", "2024-02-01", "2024-07-01", "", ""),   # warrant 120 days: elapsed 31
    ("2023-CF-00003", "2023-06-01", "", "", ""),             # warrant outstanding at year end: not active
    ("2023-CF-00004", "2023-10-01", "", "", ""),             # 457 days less competency 91 = 366 > 365
    ("2023-CF-00005", "2023-03-01", "2023-06-01", "2024-03-01", "2024-04-01"),  # reopened: incoming and outgoing
    ("2024-CF-00006", "2024-12-20", "2025-01-03", "", ""),   # disposed after year end: pending, age 11
]
_EVENTS = [
    ("2024-CF-00001", "2024-02-01", "CONT", "2024-03-01"), ("2024-CF-00002", "2024-02-11", "BWI", ""),
    ("2024-CF-00002", "2024-06-10", "BWS", ""), ("2023-CF-00003", "2024-11-01", "BWI", ""),
    ("2023-CF-00004", "2023-11-01", "CEO", ""), ("2023-CF-00004", "2024-01-31", "CEF", ""),
]


@pytest.fixture()
def tiny(tmp_path):
    write_csv(tmp_path / "cases.csv", ["case_number", "case_type", "filing_date", "disposition_date",
                                       "disposition_code", "reopened_date", "reopen_disposition_date"],
              [[c, "CF", f, d, "PLEA" if d else "", r, rd] for c, f, d, r, rd in _CASES])
    write_csv(tmp_path / "events.csv", ["seq", "case_number", "event_date", "event_code", "description", "next_date"],
              [[k, c, at, code, "", nxt] for k, (c, at, code, nxt) in enumerate(_EVENTS, 1)])
    P = {"files": {"cases": "cases.csv", "events": "events.csv"}, "year": 2024, "types": {"CF": "Felony"},
         "standards": {"CF": [[90, 75], [180, 90], [365, 98]]},
         "archived_standards": {"CF": [[120, 90], [180, 98], [365, 100]]}, "codes": CODES,
         "decision_type": "CF", "premise_type": "CF", "premise_case": "2023-CF-00004"}
    return tmp_path, P


def test_the_hand_computed_docket(tiny):
    folder, P = tiny
    for facts in (solver.analyse(str(folder), P), recheck(folder, P)):
        c = facts["clearance"][0]
        assert (c["filings"], c["reopened"], c["incoming"], c["dispositions"], c["clearance"]) == (3, 1, 4, 3, 75.0)
        assert [(x["days"], x["disposed"], x["within"], x["pct"]) for x in facts["tiers"]] == [
            (90, 2, 1, 50.0), (180, 2, 2, 100.0), (365, 2, 2, 100.0)]
        p = facts["pending"][0]
        assert (p["pending"], p["over"], p["oldest_case"], p["oldest_age"]) == (2, 1, "2023-CF-00004", 366)
        assert facts["premise"] is True and facts["decision"] is False


def test_each_shortcut_reproduces_its_mistake_on_the_tiny_docket(tiny):
    folder, P = tiny
    assert solver.analyse(str(folder), P, ("reopened",))["clearance"][0]["clearance"] == 100.0
    assert solver.analyse(str(folder), P, ("continuance_pause",))["tiers"][0]["pct"] == 100.0
    w = solver.analyse(str(folder), P, ("warrant_clock",))
    assert w["pending"][0]["pending"] == 3 and w["oldest_age"] == 579 and w["tiers"][0]["pct"] == 0.0
    assert [x["days"] for x in solver.analyse(str(folder), P, ("archived_standards",))["tiers"]] == [120, 180, 365]


# ---- a drawn task and the answers it pays for ------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task):
    return workflow_task(CASELOAD_REPORT, False, True)


def _answer(task: Path, out: Path, *, nudge: float = 0.0, hedge: bool = False, blind: bool = False) -> None:
    """A correct answer by hand: typed values (no formulas), columns in another order with a notes column,
    percentages with a % sign; the report section as a Word table with the labels in bold."""
    import docx
    import pandas as pd

    P = json.loads((task / "ground_truth" / "params.json").read_text())
    f = solver.analyse(str(task / "task_folder"), P)
    if blind:  # plausible figures for a mid-sized court, without opening the data
        for c in f["clearance"]:
            c.update(filings=400, reopened=10, incoming=410, dispositions=400, clearance=97.6)
        for x in f["tiers"]:
            x.update(disposed=300, within=270, pct=90.0)
        for a in f["pending"]:
            a.update(pending=120, over=6, oldest_case="2022-CF-00101", oldest_age=700)
        f.update(over_total=18, oldest_case="2022-CF-00101", oldest_age=700, decision=True, premise=True)
    C, L, dl = P["columns"], P["labels"], P["deliverables"]
    out.mkdir(parents=True)
    with pd.ExcelWriter(out / dl["workbook"]) as xw:
        pd.DataFrame([{C["clearance"]: f"{c['clearance']:.1f}%", C["type"]: c["label"], "Notes": "",
                       C["outgoing"]: c["dispositions"], C["incoming"]: c["incoming"], C["filings"]: c["filings"],
                       C["reopened"]: c["reopened"]} for c in f["clearance"]]).to_excel(xw, sheet_name="Clearance",
                                                                                        index=False)
        pd.DataFrame([{C["standard"]: x["days"], C["type"]: x["label"], C["pct"]: x["pct"], C["target"]: x["target"],
                       C["within"]: x["within"], C["disposed"]: x["disposed"], C["met"]: "Yes" if x["met"] else "No"}
                      for x in f["tiers"]]).to_excel(xw, sheet_name="TimeToDisp", index=False)
        pd.DataFrame([{C["over"]: a["over"], C["pending"]: a["pending"], C["type"]: a["label"],
                       C["oldest"]: a["oldest_case"], C["oldest_age"]: a["oldest_age"]}
                      for a in f["pending"]]).to_excel(xw, sheet_name="PendingAge", index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    first = f["clearance"][0]
    rows = [(L["clearance"].format(type=c["label"]),
             f"{c['clearance'] + (nudge if c is first else 0):.1f}%" + (f" or {c['clearance'] + 3:.1f}%" if hedge and
                                                                         c is first else ""))
            for c in f["clearance"]]
    rows += [(L["within"].format(type=x["label"], days=x["days"]), f"{x['pct']:.1f}%") for x in f["tiers"]
             if x["days"] == min(y["days"] for y in f["tiers"] if y["type"] == x["type"])]
    rows += [(L["over"], f"{f['over_total']} cases"), (L["oldest"], f["oldest_case"]),
             (L["oldest_age"], f"{f['oldest_age']} days"), (L["decision"], yes(f["decision"])),
             (L["premise"], yes(f["premise"]))]
    doc = docx.Document()
    doc.add_heading("Caseload measures", level=2)
    table = doc.add_table(rows=0, cols=2)
    for k, v in rows:
        cells = table.add_row().cells
        cells[0].paragraphs[0].add_run(k).bold = True
        cells[1].text = v
    doc.add_paragraph("Inactive time (warrants, competency, stays) is excluded; continuances stay on the clock.")
    doc.save(str(out / dl["memo"]))


def test_a_correct_answer_in_another_style_earns_full_credit(task, tmp_path):
    _answer(task, tmp_path / "right")
    assert score_output(task, tmp_path / "right") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    _answer(task, tmp_path / "wrong", nudge=0.6)
    _answer(task, tmp_path / "hedged", hedge=True)
    _answer(task, tmp_path / "blind", blind=True)
    assert score_output(task, tmp_path / "wrong") < 1.0
    assert score_output(task, tmp_path / "hedged") < 1.0
    assert score_output(task, tmp_path / "blind") <= 0.1
