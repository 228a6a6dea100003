"""The verifiers taskset, task, state and bundled harness of jobenv (see the package docstring).

Configuration (``vf-eval`` flags, or a TOML file):

* ``--env.taskset.env-id jobenv/sample`` — which jobenv split (``jobbench/main``, ``jobbench/easy``,
  ``jobbench/all``, ``jobtasks/train``, ``jobenv/sample``); ``--env.taskset.tasks`` keeps only the listed task ids.
  verifiers' own ``--select.*`` (ids, idx, limit, shuffle) works on top; a task's id is its verifiers key.
* ``--env.taskset.task.tools.sandbox local|docker`` (``...tools.sandbox-image`` for docker), ``...tools.judge auto|checks|llm``, ``...tools.judge-model``,
  ``...tools.judge-base-url``, ``...tools.judge-api-key-var`` (the host variable holding the judge's key; it is
  handed to the tool server only), and the episode rules nested as jobenv's own model: ``...tools.rules.max-steps``,
  ``...tools.rules.time-limit-s``, ``...tools.rules.on-truncate``, ``...tools.rules.scoring``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Literal

import verifiers.v1 as vf
from pydantic import BaseModel, Field
from verifiers.v1.harnesses.null import NullHarness

from jobenv.episode import EpisodeRules, FinishReason, Outcome, Status

__all__ = [
    "JobenvData",
    "JobenvHarness",
    "JobenvOutcome",
    "JobenvState",
    "JobenvTask",
    "JobenvTaskConfig",
    "JobenvTaskset",
    "JobenvTasksetConfig",
    "JobenvToolsConfig",
]

TASKSET_ID = "jobenv-verifiers"


class JobenvToolsConfig(vf.ToolsetConfig):
    """The tool server of one rollout: where its sandbox runs, how it is graded, and its budget."""

    colocated: bool = True
    """Run the tool server in the harness's runtime (a host subprocess by default)."""
    sandbox: Literal["local", "docker"] = "local"
    """jobenv sandbox backend of each episode: ``local`` (bubblewrap) or ``docker``."""
    sandbox_image: str | None = None
    """Docker image of the ``docker`` sandbox (default: jobenv's own image)."""
    judge: Literal["auto", "checks", "llm"] = "auto"
    """``auto``: deterministic checks where a task has them, else the LLM judge."""
    judge_model: str | None = None
    """LLM judge model (default ``$JOBENV_JUDGE_MODEL``)."""
    judge_base_url: str | None = None
    """LLM judge endpoint (default ``$JOBENV_JUDGE_BASE_URL``)."""
    judge_api_key_var: str = "JOBENV_JUDGE_API_KEY"
    """Host variable holding the judge's API key; forwarded to the tool server's process only."""
    rules: EpisodeRules = EpisodeRules()
    """The episode's budget and scoring (jobenv's own model; the prompt states the same budget)."""


class JobenvTaskConfig(vf.TaskConfig):
    tools: JobenvToolsConfig = JobenvToolsConfig()


class JobenvData(vf.TaskData):
    env_id: str
    """The jobenv environment id the task comes from."""
    task_uid: str
    """``<split>/<occupation>/taskN``: what the tool server looks the task up by."""


class JobenvOutcome(BaseModel):
    """How the episode ended, pushed from the tool server into the rollout's state: jobenv's
    :meth:`~jobenv.episode.Outcome.public` view plus the report."""

    status: Status
    reward: float | None = 0.0
    finish_reason: str | None = None
    scores: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    refused_output: list[str] = Field(default_factory=list)
    report: dict[str, Any] | None = None
    criteria: list[dict[str, Any]] = Field(default_factory=list)

    @classmethod
    def of(cls, outcome: Outcome) -> JobenvOutcome:
        public = outcome.public()
        return cls(status=public["status"], reward=public["reward"], finish_reason=public["finish_reason"],
                   scores=public["scores"], error=public.get("error"), criteria=public["criteria"],
                   refused_output=public.get("refused_output", []), report=outcome.report_dict())

    @property
    def pass_rate(self) -> float | None:
        return self.scores.get("pass_rate")

    @property
    def strict_pass(self) -> bool | None:
        return self.scores.get("strict_pass")


class JobenvState(vf.State):
    outcome: JobenvOutcome | None = None
    steps: int = 0


def _outcome(trace: vf.Trace) -> JobenvOutcome:
    """The episode's outcome; raises for an infrastructure failure, so the rollout is an error, not a 0."""
    state = trace.state
    outcome = getattr(state, "outcome", None)
    if outcome is None:
        # the agent stopped (a text-only reply, or the model's turn budget) without submitting: its own doing
        return JobenvOutcome(status=Status.TRUNCATED, reward=0.0, finish_reason=FinishReason.NO_TOOL_CALL,
                             error="the agent ended without calling submit")
    if isinstance(outcome, dict):
        outcome = JobenvOutcome.model_validate(outcome)
    if outcome.status is Status.ERROR:
        raise RuntimeError(f"jobenv could not grade this episode (infrastructure error): {outcome.error}")
    return outcome


class JobenvTask(vf.Task[JobenvData, JobenvState, JobenvTaskConfig]):
    """One jobenv task: its tool server, the stop on submit, and the reward read from the outcome."""

    @property
    def key(self) -> str:
        return self.data.id or self.hash

    @classmethod
    def toolsets(cls, config: JobenvTaskConfig) -> list[vf.Toolset]:
        from .toolset import JobenvToolset

        return [JobenvToolset(config.tools)]

    def runtime_env(self) -> dict[str, str]:
        # subprocess runtimes drop every *API_KEY* variable of the host; hand the judge's key over explicitly
        key = os.environ.get(self.config.tools.judge_api_key_var)
        return {"JOBENV_JUDGE_API_KEY": key} if key else {}

    @vf.stop
    async def submitted(self, trace: vf.Trace) -> bool:
        """The episode is over (submit, or the step/time budget ran out): the rollout ends."""
        return getattr(trace.state, "outcome", None) is not None

    @vf.reward(weight=1.0)
    async def normalized_score(self, trace: vf.Trace) -> float:
        outcome = _outcome(trace)
        trace.info["jobenv"] = {
            "task_id": self.data.id,
            "env_id": self.data.env_id,
            "status": outcome.status,
            "error": outcome.error,
            "refused_output": outcome.refused_output,
            "report": outcome.report,
        }
        return float(outcome.reward or 0.0)

    @vf.metric
    async def pass_rate(self, trace: vf.Trace) -> float:
        return float(_outcome(trace).pass_rate or 0.0)

    @vf.metric
    async def strict_pass(self, trace: vf.Trace) -> float:
        return 1.0 if _outcome(trace).strict_pass else 0.0


class JobenvTasksetConfig(vf.TasksetConfig):
    env_id: str = "jobenv/sample"
    """jobenv environment id: jobbench/main, jobbench/easy, jobbench/all, jobtasks/train or jobenv/sample."""
    tasks: list[str] = Field(default_factory=list)
    """Task ids to keep (``<occupation>/taskN``); empty keeps every task of the split."""
    task: JobenvTaskConfig = JobenvTaskConfig()


class JobenvTaskset(vf.Taskset[JobenvTask, JobenvTasksetConfig]):
    """The tasks of one jobenv split, in registry order, each prompted exactly as a local jobenv episode is."""

    def load(self) -> Iterator[JobenvTask]:
        from jobenv.episode.prompt import build_prompt
        from jobenv.registry import load_tasks
        from jobenv.sandbox.base import SandboxLimits
        from jobenv.sandbox.local import local_software_note
        from jobenv.tasks import select_tasks

        cfg = self.config
        tasks = select_tasks(load_tasks(cfg.env_id), cfg.tasks or None, where=cfg.env_id)
        unique = len({t.id for t in tasks}) == len(tasks)  # jobbench/all repeats ids across its two splits
        rules = cfg.task.tools.rules
        network = SandboxLimits().web  # what JobEnv tells the agent for the default limits
        # the local sandbox's software line, read on the host (a Docker image's is known only once one runs)
        software = local_software_note() if cfg.task.tools.sandbox == "local" else None
        for task in tasks:
            yield JobenvTask(
                JobenvData(
                    id=task.id if unique else task.uid,
                    name=task.uid,
                    prompt=build_prompt(task, rules=rules, network=network, software=software),
                    env_id=cfg.env_id,
                    task_uid=task.uid,
                ),
                cfg.task,
            )


class JobenvHarness(NullHarness):
    """The default seat: a tool-calling chat loop whose only tools are jobenv's (no host shell of its own)."""
