"""Harbor tasks on the Docker backend: the task's ``environment/Dockerfile`` is built by the local engine from a
base image it already has (the sandbox tests' own ``jobenv-test:minbase``; nothing is pulled), the agent works in
that image at the task's workdir, and ``tests/test.sh`` runs in a separate container of the same image. A base
image the engine lacks is refused at make naming it; a failing build step fails the reset with its log; no
container or volume is left behind either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import jobenv
from jobenv.errors import SandboxError, TaskFormatError

from .conftest import write_task

DOCKERFILE = """\
ARG BASE={image}
FROM ${{BASE}}
WORKDIR /app
COPY files/ /app/data/
COPY notes.md ./
RUN mkdir -p /opt/acme && echo "acme-tool-7" > /opt/acme/VERSION
RUN echo "made-by-a-run-step" > /app/made.txt
"""
# test.sh needs what only the built image holds (/opt/acme/VERSION): it proves the verifier runs in it too
TEST_SH = """\
#!/bin/bash
got=$(tr -d '[:space:]' < /app/total.txt)
tool=$(cat /opt/acme/VERSION)
if [ "$got" = "1250" ] && [ "$tool" = "acme-tool-7" ]; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
echo "got $got with $tool"
"""


def _containers() -> set[str]:
    from jobenv.sandbox.docker import docker_client

    client = docker_client()
    try:
        return ({c.id for c in client.containers.list(all=True, filters={"label": "jobenv.sandbox=1"})}
                | {v.name for v in client.volumes.list(filters={"label": "jobenv.sandbox=1"})})
    finally:
        client.close()


def _task(tmp_path: Path, image: str, dockerfile: str = DOCKERFILE) -> Path:
    return write_task(tmp_path / "sum-invoices", test_sh=TEST_SH, dockerfile=dockerfile.format(image=image),
                      extra='env = { REGION = "emea" }')


def test_a_harbor_task_runs_in_its_built_environment(tmp_path: Path, docker_image: str) -> None:
    before = _containers()
    env = jobenv.make(str(_task(tmp_path, docker_image)), sandbox="docker")
    try:
        prompt, info = env.reset()
        assert info["sandbox"] == "docker" and "working directory is /app" in prompt
        out, *_ = env.step({"name": "bash", "arguments": {"command": "pwd; cat /opt/acme/VERSION; ls /app /app/data; cat /app/made.txt; echo region=$REGION"}})
        assert "acme-tool-7" in out and "region=emea" in out and "made-by-a-run-step" in out and "invoices.csv" in out and "notes.md" in out, out
        total = "python3 -c \"import csv; print(sum(int(r['amount']) for r in csv.DictReader(open('/app/data/invoices.csv'))))\""
        env.step({"name": "bash", "arguments": {"command": f"{total} > /app/total.txt"}})
        seen, *_ = env.step({"name": "read", "arguments": {"file_path": "total.txt"}})  # /app is /workspace
        assert "1250" in seen
        _, reward, terminated, _, info = env.step({"name": "submit", "arguments": {}})
        assert terminated and reward == 1.0 and info["status"] == "ok", info
        assert "got [redacted] with acme-tool-7" in info["report"]["verifier"]["stdout_tail"]  # EXPECTED=1250 is redacted
        env.reset()  # the image is reused, the workspace fresh
        out, *_ = env.step({"name": "bash", "arguments": {"command": "ls /app"}})
        assert "total.txt" not in out
    finally:
        env.close()
    assert _containers() == before


def test_a_base_image_the_engine_lacks_is_refused_at_make(tmp_path: Path, docker_image: str) -> None:
    root = _task(tmp_path, "python:3.12-slim-not-here")
    with pytest.raises(TaskFormatError, match="python:3.12-slim-not-here") as err:
        jobenv.make(str(root), sandbox="docker")
    assert str(root / "environment" / "Dockerfile") in str(err.value)
    with pytest.raises(TaskFormatError, match=r"`RUN mkdir -p /opt/acme && echo \"acme-tool-7\" > /opt/acme/VERSION`"):
        jobenv.make(str(root))  # the local sandbox runs no build, and its RUN steps are never skipped silently


def test_sandbox_auto_runs_a_task_with_run_steps_on_docker(tmp_path: Path, docker_image: str) -> None:
    before = _containers()
    with jobenv.make(str(_task(tmp_path, docker_image)), sandbox="auto") as env:
        assert env.sandbox_spec == "docker"
        _, info = env.reset()
        assert info["sandbox"] == "docker"
        total = "python3 -c \"import csv; print(sum(int(r['amount']) for r in csv.DictReader(open('/app/data/invoices.csv'))))\""
        env.step({"name": "bash", "arguments": {"command": f"{total} > /app/total.txt"}})
        _, reward, _, _, info = env.step({"name": "submit", "arguments": {}})
    assert reward == 1.0 and info["status"] == "ok", info  # its test.sh needs /opt/acme/VERSION, a RUN step's file
    assert _containers() == before


def test_a_failing_build_step_fails_the_reset_with_its_log(tmp_path: Path, docker_image: str) -> None:
    before = _containers()
    root = _task(tmp_path, docker_image, DOCKERFILE + "RUN echo broken-step-output && exit 3\n")
    env: Any = jobenv.make(str(root), sandbox="docker")
    try:
        with pytest.raises(SandboxError, match="the build failed") as err:
            env.reset()
        assert "broken-step-output" in str(err.value) and "Dockerfile" in str(err.value)
    finally:
        env.close()
    assert _containers() == before


SEPARATE_TEST_SH = """\
#!/bin/bash
want=$(python3 -c "import csv; print(sum(int(r['amount']) for r in csv.DictReader(open('/app/data/invoices.csv'))))")
got=$(tr -d '[:space:]' < /app/total.txt 2>/dev/null)
[ "$got" = "$want" ] && [ -f /app/made.txt ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
"""


def test_a_separate_verifier_starts_from_the_image_with_only_the_artifacts(tmp_path: Path, docker_image: str) -> None:
    root = write_task(tmp_path / "t", test_sh=SEPARATE_TEST_SH, dockerfile=DOCKERFILE.format(image=docker_image))
    toml = root / "task.toml"
    toml.write_text('artifacts = ["/app/total.txt"]\n' + toml.read_text().replace(
        "[verifier]\n", '[verifier]\nenvironment_mode = "separate"\n'))
    total = "python3 -c \"import csv; print(sum(int(r['amount']) for r in csv.DictReader(open('/app/data/invoices.csv'))))\""
    tamper = "printf 'id,amount\\n1,1000\\n' > /app/data/invoices.csv && echo 1000 > /app/total.txt && rm /app/made.txt"
    rewards = []
    with jobenv.make(str(root), sandbox="docker") as env:
        for command in (f"{total} > /app/total.txt", tamper):
            env.reset()
            env.step({"name": "bash", "arguments": {"command": command}})
            rewards.append(env.step({"name": "submit", "arguments": {}})[1])
    assert rewards == [1.0, 0.0]  # the data and made.txt come back from the image: only total.txt is the agent's
