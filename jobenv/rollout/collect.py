"""Collection: many episodes on one event loop, ``k`` attempts per task, appended to a trajectories file.

:func:`collect` never raises for one episode's failure (it is recorded in that episode's trajectory); it
raises :class:`~jobenv.errors.JobenvError` only for bad arguments, before any episode starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from ..episode.outcome import Status
from ..errors import JobenvError, SandboxError
from .episode import RolloutConfig
from .executors import run_local, run_ray
from .plan import Ledger, make_plan, overlap_warning, task_digest
from .policy import Policy
from .store import read_trajectories
from .summary import Summary, summarize
from .trajectory import Trajectory

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["CollectResult", "collect", "collect_sync", "task_digest", "check_sandbox"]


class CollectResult(BaseModel):
    """What :func:`collect` produced: every finished record of the requested pairs (resumed and new)."""

    trajectories: list[Trajectory]
    new: int
    skipped: int
    out: str | None = None

    @property
    def errors(self) -> int:
        """Episodes of this run (resumed ones included) whose status is ``error``."""
        return sum(t.status is Status.ERROR for t in self.trajectories)

    def summary(self, *, include_errors: bool = False) -> Summary:
        return summarize(self.trajectories, include_errors=include_errors)


def _warm_imports() -> None:
    import importlib

    for name in ("openai", "jobenv.env", "jobenv.sandbox", "jobenv.judge", "jobenv.extract", "pandas", "openpyxl"):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional library missing is the judge's business, later
            pass


async def check_sandbox(sandbox: Any = "local", *, options: dict[str, Any] | None = None, limits: Any = None,
                        task: Task | None = None) -> None:
    """Start one sandbox of this configuration (staging ``task``'s folder), run ``true`` in it, remove it.

    Raises SandboxError saying what failed (an unknown backend, no namespaces, a Docker image that is not
    there), so a run fails before its first episode rather than erroring every one.
    """
    from ..sandbox import Sandbox, make_sandbox

    try:
        if callable(sandbox) and not isinstance(sandbox, (str, Sandbox)):
            sb = sandbox()
        else:
            sb = make_sandbox(sandbox, limits=limits, **(options or {}))
        try:
            await sb.start(task.task_folder if task is not None else None)
            res = await sb.run("true", timeout=60)
            if res.exit_code != 0:
                raise SandboxError(f"`true` exited {res.exit_code} in the sandbox: {res.output[-300:]}")
        finally:
            await sb.close()
    except JobenvError as exc:
        raise SandboxError(f"the {sandbox!s} sandbox cannot run episodes: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - anything else a backend throws is the same verdict
        raise SandboxError(f"the {sandbox!s} sandbox cannot run episodes: {type(exc).__name__}: {exc}") from exc


_ENV_SETTINGS = ("judge", "judge_options", "sandbox", "sandbox_options", "sandbox_image", "limits",
                 "include_instructions")


def _with_env_settings(env_kwargs: dict[str, Any] | None, overrides: dict[str, Any]) -> dict[str, Any]:
    """``env_kwargs`` plus the env settings passed to collect directly (``judge="checks"``, ``sandbox="docker"``);
    JobenvError when one is given both ways."""
    given = {k: overrides.pop(k) for k in list(overrides) if k in _ENV_SETTINGS}
    kwargs = dict(env_kwargs or {})
    both = sorted(set(given) & set(kwargs))
    if both:
        raise JobenvError(f"collect: {', '.join(both)} given both directly and in env_kwargs; give it once")
    return {**kwargs, **given}


def _build_config(config: RolloutConfig | None, overrides: dict[str, Any]) -> RolloutConfig:
    if not overrides:
        return config or RolloutConfig()
    try:
        return RolloutConfig.build(config, **overrides)
    except ValueError as exc:
        raise JobenvError(f"invalid rollout settings {sorted(overrides)}: {exc}") from exc


async def collect(
    env: str | Sequence[Task],
    policy: Policy,
    *,
    tasks: Sequence[str] | None = None,
    attempts: int = 1,
    concurrency: int = 8,
    out: str | Path | None = None,
    env_kwargs: dict[str, Any] | None = None,
    config: RolloutConfig | None = None,
    env_id: str | None = None,
    resume: bool = True,
    retry_errors: bool = True,
    preflight: bool = True,
    disjoint_from: Sequence[str | Path] = (),
    on_episode: Callable[[Trajectory], Any] | None = None,
    on_start: Callable[[int, int], Any] | None = None,
    start_concurrency: int | None = None,
    executor: Literal["local", "ray"] = "local",
    ray_address: str | None = None,
    per_node: int = 8,
    **config_overrides: Any,
) -> CollectResult:
    """Run ``attempts`` episodes of every selected task with at most ``concurrency`` at once.

    ``env`` is a registered env id (``"jobenv/sample"``), a task folder path, or a list of Task objects;
    ``tasks`` narrows the selection by id. Each worker keeps one JobEnv (``env_kwargs`` go to its
    constructor: sandbox, judge, judge_options...) and resets it per episode (a fresh sandbox each time).
    The judge is built once for the run. With ``out``, every finished episode is appended to that JSONL
    file at once and its graded deliverables are kept in the object store next to it; episodes are keyed by
    (model, policy id, env, task, attempt), so one file can hold several models. With ``resume`` (default)
    episodes already in the file are skipped, except errored ones, which are run again unless
    ``retry_errors=False`` (the new line wins in :func:`read_trajectories` and the export).
    ``preflight`` starts one sandbox before any episode. ``disjoint_from`` names other trajectories files
    (a training run): a warning says when this run's tasks are the same tasks. ``on_start(total, skipped)``
    and ``on_episode(traj)`` report progress. At most ``start_concurrency`` episodes reset at once, the others wait
    before their reset step (None: the sandbox backend's figure, :func:`jobenv.sandbox.start_slots`: one per
    usable CPU for local sandboxes, 16 for Docker; on Ray, each node's own). The backend's own start gate bounds
    the sandboxes actually starting at once whatever the figure.
    ``config_overrides`` set :class:`RolloutConfig` fields (``max_steps=20``...); env settings given this way
    (``judge``, ``judge_options``, ``sandbox``, ``sandbox_options``, ``sandbox_image``, ``limits``) join ``env_kwargs``. ``executor="ray"`` runs the
    episodes on the Ray cluster at ``ray_address`` (None: ``RAY_ADDRESS`` or a new local cluster), at most
    ``per_node`` at once on each node (see :mod:`jobenv.rollout.distributed`); the file, resume and summaries are
    the same, and each node sends its graded deliverables with the trajectory (a Ray run regrades like a local one).

    Raises JobenvError only for bad arguments or a failed pre-flight check, before any episode starts
    (unknown env or task ids, an unwritable ``out``, a judge that is not configured, a sandbox that cannot
    start); episode failures are recorded, never raised.
    """
    # heavy first imports (env, sandbox, judge, extraction libraries) run in a thread, not in the event loop
    await asyncio.to_thread(_warm_imports)
    if concurrency < 1:
        raise JobenvError(f"concurrency must be >= 1 (got {concurrency})")
    if start_concurrency is not None and start_concurrency < 1:
        raise JobenvError(f"start_concurrency must be >= 1 or None (got {start_concurrency})")
    if executor not in ("local", "ray"):
        raise JobenvError(f"executor must be 'local' or 'ray' (got {executor!r})")
    if executor == "ray":
        from .distributed import import_ray

        import_ray()  # a missing extra fails before any work
    env_kwargs = _with_env_settings(env_kwargs, config_overrides)
    plan = make_plan(env, policy, tasks=tasks, attempts=attempts, env_kwargs=env_kwargs,
                     config=_build_config(config, config_overrides), env_id=env_id)
    ledger = Ledger(plan, out, resume=resume, retry_errors=retry_errors, on_episode=on_episode)
    for other in disjoint_from:
        overlap_warning(plan.digests, plan.env_id, read_trajectories(other), str(other))
    if preflight:
        kwargs = plan.env_kwargs
        await check_sandbox(kwargs.get("sandbox", "local"), options=kwargs.get("sandbox_options"),
                            limits=kwargs.get("limits"), task=plan.tasks[0])
    ledger.open()
    todo = ledger.todo()
    if on_start is not None:
        on_start(len(plan.pairs), len(plan.pairs) - len(todo))
    try:
        if executor == "ray" and todo:
            await run_ray(plan, todo, ledger, policy, address=ray_address, per_node=per_node,
                          start_concurrency=start_concurrency)
        else:
            await run_local(plan, todo, ledger, policy, concurrency=concurrency, start_concurrency=start_concurrency)
    finally:
        ledger.close()
    return CollectResult(trajectories=ledger.ordered(), new=len(ledger.results),
                         skipped=len(plan.pairs) - len(todo), out=str(out) if out else None)


def collect_sync(*args: Any, **kwargs: Any) -> CollectResult:
    """:func:`collect` for synchronous code, through jobenv's one sync bridge (a private loop, in a thread when
    the caller's thread already runs one, e.g. a notebook). The policy's HTTP client for that loop is closed
    before returning."""
    from .._aio import run_sync

    policy = args[1] if len(args) > 1 else kwargs.get("policy")

    async def run() -> CollectResult:
        try:
            return await collect(*args, **kwargs)
        finally:
            close = getattr(policy, "aclose", None)
            if close is not None:
                await close()

    return run_sync(run())
