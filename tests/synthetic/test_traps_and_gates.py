"""Traps are planted where meta.json declares them; quality gates reject ill-posed drafts."""

from __future__ import annotations

import copy
import random
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from jobenv.synthetic.common import DegenerateTask, c_number, rubric
from jobenv.synthetic.families import FAMILIES, base, kpi
from jobenv.synthetic.generator import QualityGateError, check_rounding_stated, write_task


def _draft(fam, sc, trap, start=0):
    for attempt in range(start, start + 60):
        try:
            return fam.build(random.Random(f"trap-test:{sc.key}:{trap}:{attempt}"), sc, trap, base.load_raw(sc.source))
        except DegenerateTask:
            continue
    raise AssertionError(f"no draft for {sc.key}/{trap}")


def _frames(folder: Path, name: str) -> list[pd.DataFrame]:
    p = folder / name
    if p.suffix == ".csv":
        return [pd.read_csv(p)]
    if p.suffix == ".xlsx":
        return [df for n, df in pd.read_excel(p, sheet_name=None).items() if n != "Notes"]
    con = sqlite3.connect(p)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return [pd.read_sql_query(f'SELECT * FROM "{t}"', con) for t in tables]
    finally:
        con.close()


def _memo(out: Path) -> str:
    if (out / "memo.md").is_file():
        return (out / "memo.md").read_text()
    from docx import Document

    return "\n".join(p.text for p in Document(str(out / "briefing.docx")).paragraphs)


CASES = [(fam, fam.SCENARIOS[0], trap) for fam in FAMILIES for trap in sorted(fam.TRAPS)]


@pytest.mark.parametrize("fam,sc,trap", CASES, ids=[f"{f.FAMILY}-{t}" for f, _, t in CASES])
def test_trap_is_planted_declared_and_graded(fam, sc, trap, tmp_path):
    d = _draft(fam, sc, trap)
    assert d.trap is not None and d.trap["kind"] == trap
    task_dir = tmp_path / sc.occupation / "task1"
    write_task(d, task_dir, seed=0, index=0, attempt=0)  # runs the ground truth and every gate
    folder = task_dir / "task_folder"
    data = [f for f in d.files if f.role == "data"]
    # a rubric worth the top weight is about the trap
    assert any(r.weight == 10 for r in d.rubrics)
    if trap == "duplicates":
        dup, count = set(), 0
        # duplicates live inside one table (sources and period sheets legitimately share ids)
        for frame in (fr for f in data for fr in _frames(folder, f.name)):
            ids = frame[frame.columns[0]].astype(str)
            dup |= set(ids[frame.duplicated()])
            count += int(frame.duplicated().sum())
        assert sorted(dup) == sorted(d.trap["ids"]) and d.trap["count"] == count
    elif trap == "unit_scale":
        headers = {str(c) for f in data for df in _frames(folder, f.name) for c in df.columns}
        assert d.trap["header"] in headers
    elif trap == "stale_file":
        assert (folder / d.trap["stale"]).is_file() and (folder / d.trap["current"]).is_file()
        assert d.trap["stale"] in d.instructions and d.trap["stale"] < d.trap["current"]  # older date sorts first
        assert any(f.role == "stale" for f in d.files)
    elif trap == "false_premise":
        assert d.trap["claimed"] != d.trap["actual"]
        assert "Premise confirmed" in d.instructions
        assert "Premise confirmed: no" in _memo(task_dir / "ground_truth" / "outputs")


def test_without_trap_the_premise_holds(tmp_path):
    sc = kpi.SCENARIOS[0]
    d = _draft(kpi, sc, None)
    assert d.trap is None
    write_task(d, tmp_path / sc.occupation / "task1", seed=0, index=0, attempt=0)
    memo = (tmp_path / sc.occupation / "task1" / "ground_truth" / "outputs" / "memo.md").read_text()
    assert "Premise confirmed: yes" in memo and "Duplicates removed: 0" in memo


def test_gate_rejects_tied_groups():
    """Two ranks with the same average salary: the 'highest average' would be ambiguous."""
    sc = kpi.SCENARIOS[0]  # professor salaries
    rows = []
    for i, (rank, sal) in enumerate([("Prof", 100000)] * 4 + [("AssocProf", 100000)] * 4 + [("AsstProf", 80000)] * 4):
        rows.append({"rownames": i + 1, "rank": rank, "discipline": "B", "yrs.since.phd": 10, "yrs.service": 5,
                     "sex": "Male", "salary": sal + (i % 2) * 10})
    raw = pd.DataFrame(rows)
    with pytest.raises(DegenerateTask, match="tie|threshold|exceptions"):
        kpi.build(random.Random(1), sc, None, raw)


def test_gate_rejects_empty_scope():
    sc = kpi.SCENARIOS[0]
    raw = pd.DataFrame([{"rownames": 1, "rank": "Prof", "discipline": "C", "yrs.since.phd": 1, "yrs.service": 0,
                         "sex": "Male", "salary": 1000}])
    with pytest.raises(DegenerateTask, match="fewer than 3 groups"):
        kpi.build(random.Random(2), sc, None, raw)


def test_gate_rejects_unstated_rounding():
    rub = [rubric("r", 8, [("x", c_number(12.345, "memo.md", 0.0005))])]
    assert check_rounding_stated("Round totals to 2 decimal places.", rub)
    assert not check_rounding_stated("Round ratios to 3 decimal places.", rub)
    assert check_rounding_stated("No rounding rule here.", [rubric("r", 8, [("x", c_number(1.5, "m.md"))])])


def test_write_task_rejects_unstated_rounding_and_false_ground_truth(tmp_path):
    sc = kpi.SCENARIOS[1]
    d = _draft(kpi, sc, None)
    bad = copy.copy(d)
    bad.rubrics = d.rubrics + [rubric("ratio", 8, [("ratio is 0.1234", c_number(0.1234, "memo.md", 0.00005))])]
    with pytest.raises(QualityGateError, match="rounding"):
        write_task(bad, tmp_path / "a" / "task1", seed=0, index=0, attempt=0)
    wrong = copy.copy(d)
    wrong.rubrics = d.rubrics + [rubric("count", 8, [("Records analysed is wrong", c_number(987654321, "memo.md"))])]
    with pytest.raises(QualityGateError, match="ground truth fails its own check"):
        write_task(wrong, tmp_path / "b" / "task1", seed=0, index=0, attempt=0)


def test_prohibition_only_rubric_pays_only_on_a_deliverable_with_substance(tmp_path):
    """The judge's evaluator (used by the generator's gate) never credits a prohibition on a missing, empty or
    placeholder deliverable; the ground truth, which has substance, earns it."""
    from jobenv.judge.checks import evaluate_rubrics
    from jobenv.synthetic.common import c_regex

    d = _draft(kpi, kpi.SCENARIOS[2], None)
    loose = copy.copy(d)
    loose.rubrics = d.rubrics + [rubric("prohibition only", 6, [("never mentions X", c_regex("zzz-never", "memo.md", absent=True))])]
    task_dir = tmp_path / "c" / "task1"
    write_task(loose, task_dir, seed=0, index=0, attempt=0)  # the ground truth passes every rubric
    placeholder = tmp_path / "placeholder"
    placeholder.mkdir()
    (placeholder / "memo.md").write_text("Memo\n\nTBD\n")
    (placeholder / "summary.csv").write_text("x\n")
    for out in (tmp_path / "missing", placeholder):
        out.mkdir(exist_ok=True)
        verdicts = evaluate_rubrics(loose.rubrics, out)
        assert verdicts[-1][0] is not None and verdicts[-1][0][0] is False, verdicts[-1]


def test_the_gate_uses_the_judges_evaluator():
    """One implementation of the check rules: the generator's gate calls the judge's evaluator and probes."""
    import jobenv.judge.checks as judge_checks
    import jobenv.judge.probes as judge_probes
    from jobenv.synthetic import generator

    assert generator.evaluate_rubrics is judge_checks.evaluate_rubrics
    assert generator.probe_rubrics is judge_probes.probe_rubrics
    import importlib.util

    assert importlib.util.find_spec("jobenv.synthetic.selfcheck") is None


def test_probe_gate_rejects_a_check_a_blind_answer_passes(tmp_path):
    """A field check any answer passes ('names a decision') lets a blind spray earn credit: the draft is rejected."""
    from jobenv.synthetic.common import c_field

    d = _draft(kpi, kpi.SCENARIOS[0], None)
    weak = copy.copy(d)
    weak.rubrics = d.rubrics + [rubric("gives a decision", 10, [
        ("memo gives a decision", c_field("memo.md", "Decision", mentions=["ESCALATE", "NO ESCALATION"]))])]
    with pytest.raises(QualityGateError, match="probe: blind"):
        write_task(weak, tmp_path / "w" / "task1", seed=0, index=0, attempt=0)
