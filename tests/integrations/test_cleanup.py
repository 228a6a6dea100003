"""Stopping a server leaves no temp folders, and ``jobenv gc`` removes those of dead (or pid-reusing) owners."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def test_sigterm_on_jobenv_serve_removes_the_process_temp_folders(tmp_path: Path) -> None:
    from openreward import OpenReward

    from tests.hosting.serving import ServeProcess  # the hosting tests' real `jobenv serve` subprocess

    srv = ServeProcess(tmp_path, env={"JOBENV_SERVE_ENVS": "sample"})
    pid = srv.proc.pid
    client = OpenReward(api_key="local")
    try:
        env = client.environments.get("jobenv", variant="jobenvsample", base_url=srv.url)
        with env.session(split="sample", index=0) as s:
            assert "TASK_INSTRUCTIONS.txt" in s.call_tool("bash", {"command": "ls task_folder"}).blocks[0].text
            assert glob.glob(f"{tempfile.gettempdir()}/jobenv-{pid}-etc-*"), "the sandbox made no /etc copy"
            os.killpg(pid, signal.SIGTERM)  # as a supervisor stops it, with a session still open
            srv.proc.wait(timeout=180)  # a loaded CI machine: the exit itself is bounded by the server (5 s grace)
    except Exception:
        if srv.proc.poll() is None:
            raise
    finally:
        client.environments.close()
        srv.stop()
    assert srv.proc.returncode == 128 + signal.SIGTERM, srv.log()
    assert glob.glob(f"{tempfile.gettempdir()}/jobenv-{pid}-*") == []


def _folder(pid: int, age_s: float) -> Path:
    d = Path(tempfile.mkdtemp(prefix=f"jobenv-{pid}-etc-"))
    (d / "passwd").write_text("x\n")
    past = time.time() - age_s
    os.utime(d, (past, past))
    return d


def test_gc_removes_folders_of_dead_and_pid_reusing_owners() -> None:
    from jobenv.sandbox.gc import gc_host

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    made_by_dead = _folder(dead.pid, 5)
    # a live process that started after its folder was made cannot have made it: the pid was reused
    reuser: Any = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.5)
        reused = _folder(reuser.pid, 3600)
        own = _folder(os.getpid(), 0)
        gc_host(verbose=False)
        assert not made_by_dead.exists()
        assert not reused.exists()
        assert own.exists()  # this process is alive and made it
    finally:
        reuser.kill()
        reuser.wait()
        for d in (made_by_dead, own):
            shutil.rmtree(d, ignore_errors=True)


def test_gc_keeps_folders_of_live_owners() -> None:
    from jobenv.sandbox.gc import gc_host

    live: Any = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.5)
        d = _folder(live.pid, 0)  # made after the process started
        gc_host(verbose=False)
        assert d.exists()
    finally:
        live.kill()
        live.wait()
        shutil.rmtree(d, ignore_errors=True)
