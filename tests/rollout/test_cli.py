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
            "--tasks", *ids, "--attempts", "2", "--concurrency", "4", "--start-concurrency", "1", "--judge", "checks",
            "--out", str(out)]
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
    proc = _jobenv("rollout", "jobenv/sample", "--model", "m", "--base-url", "http://127.0.0.1:1/v1", "--out", str(out),
                   "--start-concurrency", "0")
    assert proc.returncode == 2 and "--start-concurrency" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 2  # argparse's usage line and the one error line
    proc = _jobenv("rollout", "--help")
    assert proc.returncode == 0 and "--attempts" in proc.stdout and "--start-concurrency" in proc.stdout


def test_rollout_cli_on_a_task_folder_with_logprobs_progress_and_80_columns(policy_server: Any, sample_tasks: list[Any],
                                                                          tmp_path: Path, jobenv_cli: Any) -> None:
    import re
    import shutil

    srv, _ = policy_server(hold_s=0.15)
    folder = tmp_path / "mine"
    for t in sample_tasks[:3]:
        shutil.copytree(t.root, folder / t.occupation / f"task{t.number}")
    out = tmp_path / "t.jsonl"
    proc = jobenv_cli("rollout", str(folder), "--model", "m", "--base-url", srv.base_url, "--judge", "checks",
                      "--attempts", "2", "--concurrency", "2", "--logprobs", "--progress-every", "0.5", "--out", str(out),
                      env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    # not a terminal: steady plain progress lines, the last one complete
    lines = [ln for ln in proc.stderr.splitlines() if re.match(rf"rollout {re.escape(str(folder))}: \d+/6 episodes", ln)]
    assert len(lines) >= 2 and "6/6 episodes (0 resumed), 0 errors, mean reward 1.000" in lines[-1], proc.stderr[-2000:]
    # the summary fits 80 columns and every task id is readable whole
    assert max(len(ln) for ln in proc.stdout.splitlines()) <= 80, proc.stdout
    for t in sample_tasks[:3]:
        assert re.search(rf"^\s*{re.escape(t.id)}\s", proc.stdout, re.M), proc.stdout
    trajs = episode_records(out)
    assert len(trajs) == 6 and {r["env_id"] for r in trajs} == {str(folder)}
    assert all(c["token_ids"] and c["logprobs"] for r in trajs for c in r["completions"])
    assert all(r["versions"]["dataset"] for r in trajs)
