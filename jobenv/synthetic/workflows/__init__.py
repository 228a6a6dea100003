"""Profession-native workflows: each a piece of a profession's real work done with its field's method, on a
generated workspace of nested folders (``base.py`` says what a workflow is; ``write.py`` writes and gates one).

- ``survival.py``: Kaplan-Meier overall survival for a DSMB (biostatisticians, statisticians).
- ``decline.py``: exponential decline curves and remaining reserves for a tie-in (petroleum engineers).
- ``match.py``: three-way match of invoices before a payment run (purchasing, supply chain, AP clerks).
- ``bankrec.py``: month-end bank reconciliation with adjusting entries, in a workbook of live formulas (accounting
  clerks, financial managers).
- ``dmr.py``: desk review of 24 months of discharge monitoring reports against an NPDES permit, with SNC (licensing
  examiners and inspectors).
- ``outage.py``: outage credits and bill corrections for escalated accounts, as a billing upload (customer service
  representatives).
"""

from __future__ import annotations

from .bankrec import BANK_RECONCILIATION
from .base import Workflow
from .decline import DECLINE_CURVE
from .dmr import DMR_REVIEW
from .match import THREE_WAY_MATCH
from .outage import OUTAGE_CREDITS
from .survival import KAPLAN_MEIER

__all__ = ["WORKFLOWS", "workflows_for", "Workflow"]

WORKFLOWS: tuple[Workflow, ...] = (KAPLAN_MEIER, DECLINE_CURVE, THREE_WAY_MATCH, BANK_RECONCILIATION,
                                   DMR_REVIEW, OUTAGE_CREDITS)


def workflows_for(occupation: str) -> tuple[Workflow, ...]:
    """The workflows a profession does (empty for a profession with none yet)."""
    return tuple(w for w in WORKFLOWS if occupation in w.professions)
