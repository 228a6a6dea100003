"""Generated tasks: layout, provenance, determinism, re-executable ground truth, checks-judge scores."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from jobenv import synthetic
from jobenv.judge import make_judge
from jobenv.synthetic import common
from jobenv.synthetic.generator import MAX_TASK_BYTES, combos, generate

from .conftest import one_per_family


def _hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_version_constants_agree():
    assert synthetic.GENERATOR_VERSION == common.GENERATOR_VERSION


def test_split_layout_and_provenance(split, split_tasks, split_stats):
    root, paths = split
    assert len(paths) == len(combos())
    # draws are only ever dropped for degenerate data, never for a broken ground truth or check
    assert set(split_stats.rejected) <= {"degenerate"}, split_stats.reasons
    families = {t.meta["family"] for t in split_tasks}
    assert families == {"kpi_review", "rate_table", "reconciliation", "period_comparison"}
    occupations = {t.occupation for t in split_tasks}
    assert len(occupations) >= 10, occupations
    for t in split_tasks:
        assert t.has_checks and 8 <= len(t.rubrics) <= 12
        assert all(6 <= r.weight <= 10 for r in t.rubrics)
        assert t.instructions.rstrip().splitlines()[-1].startswith("- ")
        assert "Local Reference Files:" in t.instructions
        listed = [l[2:] for l in t.instructions.split("Local Reference Files:")[1].splitlines() if l.startswith("- ")]
        on_disk = sorted(p.name for p in t.task_folder.iterdir() if p.name != "TASK_INSTRUCTIONS.txt")
        assert sorted(listed) == on_disk
        suffixes = {Path(n).suffix for n in on_disk}
        assert ".pdf" in suffixes or ".docx" in suffixes  # the house-rules memo
        m = t.meta
        assert m["generator_version"] == common.GENERATOR_VERSION and m["seed"] == 11
        assert m["data_source"]["package"] and m["data_source"]["dataset"] and m["licence"]
        assert (t.root / "task_card.md").is_file() and (t.root / "ground_truth" / "solve.py").is_file()
        size = sum(p.stat().st_size for p in t.task_folder.rglob("*") if p.is_file())
        assert size < MAX_TASK_BYTES
        # every graded rounding is stated as a house rule
        assert "decimal place" in t.instructions
    # SQLite and multi-sheet workbooks appear in the split
    files = [p for t in split_tasks for p in t.task_folder.iterdir()]
    assert any(p.suffix == ".db" for p in files)
    from openpyxl import load_workbook

    assert any(len(load_workbook(p, read_only=True).sheetnames) > 1 for p in files if p.suffix == ".xlsx")


def test_same_seed_same_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    generate(5, 7, a)
    generate(5, 7, b)
    ha, hb = _hashes(a), _hashes(b)
    assert ha == hb and len(ha) > 5 * 8
    c = tmp_path / "c"
    generate(5, 8, c)
    assert _hashes(c) != ha  # a different seed gives different tasks


def test_task_does_not_change_when_n_grows(tmp_path):
    generate(2, 7, tmp_path / "small")
    generate(4, 7, tmp_path / "big")
    small = _hashes(tmp_path / "small")
    big = _hashes(tmp_path / "big")
    assert small and all(big.get(k) == v for k, v in small.items())


def test_ground_truth_reexecutes_identically(split_tasks, tmp_path):
    for t in one_per_family(split_tasks):
        out = tmp_path / t.occupation / f"task{t.number}"
        proc = subprocess.run([sys.executable, str(t.root / "ground_truth" / "solve.py"), str(t.task_folder), str(out)],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert _hashes(out) == _hashes(t.root / "ground_truth" / "outputs")
        assert any(p.suffix in (".xlsx", ".docx") for p in out.iterdir()) or (out / "memo.md").is_file()


def test_checks_judge_scores_ground_truth_one_and_nothing_zero(split_tasks):
    judge = make_judge("checks")
    empty = Path(tempfile.mkdtemp())
    for t in split_tasks:
        good = judge.grade_sync(t, t.root / "ground_truth" / "outputs")
        assert good.status == "ok" and good.normalized_score == 1.0, (t.id, good.error)
        none = judge.grade_sync(t, empty)
        assert none.normalized_score == 0.0, t.id


def test_a_wrong_answer_loses_the_graded_rubric(split_tasks, tmp_path):
    """Changing one graded fact in the ground truth memo fails exactly the rubrics that grade it."""
    judge = make_judge("checks")
    t = next(t for t in split_tasks if t.meta["family"] == "kpi_review")
    out = tmp_path / "out"
    import shutil

    shutil.copytree(t.root / "ground_truth" / "outputs", out)
    memo = (out / "memo.md").read_text()
    line = next(l for l in memo.splitlines() if l.startswith("Decision:"))
    flipped = "Decision: NO ESCALATION" if "NO ESCALATION" not in line else "Decision: ESCALATE"
    (out / "memo.md").write_text(memo.replace(line, flipped))
    rep = judge.grade_sync(t, out)
    assert rep.status == "ok" and 0 < rep.normalized_score < 1


def test_cli_generate(tmp_path, capsys):
    from jobenv.cli import main

    assert main(["generate", "--n", "2", "--seed", "3", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "generated 2 tasks" in out
    assert len(list(tmp_path.glob("*/task*/RUBRICS.json"))) == 2
    assert not (tmp_path / ".staging").exists()


def test_ensure_default_split_is_idempotent(tmp_path):
    dest = tmp_path / "split"
    assert synthetic.ensure_default_split(dest, n=2, seed=4) == dest
    marker = dest / ".jobenv-synthetic.json"
    stamp = marker.stat().st_mtime_ns
    before = _hashes(dest)
    synthetic.ensure_default_split(dest, n=2, seed=4)
    assert marker.stat().st_mtime_ns == stamp and _hashes(dest) == before
    # a different request regenerates in place
    synthetic.ensure_default_split(dest, n=3, seed=4)
    assert json.loads(marker.read_text())["n"] == 3
    assert len(list(dest.glob("*/task*/RUBRICS.json"))) == 3


def test_negative_n_is_a_clear_error(tmp_path):
    from jobenv.errors import JobenvError

    with pytest.raises(JobenvError, match="n must be >= 0"):
        generate(-1, 0, tmp_path)
