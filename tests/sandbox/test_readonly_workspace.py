"""A read-only workspace (``SandboxLimits.workspace_readonly``, a verifier's view of an agent's work) and
``put_archive`` into an alias of a ``/tmp`` folder, on both backends."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from jobenv.errors import SandboxError
from tests.sandbox.fixtures import run


def _tar(files: dict[str, tuple[bytes, int]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for name, (data, mode) in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.uid = len(data), mode, 4242
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_nothing_inside_can_change_a_read_only_workspace(new_sandbox, backend: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "answer.txt").write_text("1000\n")
    (work / "sub" / "open.txt").write_text("x\n")
    os.chmod(work / "answer.txt", 0o666)  # the agent left it writable for everyone
    os.chmod(work / "sub", 0o777)

    async def body() -> str:
        sb = await new_sandbox(work, layout="harbor", workspace_readonly=True,
                               aliases={"/app": "/workspace", "/tests": "/tmp/probe/tests"})
        await sb.put_archive("/tests", _tar({"t/check.sh": (b"echo checked\n", 0o755), "data.txt": (b"d\n", 0o600)}))
        r = await sb.run(
            # the failed redirection's own message is silenced too (a subshell's stderr), so it cannot interleave
            "cat /app/answer.txt; (echo 1250 > /app/answer.txt) 2>/dev/null && echo WROTE; "
            "chmod 777 /app/answer.txt 2>/dev/null && echo CHMOD; rm -f /app/sub/open.txt 2>/dev/null; "
            "[ -f /app/sub/open.txt ] || echo REMOVED; touch /workspace/new 2>/dev/null && echo CREATED; "
            "/tests/t/check.sh; cat /tests/data.txt; echo more > /tests/mine.txt && echo TESTS-WRITABLE; "
            "python3 -c \"import os; print('owner-differs', os.stat('/app/answer.txt').st_uid != os.getuid())\"")
        with pytest.raises(SandboxError):
            await sb.put_archive("/nowhere", _tar({"a": (b"", 0o644)}))
        return r.output

    out = run(body())
    assert out.startswith("1000\n") and "checked" in out and "d\n" in out and "TESTS-WRITABLE" in out, out
    for never in ("WROTE", "CHMOD", "REMOVED", "CREATED"):
        assert never not in out, out
    assert (work / "answer.txt").read_text() == "1000\n"
    if backend == "docker" or os.geteuid() == 0:  # a normal user's local sandbox has one uid: the mount holds
        assert "owner-differs True" in out, out
