"""Bank cases for the synthetic families: ground truths rewritten, trap answers taken, hedges, blinds.

Per family, one task (first scenario, no trap) carries the correct, hedged and blind variants; three more
tasks of the family, each drawn with one trap (duplicates, stale_file, false_premise), carry one trap
variant each: the ground truth with the answer an analyst fooled by that trap would give (no duplicates
dropped, the stale extract cited, the false premise confirmed). The trap's rubric must earn nothing.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from jobenv.judge.probes import blind, field_checks, hedge, paraphrase
from jobenv.synthetic.common import DegenerateTask
from jobenv.synthetic.families import FAMILIES, base
from jobenv.synthetic.generator import write_task
from jobenv.tasks import load_task_dir

from . import Case, Variant

__all__ = ["synthetic_cases", "TRAP_RUBRIC", "set_field"]

CORRECT_STYLES = ("bold", "table", "formats", "prose", "sheets", "formulas")
TRAP_KINDS = ("duplicates", "stale_file", "false_premise")
# which rubric a trap is about: the one grading the labelled fact the fooled answer gets wrong
TRAP_RUBRIC = {"duplicates": "Duplicates removed", "stale_file": "Source file", "false_premise": "Premise confirmed"}


def _task(fam: Any, trap: str | None, root: Path) -> Any:
    sc = fam.SCENARIOS[0]
    for attempt in range(80):
        try:
            d = fam.build(random.Random(f"bank:{sc.key}:{trap}:{attempt}"), sc, trap, base.load_raw(sc.source))
        except DegenerateTask:
            continue
        task_dir = root / f"{fam.FAMILY}-{trap or 'none'}" / sc.occupation / "task1"
        write_task(d, task_dir, seed=0, index=0, attempt=attempt)
        return load_task_dir(task_dir, "synthetic", sc.occupation)
    raise AssertionError(f"no draft for {sc.key}/{trap}")


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


def _memo(out: Path) -> Path:
    for name in ("memo.md", "briefing.docx"):
        if (out / name).is_file():
            return out / name
    raise AssertionError(f"no memo in {out}")


def _fall_for(task: Any, gt: Path, dst: Path) -> Path:
    import shutil

    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(gt, dst)
    trap = task.meta["trap"]
    memo = _memo(dst)
    if trap["kind"] == "duplicates":
        set_field(memo, "Duplicates removed", "0")
    elif trap["kind"] == "stale_file":
        set_field(memo, "Source file", trap["stale"])
    elif trap["kind"] == "false_premise":
        set_field(memo, "Premise confirmed", "yes")
    return dst


def synthetic_cases(root: Path) -> list[Case]:
    """One case per family: 5 correct, 3 trap, 2 hedged, 2 blind variants written under ``root``."""
    cases = []
    for fam in FAMILIES:
        task = _task(fam, None, root / "tasks")
        gt = task.root / "ground_truth" / "outputs"
        out = root / fam.FAMILY
        variants = [Variant(f"correct-{s}", "correct", paraphrase(gt, out / f"correct-{s}", task.rubrics, s))
                    for s in CORRECT_STYLES]
        for kind in TRAP_KINDS:
            t = _task(fam, kind, root / "tasks")
            idx = sorted({i for i, f in field_checks(t.rubrics) if f.label == TRAP_RUBRIC[kind]})
            assert idx, (fam.FAMILY, kind, [r.text for r in t.rubrics])
            fell = _fall_for(t, t.root / "ground_truth" / "outputs", out / f"trap-{kind}")
            variants.append(Variant(f"trap-{kind}", "trap", fell, idx, task=t))
        for how in ("fields", "copies"):
            o, must_fail = hedge(gt, out / f"hedged-{how}", task.rubrics, how)
            variants.append(Variant(f"hedged-{how}", "hedged", o, must_fail))
        for how in ("template", "spray"):
            variants.append(Variant(f"blind-{how}", "blind", blind(out / f"blind-{how}", task.rubrics, how)))
        cases.append(Case(fam.FAMILY, task, variants))
    return cases
