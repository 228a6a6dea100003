"""One wheel of the checkout per test session (the ``jobenv_wheel`` fixture of tests/conftest.py): what users install."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["build_wheel"]

REPO = Path(__file__).resolve().parents[2]


def build_wheel(dest: Path) -> Path:
    """A wheel of the checkout (tracked and untracked, not ignored, files), built in a copy of the tree."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           capture_output=True, check=True).stdout.split(b"\0")
    src = dest / "src"
    for raw in files:
        if not raw:
            continue
        rel = raw.decode()
        if not (REPO / rel).is_file():  # deleted in the work tree
            continue
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, src / rel)
    out = dest / "dist"
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"building the jobenv wheel failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    wheels = sorted(out.glob("jobenv-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]
