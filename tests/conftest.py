"""Shared test setup: every test runs against a private data directory and judge cache, never ~/.cache."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:  # tests.support is importable from any test
    sys.path.insert(0, str(_ROOT))

_SESSION_DIR = Path(tempfile.mkdtemp(prefix="jobenv-tests-"))
os.environ["JOBENV_DATA"] = str(_SESSION_DIR / "data")
os.environ["JOBENV_CACHE"] = str(_SESSION_DIR / "cache")
os.environ["OPENREWARD_DISABLE_UPDATE_CHECK"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
for _var in ("JOBENV_JUDGE_BASE_URL", "JOBENV_JUDGE_API_KEY", "JOBENV_JUDGE_MODEL"):
    os.environ.pop(_var, None)

from tests.support.splits import split, split_rep, split_stats  # noqa: E402,F401 (session fixtures; after the settings above)

# Tests run in two streams, one per pytest-xdist worker (``-n 2`` in pyproject.toml). The side stream holds the
# tests that mostly wait on pip, the package index and dockerd (Docker image builds, fresh-venv installs, the
# trainer integrations), so they overlap with the rest, and the profession workflows' tests (one gated task drawn per
# workflow, seconds of workbook recalculation apiece), which fill the side stream's waits; within a stream tests run
# in collection order, one at a time, as they would without xdist.
SIDE_STREAM = ("tests/image/", "tests/install/", "tests/integrations/", "tests/harbor/test_export_in_harbor.py",
               "tests/synthetic/test_workflows.py", "tests/synthetic/test_wf_")


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    from xdist.scheduler import LoadScopeScheduling

    class TwoStreams(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "side" if nodeid.startswith(SIDE_STREAM) else "main"

    return TwoStreams(config, log)


def _uses_docker(item: pytest.Item) -> bool:
    if "docker_image" in getattr(item, "fixturenames", ()):
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(v == "docker" for v in params.values() if isinstance(v, str))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that needs the Docker engine carries the ``docker`` marker (``-m "not docker"`` leaves it out),
    however it got there: the ``docker_image`` fixture or a ``docker`` parameter. Every user of the session's
    generated split may take as long as drawing it (the first one does, in its setup)."""
    for item in items:
        if _uses_docker(item) and item.get_closest_marker("docker") is None:
            item.add_marker(pytest.mark.docker)
        if "split" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.timeout(1200))




@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty JOBENV_DATA for one test."""
    d = tmp_path / "jobenv-data"
    monkeypatch.setenv("JOBENV_DATA", str(d))
    return d


@pytest.fixture(scope="session")
def sample_tasks():
    """The bundled sample split, loaded once."""
    import jobenv

    return jobenv.load_tasks("jobenv/sample")


@pytest.fixture(scope="session")
def jobenv_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of the checkout, built once per session (packaging and integration tests install it)."""
    from tests.support.wheel import build_wheel

    return build_wheel(tmp_path_factory.mktemp("wheel"))
