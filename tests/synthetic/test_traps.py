"""Each trap kind is planted for real, changes the graded answer, and a solution that falls for it loses its rubric.

For every trap kind a task is generated with that trap forced; the test then recomputes the naive answer
(the ground-truth analysis with the trap's shortcut taken), asserts it differs from the ground truth on the
graded facts, writes the naive deliverables and grades them with the judge's evaluator.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from jobenv.synthetic.build import plan_task
from jobenv.synthetic.common import DegenerateTask
from jobenv.synthetic.generator import QualityGateError, grade_checks, write_task
from jobenv.synthetic.rubrics import NAIVE_FLAG
from jobenv.synthetic.scenarios import SCENARIOS
from jobenv.synthetic.solvers import engine
from jobenv.tasks import load_task_dir

CASES = [
    ("duplicates", "district_spend"),
    ("stale_file", "customer_retention"),
    ("conflicting_versions", "fleet_bids"),
    ("unit_scale", "faculty_pay"),
    ("out_of_scope", "force_injury"),
    ("false_premise", "housing_sales_yoy"),
    ("duplicates", "subscription_recon"),
    ("stale_file", "swab_kits"),
    ("withdrawn_file", "customer_retention"),
]


def _scenario(key):
    return next(s for s in SCENARIOS if s.key == key)


def _make(tmp_path: Path, trap: str, key: str):
    sc = _scenario(key)
    forced = [] if trap == "false_premise" else [trap]
    for attempt in range(40):
        rng = random.Random(f"trap-test:{key}:{trap}:{attempt}")
        task_dir = tmp_path / f"a{attempt}" / sc.professions[0] / "task1"
        try:
            plan = plan_task(rng, sc, sc.professions[0], decision=bool(attempt % 2), premise=trap != "false_premise",
                             extra_traps=0, traps=forced)
            write_task(plan, task_dir, seed=0, index=0, attempt=attempt, role="Director", judgement=False,
                       max_naive=None)
            return plan, task_dir
        except (DegenerateTask, QualityGateError):
            continue
    raise AssertionError(f"no task with trap {trap} for {key}")


def _frame(folder: Path, src: dict) -> pd.DataFrame:
    p = folder / src["file"]
    if src["layout"] == "csv":
        return pd.read_csv(p, dtype=str)
    if src["layout"] == "xlsx":
        return pd.concat([d for n, d in pd.read_excel(p, sheet_name=None, dtype=str).items()
                          if n not in ("Notes", "Dictionary")])
    con = sqlite3.connect(p)
    try:
        return pd.read_sql_query(f'SELECT * FROM "{src["table"]}"', con)
    finally:
        con.close()


@pytest.mark.parametrize("trap,key", CASES, ids=[f"{t}-{k}" for t, k in CASES])
def test_trap_is_planted_changes_the_answer_and_costs_its_rubric(trap, key, tmp_path):
    plan, task_dir = _make(tmp_path, trap, key)
    folder = task_dir / "task_folder"
    meta = json.loads((task_dir / "meta.json").read_text())
    rubrics = load_task_dir(task_dir, "synthetic").rubrics
    declared = {t["kind"]: t for t in meta["traps"]}
    assert trap in declared
    P = plan.params
    data = _frame(folder, P["source"])
    # planted for real, in the files
    if trap == "duplicates":
        assert data[P["id_col"]].duplicated().sum() == declared[trap]["count"] > 0
    elif trap == "stale_file":
        assert (folder / declared[trap]["stale"]).is_file() and declared[trap]["stale"] < declared[trap]["current"]
    elif trap == "withdrawn_file":  # newer by its name, recalled in writing
        assert declared[trap]["withdrawn"] > declared[trap]["current"]
        emails = " ".join(p.read_text() for p in folder.glob("*.eml"))
        assert declared[trap]["withdrawn"] in emails and declared[trap]["current"] in emails
    elif trap == "conflicting_versions":
        assert (folder / declared[trap]["wrong"]).is_file()
        emails = " ".join(p.read_text() for p in folder.glob("*.eml"))
        assert declared[trap]["wrong"] in emails and declared[trap]["right"] in emails
    elif trap == "unit_scale":
        assert (data["unit"] == declared[trap]["unit"]).sum() == declared[trap]["rows"] > 0
    elif trap == "out_of_scope":
        rule = P["scope"][0]
        assert len(engine.apply_scope(data, [rule])) < len(data)
    elif trap == "false_premise":
        assert meta["answers"]["premise_holds"] is False
    # the naive answer differs from the ground truth on graded facts
    truth, rows = engine.analyse(str(folder), P)
    naive, nrows = engine.analyse(str(folder), P, naive=(NAIVE_FLAG[trap],))
    graded = ("records", "flagged", "decision", "top", "total", "premise", "source_file", "exposure", "total_qty")
    assert any(truth.get(k) != naive.get(k) for k in graded) or rows != nrows
    # ... and a naive solution loses the trap's rubric, while the ground truth earns it
    out = tmp_path / "naive"
    engine.write_outputs(str(out), P, naive, nrows)
    i = declared[trap]["rubric"]
    assert rubrics[i].weight == 10
    assert any(x is False for x in grade_checks(rubrics, out)[i])
    assert all(x is not False for x in grade_checks(rubrics, task_dir / "ground_truth" / "outputs")[i])


def test_gate_rejects_a_trap_that_changes_nothing(tmp_path):
    """Duplicating records that the scope rule removes anyway would change no graded fact: redrawn."""
    from jobenv.synthetic import rubrics as rub

    plan, task_dir = _make(tmp_path, "duplicates", "district_spend")
    truth, rows = engine.analyse(str(task_dir / "task_folder"), plan.params)
    with pytest.raises(DegenerateTask, match="changes no graded fact"):
        rub.build_rubrics(plan, truth, rows, {"duplicates": (truth, rows)}, "Director")


def test_every_trap_kind_is_reachable():
    from jobenv.synthetic.build import TRAP_KINDS

    assert {t for t, _ in CASES} == set(TRAP_KINDS)


def test_a_unit_conversion_of_whole_numbers_keeps_its_fractions():
    """A column read as whole numbers, some in another unit: converted, they are fractions (this crashed a draw)."""
    import pandas as pd

    from jobenv.synthetic.solvers.engine import to_units

    df = pd.DataFrame({"volume": [12, 7, 1500], "unit": ["kl", "kl", "l"]})
    P = {"units": {"column": "volume", "unit_column": "unit", "labels": {"l": 1000}, "reporting": "kl"}}
    out = to_units(df.copy(), P, ())
    assert list(out["volume"]) == [12.0, 7.0, 1.5] and list(out["unit"]) == ["kl", "kl", "kl"]
    assert list(to_units(df.copy(), P, ("units",))["volume"]) == [12, 7, 1500]  # the naive reading converts nothing
