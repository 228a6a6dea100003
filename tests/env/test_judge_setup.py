"""A judge that cannot grade a task fails before any episode: at ``make()``/``JobEnv(...)``, in ``collect`` and in
``jobenv rollout`` (one line, exit 2), never as an error after the agent's work.

Tasks are real folders; no judge endpoint is configured (the test session clears ``JOBENV_JUDGE_*``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import jobenv
from jobenv.env import JobEnv
from jobenv.errors import JobenvError, JudgeConfigError
from jobenv.rollout import OpenAIChatPolicy, collect_sync
from jobenv.tasks import load_task_dir
from tests.support.openai_server import OpenAIServer
from tests.support.tasks import write_task

LLM_RUBRIC = {"rubric": "Explains the variance", "weight": 5, "criterion": ["Names the main driver of the variance"]}
CHECKED_RUBRIC = {"rubric": "Reports the total", "weight": 5, "criterion": ["States 200"],
                  "jobenv_checks": [{"kind": "number", "file": "report.md", "value": 200}]}


def _task(root: Path, name: str, rubrics: list[dict]) -> jobenv.Task:
    return load_task_dir(write_task(root / "occ" / name, rubrics={"rubrics": rubrics}, extras=False), "test")


def test_auto_without_an_endpoint_refuses_llm_graded_tasks_at_construction(tmp_path: Path) -> None:
    needs_llm = _task(tmp_path, "task1", [CHECKED_RUBRIC, LLM_RUBRIC])
    checked = _task(tmp_path, "task2", [CHECKED_RUBRIC])
    with pytest.raises(JudgeConfigError) as err:
        JobEnv([needs_llm, checked], env_id="mine")
    msg = str(err.value)
    assert "\n" not in msg and "1 of 2 task(s)" in msg and "occ/task1" in msg
    assert "JOBENV_JUDGE_BASE_URL" in msg and "JOBENV_JUDGE_MODEL" in msg
    # the same through make() on a task folder
    with pytest.raises(JudgeConfigError, match="needs? the LLM judge"):
        jobenv.make(str(tmp_path / "occ" / "task1"))
    # tasks every criterion of which has a sound check need no endpoint, and the env works
    env = JobEnv([checked], env_id="mine")
    try:
        obs, info = env.reset()
        assert info["task_id"] == "occ/task2"
    finally:
        env.close()
    # with an endpoint configured that serves the model, the LLM-graded task is accepted (its handler never asked)
    with OpenAIServer(lambda req: "never asked", models=["judge-model"]) as srv:
        env = JobEnv([needs_llm], env_id="mine", judge_options={"base_url": srv.base_url, "api_key": "k",
                                                                "model": "judge-model"})
        env.close()
        assert srv.requests == []


def _dead_url() -> str:
    from tests.support.ports import free_port

    return f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there


@pytest.mark.parametrize("kind", ["auto", "llm", "agentic"])
def test_an_unreachable_endpoint_or_unknown_model_fails_at_make(tmp_path: Path, kind: str) -> None:
    """One cheap request at construction: a dead endpoint and a model the endpoint does not serve (404 for it,
    as OpenAI's and vLLM's servers answer) fail at make(), one line naming the cause; opting out makes the env."""
    _task(tmp_path, "task1", [LLM_RUBRIC])
    folder = str(tmp_path / "occ" / "task1")
    with pytest.raises(JudgeConfigError) as err:
        jobenv.make(folder, judge=kind, judge_options={"base_url": _dead_url(), "api_key": "k", "model": "m"})
    assert "unreachable" in str(err.value) and "\n" not in str(err.value) and "check_endpoint=False" in str(err.value)
    with OpenAIServer(lambda req: "never asked", models=["judge-model"]) as srv:
        with pytest.raises(JudgeConfigError, match="does not know the model.*HTTP 404") as err:
            jobenv.make(folder, judge=kind, judge_options={"base_url": srv.base_url, "api_key": "k",
                                                           "model": "judge-modle"})
        assert "'judge-modle'" in str(err.value)
        assert len(srv.requests) == 1 and srv.requests[0]["max_completion_tokens"] == 1  # the 1-token probe
        jobenv.make(folder, judge=kind, judge_options={"base_url": srv.base_url, "api_key": "k",
                                                       "model": "judge-model"}).close()
    env = jobenv.make(folder, judge=kind, judge_options={"base_url": _dead_url(), "api_key": "k", "model": "m",
                                                         "check_endpoint": False})
    env.close()


def test_the_check_runs_in_collect_and_can_be_switched_off_by_the_environment(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _task(tmp_path, "task1", [LLM_RUBRIC])
    folder = str(tmp_path / "occ" / "task1")
    out = tmp_path / "t.jsonl"
    policy = OpenAIChatPolicy("m", base_url=_dead_url(), api_key="k")
    opts = {"base_url": _dead_url(), "api_key": "k", "model": "m"}
    with pytest.raises(JudgeConfigError, match="unreachable"):
        collect_sync(folder, policy, out=out, env_kwargs={"sandbox": "local", "judge": "llm", "judge_options": opts})
    assert not out.exists() or out.read_text() == ""
    monkeypatch.setenv("JOBENV_JUDGE_CHECK", "0")
    jobenv.make(folder, judge="llm", judge_options=opts).close()


def test_checks_refuses_a_task_without_sound_checks_and_names_the_fix(tmp_path: Path) -> None:
    needs_llm = _task(tmp_path, "task1", [LLM_RUBRIC])
    with pytest.raises(JudgeConfigError) as err:
        JobEnv([needs_llm], judge="checks")
    assert "'checks' judge cannot grade 1 of 1" in str(err.value) and "judge='auto' or 'llm'" in str(err.value)


def test_a_rollout_fails_before_any_episode_with_one_line(tmp_path: Path) -> None:
    _task(tmp_path, "task1", [LLM_RUBRIC])
    folder = str(tmp_path / "occ" / "task1")
    out = tmp_path / "t.jsonl"
    policy = OpenAIChatPolicy("m", base_url="http://127.0.0.1:9/v1", api_key="k")
    with pytest.raises(JobenvError, match="cannot grade"):
        collect_sync(folder, policy, out=out, env_kwargs={"sandbox": "local"})
    assert not out.exists() or out.read_text() == ""
    with OpenAIServer(lambda req: "never asked") as srv:  # a live policy endpoint: the judge is what fails
        proc = subprocess.run([sys.executable, "-m", "jobenv.cli", "rollout", folder, "--model", "m", "--base-url",
                               srv.base_url, "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert srv.requests == []
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot grade" in lines[0] and "JOBENV_JUDGE_BASE_URL" in lines[0], proc.stderr
