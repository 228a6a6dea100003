"""SkyRL (from the package index, in its own venv with jobenv's wheel and CPU-only use of torch): its gym generator
as :mod:`jobenv.integrations.skyrl` subclasses it, its ``RemoteInferenceClient`` over HTTP to a scripted token-level
policy, its output validation and GRPO advantages, against a real ``jobenv serve`` reached through the openreward
client configured by the ``OPENREWARD_*`` variables (as SkyRL's OpenReward example configures it).

The server's LLM judge is a loopback stand-in that answers every rubric of one task with a passing verdict and
every rubric of the other with garbage: the first task's gradings succeed, the second's fail. The errored prompt
group must be masked whole (no loss, no advantage); the successful group must keep its rewards and its signal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.openai_server import OpenAIServer

from .clients import Server, judge_failing_on
from .venvs import Venv

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

DRIVER = Path(__file__).with_name("skyrl_driver.py")
OK_TASK, BROKEN_TASK = "financial_managers/task1", "purchasing_agents/task1"


def test_skyrl_generator_masks_the_groups_of_errored_episodes(skyrl_venv: Venv, sample: list[Any],
                                                              tmp_path: Path) -> None:
    by_id = {t.id: t for t in sample}
    with OpenAIServer(judge_failing_on({r.text for r in by_id[BROKEN_TASK].rubrics})) as judge:
        server = Server(skyrl_venv, tmp_path, env={
            "JOBENV_SERVE_JUDGE": "llm", "JOBENV_JUDGE_BASE_URL": judge.base_url, "JOBENV_JUDGE_MODEL": "judge",
            "JOBENV_JUDGE_API_KEY": "k", "JOBENV_JUDGE_CACHE": "0", "JOBENV_CACHE": str(tmp_path / "cache"),
            "JOBENV_DATA": str(tmp_path / "data"), "OPENREWARD_DISABLE_UPDATE_CHECK": "1"})
        try:
            env = {"OPENREWARD_API_KEY": "local", "OPENREWARD_SESSION_URL": server.url,
                   "OPENREWARD_UPLOAD_ROLLOUT": "false", "OPENREWARD_DISABLE_UPDATE_CHECK": "1"}
            proc = skyrl_venv.run("python", str(DRIVER), OK_TASK, BROKEN_TASK, env=env, timeout=1200)
        finally:
            server.stop()
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}\n{server.log()}"
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    entries = result["entries"]
    ok = [e for e in entries if e["instance"] == OK_TASK]
    broken = [e for e in entries if e["instance"] == BROKEN_TASK]

    # the successful group: the solution earns the (all-pass) judge's full reward, the tool-less sample earns 0
    assert [e["reward"] for e in ok] == [1.0, 0.0], ok
    assert all(e["mask_sum"] > 0 and e["stop_reason"] == "stop" and e["env_metrics"]["jobenv_error"] == 0
               for e in ok), ok
    assert result["signal"][OK_TASK] > 0
    # the errored group: both gradings failed, and the whole group is out of the loss and the advantages
    assert all(e["env_metrics"]["jobenv_error"] == 1 for e in broken), broken
    assert all(e["reward"] == 0.0 and e["mask_sum"] == 0 and e["length"] > 0 and e["stop_reason"] == "error"
               for e in broken), broken
    assert result["signal"][BROKEN_TASK] == 0.0
    # SkyRL's own aggregate of the env metric, and the generator's counts
    assert result["rollout_metrics"] == {"environment/jobenv_error": 0.5, "generate/jobenv_error_trajectories": 2,
                                         "generate/jobenv_masked_groups": 1}
