"""Bank cases for generated tasks: one gated task of each bank workflow, its ground truth rewritten, its traps
taken, hedged and blind.

Per workflow, one checks-only task carries the correct, hedged and blind variants and up to three trap variants: the
deliverables of a professional fooled by one of the task's traps (the workflow's solver with that trap's shortcut
taken). Each trap's rubrics, as the gate recorded them when the task was drawn, must earn nothing. The bank
workflows span the deliverables the casebook asks for: csv, Markdown, Word, workbooks of live formulas, slides.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jobenv.judge.probes import HEDGES, SECOND_ANSWERS, STYLES, blind, guess, hedge, paraphrase
from jobenv.synthetic.workflows import WORKFLOWS
from jobenv.synthetic.workflows.write import solver_module
from jobenv.tasks import load_task_dir

from . import Case, Variant

__all__ = ["synthetic_cases", "BANK_WORKFLOWS"]

# csv + md, csv + docx, md + csv, xlsx + csv, docx + xlsx, pptx + xlsx
BANK_WORKFLOWS = ("three_way_match", "rtt_breach_list", "release_notes", "bank_reconciliation",
                  "stop_disparity_check", "dfw_rates")


def _task(key: str, root: Path) -> Any:
    """The first gated checks-only draw of workflow ``key`` (decision yes, premise no) from the bank's streams."""
    import random

    from jobenv.errors import QualityGateError
    from jobenv.synthetic.common import DegenerateTask
    from jobenv.synthetic.workflows.write import write_workflow_task

    wf = next(w for w in WORKFLOWS if w.key == key)
    occupation = wf.professions[0]
    for attempt in range(30):
        task_dir = root / f"{key}-{attempt}" / occupation / "task1"
        try:
            draft = wf.draw(random.Random(f"bank:{key}:{attempt}"), occupation, {"decision": True, "premise": False})
            write_workflow_task(wf, draft, task_dir, occupation=occupation, seed=0, index=0, attempt=attempt,
                                judgement=False)
        except (DegenerateTask, QualityGateError):
            continue
        return load_task_dir(task_dir, "synthetic", occupation)
    raise AssertionError(f"no gated task of {key} in 30 draws")


def _fall_for(task: Any, trap: dict[str, Any], dst: Path) -> tuple[Path, list[int]]:
    """The deliverables of a professional fooled by ``trap`` and the indices of the rubrics it must lose."""
    wf = next(w for w in WORKFLOWS if w.key == task.meta["workflow"]["key"])
    solver = solver_module(wf)
    params = json.loads((task.root / "ground_truth" / "params.json").read_text(encoding="utf-8"))
    solver.write_outputs(str(dst), params, solver.analyse(str(task.task_folder), params, (trap["naive"],)))
    return dst, [i for i, r in enumerate(task.rubrics) if r.text in trap["loses"]]


def synthetic_cases(root: Path) -> list[Case]:
    """One case per bank workflow: 6 correct, 2-3 trap, 14 hedged and 4 blind variants written under ``root``."""
    cases = []
    for key in BANK_WORKFLOWS:
        task = _task(key, root / "tasks")
        gt = task.root / "ground_truth" / "outputs"
        out = root / key
        variants = [Variant(f"correct-{s}", "correct", paraphrase(gt, out / f"correct-{s}", task.rubrics, s))
                    for s in STYLES]
        for trap in task.meta["traps"][:3]:
            fell, idx = _fall_for(task, trap, out / f"trap-{trap['kind']}")
            variants.append(Variant(f"trap-{trap['kind']}", "trap", fell, idx))
        for how in ("fields", "copies", *HEDGES, *SECOND_ANSWERS):
            o, must_fail = hedge(gt, out / f"hedged-{how}", task.rubrics, how)
            variants.append(Variant(f"hedged-{how}", "hedged", o, must_fail))
        for how in ("template", "spray"):
            variants.append(Variant(f"blind-{how}", "blind", blind(out / f"blind-{how}", task.rubrics, how)))
        for choice in (0, -1):  # a guess with the first allowed answers, then with the last (the negative decision)
            variants.append(Variant(f"blind-guess{choice}", "blind", guess(
                gt, out / f"blind-guess{choice}", task.rubrics, instructions=task.instructions, choice=choice)))
        cases.append(Case(key, task, variants))
    return cases
