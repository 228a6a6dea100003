"""Host-side file operations on a sandbox's ``/workspace`` that never follow a symlink out of it.

The local backend reaches a running sandbox's workspace through a host path (``/proc/<pid>/root/workspace``);
absolute symlinks made inside the sandbox would resolve against the *host* root if the kernel followed them.
So every path is first resolved here one component at a time with ``lstat``: a symlink is re-interpreted as the
sandbox would see it and must land inside ``/workspace`` again, else :class:`WorkspacePathError`. The resolved
path is then walked with directory file descriptors opened ``O_NOFOLLOW | O_DIRECTORY`` component by component,
and the final open uses ``O_NOFOLLOW`` too, so even a component swapped for a symlink between the check and the use
makes the operation fail instead of escaping. (The local backend also kills every sandbox process after each
command, so nothing runs inside while these functions work.)

Whatever an agent leaves in the workspace must end as a plain graded episode, so the walkers are iterative (no
RecursionError on deep trees), never open anything but regular files and directories (``O_NONBLOCK``: a FIFO can
never block the host), bound what they export (depth, path length, and the *apparent* size of all files together,
so sparse files cannot fill the host's disk) and escape names that are not UTF-8 (:func:`~.base.escape_name`).
Everything refused goes to the export's refused list.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

from ..errors import FileTooLargeError, SandboxError, WorkspacePathError
from .base import REJECTED_MANIFEST, WORKSPACE, FileEntry, escape_name, workspace_relpath

__all__ = [
    "resolve", "read_file", "write_file", "make_dir", "readable_tree", "list_files", "export_tree", "stage_tree", "remove_tree", "ExportBudget",
    "REJECTED_NAME", "MAX_DEPTH", "MAX_PATH_BYTES", "MAX_ENTRIES",
]

REJECTED_NAME = REJECTED_MANIFEST
MAX_DEPTH = 64  # directory levels below output/ that are exported (and listed)
MAX_PATH_BYTES = 1024  # longest exported path below output/, in bytes: far below PATH_MAX on any host
MAX_ENTRIES = 20_000  # files and folders exported (or listed) at most: empty files cost no bytes but still time
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
            raw = _unescape(p)
            if raw != p and os.path.lexists(os.path.join(ws, *done, raw)):
                parts.insert(0, raw)  # a name reported escaped (not UTF-8): use the real one
                continue
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


def _unescape(name: str) -> str:
    """Undo :func:`escape_name` for one path component (``\\xNN`` back to the raw byte)."""
    if "\\x" not in name:
        return name
    raw = re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), name.encode("utf-8", "surrogateescape"))
    return os.fsdecode(raw)


def _owner_of(fd: int) -> tuple[int, int] | None:
    """Whom what the host makes below this directory must belong to: its owner, when that is not us (root's
    sandboxes run commands as an unprivileged uid, which must be able to change what the tools wrote)."""
    st = os.fstat(fd)
    return None if st.st_uid == os.geteuid() else (st.st_uid, st.st_gid)


def _open_dir(ws: str, rel_dir: str, *, create: bool = False) -> int:
    """An fd of the workspace directory ``rel_dir``, walked without following any symlink."""
    try:
        fd = os.open(ws, _DIR_FLAGS)
    except OSError as exc:
        raise SandboxError(f"the sandbox workspace is not reachable: {exc.strerror}") from None
    owner = _owner_of(fd) if create else None
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
                if owner is not None:
                    os.fchown(nfd, *owner)
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


def read_file(ws: str, path: str, *, max_bytes: int | None = None) -> bytes:
    """Bytes of a regular file; SandboxError for anything else, or when its apparent size exceeds ``max_bytes``."""
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
    if max_bytes is not None and st.st_size > max_bytes:
        os.close(fd)  # a sparse file can claim any size: never read more than the workspace could hold
        raise FileTooLargeError(f"{WORKSPACE}/{rel} is larger than {max_bytes} bytes ({st.st_size} bytes apparent size)")
    with os.fdopen(fd, "rb") as f:
        data = f.read() if max_bytes is None else f.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:  # it grew while being read (a process in the sandbox)
        raise FileTooLargeError(f"{WORKSPACE}/{rel} is larger than {max_bytes} bytes (it grew while being read)")
    return data


def write_file(ws: str, path: str, data: bytes) -> None:
    rel = resolve(ws, workspace_relpath(path))
    if not rel:
        raise WorkspacePathError(f"cannot write to {WORKSPACE} itself")
    parent, _, name = rel.rpartition("/")
    dfd = _open_dir(ws, parent, create=True)
    try:
        owner = _owner_of(dfd)
        try:
            st = os.lstat(name, dir_fd=dfd)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise SandboxError(f"cannot write {WORKSPACE}/{rel}: it is {what}")
        # O_NONBLOCK: should a FIFO appear between the check and the open, the open fails instead of hanging
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644, dir_fd=dfd)
    except OSError as exc:
        raise SandboxError(f"cannot write {WORKSPACE}/{rel}: {exc.strerror}") from None
    finally:
        os.close(dfd)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise SandboxError(f"cannot write {WORKSPACE}/{rel}: it is not a regular file")
    try:
        if st is None and owner is not None:
            os.fchown(fd, *owner)
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    except OSError as exc:
        # ENOSPC here is the workspace size cap doing its job
        raise SandboxError(f"cannot write {WORKSPACE}/{rel}: {exc.strerror}") from None
    finally:
        os.close(fd)


def make_dir(ws: str, rel: str, owner: tuple[int, int] | None = None) -> None:
    """Make the folder ``rel`` below host folder ``ws`` (and its parents) without following a symlink, and give it
    to ``owner`` when one is named. SandboxError when a component is not a folder."""
    fd = _open_dir(ws, resolve(ws, rel), create=True)
    try:
        if owner is not None:
            os.fchown(fd, *owner)
    finally:
        os.close(fd)


def readable_tree(folder: Path | None) -> str:
    """Make a host folder (jobenv's own copy) readable, never writable, by everyone: folders 0755, files 0644 (0755
    when executable); its real path. SandboxError when it is not a folder."""
    if folder is None or Path(folder).is_symlink() or not Path(folder).is_dir():
        raise SandboxError(f"a read-only workspace needs a host folder to bind, not {folder}")
    top = os.path.realpath(folder)
    for root, _dirs, files in os.walk(top):
        os.chmod(root, 0o755)  # os.walk never enters a symlinked folder
        for f in files:
            p = os.path.join(root, f)
            if not os.path.islink(p):
                os.chmod(p, 0o755 if os.stat(p).st_mode & 0o100 else 0o644)
    return top


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "other"


def _walk(dfd: int, prefix: str, max_depth: int = MAX_DEPTH) -> Iterator[tuple[str, os.stat_result, int, str, bool]]:
    """Yield (relative path, lstat result, parent dir fd, name, descended) below an open directory.

    Depth first, iterative (any depth is safe), never following symlinks. A directory ``max_depth`` levels down is
    yielded with ``descended=False`` and not entered. The fds yielded stay valid until the next item.
    """
    stack: list[tuple[int, str, list[os.DirEntry[str]], int]] = []

    def push(fd: int, pre: str, depth: int) -> None:
        with os.scandir(fd) as it:
            entries = sorted(it, key=lambda e: e.name, reverse=True)
        stack.append((fd, pre, entries, depth))

    push(dfd, prefix, 0)
    try:
        while stack:
            fd, pre, entries, depth = stack[-1]
            if not entries:
                stack.pop()
                if fd != dfd:
                    os.close(fd)
                continue
            e = entries.pop()
            r = f"{pre}/{e.name}" if pre else e.name
            st = e.stat(follow_symlinks=False)
            is_dir = stat.S_ISDIR(st.st_mode)
            enter = is_dir and depth + 1 < max_depth
            yield r, st, fd, e.name, enter or not is_dir
            if enter:
                try:
                    sub = os.open(e.name, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    continue  # swapped or removed meanwhile: skip rather than follow
                try:
                    push(sub, r, depth + 1)
                except OSError:
                    os.close(sub)
    finally:
        for fd, *_ in stack:
            if fd != dfd:
                os.close(fd)


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
            return [FileEntry(path=escape_name(rel), type=_kind(st.st_mode), size=st.st_size)]  # type: ignore[arg-type]
    dfd = _open_dir(ws, rel)
    out: list[FileEntry] = []
    try:
        for r, st, _, _, _ in _walk(dfd, rel):
            if len(out) >= MAX_ENTRIES:
                raise SandboxError(f"{WORKSPACE}/{rel} holds more than {MAX_ENTRIES} files and folders: list a "
                                   "folder further down")
            kind = _kind(st.st_mode)
            out.append(FileEntry(path=escape_name(r), type=kind, size=st.st_size if kind == "file" else 0))  # type: ignore[arg-type]
    except OSError as exc:
        raise SandboxError(f"cannot list {WORKSPACE}/{rel}: {exc.strerror}") from None
    finally:
        os.close(dfd)
    out.sort(key=lambda f: f.path)
    return out


class ExportBudget:
    """What one export may still write to the host: a total of apparent file sizes, a depth and a path length.

    ``admit(path, size)`` says whether one more entry fits; refusals are recorded (escaped) in ``rejected``.
    """

    def __init__(self, total_bytes: int) -> None:
        self.left = total_bytes
        self.entries = 0
        self.rejected: list[str] = []
        self.names: set[str] = set()

    def admit_path(self, rel: str, *, is_dir: bool = False) -> str | None:
        """The escaped host name of ``rel``, or None (and ``rel`` refused) when it is too deep, long or clashing."""
        name = escape_name(rel)
        self.entries += 1
        if self.entries > MAX_ENTRIES:
            if self.entries == MAX_ENTRIES + 1:
                self.reject(f"(more than {MAX_ENTRIES} entries in output/: the rest is not exported)")
            return None
        deep = rel.count("/") + 1 > MAX_DEPTH
        if deep or len(os.fsencode(rel)) > MAX_PATH_BYTES or len(os.fsencode(name)) > MAX_PATH_BYTES:
            self.reject(rel)
            return None
        for part in name.split("/"):
            if len(os.fsencode(part)) > 255:  # an escaped name can outgrow NAME_MAX
                self.reject(rel)
                return None
        if name.split("/", 1)[0] == REJECTED_NAME:
            return None  # a reserved name: the export writes its own, whatever the agent put there is dropped
        if name in self.names and not is_dir:
            self.reject(rel)  # two names that escape to the same text
            return None
        self.names.add(name)
        return name

    def admit_bytes(self, rel: str, size: int) -> bool:
        if size > self.left:
            self.reject(rel)
            return False
        self.left -= size
        return True

    def reject(self, rel: str) -> None:
        self.rejected.append(escape_name(rel))


def export_tree(ws: str, rel_src: str, dest: Path, *, max_bytes: int) -> Path:
    """Copy regular files and directories of workspace dir ``rel_src`` to host ``dest``; reject everything else.

    Symlinks, FIFOs, devices and sockets are never followed or copied; nor is anything deeper than
    :data:`MAX_DEPTH`, longer than :data:`MAX_PATH_BYTES`, past :data:`MAX_ENTRIES` entries, or beyond ``max_bytes``
    of apparent file size in total
    (a sparse file counts at its apparent size). Their paths go to ``dest/.jobenv_rejected.json``, which is always
    written (an empty list when nothing was refused) so that a file of that name made by the agent can never stand
    in for it. Files are streamed, never held in memory.
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    budget = ExportBudget(max_bytes)
    try:
        dfd = _open_dir(ws, rel_src)
    except SandboxError:
        dfd = -1
        try:
            st = os.lstat(os.path.join(ws, rel_src))
            if not stat.S_ISDIR(st.st_mode):
                budget.reject(".")  # output itself replaced by a symlink or a file
        except OSError:
            pass
    if dfd >= 0:
        try:
            for r, st, parent_fd, name, complete in _walk(dfd, ""):
                if not complete:
                    budget.reject(r)  # too deep: the folder and what is below it
                    continue
                try:
                    if stat.S_ISDIR(st.st_mode):
                        host = budget.admit_path(r, is_dir=True)
                        if host is not None:
                            (dest / host).mkdir(exist_ok=True)
                    elif stat.S_ISREG(st.st_mode):
                        host = budget.admit_path(r)
                        if host is None or not budget.admit_bytes(r, st.st_size):
                            continue
                        if not (dest / host).parent.is_dir():
                            continue  # its folder was refused already
                        _copy_out(parent_fd, name, dest / host, st.st_size, r, budget)
                    else:
                        budget.reject(r)
                except OSError:
                    # whatever a name or a file does on the host side, it is this entry's refusal, never the episode's
                    budget.reject(r)
        finally:
            os.close(dfd)
    write_rejected(dest, budget.rejected)
    return dest


def _copy_out(parent_fd: int, name: str, target: Path, size: int, rel: str, budget: ExportBudget) -> None:
    """Stream one regular file to the host, at most ``size`` bytes (what the budget admitted)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=parent_fd)
    except OSError:
        budget.reject(rel)
        return
    with os.fdopen(fd, "rb") as fin:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            budget.reject(rel)
            return
        left = size
        with open(target, "wb") as fout:
            while left > 0 and (chunk := fin.read(min(1 << 20, left))):
                fout.write(chunk)
                left -= len(chunk)


def write_rejected(dest: Path, rejected: list[str]) -> None:
    """Write the export's list of refused entries, replacing any file of that name the agent made."""
    target = dest / REJECTED_NAME
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)  # a reserved name: whatever the agent put there is not a deliverable
    target.write_text(json.dumps(sorted(rejected), indent=1))


def remove_tree(path: str | Path) -> None:
    """Delete a host directory tree of any depth (iteratively, no RecursionError), never following symlinks.

    Never raises; what cannot be removed stays (``jobenv gc`` retries).
    """
    path = os.fspath(path)
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
            return
    except OSError:
        return
    stack = [path]
    failed: set[str] = set()
    while stack:
        d = stack[-1]
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            entries = []
        subdirs = []
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.path not in failed:
                        subdirs.append(e.path)
                else:
                    os.unlink(e.path)
            except OSError:
                pass
        if subdirs:
            stack.extend(subdirs)
            continue
        stack.pop()
        try:
            os.rmdir(d)
        except OSError:
            failed.add(d)


def stage_tree(src: Path | None, dst: str) -> None:
    """Copy a host task folder into the workspace: regular files and directories only (symlinks skipped). What it
    makes belongs to the owner of ``dst``."""
    os.makedirs(dst, exist_ok=True)
    if src is None:
        return
    dfd = os.open(dst, _DIR_FLAGS)
    try:
        owner = _owner_of(dfd)
    finally:
        os.close(dfd)

    def adopt(path: str) -> None:
        if owner is not None:
            os.chown(path, *owner, follow_symlinks=False)

    src = Path(src)
    if not src.is_dir():
        raise SandboxError(f"task folder {src} is not a directory")
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        target = dst if rel == "." else os.path.join(dst, rel)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for d in dirs:
            os.makedirs(os.path.join(target, d), exist_ok=True)
            adopt(os.path.join(target, d))
        for f in files:
            s = os.path.join(root, f)
            if os.path.islink(s) or not os.path.isfile(s):
                continue  # a symlink in a task folder could point anywhere on the host
            with open(s, "rb") as fin, open(os.path.join(target, f), "wb") as fout:
                while chunk := fin.read(1 << 20):
                    fout.write(chunk)
            adopt(os.path.join(target, f))
