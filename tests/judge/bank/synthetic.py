"""Bank cases for the synthetic families: ground truths rewritten, trap answers taken, hedges, blinds.

Per family, one checks-only task (first scenario, no trap) carries the correct, hedged and blind variants;
three more tasks of the family, each drawn with one trap (duplicates, stale_file, false_premise), carry one
trap variant each: the deliverables of an analyst fooled by that trap (the ground truth with the trap's
shortcut taken: repeated rows kept, the superseded extract used, the false premise accepted). The trap's
rubric must earn nothing.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from jobenv.judge.probes import HEDGES, SECOND_ANSWERS, blind, guess, hedge, paraphrase
from jobenv.synthetic.build import plan_task
from jobenv.synthetic.common import DegenerateTask
from jobenv.synthetic.generator import QualityGateError, write_task
from jobenv.synthetic.rubrics import NAIVE_FLAG
from jobenv.synthetic.scenarios import FAMILIES, SCENARIOS
from jobenv.synthetic.solvers import engine
from jobenv.tasks import load_task_dir

from . import Case, Variant

__all__ = ["synthetic_cases", "set_field"]

CORRECT_STYLES = ("bold", "table", "formats", "prose", "sheets", "formulas")
TRAP_KINDS = ("duplicates", "stale_file", "false_premise")


def _task(family: str, trap: str | None, root: Path) -> Any:
    """A checks-only task of ``family`` (its first scenario) with exactly ``trap`` planted (or none)."""
    sc = next(s for s in SCENARIOS if s.family == family)
    for attempt in range(80):
        task_dir = root / f"{family}-{trap or 'none'}-{attempt}" / sc.professions[0] / "task1"
        try:
            plan = plan_task(random.Random(f"bank:{sc.key}:{trap}:{attempt}"), sc, sc.professions[0],
                             decision=bool(attempt % 2), premise=trap != "false_premise", extra_traps=0,
                             traps=[] if trap in (None, "false_premise") else [trap])
            write_task(plan, task_dir, seed=0, index=0, attempt=attempt, role="Director", judgement=False,
                       max_naive=None)  # built to isolate one trap: the naive pipeline gate does not apply
        except (DegenerateTask, QualityGateError):
            continue
        return load_task_dir(task_dir, "synthetic", sc.professions[0])
    raise AssertionError(f"no task for {sc.key}/{trap}")


def set_field(path: Path, label: str, value: str) -> None:
    """Give ``label`` the value ``value`` in a memo (Markdown/text lines or Word paragraphs)."""
    pat = re.compile(rf"^(\W*{re.escape(label)}\W*:\s*).*$", re.IGNORECASE)
    if path.suffix.lower() == ".docx":
        import docx

        d = docx.Document(str(path))
        for p in d.paragraphs:
            if pat.match(p.text):
                for run in p.runs[1:]:
                    run.text = ""
                p.runs[0].text = pat.sub(lambda m: m.group(1) + value, p.text)
        d.save(str(path))
        return
    lines = [pat.sub(lambda m: m.group(1) + value, ln) for ln in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _fall_for(task: Any, dst: Path) -> tuple[Path, list[int]]:
    """The deliverables of an analyst fooled by the task's trap (the ground truth with the trap's shortcut
    taken) and the index of the trap's rubric."""
    import json

    trap = next(t for t in task.meta["traps"])
    params = json.loads((task.root / "ground_truth" / "params.json").read_text(encoding="utf-8"))
    facts, rows = engine.analyse(str(task.task_folder), params, naive=(NAIVE_FLAG[trap["kind"]],))
    engine.write_outputs(str(dst), params, facts, rows)
    return dst, [trap["rubric"]]


def synthetic_cases(root: Path) -> list[Case]:
    """One case per family: 5 correct, 3 trap, 2 hedged, 2 blind variants written under ``root``."""
    cases = []
    for fam in FAMILIES:
        task = _task(fam, None, root / "tasks")
        gt = task.root / "ground_truth" / "outputs"
        out = root / fam
        variants = [Variant(f"correct-{s}", "correct", paraphrase(gt, out / f"correct-{s}", task.rubrics, s))
                    for s in CORRECT_STYLES]
        for kind in TRAP_KINDS:
            t = _task(fam, kind, root / "tasks")
            fell, idx = _fall_for(t, out / f"trap-{kind}")
            variants.append(Variant(f"trap-{kind}", "trap", fell, idx, task=t))
        for how in ("fields", "copies", *HEDGES, *SECOND_ANSWERS):
            o, must_fail = hedge(gt, out / f"hedged-{how}", task.rubrics, how)
            variants.append(Variant(f"hedged-{how}", "hedged", o, must_fail))
        for how in ("template", "spray"):
            variants.append(Variant(f"blind-{how}", "blind", blind(out / f"blind-{how}", task.rubrics, how)))
        for choice in (0, -1):  # a guess with the first allowed answers, then with the last (the negative decision)
            variants.append(Variant(f"blind-guess{choice}", "blind", guess(
                gt, out / f"blind-guess{choice}", task.rubrics, instructions=task.instructions, choice=choice)))
        cases.append(Case(fam, task, variants))
    return cases
