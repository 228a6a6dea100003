"""SkyRL's OpenReward path: a default ``jobenv serve`` from a fresh ``jobenv[hosting]`` venv, reached the way SkyRL's
example reaches it — ``OpenReward()`` configured by the four ``OPENREWARD_*`` variables, ``environments.get(name=...)``
with no base URL and no variant."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .clients import OPENREWARD_CLIENT, Server, run_client
from .venvs import Venv

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def skyrl_variables(server: Server) -> dict[str, str]:
    return {
        "OPENREWARD_API_KEY": "local",
        "OPENREWARD_SESSION_URL": server.url,
        "OPENREWARD_UPLOAD_ROLLOUT": "false",
        "OPENREWARD_DISABLE_UPDATE_CHECK": "1",
    }


def test_skyrl_client_gets_the_rewards_of_jobenv_rollout(hosting_venv: Venv, policy: Any,
                                                        rollout_rewards: dict[str, float], tmp_path: Path) -> None:
    srv, agent = policy
    server = Server(hosting_venv, tmp_path, env={"JOBENV_SERVE_JUDGE": "checks", "JOBENV_DATA": str(tmp_path / "data"),
                                                 "OPENREWARD_DISABLE_UPDATE_CHECK": "1"})
    try:
        # the default route (no variant) answers every split, so SkyRL's requests get no "400 Invalid split"
        probe = r'''
import json
from openreward import OpenReward
env = OpenReward().environments.get(name="jobenv")
print(json.dumps({"splits": env.list_splits(), "sample": len(env.list_tasks("sample"))}))
'''
        (listing,) = run_client(hosting_venv, probe, env=skyrl_variables(server), tmp=tmp_path)
        assert {"main", "easy", "all", "train", "sample"} >= set(listing["splits"]) >= {"sample"}
        assert listing["sample"] == len(rollout_rewards)

        recs = run_client(hosting_venv, OPENREWARD_CLIENT, "jobenv", "sample", srv.base_url,
                          env=skyrl_variables(server), tmp=tmp_path)
        assert agent.problems == []
        assert {r["task_id"]: r["reward"] for r in recs} == rollout_rewards
        assert all(r["done"] and r["status"] == "ok" for r in recs), recs
    finally:
        server.stop()
