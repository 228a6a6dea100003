"""``jobenv calibrate``: two judges over a finished run's saved deliverables (a real rollout with the checks judge,
an LLM judge played by a scripted server on loopback), agreement, flip rates and cost checked against what the
scripted judge was made to answer."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from jobenv.errors import JobenvError
from jobenv.rollout import OpenAIChatPolicy, calibrate_sync, collect_sync, read_trajectories
from tests.judge.conftest import n_criteria, verdict
from tests.support.openai_server import OpenAIServer


@pytest.fixture
def run_file(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> tuple[Path, list[Any]]:
    srv, _agent = policy_server()
    out = tmp_path / "run.jsonl"
    chosen = sample_tasks[:3]
    policy = OpenAIChatPolicy("scripted-model", base_url=srv.base_url, api_key="k", max_retries=2)
    collect_sync("jobenv/sample", policy, tasks=[t.id for t in chosen], out=out,
                 env_kwargs={"sandbox": "local", "judge": "checks"})
    return out, chosen


def _even_criteria_pass(req: dict[str, Any]) -> str:
    n = n_criteria(req)
    return json.dumps(verdict(n, [j % 2 == 0 for j in range(n)]))


class Alternating:
    """Each (rubric, deliverables) pair is answered all-pass, then all-fail, then all-pass...: a judge that flips."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, req: dict[str, Any]) -> str:
        key = hashlib.sha256(json.dumps(req["messages"], sort_keys=True).encode()).hexdigest()
        with self.lock:
            count = self.seen[key] = self.seen.get(key, 0) + 1
        n = n_criteria(req)
        return json.dumps(verdict(n, [count % 2 == 1] * n))


def _judge_env(srv: OpenAIServer) -> dict[str, str]:
    return {"JOBENV_JUDGE_BASE_URL": srv.base_url, "JOBENV_JUDGE_API_KEY": "k", "JOBENV_JUDGE_MODEL": "judge-m"}


def test_checks_against_a_scripted_llm_judge(run_file, monkeypatch, tmp_path: Path) -> None:
    path, chosen = run_file
    checks_verdicts = {}
    for t in read_trajectories(path, full_reports=True):
        for c in t.criteria_credit():
            checks_verdicts[(t.task_id, c["rubric"], c["index"])] = c["passed"]
    expected = sum(v == (key[2] % 2 == 0) for key, v in checks_verdicts.items()) / len(checks_verdicts)
    with OpenAIServer(_even_criteria_pass) as srv:
        for k, v in _judge_env(srv).items():
            monkeypatch.setenv(k, v)
        report = calibrate_sync(path, ["checks", "llm"], repeats=2)
        cli = subprocess.run([sys.executable, "-m", "jobenv.cli", "calibrate", str(path), "--judge", "checks",
                              "--judge", "llm", "--repeats", "2", "--json", str(tmp_path / "cal.json")],
                             capture_output=True, text=True, timeout=600, env={**os.environ, **_judge_env(srv)})
        calls = len(srv.requests)
    assert report.episodes == 3 and report.compared == len(checks_verdicts)
    assert report.agreement == pytest.approx(expected, abs=1e-4)
    checks, llm = report.judges
    assert (checks.judge, checks.gradings, checks.errors, checks.flip_rate) == ("checks", 6, 0, 0.0)
    assert checks.calls_per_episode == 0 and checks.tokens_per_episode == 0
    rubrics_per_episode = sum(len(t.rubrics) for t in chosen) / 3
    assert llm.flip_rate == 0.0 and llm.calls_per_episode == pytest.approx(rubrics_per_episode, abs=1e-3)
    assert llm.tokens_per_episode == pytest.approx(15 * rubrics_per_episode, abs=0.1)  # the server's usage
    assert calls == 2 * 2 * sum(len(t.rubrics) for t in chosen)  # no verdict cache: every repeat is a real call
    for c in report.criteria:  # per criterion: the scripted answer against the checks verdict
        assert c.agreement == (1.0 if checks_verdicts[(c.task_id, c.rubric, c.index)] == (c.index % 2 == 0) else 0.0)
    assert cli.returncode == 0, cli.stderr[-2000:]
    saved = json.loads((tmp_path / "cal.json").read_text())
    assert saved["agreement"] == pytest.approx(report.agreement) and saved["schema_version"] == 1
    assert "agreement:" in cli.stdout and "flip rate" in cli.stdout


def test_a_judge_that_flips_is_measured(run_file, monkeypatch) -> None:
    path, _ = run_file
    with OpenAIServer(Alternating()) as srv:
        for k, v in _judge_env(srv).items():
            monkeypatch.setenv(k, v)
        report = calibrate_sync(path, ["llm", "llm:judge-m"], repeats=2, concurrency=1)
    assert [j.flip_rate for j in report.judges] == [1.0, 1.0]  # every criterion passed once and failed once
    assert report.agreement == 1.0  # a tie is a fail for both


def test_bad_arguments_fail_before_grading(run_file, tmp_path: Path) -> None:
    path, _ = run_file
    with pytest.raises(JobenvError, match="exactly two judges"):
        calibrate_sync(path, ["checks"])
    with pytest.raises(JobenvError, match="unknown judge 'gpt'"):
        calibrate_sync(path, ["checks", "gpt"])
    with pytest.raises(JobenvError, match="no model"):
        calibrate_sync(path, ["checks:x", "llm"])
    bad = subprocess.run([sys.executable, "-m", "jobenv.cli", "calibrate", str(path), "--judge", "checks",
                          "--repeats", "0"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


def test_calibrate_fails_when_no_judge_call_succeeds(run_file, tmp_path: Path) -> None:
    """A judge endpoint that is not there fails before any grading (exit 2, one line); one that is there but
    refuses every grading call gives a report whose every LLM grading errored, and the CLI exits 1 saying so."""
    from tests.support.openai_server import Reply
    from tests.support.ports import free_port

    path, _ = run_file
    dead = {"JOBENV_JUDGE_BASE_URL": f"http://127.0.0.1:{free_port()}/v1", "JOBENV_JUDGE_API_KEY": "k",
            "JOBENV_JUDGE_MODEL": "judge-m"}
    args = [sys.executable, "-m", "jobenv.cli", "calibrate", str(path), "--judge", "checks", "--judge", "llm"]
    cli = subprocess.run(args, capture_output=True, text=True, timeout=600, env={**os.environ, **dead})
    assert cli.returncode == 2 and "Traceback" not in cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1 and "unreachable" in cli.stderr
    with OpenAIServer(lambda req: Reply(status=403)) as srv:  # the model is listed; every completion is refused
        cli = subprocess.run(args, capture_output=True, text=True, timeout=600, env={**os.environ, **_judge_env(srv)})
        assert srv.requests  # graded, and every call failed
    assert cli.returncode == 1, cli.stderr[-2000:]
    assert "every grading by judge 'llm' failed" in cli.stderr and "HTTP 403" in cli.stderr
