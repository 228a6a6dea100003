"""NeMo Gym (from the package index, in its own Python >= 3.12 venv with jobenv's wheel): its own model server,
agent server logic and rollout collection over :mod:`jobenv.integrations.nemo_gym`.

The driver (``nemo_gym_driver.py``) starts each server in its own process from one global config, as ``ng_run``
does; the policy is the scripted one on loopback, reached through NeMo Gym's ``vllm_model`` server (Responses API
to chat completions). Every sample task must earn the reward ``jobenv rollout`` gives the same policy; an episode
whose grading fails, and a rollout whose policy answers HTTP 500, must land in NeMo Gym's failures file, never in
the rollouts it trains on nor in its aggregate metrics, and the run goes on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.ports import free_port

from .venvs import Venv

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

DRIVER = Path(__file__).with_name("nemo_gym_driver.py")


def test_nemo_gym_collects_jobenv_episodes_and_keeps_errored_ones_out(nemo_gym_venv: Venv, policy: Any,
                                                                      rollout_rewards: dict[str, float],
                                                                      sample: list[Any], tmp_path: Path) -> None:
    srv, agent = policy
    # the second resources server's LLM judge points at a closed port (its check at make() switched off, as a
    # judge that goes down after the start): each of its gradings errors
    env = {"JOBENV_JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "JOBENV_JUDGE_API_KEY": "k",
           "JOBENV_JUDGE_MODEL": "judge", "JOBENV_JUDGE_CHECK": "0", "JOBENV_DATA": str(tmp_path / "data"),
           "OPENREWARD_DISABLE_UPDATE_CHECK": "1"}
    ports = json.dumps([free_port() for _ in range(8)])  # head, models, resources, broken, agents, the proxy
    failing = sample[0]  # the policy answers HTTP 500 in this task's first agent's rollout
    marker = next(line.strip()[:60] for line in failing.instructions.splitlines()
                  if len(line.strip()) >= 30 and line.isascii() and '"' not in line and "\\" not in line
                  and all(line.strip()[:60] not in t.instructions for t in sample[1:]))
    proc = nemo_gym_venv.run("python", str(DRIVER), srv.base_url, str(tmp_path), ports, marker, env=env,
                             timeout=1200)
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"  # one 500 did not stop the run
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert agent.problems == []

    good = [r for r in result["rollouts"] if r["agent"] == "jobenv_agent"]
    kept = {k: v for k, v in rollout_rewards.items() if k != failing.id}
    assert {r["task_id"]: r["reward"] for r in good} == kept
    (policy_failed,) = [r for r in result["failures"] if r["agent"] == "jobenv_agent"]
    assert (policy_failed["task_id"], policy_failed["status"], policy_failed["failure"],
            policy_failed["finish_reason"]) == (failing.id, "error", "transient", "policy_error")
    # the aggregates count the kept rollouts only: the failed one is no 0 in the mean
    assert result["aggregates"]["jobenv_agent"]["mean/reward"] == pytest.approx(sum(kept.values()) / len(kept))
    assert "mean/reward" not in result["aggregates"].get("jobenv_broken_agent", {})
    assert all(r["status"] == "ok" and r["terminated"] and r["finish_reason"] == "submitted" for r in good), good
    # errored gradings: in the failures sidecar with NeMo Gym's failure class, none among the rollouts
    assert not [r for r in result["rollouts"] if r["agent"] == "jobenv_broken_agent"]
    broken = [r for r in result["failures"] if r["agent"] == "jobenv_broken_agent"]
    assert {r["task_id"] for r in broken} == set(rollout_rewards)
    odd = [r for r in broken if (r["status"], r["failure"], r["finish_reason"]) != ("error", "transient", "grading_error")]
    assert not odd, json.dumps(odd)


def test_rows_offer_jobenv_tools_in_responses_format(nemo_gym_venv: Venv, tmp_path: Path) -> None:
    program = r'''
import json
from jobenv.integrations.nemo_gym import dataset_rows
from responses_api_agents.gymnasium_agent.app import GymnasiumAgentRunRequest
rows = dataset_rows("jobenv/sample", agent="a", tasks=["financial_managers/task1"])
req = GymnasiumAgentRunRequest.model_validate(rows[0])          # NeMo Gym's own request model accepts the row
tools = [t if isinstance(t, dict) else t.model_dump() for t in req.responses_create_params.tools]
print(json.dumps({"n": len(rows), "tools": [t["name"] for t in tools if t["type"] == "function"],
                  "task_id": rows[0]["task_id"], "agent": rows[0]["agent_ref"]}))
'''
    script = tmp_path / "rows.py"
    script.write_text(program)
    proc = nemo_gym_venv.run("python", str(script), env={"JOBENV_DATA": str(tmp_path / "data")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["n"] == 1 and out["task_id"] == "financial_managers/task1"
    assert out["agent"] == {"type": "responses_api_agents", "name": "a"}
    assert out["tools"] == ["bash", "read", "write", "edit", "multi_edit", "glob", "grep", "ls", "todo_write", "submit"]
