"""The grader test bank: for every bundled sample task and a generated task of each bank workflow, answers with known verdicts.

Each case is a task plus variants of its output, each labelled with what a careful grader would decide:

* ``correct`` (at least 5): the reference solution or ground truth rewritten the way other professionals
  write (jobenv.judge.probes.paraphrase styles: bold labels, tables, number formats, reasoning after the
  required lines, spreadsheet title/total/note rows and percent formats). Label: every criterion passes.
* ``trap`` (2-3): an output that falls for one of the task's traps (the reference logic run on a task folder
  that "believes" the trap, or the workflow's solver with the trap's shortcut taken). Label: the trap's rubrics
  earn nothing.
* ``hedged`` (15): the correct output plus competing answers (second values for every labelled fact, a
  competing copy of each deliverable, or each value rewritten in place the ways people hedge: "X or Y",
  "none or X", "X or 0", "X and/or Y", "X / Y", "X (possibly Y)", "X (Y on the rerun)", "X (Y if ...)",
  "X, unless ..."), or offered beside it: a table row's further cell, a footnote on the value, a second memo).
  Label: every hedged rubric earns nothing.
* ``blind`` (4): no computation: every answer sprayed, a placeholder template, and a realistic guess (the
  correct tables' headers and keys with guessed cells and flags, memo lines with the first or the last allowed
  answer - the negative decision -, "none" lists, values the instructions state, plausible prose). Label: at
  most 0.05.

Variants are built deterministically from the committed tasks (no network); ``build_bank(root)`` writes them
under ``root`` and returns the cases. Used by tests/judge/test_bank.py and benchmarks/checks_agreement.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Variant", "Case", "build_bank", "KINDS", "grade_variant"]

KINDS = ("correct", "trap", "hedged", "blind")


@dataclass
class Variant:
    """One labelled output: ``must_fail`` lists the rubric indices that must earn nothing (trap, hedged)."""

    name: str
    kind: str
    out: Path
    must_fail: list[int] = field(default_factory=list)
    task: Any = None  # graded against this task instead of the case's (a trap drawn as its own task)


@dataclass
class Case:
    """A task (a sample task or a bank workflow's generated task) and its labelled variants."""

    name: str
    task: Any
    variants: list[Variant]


def grade_variant(task: Any, out: Path) -> Any:
    """The checks judge's report for one variant (the reward an RL run would see)."""
    from jobenv.judge import ChecksJudge

    return ChecksJudge().grade_blocking(task, out)


def build_bank(root: Path) -> list[Case]:
    """Every case of the bank, variants written under ``root`` (sample tasks first, then the bank workflows)."""
    from .sample import sample_cases
    from .synthetic import synthetic_cases

    return sample_cases(root / "sample") + synthetic_cases(root / "synthetic")
