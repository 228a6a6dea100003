"""Serve jobenv's environments over OpenReward's HTTP standard with the ``openreward`` SDK.

* :mod:`~jobenv.hosting.config`: the route table (``JobBench``, ``JobTasks``, ``JobenvSample``) and
  :class:`ServeConfig` (sandbox, image, judge, scoring, step/time limits, truncation rule, idle timeout);
* :mod:`~jobenv.hosting.redact`: what a client may see of tasks and reports (no rubric wording, ever);
* :mod:`~jobenv.hosting.runtime`: start-up checks and the state sessions share (judge built once, open sandboxes,
  the idle reaper);
* :mod:`~jobenv.hosting.environments`: the Environment classes, at module level (imports the SDK);
* :mod:`~jobenv.hosting.server`: :func:`make_server` and :func:`serve`.

What leaves the server: ``list_tasks`` gives only public specs (id, occupation, split, index); the prompt; tool
output from inside the sandbox (which holds only ``task_folder/``); and at the end the reward plus a grading report
with every rubric's wording removed. Rubrics, task cards and reference solutions stay on the host. The SDK is
imported only by the last two modules, so ``import jobenv.hosting`` is cheap.
"""

from __future__ import annotations

from typing import Any

from .config import (
    ENVS_ENV_VAR,
    HOSTED_DATASETS,
    IDLE_ENV_VAR,
    JUDGE_ENV_VAR,
    SANDBOX_ENV_VAR,
    HostedDataset,
    ServeConfig,
)
from .redact import private_texts, public_task_spec, redact_report

__all__ = [
    "HostedDataset",
    "HOSTED_DATASETS",
    "ServeConfig",
    "SANDBOX_ENV_VAR",
    "JUDGE_ENV_VAR",
    "ENVS_ENV_VAR",
    "IDLE_ENV_VAR",
    "public_task_spec",
    "private_texts",
    "redact_report",
    "make_server",
    "serve",
    "Jobenv",
    "JobBench",
    "JobTasks",
    "JobenvSample",
]

_LAZY = {
    "make_server": "jobenv.hosting.server",
    "serve": "jobenv.hosting.server",
    "Jobenv": "jobenv.hosting.environments",
    "JobBench": "jobenv.hosting.environments",
    "JobTasks": "jobenv.hosting.environments",
    "JobenvSample": "jobenv.hosting.environments",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jobenv.hosting' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
