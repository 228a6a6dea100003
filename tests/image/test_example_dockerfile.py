"""The OpenReward example Dockerfile builds from the checkout and the container serves the bundled route.

It builds FROM its default base image when a registry can provide it, else FROM the knowledge-worker image
(built without a registry), passed as the BASE_IMAGE build argument the deploy notes document.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.request
from typing import Any

import pytest

from .conftest import REPO

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(3600)]

TAG = "jobenv-openreward:test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_example_image_builds_from_the_checkout_and_serves(docker_client: Any, knowledge_worker_image: str) -> None:
    import docker

    from jobenv.sandbox.image import registry_available

    default_base = "python:3.11-slim-bookworm"
    base = default_base if registry_available(docker_client, default_base) else knowledge_worker_image
    log: list[str] = []
    for chunk in docker_client.api.build(path=str(REPO), dockerfile="examples/openreward/Dockerfile", tag=TAG,
                                         buildargs={"BASE_IMAGE": base}, rm=True, decode=True):
        log.append(str(chunk.get("stream", "")).rstrip())
        assert "error" not in chunk, "\n".join(log[-30:]) + "\n" + str(chunk["error"])
    port = _free_port()
    container = docker_client.containers.run(
        TAG, detach=True, ports={"8080/tcp": ("127.0.0.1", port)}, environment={"JOBENV_SERVE_JUDGE": "checks"},
        security_opt=["seccomp=unconfined", "apparmor=unconfined"],
    )
    try:
        deadline = time.monotonic() + 180
        routes = None
        while time.monotonic() < deadline:
            container.reload()
            assert container.status in ("created", "running"), container.logs().decode()[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/list_environments", timeout=3) as r:
                    routes = json.loads(r.read())
                break
            except OSError:
                time.sleep(0.5)
        logs = container.logs().decode(errors="replace")
        # no data uploaded and no synthetic extra: the rest is skipped; the default route serves what loads
        assert routes == ["jobenv", "jobenvsample"], logs[-3000:]
        assert "not serving /jobbench" in logs and "not serving /jobtasks" in logs
        # the installed package is the wheel's, not a copy of the checkout
        code, out = container.exec_run(["python", "-c", "import jobenv, os; print(jobenv.__file__)"])
        assert code == 0 and "/opt/jobenv/" in out.decode(), out
    finally:
        try:
            container.remove(force=True)
        except docker.errors.DockerException:
            pass
