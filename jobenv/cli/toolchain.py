"""``jobenv toolchain``: install the knowledge worker's toolchain for the local sandbox, or check what a sandbox
offers."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ._common import add_sandbox_arguments

if TYPE_CHECKING:
    from ..sandbox.toolchain import ToolchainReport

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "toolchain"
HELP = "install the local sandbox's toolchain (Python packages and tools), or check what a sandbox offers"


@dataclass(frozen=True)
class Options:
    action: Literal["install", "check"]
    path: str | None
    apt: Literal["auto", "yes", "no"]
    force: bool
    sandbox: str | None
    sandbox_image: str | None
    json: bool


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["install", "check"],
                   help="install: build the toolchain (~1.2 GB) and the native sandbox controller; check: list, from inside a sandbox, every "
                        "expected module and command with its version and what is missing (exit 1 if any is)")
    p.add_argument("--path", default=None,
                   help="where to install (default: $JOBENV_TOOLCHAIN, else ~/.cache/jobenv-toolchain/<version>, "
                        "where sandboxes look for it)")
    p.add_argument("--apt", choices=["auto", "yes", "no"], default="auto",
                   help="install the Debian packages the host lacks: auto does when root with apt-get")
    p.add_argument("--force", action="store_true", help="rebuild an existing toolchain (default: keep it)")
    add_sandbox_arguments(p)
    p.add_argument("--json", action="store_true", help="check: print the report as JSON (default: a table)")


def run(opts: Options) -> int:
    """install: SandboxError naming a failed step (exit 2). check: SandboxError when the sandbox cannot start."""
    from pathlib import Path

    from ..sandbox import toolchain

    if opts.action == "install":
        toolchain.install(Path(opts.path).expanduser().absolute() if opts.path else None,
                          apt=None if opts.apt == "auto" else opts.apt == "yes", force=opts.force)
        from ..sandbox.local import controller_note

        print(f"local sandbox controller: {controller_note()}")  # built now unless it was already
        return 0
    report = _check(opts)
    if opts.json:
        print(report.model_dump_json(indent=2))
    else:
        print(f"{report.backend} sandbox: python3 {report.python} ({report.executable})")
        if report.controller:
            print(f"  controller {report.controller}")
        for t in report.tools:
            print(f"  {t.kind:<8} {t.name:<12} {t.version or 'MISSING'}")
        print(f"missing: {', '.join(report.missing)}" if report.missing else "nothing missing")
    return 1 if report.missing else 0


def _check(opts: Options) -> ToolchainReport:
    import asyncio

    from ..sandbox import SandboxConfig, toolchain

    async def go() -> ToolchainReport:
        sb = SandboxConfig.from_env(backend=opts.sandbox, image=opts.sandbox_image).make()
        try:
            await sb.start(None)
            res = await sb.run(toolchain.probe_command(), timeout=300)
        finally:
            await sb.close()
        report = toolchain.probe_report(sb.name, res.output)
        if sb.name == "local":
            from ..sandbox.local import controller_note

            report.controller = controller_note()
        return report

    return asyncio.run(go())
