"""``jobenv serve``: host the environments over OpenReward's HTTP standard with the ``openreward`` SDK."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ._common import JUDGE_CHOICES, SANDBOX_CHOICES, SCORING_CHOICES, port, positive_float, positive_int

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "serve"
HELP = "host the environments with the openreward SDK"


@dataclass(frozen=True)
class Options:
    host: str
    port: int
    envs: str | None
    sandbox: str | None
    sandbox_image: str | None
    judge: str | None
    scoring: str
    max_steps: int
    time_limit: float | None
    on_truncate: str
    idle_timeout: float | None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="0.0.0.0", help="interface to listen on")
    p.add_argument("--port", type=port, default=8080, help="TCP port")
    p.add_argument("--envs", default=None,
                   help="hosted classes in order, e.g. sample,jobbench (default: $JOBENV_SERVE_ENVS, else every "
                        "class whose tasks load; the first is the default route)")
    p.add_argument("--sandbox", choices=SANDBOX_CHOICES, default=None,
                   help="sandbox backend (default: $JOBENV_SANDBOX or local)")
    p.add_argument("--sandbox-image", default=None,
                   help="Docker image of the docker sandbox (default: jobenv/knowledge-worker:latest)")
    p.add_argument("--judge", choices=JUDGE_CHOICES, default=None, help="judge kind (default: $JOBENV_SERVE_JUDGE or auto)")
    p.add_argument("--scoring", choices=SCORING_CHOICES, default="strict",
                   help="which score is the reward: strict (all criteria) or official (the leaderboard's)")
    p.add_argument("--max-steps", type=positive_int, default=100, help="tool calls per session, submit included")
    p.add_argument("--time-limit", type=positive_float, default=None,
                   help="wall-clock seconds per session (default: none)")
    p.add_argument("--on-truncate", choices=["zero", "grade"], default="zero",
                   help="what a session that runs out of steps or time before submit earns")
    p.add_argument("--idle-timeout", type=positive_float, default=None,
                   help="seconds without a tool call before a session's sandbox is closed "
                        "(default: $JOBENV_SERVE_IDLE_TIMEOUT or 600)")


def run(opts: Options) -> int:
    """Serve until interrupted. Configuration problems (nothing loads, a judge that cannot work, a missing hosting
    extra) raise JobenvError before the server listens (exit 2)."""
    from ..extras import require

    require("hosting", "jobenv serve")
    from ..hosting import ServeConfig, serve

    config = ServeConfig.from_env(
        envs=[e for e in opts.envs.split(",") if e.strip()] if opts.envs else None,
        sandbox=opts.sandbox, sandbox_image=opts.sandbox_image, judge=opts.judge, scoring=opts.scoring,
        max_steps=opts.max_steps, time_limit_s=opts.time_limit, on_truncate=opts.on_truncate,
        idle_timeout_s=opts.idle_timeout,
    )
    return serve(config, host=opts.host, port=opts.port)
