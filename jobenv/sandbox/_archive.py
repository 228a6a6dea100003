"""Tar archives of the Docker backend: the task folder going in, output/ coming out (streamed, bounded).

Failure behaviour: :func:`tar_tree` raises SandboxError for a task folder that is not a directory;
:func:`export_members` never raises for anything an agent put in ``output/`` (it is refused instead).
"""

from __future__ import annotations

import io
import os
import posixpath
import shutil
import stat
import tarfile
import time
from pathlib import Path
from typing import Any

from ..errors import SandboxError
from ._fs import ExportBudget

__all__ = ["tar_tree", "owned_tar", "ChunkReader", "export_members"]


def tar_tree(src: Path | None, arcname: str | None) -> bytes:
    """A tar of ``src`` (regular files and dirs only; symlinks skipped) under ``arcname``, plus ``output/``; with
    ``arcname=None`` (the Harbor layout) the tree's own entries at the top and nothing added."""
    buf = io.BytesIO()

    def name(rel: str, leaf: str) -> str:
        inside = leaf if rel == "." else posixpath.join(rel, leaf)
        return inside if arcname is None else f"{arcname}/{inside}"

    with tarfile.open(fileobj=buf, mode="w") as tf:
        for top in () if arcname is None else (arcname, "output"):
            ti = tarfile.TarInfo(top)
            ti.type, ti.mode, ti.mtime = tarfile.DIRTYPE, 0o755, int(time.time())
            tf.addfile(ti)
        if src is not None:
            src = Path(src)
            if not src.is_dir():
                raise SandboxError(f"task folder {src} is not a directory")
            for root, dirs, files in os.walk(src):
                dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(root, d)))
                rel = os.path.relpath(root, src)
                for d in dirs:
                    tf.addfile(_info(name(rel, d), os.stat(os.path.join(root, d)), tarfile.DIRTYPE))
                for f in sorted(files):
                    p = os.path.join(root, f)
                    st = os.lstat(p)
                    if not stat.S_ISREG(st.st_mode):
                        continue  # a symlink in a task folder could point anywhere on the host
                    with open(p, "rb") as fh:
                        tf.addfile(_info(name(rel, f), st, tarfile.REGTYPE), fh)
    return buf.getvalue()


def _info(name: str, st: os.stat_result, kind: bytes) -> tarfile.TarInfo:
    """A member's header from its ``stat`` (no user or group names: looking them up costs more than the copy)."""
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.mtime = kind, st.st_mode & 0o7777, int(st.st_mtime)
    info.uid, info.gid = st.st_uid, st.st_gid
    info.size = st.st_size if kind == tarfile.REGTYPE else 0
    return info


def owned_tar(data: bytes, uid: int) -> bytes:
    """``data`` (a tar) with its regular files and folders only, every one belonging to ``uid`` (and the group of
    that number), folders 0755, files 0644 or 0755 when executable: nobody else may write what it holds."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as src, tarfile.open(fileobj=buf, mode="w") as dst:
        for m in src:
            if not (m.isfile() or m.isdir()):
                continue
            m.uid = m.gid = uid
            m.uname = m.gname = ""
            m.mode = 0o755 if m.isdir() or m.mode & 0o100 else 0o644
            dst.addfile(m, src.extractfile(m) if m.isfile() else None)
    return buf.getvalue()


class ChunkReader(io.RawIOBase):
    """A read-only file over an iterator of byte chunks (the Docker API's archive stream)."""

    def __init__(self, chunks: Any) -> None:
        self._it = iter(chunks)
        self._buf = b""

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while not self._buf:
            try:
                self._buf = next(self._it)
            except StopIteration:
                return 0
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def close(self) -> None:
        close = getattr(self._it, "close", None)
        if close is not None:
            close()  # ends the HTTP response: the engine stops sending
        super().close()


def export_members(tf: tarfile.TarFile, dest: Path, budget: ExportBudget) -> None:
    """Stream the members of output/'s archive to ``dest`` within ``budget`` (see :func:`._fs.export_tree`)."""
    copied: dict[str, Path] = {}
    for m in tf:
        name = m.name.split("/", 1)[1] if "/" in m.name else ""
        if not name:
            continue  # output/ itself
        parts = name.split("/")
        if any(p in ("", ".", "..") for p in parts) or m.name.startswith("/"):
            budget.reject(name)
            continue
        if m.isdir():
            host = budget.admit_path(name, is_dir=True)
            if host is not None:
                (dest / host).mkdir(parents=True, exist_ok=True)
            continue
        if not (m.isfile() or m.islnk()):
            budget.reject(name)
            continue
        host = budget.admit_path(name)
        if host is None:
            continue
        target = dest / host
        if not target.parent.is_dir():
            continue  # its folder was refused already
        if m.islnk():  # a hard link to a file exported before it: copy that one
            link = m.linkname.split("/", 1)[1] if "/" in m.linkname else ""
            src = copied.get(link)
            if src is None or not budget.admit_bytes(name, src.stat().st_size):
                if src is None:
                    budget.reject(name)
                continue
            shutil.copyfile(src, target)
            copied[name] = target
            continue
        if not budget.admit_bytes(name, m.size):
            # over the total (a sparse file counts at its apparent size): stop reading the archive right here
            # instead of streaming its bytes; everything not exported yet is refused with it
            budget.reject("(the rest of output/: the export stopped at the size limit)")
            return
        f = tf.extractfile(m)
        if f is None:
            budget.reject(name)
            continue
        with open(target, "wb") as out:
            while chunk := f.read(1 << 20):
                out.write(chunk)
        copied[name] = target
