"""Building blocks shared by the task families: the task draft, check and rubric builders, rounding.

A family turns real records into a :class:`Draft` (reference files, instructions, rubrics with one
deterministic check per criterion, built from the check models of :mod:`jobenv.check_models`, solver parameters, task card). The generator writes the draft,
runs its ground-truth script and applies the quality gates. A family raises :class:`DegenerateTask`
when the expected values it would grade are ill-posed (empty groups, values tied at a threshold or a
rounding boundary); the generator then redraws with the next attempt's random stream.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..check_models import (
    AllOfCheck,
    CellCheck,
    Check,
    ColumnsCheck,
    FieldCheck,
    FileExistsCheck,
    IdsCheck,
    NotCheck,
    NumberCheck,
    RowCountCheck,
    TextCheck,
)
from ..tasks import Rubric

__all__ = [
    "GENERATOR_VERSION",
    "DegenerateTask",
    "RefFile",
    "Draft",
    "rnd",
    "near_rounding_boundary",
    "label_regex",
    "line_value_regex",
    "int_pattern",
    "id_regex",
    "c_file",
    "c_columns",
    "c_cell",
    "c_rows",
    "c_text",
    "c_regex",
    "c_number",
    "c_field",
    "c_ids",
    "c_not",
    "c_all",
    "rubric",
    "money",
]

GENERATOR_VERSION = "1.0.0"


class DegenerateTask(Exception):
    """The drawn parameters give ill-posed expected values; the generator redraws (never escapes generate())."""


@dataclass
class RefFile:
    """One file of task_folder/ and the callable that writes it (``write(path)``)."""

    name: str
    role: str  # data | policy | irrelevant | stale
    write: Callable[[Path], None]
    description: str


@dataclass
class Draft:
    family: str
    occupation: str
    scenario: str
    instructions: str
    files: list[RefFile]
    rubrics: list[Rubric]
    solver: str
    params: dict[str, Any]
    source: dict[str, Any]
    trap: dict[str, Any] | None
    card: str
    expected: dict[str, Any] = field(default_factory=dict)


def rnd(x: float, decimals: int) -> float:
    """Round half away from zero on the decimal representation (what people do by hand)."""
    from decimal import ROUND_HALF_UP, Decimal

    q = Decimal(1).scaleb(-decimals)
    return float(Decimal(repr(float(x))).quantize(q, rounding=ROUND_HALF_UP))


def near_rounding_boundary(x: float, decimals: int, eps: float = 1e-6) -> bool:
    """True when ``x`` sits (within ``eps`` units of the last place) on a .5 rounding boundary."""
    scaled = abs(x) * 10**decimals
    frac = scaled - math.floor(scaled)
    return abs(frac - 0.5) < eps * 10**decimals + 1e-9


_SEP = r"[\s:*_|\-=]*"


def label_regex(label: str) -> str:
    """A regex for a memo label, tolerant of case (checks are case-insensitive) and spacing."""
    words = [re.escape(w) for w in label.split()]
    return r"\s+".join(words)


def line_value_regex(label: str, value: str) -> str:
    """``<label>: <value>`` on one memo line, allowing markdown emphasis, and a whole-word value."""
    return rf"{label_regex(label)}{_SEP}{re.escape(value)}(?![\w])"


def int_pattern(n: int) -> str:
    """A regex matching the integer ``n`` written with or without thousands separators."""
    s = str(abs(int(n)))
    groups: list[str] = []
    while len(s) > 3:
        groups.insert(0, s[-3:])
        s = s[:-3]
    groups.insert(0, s)
    body = ",?".join(groups)
    return ("-" if n < 0 else "") + rf"(?<![\d.,]){body}(?![\d]|[.,]\d)"


def id_regex(record_id: str) -> str:
    """A record id as a whole token (so ``JE`` does not match inside ``JEBO``)."""
    return rf"(?<![\w-]){re.escape(record_id)}(?![\w-])"


def money(x: float) -> str:
    """Two-decimal amount as the solver writes it (no thousands separators)."""
    return f"{x:.2f}"


# ---- check builders: the pydantic check models of jobenv.check_models (the judge evaluates exactly these) ----

def c_file(file: str) -> Check:
    return FileExistsCheck(file=file)


def c_columns(file: str, columns: list[str], sheet: str | None = None) -> Check:
    return ColumnsCheck(file=file, columns=list(columns), sheet=sheet)


def c_cell(file: str, match: dict[str, Any], column: str, value: Any, tolerance: float = 0.0,
           sheet: str | None = None) -> Check:
    return CellCheck(file=file, match=dict(match), column=column, value=value, tolerance=tolerance, sheet=sheet)


def c_rows(file: str, count: int, where: dict[str, Any] | None = None, key: str | None = None,
           sheet: str | None = None) -> Check:
    return RowCountCheck(file=file, count=int(count), where=dict(where) if where else None, key=key, sheet=sheet)


def c_text(pattern: str, file: str, absent: bool = False) -> Check:
    return TextCheck(pattern=pattern, file=file, absent=absent)


def c_regex(pattern: str, file: str, absent: bool = False) -> Check:
    return TextCheck(pattern=pattern, file=file, absent=absent, regex=True)


def c_number(value: float, file: str, tolerance: float = 0.0) -> Check:
    return NumberCheck(file=file, value=float(value), tolerance=tolerance)


def c_field(file: str, label: str, **judgement: Any) -> Check:
    """A labelled fact (``Label: value`` line or table row); ``judgement`` as in :class:`FieldCheck`
    (``equals=``/``options=``, ``number=``/``tolerance=``, ``items=``, ``contains=``/``excludes=``, ``mentions=``)."""
    return FieldCheck(file=file, label=label, **judgement)


def c_ids(file: str, ids: list[str], present: str = "all", digits: bool = False) -> Check:
    return IdsCheck(file=file, ids=list(ids), present=present, digits=digits)  # type: ignore[arg-type]


def c_not(check: Check) -> Check:
    return NotCheck(check=check)


def c_all(*checks: Check) -> Check:
    return AllOfCheck(checks=list(checks))


def rubric(text: str, weight: int, items: list[tuple[str, Check]]) -> Rubric:
    """One rubric with one check per criterion (written to RUBRICS.json by :meth:`Rubric.to_json`)."""
    if not 6 <= weight <= 10:
        raise ValueError(f"rubric weight {weight} outside 6..10")
    if not items:
        raise ValueError("a rubric needs at least one criterion")
    return Rubric(text=text, weight=weight, criteria=[c for c, _ in items], checks=[k for _, k in items])


def tol(decimals: int) -> float:
    """Tolerance accepting a value correctly rounded to ``decimals`` places (or unrounded)."""
    return round(0.5 * 10 ** (-decimals) + 1e-9, 12)
