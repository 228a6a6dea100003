"""A forgotten env (never closed) is cleaned up when the interpreter exits."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_forgotten_env_is_cleaned_at_exit(tmp_path):
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    script = textwrap.dedent(
        """
        import os, tempfile, jobenv
        env = jobenv.make("jobenv/sample", judge="checks", sandbox_options={"unsafe_no_isolation": True})
        env.reset(seed=0)
        env.step({"name": "write", "arguments": {"file_path": "output/x.txt", "content": "x"}})
        print("LIVE", sorted(os.listdir(tempfile.gettempdir())))
        # exit without env.close(): the finalizers must remove the sandbox
        """
    )
    p = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**os.environ, "TMPDIR": str(private_tmp)},
    )
    assert p.returncode == 0, p.stderr
    live = p.stdout.split("LIVE", 1)[1]
    assert "jobenv" in live  # the sandbox really lived in the private temp dir...
    assert os.listdir(private_tmp) == []  # ...and is gone after exit
