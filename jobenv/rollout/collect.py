"""Collection: many episodes on one event loop, ``k`` attempts per task, appended to a trajectories file.

:func:`collect` never raises for one episode's failure (it is recorded in that episode's trajectory); it
raises :class:`~jobenv.errors.JobenvError` only for bad arguments, before any episode starts.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from ..errors import JobenvError, SandboxError
from ..tasks import select_tasks
from .episode import RolloutConfig, reset_gate, run_episode
from .policy import Policy, policy_id
from .summary import Summary, summarize
from .trajectory import (
    KeepOutputs,
    ObjectStore,
    Trajectory,
    TrajectoryKey,
    TrajectoryWriter,
    env_error_trajectory,
    jobenv_version,
    read_trajectories,
)

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
        return sum(t.status == "error" for t in self.trajectories)

    def summary(self, *, include_errors: bool = False) -> Summary:
        return summarize(self.trajectories, include_errors=include_errors)


def task_digest(task: Task) -> str:
    """A content id of a task (instructions and rubrics): equal digests mean the same task, whatever its id."""
    body = {"instructions": task.instructions.strip(),
            "rubrics": [[r.text, r.weight, list(r.criteria)] for r in task.rubrics]}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def _dataset_version(env_id: str | None, task: Task) -> str | None:
    if task.revision:
        return f"{task.split}@{task.revision}"
    meta = task.meta or {}
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


def _overlap_warning(digests: dict[str, str], eid: str, others: list[Trajectory], where: str) -> None:
    ours = set(digests.values())
    seen: dict[str, set[str]] = {}
    for r in others:
        d = r.task_digest
        if d is not None and d in ours and r.env_id != eid:
            seen.setdefault(r.env_id, set()).add(d)
    for other_env, shared in sorted(seen.items()):
        warnings.warn(f"{len(shared)} of the {len(ours)} tasks of this {eid} run are the same tasks as "
                      f"{other_env} episodes in {where}: training and evaluation would overlap", stacklevel=3)


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
    ``config_overrides`` set :class:`RolloutConfig` fields (``max_steps=20``...). ``executor="ray"`` runs the
    episodes on the Ray cluster at ``ray_address`` (None: ``RAY_ADDRESS`` or a new local cluster), at most
    ``per_node`` at once on each node (see :mod:`jobenv.rollout.distributed`); the file, resume and summaries are
    the same, and each node sends its graded deliverables with the trajectory (a Ray run regrades like a local one).

    Raises JobenvError only for bad arguments or a failed pre-flight check, before any episode starts
    (unknown env or task ids, an unwritable ``out``, a judge that is not configured, a sandbox that cannot
    start); episode failures are recorded, never raised.
    """
    # heavy first imports (env, sandbox, judge, extraction libraries) run in a thread, not in the event loop
    await asyncio.to_thread(_warm_imports)
    from ..env import JobEnv
    from ..judge import make_judge
    from ..registry import load_tasks

    if attempts < 1:
        raise JobenvError(f"attempts must be >= 1 (got {attempts})")
    if concurrency < 1:
        raise JobenvError(f"concurrency must be >= 1 (got {concurrency})")
    if start_concurrency is not None and start_concurrency < 1:
        raise JobenvError(f"start_concurrency must be >= 1 or None (got {start_concurrency})")
    if executor not in ("local", "ray"):
        raise JobenvError(f"executor must be 'local' or 'ray' (got {executor!r})")
    if executor == "ray":
        from .distributed import import_ray

        import_ray()  # a missing extra fails before any work
    cfg = _build_config(config, config_overrides)
    kwargs = dict(env_kwargs or {})
    judge_spec, judge_options = kwargs.pop("judge", "auto"), dict(kwargs.pop("judge_options", None) or {})
    judge = make_judge(judge_spec, **judge_options)  # once for the run; a misconfigured judge fails here
    for k in ("max_steps", "time_limit_s", "on_truncate", "scoring"):
        if k in kwargs:
            raise JobenvError(f"collect: pass {k} as a rollout setting (collect(..., {k}=...)), not in env_kwargs")
    kwargs["rules"] = cfg.rules  # the env enforces exactly the budget the prompt states, nothing more
    if isinstance(env, (str, Path)):
        env_label = str(env)
        all_tasks = load_tasks(env_label)
        eid = env_id or env_label
    else:
        all_tasks = list(env)
        eid = env_id or (f"tasks/{all_tasks[0].split}" if all_tasks else "tasks")
        env_label = eid
    chosen = select_tasks(all_tasks, tasks, where=env_label)
    if not chosen:
        raise JobenvError(f"{env_label}: no tasks to run")
    digests = {t.id: task_digest(t) for t in chosen}
    content_version = "content-" + hashlib.sha256(" ".join(sorted(digests.values())).encode()).hexdigest()[:16]
    desc = policy.describe() if hasattr(policy, "describe") else {"kind": type(policy).__name__}
    model, pid = str(desc.get("model") or ""), policy_id(desc)

    def key(task: Task, attempt: int) -> TrajectoryKey:
        return (model, pid, eid, task.id, attempt)

    pairs = [(t, a) for t in chosen for a in range(attempts)]
    done: dict[TrajectoryKey, Trajectory] = {}
    writer: TrajectoryWriter | None = None
    store: ObjectStore | None = None
    if out is not None:
        outp = Path(out)
        if outp.exists() and resume:
            previous = read_trajectories(outp)
            done = {r.key: r for r in previous}
            _overlap_warning(digests, eid, previous, str(outp))
        elif outp.exists() and outp.stat().st_size > 0:
            raise JobenvError(f"{outp} exists; pass resume=True to continue it or choose another file")
    for other in disjoint_from:
        _overlap_warning(digests, eid, read_trajectories(other), str(other))
    if preflight:
        await check_sandbox(kwargs.get("sandbox", "local"), options=kwargs.get("sandbox_options"),
                            limits=kwargs.get("limits"), task=chosen[0])
    if out is not None:
        writer = TrajectoryWriter(out)
        store = writer.objects

    def finished(k: TrajectoryKey) -> bool:
        r = done.get(k)
        return r is not None and not (retry_errors and r.status == "error")

    todo = [(t, a) for t, a in pairs if not finished(key(t, a))]
    skipped = len(pairs) - len(todo)
    if on_start is not None:
        on_start(len(pairs), skipped)

    results: dict[TrajectoryKey, Trajectory] = {}
    reset_slots = reset_gate(start_concurrency, kwargs)
    queue: asyncio.Queue[tuple[Task, int]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)

    def stamp(traj: Trajectory, task: Task, saved: dict[str, str] | None) -> None:
        traj.split = traj.split or task.split
        traj.occupation = task.occupation
        # a folder of one's own has no revision: its tasks' content stands for it
        traj.versions["dataset"] = traj.versions.get("dataset") or _dataset_version(eid, task) or content_version
        traj.task_digest = digests[task.id]
        if saved is not None and traj.report is not None:
            traj.deliverables = saved

    def env_error(task: Task, attempt: int, exc: Exception) -> Trajectory:
        return env_error_trajectory(task, attempt, exc, env_id=eid, policy=policy, versions={})

    async def record(traj: Trajectory, task: Task, saved: dict[str, str] | None) -> None:
        stamp(traj, task, saved)
        if writer is not None:
            await writer.write(traj)
        results[traj.key] = traj
        if on_episode is not None:
            on_episode(traj)

    async def release(env_obj: Any) -> None:
        try:
            await asyncio.shield(env_obj.aclose())
        except BaseException:  # noqa: BLE001 - cleanup trouble is the sandbox's to report; keep going
            pass

    async def worker() -> None:
        # one env per worker, reset for each episode (a fresh sandbox every time); rebuilt after an env error
        env_obj: Any = None
        keeper: KeepOutputs | None = None
        try:
            while True:
                try:
                    task, attempt = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                traj: Trajectory | None = None
                if env_obj is None:
                    try:
                        keeper = KeepOutputs(judge, store) if store is not None else None
                        env_obj = JobEnv(chosen, env_id=eid, judge=keeper or judge, **kwargs)
                    except Exception as exc:  # noqa: BLE001 - a bad env configuration is reported per episode
                        traj = env_error(task, attempt, exc)
                    await asyncio.sleep(0)  # let other coroutines run between workers' start-up bursts
                if traj is None:
                    if keeper is not None:
                        keeper.saved = None
                    traj = await run_episode(env_obj, policy, task.id, attempt=attempt, env_id=eid, config=cfg,
                                             reset_slots=reset_slots)
                    await release(env_obj)
                    if traj.error_kind == "env":
                        env_obj = None
                await record(traj, task, keeper.saved if keeper is not None else None)
        finally:
            if env_obj is not None:
                await release(env_obj)

    try:
        if executor == "ray" and todo:
            from .distributed import run_on_ray

            by_id = {t.id: t for t in chosen}

            async def from_node(traj: Trajectory, saved: dict[str, str] | None, objects: dict[str, bytes]) -> None:
                if store is None or saved is None:
                    saved = None
                else:
                    def keep(into: ObjectStore) -> None:
                        for data in objects.values():
                            into.put(data)  # content-addressed: the digest is the node's

                    try:
                        await asyncio.to_thread(keep, store)
                    except OSError:  # storing never fails an episode (as on the local path)
                        saved = None
                await record(traj, by_id[traj.task_id], saved)

            # the nodes build their own judge from its spec (a judge object holds clients that do not travel)
            remote_kwargs = {**kwargs, "judge": judge_spec, "judge_options": judge_options}
            await run_on_ray(todo, tasks=chosen, env_id=eid, policy=policy, env_kwargs=remote_kwargs, config=cfg,
                             versions={}, on_result=from_node, address=ray_address, per_node=per_node,
                             start_concurrency=start_concurrency)
        else:
            await asyncio.gather(*(worker() for _ in range(min(concurrency, len(todo)))))
    finally:
        if writer is not None:
            writer.close()
    ordered: list[Trajectory] = []
    for t, a in pairs:
        found = results.get(key(t, a)) or done.get(key(t, a))
        if found is not None:
            ordered.append(found)
    return CollectResult(trajectories=ordered, new=len(results), skipped=skipped, out=str(out) if out else None)


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
