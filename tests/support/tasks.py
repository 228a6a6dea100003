"""The one test-task factory: small real task folders in the layouts jobenv reads.

``write_task`` writes one ``taskN/`` folder on disk (instructions, reference files, rubric, optional host-only
extras); ``write_split`` writes a tree of them; ``task_with_rubrics`` loads a task built from rubric JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jobenv.tasks import Task, load_task_dir

RUBRICS = {
    "rubrics": [
        {"rubric": "Reports the total", "weight": 10, "criterion": ["States the total of 1,250"]},
        {"rubric": "Delivers the workbook", "weight": 6, "criterion": "Saves summary.xlsx"},
    ]
}


def write_task(
    task_dir: Path,
    *,
    instructions: str = "Compute the total.\n\nLocal Reference Files:\n- data.csv\n",
    rubrics: Any = RUBRICS,
    rubric_name: str = "RUBRICS.json",
    extras: bool = True,
    meta: dict[str, Any] | None = None,
    files: dict[str, str | bytes] | None = None,
) -> Path:
    """Write ``task_dir`` (named ``taskN``). ``files`` are the reference files in ``task_folder/`` (default: a
    ``data.csv`` totalling 1,250); ``extras`` adds a task card and ``files_required_to_search/``."""
    folder = task_dir / "task_folder"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "TASK_INSTRUCTIONS.txt").write_text(instructions, encoding="utf-8")
    for name, content in (files if files is not None else {"data.csv": "region,amount\nnorth,1000\nsouth,250\n"}).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    rubric_path = task_dir / rubric_name
    rubric_path.parent.mkdir(parents=True, exist_ok=True)
    rubric_path.write_text(rubrics if isinstance(rubrics, str) else json.dumps(rubrics), encoding="utf-8")
    if extras:
        (task_dir / "task_card.md").write_text("# Brief\nThe total is 1,250.\n", encoding="utf-8")
        (task_dir / "files_required_to_search").mkdir(exist_ok=True)
        (task_dir / "files_required_to_search" / "public.txt").write_text("public doc\n", encoding="utf-8")
    if meta is not None:
        (task_dir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return task_dir


def write_split(root: Path, names: list[str]) -> Path:
    """``names`` like ['lawyers/task2', 'lawyers/task10', 'auditors/task1'] under ``root``."""
    for name in names:
        write_task(root / name)
    return root


def task_with_rubrics(root: Path, rubrics: list[dict[str, Any]], *, split: str = "test",
                      meta: dict[str, Any] | None = None, instructions: str = "do it") -> Task:
    """A loaded task ``occ/task1`` under ``root`` whose RUBRICS.json holds ``rubrics`` (no reference files)."""
    d = write_task(root / "occ" / "task1", instructions=instructions, rubrics={"rubrics": rubrics}, extras=False,
                   meta=meta, files={})
    return load_task_dir(d, split)
