"""Fixtures for the synthetic generator: one generated split shared by the module's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobenv.synthetic.generator import GenerationStats, combos, generate


@pytest.fixture(scope="session")
def split_stats() -> GenerationStats:
    return GenerationStats()


@pytest.fixture(scope="session")
def split(tmp_path_factory: pytest.TempPathFactory, split_stats) -> tuple[Path, list[Path]]:
    """One task per (family, scenario) pair from seed 11, generated once for the session."""
    root = tmp_path_factory.mktemp("synthetic-split")
    return root, generate(len(combos()), 11, root, stats=split_stats)


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
