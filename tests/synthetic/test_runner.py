"""A generation run: an interrupted run resumes to the same split, worker processes draw the same tasks, and a
case that spends its gate or duplicate budget moves the index on to another case instead of ending the run."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from jobenv.errors import QualityGateError
from jobenv.synthetic import generator, runner
from jobenv.synthetic.report import format_report, split_report
from jobenv.synthetic.runner import MANIFEST, GenerationStats, case_of, generate

from .conftest import RUN_N as N
from .conftest import RUN_SEED as SEED


def _hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _meta(task: Path) -> dict:
    return json.loads((task / "meta.json").read_text())


class _Stop(Exception):
    pass


def test_an_interrupted_run_resumes_to_the_same_split(seed7_run, tmp_path):
    part = tmp_path / "part"

    def stop_after_two(done: int, n: int, drawn: int) -> None:
        if done == 2:
            raise _Stop

    with pytest.raises(_Stop):
        generate(N, SEED, part, judgement=False, workers=1, progress=stop_after_two)
    assert len(list(part.glob("*/task*/meta.json"))) == 2 and not (part / ".staging").exists()
    stats = GenerationStats()
    generate(N, SEED, part, judgement=False, workers=1, stats=stats)
    assert stats.resumed == 2 and stats.accepted == N
    assert _hashes(part) == _hashes(seed7_run)
    # a kept task whose files changed is drawn again, and so is every task after it
    second = part / json.loads((part / MANIFEST).read_text().splitlines()[2])["path"]
    (second / "meta.json").write_text((second / "meta.json").read_text().replace('"seed": 7', '"seed": 70'))
    stats = GenerationStats()
    generate(N, SEED, part, judgement=False, workers=1, stats=stats)
    assert stats.resumed == 1 and _hashes(part) == _hashes(seed7_run)


def test_worker_processes_draw_the_same_split(seed7_run, tmp_path):
    generate(N, SEED, tmp_path / "par", judgement=False, workers=2)
    assert _hashes(tmp_path / "par") == _hashes(seed7_run)


def test_a_case_that_spends_its_gate_budget_moves_on(seed7_run, tmp_path, monkeypatch):
    first = case_of(SEED, 1, 0)
    assert first is not None
    from jobenv.synthetic.workflows import write as wf_write

    def failing(real):
        def write(*args, **kwargs):
            occupation, key = kwargs["occupation"], args[0].key  # (workflow, draft, task_dir)
            if kwargs["index"] == 1 and (occupation, key) == (first[0], first[1].key):
                raise QualityGateError("probe: forced failure")
            return real(*args, **kwargs)
        return write

    monkeypatch.setattr(wf_write, "write_workflow_task", failing(wf_write.write_workflow_task))
    stats = GenerationStats()
    out = tmp_path / "moved"
    made = generate(2, SEED, out, judgement=False, workers=1, stats=stats)
    assert len(made) == 2 and stats.moved_on == {"gate budget": 1}
    assert stats.rejected.get("probe") == runner.GATE_BUDGET
    second = case_of(SEED, 1, 1)
    assert second is not None
    assert (_meta(made[1])["occupation"], _meta(made[1])["scenario"]) == (second[0], second[1].key)
    assert _hashes(made[0]) == _hashes(seed7_run / made[0].relative_to(out))  # index 0 untouched
    text = format_report(split_report(made, stats))
    assert "moved on to a case   gate budget 1" in text and f"index 1: {first[1].key}" in text


def test_a_case_that_spends_its_duplicate_budget_moves_on(tmp_path, monkeypatch):
    first = case_of(SEED, 1, 0)
    assert first is not None
    real = generator.graded_values

    def values(task_dir: Path) -> frozenset[str]:
        m = _meta(Path(task_dir))
        if m["index"] == 0 or (m["index"] == 1 and (m["occupation"], m["scenario"]) == (first[0], first[1].key)):
            return frozenset({"the same graded value"})
        return real(task_dir)

    monkeypatch.setattr(runner, "DUPLICATE_BUDGET", 2)
    monkeypatch.setattr(generator, "graded_values", values)
    stats = GenerationStats()
    made = generate(2, SEED, tmp_path / "dup", judgement=False, workers=1, stats=stats)
    assert stats.moved_on == {"duplicate budget": 1} and stats.rejected.get("duplicate") == 2
    m = _meta(made[1])
    assert (m["occupation"], m["scenario"]) != (first[0], first[1].key)


def test_the_cli_resumes_and_reports_progress(tmp_path, capsys):
    from jobenv.cli import main

    out = tmp_path / "o"
    assert main(["generate", "--n", "1", "--seed", "3", "--out", str(out), "--checks-only"]) == 0
    capsys.readouterr()
    assert main(["generate", "--n", "2", "--seed", "3", "--out", str(out), "--checks-only",
                 "--progress-every", "1"]) == 0
    got = capsys.readouterr()
    assert "1 kept from an earlier run" in got.out and "generated 2 tasks" in got.out
    assert "generate: 2/2 tasks (100 %)" in got.err and "tasks/s" in got.err
    # another generation's run (another seed) or anything else is refused without --force, and left as it was
    assert main(["generate", "--n", "1", "--seed", "4", "--out", str(out), "--checks-only"]) == 2
    assert len(list(out.glob("*/task*/meta.json"))) == 2
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / "notes.txt").write_text("mine")
    assert main(["generate", "--n", "1", "--seed", "4", "--out", str(tmp_path / "y")]) == 2
    assert (tmp_path / "y" / "notes.txt").read_text() == "mine"
