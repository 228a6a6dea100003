"""The OpenReward environment classes, at module level: :class:`JobBench`, :class:`JobTasks`, :class:`JobenvSample`.

Importing this module imports the ``openreward`` SDK (a MissingExtraError naming ``pip install 'jobenv[hosting]'``
when it is absent). :func:`jobenv.hosting.make_server` serves configured subclasses of these classes; used as they
are (for example found by a tool that scans a module for Environment classes) they take their configuration from
the ``JOBENV_*`` variables on first use.

A session behaves like one episode of :class:`jobenv.JobEnv` with the same rules:

* tools, descriptions and parameter schemas are the local ones (one table, :mod:`jobenv.tools`); a bad argument or
  an unknown tool is answered with the observation the local env gives, as an ordinary unfinished output;
* each call is one step of a :class:`jobenv.episode.Episode`, the core every front-end drives: budgets, the clock
  and endings are the core's, exactly as in the env;
* the end-of-episode fields are the outcome's public view (:meth:`jobenv.episode.Outcome.public`) plus the report,
  redacted (:mod:`jobenv.hosting.redact`).

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

from ..episode import Episode, ErrorKind, Outcome, Status, Step
from ..tools import CONCURRENT_TOOLS, OPTIONAL_TOOLS, SUBMIT, TOOL_NAMES, tool_names, tool_schemas
from .config import HOSTED_DATASETS, HostedDataset, ServeConfig
from .redact import PrivateText, private_texts, public_task_spec, redact_report
from .runtime import Runtime
from .sdk import import_server_half

if TYPE_CHECKING:
    from ..judge.base import Judge
    from ..tasks import Task

import_server_half()  # the SDK's server half only (sdk.py says why); then its names, spelt as the SDK's own import,
# which is also how OpenEnv's `openenv import --type ors` recognises the Environment subclasses below
from openreward.environments import Environment, Server, Split, TextBlock, ToolOutput, tool  # noqa: E402

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


_LOCAL_SCHEMAS = {compact: {s["function"]["name"]: s["function"]
                            for s in tool_schemas(compact=compact, extra=OPTIONAL_TOOLS)}
                  for compact in (False, True)}


def _arguments_model(name: str, compact: bool) -> type[ToolArguments]:
    schema = _LOCAL_SCHEMAS[compact][name]["parameters"]

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
        self._episode: Episode | None = None
        self._failure: tuple[ErrorKind, str] | None = (ErrorKind.JUDGE, problem) if problem else None
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
        from ..episode.prompt import build_prompt

        # the episode's own prompt (with its sandbox's software line), as the local env gives it; before setup the
        # same wrapper without that line. Hosted sandboxes use the default limits (no network), as the env's default
        if self._episode is not None:
            return [TextBlock(text=self._episode.prompt)]
        return [TextBlock(text=build_prompt(self._task, rules=self._rt.rules))]

    # ---- session life cycle -----------------------------------------------------------------------------
    async def setup(self) -> None:
        """Start the episode. Never raises: a failure is kept and reported by the first tool call."""
        async with self._lock:
            if self._episode is not None or self._failure is not None or self._ended:
                return
            episode = None
            try:
                episode = Episode(self._task, self._rt.sandbox_factory(), self._judge, self._rt.rules)
                await episode.start()  # through the backend's start gate: a burst waits its turn
                self._episode = episode
                self._rt.sandbox_opened(self)
            except Exception as exc:  # noqa: BLE001 - reported through the tools, see the module docstring
                self._failure = (ErrorKind.SANDBOX,
                                 f"the sandbox for this task could not start: {type(exc).__name__}: {exc}")
            finally:
                # failed or cancelled (the session was deleted mid-setup): leave nothing behind
                if episode is not None and self._episode is not episode:
                    await episode.close()

    async def teardown(self) -> None:
        """Remove the sandbox; later calls are refused. Never raises."""
        await self._close_episode("the session was closed")
        self._failure = self._failure or (ErrorKind.CLOSED, "the session was closed")

    def idle_for(self, now: float) -> float | None:
        """Seconds since the last tool call, or None when nothing is open or a call is running."""
        if self._episode is None or self._inflight:
            return None
        return now - self._last_active

    async def expire(self, reason: str) -> bool:
        """Close the sandbox of an idle session; its next call ends the episode with ``error_kind`` "idle"."""
        if self._episode is None or self._inflight:
            return False
        self._failure = (ErrorKind.IDLE, f"this session was {reason}")
        await self._close_episode(reason)
        return True

    async def _close_episode(self, why: str) -> None:
        async with self._lock:
            episode, self._episode = self._episode, None
        if episode is not None:
            await episode.close()
            self._rt.sandbox_closed(self, why)

    # ---- tool calls -----------------------------------------------------------------------------------------
    async def _call_tool(self, name: str, input: Any) -> Any:
        """SDK hook: a name that is not one of jobenv's tools is answered like the local env (an observation),
        still under the SDK's session lock and finished latch."""
        if name not in tool_names(self._rt.rules.tools):
            payload = {"requested": str(name), "arguments": input}
            return await self._invoke_tool_fn(name, self._unknown_tool, payload, time.monotonic())
        return await super()._call_tool(name, input)

    @tool(shared=False)
    async def _unknown_tool(self, params: UnknownToolCall) -> ToolOutput:
        return await self._step(params.requested, params.arguments)

    async def _step(self, name: str, arguments: Any) -> ToolOutput:
        """One step of the episode (see the module docstring). Never raises."""
        if self._episode is None and self._failure is None and not self._ended:
            await self.setup()  # the server always runs setup first; this covers direct use
        episode = self._episode
        if self._failure is not None or episode is None:
            return self._infrastructure_error(name)
        self._inflight += 1
        self._last_active = time.monotonic()
        try:
            try:
                step = await episode.step({"name": name, "arguments": arguments})
            except Exception as exc:  # noqa: BLE001 - the core does not raise; never let it kill the session
                return _text(f"Error: {name} failed: {type(exc).__name__}: {exc}",
                             metadata={"status": Status.ERROR.value, "error_kind": ErrorKind.TOOL.value, "tool": name})
            if step.over:
                return self._infrastructure_error(name)
            if step.outcome is not None:
                return await self._end(step, step.outcome)
            return self._observation(step)
        finally:
            self._inflight -= 1
            self._last_active = time.monotonic()

    def _observation(self, step: Step) -> ToolOutput:
        # round-trip through JSON: a non-JSON value here would make the SDK's ToolOutput raise
        meta = json.loads(json.dumps(dict(step.metadata or {}), default=str))
        if step.error:
            meta["error"] = step.error
        meta.update(status=Status.OK.value if step.ok else Status.ERROR.value, ok=step.ok, step=step.index)
        return _text(step.observation, metadata=meta)

    async def _end(self, step: Step, outcome: Outcome) -> ToolOutput:
        """The episode ended in the core (its sandbox is closed): the outcome's public view, report redacted."""
        self._ended = True
        await self._close_episode(f"episode ended ({outcome.ending.value})")
        self._failure = (ErrorKind.FINISHED, "the episode is over")
        guard = self._private
        public = outcome.public()
        meta: dict[str, Any] = {**public, "task_id": self._task.id, "steps": step.index}
        if outcome.report is not None:
            meta["report"] = redact_report(outcome.report_dict() or {}, guard)
        if "error" in meta:
            meta["error"] = guard.clean(meta["error"])
        return _text(guard.clean(step.observation), metadata=meta, reward=public["reward"], finished=True)

    def _infrastructure_error(self, name: str) -> ToolOutput:
        kind, message = self._failure or (ErrorKind.SANDBOX, "the sandbox is not available")
        if kind is ErrorKind.FINISHED:
            text = "The episode is over."
        else:
            text = f"Infrastructure error: {self._private.clean(message)}. The episode is over."
        return _text(text, metadata={"status": Status.ERROR.value, "error_kind": kind.value,
                                     "error": self._private.clean(message),
                                     "tool": name}, reward=None, finished=True)


def _text(text: str, **kw: Any) -> ToolOutput:
    return ToolOutput(blocks=[TextBlock(text=text)], **kw)


def _tool_method(name: str, compact: bool = False) -> Any:
    """A tool method of the hosted class for tool ``name`` of the table: arguments go to :meth:`_step`.
    ``compact``: listed with the table's compact description and schema."""
    model = _arguments_model(name, compact)

    async def method(self: JobenvEnvironment, params: ToolArguments) -> ToolOutput:
        return await self._step(name, params.arguments())

    method.__name__ = method.__qualname__ = name
    method.__doc__ = _LOCAL_SCHEMAS[compact][name]["description"]
    method.__annotations__ = {"params": model, "return": ToolOutput}
    if name == SUBMIT:
        return tool(exclusive=True)(method)  # waits for in-flight calls, so nothing changes what it grades
    return tool(concurrent=name in CONCURRENT_TOOLS)(method)


for _name in TOOL_NAMES:
    setattr(JobenvEnvironment, _name, _tool_method(_name))
del _name


def tool_methods(*, compact: bool, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """The tool methods to set on a configured class: listed compactly (``ServeConfig.compact_tools``) and/or with
    the optional tools the rules enable (``rules.tools``); empty when neither applies (the class's own)."""
    if not compact and not extra:
        return {}
    return {name: _tool_method(name, compact=compact) for name in tool_names(extra)}


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
