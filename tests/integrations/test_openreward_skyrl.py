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


def test_openenv_import_wraps_the_module_level_classes(hosting_venv: Venv, tmp_path: Path) -> None:
    """``openenv import --type ors`` on jobenv as installed finds its Environment class, and the generated OpenEnv
    server plays an episode (OpenEnv's MCP actions) to the reference reward."""
    import json as _json
    import os
    import subprocess
    import urllib.request

    from jobenv.demo import solution_actions

    where = hosting_venv.run("python", "-c", "import jobenv, os; print(os.path.dirname(jobenv.__file__))")
    assert where.returncode == 0, where.stderr
    out = tmp_path / "imported"
    proc = hosting_venv.run("openenv", "import", where.stdout.strip(), "--type", "ors", "--name", "jobenv_ors",
                            "-o", str(out), env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "JobenvEnvironment" in proc.stdout

    from .clients import free_port

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(out), "JOBENV_SERVE_JUDGE": "checks", "JOBENV_SERVE_ENVS": "jobenv",
           "JOBENV_DATA": str(tmp_path / "data"), "OPENREWARD_DISABLE_UPDATE_CHECK": "1"}
    log = open(tmp_path / "imported.log", "wb")
    server = subprocess.Popen([hosting_venv.python, "-m", "uvicorn", "jobenv_ors.server.app:app", "--port", str(port)],
                              env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=str(tmp_path))
    try:
        import time

        deadline = time.monotonic() + 180
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "imported.log").read_text()
                time.sleep(0.3)
        import jobenv

        task = jobenv.load_tasks("jobenv/sample")[0]
        program = r'''
import asyncio, json, sys
from openenv import GenericEnvClient

async def main():
    actions = json.loads(sys.argv[2])
    async with GenericEnvClient(base_url=sys.argv[1], message_timeout_s=600) as env:
        r = await env.reset(split="sample", index=0)
        for a in actions:
            r = await env.step({"type": "call_tool", "tool_name": a["name"], "arguments": a["arguments"]})
        print(json.dumps({"reward": r.reward, "done": r.done}))

asyncio.run(main())
'''
        (res,) = run_client(hosting_venv, program, f"http://127.0.0.1:{port}", _json.dumps(solution_actions(task)),
                            tmp=tmp_path)
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=60)
        log.close()
    assert res == {"reward": 1.0, "done": True}, (tmp_path / "imported.log").read_text()[-3000:]
