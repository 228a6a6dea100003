"""Profession-native workflows: each a piece of a profession's real work done with its field's method, on a
generated workspace of nested folders (``base.py`` says what a workflow is; ``write.py`` writes and gates one).

- ``survival.py``: Kaplan-Meier overall survival for a DSMB (biostatisticians, statisticians).
- ``decline.py``: exponential decline curves and remaining reserves for a tie-in (petroleum engineers).
- ``match.py``: three-way match of invoices before a payment run (purchasing, supply chain, AP clerks).
- ``bankrec.py``: month-end bank reconciliation with adjusting entries, in a workbook of live formulas (accounting
  clerks, financial managers).
- ``adverse.py``: adverse-impact analysis of a screening test (four-fifths rule, Fisher's exact test; HR specialists).
- ``coursegain.py``: pre/post course evaluation with item analysis (paired t, Hake gain, KR-20; training specialists).
"""

from __future__ import annotations

from .adverse import ADVERSE_IMPACT
from .bankrec import BANK_RECONCILIATION
from .base import Workflow
from .coursegain import COURSE_EVALUATION
from .decline import DECLINE_CURVE
from .match import THREE_WAY_MATCH
from .survival import KAPLAN_MEIER

__all__ = ["WORKFLOWS", "workflows_for", "Workflow"]

WORKFLOWS: tuple[Workflow, ...] = (KAPLAN_MEIER, DECLINE_CURVE, THREE_WAY_MATCH, BANK_RECONCILIATION, ADVERSE_IMPACT,
                                     COURSE_EVALUATION)


def workflows_for(occupation: str) -> tuple[Workflow, ...]:
    """The workflows a profession does (empty for a profession with none yet)."""
    return tuple(w for w in WORKFLOWS if occupation in w.professions)
