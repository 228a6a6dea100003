"""Survey raking: cleaning, raking, trimming and the Kish design effect on hand-computed cases, and the reward a drawn
task pays for a correct answer written by hand in another layout, a wrong, a hedged and a blind answer, and the
superseded weighting memo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import survey_raking as solver
from jobenv.synthetic.workflows import WORKFLOWS
from jobenv.synthetic.workflows.survey_raking import recheck

from .conftest import score_output

WF = next(w for w in WORKFLOWS if w.key == "survey_raking")


# ---- the method on hand-computed cases ---------------------------------------------------------------------

def test_raking_reaches_the_unique_weights_that_meet_both_margins():
    # r1 (a1, b1), r2 (a2, b1), r3 (a2, b2); targets a1 = 1.5, a2 = 1.5, b1 = 2, b2 = 1. The margins force
    # w1 = 1.5, then w2 = 2 - 1.5 = 0.5 and w3 = 1.5 - 0.5 = 1.0.
    groups = [["a1", "a2", "a2"], ["b1", "b1", "b2"]]
    targets = [{"a1": 1.5, "a2": 1.5}, {"b1": 2.0, "b2": 1.0}]
    w = solver.rake([1.0, 1.0, 1.0], groups, targets, 1e-9)
    assert [round(x, 6) for x in w] == [1.5, 0.5, 1.0]
    assert solver.margin_gap(w, groups, targets) <= 1e-9
    # Kish: n = 3, sum w = 3, sum w^2 = 2.25 + 0.25 + 1 = 3.5, deff = 3 x 3.5 / 9 = 1.1667, n_eff = 3 / 1.1667 = 2.571
    deff, neff = solver.kish(w)
    assert round(deff, 4) == 1.1667 and round(neff, 3) == 2.571
    with pytest.raises(ValueError):  # the margins force w1 = 1.5: a cap of 1.2 cannot be met
        solver.rake_and_trim([1.0, 1.0, 1.0], groups, targets, 1e-9, 1.2)


def test_trimming_and_re_raking_converge_to_the_cap():
    # one margin: a1 = {r1, r2} with base weights 3 and 1, a2 = {r3, r4}; targets 2 and 2. Raking gives
    # [1.5, 0.5, 1, 1]; a cap of 1.2 and re-raking move a1 towards r1 = 1.2, r2 = 0.8 (still summing to 2).
    # deff = 4 x (1.44 + 0.64 + 1 + 1) / 16 = 1.02
    groups, targets = [["a1", "a1", "a2", "a2"]], [{"a1": 2.0, "a2": 2.0}]
    assert [round(x, 6) for x in solver.rake([3.0, 1.0, 1.0, 1.0], groups, targets, 1e-9)] == [1.5, 0.5, 1.0, 1.0]
    w = solver.rake_and_trim([3.0, 1.0, 1.0, 1.0], groups, targets, 1e-7, 1.2)
    assert [round(x, 4) for x in w] == [1.2, 0.8, 1.0, 1.0]
    assert round(solver.kish(w)[0], 4) == 1.02


def test_the_cleaning_protocol_drops_partials_speeders_and_straight_liners():
    P = {"columns": {"status": "st", "duration": "d"}, "complete_status": "complete", "speeder_share": 0.4,
         "grid": ["g1", "g2", "g3"]}
    rows = [{"id": k, "st": st, "d": d, "g1": a, "g2": b, "g3": c} for k, (st, d, a, b, c) in enumerate([
        ("complete", 390, 1, 2, 3),  # under 0.4 x the median of completes (1,000) = 400: a speeder
        ("complete", 900, 1, 2, 3), ("complete", 1000, 2, 2, 2),  # one answer to every grid item
        ("complete", 1100, 3, 2, 1), ("complete", 1200, 5, 4, 5), ("partial", 300, 1, 2, 3)])]
    assert [r["id"] for r in solver.clean(rows, P)] == [1, 3, 4]
    assert len(solver.clean(rows, P, ("cleaning",))) == 6


def test_the_design_adjusted_margin_of_error():
    # p = 0.5, deff = 1.5, 600 valid answers: 1.96 x sqrt(1.5 x 0.25 / 600) = 1.96 x 0.025 = 4.90 points; without
    # the design effect 1.96 x sqrt(0.25 / 600) = 4.00 points
    import math

    assert round(1.96 * math.sqrt(1.5 * 0.25 / 600) * 100, 2) == 4.90
    assert round(1.96 * math.sqrt(0.25 / 600) * 100, 2) == 4.00


# ---- a drawn task and hand-written answers ---------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task):
    path = workflow_task(WF, True, False)
    params = json.loads((path / "ground_truth" / "params.json").read_text())
    return path, params, solver.analyse(str(path / "task_folder"), params)


def _answer(out: Path, P: dict, facts: dict, *, deff: float | None = None, second_moe: float | None = None,
            blind: bool = False) -> None:
    """An analyst's own answer: the weights with the columns reordered, four decimals and a stratum column; the
    memo's facts in a Markdown table with units and percent signs (or a Word table for a .docx memo)."""
    out.mkdir(parents=True)
    W, L, D = P["weight_columns"], P["labels"], P["deliverables"]
    f = dict(facts)
    if blind:
        f.update(n_retained=1000, deff=1.5, n_eff=666.7, prop=50.0, moe=3.8, mean=6.0, max_weight=4.0,
                 decision=True, premise=True, weights=[[r[0], 1.0, 1.0] for r in facts["weights"]])
    lines = [",".join([W[2], "stratum_note", W[0], W[1]])]
    lines += [f"{w:.4f},see frame,{rid},{b:.4f}" for rid, b, w in f["weights"]]
    (out / D["weights"]).write_text("\n".join(lines) + "\n")
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    rows = [(L["n"], f"{f['n_retained']} interviews"), (L["deff"], f"{deff or f['deff']:.3f}"),
            (L["neff"], f"{f['n_eff']:.1f} interviews"), (L["prop"], f"{f['prop']:.2f} %"),
            (L["moe"], f"±{f['moe']:.2f} points"), (L["mean"], f"{f['mean']:.2f} out of 10"),
            (L["max_w"], f"{f['max_weight']:.3f}"), (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if second_moe is not None:
        rows.append((L["moe"], f"{second_moe:.2f}"))
    note = ("Partials, speeders and straight-liners were dropped; design weights were raked to the current "
            "population table and trimmed at the revised cap; don't know and refused are missing.")
    if D["memo"].endswith(".docx"):
        import docx

        doc = docx.Document()
        doc.add_paragraph("Weighting methods")
        tab = doc.add_table(rows=1, cols=2)
        tab.rows[0].cells[0].text, tab.rows[0].cells[1].text = "Measure", "Value"
        for k, v in rows:
            cells = tab.add_row().cells
            cells[0].text, cells[1].text = k, v
        doc.add_paragraph(note)
        doc.save(str(out / D["memo"]))
    else:
        body = ["# Weighting methods", "", "| Measure | Value |", "|---|---|", *[f"| {k} | {v} |" for k, v in rows], "",
                note]
        (out / D["memo"]).write_text("\n".join(body) + "\n")


def test_a_correct_answer_in_another_layout_earns_full_credit(task, tmp_path):
    path, P, facts = task
    _answer(tmp_path / "right", P, facts)
    assert score_output(path, tmp_path / "right") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    path, P, facts = task
    _answer(tmp_path / "wrong", P, facts, deff=facts["deff"] + 0.05)
    assert score_output(path, tmp_path / "wrong") < 1.0
    _answer(tmp_path / "hedged", P, facts, second_moe=facts["moe"] + 0.8)
    assert score_output(path, tmp_path / "hedged") < 1.0
    _answer(tmp_path / "blind", P, facts, blind=True)
    assert score_output(path, tmp_path / "blind") <= 0.1


def test_the_superseded_weighting_plan_loses(task, tmp_path):
    path, P, facts = task
    out = tmp_path / "old"
    # the earlier memo: its cap and the archived population table it names
    solver.write_outputs(str(out), P, solver.analyse(str(path / "task_folder"), P, ("old_cap", "old_margins")))
    assert score_output(path, out) <= 0.5


def test_the_drawn_task_plants_each_trap_and_the_recheck_agrees(task):
    path, P, facts = task
    folder = path / "task_folder"
    again = recheck(folder, P)
    assert {k: again[k] for k in ("n_retained", "deff", "n_eff", "prop", "moe", "mean", "max_weight")} == {
        k: facts[k] for k in ("n_retained", "deff", "n_eff", "prop", "moe", "mean", "max_weight")}
    assert P["probe"]["speeder"] not in {r[0] for r in facts["weights"]}
    assert facts["decision"] and not facts["premise"]
    assert abs(facts["max_weight"] - P["cap"]) < 0.002 and facts["n_at_cap"] >= 1
    assert solver.analyse(str(folder), P, ("cleaning",))["n_retained"] > facts["n_retained"]
    assert solver.analyse(str(folder), P, ("dk_codes",))["mean"] > facts["mean"] + 1  # 98 and 99 averaged in
    assert solver.analyse(str(folder), P, ("old_cap",))["deff"] > facts["deff"]  # a looser cap spreads the weights
    assert solver.analyse(str(folder), P, ("unit_base",))["deff"] != facts["deff"]
