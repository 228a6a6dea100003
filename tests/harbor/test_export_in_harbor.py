"""An exported task graded the way Harbor grades it: a container of the task's own image (built by the local engine
from its ``environment/Dockerfile``), Harbor's oracle running ``solution/solve.sh``, then ``tests/test.sh`` with
``/tests`` and ``/logs`` and ``[verifier] env`` from the host (see :mod:`tests.harbor.harbor_docker`).

The export's base image stands in for jobenv's knowledge-worker image: the Docker tests' Debian minbase with pip,
venv and the two libraries the task's reference solution imports. jobenv itself is nowhere in it: ``test.sh``
installs the wheel bundled in ``tests/`` (its dependencies from the package index) and grades with the LLM judge,
a stand-in OpenAI-compatible server on the host that passes the criteria only for the reference figures."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import jobenv
from jobenv.episode.rules import EpisodeRules
from jobenv.harbor.export import export_all
from tests.judge.conftest import n_criteria, prompt_text, verdict
from tests.support.openai_server import OpenAIServer, Reply

from .harbor_docker import HOST_ALIAS, bridge_gateway, build_image, start_trial

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(1800)]

TASK = "financial_managers/task1"
BASE_TAG = "jobenv-test:harbor-verifier"
BASE_DOCKERFILE = """\
FROM {minbase}
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-venv python3-pip ca-certificates \\
    >/dev/null && rm -rf /var/lib/apt/lists/*
# this machine's CA bundle: the package index is reached through its proxy, as the host reaches it
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python3 -m pip install --quiet --break-system-packages pandas==2.2.3 openpyxl==3.1.5
WORKDIR /workspace
"""


@pytest.fixture(scope="module")
def client() -> Any:
    from jobenv.errors import SandboxUnavailableError
    from jobenv.sandbox.docker import docker_client

    try:
        c = docker_client()
    except SandboxUnavailableError as exc:
        pytest.skip(f"Docker engine not available on this machine: {exc}")
    yield c
    for container in c.containers.list(all=True, filters={"label": "jobenv.test.harbor=1"}):
        container.remove(force=True)
    c.close()


@pytest.fixture(scope="module")
def base_image(client: Any, docker_image: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The stand-in knowledge-worker image, built once and kept by tag."""
    try:
        client.images.get(BASE_TAG)
        return BASE_TAG
    except Exception:  # noqa: BLE001 - not there yet
        pass
    ctx = tmp_path_factory.mktemp("harbor-base")
    (ctx / "Dockerfile").write_text(BASE_DOCKERFILE.format(minbase=docker_image))
    shutil.copyfile("/etc/ssl/certs/ca-certificates.crt", ctx / "ca-certificates.crt")
    client.images.build(path=str(ctx), tag=BASE_TAG, pull=False, rm=True, forcerm=True)
    return BASE_TAG


@pytest.fixture(scope="module")
def exported(base_image: str, client: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("export")
    (task,) = [t for t in jobenv.load_tasks("jobenv/sample") if t.id == TASK]
    (task_dir,) = export_all([task], out, rules=EpisodeRules(), image=base_image)
    return task_dir, build_image(client, task_dir, "jobenv-test/harbor-export:financial")


@pytest.fixture(scope="module")
def reference_line(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The reference memo's net-variance line (the stand-in judge's answer key), by the reference solution."""
    (task,) = [t for t in jobenv.load_tasks("jobenv/sample") if t.id == TASK]
    out = tmp_path_factory.mktemp("reference")
    subprocess.run([sys.executable, str(task.solution / "solve.py"), str(task.task_folder), str(out)], check=True,
                   timeout=300)
    return next(line for line in (out / "variance_memo.md").read_text().splitlines()
                if line.startswith("Total net variance:"))


def _judge(reference: str):  # type: ignore[no-untyped-def]
    def handler(request: dict[str, Any]) -> Reply:
        n = n_criteria(request)
        deliverables = prompt_text(request).split("## Deliverables", 1)[-1]
        return Reply(content=json.dumps(verdict(n, [reference in deliverables] * n)))
    return handler


def _trial(client: Any, exported: tuple[Path, str], tmp_path: Path, agent: str, server: OpenAIServer) -> dict[str, float]:
    task_dir, image = exported
    trial = start_trial(client, image, task_dir, tmp_path / "logs")
    try:
        if agent == "oracle":
            assert trial.oracle() == 0, (tmp_path / "logs" / "agent" / "oracle.txt").read_text()
        elif agent == "wrong":  # a memo in the right place with another total
            trial.exec("printf '# Q3 review\\nTotal net variance: $1.00\\n' > /workspace/output/variance_memo.md")
        port = server.base_url.rsplit(":", 1)[1]
        host = {"JUDGE_KIND": "llm", "JUDGE_BASE_URL": f"http://{HOST_ALIAS}:{port}", "JUDGE_API_KEY": "sk-test",
                "JUDGE_MODEL": "stand-in-judge"}
        return trial.verify(host)
    finally:
        trial.container.remove(force=True)


def test_the_oracle_earns_full_credit_and_a_no_op_none(client: Any, exported: tuple[Path, str], tmp_path: Path,
                                                         reference_line: str) -> None:
    with OpenAIServer(_judge(reference_line), host=bridge_gateway(client)) as server:
        oracle = _trial(client, exported, tmp_path / "oracle", "oracle", server)
        assert oracle["reward"] == 1.0 and oracle["strict_pass"] == 1.0, oracle
        assert server.requests and {r["model"] for r in server.requests} == {"stand-in-judge"}
        calls = len(server.requests)
        nothing = _trial(client, exported, tmp_path / "noop", "no-op", server)
        assert nothing["reward"] == 0.0, nothing
        wrong = _trial(client, exported, tmp_path / "wrong", "wrong", server)
        assert wrong["reward"] < 1.0 and wrong["strict_pass"] == 0.0, wrong
        assert len(server.requests) > calls  # the wrong memo was read by the judge, and failed there
    # the verifier installed jobenv from the bundled wheel (the image has none): its install log is there
    assert (tmp_path / "oracle" / "logs" / "verifier" / "install.txt").is_file()


def test_without_a_judge_endpoint_the_verifier_records_no_reward(client: Any, exported: tuple[Path, str],
                                                                   tmp_path: Path) -> None:
    """The judge's settings come from the verifier's environment only: with none, an LLM grading is an error (no
    reward file, Harbor's verifier error), never a score."""
    task_dir, image = exported
    trial = start_trial(client, image, task_dir, tmp_path / "logs")
    try:
        assert trial.oracle() == 0
        with pytest.raises(RuntimeError, match="no reward file"):
            trial.verify({"JUDGE_KIND": "llm"})
    finally:
        trial.container.remove(force=True)
