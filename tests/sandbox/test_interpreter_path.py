"""A trainer started through a relative interpreter path (``cd runs && ../.venv/bin/python train.py``) still gets
working sandboxes: the interpreter is named inside without ``..`` (issue: the trainer contract)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import asyncio, sys
from jobenv.sandbox import make_sandbox
async def main():
    sb = make_sandbox("local")
    await sb.start(None)
    try:
        print((await sb.run("python3 -c 'print(6 * 7)'")).output.strip())
    finally:
        await sb.close()
asyncio.run(main())
"""


def test_a_relative_interpreter_path_with_dot_dot(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    rel = os.path.relpath(sys.executable, runs)
    assert rel.startswith("..")
    proc = subprocess.run([rel, "-c", PROBE], cwd=runs, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().endswith("42")


REFUSAL_PROBE = """
import asyncio
from jobenv.errors import SandboxUnavailableError
from jobenv.sandbox import make_sandbox
async def main():
    try:
        await make_sandbox("local").start(None)
        print("STARTED")
    except SandboxUnavailableError as exc:
        print("REFUSED", exc)
asyncio.run(main())
"""


def test_an_interpreter_the_commands_cannot_read_is_refused_clearly(tmp_path: Path) -> None:
    """As root, commands run as an unprivileged uid: a venv whose own folder is 0700 would give them a python3
    without its packages, so the start is refused naming the folder and the fix."""
    if os.geteuid() != 0:
        import pytest

        pytest.skip("as a normal user the commands run as that user, who can read its own venv")
    import sysconfig

    venv = tmp_path / "closed-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    venv.chmod(0o700)
    purelib = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n" + str(Path(__file__).resolve().parents[2]) + "\n")
    # without the toolchain the sandbox runs on this venv's interpreter ...
    proc = subprocess.run([str(venv / "bin" / "python"), "-c", REFUSAL_PROBE], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "JOBENV_TOOLCHAIN": "none"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("REFUSED") and str(venv) in proc.stdout and "chmod o+rx" in proc.stdout, proc.stdout
    # ... and a toolchain the commands cannot read is refused the same way
    closed_tc = tmp_path / "closed-toolchain"  # a small stand-in: a venv with a toolchain manifest
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(closed_tc)], check=True, timeout=120)
    from jobenv.sandbox.toolchain import MANIFEST_NAME, TOOLCHAIN_VERSION, ToolchainManifest

    (closed_tc / MANIFEST_NAME).write_text(ToolchainManifest(version=TOOLCHAIN_VERSION, python="3").model_dump_json())
    closed_tc.chmod(0o700)
    proc = subprocess.run([str(venv / "bin" / "python"), "-c", REFUSAL_PROBE], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "JOBENV_TOOLCHAIN": str(closed_tc)})
    assert proc.stdout.startswith("REFUSED") and str(closed_tc) in proc.stdout, proc.stdout + proc.stderr[-2000:]
