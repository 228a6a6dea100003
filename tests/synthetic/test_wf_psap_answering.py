"""911 answering against the NENA standard (workflow ``psap_answering``): the solver on a tiny hand-computed call
detail, the shared Erlang C positions, and the reward for hand-written, wrong, hedged and blind answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import _erlang, psap
from jobenv.synthetic.workflows.psap import PSAP_ANSWERING

from .conftest import score_output


def _tiny(folder: Path) -> dict:
    """Hour 9 of one day: 911 calls answered after 5, 15, 18 and 25 s (talk 100 s each), one transferred in (seized
    here at 09:10:00, answered 10 s later, original start 40 s earlier), one abandoned and called back, and an admin
    call answered after 3 s."""
    import datetime as dt

    head = "call_id,line_type,class_of_service,call_start,psap_seized,answered,released,transferred_in,callback,position"
    rows = [head]
    for k, ring in enumerate((5, 15, 18, 25)):
        seized = dt.datetime(2025, 3, 10, 9, k)
        answered = seized + dt.timedelta(seconds=ring)
        released = answered + dt.timedelta(seconds=100)
        rows.append(f"{k},911,WRLS,{seized},{seized},{answered},{released},N,,CT01")
    rows += ["5,911,VOIP,2025-03-10 09:09:20,2025-03-10 09:10:00,2025-03-10 09:10:10,2025-03-10 09:11:50,Y,,CT02",
             "6,911,WRLS,2025-03-10 09:20:00,2025-03-10 09:20:00,,,N,2025-03-10 09:22:00,",
             "7,ADMIN,BUSN,2025-03-10 09:30:00,2025-03-10 09:30:00,2025-03-10 09:30:03,2025-03-10 09:31:00,N,,CT03"]
    (folder / "calls.csv").write_text("\n".join(rows) + "\n")
    return {"files": {"calls": "calls.csv"}, "rules": [[15, 0.9], [20, 0.95]], "days": 1, "minimum_positions": 2}


def test_the_solver_on_a_hand_computed_hour(tmp_path):
    P = _tiny(tmp_path)
    f = psap.analyse(str(tmp_path), P)
    # six 911 calls (admin out); within 15 s: 5, 15 and the transfer (10 s from arrival) = 3; within 20 s: 4
    assert f["calls"] == 6 and f["within_1"] == 3 and f["within_2"] == 4
    assert f["pct_1"] == pytest.approx(50.0) and f["pct_2"] == pytest.approx(400 / 6)
    assert f["abandon_pct"] == pytest.approx(100 / 6) and f["worst"]["hour"] == 9  # empty hours read 100 %
    # talk: 100 s for the four, 100 s for the transfer; 6 calls in the hour -> A = 6 x 100 / 3600 = 1/6 erlang
    assert f["aht"] == pytest.approx(100.0) and f["busy"]["traffic"] == pytest.approx(1 / 6)
    # N = 1: C = A = 1/6, 15 s share = 1 - exp(-(5/6) x 0.15) / 6 = 0.853 < 0.9; N = 2 meets both rules
    assert _erlang.service_level(1 / 6, 1, 15, 100) < 0.9 and f["positions"] == 2
    assert f["decision"] is False and f["premise"] is True
    origin = psap.analyse(str(tmp_path), P, ("transfer_origin",))
    assert origin["within_1"] == 2  # timed from the original start the transfer took 50 s
    assert psap.analyse(str(tmp_path), P, ("callback",))["calls"] == 5
    assert psap.analyse(str(tmp_path), P, ("admin",))["calls"] == 7
    again = PSAP_ANSWERING.recheck(tmp_path, P)
    assert again["positions"] == 2 and again["pct_1"] == pytest.approx(50.0)


@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(PSAP_ANSWERING, False, False)


def _answer(out: Path, P: dict, f: dict, *, hedge: bool = False) -> None:
    """By hand: an openpyxl workbook of typed values with the Summary and Positions columns swapped, and the memo
    as a Word table."""
    import docx
    from openpyxl import Workbook

    out.mkdir(parents=True)
    D, L, S = P["deliverables"], P["labels"], P["summary_labels"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Summary"
    ws.append(["Value", "Line"])
    for k, v in (("calls", f["calls"]), ("pct_1", round(f["pct_1"], 1)), ("pct_2", round(f["pct_2"], 1))):
        ws.append([v, S[k]])
    ws = wb.create_sheet("Hourly")
    ws.append(["hour", "pct_within_15s", "calls_911"])
    for r in f["hours"]:
        ws.append([r["hour"], round(r["pct_1"], 1), r["calls"]])
    ws = wb.create_sheet("Positions")
    ws.append(["Value", "Line"])
    ws.append([round(f["busy"]["traffic"], 2), S["traffic"]])
    ws.append([f["positions"], S["positions"]])
    wb.save(out / D["workbook"])
    rows = [(L["pct_1"], f"{f['pct_1']:.1f} %"), (L["pct_2"], f"{f['pct_2']:.1f} %"), (L["worst"], str(f["worst"]["hour"])),
            (L["positions"], str(f["positions"])), (L["abandon"], f"{f['abandon_pct']:.1f} %"),
            (L["decision"], "Yes" if f["decision"] else "No"), (L["premise"], "Yes" if f["premise"] else "No")]
    if hedge:
        rows.append((L["positions"], str(f["positions"] + 1)))
    doc = docx.Document()
    table = doc.add_table(rows=0, cols=2)
    for k, v in rows:
        cells = table.add_row().cells
        cells[0].text, cells[1].text = k, v
    memo = out / D["memo"]
    doc.save(str(memo))


def test_hand_written_wrong_hedged_and_blind_answers(task, tmp_path):
    P = json.loads((task / "ground_truth" / "params.json").read_text())
    f = psap.analyse(str(task / "task_folder"), P)
    _answer(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0
    _answer(tmp_path / "wrong", P, dict(f, pct_1=f["pct_1"] + 0.5))
    assert score_output(task, tmp_path / "wrong") < 1.0
    _answer(tmp_path / "hedged", P, f, hedge=True)
    assert score_output(task, tmp_path / "hedged") < 1.0
    blind = dict(f, calls=2000, pct_1=91.0, pct_2=95.5, abandon_pct=2.0, positions=4, decision=True, premise=True,
                 worst={"hour": 17, "pct_1": 85.0}, busy=dict(f["busy"], traffic=1.2),
                 hours=[dict(r, pct_1=90.0, calls=80) for r in f["hours"]])
    _answer(tmp_path / "blind", P, blind)
    assert score_output(task, tmp_path / "blind") <= 0.1
