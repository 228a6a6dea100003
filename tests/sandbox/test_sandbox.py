"""Behaviour of the Sandbox protocol, the same tests on both backends (real bwrap, real Docker engine)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from jobenv.errors import SandboxError, WorkspacePathError
from jobenv.sandbox import SandboxLimits, make_sandbox
from tests.sandbox.fixtures import run


def test_start_stages_a_copy_of_the_task_folder(new_sandbox, task_dir: Path) -> None:
    async def body() -> None:
        sb = await new_sandbox(task_dir / "task_folder")
        r = await sb.run("pwd; ls output | wc -l; cat task_folder/data/sales.csv; echo changed > task_folder/data/sales.csv")
        assert r.exit_code == 0, r.output
        assert r.output.splitlines()[:2] == ["/workspace", "0"]
        assert "south,32" in r.output
        assert await sb.read_file("task_folder/blob.bin") == bytes(range(256)) * 4
        # the sandbox works on a copy: the host's task folder is untouched
        assert (task_dir / "task_folder/data/sales.csv").read_text().endswith("south,32\n")

    run(body())


def test_start_without_task_folder_gives_empty_workspace(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(None)
        names = [e.path for e in await sb.list_files()]
        assert names == ["output", "task_folder"]

    run(body())


def test_run_combines_output_and_reports_exit_code(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox()
        r = await sb.run("echo out; echo err >&2; exit 7")
        assert r.exit_code == 7 and not r.timed_out and not r.truncated
        assert "out\n" in r.output and "err\n" in r.output
        r = await sb.run("kill -TERM $$")
        assert r.exit_code == 128 + 15
        r = await sb.run("printf 'caf\\xc3\\xa9 \\xff'")
        assert r.output.startswith("café ")

    run(body())


def test_timeout_kills_and_sandbox_stays_usable(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(timeout_s=30)
        r = await sb.run("echo before; sleep 60; echo AFTER-MARK", timeout=1)
        assert r.timed_out and r.exit_code == 124
        assert "before" in r.output and "AFTER-MARK" not in r.output
        assert r.duration_s < 10
        r = await sb.run("echo fine")
        assert r.output == "fine\n" and r.exit_code == 0

    run(body())


def test_timeout_is_capped_by_limits(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(timeout_s=1, max_timeout_s=1.5)
        r = await sb.run("sleep 20", timeout=1000)
        assert r.timed_out and r.duration_s < 8
        r = await sb.run("sleep 20")  # default timeout from the limits
        assert r.timed_out

    run(body())


def test_output_is_capped_head_and_tail(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(output_chars=2000)
        r = await sb.run("seq 1 100000")
        assert r.exit_code == 0 and r.truncated
        assert r.output.startswith("1\n2\n3\n")
        assert r.output.rstrip().endswith("99999\n100000")
        assert "characters of output cut" in r.output
        assert len(r.output) < 2000 + 100

    run(body())


def test_file_roundtrip(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox()
        data = bytes(range(256)) * 100
        await sb.write_file("output/deep/er/file.bin", data)
        assert await sb.read_file("/workspace/output/deep/er/file.bin") == data
        r = await sb.run("sha256sum output/deep/er/file.bin | cut -c1-16; echo made-inside > task_folder/new.txt")
        import hashlib

        assert r.output.split()[0] == hashlib.sha256(data).hexdigest()[:16]
        assert await sb.read_file("task_folder/new.txt") == b"made-inside\n"
        await sb.write_file("task_folder/new.txt", b"replaced")
        assert (await sb.run("cat task_folder/new.txt")).output == "replaced"

    run(body())


def test_file_errors(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox()
        with pytest.raises(SandboxError):
            await sb.read_file("output/missing.txt")
        with pytest.raises(SandboxError):
            await sb.read_file("output")  # a directory
        for bad in ("../etc/passwd", "/etc/passwd", "output/../../etc/passwd", "/workspace/../root"):
            with pytest.raises(WorkspacePathError):
                await sb.read_file(bad)
            with pytest.raises(WorkspacePathError):
                await sb.write_file(bad, b"x")
        # a symlink that leaves /workspace is refused; one that stays inside is followed
        await sb.run("ln -s /etc/passwd output/escape; echo inner > output/real.txt; ln -s real.txt output/alias")
        with pytest.raises(WorkspacePathError):
            await sb.read_file("output/escape")
        assert await sb.read_file("output/alias") == b"inner\n"

    run(body())


def test_list_files_recursive_sorted_with_symlinks(new_sandbox, task_dir: Path) -> None:
    async def body() -> None:
        sb = await new_sandbox(task_dir / "task_folder")
        await sb.run("mkdir -p output/a/b && echo hi > output/a/b/c.txt && ln -s /etc output/link")
        entries = await sb.list_files("output")
        assert [(e.path, e.type) for e in entries] == [
            ("output/a", "dir"), ("output/a/b", "dir"), ("output/a/b/c.txt", "file"), ("output/link", "symlink")]
        assert entries[2].size == 3
        everything = await sb.list_files()
        paths = [e.path for e in everything]
        assert paths == sorted(paths)
        assert "task_folder/data/sales.csv" in paths and "task_folder/TASK_INSTRUCTIONS.txt" in paths

    run(body())


def test_export_output_copies_files(new_sandbox, tmp_path: Path) -> None:
    async def body() -> None:
        sb = await new_sandbox()
        await sb.run("mkdir -p output/sub && echo a > output/a.txt && printf 'b' > output/sub/b.csv")
        dest = await sb.export_output(tmp_path / "graded")
        assert dest == tmp_path / "graded"
        assert (dest / "a.txt").read_text() == "a\n" and (dest / "sub/b.csv").read_text() == "b"
        assert json.loads((dest / ".jobenv_rejected.json").read_text()) == []  # always written: nothing refused

    run(body())


def test_close_is_idempotent_and_final(backend: str, sandbox_options: dict) -> None:
    async def body() -> None:
        sb = make_sandbox(backend, **sandbox_options)
        with pytest.raises(SandboxError):
            await sb.run("true")  # not started
        await sb.start(None)
        assert (await sb.run("echo x")).output == "x\n"
        await sb.close()
        await sb.close()
        with pytest.raises(SandboxError):
            await sb.run("true")
        with pytest.raises(SandboxError):
            await sb.read_file("output/x")

    run(body())


def test_sync_wrappers(backend: str, sandbox_options: dict, tmp_path: Path) -> None:
    sb = make_sandbox(backend, **sandbox_options)
    sb.start_sync(None)
    try:
        sb.write_file_sync("output/s.txt", b"sync")
        assert sb.run_sync("cat output/s.txt").output == "sync"
        assert sb.read_file_sync("output/s.txt") == b"sync"
        assert (sb.export_output_sync(tmp_path / "o") / "s.txt").read_bytes() == b"sync"
    finally:
        sb.close_sync()
    with pytest.raises(SandboxError):
        sb.run_sync("true")


def test_make_sandbox_selection() -> None:
    with pytest.raises(SandboxError, match="unknown sandbox backend"):
        make_sandbox("vm")
    with pytest.raises(SandboxError):
        make_sandbox("local", no_such_option=1)
    sb = make_sandbox("local", limits=SandboxLimits(memory_mb=256))
    assert sb.limits.memory_mb == 256 and sb.name == "local"
    assert make_sandbox(sb) is sb


def test_local_python_has_document_libraries(tmp_path: Path) -> None:
    """The local sandbox's python3 is the jobenv environment (the Docker test image is a bare Debian)."""

    async def body() -> None:
        sb = make_sandbox("local")
        await sb.start(None)
        try:
            r = await sb.run(
                "python3 -c 'import pandas, openpyxl, pdfplumber, docx, pptx, mammoth, xlrd;"
                " pandas.DataFrame({\"a\": [1, 2]}).to_excel(\"output/t.xlsx\"); print(\"libs-ok\")'",
                timeout=120,
            )
            assert r.exit_code == 0 and "libs-ok" in r.output, r.output
            assert (await sb.read_file("output/t.xlsx"))[:2] == b"PK"
        finally:
            await sb.close()

    run(body())


def test_local_unsafe_mode_is_explicit_and_loud() -> None:
    async def body() -> None:
        sb = make_sandbox("local", unsafe_no_isolation=True)
        with pytest.warns(RuntimeWarning, match="WITHOUT|without any isolation"):
            await sb.start(None)
        try:
            r = await sb.run("echo hi > output/x.txt; cat output/x.txt; sleep 30 & echo bg", timeout=5)
            assert "hi" in r.output and r.exit_code == 0
            assert await sb.read_file("output/x.txt") == b"hi\n"
            r = await sb.run("sleep 30", timeout=0.5)
            assert r.timed_out
        finally:
            await sb.close()

    run(body())


def test_cancelled_run_stops_the_command_and_keeps_sync(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(sb.run("echo first; sleep 30; echo late"), 0.5)
        r = await sb.run("echo next; ls -d /proc/[0-9]* | wc -l")
        assert r.output.startswith("next\n") and "late" not in r.output and "first" not in r.output
        assert int(r.output.split()[-1]) < 12  # the cancelled sleep is gone

    run(body())


def test_local_network_never_reaches_the_hosts_loopback() -> None:
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    port = srv.getsockname()[1]
    threading.Thread(target=lambda: [srv.accept()[0].close() for _ in range(8)], daemon=True).start()
    probe = f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo REACHED || echo BLOCKED"

    async def body() -> None:
        # "off" has no route anywhere; "web" (True is its alias) never reaches the host's loopback either
        for network in (False, True, "web"):
            sb = make_sandbox("local", limits=SandboxLimits(network=network))
            await sb.start(None)
            try:
                assert (await sb.run(probe, timeout=10)).output.strip() == "BLOCKED"
            finally:
                await sb.close()

    try:
        run(body())
    finally:
        srv.close()


def test_local_refused_namespaces_give_a_clear_error(tmp_path: Path) -> None:
    """In a user namespace whose max_user_namespaces is 0 bubblewrap cannot work: the error must say what to do."""
    import shutil
    import subprocess
    import sys

    if shutil.which("unshare") is None:
        pytest.skip("util-linux unshare not installed: cannot build a host that refuses namespaces")
    code = (
        "from jobenv.sandbox import SandboxLimits, make_sandbox\n"
        "from jobenv.errors import SandboxUnavailableError\n"
        "try:\n"
        "    make_sandbox('local', limits=SandboxLimits(unsafe_unbounded_memory=True)).start_sync(None)\n"
        "except SandboxUnavailableError as e:\n"
        "    print('UNAVAILABLE:', e)\n"
    )
    script = f"echo 0 > /proc/sys/user/max_user_namespaces && exec {sys.executable} -c \"$0\""
    proc = subprocess.run(["unshare", "-U", "-r", "sh", "-c", script, code], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[2])
    if "Operation not permitted" in proc.stderr and "unshare" in proc.stderr:
        pytest.skip(f"this host does not let the test create a user namespace: {proc.stderr.strip()}")
    assert "UNAVAILABLE:" in proc.stdout, proc.stdout + proc.stderr
    assert "user namespaces" in proc.stdout and "docker" in proc.stdout
