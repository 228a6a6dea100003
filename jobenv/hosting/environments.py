"""The OpenReward environment classes, at module level: :class:`JobBench`, :class:`JobTasks`, :class:`JobenvSample`.

Importing this module imports the ``openreward`` SDK (a MissingExtraError naming ``pip install 'jobenv[hosting]'``
when it is absent). :func:`jobenv.hosting.make_server` serves configured subclasses of these classes; used as they
are (for example found by a tool that scans a module for Environment classes) they take their configuration from
the ``JOBENV_*`` variables on first use.

A session behaves like one episode of :class:`jobenv.JobEnv` with the same rules:

* tools, descriptions and parameter schemas are the local ones (one table, :mod:`jobenv.tools`); a bad argument or
  an unknown tool is answered with the observation the local env gives, as an ordinary unfinished output;
* every call counts as a step (submit included); at ``max_steps`` or past ``time_limit_s`` the episode ends
  through :func:`jobenv.grading.finish_episode` with the truncation rule, exactly as in the env;
* ``submit`` ends the episode through the same function; the report is redacted (:mod:`jobenv.hosting.redact`).

Infrastructure failures (no sandbox, a judge that cannot work, an idle session closed, grading that failed) end
the episode with ``metadata["status"] == "error"``, an ``error_kind`` and ``reward=None``, so a client can tell
them from a score of 0. Nothing raises out of a tool (a raised error would kill the client's session).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from ..errors import MissingExtraError

try:
    from openreward.environments import Environment, Server, Split, TextBlock, ToolOutput, tool
except ImportError:  # pragma: no cover - depends on the installation
    raise MissingExtraError("hosting needs the openreward SDK: pip install 'jobenv[hosting]'") from None

from ..tools import CONCURRENT_TOOLS, SUBMIT, TOOL_DESCRIPTIONS, TOOL_NAMES, tool_schemas
from .config import HOSTED_DATASETS, HostedDataset, ServeConfig
from .redact import PrivateText, private_texts, public_task_spec, redact_report
from .runtime import Runtime

if TYPE_CHECKING:
    from ..grading import Outcome
    from ..judge.base import Judge
    from ..sandbox.base import Sandbox
    from ..tasks import Task
    from ..tools import Toolbox, ToolResult

__all__ = ["JobenvEnvironment", "Jobenv", "JobBench", "JobTasks", "JobenvSample", "ENVIRONMENT_CLASSES", "Server"]

_DEFAULT_RUNTIME: dict[str, Runtime] = {}


class ToolArguments(BaseModel):
    """The SDK's view of a tool's arguments: anything is accepted here and checked by the tool table, so a bad
    argument is answered with the local env's observation. ``model_json_schema`` is the local schema."""

    model_config = ConfigDict(extra="allow")

    def arguments(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class UnknownToolCall(BaseModel):
    requested: str
    arguments: Any = None


_LOCAL_SCHEMAS = {s["function"]["name"]: s["function"]["parameters"] for s in tool_schemas()}


def _arguments_model(name: str) -> type[ToolArguments]:
    schema = _LOCAL_SCHEMAS[name]

    def model_json_schema(cls: type[BaseModel], *args: Any, **kwargs: Any) -> dict[str, Any]:
        return json.loads(json.dumps(schema))

    return type(f"{name.title().replace('_', '')}Arguments", (ToolArguments,),
                {"model_json_schema": classmethod(model_json_schema), "__module__": __name__})


class JobenvEnvironment(Environment):
    """Shared behaviour of the hosted classes; subclasses set ``dataset`` (and make_server sets ``runtime``)."""

    dataset: ClassVar[HostedDataset]
    runtime: ClassVar[Runtime | None] = None

    def __init__(self, task_spec: dict[str, Any] = {}, secrets: dict[str, str] = {}) -> None:  # noqa: B006
        # Signature mirrors the SDK base class. Runs in a worker thread: a bad spec raises (HTTP error at create).
        super().__init__(task_spec, secrets)
        rt = self._runtime()
        self._rt = rt
        self._task: Task = rt.lookup(self.dataset, task_spec)
        self.label = f"{self.dataset.route}:{self._task.id}"
        self._private = PrivateText(private_texts(self._task))
        # the judge is the server's (built once), or this session's own when it brought a key
        self._judge: Judge | None
        self._judge, problem = rt.session_judge(self._task, dict(secrets or {}))
        self._sandbox: Sandbox | None = None
        self._toolbox: Toolbox | None = None
        self._failure: tuple[str, str] | None = ("judge", problem) if problem else None  # (error kind, message)
        self._steps = 0
        self._last_active = time.monotonic()
        self._inflight = 0
        self._ended = False
        self._lock = asyncio.Lock()

    # ---- configuration ------------------------------------------------------------------------------------
    @classmethod
    def _runtime(cls) -> Runtime:
        if cls.runtime is not None:
            return cls.runtime
        if cls.dataset.route not in _DEFAULT_RUNTIME:
            _DEFAULT_RUNTIME[cls.dataset.route] = Runtime.start(ServeConfig.from_env(envs=[cls.dataset.key]))
        return _DEFAULT_RUNTIME[cls.dataset.route]

    # ---- tasks ----------------------------------------------------------------------------------------------
    @classmethod
    def list_splits(cls) -> list[Any]:
        return [Split(name=name, type=cls.dataset.type_of(name)) for name in cls._runtime().splits(cls.dataset)]

    @classmethod
    def list_tasks(cls, split: str) -> list[dict[str, Any]]:
        rt = cls._runtime()
        return [public_task_spec(t, split, i) for i, t in enumerate(rt.tasks[rt.env_id(cls.dataset, split)])]

    def get_prompt(self) -> list[Any]:
        from ..prompt import build_prompt

        # hosted sandboxes use the default limits (no network), so the prompt says what the env's default says
        return [TextBlock(text=build_prompt(self._task, rules=self._rt.rules))]

    # ---- session life cycle -----------------------------------------------------------------------------
    async def setup(self) -> None:
        """Stage the sandbox. Never raises: a failure is kept and reported by the first tool call."""
        async with self._lock:
            if self._sandbox is not None or self._failure is not None or self._ended:
                return
            sb = None
            try:
                from ..sandbox import make_sandbox
                from ..tools import Toolbox

                cfg = self._rt.config
                sb = make_sandbox(cfg.sandbox, **cfg.sandbox_kwargs())
                await sb.start(self._task.task_folder)  # through the backend's start gate: a burst waits its turn
                self._sandbox, self._toolbox = sb, Toolbox(sb)
                self._toolbox.start_clock(self._rt.rules.time_limit_s)
                self._rt.sandbox_opened(self)
            except Exception as exc:  # noqa: BLE001 - reported through the tools, see the module docstring
                self._failure = ("sandbox", f"the sandbox for this task could not start: {type(exc).__name__}: {exc}")
            finally:
                # failed or cancelled (the session was deleted mid-setup): leave nothing behind
                if sb is not None and self._sandbox is not sb:
                    await _close_quietly(sb)

    async def teardown(self) -> None:
        """Remove the sandbox; later calls are refused. Never raises."""
        await self._close_sandbox("the session was closed")
        self._failure = self._failure or ("closed", "the session was closed")

    def idle_for(self, now: float) -> float | None:
        """Seconds since the last tool call, or None when nothing is open or a call is running."""
        if self._sandbox is None or self._inflight:
            return None
        return now - self._last_active

    async def expire(self, reason: str) -> bool:
        """Close the sandbox of an idle session; its next call ends the episode with ``error_kind`` "idle"."""
        if self._sandbox is None or self._inflight:
            return False
        self._failure = ("idle", f"this session was {reason}")
        await self._close_sandbox(reason)
        return True

    async def _close_sandbox(self, why: str) -> None:
        async with self._lock:
            sb, self._sandbox, self._toolbox = self._sandbox, None, None
        if sb is not None:
            await _close_quietly(sb)
            self._rt.sandbox_closed(self, why)

    # ---- tool calls -----------------------------------------------------------------------------------------
    async def _call_tool(self, name: str, input: Any) -> Any:
        """SDK hook: a name that is not one of jobenv's tools is answered like the local env (an observation),
        still under the SDK's session lock and finished latch."""
        if name not in TOOL_NAMES:
            payload = {"requested": str(name), "arguments": input}
            return await self._invoke_tool_fn(name, self._unknown_tool, payload, time.monotonic())
        return await super()._call_tool(name, input)

    @tool(shared=False)
    async def _unknown_tool(self, params: UnknownToolCall) -> ToolOutput:
        return await self._step(params.requested, params.arguments)

    async def _step(self, name: str, arguments: Any) -> ToolOutput:
        """One tool call of the episode (see the module docstring). Never raises."""
        if self._sandbox is None and self._failure is None and not self._ended:
            await self.setup()  # the server always runs setup first; this covers direct use
        if self._failure is not None or self._toolbox is None:
            return self._infrastructure_error(name)
        self._inflight += 1
        self._last_active = time.monotonic()
        try:
            self._steps += 1
            rules = self._rt.rules
            if rules.time_limit_s is not None and self._elapsed() >= rules.time_limit_s:
                return await self._end("time_limit", "")  # out of time before this call: it does not run
            try:
                result = await self._toolbox.call(name, arguments)
            except Exception as exc:  # noqa: BLE001 - the Toolbox does not raise; never let it kill the session
                return _text(f"Error: {name} failed: {type(exc).__name__}: {exc}",
                             metadata={"status": "error", "error_kind": "tool", "tool": name})
            if result.submitted:
                return await self._end("submit", "")
            if rules.max_steps is not None and self._steps >= rules.max_steps:
                return await self._end("max_steps", result.text)
            if rules.time_limit_s is not None and self._elapsed() >= rules.time_limit_s:
                return await self._end("time_limit", result.text)
            return self._observation(result)
        finally:
            self._inflight -= 1
            self._last_active = time.monotonic()

    def _elapsed(self) -> float:
        return self._toolbox.elapsed_s if self._toolbox is not None else 0.0

    def _observation(self, result: ToolResult) -> ToolOutput:
        # round-trip through JSON: a non-JSON value here would make the SDK's ToolOutput raise
        meta = json.loads(json.dumps(dict(result.metadata or {}), default=str))
        meta.update(status="ok" if result.ok else "error", ok=bool(result.ok), step=self._steps)
        return _text(result.text, metadata=meta)

    async def _end(self, ending: str, last_text: str) -> ToolOutput:
        """End the episode through :func:`jobenv.grading.finish_episode`; the sandbox is closed after."""
        from ..grading import finish_episode

        assert self._sandbox is not None
        self._ended = True
        outcome = await finish_episode(self._task, self._sandbox, self._judge, ending=ending,  # type: ignore[arg-type]
                                       rules=self._rt.rules)
        await self._close_sandbox(f"episode ended ({ending})")
        self._failure = ("finished", "the episode is over")
        return self._outcome_output(outcome, ending, last_text)

    def _outcome_output(self, outcome: Outcome, ending: str, last_text: str) -> ToolOutput:
        guard = self._private
        meta: dict[str, Any] = {"status": outcome.status, "task_id": self._task.id, "ending": ending,
                                "steps": self._steps}
        if outcome.report is not None:
            meta["report"] = redact_report(outcome.report.model_dump(mode="json"), guard)
        if outcome.refused:
            meta["refused_output"] = list(outcome.refused)
        if outcome.status == "truncated":
            meta["truncated_reason"] = ending
        reward: float | None = float(outcome.reward)
        if outcome.status == "error":
            meta.update(error_kind="grading", error=guard.clean(outcome.error or "grading failed"))
            reward = None  # not a score: the client can tell it from a 0
        note = guard.clean(outcome.observation)
        text = f"{last_text}\n\n{note}" if last_text else note
        return _text(text, metadata=meta, reward=reward, finished=True)

    def _infrastructure_error(self, name: str) -> ToolOutput:
        kind, message = self._failure or ("sandbox", "the sandbox is not available")
        if kind == "finished":
            text = "The episode is over."
        else:
            text = f"Infrastructure error: {self._private.clean(message)}. The episode is over."
        return _text(text, metadata={"status": "error", "error_kind": kind, "error": self._private.clean(message),
                                     "tool": name}, reward=None, finished=True)


def _text(text: str, **kw: Any) -> ToolOutput:
    return ToolOutput(blocks=[TextBlock(text=text)], **kw)


async def _close_quietly(sb: Sandbox) -> None:
    try:
        await sb.close()
    except BaseException:  # noqa: BLE001 - cleanup must not mask the outcome (close never raises by contract)
        pass


def _tool_method(name: str) -> Any:
    """A tool method of the hosted class for tool ``name`` of the table: arguments go to :meth:`_step`."""
    model = _arguments_model(name)

    async def method(self: JobenvEnvironment, params: ToolArguments) -> ToolOutput:
        return await self._step(name, params.arguments())

    method.__name__ = method.__qualname__ = name
    method.__doc__ = TOOL_DESCRIPTIONS[name]
    method.__annotations__ = {"params": model, "return": ToolOutput}
    if name == SUBMIT:
        return tool(exclusive=True)(method)  # waits for in-flight calls, so nothing changes what it grades
    return tool(concurrent=name in CONCURRENT_TOOLS)(method)


for _name in TOOL_NAMES:
    setattr(JobenvEnvironment, _name, _tool_method(_name))
del _name


def _dataset(key: str) -> HostedDataset:
    return next(d for d in HOSTED_DATASETS if d.key == key)


class Jobenv(JobenvEnvironment):
    """Every jobenv split under one route (main, easy, all, train, sample): the default route of ``jobenv serve``."""

    dataset = _dataset("jobenv")


# Used on its own (a tool that imports the module's Environment subclass, e.g. ``openenv import --type ors``), the
# shared class serves every split too.
JobenvEnvironment.dataset = Jobenv.dataset


class JobBench(JobenvEnvironment):
    """JobBench professional tasks (download first: jobenv download --dataset jobbench)."""

    dataset = _dataset("jobbench")


class JobTasks(JobenvEnvironment):
    """JobTasks synthetic training tasks (download first: jobenv download --dataset jobtasks)."""

    dataset = _dataset("jobtasks")


class JobenvSample(JobenvEnvironment):
    """The small sample split bundled with jobenv (offline, deterministic checks)."""

    dataset = _dataset("sample")


ENVIRONMENT_CLASSES: dict[str, type[JobenvEnvironment]] = {
    c.dataset.route: c for c in (Jobenv, JobBench, JobTasks, JobenvSample)
}
