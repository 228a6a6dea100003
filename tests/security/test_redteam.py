"""The red-team findings of issue 11, each tried from inside real sandboxes (bubblewrap and Docker).

The rule behind all of them: whatever an agent does ends as a plain graded episode (status "ok", reward from what
was delivered), never an error a trainer drops and never an exception in the trainer's process.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from jobenv.errors import SandboxError
from jobenv.sandbox import SandboxLimits
from tests.sandbox.fixtures import assert_healthy, run
from tests.security.episodes import grade_dirs, make_task, play

local_only = pytest.mark.parametrize("backend", ["local"], indirect=True)


# --------------------------------------------------------------------------- control channel of the sandbox (L)
@local_only
def test_commands_cannot_reach_the_controllers_pipes(new_sandbox) -> None:
    """Writing a fake status or garbage into every fd of PID 1 neither ends a step early nor breaks the sandbox."""

    async def body() -> None:
        sb = await new_sandbox()
        t0 = time.monotonic()
        r = await sb.run(
            "for f in /proc/1/fd/*; do printf '0\\n' > $f; echo x > $f; done 2>/dev/null; "
            "ls -l /proc/1/fd/ 2>&1 | grep -c pipe; cat /proc/1/environ 2>&1 | head -c 0; sleep 1; echo FINISHED",
            timeout=30,
        )
        assert time.monotonic() - t0 >= 1.0, "the step returned before its command ended"
        assert r.exit_code == 0 and r.output.rstrip().endswith("FINISHED"), r.output
        # the next step gets its own output, not the previous command's
        r = await sb.run("echo second-step")
        assert r.output == "second-step\n"
        # and nothing of an earlier command runs between steps
        await sb.run("(sleep 30; echo late > /workspace/late.txt) & echo started")
        assert "late.txt" not in (await sb.run("sleep 0.3; ls /workspace")).output
        await assert_healthy(sb)

    run(body())


@local_only
def test_ptrace_of_pid_1_is_refused(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox()
        r = await sb.run("python3 -c 'import ctypes; print(\"rc\", ctypes.CDLL(None).ptrace(16, 1, 0, 0))'")
        assert "rc -1" in r.output, r.output
        r = await sb.run("sleep 20", timeout=1)  # the timeout still works: PID 1 is not stopped
        assert r.timed_out and r.duration_s < 10
        await assert_healthy(sb)

    run(body())


@local_only
def test_no_channel_between_two_sandboxes(new_sandbox) -> None:
    """What one sandbox writes into any descriptor of its PID 1, another sandbox can never read."""
    secret = f"SECRET-{secrets.token_hex(6)}"

    async def body() -> None:
        a = await new_sandbox()
        b = await new_sandbox()
        await a.run(f"for f in /proc/1/fd/*; do echo {secret} > $f; done 2>/dev/null; true")
        r = await b.run("for f in /proc/1/fd/*; do timeout 1 cat $f; done 2>/dev/null; echo probe-done", timeout=60)
        assert "probe-done" in r.output and secret not in r.output
        await assert_healthy(a)
        await assert_healthy(b)

    run(body())


@local_only
def test_signals_to_pid_1_change_nothing(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox()
        r = await sb.run("for s in INT TERM HUP USR1 USR2 QUIT KILL STOP; do kill -$s 1; done; echo sent")
        assert "sent" in r.output
        await assert_healthy(sb)

    run(body())


# --------------------------------------------------------------------------- tmpfs sizes inside the memory limit
def test_filling_every_tmpfs_leaves_a_working_sandbox(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(memory_mb=256)
        lim = sb.limits
        assert lim.workspace_mb + lim.tmp_mb + lim.shm_mb <= 256 - 32  # type: ignore[operator]
        r = await sb.run("for d in /workspace/output /tmp /dev/shm; do head -c 400M /dev/zero > $d/fill; done; "
                         "echo filled", timeout=120)
        assert "filled" in r.output
        r = await sb.run("python3 -c 'x = bytearray(8 << 20); print(\"alive\")'", timeout=60)
        assert "alive" in r.output, r.output
        await assert_healthy(sb)

    run(body())


def test_tmpfs_sizes_that_do_not_fit_are_refused() -> None:
    with pytest.raises(ValueError, match="must fit inside memory_mb"):
        SandboxLimits(memory_mb=512, workspace_mb=600)
    with pytest.raises(ValueError, match="must fit inside memory_mb"):
        SandboxLimits(memory_mb=2048, workspace_mb=1024, tmp_mb=1024)
    small = SandboxLimits(memory_mb=128)  # defaults shrink to fit
    assert small.workspace_mb + small.tmp_mb + small.shm_mb <= 96  # type: ignore[operator]


# --------------------------------------------------------------------------- special files in output/
def test_write_into_a_fifo_fails_fast_and_blocks_nothing(new_sandbox) -> None:
    outcome: dict[str, object] = {}

    async def body() -> None:
        sb = await new_sandbox()
        await sb.run("mkfifo output/pipe output/pipe2")
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        t = asyncio.ensure_future(ticker())
        try:
            await asyncio.wait_for(sb.write_file("output/pipe", b"data"), 10)
            outcome["wrote"] = True
        except SandboxError as exc:
            outcome["error"] = str(exc)
        await asyncio.sleep(0.1)
        t.cancel()
        outcome["ticks"] = ticks
        await assert_healthy(sb)

    th = threading.Thread(target=lambda: run(body()), daemon=True)
    th.start()
    th.join(60)
    assert not th.is_alive(), "writing to a FIFO in output/ hung the event loop"
    assert "error" in outcome or outcome.get("wrote"), outcome
    if "error" in outcome:
        assert "regular file" in str(outcome["error"]) or "FIFO" in str(outcome["error"])
    assert int(outcome["ticks"]) >= 5  # type: ignore[call-overload]  # the loop kept running meanwhile


def test_episode_with_a_fifo_in_output_is_graded(backend: str, sandbox_options: dict, tmp_path: Path) -> None:
    task = make_task(tmp_path)
    reward, info, _ = play(task, ["echo 'total 200' > output/report.md; mkfifo output/pipe"], backend=backend,
                           options=sandbox_options)
    assert info["status"] == "ok" and reward == 0.0
    assert "pipe" in info.get("refused_output", [])


# --------------------------------------------------------------------------- sparse files
def test_sparse_files_are_not_exported_at_their_apparent_size(new_sandbox, tmp_path: Path) -> None:
    async def body() -> None:
        sb = await new_sandbox(workspace_mb=64)
        r = await sb.run("truncate -s 512M output/s1.bin output/s2.bin && echo made; echo ok > output/a.txt")
        assert "made" in r.output
        import resource

        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB, a high-water mark
        t0 = time.monotonic()
        dest = await sb.export_output(tmp_path / "export")
        took = time.monotonic() - t0
        assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0 < 256 * 1024, "the export was buffered"
        total = sum(f.stat().st_size for f in dest.rglob("*") if f.is_file())
        assert total <= 64 << 20, f"{total} bytes written to the host"
        refused = json.loads((dest / ".jobenv_rejected.json").read_text())
        assert refused, "an over-budget export must be refused, not silently cut"
        assert took < 30
        await assert_healthy(sb)

    run(body())


def test_apparent_size_budget_keeps_small_files(new_sandbox, tmp_path: Path) -> None:
    async def body() -> None:
        sb = await new_sandbox(workspace_mb=64)
        await sb.run("mkdir -p output/d; for i in 1 2 3; do head -c 1M /dev/urandom > output/d/f$i; done")
        dest = await sb.export_output(tmp_path / "export")
        assert json.loads((dest / ".jobenv_rejected.json").read_text()) == []
        assert sorted(p.name for p in (dest / "d").iterdir()) == ["f1", "f2", "f3"]

    run(body())


# --------------------------------------------------------------------------- deep and long paths
# one process, no fork per level: the machine may be busy
DEEP = ("cd output && python3 -c \"import os\nfor i in range(1100): os.mkdir('d'); os.chdir('d')\" "
        "&& echo deep-made")
LONG = ("cd output && python3 -c \"import os\nfor i in range(20): os.mkdir('n' * 250); os.chdir('n' * 250)\n"
        "open('f', 'w').write('x')\" && echo long-made")


@pytest.mark.parametrize("script", [DEEP, LONG], ids=["deep", "long"])
def test_deep_or_long_paths_end_as_a_graded_episode(backend: str, sandbox_options: dict, tmp_path: Path,
                                                    script: str) -> None:
    before = set(grade_dirs())
    task = make_task(tmp_path)
    reward, info, obs = play(task, ["echo 'total 200' > output/report.md", script], backend=backend,
                             options=sandbox_options)
    assert "made" in obs[1], obs[1][-300:]
    assert info["status"] == "ok", info.get("error")
    assert reward == 0.0 and info.get("refused_output")
    assert set(grade_dirs()) <= before, "a grading folder was left on the host"


def test_gc_removes_grading_folders_of_dead_processes(tmp_path: Path) -> None:
    """A grading folder (of any depth) whose process died is removed by `jobenv gc`, a live one is kept."""
    from jobenv.sandbox.gc import gc_host

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = Path(tempfile.gettempdir()) / f"jobenv-{dead.pid}-grade-{secrets.token_hex(3)}"
    legacy = Path(tempfile.gettempdir()) / f"jobenv-grade-{secrets.token_hex(3)}"
    live = Path(tempfile.gettempdir()) / f"jobenv-{os.getpid()}-grade-{secrets.token_hex(3)}"
    for d in (stale, legacy, live):
        d.mkdir()
    deep = stale
    fd = os.open(str(stale), os.O_RDONLY)
    for _ in range(1200):  # deeper than any recursion limit
        os.mkdir("d", dir_fd=fd)
        nfd = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    os.close(fd)
    old = time.time() - 2 * 3600
    os.utime(legacy, (old, old))
    try:
        assert gc_host(verbose=False) >= 2
        assert not deep.exists() and not legacy.exists()
        assert live.exists()
    finally:
        for d in (live, legacy):
            if d.exists():
                d.rmdir()


# --------------------------------------------------------------------------- names that are not UTF-8
def test_non_utf8_names_are_shown_escaped_and_usable(new_sandbox, tmp_path: Path) -> None:
    async def body() -> None:
        sb = await new_sandbox()
        await sb.run("printf 'caf\\xe9' > output/$'\\xff'.md; mkdir output/$'d\\xfe'; echo in > output/$'d\\xfe'/x.txt")
        entries = await sb.list_files("output")
        names = [e.path for e in entries]
        json.dumps([e.model_dump() for e in entries])  # serialises: no lone surrogates
        assert "output/\\xff.md" in names and "output/d\\xfe/x.txt" in names, names
        assert await sb.read_file("output/\\xff.md") == b"caf\xe9"
        r = await sb.run("ls output")
        json.dumps(r.model_dump())
        dest = await sb.export_output(tmp_path / "export")
        assert (dest / "\\xff.md").read_bytes() == b"caf\xe9"
        assert (dest / "d\\xfe" / "x.txt").read_text() == "in\n"
        assert json.loads((dest / ".jobenv_rejected.json").read_text()) == []
        await assert_healthy(sb)

    run(body())


def test_episode_with_non_utf8_names_is_graded_like_any_other(backend: str, sandbox_options: dict,
                                                              tmp_path: Path) -> None:
    task = make_task(tmp_path)
    reward, info, _ = play(task, ["echo 'The total is 200.' > output/report.md; echo notes > output/$'\\xff'.md"],
                           backend=backend, options=sandbox_options)
    assert info["status"] == "ok" and reward == 1.0, info.get("error")
    assert not info.get("refused_output")


def test_reading_a_huge_sparse_file_is_refused_without_reading_it(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(workspace_mb=64)
        assert "made" in (await sb.run("truncate -s 900M output/huge.bin && echo made")).output
        t0 = time.monotonic()
        with pytest.raises(SandboxError, match="is larger than [0-9]+ bytes"):
            await sb.read_file("output/huge.bin")
        assert time.monotonic() - t0 < 20
        await assert_healthy(sb)

    run(body())


def test_too_many_entries_are_refused_not_exported_forever(new_sandbox, tmp_path: Path) -> None:
    from jobenv.sandbox._fs import MAX_ENTRIES

    async def body() -> None:
        sb = await new_sandbox()
        await sb.run(f"cd output && python3 -c \"[open(f'e{{i}}', 'w').close() for i in range({MAX_ENTRIES + 50})]\"",
                     timeout=300)
        dest = await sb.export_output(tmp_path / "export")
        refused = json.loads((dest / ".jobenv_rejected.json").read_text())
        assert refused and len(list(dest.iterdir())) <= MAX_ENTRIES + 1

    run(body())


def test_llm_judge_grades_an_output_with_non_utf8_names(tmp_path: Path) -> None:
    """The judge's prompt carries the escaped name; the real openai client sends it (no UnicodeEncodeError)."""
    from jobenv.env import JobEnv
    from tests.support.openai_server import OpenAIServer

    prompts: list[str] = []

    def judge(req: dict) -> str:
        prompts.append(json.dumps(req["messages"]))
        return json.dumps({"criteria_results": [{"index": 0, "passed": True, "reasoning": "ok", "evidence": "x"}],
                           "rubric_passed": True, "overall_reasoning": "ok"})

    task = make_task(tmp_path)
    with OpenAIServer(judge) as srv:
        env = JobEnv([task], judge="llm", max_steps=5,
                     judge_options={"base_url": srv.base_url, "api_key": "k", "model": "m", "attempts": 1,
                                    "backoff_s": 0.0, "cache_dir": False})
        try:
            env.reset(options={"index": 0})
            env.step({"name": "bash", "arguments": {"command": "echo 'Total 200' > output/report.md; "
                                                                "echo notes > output/$'\\xff'notes.md"}})
            _, reward, term, _, info = env.step({"name": "submit", "arguments": {}})
        finally:
            env.close()
    assert term and info["status"] == "ok", info.get("error")
    assert reward == 1.0
    assert prompts and any("\\\\xffnotes.md" in p for p in prompts)


def test_episode_that_fills_every_tmpfs_is_graded(backend: str, sandbox_options: dict, tmp_path: Path) -> None:
    task = make_task(tmp_path)
    reward, info, obs = play(task, [
        "for d in /tmp /dev/shm /workspace; do head -c 400M /dev/zero > $d/fill; done; echo filled",
        "rm -f /workspace/fill; echo 'The total is 200.' > output/report.md && echo written",
    ], backend=backend, options=sandbox_options, limits=SandboxLimits(memory_mb=256), timeout=120)
    assert "written" in obs[1], obs[1]
    assert info["status"] == "ok" and reward == 1.0, info.get("error")


def test_episode_that_attacks_pid_1_is_graded(tmp_path: Path) -> None:  # local backend (the findings are local)
    task = make_task(tmp_path)
    reward, info, _ = play(task, [
        "for f in /proc/1/fd/*; do echo x > $f; printf '0\\n' > $f; done 2>/dev/null; "
        "python3 -c 'import ctypes; ctypes.CDLL(None).ptrace(16, 1, 0, 0)'; kill -INT 1; echo tried",
        "echo 'The total is 200.' > output/report.md",
    ])
    assert info["status"] == "ok" and reward == 1.0, info.get("error")
