"""Serve jobenv over OpenEnv's protocol: ``jobenv serve --protocol openenv`` or ``uvicorn jobenv.openenv_server:app``.

Each OpenEnv session (a WebSocket, or one stateful HTTP session) gets its own :class:`JobenvOpenEnv` and so its own
sandbox; many sessions run at once on the server's event loop. ``reset(split=, index= | task_id=, seed=)`` stages a
task and returns the prompt with the tool schemas; ``step({"name": <tool>, "arguments": {...}})`` runs one tool call
through :class:`jobenv.env.JobEnv`. Every observation is text plus ``reward``, ``done`` and ``status``
(``ok`` | ``error`` | ``truncated``; ``error`` marks an infrastructure failure a trainer should drop, not a 0 to learn
from). The task listing routes (``/{env}/splits``, ``/{env}/tasks``, ...) serve jobenv's splits (``main``, ``easy``,
``all``, ``train``, ``sample``) with public specs only; rubric wording never leaves the server.

Closing a session removes its sandbox; stopping the server closes every live session and removes the process's
temporary folders. Needs ``pip install 'jobenv[openenv]'``; importing this module does not import OpenEnv until the
app or the classes are asked for.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tasks import Task

__all__ = ["DEFAULT_SPLIT", "ENV_NAME", "create_openenv_app", "cli_serve_openenv"]

ENV_NAME = "jobenv"
DEFAULT_SPLIT = "sample"


def _splits() -> dict[str, tuple[str, str]]:
    """OpenEnv split name -> (jobenv env id, split type), from the hosted split table."""
    from .hosting import HOSTED_DATASETS

    return {name: (env_id, ds.split_type) for ds in HOSTED_DATASETS for name, env_id in ds.splits.items()}



_TASKS: dict[str, list[Task]] = {}
_TASKS_LOCK = threading.Lock()


def _tasks(env_id: str) -> list[Task]:
    with _TASKS_LOCK:
        if env_id not in _TASKS:
            from .registry import load_tasks

            _TASKS[env_id] = list(load_tasks(env_id))
        return _TASKS[env_id]


def _env_id(split: str) -> str:
    table = _splits()
    if split not in table:
        from .errors import UnknownEnvError

        raise UnknownEnvError(f"unknown split {split!r}; splits are {', '.join(table)}")
    return table[split][0]


def _classes() -> dict[str, Any]:
    """The OpenEnv action/observation/state/environment classes, built once (OpenEnv is imported here)."""
    if _CLASSES:
        return _CLASSES
    try:
        from openenv.core.env_server.interfaces import Environment
        from openenv.core.env_server.types import Action, Observation, State
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("the OpenEnv server needs OpenEnv: pip install 'jobenv[openenv]'") from exc
    from pydantic import Field

    from .tools import TOOL_NAMES, tool_schemas

    class JobenvAction(Action):
        """One tool call: a jobenv tool's name and its arguments (see the schemas returned by reset)."""

        name: str = Field(description=f"the tool to call: one of {', '.join(TOOL_NAMES)}")
        arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments")

    class JobenvObservation(Observation):
        """What the agent is told (``text``), with the episode's status; ``tools`` is filled on reset only."""

        text: str = ""
        status: str = Field("ok", description="ok | error (infrastructure: drop the episode) | truncated")
        task_id: str | None = None
        split: str | None = None
        step: int = 0
        tool: str | None = None
        ok: bool = True
        tools: list[dict[str, Any]] = Field(default_factory=list)
        scores: dict[str, Any] = Field(default_factory=dict, description="normalized_score, pass_rate, ... on submit")

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
            _LIVE.add(self)

        # ---- task discovery (public specs only) ----------------------------------------------------------
        def list_splits(self) -> list[dict[str, str]]:
            return [{"name": n, "type": t} for n, (_, t) in _splits().items()]

        def list_tasks(self, split: str) -> list[dict[str, Any]]:
            from .hosting import public_task_spec

            return [public_task_spec(t, split, i) for i, t in enumerate(_tasks(_env_id(split)))]

        def num_tasks(self, split: str) -> int:
            return len(_tasks(_env_id(split)))

        def get_task(self, split: str, index: int) -> dict[str, Any]:
            from .hosting import public_task_spec

            tasks = _tasks(_env_id(split))
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

        async def reset_async(
            self,
            seed: int | None = None,
            episode_id: str | None = None,
            split: str | None = None,
            index: int | None = None,
            task_id: str | None = None,
            **kwargs: Any,
        ) -> JobenvObservation:
            """Start an episode on ``split`` (default: the server's) at ``index`` or ``task_id`` (else seeded draw).

            A bad split/index/task id or a sandbox that cannot start comes back as ``status="error"``, done.
            """
            from .env import JobEnv

            await self._close_env()
            self._loop = asyncio.get_running_loop()
            split = split or self.config.get("default_split", DEFAULT_SPLIT)
            self._split = split
            self._state = JobenvState(episode_id=episode_id, split=split)
            try:
                env_id = _env_id(split)
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
                return JobenvObservation(text=f"reset failed: {type(exc).__name__}: {exc}", status="error", done=True,
                                         reward=None, ok=False, split=split, metadata={"error": str(exc)})
            self._state.task_id = info["task_id"]
            return JobenvObservation(text=prompt, tools=tool_schemas(), task_id=info["task_id"], split=split,
                                     done=False, reward=None)

        async def step_async(self, action: JobenvAction, timeout_s: float | None = None, **kwargs: Any) -> JobenvObservation:
            if self._env is None or self._env.task is None:
                return JobenvObservation(text="No episode is running: call reset first.", status="error", done=True,
                                         ok=False, split=self._split)
            obs, reward, terminated, truncated, info = await self._env.astep(
                {"name": action.name, "arguments": action.arguments}
            )
            done = bool(terminated or truncated or info.get("episode_over"))
            self._state.step_count = int(info.get("step") or self._state.step_count)
            self._state.done = done
            report = info.get("report") if isinstance(info.get("report"), dict) else {}
            scores = {k: report[k] for k in ("normalized_score", "pass_rate", "strict_pass", "passed_count",
                                             "total_count") if k in report}
            meta: dict[str, Any] = {}
            for key in ("error", "truncated_reason", "refused_output", "exit_code"):
                if info.get(key) is not None:
                    meta[key] = info[key]
            out = JobenvObservation(
                text=obs, status=info.get("status", "ok"), task_id=info.get("task_id"), split=self._split,
                step=int(info.get("step") or 0), tool=info.get("tool"), ok=bool(info.get("ok", True)), done=done,
                reward=float(reward) if done else None, scores=scores, metadata=meta,
            )
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
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if loop is not None and loop.is_running() and running is not loop:
                asyncio.run_coroutine_threadsafe(env.aclose(), loop).result(timeout=60)
            elif running is None:
                asyncio.run(env.aclose())
            else:  # called on the loop itself: schedule and let the sandbox finalizer back it up
                running.create_task(env.aclose())

    _CLASSES.update(action=JobenvAction, observation=JobenvObservation, state=JobenvState, env=JobenvOpenEnv)
    return _CLASSES


_CLASSES: dict[str, Any] = {}
_LIVE: weakref.WeakSet[Any] = weakref.WeakSet()


def create_openenv_app(
    *,
    sandbox: str | None = None,
    sandbox_image: str | None = None,
    judge: str | None = None,
    default_split: str = DEFAULT_SPLIT,
    rules: Any = None,
    max_sessions: int = 64,
) -> Any:
    """The OpenEnv FastAPI app serving jobenv. The sandbox comes from :meth:`SandboxConfig.from_env` (``sandbox`` /
    ``sandbox_image`` win over ``$JOBENV_SANDBOX`` / ``$JOBENV_SANDBOX_IMAGE``), the judge kind from ``judge``, else
    ``$JOBENV_SERVE_JUDGE``, else ``auto``; ``rules`` is the episodes' :class:`jobenv.grading.EpisodeRules` (the
    default budget when None). ``max_sessions`` bounds concurrent sessions (each holds a sandbox).

    Raises UnknownEnvError for an unknown ``default_split`` and ImportError (naming the extra) without OpenEnv.
    """
    import os

    from openenv.core.env_server.http_server import create_fastapi_app

    from .hosting import JUDGE_ENV_VAR
    from .sandbox.config import SandboxConfig

    _env_id(default_split)
    classes = _classes()
    config = {
        "sandbox": SandboxConfig.from_env(None, backend=sandbox, **({"image": sandbox_image} if sandbox_image else {})),
        "judge": judge or os.environ.get(JUDGE_ENV_VAR) or "auto",
        "default_split": default_split,
        "rules": rules,  # a jobenv.grading.EpisodeRules; None: the default budget
    }
    env_cls = type("JobenvOpenEnv", (classes["env"],), {"config": config, "__module__": __name__})
    app = create_fastapi_app(env_cls, classes["action"], classes["observation"], max_concurrent_envs=max_sessions,
                             env_name=ENV_NAME, state_cls=classes["state"])
    app.router.on_shutdown.append(_close_all)
    return app


async def _close_all() -> None:
    """Server shutdown: close every live session's episode (their sandboxes), then this process's temp folders."""
    for env in list(_LIVE):
        try:
            await env._close_env()
        except Exception:  # noqa: BLE001 - best effort at shutdown
            pass
    from .sandbox import cleanup_process_temp

    cleanup_process_temp()


def __getattr__(name: str) -> Any:
    # ``uvicorn jobenv.openenv_server:app`` — built on first access so importing the module stays light
    if name == "app":
        return create_openenv_app()
    if name in ("JobenvAction", "JobenvObservation", "JobenvState", "JobenvOpenEnv"):
        key = {"JobenvAction": "action", "JobenvObservation": "observation", "JobenvState": "state",
               "JobenvOpenEnv": "env"}[name]
        return _classes()[key]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cli_serve_openenv(host: str, port: int, *, sandbox: str | None = None, sandbox_image: str | None = None,
                      judge: str | None = None, rules: Any = None, default_split: str = DEFAULT_SPLIT,
                      max_sessions: int = 64, api_key: str | None = None) -> int:
    """``jobenv serve --protocol openenv``: serve until interrupted; sessions and temp folders are removed on the way
    out. With ``api_key``, every request but ``/health`` must carry it (HTTP 401 otherwise). Configuration problems
    raise JobenvError before the server listens."""
    import sys

    import uvicorn

    from .hosting.server import RequireApiKey

    app = create_openenv_app(sandbox=sandbox, sandbox_image=sandbox_image, judge=judge, rules=rules,
                             default_split=default_split, max_sessions=max_sessions)
    app.add_middleware(RequireApiKey, api_key=api_key)
    print(f"jobenv serve: OpenEnv on http://{host}:{port} (default split {default_split}, up to {max_sessions} "
          f"sessions)", file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
