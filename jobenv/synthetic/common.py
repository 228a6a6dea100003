"""Building blocks shared by the builder and the generator: the task plan, rounding, check and rubric builders.

Checks are built as plain dicts in the ``jobenv_checks`` shape and validated by the task loader's own
pydantic models (:mod:`jobenv.tasks`); the generator grades them with the judge's evaluator only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

__all__ = [
    "GENERATOR_VERSION",
    "DegenerateTask",
    "RefFile",
    "Plan",
    "rnd",
    "tol",
    "near_rounding_boundary",
    "num_text",
    "nice_between",
    "c_file",
    "c_columns",
    "c_cell",
    "c_rows",
    "c_regex",
    "c_not",
    "fld",
    "fld_num",
    "fld_has",
    "llm",
    "LLM_CHECKS",
    "rubric",
]

GENERATOR_VERSION = "2.0.0"


class DegenerateTask(Exception):
    """The drawn parameters give ill-posed expected values; the generator redraws (never escapes generate())."""


@dataclass
class RefFile:
    """One file of task_folder/ and the callable that writes it (``write(path)``)."""

    name: str
    role: str  # data | lookup | policy | email | stale | conflict | distractor
    write: Callable[[Path], None]
    description: str


@dataclass
class Plan:
    """Everything about one task except the rubrics, which are built from its ground truth on disk."""

    family: str
    scenario: str
    occupation: str
    instructions: str
    files: list[RefFile]
    params: dict[str, Any]
    source: dict[str, Any]
    traps: list[dict[str, Any]]
    subject: str
    probe_seed: int
    truth: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)


def rnd(x: float, decimals: int) -> float:
    """Round half away from zero on the decimal representation (what people do by hand)."""
    from decimal import ROUND_HALF_UP, Decimal

    q = Decimal(1).scaleb(-decimals)
    return float(Decimal(repr(float(x))).quantize(q, rounding=ROUND_HALF_UP))


def tol(decimals: int) -> float:
    """Tolerance accepting a value correctly rounded to ``decimals`` places (or unrounded)."""
    return round(0.5 * 10 ** (-decimals) + 1e-9, 12)


def near_rounding_boundary(x: float, decimals: int, eps: float = 1e-6) -> bool:
    """True when ``x`` sits (within ``eps`` units of the last place) on a .5 rounding boundary."""
    scaled = abs(x) * 10**decimals
    frac = scaled - math.floor(scaled)
    return abs(frac - 0.5) < eps * 10**decimals + 1e-9


def num_text(x: float, decimals: int | None = None) -> str:
    """A number as the criteria state it: fixed decimals when given, else without a trailing .0."""
    if decimals is not None:
        return f"{x:.{decimals}f}"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def nice_between(lo: float, hi: float, decimals: int) -> float:
    """A round-looking number strictly between ``lo`` and ``hi``, clear of both at the graded rounding."""
    if hi <= lo:
        raise DegenerateTask("empty interval for a threshold")
    gap = 0.5 * 10 ** (-decimals) + 1e-9
    span = hi - lo
    for exp in range(int(math.floor(math.log10(max(abs(hi), 1e-9)))) + 1, -decimals - 1, -1):
        for mult in (1, 5, 2.5, 2):
            step = mult * 10.0**exp
            c = math.floor(lo / step + 1) * step
            if lo + gap < c < hi - gap and step <= span * 2:
                return float(round(c, max(decimals, 0) + 2))
    raise DegenerateTask("no round threshold between two graded values")



# ---- checks (dicts in the RUBRICS.json jobenv_checks shape) ---------------------------------------------

def c_file(file: str) -> dict[str, Any]:
    return {"kind": "file_exists", "file": file}


def c_columns(file: str, columns: list[str]) -> dict[str, Any]:
    return {"kind": "columns", "file": file, "columns": list(columns)}


def c_cell(file: str, match: dict[str, Any], column: str, value: Any, tolerance: float = 0.0) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "cell", "file": file, "match": dict(match), "column": column, "value": value}
    if tolerance:
        out["tolerance"] = tolerance
    return out


def c_rows(file: str, count: int) -> dict[str, Any]:
    return {"kind": "row_count", "file": file, "count": int(count)}


def c_regex(pattern: str, file: str, absent: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "text", "pattern": pattern, "file": file, "regex": True}
    if absent:
        out["absent"] = True
    return out


def c_not(check: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "not", "check": check}


def _label(label: str) -> str:
    return r"\s+".join(re.escape(w) for w in label.split())


_LINE = r"(?im)^[ \t>*_#-]*{label}[ \t*_]*:[ \t*_]*"


def _num_pattern(value: float, decimals: int) -> str:
    """The number with or without thousands separators, at ``decimals`` places (trailing zeros optional)."""
    s = f"{abs(value):.{decimals}f}"
    whole, _, frac = s.partition(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    body = ",?".join(groups)
    if frac:
        body += r"\." + frac.rstrip("0") + "0*" if frac.rstrip("0") else r"(?:\.0+)?"
    sign = "-" if value < 0 else ""
    return rf"{sign}\$?{body}(?![\d]|\.\d)"


def fld(file: str, label: str, value: str) -> dict[str, Any]:
    """The labelled line ``label: value`` (value as a whole word) in ``file``."""
    return c_regex(_LINE.format(label=_label(label)) + re.escape(value) + r"(?![\w])", file)


def fld_num(file: str, label: str, value: float, decimals: int) -> dict[str, Any]:
    """The labelled line ``label: <number>`` with the number at the stated rounding."""
    return c_regex(_LINE.format(label=_label(label)) + _num_pattern(value, decimals), file)


def fld_has(file: str, label: str, item: str, present: bool = True) -> dict[str, Any]:
    """The labelled list line names ``item`` (or, with ``present=False``, does not)."""
    chk = c_regex(_LINE.format(label=_label(label)) + r"[^\n]*?(?<![\w])" + re.escape(item) + r"(?![\w])", file)
    return chk if present else c_not(chk)


def _llm_supported() -> bool:
    try:
        from ..tasks import _CHECK_ADAPTER

        _CHECK_ADAPTER.validate_python({"kind": "llm", "reason": "probe"})
        return True
    except Exception:  # the task model of this checkout has no LLM-graded criterion kind yet
        return False


LLM_CHECKS = _llm_supported()


def llm(reason: str) -> dict[str, Any]:
    """A criterion that only the LLM judge can grade (judgement, tone, justification)."""
    return {"kind": "llm", "reason": reason}


def rubric(text: str, weight: int, items: list[tuple[str, dict[str, Any]]], *, trap: str | None = None) -> dict[str, Any]:
    """One rubric in the official shape with its ``jobenv_checks`` (one per criterion)."""
    if not 6 <= weight <= 10:
        raise ValueError(f"rubric weight {weight} outside 6..10")
    if not items:
        raise ValueError("a rubric needs at least one criterion")
    out: dict[str, Any] = {"rubric": text, "weight": weight, "criterion": [c for c, _ in items],
                           "jobenv_checks": [k for _, k in items]}
    if trap:
        out["jobenv_trap"] = trap
    return out
