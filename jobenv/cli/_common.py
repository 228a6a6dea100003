"""What every subcommand shares: the one-line-error parser, the help formatter and typed argument values.

A bad value is rejected by argparse itself, before the handler runs: one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import NoReturn

__all__ = [
    "NoOptions",
    "OneLineParser",
    "DefaultsFormatter",
    "SANDBOX_CHOICES",
    "JUDGE_CHOICES",
    "SCORING_CHOICES",
    "port",
    "positive_int",
    "non_negative_int",
    "positive_float",
    "non_negative_float",
    "unit_float",
    "add_rules_arguments",
    "add_sandbox_arguments",
    "rule_fields",
]

# kept equal to jobenv.sandbox.BACKENDS and make_judge's kinds (asserted in tests); written here so that
# `jobenv --help` does not import the sandbox or judge packages
SANDBOX_CHOICES = ("local", "docker")
JUDGE_CHOICES = ("auto", "checks", "llm", "agentic")
SCORING_CHOICES = ("strict", "official")


@dataclass(frozen=True)
class NoOptions:
    """The options of a command without flags."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line (``jobenv serve: error: ...``) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise SystemExit(status)


class DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows ``(default: X)`` after each option's help unless the help text already states its default."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "default" in text or action.default in (None, argparse.SUPPRESS) or action.nargs == 0:
            return text
        return super()._get_help_string(action)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def port(text: str) -> int:
    """A TCP port, 1..65535."""
    value = _int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1..65535, got {value}")
    return value


def _name_list(text: str) -> tuple[str, ...]:
    """A comma-separated list of optional tool names (a bad name is the parser's one-line error)."""
    from ..tools.table import check_tool_names

    try:
        return check_tool_names(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_int(text: str) -> int:
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def positive_float(text: str) -> float:
    value = _float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
    return value


def non_negative_float(text: str) -> float:
    value = _float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def unit_float(text: str) -> float:
    """A number in [0, 1] (top-p)."""
    value = _float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def rule_fields() -> tuple[str, ...]:
    """The :class:`~jobenv.episode.EpisodeRules` fields, each a flag of its own (``--max-steps``, ``--time-limit``,
    ``--on-truncate``, ``--scoring``, and any rule added there); a command's ``Options`` receives them as one
    ``rules`` value."""
    from ..episode.rules import EpisodeRules

    return tuple(EpisodeRules.model_fields)


def _flag(name: str) -> str:
    return "--" + name.removesuffix("_s").replace("_", "-")


def add_rules_arguments(p: argparse.ArgumentParser, *, subject: str = "episode") -> None:
    """The episode-rule flags, derived from :class:`~jobenv.episode.EpisodeRules`: its types, bounds, defaults
    and descriptions, declared once there. ``subject`` names what the rules apply to in the help."""
    import typing

    from annotated_types import Ge, Gt

    from ..episode.rules import EpisodeRules

    for name, field in EpisodeRules.model_fields.items():
        help_text = (field.description or name).replace("episode", subject)
        args = typing.get_args(field.annotation)
        if typing.get_origin(field.annotation) is tuple:
            p.add_argument(_flag(name), dest=name, type=_name_list, default=field.default, help=help_text)
            continue
        if typing.get_origin(field.annotation) is typing.Literal:
            p.add_argument(_flag(name), dest=name, choices=args, default=field.default, help=help_text)
            continue
        base = next(a for a in args if a is not type(None))
        bounds = {type(m) for m in field.metadata}
        kind = (positive_int if Ge in bounds else _int) if base is int else (positive_float if Gt in bounds else _float)
        suffix = "" if field.default is not None else " (default: none)"
        p.add_argument(_flag(name), dest=name, type=kind, default=field.default, help=help_text + suffix)


def add_sandbox_arguments(p: argparse.ArgumentParser) -> None:
    """``--sandbox`` and ``--sandbox-image``, the same for every command; a command resolves them with
    :meth:`jobenv.sandbox.SandboxConfig.from_env` (the ``JOBENV_SANDBOX*`` variables fill what they leave out;
    an image without the docker backend is a SandboxError, exit 2)."""
    p.add_argument("--sandbox", choices=SANDBOX_CHOICES, default=None,
                   help="sandbox backend (default: $JOBENV_SANDBOX, else local)")
    p.add_argument("--sandbox-image", default=None,
                   help="Docker image of the docker sandbox (default: $JOBENV_SANDBOX_IMAGE, else "
                        "jobenv/knowledge-worker:latest)")

