"""The host-side workspace walker of the local backend, on plain host directories (no sandbox needed)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from jobenv.errors import SandboxError, WorkspacePathError
from jobenv.sandbox import _fs


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    w = tmp_path / "ws"
    (w / "output" / "d").mkdir(parents=True)
    (w / "output" / "d" / "f.txt").write_text("f")
    (tmp_path / "host-secret.txt").write_text("HOST")
    return w


def test_resolve_follows_inner_symlinks_and_refuses_escapes(ws: Path, tmp_path: Path) -> None:
    os.symlink("d", ws / "output" / "inner")
    os.symlink("/workspace/output/d/f.txt", ws / "output" / "abs-inner")
    os.symlink(str(tmp_path / "host-secret.txt"), ws / "output" / "abs-out")
    os.symlink("../../..", ws / "output" / "climb")
    assert _fs.resolve(str(ws), "output/inner/f.txt") == "output/d/f.txt"
    assert _fs.resolve(str(ws), "output/abs-inner") == "output/d/f.txt"
    assert _fs.resolve(str(ws), "output/abs-out", follow_last=False) == "output/abs-out"
    with pytest.raises(WorkspacePathError):
        _fs.resolve(str(ws), "output/abs-out")
    with pytest.raises(WorkspacePathError):
        _fs.resolve(str(ws), "output/climb/etc/passwd")
    os.symlink("loop", ws / "output" / "loop")
    with pytest.raises(WorkspacePathError):
        _fs.resolve(str(ws), "output/loop")


def test_directory_walk_never_follows_a_swapped_symlink(ws: Path, tmp_path: Path) -> None:
    # what a racing process could do between the check and the use: the walk itself must refuse
    os.symlink(str(tmp_path), ws / "output" / "swapped")
    with pytest.raises(SandboxError):
        _fs._open_dir(str(ws), "output/swapped")
    with pytest.raises(SandboxError):
        _fs._open_dir(str(ws), "output/swapped/new", create=True)
    assert not (tmp_path / "new").exists()


def test_export_rejects_an_output_dir_that_is_a_symlink(ws: Path, tmp_path: Path) -> None:
    import shutil

    shutil.rmtree(ws / "output")
    os.symlink(str(tmp_path), ws / "output")
    dest = _fs.export_tree(str(ws), "output", tmp_path / "dest", max_bytes=1 << 20)
    assert json.loads((dest / _fs.REJECTED_NAME).read_text()) == ["."]
    assert not (dest / "host-secret.txt").exists()


def test_stage_tree_skips_symlinks(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "a.txt").write_text("a")
    os.symlink("/etc/passwd", src / "pw")
    os.symlink("/etc", src / "etc-dir")
    _fs.stage_tree(src, str(tmp_path / "dst"))
    got = sorted(str(p.relative_to(tmp_path / "dst")) for p in (tmp_path / "dst").rglob("*"))
    assert got == ["sub", "sub/a.txt"]


def test_a_read_is_bounded_even_while_the_file_grows(ws: Path) -> None:
    import threading

    from jobenv.errors import FileTooLargeError

    path = ws / "output" / "grow.bin"
    path.write_bytes(b"x" * 1000)
    assert _fs.read_file(str(ws), "output/grow.bin", max_bytes=1000) == b"x" * 1000
    with pytest.raises(FileTooLargeError, match="larger than 999 bytes"):
        _fs.read_file(str(ws), "output/grow.bin", max_bytes=999)
    stop = threading.Event()

    def grow() -> None:  # what a background process in the sandbox can do while the host reads
        with open(path, "ab") as f:
            while not stop.is_set():
                f.write(b"y" * 65536)
                f.flush()

    writer = threading.Thread(target=grow)
    writer.start()
    try:
        limit = 4 << 20
        outcomes = set()
        deadline = time.monotonic() + 60  # not a count of reads: under load the writer may start late
        while time.monotonic() < deadline:
            try:
                outcomes.add(len(_fs.read_file(str(ws), "output/grow.bin", max_bytes=limit)) <= limit)
            except FileTooLargeError:
                outcomes.add("refused")
                if path.stat().st_size > 4 * limit:
                    break
    finally:
        stop.set()
        writer.join()
    assert False not in outcomes  # never more than max_bytes, whatever the file did meanwhile
    assert "refused" in outcomes
