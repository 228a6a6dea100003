"""Generated tasks: layout, provenance, variety, balance, determinism, re-executable ground truth, grading."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from jobenv import synthetic
from jobenv.judge import make_judge
from jobenv.synthetic import common
from jobenv.synthetic.gates import MAX_TASK_BYTES, grade_checks
from jobenv.synthetic.professions import PROFESSIONS
from jobenv.synthetic.report import format_report
from jobenv.synthetic.runner import MANIFEST, generate

from .conftest import RUN_SEED, SPLIT_N, SPLIT_SEED, one_per_family


def _hashes(root: Path) -> dict[str, str]:
    """Every task file's hash (the run's manifest left out: it lists how many tasks the run made)."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and p.name != MANIFEST}


def test_version_constants_agree():
    assert synthetic.GENERATOR_VERSION == common.GENERATOR_VERSION


def test_split_layout_and_provenance(split, split_tasks, split_stats):
    _, paths = split
    assert len(paths) == SPLIT_N
    # draws are only ever dropped for degenerate data or a repeated answer, never for a broken ground truth
    assert set(split_stats.rejected) <= {"degenerate", "duplicate", "probe", "naive pipeline"}, split_stats.reasons
    assert len({t.meta["family"] for t in split_tasks}) >= 10
    assert len({t.occupation for t in split_tasks}) == min(SPLIT_N, len(PROFESSIONS))  # professions cycle
    for t in split_tasks:
        assert 5 <= len(t.rubrics) <= 14 and all(6 <= r.weight <= 10 for r in t.rubrics)  # checks-only: no LLM rubric
        assert "Local Reference Files:" in t.instructions
        listed = [ln[2:] for ln in t.instructions.split("Local Reference Files:")[1].splitlines() if ln.startswith("- ")]
        on_disk = sorted(p.relative_to(t.task_folder).as_posix() for p in t.task_folder.rglob("*")
                         if p.is_file() and p.name != "TASK_INSTRUCTIONS.txt")
        assert sorted(listed) == on_disk and 10 <= len(on_disk) <= 40
        assert any(Path(n).suffix in (".pdf", ".docx") for n in on_disk)  # the house rules or the procedure
        m = t.meta
        assert m["generator_version"] == common.GENERATOR_VERSION and m["seed"] == SPLIT_SEED
        assert (t.root / "task_card.md").is_file() and (t.root / "ground_truth" / "solve.py").is_file()
        size = sum(p.stat().st_size for p in t.task_folder.rglob("*") if p.is_file())
        assert size < MAX_TASK_BYTES
        # a profession workflow: generated data, nested folders, traps that cost rubrics
        assert m["workflow"]["key"] == m["scenario"] and m["data_source"]["generated"] is True
        assert m["licence"] == m["data_source"]["licence"] and "generated" in m["licence"]
        assert len({n.split("/")[0] for n in on_disk if "/" in n}) >= 3
        assert m["traps"] and all(trap["loses"] for trap in m["traps"])
    files = [p for t in split_tasks for p in t.task_folder.rglob("*")]
    assert {".csv", ".docx", ".xlsx"} <= {p.suffix for p in files}


def test_report_figures(split_rep):
    rep = split_rep
    assert rep["tasks"] == SPLIT_N and rep["distinct_graded_facts"] == SPLIT_N
    assert 0.4 <= rep["premise_holds_share"] <= 0.6 and 0.4 <= rep["decision_positive_share"] <= 0.6
    repeated = [f for f, n in rep["families"].items() if n >= 2]  # similarity is within a family
    assert [f for f, v in rep["similarity_median_by_family"].items() if v is not None] == repeated
    assert rep["criteria_per_rubric"] >= 2.0
    assert rep["blind_score"]["max"] <= 0.05 and rep["blind_score"]["above_limit"] == 0
    text = format_report(rep)
    for label in ("families", "professions", "data sources", "trap kinds", "premise holds", "similarity", "files per task",
                  "deliverable types", "workflows per profession", "generated data", "data (real or generated, licence)", "blind answers"):
        assert label in text
    assert rep["deliverable_types"].get("csv", 0) >= 1 and set(rep["deliverable_types"]) <= {"csv", "md", "txt", "docx", "xlsx", "pptx"}
    assert all(v.startswith(("real, ", "generated, ")) for v in rep["data_source_licences"].values())


def test_same_seed_same_bytes_and_prefix_stable(seed7_run, tmp_path):
    """A shorter run of the same seed writes the same bytes as the first tasks of a longer one (worker processes
    drawing the same tasks: test_runner); another seed writes others."""
    small = tmp_path / "small"
    generate(2, RUN_SEED, small, judgement=False)
    hs, full = _hashes(small), _hashes(seed7_run)
    assert len(hs) > 2 * 8 and all(full.get(k) == v for k, v in hs.items())
    c = tmp_path / "c"
    generate(1, RUN_SEED + 1, c, judgement=False)
    graded = {v for k, v in hs.items() if k.endswith("RUBRICS.json")}
    assert len(graded) == 2 and {v for k, v in _hashes(c).items() if k.endswith("RUBRICS.json")}.isdisjoint(graded)


def test_ground_truth_reexecutes_identically(split_tasks, tmp_path):
    for t in one_per_family(split_tasks)[:5]:
        out = tmp_path / t.occupation / f"task{t.number}"
        proc = subprocess.run([sys.executable, str(t.root / "ground_truth" / "solve.py"), str(t.task_folder), str(out)],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert _hashes(out) == _hashes(t.root / "ground_truth" / "outputs")


def test_checks_judge_scores_ground_truth_one_and_nothing_zero(split_tasks):
    judge = make_judge("checks")
    empty = Path(tempfile.mkdtemp())
    for t in split_tasks:
        assert t.has_checks
        rep = judge.grade_sync(t, t.root / "ground_truth" / "outputs")
        assert rep.status == "ok" and rep.normalized_score == 1.0, (t.id, rep.error)
        assert not any(row and all(row) for row in grade_checks(t.rubrics, empty)), t.id


def test_judgement_rubrics_are_marked_for_the_llm_judge(tmp_path):
    from jobenv.tasks import load_task_dir

    for p in generate(2, 5, tmp_path):
        t = load_task_dir(p, "synthetic")
        llm = [r for r in t.rubrics if r.checks and all(c.kind == "llm" for c in r.checks)]
        facts = [r for r in t.rubrics if r not in llm]
        # a workflow judges its own method and reasoning, in one or two rubrics
        assert 1 <= len(llm) <= 2 and all(len(r.criteria) >= 2 for r in llm) and len(facts) >= 5
        assert not t.has_checks and t.llm_criteria
        assert all(all(c.kind != "llm" for c in r.checks or []) for r in facts)
        res = grade_checks(t.rubrics, t.root / "ground_truth" / "outputs")
        assert all(x is True for r, row in zip(t.rubrics, res) if r in facts for x in row)
        assert all(x is None for r, row in zip(t.rubrics, res) if r in llm for x in row)


def test_cli_generate_prints_the_split_report(tmp_path, capsys):
    from jobenv.cli import main

    assert main(["generate", "--n", "2", "--seed", "3", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "generated 2 tasks" in out and "instruction similarity" in out and "premise holds" in out
    assert len(list((tmp_path / "o").glob("*/task*/RUBRICS.json"))) == 2
    assert not (tmp_path / "o" / ".staging").exists()


def test_ensure_default_split_is_idempotent(tmp_path):
    dest = tmp_path / "split"
    assert synthetic.ensure_default_split(dest, n=2, seed=4) == dest
    marker = dest / ".jobenv-synthetic.json"
    stamp = marker.stat().st_mtime_ns
    before = _hashes(dest)
    synthetic.ensure_default_split(dest, n=2, seed=4)
    assert marker.stat().st_mtime_ns == stamp and _hashes(dest) == before
    synthetic.ensure_default_split(dest, n=3, seed=4)
    assert json.loads(marker.read_text())["n"] == 3
    assert len(list(dest.glob("*/task*/RUBRICS.json"))) == 3


def test_negative_n_is_a_clear_error(tmp_path):
    from jobenv.errors import JobenvError

    with pytest.raises(JobenvError, match="n must be >= 0"):
        generate(-1, 0, tmp_path)


def test_no_answer_label_is_common_to_the_split(split_tasks):
    from collections import Counter

    seen = Counter(label for t in split_tasks
                   for label in set(re.findall(r"^\s+([^:\n]+): <", t.instructions, re.M)))
    assert seen and max(seen.values()) < len(split_tasks), seen.most_common(3)
