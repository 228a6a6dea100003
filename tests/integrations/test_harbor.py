"""Harbor itself (``harbor`` from the package index, in its own Python >= 3.12 venv) loads every task directory
``jobenv export-harbor`` writes: its task model validates each ``task.toml`` and its task loader reads each
directory, with the settings jobenv meant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import jobenv
from jobenv.episode.rules import EpisodeRules
from jobenv.harbor.export import export_all

from .conftest import _venv
from .venvs import Venv

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

PROGRAM = r'''
import json, sys
from pathlib import Path
from harbor.models.task.config import TaskConfig
from harbor.models.task.task import Task
from harbor.utils.env import resolve_env_vars
out = []
for d in sorted(Path(sys.argv[1]).iterdir()):
    cfg = TaskConfig.model_validate_toml((d / "task.toml").read_text())
    task = Task(d)
    out.append({"dir": d.name, "name": cfg.task.name, "timeout": cfg.agent.timeout_sec,
                "network": cfg.agent.network_mode.value, "workdir": cfg.environment.workdir,
                "artifacts": [str(a) for a in cfg.artifacts], "verifier_env": sorted(cfg.verifier.env),
                "instruction": task.instruction == (d / "instruction.md").read_text(),
                # what Harbor's oracle runs and what its verifier uploads to /tests (its .harborignore filter applied)
                "solve": str(task.paths.discovered_solve_path_for(cfg.environment.os).relative_to(d)),
                "uploaded": sorted(str(p) for p in task.file_filter.select(task.paths.tests_dir).relative_paths),
                "verifier_values": resolve_env_vars(cfg.verifier.env)})
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def harbor_venv(tmp_path_factory: pytest.TempPathFactory, jobenv_wheel: Path) -> Venv:
    return _venv(tmp_path_factory, jobenv_wheel, "harbor-venv", "", "harbor==0.26.0", python=(3, 12))


def test_harbor_loads_every_exported_task(harbor_venv: Venv, tmp_path: Path) -> None:
    out = tmp_path / "export"
    written = export_all(jobenv.load_tasks("jobenv/sample"), out, rules=EpisodeRules(time_limit_s=1800))
    script = tmp_path / "load.py"
    script.write_text(PROGRAM)
    proc = harbor_venv.run("python", str(script), str(out), env={
        "JUDGE_KIND": "llm", "JUDGE_BASE_URL": "http://judge.example:8000/v1", "JUDGE_MODEL": "judge-m"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [g["dir"] for g in got] == sorted(p.name for p in written)
    for g in got:
        assert g["name"] == f"jobenv/{g['dir']}" and g["timeout"] == 1800.0 and g["network"] == "no-network"
        assert g["workdir"] == "/workspace" and g["artifacts"] == ["/workspace/output"] and g["instruction"]
        assert g["verifier_env"] == ["JUDGE_API_KEY", "JUDGE_BASE_URL", "JUDGE_KIND", "JUDGE_MODEL"]
        assert g["solve"] == "solution/solve.sh"
        assert f"jobenv-{jobenv.__version__}-py3-none-any.whl" in g["uploaded"] and "test.sh" in g["uploaded"]
        # Harbor resolves the judge settings from the host's variables of the same names
        assert g["verifier_values"] == {"JUDGE_KIND": "llm", "JUDGE_BASE_URL": "http://judge.example:8000/v1",
                                        "JUDGE_API_KEY": "", "JUDGE_MODEL": "judge-m"}
