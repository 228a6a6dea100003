"""Fixtures shared by tests/sandbox and tests/security: one real sandbox per backend, a realistic task dir.

The Docker backend runs against the real engine with a small image built locally (no registry):
``scripts/build_test_image.sh`` makes a Debian minbase root file system with debootstrap and imports it as
``jobenv-test:minbase`` (cached by tag). The ``docker_image`` fixture calls it when the tag is missing. If no Docker
engine answers at all, the docker-parametrized tests skip with that reason.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from jobenv.errors import SandboxUnavailableError
from jobenv.sandbox import Sandbox, SandboxLimits, make_sandbox

ROOT = Path(__file__).resolve().parents[2]
DOCKER_TEST_IMAGE = os.environ.get("JOBENV_TEST_DOCKER_IMAGE", "jobenv-test:minbase")
BACKENDS = ["local", "docker"]
RUBRIC_SECRET = "RUBRIC-SECRET-7d1f9c"
CARD_SECRET = "TASK-CARD-SECRET-42aa0e"


@pytest.fixture(scope="session")
def docker_image() -> str:
    from jobenv.sandbox.docker import docker_client

    try:
        client = docker_client()
    except SandboxUnavailableError as exc:
        pytest.skip(f"Docker engine not available on this machine: {exc}")
    try:
        client.images.get(DOCKER_TEST_IMAGE)
    except Exception:
        proc = subprocess.run([str(ROOT / "scripts" / "build_test_image.sh"), DOCKER_TEST_IMAGE],
                              capture_output=True, text=True, timeout=1800)
        if proc.returncode != 0:
            pytest.fail(f"could not build the test image {DOCKER_TEST_IMAGE}:\n{proc.stdout}\n{proc.stderr}")
    finally:
        client.close()
    return DOCKER_TEST_IMAGE


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    """A task directory shaped like JobBench's: task_folder/ for the agent, host-only rubric and card beside it."""
    d = tmp_path / "occupation" / "task1"
    tf = d / "task_folder"
    (tf / "data").mkdir(parents=True)
    (tf / "TASK_INSTRUCTIONS.txt").write_text("Summarise sales.csv into output/summary.csv\n")
    (tf / "data" / "sales.csv").write_text("region,amount\nnorth,10\nsouth,32\n")
    (tf / "blob.bin").write_bytes(bytes(range(256)) * 4)
    (d / "RUBRICS.json").write_text(json.dumps({"rubrics": [{"rubric": RUBRIC_SECRET, "weight": 1, "criterion": ["x"]}]}))
    (d / "task_card.md").write_text(f"# card\n{CARD_SECRET}\n")
    return d


Factory = Callable[..., Awaitable[Sandbox]]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def sandbox_options(backend: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    if backend == "docker":
        return {"image": request.getfixturevalue("docker_image")}
    return {}


@pytest.fixture
def new_sandbox(backend: str, sandbox_options: dict[str, Any]):
    """``sb = await new_sandbox(task_folder, **limit_fields)``: a started sandbox, closed after the test."""
    made: list[Sandbox] = []

    async def factory(task_folder: Path | None = None, **limits: Any) -> Sandbox:
        sb = make_sandbox(backend, limits=SandboxLimits(**limits), **sandbox_options)
        made.append(sb)
        await sb.start(task_folder)
        return sb

    yield factory
    for sb in made:
        sb.close_sync()


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(coro)  # type: ignore[arg-type]


async def assert_healthy(sb: Sandbox) -> None:
    """The sandbox still answers and the host can still start processes."""
    r = await sb.run("echo still-alive && ls /workspace", timeout=30)
    assert r.exit_code == 0, r.output
    assert "still-alive" in r.output and "output" in r.output
    assert subprocess.run(["true"], timeout=10).returncode == 0
