"""``jobenv export-harbor ENV_ID --out DIR``: write jobenv tasks as Harbor task directories."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from ._common import add_rules_arguments

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "export-harbor"
HELP = "write an environment's tasks as Harbor task directories"


@dataclass(frozen=True)
class Options:
    env_id: str
    out: str
    network: str
    image: str | None
    tasks: list[str] | None
    wheel: str | None
    rules: Any


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("env_id", help="environment id or task folder path (e.g. jobenv/sample)")
    p.add_argument("--out", required=True, help="directory to write the task directories into (required)")
    p.add_argument("--network", choices=["official", "off", "web"], default="official",
                   help="the agent's network in task.toml: the split's official setting, off or web")
    p.add_argument("--image", default=None, help="FROM image of environment/Dockerfile (default: jobenv's "
                                                  "knowledge-worker image, as `jobenv build-image` tags it)")
    p.add_argument("--tasks", nargs="+", default=None, help="only these task ids (default: all)")
    p.add_argument("--wheel", default=None, help="the jobenv wheel bundled into each task's tests/, which its test.sh "
                                                  "installs (default: one made of this jobenv)")
    add_rules_arguments(p)


def run(opts: Options) -> int:
    """Prints one line per task directory written; JobenvError (exit 2) for a split that does not load or a
    ``--wheel`` that is not this version's jobenv wheel."""
    from pathlib import Path

    from ..harbor.export import export_all
    from ..registry import ENV_SPECS, load_tasks
    from ..tasks import select_tasks

    tasks = load_tasks(opts.env_id)
    if opts.tasks:
        tasks = select_tasks(tasks, opts.tasks, where=opts.env_id)
    network = opts.network
    if network == "official":  # the setting of the split's official runs (web for JobBench), else off
        network = ENV_SPECS[opts.env_id].official_network if opts.env_id in ENV_SPECS else "off"
    written = export_all(tasks, Path(opts.out), rules=opts.rules, network=network,  # type: ignore[arg-type]
                         image=opts.image, wheel=Path(opts.wheel) if opts.wheel else None)
    for path in written:
        print(path)
    print(f"{len(written)} Harbor task director{'y' if len(written) == 1 else 'ies'} in {opts.out}")
    return 0
