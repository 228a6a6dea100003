"""The OpenEnv server's classes, at module level: :class:`JobenvAction`, :class:`JobenvObservation`,
:class:`JobenvState` and :class:`JobenvOpenEnv`. Importing this module imports OpenEnv (a MissingExtraError naming
``pip install 'jobenv[openenv]'`` when it is absent); :mod:`jobenv.openenv_server` builds the app from them.

Each session drives one :class:`jobenv.JobEnv` (and so one :class:`jobenv.episode.Episode`) at a time; the
end-of-episode fields come from the outcome's public view. Never raises for an action.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field

from ..errors import JobenvError, MissingExtraError, UnknownEnvError

try:
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State
except ImportError:  # pragma: no cover - depends on the installation
    raise MissingExtraError("the OpenEnv server needs OpenEnv: pip install 'jobenv[openenv]'") from None

from ..episode import Status
from ..tools import TOOL_NAMES
from .config import HOSTED_DATASETS
from .redact import public_task_spec

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["JobenvAction", "JobenvObservation", "JobenvState", "JobenvOpenEnv", "DEFAULT_SPLIT", "LIVE", "splits",
           "env_id_of"]

DEFAULT_SPLIT = "sample"
LIVE: weakref.WeakSet[JobenvOpenEnv] = weakref.WeakSet()
_TASKS: dict[str, list[Task]] = {}
_TASKS_LOCK = threading.Lock()


def splits() -> dict[str, tuple[str, str]]:
    """OpenEnv split name -> (jobenv env id, split type), from the hosted split table."""
    return {name: (env_id, ds.split_type) for ds in HOSTED_DATASETS for name, env_id in ds.splits.items()}


def env_id_of(split: str) -> str:
    """The env id of an OpenEnv split; UnknownEnvError naming the splits otherwise."""
    table = splits()
    if split not in table:
        raise UnknownEnvError(f"unknown split {split!r}; splits are {', '.join(table)}")
    return table[split][0]


_LOADABLE: set[str] = set()  # splits seen loadable: they stay so (a split that is missing is asked again)


def _loads(env_id: str) -> bool:
    from ..registry import availability

    if env_id not in _LOADABLE:
        try:
            if availability(env_id).loadable:
                _LOADABLE.add(env_id)
        except (JobenvError, ImportError):
            return False
    return env_id in _LOADABLE


def _tasks(env_id: str) -> list[Task]:
    with _TASKS_LOCK:
        if env_id not in _TASKS:
            from ..registry import load_tasks

            _TASKS[env_id] = list(load_tasks(env_id))
        return _TASKS[env_id]


class JobenvAction(Action):
    """One tool call: a jobenv tool's name and its arguments (see the schemas returned by reset). Anything is
    accepted here (extra fields, a non-object ``arguments``): a malformed call is answered with an observation
    that says what is wrong, as every jobenv front-end answers it, and costs a step."""

    model_config = ConfigDict(extra="allow")

    name: Any = Field("", description=f"the tool to call: one of {', '.join(TOOL_NAMES)}")
    arguments: Any = Field(default_factory=dict, description="the tool's arguments (an object)")


class JobenvObservation(Observation):
    """What the agent is told (``text``), with the episode's status; ``tools`` is filled on reset only."""

    text: str = ""
    status: Status = Field(Status.OK, description="ok | error (infrastructure: drop the episode) | truncated")
    task_id: str | None = None
    split: str | None = None
    step: int = 0
    tool: str | None = None
    ok: bool = True
    tools: list[dict[str, Any]] = Field(default_factory=list)
    scores: dict[str, Any] = Field(default_factory=dict, description="normalized_score, pass_rate, ... on the end")


class JobenvState(State):
    task_id: str | None = None
    split: str | None = None
    done: bool = False


class JobenvOpenEnv(Environment[JobenvAction, JobenvObservation, JobenvState]):
    """One session: one jobenv episode at a time over its own sandbox. Never raises for an action."""

    SUPPORTS_CONCURRENT_SESSIONS = True
    config: dict[str, Any] = {}  # set by create_openenv_app: sandbox (SandboxConfig), judge, default_split, rules

    def __init__(self) -> None:
        super().__init__()
        self._env: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._split: str | None = None
        self._state = JobenvState()
        LIVE.add(self)

    # ---- task discovery (public specs only) --------------------------------------------------------------
    def list_splits(self) -> list[dict[str, str]]:
        """The splits whose tasks load here (a split that is not downloaded is not offered)."""
        return [{"name": n, "type": t} for n, (env_id, t) in splits().items() if _loads(env_id)]

    def list_tasks(self, split: str) -> list[dict[str, Any]]:
        return [public_task_spec(t, split, i) for i, t in enumerate(_tasks(env_id_of(split)))]

    def num_tasks(self, split: str) -> int:
        return len(_tasks(env_id_of(split)))

    def get_task(self, split: str, index: int) -> dict[str, Any]:
        tasks = _tasks(env_id_of(split))
        if not 0 <= int(index) < len(tasks):
            raise IndexError(f"index {index} out of range 0..{len(tasks) - 1} for split {split!r}")
        return public_task_spec(tasks[int(index)], split, int(index))

    def get_task_range(self, split: str, start: int | None = None, stop: int | None = None) -> list[dict[str, Any]]:
        return self.list_tasks(split)[start:stop]

    # ---- episode -----------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> JobenvObservation:
        raise RuntimeError("JobenvOpenEnv is asynchronous; the OpenEnv server calls reset_async")

    def step(self, action: JobenvAction, timeout_s: float | None = None, **kwargs: Any) -> JobenvObservation:
        raise RuntimeError("JobenvOpenEnv is asynchronous; the OpenEnv server calls step_async")

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None, split: str | None = None,
                          index: int | None = None, task_id: str | None = None, **kwargs: Any) -> JobenvObservation:
        """Start an episode on ``split`` (default: the server's) at ``index`` or ``task_id`` (else seeded draw).

        A bad split/index/task id or a sandbox that cannot start comes back as ``status="error"``, done.
        """
        from ..env import JobEnv

        await self._close_env()
        self._loop = asyncio.get_running_loop()
        split = split or self.config.get("default_split", DEFAULT_SPLIT)
        self._split = split
        self._state = JobenvState(episode_id=episode_id, split=split)
        try:
            env_id = env_id_of(split)
            cfg = self.config
            sb = cfg["sandbox"]  # a jobenv SandboxConfig
            self._env = JobEnv(_tasks(env_id), env_id=env_id, sandbox=sb.backend, sandbox_options=dict(sb.options),
                               limits=sb.limits, judge=cfg.get("judge", "auto"), rules=cfg.get("rules"))
            options: dict[str, Any] = {}
            if task_id is not None:
                options["task_id"] = task_id
            elif index is not None:
                options["index"] = index
            prompt, info = await self._env.areset(seed=seed, options=options)
        except Exception as exc:  # noqa: BLE001 - reported in the observation, the session lives on
            await self._close_env()
            self._state.done = True
            return JobenvObservation(text=f"reset failed: {type(exc).__name__}: {exc}", status=Status.ERROR,
                                     done=True, reward=None, ok=False, split=split, metadata={"error": str(exc)})
        self._state.task_id = info["task_id"]
        return JobenvObservation(text=prompt, tools=self._env.tool_schemas(), task_id=info["task_id"], split=split,
                                 done=False, reward=None)

    async def step_async(self, action: JobenvAction, timeout_s: float | None = None, **kwargs: Any) -> JobenvObservation:
        if self._env is None or self._env.task is None:
            return JobenvObservation(text="No episode is running: call reset first.", status=Status.ERROR, done=True,
                                     ok=False, split=self._split)
        obs, _reward, terminated, truncated, info = await self._env.astep(
            {"name": action.name, "arguments": action.arguments})
        done = bool(terminated or truncated or info.get("episode_over"))
        self._state.step_count = int(info.get("step") or self._state.step_count)
        self._state.done = done
        meta = {k: info[k] for k in ("error", "exit_code") if info.get(k) is not None}
        out = JobenvObservation(text=obs, task_id=info.get("task_id"), split=self._split,
                                step=int(info.get("step") or 0), tool=info.get("tool"), ok=bool(info.get("ok", True)),
                                done=done, reward=None, metadata=meta)
        outcome = self._env.last_outcome if (terminated or truncated) else None
        if outcome is not None:
            public = outcome.public()
            out.status, out.reward, out.scores = Status(public["status"]), public["reward"], public["scores"]
            out.metadata.update({k: public[k] for k in ("error", "error_kind", "truncated_reason", "refused_output",
                                                         "finish_reason", "criteria") if k in public})
        if done:
            await self._close_env()
        return out

    @property
    def state(self) -> JobenvState:
        return self._state

    async def _close_env(self) -> None:
        env, self._env = self._env, None
        if env is not None:
            await env.aclose()

    def close(self) -> None:
        """Remove the sandbox (called by the server when the session ends, from a worker thread)."""
        env, loop = self._env, self._loop
        if env is None:
            return
        self._env = None
        from .._aio import run_on

        run_on(loop, env.aclose())  # on the session's own loop: its sandbox's subprocesses belong to it
