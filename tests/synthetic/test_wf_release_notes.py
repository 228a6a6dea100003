"""Release notes: exact fix-version matching, branch reverts and re-lands, grouping by type and security label on
hand-computed cases, the solver and the independent recheck on a tracker export worked by hand, each shortcut moving
the figure it should, and the reward a drawn task pays for a correct answer written by hand in another layout, a
wrong, a hedged and a blind one, and the superseded 2023 style guide."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import relnotes as solver
from jobenv.synthetic.workflows.relnotes import RELEASE_NOTES as WF
from jobenv.synthetic.workflows.relnotes import recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines


def test_fix_version_matches_one_of_the_listed_versions_exactly():
    assert solver.in_version("3.3.2; 3.4.0", "3.4.0")
    assert solver.in_version("3.4.0", "3.4.0") and solver.in_version(" 3.4.0 ,3.5.0", "3.4.0")
    assert not solver.in_version("3.4.1", "3.4.0")  # the patch has its own notes
    assert solver.in_version("3.4.1", "3.4.0", prefix=True)  # the 2023 guide's release line takes it


def test_reverted_changes_drop_and_a_reland_ships():
    log = [{"sha": "a1", "ticket": "T-1", "reverts": ""}, {"sha": "r1", "ticket": "T-1", "reverts": "a1"},
           {"sha": "a2", "ticket": "T-2", "reverts": ""}, {"sha": "r2", "ticket": "T-2", "reverts": "a2"},
           {"sha": "b2", "ticket": "T-2", "reverts": ""}, {"sha": "a3", "ticket": "T-3", "reverts": ""}]
    kept, reverted = solver.live_tickets(log)
    assert kept == {"T-2", "T-3"} and reverted == {"T-1"}


def test_a_security_label_wins_over_the_issue_type():
    bug = {"labels": "ui; security", "issue_type": "Bug"}
    assert solver.group_of(bug) == "security" and solver.group_of(bug, ("security_label",)) == "fixes"
    assert solver.group_of({"labels": "", "issue_type": "Improvement"}) == "features"
    assert solver.group_of({"labels": "", "issue_type": "Task"}) is None


_HEAD = ["key", "issue_type", "summary", "component", "status", "resolution", "fix_versions", "labels",
         "compatibility", "cvss", "backport_of", "updated"]


def _tiny(folder: Path) -> dict:
    """Release 3.4.0, advisory at CVSS 7.0. In the notes: features T-1, T-2 (api-change but compatible), T-3
    (Breaking); fixes T-4 (3.3.2; 3.4.0), T-5, T-12 (reverted, then re-landed); deprecation T-9; security T-7 (a Bug
    labelled security, CVSS 7.5) and T-8 (Vulnerability, 5.3): 9 changes, 1 breaking (T-3), advisory yes, the semver
    minor claim fails. Left out: T-6 (backport of T-5), T-10 (internal), T-11 (Breaking, reverted: 1 reverted),
    T-13 (3.4.1), T-14 (In Review), T-15 (Closed, Won't Do), T-16 (Task, not listed)."""
    t = [("T-1", "Story", "Merged", "3.4.0", "", "Compatible", "", ""),
         ("T-2", "Story", "Merged", "3.4.0", "api-change", "Compatible", "", ""),
         ("T-3", "Improvement", "Merged", "3.4.0", "", "Breaking", "", ""),
         ("T-4", "Bug", "Merged", "3.3.2; 3.4.0", "", "", "", ""),
         ("T-5", "Bug", "Merged", "3.4.0", "", "", "", ""),
         ("T-6", "Bug", "Merged", "3.4.0", "", "", "", "T-5"),
         ("T-7", "Bug", "Merged", "3.4.0", "ui; security", "", "7.5", ""),
         ("T-8", "Vulnerability", "Merged", "3.4.0", "", "", "5.3", ""),
         ("T-9", "Deprecation", "Merged", "3.4.0", "", "Compatible", "", ""),
         ("T-10", "Story", "Merged", "3.4.0", "internal; ci", "", "", ""),
         ("T-11", "Story", "Merged", "3.4.0", "api-change", "Breaking", "", ""),
         ("T-12", "Bug", "Merged", "3.4.0", "", "", "", ""),
         ("T-13", "Bug", "Merged", "3.4.1", "", "", "", ""),
         ("T-14", "Story", "In Review", "3.4.0", "", "", "", ""),
         ("T-15", "Bug", "Closed", "3.4.0", "", "", "", ""),
         ("T-16", "Task", "Merged", "3.4.0", "", "", "", "")]
    rows = [[k, kind, f"change {k}", "CLI", st, "Done" if st == "Merged" else "", fv, lab, comp, cv, bp, "2026-03-01"]
            for k, kind, st, fv, lab, comp, cv, bp in t]
    write_csv(folder / "tickets.csv", _HEAD, rows)
    log = [[f"c{k[2:]}", "2026-03-01 09:00", "A. Dev", k, f"{k}: change", ""] for k, *_ in t[:12] if k != "T-11"]
    log += [["c11", "2026-02-20 10:00", "A. Dev", "T-11", "T-11: change", ""],
            ["r11", "2026-02-27 10:00", "QA", "T-11", 'Revert "T-11: change"', "c11"],
            ["r12", "2026-03-02 10:00", "QA", "T-12", 'Revert "T-12: change"', "c12"],
            ["d12", "2026-03-04 10:00", "A. Dev", "T-12", "T-12: change (re-land)", ""]]
    write_csv(folder / "commits.csv", ["sha", "date", "author", "ticket", "message", "reverts"], log)
    return {"files": {"tickets": "tickets.csv", "commits": "commits.csv"}, "release": "3.4.0", "advisory_cvss": 7.0}


def test_the_solver_and_the_recheck_on_an_export_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert (f["total"], f["features"], f["fixes"], f["deprecations"], f["security"]) == (9, 3, 3, 1, 2)
    assert (f["reverted"], f["reverted_keys"], f["breaking_count"]) == (1, ["T-11"], 1)
    assert [b["key"] for b in f["breaking"]] == ["T-3"] and f["security_keys"] == ["T-7", "T-8"]
    assert (f["max_cvss"], f["decision"], f["premise"]) == (7.5, True, False)
    g = recheck(tmp_path, P)
    assert (g["total"], g["features"], g["fixes"], g["deprecations"], g["security"], g["reverted"]) == (9, 3, 3, 1, 2, 1)
    assert g["breaking"] == [{"key": "T-3"}] and g["deprecations_keys"] == ["T-9"] and g["security_keys"] == ["T-7", "T-8"]
    assert (g["decision"], g["premise"]) == (True, False)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert (n["internal"]["total"], n["internal"]["features"]) == (10, 4)  # T-10 listed
    r = n["reverts"]  # T-11 listed, and flagged: two breaking changes, none reverted
    assert (r["total"], r["reverted"], [b["key"] for b in r["breaking"]]) == (10, 0, ["T-11", "T-3"])
    assert (n["backports"]["total"], n["backports"]["fixes"]) == (10, 4)  # T-6 beside T-5
    s = n["security_label"]  # T-7 under Fixes: only the 5.3 Vulnerability is left, no advisory
    assert (s["security"], s["fixes"], s["security_keys"], s["decision"]) == (1, 4, ["T-8"], False)
    assert [b["key"] for b in n["old_label"]["breaking"]] == ["T-2"]  # api-change, though compatible
    assert (n["version_prefix"]["total"], n["version_prefix"]["fixes"]) == (10, 4)  # T-13 of 3.4.1


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, total_delta: int = 0, extra: list[str] | None = None,
          table: list[list[str]] | None = None, blind: bool = False) -> None:
    """A writer's own answer: the upgrade-impact table with its columns in another order, an extra column and the
    impact in capitals; the notes' facts as bold labels with words after the numbers and keys separated by commas."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["out_columns"], P["labels"], P["deliverables"]
    rows = [[b["summary"], "Breaking", b["key"], b["component"], "migration guide"] for b in f["breaking"]]
    rows += [[f["summaries"][k], "Deprecation", k, "", "removed in the next major"] for k in f["deprecations_keys"]]
    if not blind:
        with (out / D["breaking"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C["summary"], C["kind"], C["key"], C["component"], "note"])
            w.writerows(table if table is not None else rows)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["total"], f"{f['total'] + total_delta} changes"), (L["features"], f"{f['features']}"),
             (L["fixes"], f"{f['fixes']} fixes"), (L["deprecations"], str(f["deprecations"])),
             (L["security"], str(f["security"])), (L["reverted"], f"{f['reverted']} (reverted on the branch)"),
             (L["breaking_count"], str(f["breaking_count"])),
             (L["deprecated_list"], ", ".join(reversed(f["deprecations_keys"]))),
             (L["security_list"], ", ".join(reversed(f["security_keys"]))),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = [f"# {P['release']} release notes", "", *[f"**{k}:** {v}" for k, v in pairs], *(extra or []), "",
             "Internal tickets, reverted changes and duplicate backports are not listed."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, total_delta=2)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['total']}:** {f['total'] + 3}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_a_table_flagging_a_reverted_or_api_change_ticket_loses(task, tmp_path):
    f, P = _load(task)
    assert P["decoys"]
    for k in P["decoys"][:2]:
        _hand(tmp_path / k, P, f, table=[["x", "Breaking", k, "CLI", ""]] + [
            [b["summary"], "Breaking", b["key"], b["component"], ""] for b in f["breaking"]] + [
            ["y", "Deprecation", d, "", ""] for d in f["deprecations_keys"]])
        assert score_output(task, tmp_path / k) < 1.0


def test_the_naive_reverts_and_backports_lose(task, tmp_path):
    f, P = _load(task)
    for s in ("reverts", "backports", "internal"):
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert g["total"] > f["total"]
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0


def test_the_superseded_2023_style_guide_loses(task, tmp_path):
    f, P = _load(task)
    # the 2023 guide: the release line matched as text, security fixes under Fixes, breaking by the api-change label
    old = solver.analyse(str(task / "task_folder"), P, ("version_prefix", "security_label", "old_label"))
    assert old["total"] != f["total"] and old["breaking"] != f["breaking"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
