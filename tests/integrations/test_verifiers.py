"""The verifiers taskset, run by verifiers' own ``vf-eval`` in a fresh venv holding ``jobenv[verifiers]``."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from .venvs import Venv

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]


def vf_eval(venv: Venv, base_url: str, out: Path, *args: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """``vf-eval jobenv-verifiers`` against the loopback policy (subprocess runtime, no upload); the traces."""
    cmd = ["vf-eval", "jobenv-verifiers", "-m", "scripted-model", "--client.base-url", base_url,
           "--client.api-key-var", "SCRIPTED_POLICY_KEY", "--push", "false", "-o", str(out),
           "--env.agent.runtime.type", "subprocess", *args]
    proc = venv.run(*cmd, env={"SCRIPTED_POLICY_KEY": "k", "COLUMNS": "200", **(env or {})}, timeout=1200, cwd=out.parent)
    assert proc.returncode == 0, f"vf-eval failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    traces = sorted(out.rglob("traces.jsonl"))
    assert len(traces) == 1, (traces, proc.stdout[-2000:])
    episodes = [json.loads(line) for line in traces[0].read_text().splitlines() if line.strip()]
    return [t for e in episodes for t in e["traces"]]


def test_extra_installs_next_to_verifiers_without_openreward(verifiers_venv: Venv) -> None:
    check = verifiers_venv.run("python", "-m", "pip", "check")
    assert check.returncode == 0, check.stdout + check.stderr
    code = ("import importlib.util, jobenv, jobenv_verifiers, verifiers; "
            "print(verifiers.__version__, importlib.util.find_spec('openreward') is None)")
    proc = verifiers_venv.run("python", "-c", code)
    assert proc.returncode == 0, proc.stderr[-2000:]
    version, no_openreward = proc.stdout.split()
    assert version.startswith("0.4") and no_openreward == "True"
    # every task is prompted exactly as a local JobEnv episode of the same task is, and keyed by its task id
    code = ("from verifiers.v1.utils.loaders import taskset_class, taskset_config_type\n"
            "from jobenv.env import JobEnv\n"
            "from jobenv.registry import load_tasks\n"
            "ts = taskset_class('jobenv-verifiers')(taskset_config_type('jobenv-verifiers')())\n"
            "env = JobEnv(load_tasks('jobenv/sample'), env_id='jobenv/sample', judge='checks')\n"
            "for t in ts:\n"
            "    prompt, info = env.reset(options={'task_id': t.data.task_uid})\n"
            "    print(t.key, info['task_id'], prompt == t.data.prompt)\n"
            "env.close()\n")
    proc = verifiers_venv.run("python", "-c", code)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line.split() for line in proc.stdout.splitlines()]
    assert len(rows) == 7 and all(key == task_id and same == "True" for key, task_id, same in rows), rows


def test_vf_eval_gives_the_rewards_of_jobenv_rollout(verifiers_venv: Venv, policy: Any, rollout_rewards: dict[str, float],
                                                    sample: list[Any], tmp_path: Path) -> None:
    srv, agent = policy
    # the episode rules are jobenv's own model, nested: its fields are flags under tools.rules
    traces = vf_eval(verifiers_venv, srv.base_url, tmp_path / "out", "-c", "4",
                     "--env.taskset.task.tools.judge", "checks", "--env.taskset.task.tools.rules.max-steps", "60")
    assert agent.problems == []
    by_key = {t["task"]["key"]: t for t in traces}
    assert set(by_key) == {t.id for t in sample}
    rewards = {}
    for key, t in by_key.items():
        assert t["errors"] == [], (key, t["errors"])
        assert t["stop_condition"] == "submitted", (key, t["stop_condition"])
        rewards[key] = t["rewards"]["normalized_score"]["score"]
        assert t["metrics"] == {"pass_rate": 1.0, "strict_pass": 1.0}, (key, t["metrics"])
        assert t["info"]["jobenv"]["status"] == "ok"
        # the model saw jobenv's own tools, under their own names, as native tools
        names = [tool.get("name") or tool.get("function", {}).get("name") for tool in t["tools"]]
        assert names == ["bash", "read", "write", "edit", "multi_edit", "glob", "grep", "ls", "todo_write", "submit"]
    assert rewards == rollout_rewards
    assert set(rewards.values()) == {1.0}


def test_a_judge_outage_is_an_errored_rollout_not_a_zero(verifiers_venv: Venv, policy: Any, sample: list[Any],
                                                         tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on: the judge is down
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    srv, _ = policy
    task = next(t for t in sample if t.has_checks)
    traces = vf_eval(
        verifiers_venv, srv.base_url, tmp_path / "out", "--select.include.ids", task.id,
        "--env.taskset.task.tools.judge", "llm", "--env.taskset.task.tools.judge-base-url", dead,
        "--env.taskset.task.tools.judge-model", "judge-model",
        # the endpoint check at make() is off: this is an outage during grading, not a misconfiguration
        env={"JOBENV_JUDGE_API_KEY": "judge-key", "JOBENV_JUDGE_CACHE": "0", "JOBENV_JUDGE_CHECK": "0"},
    )
    assert len(traces) == 1
    t = traces[0]
    assert t["task"]["key"] == task.id
    assert (t["rewards"].get("normalized_score") or {}).get("score") is None  # unscored: a trainer drops it
    assert [e["type"] for e in t["errors"]] == ["TaskError"]
    assert "infrastructure error" in t["errors"][0]["message"]
