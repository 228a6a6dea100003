"""Fixtures for the synthetic generator: one small generated split shared by the module's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobenv.synthetic.runner import GenerationStats, generate

SPLIT_N = 16
SPLIT_SEED = 11


@pytest.fixture(scope="session")
def split_stats() -> GenerationStats:
    return GenerationStats()


@pytest.fixture(scope="session")
def split(tmp_path_factory: pytest.TempPathFactory, split_stats: GenerationStats) -> tuple[Path, list[Path]]:
    """Sixteen checks-only tasks from seed 11 (as the registry serves them), generated once for the session."""
    root = tmp_path_factory.mktemp("synthetic-split")
    return root, generate(SPLIT_N, SPLIT_SEED, root, stats=split_stats, judgement=False)


@pytest.fixture(scope="session")
def split_tasks(split):
    from jobenv.tasks import load_task_dir

    _, paths = split
    return [load_task_dir(p, "synthetic") for p in paths]


def one_per_family(tasks):
    seen: dict[str, object] = {}
    for t in tasks:
        seen.setdefault(t.meta["family"], t)
    return list(seen.values())
