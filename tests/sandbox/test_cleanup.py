"""Sandboxes leave nothing behind: close, garbage collection, and `jobenv gc` after a crashed owner."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time

import pytest

from jobenv.cli import gc as gc_command
from jobenv.cli._common import NoOptions
from jobenv.sandbox import make_sandbox
from tests.sandbox.fixtures import ROOT, run


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.02)
    return False


def test_local_close_kills_processes_and_removes_cgroups() -> None:
    sb = make_sandbox("local")
    sb.start_sync(None)
    pid = sb._state["agent_pid"]  # type: ignore[attr-defined]
    cgroups = list(sb._state["cgroups"])  # type: ignore[attr-defined]
    assert _alive(pid)
    sb.close_sync()
    assert _wait_gone(pid)
    assert all(not os.path.exists(d) for d in cgroups)


def test_local_sandbox_is_closed_on_garbage_collection() -> None:
    sb = make_sandbox("local")
    sb.start_sync(None)
    pid = sb._state["agent_pid"]  # type: ignore[attr-defined]
    del sb
    gc.collect()
    assert _wait_gone(pid)


def test_docker_close_removes_container_and_volume(docker_image: str) -> None:
    from jobenv.sandbox.docker import docker_client

    sb = make_sandbox("docker", image=docker_image)
    sb.start_sync(None)
    cid, vol = sb._state["container"], sb._state["volume"]  # type: ignore[attr-defined]
    client = docker_client()
    try:
        assert client.containers.get(cid).status == "running"
        sb.close_sync()
        sb.close_sync()
        ids = [c.id for c in client.containers.list(all=True, filters={"label": "jobenv.sandbox=1"})]
        assert cid not in ids
        assert vol not in [v.name for v in client.volumes.list(filters={"label": "jobenv.sandbox=1"})]
    finally:
        client.close()


_CRASHER = """
import asyncio, json, os, signal, sys
from jobenv.sandbox import make_sandbox
async def main():
    loc = make_sandbox("local"); await loc.start(None)
    dock = make_sandbox("docker", image=sys.argv[1]); await dock.start(None)
    print(json.dumps({"pid": os.getpid(), "agent": loc._state["agent_pid"], "cgroups": loc._state["cgroups"],
                      "container": dock._state["container"], "volume": dock._state["volume"]}), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # crash: no close, no atexit
asyncio.run(main())
"""


def test_gc_removes_what_a_crashed_process_left(docker_image: str, capsys: pytest.CaptureFixture[str]) -> None:
    from jobenv.sandbox.docker import docker_client

    proc = subprocess.run([sys.executable, "-c", _CRASHER, docker_image], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == -9, proc.stderr
    left = json.loads(proc.stdout.strip().splitlines()[-1])
    # bubblewrap dies with its parent: no sandbox process survives the crash
    assert _wait_gone(left["agent"])
    client = docker_client()
    try:
        assert client.containers.get(left["container"])  # the container is still there
        assert gc_command.run(NoOptions()) == 0
        out = capsys.readouterr().out
        assert left["container"][:12] in out
        assert f"jobenv-{left['pid']}-etc-" in out  # the crashed process's /etc copy
        assert left["container"] not in [c.id for c in client.containers.list(all=True)]
        assert left["volume"] not in [v.name for v in client.volumes.list()]
        for d in left["cgroups"]:
            assert not os.path.exists(d), d
        import tempfile

        assert not [n for n in os.listdir(tempfile.gettempdir()) if n.startswith(f"jobenv-{left['pid']}-")]
    finally:
        client.close()


def test_local_sandbox_killed_from_outside_reports_an_error() -> None:
    import signal

    from jobenv.errors import SandboxError

    async def body() -> None:
        sb = make_sandbox("local")
        await sb.start(None)
        try:
            os.kill(sb._state["agent_pid"], signal.SIGKILL)  # type: ignore[attr-defined]
            assert _wait_gone(sb._state["agent_pid"])  # type: ignore[attr-defined]
            with pytest.raises(SandboxError, match="died"):
                await sb.run("true")
            with pytest.raises(SandboxError):
                await sb.read_file("output/x")
        finally:
            await sb.close()

    run(body())
