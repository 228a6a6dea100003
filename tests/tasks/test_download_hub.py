"""``jobenv download`` against a Hub on loopback, through the real ``huggingface_hub`` client (``HF_ENDPOINT``).

The command runs as a user runs it (a subprocess); the server is the Hub API subset in ``tests.support.hub_server``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.hub_server import HubServer
from tests.support.tasks import write_task

REPO_ID = "JobBench/job-bench"


def _snapshot(root: Path) -> Path:
    for folder, names in (("dataset", ["lawyers/task1", "lawyers/task2"]), ("dataset_easy", ["nurses/task1"])):
        for name in names:
            write_task(root / folder / name, instructions=f"Compute the total for {folder}/{name}.\n\nLocal Reference Files:\n- data.csv\n")
    (root / "README.md").write_text("dataset card (not downloaded: outside dataset/**)")
    return root


def _download(hub: HubServer, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_ENDPOINT": hub.endpoint, "HF_HUB_OFFLINE": "0", "HF_HUB_DISABLE_TELEMETRY": "1",
           "HF_HUB_ETAG_TIMEOUT": "30", "HF_HUB_DOWNLOAD_TIMEOUT": "30"}
    env.pop("HF_TOKEN", None)
    return subprocess.run([sys.executable, "-m", "jobenv.cli", "download", "--data-dir", str(data), *args],
                          capture_output=True, text=True, timeout=300, env=env)


def _error_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The one error line (besides the client's progress bars), checked to be the only one, last."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("jobenv download: error:")]
    assert len(errors) == 1 and lines[-1] == errors[0] and "Traceback" not in proc.stderr, proc.stderr
    return errors


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    return _snapshot(tmp_path / "snapshot")


def test_a_pinned_revision_downloads_verifies_and_imports(snapshot: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    with HubServer(REPO_ID, snapshot) as hub:
        proc = _download(hub, data, "--revision", hub.commit)
        assert proc.returncode == 0, proc.stderr[-2000:]
        manifest = json.loads((data / "jobbench" / "manifest.json").read_text())
        assert manifest["revision"] == hub.commit and manifest["counts"] == {"main": 2, "easy": 1}
        assert manifest["invalid"] == {}
        for rel in ("lawyers/task1", "lawyers/task2"):
            for f in (snapshot / "dataset" / rel).rglob("*"):
                if f.is_file():
                    got = data / "jobbench" / "main" / rel / f.relative_to(snapshot / "dataset" / rel)
                    assert got.read_bytes() == f.read_bytes()
        assert not any("README.md" in path for _, path, _ in hub.requests)  # only dataset/** is fetched
        # a branch name resolves to its commit, and the manifest records the commit
        again = _download(hub, tmp_path / "data2", "--revision", "main")
        assert again.returncode == 0, again.stderr[-2000:]
        assert json.loads((tmp_path / "data2" / "jobbench" / "manifest.json").read_text())["revision"] == hub.commit


def test_a_wrong_revision_fails_with_one_line_and_imports_nothing(snapshot: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    with HubServer(REPO_ID, snapshot) as hub:
        proc = _download(hub, data, "--revision", "0" * 40)
    assert proc.returncode == 2
    lines = _error_lines(proc)
    assert "RevisionNotFound" in lines[0] and "0" * 40 in lines[0]
    assert not (data / "jobbench" / "manifest.json").exists()


def test_a_corrupted_file_fails_with_one_line_then_a_clean_rerun_succeeds(snapshot: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    bad = "dataset/lawyers/task2/task_folder/TASK_INSTRUCTIONS.txt"  # content no other file shares
    with HubServer(REPO_ID, snapshot, corrupt={bad}) as hub:
        proc = _download(hub, data, "--revision", hub.commit)
    assert proc.returncode == 2
    lines = _error_lines(proc)
    assert bad in lines[0] and "differ from the Hub's checksums" in lines[0] and "git-sha1" in lines[0]
    assert not (data / "jobbench" / "manifest.json").exists()
    # the bad file left the cache, so the same command against a healthy hub fetches it again and completes
    with HubServer(REPO_ID, snapshot) as hub:
        proc = _download(hub, data, "--revision", hub.commit)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert [p for m, p, _ in hub.requests if m == "GET" and p.endswith(bad)], "the bad file was not fetched again"
    assert json.loads((data / "jobbench" / "manifest.json").read_text())["counts"] == {"main": 2, "easy": 1}


def test_an_interrupted_file_resumes_where_it_stopped(snapshot: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    big = snapshot / "dataset/lawyers/task1/task_folder/ledger.csv"
    big.parent.mkdir(parents=True, exist_ok=True)
    # larger than the client's 10 MiB write chunk, so a cut after it leaves bytes on disk to resume from
    big.write_text("".join(f"{i},entry {i:08d},{i * 3.5:.2f}\n" for i in range(400_000)))
    rel = big.relative_to(snapshot).as_posix()
    cut = big.stat().st_size - 500_000
    with HubServer(REPO_ID, snapshot, cut_once={rel: cut}) as hub:
        proc = _download(hub, data, "--revision", hub.commit)
        assert proc.returncode == 0, proc.stderr[-2000:]
        ranges = [r for m, p, r in hub.requests if m == "GET" and p.endswith(rel)]
    assert len(ranges) == 2 and ranges[0] is None and ranges[1] is not None, ranges
    resumed_at = int(ranges[1].removeprefix("bytes=").removesuffix("-"))
    assert 0 < resumed_at <= cut  # the second request asked only for what was missing
    got = data / "jobbench" / "main" / "lawyers/task1/task_folder/ledger.csv"
    assert got.read_bytes() == big.read_bytes()
