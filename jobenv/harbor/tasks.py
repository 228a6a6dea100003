"""Harbor task directories as jobenv tasks: one directory holding ``task.toml``, or a directory of them.

Each becomes a :class:`~jobenv.tasks.Task` with ``harbor`` set (its :class:`~jobenv.harbor.spec.HarborSpec`), no
rubrics (its ``tests/`` grade it), the id ``<directory name>/task1`` and, as its task folder, the workspace files
the environment's Dockerfile copies into the workdir, staged once on the host under the cache directory (keyed by
their content) so every episode copies the same tree.

In a folder of tasks, the ones jobenv does not run (compose and multi-step tasks) are left out and named in one
warning; asked for by their own path they are refused, naming what they are.

Failure behaviour: TaskFormatError (see :func:`jobenv.harbor.spec.read_task_dir`), also for a folder holding no
Harbor task jobenv runs; nothing half-staged is left behind.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import warnings
from pathlib import Path

from ..errors import TaskFormatError
from ..tasks import Task
from .spec import HarborSpec, is_task_dir, read_task_dir, unsupported_reason

__all__ = ["load_harbor_tasks", "is_task_dir", "is_harbor_path", "HARBOR_PREFIX"]

HARBOR_PREFIX = "harbor:"


def is_harbor_path(path: Path) -> bool:
    """A Harbor task directory, or a directory whose subdirectories include one."""
    if is_task_dir(path):
        return True
    try:
        return path.is_dir() and any(is_task_dir(p) for p in path.iterdir() if p.is_dir())
    except OSError:
        return False


def _stage(spec: HarborSpec, cache: Path) -> Path:
    dockerfile = spec.root / "environment" / "Dockerfile"
    files: list[tuple[Path, str]] = []
    for host, rel in spec.copies:
        if host.is_dir():
            for p in sorted(host.rglob("*")):
                if p.is_file() and not p.is_symlink():
                    files.append((p, os.path.normpath(os.path.join(rel, str(p.relative_to(host))))))
        elif host.is_file():
            files.append((host, rel))
        else:
            raise TaskFormatError(f"{dockerfile}: COPY source {host} does not exist")
    dirs = list(spec.made_dirs)
    digest = hashlib.sha256("\0".join(sorted(dirs)).encode())
    for host, rel in files:
        digest.update(rel.encode() + b"\0" + hashlib.sha256(host.read_bytes()).digest())
    dest = cache / "harbor-workspaces" / digest.hexdigest()[:24]
    if dest.is_dir():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".staging-"))
    try:
        for rel in dirs:
            (tmp / rel).mkdir(parents=True, exist_ok=True)
        for host, rel in files:
            if rel.startswith(".."):
                continue
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(host, target)
        os.replace(tmp, dest)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not dest.is_dir():  # another process may have won the race with the same content
            raise
    return dest


def _task(spec: HarborSpec, cache: Path) -> Task:
    instructions = (spec.root / "instruction.md").read_text(encoding="utf-8", errors="replace")
    return Task(split="harbor", occupation=spec.root.name, number=1, instructions=instructions,
                task_folder=_stage(spec, cache), rubrics=[], root=spec.root, harbor=spec,
                meta={"harbor_name": spec.name, **({"domain": spec.domain} if spec.domain else {})})


def load_harbor_tasks(path: str | Path, domain: str | None = None) -> list[Task]:
    """The Harbor task at ``path`` (or ``harbor:<path>``), or every Harbor task directly below it, sorted by
    directory name; ``domain`` is the report group of those whose ``[metadata]`` names none."""
    from ..settings import cache_dir

    text = str(path)
    root = Path(text[len(HARBOR_PREFIX):] if text.startswith(HARBOR_PREFIX) else text).expanduser()
    if is_task_dir(root):
        dirs = [root]
    else:
        dirs = sorted(p for p in root.iterdir() if p.is_dir() and (p / "task.toml").is_file()) if root.is_dir() else []
        skipped = {d.name: why for d in dirs if (why := unsupported_reason(d)) is not None}
        if skipped:
            warnings.warn(f"{root}: {len(skipped)} Harbor task(s) left out, jobenv does not run them: "
                          + "; ".join(f"{name}: {why}" for name, why in skipped.items()), stacklevel=2)
            dirs = [d for d in dirs if d.name not in skipped]
    if not dirs:
        raise TaskFormatError(f"{root}: no Harbor task jobenv runs (a directory with task.toml and instruction.md) "
                              "here")
    specs = [read_task_dir(d) for d in dirs]
    if domain:
        specs = [s if s.domain else s.model_copy(update={"domain": domain}) for s in specs]
    return [_task(s, cache_dir()) for s in specs]
