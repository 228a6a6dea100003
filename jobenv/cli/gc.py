"""``jobenv gc``: remove sandboxes (containers, temp dirs) left behind by crashed processes."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "gc"
HELP = "remove sandboxes (containers, temp dirs) left behind by crashed processes"


@dataclass(frozen=True)
class Options:
    pass


def add_arguments(p: argparse.ArgumentParser) -> None:
    pass


def run(opts: Options) -> int:
    """Temp and grading dirs, stray web-network stacks and local cgroups of dead processes, then Docker
    containers (skipped with a line when Docker is unavailable)."""
    from ..errors import SandboxError
    from ..sandbox.gc import gc_host
    from ..sandbox.local import gc_local

    n = gc_host(verbose=True) + gc_local(verbose=True)
    try:
        from ..sandbox.docker import gc_docker

        n += gc_docker(verbose=True)
    except SandboxError as exc:
        print(f"docker: skipped ({exc})")
    print(f"removed {n} leftover sandbox resource(s)")
    return 0
