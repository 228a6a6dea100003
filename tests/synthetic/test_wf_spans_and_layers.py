"""Spans and layers: the layer walk and the consolidation rule on hand-computed cases, the solver and the independent
recheck on a 37-position organisation worked by hand (each shortcut moving the figure it should), and the reward a
drawn task pays for a correct answer written by hand in another layout, a wrong, a hedged and a blind one, and last
year's superseded thresholds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import spans as solver
from jobenv.synthetic.workflows.spans import SPANS_AND_LAYERS as WF
from jobenv.synthetic.workflows.spans import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines


def test_layers_count_the_ceo_as_one_and_a_loop_reaches_no_layer():
    # A (CEO) <- B <- C <- D: layers 1, 2, 3, 4; X and Y report to each other: never reach the CEO
    parent = {"B": "A", "C": "B", "D": "C", "X": "Y", "Y": "X"}
    layer = solver.layers_from(parent, "A")
    assert [layer[k] for k in "ABCD"] == [1, 2, 3, 4]
    assert layer["X"] is None and layer["Y"] is None


def test_consolidation_removes_narrow_managers_down_to_the_target_span():
    # spans 2, 3, 2: 7 reports need ceil(7 / 8) = 1 manager, so 3 - 1 = 2 roles go
    assert solver.removable([2, 3, 2], 8) == 2
    # 3 + 3 + 3 = 9 reports need 2 managers at span 8: one role goes
    assert solver.removable([3, 3, 3], 8) == 1
    # a single narrow manager is never consolidated away (1 - ceil(s / 8) = 0)
    assert solver.removable([1], 8) == 0
    # 8 reports exactly fit one manager; at target 10, 11 reports need 2
    assert solver.removable([3, 3, 2], 8) == 2 and solver.removable([3, 4, 4], 10) == 1


def _tiny(folder: Path) -> dict:
    """CEO E1; directors E2-E5; managers M1-M3 under E2, M4 under E3 (acting; the extract shows its substantive
    manager M1), M5 under E5 (the extract shows M5 under its own report S23: a loop HR corrected to E5).
    Staff: S1-S2 under M1, S3-S5 under M2, S6 and the funded vacancy V1 under M3, S7-S9 under E3, S10-S14 under M4,
    S15-S19 under E4, S20-S22 under E5, S23-S26 under M5. Also contractor C1 under S7, contractor C2 under M1 and
    the frozen vacancy V2 under M2.
    Positions 5 + 5 + 26 + V1 = 37. Spans: E1 4, E2 3, E3 4, E4 5, E5 4, M1 2, M2 3, M3 2, M4 5, M5 4: sorted
    2 2 3 3 4 4 4 4 5 5, median 4.0; narrow (< 4) E2, M1, M2, M3 = 4. Layers: 1 (E1), 2 (E2-E5), 3 (M1-M5, S7-S9,
    S15-S22: 16), 4 (S1-S6, V1, S10-S14, S23-S26: 16): 4 layers.
    Savings: E2's narrow managers M1, M2, M3 lead 7 people: 1 manager needed, 2 roles go, the cheapest M2 (90,000)
    and M3 (95,000): 185,000.00 >= the hurdle 150,000 (decision yes); 4 layers <= benchmark 4 (premise holds)."""
    cost = {"E1": 400000, "E2": 200000, "E3": 210000, "E4": 190000, "E5": 205000, "M1": 100000, "M2": 90000,
            "M3": 95000, "M4": 120000, "M5": 110000}
    lines = {"E2": "E1", "E3": "E1", "E4": "E1", "E5": "E1", "M1": "E2", "M2": "E2", "M3": "E2", "M4": "M1",
             "M5": "S23", **{f"S{k}": "M1" for k in (1, 2)}, **{f"S{k}": "M2" for k in (3, 4, 5)}, "S6": "M3",
             **{f"S{k}": "E3" for k in (7, 8, 9)}, **{f"S{k}": "M4" for k in range(10, 15)},
             **{f"S{k}": "E4" for k in range(15, 20)}, **{f"S{k}": "E5" for k in range(20, 23)},
             **{f"S{k}": "M5" for k in range(23, 27)}}
    rows = [["E1", "", "Chief Executive Officer", "Employee", "N", "", "N", 400000]]
    rows += [[p, m, "Role", "Employee", "N", "", "Y" if p == "M4" else "N", cost.get(p, 60000)]
             for p, m in lines.items()]
    rows += [["V1", "M3", "Analyst", "Employee", "Y", "R1", "N", 65000], ["V2", "M2", "Analyst", "Employee", "Y", "R2",
                                                                          "N", 65000],
             ["C1", "S7", "Contract Developer", "Contractor", "N", "", "N", 120000],
             ["C2", "M1", "Contract Analyst", "Contractor", "N", "", "N", 110000]]
    cols = {"id": "employee_id", "manager": "manager_id", "title": "job_title", "type": "worker_type",
            "vacancy": "vacancy_flag", "req": "requisition_id", "acting": "acting_flag", "cost": "annual_loaded_cost"}
    write_csv(folder / "hris.csv", list(cols.values()), rows)
    write_xlsx(folder / "reqs.xlsx", [("Requisitions", ["requisition_id", "funding_status"],
                                       [["R1", "Funded"], ["R2", "Frozen"], ["R3", "Frozen"]])])
    return {"files": {"hris": "hris.csv", "requisitions": "reqs.xlsx"}, "columns": cols, "req_sheet": "Requisitions",
            "narrow_below": 4, "target_span": 8, "old_narrow_below": 5, "old_target_span": 10,
            "corrections": {"M5": "E5"}, "acting_lines": {"M4": "E3"}, "hurdle": 150000.0, "bench_layers": 4}


def test_the_solver_and_the_recheck_on_an_organisation_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    spans = {m["id"]: m["span"] for m in f["managers"]}
    assert spans == {"E1": 4, "E2": 3, "E3": 4, "E4": 5, "E5": 4, "M1": 2, "M2": 3, "M3": 2, "M4": 5, "M5": 4}
    assert (f["position_count"], f["median_span"], f["narrow_count"], f["layer_count"]) == (37, 4.0, 4, 4)
    assert [r["positions"] for r in f["layers"]] == [1, 4, 16, 16]
    assert [(g["parent"], g["removable"]) for g in f["groups"]] == [("E2", 2)]
    assert (f["removed_count"], f["savings"], f["decision"], f["premise"]) == (2, 185000.0, True, True)
    assert {m["id"] for m in f["managers"] if m["removed"] == "yes"} == {"M2", "M3"}
    again = recheck(tmp_path, P)
    for k in ("position_count", "median_span", "narrow_count", "layer_count", "removed_count", "savings", "decision",
              "premise"):
        assert again[k] == f[k], k
    assert [(m["id"], m["span"], m["narrow"]) for m in again["managers"]] == [
        (m["id"], m["span"], m["narrow"]) for m in f["managers"]]
    naive = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    # the frozen V2 lifts M2 to 4 (not narrow): M1 and M3 lead 4, one role goes, M3 at 95,000
    assert (naive["unfunded"]["position_count"], naive["unfunded"]["narrow_count"]) == (38, 3)
    assert naive["unfunded"]["savings"] == 95000.0
    # contractors: S7 becomes a manager of one (narrow), M1 leads 3
    assert (naive["contractors"]["position_count"], naive["contractors"]["narrow_count"]) == (39, 5)
    # M4 left under M1: a fifth layer; E3 drops to 3 and pairs with E2 under the CEO (E2, 200,000, goes too)
    assert (naive["acting"]["layer_count"], naive["acting"]["savings"]) == (5, 385000.0)
    # the loop kept: S23 manages M5 (span 1), E5 drops to 3; M5's branch reaches no layer
    assert naive["circular"]["median_span"] == 3.0 and naive["circular"]["layers"][3]["positions"] == 12
    # last year's cut (< 5) and target (10): E1's narrow E2, E3, E5 lead 11, one goes (E2)
    assert (naive["prior_deck"]["narrow_count"], naive["prior_deck"]["savings"]) == (8, 385000.0)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, savings_delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """An analyst's own answer: the sheets typed in (no formulas) with the Spans columns in reverse order, flags in
    capitals and a notes column; the memo's facts as a Markdown table with bold labels and units, in Word."""
    from openpyxl import Workbook

    out.mkdir(parents=True, exist_ok=True)
    Oc, L, D, S = P["out_columns"], P["labels"], P["deliverables"], P["sheets"]
    if not blind:
        wb = Workbook()
        ws = wb.active
        ws.title = S["spans"]
        keys = ["removed", "narrow", "span", "layer", "parent", "id"]
        ws.append([Oc[k] for k in keys] + ["notes"])
        for m in f["managers"]:
            ws.append([m["removed"].upper(), m["narrow"].upper(), m["span"], m["layer"], m["parent"], m["id"], "ok"])
        ly = wb.create_sheet("Layers")
        ly.append(["managers", "positions", "layer"])
        for r in f["layers"]:
            ly.append([r["managers"], r["positions"], r["layer"]])
        sv = wb.create_sheet("Savings")
        sv.append(["savings", "managers_removed", "parent_id"])
        for g in f["groups"]:
            sv.append([g["savings"], g["removable"], g["parent"]])
        wb.save(out / D["workbook"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["positions"], f"{f['position_count']} positions"), (L["median"], f"{f['median_span']:.1f}"),
             (L["narrow"], f"{f['narrow_count']} managers"), (L["layers"], str(f["layer_count"])),
             (L["removed"], f"{f['removed_count']} roles"), (L["savings"], f"${f['savings'] + savings_delta:,.2f}"),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "0") if k not in (L["decision"], L["premise"]) else (k, "No") for k, _ in pairs]
    lines = ["# Spans and layers", "", "| Item | Value |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
             *(extra or []), "", "Contractors and frozen requisitions left out; the acting manager and the looped line "
             "placed as HR says."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, savings_delta=-12000.0)
    assert score_output(task, tmp_path / "wrong") <= 0.8
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['savings']} | {f['savings'] * 1.2:.2f} |"])
    assert score_output(task, tmp_path / "hedged") <= 0.8
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_last_years_superseded_thresholds_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("prior_deck",))
    assert old["savings"] != f["savings"] and old["cut"] == P["old_narrow_below"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
