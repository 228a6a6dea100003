"""A hosted session on the Docker sandbox with the knowledge-worker image: the reference solution, written and run
through the real ``openreward`` client against ``jobenv serve --sandbox docker --sandbox-image``, earns 1.0."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import jobenv
from jobenv.demo import solution_actions
from tests.hosting.serving import ServeProcess

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(1200)]


def test_hosted_docker_session_with_the_reference_solution_earns_full_reward(
        knowledge_worker_image: str, tmp_path: Path) -> None:
    os.environ["OPENREWARD_DISABLE_UPDATE_CHECK"] = "1"
    from openreward import OpenReward

    tasks = jobenv.load_tasks("jobenv/sample")
    index = next(i for i, t in enumerate(tasks) if t.id == "financial_managers/task1")
    srv = ServeProcess(tmp_path, sandbox="docker", args=["--envs", "sample", "--sandbox-image", knowledge_worker_image])
    client = OpenReward(api_key="local-test-key")
    try:
        env = client.environments.get("jobenv", variant="jobenvsample", base_url=srv.url)
        out: Any = None
        with env.session(split="sample", index=index) as s:
            for action in solution_actions(tasks[index]):
                out = s.call_tool(action["name"], action["arguments"])
                if not out.finished:
                    assert out.metadata["status"] == "ok", out.blocks[0].text
        assert out is not None and out.finished is True
        assert out.metadata["status"] == "ok" and out.reward == pytest.approx(1.0), out.metadata
        assert srv.status()["sandbox"] == "docker" and srv.status()["open_sandboxes"] == 0
    finally:
        client.environments.close()
        srv.stop()
