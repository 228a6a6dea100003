"""The bundled sample split (jobenv/sample): layout, file types, reference solutions graded by the checks
judge, empty outputs, trap sensitivity, and a deterministic builder."""

from __future__ import annotations

import csv
import json
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from jobenv.tasks import load_task_dir
from tests.judge.bank.sample import TRAPS

from .conftest import BUILDER, SAMPLE_ROOT, failed_rubrics, grade, run_solution, task_dirs

TASK_DIRS = task_dirs()
IDS = [f"{d.parent.name}/{d.name}" for d in TASK_DIRS]


def test_split_has_enough_tasks_and_occupations():
    assert len(TASK_DIRS) >= 6
    assert len({d.parent.name for d in TASK_DIRS}) >= 5


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=IDS)
def test_task_loads_in_jobbench_layout(task_dir: Path):
    task = load_task_dir(task_dir, "sample")
    assert task.id == f"{task_dir.parent.name}/{task_dir.name}"
    assert task.has_checks and task.task_card is not None and task.solution is not None
    assert (task.solution / "solve.py").is_file()
    # Prompt: realistic length, ends with a Local Reference Files list naming exactly the folder's files.
    assert 1400 <= len(task.instructions) <= 3000
    head, sep, tail = task.instructions.rpartition("Local Reference Files:")
    assert sep and head.strip()
    listed = [ln.strip().lstrip("-* ").strip() for ln in tail.strip().splitlines() if ln.strip()]
    on_disk = sorted(p.name for p in task.task_folder.iterdir() if p.name != "TASK_INSTRUCTIONS.txt")
    assert sorted(listed) == on_disk and 2 <= len(on_disk) <= 15
    # Rubrics: official shape, weights 6/10, one check per criterion.
    raw = json.loads((task_dir / "RUBRICS.json").read_text())
    assert set(raw) == {"rubrics"} and 4 <= len(raw["rubrics"]) <= 8
    for r in raw["rubrics"]:
        assert r["weight"] in (6, 10)
        assert isinstance(r["criterion"], list) and len(r["jobenv_checks"]) == len(r["criterion"])
    # Hidden material stays out of the agent's folder.
    assert not any(p.name in ("RUBRICS.json", "task_card.md") for p in task.task_folder.rglob("*"))


def test_split_has_a_prohibition_and_traps():
    absent = 0
    traps = 0
    for d in TASK_DIRS:
        text = (d / "RUBRICS.json").read_text()
        absent += text.count('"absent": true') + text.count('"kind": "not"')
        meta = json.loads((d / "meta.json").read_text())
        traps += bool(meta.get("trap"))
    assert absent >= 1
    assert traps >= 2


def test_registry_loads_the_same_tasks():
    import jobenv

    tasks = jobenv.load_tasks("jobenv/sample")
    assert [t.id for t in tasks] == IDS  # stable sorted order
    assert all(t.split == "sample" and t.has_checks for t in tasks)


def test_every_file_type_is_present_and_real():
    """csv, xlsx, docx, pdf, pptx and SQLite all occur, and each file opens with its real reader."""
    import docx
    import openpyxl
    import pdfplumber
    import pptx

    by_ext: dict[str, list[Path]] = {}
    for d in TASK_DIRS:
        for p in (d / "task_folder").iterdir():
            by_ext.setdefault(p.suffix.lower().lstrip("."), []).append(p)
    for ext in ("csv", "xlsx", "docx", "pdf", "pptx", "db"):
        assert by_ext.get(ext), f"no .{ext} reference file in the sample split"
    for p in by_ext["xlsx"]:
        assert openpyxl.load_workbook(p).sheetnames
    for p in by_ext["docx"]:
        assert len(docx.Document(p).paragraphs) > 3
    for p in by_ext["pptx"]:
        assert len(pptx.Presentation(p).slides) >= 2
    for p in by_ext["pdf"]:
        with pdfplumber.open(p) as pdf:
            assert len(pdf.pages[0].extract_text() or "") > 200
    for p in by_ext["db"]:
        con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        assert tables and all(con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] > 0 for t in tables)
        con.close()
    for p in by_ext["csv"]:
        with p.open(newline="") as fh:
            rows = list(csv.reader(fh))
        assert len(rows) > 10 and len({len(r) for r in rows}) == 1, p


def test_split_is_small():
    total = sum(p.stat().st_size for p in SAMPLE_ROOT.rglob("*") if p.is_file())
    assert total < 2 * 1024 * 1024, total


def test_package_data_includes_the_split():
    text = (SAMPLE_ROOT.parents[2] / "pyproject.toml").read_text()
    assert '"data/**/*"' in text


@pytest.mark.parametrize("task_id", IDS)
def test_reference_solution_passes_every_check(task_id: str, solved, sample_tasks):
    task = next(t for t in sample_tasks if t.id == task_id)
    report = grade(task, solved[task_id])
    assert report.status == "ok", report.error
    bad = [(r.rubric, c.criterion, c.evidence) for r in report.rubrics for c in r.criteria_results if not c.passed]
    assert not bad, bad
    assert report.normalized_score == 1.0


@pytest.mark.parametrize("task_id", IDS)
def test_empty_output_scores_zero(task_id: str, sample_tasks, tmp_path: Path):
    task = next(t for t in sample_tasks if t.id == task_id)
    out = tmp_path / "output"
    out.mkdir()
    report = grade(task, out)
    assert report.normalized_score == 0.0


@pytest.mark.parametrize("task_id", IDS)
def test_wrong_deliverable_names_score_low(task_id: str, solved, sample_tasks, tmp_path: Path):
    """Correct content under other file names earns almost nothing: checks are anchored to the deliverables."""
    task = next(t for t in sample_tasks if t.id == task_id)
    out = tmp_path / "output"
    out.mkdir()
    for p in solved[task_id].iterdir():
        (out / ("renamed_" + p.name)).write_bytes(p.read_bytes())
    report = grade(task, out)
    assert report.status == "ok"
    assert report.normalized_score < 0.35, report.normalized_score


# ---- trap sensitivity: the reference logic run on a task folder altered to "believe" the trap -------------


def _copy_task(task_dir: Path, tmp: Path) -> Path:
    import shutil

    dst = tmp / task_dir.parent.name / task_dir.name
    shutil.copytree(task_dir, dst)
    return dst


@pytest.mark.parametrize("task_id", sorted(TRAPS))
def test_falling_for_the_trap_fails_its_rubric(task_id: str, tmp_path: Path):
    believe, rubric_prefix = TRAPS[task_id]
    src = SAMPLE_ROOT / task_id
    root = _copy_task(src, tmp_path / "tasks")
    believe(root / "task_folder")
    task = load_task_dir(src, "sample")  # grade against the bundled (untouched) rubrics
    out = tmp_path / "output"
    run_solution(src, root / "task_folder", out)
    report = grade(task, out)
    assert report.status == "ok"
    failed = failed_rubrics(report)
    assert any(f.startswith(rubric_prefix) for f in failed), failed
    assert report.normalized_score < 1.0


def test_at_least_two_tasks_have_tested_traps():
    assert len(TRAPS) >= 2 and set(TRAPS) <= set(IDS)


# ---- determinism -----------------------------------------------------------------------------------------


def _build(out: Path) -> list[Path]:
    proc = subprocess.run([sys.executable, str(BUILDER), "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())


_TEXT_SUFFIXES = {".json", ".txt", ".md", ".py", ".csv"}


def test_builder_is_deterministic(tmp_path: Path):
    """Two rebuilds are byte-identical (Office zips, core-property dates and PDF dates are pinned)."""
    a, b = tmp_path / "a", tmp_path / "b"
    files = _build(a)
    assert files == _build(b)
    differing = [str(r) for r in files if (a / r).read_bytes() != (b / r).read_bytes()]
    assert not differing, differing
    for r in files:
        if r.suffix in (".docx", ".xlsx", ".pptx"):
            with zipfile.ZipFile(a / r) as z:
                assert {i.date_time for i in z.infolist()} == {(2026, 11, 2, 9, 0, 0)}


def test_bundled_split_matches_the_builder(tmp_path: Path):
    """The committed split is what the builder makes now: text files byte-identical, binary files with the
    same extracted content (their bytes may carry library version strings, e.g. SQLite's header)."""
    from jobenv.extract import extract_file

    out = tmp_path / "rebuilt"
    rebuilt = _build(out)
    bundled = sorted(p.relative_to(SAMPLE_ROOT) for p in SAMPLE_ROOT.rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts)
    assert bundled == rebuilt
    for r in bundled:
        if r.suffix in _TEXT_SUFFIXES:
            assert (SAMPLE_ROOT / r).read_bytes() == (out / r).read_bytes(), r
        else:
            assert extract_file(SAMPLE_ROOT / r) == extract_file(out / r), r
