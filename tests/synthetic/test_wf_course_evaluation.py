"""Course-evaluation workflow: the statistics on hand-computed cases, matched learners and the revised key on a
tiny export, and the reward for a correct answer written another way, a wrong one, a hedged one and a blind one."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import coursegain as cg
from jobenv.synthetic.solvers._deliver import write_memo
from jobenv.synthetic.workflows import WORKFLOWS
from jobenv.synthetic.writers import write_csv

from .conftest import score_output

WF = next(w for w in WORKFLOWS if w.key == "course_evaluation")


def test_t_distribution_tails_by_hand():
    assert cg.t_two_sided_p(1.0, 1) == pytest.approx(0.5, abs=1e-12)  # Cauchy: P(|T| > 1) = 1/2
    assert cg.t_two_sided_p(2.0, 2) == pytest.approx(1 - 2 / math.sqrt(6), abs=1e-12)  # df 2: 1 - t/sqrt(t^2+2)
    assert cg.t_two_sided_p(0.0, 7) == pytest.approx(1.0, abs=1e-12)


def test_paired_t_and_dz_by_hand():
    # differences 10, 5, 10: mean 25/3, sd sqrt(25/3), t = 5 on 2 df, p = 1 - 5/sqrt(27), d_z = sqrt(25/3)
    mean, sd, t, df, p, dz = cg.paired_t([50, 60, 70], [60, 65, 80])
    assert (mean, t, df) == (pytest.approx(25 / 3), pytest.approx(5.0), 2)
    assert p == pytest.approx(1 - 5 / math.sqrt(27), abs=1e-12)
    assert dz == pytest.approx(math.sqrt(25 / 3))


def test_kr20_and_point_biserial_by_hand():
    m = [[1, 1], [1, 0], [0, 0], [1, 1]]
    # totals 2, 1, 0, 2: population variance 11/16; sum pq = 3/16 + 4/16; KR-20 = 2 (1 - 7/11) = 8/11
    assert cg.kr20(m) == pytest.approx(8 / 11)
    assert cg.point_biserial([1, 1, 0, 1], [2, 1, 0, 2]) == pytest.approx(1.25 / math.sqrt(0.75 * 2.75))


def test_matched_learners_and_the_revised_key_on_a_tiny_export(tmp_path):
    items = ["Q01", "Q02", "Q03"]
    write_csv(tmp_path / "key.csv", ["item", "key"], [["Q01", "A"], ["Q02", "B"], ["Q03", "C"]])
    write_csv(tmp_path / "rev.csv", ["item", "original_key", "revised_key", "reason"], [["Q03", "C", "D", "SME"]])
    write_csv(tmp_path / "resp.csv", ["learner_id", "phase", *items], [
        ["L1", "pre", "A", "C", "D"], ["L1", "post", "A", "B", "D"], ["L2", "pre", "B", "B", "C"],
        ["L2", "post", "A", "B", "C"], ["L3", "pre", "A", "A", "A"], ["L3", "post", "A", "B", "D"],
        ["L4", "pre", "A", "B", "D"]])
    P = {"files": {"responses": "resp.csv", "key": "key.csv", "revision": "rev.csv"}, "items": items,
         "min_gain": 0.3, "alpha": 0.05, "premise_item": "Q03"}
    f = cg.analyse(str(tmp_path), P)
    # pre 2/3, 1/3, 1/3 and post 3/3, 2/3, 3/3 of the matched L1-L3: means 44.44 and 88.89, g = 44.44 / 55.56
    assert (f["n_paired"], f["n_excluded"]) == (3, 1)
    assert f["mean_gain"] == pytest.approx(44.44) and f["hake"] == 0.8
    assert f["kr20"] == 0.0  # two items everyone got right; Q03's pq equals the variance of the totals
    assert f["hardest"] == "Q03" and f["premise"]
    assert cg.analyse(str(tmp_path), P, ("old_key",))["items"][2]["p"] == pytest.approx(1 / 3, abs=1e-4)
    assert cg.analyse(str(tmp_path), P, ("unpaired",))["mean_pre"] == pytest.approx(58.33)


@pytest.fixture(scope="module")
def task(workflow_task):
    return workflow_task(WF, False, True)


def _hand_answer(out: Path, P: dict, f: dict, *, kr_shift: float = 0.0, extra: str = "") -> None:
    """A different writer: a markdown-table-in-docx report and a workbook with typed values, the items in reverse
    order with an extra percentage column."""
    import docx
    from openpyxl import Workbook

    out.mkdir(parents=True, exist_ok=True)
    D, L = P["deliverables"], P["labels"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Items"
    ws.append(["item", "difficulty (%)", "difficulty_p", "point_biserial", "key"])
    for s in reversed(f["items"]):
        ws.append([s["item"], f"{100 * s['p']:.0f}%", s["p"], s["rpb"], s["key"]])
    wb.save(out / D["workbook"])
    yn = lambda b: "YES" if b else "NO"  # noqa: E731
    pairs = [(L["n_paired"], str(f["n_paired"]) + extra), (L["mean_gain"], f"+{f['mean_gain']:.2f}"),
             (L["t"], f"{f['t']:.2f}"), (L["p"], f"{f['p']:.4f}"), (L["dz"], f"{f['dz']:.2f}"),
             (L["hake"], f"{f['hake']:.3f}"), (L["kr20"], f"{f['kr20'] + kr_shift:.3f}"), (L["worst"], f["worst"]),
             (L["decision"], yn(f["decision"])), (L["premise"], yn(f["premise"]))]
    doc = docx.Document()
    doc.add_paragraph("Course evaluation")
    table = doc.add_table(rows=0, cols=2)
    for k, v in pairs:
        cells = table.add_row().cells
        cells[0].text, cells[1].text = k, v
    doc.save(str(out / D["memo"]))


def _facts(task: Path):
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return cg.analyse(str(task / "task_folder"), params), params


def test_a_hand_written_answer_in_another_style_earns_full_credit(task, tmp_path):
    f, P = _facts(task)
    _hand_answer(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _facts(task)
    _hand_answer(tmp_path / "wrong", P, f, kr_shift=0.04)
    assert score_output(task, tmp_path / "wrong") < 1.0
    _hand_answer(tmp_path / "hedged", P, f, extra=f" (or {f['n_paired'] + 6})")
    assert score_output(task, tmp_path / "hedged") < 1.0
    L = P["labels"]
    blind = tmp_path / "blind"
    write_memo(str(blind / P["deliverables"]["memo"]), [
        f"{L['n_paired']}: 80", f"{L['mean_gain']}: 15.00", f"{L['t']}: 6.50", f"{L['p']}: 0.0001",
        f"{L['dz']}: 0.80", f"{L['hake']}: 0.350", f"{L['kr20']}: 0.780", f"{L['worst']}: Q05",
        f"{L['decision']}: yes", f"{L['premise']}: yes"])
    assert score_output(task, blind) <= 0.1


def test_the_item_formulas_recalculate_to_the_graded_statistics(task):
    from openpyxl import load_workbook

    f, P = _facts(task)
    ws = load_workbook(task / "ground_truth" / "outputs" / P["deliverables"]["workbook"])["Items"]
    assert str(ws["C2"].value).startswith("=AVERAGE(") and str(ws["D2"].value).startswith("=CORREL(")
    assert score_output(task, task / "ground_truth" / "outputs") == 1.0
