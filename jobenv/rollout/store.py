"""The trajectories store: an append-only, fsynced JSON Lines file of :class:`~jobenv.rollout.trajectory.Trajectory`
records (:class:`TrajectoryWriter`), read back by :func:`read_trajectories` (a torn last line left by a crash is
tolerated, corrupt lines are skipped unless asked to be strict), and the content-addressed object store beside it
that keeps each episode's full report and graded deliverables (:class:`ObjectStore`, :class:`KeepOutputs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import uuid
import warnings
from pathlib import Path
from typing import Any

from ..errors import JobenvError
from ..judge.base import Judge
from .trajectory import Trajectory, TrajectoryKey

__all__ = [
    "TrajectoryWriter",
    "read_trajectories",
    "ObjectStore",
    "MemoryStore",
    "KeepOutputs",
    "objects_dir",
    "tools_id",
    "sha256_hex",
    "export_trajectories",
]

# message contents at least this long are stored once per file (a task prompt repeats across attempts)
_SHARED_TEXT_MIN = 1024
_SHARED_IDS_MIN = 64  # a full prompt's token ids (an episode's first turn): the task's shared prefix, stored once


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tools_id(tools: list[dict[str, Any]]) -> str:
    """The content id of a tool-schema list (stored once per file)."""
    return sha256_hex(json.dumps(tools, sort_keys=True).encode())[:16]


def objects_dir(path: str | Path) -> Path:
    """The object store of a trajectories file: ``runs/traj.jsonl`` -> ``runs/traj.objects/``.

    It holds, by sha256, each graded episode's deliverables and its full grading report.
    """
    p = Path(path)
    return p.with_name(p.stem + ".objects") if p.suffix else p.with_name(p.name + ".objects")


class ObjectStore:
    """Content-addressed files under one directory (``<root>/<sha[:2]>/<sha>``); writes are atomic."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest

    def put(self, data: bytes) -> str:
        digest = sha256_hex(data)
        dest = self.path(digest)
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_name(f".{digest}.{uuid.uuid4().hex[:8]}")
            tmp.write_bytes(data)
            os.replace(tmp, dest)
        return digest

    def get(self, digest: str) -> bytes:
        """The object's bytes; JobenvError when it is missing."""
        try:
            return self.path(digest).read_bytes()
        except OSError as exc:
            raise JobenvError(f"object {digest[:12]}... missing from {self.root}: {exc}") from exc

    def put_tree(self, folder: Path) -> dict[str, str]:
        """Store every regular file under ``folder``; returns {relative posix path: sha256}."""
        out: dict[str, str] = {}
        for f in sorted(folder.rglob("*")):
            if f.is_file() and not f.is_symlink():
                out[f.relative_to(folder).as_posix()] = self.put(f.read_bytes())
        return out

    def materialize(self, files: dict[str, str], dest: Path) -> Path:
        """Write the files of a :meth:`put_tree` manifest under ``dest`` (a path escaping it is refused)."""
        dest.mkdir(parents=True, exist_ok=True)
        root = dest.resolve()
        for rel, digest in files.items():
            target = (dest / rel).resolve()
            if not target.is_relative_to(root):
                raise JobenvError(f"refusing deliverable path outside the output folder: {rel!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.get(digest))
        return dest


class MemoryStore(ObjectStore):
    """Objects held in memory: a Ray node's deliverables, sent to the driver's store with the trajectory."""

    def __init__(self) -> None:
        super().__init__("")
        self.objects: dict[str, bytes] = {}

    def put(self, data: bytes) -> str:
        digest = sha256_hex(data)
        self.objects[digest] = data
        return digest

    def get(self, digest: str) -> bytes:
        try:
            return self.objects[digest]
        except KeyError:
            raise JobenvError(f"object {digest[:12]}... is not held in memory") from None


class KeepOutputs(Judge):
    """A judge that first stores the output folder it is given (content-addressed), then grades it.

    ``saved`` holds the manifest of the last folder graded ({relative path: sha256}); one instance serves
    one env (one episode at a time). Storing never makes grading fail: a store error leaves ``saved`` None.
    """

    def __init__(self, judge: Judge, store: ObjectStore) -> None:
        self.judge, self.store = judge, store
        self.kind = judge.kind
        self.saved: dict[str, str] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.judge, name)

    def unable(self, task: Any) -> str | None:
        return self.judge.unable(task)

    async def grade(self, task: Any, output_dir: Path) -> Any:
        try:
            self.saved = await asyncio.to_thread(self.store.put_tree, Path(output_dir))
        except OSError:
            self.saved = None
        return await self.judge.grade(task, output_dir)


def read_trajectories(path: str | Path, *, latest_only: bool = True, strict: bool = False,
                      full_reports: bool = False) -> list[Trajectory]:
    """Read a trajectories file, tolerating a torn last line (a crash mid-write) and skipping bad lines.

    Tool schemas and shared texts are put back into each trajectory. With ``latest_only`` an episode key
    written twice (an errored episode retried) keeps its last line. ``full_reports`` loads each episode's
    full grading report from the object store (otherwise ``report`` holds its scores only).
    ``strict=True`` raises JobenvError on any unparseable line other than a torn last one.
    Raises JobenvError when the file does not exist.
    """
    p = Path(path)
    if not p.is_file():
        raise JobenvError(f"trajectories file not found: {p}")
    records, bad = _scan(p)
    if bad and strict:
        raise JobenvError(f"{p}: unparseable lines {bad[:10]}")
    if full_reports:
        store = ObjectStore(objects_dir(p))
        for r in records:
            if r.report_ref:
                try:
                    r.report = json.loads(store.get(r.report_ref))
                except (JobenvError, ValueError):
                    pass  # the scores in the line stay; the full report is simply not there
    if not latest_only:
        return records
    latest: dict[TrajectoryKey, Trajectory] = {}
    for r in records:
        latest.pop(r.key, None)  # keep first-seen order of the final record
        latest[r.key] = r
    return list(latest.values())


def _scan(p: Path) -> tuple[list[Trajectory], list[int]]:
    records: list[Trajectory] = []
    bad: list[int] = []
    tools: dict[str, list[dict[str, Any]]] = {}
    texts: dict[str, str] = {}
    ids: dict[str, list[int]] = {}
    with open(p, "rb") as fh:  # line by line: trajectory files grow large
        for i, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                d = json.loads(raw)
                kind = d.get("record", "episode")
                if kind == "tools":
                    tools[d["id"]] = d["tools"]
                elif kind == "text":
                    texts[d["id"]] = d["text"]
                elif kind == "ids":
                    ids[d["id"]] = d["ids"]
                elif kind == "episode":
                    for c in d.get("completions") or []:
                        ref = c.pop("prompt_ids_ref", None)
                        if ref is not None:
                            c["prompt_token_ids"] = ids[ref]
                    for m in d.get("messages") or []:
                        ref = m.pop("content_ref", None)
                        if ref is not None:
                            m["content"] = texts[ref]
                    if d.get("tools_id") and not d.get("tools"):
                        d["tools"] = tools.get(d["tools_id"], [])
                    records.append(Trajectory.model_validate(d))
            except (ValueError, KeyError, AttributeError):
                if raw.endswith(b"\n"):
                    bad.append(i)
                    warnings.warn(f"{p}: line {i} is not a trajectory record, so it is skipped", stacklevel=3)
                # else: a torn last line (a crash mid-write); the episode is simply not finished
    return records, bad


def _compact_report(report: dict[str, Any]) -> dict[str, Any]:
    """The scores and verdict of a report without its per-rubric detail (kept in the object store)."""
    return {k: v for k, v in report.items() if k != "rubrics"}


class TrajectoryWriter:
    """Append-only, crash-safe JSONL writer: one line per finished episode, flushed and fsynced.

    Each tool-schema list, each long message text and each full prompt's token ids (the first prompt of an
    episode collected with engine tokens: the task's shared prefix, the same for all its attempts) is written once
    per file, as a ``tools``, ``text`` or ``ids`` record line before the first episode that uses it; episode lines
    refer to them by id (``tools_id``, ``content_ref``, ``prompt_ids_ref``), and the full
    grading report goes to the object store next to the file (:func:`objects_dir`), the line keeping its
    scores. :func:`read_trajectories` puts everything back. Opening an existing file drops a torn last line
    (an episode whose write was cut off is simply rerun) so the next record starts on a fresh line. Writes
    run in a worker thread under a lock so an fsync never stalls the event loop. Raises JobenvError when
    the file cannot be opened.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.objects = ObjectStore(objects_dir(self.path))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._repair_tail()
            self._known = self._known_records()
            self._fh = open(self.path, "ab")
        except OSError as exc:
            raise JobenvError(f"cannot write trajectories to {self.path}: {exc}") from exc
        self._lock = asyncio.Lock()

    def _known_records(self) -> set[str]:
        known: set[str] = set()
        if not self.path.exists():
            return known
        with open(self.path, "rb") as fh:
            for raw in fh:
                if raw.startswith((b'{"record":"tools"', b'{"record":"text"', b'{"record":"ids"')):
                    try:
                        known.add(json.loads(raw)["id"])
                    except (ValueError, KeyError):
                        pass
        return known

    def _repair_tail(self) -> None:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with open(self.path, "rb+") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 1))
            if fh.read(1) == b"\n":
                return
            # find the last newline; everything after it is a torn record
            pos, chunk = size, 65536
            cut = 0
            while pos > 0:
                start = max(0, pos - chunk)
                fh.seek(start)
                buf = fh.read(pos - start)
                idx = buf.rfind(b"\n")
                if idx >= 0:
                    cut = start + idx + 1
                    break
                pos = start
            fh.seek(cut)
            tail = fh.read()
            try:  # a full record missing only its newline is kept
                json.loads(tail)
                fh.seek(0, os.SEEK_END)
                fh.write(b"\n")
            except ValueError:
                fh.truncate(cut)
            fh.flush()
            os.fsync(fh.fileno())

    def encode(self, traj: Trajectory) -> bytes:
        """The lines that store ``traj``: new shared records first, then the episode line.

        Stores the full report in the object store as a side effect.
        """
        d = traj.model_dump(mode="json")
        lines: list[dict[str, Any]] = []
        schemas = d.pop("tools")
        if schemas:
            tid = d["tools_id"] = d.get("tools_id") or tools_id(schemas)
            if tid not in self._known:
                lines.append({"record": "tools", "id": tid, "tools": schemas})
        for m in d["messages"]:
            content = m.get("content")
            if isinstance(content, str) and len(content) >= _SHARED_TEXT_MIN:
                ref = sha256_hex(content.encode())[:24]
                if ref not in self._known:
                    lines.append({"record": "text", "id": ref, "text": content})
                    self._known.add(ref)
                del m["content"]
                m["content_ref"] = ref
        for key in ("completions", "steps"):  # their unset fields (None, the default) are left out; read back as is
            d[key] = [{k: v for k, v in item.items() if v is not None} for item in d.get(key) or []]
        for c in d.get("completions") or []:  # a full prompt's ids: the same for every attempt of the task
            prompt = c.get("prompt_token_ids")
            if isinstance(prompt, list) and len(prompt) >= _SHARED_IDS_MIN:
                ref = "ids-" + sha256_hex(json.dumps(prompt, separators=(",", ":")).encode())[:24]
                if ref not in self._known:
                    lines.append({"record": "ids", "id": ref, "ids": prompt})
                    self._known.add(ref)
                del c["prompt_token_ids"]
                c["prompt_ids_ref"] = ref
        if d.get("report"):
            d["report_ref"] = self.objects.put(json.dumps(d["report"], sort_keys=True).encode())
            d["report"] = _compact_report(d["report"])
        if schemas:
            self._known.add(d["tools_id"])
        lines.append(d)
        return b"".join(json.dumps(x, separators=(",", ":")).encode() + b"\n" for x in lines)

    def _write_sync(self, traj: Trajectory) -> None:
        self._fh.write(self.encode(traj))
        self._fh.flush()
        os.fsync(self._fh.fileno())

    async def write(self, traj: Trajectory) -> None:
        async with self._lock:
            await asyncio.to_thread(self._write_sync, traj)

    def close(self) -> None:
        self._fh.close()


def export_trajectories(path: str | Path, out: str | Path, *, full_reports: bool = False) -> int:
    """Write a compacted copy of a trajectories file for pandas or ``datasets``: one plain row per episode key
    (model, policy id, env, task, attempt), the latest one, every message inlined, no record lines.

    Tool schemas are not repeated per row: each row has ``tools_id`` and ``<out stem>.tools.json`` maps the
    ids to the schemas. ``full_reports`` inlines each episode's full grading report (else its scores).
    Episodes collected with engine tokens get ``token_segments`` (ids, loss mask, logprobs, spans).
    Returns the number of rows. Raises JobenvError for a missing input or an unwritable ``out``.
    """
    src, dst = Path(path), Path(out)
    if dst.resolve() == src.resolve():
        raise JobenvError("export writes a new file: the output must differ from the trajectories file")
    trajs = read_trajectories(src, full_reports=full_reports)
    schemas: dict[str, list[dict[str, Any]]] = {}
    tmp = dst.with_name(f".{dst.name}.{uuid.uuid4().hex[:8]}")
    try:
        dst.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            for t in trajs:
                row = t.model_dump(mode="json", exclude={"record", "tools"})
                if any(c.prompt_token_ids is not None or c.prompt_new_ids is not None for c in t.completions):
                    with contextlib.suppress(JobenvError):  # a turn without ids: the episode has no sequences
                        row["token_segments"] = [s.model_dump(mode="json") for s in t.token_segments()]
                if t.tools:
                    row["tools_id"] = t.tools_id or tools_id(t.tools)
                    schemas.setdefault(row["tools_id"], t.tools)
                fh.write(json.dumps(row, separators=(",", ":")).encode() + b"\n")
        os.replace(tmp, dst)
        dst.with_name(dst.stem + ".tools.json").write_text(json.dumps(schemas, indent=1), encoding="utf-8")
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise JobenvError(f"cannot write the export to {dst}: {exc}") from exc
    return len(trajs)
