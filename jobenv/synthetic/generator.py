"""The generator's per-task half: writing one planned task and gating it, and the split cache.

``write_task`` writes a scenario's plan to a task directory in the JobTasks layout and runs the gates; which
task each index draws, the budgets, resuming, the process pool and the cached default split live in
``runner.py``.

Quality gates (a draw failing one is dropped and redrawn from the next attempt's stream):
- ``degenerate``: ties at a threshold, values on a rounding boundary, a trap that changes nothing, a graded
  "top" less than two units of the last graded place ahead of the next;
- ``planting``: the ground truth computed from the files disagrees with the one computed from the
  clean records (a trap planted wrongly);
- ``ground truth``: a fact-anchored criterion fails on the ground-truth outputs, graded with the judge's
  own check evaluator (:func:`jobenv.judge.checks.evaluate_check`);
- ``empty``: an empty output passes a rubric;
- ``naive``: the naive answer to a planted trap still earns that trap's rubric;
- ``naive pipeline``: the obvious procedure with every shortcut at once scores above ``MAX_NAIVE_SCORE`` (0.5);
- ``probe``: the judge's grader probes (:func:`jobenv.judge.probes.probe_rubrics`) find a paraphrase of the
  ground truth that loses a criterion, a hedge that keeps a rubric, or a blind answer above 0.05;
- ``audit``: :func:`jobenv.synthetic.audit.audit_task` finds a defect (a tolerance under one unit, a precision
  or rounding rule unstated, a phantom row, a near-tie at a graded top);
- ``duplicate``: the graded facts equal another task's in the split, or its graded values (labels and wording
  aside) overlap another's by ``MAX_VALUE_OVERLAP`` or more;
- ``size``: the task folder exceeds the size budget.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..errors import QualityGateError
from ..judge.probes import probe_rubrics
from .common import GENERATOR_VERSION, DegenerateTask, Plan
from .gates import (
    MAX_NAIVE_SCORE,
    MAX_TASK_BYTES,
    TaskMeta,
    dir_bytes,
    facts_hash,
    grade_checks,
    passes,
    solver_script,
    to_json,
    weighted_score,
)

__all__ = ["GENERATOR_VERSION", "MAX_TASK_BYTES", "MAX_NAIVE_SCORE", "NAIVE_PIPELINE",
           "TaskMeta", "weighted_score", "graded_values", "value_overlap", "MAX_VALUE_OVERLAP",
           "QualityGateError", "write_task", "grade_checks", "write_naive_pipeline"]


NAIVE_PIPELINE = ("duplicates", "file", "units", "scope", "premise")  # every shortcut of rubrics.NAIVE_FLAG
_ENGINE = Path(__file__).resolve().parent / "solvers" / "engine.py"


def solver_source(plan: Plan, label: str) -> str:
    """The ground-truth script: PARAMS and the engine, runnable on its own (standard library + pandas)."""
    return solver_script(plan.params, f"{label} (jobenv synthetic family {plan.family}, generator {GENERATOR_VERSION})",
                         _ENGINE)


def run_solver(script: Path, task_folder: Path, output_dir: Path) -> dict[str, Any]:
    """Run a ground-truth script's main() in this process (the same code its command line runs)."""
    name = "_jobenv_gt_" + hashlib.sha1(str(script).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, script)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.main(str(task_folder), str(output_dir))


def graded_values(task_dir: Path) -> frozenset[str]:
    """What a task's checks grade, without their labels or wording: each (key, value) of a table cell and each
    value of a memo field, numbers at six significant digits, text lower-cased."""
    from ..check_models import CellCheck, FieldCheck, check_leaves, parse_check

    def norm(v: Any) -> str:
        return f"{float(v):.6g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v).strip().lower()

    out: set[str] = set()
    data = json.loads((Path(task_dir) / "RUBRICS.json").read_text(encoding="utf-8"))
    for r in data["rubrics"]:
        for raw in r.get("jobenv_checks") or []:
            for leaf in check_leaves(parse_check(raw)):
                if isinstance(leaf, CellCheck):
                    out.add("|".join(norm(v) for v in leaf.match.values()) + "=" + norm(leaf.value))
                elif isinstance(leaf, FieldCheck):
                    v = next((x for x in (leaf.number, leaf.equals, leaf.items) if x is not None), None)
                    if v is not None:
                        out.add(norm(v) if not isinstance(v, list) else ";".join(sorted(map(norm, v))))
    return frozenset(out)


def value_overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """The share of the smaller set of graded values that the other also grades (1.0: one task's facts are all
    another's)."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


MAX_VALUE_OVERLAP = 0.9  # a task whose graded values overlap another's this much is a duplicate, whatever its labels


def write_task(plan: Plan, task_dir: Path, *, seed: int, index: int, attempt: int, role: str,
               judgement: bool = True, max_naive: float | None = MAX_NAIVE_SCORE) -> tuple[dict[str, Any], str]:
    """Write one planned task to ``task_dir`` (which must not exist), build its rubrics and run the gates.

    ``max_naive``: the naive pipeline's highest score accepted (None: not gated, for a plan built to isolate
    one trap, whose other facts a shortcut cannot move).

    Returns (expected facts, facts hash). Raises QualityGateError or DegenerateTask when a gate fails.
    """
    from .rubrics import NAIVE_FLAG, build_rubrics
    from .solvers import engine

    label = f"{plan.occupation}, index {index}"
    folder = task_dir / "task_folder"
    folder.mkdir(parents=True)
    (folder / "TASK_INSTRUCTIONS.txt").write_text(plan.instructions, encoding="utf-8")
    for f in plan.files:
        f.write(folder / f.name)
    size = dir_bytes(folder)
    if size > MAX_TASK_BYTES:
        raise QualityGateError(f"size: task folder is {size} bytes (budget {MAX_TASK_BYTES})")
    engine._TABLES.clear()
    params = json.loads(json.dumps(plan.params, default=lambda o: o.item()))  # exactly what solve.py will hold
    facts, rows = engine.analyse(str(folder), params)
    gap = facts.get("top_gap")
    if gap is not None and gap < 2:  # "the top" must not hinge on a unit of rounding
        raise DegenerateTask(f"the top two are {gap:g} units apart at the graded precision")
    for k in ("flagged", "decision", "top"):
        if k in plan.truth and plan.truth[k] != facts[k]:
            raise QualityGateError(f"planting: {k} from the files is {facts[k]!r}, from the clean records {plan.truth[k]!r}")
    naive: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for t in plan.traps:
        naive[t["kind"]] = engine.analyse(str(folder), params, naive=(NAIVE_FLAG[t["kind"]],))
    engine._TABLES.clear()
    rubrics, trap_rubrics = build_rubrics(plan, facts, rows, naive, role, judgement=judgement)
    gt = task_dir / "ground_truth"
    gt.mkdir()
    script = gt / "solve.py"
    script.write_text(solver_source(plan, label), encoding="utf-8")
    (gt / "params.json").write_text(json.dumps(params, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                                    encoding="utf-8")
    outputs = gt / "outputs"
    # solve.py is this engine with these PARAMS; writing its outputs here saves re-reading the files (the
    # tests re-run solve.py as a script and compare the bytes)
    engine.write_outputs(str(outputs), params, facts, rows)
    for r, res in zip(rubrics, grade_checks(rubrics, outputs, plan.instructions), strict=True):
        bad = [c for c, ok in zip(r.criteria, res, strict=True) if ok is False]
        if bad:
            raise QualityGateError(f"ground truth fails its own check: {r.text!r}: {bad[0]!r}")
    scratch = Path(tempfile.mkdtemp(prefix="jobenv-gates-"))
    try:
        empty = scratch / "empty"
        empty.mkdir()
        passed = [r.text for r, res in zip(rubrics, grade_checks(rubrics, empty, plan.instructions), strict=True) if passes(res)]
        if passed:
            raise QualityGateError(f"empty: an empty output passes rubric {passed[0]!r}")
        for kind, i in trap_rubrics.items():
            nout = scratch / kind
            nf, nr = naive[kind]
            engine.write_outputs(str(nout), params, nf, nr)
            if passes(grade_checks(rubrics, nout, plan.instructions)[i]):
                raise QualityGateError(f"naive: the naive answer to {kind} still earns {rubrics[i].text!r}")
        # the naive pipeline: the obvious procedure with every shortcut at once (no de-duplication, the first
        # file, no unit conversion, no scope rule, the premise taken on trust) must not pass the task
        naive_dir = scratch / "naive-pipeline"
        nf, nr = engine.analyse(str(folder), params, naive=NAIVE_PIPELINE)
        engine._TABLES.clear()
        engine.write_outputs(str(naive_dir), params, nf, nr)
        naive_score = weighted_score(rubrics, grade_checks(rubrics, naive_dir, plan.instructions))
        if max_naive is not None and naive_score > max_naive:
            raise QualityGateError(f"naive pipeline: the obvious procedure scores {naive_score:.2f} "
                                   f"(at most {max_naive})")
        # recorded as the checks judge rewards it (it also reads the inputs); the gate's measure, without them,
        # is the higher and keeps the draws as they were
        naive_score = weighted_score(rubrics, grade_checks(rubrics, naive_dir, plan.instructions, inputs=folder))
        # the judge's grader probes: a paraphrased ground truth keeps every criterion, a hedged one loses the
        # hedged rubrics (a second line or in-place hedges), a blind spray or guess earns at most 0.05
        problems = probe_rubrics(rubrics, outputs, scratch / "probes", full=False, instructions=plan.instructions)
        if problems:
            raise QualityGateError(f"probe: {problems[0]}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    (task_dir / "RUBRICS.json").write_text(to_json({"rubrics": [r.to_json() for r in rubrics]}), encoding="utf-8")
    traps = [dict(t, rubric=trap_rubrics.get(t["kind"])) for t in plan.traps]
    expected = {k: v for k, v in facts.items() if k not in ("exception_rows",)}
    fh = facts_hash(rubrics)
    meta = TaskMeta(
        generator_version=GENERATOR_VERSION, seed=seed, index=index, attempt=attempt, family=plan.family,
        scenario=plan.scenario, occupation=plan.occupation, data_source=plan.source, licence=plan.source["licence"],
        traps=traps, answers={"premise_holds": bool(facts["premise"]), "decision": bool(facts["decision"]),
                              **{k: v for k, v in plan.meta.items() if k not in ("premise_holds", "decision")},
                              "targets": {"premise_holds": plan.meta["premise_holds"], "decision": plan.meta["decision"]}},
        reference_files=[{"name": f.name, "role": f.role, "description": f.description} for f in plan.files],
        ground_truth={"script": "ground_truth/solve.py", "outputs": "ground_truth/outputs", "params": "ground_truth/params.json",
                      "command": "python solve.py TASK_FOLDER OUTPUT_DIR"},
        expected=json.loads(to_json(expected)), facts_hash=fh, naive_score=naive_score,
        deliverables={"table": params["deliverables"]["table"]["file"], "memo": params["deliverables"]["memo"]["file"],
                      "exceptions": (params["deliverables"].get("exceptions") or {}).get("file"),
                      "decision_words": params["deliverables"]["memo"]["decision"]})
    (task_dir / "meta.json").write_text(to_json(meta.model_dump(mode="json")), encoding="utf-8")
    (task_dir / "task_card.md").write_text(_card(plan, facts, traps), encoding="utf-8")
    from .audit import audit_task

    problems = audit_task(task_dir, regrade=False)
    if problems:
        raise QualityGateError(f"audit: {problems[0]}")
    return expected, fh


def write_naive_pipeline(task_dir: Path, out: Path) -> None:
    """The naive pipeline's deliverables for a written task (a scenario's engine or a workflow's solver with every
    shortcut at once), from its ``task_folder/`` and ``ground_truth/params.json``: what the gate scored as
    meta.json's ``naive_score``. Raises OSError or KeyError for a task that is not a generated one."""
    from .solvers import engine
    from .workflows import WORKFLOWS
    from .workflows.write import solver_module

    task_dir = Path(task_dir)
    meta = json.loads((task_dir / "meta.json").read_text(encoding="utf-8"))
    params = json.loads((task_dir / "ground_truth" / "params.json").read_text(encoding="utf-8"))
    folder = str(task_dir / "task_folder")
    if meta.get("workflow"):
        wf = next(w for w in WORKFLOWS if w.key == meta["workflow"]["key"])
        solver = solver_module(wf)
        solver.write_outputs(str(out), params, solver.analyse(folder, params, wf.shortcuts))
        return
    engine._TABLES.clear()
    facts, rows = engine.analyse(folder, params, naive=NAIVE_PIPELINE)
    engine._TABLES.clear()
    engine.write_outputs(str(out), params, facts, rows)


def _card(plan: Plan, facts: dict[str, Any], traps: list[dict[str, Any]]) -> str:
    lines = [f"# {plan.subject}", "", f"- Occupation: {plan.occupation}", f"- Family: {plan.family} ({plan.scenario})",
             f"- Data: {plan.source['package']}/{plan.source['dataset']} ({plan.source['provider']}, {plan.source['licence']})",
             "- Traps: " + (", ".join(t["kind"] for t in traps) or "none"), "", "## Expected answers", "",
             f"- Decision: {'positive' if facts['decision'] else 'negative'}; premise holds: {'yes' if facts['premise'] else 'no'}",
             f"- Flagged: {', '.join(facts['flagged']) or 'none'}; top: {facts['top']}",
             f"- Records analysed: {facts['records']} (of {facts['raw_rows']} rows in {facts['source_file']})"]
    return "\n".join(lines) + "\n"
