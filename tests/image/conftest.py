"""The knowledge-worker Docker image, built once and then reused by tag (CI pays for the build once)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("JOBENV_TEST_KW_IMAGE", "jobenv/knowledge-worker:latest")


@pytest.fixture(scope="session")
def docker_client():  # type: ignore[no-untyped-def]
    from jobenv.errors import SandboxUnavailableError
    from jobenv.sandbox.docker import docker_client as connect

    try:
        client = connect()
    except SandboxUnavailableError as exc:
        pytest.skip(f"Docker engine not available on this machine: {exc}")
    yield client
    client.close()


@pytest.fixture(scope="session")
def knowledge_worker_image(docker_client) -> str:  # type: ignore[no-untyped-def]
    """``jobenv build-image --if-missing``: the registry path where one answers, else debootstrap."""
    proc = subprocess.run([sys.executable, "-m", "jobenv.cli", "build-image", "--tag", IMAGE, "--if-missing"],
                          capture_output=True, text=True, timeout=3600, cwd=str(REPO))
    if proc.returncode != 0:
        pytest.fail(f"jobenv build-image failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return IMAGE
