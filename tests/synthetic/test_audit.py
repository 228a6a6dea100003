"""The generator-wide audit (jobenv.synthetic.audit): a fresh split passes it whole, each defect class it looks for
is caught when planted in a copy of a sound task, the naive pipeline fails every accepted task, and duplicates are
found by graded values."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from jobenv.synthetic.audit import audit_task


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


def test_the_naive_pipeline_fails_every_accepted_task(split, tmp_path):
    """The obvious procedure with every shortcut at once, graded by the judge's own checks evaluator through
    jobenv's checks judge: at most 0.5 on every task, and as the task records."""
    import asyncio

    from jobenv.judge import make_judge
    from jobenv.synthetic.gates import MAX_NAIVE_SCORE
    from jobenv.synthetic.generator import write_naive_pipeline
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
