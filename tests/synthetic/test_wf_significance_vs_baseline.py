"""Significance vs baseline: McNemar's exact test and the paired interval on hand-computed cases, the solver and the
independent recheck on a three-seed case worked by hand (a leaky run, a swapped export, re-sent rows), each shortcut
moving the figure it should, and the reward a drawn task pays for a correct answer written by hand in another
layout, a wrong, a hedged and a blind one, and for the superseded protocol's chi-square on every run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import significance as solver
from jobenv.synthetic.workflows.significance import SIGNIFICANCE_BASELINE as WF
from jobenv.synthetic.workflows.significance import recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines


def test_the_paired_statistics_by_hand():
    # b = 1, c = 5: P(X <= 1) for Binomial(6, 1/2) = 7/64, two-sided 14/64
    assert solver.mcnemar_exact(1, 5) == pytest.approx(14 / 64)
    assert solver.mcnemar_exact(3, 3) == 1.0 and solver.mcnemar_exact(0, 0) == 1.0
    # chi-square (5 - 1)^2 / 6 = 8/3 on 1 df: p = erfc(sqrt(4/3))
    assert solver.mcnemar_chisq(1, 5) == pytest.approx(0.1024704, abs=1e-6)
    # n = 100, b = 10, c = 20: d = 0.1, se = sqrt(30 - 1) / 100; 10 +- 1.96 x sqrt(29)
    lo, hi = solver.paired_ci(10, 20, 100)
    assert (lo, hi) == pytest.approx((10 - 1.96 * 29**0.5, 10 + 1.96 * 29**0.5))


_HEAD = ["id", "seed", "y_true", "pred_base", "pred_ours"]


def _tiny(folder: Path) -> dict:
    """Test ids t1-t4, train id x9. Seed 1 (primary): base right on t1 t2 t3, ours right on t2 t3 t4, but t4's row
    was re-sent. Seed 2 exported swapped: as written base right on t1-t4, ours on t1; read right: base 1/4, ours 4/4.
    Seed 3 is leaky (scores x9)."""
    write_csv(folder / "manifest.csv", ["id", "split"], [["t1", "test"], ["t2", "test"], ["t3", "test"],
                                                          ["t4", "test"], ["x9", "train"]])
    write_csv(folder / "s1.csv", _HEAD, [["t1", 1, "a", "a", "b"], ["t2", 1, "a", "a", "a"], ["t3", 1, "b", "b", "b"]])
    write_csv(folder / "s1_resent.csv", _HEAD, [["t4", 1, "b", "a", "b"]])
    write_csv(folder / "s2.csv", _HEAD, [["t1", 2, "a", "a", "a"], ["t2", 2, "a", "a", "b"], ["t3", 2, "b", "b", "a"],
                                         ["t4", 2, "b", "b", "a"]])
    write_csv(folder / "s3.csv", _HEAD, [["t1", 3, "a", "a", "a"], ["t2", 3, "a", "b", "a"], ["t3", 3, "b", "b", "b"],
                                         ["x9", 3, "a", "a", "a"]])
    return {"files": {"manifest": "manifest.csv"}, "primary_seed": 1, "alpha": 0.05, "claim": 50.0,
            "swapped": "s2.csv", "runs": [{"seed": 1, "run_id": "r1", "file": "s1.csv", "resent": "s1_resent.csv"},
                                          {"seed": 2, "run_id": "r2", "file": "s2.csv", "resent": ""},
                                          {"seed": 3, "run_id": "r3", "file": "s3.csv", "resent": ""}]}


def test_the_solver_and_the_recheck_on_a_case_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    # kept seeds 1 and 2: base 75 and 25 (mean 50, sd 35.36), ours 75 and 100 (mean 87.5, sd 17.68): gain 37.5
    assert (f["n_seeds"], f["leaky"], f["mean_base"], f["sd_base"], f["mean_ours"], f["sd_ours"], f["gain"]) == (
        2, "r3", 50.0, 35.36, 87.5, 17.68, 37.5)
    # primary seed 1 on 4 items: b = 1 (t1), c = 1 (t4); p = 1; d = 0, se = sqrt(2) / 4: +- 1.96 x 35.36 points
    assert (f["n_primary"], f["b"], f["c"], f["p"], f["ci_low"], f["ci_high"]) == (4, 1, 1, 1.0, -69.3, 69.3)
    assert (f["decision"], f["premise"]) == (False, False)
    again = recheck(tmp_path, P)
    for k in ("n_seeds", "leaky", "mean_base", "sd_base", "mean_ours", "sd_ours", "gain", "n_primary", "b", "c", "p",
              "ci_low", "ci_high", "decision", "premise"):
        assert again[k] == f[k], k
    P["claim"] = 37.5
    assert solver.analyse(str(tmp_path), P)["premise"] and recheck(tmp_path, P)["premise"]


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    naive = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert naive["leaky"]["n_seeds"] == 3 and naive["leaky"]["mean_base"] != f["mean_base"]
    assert naive["swapped"]["mean_base"] == 87.5 and naive["swapped"]["mean_ours"] == 50.0
    assert (naive["missing"]["n_primary"], naive["missing"]["c"]) == (3, 0)
    P["primary_seed"] = 2  # b = 0, c = 3: exact p 0.25, chi-square erfc(sqrt(1.5))
    assert solver.analyse(str(tmp_path), P)["p"] == 0.25
    assert solver.analyse(str(tmp_path), P, ("chisq",))["p"] == 0.0833


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A scientist's own answer: the csv with columns in another order, Yes/No and an extra notes column, runs
    sorted by run id; the note's facts as a Markdown table with bold labels and units."""
    out.mkdir(parents=True, exist_ok=True)
    L, D, S = P["labels"], P["deliverables"], P["sheet_labels"]
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    if not blind:
        rows = sorted(f["runs"], key=lambda r: r["run_id"])
        write_csv(out / D["table"], [S["included"], S["ours"], S["base"], S["run"], S["seed"], S["n"], "notes"],
                  [[yes(r["included"]), f"{r['acc_ours'] + delta:.3f}", r["acc_base"], r["run_id"], r["seed"], r["n"],
                    "" if r["included"] else "train ids in predictions"] for r in rows])
    pairs = [(L["n_seeds"], f"{f['n_seeds']} seeds"), (L["leaky"], f["leaky"]),
             (L["mean_base"], f"{f['mean_base'] + delta:.2f}%"), (L["sd_base"], f"{f['sd_base']:.2f}"),
             (L["mean_ours"], f"{f['mean_ours'] + delta:.2f} %"), (L["sd_ours"], f"{f['sd_ours']:.2f} pts"),
             (L["gain"], f"{f['gain'] + delta:+.2f} points"), (L["n_primary"], f"{f['n_primary']} items"),
             (L["b"], str(f["b"])), (L["c"], str(f["c"])), (L["p"], f"{f['p'] + delta / 10:.4f}"),
             (L["ci_low"], f"{f['ci_low']:.2f}"), (L["ci_high"], f"{f['ci_high']:.2f}"),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = ["# Response to Reviewer 2", "", "| Item | Value |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
             *(extra or []), "", "The leaky run is left out; the exact McNemar test is on the primary seed."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, delta=0.5)
    assert score_output(task, tmp_path / "wrong") <= 0.7
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['p']} | {f['p'] + 0.03:.4f} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_the_superseded_protocol_on_every_run_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("chisq", "leaky"))
    assert old["p"] != f["p"] and old["n_seeds"] == f["n_seeds"] + 1
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.6
