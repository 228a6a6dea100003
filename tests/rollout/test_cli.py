"""`jobenv rollout` and `jobenv report` as a user runs them (subprocesses, the real CLI entry point)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.rollout.helpers import episode_lines, episode_records


def _jobenv(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobenv.cli", *args], capture_output=True, text=True, timeout=timeout)


def test_rollout_cli_collects_resumes_and_reports(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, agent = policy_server()
    ids = [t.id for t in sample_tasks[:2]]
    out = tmp_path / "traj.jsonl"
    args = ["rollout", "jobenv/sample", "--model", "scripted-model", "--base-url", srv.base_url, "--api-key", "k",
            "--tasks", *ids, "--attempts", "2", "--concurrency", "4", "--judge", "checks", "--out", str(out)]
    proc = _jobenv(*args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    recs = episode_records(out)
    assert len(recs) == 4 and {r["status"] for r in recs} == {"ok"} and {r["reward"] for r in recs} == {1.0}
    assert "mean reward" in proc.stdout and "1.000" in proc.stdout and "4 new episode(s), 0 resumed" in proc.stderr
    assert agent.problems == []
    again = _jobenv(*args)
    assert again.returncode == 0 and "0 new episode(s), 4 resumed" in again.stderr
    assert len(episode_lines(out)) == 4
    html = tmp_path / "r.html"
    rep = _jobenv("report", str(out), "--html", str(html))
    assert rep.returncode == 0 and html.is_file() and ids[0] in html.read_text()


def test_rollout_cli_helpful_errors(sample_tasks: list[Any], tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "t.jsonl"
    proc = _jobenv("rollout", "jobenv/sample", "--model", "m", "--base-url", f"http://127.0.0.1:{port}/v1", "--out", str(out))
    assert proc.returncode == 2 and "cannot reach the model endpoint" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = _jobenv("rollout", "no/such-env", "--model", "m", "--base-url", "http://127.0.0.1:1/v1", "--out", str(out))
    assert proc.returncode == 2 and "unknown environment" in proc.stderr and "jobenv/sample" in proc.stderr
    proc = _jobenv("rollout", "jobenv/sample", "--model", "m", "--base-url", "http://127.0.0.1:1/v1", "--out", str(out), "--tasks", "x/task1")
    assert proc.returncode == 2 and "no task 'x/task1'" in proc.stderr
    proc = _jobenv("rollout", "--help")
    assert proc.returncode == 0 and "--attempts" in proc.stdout
