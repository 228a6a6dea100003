"""DMR desk review: the solver on a hand-computed six-month case, and the reward a drawn task pays for a correct
answer written by hand in another layout, a wrong, a hedged and a blind answer, and the superseded procedure."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import dmr as solver
from jobenv.synthetic.workflows import WORKFLOWS
from jobenv.synthetic.workflows.dmr import recheck

from .conftest import score_output

WF = next(w for w in WORKFLOWS if w.key == "dmr_desk_review")

# ---- the method on a tiny case computed by hand --------------------------------------------------------------

_TINY_P = {
    "files": {"dmr": "dmr.csv"}, "outfall": "001", "effective_month": "2024-04", "window": 6, "trc_months": 2,
    "chronic_share": 0.66, "trc": {"conventional": 1.4, "toxic": 1.2}, "premise_month": "2024-02",
    "premise_code": "01094",
    "parameters": [{"code": "00310", "name": "BOD5", "group": "conventional"},
                   {"code": "00610", "name": "Ammonia as N", "group": "conventional"},
                   {"code": "01119", "name": "Total recoverable copper", "group": "toxic"},
                   {"code": "01094", "name": "Total recoverable zinc", "group": "toxic"}],
    "limits": {"original": {"00310": {"avg": 30, "max": 45, "load": 500}, "00610": {"avg": 10, "max": 15},
                            "01119": {"avg": 0.009, "max": 0.014}, "01094": {"avg": 0.12, "max": 0.16}},
               "modified": {"00310": {"avg": 30, "max": 45, "load": 500}, "00610": {"avg": 4, "max": 8},
                            "01119": {"avg": 0.009, "max": 0.014}, "01094": {"avg": 0.12, "max": 0.16}}},
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """Six months at 2.0 MGD (2.4 in May). Ammonia limits 10/15 until March, 4/8 from April.
    By hand: ammonia exceeds in April (6 > 4, and 6 >= 1.4 x 4 = 5.6: TRC), June average (5.8 > 4, >= 5.6: TRC)
    and June maximum (9 > 8; 9 < 11.2) = 3, two TRC months in six: SNC. BOD5 May loading 28 x 2.4 x 8.34 =
    560.448 lb/d > 500 = 1. Copper is '<0.010' throughout (zero, no exceedance); zinc's February report is in
    ug/L (50 and 80 ug/L = 0.05 and 0.08 mg/L, within 0.12 and 0.16). Total 4 exceedances."""
    folder = tmp_path_factory.mktemp("tiny")
    nh3 = [(3, 4), (5, 6), (3, 4), (6, 7), (3, 4), (5.8, 9)]
    rows = []
    for k in range(6):
        month = f"2024-{k + 1:02d}-28"
        flow = "2.4" if k == 4 else "2.0"
        bod = (28, 40) if k == 4 else (10, 20)
        zinc, units = ((50, 80), "ug/L") if k == 1 else ((0.05, 0.07), "mg/L")
        for j, stat in enumerate(("MO AVG", "DAILY MX")):
            rows += [["001", month, "00310", stat, bod[j], "mg/L", flow], ["001", month, "00610", stat, nh3[k][j], "mg/L", flow],
                     ["001", month, "01119", stat, "<0.010", "mg/L", flow], ["001", month, "01094", stat, zinc[j], units, flow],
                     ["002", month, "00310", stat, 99, "mg/L", ""]]
    with (folder / "dmr.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["outfall", "monitoring_period_end", "parameter_code", "statistical_base", "value", "units", "flow_mgd"])
        w.writerows(rows)
    return folder


def test_the_review_matches_the_hand_computation(tiny):
    f = solver.analyse(str(tiny), _TINY_P)
    by = {p["parameter"]: p for p in f["parameters"]}
    assert f["exceed_total"] == 4 and f["load_exceed"] == 1
    assert by["Ammonia as N"]["exceedances"] == 3 and by["Ammonia as N"]["worst_trc"] == 2
    assert f["snc"] == ["Ammonia as N"] and f["decision"] is True
    assert f["worst_load_month"] == "2024-05" and f["worst_load"] == 560.4
    assert f["premise"] is False  # February zinc was in ug/L
    june = solver.row_of(f, "2024-06", "00610", "avg")
    assert june["limit"] == 4 and round(june["ratio"], 3) == 1.45
    assert solver.row_of(f, "2024-02", "00610", "avg")["limit"] == 10  # before the modification
    assert solver.row_of(f, "2024-01", "01119", "avg")["ratio"] == 0.0


def test_each_shortcut_changes_the_hand_computed_answer(tiny):
    old = solver.analyse(str(tiny), _TINY_P, ("old_limits",))
    assert old["snc"] == [] and old["exceed_total"] == 1  # only the loading
    det = solver.analyse(str(tiny), _TINY_P, ("detection",))
    assert "Total recoverable copper" in det["snc"] and det["exceed_total"] == 4 + 6  # six averages at 0.010 > 0.009
    units = solver.analyse(str(tiny), _TINY_P, ("units",))
    assert units["premise"] is True and units["exceed_total"] == 6


def test_the_recheck_agrees_on_the_tiny_case(tiny):
    a, b = solver.analyse(str(tiny), _TINY_P), recheck(tiny, _TINY_P)
    for k in ("exceed_total", "load_exceed", "worst_load_month", "worst_load", "snc", "decision", "premise"):
        assert a[k] == b[k], k


def test_units_detection_and_windows():
    assert solver.concentration("<0.010", "mg/L") == 0.0
    assert solver.concentration("<0.010", "mg/L", ("detection",)) == 0.010
    assert solver.concentration("58.3", "ug/L") == pytest.approx(0.0583)
    assert solver.concentration("58.3", "ug/L", ("units",)) == 58.3
    assert round(20 * 1.5 * solver.LB_PER_MG_L_MGD, 2) == 250.2
    # 4 of 6 periods over (66.7 % >= 66 %): chronic SNC; 3 of 6 is not
    assert solver.snc_windows([1, 1, 0, 1, 1, 0, 0], [0] * 7)[2] is True
    assert solver.snc_windows([1, 0, 1, 0, 1, 0, 0], [0] * 7)[2] is False
    # two TRC periods six apart fall in no common window; five apart do
    assert solver.snc_windows([1, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 1])[2] is False
    assert solver.snc_windows([1, 0, 0, 0, 0, 1, 0], [1, 0, 0, 0, 0, 1, 0])[2] is True
    assert solver.snc_windows([1, 1, 1], [1, 1, 1]) == (0, 0, False)  # shorter than one window


# ---- a drawn task and the answers it pays for ------------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, False, True)


def _load(task: Path):
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand_answer(out: Path, P: dict, f: dict, *, total_delta: int = 0, memo_extra: list[str] | None = None) -> None:
    """A reviewer's own workbook: values typed (no formulas), columns in another order with a remarks column and
    ratios at three decimals; the NOV as a Word document with its facts in a table."""
    import docx
    from openpyxl import Workbook

    out.mkdir(parents=True, exist_ok=True)
    B = P["basis_labels"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Review"
    ws.append(["parameter", "month", "basis", "limit", "value", "ratio", "exceed", "trc", "remarks"])
    for x in f["review"]:
        ws.append([x["parameter"], x["month"], B[x["basis"]], x["limit"], round(x["value"], 4),
                   round(x["ratio"], 3), int(x["exceed"]), int(x["trc"]), "converted" if x["units"] != "mg/L" else ""])
    sn = wb.create_sheet("SNC")
    sn.append(["snc", "parameter", "exceedances"])
    for p in f["parameters"]:
        sn.append(["Yes" if p["snc"] else "No", p["parameter"], p["exceedances"]])
    wb.save(out / P["deliverables"]["workbook"])
    L = P["labels"]
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["exceed_total"], str(f["exceed_total"] + total_delta)), (L["load_exceed"], str(f["load_exceed"])),
             (L["worst_load"], f["worst_load_month"]), (L["snc"], ", ".join(f["snc"]) or "None"),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    doc = docx.Document()
    doc.add_paragraph(f"Notice of violation (draft) - {P['facility']}")
    table = doc.add_table(rows=0, cols=2)
    for k, v in pairs:
        cells = table.add_row().cells
        cells[0].text, cells[1].text = k, v
    for line in memo_extra or []:
        doc.add_paragraph(line)
    doc.add_paragraph("Copper below the ML counted as zero; zinc converted from ug/L; the modified ammonia limits "
                      "applied from the effective date.")
    doc.save(str(out / P["deliverables"]["memo"]))


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand_answer(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    from jobenv.synthetic.solvers._deliver import write_memo

    f, P = _load(task)
    _hand_answer(tmp_path / "wrong", P, f, total_delta=1)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand_answer(tmp_path / "hedged", P, f, memo_extra=[f"{L['snc']}: Total recoverable copper"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    blind = tmp_path / "blind"
    write_memo(str(blind / P["deliverables"]["memo"]), [
        f"{L['exceed_total']}: 3", f"{L['load_exceed']}: 1", f"{L['worst_load']}: {f['months'][5]}",
        f"{L['snc']}: Ammonia as N", f"{L['decision']}: yes", f"{L['premise']}: yes"])
    assert score_output(task, blind) <= 0.1


def test_the_superseded_reading_loses(task, tmp_path):
    f, P = _load(task)
    out = tmp_path / "old"
    solver.write_outputs(str(out), P, solver.analyse(str(task / "task_folder"), P, ("old_limits", "detection")))
    assert score_output(task, out) <= 0.5
