"""Writing one drawn workflow task and running the gates on it.

The order: the files, the truth from the workflow's solver, the targets, the independent recheck (its rubrics
must equal the solver's), the ground-truth outputs, then the output gates shared with the scenario tasks
(ground truth passes, empty fails, each trap's shortcut loses credit, the naive pipeline scores at most
``MAX_NAIVE_SCORE``, the judge's probes), and last the audit of the written task.

Failure behaviour: a failed gate raises QualityGateError (``"<gate>: reason"``) or DegenerateTask; the caller
discards ``task_dir``.
"""

from __future__ import annotations

import importlib
import json
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from ...errors import QualityGateError
from ...judge.checks import recalculate_ahead
from ...judge.probes import probe_rubrics
from ...tasks import Rubric
from ..common import GENERATOR_VERSION
from ..gates import (
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
from .base import GENERATED_LICENCE, Draft, Facts, Workflow, write_files

__all__ = ["write_workflow_task", "solver_module", "rubric_json", "recheck_task"]


def solver_module(wf: Workflow) -> ModuleType:
    return importlib.import_module(f"{__package__.rsplit('.', 1)[0]}.solvers.{wf.solver}")


def rubric_json(rubrics: list[Rubric]) -> list[dict[str, Any]]:
    return json.loads(to_json([r.to_json() for r in rubrics]))


def write_workflow_task(wf: Workflow, draft: Draft, task_dir: Path, *, occupation: str, seed: int, index: int,
                        attempt: int, judgement: bool = True,
                        max_naive: float | None = MAX_NAIVE_SCORE) -> tuple[Facts, str]:
    """Write ``draft`` to ``task_dir`` (which must not exist) and gate it; returns (expected facts, facts hash)."""
    solver = solver_module(wf)
    folder = task_dir / "task_folder"
    folder.mkdir(parents=True)
    (folder / "TASK_INSTRUCTIONS.txt").write_text(draft.instructions, encoding="utf-8")
    write_files(folder, dict(sorted(draft.files.items())))
    size = dir_bytes(folder)
    if size > MAX_TASK_BYTES:
        raise QualityGateError(f"size: task folder is {size} bytes (budget {MAX_TASK_BYTES})")
    params = json.loads(json.dumps(draft.params))  # exactly what solve.py will hold
    facts = solver.analyse(str(folder), params)
    for k, want in draft.targets.items():
        if bool(facts[k]) != want:
            raise QualityGateError(f"planting: {k} from the files is {facts[k]!r}, the draw targeted {want!r}")
    rubrics = wf.rubrics(facts, params, judgement)
    again = wf.rubrics(wf.recheck(folder, params), params, judgement)
    if rubric_json(rubrics) != rubric_json(again):
        raise QualityGateError("audit: the independent recheck disagrees with the solver on a graded fact")
    gt = task_dir / "ground_truth"
    outputs = gt / "outputs"
    solver.write_outputs(str(outputs), params, facts)
    text = draft.instructions
    scratch = Path(tempfile.mkdtemp(prefix="jobenv-wf-gates-"))
    traps = []
    try:
        # every answer the gates grade is written first, so their workbooks recalculate in one engine run
        for t in draft.traps:
            solver.write_outputs(str(scratch / f"naive-{t['naive']}"), params,
                                 solver.analyse(str(folder), params, (t["naive"],)))
        out = scratch / "naive-pipeline"
        solver.write_outputs(str(out), params, solver.analyse(str(folder), params, wf.shortcuts))
        recalculate_ahead(outputs, scratch)
        for r, res in zip(rubrics, grade_checks(rubrics, outputs, text), strict=True):
            bad = [c for c, ok in zip(r.criteria, res, strict=True) if ok is False]
            if bad:
                raise QualityGateError(f"ground truth fails its own check: {r.text!r}: {bad[0]!r}")
        empty = scratch / "empty"
        empty.mkdir()
        passed = [r.text for r, res in zip(rubrics, grade_checks(rubrics, empty, text), strict=True) if passes(res)]
        if passed:
            raise QualityGateError(f"empty: an empty output passes rubric {passed[0]!r}")
        for t in draft.traps:
            verdicts = grade_checks(rubrics, scratch / f"naive-{t['naive']}", text)
            lost = [r.text for r, row in zip(rubrics, verdicts, strict=True) if not all(v is not False for v in row)]
            if not lost:
                raise QualityGateError(f"naive: the shortcut {t['naive']!r} loses no rubric")
            traps.append(dict(t, loses=lost))
        naive_score = weighted_score(rubrics, grade_checks(rubrics, out, text))
        if max_naive is not None and naive_score > max_naive:
            raise QualityGateError(f"naive pipeline: the obvious procedure scores {naive_score:.2f} (at most {max_naive})")
        # recorded as the checks judge rewards it (it also reads the inputs; see the generator)
        naive_score = weighted_score(rubrics, grade_checks(rubrics, out, text, inputs=folder))
        problems = probe_rubrics(rubrics, outputs, scratch / "probes", full=False, instructions=text)
        if problems:
            raise QualityGateError(f"probe: {problems[0]}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    title = f"{occupation}, index {index} (jobenv workflow {wf.key}, generator {GENERATOR_VERSION})"
    source = Path(solver.__file__ or "")
    shared = [source.with_name(h) for h in wf.helpers]
    script = solver_script(params, title, source.with_name("_deliver.py"), *shared, source, source.with_name("_main.py"))
    (gt / "solve.py").write_text(script, encoding="utf-8")
    (gt / "params.json").write_text(json.dumps(params, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                                    encoding="utf-8")
    (task_dir / "RUBRICS.json").write_text(to_json({"rubrics": [r.to_json() for r in rubrics]}), encoding="utf-8")
    fh = facts_hash(rubrics)
    expected = json.loads(to_json(facts))
    meta = TaskMeta(
        generator_version=GENERATOR_VERSION, seed=seed, index=index, attempt=attempt, family=wf.family,
        scenario=wf.key, occupation=occupation, licence=GENERATED_LICENCE,
        data_source={"package": "jobenv", "dataset": wf.key, "provider": "generated from stated distributions",
                     "licence": GENERATED_LICENCE, "generated": True, "distributions": draft.distributions,
                     "real_data": wf.data},
        traps=traps,
        answers={"premise_holds": bool(facts["premise"]), "decision": bool(facts["decision"]),
                 "targets": {"premise_holds": draft.targets.get("premise"), "decision": draft.targets.get("decision")}},
        reference_files=[{"name": rel, "role": draft.roles.get(rel, "data"), "description": ""}
                         for rel in sorted(draft.files)],
        ground_truth={"script": "ground_truth/solve.py", "outputs": "ground_truth/outputs",
                      "params": "ground_truth/params.json", "command": "python solve.py TASK_FOLDER OUTPUT_DIR"},
        expected=expected, facts_hash=fh, naive_score=naive_score,
        deliverables=dict(params["deliverables"]),
        workflow={"key": wf.key, "method": wf.method, "solver": wf.solver, "professions": list(wf.professions)})
    (task_dir / "meta.json").write_text(to_json(meta.model_dump(mode="json")), encoding="utf-8")
    (task_dir / "task_card.md").write_text(_card(wf, draft, occupation, facts, traps), encoding="utf-8")
    from ..audit import audit_task

    problems = audit_task(task_dir, regrade=False)
    if problems:
        raise QualityGateError(f"audit: {problems[0]}")
    return expected, fh


def _card(wf: Workflow, draft: Draft, occupation: str, facts: Facts, traps: list[dict[str, Any]]) -> str:
    lines = [f"# {draft.subject}", "", f"- Occupation: {occupation}", f"- Workflow: {wf.key} ({wf.method}; family {wf.family})",
             f"- Data: generated ({draft.distributions}); {GENERATED_LICENCE}",
             f"- Files: {len(draft.files) + 1} in task_folder/",
             "- Traps: " + "; ".join(f"{t['kind']} ({t['where']}): {t['description']}" for t in traps), "",
             "## Expected answers", "",
             f"- Decision: {'yes' if facts['decision'] else 'no'}; premise holds: {'yes' if facts['premise'] else 'no'}"]
    return "\n".join(lines) + "\n"


def recheck_task(task_dir: Path) -> list[str]:
    """A written workflow task's graded facts re-derived by the workflow's independent computation from
    ``task_folder/`` and ``ground_truth/params.json`` and compared with RUBRICS.json; the problems as one-line
    strings (empty for a scenario task or a sound one; an unreadable task is one problem, never an exception)."""
    from . import WORKFLOWS

    task_dir = Path(task_dir)
    try:
        meta = json.loads((task_dir / "meta.json").read_text(encoding="utf-8"))
        if not meta.get("workflow"):
            return []
        wf = next(w for w in WORKFLOWS if w.key == meta["workflow"]["key"])
        params = json.loads((task_dir / "ground_truth" / "params.json").read_text(encoding="utf-8"))
        written = json.loads((task_dir / "RUBRICS.json").read_text(encoding="utf-8"))["rubrics"]
        facts = wf.recheck(task_dir / "task_folder", params)
    except (OSError, ValueError, KeyError, StopIteration) as exc:
        return [f"recheck: unreadable task ({type(exc).__name__}: {exc})"]
    judgement = any(c.get("kind") == "llm" for r in written for c in r.get("jobenv_checks") or [])
    again = rubric_json(wf.rubrics(facts, params, judgement))
    return [] if again == json.loads(to_json(written)) else ["recheck: the independent computation disagrees with "
                                                            "RUBRICS.json on a graded fact"]
