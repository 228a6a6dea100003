"""Planted code reads no secret of the host: extraction workers (and the programs they start) get an allow-list of
variables, sandboxes none of the host's at all. Secrets are named as real deployments name them (no KEY/TOKEN in
``DATABASE_URL`` or ``SOME_RANDOM_SECRET``'s value), so a rule by name would let them through.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from jobenv.settings import child_env
from tests.sandbox.fixtures import ROOT, run

SECRETS = {"DATABASE_URL": "postgres://app:hunter2-db-pass@db.internal:5432/prod",
           "GITHUB_PAT": "github_pat_11ABCDEFG0123456789",
           "SOME_RANDOM_SECRET": "plain-words-nobody-should-read",
           "JOBENV_JUDGE_API_KEY": "sk-judge-value-31337",
           "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI-example"}


def _leaks(text: str) -> list[str]:
    return [name for name, value in SECRETS.items() if value in text]


def test_child_env_is_an_allow_list() -> None:
    environ = {**SECRETS, "PATH": "/usr/bin", "LANG": "C.UTF-8", "LC_NUMERIC": "de_DE.UTF-8", "HOME": "/home/u",
               "JOBENV_RECALC": "formulas", "JOBENV_EXTRACT_WORKERS": "2", "JOBENV_SERVE_API_KEY": "serve-key-9",
               "PYTHONSTARTUP": "/home/u/evil.py", "LD_PRELOAD": "/tmp/x.so", "http_proxy": "http://u:p@proxy:3128"}
    assert child_env(environ) == {"PATH": "/usr/bin", "LANG": "C.UTF-8", "LC_NUMERIC": "de_DE.UTF-8",
                                  "HOME": "/home/u", "JOBENV_RECALC": "formulas", "JOBENV_EXTRACT_WORKERS": "2"}


# the probe plants a program where a parser's helper is looked up (a `soffice` first on PATH): what it prints is
# what code running in an extraction worker could read, live (after the worker took its job's variables)
WORKER_PROBE = r"""
import json, os, sys
from pathlib import Path
from jobenv.extract.service import extraction_service

out, dump = Path(sys.argv[1]), Path(sys.argv[2])
ex = extraction_service().extract_output_sync(out)
workers = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"jobenv.extract.worker" in argv:
                workers.append(Path(f"/proc/{pid}/environ").read_bytes().decode("utf-8", "replace"))
        except OSError:
            pass
import jobenv
print(json.dumps({"text": ex.text[:3000], "workers": workers, "jobenv": jobenv.__file__}))
"""


@pytest.fixture(scope="module")
def wheel_python(jobenv_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh venv holding the wheel as users install it (dependencies through a .pth line, no download)."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "_jobenv_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet", "--python", str(py),
                    "install", "--no-deps", str(jobenv_wheel)], check=True, timeout=600)
    return str(py)


@pytest.mark.parametrize("install", ["editable", "wheel"])
def test_an_extraction_worker_and_what_it_starts_see_no_secret(install: str, tmp_path: Path,
                                                               request: pytest.FixtureRequest) -> None:
    import openpyxl

    python = sys.executable if install == "editable" else request.getfixturevalue("wheel_python")

    out = tmp_path / "out"
    out.mkdir()
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["A3"] = 1200, 50, "=A1+A2"
    wb.save(out / "totals.xlsx")
    bin_dir, dump = tmp_path / "planted-bin", tmp_path / "seen.env"
    bin_dir.mkdir()
    soffice = bin_dir / "soffice"
    soffice.write_text(f"#!/bin/sh\nenv >> {dump}\necho ---- >> {dump}\n")
    soffice.chmod(0o755)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}, **SECRETS,
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "JOBENV_RECALC": "libreoffice",
           "JOBENV_EXTRACT_DEBUG": "0"}
    proc = subprocess.run([python, "-c", WORKER_PROBE, str(out), str(dump)], capture_output=True, text=True,
                          timeout=300, env=env, cwd="/")
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "totals.xlsx" in got["text"] and (install == "editable") == got["jobenv"].startswith(str(ROOT))
    seen = dump.read_text()  # the planted program ran, inside the worker's job
    assert "PATH=" in seen and "JOBENV_RECALC=libreoffice" in seen
    assert _leaks(seen) == [], seen
    assert got["workers"], "no extraction worker was found"
    for environ in got["workers"]:
        assert _leaks(environ) == [], environ


def test_a_sandbox_command_sees_no_host_variable(new_sandbox: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)

    async def go() -> str:
        sb = await new_sandbox(None)
        r = await sb.run("env; cat /proc/1/environ 2>/dev/null | tr '\\0' '\\n'", timeout=60)
        assert r.exit_code in (0, 1), r.output
        return r.output

    seen = run(go())
    assert "PATH=" in seen and "HOME=/tmp" in seen
    assert _leaks(seen) == [], seen


def test_what_launches_a_local_sandbox_and_carries_its_traffic_sees_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """bwrap (and the native launcher before it), pasta (the user-mode network stack that handles the agent's
    packets) and its route watcher run on the host: they get the allow-list too."""
    from jobenv.sandbox import SandboxLimits
    from jobenv.sandbox.local import LocalSandbox
    from tests.support.procs import descendants

    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)

    async def go() -> dict[str, str]:
        sb = LocalSandbox(SandboxLimits(network="web"))  # never from the warm pool: launched now, with these variables
        await sb.start(None)
        try:
            seen = {}
            for pid in descendants(os.getpid()):
                try:
                    name = Path(f"/proc/{pid}/comm").read_text().strip()
                    seen[f"{name}-{pid}"] = Path(f"/proc/{pid}/environ").read_bytes().decode("utf-8", "replace")
                except OSError:
                    pass
            return seen
        finally:
            await sb.close()

    seen = run(go())
    assert any(k.startswith("pas") for k in seen) and any(k.startswith("bwrap") for k in seen), sorted(seen)
    for name, environ in seen.items():
        assert _leaks(environ) == [], (name, environ)
