"""The split registry: ids, downloaded splits, errors that say what to run, and the Hub import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import jobenv
from jobenv.cli import main as cli
from jobenv.datasets import import_snapshot, read_manifest
from jobenv.errors import DatasetNotFoundError, UnknownEnvError
from tests.support.tasks import write_split, write_task

ROOT = Path(__file__).resolve().parents[2]


def hub_snapshot(root: Path, main: list[str], easy: list[str]) -> Path:
    write_split(root / "dataset", main)
    write_split(root / "dataset_easy", easy)
    (root / "README.md").write_text("card")
    return root


def test_list_envs_has_the_five_ids():
    ids = jobenv.list_envs()
    for env_id in ("jobbench/main", "jobbench/easy", "jobbench/all", "jobtasks/train", "jobenv/sample"):
        assert env_id in ids


def test_unknown_env_lists_known_ids():
    with pytest.raises(UnknownEnvError, match="known: jobbench/main"):
        jobenv.load_tasks("jobbench/hard")


def test_missing_split_says_how_to_download(data_dir: Path):
    with pytest.raises(DatasetNotFoundError) as err:
        jobenv.load_tasks("jobbench/main")
    assert "jobenv download" in str(err.value) and str(data_dir) in str(err.value)


def test_from_dir_import_maps_validates_and_writes_manifest(data_dir: Path, tmp_path: Path, capsys):
    snap = hub_snapshot(tmp_path / "snap", ["lawyers/task1", "lawyers/task2"], ["lawyers/task1"])
    write_task(snap / "dataset" / "auditors" / "task1", rubrics={"rubrics": []})  # invalid: skipped, reported
    rc = cli(["download", "--from-dir", str(snap), "--revision", "abc123"])
    assert rc == 1  # some task was invalid
    # the CLI shows each warning as one line
    assert "jobenv download: warning: jobbench main/auditors/task1 is invalid" in capsys.readouterr().err
    manifest = read_manifest(data_dir / "jobbench")
    assert manifest.revision == "abc123" and manifest.repo_id == "JobBench/job-bench"
    assert manifest.counts == {"main": 2, "easy": 1}
    assert list(manifest.invalid) == ["main/auditors/task1"]
    rubric = "main/lawyers/task1/RUBRICS.json"
    assert len(manifest.files[rubric]) == 64
    assert (data_dir / "jobbench" / "main" / "lawyers" / "task2" / "task_card.md").is_file()
    with pytest.warns(UserWarning, match="found 2 tasks, expected 65 .dataset revision abc123"):
        main = jobenv.load_tasks("jobbench/main")
    assert [t.id for t in main] == ["lawyers/task1", "lawyers/task2"]
    assert {t.revision for t in main} == {"abc123"}  # grading reports record it
    with pytest.warns(UserWarning):
        everything = jobenv.load_tasks("jobbench/all")
    assert [t.uid for t in everything] == ["main/lawyers/task1", "main/lawyers/task2", "easy/lawyers/task1"]


def test_list_counts_what_is_on_disk(data_dir: Path, tmp_path: Path, capsys):
    """A partial download is listed as what is there against the published count, invalid tasks left out."""
    from jobenv.registry import availability

    snap = hub_snapshot(tmp_path / "snap", ["lawyers/task1", "lawyers/task2"], ["lawyers/task1"])
    write_task(snap / "dataset" / "auditors" / "task1", rubrics={"rubrics": []})  # invalid: not loadable
    cli(["download", "--from-dir", str(snap), "--revision", "abc123"])
    capsys.readouterr()
    assert [availability(e).count for e in ("jobbench/main", "jobbench/easy", "jobbench/all")] == [
        "2 of 65", "1 of 63", "3 of 128"]
    assert cli(["list"]) == 0
    out = capsys.readouterr().out
    assert "jobbench/main      2 of 65 tasks  downloaded" in out.splitlines()


def test_reimport_replaces_split_whole(data_dir: Path, tmp_path: Path):
    import_snapshot(hub_snapshot(tmp_path / "a", ["x/task1", "x/task2"], []), revision="r1", progress=False)
    import_snapshot(hub_snapshot(tmp_path / "b", ["y/task1"], []), revision="r2", progress=False)
    assert sorted(p.name for p in (data_dir / "jobbench" / "main").iterdir()) == ["y"]
    assert read_manifest(data_dir / "jobbench").revision == "r2"
    assert not list((data_dir / "jobbench").glob(".*"))  # no staging leftovers


def test_official_local_tree_is_accepted(data_dir: Path, tmp_path: Path):
    write_split(tmp_path / "repo" / "dataset" / "main", ["a/task1"])
    write_split(tmp_path / "repo" / "dataset" / "easy", ["b/task1"])
    manifest = import_snapshot(tmp_path / "repo", progress=False)
    assert manifest.counts == {"main": 1, "easy": 1}


def test_download_without_network_fails_clearly(data_dir: Path):
    # HF_HUB_OFFLINE=1 in tests: the real snapshot_download call refuses, and the error says what to do
    with pytest.raises(DatasetNotFoundError, match="--from-dir"):
        from jobenv.datasets import download

        download("jobbench", revision="0" * 40)


def test_download_fails_at_once_when_the_hub_cannot_be_reached(data_dir: Path):
    """An endpoint that refuses the connection (offline, a proxy down) is one clear line, not half a minute of the
    Hub client's retries."""
    from tests.support.ports import free_port

    env = {**os.environ, "HF_HUB_OFFLINE": "0", "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}
    proc = subprocess.run([sys.executable, "-m", "jobenv.cli", "download"], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "the Hub is unreachable" in line and "refused the connection" in line and "--from-dir" in line


def test_download_data_script_runs_the_import(data_dir: Path, tmp_path: Path):
    snap = hub_snapshot(tmp_path / "snap", ["a/task1"], ["a/task1"])
    out = subprocess.run([sys.executable, str(ROOT / "download_data.py"), "--from-dir", str(snap)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "main: 1 tasks" in out.stdout and "easy: 1 tasks" in out.stdout
    assert json.loads((data_dir / "jobbench" / "manifest.json").read_text())["schema_version"] == 1


def test_cli_error_is_one_line(data_dir: Path, capsys):
    assert cli(["tasks", "jobbench/easy"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jobenv tasks: error:") and "Traceback" not in err


def test_import_loads_no_heavy_library():
    code = ("import sys; import jobenv; jobenv.list_envs(); "
            "print([m for m in ('pandas','openai','docker','openreward','gymnasium','pydantic','numpy') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_gymnasium_registration_after_import():
    code = "import jobenv, gymnasium; print(sorted(i for i in gymnasium.registry if i.startswith(('jobbench','jobenv','jobtasks'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "jobbench/main" in out and "jobenv/sample" in out


def test_synthetic_env_generates_from_its_seed(data_dir: Path):
    env = jobenv.make("jobenv/synthetic", seed=3, n=2)
    try:
        assert env.env_id == "jobenv/synthetic" and len(env.tasks) == 2
        assert all(t.split == "synthetic" and t.has_checks and t.meta["seed"] is not None for t in env.tasks)
        again = jobenv.load_tasks("jobenv/synthetic", seed=3, n=2)
        assert [t.instructions for t in again] == [t.instructions for t in env.tasks]
    finally:
        env.close()


def test_jobtasks_train_falls_back_to_generated_split_then_prefers_download(data_dir: Path, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch):
    from jobenv import registry

    # three tasks stand for the default's 24 (the same prefix of the same stream; a draw costs seconds)
    monkeypatch.setattr(registry, "DEFAULT_SYNTHETIC_TASKS", 3)
    with pytest.raises(DatasetNotFoundError, match=r"not generated on this machine yet \(`jobenv tasks jobtasks/train`"):
        jobenv.load_tasks("jobtasks/train", generate=False)  # what a server asks at start-up
    generated = jobenv.load_tasks("jobtasks/train")
    assert len(generated) == 3 and all(t.split == "train" and t.ground_truth for t in generated)
    assert [t.id for t in jobenv.load_tasks("jobtasks/train", generate=False)] == [t.id for t in generated]
    assert (data_dir / "synthetic" / f"seed{registry.TRAIN_STANDIN_SEED}-n3").is_dir()  # cached with the run
    write_split(tmp_path / "jt" / "train", ["auditors/task1", "lawyers/task4"])
    import_snapshot(tmp_path / "jt", dataset="jobtasks", progress=False)
    assert [t.id for t in jobenv.load_tasks("jobtasks/train")] == ["auditors/task1", "lawyers/task4"]


def test_grading_report_records_the_dataset_revision(tmp_path: Path):
    from jobenv.judge import make_judge

    task = jobenv.load_tasks("jobenv/sample")[0]
    (tmp_path / "out").mkdir()
    report = make_judge("checks").grade_sync(task, tmp_path / "out")
    assert report.dataset_revision == f"jobenv-{jobenv.__version__}"


def test_network_is_set_once_per_split() -> None:
    from jobenv.registry import ENV_SPECS

    assert {i: s.official_network for i, s in ENV_SPECS.items() if i.startswith("jobbench/")} == {
        "jobbench/main": "web", "jobbench/easy": "web", "jobbench/all": "web"}
    assert jobenv.make("jobenv/sample", judge="checks", network="official").limits.network == "off"
    env = jobenv.make("jobenv/sample", judge="checks", network="web",
                      limits=jobenv.SandboxLimits(memory_mb=1024))
    assert env.limits.network == "web" and env.limits.memory_mb == 1024  # other limits are kept
    assert jobenv.make("jobenv/sample", judge="checks").limits.network == "off"  # off unless asked
    with pytest.raises(ValueError):
        jobenv.make("jobenv/sample", judge="checks", network="internet")


def test_tasks_command_takes_the_synthetic_seed() -> None:
    run = subprocess.run([sys.executable, "-m", "jobenv.cli", "tasks", "jobenv/synthetic", "--seed", "3", "--n", "2"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.splitlines()) == 2 and "synthetic/" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "jobenv.cli", "tasks", "jobenv/sample", "--seed", "3"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
