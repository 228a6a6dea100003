"""The state one hosting server shares between its sessions: configuration, episode rules, the judge, the tasks
of every served route, the count of open sandboxes and the idle-session reaper. Imports no SDK.

Built once at start-up by :meth:`Runtime.start`, which is where bad configuration shows: a route whose tasks do
not load is left out (one log line each, with the fix), a judge that cannot work is a JobenvError, and a server
with nothing to serve is a JobenvError too.
"""

from __future__ import annotations

import asyncio
import sys
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import JobenvError, JudgeConfigError, TaskFormatError, UnknownEnvError
from .config import HostedDataset, ServeConfig, select_datasets

if TYPE_CHECKING:
    from ..episode import EpisodeRules
    from ..judge.base import Judge
    from ..sandbox.base import Sandbox
    from ..tasks import Task

__all__ = ["Runtime", "log", "OPENAI_BASE_URL", "SESSION_KEY_SECRET"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
SESSION_KEY_SECRET = "openai_api_key"


def log(message: str) -> None:
    """One line on stderr, prefixed like every other line the server writes."""
    print("jobenv serve: " + " ".join(message.split()), file=sys.stderr, flush=True)


class _Session(Protocol):
    """What the reaper needs of a hosted session."""

    label: str

    def idle_for(self, now: float) -> float | None: ...

    async def expire(self, reason: str) -> bool: ...


class Runtime:
    """See the module docstring. ``routes`` maps each served route to its loaded ``{split: env id}``."""

    def __init__(self, config: ServeConfig, datasets: list[HostedDataset], tasks: dict[str, list[Task]],
                 routes: dict[str, dict[str, str]], judge: Judge | None, judge_note: str | None) -> None:

        self.config = config
        self.rules: EpisodeRules = config.rules
        self.sandbox_factory: Callable[[], Sandbox] = config.sandbox.make  # a new, unstarted sandbox per session
        self.datasets = [d for d in datasets if d.route in routes]
        self.tasks = tasks
        self.routes = routes
        self.judge = judge
        self.judge_note = judge_note  # why sessions must bring their own key, if they must
        self.open_sandboxes = 0
        self.sessions: weakref.WeakSet[Any] = weakref.WeakSet()
        self._reaper: asyncio.Task[None] | None = None

    # ---- start-up ---------------------------------------------------------------------------------------
    @classmethod
    def start(cls, config: ServeConfig, *, quiet: bool = False) -> Runtime:
        """Load every selected route's tasks and build the judge. Raises JobenvError when nothing can be served
        or the judge configuration cannot work even with a session key."""
        from ..registry import load_tasks

        datasets = select_datasets(config.envs)
        if not quiet:
            wanted = dict.fromkeys(e for ds in datasets for e in ds.splits.values())
            log(f"starting: loading the tasks of {', '.join(wanted)}")
        tasks: dict[str, list[Task]] = {}
        routes: dict[str, dict[str, str]] = {}
        skipped: list[str] = []
        for ds in datasets:
            loaded: dict[str, str] = {}
            reasons: list[str] = []
            for split, env_id in ds.splits.items():
                try:
                    if env_id not in tasks:
                        started = time.monotonic()
                        tasks[env_id] = list(load_tasks(env_id, generate=False))  # start-up never generates
                        if not quiet:
                            log(f"tasks: {env_id} {len(tasks[env_id])} loaded in {time.monotonic() - started:.1f} s")
                    loaded[split] = env_id
                except (JobenvError, ImportError) as exc:
                    reasons.append(str(exc) if str(exc).startswith(env_id) else f"{env_id}: {exc}")
            if loaded:
                routes[ds.route] = loaded
                for r in reasons:
                    if not quiet:
                        log(f"/{ds.route}: not serving split {r}")
            else:
                skipped.append(ds.route)
                if not quiet:
                    log(f"not serving /{ds.route}: {reasons[0]}" + (f" (and {len(reasons) - 1} more split(s))"
                                                                    if len(reasons) > 1 else ""))
        if not routes:
            raise JobenvError(f"nothing to serve: no tasks load for {', '.join('/' + r for r in skipped)} "
                              "(see the lines above for the fix)")
        judge, note = _build_judge(config, [t for ts in tasks.values() for t in ts])
        if note and not quiet:
            log(note)
        return cls(config, datasets, tasks, routes, judge, note)

    # ---- tasks --------------------------------------------------------------------------------------------
    def splits(self, ds: HostedDataset) -> list[str]:
        return list(self.routes.get(ds.route, {}))

    def env_id(self, ds: HostedDataset, split: str) -> str:
        try:
            return self.routes[ds.route][split]
        except KeyError:
            raise UnknownEnvError(f"{ds.class_name}: unknown split {split!r}; splits are {self.splits(ds)}") from None

    def lookup(self, ds: HostedDataset, spec: Any) -> Task:
        """The private task record for a public spec; TaskFormatError when the spec names no task here."""
        if not isinstance(spec, dict) or not isinstance(spec.get("split"), str) or not isinstance(spec.get("id"), str):
            raise TaskFormatError(f"{ds.class_name}: a task spec needs string 'split' and 'id', got {spec!r}")
        from ..tasks import find_task

        tasks = self.tasks[self.env_id(ds, spec["split"])]
        idx = spec.get("index")
        if isinstance(idx, int) and not isinstance(idx, bool) and 0 <= idx < len(tasks) and tasks[idx].id == spec["id"]:
            return tasks[idx]  # the listed position, when it still names this task
        return find_task(tasks, spec["id"], where=f"{ds.class_name} split {spec['split']!r}")

    # ---- judge --------------------------------------------------------------------------------------------
    def session_judge(self, task: Task, secrets: dict[str, str]) -> tuple[Judge | None, str | None]:
        """The judge of one session and, when it cannot grade ``task``, why. A session key builds its own judge."""
        from ..judge import make_judge

        judge = self.judge
        key = secrets.get(SESSION_KEY_SECRET)
        if key:
            try:
                judge = make_judge(self.config.judge.kind, **_with_session_key(self.config, key))
            except JudgeConfigError as exc:
                return None, f"the session's judge configuration does not work: {exc}"
        if judge is None:
            return None, self.judge_note or "no judge is configured"
        if _needs_llm(self.config.judge.kind, task) and getattr(judge, "llm", judge) is None:
            return None, self.judge_note or "this task needs the LLM judge, which is not configured"
        return judge, None

    # ---- sandboxes and idle sessions ----------------------------------------------------------------------
    def sandbox_opened(self, session: _Session) -> None:
        self.open_sandboxes += 1
        self.sessions.add(session)
        log(f"sandbox opened for {session.label} ({self.open_sandboxes} open)")
        self._ensure_reaper()

    def sandbox_closed(self, session: _Session, why: str) -> None:
        self.open_sandboxes = max(0, self.open_sandboxes - 1)
        log(f"sandbox closed for {session.label}: {why} ({self.open_sandboxes} open)")

    def status(self) -> dict[str, Any]:
        """What ``GET /{route}/status`` answers: open sandboxes, sessions and the limits in force."""
        return {"open_sandboxes": self.open_sandboxes, "sessions": len(self.sessions),
                "idle_timeout_s": self.config.idle_timeout_s, "max_steps": self.rules.max_steps,
                "time_limit_s": self.rules.time_limit_s, "judge": self.config.judge.kind, "scoring": self.rules.scoring,
                "sandbox": self.config.sandbox.backend, "routes": {r: list(s) for r, s in self.routes.items()}}

    def _ensure_reaper(self) -> None:
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.get_running_loop().create_task(self._reap())

    async def _reap(self) -> None:
        idle = self.config.idle_timeout_s
        period = min(max(idle / 10, 0.2), 30.0)
        while True:
            await asyncio.sleep(period)
            now = time.monotonic()
            for session in list(self.sessions):
                quiet_for = session.idle_for(now)
                if quiet_for is not None and quiet_for >= idle:
                    await session.expire(f"closed after {quiet_for:.0f} s without a tool call "
                                         f"(idle timeout {idle:g} s)")


def _needs_llm(kind: str, task: Task) -> bool:
    return kind == "llm" or (kind == "auto" and not task.has_checks)


def _with_session_key(config: ServeConfig, key: str) -> dict[str, Any]:
    from .. import settings
    from ..judge import ENV_BASE_URL

    opts = config.judge.options()
    opts["api_key"] = key
    # On OpenReward the secret is a placeholder swapped in only on requests to OpenAI's host, so with no endpoint
    # configured the judge goes there.
    if not opts.get("base_url") and not settings.get(ENV_BASE_URL):
        opts["base_url"] = OPENAI_BASE_URL
    return opts


def _build_judge(config: ServeConfig, tasks: list[Task]) -> tuple[Judge | None, str | None]:
    """The server's judge, built once, and a note when some sessions will need their own key.

    Raises JudgeConfigError when the configuration cannot work even with a session key (e.g. no model).
    """
    from ..judge import make_judge

    try:
        judge = make_judge(config.judge.kind, **config.judge.options())
    except JudgeConfigError as exc:
        # only a missing key (and endpoint) can be made good by a session's own key; anything else is fatal
        make_judge(config.judge.kind, **_with_session_key(config, "probe"))
        return None, (f"judge {config.judge.kind}: {exc}; sessions must bring their key as the "
                      f"{SESSION_KEY_SECRET!r} secret, and sessions without one end at their first tool call")
    if config.judge.kind == "auto" and getattr(judge, "llm", None) is None:
        need = sum(1 for t in tasks if not t.has_checks)
        if need:
            return judge, (f"judge auto: {need} served task(s) have no deterministic checks and need the LLM judge, "
                           f"which is not configured (JOBENV_JUDGE_BASE_URL, JOBENV_JUDGE_API_KEY, JOBENV_JUDGE_MODEL); "
                           f"their sessions must bring the {SESSION_KEY_SECRET!r} secret")
    return judge, None
