"""``jobenv serve``: host the environments over OpenReward's HTTP standard (the ``openreward`` SDK), or over
OpenEnv's with ``--protocol openenv``.

Stopping the server (Ctrl-C or SIGTERM) closes the open sessions and removes the process's temporary folders."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._common import JUDGE_CHOICES, add_rules_arguments, add_sandbox_arguments, port, positive_float, positive_int

if TYPE_CHECKING:
    from ..episode.rules import EpisodeRules

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "serve"
HELP = "host the environments over OpenReward's protocol (default) or OpenEnv's"


@dataclass(frozen=True)
class Options:
    host: str
    port: int
    envs: str | None
    sandbox: str | None
    sandbox_image: str | None
    judge: str | None
    rules: EpisodeRules
    idle_timeout: float | None
    protocol: str
    split: str
    max_sessions: int
    api_key: str | None = None
    compact_tools: bool = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1",
                   help="interface to listen on (default 127.0.0.1; 0.0.0.0 for every interface, then set --api-key)")
    p.add_argument("--api-key", default=None,
                   help="the key every request must carry as X-API-Key (default: $JOBENV_SERVE_API_KEY, else none; "
                        "at least 8 characters)")
    p.add_argument("--port", type=port, default=8080, help="TCP port")
    p.add_argument("--envs", default=None,
                   help="hosted classes in order, e.g. sample,jobbench (default: $JOBENV_SERVE_ENVS, else every "
                        "class whose tasks load; the first is the default route)")
    add_sandbox_arguments(p)
    p.add_argument("--judge", choices=JUDGE_CHOICES, default=None, help="judge kind (default: $JOBENV_SERVE_JUDGE or auto)")
    add_rules_arguments(p, subject="session")
    p.add_argument("--idle-timeout", type=positive_float, default=None,
                   help="seconds without a tool call before a session's sandbox is closed "
                        "(default: $JOBENV_SERVE_IDLE_TIMEOUT or 600)")
    p.add_argument("--protocol", choices=["openreward", "openenv"], default="openreward",
                   help="openreward: the OpenReward standard (openreward SDK); openenv: an OpenEnv server")
    p.add_argument("--split", choices=["main", "easy", "all", "train", "sample"], default="sample",
                   help="openenv: the split a reset without split= uses")
    p.add_argument("--max-sessions", type=positive_int, default=64,
                   help="sessions open at once (each holds a sandbox); a create past it is refused")
    p.add_argument("--compact-tools", action="store_true",
                   help="list tools with one-sentence descriptions and bare schemas (~45%% of the size), for trainers "
                        "that put the tool list in a short prompt (default: full descriptions)")


def run(opts: Options) -> int:
    """Serve until interrupted. Configuration problems (nothing loads, a judge that cannot work, a missing extra)
    raise JobenvError before the server listens (exit 2)."""
    from ..extras import require
    from ..sandbox import cleanup_process_temp

    _exit_on_sigterm()
    try:
        if opts.protocol == "openenv":
            require("openenv", "jobenv serve --protocol openenv")
            from .. import settings
            from ..hosting.config import API_KEY_ENV_VAR
            from ..openenv_server import cli_serve_openenv

            return cli_serve_openenv(opts.host, opts.port, sandbox=opts.sandbox, sandbox_image=opts.sandbox_image,
                                     judge=opts.judge, rules=opts.rules, default_split=opts.split,
                                     max_sessions=opts.max_sessions,
                                     api_key=opts.api_key or settings.get(API_KEY_ENV_VAR))
        require("hosting", "jobenv serve")
        from ..hosting import ServeConfig, serve

        config = ServeConfig.from_env(
            envs=[e for e in opts.envs.split(",") if e.strip()] if opts.envs else None,
            sandbox=opts.sandbox, sandbox_image=opts.sandbox_image, judge=opts.judge, rules=opts.rules,
            idle_timeout_s=opts.idle_timeout, max_sessions=opts.max_sessions, api_key=opts.api_key,
            compact_tools=opts.compact_tools or None,
        )
        return serve(config, host=opts.host, port=opts.port)
    finally:
        cleanup_process_temp()


def _exit_on_sigterm() -> None:
    """SIGTERM (``docker stop``, a supervisor) exits through Python, so ``finally`` and ``atexit`` cleanup run.

    uvicorn shuts down gracefully on SIGTERM and then re-raises the signal under the handler found at start-up:
    this one, instead of the default that ends the process on the spot.
    """
    import signal
    import sys

    def handler(signum: int, frame: object) -> None:
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, handler)
