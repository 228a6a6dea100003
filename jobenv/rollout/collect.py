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

from .._aio import run_sync
from ..errors import JobenvError
from ..tasks import select_tasks
from .episode import RolloutConfig, run_episode
from .policy import Policy
from .summary import Summary, summarize
from .trajectory import Trajectory, TrajectoryWriter, env_error_trajectory, jobenv_version, read_trajectories

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["CollectResult", "collect", "collect_sync"]


class CollectResult(BaseModel):
    """What :func:`collect` produced: every finished record of the requested pairs (resumed and new)."""

    trajectories: list[Trajectory]
    new: int
    skipped: int
    out: str | None = None

    def summary(self, *, include_errors: bool = False) -> Summary:
        return summarize(self.trajectories, include_errors=include_errors)


def _dataset_version(env_id: str | None, tasks: list[Task]) -> str | None:
    for t in tasks[:1]:
        meta = t.meta or {}
        for k in ("dataset_revision", "revision"):
            if meta.get(k):
                return str(meta[k])
    if not env_id:
        return None
    try:
        from ..registry import env_spec

        spec = env_spec(env_id)
        if spec.dataset == "sample":
            return f"sample@jobenv-{jobenv_version()}"
        from ..datasets import data_dir, read_manifest

        manifest = read_manifest(data_dir() / spec.dataset)
        return f"{manifest.repo_id}@{manifest.revision}" if manifest else None
    except Exception:  # noqa: BLE001 - a missing version is recorded as None, not an error
        return None


def _warm_imports() -> None:
    import importlib

    for name in ("openai", "jobenv.env", "jobenv.sandbox", "jobenv.judge", "jobenv.extract", "pandas", "openpyxl"):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional library missing is the judge's business, later
            pass


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
    retry_errors: bool = False,
    on_episode: Callable[[Trajectory], Any] | None = None,
    on_start: Callable[[int, int], Any] | None = None,
    start_concurrency: int = 16,
    executor: Literal["local", "ray"] = "local",
    ray_address: str | None = None,
    per_node: int = 8,
    **config_overrides: Any,
) -> CollectResult:
    """Run ``attempts`` episodes of every selected task with at most ``concurrency`` at once.

    ``env`` is a registered env id (``"jobenv/sample"``) or a list of Task objects; ``tasks`` narrows the
    selection by id. Each episode gets its own JobEnv (``env_kwargs`` go to its constructor: sandbox, judge,
    ...), closed when the episode ends, even on cancellation. With ``out``, every finished episode is
    appended to that JSONL file at once; with ``resume`` (default) pairs already in the file are skipped,
    and with ``retry_errors`` pairs whose record has ``status="error"`` are run again (the new line wins).
    ``on_start(total, skipped)`` and ``on_episode(traj)`` report progress. At most ``start_concurrency``
    sandboxes start at once (the rest of each episode runs at full ``concurrency``). ``config_overrides`` set
    :class:`RolloutConfig` fields (``max_steps=20``...). ``executor="ray"`` runs the episodes on the Ray cluster
    at ``ray_address`` (None: ``RAY_ADDRESS`` or a new local cluster), at most ``per_node`` at once on each node
    (see :mod:`jobenv.rollout.distributed`); the file, resume and summaries are the same. Raises JobenvError
    only for bad arguments (unknown env or task ids, an unwritable ``out``, Ray missing); episode failures
    are recorded, never raised.
    """
    # heavy first imports (env, sandbox, judge, extraction libraries) run in a thread, not in the event loop
    await asyncio.to_thread(_warm_imports)
    from ..env import JobEnv
    from ..registry import load_tasks

    if attempts < 1:
        raise JobenvError(f"attempts must be >= 1 (got {attempts})")
    if concurrency < 1:
        raise JobenvError(f"concurrency must be >= 1 (got {concurrency})")
    if executor not in ("local", "ray"):
        raise JobenvError(f"executor must be 'local' or 'ray' (got {executor!r})")
    if executor == "ray":
        from .distributed import import_ray

        import_ray()  # a missing extra fails before any work
    cfg = config or RolloutConfig()
    if config_overrides:
        try:
            cfg = RolloutConfig.model_validate({**cfg.model_dump(), **config_overrides})
        except ValueError as exc:
            raise JobenvError(f"invalid rollout settings {sorted(config_overrides)}: {exc}") from exc
    kwargs = dict(env_kwargs or {})
    # the env's own step cap must leave room for the agent's steps plus a late grading submit
    kwargs.setdefault("max_steps", cfg.max_steps + 1)
    if isinstance(env, str):
        env_label = env
        all_tasks = load_tasks(env)
        eid = env_id or env
    else:
        all_tasks = list(env)
        eid = env_id or (f"tasks/{all_tasks[0].split}" if all_tasks else "tasks")
        env_label = eid
    chosen = select_tasks(all_tasks, tasks, where=env_label)
    if not chosen:
        raise JobenvError(f"{env_label}: no tasks to run")
    versions = {"jobenv": jobenv_version(), "dataset": _dataset_version(eid, chosen), "judge": None}

    pairs = [(t, a) for t in chosen for a in range(attempts)]
    done: dict[tuple[str, str, int], Trajectory] = {}
    writer: TrajectoryWriter | None = None
    if out is not None:
        outp = Path(out)
        if outp.exists() and resume:
            for r in read_trajectories(outp):
                done[r.key] = r
            # resuming with another model would silently mix two policies' episodes in one file
            model = getattr(policy, "model", None)
            others = sorted({r.model for r in done.values() if r.env_id == eid and r.model and model and r.model != model})
            if others:
                raise JobenvError(f"{outp} holds episodes of model {', '.join(others)}, not {model}; "
                                  "resume with the same model or write to another file")
        elif outp.exists() and outp.stat().st_size > 0:
            raise JobenvError(f"{outp} exists; pass resume=True to continue it or choose another file")
        writer = TrajectoryWriter(outp)

    def finished(key: tuple[str, str, int]) -> bool:
        r = done.get(key)
        return r is not None and not (retry_errors and r.status == "error")

    todo = [(t, a) for t, a in pairs if not finished((eid, t.id, a))]
    skipped = len(pairs) - len(todo)
    if on_start is not None:
        on_start(len(pairs), skipped)

    results: dict[tuple[str, str, int], Trajectory] = {}
    reset_slots = asyncio.Semaphore(max(1, start_concurrency))
    queue: asyncio.Queue[tuple[Task, int]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)

    def env_error(task: Task, attempt: int, exc: Exception) -> Trajectory:
        return env_error_trajectory(task, attempt, exc, env_id=eid, policy=policy, versions=versions)

    async def release(env_obj: Any) -> None:
        try:
            await asyncio.shield(env_obj.aclose())
        except BaseException:  # noqa: BLE001 - cleanup trouble is the sandbox's to report; keep going
            pass

    async def record(traj: Trajectory) -> None:
        if writer is not None:
            await writer.write(traj)
        results[traj.key] = traj
        if on_episode is not None:
            on_episode(traj)

    async def worker() -> None:
        # one env per worker, reset for each episode (a fresh sandbox every time); rebuilt after an env error
        env_obj: Any = None
        try:
            while True:
                try:
                    task, attempt = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                traj: Trajectory | None = None
                if env_obj is None:
                    try:
                        env_obj = JobEnv(chosen, env_id=eid, **kwargs)
                    except Exception as exc:  # noqa: BLE001 - a bad env configuration is reported per episode
                        traj = env_error(task, attempt, exc)
                    await asyncio.sleep(0)  # let other coroutines run between workers' start-up bursts
                if traj is None:
                    traj = await run_episode(env_obj, policy, task.id, attempt=attempt, env_id=eid, config=cfg, versions=versions,
                                             reset_slots=reset_slots)
                    traj.split = traj.split or task.split
                    traj.occupation = task.occupation
                    await release(env_obj)
                    if traj.error_kind == "env":
                        env_obj = None
                await record(traj)
        finally:
            if env_obj is not None:
                await release(env_obj)

    try:
        if executor == "ray" and todo:
            from .distributed import run_on_ray

            await run_on_ray(todo, tasks=chosen, env_id=eid, policy=policy, env_kwargs=kwargs, config=cfg,
                             versions=versions, on_result=record, address=ray_address, per_node=per_node,
                             start_concurrency=start_concurrency)
        else:
            await asyncio.gather(*(worker() for _ in range(min(concurrency, len(todo)))))
    finally:
        if writer is not None:
            writer.close()
    ordered: list[Trajectory] = []
    for t, a in pairs:
        key = (eid, t.id, a)
        found = results.get(key) or done.get(key)
        if found is not None:
            ordered.append(found)
    return CollectResult(trajectories=ordered, new=len(results), skipped=skipped, out=str(out) if out else None)


def collect_sync(*args: Any, **kwargs: Any) -> CollectResult:
    """:func:`collect` for synchronous code, on a private event loop (in a thread when the caller's thread
    already runs one, e.g. a notebook). The policy's HTTP client for that loop is closed before returning."""
    policy = args[1] if len(args) > 1 else kwargs.get("policy")

    async def run() -> CollectResult:
        try:
            return await collect(*args, **kwargs)
        finally:
            close = getattr(policy, "aclose", None)
            if close is not None:
                await close()

    return run_sync(run())


