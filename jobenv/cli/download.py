"""``jobenv download``: fetch JobBench (or JobTasks) from the Hub, or import a snapshot, into the local tree."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "download"
HELP = "download JobBench (or JobTasks) and map it to the local tree"


@dataclass(frozen=True)
class Options:
    dataset: str
    repo_id: str | None
    revision: str | None
    from_dir: str | None
    data_dir: str | None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", choices=["jobbench", "jobtasks"], default="jobbench", help="which dataset")
    p.add_argument("--repo-id", default=None, help="Hub dataset repo (default: the dataset's own)")
    p.add_argument("--revision", default=None, help="commit SHA to pin (default: the one recorded in jobenv)")
    p.add_argument("--from-dir", default=None, help="import an already-downloaded Hub snapshot instead (default: download)")
    p.add_argument("--data-dir", default=None, help="where to put it (default: $JOBENV_DATA or ~/.cache/jobenv)")


def run(opts: Options) -> int:
    """Exit 0 when every task validated, 1 when some were invalid (they are skipped and listed)."""
    from ..datasets import data_dir, download, import_snapshot

    dest = Path(opts.data_dir).expanduser() if opts.data_dir else None
    if opts.from_dir:
        manifest = import_snapshot(Path(opts.from_dir), dataset=opts.dataset, repo_id=opts.repo_id,
                                   revision=opts.revision or "local", dest_root=dest)
    else:
        manifest = download(opts.dataset, repo_id=opts.repo_id, revision=opts.revision, dest_root=dest)
    root = (dest or data_dir()) / opts.dataset
    counts = ", ".join(f"{k}: {v} tasks" for k, v in sorted(manifest.counts.items()))
    print(f"{manifest.repo_id}@{manifest.revision} -> {root} ({counts}; {len(manifest.files)} files)")
    for uid, err in manifest.invalid.items():
        print(f"invalid (skipped): {uid}: {err}")
    return 1 if manifest.invalid else 0
