"""Grader probes: rewrite a correct output the way other professionals would, hedge it, or answer blind.

A reward an RL run optimises must pay for meaning, not for wording, and never for hedging or guessing.
These probes are built from a task's own check definitions and a correct output (a ground truth or a
reference solution), so they apply to any task:

* :func:`paraphrase` (``paraphrase.py``) - the same answers written differently: labels in bold, bulleted or as a table,
  ``=`` instead of ``:``, thousands separators and currency signs, small counts as words, reasoning after
  the required lines that names other candidates, tables with a title row and a note row, percentages
  stored as percent-formatted fractions, and derived columns (a difference, a percentage of another
  column) written as formulas without cached values, as openpyxl writes them. Every criterion must still
  pass.
* :func:`hedge` (``hedges.py``) - the correct output plus a second answer for every labelled fact, a
  competing copy of each deliverable under the same name in other letter case, or each labelled value
  rewritten in place the ways people hedge (:data:`HEDGES`: "X or Y", "none or X", "X / Y", "X (possibly Y)",
  "X (Y on the rerun)", "X (Y if ...)", ...), or offered beside it (:data:`SECOND_ANSWERS`: a table row's
  further cell, a footnote on the value, a second memo). Every rubric reading a hedged fact or file must earn
  nothing.
* :func:`blind` and :func:`guess` (``blind.py``) - no computation: placeholders; a spray of every label and
  allowed answer with per-category copies; and a realistic guess - the correct tables' headers and keys with
  guessed cells and flags, memo lines with the first or the last allowed answer (the negative decision),
  "none" lists, values the instructions state, and plausible prose. At most :data:`BLIND_LIMIT` (0.05).

:func:`probe_rubrics` runs them against rubrics and returns the problems found; the synthetic generator uses
it as a quality gate and the grader test bank in the tests uses the writers directly. The package lies outside
the grader hash's sources: it changes no score.

Failure behaviour: writers raise OSError only for an unwritable destination; a deliverable they cannot
parse is copied unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._files import field_checks
from .blind import BLIND_LIMIT, blind, guess
from .hedges import HEDGES, SECOND_ANSWERS, hedge
from .paraphrase import STYLES, paraphrase

__all__ = ["STYLES", "HEDGES", "SECOND_ANSWERS", "paraphrase", "hedge", "blind", "guess", "field_checks", "probe_rubrics",
           "BLIND_LIMIT"]


def probe_rubrics(rubrics: Sequence[Any], correct: Path, work: Path, *, full: bool = True,
                  instructions: str = "") -> list[str]:
    """Problems found by the probes on a correct output: a paraphrase that loses a criterion, a hedge that keeps
    a rubric, a blind answer (a spray, or a guess with either extreme allowed answer) above BLIND_LIMIT. Empty when
    the checks are sound on this task. ``full=False`` runs fewer paraphrase and hedge styles (the generator's gate:
    a paraphrase, a field hedge, three in-place hedges, a spray and the guesses); ``instructions`` is the task's
    text (what a blind writer knows)."""
    from ..checks import evaluate_rubrics, recalculate_ahead

    def score(out: Path) -> tuple[float, list[bool]]:
        verdicts = evaluate_rubrics(rubrics, out, instructions=instructions)
        passed = [all(v is not None and v[0] for v in row) for row in verdicts]
        total = sum(r.weight for r in rubrics)
        return sum(r.weight for r, ok in zip(rubrics, passed, strict=True) if ok) / total, passed

    # every probe answer is written first, so their workbooks recalculate in one engine run
    paraphrased = [(style, paraphrase(correct, work / f"paraphrase-{style}", rubrics, style))
                   for style in (("bold", "prose") if full else ("prose",))]
    hedged = [(how, *hedge(correct, work / f"hedge-{how}", rubrics, how))
              for how in (("fields", "copies", *HEDGES, *SECOND_ANSWERS) if full else ("fields", "or", "rerun", "none-or"))]
    blinds = [(f"blind ({how}) output", blind(work / f"blind-{how}", rubrics, how))
              for how in (("template", "spray") if full else ("spray",))]
    blinds += [(f"blind guess (answer {choice})",
                guess(correct, work / f"guess{choice}", rubrics, instructions=instructions, choice=choice))
               for choice in (0, -1)]
    recalculate_ahead(work)
    problems: list[str] = []
    for style, out in paraphrased:
        for r, row in zip(rubrics, evaluate_rubrics(rubrics, out, instructions=instructions), strict=True):
            bad = [c for c, v in zip(r.criteria, row, strict=True) if v is not None and not v[0]]
            if bad:
                problems.append(f"paraphrase ({style}) fails {r.text!r}: {bad[0]!r}")
    for how, out, must_fail in hedged:
        _, passed = score(out)
        kept = [rubrics[i].text for i in must_fail if passed[i]]
        if kept:
            problems.append(f"hedged ({how}) output keeps rubric {kept[0]!r}")
    for what, out in blinds:
        s, _ = score(out)
        if s > BLIND_LIMIT:
            problems.append(f"{what} scores {s:.3f} > {BLIND_LIMIT}")
    return problems
