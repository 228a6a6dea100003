"""``jobenv download [DATASET]``: fetch JobBench, JobTasks or DAYJOB from the Hub, or import a snapshot, into the
local tree."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from pathlib import Path

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "download"
HELP = "download JobBench (or JobTasks, DAYJOB) and map it to the local tree"
DATASETS = ["jobbench", "jobtasks", "dayjob-healthcare", "dayjob-finance"]


@dataclass(frozen=True)
class Options:
    dataset: str | None
    dataset_flag: str | None
    repo_id: str | None
    revision: str | None
    from_dir: str | None
    data_dir: str | None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", nargs="?", choices=DATASETS, default=None, help="which dataset (default: jobbench)")
    p.add_argument("--dataset", dest="dataset_flag", choices=DATASETS, default=None, help="the same, as a flag (default: jobbench)")
    p.add_argument("--repo-id", default=None, help="Hub dataset repo (default: the dataset's own)")
    p.add_argument("--revision", default=None, help="commit SHA to pin (default: the one recorded in jobenv; for "
                   "DAYJOB the default branch, its commit written to the manifest)")
    p.add_argument("--from-dir", default=None, help="import an already-downloaded Hub snapshot instead (default: download)")
    p.add_argument("--data-dir", default=None, help="where to put it (default: $JOBENV_DATA or ~/.cache/jobenv)")


def run(opts: Options) -> int:
    """Exit 0 when every task validated, 1 when some were invalid (they are skipped and listed)."""
    from ..datasets import data_dir, download, import_snapshot
    from ..errors import ConfigError

    if opts.dataset and opts.dataset_flag and opts.dataset != opts.dataset_flag:
        raise ConfigError(f"two datasets named: {opts.dataset} and --dataset {opts.dataset_flag}")
    opts = dataclasses.replace(opts, dataset=opts.dataset or opts.dataset_flag or "jobbench")
    assert opts.dataset is not None
    dest = Path(opts.data_dir).expanduser() if opts.data_dir else None
    if opts.dataset.startswith("dayjob-"):
        from ..harbor.dayjob import download_dayjob, import_dayjob

        if opts.from_dir:
            manifest = import_dayjob(Path(opts.from_dir), opts.dataset, revision=opts.revision or "local",
                                     dest_root=dest, repo_id=opts.repo_id)
        else:
            manifest = download_dayjob(opts.dataset, revision=opts.revision, dest_root=dest, repo_id=opts.repo_id)
    elif opts.from_dir:
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
