"""``jobenv check``: a task author's check over the fixture corpus (tests/harbor/fixtures), on the local backend and
on Docker, and over tasks broken in each way the check exists to catch."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jobenv.harbor.check import all_passed, check_path, render_table

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = ["hello-world", "invoice-total", "ledger-checks"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobenv.cli", "check", *args], capture_output=True, text=True,
                          timeout=600)


def _copy(tmp_path: Path, *names: str) -> Path:
    root = tmp_path / "tasks"
    for name in names:
        shutil.copytree(FIXTURES / name, root / name)
    return root


def test_every_fixture_passes_on_the_local_backend(tmp_path: Path) -> None:
    import json

    res = _cli(str(FIXTURES), "--json", str(tmp_path / "check.jsonl"))
    assert res.returncode == 0, res.stdout + res.stderr
    rows = {line.split()[0]: line.split() for line in res.stdout.splitlines()[1:len(NAMES) + 1]}
    assert sorted(rows) == NAMES
    for cells in rows.values():
        assert cells[1:4] == ["yes", "1.000", "0.000"] and cells[-1] == "ok"
    assert res.stdout.splitlines()[0].split() == ["task", "loads", "oracle", "no-op", "time", "verdict"]
    assert "3/3 tasks passed" in res.stdout
    saved = [json.loads(line) for line in (tmp_path / "check.jsonl").read_text().splitlines()]
    assert [(r["task"], r["oracle_reward"], r["noop_reward"], r["schema_version"]) for r in saved] == [
        (n, 1.0, 0.0, 1) for n in NAMES]


def test_one_task_directory_and_partial_credit(tmp_path: Path) -> None:
    (result,) = check_path(FIXTURES / "ledger-checks")
    assert result.passed and result.oracle_reward == 1.0 and result.noop_reward == 0.0
    # half the work earns half the reward.json reward: the check reports what the tests say
    root = _copy(tmp_path, "ledger-checks")
    solve = root / "ledger-checks" / "solution" / "solve.sh"
    solve.write_text(solve.read_text().replace("| sort > /work/out/over.txt", "| sort -r > /work/out/over.txt"))
    (half,) = check_path(root)
    assert half.oracle_reward == 0.5 and not half.passed


def test_broken_tasks_fail_the_check_each_with_its_reason(tmp_path: Path) -> None:
    root = _copy(tmp_path, "hello-world", "invoice-total", "ledger-checks")
    # a wrong reference solution
    (root / "hello-world" / "solution" / "solve.sh").write_text("#!/bin/bash\necho 'Hello, World' > /app/hello.txt\n")
    # a test that pays for doing nothing
    (root / "invoice-total" / "tests" / "test.sh").write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
    # no reference solution at all
    shutil.rmtree(root / "ledger-checks" / "solution")
    # and a task that does not load, beside the others
    (root / "bad").mkdir()
    (root / "bad" / "task.toml").write_text("[agent\n")
    (root / "bad" / "instruction.md").write_text("do it\n")
    results = {r.task: r for r in check_path(root)}
    assert not all_passed(list(results.values())) and not any(r.passed for r in results.values())
    assert results["hello-world"].oracle_reward == 0.0 and results["hello-world"].noop_reward == 0.0
    assert results["invoice-total"].oracle_reward == 1.0 and results["invoice-total"].noop_reward == 1.0
    assert results["ledger-checks"].oracle_status is None and "no solution/solve.sh" in (results["ledger-checks"].error or "")
    assert not results["bad"].loads and "task.toml" in (results["bad"].error or "")
    table = render_table(list(results.values()))
    assert table.count("FAIL") == 4 and "0/4 tasks passed" in table
    res = _cli(str(root))
    assert res.returncode == 1 and "0/4 tasks passed" in res.stdout


def test_an_oracle_that_fails_shows_its_output(tmp_path: Path) -> None:
    root = _copy(tmp_path, "hello-world")
    (root / "hello-world" / "solution" / "solve.sh").write_text("#!/bin/bash\necho solver-broke-here >&2\nexit 4\n")
    (result,) = check_path(root)
    assert not result.passed and "solver-broke-here" in result.oracle_log and "exit=4" in result.oracle_log
    assert "oracle output:" in render_table([result])


def test_bad_arguments_are_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for args in ([str(tmp_path / "missing")], [str(tmp_path / "empty")], [str(FIXTURES), "--sandbox", "bogus"], [],
                 [str(FIXTURES), "--sandbox-image", "x:y"]):
        res = _cli(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr, res.stderr


@pytest.mark.docker
@pytest.mark.slow
def test_every_fixture_passes_on_docker(tmp_path: Path, docker_image: str) -> None:
    """The same tasks built as their images on the local engine (their FROM line pointed at the test base image,
    as no registry is reachable) and run on the docker backend."""
    root = _copy(tmp_path, *NAMES)
    for name in NAMES:
        dockerfile = root / name / "environment" / "Dockerfile"
        dockerfile.write_text(dockerfile.read_text().replace("FROM debian:bookworm-slim", f"FROM {docker_image}"))
    results = check_path(root, sandbox="docker")
    assert [(r.task, r.loads, r.oracle_reward, r.noop_reward) for r in results] == [
        (n, True, 1.0, 0.0) for n in NAMES], render_table(results)
    assert all_passed(results)


def test_solve_sh_runs_by_its_interpreter_line(tmp_path: Path) -> None:
    root = _copy(tmp_path, "hello-world")
    (root / "hello-world" / "solution" / "solve.sh").write_text(
        "#!/usr/bin/env python3\nimport os\nopen('hello.txt', 'w').write('Hello, world!\\n')\nprint(os.environ['PWD'])\n")
    (result,) = check_path(root)
    assert result.passed and result.oracle_reward == 1.0, render_table([result])
    assert result.oracle_log.strip() == "/app"  # run from the task's workdir
