"""The ``jobenv`` command line: one entry point, one module per subcommand.

Each command module (``jobenv/cli/<command>.py``) declares ``NAME``, ``HELP``, ``add_arguments(parser)``, a frozen
``Options`` dataclass whose fields are exactly the parser's destinations, and ``run(options) -> int``; a command
without flags leaves out ``add_arguments`` and ``Options`` (it is given :class:`NoOptions`). The
modules import their heavy dependencies inside ``run``, so ``jobenv --help`` stays fast.

Exit statuses: a bad flag value is one line and exit 2 before any work (see :mod:`jobenv.cli._common`); a
:class:`~jobenv.errors.JobenvError` raised by a handler is one line and exit 2; Ctrl-C is 130; everything else is
the handler's own status; a closed output pipe (``| head``) is 141, silently.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from . import (
    build_image,
    calibrate,
    check,
    demo,
    download,
    export_harbor,
    export_trajectories,
    gc,
    generate,
    judge,
    list_envs,
    register,
    regrade,
    report,
    rollout,
    serve,
    tasks,
    toolchain,
    validate,
)
from ._common import DefaultsFormatter, NoOptions, OneLineParser, rule_fields

__all__ = ["COMMANDS", "build_parser", "main", "options_for"]

COMMANDS: tuple[ModuleType, ...] = (
    list_envs, tasks, validate, download, demo, judge, rollout, report, regrade, calibrate, export_trajectories, serve,
    generate, export_harbor, check, register, gc,
    build_image, toolchain,
)
_BY_NAME = {m.NAME: m for m in COMMANDS}


def _version() -> str:
    from .. import __version__

    return __version__


def build_parser() -> OneLineParser:
    p = OneLineParser(prog="jobenv", description="RL environments for professional white-collar work.",
                      formatter_class=DefaultsFormatter)
    p.add_argument("--version", action="version", version=f"jobenv {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=OneLineParser)
    for module in COMMANDS:
        s = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP, formatter_class=DefaultsFormatter)
        if hasattr(module, "add_arguments"):
            module.add_arguments(s)
    return p


def options_for(command: str, namespace: Any) -> Any:
    """The command's typed ``Options`` built from a parsed namespace (the fields must match the parser's)."""
    cls = getattr(_BY_NAME[command], "Options", NoOptions)
    values = {k: v for k, v in vars(namespace).items() if k != "command"}
    if "rules" in {f.name for f in dataclasses.fields(cls)}:
        from ..episode.rules import EpisodeRules

        values["rules"] = EpisodeRules(**{k: values.pop(k) for k in rule_fields()})
    return cls(**{f.name: values[f.name] for f in dataclasses.fields(cls)})


def _warnings_as_lines(prefix: str) -> Any:
    """Show each warning (a skipped task folder, a garbage trajectory line) as one line, not Python's two.
    Returns the previous hook, which :func:`main` puts back (a caller's own warning capture keeps working)."""
    import warnings

    previous = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None,
             line: str | None = None) -> None:
        print(f"{prefix}: warning: {message}", file=sys.stderr)

    warnings.showwarning = show
    return previous


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    from ..errors import JobenvError

    ns = build_parser().parse_args(argv)
    previous = _warnings_as_lines(f"jobenv {ns.command}")
    try:
        return int(_BY_NAME[ns.command].run(options_for(ns.command, ns)) or 0)
    except JobenvError as exc:
        print(f"jobenv {ns.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"jobenv {ns.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`jobenv list | head`): stop quietly, as other tools do
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the final flush must not fail again
        return 141
    finally:
        warnings.showwarning = previous
