"""Harbor itself (``harbor`` from the package index, in its own Python >= 3.12 venv) and jobenv read the same
``task.toml`` files the same way: the table of files Harbor refuses and accepts (tests/harbor/toml_cases.py, which
the loader's tests hold jobenv to) is checked against Harbor's own task model, and so are the legacy sizes and the
network each phase gets."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from jobenv.harbor.spec import read_task_dir
from tests.harbor.conftest import write_task
from tests.harbor.toml_cases import ACCEPTED, BASE, REFUSED

from .conftest import _venv
from .venvs import Venv

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

PROGRAM = r'''
import json, sys, warnings
from pathlib import Path
from harbor.models.task.config import TaskConfig
warnings.simplefilter("ignore")
out = {}
for d in sorted(Path(sys.argv[1]).iterdir()):
    try:
        cfg = TaskConfig.model_validate_toml((d / "task.toml").read_text())
    except Exception as exc:
        out[d.name] = {"refused": str(exc)[:300]}
        continue
    def mode(p):
        return [p.network_mode.value, list(p.allowed_hosts)]
    env = cfg.environment
    verifier_env = cfg.verifier.environment or env
    out[d.name] = {"memory_mb": env.memory_mb, "storage_mb": env.storage_mb,
                   "agent": mode(cfg.agent.explicit_phase_policy() or env.resolve_baseline()),
                   "verifier": mode(cfg.verifier.explicit_phase_policy() or verifier_env.resolve_baseline())}
print(json.dumps(out))
'''

NETWORK = ["", '[agent]\nnetwork_mode = "no-network"\n', "[environment]\nallow_internet = false\n",
           '[agent]\nnetwork_mode = "public"\n[environment]\nallow_internet = false\n',
           '[environment]\nallow_internet = false\nnetwork_mode = "public"\n',
           '[environment]\nnetwork_mode = "allowlist"\nallowed_hosts = ["pypi.org"]\n',
           '[verifier]\nenvironment_mode = "separate"\n[verifier.environment]\nnetwork_mode = "no-network"\n',
           '[environment]\nmemory = "4G"\nstorage = "10G"\n', '[environment]\nmemory = "2097152K"\n']


@pytest.fixture(scope="module")
def harbor_venv(tmp_path_factory: pytest.TempPathFactory, jobenv_wheel: Path) -> Venv:
    return _venv(tmp_path_factory, jobenv_wheel, "harbor-parity-venv", "", "harbor==0.26.0", python=(3, 12))


def _jobenv_view(root: Path) -> dict[str, object]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = read_task_dir(root)

    def mode(network: str, hosts: tuple[str, ...] | None) -> str:
        return "off" if network == "off" else f"web {list(hosts or [])}"

    return {"memory_mb": spec.memory_mb, "storage_mb": spec.storage_mb,
            "agent": mode(spec.network, spec.allowed_hosts), "verifier": mode(spec.verifier_network,
                                                                            spec.verifier_allowed_hosts)}


def _as_jobenv(policy: list[object]) -> str:
    mode, hosts = policy
    return "off" if mode == "no-network" or (mode == "allowlist" and not hosts) else (
        "web []" if mode == "public" else f"web {hosts}")


def test_harbor_and_jobenv_refuse_and_accept_the_same_task_toml_files(harbor_venv: Venv, tmp_path: Path) -> None:
    cases = {f"refused-{i:02d}": toml for i, (toml, _) in enumerate(REFUSED)}
    cases |= {f"accepted-{i:02d}": toml for i, toml in enumerate(ACCEPTED)}
    cases |= {f"network-{i:02d}": BASE + toml for i, toml in enumerate(NETWORK)}
    for name, toml in cases.items():
        write_task(tmp_path / "tasks" / name, toml=toml)
    script = tmp_path / "read.py"
    script.write_text(PROGRAM)
    proc = harbor_venv.run("python", str(script), str(tmp_path / "tasks"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    harbor = json.loads(proc.stdout.strip().splitlines()[-1])
    wrongly_accepted = {n: cases[n] for n in cases if n.startswith("refused") and "refused" not in harbor[n]}
    wrongly_refused = {n: harbor[n]["refused"] for n in cases if not n.startswith("refused") and "refused" in harbor[n]}
    assert wrongly_accepted == {} and wrongly_refused == {}  # the table says what Harbor does
    for name in (n for n in cases if n.startswith("network")):
        mine, theirs = _jobenv_view(tmp_path / "tasks" / name), harbor[name]
        assert (mine["memory_mb"], mine["storage_mb"]) == (theirs["memory_mb"], theirs["storage_mb"]), name
        assert (mine["agent"], mine["verifier"]) == (_as_jobenv(theirs["agent"]), _as_jobenv(theirs["verifier"])), name
