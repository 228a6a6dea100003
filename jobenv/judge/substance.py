"""Which criteria prove work, and which a deliverable written without any work could pass.

A criterion *proves work* when one of its checks has a definite answer that cannot be guessed: a non-zero
number or cell, a field whose answer is a value no instruction states (not a choice between allowed
options, not "none", not a keyword), a row that must be present, ids present, a count of rows with a given
value. Every other criterion - structure (files, columns, row counts), prohibitions (absent text,
``not``, ids absent, zero rows), choices (decisions, yes/no, a group picked from the options, flag cells),
"none" lists, keywords - is credited only on a deliverable that carries substance: some criterion of the
task that proves work passes on that same file (see :func:`jobenv.judge.checks.evaluate_rubrics`). So a
template with the right names, headers, row count, guessed flags and the negative decision earns nothing.

Failure behaviour: pure functions over check models and text; nothing here raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..check_models import (
    AllOfCheck,
    AnyOfCheck,
    CellCheck,
    FieldCheck,
    FileExistsCheck,
    IdsCheck,
    NotCheck,
    NumberCheck,
    RowCountCheck,
    TextCheck,
)
from .reading import norm, to_number

__all__ = ["Stated", "stated", "is_prohibition", "proves_work", "work_leaves", "needs_substance", "placeholder_only"]

_SUBSTANCE_WORDS = 25
_GUESS_ANSWERS = {"none", "no", "yes", "nil", "n/a", "na", "0", "ok", "true", "false", "nothing", "-", ""}
_PLACEHOLDER_WORD = re.compile(r"^(?:tbd|tbc|todo|tba|n/?a|pending|placeholder|x+|\?+|-+|\.{3}|…|lorem|ipsum|"
                               r"fill(?:\s*in)?|unknown|\[.*\]|<.*>)[.,;:]?$", re.I)


@dataclass(frozen=True)
class Stated:
    """What the task's instructions already say (their normalised text): an answer copied from it proves nothing."""

    text: str = ""


def stated(instructions: str) -> Stated:
    """The instructions of a task as :class:`Stated`."""
    return Stated(" " + norm(instructions or "") + " ")


def is_prohibition(check: Any) -> bool:
    """True for a check that passes by something being absent (absent text, ``not``, ids absent, zero rows)."""
    if isinstance(check, TextCheck):
        return check.absent
    if isinstance(check, IdsCheck):
        return check.present == "none"
    if isinstance(check, NotCheck):
        return True
    if isinstance(check, RowCountCheck):
        return check.count == 0
    if isinstance(check, (AllOfCheck, AnyOfCheck)):
        parts = [s for s in check.checks if not isinstance(s, FileExistsCheck)]
        return bool(parts) and all(is_prohibition(s) for s in parts)
    return False


def work_leaves(check: Any) -> list[Any]:
    """The leaves of ``check`` that must pass for it to pass (leaves under ``not`` excluded)."""
    if isinstance(check, (AllOfCheck, AnyOfCheck)):
        return [leaf for sub in check.checks for leaf in work_leaves(sub)]
    if isinstance(check, NotCheck):
        return []
    return [check]


def _stated_text(value: str, known: Stated) -> bool:
    v = norm(value)
    return bool(v) and (f" {v} " in known.text or (len(v) > 3 and v in known.text))


def proves_work(leaf: Any, known: Stated = Stated()) -> bool:
    """Whether a passing ``leaf`` shows a right answer that no guess supplies (see the module docstring)."""
    if isinstance(leaf, FieldCheck):
        if leaf.mentions is not None or (leaf.options and leaf.equals is not None):
            return False  # a keyword, or one of the allowed answers
        if leaf.number is not None:
            return leaf.number != 0
        if leaf.numbers is not None:
            return any(x != 0 for x in leaf.numbers)
        if leaf.equals is not None:
            return norm(leaf.equals) not in _GUESS_ANSWERS and not _stated_text(leaf.equals, known)
        return bool(leaf.items) or bool(leaf.contains)  # "none" and exclusions are guesses
    if isinstance(leaf, NumberCheck):
        return leaf.value != 0
    if isinstance(leaf, CellCheck):
        x = to_number(leaf.value)
        if x is not None:
            return x != 0
        # a text cell is a flag or a choice; only "this row is there" (the key itself) is a fact
        return any(norm(k) == norm(leaf.column) and norm(v) == norm(leaf.value) for k, v in leaf.match.items())
    if isinstance(leaf, IdsCheck):
        return leaf.present == "all"
    if isinstance(leaf, RowCountCheck):  # a plain count is met by one placeholder row per key of the input
        return leaf.count > 0 and leaf.where is not None
    return False


def needs_substance(check: Any, known: Stated = Stated()) -> bool:
    """True when no leaf of ``check`` proves work: the criterion is credited only on a deliverable with substance."""
    return not any(proves_work(leaf, known) for leaf in work_leaves(check))


def placeholder_only(text: str) -> bool:
    """True for a deliverable no check defines facts for that holds fewer than 25 real words, or fewer than twice as
    many real words as placeholders (``TBD``, ``N/A``, ``...``)."""
    words = text.replace(",", " ").split()
    real = [w for w in words if not _PLACEHOLDER_WORD.match(w)]
    return not (len(real) >= _SUBSTANCE_WORDS and len(real) >= 2 * (len(words) - len(real)))
