"""Who caused a failed grading, the agent or the infrastructure: decided by a canary, for every grader, written once.

Grading fails in ways the agent can cause: code that sleeps until a Harbor task's ``tests/test.sh`` times out, files
that crash the test before it writes a reward, deliverables that overflow the agentic judge's context or budget, or
text that makes a judge answer no rubric validly. Left as ``error`` (which trainers drop) such a failure would be a
way out of a low reward. So when a grading fails, :func:`agent_caused` grades a *canary* the same way, with the same
grader:

* the task's untouched workspace, what a no-op agent would submit (a Harbor task graded by its ``test.sh``);
* for a grader of deliverables (the LLM judge, the agentic judge, the deterministic checks, a Harbor task graded by
  rubrics), that workspace with one neutral stand-in deliverable (:data:`STAND_IN`), so the grader really runs.

A canary that grades cleanly (status ok with a real grading; an empty output is no test of the grader) means the
grader works for this task, so the agent's output caused the failure: the episode scores 0 with status ok. A canary
that fails too means the failure is the infrastructure's: status error, as before.

A clean canary is cached per task content and grader version (:func:`jobenv.judge.report.grader_sha256`, the grader's
kind, model and endpoint, the sandbox backend): in memory and on disk under ``$JOBENV_CACHE/canary``. A failed canary
is remembered in memory for :data:`FAILED_TTL_S` only, so an outage does not double every grading while it lasts and
its end is noticed. A cached clean canary says the grader *can* grade the task, not that it is up now: a failure that
may be an outage (:func:`may_be_outage`: an endpoint that did not answer, a grader's own machinery failing) is
checked against a canary graded within the last :data:`FAILED_TTL_S` seconds instead, so an outage after the canary
was cached stays an error. Never raises except on cancellation: a canary that cannot be built or graded is a failed
canary.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import secrets
import shutil
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from ..judge.report import GradeReport
    from ..sandbox.base import Sandbox
    from ..tasks import Task

__all__ = ["agent_caused", "canary_record", "canary_key", "may_be_outage", "clear_memory", "CanaryRecord",
           "CANARY_SCHEMA_VERSION", "STAND_IN", "FAILED_TTL_S"]

CANARY_SCHEMA_VERSION = 1
#: the neutral deliverable of a canary: a file that answers nothing, in the place a grader reads deliverables from
STAND_IN = ("notes.md", "# Notes\n\nThis file is a placeholder. It holds no answer to the task.\n")
#: seconds a failed canary is believed before it is graded again
FAILED_TTL_S = 60.0


class CanaryRecord(BaseModel):
    """A canary's grading, as cached: whether it graded cleanly, its reward, and what went wrong when not."""

    schema_version: int = CANARY_SCHEMA_VERSION
    key: str
    clean: bool
    reward: float | None = None
    error: str | None = None
    graded_at: float = 0.0


#: failure texts of an endpoint that did not answer or a grader's machinery (an outage, not the deliverables):
#: the openai client's errors for no answer, throttling, credentials and server faults, and the Harbor verifier's
#: own sandbox or staging failing
_OUTAGE = re.compile(r"APIConnectionError|APITimeoutError|InternalServerError|RateLimitError|AuthenticationError|"
                     r"PermissionDeniedError|NotFoundError|\(HTTP (?:5\d\d|429|401|403|404)\)|"
                     r"the verifier failed|could not stage the tests")

_MEMORY: dict[str, CanaryRecord] = {}
# per event loop (a lock is bound to the loop it first waits on), forgotten with the loop
_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]] = weakref.WeakKeyDictionary()
_TASK_HASHES: dict[tuple[str, str, str], str] = {}


def clear_memory() -> None:
    """Forget the canaries remembered in memory (the disk cache stays)."""
    _MEMORY.clear()
    _TASK_HASHES.clear()


def _hash_tree(h: Any, root: Path, label: str) -> None:
    if not root.is_dir():
        return
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            h.update(f"{label}/{path.relative_to(root).as_posix()}\0".encode())
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
            h.update(b"\0")


def _task_hash(task: Task) -> str:
    """A hash of what grading ``task`` depends on: its rubrics and instructions, its task folder and, for a Harbor
    task, its directory (``task.toml``, ``tests/``, the environment). Computed once per process and task."""
    spec = getattr(task, "harbor", None)
    memo = (task.uid, str(task.task_folder), str(spec.root) if spec is not None else "")
    if memo not in _TASK_HASHES:
        h = hashlib.sha256()
        h.update(json.dumps([task.uid, task.instructions, [r.model_dump(mode="json") for r in task.rubrics]],
                            sort_keys=True, default=str).encode())
        _hash_tree(h, Path(task.task_folder), "task_folder")
        if spec is not None:
            _hash_tree(h, Path(spec.root), "harbor")
        _TASK_HASHES[memo] = h.hexdigest()
    return _TASK_HASHES[memo]


def _describe(grader: Any) -> dict[str, Any]:
    """What identifies a grader's behaviour besides its code: its class, kind, model and endpoint (no key)."""
    out: dict[str, Any] = {"class": f"{type(grader).__module__}.{type(grader).__qualname__}"}
    for name in ("kind", "model", "base_url", "mode", "sandbox", "sandbox_options", "max_steps", "max_tokens"):
        value = getattr(grader, name, None)
        if value is not None and not callable(value):
            out[name] = repr(value)
    inner = getattr(grader, "llm", None)
    if inner is not None and not callable(inner) and inner is not grader:
        out["llm"] = _describe(inner)
    # the judges a Harbor verifier grades rubrics with (judge.toml, jobenv's exports), built from the environment
    nested = {**getattr(grader, "_rubric_judges", {}), "native": getattr(grader, "_native", None)}
    for name, judge in sorted(nested.items()):
        if judge is not None:
            out[f"judge:{name}"] = _describe(judge)
    return out


def _unwrapped(grader: Any) -> Any:
    """The grader beneath wrappers that act on the folder they are given (a ``judge`` attribute holding the
    wrapped judge, as the rollout's store of deliverables has): the canary is graded by the grader itself, so no
    wrapper records the canary's folder as the agent's."""
    from ..judge.base import Judge

    while isinstance(getattr(grader, "judge", None), Judge):
        grader = grader.judge
    return grader


def canary_key(task: Task, grader: Any) -> str:
    """The cache key of ``task``'s canary under ``grader``: task content hash + grader hash + the grader's identity."""
    from ..judge.report import grader_sha256

    blob = json.dumps({"task": _task_hash(task), "grader": grader_sha256(), "judge": _describe(grader)},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _stand_in_path(task: Task) -> str | None:
    """Where the stand-in deliverable goes, relative to the graded folder (None: a Harbor task graded by its
    test.sh, whose canary is the untouched workspace alone)."""
    spec = getattr(task, "harbor", None)
    if spec is None:
        return STAND_IN[0]  # the graded folder is output/ itself
    from ..harbor.export import is_jobenv_export

    if is_jobenv_export(spec.tests_dir):
        return f"output/{STAND_IN[0]}"
    if spec.grader != "judge.toml":
        return None
    from ..harbor.judge_toml import load_judge_toml

    names = load_judge_toml(spec.tests_dir / "judge.toml").judge.files or spec.artifacts
    if not names:
        return STAND_IN[0]  # the judge reads the whole workdir
    # the first thing the judge reads: a named file is the stand-in itself, a named folder holds it
    workdir = spec.workdir.rstrip("/")
    rel = (names[0][len(workdir) + 1:] if names[0].startswith(workdir + "/") else names[0].lstrip("/")).rstrip("/")
    if not rel or ".." in Path(rel).parts:
        return STAND_IN[0]
    return rel if Path(rel).suffix else f"{rel}/{STAND_IN[0]}"


async def _untouched(task: Task, sandbox: Sandbox | None, dest: Path) -> None:
    """The task's untouched workspace as the agent's export would give it, written to ``dest``. A docker sandbox
    whose workspace comes from its image starts a fresh one of the same image; elsewhere the workspace is the task
    folder (a Harbor task's) or an empty ``output/``."""
    spec = getattr(task, "harbor", None)
    if spec is not None and getattr(sandbox, "name", None) == "docker" and getattr(sandbox, "seed", None):
        from ..sandbox import make_sandbox

        fresh = make_sandbox("docker", limits=sandbox.limits, image=sandbox.image,  # type: ignore[union-attr]
                             base_url=sandbox.base_url, seed=sandbox.seed)  # type: ignore[union-attr]
        try:
            await fresh.start(task.task_folder)
            await fresh.export_output(dest)
        finally:
            await fresh.close()
        return
    if spec is not None:
        await asyncio.to_thread(shutil.copytree, task.task_folder, dest, symlinks=False)
    else:
        dest.mkdir(parents=True)
    from ..sandbox.base import REJECTED_MANIFEST

    (dest / REJECTED_MANIFEST).write_text("[]")  # as an export writes it: nothing refused


async def _grade_canary(task: Task, sandbox: Sandbox | None, grader: Any, key: str) -> CanaryRecord:
    from ..sandbox.gc import host_tempdir, remove_tree

    tmp = host_tempdir("canary")
    try:
        out = Path(tmp) / "output"
        await _untouched(task, sandbox, out)
        where = _stand_in_path(task)
        if where is not None:
            target = out / where
            target.parent.mkdir(parents=True, exist_ok=True)
            # a fresh line each time, so no verdict cache answers for a judge that is down
            target.write_text(f"{STAND_IN[1]}\nDraft {secrets.token_hex(4)}.\n", encoding="utf-8")
        report = await grader.grade(task, out)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - a canary that cannot be built or graded is a failed canary
        return CanaryRecord(key=key, clean=False, error=f"{type(exc).__name__}: {exc}", graded_at=time.time())
    finally:
        await asyncio.to_thread(remove_tree, tmp)
    clean = report.status == "ok" and not report.empty_output
    why = None if clean else report.error or ("the canary graded as an empty output (no test of the grader)"
                                               if report.status == "ok" else "the canary's grading failed")
    return CanaryRecord(key=key, clean=clean, reward=float(report.normalized_score) if clean else None,
                        error=why, graded_at=time.time())


def _disk(key: str) -> Path:
    from .. import settings

    return settings.cache_dir() / "canary" / f"{key}.json"


def may_be_outage(report: GradeReport) -> bool:
    """Whether ``report``'s failure may be the grader's outage rather than the deliverables' doing: a rubric the
    judge never answered (or that failed inside the grader), or an error text naming an endpoint or machinery
    failure."""
    if any(r.status == "error" and r.failure in ("judge_unreachable", "internal") for r in report.rubrics):
        return True
    return bool(_OUTAGE.search(report.error or ""))


def _load(key: str, live: bool = False) -> CanaryRecord | None:
    """The remembered canary of ``key``: a clean one from memory or disk; a failed one graded within
    :data:`FAILED_TTL_S`; with ``live``, only one graded within that time."""
    record = _MEMORY.get(key)
    recent = record is not None and time.time() - record.graded_at < FAILED_TTL_S
    if record is not None and (recent or (record.clean and not live)):
        return record
    if live:
        return None
    try:
        stored = CanaryRecord.model_validate_json(_disk(key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if stored.schema_version != CANARY_SCHEMA_VERSION or stored.key != key or not stored.clean:
        return None
    _MEMORY[key] = stored
    return stored


def _store(record: CanaryRecord) -> None:
    _MEMORY[record.key] = record
    if not record.clean:
        return  # an outage is not written down: it ends
    path = _disk(record.key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{time.time_ns()}.tmp")
        tmp.write_text(record.model_dump_json(), encoding="utf-8")
        tmp.replace(path)  # atomic: concurrent processes never read half a file
    except OSError:
        pass  # the cache is an optimisation


async def canary_record(task: Task, sandbox: Sandbox | None, grader: Any, *, live: bool = False) -> CanaryRecord:
    """``task``'s canary under ``grader`` (cached; graded once at a time per key in this process). ``live``: only a
    canary graded within :data:`FAILED_TTL_S` seconds counts (see the module docstring)."""
    grader = _unwrapped(grader)
    key = await asyncio.to_thread(canary_key, task, grader)  # hashes the task's files: off the event loop
    record = _load(key, live)
    if record is not None:
        return record
    lock = _LOCKS.setdefault(asyncio.get_running_loop(), {}).setdefault(key, asyncio.Lock())
    async with lock:
        record = _load(key, live)
        if record is None:
            record = await _grade_canary(task, sandbox, grader, key)
            _store(record)
        return record


async def agent_caused(task: Task, sandbox: Sandbox | None, grader: Any, report: GradeReport) -> bool:
    """Whether the failed grading ``report`` of ``task`` by ``grader`` is the agent's doing: the canary grades
    cleanly (a recent canary when the failure may be an outage). False (infrastructure) when the canary fails too
    or cannot be graded. Never raises except on cancellation."""
    try:
        return (await canary_record(task, sandbox, grader, live=may_be_outage(report))).clean
    except asyncio.CancelledError:
        raise
    except Exception:  # noqa: BLE001 - no canary, no blame: the failure stays an infrastructure error
        return False
