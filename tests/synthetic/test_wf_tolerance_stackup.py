"""The tolerance stack-up workflow: mean shift, radius, worst case and RSS on a hand-computed three-row stack, and
the reward on one drawn task (a correct answer by hand with its own formulas earns 1.0; one fact off, a hedge or a
blind answer do not)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import stackup as solver
from jobenv.synthetic.workflows.stackup import TOLERANCE_STACKUP, recheck

from .conftest import score_output


def test_an_asymmetric_row_becomes_its_mean_and_half_band():
    # 10.00 +0.10 / -0.00 closes the gap: mean 10.05, t 0.05, signed -10.05
    assert solver.contributor(10.0, 0.10, 0.0, -1, 1.0) == pytest.approx((-10.05, 0.05))
    # a diameter 6.00 +0.00 / -0.10 as a radius: mean 2.975, t 0.025
    assert solver.contributor(6.0, 0.0, -0.10, -1, 0.5) == pytest.approx((-2.975, 0.025))


def _tiny(folder: Path) -> dict:
    (folder / "stack.csv").write_text(
        "ref,description,direction,nominal_mm,plus_tol_mm,minus_tol_mm,feature\n"
        "D1,Housing depth,1,16.50,+0.10,-0.10,length\n"
        "D2,Spacer,-1,10.00,+0.10,0.00,length\n"
        "D3,Pin diameter,-1,6.00,0.00,-0.10,diameter\n"
        "D4,Clip,-1,3.00,+0.05,-0.05,length\n")
    return {"files": {"stack": "stack.csv"}, "override": {"ref": "D4", "nominal": 3.10, "plus": 0.02, "minus": -0.02},
            "min_gap": 0.20, "claimed_top": "D1"}


def test_the_stack_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    # nominal 16.50 - 10.00 - 3.00 - 3.10 = 0.40; means 16.50 - 10.05 - 2.975 - 3.10 = 0.375
    assert f["nominal_gap"] == 0.4 and f["mean_gap"] == 0.375
    # t = 0.10, 0.05, 0.025, 0.02: worst case 0.195; RSS sqrt(0.013525) = 0.116297
    assert f["wc_min"] == 0.18 and f["rss_min"] == pytest.approx(round(0.375 - math.sqrt(0.013525), 3))
    assert f["top"] == "D1" and f["top_share"] == 73.9  # 0.01 / 0.013525
    assert f["decision"] is True and f["premise"] is True
    assert solver.analyse(str(tmp_path), P, ("diameter",))["mean_gap"] == -2.6  # the pin's 5.95 in full
    assert solver.analyse(str(tmp_path), P, ("superseded_note",))["nominal_gap"] == 0.5
    again = recheck(tmp_path, P)
    assert again == {k: f[k] for k in again}
    assert f["tols"] == {"D1": 0.1, "D2": 0.05, "D3": 0.025, "D4": 0.02}


@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(TOLERANCE_STACKUP, False, True)


def _by_hand(out: Path, P: dict, f: dict, *, shift: float = 0.0, extra: list[str] | None = None) -> None:
    """The stack-up written without the solver: its own formulas (the rows' means and tolerances in columns, the
    Summary reading them), a memo as a Markdown table or Word paragraphs with '='."""
    from openpyxl import Workbook

    from jobenv.synthetic.solvers._deliver import write_memo

    out.mkdir(parents=True)
    D, L, W = P["deliverables"], P["labels"], P["sheet_labels"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Stack"
    ws.append(["ref", "sign", "radius?", "nominal_mm", "plus_tol_mm", "minus_tol_mm", "mean_mm", "tol_mm"])
    n = len(f["rows"])
    for i, r in enumerate(f["rows"], 2):
        k = r["factor"]
        ws.append([r["ref"], r["direction"], "yes" if k < 1 else "no", r["nominal"], r["plus"], r["minus"],
                   f"=B{i}*(D{i}+E{i}/2+F{i}/2)*{k}", f"=(E{i}-F{i})*{k}/2"])
    s = wb.create_sheet("Summary")
    s.append(["Item", "Value"])
    s.append([W["mean_gap"], f"=SUM(Stack!G2:G{n + 1})+{shift}"])
    s.append([W["rss_min"], f"=B2-SQRT(SUMSQ(Stack!H2:H{n + 1}))"])
    s.append([W["wc_min"], f"=B2-SUM(Stack!H2:H{n + 1})"])
    s.append([W["wc_tol"], f"=SUM(Stack!H2:H{n + 1})"])
    s.append([W["rss_tol"], f"=SQRT(SUMSQ(Stack!H2:H{n + 1}))"])
    wb.save(out / D["workbook"])
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    lines = [f"- {L['nominal_gap']} = {f['nominal_gap']:.3f}", f"- {L['mean_gap']} = {f['mean_gap'] + shift:.3f}",
             f"- {L['wc_min']} = {f['wc_min'] + shift:.3f}", f"- {L['rss_min']} = {f['rss_min'] + shift:.3f}",
             f"- {L['top']} = {f['top']}", f"- {L['top_share']} = {f['top_share']:.1f} %",
             f"- {L['decision']} = {yes(f['decision'])}", f"- {L['premise']} = {yes(f['premise'])}", *(extra or []),
             "", f"Tighten {f['top']} first."]
    write_memo(str(out / D["memo"]), lines)


def _facts(task: Path) -> tuple[dict, dict]:
    P = json.loads((task / "ground_truth" / "params.json").read_text())
    return P, solver.analyse(str(task / "task_folder"), P)


def test_a_correct_stackup_with_its_own_formulas_earns_full_credit(task, tmp_path):
    P, f = _facts(task)
    _by_hand(tmp_path / "ok", P, f)
    assert score_output(task, tmp_path / "ok") == 1.0


def test_wrong_hedged_and_blind_stackups_lose(task, tmp_path):
    from jobenv.synthetic.solvers._deliver import write_memo

    P, f = _facts(task)
    _by_hand(tmp_path / "wrong", P, f, shift=0.02)
    assert score_output(task, tmp_path / "wrong") < 1.0
    other = next(r["ref"] for r in f["rows"] if r["ref"] != f["top"])
    _by_hand(tmp_path / "hedged", P, f, extra=[f"- {P['labels']['top']} = {f['top']} or {other}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    L = P["labels"]
    write_memo(str(tmp_path / "blind" / P["deliverables"]["memo"]), [
        f"{L['nominal_gap']}: 0.400", f"{L['mean_gap']}: 0.380", f"{L['wc_min']}: 0.050", f"{L['rss_min']}: 0.250",
        f"{L['top']}: D1", f"{L['top_share']}: 40.0", f"{L['decision']}: yes", f"{L['premise']}: yes"])
    assert score_output(task, tmp_path / "blind") <= 0.1
