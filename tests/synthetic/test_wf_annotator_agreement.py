"""Annotator agreement: Cohen's kappa, Fleiss' kappa and Krippendorff's alpha on hand-computed cases, the solver and
the independent recheck on a six-item pilot worked by hand (v1 labels, a re-label, skips, a gold item), each
shortcut moving the figure it should, and the reward a drawn task pays for a correct answer written by hand in
another layout, a wrong, a hedged and a blind one, and for statistics on the superseded v1 guideline's labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import agreement as solver
from jobenv.synthetic.workflows.agreement import ANNOTATOR_AGREEMENT as WF
from jobenv.synthetic.workflows.agreement import recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines


def test_the_agreement_statistics_by_hand():
    # po = 3/4; rater 1 a 2/4, b 2/4, rater 2 a 1/4, b 3/4: pe = 0.5 x 0.25 + 0.5 x 0.75 = 0.5; kappa = 0.25 / 0.5
    assert solver.cohen_kappa([("a", "a"), ("a", "b"), ("b", "b"), ("b", "b")]) == pytest.approx(0.5)
    # P_i = 1, 1/3, 1, 1/3 (mean 2/3); p_a = p_b = 1/2, Pe = 1/2; kappa = (2/3 - 1/2) / (1/2) = 1/3
    units = [["a", "a", "a"], ["a", "a", "b"], ["b", "b", "b"], ["a", "b", "b"]]
    assert solver.fleiss_kappa(units) == pytest.approx(1 / 3)
    # the single label c is not pairable; off-diagonal coincidences 2 (the a/b unit), n_a = 3, n_b = 4, n = 7:
    # alpha = 1 - 6 x 2 / (49 - 9 - 16) = 0.5
    assert solver.krippendorff_alpha([["a", "a"], ["a", "b"], ["b", "b", "b"], ["c"]]) == pytest.approx(0.5)
    # perfect agreement is 1 whatever the margins
    assert solver.cohen_kappa([("a", "a"), ("b", "b"), ("b", "b")]) == pytest.approx(1.0)


_COLS = {"id": "id", "item": "task_id", "annotator": "worker", "label": "choice", "time": "created_utc",
         "status": "state"}


def _tiny(folder: Path) -> dict:
    """Six items, annotators X, Y, Z, labels p, q, r (v1 had q1 and q2 where v2 has q). Final labels:
    i1 p p p; i2 q1 q q2 (all q); i3 p r r; i4 q, q (Y re-labelled p to q), Z skipped; i5 r p q; i6 p q, Z
    skipped, gold q."""
    rows = [["Y", "i4", "q", "2025-01-05T10:00:00Z", "relabelled"],  # listed first, but the later row
            ["X", "i1", "p", "2025-01-02T09:00:00Z", "submitted"], ["Y", "i1", "p", "2025-01-02T09:01:00Z", "submitted"],
            ["Z", "i1", "p", "2025-01-02T09:02:00Z", "submitted"], ["X", "i2", "q1", "2025-01-02T09:03:00Z", "submitted"],
            ["Y", "i2", "q", "2025-01-06T09:00:00Z", "submitted"], ["Z", "i2", "q2", "2025-01-02T09:05:00Z", "submitted"],
            ["X", "i3", "p", "2025-01-02T09:06:00Z", "submitted"], ["Y", "i3", "r", "2025-01-02T09:07:00Z", "submitted"],
            ["Z", "i3", "r", "2025-01-02T09:08:00Z", "submitted"], ["X", "i4", "q", "2025-01-06T09:09:00Z", "submitted"],
            ["Y", "i4", "p", "2025-01-02T10:00:00Z", "submitted"], ["Z", "i4", "", "2025-01-02T10:01:00Z", "skipped"],
            ["X", "i5", "r", "2025-01-06T10:02:00Z", "submitted"], ["Y", "i5", "P", "2025-01-06T10:03:00Z", "submitted"],
            ["Z", "i5", "q", "2025-01-06T10:04:00Z", "submitted"], ["X", "i6", "p", "2025-01-06T10:05:00Z", "submitted"],
            ["Y", "i6", "q", "2025-01-06T10:06:00Z", "submitted"], ["Z", "i6", "", "2025-01-06T10:07:00Z", "skipped"]]
    write_csv(folder / "export.csv", list(_COLS.values()),
              [[k, r[1], r[0], r[2], r[3], r[4]] for k, r in enumerate(rows)])
    write_csv(folder / "gold.csv", ["item_id", "gold_label", "adjudicated_by"], [["i1", "p", "lead"], ["i6", "q", "lead"]])
    return {"files": {"export": "export.csv", "gold": "gold.csv"}, "columns": _COLS, "annotators": ["X", "Y", "Z"],
            "categories": ["p", "q", "r"], "merge": {"q1": "q", "q2": "q"}, "threshold": 0.667,
            "suspect": ["q", "p"]}


def test_the_solver_and_the_recheck_on_a_pilot_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    # X/Y on 6 items: po 3/6, pe (3x2 + 2x3 + 1x1)/36 = 13/36, kappa 5/23; X/Z and Y/Z on i1, i2, i3, i5 with
    # pe 5/16: po 2/4 gives 3/11, po 3/4 gives 7/11
    assert [(p["a"], p["b"], p["n"], p["kappa"]) for p in f["pairs"]] == [
        ("X", "Y", 6, 0.217), ("X", "Z", 4, 0.273), ("Y", "Z", 4, 0.636)]
    # Fleiss on i1, i2, i3, i5: mean P_i 7/12, Pe (25 + 16 + 9)/144, kappa 34/94; alpha: off-diagonal 7,
    # n = 16 (p 6, q 7, r 3): 1 - 15 x 7 / (256 - 94) = 0.352
    assert (f["n_complete"], f["fleiss"], f["alpha"]) == (4, 0.362, 0.352)
    # disagreements: p/r 3 (i3 twice, i5), p/q 2 (i5, i6), q/r 1 (i5)
    assert (f["weakest"], f["confused"], f["confused_n"], f["suspect_n"]) == (["X", "Y"], ["p", "r"], 3, 2)
    # i5 has no majority; i6 is 1-1 but gold; i4 is q by the two labels left
    assert (f["todo"], f["counts"]) == (["i5"], {"p": 1, "q": 3, "r": 1})
    assert (f["decision"], f["premise"]) == (False, False)
    again = recheck(tmp_path, P)
    for k in ("n_complete", "fleiss", "alpha", "weakest", "confused", "confused_n", "suspect_n", "n_todo", "counts",
              "decision", "premise"):
        assert again[k] == f[k], k
    assert sorted((p["a"], p["b"], p["kappa"]) for p in again["pairs"]) == [
        ("X", "Y", 0.217), ("X", "Z", 0.273), ("Y", "Z", 0.636)]
    P["suspect"] = ["r", "p"]
    assert solver.analyse(str(tmp_path), P)["premise"] and recheck(tmp_path, P)["premise"]


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    naive = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    # v1 labels left apart: i2 is q1 / q / q2, no majority, and Fleiss falls
    un = naive["unmapped"]
    assert un["todo"] == ["i2", "i5"] and un["fleiss"] < f["fleiss"] and un["alpha"] < f["alpha"]
    # Y's first label on i4 (p) kept: i4 is q / p, no majority; X/Y agree on 2 of 6 only
    re = naive["relabels"]
    assert re["todo"] == ["i4", "i5"] and re["pairs"][0]["kappa"] < f["pairs"][0]["kappa"]
    # skips as a category: every item has three labels
    assert naive["missing"]["n_complete"] == 6 and naive["missing"]["alpha"] != f["alpha"]
    # gold ignored: i6 (p / q) goes to the adjudicator
    assert naive["gold"]["todo"] == ["i5", "i6"] and naive["gold"]["counts"]["q"] == 2


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A scientist's own answer: the workbook typed in (no formulas), the Labels columns in another order, the
    Agreement and Summary rows reordered; the slides as one text box each with '=' lines; the note's facts as a
    Markdown table with bold labels, pairs joined by commas and kappas with a leading kappa sign."""
    from openpyxl import Workbook
    from pptx import Presentation
    from pptx.util import Inches

    out.mkdir(parents=True, exist_ok=True)
    L, D, S = P["labels"], P["deliverables"], P["sheet_labels"]
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    cohen = [(f"{L['cohen']} {p['a']} / {p['b']}", p["kappa"] + delta) for p in f["pairs"]]
    if not blind:
        wb = Workbook()
        ws = wb.active
        ws.title = "Labels"
        ws.append([S["adjudicate"], S["final"], S["item"], S["gold"], *reversed(P["annotators"])])
        for r in f["adjudicated"]:
            ws.append(["yes" if not r["final"] else "no", r["final"] or None, r["item"], r["gold"] or None,
                       *[v or None for v in reversed(r["labels"])]])
        ag = wb.create_sheet("Agreement")
        ag.append(["Item", "Value"])
        ag.append([L["alpha"], f["alpha"] + delta])
        ag.append([L["fleiss"], f["fleiss"] + delta])
        for k, v in reversed(cohen):
            ag.append([k, v])
        sm = wb.create_sheet("Summary")
        sm.append([S["count"], S["label"]])
        sm.append([f["n_todo"], L["todo"]])
        for c in reversed(P["categories"]):
            sm.append([f["counts"][c], c])
        wb.save(out / D["workbook"])
        prs = Presentation()
        for lines in ([*cohen, (L["fleiss"], f["fleiss"] + delta), (L["alpha"], f["alpha"] + delta),
                       (L["decision"], yes(f["decision"]))],
                      [(L["confused"], ", ".join(f["confused"][::-1])),
                       (L["todo"], f"{f['n_todo']} items"), (L["premise"], yes(f["premise"]))]):
            slide = prs.slides.add_slide(prs.slide_layouts[6])
            box = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(8), Inches(5)).text_frame
            box.text = f"{lines[0][0]} = {lines[0][1]}"
            for k, v in lines[1:]:
                box.add_paragraph().text = f"{k} = {v}"
        prs.save(str(out / D["slides"]))
    pairs = [*[(k, f"{v:.3f}") for k, v in cohen], (L["complete"], f"{f['n_complete']} items"),
             (L["fleiss"], f"{f['fleiss'] + delta:.3f}"), (L["alpha"], f"{f['alpha'] + delta:.3f}"),
             (L["weakest"], ", ".join(f["weakest"][::-1])), (L["confused"], ", ".join(f["confused"][::-1])),
             (L["confused_n"], str(f["confused_n"])), (L["suspect_n"], f"{f['suspect_n']} disagreements"),
             (L["todo"], str(f["n_todo"])), (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = ["# Pilot agreement", "", "| Item | Value |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
             *(extra or []), "", "v1 labels were mapped to v2 first; re-labels keep the latest; skips are missing."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, delta=0.04)
    assert score_output(task, tmp_path / "wrong") <= 0.7
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['alpha']} | {f['alpha'] - 0.05:.3f} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_statistics_on_the_superseded_v1_guideline_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("unmapped",))
    assert old["alpha"] < f["alpha"] and old["n_todo"] > f["n_todo"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.5
