"""evalscope (from the package index, in its own venv with jobenv's wheel): ``evalscope.run_task`` on the
``jobenv`` benchmark that :mod:`jobenv.integrations.evalscope` registers, its OpenAI-API model pointed at the
scripted policy on loopback, read back from evalscope's own review files and report.

Every sample task must earn the reward ``jobenv rollout`` gives the same policy; ``python_exec`` must be jobenv's
persistent python tool (a variable set in one call is there in the next); an episode whose grading fails must be
excluded from evalscope's aggregate (``ScoreStatus.EXCLUDED``), never averaged in as 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.rollout.scripted import ScriptedAgent
from tests.support.openai_server import OpenAIServer

from .clients import judge_failing_on
from .venvs import Venv

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

DRIVER = Path(__file__).with_name("evalscope_driver.py")
BROKEN_TASK = "purchasing_agents/task1"
# two python_exec calls before the script: the second prints what the first defined
PRELUDE = [[{"name": "python_exec", "arguments": {"code": "answer = 6 * 7"}}],
           [{"name": "python_exec", "arguments": {"code": "print(f'answer={answer}')"}}]]


def _run(venv: Venv, policy_url: str, work: Path, judge: str, env: dict[str, str]) -> dict[str, Any]:
    proc = venv.run("python", str(DRIVER), policy_url, str(work), judge,
                    env={"JOBENV_DATA": str(work / "data"), **env}, timeout=1200)
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_evalscope_runs_jobenv_with_its_rewards_and_python_exec(evalscope_venv: Venv, sample: list[Any],
                                                                 rollout_rewards: dict[str, float],
                                                                 tmp_path: Path) -> None:
    agent = ScriptedAgent(sample, prelude=PRELUDE)
    with OpenAIServer(agent) as srv:
        result = _run(evalscope_venv, srv.base_url, tmp_path / "run", "checks", {})
    assert agent.problems == []
    got = {s["task_id"]: s for s in result["samples"]}
    assert {k: v["value"]["normalized_score"] for k, v in got.items()} == rollout_rewards
    assert all(s["status"] == "success" and s["jobenv"]["finish_reason"] == "submitted" for s in got.values())
    assert result["metric"] == {"name": "normalized_score", "num": len(sample),
                                "score": pytest.approx(sum(rollout_rewards.values()) / len(sample))}
    # python_exec is jobenv's persistent interpreter: the second call sees the first call's variable
    outputs = [m["content"] for r in srv.requests for m in r["messages"] if m["role"] == "tool"]
    assert any("answer=42" in (o if isinstance(o, str) else json.dumps(o)) for o in outputs), outputs[:4]
    tool_names = {t["function"]["name"] for t in srv.requests[0]["tools"]}
    assert {"python_exec", "bash", "read", "write", "edit", "submit"} <= tool_names and "python" not in tool_names


def test_the_evalscope_command_line_finds_jobenv_after_registering(evalscope_venv: Venv, sample: list[Any],
                                                                   rollout_rewards: dict[str, float],
                                                                   tmp_path: Path) -> None:
    """``jobenv register evalscope`` adds the benchmark to evalscope's own discovery: ``evalscope eval --datasets
    jobenv`` then runs it from the command line with no import of jobenv's; ``--remove`` takes it away again."""
    work = tmp_path / "cli"
    env = {"JOBENV_DATA": str(tmp_path / "data")}

    def found() -> bool:
        proc = evalscope_venv.run("evalscope", "benchmark-info", "jobenv", env=env, timeout=300)
        assert proc.returncode == 0 or "Benchmark 'jobenv' not found" in proc.stderr, proc.stderr[-2000:]
        return proc.returncode == 0

    assert not found()
    reg = evalscope_venv.run("jobenv", "register", "evalscope", env=env)
    assert reg.returncode == 0 and "registered the jobenv benchmark" in reg.stdout, reg.stderr
    assert found()
    agent = ScriptedAgent(sample)
    with OpenAIServer(agent) as srv:
        proc = evalscope_venv.run(
            "evalscope", "eval", "--model", "scripted", "--api-url", srv.base_url, "--api-key", "k",
            "--eval-type", "openai_api", "--datasets", "jobenv", "--eval-batch-size", "4", "--work-dir", str(work),
            "--no-timestamp", "--dataset-args",
            json.dumps({"jobenv": {"subset_list": ["sample"], "extra_params": {"judge": "checks"}}}),
            env=env, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-5000:]
    assert agent.problems == []
    read = evalscope_venv.run("python", str(DRIVER), "--read", str(work), env=env)
    assert read.returncode == 0, read.stderr[-3000:]
    got = {s["task_id"]: s["value"]["normalized_score"] for s in json.loads(read.stdout)["samples"]}
    assert got == rollout_rewards
    again = evalscope_venv.run("jobenv", "register", "evalscope", env=env)  # idempotent
    assert again.returncode == 0, again.stderr
    gone = evalscope_venv.run("jobenv", "register", "evalscope", "--remove", env=env)
    assert gone.returncode == 0 and "removed" in gone.stdout, gone.stderr
    assert not found()


def test_evalscope_excludes_episodes_whose_grading_failed(evalscope_venv: Venv, sample: list[Any],
                                                          tmp_path: Path) -> None:
    by_id = {t.id: t for t in sample}
    agent = ScriptedAgent(sample)
    with OpenAIServer(agent) as srv, OpenAIServer(judge_failing_on({r.text for r in by_id[BROKEN_TASK].rubrics})) as judge:
        env = {"JOBENV_JUDGE_BASE_URL": judge.base_url, "JOBENV_JUDGE_MODEL": "judge", "JOBENV_JUDGE_API_KEY": "k",
               "JOBENV_JUDGE_CACHE": "0", "JOBENV_CACHE": str(tmp_path / "cache")}
        result = _run(evalscope_venv, srv.base_url, tmp_path / "run", "llm", env)
    got = {s["task_id"]: s for s in result["samples"]}
    assert set(got) == set(by_id)
    broken = got.pop(BROKEN_TASK)
    assert broken["status"] == "excluded" and not broken["value"], broken
    assert broken["jobenv"]["status"] == "error" and broken["jobenv"]["error"], broken
    assert all(s["status"] == "success" and s["value"] == {"normalized_score": 1.0} for s in got.values()), got
    # the aggregate averages the graded samples only: the failure is not a 0
    assert result["metric"] == {"name": "normalized_score", "num": len(sample) - 1, "score": 1.0}
