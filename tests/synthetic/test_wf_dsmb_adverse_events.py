"""DSMB adverse-event tables: the SAP's partial-date imputation, Wilson and Newcombe intervals and Fisher's exact test
on published and hand-computed cases, the solver and the independent recheck on a tiny ADSL/ADAE pair worked by hand,
each shortcut moving the figure it should, and the reward a drawn task pays for a correct answer written by hand in
another layout, a wrong, a hedged and a blind one, the superseded SAP v1.0 and the old data cut's SAE listing."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import aetables as solver
from jobenv.synthetic.workflows.aetables import DSMB_ADVERSE_EVENTS as WF
from jobenv.synthetic.workflows.aetables import _fisher, _wilson, recheck
from jobenv.synthetic.workflows.aetables_docs import ADAE, ADSL, LISTING
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines


def test_partial_onset_dates_follow_the_sap_imputation_rule():
    first = dt.date(2026, 3, 14)
    assert solver.impute_onset("2026-03", first) == first  # the first-dose month: the first dose date
    assert solver.impute_onset("2026-04", first) == dt.date(2026, 4, 1)
    assert solver.impute_onset("2026-02", first) == dt.date(2026, 2, 1)  # before the dose: stays pre-treatment
    assert solver.impute_onset("2026", first) == first and solver.impute_onset("2025", first) == dt.date(2025, 1, 1)
    assert solver.impute_onset("2026-03-02", first) == dt.date(2026, 3, 2) and solver.impute_onset(" ", first) is None
    assert solver.impute_onset("2026-03", first, ("partial",)) == dt.date(2026, 3, 1)  # SAP v1.0: before the dose


def test_wilson_and_newcombe_reproduce_the_published_examples():
    lo, hi = solver.wilson(10, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.0552, 0.1744)
    assert all(abs(a - b) < 1e-12 for a, b in zip(_wilson(10, 100, solver.Z95), (lo, hi), strict=True))
    d, lo, hi = solver.newcombe(56, 70, 48, 80)  # Newcombe (1998) table II, method 10: 0.0524 to 0.3339
    assert (round(d, 4), round(lo, 4), round(hi, 4)) == (0.2, 0.0524, 0.3339)
    # 5/56 vs 0/29 (Newcombe 1998): Wilson 0/29 is 0 to z^2 / (29 + z^2) = 0.1170, Wilson 5/56 0.0387 to 0.1926, so
    # lower = 0.0893 - sqrt(0.0506^2 + 0.1170^2) = -0.0381 and upper = 0.0893 + (0.1926 - 0.0893) = 0.1926
    d, lo, hi = solver.newcombe(5, 56, 0, 29)
    assert (round(lo, 4), round(hi, 4)) == (-0.0381, 0.1926)


def test_fisher_exact_by_hand():
    assert round(solver.fisher_two_sided(3, 1, 1, 3), 4) == 0.4857  # the tea-tasting table: 34/70
    # [[2, 0], [1, 2]]: tables x = 0, 1, 2 weigh 1, 6, 3 of 10; those no likelier than x = 2 give 4/10
    assert solver.fisher_two_sided(2, 0, 1, 2) == pytest.approx(0.4)
    for x1, n1, x2, n2 in ((2, 2, 1, 3), (29, 129, 8, 128), (7, 150, 9, 148)):
        assert _fisher(x1, n1, x2, n2) == pytest.approx(solver.fisher_two_sided(x1, n1 - x1, x2, n2 - x2), rel=1e-9)


def _tiny(folder: Path) -> dict:
    """Drug 10 mg vs Placebo, data cut 2026-06-30. Safety set: S1, S2 on drug (S3 randomised, never dosed), S4, S5,
    S6 on placebo. TEAEs: S1 Nausea and Vomiting (GI, counted once), Pneumonia 20 days after the last dose (SAE, in the
    30-day window, not in 14); S2 Headache with onset 2026-02 in its first-dose month (a TEAE by imputation), Nausea
    (SAE); S4 Nausea; S5 Headache and Syncope (SAE). Not TEAEs: S1's Headache and S4's Fall (SAE) before the first
    dose, S5's Back pain 40 days after the last dose, S3's Rash (never dosed), and S2's Atrial fibrillation (SAE)
    after the cut, listed. The old listing (cut 2026-03-31) knew only S5's SAE."""
    subj = [("S1", "Drug 10 mg", "2026-01-10", "2026-03-10", "Y"), ("S2", "Drug 10 mg", "2026-02-15", "", "Y"),
            ("S3", "Drug 10 mg", "", "", "N"), ("S4", "Placebo", "2026-01-20", "", "Y"),
            ("S5", "Placebo", "2026-02-05", "2026-05-01", "Y"), ("S6", "Placebo", "2026-03-01", "", "Y")]
    write_csv(folder / "adsl.csv", ADSL, [["T", u, "101", 50, "F", "WHITE", arm, arm if y == "Y" else "", "2026-01-01",
                                           a, b, y, "Y", ""] for u, arm, a, b, y in subj])
    gi, ns = "Gastrointestinal disorders", "Nervous system disorders"
    ae = [("S1", "Nausea", gi, "2026-01-15", "N"), ("S1", "Vomiting", gi, "2026-02-01", "N"),
          ("S1", "Pneumonia", "Infections and infestations", "2026-03-30", "Y"), ("S1", "Headache", ns, "2026-01-05", "N"),
          ("S2", "Headache", ns, "2026-02", "N"), ("S2", "Nausea", gi, "2026-04-02", "Y"),
          ("S2", "Atrial fibrillation", "Cardiac disorders", "2026-07-05", "Y"),
          ("S3", "Rash", "Skin and subcutaneous tissue disorders", "2026-01-08", "N"), ("S4", "Nausea", gi, "2026-02-10", "N"),
          ("S4", "Fall", "Injury, poisoning and procedural complications", "2026-01-10", "Y"),
          ("S5", "Headache", ns, "2026-04-20", "N"), ("S5", "Back pain", "Musculoskeletal and connective tissue disorders",
                                                       "2026-06-10", "N"), ("S5", "Syncope", ns, "2026-03-15", "Y")]
    write_csv(folder / "adae.csv", ADAE, [["T", u, k, pt.lower(), pt, soc, start, "", ser, "MILD", "RELATED", ""]
                                          for k, (u, pt, soc, start, ser) in enumerate(ae, 1)])
    write_xlsx(folder / "listing.xlsx", [("SAE listing", LISTING, [["S5", "Placebo", "Syncope", ns, "2026-03-15", "x"]])])
    return {"files": {"adsl": "adsl.csv", "adae": "adae.csv", "old_listing": "listing.xlsx"}, "arms": ["Drug 10 mg", "Placebo"],
            "cut": "2026-06-30", "window_days": 30, "claimed_pt": "Headache",
            "adsl_columns": {"usubjid": "USUBJID", "saffl": "SAFFL", "actual": "TRT01A", "planned": "ARM",
                             "first": "TRTSDT", "last": "TRTEDT"},
            "adae_columns": {"usubjid": "USUBJID", "soc": "AEBODSYS", "pt": "AEDECOD", "start": "AESTDTC", "ser": "AESER"},
            "listing_columns": {"usubjid": "Subject", "arm": "Treatment"}}


def test_the_solver_and_the_recheck_on_a_tiny_extract_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert (f["n"], f["any"], f["sae"], f["post_cut"]) == ([2, 3], [2, 2], [2, 1], ["S2"])
    assert [(t["soc"], t["n0"], t["n1"], t["pct0"], t["pct1"]) for t in f["table"]] == [
        ("Gastrointestinal disorders", 2, 1, 100.0, 33.3), ("Nervous system disorders", 1, 1, 50.0, 33.3),
        ("Infections and infestations", 1, 0, 50.0, 0.0)]
    assert (f["rd"], f["fisher_p"], f["top_pt"], f["top_n"], f["premise"]) == (66.7, 0.4, "Nausea", 2, False)
    d, lo, hi = solver.newcombe(2, 2, 1, 3)
    assert (f["lower"], f["upper"]) == (round(100 * lo, 1), round(100 * hi, 1)) and f["decision"] is (lo > 0)
    g = recheck(tmp_path, P)
    for k in ("n", "any", "sae", "table", "rd", "lower", "upper", "fisher_p", "top_pt", "top_n", "post_cut", "decision",
              "premise"):
        assert g[k] == f[k], k


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    pre = n["predose"]  # S1's Headache and S4's Fall: Nervous 2 on drug, an Injury row, S4 an SAE subject
    assert (pre["sae"], len(pre["table"]), pre["table"][1]["n0"]) == ([2, 2], 4, 2)
    assert [t["n0"] for t in n["partial"]["table"] if t["soc"] == "Nervous system disorders"] == [0]
    w = n["window14"]  # S1's Pneumonia 20 days after the last dose drops
    assert (w["sae"], [t["soc"] for t in w["table"]]) == ([1, 1], ["Gastrointestinal disorders", "Nervous system disorders"])
    c = n["post_cut"]  # the Atrial fibrillation is tabulated and not listed
    assert (c["post_cut"], "Cardiac disorders" in [t["soc"] for t in c["table"]]) == ([], True)
    assert (n["all_randomised"]["n"], n["all_randomised"]["table"][0]["pct0"]) == ([3, 3], 66.7)
    assert (n["events"]["table"][0]["n0"], n["events"]["any"]) == (3, [5, 3])
    assert (n["old_listing"]["sae"], n["old_listing"]["rd"]) == ([0, 1], -33.3)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, sae_delta: int = 0, extra: list[str] | None = None, blind: bool = False,
          table: list[dict] | None = None) -> None:
    """A statistician's own answer: the SOC table alphabetical with the placebo columns first, an extra total column
    and percentages at two decimals; the memo's facts as bold labels with words after the numbers, the post-cut
    subjects comma-separated in reverse order."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D, arms = P["out_columns"], P["labels"], P["deliverables"], P["arms"]
    if not blind:
        with (out / D["table"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([f"{arms[1]}{C['n']}", f"{arms[1]}{C['pct']}", C["soc"], f"{arms[0]}{C['n']}",
                        f"{arms[0]}{C['pct']}", "both arms"])
            for t in sorted(table if table is not None else f["table"], key=lambda t: t["soc"]):
                w.writerow([t["n1"], f"{t['pct1']:.2f}", t["soc"], t["n0"], f"{t['pct0']:.2f}", t["n0"] + t["n1"]])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["n0"], f"{f['n'][0]} subjects"), (L["n1"], f"{f['n'][1]} subjects"), (L["any0"], str(f["any"][0])),
             (L["any1"], str(f["any"][1])), (L["sae0"], f"{f['sae'][0] + sae_delta} subjects"),
             (L["sae1"], str(f["sae"][1])), (L["rd"], f"{f['rd']:.1f} points"), (L["lower"], f"{f['lower']:.1f}"),
             (L["upper"], f"{f['upper']:.1f}"), (L["fisher_p"], f"{f['fisher_p']:.4f}"), (L["top_pt"], f["top_pt"]),
             (L["top_n"], f"{f['top_n']} subjects"), (L["post_cut"], ", ".join(reversed(f["post_cut"]))),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "none") if k == L["post_cut"] else (k, "0")
                 for k, _ in pairs]
    lines = [f"Closed report to the DSMB, {P['study']}", "", *[f"**{k}:** {v}" for k, v in pairs], *(extra or []), "",
             "TEAEs from first dose to last dose + 30 days, partial dates imputed per SAP v2.0, events after the cut "
             "listed only, safety-set denominators."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, sae_delta=2)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['rd']}:** {f['rd'] + 3:.1f}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_a_table_counting_events_instead_of_subjects_loses(task, tmp_path):
    f, P = _load(task)
    events = solver.analyse(str(task / "task_folder"), P, ("events",))
    assert any(t["n0"] > u["n0"] for t, u in zip(sorted(events["table"], key=lambda t: t["soc"]),
                                                 sorted(f["table"], key=lambda t: t["soc"]), strict=False))
    _hand(tmp_path / "events", P, f, table=events["table"])
    assert score_output(task, tmp_path / "events") < 1.0


def test_the_old_cut_listing_and_the_predose_events_lose(task, tmp_path):
    f, P = _load(task)
    for s in ("old_listing", "predose", "post_cut"):
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert g["sae"] != f["sae"]
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0


def test_the_superseded_sap_v1_procedure_loses(task, tmp_path):
    f, P = _load(task)
    # SAP v1.0: last dose + 14 days, partial dates to the 1st of the month, the randomised set as denominators
    old = solver.analyse(str(task / "task_folder"), P, ("window14", "partial", "all_randomised"))
    assert old["sae"][0] < f["sae"][0] and old["n"] != f["n"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
