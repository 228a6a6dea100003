"""jobenv as a verifiers (v1) taskset: ``vf-eval jobenv-verifiers --env.taskset.env-id jobenv/sample``.

verifiers finds a taskset by importing the module named after its id (``jobenv-verifiers`` -> this package) and
taking the one :class:`verifiers.v1.Taskset` subclass in ``__all__``; the bundled harness (a tool-calling chat
loop with no tools of its own) is the default, so the model sees exactly jobenv's tools under their own names.

One rollout is one jobenv episode: the task's tool server (``python -m jobenv_verifiers.toolset``) stages a sandbox
with :class:`jobenv.env.JobEnv`, runs every tool call through it and ends the episode on ``submit`` (or when the step
or time budget runs out). The reward is the report's ``normalized_score``; ``pass_rate`` and ``strict_pass`` are
metrics. An episode whose sandbox or grading failed for an infrastructure reason is recorded as an errored rollout
(reward left empty), never as a 0.

Importing this package needs verifiers (``pip install 'jobenv[verifiers]'``); ``import jobenv`` never imports it.
"""

from __future__ import annotations

try:
    import verifiers.v1  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("the jobenv verifiers taskset needs verifiers: pip install 'jobenv[verifiers]'") from exc

from .taskset import (
    JobenvData,
    JobenvHarness,
    JobenvState,
    JobenvTask,
    JobenvTaskConfig,
    JobenvTaskset,
    JobenvTasksetConfig,
    JobenvToolsConfig,
)

__all__ = [
    "JobenvData",
    "JobenvHarness",
    "JobenvState",
    "JobenvTask",
    "JobenvTaskConfig",
    "JobenvTaskset",
    "JobenvTasksetConfig",
    "JobenvToolsConfig",
]
