"""The generated split the test session shares (a task's gates cost seconds of grading, so it is drawn once): the first
40 checks-only tasks of seed 0, as the registry serves them. Registered as fixtures by ``tests/conftest.py``; its
users may take minutes (the first one draws it in its setup)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from jobenv.synthetic.runner import GenerationStats

__all__ = ["SPLIT_N", "SPLIT_SEED", "split_stats", "split", "split_rep"]

SPLIT_N = 40  # all 35 professions, and some workflows twice
SPLIT_SEED = 0


@pytest.fixture(scope="session")
def split_stats() -> GenerationStats:
    from jobenv.synthetic.runner import GenerationStats

    return GenerationStats()


@pytest.fixture(scope="session")
def split(tmp_path_factory: pytest.TempPathFactory, split_stats: GenerationStats) -> tuple[Path, list[Path]]:
    """(root, task paths) of the split, generated once for the session (the prefix of any larger split of the
    seed: generation is prefix-stable)."""
    from jobenv.synthetic.runner import generate

    root = tmp_path_factory.mktemp("synthetic-split")
    return root, generate(SPLIT_N, SPLIT_SEED, root, stats=split_stats, judgement=False)


@pytest.fixture(scope="session")
def split_rep(split: tuple[Path, list[Path]], split_stats: GenerationStats) -> dict:
    """The split report of the split, computed once (it runs the blind probes on every task: minutes)."""
    from jobenv.synthetic.report import split_report

    return split_report(split[1], split_stats)
