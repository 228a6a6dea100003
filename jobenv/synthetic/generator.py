"""The generator: seeds to task directories in the JobTasks layout, with quality gates.

``generate(n, seed, out_dir)`` writes ``out_dir/<occupation>/taskN/`` for ``n`` tasks. Task ``i`` is
drawn from its own random stream (seed, generator version, index, attempt), so the same seed and
version always give byte-identical tasks, and a task does not change when ``n`` grows.

Quality gates (a task failing one is dropped and redrawn from the next attempt's stream):
- degenerate expected values (empty or tiny groups, ties at a threshold or a rounding boundary) —
  raised by the families as DegenerateTask;
- criteria that pin a rounding the instructions do not state;
- the ground-truth script fails, or its deliverables fail any check (the judge's own evaluator,
  :func:`jobenv.judge.checks.evaluate_rubrics`, then the whole checks judge), or an empty output passes a rubric;
- the grader probes (:func:`jobenv.judge.probes.probe_rubrics`): a paraphrased correct output loses a
  criterion, a hedged one keeps a hedged rubric, or a blind one scores above 0.05;
- the task folder exceeds the size budget.
After ``MAX_ATTEMPTS`` failed draws for one index, generation raises TaskFormatError (a generator bug).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import random
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..check_models import CellCheck, FieldCheck, NumberCheck, check_leaves
from ..errors import JobenvError, TaskFormatError
from ..judge.checks import evaluate_rubrics
from ..judge.probes import probe_rubrics
from ..tasks import Rubric
from .common import GENERATOR_VERSION, DegenerateTask, Draft

__all__ = [
    "GENERATOR_VERSION",
    "DEFAULT_SPLIT_SIZE",
    "MAX_TASK_BYTES",
    "TaskMeta",
    "GenerationStats",
    "QualityGateError",
    "combos",
    "draw",
    "check_rounding_stated",
    "write_task",
    "generate",
    "ensure_default_split",
]

DEFAULT_SPLIT_SIZE = 24
MAX_TASK_BYTES = 300_000
MAX_ATTEMPTS = 40
TRAP_SHARE = 0.6
SPLIT_MARKER = ".jobenv-synthetic.json"


class QualityGateError(Exception):
    """A drawn task failed a quality gate (internal: the generator drops it and redraws)."""


class TaskMeta(BaseModel):
    """meta.json of a generated task (host-side; never shown to the agent)."""

    schema_version: int = 1
    generator: str = "jobenv.synthetic"
    generator_version: str
    seed: int
    index: int
    attempt: int
    family: str
    scenario: str
    occupation: str
    data_source: dict[str, Any]
    licence: str
    trap: dict[str, Any] | None
    reference_files: list[dict[str, str]]
    ground_truth: dict[str, str]
    expected: dict[str, Any]


@dataclass
class GenerationStats:
    """What happened during one generate() call: accepted tasks and rejected draws by gate."""

    accepted: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)

    def reject(self, gate: str, reason: str) -> None:
        self.rejected[gate] = self.rejected.get(gate, 0) + 1
        if len(self.reasons) < 50:
            self.reasons.append(f"{gate}: {reason}")


def combos() -> list[tuple[Any, Any]]:
    """Every (family module, scenario) pair, in a fixed order."""
    from .families import FAMILIES

    return [(fam, sc) for fam in FAMILIES for sc in fam.SCENARIOS]


def _stream(seed: int, index: int, attempt: int) -> random.Random:
    # String seeds hash with SHA-512 inside random.seed: stable across processes and platforms.
    return random.Random(f"jobenv-synthetic:{GENERATOR_VERSION}:{seed}:{index}:{attempt}")


def draw(seed: int, index: int, attempt: int) -> Draft:
    """The draft of task ``index`` at ``attempt`` (raises DegenerateTask when ill-posed)."""
    from .families import base

    pairs = combos()
    order = list(range(len(pairs)))
    random.Random(f"jobenv-synthetic-order:{GENERATOR_VERSION}:{seed}").shuffle(order)
    fam, sc = pairs[order[index % len(pairs)]]
    rng = _stream(seed, index, attempt)
    trap = rng.choice(sorted(fam.TRAPS)) if rng.random() < TRAP_SHARE else None
    return fam.build(rng, sc, trap, base.load_raw(sc.source))


_DECIMALS_RE = re.compile(r"(\d+)\s+decimal\s+places?", re.IGNORECASE)


def _decimals(x: float) -> int:
    s = f"{x:.6f}".rstrip("0").rstrip(".")
    return len(s.split(".")[1]) if "." in s else 0


def _numeric_checks(check: Any) -> Iterable[float]:
    for leaf in check_leaves(check):
        if isinstance(leaf, NumberCheck):
            yield float(leaf.value)
        elif isinstance(leaf, CellCheck) and isinstance(leaf.value, (int, float)):
            yield float(leaf.value)
        elif isinstance(leaf, FieldCheck):
            yield from ([leaf.number] if leaf.number is not None else []) + list(leaf.numbers or [])


def check_rounding_stated(instructions: str, rubrics: list[Rubric]) -> list[str]:
    """Problems where a criterion pins more decimal places than any rounding rule the instructions state."""
    stated = [int(m) for m in _DECIMALS_RE.findall(instructions)]
    most = max(stated) if stated else 0
    problems = []
    for i, r in enumerate(rubrics):
        for c in r.checks or []:
            for v in _numeric_checks(c):
                if _decimals(v) > most:
                    problems.append(f"rubric {i} pins {v} ({_decimals(v)} decimals) but the instructions state "
                                    f"rounding to at most {most} decimal places")
    return problems


_SOLVER_DIR = Path(__file__).resolve().parent / "solvers"


def solver_source(draft: Draft, task_label: str) -> str:
    """The ground-truth script: PARAMS, the shared readers and the family's solver, runnable on its own."""
    params = json.dumps(draft.params, indent=1, sort_keys=True, ensure_ascii=False)
    if "'''" in params:
        raise TaskFormatError(f"{task_label}: solver parameters contain a triple quote")
    io_src = (_SOLVER_DIR / "_io.py").read_text(encoding="utf-8")
    fam_src = (_SOLVER_DIR / f"{draft.solver}.py").read_text(encoding="utf-8")
    head = (
        "#!/usr/bin/env python3\n"
        f'"""Ground truth for {task_label} (jobenv synthetic family {draft.family}, generator {GENERATOR_VERSION}).\n\n'
        "Usage: python solve.py TASK_FOLDER OUTPUT_DIR\n"
        "Reads only TASK_FOLDER and writes the deliverables to OUTPUT_DIR. Uses the standard library and pandas.\n"
        '"""\n'
        "import json\n\n"
        f"PARAMS = json.loads(r'''{params}''')\n\n"
    )
    tail = (
        "\n\nif __name__ == \"__main__\":\n"
        "    if len(sys.argv) != 3:\n"
        "        raise SystemExit(\"usage: python solve.py TASK_FOLDER OUTPUT_DIR\")\n"
        "    main(sys.argv[1], sys.argv[2])\n"
    )
    return head + io_src + "\n\n" + fam_src + tail


def run_solver(script: Path, task_folder: Path, output_dir: Path) -> None:
    """Run a ground-truth script's main() in this process (same code the CLI form runs)."""
    name = "_jobenv_gt_" + hashlib.sha1(str(script).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, script)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(str(task_folder), str(output_dir))


def _json(obj: Any) -> str:
    def default(o: Any) -> Any:
        if hasattr(o, "item"):
            return o.item()
        raise TypeError(f"not JSON serialisable: {type(o).__name__}")

    return json.dumps(obj, indent=2, sort_keys=False, ensure_ascii=False, default=default) + "\n"


def _dir_bytes(d: Path) -> int:
    return sum(p.stat().st_size for p in d.rglob("*") if p.is_file())


def write_task(draft: Draft, task_dir: Path, *, seed: int, index: int, attempt: int,
               verify_with_judge: bool = True) -> None:
    """Write one drafted task to ``task_dir`` (which must not exist) and run + gate its ground truth.

    Raises QualityGateError when a gate fails (the caller removes the directory and redraws).
    """
    label = f"{draft.occupation}/{task_dir.name}"
    problems = check_rounding_stated(draft.instructions, draft.rubrics)
    if problems:
        raise QualityGateError("rounding: " + problems[0])
    folder = task_dir / "task_folder"
    folder.mkdir(parents=True)
    (folder / "TASK_INSTRUCTIONS.txt").write_text(draft.instructions, encoding="utf-8")
    for f in draft.files:
        f.write(folder / f.name)
    size = _dir_bytes(folder)
    if size > MAX_TASK_BYTES:
        raise QualityGateError(f"size: task folder is {size} bytes (budget {MAX_TASK_BYTES})")
    (task_dir / "RUBRICS.json").write_text(_json({"rubrics": [r.to_json() for r in draft.rubrics]}), encoding="utf-8")
    (task_dir / "task_card.md").write_text(draft.card, encoding="utf-8")
    gt = task_dir / "ground_truth"
    gt.mkdir()
    script = gt / "solve.py"
    script.write_text(solver_source(draft, label), encoding="utf-8")
    outputs = gt / "outputs"
    try:
        run_solver(script, folder, outputs)
    except Exception as exc:  # a failing ground truth is a gate failure, reported with its cause
        raise QualityGateError(f"ground truth: solve.py failed: {type(exc).__name__}: {exc}") from exc
    # The judge's own evaluator (jobenv.judge.checks), the one implementation of the check rules.
    for r, res in zip(draft.rubrics, evaluate_rubrics(draft.rubrics, outputs), strict=True):
        bad = [(c, v[1] if v else "needs the LLM judge") for c, v in zip(r.criteria, res, strict=True)
               if v is None or not v[0]]
        if bad:
            raise QualityGateError(f"ground truth fails its own check: {r.text!r}: {bad[0][0]!r} ({bad[0][1]})")
    empty = Path(tempfile.mkdtemp(prefix="jobenv-empty-"))
    try:
        passed = [r.text for r, res in zip(draft.rubrics, evaluate_rubrics(draft.rubrics, empty), strict=True)
                  if all(v is not None and v[0] for v in res)]
    finally:
        shutil.rmtree(empty, ignore_errors=True)
    if passed:
        raise QualityGateError(f"an empty output passes rubric {passed[0]!r}")
    # Grader probes: a paraphrased correct output must keep every criterion, a hedged one must lose the hedged
    # rubrics, a blind one must score at most 0.05 (jobenv.judge.probes, built from these very checks).
    work = Path(tempfile.mkdtemp(prefix="jobenv-probe-"))
    try:
        problems = probe_rubrics(draft.rubrics, outputs, work, full=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if problems:
        raise QualityGateError(f"probe: {problems[0]}")
    meta = TaskMeta(
        generator_version=GENERATOR_VERSION, seed=seed, index=index, attempt=attempt, family=draft.family,
        scenario=draft.scenario, occupation=draft.occupation, data_source=draft.source,
        licence=draft.source.get("licence", ""), trap=draft.trap,
        reference_files=[{"name": f.name, "role": f.role, "description": f.description} for f in draft.files],
        ground_truth={"script": "ground_truth/solve.py", "outputs": "ground_truth/outputs",
                      "command": "python solve.py TASK_FOLDER OUTPUT_DIR"},
        expected=json.loads(_json(draft.expected)),
    )
    (task_dir / "meta.json").write_text(_json(meta.model_dump(mode="json")), encoding="utf-8")
    if verify_with_judge:
        _judge_gate(task_dir, outputs, draft.occupation)


def _judge_gate(task_dir: Path, outputs: Path, occupation: str) -> None:
    """Grade the ground truth with the real deterministic grader (jobenv.judge's checks judge): it must score 1.0."""
    from ..judge import make_judge
    from ..tasks import load_task_dir

    task = load_task_dir(task_dir, "synthetic", occupation)
    report = make_judge("checks").grade_sync(task, outputs)
    if report.status != "ok" or report.normalized_score != 1.0:
        raise QualityGateError(f"ground truth scores {report.normalized_score} with the checks judge "
                               f"(status {report.status}, error {report.error})")


def generate(n: int, seed: int, out_dir: Path, *, stats: GenerationStats | None = None,
             verify_with_judge: bool = True) -> list[Path]:
    """Generate ``n`` tasks from ``seed`` into ``out_dir/<occupation>/taskN/``; returns the task dirs in order.

    Existing task directories with the same names are replaced. Raises JobenvError for n < 0 and
    TaskFormatError when one index cannot produce a task that passes the gates in MAX_ATTEMPTS draws.
    """
    if n < 0:
        raise JobenvError(f"generate: n must be >= 0, got {n}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stats = stats if stats is not None else GenerationStats()
    counters: dict[str, int] = {}
    made: list[Path] = []
    for index in range(n):
        last = ""
        for attempt in range(MAX_ATTEMPTS):
            try:
                draft = draw(seed, index, attempt)
            except DegenerateTask as exc:
                stats.reject("degenerate", str(exc))
                last = str(exc)
                continue
            number = counters.get(draft.occupation, 0) + 1
            final = out_dir / draft.occupation / f"task{number}"
            # Built under a hidden staging tree (named taskN, as the loader requires) and moved into place.
            staging = out_dir / ".staging" / draft.occupation / f"task{number}"
            shutil.rmtree(staging, ignore_errors=True)
            staging.parent.mkdir(parents=True, exist_ok=True)
            final.parent.mkdir(parents=True, exist_ok=True)
            try:
                write_task(draft, staging, seed=seed, index=index, attempt=attempt,
                           verify_with_judge=verify_with_judge)
            except QualityGateError as exc:
                shutil.rmtree(staging, ignore_errors=True)
                gate = str(exc).split(":", 1)[0]
                stats.reject(gate, str(exc))
                last = str(exc)
                continue
            except BaseException:
                shutil.rmtree(out_dir / ".staging", ignore_errors=True)
                raise
            # The ground truth ran in the staging directory; nothing in the files refers to that path.
            if final.exists():
                shutil.rmtree(final)
            os.replace(staging, final)
            counters[draft.occupation] = number
            made.append(final)
            stats.accepted += 1
            break
        else:
            shutil.rmtree(out_dir / ".staging", ignore_errors=True)
            raise TaskFormatError(f"generate: task index {index} (seed {seed}) failed every quality gate in "
                                  f"{MAX_ATTEMPTS} attempts; last: {last}")
    shutil.rmtree(out_dir / ".staging", ignore_errors=True)
    return made


def ensure_default_split(dest: Path, n: int = DEFAULT_SPLIT_SIZE, seed: int = 0) -> Path:
    """Generate ``n`` tasks from ``seed`` into ``dest`` once; later calls return ``dest`` at once.

    Cached by a marker file recording the generator version, seed and n: a marker that disagrees (or a
    half-written directory without one) causes regeneration. Concurrent callers serialise on a lock
    file next to ``dest``; the split is built in a temporary sibling and moved into place, so a reader
    never sees a partial split. Raises like :func:`generate`.
    """
    dest = Path(dest)
    want = {"generator_version": GENERATOR_VERSION, "seed": int(seed), "n": int(n)}

    def current() -> bool:
        try:
            got = json.loads((dest / SPLIT_MARKER).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return all(got.get(k) == v for k, v in want.items())

    if current():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    lock_path = dest.parent / f".{dest.name}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if current():
            return dest
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
        try:
            tasks = generate(n, seed, tmp)
            marker = dict(want, tasks=[p.relative_to(tmp).as_posix() for p in tasks])
            (tmp / SPLIT_MARKER).write_text(_json(marker), encoding="utf-8")
            if dest.exists():
                shutil.rmtree(dest)
            os.replace(tmp, dest)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return dest
