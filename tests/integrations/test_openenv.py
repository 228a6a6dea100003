"""``jobenv serve --protocol openenv`` in a fresh venv holding ``jobenv[openenv]``, driven by OpenEnv's own client."""

from __future__ import annotations

import glob
import json
from pathlib import Path
from typing import Any

import pytest

from .clients import OPENENV_CLIENT, Server, run_client
from .venvs import Venv

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def private_strings(sample: list[Any]) -> list[str]:
    return [s for t in sample for r in t.rubrics for s in (r.text, *r.criteria) if len(s.strip()) >= 12]


def test_openenv_sessions_give_the_rewards_of_jobenv_rollout(openenv_venv: Venv, policy: Any,
                                                            rollout_rewards: dict[str, float], sample: list[Any],
                                                            tmp_path: Path) -> None:
    srv, agent = policy
    server = Server(openenv_venv, tmp_path, "--protocol", "openenv", "--max-sessions", "16",
                    env={"JOBENV_SERVE_JUDGE": "checks", "JOBENV_DATA": str(tmp_path / "data")})
    try:
        # every sample task in its own concurrent session (its own sandbox), played by the loopback policy
        recs = run_client(openenv_venv, OPENENV_CLIENT, server.url, srv.base_url, str(len(sample)), tmp=tmp_path)
        assert agent.problems == []
        assert {r["task_id"]: r["reward"] for r in recs} == rollout_rewards
        assert all(r["done"] and r["status"] == "ok" for r in recs), recs
        assert recs[0]["tools"] == ["bash", "read", "write", "edit", "multi_edit", "glob", "grep", "ls", "todo_write",
                                    "submit"]

        # task listing maps jobenv's splits (only those that load here: JobBench is not downloaded in this data
        # folder) and shows public specs only
        status, splits = server.request("/jobenv/splits")
        assert status == 200
        listed_splits = {s["name"]: s["type"] for s in splits}
        assert listed_splits.items() <= {"train": "train", "sample": "test"}.items() and "sample" in listed_splits
        status, listed = server.request("/jobenv/tasks", {"split": "sample"})
        assert status == 200
        assert [t["id"] for t in listed["tasks"]] == [t.id for t in sample]
        assert set(listed["tasks"][0]) == {"id", "occupation", "split", "index"}
        status, schema = server.request("/schema")
        assert status == 200 and set(schema["action"]["properties"]) >= {"name", "arguments"}
        blob = json.dumps([recs, splits, listed, schema])
        assert not [p for p in private_strings(sample) if p in blob]
    finally:
        code = server.stop()
    # SIGTERM shut the server down cleanly: sessions closed, no temp folders of the process left behind
    assert code == 143, server.log()
    assert glob.glob(f"/tmp/jobenv-{server.pid}-*") == []


def test_mistakes_come_back_in_observations_and_the_session_lives_on(openenv_venv: Venv, tmp_path: Path) -> None:
    program = r'''
import asyncio, json, sys
from openenv import GenericEnvClient

async def main():
    async with GenericEnvClient(base_url=sys.argv[1], message_timeout_s=600) as env:
        out = {}
        r = await env.reset(split="nope")
        out["bad_split"] = [r.done, r.observation["status"], r.observation["text"][:200]]
        r = await env.reset(split="sample", task_id="nobody/task9")
        out["bad_task"] = [r.done, r.observation["status"], r.observation["text"][:200]]
        r = await env.reset(split="sample", index=0)
        r = await env.step({"name": "no_such_tool", "arguments": {}})
        out["bad_tool"] = [r.done, r.observation["ok"], r.observation["text"][:200]]
        r = await env.step({"name": "bash", "arguments": "not an object", "extra": 1})
        out["malformed"] = [r.done, r.observation["ok"], r.observation["text"][:200]]
        r = await env.step({"arguments": {"command": "true"}})
        out["nameless"] = [r.done, r.observation["ok"]]
        r = await env.step({"name": "read", "arguments": {"file_path": "/etc/passwd"}})
        out["outside"] = [r.done, r.observation["ok"], "root:" in r.observation["text"]]
        r = await env.step({"name": "bash", "arguments": {"command": "echo still-alive"}})
        out["alive"] = [r.done, r.observation["ok"], "still-alive" in r.observation["text"]]
        r = await env.step({"name": "submit", "arguments": {}})
        out["submit"] = [r.done, r.observation["status"], r.reward]
        print(json.dumps(out))

asyncio.run(main())
'''
    server = Server(openenv_venv, tmp_path, "--protocol", "openenv",
                    env={"JOBENV_SERVE_JUDGE": "checks", "JOBENV_DATA": str(tmp_path / "data")})
    try:
        (out,) = run_client(openenv_venv, program, server.url, tmp=tmp_path)
    finally:
        server.stop()
    assert out["bad_split"][:2] == [True, "error"] and "nope" in out["bad_split"][2]
    assert out["bad_task"][:2] == [True, "error"] and "nobody/task9" in out["bad_task"][2]
    assert out["bad_tool"][:2] == [False, False] and "no_such_tool" in out["bad_tool"][2]
    assert out["malformed"][:2] == [False, False] and "argument" in out["malformed"][2].lower()  # an observation
    assert out["nameless"] == [False, False]
    assert out["outside"] == [False, False, False]
    assert out["alive"] == [False, True, True]
    done, status, reward = out["submit"]
    assert done is True and status == "ok" and reward is not None and reward < 1.0  # nothing was written


KEY = "openenv-key-5d0c2b9a"
# keyless attempts on every WebSocket route of OpenEnv's server, then OpenEnv's own client with the key
GUARDED_CLIENT = r'''
import asyncio, json, sys
from openenv import GenericEnvClient
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

async def refused(url, headers):
    try:
        async with connect(url, additional_headers=headers, open_timeout=30) as sock:
            await sock.send(json.dumps({"type": "reset", "data": {"split": "sample", "index": 0}}))
            return "served: " + str(await sock.recv())[:200]
    except InvalidStatus as exc:
        return exc.response.status_code

async def main():
    base, key = sys.argv[1], sys.argv[2]
    ws = base.replace("http://", "ws://")
    out = {route: await refused(ws + route, None) for route in ("/ws", "/mcp", "/harness")}
    out["wrong_key"] = await refused(ws + "/ws", {"X-API-Key": "not-the-key-1234"})
    async with GenericEnvClient(base_url=base, message_timeout_s=600, headers={"X-API-Key": key}) as env:
        await env.reset(split="sample", index=0)
        r = await env.step({"name": "bash", "arguments": {"command": "id -u"}})
        out["keyed"] = r.observation["text"]
    print(json.dumps(out))

asyncio.run(main())
'''


def test_the_key_guards_every_websocket_and_open_binds_warn(openenv_venv: Venv, tmp_path: Path) -> None:
    env = {"JOBENV_SERVE_JUDGE": "checks", "JOBENV_DATA": str(tmp_path / "data")}
    server = Server(openenv_venv, tmp_path, "--protocol", "openenv", "--api-key", KEY, env=env)
    try:
        assert server.request("/health")[0] == 200
        assert server.request("/schema")[0] == 401  # plain HTTP, as before
        (out,) = run_client(openenv_venv, GUARDED_CLIENT, server.url, KEY, tmp=tmp_path)
    finally:
        server.stop()
    # keyless: refused at the handshake, so no reset ever reached an episode
    assert all(out[r] in (401, 403) for r in ("/ws", "/mcp", "/harness", "wrong_key")), out
    assert "(exit 0)" in out["keyed"], out  # the key admits OpenEnv's own client
    assert "WARNING" not in server.log()

    # every interface and no key: the server says so before it serves
    open_server = Server(openenv_venv, tmp_path, "--protocol", "openenv", "--host", "0.0.0.0", env=env)
    try:
        log = open_server.log()
    finally:
        open_server.stop()
    assert "WARNING: listening on 0.0.0.0 without an API key" in log, log


HANDSHAKES = r'''
import asyncio, json, sys
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

async def attempt(url, headers):
    try:
        async with connect(url, additional_headers=headers, open_timeout=30):
            return 101
    except InvalidStatus as exc:
        return exc.response.status_code

url, key = sys.argv[1], sys.argv[2]
print(json.dumps({"keyless": asyncio.run(attempt(url, None)), "keyed": asyncio.run(attempt(url, {"X-API-Key": key}))}))
'''


def test_the_module_level_app_takes_the_key_from_the_environment(openenv_venv: Venv, tmp_path: Path) -> None:
    """``uvicorn jobenv.openenv_server:app`` (the README's other way to serve) is guarded by
    ``$JOBENV_SERVE_API_KEY`` like ``jobenv serve``."""
    import os
    import subprocess
    import time
    import urllib.request

    from tests.support.ports import free_port

    port = free_port()
    env = {**os.environ, "JOBENV_SERVE_JUDGE": "checks", "JOBENV_DATA": str(tmp_path / "data"),
           "JOBENV_SERVE_API_KEY": KEY, "PATH": f"{openenv_venv.bin}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    with open(tmp_path / "uvicorn.log", "wb") as log:
        proc = subprocess.Popen([str(openenv_venv.bin / "uvicorn"), "jobenv.openenv_server:app", "--host", "127.0.0.1",
                                 "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=str(tmp_path),
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while True:
                assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "uvicorn.log").read_text()
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)
                    break
                except OSError:
                    time.sleep(0.3)
            (out,) = run_client(openenv_venv, HANDSHAKES, f"ws://127.0.0.1:{port}/ws", KEY, tmp=tmp_path)
        finally:
            os.killpg(proc.pid, 15)
            proc.wait(timeout=60)
    assert out["keyless"] in (401, 403) and out["keyed"] == 101, out
