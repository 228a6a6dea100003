"""The environment: :class:`JobEnv`, a Gymnasium env whose episodes are tool calls in a sandbox.

One episode = one task. ``reset`` stages a fresh sandbox holding ``/workspace/task_folder`` and an empty
``/workspace/output`` and returns the prompt; each ``step`` runs one tool call; ``submit`` grades the output
folder and ends the episode (see :mod:`jobenv.grading` for the one table of how episodes end and score).

Async is the real implementation (``areset``/``astep``/``aclose``), so one event loop can drive hundreds of
episodes; ``reset``/``step``/``close`` drive the same coroutines on a private event loop owned by the env.
Use either the sync or the async API on one env, not both: a sandbox may hold resources bound to the loop
that started it.

Failure behaviour: ``step`` never raises for anything the agent does. A malformed action, unknown tool or
bad arguments give an observation explaining the mistake and cost a step. A grading infrastructure error
gives no credit (reward 0.0) and ends the episode with ``info["status"] == "error"``, so a trainer can drop
it. Symlinks or special files left in ``output/`` are the agent's doing: reward 0 with ``info["status"] ==
"ok"`` and ``info["refused_output"]`` listing them. Running out of steps or time truncates (reward 0, or the
graded output with ``on_truncate="grade"``). The constructor raises a :class:`~jobenv.errors.JobenvError`
for an empty task list, a bad budget, an unknown sandbox backend or a misconfigured judge; ``reset`` raises
one when the task is unknown or the sandbox cannot start.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any, Literal

import gymnasium
from pydantic import ValidationError

from .._aio import PrivateLoop
from ..errors import ConfigError, SandboxError, TaskFormatError, first_problem
from ..grading import Ending, EpisodeRules, Outcome, finish_episode
from ..prompt import build_prompt
from ..sandbox.base import Sandbox, SandboxLimits
from ..tasks import Task, find_task
from ..tools import Toolbox, ToolResult, tool_schemas
from .actions import parse_action
from .spaces import AnyText, ToolCallSpace

__all__ = ["JobEnv"]


class _Resources:
    """What an env must release: kept apart from the env so a finalizer can run after the env is gone."""

    def __init__(self) -> None:
        self.sandbox: Sandbox | None = None
        self.loop = PrivateLoop("jobenv-env-loop")


def _release(res: _Resources) -> None:
    """Finalizer (garbage collection or interpreter exit): close the sandbox and the private loop."""
    sb, res.sandbox = res.sandbox, None
    if sb is not None:
        res.loop.run_quietly(sb.close())
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
        sandbox: backend name (``"local"``, ``"docker"``; see :func:`jobenv.sandbox.make_sandbox`) or a
            zero-argument factory returning a new :class:`Sandbox`; a fresh sandbox serves every episode.
            (A Sandbox instance is accepted for a single episode.)
        judge: ``"auto"``, ``"checks"``, ``"llm"`` or a judge object (see :func:`jobenv.judge.make_judge`).
        max_steps: tool calls per episode, submit included, before truncation (``None``: unlimited).
        time_limit_s: wall-clock seconds per episode before truncation (``None``: unlimited).
        on_truncate: ``"zero"`` (default) or ``"grade"``: what an episode that ran out before submit earns.
        scoring: ``"strict"`` (default) or ``"official"``: which of the report's scores is the reward.
        rules: an :class:`~jobenv.grading.EpisodeRules` instead of the four arguments above.
        limits: sandbox resource limits.
        sandbox_options / judge_options: extra keyword arguments for the factories.
        sandbox_image: the Docker image of the docker sandbox (SandboxError with any other backend).
        include_instructions: embed TASK_INSTRUCTIONS.txt in the prompt (default True).

    ``info`` keys: after reset ``task_id``, ``uid``, ``split``, ``env_id``, ``tool_schemas``, ``max_steps``,
    ``time_limit_s``, ``on_truncate``, ``scoring``, ``sandbox``; after a step ``task_id``, ``uid``, ``split``,
    ``env_id``, ``step``, ``tool``, ``ok`` (False for any error), ``error`` (kind of error), ``exit_code``
    (bash); when the episode ends ``status`` ("ok", "error" or "truncated") and ``report`` (the GradeReport as
    a dict, when one was made); on truncation also ``truncated_reason`` ("max_steps" or "time_limit"). Timing
    is deliberately not in ``info`` (see :attr:`elapsed_s`), so steps are reproducible for Gymnasium's
    determinism check.

    Vectorised use: ``gymnasium.make_vec(id, n, vectorization_mode="sync")`` works as is; the "async" mode
    needs ``vector_kwargs={"shared_memory": False}`` because text has no shared-memory layout.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        tasks: Sequence[Task],
        *,
        env_id: str | None = None,
        sandbox: Any = "local",
        judge: Any = "auto",
        max_steps: int | None = 100,
        time_limit_s: float | None = None,
        on_truncate: Literal["zero", "grade"] = "zero",
        scoring: Literal["strict", "official"] = "strict",
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
                                     scoring=scoring)
            except ValidationError as exc:
                where, msg, _ = first_problem(exc)
                raise ConfigError(f"JobEnv: {where}: {msg}") from None
        self.rules = rules
        self.limits = limits or SandboxLimits()
        if isinstance(sandbox, str):
            from ..sandbox import BACKENDS

            if sandbox not in BACKENDS:
                raise SandboxError(f"unknown sandbox backend {sandbox!r}; choose one of {', '.join(BACKENDS)}")
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
        self.action_space = ToolCallSpace()

        from ..judge import make_judge

        # built now so a misconfigured judge (e.g. "llm" without endpoint) fails at construction, not at submit
        self._judge: Any = make_judge(judge, **self.judge_options)
        self._res = _Resources()
        self._finalizer = weakref.finalize(self, _release, self._res)
        self._toolbox: Toolbox | None = None
        self._last_todos: list[dict[str, Any]] = []
        self._instance_used = False
        self.task: Task | None = None
        self._steps = 0
        self._done = True
        self._busy = False
        self.last_report: Any = None
        self.last_outcome: Outcome | None = None

    # ------------------------------------------------------------------------------------------ helpers
    @property
    def max_steps(self) -> int | None:
        return self.rules.max_steps

    @property
    def time_limit_s(self) -> float | None:
        return self.rules.time_limit_s

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas of the tools (a fresh copy)."""
        return tool_schemas()

    @property
    def sandbox(self) -> Sandbox | None:
        """The current episode's sandbox (None before reset and after the episode ended)."""
        return self._res.sandbox

    @property
    def todos(self) -> list[dict[str, Any]]:
        """The agent's todo list of the current (or just finished) episode."""
        return list(self._toolbox.todos) if self._toolbox else list(self._last_todos)

    @property
    def steps(self) -> int:
        return self._steps

    @property
    def elapsed_s(self) -> float:
        """Wall-clock seconds since the current episode's reset, less the time its tools queued for the
        process's shared extraction workers (see ``Toolbox.elapsed_s``); 0 when no episode runs."""
        return self._toolbox.elapsed_s if self._toolbox is not None else 0.0

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

    def _new_sandbox(self) -> Sandbox:
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

        return make_sandbox(spec, limits=self.limits, **self.sandbox_options)

    async def _drop_sandbox(self) -> None:
        sb, self._res.sandbox = self._res.sandbox, None
        if self._toolbox is not None:
            self._last_todos = list(self._toolbox.todos)  # the plan stays readable after the episode
        self._toolbox = None
        if sb is not None:
            try:
                await sb.close()
            except Exception:
                pass  # the sandbox's own finalizer and `jobenv gc` are the backstop

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
        await self._drop_sandbox()
        sb = self._new_sandbox()
        self._res.sandbox = sb
        try:
            await sb.start(task.task_folder)
        except BaseException:
            await self._drop_sandbox()
            raise
        self._toolbox = Toolbox(sb)
        self._last_todos = []
        self.task = task
        self._steps = 0
        self._done = False
        self.last_report = None
        self.last_outcome = None
        self._toolbox.start_clock(self.rules.time_limit_s)
        prompt = build_prompt(task, rules=self.rules, network=self.limits.web,
                              include_instructions=self.include_instructions)
        info = self._info()
        info.update(
            tool_schemas=self.tool_schemas(),
            max_steps=self.rules.max_steps,
            time_limit_s=self.rules.time_limit_s,
            on_truncate=self.rules.on_truncate,
            scoring=self.rules.scoring,
            sandbox=getattr(sb, "name", type(sb).__name__),
        )
        return prompt, info

    async def astep(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Run one tool call; see the module docstring for the failure behaviour. Never raises for an action."""
        if self.task is None:
            raise gymnasium.error.ResetNeeded("call reset() (or areset()) before step()")
        if self._done:
            info = self._info()
            info.update(step=self._steps, tool=None, ok=False, episode_over=True)
            return "The episode is over; call reset() to start a new one.", 0.0, True, False, info
        if self._busy:
            raise RuntimeError("JobEnv.astep called while another step of the same env is running")
        self._busy = True
        try:
            return await self._astep(action)
        finally:
            self._busy = False

    def _out_of_time(self) -> bool:
        return self.rules.time_limit_s is not None and self.elapsed_s >= self.rules.time_limit_s

    async def _astep(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        assert self._toolbox is not None
        self._steps += 1
        info = self._info()
        info["step"] = self._steps
        if self._out_of_time():
            # out of time before this call: it does not run (a late submit earns nothing)
            return await self._end(info, "time_limit", "")
        parsed = parse_action(action)
        if isinstance(parsed, str):
            result = ToolResult(name="", text=parsed, ok=False, metadata={"error": "malformed_action"})
        else:
            name, args = parsed
            result = await self._toolbox.call(name, args)
        info.update(tool=result.name or None, ok=result.ok)
        if "exit_code" in result.metadata:
            info["exit_code"] = result.metadata["exit_code"]
        if not result.ok and result.metadata.get("error"):
            info["error"] = result.metadata["error"]
        if result.submitted:
            return await self._end(info, "submit", "")
        if self.rules.max_steps is not None and self._steps >= self.rules.max_steps:
            return await self._end(info, "max_steps", result.text)
        if self._out_of_time():
            return await self._end(info, "time_limit", result.text)
        return result.text, 0.0, False, False, info

    async def _end(self, info: dict[str, Any], ending: Ending, obs: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Finish the episode through :func:`jobenv.grading.finish_episode`, the one rule for every front-end."""
        assert self.task is not None
        self._done = True
        try:
            outcome = await finish_episode(self.task, self._res.sandbox, self._judge, ending=ending, rules=self.rules)
        finally:
            await self._drop_sandbox()
        self.last_outcome = outcome
        self.last_report = outcome.report
        info.setdefault("tool", None)
        info.setdefault("ok", False)
        info["status"] = outcome.status
        if outcome.report is not None:
            info["report"] = outcome.report.model_dump(mode="json")
        if outcome.refused:
            info["refused_output"] = list(outcome.refused)
        if outcome.error:
            info["error"] = outcome.error
        if ending != "submit":
            info["truncated_reason"] = ending
        text = f"{obs}\n\n{outcome.observation}" if obs else outcome.observation
        return text, outcome.reward, ending == "submit", ending != "submit", info

    async def aclose(self) -> None:
        """Remove the sandbox. Safe to call twice; the env can be reset again afterwards."""
        await self._drop_sandbox()
        self._done = True

    # ------------------------------------------------------------------------------------------ sync API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Sync :meth:`areset`."""
        return self._res.loop.run(self.areset(seed=seed, options=options))

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Sync :meth:`astep`."""
        return self._res.loop.run(self.astep(action))

    def close(self) -> None:
        """Remove the sandbox and release the private event loop (and its thread). Safe to call twice."""
        if self._res.sandbox is not None:
            try:
                self._res.loop.run(self.aclose())
            except RuntimeError:
                pass
        self._done = True
        self._res.loop.close()

    def render(self) -> None:
        """No rendering: observations are text."""
        return None

    def __repr__(self) -> str:
        judge = getattr(self._judge, "kind", None) or type(self._judge).__name__
        return (f"<JobEnv {self.env_id}: {len(self.tasks)} tasks, sandbox={_sandbox_label(self.sandbox_spec)}, "
                f"judge={judge}>")
