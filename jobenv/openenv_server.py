"""Serve jobenv over OpenEnv's protocol: ``jobenv serve --protocol openenv`` or ``uvicorn jobenv.openenv_server:app``.

Each OpenEnv session (a WebSocket, or one stateful HTTP session) gets its own :class:`JobenvOpenEnv` and so its own
sandbox; many sessions run at once on the server's event loop. ``reset(split=, index= | task_id=, seed=)`` stages a
task and returns the prompt with the tool schemas; ``step({"name": <tool>, "arguments": {...}})`` runs one tool call
through :class:`jobenv.env.JobEnv`. Every observation is text plus ``reward``, ``done`` and ``status``
(``ok`` | ``error`` | ``truncated``; ``error`` marks an infrastructure failure a trainer should drop, not a 0 to learn
from). The task listing routes (``/{env}/splits``, ``/{env}/tasks``, ...) serve jobenv's splits (``main``, ``easy``,
``all``, ``train``, ``sample``) with public specs only; rubric wording never leaves the server.

Closing a session removes its sandbox; stopping the server closes every live session and removes the process's
temporary folders. Needs ``pip install 'jobenv[openenv]'``; importing this module does not import OpenEnv until the
app or the classes (module-level, in :mod:`jobenv.hosting.openenv`) are asked for.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_SPLIT", "ENV_NAME", "create_openenv_app", "cli_serve_openenv"]

ENV_NAME = "jobenv"
DEFAULT_SPLIT = "sample"
_CLASSES = ("JobenvAction", "JobenvObservation", "JobenvState", "JobenvOpenEnv")


def create_openenv_app(
    *,
    sandbox: str | None = None,
    sandbox_image: str | None = None,
    judge: str | None = None,
    default_split: str = DEFAULT_SPLIT,
    rules: Any = None,
    max_sessions: int = 64,
    api_key: str | None = None,
) -> Any:
    """The OpenEnv FastAPI app serving jobenv. The sandbox comes from :meth:`SandboxConfig.from_env` (``sandbox`` /
    ``sandbox_image`` win over ``$JOBENV_SANDBOX`` / ``$JOBENV_SANDBOX_IMAGE``), the judge kind from ``judge``, else
    ``$JOBENV_SERVE_JUDGE``, else ``auto``; ``rules`` is the episodes' :class:`jobenv.grading.EpisodeRules` (the
    default budget when None). ``max_sessions`` bounds concurrent sessions (each holds a sandbox). With
    ``api_key`` (else ``$JOBENV_SERVE_API_KEY``; so ``uvicorn jobenv.openenv_server:app`` is guarded too), every
    HTTP request but ``/health`` and every WebSocket must carry it (:class:`~jobenv.hosting.server.RequireApiKey`).

    Raises UnknownEnvError for an unknown ``default_split`` and ImportError (naming the extra) without OpenEnv.
    """
    from openenv.core.env_server.http_server import create_fastapi_app

    from . import settings
    from .hosting import JUDGE_ENV_VAR
    from .hosting import openenv as classes
    from .hosting.config import API_KEY_ENV_VAR
    from .hosting.server import RequireApiKey
    from .sandbox.config import SandboxConfig

    classes.env_id_of(default_split)
    config = {
        "sandbox": SandboxConfig.from_env(None, backend=sandbox, **({"image": sandbox_image} if sandbox_image else {})),
        "judge": judge or settings.get(JUDGE_ENV_VAR) or "auto",
        "default_split": default_split,
        "rules": rules,  # a jobenv.grading.EpisodeRules; None: the default budget
    }
    env_cls = type("JobenvOpenEnv", (classes.JobenvOpenEnv,), {"config": config, "__module__": __name__})
    app = create_fastapi_app(env_cls, classes.JobenvAction, classes.JobenvObservation,
                             max_concurrent_envs=max_sessions, env_name=ENV_NAME, state_cls=classes.JobenvState)
    app.router.on_shutdown.append(_close_all)
    app.add_middleware(RequireApiKey, api_key=api_key or settings.get(API_KEY_ENV_VAR))  # outermost
    return app


async def _close_all() -> None:
    """Server shutdown: close every live session's episode (their sandboxes), then this process's temp folders."""
    from .hosting.openenv import LIVE

    for env in list(LIVE):
        try:
            await env._close_env()
        except Exception:  # noqa: BLE001 - best effort at shutdown
            pass
    from .sandbox import cleanup_process_temp

    cleanup_process_temp()


def __getattr__(name: str) -> Any:
    # ``uvicorn jobenv.openenv_server:app`` — built on first access so importing the module stays light
    if name == "app":
        return create_openenv_app()
    if name in _CLASSES:
        from .hosting import openenv

        return getattr(openenv, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cli_serve_openenv(host: str, port: int, *, sandbox: str | None = None, sandbox_image: str | None = None,
                      judge: str | None = None, rules: Any = None, default_split: str = DEFAULT_SPLIT,
                      max_sessions: int = 64, api_key: str | None = None) -> int:
    """``jobenv serve --protocol openenv``: serve until interrupted; sessions and temp folders are removed on the way
    out. With ``api_key``, every HTTP request but ``/health`` and every WebSocket (``/ws``, ``/mcp``, ...) must carry
    it (see :func:`create_openenv_app`); without one, a host that is not loopback is warned about.
    Configuration problems raise JobenvError before the server listens."""
    import sys

    import uvicorn

    from .hosting.runtime import log
    from .hosting.server import open_bind_warning

    app = create_openenv_app(sandbox=sandbox, sandbox_image=sandbox_image, judge=judge, rules=rules,
                             default_split=default_split, max_sessions=max_sessions, api_key=api_key)
    warning = open_bind_warning(host, api_key)
    if warning:
        log(warning)
    print(f"jobenv serve: OpenEnv on http://{host}:{port} (default split {default_split}, up to {max_sessions} "
          f"sessions)", file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
