"""Storm sewer design check: Manning full flow, IDF interpolation and a two-reach rational-method network worked by
hand, and the reward a drawn task pays for answers written by hand (right in another layout, one fact wrong,
hedged, blind) and for the superseded manual's procedure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import storm as solver
from jobenv.synthetic.workflows import storm
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output

WF = storm.STORM_SEWER_DESIGN


# ---- the method on hand-computed cases ---------------------------------------------------------------------

def test_manning_full_flow_and_the_size_picked():
    # 24 in at S = 0.01, n = 0.013: A = pi = 3.1416 sq ft, R = D/4 = 0.5 ft, R^(2/3) = 0.62996;
    # Q = 1.486/0.013 x 3.1416 x 0.62996 x 0.1 = 22.62 cfs; V = Q / A = 7.20 ft/s
    q, v = solver.full_flow(24, 0.01, 0.013)
    assert round(q, 2) == 22.62 and round(v, 2) == 7.20
    assert round(solver.required_diameter(q, 0.01, 0.013), 6) == 24.0
    # capacity goes with D^(8/3): 21 in carries 22.62 x 0.875^(8/3) = 15.84 cfs, so 20 cfs needs 24 in, 15 cfs 21 in
    assert solver.pick_size(20.0, 0.01, 0.013, storm.SIZES) == 24
    assert solver.pick_size(15.0, 0.01, 0.013, storm.SIZES) == 21
    assert solver.pick_size(1.0, 0.01, 0.013, storm.SIZES) == 15  # the manual's minimum


def test_intensity_is_linear_between_tabulated_durations():
    # 12 min lies 2/5 of the way from 10 min (5.0 in/hr) to 15 min (4.2 in/hr): 5.0 - 0.8 x 0.4 = 4.68
    assert round(solver.intensity([5, 10, 15], [6.0, 5.0, 4.2], 12.0), 4) == 4.68
    assert solver.intensity([5, 10, 15], [6.0, 5.0, 4.2], 10.0) == 5.0
    with pytest.raises(ValueError):
        solver.intensity([5, 10, 15], [6.0, 5.0, 4.2], 15.0)


def _two_reach_network(folder: Path) -> dict:
    """Lateral SD-1 (CB-1 to MH-1, 300 ft at 1 %) into trunk SD-2 (MH-1 to EW-1, 400 ft at 0.5 %)."""
    write_csv(folder / "pipes.csv", ["pipe_id", "from_structure", "to_structure", "system", "length_ft",
                                     "up_invert_ft", "dn_invert_ft", "diameter_in", "material"],
              [["SD-1", "CB-1", "MH-1", "lateral", 300, "101.00", "98.00", 15, "RCP"],
               ["SD-2", "MH-1", "EW-1", "trunk", 400, "97.50", "95.50", 24, "RCP"]])
    write_xlsx(folder / "areas.xlsx", [("Subcatchments", ["subcatchment_id", "inlet_structure", "inlet_time_min",
                                                          "description"],
                                        [["DA-1", "CB-1", 6.0, ""], ["DA-2", "MH-1", 8.0, ""], ["DA-3", "CB-1", 15.0, ""]])])
    write_csv(folder / "landuse.csv", ["subcatchment_id", "land_use", "area", "unit"],
              [["DA-1", "Roof", 1, "ac"], ["DA-1", "Lawn (clay soil)", 1, "ac"], ["DA-2", "Pavement", 43560, "sf"],
               ["DA-2", "Woods", 1, "ha"], ["DA-3", "Woods", 5, "ac"]])
    head = ["Duration (min)", "10-yr", "25-yr"]
    write_xlsx(folder / "idf.xlsx", [("IDF", head, [[5, 7.0, 8.0], [10, 6.0, 7.0], [15, 5.0, 6.0], [20, 4.4, 5.2]])])
    write_xlsx(folder / "idf_old.xlsx", [("IDF", head, [[5, 6.0, 7.0], [10, 5.0, 6.0], [15, 4.0, 5.0], [20, 3.4, 4.2]])])
    return {"files": {"pipes": "pipes.csv", "subcatchments": "areas.xlsx", "landuse": "landuse.csv", "idf": "idf.xlsx",
                      "idf_old": "idf_old.xlsx"}, "idf_sheet": "IDF", "c_values": storm.C_VALUES,
            "to_acres": storm.TO_ACRES, "n": 0.013, "min_tc": 10.0, "rp_lateral": 10, "rp_trunk": 25,
            "sizes": storm.SIZES, "excluded": ["DA-3"], "claimed_q": 20.0}


def test_a_two_reach_network_by_hand(tmp_path):
    P = _two_reach_network(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    rows = {r["reach"]: r for r in f["rows"]}
    # lateral: C x A = 0.95 + 0.25 = 1.20; inlet 6 min raised to 10; i(10-yr, 10 min) = 6.0; Q = 7.20 cfs.
    # 15 in at 1 % carries 22.62 x 0.625^(8/3) = 6.46 cfs, 18 in 10.50 cfs -> 18 in (existing 15 in is short);
    # V = 10.50 / (pi x 0.75^2) = 5.945 ft/s, travel 300 / 5.945 / 60 = 0.841 min
    assert rows["SD-1"] == {"reach": "SD-1", "system": "lateral", "ca": 1.2, "tc": 10.0, "i": 6.0, "q": 7.2, "d": 18,
                            "undersized": True}
    # trunk: 43,560 sf pavement = 1 ac x 0.90, 1 ha woods = 2.4711 ac x 0.12 = 0.2965; C x A = 1.20 + 1.1965 = 2.3965.
    # Tc = max(10, 10 + 0.841) = 10.84; i(25-yr) = 7.0 - 1.0 x 0.841/5 = 6.832; Q = 6.832 x 2.3965 = 16.37 cfs;
    # 24 in at 0.5 % carries 22.62 x 0.7071 = 16.00 cfs < 16.37 -> 27 in (existing 24 in is short)
    assert rows["SD-2"] == {"reach": "SD-2", "system": "trunk", "ca": 2.4, "tc": 10.84, "i": 6.83, "q": 16.37, "d": 27,
                            "undersized": True}
    assert f["under"] == ["SD-1", "SD-2"] and not f["decision"] and f["premise"]
    assert storm.recheck(tmp_path, P)["rows"] == sorted(f["rows"], key=lambda r: r["reach"])
    # the shortcuts: the raw 6-minute inlet time (i = 6.8), 10-year on the trunk, the regraded DA-3 kept
    assert {r["reach"]: r["i"] for r in solver.analyse(str(tmp_path), P, ("min_tc",))["rows"]}["SD-1"] == 6.8
    assert solver.analyse(str(tmp_path), P, ("one_storm",))["outfall_q"] < f["outfall_q"]
    assert solver.analyse(str(tmp_path), P, ("elsewhere",))["ca_total"] == round(2.39653 + 5 * 0.12, 2)
    assert solver.analyse(str(tmp_path), P, ("old_idf",))["outfall_q"] < f["outfall_q"]


# ---- a drawn task and hand-written answers ---------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task):
    path = workflow_task(WF, True, False)
    params = json.loads((path / "ground_truth" / "params.json").read_text())
    return path, params, solver.analyse(str(path / "task_folder"), params)


def _answer(out: Path, P: dict, facts: dict, *, q_out: float | None = None, second_tc: float | None = None,
            blind: bool = False) -> None:
    """An answer by hand: the Reaches sheet with typed values, columns reordered, an extra notes column and the
    pipes in id order; the memo's facts in a Word table or a Markdown table with bold labels and units."""
    import docx
    from openpyxl import Workbook

    out.mkdir(parents=True)
    L, D, C = P["labels"], P["deliverables"], P["columns"]
    f = dict(facts)
    if blind:
        f.update(ca_total=10.0, outfall_tc=15.0, outfall_q=50.0, outfall_d=36, n_under=1, under=["SD-0001"],
                 decision=True, premise=True, rows=[dict(r, ca=5.0, tc=10.0, i=5.0, q=25.0, d=24, undersized=False)
                                                           for r in facts["rows"]])
    wb = Workbook()
    ws = wb.active
    ws.title = "Reaches"
    ws.append([C["q"], "Reach", C["d"], C["flag"], C["tc"], C["i"], C["ca"], "Notes"])
    for r in sorted(f["rows"], key=lambda r: r["reach"]):
        ws.append([r["q"], r["reach"], r["d"], "Yes" if r["undersized"] else "No", r["tc"], r["i"], r["ca"], r["system"]])
    wb.save(out / D["workbook"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    rows = [(L["ca_total"], f"{f['ca_total']:.2f} ac"), (L["outfall_tc"], f"{f['outfall_tc']:.2f} min"),
            (L["outfall_q"], f"{(q_out or f['outfall_q']):.2f} cfs"), (L["outfall_d"], f"{f['outfall_d']} in"),
            (L["n_under"], str(f["n_under"])), (L["under"], "; ".join(f["under"])), (L["decision"], yes(f["decision"])),
            (L["premise"], yes(f["premise"]))]
    if second_tc is not None:
        rows.append((L["outfall_tc"], f"{second_tc:.2f} min"))
    note = "The revised IDF table governs; the trunk uses the 25-year storm; the regraded area is left out."
    if D["memo"].endswith(".docx"):
        doc = docx.Document()
        doc.add_paragraph("Storm sewer design check")
        tab = doc.add_table(rows=1, cols=2)
        tab.rows[0].cells[0].text, tab.rows[0].cells[1].text = "Item", "Result"
        for k, v in rows:
            cells = tab.add_row().cells
            cells[0].text, cells[1].text = k, v
        doc.add_paragraph(note)
        doc.save(str(out / D["memo"]))
    else:
        (out / D["memo"]).write_text("\n".join(["| Item | Result |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in rows],
                                                "", note]) + "\n")


def test_a_correct_answer_in_another_layout_earns_full_credit(task, tmp_path):
    path, P, facts = task
    _answer(tmp_path / "right", P, facts)
    assert score_output(path, tmp_path / "right") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    path, P, facts = task
    _answer(tmp_path / "wrong", P, facts, q_out=round(facts["outfall_q"] * 1.08, 2))
    assert score_output(path, tmp_path / "wrong") < 1.0
    _answer(tmp_path / "hedged", P, facts, second_tc=facts["outfall_tc"] + 1.5)
    assert score_output(path, tmp_path / "hedged") < 1.0
    _answer(tmp_path / "blind", P, facts, blind=True)
    assert score_output(path, tmp_path / "blind") <= 0.1


def test_the_superseded_manual_and_idf_table_loses(task, tmp_path):
    path, P, facts = task
    out = tmp_path / "old"
    solver.write_outputs(str(out), P, solver.analyse(str(path / "task_folder"), P, ("old_idf", "one_storm", "min_tc")))
    assert score_output(path, out) <= 0.5


def test_each_planted_item_changes_the_answer(task):
    path, P, facts = task
    folder = str(path / "task_folder")
    assert facts["decision"] and not facts["premise"] and facts["under"]
    rows = {r["reach"]: r for r in facts["rows"]}

    def row(naive: str, probe: str) -> dict:
        return {r["reach"]: r for r in solver.analyse(folder, P, (naive,))["rows"]}[P["probes"][probe]]

    assert row("units", "sf")["ca"] > rows[P["probes"]["sf"]]["ca"] * 1000  # square feet read as acres
    assert row("units", "ha")["ca"] < rows[P["probes"]["ha"]]["ca"]  # hectares read as acres
    assert row("min_tc", "mintc")["tc"] < P["min_tc"] == rows[P["probes"]["mintc"]]["tc"]
    assert row("elsewhere", "away")["ca"] > rows[P["probes"]["away"]]["ca"]
    assert solver.analyse(folder, P, ("old_idf",))["outfall_q"] < facts["outfall_q"]
    assert solver.analyse(folder, P, ("one_storm",))["outfall_q"] < facts["outfall_q"]
