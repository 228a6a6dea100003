"""The one error hierarchy of jobenv.

Every failure jobenv raises on purpose is a :class:`JobenvError`, so a trainer can
catch one class. Subclasses say which component failed; messages name the file,
field or command involved.
"""

from __future__ import annotations

__all__ = [
    "JobenvError",
    "TaskFormatError",
    "DatasetNotFoundError",
    "UnknownEnvError",
    "SandboxError",
    "SandboxUnavailableError",
    "WorkspacePathError",
    "JudgeError",
    "JudgeConfigError",
    "ExtractionError",
    "MissingExtraError",
]


class JobenvError(Exception):
    """Base class of every error jobenv raises deliberately."""


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


class WorkspacePathError(SandboxError):
    """A path that would leave ``/workspace`` (``..``, an absolute path elsewhere, a symlink escape)."""


class JudgeError(JobenvError):
    """Grading could not produce a valid verdict (fail-closed: never turned into a score)."""


class JudgeConfigError(JudgeError):
    """The judge is not configured (for example no LLM endpoint while a rubric needs one)."""


class ExtractionError(JobenvError):
    """A deliverable could not be turned into text (only raised where a caller asked for strictness)."""


class MissingExtraError(JobenvError):
    """An optional part of jobenv was used without its extra installed; the message names the ``pip install``."""
