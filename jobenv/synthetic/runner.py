"""Running a generation: which case each index draws, the budgets that move a draw on, resuming, progress, the
process pool, and the cached default split (``ensure_default_split``).

Task ``i`` of seed ``s`` is drawn from a sequence of *cases*: the profession, then the workflow its rotation
assigns (case 0), then that profession's other workflows, then the next professions' workflows in the seeded
order. A case gets two budgets of its own: ``GATE_BUDGET`` draws that fail a per-task quality gate and
``DUPLICATE_BUDGET`` draws whose graded values repeat an earlier task's. A case that exhausts either moves the
index on to the next case (the reason is recorded in :class:`GenerationStats` and the split report), so one
stubborn workflow never ends a run. Every draw has its own random stream (seed, generator version, index,
attempt number), and an index depends only on the seed and the tasks before it: the same seed gives the same
tasks, whatever ``n`` (prefix-stable) and however many worker processes draw them.

Resuming: ``out_dir/.jobenv-generate.jsonl`` records the run (generator version, seed, judgement) and, after each
accepted task, its path and the hashes of its meta.json and RUBRICS.json. A later run of the same generation
over the same folder keeps every recorded task whose files still hash the same (stopping at the first that does
not) and draws on from there.

Failure behaviour: ``generate`` raises JobenvError for n < 0 and TaskFormatError only when an index exhausts
every case of every profession (no split has come near); an interrupted run leaves every accepted task and the
manifest intact.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import JobenvError, QualityGateError, TaskFormatError
from .common import GENERATOR_VERSION, DegenerateTask
from .gates import to_json
from .professions import PROFESSIONS
from .workflows import workflows_for

__all__ = ["GenerationStats", "GATE_BUDGET", "DUPLICATE_BUDGET", "MANIFEST", "assignment", "case_of", "generate",
           "resumable", "progress_printer", "ensure_default_split", "DEFAULT_SPLIT_SIZE"]

GATE_BUDGET = 10  # draws of one case that may fail a per-task gate before the index moves on to the next case
DUPLICATE_BUDGET = 4  # draws of one case that may repeat an earlier task's graded values before it moves on
MANIFEST = ".jobenv-generate.jsonl"
DEFAULT_SPLIT_SIZE = 24
SPLIT_MARKER = ".jobenv-synthetic.json"


@dataclass
class GenerationStats:
    """What happened during one generation (a resumed run includes the part drawn before): accepted tasks,
    rejected draws by gate, and the draws that moved on to another case by reason."""

    accepted: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    moved_on: dict[str, int] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    resumed: int = 0

    def reject(self, gate: str, reason: str) -> None:
        self.rejected[gate] = self.rejected.get(gate, 0) + 1
        if len(self.reasons) < 50:
            self.reasons.append(f"{gate}: {reason}")

    def move_on(self, why: str, detail: str) -> None:
        self.moved_on[why] = self.moved_on.get(why, 0) + 1
        if len(self.moves) < 50:
            self.moves.append(detail)


def _stream(seed: int, index: int, attempt: int) -> random.Random:
    # String seeds hash with SHA-512 inside random.seed: stable across processes and platforms.
    return random.Random(f"jobenv-synthetic:{GENERATOR_VERSION}:{seed}:{index}:{attempt}")


def _balanced(seed: int, index: int, salt: str) -> bool:
    block = [True, True, False, False]
    random.Random(f"jobenv-synthetic-{salt}:{GENERATOR_VERSION}:{seed}:{index // 4}").shuffle(block)
    return block[index % 4]


def _offset(seed: int, occ: str) -> int:
    return random.Random(f"jobenv-synthetic-offset:{seed}:{occ}").randrange(len(workflows_for(occ)))


@functools.lru_cache(maxsize=64)
def _profession_order(seed: int) -> tuple[str, ...]:
    """The professions in a seeded order that spreads families: each next profession is, of the shuffled ones
    left, the first whose first option's family is least used so far (ties keep the shuffle)."""
    shuffled = [p.key for p in PROFESSIONS]
    random.Random(f"jobenv-synthetic-professions:{GENERATOR_VERSION}:{seed}").shuffle(shuffled)
    used: dict[str, int] = {}
    order: list[str] = []
    while shuffled:
        fams = [workflows_for(occ)[_offset(seed, occ)].family for occ in shuffled]
        k = min(range(len(shuffled)), key=lambda i: used.get(fams[i], 0))
        used[fams[k]] = used.get(fams[k], 0) + 1
        order.append(shuffled.pop(k))
    return tuple(order)


def case_of(seed: int, index: int, case: int) -> tuple[str, Any] | None:
    """The (profession, workflow) of case ``case`` of task ``index``: the assigned profession's
    options from its rotation, then each next profession's in the seeded order; None past the last."""
    order = _profession_order(seed)
    k = case
    for step in range(len(order)):
        occ = order[(index + step) % len(order)]
        options = workflows_for(occ)
        if k < len(options):
            return occ, options[(_offset(seed, occ) + index // len(order) + k) % len(options)]
        k -= len(options)
    return None


def assignment(seed: int, index: int, case: int = 0) -> dict[str, Any]:
    """Profession, workflow and answer targets of task ``index`` in case ``case``."""
    got = case_of(seed, index, case)
    if got is None:
        raise TaskFormatError(f"generate: task index {index} (seed {seed}) has no case {case}")
    return {"occupation": got[0], "workflow": got[1], "decision": _balanced(seed, index, "decision"),
            "premise": _balanced(seed, index, "premise")}


@dataclass(frozen=True)
class _State:
    """Where an index's drawing stands: its case, what the case has spent of each budget, the next attempt."""

    case: int = 0
    gates: int = 0
    duplicates: int = 0
    attempt: int = 0

    def after(self, budget: str) -> tuple[_State, bool]:
        """The state after a draw lost to ``budget`` ("gates" or "duplicates"); True when the case moves on."""
        spent = getattr(self, budget) + 1
        limit = GATE_BUDGET if budget == "gates" else DUPLICATE_BUDGET
        if spent >= limit:
            return _State(self.case + 1, 0, 0, self.attempt + 1), True
        return replace(self, attempt=self.attempt + 1, **{budget: spent}), False


@dataclass
class _Draw:
    """One index's draw that passed every per-task gate (the split-level duplicate check comes after)."""

    index: int
    state: _State
    occupation: str
    option: str
    facts_hash: str
    staging: Path
    rejected: list[tuple[str, str]]
    moves: list[str]


def _draw(seed: int, index: int, state: _State, staging_root: str, judgement: bool) -> _Draw:
    """Draw task ``index`` from ``state`` on until a draw passes the per-task gates (runs in worker processes
    too); a case that spends its gate budget moves on to the next. Raises TaskFormatError past the last case."""
    from .workflows.write import write_workflow_task

    rejected: list[tuple[str, str]] = []
    moves: list[str] = []
    while True:
        got = case_of(seed, index, state.case)
        if got is None:
            last = rejected[-1][1] if rejected else "no draw"
            raise TaskFormatError(f"generate: task index {index} (seed {seed}) exhausted every case of every "
                                  f"profession; last: {last}")
        a = assignment(seed, index, state.case)
        staging = Path(staging_root) / f"i{index:06d}-a{state.attempt:03d}" / a["occupation"] / "task1"
        shutil.rmtree(staging.parent.parent, ignore_errors=True)
        staging.parent.mkdir(parents=True)
        wf = a["workflow"]
        try:
            draft = wf.draw(_stream(seed, index, state.attempt), a["occupation"],
                            {"decision": a["decision"], "premise": a["premise"]})
            _, fh = write_workflow_task(wf, draft, staging, occupation=a["occupation"], seed=seed, index=index,
                                        attempt=state.attempt, judgement=judgement)
            return _Draw(index, state, a["occupation"], wf.key, fh, staging, rejected, moves)
        except (DegenerateTask, QualityGateError) as exc:
            gate = "degenerate" if isinstance(exc, DegenerateTask) else str(exc).split(":", 1)[0]
            rejected.append((gate, str(exc)))
            shutil.rmtree(staging.parent.parent, ignore_errors=True)
            state, moved = state.after("gates")
            if moved:
                moves.append(f"index {index}: {wf.key} for {a['occupation']} spent its gate budget "
                             f"({GATE_BUDGET} draws; last: {exc})")


class ManifestHead(BaseModel):
    """The first line of a generation's manifest: which generation the folder holds."""

    schema_version: int = 1
    generator_version: str
    seed: int
    judgement: bool


class ManifestTask(BaseModel):
    """One accepted task in a generation's manifest (a line each, in index order)."""

    schema_version: int = 1
    index: int
    path: str
    case: int
    attempt: int
    meta_sha256: str
    rubrics_sha256: str
    rejected: dict[str, int] = {}
    moved_on: dict[str, int] = {}
    moves: list[str] = []


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def resumable(out_dir: Path, seed: int, judgement: bool) -> bool:
    """Whether ``out_dir`` holds a run of this generation (seed, judgement, generator version) to resume."""
    head = ManifestHead(generator_version=GENERATOR_VERSION, seed=seed, judgement=judgement)
    try:
        first = (Path(out_dir) / MANIFEST).read_text(encoding="utf-8").split("\n", 1)[0]
        return ManifestHead.model_validate_json(first) == head
    except (OSError, ValidationError):
        return False


def _kept(out_dir: Path, head: ManifestHead) -> list[ManifestTask]:
    """The recorded tasks of the same generation whose files still hash as recorded, up to the first that does
    not (a task depends on the ones before it)."""
    try:
        lines = (out_dir / MANIFEST).read_text(encoding="utf-8").splitlines()
        if not lines or ManifestHead.model_validate_json(lines[0]) != head:
            return []
    except (OSError, ValidationError):
        return []
    kept: list[ManifestTask] = []
    for line in lines[1:]:
        try:
            t = ManifestTask.model_validate_json(line)
            d = out_dir / t.path
            ok = (t.index == len(kept) and _sha(d / "meta.json") == t.meta_sha256
                  and _sha(d / "RUBRICS.json") == t.rubrics_sha256)
        except (OSError, ValidationError):
            ok = False
        if not ok:
            break
        kept.append(t)
    return kept


def _pool(workers: int) -> Any:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))


def generate(n: int, seed: int, out_dir: Path, *, stats: GenerationStats | None = None,
             exclude_facts: set[str] | None = None, judgement: bool = True, workers: int | None = None,
             progress: Callable[[int, int, int], None] | None = None) -> list[Path]:
    """Generate ``n`` tasks from ``seed`` into ``out_dir/<occupation>/taskN/``; returns the task dirs in order.

    A draw whose graded facts (meta.json ``facts_hash``) equal an earlier task's, or one in ``exclude_facts``
    (e.g. another split's), or whose graded values overlap an earlier task's by ``MAX_VALUE_OVERLAP``, is redrawn
    (within the case's duplicate budget). With ``judgement`` (the default, as in JobTasks) every task also has
    two rubrics whose criteria need the LLM judge; without it every criterion has a deterministic check.
    ``workers`` processes draw tasks in parallel (default: one per CPU, at most 4, for 16 or more tasks); the
    result does not depend on it. A folder holding an earlier run of the same generation (seed, judgement,
    generator version) is resumed: its verified tasks are kept and drawing goes on from the next index.
    ``progress(done, n, drawn_now)`` is called after each accepted task. Raises as the module docstring says.
    """
    from .generator import MAX_VALUE_OVERLAP, graded_values, value_overlap

    if n < 0:
        raise JobenvError(f"generate: n must be >= 0, got {n}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stats = stats if stats is not None else GenerationStats()
    if workers is None:
        workers = min(os.cpu_count() or 1, 4) if n >= 16 else 1
    head = ManifestHead(generator_version=GENERATOR_VERSION, seed=seed, judgement=judgement)
    kept = _kept(out_dir, head)
    counters: dict[str, int] = {}
    seen: set[str] = set(exclude_facts or ())
    kept_values: list[frozenset[str]] = []
    made: list[Path] = []
    for t in kept[:n]:
        done = out_dir / t.path
        seen.add(json.loads((done / "meta.json").read_text(encoding="utf-8"))["facts_hash"])
        kept_values.append(graded_values(done))
        occ, name = t.path.split("/")
        counters[occ] = max(counters.get(occ, 0), int(name.removeprefix("task")))
        made.append(done)
        for gate, k in t.rejected.items():
            stats.rejected[gate] = stats.rejected.get(gate, 0) + k
        for why, k in t.moved_on.items():
            stats.moved_on[why] = stats.moved_on.get(why, 0) + k
        stats.moves += t.moves[: max(0, 50 - len(stats.moves))]
        stats.accepted += 1
    stats.resumed = len(made)
    if len(made) == n:
        return made
    manifest = out_dir / MANIFEST
    manifest.write_text("".join(line + "\n" for line in [head.model_dump_json()] + [t.model_dump_json() for t in kept]),
                        encoding="utf-8")
    staging_root = out_dir / ".staging"
    shutil.rmtree(staging_root, ignore_errors=True)
    staging_root.mkdir()
    start = len(made)
    pool = _pool(workers) if workers > 1 and n - start > 1 else None
    futures: dict[int, Any] = {}
    ahead = workers * 3
    try:
        for index in range(start, n):
            if pool is not None:
                for i in range(index, min(n, index + ahead)):
                    if i not in futures:
                        futures[i] = pool.submit(_draw, seed, i, _State(), str(staging_root), judgement)
                d = futures.pop(index).result()
            else:
                d = _draw(seed, index, _State(), str(staging_root), judgement)
            rejected: dict[str, int] = {}
            moved: dict[str, int] = {}
            moves: list[str] = []
            while True:
                for gate, reason in d.rejected:
                    stats.reject(gate, reason)
                    rejected[gate] = rejected.get(gate, 0) + 1
                for m in d.moves:
                    stats.move_on("gate budget", m)
                    moved["gate budget"] = moved.get("gate budget", 0) + 1
                    moves.append(m)
                values = graded_values(d.staging)
                twin = d.facts_hash in seen or any(value_overlap(values, v) >= MAX_VALUE_OVERLAP for v in kept_values)
                if not twin:
                    break
                stats.reject("duplicate", f"index {index} attempt {d.state.attempt}: graded values repeat an earlier task's")
                rejected["duplicate"] = rejected.get("duplicate", 0) + 1
                shutil.rmtree(d.staging.parent.parent, ignore_errors=True)
                state, on = d.state.after("duplicates")
                if on:
                    m = (f"index {index}: {d.option} for {d.occupation} spent its duplicate budget "
                         f"({DUPLICATE_BUDGET} draws repeating an earlier task's graded values)")
                    stats.move_on("duplicate budget", m)
                    moved["duplicate budget"] = moved.get("duplicate budget", 0) + 1
                    moves.append(m)
                d = _draw(seed, index, state, str(staging_root), judgement)
            seen.add(d.facts_hash)
            kept_values.append(values)
            number = counters.get(d.occupation, 0) + 1
            final = out_dir / d.occupation / f"task{number}"
            final.parent.mkdir(parents=True, exist_ok=True)
            if final.exists():
                shutil.rmtree(final)
            os.replace(d.staging, final)
            counters[d.occupation] = number
            made.append(final)
            stats.accepted += 1
            entry = ManifestTask(index=index, path=f"{d.occupation}/task{number}", case=d.state.case,
                                 attempt=d.state.attempt, meta_sha256=_sha(final / "meta.json"),
                                 rubrics_sha256=_sha(final / "RUBRICS.json"), rejected=rejected, moved_on=moved,
                                 moves=moves)
            with manifest.open("a", encoding="utf-8") as f:
                f.write(entry.model_dump_json() + "\n")
            if progress is not None:
                progress(len(made), n, len(made) - start)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        shutil.rmtree(staging_root, ignore_errors=True)
    return made


def progress_printer(every: int, stream: Any) -> Callable[[int, int, int], None]:
    """A ``progress`` callback writing one line per ``every`` tasks (and the last) with the rate so far."""
    t0 = time.perf_counter()

    def report(done: int, n: int, drawn: int) -> None:
        if done % every and done != n:
            return
        dt = time.perf_counter() - t0
        rate = drawn / dt if dt > 0 else 0.0
        eta = (n - done) / rate if rate > 0 else 0.0
        print(f"generate: {done}/{n} tasks ({100 * done / n:.0f} %), {rate:.3f} tasks/s, "
              f"{dt / 60:.1f} min elapsed, about {eta / 60:.1f} min left", file=stream, flush=True)

    return report


def _split_key(n: int, seed: int, judgement: bool) -> dict[str, Any]:
    return {"generator_version": GENERATOR_VERSION, "seed": int(seed), "n": int(n), "judgement": bool(judgement)}


def is_generated(dest: Path, n: int, seed: int, *, judgement: bool = False) -> bool:
    """True when ``dest`` holds the finished split :func:`ensure_default_split` would make (same generator version,
    seed, n and judgement); False for anything else, a missing or unreadable marker included."""
    try:
        got = json.loads((Path(dest) / SPLIT_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(got, dict) and all(got.get(k) == v for k, v in _split_key(n, seed, judgement).items())


def ensure_default_split(dest: Path, n: int = DEFAULT_SPLIT_SIZE, seed: int = 0, *, judgement: bool = False) -> Path:
    """Generate ``n`` tasks from ``seed`` into ``dest`` once; later calls return ``dest`` at once.

    This is the split the registry serves (``jobenv/synthetic``, the ``jobtasks/train`` stand-in), so by
    default it has checks on every criterion and grades without an LLM; ``judgement=True`` adds the
    LLM-graded rubrics.

    Cached by a marker file recording the generator version, seed and n: a marker that disagrees (or a
    half-written directory without one) causes regeneration. Concurrent callers serialise on a lock
    file next to ``dest``; the split is built in a temporary sibling and moved into place, so a reader
    never sees a partial split. Raises like :func:`generate`.
    """
    dest = Path(dest)
    want = _split_key(n, seed, judgement)
    if is_generated(dest, n, seed, judgement=judgement):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    lock_path = dest.parent / f".{dest.name}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_generated(dest, n, seed, judgement=judgement):  # another caller finished it meanwhile
            return dest
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
        try:
            tasks = generate(n, seed, tmp, judgement=judgement)
            marker = dict(want, tasks=[p.relative_to(tmp).as_posix() for p in tasks])
            (tmp / SPLIT_MARKER).write_text(to_json(marker), encoding="utf-8")
            if dest.exists():
                shutil.rmtree(dest)
            os.replace(tmp, dest)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return dest
