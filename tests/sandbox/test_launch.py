"""How a local sandbox's bwrap is started: exactly the descriptors it is given, whatever this process holds (the
native controller's ``--launch`` mode closes the rest, inheritable ones included)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jobenv.sandbox.local._native import native_controller
from jobenv.sandbox.local._spawn import launch


def test_the_child_gets_exactly_the_given_descriptors_renumbered_from_3() -> None:
    held = [fd for _ in range(1500) for fd in os.pipe2(os.O_CLOEXEC)]  # what thousands of live sandboxes hold
    leaky = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(leaky, True)  # as a C extension might leave one
    held.append(leaky)
    native = native_controller()
    assert native is not None
    try:
        a_r, a_w = os.pipe2(os.O_CLOEXEC)  # adjacent descriptors: the case CPython's pass_fds handles slowly
        b_r, b_w = os.pipe2(os.O_CLOEXEC)
        seen: list[list[int]] = []

        def argv_for(child: list[int]) -> list[str]:
            seen.append(child)
            script = ("import os, sys; sys.stderr.write(' '.join(sorted(os.listdir('/proc/self/fd'), key=int)));"
                      "os.write(3, b'got ' + sys.stdin.readline().encode()); os.write(4, b'bye\\n')")
            return [native, "--launch", str(len(child)), sys.executable, "-I", "-S", "-c", script]

        proc = launch(argv_for, [a_w, b_w])
        os.close(a_w)
        os.close(b_w)
        assert seen == [[3, 4]]
        proc.stdin.write(b"hello\n")
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
        assert os.read(a_r, 100) == b"got hello\n"
        assert os.read(b_r, 100) == b"bye\n"
        # stdin, stdout, stderr, the two given descriptors and the one the listing opens: none of the 3,000 held
        assert proc.stderr.read().decode().split() == ["0", "1", "2", "3", "4", "5"]
        assert proc.poll() == 0
    finally:
        for fd in held:
            os.close(fd)


def test_wait_times_out_and_kill_ends_the_child() -> None:
    proc = launch(lambda child: ["/bin/sleep", "30"], [])
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(timeout=0.2)
    proc.kill()
    assert proc.wait(timeout=5) == -9
    proc.kill()  # a second kill of a reaped child is harmless


def test_a_missing_program_is_an_os_error_and_leaks_nothing() -> None:
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(OSError):
        launch(lambda child: ["/nonexistent/bwrap"], [])
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_sandbox_starts_and_runs_while_this_process_holds_thousands_of_descriptors(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from jobenv.sandbox import make_sandbox

    monkeypatch.setenv("JOBENV_WARM_SANDBOXES", "0")  # a cold start: the launch path itself
    held = [fd for _ in range(1500) for fd in os.pipe2(os.O_CLOEXEC)]  # numbers far above select()'s 1024

    async def body() -> str:
        sb = make_sandbox("local")
        await sb.start(None)
        try:
            return (await sb.run("ls /proc/self/fd | wc -l")).output.strip()
        finally:
            await sb.close()

    try:
        assert asyncio.run(body()) == "4"  # stdin, stdout, stderr and ls's own: nothing of the 3,000 held
    finally:
        for fd in held:
            os.close(fd)
