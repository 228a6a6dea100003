"""Fixtures of the trainer-integration tests: one jobenv wheel per session, a fresh venv per integration, the
scripted policy on loopback and the rewards ``jobenv rollout`` gives it (the reference every integration must
reproduce)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.rollout.scripted import ScriptedAgent
from tests.support.openai_server import OpenAIServer

from .venvs import Unavailable, Venv, make_venv, python_at_least

# Pins of what the tests were written against; newer releases may change the entry points they drive.
VERIFIERS = "verifiers==0.4.0"
OPENENV = "openenv==0.10.0"
NEMO_GYM = "nemo-gym==0.4.0"
# SkyRL's generator imports torch (a CUDA build from the index; it runs on the CPU here); its output validation
# and advantage estimators import its trainer's modules, which need torchdata and jaxtyping beside it
EVALSCOPE = "evalscope==1.14.1"
SKYRL = ("skyrl==0.3.0", "skyrl-gym==0.4.0", "torchdata", "jaxtyping")


def _venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path, name: str, extra: str, *more: str,
          python: tuple[int, int] | None = None) -> Venv:
    try:
        interpreter = python_at_least(python) if python else None
        venv = make_venv(tmp_path_factory.mktemp(name) / "venv", wheel, extra, *more, python=interpreter)
    except Unavailable as exc:
        print(f"\nSKIP {name}: {exc}", file=sys.stderr)
        pytest.skip(str(exc))
    print(f"\n{name}: installed {wheel.name}[{extra}] {' '.join(more)} in {venv.install_s:.0f} s", file=sys.stderr)
    return venv


@pytest.fixture(scope="session")
def verifiers_venv(tmp_path_factory: pytest.TempPathFactory, jobenv_wheel: Path) -> Venv:
    return _venv(tmp_path_factory, jobenv_wheel, "verifiers-venv", "verifiers", VERIFIERS)


@pytest.fixture(scope="session")
def openenv_venv(tmp_path_factory: pytest.TempPathFactory, jobenv_wheel: Path) -> Venv:
    return _venv(tmp_path_factory, jobenv_wheel, "openenv-venv", "openenv", OPENENV)


@pytest.fixture(scope="session")
def nemo_gym_venv(tmp_path_factory: pytest.TempPathFactory, jobenv_wheel: Path) -> Venv:
    return _venv(tmp_path_factory, jobenv_wheel, "nemo-gym-venv", "nemo-gym", NEMO_GYM, python=(3, 12))


@pytest.fixture(scope="session")
def skyrl_venv(tmp_path_factory: pytest.TempPathFactory, jobenv_wheel: Path) -> Venv:
    # SkyRL passes a typing.TypedDict to pydantic, which needs Python >= 3.12 for it
    return _venv(tmp_path_factory, jobenv_wheel, "skyrl-venv", "hosting,skyrl", *SKYRL, python=(3, 12))


@pytest.fixture(scope="session")
def evalscope_venv(tmp_path_factory: pytest.TempPathFactory, jobenv_wheel: Path) -> Venv:
    return _venv(tmp_path_factory, jobenv_wheel, "evalscope-venv", "evalscope", EVALSCOPE)


@pytest.fixture(scope="session")
def hosting_venv(tmp_path_factory: pytest.TempPathFactory, jobenv_wheel: Path) -> Venv:
    return _venv(tmp_path_factory, jobenv_wheel, "hosting-venv", "hosting,openenv", OPENENV)


@pytest.fixture(scope="session")
def sample() -> list[Any]:
    import jobenv

    return jobenv.load_tasks("jobenv/sample")


@pytest.fixture(scope="session")
def policy(sample: list[Any]) -> Iterator[tuple[OpenAIServer, ScriptedAgent]]:
    """The scripted policy (the reference solution, written and run through the tools) on loopback."""
    agent = ScriptedAgent(sample)
    with OpenAIServer(agent) as srv:
        yield srv, agent


@pytest.fixture(scope="session")
def rollout_rewards(policy: tuple[OpenAIServer, ScriptedAgent], tmp_path_factory: pytest.TempPathFactory,
                    sample: list[Any]) -> dict[str, float]:
    """task id -> reward that ``jobenv rollout`` gives the scripted policy on jobenv/sample."""
    srv, _ = policy
    out = tmp_path_factory.mktemp("rollout") / "traj.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "jobenv.cli", "rollout", "jobenv/sample", "--model", "scripted", "--base-url",
         srv.base_url, "--api-key", "k", "--judge", "checks", "--concurrency", "4", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    # episode lines only: tool schemas and shared texts are records of their own, once per file
    recs = [r for r in map(json.loads, out.read_text().splitlines()) if r.get("record", "episode") == "episode"]
    rewards = {r["task_id"].split("/", 1)[-1] if r["task_id"].count("/") == 2 else r["task_id"]: r["reward"]
               for r in recs}
    assert set(rewards) == {t.id for t in sample}, rewards
    assert {r["status"] for r in recs} == {"ok"}
    return rewards
