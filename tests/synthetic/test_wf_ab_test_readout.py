"""A/B test readout: the SRM chi-square, the pooled two-proportion z test and the Wald interval on hand-computed
cases, the solver and the independent recheck on a small export worked by hand (ramp-up day, bot, QA session,
customer on a retired network, a return visit after the window), each shortcut moving the figure it should, and the
reward a drawn task pays for a correct answer written by hand in another layout, a wrong, a hedged and a blind one,
and for the superseded first test plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import abtest as solver
from jobenv.synthetic.workflows.abtest import AB_TEST_READOUT as WF
from jobenv.synthetic.workflows.abtest import _write_gz_csv, recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines


def test_srm_chi_square_by_hand():
    # 5,100 vs 4,900 against 50/50: expected 5,000 each, chi2 = 2 x 100^2 / 5,000 = 4.0; p = erfc(sqrt(2)) = 0.0455
    chi2, p = solver.srm_chi_square([5100, 4900], [50, 50])
    assert chi2 == pytest.approx(4.0) and round(p, 4) == 0.0455
    # 6,000 vs 4,000 is exactly a 60/40 plan, and a gross mismatch against 50/50 (chi2 = 400)
    assert solver.srm_chi_square([6000, 4000], [60, 40])[0] == 0.0
    chi2, p = solver.srm_chi_square([6000, 4000], [50, 50])
    assert chi2 == pytest.approx(400.0) and p < 1e-80


def test_two_proportion_z_and_interval_by_hand():
    # 500/10,000 vs 560/10,000: pooled 0.053, se = sqrt(0.053 x 0.947 x 0.0002) = 0.0031683, z = 0.006 / se = 1.894,
    # two-sided p = 0.0583
    z, p = solver.two_proportion_z(500, 10000, 560, 10000)
    assert round(z, 3) == 1.894 and round(p, 4) == 0.0583
    # unpooled: se = sqrt(0.05 x 0.95 / 10,000 + 0.056 x 0.944 / 10,000) = 0.0031677; 0.6 +- 1.96 x 0.31677 points
    lo, hi = solver.diff_interval(500, 10000, 560, 10000)
    assert (round(lo, 3), round(hi, 3)) == (-0.021, 1.221)
    assert solver.is_bot("AhrefsBot/7.0", solver_signatures()) and solver.is_bot("curl/8.4", solver_signatures())
    assert not solver.is_bot("Safari/17.4 (iPhone)", solver_signatures())


def solver_signatures() -> list[str]:
    from jobenv.synthetic.workflows.abtest import BOT_SIGNATURES

    return list(BOT_SIGNATURES)


_COLS = {"session": "session_id", "visitor": "visitor_id", "start": "session_start_utc", "variant": "variant",
         "device": "device", "country": "country", "ip": "ip_address", "agent": "user_agent", "pages": "pageviews",
         "atc": "add_to_cart", "orders": "orders", "revenue": "revenue"}


def _tiny(folder: Path) -> dict:
    """Window 2026-03-05 to 03-07 (revision 2, MDE 10 %); revision 1 read 03-03 to 03-05 with add-to-cart per
    session and MDE 5 %. Control: c1 (two sessions, orders in the second), c2 (add-to-cart only), c3, c4 (on the
    retired network, orders: stays in), c5 (ramp-up day 03-04 only: out), a Googlebot session (out).
    New page: t1 (orders), t2 (orders only on 03-08, after the window: not a converter), t3 (orders), t4, t5 (orders),
    a QA session from the head office network with a test order (out).
    Visitors 4 / 5, converters 2 / 3: 50.00 % vs 60.00 %, lift +20.00 %. SRM: expected 4.5 each, chi2 = 2 x 0.25 /
    4.5 = 0.11, p = erfc(sqrt(0.0556)) = 0.7389. z: pooled 5/9, se = sqrt(5/9 x 4/9 x 0.45) = 1/3, z = 0.30,
    p = 0.7642. Interval: se = sqrt(0.25/4 + 0.24/5) = 0.33242, 10 +- 65.15 -> -55.15, 75.15. Not significant: no
    ship. The quoted +20.0 % stands."""
    s = [("s1", "c1", "2026-03-05 10:00:00", "control", "24.1.1.1", "Chrome/126.0 (Windows)", 0, 0),
         ("s2", "c1", "2026-03-06 11:00:00", "control", "24.1.1.1", "Chrome/126.0 (Windows)", 1, 1),
         ("s3", "c2", "2026-03-05 12:00:00", "control", "24.1.1.2", "Safari/17.4 (iPhone)", 1, 0),
         ("s4", "c3", "2026-03-06 13:00:00", "control", "24.1.1.3", "Safari/17.4 (iPhone)", 0, 0),
         ("s5", "c4", "2026-03-07 14:00:00", "control", "198.51.100.200", "Chrome/126.0 (Android)", 1, 1),
         ("s6", "c5", "2026-03-04 15:00:00", "control", "24.1.1.5", "Chrome/126.0 (Android)", 1, 1),
         ("s7", "bot1", "2026-03-05 03:00:00", "control", "66.249.1.1", "Googlebot/2.1", 0, 0),
         ("s8", "t1", "2026-03-05 09:00:00", "new_pdp", "24.2.2.1", "Chrome/126.0 (Windows)", 1, 1),
         ("s9", "t2", "2026-03-06 09:30:00", "new_pdp", "24.2.2.2", "Safari/17.4 (iPhone)", 0, 0),
         ("s10", "t2", "2026-03-08 09:30:00", "new_pdp", "24.2.2.2", "Safari/17.4 (iPhone)", 1, 1),
         ("s11", "t3", "2026-03-07 20:00:00", "new_pdp", "24.2.2.3", "Edge/126.0 (Windows)", 1, 1),
         ("s12", "qa1", "2026-03-06 16:00:00", "new_pdp", "203.0.113.5", "Chrome/126.0 (Windows)", 1, 1),
         ("s13", "t4", "2026-03-05 22:00:00", "new_pdp", "24.2.2.4", "Chrome/126.0 (Android)", 0, 0),
         ("s14", "t5", "2026-03-07 23:59:59", "new_pdp", "24.2.2.5", "Safari/17.4 (iPad)", 1, 1)]
    _write_gz_csv(folder / "sessions.csv.gz", list(_COLS.values()),
                  [[sid, v, ts, arm, "mobile", "US", ip, ua, 3, atc, o, "50.00" if o else "0.00"]
                   for sid, v, ts, arm, ip, ua, atc, o in s])
    write_csv(folder / "nets.csv", ["cidr", "site", "status", "added_on", "retired_on"],
              [["203.0.113.0/27", "Head office", "active", "2021-03-01", ""],
               ["198.51.100.192/28", "Old studio", "retired", "2019-05-02", "2025-06-30"]])
    return {"files": {"sessions": "sessions.csv.gz", "networks": "nets.csv"}, "columns": _COLS,
            "arms": {"control": "control", "treatment": "new_pdp"}, "split": {"control": 50, "treatment": 50},
            "plan": {"start": "2026-03-05", "end": "2026-03-07", "mde": 10.0},
            "old_plan": {"start": "2026-03-03", "end": "2026-03-05", "mde": 5.0},
            "bot_signatures": solver_signatures(), "srm_alpha": 0.001, "alpha": 0.05, "claim": 20.0}


def test_the_solver_and_the_recheck_on_an_export_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert (f["n_a"], f["n_b"], f["x_a"], f["x_b"], f["cr_a"], f["cr_b"], f["lift"]) == (4, 5, 2, 3, 50.0, 60.0, 20.0)
    assert (f["chi2"], f["srm_p"], f["srm"]) == (0.11, 0.7389, False)
    assert (f["z"], f["p"], f["ci_low"], f["ci_high"]) == (0.3, 0.7642, -55.15, 75.15)
    assert (f["decision"], f["premise"]) == (False, True)
    g = recheck(tmp_path, P)
    for k in ("n_a", "n_b", "x_a", "x_b", "chi2", "srm_p", "srm", "cr_a", "cr_b", "lift", "z", "p", "ci_low",
              "ci_high", "decision", "premise"):
        assert g[k] == f[k], k
    P["claim"] = 20.1  # a quote above the recomputed lift does not stand
    assert not solver.analyse(str(tmp_path), P)["premise"] and not recheck(tmp_path, P)["premise"]


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert (n["bots"]["n_a"], n["bots"]["x_a"]) == (5, 2)  # the Googlebot session counted as a control visitor
    assert (n["internal"]["n_b"], n["internal"]["x_b"]) == (6, 4)  # the QA test order counted
    assert (n["retired"]["n_a"], n["retired"]["x_a"]) == (3, 1)  # the customer on the retired network dropped
    assert (n["sessions"]["n_a"], n["sessions"]["x_a"], n["sessions"]["n_b"]) == (5, 2, 5)  # c1's two sessions
    o = n["old_plan"]  # 03-03 to 03-05, add-to-cart per session: control s1, s3, s6 (2 with add-to-cart); s8, s13
    assert (o["n_a"], o["x_a"], o["n_b"], o["x_b"], o["mde"]) == (3, 2, 2, 1, 5.0)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, delta: int = 0, extra: list[str] | None = None, blind: bool = False) -> None:
    """A merchant's own readout: the facts as a Markdown table with bold labels, units and words after the numbers,
    the p-values as '< 0.0001' where that small, Yes/No; the slides as one text box each with '=' lines in another
    order."""
    from pptx import Presentation
    from pptx.util import Inches

    out.mkdir(parents=True, exist_ok=True)
    L, D = P["labels"], P["deliverables"]
    yes = lambda b: "Yes" if b else "No"  # noqa: E731

    def pv(x: float) -> str:
        return "< 0.0001" if x < 0.0001 else f"{x:.4f}"

    vals = {"n_a": f"{f['n_a'] + delta:,} visitors", "n_b": f"{f['n_b']:,}", "chi2": f"{f['chi2']:.2f}",
            "srm_p": pv(f["srm_p"]), "srm": yes(f["srm"]), "x_a": f"{f['x_a'] + delta} converters",
            "x_b": str(f["x_b"]), "cr_a": f"{f['cr_a']:.2f}%", "cr_b": f"{f['cr_b']:.2f} %",
            "lift": f"{f['lift']:+.2f}%", "z": f"{f['z']:.2f}", "p": pv(f["p"]), "ci_low": f"{f['ci_low']:+.2f} pp",
            "ci_high": f"{f['ci_high']:+.2f} pp", "decision": yes(f["decision"]), "premise": yes(f["premise"])}
    if blind:
        vals = {k: "No" if k in ("srm", "decision", "premise") else "0" for k in vals}
    rows = [f"| **{L[k]}** | {v} |" for k, v in vals.items()]
    write_memo_lines(out / D["memo"], ["# Readout", "", "| Item | Value |", "|---|---|", *rows, *(extra or []), "",
                                       "Bots and the QA networks were left out; revision 2 of the plan governs."])
    if blind:
        return
    prs = Presentation()
    for keys in (("srm", "n_b", "n_a"), ("decision", "p", "lift", "cr_b")):
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        box = slide.shapes.add_textbox(Inches(0.5), Inches(0.5), Inches(9), Inches(6)).text_frame
        box.text = "\n".join(f"{L[k]} = {vals[k]}" for k in keys)
    prs.save(str(out / D["slides"]))


def test_a_correct_readout_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, delta=3)
    assert score_output(task, tmp_path / "wrong") <= 0.8
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['z']} | {f['z'] + 0.4:.2f} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_the_dashboard_view_with_bots_and_qa_orders_loses(task, tmp_path):
    f, P = _load(task)
    tool = solver.analyse(str(task / "task_folder"), P, ("bots", "internal"))
    assert tool["lift"] > f["lift"] and tool["n_a"] > f["n_a"]
    solver.write_outputs(str(tmp_path / "tool"), P, tool)
    assert score_output(task, tmp_path / "tool") <= 0.3


def test_the_superseded_rev1_plan_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("old_plan",))
    assert old["n_a"] > f["n_a"] and old["mde"] < f["mde"]  # sessions from launch day, the smaller effect
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.3
