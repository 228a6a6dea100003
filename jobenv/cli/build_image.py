"""``jobenv build-image``: build the knowledge-worker Docker image of the docker sandbox."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Literal

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "build-image"
HELP = "build the knowledge-worker Docker image (from a registry, or from Debian's mirror when none answers)"


@dataclass(frozen=True)
class Options:
    tag: str
    method: Literal["auto", "dockerfile", "debootstrap"]
    if_missing: bool


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tag", default="jobenv/knowledge-worker:latest", help="image tag to build")
    p.add_argument("--method", choices=["auto", "dockerfile", "debootstrap"], default="auto",
                   help="auto: the Dockerfile when its base image can be pulled, else a debootstrap root file system")
    p.add_argument("--if-missing", action="store_true", help="do nothing when the tag exists (default: rebuild)")


def run(opts: Options) -> int:
    """Raises SandboxUnavailableError without the docker extra, an engine, root or debootstrap; SandboxError when
    a build step fails (with the log's tail)."""
    from ..errors import SandboxUnavailableError
    from ..extras import require

    require("docker", "jobenv build-image", SandboxUnavailableError)
    from ..sandbox.image import build_image, image_exists

    if opts.if_missing and image_exists(opts.tag):
        print(f"{opts.tag} is already present")
        return 0
    build_image(opts.tag, method=opts.method)
    return 0
