"""Datasheet verification: the statistics and the guard-banded rounding on hand-computed cases, the solver and the
independent recheck on a two-parameter datasheet worked by hand (a site logging in mA, a contact failure, margin
readings beyond the rated range, a stale lot), each shortcut moving the figure it should, and the reward a drawn task
pays for a correct answer written by hand in another layout, a wrong, a hedged and a blind one, and the superseded
procedure and style guide."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import datasheet as solver
from jobenv.synthetic.workflows.datasheet import DATASHEET_VERIFICATION as WF
from jobenv.synthetic.workflows.datasheet import _write_datasheet, recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines


def test_statistics_and_rounding_by_hand():
    # 40, 42, 44 / 42, 44, 46 / 41, 43, 45: mean 43, squares 30, s = sqrt(30 / 8) = 1.93649, 3s = 5.80948
    pts = [(-40, 40.0), (25, 42.0), (85, 44.0), (-40, 42.0), (25, 44.0), (85, 46.0), (-40, 41.0), (25, 43.0),
           (85, 45.0), (125, 60.0)]
    got, raw = solver.spec_statistics(pts, (-40, 85), 1, ["min", "typ", "max"])
    assert raw["max"] == pytest.approx(48.809475, abs=1e-6) and raw["min"] == pytest.approx(37.190525, abs=1e-6)
    assert got == {"min": 37.1, "typ": 43.0, "max": 48.9}  # min down, max up, typ the 25 C median
    near, _ = solver.spec_statistics(pts, (-40, 85), 1, ["min", "max"], outward=False)
    assert near == {"min": 37.2, "max": 48.8}
    assert solver.spec_statistics(pts, (-40, 85), 1, ["typ"], typ_all=True)[0] == {"typ": 43.5}
    assert solver.convert(0.0425, "mA", "µA") == pytest.approx(42.5) and solver.convert(310.0, "nA", "µA") == 0.31
    assert solver.round_spec(0.125, 2, "typ") == 0.13 and solver.round_spec(-0.121, 2, "min") == -0.13


_COLS = {"lot": "lot", "device": "device", "site": "site", "temp": "tj_c", "parameter": "symbol", "value": "value",
         "unit": "unit", "status": "flag"}


def _tiny(folder: Path) -> dict:
    """Rated -40..85 C. IQ (µA, 1 place, typ/max): devices 1 and 3 in µA, device 2 at site 2 in mA; device 1 has a
    contact failure (9.9E+37) before its 25 C retest; 125 C readings 60, 70, 55 are margin data.
    In range: 40 42 44 | 42 44 46 | 41 43 45: mean 43.0, s = 1.93649, max = 48.809 -> 48.9 (up); typ = median(42,
    44, 43) = 43.0. VENH (V, 2 places, min/typ/max): 1.00 .98 .96 | 1.02 1.00 .98 | .98 .96 .94: mean 0.98,
    s = sqrt(0.0048 / 8) = 0.024495, min 0.90652 -> 0.90 (down), max 1.05348 -> 1.06 (up), typ median(.98, 1.00,
    .96) = 0.98. Draft: IQ typ 43.0 (right), IQ max 47.5 (wrong, widened to 48.9), VENH 0.90 / 0.97 / 1.06 (typ
    wrong, 0.98). 5 values, 2 wrong, sign-off needed, two fixes at most holds."""
    iq = {1: (40.0, 42.0, 44.0, 60.0), 2: (42.0, 44.0, 46.0, 70.0), 3: (41.0, 43.0, 45.0, 55.0)}
    en = {1: (1.00, 0.98, 0.96, 0.90), 2: (1.02, 1.00, 0.98, 0.93), 3: (0.98, 0.96, 0.94, 0.88)}
    temps = (-40, 25, 85, 125)
    rows = [["B7", "B001", 1, 25, "IQ", "9.9E+37", "µA", "CONT"]]
    for d in (1, 2, 3):
        for t, v in zip(temps, iq[d]):
            rows.append(["B7", f"B00{d}", 2 if d == 2 else 1, t, "IQ", f"{v / 1000:.4f}" if d == 2 else v,
                         "mA" if d == 2 else "µA", "OK"])
        for t, v in zip(temps, en[d]):
            rows.append(["B7", f"B00{d}", 1, t, "VENH", v, "V", "OK"])
    write_csv(folder / "lot_b.csv", list(_COLS.values()), rows)
    stale = [["A3", f"A00{d}", 1, t, sym, v, u, "OK"] for d, (a, b) in enumerate(
        [((36.0, 38.0, 40.0, 50.0), (0.95, 0.93, 0.91, 0.85)), ((37.0, 39.0, 41.0, 52.0), (0.97, 0.95, 0.93, 0.88))], 1)
        for sym, vals, u in (("IQ", a, "µA"), ("VENH", b, "V")) for t, v in zip(temps, vals)]
    write_csv(folder / "lot_a.csv", list(_COLS.values()), stale)
    _write_datasheet(folder / "draft.docx", "X draft", "TJ = -40 C to +85 C", [
        ["Parameter", "Symbol", "Test conditions", "Min", "Typ", "Max", "Unit"],
        ["Quiescent current", "IQ", "IOUT = 0 mA", "\u2014", "43.0", "47.5", "µA"],
        ["Enable threshold, rising", "VENH", "", "0.90", "0.97", "1.06", "V"]], [])
    return {"files": {"lot_b": "lot_b.csv", "lot_a": "lot_a.csv", "draft": "draft.docx"}, "columns": _COLS,
            "rated": [-40, 85], "premise_max": 2,
            "specs": {"IQ": {"unit": "µA", "decimals": 1, "limits": ["typ", "max"]},
                      "VENH": {"unit": "V", "decimals": 2, "limits": ["min", "typ", "max"]}}}


def _changes(f: dict) -> list[tuple]:
    return [(c["symbol"], c["limit"], c["text"], c["new"]) for c in f["changes"]]


def test_the_solver_and_the_recheck_on_a_datasheet_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert f["values"] == {"IQ": {"typ": 43.0, "max": 48.9}, "VENH": {"min": 0.90, "typ": 0.98, "max": 1.06}}
    assert _changes(f) == [("IQ", "max", "47.5", 48.9), ("VENH", "typ", "0.97", 0.98)]
    assert (f["n_specs"], f["n_wrong"], f["decision"], f["premise"]) == (5, 2, True, True)
    again = recheck(tmp_path, P)
    assert _changes(again) == _changes(f)
    assert (again["n_specs"], again["n_wrong"], again["decision"], again["premise"]) == (5, 2, True, True)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    naive = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    # lot A: IQ typ median(38, 39) = 38.5 and VENH typ median(.93, .95) = 0.94, both now "wrong"
    assert naive["lot_a"]["values"]["IQ"]["typ"] == 38.5 and naive["lot_a"]["values"]["VENH"]["typ"] == 0.94
    # device 2's mA readings taken as µA: the 25 C median is 42.0, not 43.0
    assert naive["units"]["values"]["IQ"]["typ"] == 42.0 and naive["units"]["n_wrong"] == 3
    # typ over every temperature: IQ 44.0 (wrong), VENH 0.97 (now matches the draft's wrong value)
    assert _changes(naive["typ_all_temps"]) == [("IQ", "typ", "43.0", 44.0), ("IQ", "max", "47.5", 48.9)]
    # the 125 C margin readings widen the IQ max well past 48.9
    assert naive["out_of_range"]["values"]["IQ"]["max"] > 60
    # the contact failure's 9.9E+37 swamps the IQ statistics
    assert naive["invalid"]["values"]["IQ"]["max"] > 1e30
    # nearest rounding: IQ max 48.8, VENH min 0.91 and max 1.05 - the two right limits now look wrong
    assert naive["round_limits"]["values"]["VENH"] == {"min": 0.91, "typ": 0.98, "max": 1.05}
    assert naive["round_limits"]["n_wrong"] == 4


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, delta: int = 0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A writer's own answer: the datasheet with its columns reordered and the revision history as a two-column
    table; the change log with columns reordered and a reason column; the note's facts as a Markdown table with bold
    labels."""
    import docx

    out.mkdir(parents=True, exist_ok=True)
    L, D, H = P["labels"], P["deliverables"], P["log_columns"]
    yes = lambda b: "Yes" if b else "No"  # noqa: E731

    def val(c: dict) -> str:
        return f"{c['new'] + delta * 10 ** -c['decimals']:.{c['decimals']}f}"

    if not blind:
        doc = docx.Document()
        doc.add_heading(f"{P['part']} electrical characteristics", level=1)
        t = doc.add_table(rows=1, cols=6)
        for cell, h in zip(t.rows[0].cells, ("Symbol", "Parameter", "Min", "Typ", "Max", "Unit")):
            cell.text = h
        by: dict[str, dict] = {}
        for r in f["table"]:
            by.setdefault(r["symbol"], {"parameter": r["parameter"], "unit": r["unit"]})[r["limit"]] = val(r)
        for sym, r in by.items():
            for cell, v in zip(t.add_row().cells, (sym, r["parameter"], r.get("min", "-"), r.get("typ", "-"),
                                                   r.get("max", "-"), r["unit"])):
                cell.text = v
        doc.add_heading("Revision history", level=2)
        rh = doc.add_table(rows=1, cols=2)
        rh.rows[0].cells[0].text, rh.rows[0].cells[1].text = "Change", "Value"
        for k, v in [(L["wrong"], str(f["n_wrong"] + delta)),
                     *((f"{c['symbol']} {c['limit']}", f"{val(c)} {c['unit']}") for c in f["changes"])]:
            cells = rh.add_row().cells
            cells[0].text, cells[1].text = k, v
        doc.save(str(out / D["datasheet"]))
        with (out / D["log"]).open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow([H["limit"], H["symbol"], H["new"], H["old"], H["unit"], "reason"])
            for c in f["changes"]:
                w.writerow([c["limit"], c["symbol"], val(c), c["text"], c["unit"], "lot B characterisation"])
    pairs = [(L["specs"], f"{f['n_specs']} values"), (L["wrong"], str(f["n_wrong"] + delta)),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = ["# Datasheet verification", "", "| Item | Value |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
             *(extra or []), "", "Lot B was used; readings were converted to the published units."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, delta=3)
    assert score_output(task, tmp_path / "wrong") <= 0.6
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['wrong']} | {f['n_wrong'] + 2} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_an_answer_by_the_superseded_procedure_and_style_guide_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("typ_all_temps", "round_limits"))
    assert old["n_wrong"] != f["n_wrong"] or _changes(old) != _changes(f)
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
