"""The one error hierarchy of jobenv.

Every failure jobenv raises on purpose is a :class:`JobenvError`, so a trainer can
catch one class. Subclasses say which component failed; messages name the file,
field or command involved.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "first_problem",
    "JobenvError",
    "ConfigError",
    "TaskFormatError",
    "DatasetNotFoundError",
    "UnknownEnvError",
    "SandboxError",
    "SandboxUnavailableError",
    "SandboxDiedError",
    "FileTooLargeError",
    "WorkspacePathError",
    "JudgeError",
    "JudgeConfigError",
    "ReplyError",
    "UnknownTaskError",
    "PolicyError",
    "QualityGateError",
    "MissingExtraError",
]


class JobenvError(Exception):
    """Base class of every error jobenv raises deliberately."""


class ConfigError(JobenvError, ValueError):
    """A bad option value (a budget below 1, an unknown scoring rule); the message names the option."""


class TaskFormatError(JobenvError):
    """A task directory, rubric file or dataset file is malformed.

    The message names the file and the field, e.g. ``RUBRICS.json: rubrics[2].weight: must be >= 0``.
    """


class DatasetNotFoundError(JobenvError):
    """A split was asked for that is not on disk; the message gives the command that downloads it."""


class UnknownEnvError(JobenvError):
    """An environment id that the registry does not know."""


class SandboxError(JobenvError):
    """A sandbox could not be started, used or cleaned up."""


class SandboxUnavailableError(SandboxError):
    """The host refuses what a sandbox backend needs (namespaces, a Docker engine); the message says what to do."""


class SandboxDiedError(SandboxError):
    """A started sandbox is gone: its first process died (memory pressure, or what ran inside). Everything inside it,
    the output folder included, is lost; an episode counts it as the agent's doing (a graded 0, not an error)."""


class FileTooLargeError(SandboxError):
    """A workspace file larger than the caller's ``max_bytes`` (or the workspace), refused before or while reading."""


class WorkspacePathError(SandboxError):
    """A path that would leave ``/workspace`` (``..``, an absolute path elsewhere, a symlink escape)."""


class JudgeError(JobenvError):
    """Grading could not produce a valid verdict (fail-closed: never turned into a score)."""


class JudgeConfigError(JudgeError):
    """The judge is not configured (for example no LLM endpoint while a rubric needs one)."""


class ReplyError(JudgeError):
    """A judge reply that cannot be read as a verdict (retried, then fail-closed)."""


class UnknownTaskError(TaskFormatError):
    """A task id, uid or index that names no task of the split; the message lists some ids that exist."""


class PolicyError(JobenvError):
    """The policy endpoint failed or answered with something that is not a usable reply."""


class QualityGateError(JobenvError):
    """The task generator could not produce a task that passes its quality gate."""
class MissingExtraError(JobenvError):
    """An optional part of jobenv was used without its extra installed; the message names the ``pip install``."""


def first_problem(exc: Any, default_where: str = "") -> tuple[str, str, Any]:
    """``(where, message, input)`` of the first error of a pydantic ``ValidationError``: the dotted field path
    (``default_where`` for a model-level error), pydantic's message and the offending value."""
    first = exc.errors()[0]
    return ".".join(str(p) for p in first["loc"]) or default_where, first["msg"], first.get("input")
