"""From inside the sandbox each attack must fail or be contained; afterwards sandbox and host are healthy.

Run on both backends (real bubblewrap, real Docker engine). Bomb tests use small limits and short timeouts.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from tests.sandbox.fixtures import CARD_SECRET, RUBRIC_SECRET, assert_healthy, run


def _host_cmdlines() -> list[str]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    out.append(f.read().replace(b"\0", b" ").decode("utf-8", "replace"))
            except OSError:
                pass
    return out


def test_task_rubric_and_card_are_invisible(new_sandbox, task_dir: Path) -> None:
    async def body() -> None:
        sb = await new_sandbox(task_dir / "task_folder")
        r = await sb.run(
            f"cat {task_dir}/RUBRICS.json {task_dir}/task_card.md; "
            "find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o "
            "\\( -name RUBRICS.json -o -name task_card.md \\) -print 2>/dev/null; "
            f"grep -rl -e {RUBRIC_SECRET} -e {CARD_SECRET} /workspace /tmp 2>/dev/null; echo scan-done",
            timeout=120,
        )
        assert "scan-done" in r.output
        assert RUBRIC_SECRET not in r.output and CARD_SECRET not in r.output
        assert "RUBRICS.json\n" not in r.output.replace(f"{task_dir}/RUBRICS.json:", "")
        assert "No such file" in r.output
        # the agent does see its task folder
        assert "TASK_INSTRUCTIONS.txt" in (await sb.run("ls task_folder")).output
        await assert_healthy(sb)

    run(body())


def test_other_episodes_workspace_is_invisible(new_sandbox, backend: str) -> None:
    async def body() -> None:
        secret = f"EPISODE-A-{secrets.token_hex(6)}"
        a = await new_sandbox()
        b = await new_sandbox()
        await a.run(f"echo {secret} > output/mine.txt; echo {secret} > /tmp/mine.txt")
        probe = f"grep -rs {secret} /workspace /tmp; cat /proc/*/root/workspace/output/mine.txt 2>/dev/null; echo probe-done"
        if backend == "local":
            # the host path through which the host reaches episode A's workspace
            probe += f"; cat {a._ws}/output/mine.txt"  # type: ignore[attr-defined]
        r = await b.run(probe, timeout=60)
        assert "probe-done" in r.output and secret not in r.output
        assert (await a.read_file("output/mine.txt")).strip().decode() == secret
        await assert_healthy(a)
        await assert_healthy(b)

    run(body())


def test_host_home_is_invisible(new_sandbox) -> None:
    marker = Path.home() / f".jobenv-sandbox-probe-{secrets.token_hex(4)}"
    marker.write_text("HOST-HOME-SECRET")
    try:

        async def body() -> None:
            sb = await new_sandbox()
            r = await sb.run(f"cat {marker} 2>/dev/null; ls -a {Path.home()} 2>/dev/null; cat ~/.bash_history ~/.ssh/* 2>/dev/null; echo done")
            assert "done" in r.output
            assert "HOST-HOME-SECRET" not in r.output and marker.name not in r.output
            await assert_healthy(sb)

        run(body())
    finally:
        marker.unlink()


def test_loopback_server_of_the_host_is_unreachable(new_sandbox) -> None:
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"HOST-SERVER-REPLY")

        def log_message(self, *a: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        host_ip = socket.gethostbyname(socket.gethostname())

        async def body() -> None:
            sb = await new_sandbox()
            r = await sb.run(
                f"for h in 127.0.0.1 {host_ip} 172.17.0.1; do "
                f"  (exec 3<>/dev/tcp/$h/{port} && printf 'GET /from-sandbox HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) "
                "  && echo CONNECTED-$h; done; echo net-done",
                timeout=30,
            )
            assert "net-done" in r.output
            assert "CONNECTED" not in r.output and "HOST-SERVER-REPLY" not in r.output
            await assert_healthy(sb)

        run(body())
        assert hits == []
    finally:
        server.shutdown()
        server.server_close()


def test_host_processes_are_invisible(new_sandbox) -> None:
    tag = str(700000 + secrets.randbelow(99999))
    host_proc = subprocess.Popen(["sleep", tag])
    try:

        async def body() -> None:
            sb = await new_sandbox()
            r = await sb.run("for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done; ls -d /proc/[0-9]* | wc -l")
            assert f"sleep {tag}" not in r.output
            assert "-m pytest" not in r.output and "bin/pytest" not in r.output  # the host's test runner
            assert int(r.output.split()[-1]) < 20  # only the sandbox's own few processes
            r = await sb.run(f"kill -9 {host_proc.pid}; echo rc=$?")
            assert host_proc.poll() is None  # the host process survived
            await assert_healthy(sb)

        run(body())
    finally:
        host_proc.kill()
        host_proc.wait()


def test_writes_outside_workspace_and_tmp_fail(new_sandbox) -> None:
    name = f"jobenv-probe-{secrets.token_hex(4)}"

    async def body() -> None:
        sb = await new_sandbox()
        targets = ["/", "/usr", "/usr/bin", "/etc", "/root", "/opt", "/var", "/home",
                   "$(dirname $(readlink -f $(command -v python3 || command -v bash)))"]
        script = "; ".join(f"touch {t}/{name} 2>/dev/null && echo WROTE {t}" for t in targets)
        r = await sb.run(script + f"; touch /tmp/{name} /workspace/{name} && echo tmp-ok")
        assert "WROTE" not in r.output, r.output
        assert "tmp-ok" in r.output
        await assert_healthy(sb)

    run(body())
    for d in ["/", "/usr", "/usr/bin", "/etc", "/root", "/opt", "/var", "/home", "/tmp"]:
        assert not os.path.exists(os.path.join(d, name)), d


def test_fork_bomb_is_contained(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(pids=64)
        t0 = time.monotonic()
        r = await sb.run(
            "bomb(){ bomb | bomb & }; bomb; sleep 2; "
            "n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo procs=$n",  # builtins only: no fork needed
            timeout=8,
        )
        assert time.monotonic() - t0 < 40
        if "procs=" in r.output:  # the count never exceeds the process cap
            assert int(r.output.rsplit("procs=", 1)[1].split()[0]) <= 64 + 2, r.output[-300:]
        else:
            assert r.timed_out, r.output[-300:]
        await assert_healthy(sb)
        r = await sb.run("ls -d /proc/[0-9]* | wc -l")
        assert int(r.output.strip()) < 10  # nothing of the bomb survived

    run(body())


def test_memory_bomb_is_contained(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(memory_mb=128)
        r = await sb.run(
            "python3 -c 'x = []\nwhile True: x.append(bytearray(16 << 20))'; echo rc=$?", timeout=60
        )
        assert not r.timed_out, r.output
        assert "rc=0" not in r.output
        await assert_healthy(sb)

    run(body())


def test_endless_output_is_capped(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(output_chars=5000)
        r = await sb.run("yes JOBENV-SPAM", timeout=2)
        assert r.timed_out and r.truncated
        assert len(r.output) < 5000 + 300
        assert r.output.startswith("JOBENV-SPAM\n")
        await assert_healthy(sb)

    run(body())


def test_command_outliving_its_timeout_leaves_no_orphans(new_sandbox) -> None:
    tag = str(800000 + secrets.randbelow(99999))

    async def body() -> None:
        sb = await new_sandbox()
        r = await sb.run(
            f"(setsid sleep {tag} &); nohup sleep {tag} >/dev/null 2>&1 & "
            f"(trap '' TERM HUP; exec sleep {tag}) & sleep {tag}",
            timeout=1,
        )
        assert r.timed_out
        time.sleep(0.3)
        assert not [c for c in _host_cmdlines() if f"sleep {tag}" in c]
        r = await sb.run("cat /proc/[0-9]*/cmdline | tr '\\0' ' '")
        assert tag not in r.output
        # a command that ends normally does not leave background processes either
        await sb.run(f"nohup sleep {tag} >/dev/null 2>&1 & echo started")
        time.sleep(0.3)
        assert not [c for c in _host_cmdlines() if f"sleep {tag}" in c]
        await assert_healthy(sb)

    run(body())


def test_disk_fill_is_capped(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(workspace_mb=32, file_size_mb=1024)
        r = await sb.run("dd if=/dev/zero of=output/big bs=1M count=200 2>&1; echo rc=$?; stat -c %s output/big", timeout=60)
        assert "rc=0" not in r.output, r.output
        size = int(r.output.split()[-1])
        assert size <= 33 * 1024 * 1024
        r = await sb.run("head -c 300M /dev/zero > /tmp/fill; echo rc=$?", timeout=60)
        # /tmp is capped too (at most workspace_mb of tmpfs)
        assert "rc=0" not in r.output
        r = await sb.run("head -c 300M /dev/zero > /dev/shm/fill; echo rc=$?; head -c 100M /dev/zero > /dev/fill; echo rc=$?")
        assert "rc=0" not in r.output, r.output
        await sb.run("rm -f /dev/shm/fill /dev/fill")
        await sb.run("rm -f output/big /tmp/fill")
        await assert_healthy(sb)

    run(body())


def test_single_file_size_is_capped(new_sandbox) -> None:
    async def body() -> None:
        sb = await new_sandbox(file_size_mb=1, workspace_mb=64)
        r = await sb.run("head -c 5M /dev/zero > output/f; echo rc=$?; echo size=$(stat -c %s output/f)")
        assert "rc=0" not in r.output
        # marked, not the last word: bash's "File size limit exceeded" line may come after it (stderr and stdout
        # are separate streams on the Docker backend)
        size = re.search(r"size=(\d+)", r.output)
        assert size is not None and int(size.group(1)) <= 1024 * 1024, r.output
        await assert_healthy(sb)

    run(body())


def test_output_symlink_to_host_file_is_not_followed(new_sandbox, task_dir: Path, tmp_path: Path) -> None:
    async def body() -> None:
        sb = await new_sandbox(task_dir / "task_folder")
        await sb.run(
            f"ln -s {task_dir}/RUBRICS.json output/rubric.json; ln -s /etc/passwd output/passwd.txt; "
            "ln -s ../task_folder output/tf; mkfifo output/pipe; echo real > output/ok.txt"
        )
        dest = await sb.export_output(tmp_path / "export")
        assert (dest / "ok.txt").read_text() == "real\n"
        for name in ("rubric.json", "passwd.txt", "tf", "pipe"):
            assert not (dest / name).exists() and not (dest / name).is_symlink(), name
        rejected = json.loads((dest / ".jobenv_rejected.json").read_text())
        assert sorted(rejected) == ["passwd.txt", "pipe", "rubric.json", "tf"]
        for f in dest.rglob("*"):
            if f.is_file():
                assert RUBRIC_SECRET not in f.read_text(errors="replace")
        await assert_healthy(sb)

    run(body())


def test_host_environment_is_invisible(new_sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    key = f"sk-host-secret-{secrets.token_hex(8)}"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("JOBENV_JUDGE_API_KEY", key)

    async def body() -> None:
        sb = await new_sandbox()
        r = await sb.run("env; cat /proc/1/environ /proc/self/environ | tr '\\0' '\\n'")
        assert key not in r.output
        assert "OPENAI_API_KEY" not in r.output
        assert "HOME=/tmp" in r.output
        await assert_healthy(sb)

    run(body())


def test_host_secret_files_are_not_exposed(new_sandbox) -> None:
    shadow = Path("/etc/shadow")
    host_shadow = shadow.read_text() if shadow.exists() and os.access(shadow, os.R_OK) else ""

    async def body() -> None:
        sb = await new_sandbox()
        r = await sb.run("cat /etc/shadow /etc/ssl/private/* 2>/dev/null; ls /etc/ssl/private 2>/dev/null; echo done")
        assert "done" in r.output
        for line in host_shadow.splitlines():
            if ":$" in line:  # a real password hash line of the host
                assert line not in r.output
        if sb.name == "local":
            assert r.output.strip() == "done"
        await assert_healthy(sb)

    run(body())


def test_commands_hold_no_control_channel_of_the_sandbox(new_sandbox) -> None:
    """A command must not be able to forge the sandbox's status messages: it sees only stdin/stdout/stderr."""

    async def body() -> None:
        sb = await new_sandbox()
        r = await sb.run("ls /proc/$$/fd; true")  # ls lists the fds of the command's shell
        assert sorted(r.output.split()) == ["0", "1", "2"], r.output
        await assert_healthy(sb)

    run(body())


def test_agent_cannot_forge_the_refused_list(new_sandbox, tmp_path: Path) -> None:
    """A `.jobenv_rejected.json` written by the agent never reaches grading: the export writes its own."""

    async def body() -> None:
        sb = await new_sandbox()
        await sb.run("echo '[\"ok.txt\"]' > output/.jobenv_rejected.json; echo real > output/ok.txt")
        dest = await sb.export_output(tmp_path / "forged")
        assert json.loads((dest / ".jobenv_rejected.json").read_text()) == []
        await sb.run("rm output/.jobenv_rejected.json; mkdir output/.jobenv_rejected.json")
        dest = await sb.export_output(tmp_path / "as-dir")
        assert json.loads((dest / ".jobenv_rejected.json").read_text()) == []
        await assert_healthy(sb)

    run(body())


def test_an_install_of_jobenv_made_while_the_process_runs_is_hidden_at_once() -> None:
    # the local backend caches its scan for installs between sandbox starts: a copy that appears a moment after
    # one start must still be hidden from the very next one (its parent directory's mtime changed)
    import sysconfig

    from jobenv.sandbox import make_sandbox

    site = Path(sysconfig.get_paths()["purelib"])
    probe = site / f"jobenv_probe_{secrets.token_hex(4)}"
    secret = f"INSTALLED-{secrets.token_hex(6)}"

    async def started() -> object:
        sb = make_sandbox("local")
        await sb.start(None)
        return sb

    async def body() -> None:
        boxes = [await started()]
        try:
            r = await boxes[0].run(f"ls {probe} 2>/dev/null || echo probe-absent")  # type: ignore[attr-defined]
            assert "probe-absent" in r.output
            probe.mkdir()
            (probe / "data.txt").write_text(secret)
            try:
                boxes.append(await started())
                r = await boxes[1].run(f"ls -A {probe}; cat {probe}/data.txt 2>&1; echo done")  # type: ignore[attr-defined]
                assert "done" in r.output and secret not in r.output and "data.txt\n" not in r.output, r.output
            finally:
                (probe / "data.txt").unlink()
                probe.rmdir()
            boxes.append(await started())
            r = await boxes[2].run(f"ls {probe} 2>/dev/null || echo probe-absent")  # type: ignore[attr-defined]
            assert "probe-absent" in r.output
        finally:
            for sb in boxes:
                await sb.close()  # type: ignore[attr-defined]

    run(body())
