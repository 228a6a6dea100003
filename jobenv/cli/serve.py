"""``jobenv serve``: host the environments over OpenReward's HTTP standard with the ``openreward`` SDK."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ._common import SANDBOX_CHOICES, port

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "serve"
HELP = "host the environments with the openreward SDK"


@dataclass(frozen=True)
class Options:
    host: str
    port: int
    sandbox: str | None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="0.0.0.0", help="interface to listen on")
    p.add_argument("--port", type=port, default=8080, help="TCP port")
    p.add_argument("--sandbox", choices=SANDBOX_CHOICES, default=None,
                   help="sandbox backend (default: $JOBENV_SANDBOX or local)")


def run(opts: Options) -> int:
    """Serve until interrupted. Bad options (an unknown ``$JOBENV_SERVE_ENVS`` entry) raise JobenvError (exit 2)."""
    from ..hosting import serve

    return serve(host=opts.host, port=opts.port, sandbox=opts.sandbox)
