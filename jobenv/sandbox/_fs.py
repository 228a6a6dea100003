"""Host-side file operations on a sandbox's ``/workspace`` that never follow a symlink out of it.

The local backend reaches a running sandbox's workspace through a host path (``/proc/<pid>/root/workspace``);
absolute symlinks made inside the sandbox would resolve against the *host* root if the kernel followed them.
So every path is first resolved here one component at a time with ``lstat``: a symlink is re-interpreted as the
sandbox would see it and must land inside ``/workspace`` again, else :class:`WorkspacePathError`. The resolved
path is then walked with directory file descriptors opened ``O_NOFOLLOW | O_DIRECTORY`` component by component,
and the final open uses ``O_NOFOLLOW`` too, so even a component swapped for a symlink between the check and the use
makes the operation fail instead of escaping. (The local backend also kills every sandbox process after each
command, so nothing runs inside while these functions work.)
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

from ..errors import SandboxError, WorkspacePathError
from .base import WORKSPACE, FileEntry, workspace_relpath

__all__ = ["resolve", "read_file", "write_file", "list_files", "export_tree", "stage_tree", "REJECTED_NAME"]

REJECTED_NAME = ".jobenv_rejected.json"
_MAX_HOPS = 40
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def resolve(ws: str, rel: str, *, follow_last: bool = True) -> str:
    """Resolve ``rel`` (relative to the workspace) without leaving it; returns a symlink-free relative path.

    Missing components are kept as they are (so writes can create them). Raises WorkspacePathError when a
    ``..`` or a symlink leads outside ``/workspace`` or there are too many symlink hops.
    """
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    done: list[str] = []
    hops = 0
    while parts:
        p = parts.pop(0)
        if p == "..":
            if not done:
                raise WorkspacePathError(f"path {rel!r} leaves {WORKSPACE}")
            done.pop()
            continue
        cand = done + [p]
        host = os.path.join(ws, *cand)
        try:
            st = os.lstat(host)
        except (FileNotFoundError, NotADirectoryError):
            done = cand
            continue
        except OSError as exc:
            raise SandboxError(f"cannot inspect {WORKSPACE}/{'/'.join(cand)}: {exc.strerror}") from None
        if stat.S_ISLNK(st.st_mode) and (parts or follow_last):
            hops += 1
            if hops > _MAX_HOPS:
                raise WorkspacePathError(f"too many symlinks resolving {rel!r}")
            target = os.readlink(host)
            if target.startswith("/"):
                try:
                    t = workspace_relpath(target)
                except WorkspacePathError:
                    raise WorkspacePathError(
                        f"{WORKSPACE}/{'/'.join(cand)} is a symlink to {target!r}, outside {WORKSPACE}"
                    ) from None
                done = []
                parts = [x for x in t.split("/") if x] + parts
            else:
                parts = [x for x in target.split("/") if x] + parts
            continue
        done = cand
    return "/".join(done)


def _open_dir(ws: str, rel_dir: str, *, create: bool = False) -> int:
    """An fd of the workspace directory ``rel_dir``, walked without following any symlink."""
    try:
        fd = os.open(ws, _DIR_FLAGS)
    except OSError as exc:
        raise SandboxError(f"the sandbox workspace is not reachable: {exc.strerror}") from None
    for part in [p for p in rel_dir.split("/") if p]:
        try:
            nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                os.close(fd)
                raise SandboxError(f"no such directory: {WORKSPACE}/{rel_dir}") from None
            try:
                os.mkdir(part, 0o755, dir_fd=fd)
                nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                os.close(fd)
                raise SandboxError(f"cannot create directory {WORKSPACE}/{rel_dir}: {exc.strerror}") from None
        except OSError as exc:
            os.close(fd)
            # ELOOP/ENOTDIR: a symlink or a file where a directory should be
            raise SandboxError(f"{WORKSPACE}/{rel_dir}: a path component is not a directory ({exc.strerror})") from None
        os.close(fd)
        fd = nfd
    return fd


def read_file(ws: str, path: str) -> bytes:
    rel = resolve(ws, workspace_relpath(path))
    if not rel:
        raise SandboxError(f"{WORKSPACE} is a directory, not a file")
    parent, _, name = rel.rpartition("/")
    dfd = _open_dir(ws, parent)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dfd)
    except FileNotFoundError:
        raise SandboxError(f"no such file: {WORKSPACE}/{rel}") from None
    except OSError as exc:
        raise SandboxError(f"cannot read {WORKSPACE}/{rel}: {exc.strerror}") from None
    finally:
        os.close(dfd)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        what = "a directory, not a file" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise SandboxError(f"{WORKSPACE}/{rel} is {what}")
    with os.fdopen(fd, "rb") as f:
        return f.read()


def write_file(ws: str, path: str, data: bytes) -> None:
    rel = resolve(ws, workspace_relpath(path))
    if not rel:
        raise WorkspacePathError(f"cannot write to {WORKSPACE} itself")
    parent, _, name = rel.rpartition("/")
    dfd = _open_dir(ws, parent, create=True)
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dfd)
    except OSError as exc:
        raise SandboxError(f"cannot write {WORKSPACE}/{rel}: {exc.strerror}") from None
    finally:
        os.close(dfd)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    except OSError as exc:
        # ENOSPC here is the workspace size cap doing its job
        raise SandboxError(f"cannot write {WORKSPACE}/{rel}: {exc.strerror}") from None
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "other"


def _walk(dfd: int, prefix: str):  # type: ignore[no-untyped-def]
    """Yield (relative path, lstat result, parent dir fd) below an open directory, never following symlinks."""
    with os.scandir(dfd) as it:
        entries = list(it)
    for e in entries:
        r = f"{prefix}/{e.name}" if prefix else e.name
        st = e.stat(follow_symlinks=False)
        yield r, st, dfd, e.name
        if stat.S_ISDIR(st.st_mode):
            try:
                sub = os.open(e.name, _DIR_FLAGS, dir_fd=dfd)
            except OSError:
                continue  # swapped or removed meanwhile: skip rather than follow
            try:
                yield from _walk(sub, r)
            finally:
                os.close(sub)


def list_files(ws: str, path: str = "") -> list[FileEntry]:
    rel = resolve(ws, workspace_relpath(path))
    parent, _, name = rel.rpartition("/")
    if rel:
        pfd = _open_dir(ws, parent)
        try:
            st = os.lstat(name, dir_fd=pfd)
        except FileNotFoundError:
            raise SandboxError(f"no such file or directory: {WORKSPACE}/{rel}") from None
        finally:
            os.close(pfd)
        if not stat.S_ISDIR(st.st_mode):
            return [FileEntry(path=rel, type=_kind(st.st_mode), size=st.st_size)]  # type: ignore[arg-type]
    dfd = _open_dir(ws, rel)
    out: list[FileEntry] = []
    try:
        for r, st, _, _ in _walk(dfd, rel):
            kind = _kind(st.st_mode)
            out.append(FileEntry(path=r, type=kind, size=st.st_size if kind == "file" else 0))  # type: ignore[arg-type]
    except OSError as exc:
        raise SandboxError(f"cannot list {WORKSPACE}/{rel}: {exc.strerror}") from None
    finally:
        os.close(dfd)
    out.sort(key=lambda f: f.path)
    return out


def export_tree(ws: str, rel_src: str, dest: Path) -> Path:
    """Copy regular files and directories of workspace dir ``rel_src`` to host ``dest``; reject everything else.

    Symlinks, FIFOs, devices and sockets are never followed or copied; their paths go to
    ``dest/.jobenv_rejected.json``, which is always written (an empty list when nothing was refused) so that a
    file of that name made by the agent can never stand in for it.
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    rejected: list[str] = []
    try:
        dfd = _open_dir(ws, rel_src)
    except SandboxError:
        dfd = -1
        try:
            st = os.lstat(os.path.join(ws, rel_src))
            if not stat.S_ISDIR(st.st_mode):
                rejected.append(".")  # output itself replaced by a symlink or a file
        except OSError:
            pass
    if dfd >= 0:
        try:
            for r, st, parent_fd, name in _walk(dfd, ""):
                if stat.S_ISDIR(st.st_mode):
                    (dest / r).mkdir(exist_ok=True)
                elif stat.S_ISREG(st.st_mode):
                    try:
                        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=parent_fd)
                    except OSError:
                        rejected.append(r)
                        continue
                    if not stat.S_ISREG(os.fstat(fd).st_mode):
                        os.close(fd)
                        rejected.append(r)
                        continue
                    with os.fdopen(fd, "rb") as fin:
                        with open(dest / r, "wb") as fout:
                            while chunk := fin.read(1 << 20):
                                fout.write(chunk)
                else:
                    rejected.append(r)
        finally:
            os.close(dfd)
    write_rejected(dest, rejected)
    return dest


def write_rejected(dest: Path, rejected: list[str]) -> None:
    """Write the export's list of refused entries, replacing any file of that name the agent made."""
    target = dest / REJECTED_NAME
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)  # a reserved name: whatever the agent put there is not a deliverable
    target.write_text(json.dumps(sorted(rejected), indent=1))


def stage_tree(src: Path | None, dst: str) -> None:
    """Copy a host task folder into the workspace: regular files and directories only (symlinks skipped)."""
    os.makedirs(dst, exist_ok=True)
    if src is None:
        return
    src = Path(src)
    if not src.is_dir():
        raise SandboxError(f"task folder {src} is not a directory")
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        target = dst if rel == "." else os.path.join(dst, rel)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for d in dirs:
            os.makedirs(os.path.join(target, d), exist_ok=True)
        for f in files:
            s = os.path.join(root, f)
            if os.path.islink(s) or not os.path.isfile(s):
                continue  # a symlink in a task folder could point anywhere on the host
            with open(s, "rb") as fin, open(os.path.join(target, f), "wb") as fout:
                while chunk := fin.read(1 << 20):
                    fout.write(chunk)
