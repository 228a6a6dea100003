"""PID 1 of a local sandbox: the native controller and its Python fallback keep the same protocol and guarantees.

Every behaviour test runs on both (``JOBENV_CONTROLLER=native`` / ``python``) against real bubblewrap sandboxes;
the choice itself (build, cache trust, fallback, refusal) is tested with a real compiler and a PATH without one.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from jobenv.errors import ConfigError, SandboxUnavailableError
from jobenv.sandbox import Sandbox, SandboxLimits, make_sandbox
from jobenv.sandbox.local import _native, controller_note
from tests.sandbox.fixtures import run

CONTROLLERS = ["native", "python"]


@pytest.fixture(params=CONTROLLERS)
def controller(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("JOBENV_CONTROLLER", request.param)
    return str(request.param)


@contextlib.asynccontextmanager
async def _started(**limits: object) -> AsyncIterator[Sandbox]:
    sb = make_sandbox("local", limits=SandboxLimits(**limits))
    await sb.start(None)
    try:
        yield sb
    finally:
        await sb.close()


def test_the_chosen_controller_is_pid_1(controller: str) -> None:
    async def body() -> None:
        async with _started() as sb:
            r = await sb.run("tr '\\0' ' ' < /proc/1/cmdline")
            assert r.exit_code == 0, r.output
            if controller == "native":
                assert r.output.startswith("/init ")
                assert "import" not in r.output  # the interpreter's script is kept off PID 1's command line
            else:
                assert " -I -S -c " in r.output
            assert controller_note().startswith(controller)

    run(body())


def test_commands_exit_codes_signals_and_pipes(controller: str) -> None:
    async def body() -> None:
        async with _started() as sb:
            r = await sb.run("echo out; echo err >&2; exit 7")
            assert (r.exit_code, "out" in r.output, "err" in r.output) == (7, True, True)
            assert (await sb.run("kill -KILL $$")).exit_code == 128 + 9
            # a command gets SIGPIPE's default action, as in a shell: `yes` ends quietly
            r = await sb.run("yes | head -2; echo status=${PIPESTATUS[0]}")
            assert r.output == "y\ny\nstatus=141\n", r.output
            r = await sb.run("cat")  # stdin is /dev/null
            assert (r.exit_code, r.output) == (0, "")

    run(body())


def test_nothing_outlives_its_command(controller: str) -> None:
    async def body() -> None:
        async with _started() as sb:
            r = await sb.run("for i in $(seq 20); do sleep 300 & done; (setsid sleep 300 &); echo started")
            assert r.output.strip() == "started"
            r = await sb.run("ps -eo pid=,comm= | grep -v -e ' ps$' -e ' bash$' -e ' grep$'")
            lines = [ln.split() for ln in r.output.splitlines()]
            assert [pid for pid, _ in lines] == ["1"], r.output
            r = await sb.run("echo before; sleep 60", timeout=1)
            assert r.timed_out and r.exit_code == 124 and "before" in r.output
            r = await sb.run("ps -eo comm= | grep -c sleep")
            assert r.output.strip() == "0"

    run(body())


def test_pid_1_is_out_of_reach(controller: str) -> None:
    async def body() -> None:
        async with _started() as sb:
            r = await sb.run("ls /proc/1/fd; cat /proc/1/environ; echo 0 > /proc/1/oom_score_adj; kill -9 1;"
                             "kill -STOP 1; echo done")
            assert r.output.count("Permission denied") + r.output.count("Operation not permitted") >= 4, r.output
            assert "done" in r.output
            r = await sb.run("grep -E '^(NoNewPrivs|CapEff|CapBnd|CapAmb)' /proc/self/status; cat /proc/self/oom_score_adj;"
                             "ls /proc/self/fd")
            fields = dict(line.split(":\t") for line in r.output.splitlines() if ":\t" in line)
            assert fields == {"NoNewPrivs": "1", "CapEff": "0" * 16, "CapBnd": "0" * 16, "CapAmb": "0" * 16}, r.output
            rest = [line for line in r.output.splitlines() if ":\t" not in line]
            assert rest[0] == "1000"
            assert sorted(rest[1:]) == ["0", "1", "2", "3"]  # stdin, the output pipe twice, and ls's own directory
            assert (await sb.run("echo alive")).output == "alive\n"

    run(body())


def test_python_cells_keep_state_and_survive_their_failures(controller: str) -> None:
    async def body() -> None:
        async with _started() as sb:
            c = await sb.run_python("import subprocess\nx = 41\nsubprocess.Popen(['sleep', '300']) and x + 1")
            assert (c.exit_code, c.output, c.interpreter_alive, c.restarted) == (0, "42\n", True, False)
            r = await sb.run("ps -eo stat=,comm= | grep -v '^Z' | grep -c sleep")
            assert r.output.strip() == "0"  # what a cell started died with the cell (its zombie waits for the cell)
            c = await sb.run_python("1 / 0")
            assert c.exit_code == 1 and "ZeroDivisionError" in c.output and c.interpreter_alive
            c = await sb.run_python("import time; time.sleep(60)", timeout=1)
            assert c.timed_out and c.exit_code == 124 and not c.interpreter_alive
            c = await sb.run_python("x")
            assert c.restarted and "NameError" in c.output
            c = await sb.run_python("import os; os._exit(3)")
            assert (c.exit_code, c.interpreter_alive) == (3, False)
            assert (await sb.run("echo ok")).output == "ok\n"

    run(body())


def test_bad_controller_setting_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBENV_CONTROLLER", "rust")
    with pytest.raises(ConfigError, match="JOBENV_CONTROLLER must be one of auto, native, python"):
        _native.native_controller()
    assert controller_note().startswith("unavailable (JOBENV_CONTROLLER must be")


def test_without_a_compiler_auto_falls_back_and_native_refuses(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("JOBENV_CACHE", str(tmp_path / "cache"))  # nothing built there yet
    monkeypatch.setenv("JOBENV_CONTROLLER", "auto")
    assert _native.native_controller() is None
    assert controller_note() == "python (fallback: no C compiler (cc or gcc) on PATH to build the native sandbox controller)"

    async def body() -> None:
        async with _started() as sb:
            r = await sb.run("tr '\\0' ' ' < /proc/1/cmdline | head -c 200")
            assert " -I -S -c " in r.output

    run(body())
    monkeypatch.setenv("JOBENV_CONTROLLER", "native")
    async def refused() -> None:
        async with _started():
            pass

    with pytest.raises(SandboxUnavailableError, match="JOBENV_CONTROLLER=native but no C compiler"):
        run(refused())


def test_a_cached_binary_others_could_change_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBENV_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("JOBENV_CONTROLLER", "native")
    target = _native._target()
    target.parent.mkdir(parents=True)
    target.write_text("#!/bin/sh\necho planted\n")
    target.chmod(0o777)  # writable by anyone: never trusted
    path = _native.native_controller()
    assert path == str(target)
    assert target.read_bytes()[:4] == b"\x7fELF"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o755
    built = os.stat(target).st_ino
    assert _native._choose("native") == (str(target), "")  # chosen again: the trusted binary is reused as it is
    assert os.stat(target).st_ino == built


def test_a_cache_on_a_noexec_mount_is_never_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import tempfile

    if os.geteuid() != 0:
        pytest.skip("mounting a noexec file system needs root")
    noexec = tmp_path / "noexec"
    noexec.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "noexec,size=16m", "tmpfs", str(noexec)], check=True)
    try:
        monkeypatch.setenv("JOBENV_CACHE", str(noexec / "cache"))
        monkeypatch.setenv("JOBENV_CONTROLLER", "auto")
        path = _native.native_controller()  # built there, refused there: a private copy under the temp dir runs
        assert path is not None and not path.startswith(str(noexec)) and os.path.basename(path).startswith(
            "jobenv-controller-")

        async def body() -> None:
            async with _started() as sb:
                assert (await sb.run("head -c 5 /proc/1/cmdline")).output == "/init"

        run(body())
        monkeypatch.setattr(tempfile, "tempdir", str(noexec))  # the temp dir on the same mount: no native at all
        monkeypatch.setenv("JOBENV_CACHE", str(noexec / "cache2"))
        assert _native.native_controller() is None
        assert "cannot run" in controller_note() and controller_note().startswith("python (fallback: ")
    finally:
        subprocess.run(["umount", "-l", str(noexec)], check=False)
