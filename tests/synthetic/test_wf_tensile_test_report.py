"""Tensile test report: the least-squares modulus and the 0.2 % offset yield on curves worked by hand, the
cross-section and load units, the solver and the independent recheck on four pulls worked by hand (a slipped grip,
a break outside the marks, a frame that exports newtons), each shortcut moving the figure it should, and the reward a
drawn task pays for a correct report written by hand in another layout, a wrong, a hedged and a blind one, and the
superseded procedure and specification revision."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import tensile as solver
from jobenv.synthetic.workflows.tensile import TENSILE_REPORT as WF
from jobenv.synthetic.workflows.tensile import recheck
from jobenv.synthetic.workflows.tensile_curves import ro_stress
from jobenv.synthetic.writers import write_csv, write_text, write_xlsx

from .conftest import score_output, write_memo_lines

E = 70000.0


def _curve(s_e: float, uts: float, toe: bool = True) -> list[tuple[float, float]]:
    """Elastic at E to s_e every 10 MPa, then linear hardening at 1,000 MPa every 0.0005 strain to 0.02; with a
    seating toe, 0.0001 strain more per 10 MPa up to 30 MPa (0.0003 from there on, which an intercept absorbs)."""
    t = 0.0003 if toe else 0.0
    pts = [(s / E + t * min(s, 30) / 30, float(s)) for s in range(0, int(s_e) + 1, 10)]
    pts += [(s_e / E + t + 0.0005 * k, s_e + 1000 * 0.0005 * k) for k in range(1, 200) if s_e / E + 0.0005 * k <= 0.02]
    return pts


def test_the_elastic_fit_recovers_the_slope_and_the_offset_line_the_yield():
    assert solver.fit_line([0.001, 0.002, 0.003], [70.0, 140.0, 210.0]) == pytest.approx((70000.0, 0.0))
    # elastic to 280 MPa, then 280 + 1000 (e - 0.004): crosses 70000 (e - 0.002) at e = 416 / 69000
    mod, ys = solver.offset_yield(_curve(280, 300), 40, 120)
    assert mod == pytest.approx(70000.0) and ys == pytest.approx(70000 * (416 / 69000 - 0.002))
    assert round(ys, 3) == 282.029
    toe_mod, toe_ys = solver.offset_yield(_curve(280, 300), 40, 120, ("window",))  # the toe pulls the slope down
    assert toe_mod < 66000 and toe_ys > ys  # and the offset line crosses later


def test_an_intercept_absorbs_a_constant_seating_offset():
    shifted = [(e + 0.0004, s) for e, s in _curve(280, 300, toe=False)]
    mod, ys = solver.offset_yield(shifted, 40, 120)
    assert mod == pytest.approx(70000.0) and ys == pytest.approx(282.029, abs=1e-3)


def test_ramberg_osgood_puts_the_offset_yield_at_its_yield_parameter():
    s = ro_stress(300 / E + 0.002, E, 300.0, 25.0, 340.0)
    assert s == pytest.approx(300.0, abs=1e-6)


def test_cross_section_from_the_measured_readings():
    P = {"geometry": "flat", "nominal": {"w": 12.5, "t": 2.1}}
    meas = {"w1": "12.50", "w2": "12.48", "w3": "12.52", "t1": "1.990", "t2": "2.000", "t3": "2.010"}
    assert solver.area(meas, P) == pytest.approx(25.0)
    assert solver.area(meas, P, ("nominal",)) == pytest.approx(26.25)
    rnd_meas = {"d1": "12.40", "d2": "12.42", "d3": "12.44"}
    assert solver.area(rnd_meas, {"geometry": "round"}) == pytest.approx(math.pi * 12.42 ** 2 / 4)


def _export(folder: Path, rel: str, sid: str, pts: list[tuple[float, float]], uts: float, newtons: bool) -> None:
    """One frame export of a pull on a 25 mm2 section and a 50 mm extensometer, removed at 2 % strain: the curve's
    points, then the load rising to the tensile strength without extension readings, then the fracture."""
    rows = [[f"{k * 0.1:.1f}", f"{e * 50:.7f}", s * 25] for k, (e, s) in enumerate(pts)]
    rows += [["99.0", "", uts * 25], ["99.5", "", (uts - 5) * 25], ["99.6", "", 20.0]]
    lines = ["Method,E8M sheet-type 12.5 mm", f"Specimen,{sid}", "Extensometer gauge length (mm),50",
             "Extensometer removed at strain (%),2", "", "Time,Extension,Load,Crosshead",
             f"(s),(mm),({'N' if newtons else 'kN'}),(mm)"]
    lines += [f"{t},{x},{(f if newtons else f / 1000):.6f},0.0" for t, x, f in rows]
    write_text(folder / rel, "\n".join(lines) + "\n")


def _tiny(folder: Path) -> dict:
    """Four pulls on 12.50 x 2.00 mm (nominal 2.10) sections: S1 (frame A, kN) yield 282.029, tensile 300, marks
    50.00 -> 56.00 (12.0 %); S2 (kN) grips slipped, void (yield 272.029, tensile 290); S3 (frame B, N) yield 292.029,
    tensile 310, broken 3 mm outside mark A (no elongation; 8.0 % by its marks); S4 (N, the retest) yield 278.029,
    tensile 298, 55.50 (11.0 %). Valid 3; mean yield 284, mean tensile 302.67 -> 303, mean elongation 11.5, lowest
    yield 278. Current spec: yield 250, tensile 290, elongation 10 with a note of 8 -> conforms; the certificate's
    290 / 300 within 5 % -> confirmed."""
    for sid, s_e, uts, n in (("S1", 280, 300, False), ("S2", 270, 290, False), ("S3", 290, 310, True),
                             ("S4", 276, 298, True)):
        _export(folder, f"raw/{sid}.csv", sid, _curve(s_e, uts), uts, n)
    write_csv(folder / "meas.csv", ["specimen", "w1", "w2", "w3", "t1", "t2", "t3", "L0"],
              [[s, "12.50", "12.50", "12.50", "2.000", "2.000", "2.000", "50.00"] for s in ("S1", "S2", "S3", "S4")])
    write_xlsx(folder / "log.xlsx", [("Log", ["specimen", "fracture_from_mark_A_mm", "Lf_mm", "remarks"], [
        ["S1", 24.0, 56.0, ""], ["S2", "", "", "Grips slipped; test stopped. Retest on S4."],
        ["S3", -3.0, 54.0, "break near the shoulder"], ["S4", 20.5, 55.5, "retest of S2"]])])
    spec = {"name": "MS-9 rev D", "yield_min": 250.0, "uts_min": 290.0, "elong_min": 10.0, "elong_note": 8.0}
    return {"files": {"exports": {s: f"raw/{s}.csv" for s in ("S1", "S2", "S3", "S4")}, "measurements": "meas.csv",
                      "log": "log.xlsx"},
            "geometry": "flat", "nominal": {"w": 12.5, "t": 2.1}, "window": [40.0, 120.0], "spec": spec,
            "old_spec": {"name": "MS-9 rev C", "yield_min": 240.0, "uts_min": 290.0, "elong_min": 10.0,
                         "elong_note": None},
            "mtr": {"yield": 290.0, "uts": 300.0, "band_pct": 5.0}}


def test_the_solver_and_the_recheck_on_four_pulls_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    for f in (solver.analyse(str(tmp_path), P), recheck(tmp_path, P)):
        assert [(s["specimen"], s["yield"], s["uts"], s["elong"]) for s in f["specimens"]] == [
            ("S1", 282.0, 300.0, 12.0), ("S2", 272.0, 290.0, None), ("S3", 292.0, 310.0, None), ("S4", 278.0, 298.0, 11.0)]
        assert all(s["modulus"] == 70.0 for s in f["specimens"])
        assert (f["tested"], f["valid"], f["void_ids"], f["noelong_ids"]) == (4, 3, ["S2"], ["S3"])
        assert (f["mean_yield"], f["mean_uts"], f["mean_elong"], f["low_yield"]) == (284.0, 303.0, 11.5, 278.0)
        assert (f["yield_min"], f["elong_min"], f["decision"], f["premise"]) == (250.0, 8.0, True, True)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert n["units"]["specimens"][2]["uts"] == 310000.0 and math.isnan(n["units"]["specimens"][3]["yield"])
    assert [s["yield"] for s in n["nominal"]["specimens"]] == [269.0, 259.0, 278.0, 265.0]  # x 25 / 26.25
    assert n["window"]["specimens"][0]["modulus"] < 66.0  # the toe fitted
    assert [s["elong"] for s in n["extensometer"]["specimens"]] == [2.0, None, None, 2.0]  # last reading, 2 %
    assert (n["slip"]["valid"], n["slip"]["void_ids"], n["slip"]["mean_yield"]) == (4, [], 281.0)
    assert (n["outside"]["noelong_ids"], n["outside"]["mean_elong"]) == ([], 10.3)  # (12 + 8 + 11) / 3
    assert (n["superseded"]["yield_min"], n["superseded"]["elong_min"]) == (240.0, 10.0)
    assert (n["footnote"]["elong_min"], n["footnote"]["decision"]) == (10.0, True)


def test_an_elongation_under_the_note_fails_the_lot(tmp_path):
    P = _tiny(tmp_path)
    P["spec"] = dict(P["spec"], elong_note=11.2)
    assert solver.analyse(str(tmp_path), P)["decision"] is False  # S4's 11.0 % is under
    assert recheck(tmp_path, P)["decision"] is False


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, yield_delta: float = 0.0, extra: list[str] | None = None,
          keep_void: bool = False, blind: bool = False) -> None:
    """A technician's own report: the results table with its columns in another order, an extra remarks column,
    strengths at one decimal and the status in capitals; the report's facts as bold labels with units."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D, W = P["out_columns"], P["labels"], P["deliverables"], P["status_words"]
    if not blind:
        with (out / D["table"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C["status"], C["specimen"], C["yield"], C["uts"], C["modulus"], C["elong"], C["area"], "remarks"])
            for s in reversed(f["specimens"]):
                status = W["valid"] if keep_void and s["void"] else W[s["status"]]
                w.writerow([status.upper(), s["specimen"], f"{s['yield'] + yield_delta:.1f}", f"{s['uts']:.1f}",
                            f"{s['modulus']:.1f}", "" if s["elong"] is None else f"{s['elong']:.1f}",
                            f"{s['area']:.2f}", "see report"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["tested"], f"{f['tested']} specimens"), (L["valid"], str(f["valid"])),
             (L["void_ids"], ", ".join(f["void_ids"]) or "none"), (L["noelong_ids"], ", ".join(f["noelong_ids"]) or "none"),
             (L["mean_yield"], f"{f['mean_yield'] + yield_delta:.0f} MPa"), (L["mean_uts"], f"{f['mean_uts']:.0f} MPa"),
             (L["mean_elong"], f"{f['mean_elong']:.1f} %"), (L["low_yield"], f"{f['low_yield'] + yield_delta:.0f} MPa"),
             (L["yield_min"], f"{f['yield_min']:g} MPa"), (L["elong_min"], f"{f['elong_min']:g}%"),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    write_memo_lines(out / D["memo"], ["Tensile test report", "", *[f"**{k}:** {v}" for k, v in pairs],
                                       *(extra or []), "", "Results per specimen are in the attached table."])


def test_a_correct_report_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, yield_delta=4.0)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['mean_uts']}:** {f['mean_uts'] + 9:.0f} MPa"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_keeping_the_slipped_test_or_the_outside_break_loses(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "keep", P, f, keep_void=True)
    assert score_output(task, tmp_path / "keep") < 1.0
    for s in ("slip", "outside", "units", "extensometer"):
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0


def test_the_superseded_procedure_and_archived_spec_revision_loses(task, tmp_path):
    f, P = _load(task)
    # LP-TT-07 rev 3 (nominal section, extensometer elongation) and the superseded specification revision
    old = solver.analyse(str(task / "task_folder"), P, ("nominal", "extensometer", "superseded"))
    assert old["yield_min"] < f["yield_min"] and old["mean_yield"] != f["mean_yield"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
