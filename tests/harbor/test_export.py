"""``jobenv export-harbor``: jobenv tasks as Harbor task directories, and the round trip back through jobenv's
Harbor runner (the same deliverables earn the same reward as the native episode)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import jobenv
from jobenv.demo import solution_actions
from jobenv.harbor.export import EXPORT_MARKER, export_all, is_jobenv_export


def _episode(env_id: str, task_id: str, actions: list[dict[str, Any]]) -> tuple[float, str]:
    env = jobenv.make(env_id, judge="auto")
    try:
        env.reset(options={"task_id": task_id})
        info: dict[str, Any] = {}
        reward = 0.0
        for action in actions:
            _, reward, terminated, _, info = env.step(action)
            if terminated:
                break
        return reward, info["status"]
    finally:
        env.close()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from jobenv.episode.rules import EpisodeRules

    out = tmp_path_factory.mktemp("harbor-export")
    export_all(jobenv.load_tasks("jobenv/sample"), out, rules=EpisodeRules())
    return out


def test_every_sample_task_is_written_as_a_harbor_directory(exported: Path) -> None:
    sample = jobenv.load_tasks("jobenv/sample")
    dirs = sorted(p.name for p in exported.iterdir())
    assert dirs == sorted(f"sample__{t.occupation}__task{t.number}" for t in sample)
    for t in sample:
        d = exported / f"sample__{t.occupation}__task{t.number}"
        test_sh = (d / "tests" / "test.sh").read_text()
        assert test_sh.startswith("#!/bin/bash\n" + EXPORT_MARKER) and os.access(d / "tests" / "test.sh", os.X_OK)
        assert is_jobenv_export(d / "tests")
        assert "/workspace/task_folder" in (d / "instruction.md").read_text()
        assert t.instructions.strip()[:200] in (d / "instruction.md").read_text()
        copied = sorted(p.relative_to(d / "environment" / "task_folder") for p in (d / "environment" / "task_folder").rglob("*"))
        assert copied == sorted(p.relative_to(t.task_folder) for p in t.task_folder.rglob("*"))
        # the agent never sees the rubrics: they are only in tests/, which Harbor copies in after the agent is done
        assert not list((d / "environment").rglob("RUBRICS.json")) and (d / "tests" / "RUBRICS.json").is_file()
        # the wheel test.sh installs (no index has jobenv), and the reference solution for Harbor's oracle
        assert (d / "tests" / f"jobenv-{jobenv.__version__}-py3-none-any.whl").is_file()
        assert f"/tests/jobenv-{jobenv.__version__}-py3-none-any.whl" in test_sh and "pip install \"jobenv" not in test_sh
        assert (d / "solution" / "solve.py").read_bytes() == (t.solution / "solve.py").read_bytes()
        assert os.access(d / "solution" / "solve.sh", os.X_OK)
        assert "python3 /solution/solve.py /workspace/task_folder /workspace/output" in (d / "solution" / "solve.sh").read_text()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # jobenv's own reader finds no key it does not apply
        tasks = jobenv.load_tasks(str(exported))
    assert all(t.harbor is not None and t.harbor.workdir == "/workspace" for t in tasks)
    assert sorted(p.name for p in tasks[0].task_folder.iterdir()) == ["output", "task_folder"]


@pytest.mark.parametrize("task_id", ["financial_managers/task1", "biostatisticians/task1", "purchasing_agents/task1"])
def test_the_round_trip_earns_the_native_reward_for_the_same_deliverables(exported: Path, task_id: str) -> None:
    (native,) = [t for t in jobenv.load_tasks("jobenv/sample") if t.id == task_id]
    harbor_id = f"sample__{native.occupation}__task1/task1"
    solved = solution_actions(native)
    assert _episode(str(exported), harbor_id, solved) == _episode("jobenv/sample", task_id, solved) == (1.0, "ok")
    # a partial deliverable: only the first of the solution's files is written, then it is run and submitted
    sloppy = [{"name": "bash", "arguments": {"command": "mkdir -p output && echo 'Done; see attached.' > output/memo.md"}},
              {"name": "submit", "arguments": {}}]
    assert _episode(str(exported), harbor_id, sloppy) == _episode("jobenv/sample", task_id, sloppy)


def test_the_command_line(tmp_path: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "jobenv.cli", "export-harbor", *args], capture_output=True,
                              text=True, timeout=300)

    ok = cli("jobenv/sample", "--out", str(tmp_path / "x"), "--tasks", "financial_managers/task1", "--max-steps", "40")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip().endswith("1 Harbor task directory in " + str(tmp_path / "x"))
    assert "40 tool calls" in (tmp_path / "x" / "sample__financial_managers__task1" / "instruction.md").read_text()
    for bad in (["jobenv/sample", "--out", str(tmp_path / "y"), "--network", "bogus"],
                ["no/such-env", "--out", str(tmp_path / "y")],
                ["jobenv/sample", "--out", str(tmp_path / "y"), "--wheel", str(tmp_path / "jobenv-0.1.0-py3-none-any.whl")],
                ["jobenv/sample"]):
        res = cli(*bad)
        assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


def test_the_bundled_wheel_is_the_running_jobenv_with_its_requirements(exported: Path, tmp_path: Path) -> None:
    import tomllib
    import zipfile

    wheel = next(exported.glob("*/tests/*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        info = f"jobenv-{jobenv.__version__}.dist-info"
        meta = zf.read(f"{info}/METADATA").decode()
        entry_points = zf.read(f"{info}/entry_points.txt").decode()
        record = zf.read(f"{info}/RECORD").decode()
    here = Path(jobenv.__file__).parent
    shipped = {f"jobenv/{p.relative_to(here).as_posix()}" for p in here.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert shipped <= names and not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    assert "jobenv/judge/prompts/" in " ".join(names) and "jobenv/cli/judge.py" in names
    import re

    def name(requirement: str) -> str:
        return re.match(r"[A-Za-z0-9_.-]+", requirement.strip()).group(0).lower().replace("_", "-")  # type: ignore[union-attr]

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    required = {name(line.split(":", 1)[1]) for line in meta.splitlines()
                if line.startswith("Requires-Dist:") and "extra ==" not in line}
    assert {name(r) for r in project["dependencies"]} == required
    assert "jobenv = jobenv.cli.main:main" in entry_points
    assert len(record.splitlines()) == len(names)


def test_a_given_wheel_is_bundled_and_must_be_this_jobenv(exported: Path, tmp_path: Path) -> None:
    import zipfile

    from jobenv.episode.rules import EpisodeRules
    from jobenv.errors import JobenvError

    tasks = [t for t in jobenv.load_tasks("jobenv/sample") if t.id == "financial_managers/task1"]
    given = tmp_path / f"jobenv-{jobenv.__version__}-py3-none-any.whl"
    given.write_bytes(next(exported.glob("*/tests/*.whl")).read_bytes())  # a copy, marked below
    with zipfile.ZipFile(given, "a") as zf:
        zf.writestr("jobenv/GIVEN.txt", "the user's wheel")
    (written,) = export_all(tasks, tmp_path / "ok", rules=EpisodeRules(), wheel=given)
    assert (written / "tests" / given.name).read_bytes() == given.read_bytes()
    other = tmp_path / "jobenv-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("jobenv-9.9.9.dist-info/METADATA", "Name: jobenv\nVersion: 9.9.9\n")
    with pytest.raises(JobenvError, match="9.9.9"):
        export_all(tasks, tmp_path / "a", rules=EpisodeRules(), wheel=other)
    (tmp_path / "notes.whl").write_text("not a wheel")
    with pytest.raises(JobenvError, match="not a jobenv wheel"):
        export_all(tasks, tmp_path / "b", rules=EpisodeRules(), wheel=tmp_path / "notes.whl")
    fake = tmp_path / "x" / f"jobenv-{jobenv.__version__}-py3-none-any.whl"
    fake.parent.mkdir()
    fake.write_text("not a zip")
    with pytest.raises(JobenvError, match="not a readable jobenv wheel"):
        export_all(tasks, tmp_path / "c", rules=EpisodeRules(), wheel=fake)


def test_jobenv_check_passes_an_exported_task(exported: Path) -> None:
    """The export's solution/ is what `jobenv check` runs as the oracle: it earns full credit, a no-op none."""
    from jobenv.harbor.check import check_path, render_table

    (result,) = check_path(exported / "sample__purchasing_agents__task1")
    assert result.passed and (result.oracle_reward, result.noop_reward) == (1.0, 0.0), render_table([result])
