"""The :class:`Episode`: one task's life over one sandbox — start, steps under the budget, and its end.

Every front-end (``JobEnv``, rollouts, OpenReward hosting, the OpenEnv server, the verifiers toolset) drives an
episode through this class; budgets, the clock and endings are enforced here and nowhere else.

Failure behaviour: :meth:`Episode.start` raises the sandbox's :class:`~jobenv.errors.SandboxError` when it cannot
start (and leaves nothing behind). :meth:`Episode.step` never raises for anything the agent sends: a malformed
action, an unknown tool or bad arguments are answered with an observation and cost a step. :meth:`Episode.finish`
never raises except on cancellation (see :func:`jobenv.episode.finish.finish_episode`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actions import parse_action
from .finish import finish_episode
from .outcome import Ending, Outcome
from .rules import EpisodeRules

if TYPE_CHECKING:
    from ..sandbox.base import Sandbox
    from ..tasks import Task
    from ..tools import Toolbox

__all__ = ["Episode", "Step", "EPISODE_OVER"]

EPISODE_OVER = "The episode is over; start a new one."


@dataclass
class Step:
    """What one action did: the observation, the tool's own result fields, and the outcome when it ended the
    episode. ``over``: the episode had ended before this action, which did nothing."""

    observation: str
    index: int
    tool: str | None = None
    ok: bool = False
    error: str | None = None  # the kind of tool error (malformed_action, invalid_arguments, path, sandbox, ...)
    metadata: dict[str, Any] | None = None  # the tool's result metadata (exit_code, truncated, ...)
    outcome: Outcome | None = None
    over: bool = False

    @property
    def done(self) -> bool:
        return self.over or self.outcome is not None


class Episode:
    """One episode of ``task`` over ``sandbox`` (unstarted; the episode closes it), graded by ``judge`` under
    ``rules``. ``network`` (default: the sandbox limits' ``web``) and ``include_instructions`` shape the prompt."""

    def __init__(self, task: Task, sandbox: Sandbox, judge: Any, rules: EpisodeRules | None = None, *,
                 network: bool | None = None, include_instructions: bool = True) -> None:
        self.task = task
        self.rules = rules or EpisodeRules()
        self.judge = judge
        self._sandbox: Sandbox | None = sandbox
        self._network = bool(getattr(getattr(sandbox, "limits", None), "web", False)) if network is None else network
        self._include_instructions = include_instructions
        self._toolbox: Toolbox | None = None
        self._todos: list[dict[str, Any]] = []
        self.steps = 0
        self.outcome: Outcome | None = None
        self._ending = asyncio.Lock()

    # ---- state --------------------------------------------------------------------------------------------
    @property
    def prompt(self) -> str:
        """The first message: the task's instructions with the budget these rules allow."""
        from .prompt import build_prompt

        software = self._sandbox.software_note() if self._sandbox is not None else None
        return build_prompt(self.task, rules=self.rules, network=self._network,
                            include_instructions=self._include_instructions, software=software)

    @property
    def sandbox(self) -> Sandbox | None:
        """The running sandbox (None before start and once the episode ended or closed)."""
        return self._sandbox if self._toolbox is not None else None

    @property
    def started(self) -> bool:
        return self._toolbox is not None or self.outcome is not None

    @property
    def done(self) -> bool:
        return self.outcome is not None or (self._sandbox is None and self._toolbox is None)

    @property
    def todos(self) -> list[dict[str, Any]]:
        """The agent's todo list (kept after the episode ended)."""
        return list(self._toolbox.todos) if self._toolbox is not None else list(self._todos)

    @property
    def elapsed_s(self) -> float:
        """The episode's clock: seconds since start, less the time its tools queued for the process's shared
        extraction workers (other episodes' files cause that wait); 0 before start."""
        return self._toolbox.elapsed_s if self._toolbox is not None else 0.0

    def time_left_s(self) -> float | None:
        """Seconds left under ``rules.time_limit_s`` (None: unlimited); what a front-end bounds a model call by."""
        if self.rules.time_limit_s is None:
            return None
        return self.rules.time_limit_s - self.elapsed_s

    def _out_of_time(self) -> bool:
        left = self.time_left_s()
        return left is not None and left <= 0

    # ---- life cycle ---------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Stage the sandbox with the task folder and start the clock. Raises SandboxError when it cannot start
        (the sandbox is closed then); RuntimeError when called twice."""
        from ..tools import Toolbox

        if self.started or self._sandbox is None:
            raise RuntimeError("an Episode starts once")
        sb = self._sandbox
        try:
            await sb.start(self.task.task_folder)
        except BaseException:
            await self.close()
            raise
        self._toolbox = Toolbox(sb, tools=self.rules.tools)
        self._toolbox.start_clock(self.rules.time_limit_s)

    async def step(self, action: Any) -> Step:
        """Run one action (any format :func:`~jobenv.episode.actions.parse_action` reads). Every call counts as a
        step, submit included; at the step budget, past the time limit, or on submit the episode ends here."""
        if self.outcome is not None or self._toolbox is None:
            return Step(observation=EPISODE_OVER, index=self.steps, over=True, outcome=None)
        toolbox = self._toolbox
        self.steps += 1
        index = self.steps
        if self._out_of_time():
            # out of time before this call: it does not run (a late submit earns nothing)
            return await self._end(Step(observation="", index=index), Ending.TIME_LIMIT)
        parsed = parse_action(action)
        if isinstance(parsed, str):
            step = Step(observation=parsed, index=index, error="malformed_action")
        else:
            result = await toolbox.call(*parsed)
            error = result.metadata.get("error") if not result.ok else None
            step = Step(observation=result.text, index=index, tool=result.name or None, ok=result.ok,
                        error=str(error) if error else None, metadata=dict(result.metadata or {}))
            if result.submitted:
                step.observation = ""
                return await self._end(step, Ending.SUBMIT)
        if self.rules.max_steps is not None and index >= self.rules.max_steps:
            return await self._end(step, Ending.MAX_STEPS)
        if self._out_of_time():
            return await self._end(step, Ending.TIME_LIMIT)
        return step

    async def finish(self, ending: Ending | str) -> Outcome:
        """End the episode now by ``ending`` (a front-end's own budget: tokens, context, an agent that stopped
        calling tools) under the same rules; the outcome of an episode that already ended is returned as is.
        The sandbox is closed after grading."""
        async with self._ending:
            if self.outcome is None:
                sandbox = self._sandbox if self._toolbox is not None else None
                self.outcome = await finish_episode(self.task, sandbox, self.judge, ending=ending, rules=self.rules)
                await self.close()
            return self.outcome

    async def _end(self, step: Step, ending: Ending) -> Step:
        outcome = await self.finish(ending)
        step.outcome = outcome
        step.observation = f"{step.observation}\n\n{outcome.observation}" if step.observation else outcome.observation
        return step

    async def close(self) -> None:
        """Remove the sandbox (the todo list stays readable). Safe to call twice; never raises."""
        sb, self._sandbox = self._sandbox, None
        if self._toolbox is not None:
            self._todos = list(self._toolbox.todos)
        self._toolbox = None
        if sb is not None:
            try:
                await sb.close()
            except Exception:
                pass  # the sandbox's own finalizer and `jobenv gc` are the backstop
