"""Erlang C staffing of a service desk (workflow ``erlang_c_staffing``): Erlang C against hand-checked values, the
solver on a tiny hand-computed export, and the reward for hand-written, wrong, hedged and blind answers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import _erlang, servicedesk
from jobenv.synthetic.workflows.servicedesk import ERLANG_C_STAFFING, _erlang_c

from .conftest import score_output


def test_erlang_c_matches_hand_checked_values():
    # A = 10 erlangs on 12 agents: the textbook value 0.4494
    assert _erlang.erlang_c(10, 12) == pytest.approx(0.4494, abs=5e-5)
    # A = 2 on 3 agents by hand: (8/6 * 3) / (1 + 2 + 2 + 4) = 4/9
    assert _erlang.erlang_c(2, 3) == pytest.approx(4 / 9, abs=1e-12)
    assert _erlang.erlang_c(3, 3) == 1.0 and _erlang.erlang_c(0, 2) == 0.0
    # the recheck's textbook sum and the solver's Erlang B recursion agree
    for a, n in ((0.4, 1), (5.5, 7), (17.3, 22), (30.0, 41)):
        assert _erlang.erlang_c(a, n) == pytest.approx(_erlang_c(a, n), rel=1e-9)
    # 80/20 with a 180 s AHT at 10 erlangs: 13 agents give 0.7584, 14 give 0.8738
    assert _erlang.service_level(10, 13, 20, 180) < 0.8 < _erlang.service_level(10, 14, 20, 180)
    assert _erlang.agents_needed(10, 20, 180, 0.8) == 14
    with pytest.raises(ValueError):
        _erlang.erlang_c(1.0, 0)


def _tiny(folder: Path) -> dict:
    """One Monday half-hour: four answered calls (talk 200 s + ACW 100 s; waits 0, 10, 20, 25 s), a 2-second hang-up
    (not offered), a 30-second abandon (offered) and a call of another queue."""
    rows = ["call_id,queue_entry,queue,disposition,wait_s,talk_s,acw_s,agent_id"]
    for k, wait in enumerate((0, 10, 20, 25)):
        rows.append(f"{k},2025-03-03 10:0{k}:00,SD,ANSWERED,{wait},200,100,A1")
    rows += ["7,2025-03-03 10:20:00,SD,ABANDONED,2,0,0,", "8,2025-03-03 10:29:59,SD,ABANDONED,30,0,0,",
             "9,2025-03-03 10:10:00,HR,ANSWERED,5,900,900,H1"]
    (folder / "acd.csv").write_text("\n".join(rows) + "\n")
    return {"files": {"acd": "acd.csv"}, "queue": "SD", "open_days": ["Mon"], "open": "10:00", "close": "10:30",
            "interval_min": 30, "weeks": 1, "threshold_s": 20, "target": 0.8, "short_abandon_s": 5, "shrinkage": 0.25,
            "fte_hours": 40, "growth": 0.2, "old_growth": 0.5, "budget_fte": 0.1}


def test_the_solver_on_a_hand_computed_half_hour(tmp_path):
    P = _tiny(tmp_path)
    f = servicedesk.analyse(str(tmp_path), P)
    # offered 5 (the 2 s hang-up out) x 1.2 = 6.0 calls; AHT 300 s; A = 6 x 300 / 1800 = 1.0 erlang.
    # N = 2: C = 1/3, SL = 1 - exp(-20/300)/3 = 0.688; N = 3: C = 1/11, SL = 1 - exp(-40/300)/11 = 0.920 -> 3 agents
    assert f["offered"] == 5 and f["short_abandons"] == 1
    assert f["peak"]["forecast"] == pytest.approx(6.0) and f["aht"] == pytest.approx(300.0)
    assert f["peak"]["traffic"] == pytest.approx(1.0) and f["peak"]["agents"] == 3
    assert f["peak"]["service_level"] == pytest.approx(1 - math.exp(-40 / 300) / 11)
    # 3 agents x 0.5 h = 1.5 agent-hours / 0.75 / 40 h = 0.05 FTE; 3 of 5 offered answered within 20 s (20 counts)
    assert f["agent_hours"] == 1.5 and f["fte"] == pytest.approx(0.05) and f["current_sl"] == pytest.approx(60.0)
    assert f["decision"] is True and f["premise"] is False
    naive = servicedesk.analyse(str(tmp_path), P, ("short_abandons", "no_acw", "old_growth"))
    assert naive["peak"]["forecast"] == pytest.approx(9.0) and naive["aht"] == pytest.approx(200.0)
    assert naive["current_sl"] == pytest.approx(50.0)
    assert ERLANG_C_STAFFING.recheck(tmp_path, P)["peak"]["agents"] == 3


@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(ERLANG_C_STAFFING, False, True)


def _facts(task: Path) -> tuple[dict, dict]:
    P = json.loads((task / "ground_truth" / "params.json").read_text())
    return servicedesk.analyse(str(task / "task_folder"), P), P


def _answer(out: Path, P: dict, f: dict, *, fte_shift: float = 0.0, hedge: bool = False) -> None:
    """A hand-made answer: the workbook through openpyxl with values only, intervals in reverse order with only some
    columns, and the memo as a two-column Word table with units."""
    import docx
    from openpyxl import Workbook

    out.mkdir(parents=True)
    D, L, IN, FL = P["deliverables"], P["labels"], P["input_labels"], P["fte_labels"]
    fte = f["fte"] + fte_shift
    wb = Workbook()
    ws = wb.active
    ws.title = "FTE"
    ws.append(["Value", "Line"])
    for k, v in (("fte", round(fte, 3)), ("hours", f["agent_hours"]), ("budget", P["budget_fte"])):
        ws.append([v, FL[k]])
    ws = wb.create_sheet("Intervals")
    ws.append(["interval", "day", "traffic_erlangs", "agents", "forecast_calls", "comment"])
    for r in reversed(f["intervals"]):
        ws.append([r["interval"], r["day"], round(r["traffic"], 4), r["agents"], round(r["forecast"], 2), "Erlang C"])
    ws = wb.create_sheet("Inputs")
    ws.append(["Parameter", "Value", "Source"])
    ws.append([IN["aht"], round(f["aht"], 1), "ACD, talk + ACW"])
    ws.append([IN["growth"], f["growth"], "revised memo"])
    wb.save(out / D["workbook"])
    doc = docx.Document()
    doc.add_paragraph("Staffing case for next quarter")
    pk = f["peak"]
    rows = [(L["peak"], f"{pk['forecast']:.1f} calls per half-hour"), (L["aht"], f"{f['aht']:.1f} s"),
            (L["agents"], str(pk["agents"])), (L["fte"], f"{fte:.1f}"), (L["current_sl"], f"{f['current_sl']:.1f} %"),
            (L["decision"], "Yes" if f["decision"] else "No"), (L["premise"], "Yes" if f["premise"] else "No")]
    if hedge:
        rows.append((L["peak"], f"{pk['forecast'] * 1.04:.1f}"))
    table = doc.add_table(rows=0, cols=2)
    for k, v in rows:
        cells = table.add_row().cells
        cells[0].text, cells[1].text = k, v
    doc.add_paragraph("Hang-ups under 5 seconds are not offered calls; the revised growth memo applies.")
    memo = out / D["memo"]
    doc.save(str(memo)) if memo.suffix == ".docx" else memo.write_text("\n".join(f"{k}: {v}" for k, v in rows))


def test_a_hand_written_answer_earns_full_credit(task, tmp_path):
    f, P = _facts(task)
    _answer(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _facts(task)
    _answer(tmp_path / "wrong", P, f, fte_shift=0.6)
    assert score_output(task, tmp_path / "wrong") < 1.0
    _answer(tmp_path / "hedged", P, f, hedge=True)
    assert score_output(task, tmp_path / "hedged") < 1.0
    blind = dict(f, aht=420.0, fte=12.0, current_sl=80.0, decision=True, premise=False, growth=0.1,
                 agent_hours=300.0, peak=dict(f["peak"], forecast=20.0, traffic=4.67, agents=7),
                 intervals=[dict(r, forecast=10.0, traffic=2.33, agents=4) for r in f["intervals"]])
    _answer(tmp_path / "blind", dict(P, budget_fte=10.0), blind)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_the_workbook_keeps_live_formulas(task):
    from openpyxl import load_workbook

    P = json.loads((task / "ground_truth" / "params.json").read_text())
    wb = load_workbook(task / "ground_truth" / "outputs" / P["deliverables"]["workbook"])
    assert str(wb["Intervals"]["E2"].value).startswith("=D2*") and str(wb["FTE"]["B4"].value).startswith("=B2/(1-B3)")
