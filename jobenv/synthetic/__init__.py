"""Synthetic JobTasks-style tasks, each with a deterministic ground truth: profession workflows on stated
generated data.

Public API (heavy modules load on first use, so ``import jobenv`` stays fast):

- ``generate(n, seed, out_dir) -> list[Path]`` writes ``out_dir/<occupation>/taskN/``.
- ``ensure_default_split(dest, n=DEFAULT_SPLIT_SIZE, seed=0) -> Path`` generates once, then is a no-op.
- ``GENERATOR_VERSION``: part of every task's meta.json and of the determinism contract.

Each task is a profession's piece of real work (``workflows/``: one module per workflow behind the ``Workflow``
contract of ``workflows/base.py``, its standalone solver in ``solvers/``), framed for the 35 JobBench professions
(``professions.py``); ``workflows/write.py`` writes and gates a draw, ``runner.py`` draws a split, ``audit.py``
re-derives its facts and ``report.py`` summarises it.
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
