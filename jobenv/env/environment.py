"""The environment: :class:`JobEnv`, a Gymnasium env whose episodes are tool calls in a sandbox.

One episode = one task. ``reset`` starts a :class:`jobenv.episode.Episode` (a fresh sandbox holding
``/workspace/task_folder`` and an empty ``/workspace/output``) and returns the prompt; each ``step`` is one
``Episode.step``; ``submit`` grades the output folder and ends the episode (see :mod:`jobenv.episode.finish` for
the one table of how episodes end and score). This class adds Gymnasium's API and nothing of the episode's rules.

Async is the real implementation (``areset``/``astep``/``aclose``), so one event loop can drive hundreds of
episodes; ``reset``/``step``/``close`` drive the same coroutines on a private event loop owned by the env.
Use either the sync or the async API on one env, not both: a sandbox may hold resources bound to the loop
that started it.

Failure behaviour: ``step`` never raises for anything the agent does. A malformed action, unknown tool or
bad arguments give an observation explaining the mistake and cost a step. A grading infrastructure error
gives no credit (reward 0.0) and ends the episode with ``info["status"] == "error"``, so a trainer can drop
it. Symlinks or special files left in ``output/`` are the agent's doing: reward 0 with ``info["status"] ==
"ok"`` and ``info["refused_output"]`` listing them; so is a grading that failed on the agent's output while the
task's canary grades cleanly (:mod:`jobenv.episode.canary`). Running out of steps or time truncates (reward 0, or the
graded output with ``on_truncate="grade"``). The constructor raises a :class:`~jobenv.errors.JobenvError`
for an empty task list, a bad budget, an unknown sandbox backend or a misconfigured judge; ``reset`` raises
one when the task is unknown or the sandbox cannot start.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from typing import Any, Literal

import gymnasium
from pydantic import ValidationError

from .._aio import PrivateLoop
from ..episode import DEFAULT_MAX_STEPS, Ending, Episode, EpisodeRules, Outcome, Status, Step
from ..errors import ConfigError, SandboxError, TaskFormatError, first_problem
from ..sandbox.base import Sandbox, SandboxLimits
from ..tasks import Task, find_task
from ..tools import tool_names, tool_schemas
from .spaces import AnyText, ToolCallSpace

__all__ = ["JobEnv"]


class _Resources:
    """What an env must release: kept apart from the env so a finalizer can run after the env is gone."""

    def __init__(self) -> None:
        self.episode: Episode | None = None
        self.loop = PrivateLoop("jobenv-env-loop")


def _release(res: _Resources) -> None:
    """Finalizer (garbage collection or interpreter exit): close the episode's sandbox and the private loop."""
    ep, res.episode = res.episode, None
    if ep is not None:
        res.loop.run_quietly(ep.close())
    res.loop.close()


def _sandbox_label(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, Sandbox):
        return getattr(spec, "name", type(spec).__name__)
    return getattr(spec, "__name__", "factory")


class JobEnv(gymnasium.Env[str, Any]):
    """A JobBench-style environment over a list of tasks.

    Args:
        tasks: the tasks to serve (``jobenv.make(env_id)`` loads them by id).
        env_id: the id the tasks came from, recorded in ``info`` and trajectories.
        sandbox: backend name (``"local"``, ``"docker"``; see :func:`jobenv.sandbox.make_sandbox`; ``"auto"``:
            docker where a Harbor task's environment needs its built image and an engine answers, else local) or a
            zero-argument factory returning a new :class:`Sandbox`; a fresh sandbox serves every episode.
            (A Sandbox instance is accepted for a single episode.)
        judge: ``"auto"``, ``"checks"``, ``"llm"`` or a judge object (see :func:`jobenv.judge.make_judge`).
        max_steps: tool calls per episode, submit included, before truncation (``None``: unlimited).
        time_limit_s: wall-clock seconds per episode before truncation (``None``: unlimited).
        on_truncate: ``"zero"`` (default) or ``"grade"``: what an episode that ran out before submit earns.
        scoring: ``"strict"`` (default) or ``"official"``: which of the report's scores is the reward.
        tools: optional tools to add to the default toolset, e.g. ``("python",)`` (a persistent interpreter;
            the local sandbox only: ConfigError with another backend name).
        rules: an :class:`~jobenv.grading.EpisodeRules` instead of the five arguments above.
        limits: sandbox resource limits.
        sandbox_options / judge_options: extra keyword arguments for the factories.
        sandbox_image: the Docker image of the docker sandbox (SandboxError with any other backend).
        include_instructions: embed TASK_INSTRUCTIONS.txt in the prompt (default True).

    ``info`` keys: after reset ``task_id``, ``uid``, ``split``, ``env_id``, ``tool_schemas``, ``max_steps``,
    ``time_limit_s``, ``on_truncate``, ``scoring``, ``sandbox``; after a step ``task_id``, ``uid``, ``split``,
    ``env_id``, ``step``, ``tool``, ``ok`` (False for any error), ``error`` (kind of error), ``exit_code``
    (bash), ``status`` ("ok" while the episode runs); when the episode ends ``status`` and ``finish_reason`` (:class:`jobenv.episode.Status` and
    :class:`~jobenv.episode.FinishReason` values) and ``report`` (the GradeReport as a dict, when one was made);
    on truncation also ``truncated_reason`` (the :class:`~jobenv.episode.Ending`). Timing
    is deliberately not in ``info`` (see :attr:`elapsed_s`), so steps are reproducible for Gymnasium's
    determinism check.

    Gymnasium: ``gymnasium.make(id, max_episode_steps=N)`` makes N the step budget when it is the tighter one
    (adopted at reset), so Gymnasium's ``TimeLimit`` cuts exactly where jobenv ends and grades the episode.
    ``gymnasium.make_vec(id, n)`` works in "sync" and "async" mode with the default arguments (text observations
    have a shared-memory layout, :data:`jobenv.env.spaces.SHARED_TEXT_BYTES` per env).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        tasks: Sequence[Task],
        *,
        env_id: str | None = None,
        sandbox: Any = "local",
        judge: Any = "auto",
        max_steps: int | None = DEFAULT_MAX_STEPS,
        time_limit_s: float | None = None,
        on_truncate: Literal["zero", "grade"] = "zero",
        scoring: Literal["strict", "official"] = "strict",
        tools: Sequence[str] | str = (),
        rules: EpisodeRules | None = None,
        limits: SandboxLimits | None = None,
        sandbox_options: dict[str, Any] | None = None,
        sandbox_image: str | None = None,
        judge_options: dict[str, Any] | None = None,
        include_instructions: bool = True,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(tasks, str):
            raise TaskFormatError(
                f"JobEnv takes a list of tasks; to load {tasks!r} by id use jobenv.make({tasks!r})"
            )
        self.tasks: list[Task] = list(tasks)
        if not self.tasks:
            raise TaskFormatError(f"{env_id or 'JobEnv'}: no tasks to run")
        self.env_id = env_id or "custom"
        if rules is None:
            try:
                rules = EpisodeRules(max_steps=max_steps, time_limit_s=time_limit_s, on_truncate=on_truncate,
                                     scoring=scoring, tools=tools)  # type: ignore[arg-type]  # validated: a list or "a,b"
            except ValidationError as exc:
                where, msg, _ = first_problem(exc)
                raise ConfigError(f"JobEnv: {where}: {msg}") from None
        self.rules = rules
        self.limits = limits or SandboxLimits()
        auto = sandbox == "auto"
        if auto:  # docker where a Harbor task's environment needs its built image and an engine answers
            from ..harbor.run import auto_backend

            sandbox = auto_backend([t.harbor for t in self.tasks if t.harbor is not None], dict(sandbox_options or {}))
        if isinstance(sandbox, str):
            from ..sandbox import BACKENDS

            if sandbox not in BACKENDS:
                raise SandboxError(f"unknown sandbox backend {sandbox!r}; choose one of {', '.join(BACKENDS)}")
        if isinstance(sandbox, str):
            try:
                rules.check_backend(sandbox)
            except ConfigError as exc:
                raise ConfigError(f"JobEnv: {exc}") from None
        self.sandbox_spec = sandbox
        self.sandbox_options = dict(sandbox_options or {})
        if sandbox_image is not None:
            if sandbox != "docker":
                raise SandboxError(f"sandbox_image={sandbox_image!r} needs sandbox='docker' (got {sandbox!r})")
            self.sandbox_options["image"] = sandbox_image
        self.judge_spec = judge
        self.judge_options = dict(judge_options or {})
        self.include_instructions = include_instructions
        self.render_mode = render_mode
        self.observation_space = AnyText()
        self.action_space = ToolCallSpace(tool_names(rules.tools))

        from ..judge import make_judge
        from ..judge.base import check_judge

        # built now so a misconfigured judge (e.g. "llm" without endpoint) fails at construction, not at submit
        self._judge: Any = make_judge(judge, **self.judge_options)
        # and one that cannot grade these tasks at all (no LLM for LLM-graded criteria) fails here too; Harbor
        # tasks are graded by their own tests/ (see jobenv.harbor.verifier.grader_for), checked the same way
        harbor = [t for t in self.tasks if t.harbor is not None]
        check_judge(self._judge, [t for t in self.tasks if t.harbor is None], self.env_id)
        if harbor:
            from ..harbor.verifier import grader_for

            check_judge(grader_for(harbor[0], self._judge), harbor, self.env_id)
            from ..harbor.run import check_environments

            check_environments([t.harbor for t in harbor if t.harbor], self.limits, sandbox, self.sandbox_options,
                               auto=auto)
        self._res = _Resources()
        self._finalizer = weakref.finalize(self, _release, self._res)
        self._instance_used = False
        self.task: Task | None = None
        self._busy = False
        self.last_outcome: Outcome | None = None

    # ------------------------------------------------------------------------------------------ helpers
    @property
    def max_steps(self) -> int | None:
        return self.rules.max_steps

    @property
    def time_limit_s(self) -> float | None:
        return self.rules.time_limit_s

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas of this env's tools (a fresh copy)."""
        return tool_schemas(extra=self.rules.tools)

    @property
    def last_report(self) -> Any:
        """The GradeReport of the last episode that ended (None when nothing was graded)."""
        return self.last_outcome.report if self.last_outcome is not None else None

    @property
    def episode(self) -> Episode | None:
        """The current (or just finished) episode; None before the first reset."""
        return self._res.episode

    @property
    def sandbox(self) -> Sandbox | None:
        """The current episode's sandbox (None before reset and after the episode ended)."""
        return self._res.episode.sandbox if self._res.episode is not None else None

    @property
    def todos(self) -> list[dict[str, Any]]:
        """The agent's todo list of the current (or just finished) episode."""
        return self._res.episode.todos if self._res.episode is not None else []

    @property
    def steps(self) -> int:
        return self._res.episode.steps if self._res.episode is not None else 0

    @property
    def elapsed_s(self) -> float:
        """The episode's clock (:attr:`jobenv.episode.Episode.elapsed_s`); 0 when no episode runs."""
        ep = self._res.episode
        return ep.elapsed_s if ep is not None and not ep.done else 0.0

    def time_left_s(self) -> float | None:
        """Seconds left under the time limit (None: unlimited, or no episode running)."""
        ep = self._res.episode
        return ep.time_left_s() if ep is not None and not ep.done else None

    @property
    def judge(self) -> Any:
        """The judge grading submissions."""
        return self._judge

    def _pick_task(self, options: dict[str, Any] | None) -> Task:
        options = options or {}
        if options.get("task_id") is not None:
            return find_task(self.tasks, str(options["task_id"]), where=self.env_id)
        if options.get("index") is not None:
            return find_task(self.tasks, options["index"], where=self.env_id)
        return self.tasks[int(self.np_random.integers(len(self.tasks)))]

    def _info(self) -> dict[str, Any]:
        assert self.task is not None
        return {"task_id": self.task.id, "uid": self.task.uid, "split": self.task.split, "env_id": self.env_id}

    def _limits_for(self, task: Task) -> SandboxLimits:
        """The env's limits, with a Harbor task's own layout, workdir, network and resources applied."""
        if task.harbor is None:
            return self.limits
        from ..harbor.run import harbor_limits

        return harbor_limits(self.limits, task.harbor)

    def _rules_for(self, task: Task) -> EpisodeRules:
        """The env's rules; a Harbor task's ``[agent] timeout_sec`` is the time limit when the env sets none."""
        if task.harbor is None or task.harbor.agent_timeout_s is None or self.rules.time_limit_s is not None:
            return self.rules
        return self.rules.model_copy(update={"time_limit_s": task.harbor.agent_timeout_s})

    def _new_sandbox(self, limits: SandboxLimits | None = None, options: dict[str, Any] | None = None) -> Sandbox:
        """A fresh, unstarted sandbox: from a backend name, or a zero-argument factory returning a Sandbox.

        A Sandbox *instance* can serve only one episode (a closed sandbox cannot restart): SandboxError after.
        """
        spec = self.sandbox_spec
        if isinstance(spec, Sandbox):
            if self._instance_used:
                raise SandboxError(
                    "a Sandbox instance serves one episode; pass a backend name ('local', 'docker') or a "
                    "zero-argument factory returning a new Sandbox to JobEnv(sandbox=...)"
                )
            self._instance_used = True
            return spec
        if callable(spec):
            sb = spec()
            if not isinstance(sb, Sandbox):
                raise SandboxError(f"the sandbox factory returned {type(sb).__name__}, not a Sandbox")
            return sb
        from ..sandbox import make_sandbox

        return make_sandbox(spec, limits=limits or self.limits, **(self.sandbox_options if options is None else options))

    def adopt_step_budget(self, steps: int) -> None:
        """Make ``steps`` the step budget when it is tighter than the rules' (from the next reset on): what
        ``gymnasium.make(..., max_episode_steps=N)`` does through :class:`jobenv.env.budget.GymnasiumBudget`, so
        Gymnasium's ``TimeLimit`` cuts where jobenv itself ends and grades the episode."""
        if self.rules.max_steps is None or steps < self.rules.max_steps:
            self.rules = self.rules.model_copy(update={"max_steps": int(steps)})

    # ------------------------------------------------------------------------------------------ async API
    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode: close the previous sandbox, stage a fresh one, return ``(prompt, info)``.

        ``options``: ``{"task_id": "<occupation>/taskN"}`` (also ``<occupation>__taskN``; in a multi-split env
        such as jobbench/all use ``<split>/<occupation>/taskN``, the bare id picks the first split's task) or
        ``{"index": i}``; otherwise a task is drawn with the seeded ``np_random``.
        Raises UnknownTaskError for an unknown ``task_id``/``index`` and SandboxError when the sandbox cannot
        start (nothing is leaked in either case).
        """
        super().reset(seed=seed)
        task = self._pick_task(options)
        await self.aclose()
        limits = self._limits_for(task)
        options = None
        if task.harbor is not None:  # on docker, the task's own environment image (built on first use)
            from ..harbor.run import sandbox_options

            options = await asyncio.to_thread(sandbox_options, task.harbor, self.sandbox_spec, self.sandbox_options)
        sb = self._new_sandbox(limits, options)
        episode = Episode(task, sb, self._judge, self._rules_for(task), network=limits.web,
                          include_instructions=self.include_instructions)
        self._res.episode = episode
        try:
            await episode.start()
        except BaseException:
            self._res.episode = None
            raise
        self.task = task
        self.last_outcome = None
        info = self._info()
        info.update(
            tool_schemas=self.tool_schemas(),
            max_steps=self.rules.max_steps,
            time_limit_s=self.rules.time_limit_s,
            on_truncate=self.rules.on_truncate,
            scoring=self.rules.scoring,
            sandbox=getattr(sb, "name", type(sb).__name__),
        )
        return episode.prompt, info

    async def astep(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Run one tool call; see the module docstring for the failure behaviour. Never raises for an action."""
        ep = self._res.episode
        if self.task is None or ep is None:
            raise gymnasium.error.ResetNeeded("call reset() (or areset()) before step()")
        if ep.done:
            info = self._info()
            info.update(step=ep.steps, tool=None, ok=False, episode_over=True,
                        status=ep.outcome.status.value if ep.outcome is not None else Status.ERROR.value)
            return "The episode is over; call reset() to start a new one.", 0.0, True, False, info
        if self._busy:
            raise RuntimeError("JobEnv.astep called while another step of the same env is running")
        self._busy = True
        try:
            step = await ep.step(action)
        finally:
            self._busy = False
        return self._transition(step)

    async def afinish(self, ending: Ending | str) -> Outcome:
        """End the running episode by ``ending`` — a budget of the caller's own (a rollout's token budget, an
        agent that stopped calling tools) — under the env's rules, exactly as a step that ran out would. The
        outcome of an episode that already ended is returned as is; ResetNeeded before the first reset."""
        ep = self._res.episode
        if ep is None:
            raise gymnasium.error.ResetNeeded("call reset() (or areset()) before finish()")
        self.last_outcome = await ep.finish(ending)
        return self.last_outcome

    def _transition(self, step: Step) -> tuple[str, float, bool, bool, dict[str, Any]]:
        info = self._info()
        info.update(step=step.index, tool=step.tool, ok=step.ok)
        meta = step.metadata or {}
        if "exit_code" in meta:
            info["exit_code"] = meta["exit_code"]
        if step.error:
            info["error"] = step.error
        outcome = step.outcome
        if outcome is None:
            info["status"] = Status.OK.value  # the episode runs; its end carries the outcome's status
            return step.observation, 0.0, False, False, info
        self.last_outcome = outcome
        public = outcome.public()
        info["status"] = public["status"]
        if outcome.report is not None:
            info["report"] = outcome.report_dict()
        for key in ("finish_reason", "criteria", "refused_output", "error", "truncated_reason"):
            if key in public:
                info[key] = public[key]
        truncated = outcome.ending.truncated
        return step.observation, float(outcome.reward), not truncated, truncated, info

    async def aclose(self) -> None:
        """Remove the sandbox. Safe to call twice; the env can be reset again afterwards."""
        if self._res.episode is not None:
            await self._res.episode.close()

    # ------------------------------------------------------------------------------------------ sync API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Sync :meth:`areset`."""
        return self._res.loop.run(self.areset(seed=seed, options=options))

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Sync :meth:`astep`."""
        return self._res.loop.run(self.astep(action))

    def finish(self, ending: Ending | str) -> Outcome:
        """Sync :meth:`afinish`."""
        return self._res.loop.run(self.afinish(ending))

    def close(self) -> None:
        """Remove the sandbox and release the private event loop (and its thread). Safe to call twice."""
        if self.sandbox is not None:
            try:
                self._res.loop.run(self.aclose())
            except RuntimeError:
                pass
        self._res.loop.close()

    def render(self) -> None:
        """No rendering: observations are text."""
        return None

    def __repr__(self) -> str:
        judge = getattr(self._judge, "kind", None) or type(self._judge).__name__
        return (f"<JobEnv {self.env_id}: {len(self.tasks)} tasks, sandbox={_sandbox_label(self.sandbox_spec)}, "
                f"judge={judge}>")
