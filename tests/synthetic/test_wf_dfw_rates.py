"""DFW rates and the Pell gap: the pooled two-proportion z test on hand-computed cases, the solver and the
independent recheck on a two-section term worked by hand (census drops, a repeated row, an incomplete resolved and
one left open, an appeal), each shortcut moving the figure it should, and the reward a drawn task pays for a correct
answer written by hand in another layout, a wrong, a hedged and a blind one, and last year's superseded rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import dfw as solver
from jobenv.synthetic.workflows.dfw import DFW_RATES as WF
from jobenv.synthetic.workflows.dfw import recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines


def test_two_proportion_z_by_hand():
    # 30/100 vs 20/100: pooled 0.25, se = sqrt(0.25 x 0.75 x 0.02) = 0.061237, z = 0.10 / 0.061237 = 1.633;
    # two-sided p = 2 x (1 - Phi(1.633)) = 2 x 0.05124 = 0.1025
    z, p = solver.two_proportion_z(30, 100, 20, 100)
    assert round(z, 3) == 1.633 and round(p, 4) == 0.1025
    # the sign follows the first group: 20/100 vs 30/100 gives -1.633 and the same p
    z2, p2 = solver.two_proportion_z(20, 100, 30, 100)
    assert round(z2, 3) == -1.633 and p2 == pytest.approx(p)
    # 60/200 vs 30/200: pooled 0.225, se = sqrt(0.225 x 0.775 x 0.01) = 0.041758, z = 3.592, p = 0.0003
    z3, p3 = solver.two_proportion_z(60, 200, 30, 200)
    assert round(z3, 2) == 3.59 and p3 < 0.001
    assert solver.dfw_rate(3, 12) == 25.0 and solver.dfw_rate(0, 0) is None


_COLS = {"term": "term", "section": "course_section", "modality": "modality", "instructor": "instructor",
         "student": "emplid", "pell": "pell_flag", "grade": "grade", "drop": "drop_dt"}


def _tiny(folder: Path) -> dict:
    """Fall 2025, census date 2025-09-15; section 001 in person, section W02 online.
    001: s1 Pell A; s2 Pell F (listed twice); s3 W after census; s4 dropped ON the census date (out); s5 I left open
    (denominator only); s6 Pell I resolved to F by the grade-change file; s7 D changed to C on appeal.
    W02: t1 Pell B; t2 C; t3 dropped before census (out); t4 Pell W after census; t5 A. A Spring 2026 row is ignored.
    001: n 6 (s1, s2, s3, s5, s6, s7), DFW 3 (s2 F, s3 W, s6 F) = 50.0 %; Pell 3 (2 DFW), non-Pell 3 (1 DFW).
    W02: n 4, DFW 1 (t4) = 25.0 %; Pell 2, non-Pell 2.
    Overall 4 / 10 = 40.0 %. Pell 3 / 5 = 60.0 %, non-Pell 1 / 5 = 20.0 %: gap 40.0 pp; pooled 0.4,
    se = sqrt(0.4 x 0.6 x (1/5 + 1/5)) = 0.30984, z = 0.4 / 0.30984 = 1.29, p = 0.197 (not significant at 0.05).
    Worst section 001 (50.0). Cells under n 3: W02's two (n 2 each) -> 2 suppressed. Online 25.0 < in person 50.0."""
    rows = [["Fall 2025", "SOC1010-001", "In person", "Dr Q", "s1", "Y", "A", ""],
            ["Fall 2025", "SOC1010-001", "In person", "Dr Q", "s2", "Y", "F", ""],
            ["Fall 2025", "SOC1010-001", "In person", "Dr Q", "s2", "Y", "F", ""],
            ["Fall 2025", "SOC1010-001", "In person", "Dr Q", "s3", "N", "W", "2025-10-01"],
            ["Fall 2025", "SOC1010-001", "In person", "Dr Q", "s4", "N", "", "2025-09-15"],
            ["Fall 2025", "SOC1010-001", "In person", "Dr Q", "s5", "N", "I", ""],
            ["Fall 2025", "SOC1010-001", "In person", "Dr Q", "s6", "Y", "I", ""],
            ["Fall 2025", "SOC1010-001", "In person", "Dr Q", "s7", "N", "D", ""],
            ["Fall 2025", "SOC1010-W02", "Online", "Dr R", "t1", "Y", "B", ""],
            ["Fall 2025", "SOC1010-W02", "Online", "Dr R", "t2", "N", "C", ""],
            ["Fall 2025", "SOC1010-W02", "Online", "Dr R", "t3", "N", "", "2025-09-01"],
            ["Fall 2025", "SOC1010-W02", "Online", "Dr R", "t4", "Y", "W", "2025-10-20"],
            ["Fall 2025", "SOC1010-W02", "Online", "Dr R", "t5", "N", "A", ""],
            ["Spring 2026", "SOC1010-W02", "Online", "Dr R", "u1", "N", "F", ""]]
    write_csv(folder / "enrol.csv", list(_COLS.values()), rows)
    write_csv(folder / "census.csv", ["term", "first_day", "census_date", "last_day_to_withdraw"],
              [["Fall 2025", "2025-08-25", "2025-09-15", "2025-11-07"],
               ["Spring 2026", "2026-01-19", "2026-02-09", "2026-04-03"]])
    write_csv(folder / "changes.csv", ["section", "student_id", "old_grade", "new_grade", "effective_date"],
              [["SOC1010-001", "s7", "D", "C", "2026-01-10"], ["SOC1010-001", "s6", "I", "C", "2026-01-05"],
               ["SOC1010-001", "s6", "C", "F", "2026-02-01"]])  # the later change replaces the earlier one
    return {"files": {"enrol": "enrol.csv", "census": "census.csv", "changes": "changes.csv"}, "columns": _COLS,
            "term": "Fall 2025", "dfw_grades": ["D", "F", "W"], "min_cell": 3, "alpha": 0.05,
            "modalities": ["In person", "Online", "Hybrid"], "online": "Online", "inperson": "In person"}


def test_the_solver_and_the_recheck_on_a_term_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    P["modalities"] = ["In person", "Online"]
    f = solver.analyse(str(tmp_path), P)
    a, b = f["sections"]
    assert (a["section"], a["n"], a["dfw"], a["rate"], a["pell_n"], a["non_n"]) == ("SOC1010-001", 6, 3, 50.0, 3, 3)
    assert (b["n"], b["dfw"], b["rate"], b["pell_rate"], b["non_rate"]) == (4, 1, 25.0, None, None)
    assert (f["n"], f["rate"], f["pell_rate"], f["non_rate"], f["gap"], f["z"], f["p"]) == (
        10, 40.0, 60.0, 20.0, 40.0, 1.29, 0.197)
    assert (f["worst"], f["worst_rate"], f["suppressed"], f["online_rate"], f["inperson_rate"]) == (
        "SOC1010-001", 50.0, 2, 25.0, 50.0)
    assert (f["decision"], f["premise"]) == (False, False)
    again = recheck(tmp_path, P)
    for k in ("n", "rate", "pell_rate", "non_rate", "gap", "z", "p", "worst", "worst_rate", "suppressed",
              "online_rate", "inperson_rate", "decision", "premise"):
        assert again[k] == f[k], k
    assert [(s["n"], s["dfw"], s["rate"]) for s in again["sections"]] == [(6, 3, 50.0), (4, 1, 25.0)]


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    P["modalities"] = ["In person", "Online"]
    naive = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    # s2 counted twice: 001 is 4 / 7 = 57.1 %, overall 5 / 11 = 45.5 %
    assert (naive["duplicates"]["sections"][0]["n"], naive["duplicates"]["rate"]) == (7, 45.5)
    # s4 (census day) and t3 counted as W: 001 4 / 7, W02 2 / 5 = 40.0 %, overall 6 / 12 = 50.0 %
    pre = naive["precensus"]
    assert (pre["n"], pre["rate"], pre["online_rate"], pre["sections"][0]["rate"]) == (12, 50.0, 40.0, 57.1)
    # s5's open incomplete as DFW: 001 4 / 6 = 66.7 %, overall 5 / 10 = 50.0 %
    assert (naive["incomplete"]["sections"][0]["rate"], naive["incomplete"]["rate"]) == (66.7, 50.0)
    # no grade changes: s6 stays I (not DFW), s7 stays D (DFW); Pell 2 / 5 = non-Pell 2 / 5, so no gap at all
    gc = naive["grade_changes"]
    assert (gc["sections"][0]["dfw"], gc["pell_rate"], gc["non_rate"], gc["gap"]) == (3, 40.0, 40.0, 0.0)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A lecturer's own answer: the workbook typed in (no formulas, no roster), section columns in reverse order with
    a notes column and suppressed cells as 'n<10'; the slides as one text box each with '=' lines; the cover note's
    facts as a Markdown table with bold labels and units."""
    from openpyxl import Workbook
    from pptx import Presentation
    from pptx.util import Inches

    out.mkdir(parents=True, exist_ok=True)
    L, D, W = P["labels"], P["deliverables"], P["sheet_labels"]
    keys = ["non_rate", "non_n", "pell_rate", "pell_n", "rate", "dfw", "n", "instructor", "modality", "section"]
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    if not blind:
        wb = Workbook()
        ws = wb.active
        ws.title = P["sheet"]
        ws.append([W[k] for k in keys] + ["notes"])
        for s in f["sections"]:
            vals = dict(s, rate=s["rate"] + delta)
            ws.append([("n<10" if vals[k] is None else vals[k]) for k in keys] + ["checked"])
        ms = wb.create_sheet("Modality")
        ms.append([W["rate"], W["modality"], W["n"], W["dfw"]])
        for m in f["modes"]:
            ms.append([m["rate"], m["modality"], m["n"], m["dfw"]])
        sm = wb.create_sheet("Summary")
        sm.append(["Item", "Value"])
        for k in ("gap", "rate", "p", "z"):
            sm.append([L[k], f[k]])
        wb.save(out / D["workbook"])
        prs = Presentation()
        for lines in ([(L["rate"], f"{f['rate']:.1f}%"), (L["worst"], f["worst"]),
                       (L["worst_rate"], f"{f['worst_rate'] + delta:.1f}%")],
                      [(L["gap"], f"{f['gap']:+.1f} pp"), (L["z"], f"{f['z']:.2f}"), (L["p"], f"{f['p']:.3f}"),
                       (L["decision"], yes(f["decision"])), (L["suppressed"], f"{f['suppressed']} cells")]):
            slide = prs.slides.add_slide(prs.slide_layouts[6])
            box = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(7), Inches(5)).text_frame
            box.text = f"{lines[0][0]} = {lines[0][1]}"
            for k, v in lines[1:]:
                box.add_paragraph().text = f"{k} = {v}"
        prs.save(str(out / D["slides"]))
    pairs = [(L["n"], f"{f['n']} students"), (L["rate"], f"{f['rate']:.1f}%"), (L["worst"], f["worst"]),
             (L["worst_rate"], f"{f['worst_rate'] + delta:.1f}%"), (L["pell_rate"], f"{f['pell_rate']:.1f} %"),
             (L["non_rate"], f"{f['non_rate']:.1f}%"), (L["gap"], f"{f['gap']:+.1f} pp"), (L["z"], f"{f['z']:.2f}"),
             (L["p"], f"{f['p']:.3f}"), (L["decision"], yes(f["decision"])), (L["suppressed"], str(f["suppressed"])),
             (L["online_rate"], f"{f['online_rate']:.1f}%"), (L["inperson_rate"], f"{f['inperson_rate']:.1f}%"),
             (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = ["# SOC 1010 DFW", "", "| Item | Value |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
             *(extra or []), "", "Pre-census drops were left out and each student counted once per section."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, delta=3.0)
    assert score_output(task, tmp_path / "wrong") <= 0.85
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['gap']} | {f['gap'] + 2.5:.1f} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_last_years_superseded_report_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("precensus", "incomplete"))
    assert old["n"] > f["n"] and old["rate"] > f["rate"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
