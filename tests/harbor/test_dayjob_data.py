"""``jobenv download dayjob-healthcare | dayjob-finance``: a DAYJOB-shaped snapshot (Harbor task directories graded
by judge.toml) downloaded from a Hub on loopback through the real ``huggingface_hub`` client, or imported with
``--from-dir``; validated task by task into the manifest; then served as ``dayjob/healthcare`` and run end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import jobenv
from tests.harbor.test_dayjob import (  # noqa: F401 - the fixture that writes the tasks
    FINANCE,
    FINANCE_PROHIBITED,
    HEALTH,
    HEALTH_PROHIBITED,
    _memo,
    _run,
    _stand_in_judge,
    dayjob,
)
from tests.support.hub_server import HubServer
from tests.support.openai_server import OpenAIServer


def _snapshot(dayjob: Path, root: Path) -> Path:  # noqa: F811
    """The Hub repo's shape: task directories under tasks/, a dataset card, and one broken task."""
    import shutil

    shutil.copytree(dayjob, root / "tasks")
    broken = root / "tasks" / "broken-task"
    shutil.copytree(root / "tasks" / "finance-karoo", broken)
    (broken / "instruction.md").write_text("  \n")
    (root / "README.md").write_text("DAYJOB-shaped test snapshot\n")
    return root


def _cli(data: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobenv.cli", "download", *args, "--data-dir", str(data)],
                          capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})


def test_download_verifies_imports_and_serves_the_tasks(dayjob: Path, tmp_path: Path,  # noqa: F811
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = _snapshot(dayjob, tmp_path / "snapshot")
    data = tmp_path / "data"
    with HubServer("surgeai/DAYJOB-healthcare", snapshot) as hub:
        proc = _cli(data, "dayjob-healthcare", env={"HF_ENDPOINT": hub.endpoint, "HF_HUB_OFFLINE": "0",
                                                    "HF_HUB_DISABLE_TELEMETRY": "1"})
    assert proc.returncode == 1, proc.stderr[-2000:]  # one task is invalid: listed, not imported
    assert f"surgeai/DAYJOB-healthcare@{hub.commit}" in proc.stdout and "tasks: 2 tasks" in proc.stdout
    assert "invalid (skipped): tasks/broken-task:" in proc.stdout and "instruction.md" in proc.stdout
    manifest = json.loads((data / "dayjob-healthcare" / "manifest.json").read_text())
    assert manifest["revision"] == hub.commit and manifest["counts"] == {"tasks": 2}  # the resolved commit
    assert "tasks/healthcare-stroke/tests/judge.toml" in manifest["files"]
    assert not (data / "dayjob-healthcare" / "tasks" / "broken-task").exists()

    monkeypatch.setenv("JOBENV_DATA", str(data))
    with pytest.warns(UserWarning, match="found 2 tasks, expected 50"):
        tasks = jobenv.load_tasks("dayjob/healthcare")
    assert [t.id for t in tasks] == ["finance-karoo/task1", "healthcare-stroke/task1"]
    assert {t.domain for t in tasks} == {"healthcare"}  # DAYJOB's per-domain table groups by the download
    rules = {**HEALTH, **HEALTH_PROHIBITED}
    with OpenAIServer(_stand_in_judge(rules)) as judge, pytest.warns(UserWarning):
        out = _run(Path("dayjob/healthcare"), "healthcare-stroke", _memo(list(HEALTH.values())), monkeypatch,
                   judge.base_url)
    assert out["status"] == "ok" and out["reward"] == 1.0 and out["report"]["criteria_total"] == len(rules)


def test_from_dir_imports_a_snapshot_on_disk(dayjob: Path, tmp_path: Path,  # noqa: F811
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = _snapshot(dayjob, tmp_path / "snapshot")
    (snapshot / "tasks" / "broken-task").rename(tmp_path / "set-aside")
    data = tmp_path / "data"
    proc = _cli(data, "--dataset", "dayjob-finance", "--from-dir", str(snapshot), "--revision", "abc123")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "surgeai/DAYJOB-finance@abc123" in proc.stdout
    monkeypatch.setenv("JOBENV_DATA", str(data))
    rules = {**FINANCE, **FINANCE_PROHIBITED}
    with OpenAIServer(_stand_in_judge(rules)) as judge, pytest.warns(UserWarning, match="expected 80"):
        out = _run(Path("dayjob/finance"), "finance-karoo", _memo([p for p in FINANCE.values()
                                                                   if p != "premise is contradicted"]),
                   monkeypatch, judge.base_url)
    assert out["status"] == "ok" and out["reward"] == 0.0  # the premise accepted: strict all_pass fails


@pytest.mark.parametrize("args,problem", [
    (["dayjob-finance", "--from-dir", "/no/such/snapshot"], "no such directory"),
    (["dayjob-finance", "--dataset", "jobbench"], "two datasets named"),
    (["dayjob-tax"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], problem: str) -> None:
    proc = _cli(tmp_path / "data", *args)
    assert proc.returncode == 2 and problem in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "data" / "dayjob-finance" / "manifest.json").exists()


def test_no_hub_is_one_line_naming_the_way_round(tmp_path: Path) -> None:
    proc = _cli(tmp_path / "data", "dayjob-finance", env={"HF_HUB_OFFLINE": "1"})
    assert proc.returncode == 2 and "could not download surgeai/DAYJOB-finance" in proc.stderr
    assert "--from-dir" in proc.stderr and "Traceback" not in proc.stderr


def test_not_downloaded_names_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBENV_DATA", str(tmp_path))
    with pytest.raises(jobenv.errors.DatasetNotFoundError, match="jobenv download dayjob-healthcare"):
        jobenv.make("dayjob/healthcare")
