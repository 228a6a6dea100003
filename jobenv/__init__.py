"""jobenv: reinforcement-learning environments for professional white-collar work.

    >>> import jobenv
    >>> env = jobenv.make("jobenv/sample")
    >>> obs, info = env.reset(seed=0)

Heavy parts (pandas, openai, docker, openreward) load only when used, so ``import jobenv`` stays fast.
"""

from __future__ import annotations

from typing import Any

from .errors import (
    ConfigError,
    DatasetNotFoundError,
    JobenvError,
    JudgeConfigError,
    JudgeError,
    PolicyError,
    SandboxError,
    SandboxUnavailableError,
    TaskFormatError,
    UnknownEnvError,
    UnknownTaskError,
    WorkspacePathError,
)
from .registry import list_envs, load_tasks, make

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "make",
    "list_envs",
    "load_tasks",
    "data_dir",
    "JobEnv",
    "Task",
    "Rubric",
    "GradeReport",
    "make_judge",
    "make_sandbox",
    "SandboxLimits",
    "SandboxConfig",
    "JudgeConfig",
    "Episode",
    "EpisodeRules",
    "Outcome",
    "Status",
    "Ending",
    "ErrorKind",
    "collect",
    "collect_sync",
    "OpenAIChatPolicy",
    "Trajectory",
    "JobenvError",
    "ConfigError",
    "TaskFormatError",
    "DatasetNotFoundError",
    "UnknownEnvError",
    "SandboxError",
    "SandboxUnavailableError",
    "WorkspacePathError",
    "JudgeError",
    "JudgeConfigError",
    "UnknownTaskError",
    "PolicyError",
]

# public name -> module that defines it, imported on first access
_LAZY = {
    "data_dir": "jobenv.datasets",
    "JobEnv": "jobenv.env",
    "Task": "jobenv.tasks",
    "Rubric": "jobenv.tasks",
    "GradeReport": "jobenv.judge",
    "make_judge": "jobenv.judge",
    "make_sandbox": "jobenv.sandbox",
    "SandboxLimits": "jobenv.sandbox",
    "SandboxConfig": "jobenv.sandbox",
    "JudgeConfig": "jobenv.judge",
    "Episode": "jobenv.episode",
    "EpisodeRules": "jobenv.episode",
    "Status": "jobenv.episode",
    "Ending": "jobenv.episode",
    "ErrorKind": "jobenv.episode",
    "Outcome": "jobenv.episode",
    "collect": "jobenv.rollout",
    "collect_sync": "jobenv.rollout",
    "OpenAIChatPolicy": "jobenv.rollout",
    "Trajectory": "jobenv.rollout",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jobenv' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


from .registry import _install_gymnasium_hook  # noqa: E402

_install_gymnasium_hook()
del _install_gymnasium_hook
