"""Loaders on every layout jobenv reads, built in temporary folders."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from jobenv.datasets import discover_task_dirs, load_parquet, load_tree
from jobenv.errors import DatasetNotFoundError, TaskFormatError
from jobenv.tasks import load_task_dir
from tests.support.tasks import RUBRICS, write_split, write_task


def test_task_dir_with_every_extra(tmp_path: Path):
    task = load_task_dir(write_task(tmp_path / "lawyers" / "task2", meta={"seed": 1}), "main")
    assert (task.id, task.uid, task.number, task.occupation) == ("lawyers/task2", "main/lawyers/task2", 2, "lawyers")
    assert task.instructions.endswith("- data.csv\n")
    assert task.task_folder == tmp_path / "lawyers" / "task2" / "task_folder"
    assert task.task_card is not None and task.search_files is not None
    assert task.meta == {"seed": 1} and task.max_score == 16.0 and not task.has_checks


def test_local_tree_order_is_stable_and_numeric(tmp_path: Path):
    root = write_split(tmp_path / "main", ["lawyers/task10", "lawyers/task2", "auditors/task1", "lawyers/task1"])
    ids = [t.id for t in load_tree(root, "main")]
    assert ids == ["auditors/task1", "lawyers/task1", "lawyers/task2", "lawyers/task10"]
    assert ids == [t.id for t in load_tree(root, "main")]


def test_skip_leaves_out_known_invalid(tmp_path: Path):
    root = write_split(tmp_path / "main", ["a/task1", "a/task2"])
    assert [t.id for t in load_tree(root, "main", skip={"main/a/task1"})] == ["a/task2"]


def test_missing_instructions_is_named(tmp_path: Path):
    task_dir = write_task(tmp_path / "a" / "task1")
    (task_dir / "task_folder" / "TASK_INSTRUCTIONS.txt").unlink()
    (task_dir / "task_folder" / "notes.txt").write_text("x")
    with pytest.raises(TaskFormatError, match="TASK_INSTRUCTIONS.txt: missing"):
        load_task_dir(task_dir, "main")


def test_missing_rubrics_and_bad_meta_are_named(tmp_path: Path):
    task_dir = write_task(tmp_path / "a" / "task1")
    (task_dir / "RUBRICS.json").unlink()
    with pytest.raises(TaskFormatError, match=r"RUBRICS.json: missing"):
        load_task_dir(task_dir, "main")
    task_dir = write_task(tmp_path / "a" / "task2", meta=None)
    (task_dir / "meta.json").write_text("[1, 2]")
    with pytest.raises(TaskFormatError, match="meta.json: must be a JSON object"):
        load_task_dir(task_dir, "main")


def test_broken_rubric_in_tree_names_file(tmp_path: Path):
    root = write_split(tmp_path / "main", ["a/task1"])
    write_task(root / "a" / "task2", rubrics={"rubrics": [{"rubric": "r", "weight": -2, "criterion": ["c"]}]})
    with pytest.raises(TaskFormatError) as err:
        load_tree(root, "main")
    assert "a/task2/RUBRICS.json" in str(err.value) and "rubrics[0].weight: must be >= 0" in str(err.value)


def test_jobtasks_layout_rubric_under_ground_truth_and_meta_occupation(tmp_path: Path):
    root = tmp_path / "train"
    write_task(root / "batch1" / "task_007", rubric_name="ground_truth/rubrics.json", extras=False,
               meta={"occupation": "statisticians", "family": "grouping"})
    (root / "batch1" / "task_007" / "ground_truth" / "solve.py").write_text("print('hi')")
    write_task(root / "purchasing_agents" / "task1", extras=False)
    tasks = load_tree(root, "train")
    assert [t.id for t in tasks] == ["purchasing_agents/task1", "statisticians/task7"]
    assert tasks[1].ground_truth is not None and tasks[1].meta["family"] == "grouping"
    assert tasks[1].task_card is None and tasks[1].search_files is None


def test_missing_root_is_dataset_error(tmp_path: Path):
    with pytest.raises(DatasetNotFoundError):
        load_tree(tmp_path / "nope", "main")


def test_parquet_export_with_and_without_files(tmp_path: Path):
    snapshot = tmp_path / "snap"
    write_task(snapshot / "dataset" / "lawyers" / "task1")
    rows = [
        {
            "task_id": "lawyers__task1", "occupation": "lawyers", "task_num": 1, "prompt": "Do the thing.",
            "reference_files": ["dataset/lawyers/task1/task_folder/data.csv"], "rubric_json": json.dumps(RUBRICS),
            "task_card": "# card",
        },
        {
            "task_id": "auditors__task3", "occupation": "auditors", "task_num": 3, "prompt": "Audit.",
            "reference_files": ["dataset/auditors/task3/task_folder/ledger.xlsx"], "rubric_json": json.dumps(RUBRICS),
            "task_card": None,
        },
    ]
    parquet = tmp_path / "tasks.parquet"
    pd.DataFrame(rows).to_parquet(parquet)
    with pytest.warns(UserWarning, match="1 reference file"):
        tasks = load_parquet(parquet, "main", tmp_path / "out", files_root=snapshot)
    assert [t.id for t in tasks] == ["auditors/task3", "lawyers/task1"]
    assert (tasks[1].task_folder / "data.csv").read_text().startswith("region,amount")
    assert tasks[1].instructions == "Do the thing." and tasks[1].task_card is not None
    assert not (tasks[0].task_folder / "ledger.xlsx").exists()


def test_parquet_bad_rubric_names_row_and_column(tmp_path: Path):
    parquet = tmp_path / "tasks.parquet"
    pd.DataFrame([{"task_id": "a__task1", "occupation": "a", "task_num": 1, "prompt": "p", "rubric_json": "{oops"}]).to_parquet(parquet)
    with pytest.raises(TaskFormatError, match=r"row 0: column 'rubric_json': not JSON"):
        load_parquet(parquet, "main", tmp_path / "out")


def test_discover_ignores_non_tasks(tmp_path: Path):
    write_split(tmp_path, ["x/task1"])
    (tmp_path / "x" / "README.md").write_text("hi")
    (tmp_path / "y" / "task2").mkdir(parents=True)
    assert discover_task_dirs(tmp_path) == [tmp_path / "x" / "task1"]
