"""The API key guards every transport, not just HTTP routes: a WebSocket without it is refused at the handshake,
before the route (and so any session or episode) exists; SSE streams need it like any request. And a server that
listens beyond loopback without a key says so, on both protocols.

A real uvicorn on 127.0.0.1 serving an app behind :class:`RequireApiKey`, reached by the real ``websockets``
client and plain HTTP; the warning comes from a real ``jobenv serve`` process.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import WebSocket  # at module level: the route's annotation is resolved from the module

from jobenv.hosting.server import RequireApiKey, open_bind_warning
from tests.support.ports import free_port

from .serving import ServeProcess

pytestmark = pytest.mark.timeout(300)
KEY = "transport-key-7c21e9"


class _Guarded:
    """A FastAPI app with an HTTP route, an SSE route and a WebSocket route behind the key, under uvicorn."""

    def __init__(self) -> None:
        import uvicorn
        from fastapi import FastAPI
        from sse_starlette import EventSourceResponse

        self.opened: list[str] = []  # what the routes saw: a WebSocket session counts as "created" once accepted
        app = FastAPI()

        @app.get("/health")
        async def health() -> dict[str, str]:
            return {"status": "ok"}

        @app.get("/data")
        async def data() -> dict[str, int]:
            self.opened.append("http")
            return {"n": 1}

        @app.post("/stream")
        async def stream() -> Any:
            self.opened.append("sse")

            async def events() -> Any:
                yield {"data": "tick"}

            return EventSourceResponse(events())

        @app.websocket("/ws")
        async def ws(socket: WebSocket) -> None:
            self.opened.append("ws")
            await socket.accept()
            message = await socket.receive_text()
            await socket.send_text(f"echo {message}")
            await socket.close()

        app.add_middleware(RequireApiKey, api_key=KEY)
        self.port = free_port()
        self.url = f"127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)

    def http(self, method: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
        req = urllib.request.Request(f"http://{self.url}{path}", method=method, headers=headers or {},
                                     data=b"{}" if method == "POST" else None)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@pytest.fixture(scope="module")
def guarded() -> Iterator[_Guarded]:
    srv = _Guarded()
    try:
        yield srv
    finally:
        srv.stop()


def _ws(url: str, headers: dict[str, str] | None) -> str:
    from websockets.asyncio.client import connect

    async def go() -> str:
        async with connect(f"ws://{url}/ws", additional_headers=headers, open_timeout=10) as sock:
            await sock.send("hello")
            return str(await sock.recv())

    return asyncio.run(go())


@pytest.mark.parametrize("headers", [None, {"X-API-Key": "wrong-key-0000"}, {"Authorization": "Bearer nope-nope"}])
def test_a_websocket_without_the_key_is_refused_at_the_handshake(guarded: _Guarded, headers: Any) -> None:
    from websockets.exceptions import InvalidStatus

    before = list(guarded.opened)
    with pytest.raises(InvalidStatus) as info:
        _ws(guarded.url, headers)
    assert info.value.response.status_code in (401, 403)
    assert guarded.opened == before  # the route never ran: no session, no episode


@pytest.mark.parametrize("headers", [{"X-API-Key": KEY}, {"Authorization": f"Bearer {KEY}"}])
def test_a_websocket_with_the_key_is_served(guarded: _Guarded, headers: dict[str, str]) -> None:
    assert _ws(guarded.url, headers) == "echo hello"
    assert guarded.opened[-1] == "ws"


def test_http_and_sse_need_the_key_and_health_does_not(guarded: _Guarded) -> None:
    before = list(guarded.opened)
    assert guarded.http("GET", "/health")[0] == 200
    code, body = guarded.http("GET", "/data")
    assert code == 401 and "API key" in json.loads(body)["detail"]
    assert guarded.http("POST", "/stream")[0] == 401
    assert guarded.opened == before
    assert guarded.http("GET", "/data", {"X-API-Key": KEY}) == (200, '{"n":1}')
    code, body = guarded.http("POST", "/stream", {"Authorization": f"Bearer {KEY}"})
    assert code == 200 and "data: tick" in body


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "example.org", "[::]"])
def test_a_reachable_host_without_a_key_is_warned_about(host: str) -> None:
    warning = open_bind_warning(host, None)
    assert warning is not None and host in warning and "--api-key" in warning
    assert open_bind_warning(host, KEY) is None


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.53", "::1", "[::1]", "localhost", "LOCALHOST"])
def test_loopback_is_not_warned_about(host: str) -> None:
    assert open_bind_warning(host, None) is None


def test_openreward_serve_on_every_interface_without_a_key_warns(tmp_path: Path) -> None:
    srv = ServeProcess(tmp_path, args=["--envs", "sample", "--host", "0.0.0.0"], wait=False)
    try:
        deadline = time.monotonic() + 120
        while "listening" not in srv.log() and srv.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert any("WARNING: listening on 0.0.0.0 without an API key" in line for line in srv.jobenv_lines()), srv.log()
    finally:
        srv.stop()
