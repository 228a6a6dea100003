"""Loading Harbor task directories as Harbor itself does: the task.toml files Harbor 0.26 refuses are refused, the
ones it accepts load (legacy keys migrated as Harbor migrates them, empty lists silent), the network each phase
gets follows Harbor's resolution, compose and multi-step tasks are named for what they are, and a Dockerfile's RUN
steps are never skipped silently on the local backend."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

import jobenv
from jobenv.errors import TaskFormatError
from jobenv.harbor.spec import read_task_dir

from .conftest import DOCKERFILE, SUM, write_task
from .toml_cases import ACCEPTED, BASE, REFUSED


def _spec(tmp_path: Path, toml: str, **kw: Any) -> Any:
    root = write_task(tmp_path / "t", toml=toml, **kw)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        spec = read_task_dir(root)
    return spec, [str(w.message) for w in seen]


@pytest.mark.parametrize("toml,problem", REFUSED)
def test_task_toml_files_harbor_refuses_are_refused_naming_the_key(tmp_path: Path, toml: str, problem: str) -> None:
    root = write_task(tmp_path / "t", toml=toml)
    with pytest.raises(TaskFormatError, match=problem) as err:
        jobenv.make(str(root))
    assert str(root / "task.toml") in str(err.value)


@pytest.mark.parametrize("toml", ACCEPTED)
def test_task_toml_files_harbor_accepts_load(tmp_path: Path, toml: str) -> None:
    root = write_task(tmp_path / "t", toml=toml)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (task,) = jobenv.load_tasks(str(root))
    assert task.harbor is not None


def test_allowed_hosts_are_normalised_as_harbor_does(tmp_path: Path) -> None:
    spec, _ = _spec(tmp_path, BASE + '[agent]\nnetwork_mode = "allowlist"\nallowed_hosts = ["PyPI.org.", "10.0.0.0/8"]\n')
    assert spec.allowed_hosts == ("pypi.org", "10.0.0.0/8")


@pytest.mark.parametrize("environment,memory,storage", [
    ('memory = "4G"\nstorage = "10G"', 4096, 10240),
    ('memory = "512M"', 512, None),
    ('memory = "1.5G"\nmemory_mb = 1536', 1536, None),  # agreeing values are fine
    ('memory = "2097152K"', 2048, None),
])
def test_legacy_memory_and_storage_are_read_as_harbor_reads_them(tmp_path: Path, environment: str,
                                                                  memory: int, storage: int | None) -> None:
    spec, msgs = _spec(tmp_path, BASE + f"[environment]\n{environment}\n")
    assert (spec.memory_mb, spec.storage_mb) == (memory, storage)
    assert not any("does not apply" in m for m in msgs), msgs  # migrated, so not "not applied"


def test_empty_lists_draw_no_warning_and_filled_ones_are_listed(tmp_path: Path) -> None:
    _, msgs = _spec(tmp_path / "a", "artifacts = []\n" + BASE + "[environment]\nmcp_servers = []\n[verifier]\ncollect = []\n")
    assert msgs == []
    _, msgs = _spec(tmp_path / "b", BASE + '[[environment.mcp_servers]]\nname = "docs"\nurl = "http://docs:8000/sse"\n'
                    '[[verifier.collect]]\ncommand = "pg_dump > /tmp/db.sql"\n')
    (msg,) = [m for m in msgs if "does not apply" in m]
    assert "environment.mcp_servers" in msg and "verifier.collect" in msg


# Harbor's resolution: the environment's baseline (network_mode, default public; legacy allow_internet), the
# agent's override, the verifier's override else the baseline of the environment it runs in
@pytest.mark.parametrize("toml,agent,verifier", [
    ("", ("web", None), ("web", None)),
    ('[agent]\nnetwork_mode = "no-network"\n', ("off", None), ("web", None)),
    ('[environment]\nnetwork_mode = "no-network"\n', ("off", None), ("off", None)),
    ("[environment]\nallow_internet = false\n", ("off", None), ("off", None)),
    ("[environment]\nallow_internet = true\n", ("web", None), ("web", None)),
    ('[environment]\nallow_internet = false\nnetwork_mode = "public"\n', ("web", None), ("web", None)),
    ('[agent]\nnetwork_mode = "public"\n[environment]\nallow_internet = false\n', ("web", None), ("off", None)),
    ('[verifier]\nnetwork_mode = "no-network"\n', ("web", None), ("off", None)),
    ('[environment]\nnetwork_mode = "allowlist"\nallowed_hosts = ["pypi.org"]\n', ("web", ("pypi.org",)),
     ("web", ("pypi.org",))),
    ('[verifier]\nenvironment_mode = "separate"\n[verifier.environment]\nnetwork_mode = "no-network"\n',
     ("web", None), ("off", None)),
])
def test_each_phase_gets_the_network_harbor_gives_it(tmp_path: Path, toml: str, agent: tuple[str, Any],
                                                      verifier: tuple[str, Any]) -> None:
    spec, _ = _spec(tmp_path, BASE + toml)
    assert (spec.network, spec.allowed_hosts) == agent
    assert (spec.verifier_network, spec.verifier_allowed_hosts) == verifier


def _compose(root: Path) -> Path:
    write_task(root)
    (root / "environment" / "docker-compose.yaml").write_text(
        "services:\n  main:\n    build: .\n  db:\n    image: postgres:16\n")
    return root


def _multi_step(root: Path) -> Path:
    write_task(root, toml=BASE + '[[steps]]\nname = "draft"\n[[steps]]\nname = "revise"\n')
    (root / "instruction.md").unlink()  # a multi-step task's instructions are its steps'
    for step in ("draft", "revise"):
        (root / "steps" / step / "tests").mkdir(parents=True)
        (root / "steps" / step / "instruction.md").write_text(f"Do the {step}.\n")
        (root / "steps" / step / "tests" / "test.sh").write_text("echo 1 > /logs/verifier/reward.txt\n")
    return root


@pytest.mark.parametrize("build,what", [(_compose, "a compose task"), (_multi_step, "a multi-step task")])
def test_compose_and_multi_step_tasks_are_named_and_left_out_of_a_folder(tmp_path: Path, build: Any,
                                                                         what: str) -> None:
    odd = build(tmp_path / "suite" / "odd")
    with pytest.raises(TaskFormatError, match=what) as err:
        jobenv.make(str(odd))
    assert "jobenv" in str(err.value) and "does not run" in str(err.value) and "JobBench" not in str(err.value)
    write_task(tmp_path / "suite" / "plain")
    with pytest.warns(UserWarning, match=f"odd: .*{what}"):
        tasks = jobenv.load_tasks(str(tmp_path / "suite"))
    assert [t.meta["harbor_name"] for t in tasks] == ["acme/sum-invoices"]


def test_a_folder_of_only_tasks_jobenv_does_not_run_says_so(tmp_path: Path) -> None:
    _compose(tmp_path / "suite" / "only")
    with pytest.warns(UserWarning, match="compose"), pytest.raises(TaskFormatError, match="no Harbor task jobenv runs"):
        jobenv.load_tasks(str(tmp_path / "suite"))


def test_a_windows_task_is_refused(tmp_path: Path) -> None:
    root = write_task(tmp_path / "t", toml=BASE + '[environment]\nos = "Windows"\n')
    with pytest.raises(TaskFormatError, match="Linux only"):
        jobenv.make(str(root))


def test_run_steps_are_refused_on_the_local_backend_naming_the_step(tmp_path: Path) -> None:
    root = write_task(tmp_path / "t", dockerfile=DOCKERFILE + "RUN pip install --no-cache-dir pandas==2.2.2\n"
                      "RUN mkdir -p /app/out\n")
    with pytest.raises(TaskFormatError, match=r"`RUN pip install --no-cache-dir pandas==2.2.2`") as err:
        jobenv.make(str(root))
    assert "sandbox='docker'" in str(err.value) and str(root / "environment" / "Dockerfile") in str(err.value)
    # with no engine answering, auto stays local and says why
    with pytest.raises(TaskFormatError, match="sandbox='auto' found no Docker engine"):
        jobenv.make(str(root), sandbox="auto", sandbox_options={"base_url": f"unix://{tmp_path}/no-docker.sock"})


@pytest.mark.parametrize("dockerfile,steps", [
    ("FROM python:3.12-slim\nWORKDIR /app\nCOPY files/ /app/data/\nRUN mkdir -p /app/out data/x\n", []),
    ("FROM python:3.12-slim\nWORKDIR /app\nCOPY files/ /app/data/\nRUN mkdir -p /opt/tool\n", ["RUN mkdir -p /opt/tool"]),
    ("FROM python:3.12 AS build\nRUN pip wheel numpy\nFROM python:3.12-slim\nWORKDIR /app\nCOPY --from=build /w /app/w\n",
     ["COPY --from=build /w /app/w"]),
    ("FROM python:3.12-slim\nWORKDIR /app\nRUN apt-get update && \\\n    apt-get install -y curl\n",
     ["RUN apt-get update && apt-get install -y curl"]),
])
def test_which_steps_the_local_sandbox_cannot_apply(tmp_path: Path, dockerfile: str, steps: list[str]) -> None:
    spec, _ = _spec(tmp_path, BASE, dockerfile=dockerfile)
    assert list(spec.run_steps) == steps


def test_a_task_whose_run_steps_are_only_workdir_mkdirs_runs_locally(tmp_path: Path) -> None:
    root = write_task(tmp_path / "t", dockerfile=DOCKERFILE + "RUN mkdir -p /app/out\n")
    env = jobenv.make(str(root), sandbox="auto")
    try:
        assert env.sandbox_spec == "local"
        env.reset()
        out, *_ = env.step({"name": "bash", "arguments": {"command": f"test -d /app/out && {SUM} && echo made"}})
        assert "made" in out
        _, reward, *_ = env.step({"name": "submit", "arguments": {}})
    finally:
        env.close()
    assert reward == 1.0
