"""``jobenv serve`` guards itself: loopback by default, an API key when asked for one, a cap on open sessions.

A real server process and the real openreward client; the key travels as the SDK sends it (``X-API-Key``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .serving import ServeProcess

pytestmark = pytest.mark.timeout(300)
KEY = "test-key-4f9a1c77"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = ServeProcess(tmp_path_factory.mktemp("guarded"), args=["--envs", "sample", "--max-sessions", "1"],
                       env={"JOBENV_SERVE_API_KEY": KEY})
    try:
        yield srv
    finally:
        srv.stop()


def _client(key: str) -> Any:
    os.environ["OPENREWARD_DISABLE_UPDATE_CHECK"] = "1"
    from openreward import OpenReward

    return OpenReward(api_key=key)


def test_requests_without_the_key_are_refused(guarded: ServeProcess) -> None:
    assert guarded.get("/health")[0] == 200  # liveness stays open, it tells nothing
    code, body = guarded.get("/jobenvsample/status")
    assert code == 401 and "API key" in body
    code, _ = guarded.post("/jobenvsample/create", {"env_name": "jobenvsample", "task_spec": {"split": "sample"}},
                           headers={"X-API-Key": "wrong-key-123"})
    assert code == 401
    assert guarded._request(__import__("urllib.request").request.Request(
        guarded.url + "/jobenvsample/status", headers={"X-API-Key": KEY}))[0] == 200


def test_a_websocket_without_the_key_is_refused_at_the_handshake(guarded: ServeProcess) -> None:
    """The OpenReward server serves no WebSocket route, and still none is reached without the key."""
    import asyncio

    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    async def attempt(path: str) -> int:
        try:
            async with connect(guarded.url.replace("http://", "ws://") + path, open_timeout=30):
                return 101
        except InvalidStatus as exc:
            return exc.response.status_code

    for path in ("/ws", "/jobenvsample/ws", "/mcp"):
        assert asyncio.run(attempt(path)) in (401, 403)


def test_the_key_admits_the_sdk_and_the_cap_refuses_a_second_session(guarded: ServeProcess) -> None:
    client = _client(KEY)
    try:
        env = client.environments.get("jobenv", variant="jobenvsample", base_url=guarded.url)
        with env.session(split="sample", index=0) as s:
            assert "hello" in s.call_tool("bash", {"command": "echo hello"}).blocks[0].text
            with pytest.raises(Exception) as info:
                with env.session(split="sample", index=1) as s2:
                    s2.call_tool("bash", {"command": "echo second"})
            assert "503" in str(info.value) or "maximum" in str(info.value)
    finally:
        client.environments.close()


def test_serve_listens_on_loopback_by_default(tmp_path: Path) -> None:
    from jobenv.cli import build_parser

    assert build_parser().parse_args(["serve"]).host == "127.0.0.1"
    srv = ServeProcess(tmp_path, args=["--envs", "sample", "--api-key", "short"], wait=False)
    assert srv.wait_exit() == 2
    assert "api_key" in srv.log() and "Traceback" not in srv.log()
