"""Building blocks shared by the workflows and the generator: the generator's version, rounding, check and rubric builders.

Checks are the pydantic models of :mod:`jobenv.check_models` (the judge evaluates exactly these) and
rubrics are :class:`jobenv.tasks.Rubric`; the generator grades them with the judge's evaluator only.
"""

from __future__ import annotations

import math

from ..check_models import (
    Check,
    FieldCheck,
    LlmCheck,
)
from ..errors import JobenvError
from ..tasks import Rubric

__all__ = [
    "GENERATOR_VERSION",
    "DegenerateTask",
    "rnd",
    "tol",
    "near_rounding_boundary",
    "nice_between",
    "fld",
    "fld_num",
    "fld_list",
    "llm",
    "rubric",
]

GENERATOR_VERSION = "3.0.0"  # 3.0: every task is a profession workflow (2.3 drew them beside the retired scenarios)


class DegenerateTask(JobenvError):
    """The drawn parameters give ill-posed expected values; the generator redraws (never escapes generate())."""


def rnd(x: float, decimals: int) -> float:
    """Round half away from zero on the decimal representation (what people do by hand)."""
    from decimal import ROUND_HALF_UP, Decimal

    q = Decimal(1).scaleb(-decimals)
    return float(Decimal(repr(float(x))).quantize(q, rounding=ROUND_HALF_UP))


def tol(decimals: int) -> float:
    """Tolerance of a graded figure stated to ``decimals`` places: one unit in the last place, so a value rounded
    another way (or from rounded intermediates) still counts, while the gates keep every other graded answer at
    least two units away. A whole number (a count, or a sum of whole numbers) is exact: 0."""
    return round(10 ** (-decimals) + 1e-9, 12) if decimals > 0 else 0.0


def near_rounding_boundary(x: float, decimals: int, eps: float = 1e-6) -> bool:
    """True when ``x`` sits (within ``eps`` units of the last place) on a .5 rounding boundary."""
    scaled = abs(x) * 10**decimals
    frac = scaled - math.floor(scaled)
    return abs(frac - 0.5) < eps * 10**decimals + 1e-9


def nice_between(lo: float, hi: float, decimals: int) -> float:
    """A round-looking number strictly between ``lo`` and ``hi``, more than two units of the graded place from
    both (so a value within its one-unit tolerance is on the same side)."""
    if hi <= lo:
        raise DegenerateTask("empty interval for a threshold")
    gap = 2 * 10 ** (-decimals) + 1e-9
    span = hi - lo
    for exp in range(int(math.floor(math.log10(max(abs(hi), 1e-9)))) + 1, -decimals - 1, -1):
        for mult in (1, 5, 2.5, 2):
            step = mult * 10.0**exp
            c = math.floor(lo / step + 1) * step
            if lo + gap < c < hi - gap and step <= span * 2:
                return float(round(c, max(decimals, 0) + 2))
    raise DegenerateTask("no round threshold between two graded values")



# ---- checks: the models of jobenv.check_models -----------------------------------------------------------

def fld(file: str, label: str, value: str, options: list[str] | None = None) -> Check:
    """The labelled fact ``label: value`` (text); with ``options``, naming two of them fails."""
    return FieldCheck(file=file, label=label, equals=value, options=list(options) if options else None)


def fld_num(file: str, label: str, value: float, decimals: int) -> Check:
    """The labelled fact ``label: <number>``, within the rounding the house rules state."""
    return FieldCheck(file=file, label=label, number=float(value), tolerance=tol(decimals))


def fld_list(file: str, label: str, items: list[str]) -> Check:
    """The labelled list ``label: a; b`` names exactly ``items`` (in any order)."""
    return FieldCheck(file=file, label=label, items=list(items))


def llm(reason: str) -> Check:
    """A criterion only the LLM judge can grade (judgement, justification, tone)."""
    return LlmCheck(reason=reason)


def rubric(text: str, weight: int, items: list[tuple[str, Check]]) -> Rubric:
    """One rubric with one check per criterion (written to RUBRICS.json by :meth:`Rubric.to_json`)."""
    if not 6 <= weight <= 10:
        raise ValueError(f"rubric weight {weight} outside 6..10")
    if not items:
        raise ValueError("a rubric needs at least one criterion")
    return Rubric(text=text, weight=weight, criteria=[c for c, _ in items], checks=[k for _, k in items])
