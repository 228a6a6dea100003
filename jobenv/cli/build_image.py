"""``jobenv build-image``: build the knowledge-worker Docker image of the docker sandbox."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "build-image"
HELP = "build the knowledge-worker Docker image"


@dataclass(frozen=True)
class Options:
    tag: str


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tag", default="jobenv/knowledge-worker:latest", help="image tag to build")


def run(opts: Options) -> int:
    """Raises SandboxUnavailableError without the docker extra or engine, SandboxError when the build fails."""
    from ..sandbox.image import build_image

    build_image(opts.tag)
    return 0
