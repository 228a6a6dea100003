"""``jobenv gc``: remove sandboxes (containers, temp dirs) left behind by crashed processes."""

from __future__ import annotations

from ._common import NoOptions

__all__ = ["NAME", "HELP", "run"]

NAME = "gc"
HELP = "remove sandboxes (containers, temp dirs) left behind by crashed processes"


def run(opts: NoOptions) -> int:
    """Temp and grading dirs, stray web-network stacks and local cgroups of dead processes, then Docker
    containers (skipped with a line when Docker is unavailable)."""
    from ..errors import SandboxError
    from ..sandbox.gc import gc_host
    from ..sandbox.local import gc_local

    n = gc_host(verbose=True) + gc_local(verbose=True)
    try:
        from ..sandbox.gc import gc_docker

        n += gc_docker(verbose=True)
    except SandboxError as exc:
        print(f"docker: skipped ({exc})")
    print(f"removed {n} leftover sandbox resource(s)")
    return 0
