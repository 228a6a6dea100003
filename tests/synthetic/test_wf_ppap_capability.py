"""The PPAP capability workflow: the X-bar/R and Cpk arithmetic on hand-computed subgroups, the procedure's
exclusions on a tiny export, and the reward on one drawn task (a correct answer written by hand with its own
formulas earns 1.0; one fact off, a hedge or a blind answer do not)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import capability as solver
from jobenv.synthetic.workflows.capability import PPAP_CAPABILITY, recheck

from .conftest import score_output

K5 = {"A2": 0.577, "D3": 0.0, "D4": 2.114, "d2": 2.326}
A = [10.00, 10.02, 10.01, 9.99, 10.03]  # mean 10.01, range 0.04
B = [10.01, 10.00, 10.02, 10.03, 10.04]  # mean 10.02, range 0.04


def test_xbar_r_limits_by_hand():
    ch = solver.xbar_r([("A", "", A), ("B", "", B)], K5)
    assert ch["xbb"] == pytest.approx(10.015)
    assert ch["rbar"] == pytest.approx(0.04)
    assert ch["ucl_x"] == pytest.approx(10.015 + 0.577 * 0.04)  # 10.03808
    assert ch["lcl_x"] == pytest.approx(9.99192)
    assert ch["ucl_r"] == pytest.approx(0.08456) and ch["lcl_r"] == 0.0


def test_cpk_uses_the_nearer_limit():
    sigma = 0.04 / 2.326  # 0.0171969
    # USL - mean = 0.055 is nearer than mean - LSL = 0.065: 0.055 / 0.0515907 = 1.0661
    assert solver.capability(10.015, sigma, 9.95, 10.07) == pytest.approx(1.06608, abs=1e-5)
    assert solver.capability(10.015, 0.01, 9.985, 10.045) == pytest.approx(1.0)  # centred: 0.03 / 0.03


def _tiny(folder: Path, P: dict) -> None:
    """Two worn-insert subgroups, the insert change, three study subgroups and one with a reading missing."""
    rows = [("SG001", "2024-03-04 07:00", [10.05] * 4 + [10.07]), ("SG002", "2024-03-04 07:20", [10.06] * 5),
            ("SG003", "2024-03-04 07:40", A), ("SG004", "2024-03-04 08:00", B),
            ("SG005", "2024-03-04 08:20", [10.01, 10.02, 10.00, 10.02, 10.00]),
            ("SG006", "2024-03-04 08:40", [10.04, 10.05, 10.03, 10.04, None])]
    lines = ["subgroup,timestamp,machine,x1,x2,x3,x4,x5,note"]
    lines += [f"{s},{t},CNC-01," + ",".join("" if v is None else f"{v:.2f}" for v in x) + "," for s, t, x in rows]
    (folder / "sg.csv").write_text("\n".join(lines) + "\n")
    (folder / "log.csv").write_text("timestamp,machine,event,insert,comment\n"
                                    "2024-03-01 06:00,CNC-01,INSERT_CHANGE,,scheduled\n"
                                    "2024-03-04 07:35,CNC-01,INSERT_CHANGE,,worn\n"
                                    "2024-03-04 08:10,CNC-02,INSERT_CHANGE,,other machine\n")


def test_the_procedure_drops_worn_insert_and_short_subgroups(tmp_path):
    P = {"files": {"subgroups": "sg.csv", "tool_log": "log.csv"}, "machine": "CNC-01",
         "tool_change_event": "INSERT_CHANGE", "n": 5, "constants": K5, "spec": {"lsl": 9.95, "usl": 10.07},
         "superseded_spec": {"lsl": 9.9, "usl": 10.1}, "cpk_min": 1.33}
    _tiny(tmp_path, P)
    facts = solver.analyse(str(tmp_path), P)
    assert [g["subgroup"] for g in facts["subgroups"]] == ["SG003", "SG004", "SG005"]
    # means 10.01, 10.02, 10.01; ranges 0.04, 0.04, 0.02
    assert facts["grand_mean"] == pytest.approx(10.0133, abs=1e-9)
    assert facts["rbar"] == pytest.approx(0.0333, abs=1e-9)
    assert facts["ucl_x"] == pytest.approx(10.0326, abs=1e-9)  # 10.013333 + 0.577 * 0.033333
    assert facts["ooc"] == [] and facts["premise"] is True
    # sigma within 0.033333 / 2.326 = 0.014331; Cpk = (10.07 - 10.013333) / 0.042993 = 1.318 -> 1.32, short of 1.33
    assert facts["cpk"] == 1.32 and facts["decision"] is False
    assert solver.analyse(str(tmp_path), P, ("superseded_rev",))["cpk"] > 1.33
    assert solver.analyse(str(tmp_path), P, ("tool_change",))["n_subgroups"] == 5
    assert solver.analyse(str(tmp_path), P, ("short_subgroup",))["n_subgroups"] == 4
    again = recheck(tmp_path, P)
    assert {k: again[k] for k in ("n_subgroups", "grand_mean", "ucl_x", "cpk", "ppk", "ooc")} == \
        {k: facts[k] for k in ("n_subgroups", "grand_mean", "ucl_x", "cpk", "ppk", "ooc")}


@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(PPAP_CAPABILITY, True, False)


def _by_hand(out: Path, P: dict, f: dict, *, cpk_shift: float = 0.0, extra: list[str] | None = None) -> None:
    """The study written without the solver: the workbook's own formulas on a transposed layout (readings in
    columns B-F of a sheet whose first column is the timestamp), the slide's lines in a table, the memo in prose
    lines with 'is'."""
    from openpyxl import Workbook
    from pptx import Presentation
    from pptx.util import Inches

    out.mkdir(parents=True)
    D, L, W = P["deliverables"], P["labels"], P["sheet_labels"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Subgroups"
    ws.append(["timestamp", "x1", "x2", "x3", "x4", "x5", "subgroup", "range", "mean"])
    n = len(f["subgroups"])
    for i, g in enumerate(f["subgroups"], 2):
        ws.append([g["timestamp"], *g["readings"], g["subgroup"], f"=MAX(B{i}:F{i})-MIN(B{i}:F{i})",
                   f"=SUM(B{i}:F{i})/5"])
    lim = wb.create_sheet("Limits")
    lim.append(["Value", "Item"])
    for v, k in [(f"=AVERAGE(Subgroups!I2:I{n + 1})", W["grand_mean"]), (f"=AVERAGE(Subgroups!H2:H{n + 1})", W["rbar"]),
                 ("=A2+0.577*A3", W["ucl_x"]), ("=A2-0.577*A3", W["lcl_x"]), ("=2.114*A3", W["ucl_r"])]:
        lim.append([v, k])
    cap = wb.create_sheet("Capability")
    cap.append(["Item", "Value", "Unit"])
    cap.append([W["sigma_within"], "=Limits!A3/2.326", "mm"])
    cap.append([W["cpk"], f"=MIN({f['usl']}-Limits!A2,Limits!A2-{f['lsl']})/(3*B2)+{cpk_shift}", ""])
    cap.append([W["ppk"], f"=MIN({f['usl']}-Limits!A2,Limits!A2-{f['lsl']})/(3*STDEV(Subgroups!B2:F{n + 1}))", ""])
    wb.save(out / D["workbook"])
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    rows = [(L["cpk"], f"{f['cpk'] + cpk_shift:.2f}"), (L["ppk"], f"{f['ppk']:.2f}"), (L["ooc_count"], str(f["ooc_count"]))]
    table = slide.shapes.add_table(len(rows), 2, Inches(1), Inches(1), Inches(6), Inches(2)).table
    for r, (k, v) in enumerate(rows):
        table.cell(r, 0).text, table.cell(r, 1).text = k, v
    prs.save(str(out / D["slide"]))
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    lines = [f"{L['n_subgroups']}: {f['n_subgroups']}", f"{L['grand_mean']}: {f['grand_mean']:.4f}",
             f"{L['rbar']}: {f['rbar']:.4f}", f"{L['ucl_x']}: {f['ucl_x']:.4f}", f"{L['lcl_x']}: {f['lcl_x']:.4f}",
             f"{L['ucl_r']}: {f['ucl_r']:.4f}", f"{L['ooc']}: " + (" and ".join(f["ooc"]) or "None"),
             f"{L['ooc_count']}: {f['ooc_count']}", f"{L['cpk']}: {f['cpk'] + cpk_shift:.2f}",
             f"{L['ppk']}: {f['ppk']:.2f}", f"{L['decision']}: {yes(f['decision'])}",
             f"{L['premise']}: {yes(f['premise'])}", *(extra or []),
             "", "Worn-insert subgroups before the logged insert change and the gauge-fault subgroup are excluded."]
    from jobenv.synthetic.solvers._deliver import write_memo

    write_memo(str(out / D["memo"]), lines)


def _facts(task: Path) -> tuple[dict, dict]:
    P = json.loads((task / "ground_truth" / "params.json").read_text())
    return P, solver.analyse(str(task / "task_folder"), P)


def test_a_correct_study_with_its_own_formulas_earns_full_credit(task, tmp_path):
    P, f = _facts(task)
    _by_hand(tmp_path / "ok", P, f)
    assert score_output(task, tmp_path / "ok") == 1.0


def test_wrong_hedged_and_blind_studies_lose(task, tmp_path):
    P, f = _facts(task)
    _by_hand(tmp_path / "wrong", P, f, cpk_shift=0.05)
    assert score_output(task, tmp_path / "wrong") < 1.0
    _by_hand(tmp_path / "hedged", P, f, extra=[f"{P['labels']['cpk']}: {f['cpk'] + 0.2:.2f}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    blind = tmp_path / "blind"
    L = P["labels"]
    from jobenv.synthetic.solvers._deliver import write_memo

    write_memo(str(blind / P["deliverables"]["memo"]), [
        f"{L['n_subgroups']}: 25", f"{L['grand_mean']}: 12.7000", f"{L['rbar']}: 0.0050", f"{L['ucl_x']}: 12.7030",
        f"{L['lcl_x']}: 12.6970", f"{L['ucl_r']}: 0.0106", f"{L['ooc']}: none", f"{L['ooc_count']}: 0",
        f"{L['cpk']}: 1.45", f"{L['ppk']}: 1.38", f"{L['decision']}: yes", f"{L['premise']}: yes"])
    assert score_output(task, blind) <= 0.1
