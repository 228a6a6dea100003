"""Dataset layouts on disk and the download/import of JobBench and JobTasks.

Layouts read (all tolerant of the real variations):

- the local tree ``<root>/<occupation>/taskN/`` (what jobenv writes, and the official ``dataset/<split>/``);
- the Hub's raw snapshot: ``dataset/`` is main, ``dataset_easy/`` is easy;
- the parquet export (``tasks.parquet`` / ``easy.parquet``: ``task_id``, ``prompt``, ``rubric_json``,
  ``reference_files``, ``task_card``), materialised into a task tree;
- the JobTasks layout: any directory holding ``task_folder/TASK_INSTRUCTIONS.txt`` and a rubric file
  (``RUBRICS.json`` or one under ``ground_truth/``), occupation from ``meta.json`` or the parent folder.

Downloads go through ``huggingface_hub.snapshot_download`` pinned to a revision, are mapped to the local
tree under the data directory, validated task by task, and recorded in a manifest with per-file sha256.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from . import settings
from .errors import DatasetNotFoundError, JobenvError, TaskFormatError
from .tasks import INSTRUCTIONS_FILE, RUBRICS_FILE, SCHEMA_VERSION, Task, load_task_dir, parse_rubrics

__all__ = [
    "JOBBENCH_REPO_ID",
    "JOBBENCH_DEFAULT_REVISION",
    "JOBTASKS_REPO_ID",
    "EXPECTED_COUNTS",
    "DatasetManifest",
    "data_dir",
    "load_tree",
    "discover_task_dirs",
    "load_parquet",
    "import_snapshot",
    "download",
    "fetch_snapshot",
    "file_digest",
    "read_manifest",
]

JOBBENCH_REPO_ID = "JobBench/job-bench"
# A published revision of JobBench/job-bench; pass --revision to use another. Maintainers fix tasks
# after reports, so a download is always pinned and its resolved SHA is written to the manifest.
JOBBENCH_DEFAULT_REVISION = "934d4c93542c24926d0957ed6feecd6bbd922c41"
# JobTasks lives on OpenReward; where a Hub mirror exists its id is configurable here or with --repo-id.
JOBTASKS_REPO_ID = settings.get("JOBENV_JOBTASKS_REPO") or "GeneralReasoning/JobTasks"
EXPECTED_COUNTS = {"main": 65, "easy": 63}
HUB_SPLIT_FOLDERS = {"dataset": "main", "dataset_easy": "easy"}
MANIFEST = "manifest.json"

class DatasetManifest(BaseModel):
    """What a download or import put on disk (``<data dir>/<dataset>/manifest.json``)."""

    schema_version: int = SCHEMA_VERSION
    dataset: str
    repo_id: str
    revision: str
    created_unix: float = Field(default_factory=time.time)
    counts: dict[str, int] = Field(default_factory=dict)
    invalid: dict[str, str] = Field(default_factory=dict, description="task uid -> validation error")
    files: dict[str, str] = Field(default_factory=dict, description="relative path -> sha256")


def data_dir() -> Path:
    """``$JOBENV_DATA`` if set, else ``~/.cache/jobenv`` (see :mod:`jobenv.settings`)."""
    return settings.data_dir()


def read_manifest(dataset_root: Path) -> DatasetManifest | None:
    """The manifest of a downloaded dataset, or None when absent. A corrupt manifest raises TaskFormatError."""
    path = dataset_root / MANIFEST
    if not path.is_file():
        return None
    try:
        return DatasetManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except Exception as exc:  # pydantic ValidationError or bad JSON: one clear line
        raise TaskFormatError(f"{path}: not a valid jobenv manifest ({type(exc).__name__}); re-run the download") from None


def discover_task_dirs(root: Path) -> list[Path]:
    """Every task directory below ``root``: a folder with ``task_folder/TASK_INSTRUCTIONS.txt``.

    A folder that looks like a task (a ``RUBRICS.json`` or a ``task_folder/``) but has no instructions file is
    left out with a warning naming it, never silently.
    """
    found = sorted(p.parent.parent for p in root.rglob(f"task_folder/{INSTRUCTIONS_FILE}") if p.is_file())
    known = set(found)
    suspects = {p.parent for p in root.rglob("RUBRICS.json")} | {p.parent for p in root.rglob("task_folder")
                                                                  if p.is_dir()}
    for d in sorted(suspects - known):
        if any(k == d or d in k.parents or k in d.parents for k in known):
            continue  # a file inside a real task (e.g. a RUBRICS.json among the agent's inputs)
        warnings.warn(f"{d}: no task_folder/{INSTRUCTIONS_FILE}, so this task is skipped", stacklevel=2)
    return found


def load_tree(
    root: Path, split: str, *, skip: set[str] | frozenset[str] = frozenset(), revision: str | None = None
) -> list[Task]:
    """Load every task below ``root`` in stable order (occupation, then task number).

    Works on ``<root>/<occupation>/taskN/`` and on JobTasks-style trees (occupation from ``meta.json`` when it
    names one). Tasks whose ``<split>/<path below root>`` is in ``skip`` (known invalid, from the manifest)
    are left out; ``revision`` is recorded on every task. Raises DatasetNotFoundError when ``root`` does not
    exist and TaskFormatError (naming the file) on the first malformed task or a repeated task id.
    """
    root = Path(root)
    if not root.is_dir():
        raise DatasetNotFoundError(f"{root}: no such directory")
    tasks: list[Task] = []
    for task_dir in discover_task_dirs(root):
        if f"{split}/{task_dir.relative_to(root).as_posix()}" in skip:
            continue
        fallback = "general" if task_dir.parent == root else None
        tasks.append(load_task_dir(task_dir, split, fallback, revision=revision))
    tasks.sort(key=lambda t: (t.occupation, t.number))
    seen: set[str] = set()
    for t in tasks:
        if t.id in seen:
            raise TaskFormatError(f"{root}: two tasks share the id {t.id}")
        seen.add(t.id)
    return tasks


def load_parquet(
    parquet: Path, split: str, dest: Path, *, files_root: Path | None = None
) -> list[Task]:
    """Materialise the Hub's parquet export as a task tree under ``dest`` and load it.

    Reference files are copied from ``files_root`` (a Hub snapshot holding ``dataset/...`` paths as listed
    in ``reference_files``) when given; a file that cannot be found is reported in a warning, and the task
    keeps its instructions and rubric. Raises TaskFormatError naming the row and column on a bad row.
    """
    import pandas as pd

    try:
        frame = pd.read_parquet(parquet)
    except Exception as exc:
        raise TaskFormatError(f"{parquet}: cannot read parquet ({exc})") from None
    for col in ("prompt", "rubric_json"):
        if col not in frame.columns:
            raise TaskFormatError(f"{parquet}: missing column {col!r}")
    missing: list[str] = []
    for i, row in enumerate(frame.to_dict("records")):
        where = f"{parquet}: row {i}"
        task_id = str(row.get("task_id") or "")
        occupation = str(row.get("occupation") or task_id.split("__")[0] or "")
        raw_number: Any = row.get("task_num")
        if raw_number is None and "__task" in task_id:
            raw_number = task_id.rsplit("__task", 1)[1]
        try:
            number = int(raw_number)
        except (TypeError, ValueError):
            raise TaskFormatError(f"{where}: column 'task_num'/'task_id': no task number") from None
        if not occupation:
            raise TaskFormatError(f"{where}: column 'occupation': empty")
        try:
            rubric_data = json.loads(row["rubric_json"])
        except (TypeError, ValueError) as exc:
            raise TaskFormatError(f"{where}: column 'rubric_json': not JSON ({exc})") from None
        parse_rubrics(rubric_data, f"{where}: column 'rubric_json'")
        task_dir = dest / occupation / f"task{number}"
        folder = task_dir / "task_folder"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / INSTRUCTIONS_FILE).write_text(str(row["prompt"]), encoding="utf-8")
        (task_dir / RUBRICS_FILE).write_text(json.dumps(rubric_data, indent=2), encoding="utf-8")
        if row.get("task_card"):
            (task_dir / "task_card.md").write_text(str(row["task_card"]), encoding="utf-8")
        refs: Any = row.get("reference_files")
        for ref in list(refs if refs is not None else []):
            ref = str(ref)
            name = ref.split("/task_folder/", 1)[-1]
            source = files_root / ref if files_root is not None else None
            if source is not None and source.is_file():
                target = folder / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
            else:
                missing.append(f"{occupation}/task{number}: {name}")
    if missing:
        warnings.warn(
            f"{parquet}: {len(missing)} reference file(s) not available locally (first: {missing[0]}); "
            "pass files_root= a Hub snapshot to include them",
            stacklevel=2,
        )
    return load_tree(dest, split)


def file_digest(path: Path) -> str:
    """The sha256 of a file's bytes (hex), read in blocks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _split_sources(snapshot: Path, dataset: str) -> dict[str, Path]:
    """Map split name -> folder of ``<occupation>/taskN`` inside a snapshot, for each known layout."""
    if dataset == "jobbench":
        found = {split: snapshot / folder for folder, split in HUB_SPLIT_FOLDERS.items() if (snapshot / folder).is_dir()}
        for split in ("main", "easy"):  # the official local tree dataset/main, dataset/easy
            for cand in (snapshot / "dataset" / split, snapshot / split):
                if cand.is_dir() and discover_task_dirs(cand):
                    found[split] = cand
        return found
    for cand in (snapshot / "train", snapshot / "dataset" / "train", snapshot / "dataset", snapshot):
        if cand.is_dir() and discover_task_dirs(cand):
            return {"train": cand}
    return {}


def import_snapshot(
    snapshot: Path,
    *,
    dataset: str = "jobbench",
    repo_id: str | None = None,
    revision: str = "local",
    dest_root: Path | None = None,
    progress: bool = True,
) -> DatasetManifest:
    """Map a Hub snapshot (or an official local tree) to ``<data dir>/<dataset>/<split>/...``.

    Every task is validated; invalid ones are listed in the manifest's ``invalid`` and warned about, not
    imported silently. Splits are written to a staging folder and swapped in whole, so an interrupted
    import never leaves a half-written split. Raises DatasetNotFoundError when the snapshot holds no split.
    """
    snapshot = Path(snapshot)
    if not snapshot.is_dir():
        raise DatasetNotFoundError(f"{snapshot}: no such directory")
    sources = _split_sources(snapshot, dataset)
    if not sources:
        expected = "dataset/ and dataset_easy/" if dataset == "jobbench" else "task folders"
        raise DatasetNotFoundError(f"{snapshot}: no {expected} found to import")
    root = (dest_root or data_dir()) / dataset
    root.mkdir(parents=True, exist_ok=True)
    manifest = DatasetManifest(
        dataset=dataset,
        repo_id=repo_id or (JOBBENCH_REPO_ID if dataset == "jobbench" else JOBTASKS_REPO_ID),
        revision=revision,
    )
    for split, source in sorted(sources.items()):
        staging = root / f".{split}.staging"
        shutil.rmtree(staging, ignore_errors=True)
        task_dirs = discover_task_dirs(source)
        for k, task_dir in enumerate(task_dirs, 1):
            rel = task_dir.relative_to(source)
            shutil.copytree(task_dir, staging / rel, symlinks=False)
            if progress:
                print(f"\r{dataset}/{split}: copied {k}/{len(task_dirs)} tasks", end="", file=sys.stderr)
        if progress and task_dirs:
            print(file=sys.stderr)
        valid = 0
        for task_dir in discover_task_dirs(staging) if staging.is_dir() else []:
            uid = f"{split}/{task_dir.relative_to(staging).as_posix()}"
            try:
                load_task_dir(task_dir, split)
                valid += 1
            except JobenvError as exc:
                manifest.invalid[uid] = str(exc)
        final = root / split
        old = root / f".{split}.old"
        shutil.rmtree(old, ignore_errors=True)
        if final.exists():
            final.rename(old)
        if staging.exists():
            staging.rename(final)
        shutil.rmtree(old, ignore_errors=True)
        manifest.counts[split] = valid
        for f in sorted(p for p in final.rglob("*") if p.is_file()) if final.exists() else []:
            manifest.files[f.relative_to(root).as_posix()] = file_digest(f)
    for uid, err in manifest.invalid.items():
        warnings.warn(f"{manifest.dataset} {uid} is invalid and will be skipped: {err}", stacklevel=2)
    (root / MANIFEST).write_text(manifest.model_dump_json(indent=2), encoding="utf-8")
    return manifest


def download(
    dataset: str = "jobbench",
    *,
    repo_id: str | None = None,
    revision: str | None = None,
    dest_root: Path | None = None,
) -> DatasetManifest:
    """Download a dataset from the Hugging Face Hub (:func:`fetch_snapshot`) and import it.

    Pinned to ``revision`` (default: the one recorded in jobenv for JobBench), restricted to ``dataset/**`` and
    ``dataset_easy/**`` for JobBench. Network or Hub failures raise DatasetNotFoundError with the underlying reason.
    """
    root = dest_root or data_dir()
    repo = repo_id or (JOBBENCH_REPO_ID if dataset == "jobbench" else JOBTASKS_REPO_ID)
    rev = revision or (JOBBENCH_DEFAULT_REVISION if dataset == "jobbench" else None)
    patterns = ["dataset/**", "dataset_easy/**"] if dataset == "jobbench" else None
    path = fetch_snapshot(repo, rev, patterns, root)
    return import_snapshot(path, dataset=dataset, repo_id=repo, revision=path.name, dest_root=root)


def fetch_snapshot(repo: str, revision: str | None, patterns: list[str] | None, root: Path) -> Path:
    """``snapshot_download`` of dataset ``repo`` at ``revision`` (None: the default branch) into
    ``<root>/hub-cache``, every file checked against the Hub's checksums; returns the snapshot folder, named by the
    resolved commit SHA. Resumable (the Hub cache keeps finished files). DatasetNotFoundError with the reason (and
    the ``--from-dir`` way round) when the Hub cannot be reached or a file does not match. An endpoint whose name
    does not resolve or whose port refuses fails at once (one connection attempt, no retries)."""
    from huggingface_hub import constants, snapshot_download

    if not constants.HF_HUB_OFFLINE:
        _check_reachable(constants.ENDPOINT, repo, revision)
    try:
        path = Path(snapshot_download(repo_id=repo, repo_type="dataset", revision=revision,
                                      allow_patterns=patterns, cache_dir=str(root / "hub-cache")))
    except Exception as exc:  # huggingface_hub raises many types (offline, 404, HTTP); one clear message
        raise DatasetNotFoundError(
            f"could not download {repo}@{revision or 'default branch'}: {type(exc).__name__}: {_one_line(exc)}. "
            "If you already have a snapshot, import it with: jobenv download --from-dir PATH"
        ) from None
    _verify_checksums(repo, path, patterns, root / "hub-cache")
    return path


def _check_reachable(endpoint: str, repo: str, revision: str | None) -> None:
    """Raise DatasetNotFoundError at once when ``endpoint``'s host does not resolve or refuses a connection (the
    Hub client retries those for half a minute before saying so); a slow or odd answer is left to the client."""
    import socket
    from urllib.parse import urlsplit

    url = urlsplit(endpoint)
    host, port = url.hostname or "", url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=10).close()
    except (socket.gaierror, ConnectionRefusedError) as exc:
        why = f"{host} does not resolve" if isinstance(exc, socket.gaierror) else f"{host}:{port} refused the connection"
        raise DatasetNotFoundError(
            f"could not download {repo}@{revision or 'default branch'}: the Hub is unreachable ({why}; offline?). "
            "If you already have a snapshot, import it with: jobenv download --from-dir PATH") from None
    except OSError:
        pass  # a timeout or another failure: the client's own handling says what it is


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "..."


def _verify_checksums(repo: str, snapshot: Path, patterns: list[str] | None, cache: Path) -> None:
    """Check every downloaded file against the Hub's listing (git blob id, or sha256 for LFS files): the client
    checks sizes only. A file that differs is removed from the cache (so the next run fetches it again) and
    DatasetNotFoundError names it; nothing is imported."""
    from huggingface_hub import HfApi
    from huggingface_hub.utils import filter_repo_objects

    try:
        result = HfApi().verify_repo_checksums(repo, repo_type="dataset", revision=snapshot.name, cache_dir=cache)
    except Exception as exc:  # noqa: BLE001 - the listing could not be had: the files are not trusted either
        raise DatasetNotFoundError(f"could not verify {repo}@{snapshot.name}: {type(exc).__name__}: "
                                   f"{_one_line(exc)}") from None
    missing = list(filter_repo_objects(result.missing_paths, allow_patterns=patterns))
    if not result.mismatches and not missing:
        return
    for m in result.mismatches:
        link = snapshot / m["path"]
        blob = link.resolve()
        link.unlink(missing_ok=True)
        if blob != link:
            blob.unlink(missing_ok=True)
    if result.mismatches:
        m = result.mismatches[0]
        raise DatasetNotFoundError(
            f"{repo}@{snapshot.name}: {len(result.mismatches)} downloaded file(s) differ from the Hub's checksums "
            f"(first: {m['path']}, {m['algorithm']} {m['expected'][:12]} expected, got {m['actual'][:12]}); they were removed "
            "from the cache and nothing was imported: run the download again")
    raise DatasetNotFoundError(f"{repo}@{snapshot.name}: {len(missing)} listed file(s) did not download (first: "
                               f"{missing[0]}); nothing was imported: run the download again")
