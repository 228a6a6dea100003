"""``make_server`` and ``serve``: the SDK's Server over configured copies of the hosted classes.

What a server adds to the SDK's: only jobenv's own tools are served (a session asking for a built-in toolset,
e.g. ``toolset="backsearch"``, is refused with HTTP 400, so no web tools appear); ``GET /{route}/status``
answers the open-sandbox count and the limits in force; every sandbox opened or closed is a log line.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import Any

from .config import ServeConfig
from .runtime import Runtime, log

__all__ = ["make_server", "serve", "configured_classes", "RequireApiKey", "open_bind_warning"]


def configured_classes(runtime: Runtime) -> list[type]:
    """One subclass per served route of the module-level class, bound to ``runtime`` (first = default route)."""
    from .environments import ENVIRONMENT_CLASSES, tool_methods

    tools = tool_methods(compact=runtime.config.compact_tools, extra=runtime.rules.tools)
    out: list[type] = []
    for ds in runtime.datasets:
        base = ENVIRONMENT_CLASSES[ds.route]
        out.append(type(base.__name__, (base,), {"runtime": runtime, "__doc__": base.__doc__,
                                                 "__module__": base.__module__, **tools}))
    return out


async def _refuse(send: Any, status: int, detail: str) -> None:
    payload = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})


class RequireApiKey:
    """ASGI middleware: with a key set, every connection on every transport (HTTP requests, their SSE streams,
    WebSockets, MCP routes: any scope but the server's own ``lifespan``) must carry it as ``X-API-Key`` (what the
    openreward client sends) or ``Authorization: Bearer``; only ``GET /health`` is open. A request without it gets
    HTTP 401; a WebSocket without it is refused at the handshake (HTTP 401 where the server supports ASGI's
    ``websocket.http.response``, else 403), before any route, session or episode exists. Used by both of
    ``jobenv serve``'s protocols."""

    def __init__(self, app: Any, api_key: str | None) -> None:
        self.app = app
        self.api_key = api_key

    def _authorised(self, scope: dict[str, Any]) -> bool:
        kind = scope.get("type")
        if not self.api_key or kind == "lifespan" or (kind == "http" and scope.get("path") == "/health"):
            return True
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ").strip()
        return hmac.compare_digest(given.encode(), self.api_key.encode())

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if self._authorised(scope):
            await self.app(scope, receive, send)
        elif scope.get("type") == "http":
            await _refuse(send, 401, _NEEDS_KEY)
        elif scope.get("type") == "websocket":
            if (await receive()).get("type") != "websocket.connect":
                return
            if "websocket.http.response" in scope.get("extensions", {}):
                payload = json.dumps({"detail": _NEEDS_KEY}).encode()
                await send({"type": "websocket.http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(payload)).encode())]})
                await send({"type": "websocket.http.response.body", "body": payload})
            else:  # a close before the accept: the server answers the handshake with HTTP 403
                await send({"type": "websocket.close", "code": 1008, "reason": "API key required"})
        # any other kind of scope: nothing is served without the key


_NEEDS_KEY = "this server needs its API key (X-API-Key or Authorization: Bearer)"
_LOOPBACK_NAMES = frozenset({"localhost", "ip6-localhost", "ip6-loopback"})


def open_bind_warning(host: str, api_key: str | None) -> str | None:
    """The warning both protocols print when ``host`` is not a loopback address and no key is set (None when
    there is nothing to warn about). A host name other than localhost counts as reachable from elsewhere."""
    if api_key:
        return None
    name = host.strip().strip("[]").lower()
    if name in _LOOPBACK_NAMES:
        return None
    try:
        if ipaddress.ip_address(name).is_loopback:
            return None
    except ValueError:
        pass
    return (f"WARNING: listening on {host} without an API key: anyone who reaches this port can run commands in "
            "sandboxes (set --api-key or $JOBENV_SERVE_API_KEY)")


class _SessionCap:
    """ASGI middleware: a create while ``max_sessions`` sandboxes are open is refused (HTTP 503)."""

    def __init__(self, app: Any, runtime: Runtime) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            cap = self.runtime.config.max_sessions
            if (scope.get("method") == "POST" and scope.get("path", "").endswith("/create")
                    and self.runtime.open_sandboxes >= cap):
                await _refuse(send, 503, f"the server holds its maximum of {cap} open sessions; retry later")
                return
        await self.app(scope, receive, send)


class _OwnToolsOnly:
    """ASGI middleware: a session creation that names a toolset is refused before the SDK binds it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST" or not scope.get("path", "").endswith("/create"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = bool(message.get("more_body"))
        body = b"".join(chunks)
        try:
            toolset = json.loads(body or b"{}").get("toolset_name")
        except (ValueError, AttributeError):
            toolset = None
        if toolset:
            await _refuse(send, 400, f"toolset {toolset!r} is not served here: jobenv sessions use jobenv's own "
                                     "tools only (bash, read, write, edit, multi_edit, glob, grep, ls, todo_write, "
                                     "submit)")
            return
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def make_server(config: ServeConfig | None = None, *, quiet: bool = False, **overrides: Any) -> Any:
    """An ``openreward.environments.Server`` for ``config`` (default: :meth:`ServeConfig.from_env` with
    ``overrides``). Start-up checks happen here (see :class:`~jobenv.hosting.runtime.Runtime`); raises JobenvError
    when nothing can be served or the judge cannot work, MissingExtraError without the SDK.

    ``server.app`` is the ASGI app; ``server.run(host, port)`` serves it with uvicorn; ``server.jobenv_runtime``
    is the shared state (open sandboxes, routes).
    """
    runtime = Runtime.start(config if config is not None else ServeConfig.from_env(**overrides), quiet=quiet)
    return _server_for(runtime)


def _server_for(runtime: Runtime) -> Any:
    from .environments import Server

    server = Server(configured_classes(runtime))

    async def status(env_name: str) -> dict[str, Any]:
        return runtime.status()

    server.app.add_api_route("/{env_name}/status", status, methods=["GET"])
    server.app.add_middleware(_OwnToolsOnly)
    server.app.add_middleware(_SessionCap, runtime=runtime)
    server.app.add_middleware(RequireApiKey, api_key=runtime.config.api_key)  # outermost: the key comes first
    server.jobenv_runtime = runtime
    return server


def serve(config: ServeConfig, *, host: str = "127.0.0.1", port: int = 8080) -> int:
    """Host until interrupted (``jobenv serve``).

    Tasks and the judge are loaded first: a configuration problem raises JobenvError before anything listens.
    Then the port opens while the OpenReward SDK (seconds of imports) loads in a thread; requests that arrive
    meanwhile wait for it, and ``/health`` says ready (200) only once it has loaded (503 ``loading`` before). Returns 0 after a clean stop, 2 when the protocol layer could
    not be loaded (the reason is logged).
    """
    import uvicorn

    from .staged import StagedApp

    rt = Runtime.start(config)
    warning = open_bind_warning(host, config.api_key)
    if warning:
        log(warning)
    routes = ", ".join(f"/{r} ({', '.join(s)})" for r, s in rt.routes.items())
    limits = f"max_steps {rt.rules.max_steps}, time_limit {rt.rules.time_limit_s or 'none'}"
    image = config.sandbox.options.get("image")
    log(f"http://{host}:{port} serving {routes}; sandbox {config.sandbox.backend}{f' image {image}' if image else ''}, "
        f"judge {config.judge.kind}, scoring {rt.rules.scoring}, {limits}, on_truncate {rt.rules.on_truncate}, "
        f"idle timeout {config.idle_timeout_s:g} s, at most {config.max_sessions} sessions, "
        f"API key {'required' if config.api_key else 'not required'}")
    log("listening; loading the protocol layer (the OpenReward SDK) in the background")
    failed: list[str] = []

    def build() -> Any:
        server = _server_for(rt)
        _sdk_process_setup()
        return server.app

    def stop(problem: str) -> None:
        failed.append(problem)
        uv.should_exit = True

    app = StagedApp(build, log=log, on_failure=stop)
    # a stop waits at most 5 s for requests in flight: `docker stop` sends SIGKILL 10 s after SIGTERM, and the
    # cleanup after uvicorn returns (sessions, temporary folders) must run before that
    uv = uvicorn.Server(uvicorn.Config(app, host=host, port=port, timeout_keep_alive=60, access_log=False,
                                       timeout_graceful_shutdown=5))
    uv.run()
    return 2 if failed else 0


def _sdk_process_setup() -> None:
    """What the SDK's own ``Server.run`` sets up for the process: its logging, update check and metrics."""
    from openreward.environments import server as sdk_server

    sdk_server.setup_logging()
    sdk_server.check_for_updates_async()
    sdk_server.setup_metrics()
