"""The grader hash covers everything that can change a score, and nothing that cannot."""

from __future__ import annotations

import shutil
from pathlib import Path

import jobenv
from jobenv.judge.report import grader_sha256

PACKAGE = Path(jobenv.__file__).resolve().parent


def _copy(tmp: Path) -> Path:
    root = tmp / "jobenv"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("data", "__pycache__"))
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_copy_hashes_like_the_package(tmp_path: Path) -> None:
    assert grader_sha256(_copy(tmp_path)) == grader_sha256()


def test_changing_a_check_default_changes_the_hash(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    before = grader_sha256(root)
    _edit(root / "check_models.py", "tolerance: float = Field(default=0.0, ge=0)",
          "tolerance: float = Field(default=0.5, ge=0)")
    assert grader_sha256(root) != before


def test_changing_an_extraction_budget_or_a_grading_rule_changes_the_hash(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    before = grader_sha256(root)
    _edit(root / "extract" / "service.py", "default=60.0", "default=61.0")
    after_budget = grader_sha256(root)
    assert after_budget != before
    _edit(root / "episode" / "finish.py", 'if scoring == "official"', 'if scoring != "official"')
    assert grader_sha256(root) != after_budget


def test_the_generator_only_probes_do_not_change_the_hash(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    before = grader_sha256(root)
    with (root / "judge" / "probes" / "hedges.py").open("a", encoding="utf-8") as f:
        f.write("\n# a comment only the task generator reads\n")
    assert grader_sha256(root) == before
