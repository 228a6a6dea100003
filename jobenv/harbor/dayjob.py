"""DAYJOB's data: the Hub repositories ``surgeai/DAYJOB-healthcare`` and ``surgeai/DAYJOB-finance``, each a set of
Harbor task directories graded by ``tests/judge.toml``, downloaded (or imported from a snapshot on disk) into
``<data dir>/dayjob-<domain>/tasks/<task>/`` and served as ``dayjob/healthcare`` and ``dayjob/finance``.

An import finds every Harbor task directory in the snapshot (``task.toml`` beside ``instruction.md``, at any
depth), copies each to a staging folder swapped in whole, validates it as ``make`` would (``task.toml``,
``instruction.md``, a grader, a ``judge.toml`` that parses) and writes the same manifest as JobBench's: the
resolved revision, the count, every invalid task with its reason, and a sha256 per file. A count other than the
published one (:data:`EXPECTED_COUNTS`) is a warning.

Pinning: this version records no DAYJOB commit (it was written without access to the Hub), so a download without
``revision`` takes the default branch and the manifest records the commit it resolved to; pass that as
``revision`` to reproduce a run.

Failure behaviour: DatasetNotFoundError for an unknown domain, a Hub that cannot be reached (naming the
``--from-dir`` way round) or a snapshot holding no Harbor task; invalid tasks are listed, never imported
silently.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

from ..datasets import MANIFEST, DatasetManifest, data_dir, fetch_snapshot, file_digest
from ..errors import DatasetNotFoundError, JobenvError
from .spec import is_task_dir, read_task_dir

__all__ = ["DAYJOB_REPOS", "EXPECTED_COUNTS", "SPLIT", "download_dayjob", "import_dayjob", "find_task_dirs"]

DAYJOB_REPOS = {"dayjob-healthcare": "surgeai/DAYJOB-healthcare", "dayjob-finance": "surgeai/DAYJOB-finance"}
EXPECTED_COUNTS = {"dayjob-healthcare": 50, "dayjob-finance": 80}
SPLIT = "tasks"  # the one folder of a DAYJOB download holding its task directories


def _repo(dataset: str) -> str:
    if dataset not in DAYJOB_REPOS:
        raise DatasetNotFoundError(f"unknown DAYJOB dataset {dataset!r}; known: {', '.join(DAYJOB_REPOS)}")
    return DAYJOB_REPOS[dataset]


def find_task_dirs(snapshot: Path) -> list[Path]:
    """Every Harbor task directory below ``snapshot`` (hidden folders and the inside of a task left out)."""
    found: list[Path] = []
    for toml in sorted(snapshot.rglob("task.toml")):
        d = toml.parent
        rel = d.relative_to(snapshot).parts
        if any(part.startswith(".") for part in rel) or any(f in d.parents for f in found):
            continue
        if is_task_dir(d):
            found.append(d)
    return found


def _validate(task_dir: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unknown keys: reported when the task is loaded, not at import
        spec = read_task_dir(task_dir)
    if spec.grader == "judge.toml":
        from .judge_toml import load_judge_toml

        load_judge_toml(spec.tests_dir / "judge.toml")


def import_dayjob(snapshot: Path, dataset: str, *, revision: str = "local", dest_root: Path | None = None,
                  repo_id: str | None = None) -> DatasetManifest:
    """Import the Harbor tasks of ``snapshot`` as ``dataset`` (see the module docstring)."""
    repo = repo_id or _repo(dataset)
    snapshot = Path(snapshot)
    if not snapshot.is_dir():
        raise DatasetNotFoundError(f"{snapshot}: no such directory")
    dirs = find_task_dirs(snapshot)
    if not dirs:
        raise DatasetNotFoundError(f"{snapshot}: no Harbor task directory (task.toml beside instruction.md) found")
    root = (dest_root or data_dir()) / dataset
    root.mkdir(parents=True, exist_ok=True)
    staging, final, old = root / f".{SPLIT}.staging", root / SPLIT, root / f".{SPLIT}.old"
    shutil.rmtree(staging, ignore_errors=True)
    manifest = DatasetManifest(dataset=dataset, repo_id=repo, revision=revision)
    names: set[str] = set()
    for d in dirs:
        name = "__".join(d.relative_to(snapshot).parts) if d.name in names else d.name
        names.add(name)
        shutil.copytree(d, staging / name, symlinks=False)
        try:
            _validate(staging / name)
        except JobenvError as exc:
            manifest.invalid[f"{SPLIT}/{name}"] = str(exc).replace(str(staging), str(final))
            shutil.rmtree(staging / name)
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    staging.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    manifest.counts[SPLIT] = len(dirs) - len(manifest.invalid)
    for f in sorted(p for p in final.rglob("*") if p.is_file()):
        manifest.files[f.relative_to(root).as_posix()] = file_digest(f)
    for uid, err in manifest.invalid.items():
        warnings.warn(f"{dataset} {uid} is invalid and was not imported: {err}", stacklevel=2)
    expected = EXPECTED_COUNTS.get(dataset)
    if expected is not None and manifest.counts[SPLIT] != expected:
        warnings.warn(f"{dataset}: {manifest.counts[SPLIT]} valid tasks, the published set has {expected}",
                      stacklevel=2)
    (root / MANIFEST).write_text(manifest.model_dump_json(indent=2), encoding="utf-8")
    return manifest


def download_dayjob(dataset: str, *, revision: str | None = None, dest_root: Path | None = None,
                    repo_id: str | None = None) -> DatasetManifest:
    """Download ``dataset`` from the Hub (checksums verified) and import it; the manifest records the resolved
    commit."""
    repo = repo_id or _repo(dataset)
    root = dest_root or data_dir()
    path = fetch_snapshot(repo, revision, None, root)
    return import_dayjob(path, dataset, revision=path.name, dest_root=root, repo_id=repo)
