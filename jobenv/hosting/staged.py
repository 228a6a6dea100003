"""Listen first, load after: an ASGI app that answers ``/health`` while the real app is still being built.

Building the protocol layer (the OpenReward SDK's server half, the app) takes a moment. :class:`StagedApp`
opens the port at once, builds the real app (the SDK imported) in a worker thread, runs the real app's lifespan,
and from then on hands it every request; a request that arrives before that waits for it. ``GET /health`` says
ready (200 ``{"status": "ok"}``) only once the real app can answer the first tool call; before that it is HTTP 503
``{"status": "loading"}``, so an orchestrator's readiness probe never sends work to a server still importing. When
building fails, the failure is logged, waiting requests and ``/health`` get HTTP 503 with the reason, and the
process is asked to stop (``on_failure``).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

__all__ = ["StagedApp"]

Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]


class StagedApp:
    """``StagedApp(build)``: ``build()`` (run in a thread) returns the real ASGI app."""

    def __init__(self, build: Callable[[], Any], *, log: Callable[[str], None],
                 on_failure: Callable[[str], None] | None = None) -> None:
        self._build, self._log, self._on_failure = build, log, on_failure
        self._app: Any = None
        self._problem: str | None = None
        self._loaded: asyncio.Event | None = None
        self._loader: asyncio.Task[None] | None = None
        self._lifespan: tuple[asyncio.Queue[dict[str, Any]], asyncio.Queue[dict[str, Any]], asyncio.Task[Any]] | None = None

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._serve_lifespan(scope, receive, send)
            return
        if scope["type"] == "http" and scope.get("path") == "/health":
            if self._app is not None:
                await _answer(send, 200, {"status": "ok"})  # the first tool call is answered at once
            elif self._problem is not None:
                await _answer(send, 503, {"status": "failed", "detail": self._problem})
            else:  # listening, still loading: a request sent now would wait
                await _answer(send, 503, {"status": "loading"})
            return
        if self._app is None and self._loaded is not None:
            await self._loaded.wait()
        if self._app is None:
            if scope["type"] == "http":
                await _answer(send, 503, {"detail": f"the server could not start: {self._problem or 'not started'}"})
            return
        await self._app(scope, receive, send)

    async def _serve_lifespan(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._loaded = asyncio.Event()
                self._loader = asyncio.create_task(self._load(scope.get("state")))
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._loader is not None and not self._loader.done():
                    await asyncio.wait([self._loader])  # a half-built app still gets its shutdown
                await self._stop_inner()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _load(self, state: dict[str, Any] | None) -> None:
        assert self._loaded is not None
        start = time.monotonic()
        try:
            app = await asyncio.to_thread(self._build)
            await self._start_inner(app, state)
            self._app = app
            self._log(f"ready: protocol layer loaded in {time.monotonic() - start:.1f} s")
        except Exception as exc:  # noqa: BLE001 - any failure to build is reported, not raised into uvicorn
            self._problem = f"{type(exc).__name__}: {exc}"
            self._log(f"could not start: {self._problem}")
            if self._on_failure is not None:
                self._on_failure(self._problem)
        finally:
            self._loaded.set()

    async def _start_inner(self, app: Any, state: dict[str, Any] | None) -> None:
        """Run the real app's lifespan startup (its background tasks) with uvicorn's shared state."""
        to_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        from_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"},
                 "state": state if state is not None else {}}
        task = asyncio.create_task(app(scope, to_app.get, from_app.put))
        await to_app.put({"type": "lifespan.startup"})
        reply = await _next(from_app, task)
        if reply.get("type") != "lifespan.startup.complete":
            raise RuntimeError(f"the app's start-up failed: {reply.get('message') or reply}")
        self._lifespan = (to_app, from_app, task)

    async def _stop_inner(self) -> None:
        if self._lifespan is None:
            return
        to_app, from_app, task = self._lifespan
        self._lifespan = None
        await to_app.put({"type": "lifespan.shutdown"})
        await _next(from_app, task)
        await asyncio.wait([task], timeout=30)


async def _next(queue: asyncio.Queue[dict[str, Any]], task: asyncio.Task[Any]) -> dict[str, Any]:
    """The app's next lifespan message, or the reason it ended without one (an app without lifespan support
    raises or returns: it counts as started)."""
    getter = asyncio.ensure_future(queue.get())
    done, _ = await asyncio.wait([getter, task], return_when=asyncio.FIRST_COMPLETED)
    if getter in done:
        return getter.result()
    getter.cancel()
    return {"type": "lifespan.startup.complete"}


async def _answer(send: Send, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
