"""The generator-wide audit (jobenv.synthetic.audit): a fresh split passes it whole, each defect class it looks for
is caught when planted in a copy of a sound task, and the classes fixed at their cause stay fixed (censoring stated
and applied, one-unit tolerances, a lookup read from its own sheet, no near-tie at a graded top)."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import sqlite3
from pathlib import Path

import pandas as pd

from jobenv.synthetic.audit import audit_task
from jobenv.synthetic.build import plan_task
from jobenv.synthetic.generator import write_task
from jobenv.synthetic.scenarios import SCENARIOS


def test_a_fresh_split_passes_the_audit_whole(split):
    _, paths = split
    assert {str(p): audit_task(p) for p in paths if audit_task(p)} == {}


def _copy(task: Path, tmp: Path) -> Path:
    dest = tmp / task.parent.name / task.name
    shutil.copytree(task, dest)
    return dest


def _rubrics(task: Path) -> dict:
    return json.loads((task / "RUBRICS.json").read_text())


def _first_numeric(task: Path) -> tuple[int, int]:
    data = _rubrics(task)
    for i, r in enumerate(data["rubrics"]):
        for j, (text, c) in enumerate(zip(r["criterion"], r.get("jobenv_checks") or [])):
            if c.get("kind") in ("cell", "field") and re.search(r"\.\d+$", text) and c.get("tolerance"):
                return i, j
    raise AssertionError("no graded decimal figure")


def test_each_defect_class_is_caught(split, tmp_path):
    _, paths = split
    task = next(p for p in paths if not audit_task(p))

    # a tolerance of half a unit (the old rule)
    t = _copy(task, tmp_path / "tolerance")
    data = _rubrics(t)
    i, j = _first_numeric(t)
    data["rubrics"][i]["jobenv_checks"][j]["tolerance"] /= 2.2
    (t / "RUBRICS.json").write_text(json.dumps(data))
    assert any(p.startswith("tolerance:") for p in audit_task(t))

    # a phantom row keyed nan
    t = _copy(task, tmp_path / "phantom")
    data = _rubrics(t)
    cell = next((r, k) for r in data["rubrics"] for k, c in enumerate(r.get("jobenv_checks") or [])
                if c.get("kind") == "cell")
    r, k = cell
    key = next(iter(r["jobenv_checks"][k]["match"]))
    r["jobenv_checks"][k]["match"][key] = "nan"
    (t / "RUBRICS.json").write_text(json.dumps(data))
    assert any(p.startswith("phantom:") for p in audit_task(t))

    # the rounding rule left out of the house rules, the precision left out of the prompt
    t = _copy(task, tmp_path / "precision")
    prompt = t / "task_folder" / "TASK_INSTRUCTIONS.txt"
    prompt.write_text(re.sub(r", \d+ decimals?", "", prompt.read_text()))
    found = audit_task(t)
    assert any(p.startswith("precision: the prompt asks") for p in found), found

    # a ground truth that no longer earns its own criteria
    t = _copy(task, tmp_path / "truth")
    for f in (t / "ground_truth" / "outputs").iterdir():
        f.write_text("nothing here\n")
    assert any(p.startswith("ground truth:") for p in audit_task(t))


def _plan(key: str, seed: int, **kw):
    sc = next(s for s in SCENARIOS if s.key == key)
    for attempt in range(40):
        try:
            return plan_task(random.Random(f"{seed}:{attempt}"), sc, sc.professions[0], **kw)
        except Exception as exc:  # noqa: BLE001 - a degenerate draw: the next one
            last = exc
    raise AssertionError(f"no plan for {key}: {last}")


def _write(plan, tmp: Path) -> Path | None:
    from jobenv.errors import JobenvError

    d = tmp / "t"
    shutil.rmtree(d, ignore_errors=True)
    try:
        write_task(plan, d, seed=0, index=0, attempt=0, role=str(plan.meta["role"]), judgement=False, max_naive=None)
    except JobenvError:
        return None
    return d


def test_survival_censoring_is_stated_and_applied(tmp_path):
    """Recomputed here from the extract alone: % alive at day 90 among patients whose day-90 status is known
    (died, or followed for 90 days or more), Karnofsky scope applied when the house rules state it."""
    for seed in range(12):
        plan = _plan("survival_180", seed, decision=True, premise=True, extra_traps=0, traps=[])
        task = _write(plan, tmp_path)
        if task is not None:
            break
    assert task is not None
    from jobenv.extract import extract_file

    folder = task / "task_folder"
    rules = "\n".join(extract_file(p) for p in folder.glob("*rules*"))
    assert "censored" in rules and "left out of the denominator" in rules and "half up" in rules
    db = next(folder.glob("*.db"), None)
    if db is not None:
        con = sqlite3.connect(db)
        table = con.execute("select name from sqlite_master where type='table'").fetchone()[0]
        df = pd.read_sql_query(f'select * from "{table}"', con)
        con.close()
    else:
        frames = [pd.read_csv(p) if p.suffix == ".csv" else pd.concat(pd.read_excel(p, sheet_name=None).values())
                  for p in sorted(folder.iterdir()) if p.suffix in (".csv", ".xlsx")]
        df = next(f for f in frames if "followup_days" in f.columns)  # the extract, not a distractor
    for c in ("followup_days", "died", "karnofsky"):
        df[c] = pd.to_numeric(df[c])
    if "Karnofsky score below 30" in rules:
        df = df[df["karnofsky"] >= 30]
    known = df[(df["died"] == 1) | (df["followup_days"] >= 90)]
    want = {g: round(100 * (part["followup_days"] >= 90).mean() + 1e-9, 1) for g, part in known.groupby("cell_type")}
    graded = {c["match"]["cell_type"]: c["value"] for r in _rubrics(task)["rubrics"]
              for c in r.get("jobenv_checks") or [] if c.get("kind") == "cell" and "pct" in c["column"]}
    assert graded and all(math.isclose(graded[g], want[g], abs_tol=0.11) for g in graded), (graded, want)
    # the old reading (every patient in the denominator) gives other figures: the rule matters
    naive = {g: round(100 * (part["followup_days"] >= 90).mean(), 1) for g, part in df.groupby("cell_type")}
    assert any(abs(naive[g] - graded[g]) > 0.2 for g in graded)


def test_a_lookup_is_read_from_its_own_sheet(tmp_path):
    """A budget workbook holds a Notes sheet beside Budget: the actual-vs-budget rows are exactly the budget's own
    groups, none made up from the notes, and the audit finds nothing."""
    for seed in range(40):
        plan = _plan("capex_budget", seed, decision=True, premise=True, extra_traps=0, traps=[])
        book = next((f.name for f in plan.files if f.name.startswith("approved_budget_") and f.name.endswith(".xlsx")),
                    None)
        if book is None:
            continue
        task = _write(plan, tmp_path)
        if task is None:
            continue
        sheets = pd.read_excel(task / "task_folder" / book, sheet_name=None)
        assert set(sheets) == {"Budget", "Notes"}
        groups = {str(g) for g in sheets["Budget"].iloc[:, 0]}
        graded = {str(v) for r in _rubrics(task)["rubrics"] for c in r.get("jobenv_checks") or []
                  if c.get("kind") == "cell" for v in c["match"].values()}
        assert graded and graded <= groups, graded - groups
        assert audit_task(task) == []
        return
    raise AssertionError("no budget task with an xlsx lookup in 40 draws")


def test_the_naive_pipeline_fails_every_accepted_task(split, tmp_path):
    """The obvious procedure with every shortcut at once, graded by the judge's own checks evaluator through
    jobenv's checks judge: at most 0.5 on every task, and as the task records."""
    import asyncio

    from jobenv.judge import make_judge
    from jobenv.synthetic.generator import MAX_NAIVE_SCORE, write_naive_pipeline
    from jobenv.tasks import load_task_dir

    judge = make_judge("checks")
    _, paths = split
    scores = []
    for i, task_dir in enumerate(paths):
        task = load_task_dir(task_dir, "synthetic")
        out = tmp_path / f"naive{i}"
        write_naive_pipeline(task_dir, out)
        report = asyncio.run(judge.grade(task, out))
        scores.append(report.normalized_score)
        assert report.normalized_score <= MAX_NAIVE_SCORE + 1e-9, (task.id, report.normalized_score)
        assert abs(task.meta["naive_score"] - report.normalized_score) < 0.02, task.id
    assert max(scores) <= 0.5 and min(scores) >= 0.0


def test_duplicates_are_found_by_graded_values_not_labels(split, tmp_path):
    """A task whose labels and wording differ but whose graded values are another's is the same task to the gate."""
    from jobenv.synthetic.generator import MAX_VALUE_OVERLAP, graded_values, value_overlap

    _, paths = split
    twin = _copy(paths[0], tmp_path / "twin")
    data = _rubrics(twin)
    for r in data["rubrics"]:
        r["rubric"] = "reworded " + r["rubric"]
        for c in r.get("jobenv_checks") or []:
            if c.get("kind") == "field":
                c["label"] = "Relabelled " + c["label"]
    (twin / "RUBRICS.json").write_text(json.dumps(data))
    mine = graded_values(paths[0])
    assert len(mine) >= 10 and graded_values(twin) == mine
    assert value_overlap(graded_values(twin), mine) == 1.0 >= MAX_VALUE_OVERLAP
    assert all(value_overlap(mine, graded_values(p)) < MAX_VALUE_OVERLAP for p in paths[1:])
