"""What the generator knows about a written task: its graded values (for the duplicate gate) and its naive
pipeline, and the quality gates every task passes.

``workflows/write.py`` writes a workflow's draft to a task directory in the JobTasks layout and runs the gates;
which task each index draws, the budgets, resuming, the process pool and the cached default split live in
``runner.py``.

Quality gates (a draw failing one is dropped and redrawn from the next attempt's stream):
- ``degenerate``: a draw the workflow finds ill-posed (ties at a threshold, values on a rounding boundary, a trap
  that changes nothing, a graded "top" less than two units of the last graded place ahead of the next);
- ``planting``: the decision or premise the solver reads from the files is not the one the draw targeted;
- ``audit`` (recheck): the workflow's independent computation disagrees with the solver on a graded fact;
- ``ground truth``: a fact-anchored criterion fails on the ground-truth outputs, graded with the judge's
  own check evaluator (:func:`jobenv.judge.checks.evaluate_check`);
- ``empty``: an empty output passes a rubric;
- ``naive``: a trap's shortcut loses no rubric;
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

import json
from pathlib import Path
from typing import Any

__all__ = ["graded_values", "value_overlap", "MAX_VALUE_OVERLAP", "write_naive_pipeline"]


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


def write_naive_pipeline(task_dir: Path, out: Path) -> None:
    """The naive pipeline's deliverables for a written task (its workflow's solver with every shortcut at once), from its ``task_folder/`` and ``ground_truth/params.json``: what the gate scored as
    meta.json's ``naive_score``. Raises OSError or KeyError for a task that is not a generated one."""
    from .workflows import WORKFLOWS
    from .workflows.write import solver_module

    task_dir = Path(task_dir)
    meta = json.loads((task_dir / "meta.json").read_text(encoding="utf-8"))
    params = json.loads((task_dir / "ground_truth" / "params.json").read_text(encoding="utf-8"))
    folder = str(task_dir / "task_folder")
    wf = next(w for w in WORKFLOWS if w.key == meta["workflow"]["key"])
    solver = solver_module(wf)
    solver.write_outputs(str(out), params, solver.analyse(folder, params, wf.shortcuts))
