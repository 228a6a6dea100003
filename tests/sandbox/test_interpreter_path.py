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
