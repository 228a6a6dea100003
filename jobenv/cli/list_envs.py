"""``jobenv list``: registered environment ids, task counts and whether each is on disk."""

from __future__ import annotations

from ._common import NoOptions

__all__ = ["NAME", "HELP", "run"]

NAME = "list"
HELP = "registered environment ids, task counts and whether each is downloaded"


def run(opts: NoOptions) -> int:
    """One line per environment id. Never raises for data that is missing (that is what the line says)."""
    from ..datasets import data_dir
    from ..extras import available, install_hint
    from ..registry import DEFAULT_SYNTHETIC_TASKS, DOWNLOAD_HINT, ENV_SPECS, load_tasks

    can_generate = available("synthetic")
    for env_id, spec in ENV_SPECS.items():
        if spec.dataset == "sample":
            state, count = "bundled", str(len(load_tasks(env_id)))
        elif spec.dataset == "synthetic":
            state = "generated on demand" if can_generate else f"needs the synthetic extra: {install_hint('synthetic')}"
            count = "-"
        else:
            present = all((data_dir() / spec.dataset / s).is_dir() for s in spec.splits)
            if spec.dataset == "jobtasks" and not present:
                count = str(DEFAULT_SYNTHETIC_TASKS) if can_generate else "-"
                state = ("generated stand-in (not downloaded)" if can_generate else
                         f"not downloaded: {DOWNLOAD_HINT['jobtasks']}; or generate a stand-in after "
                         f"{install_hint('synthetic')}")
            else:
                state = "downloaded" if present else f"not downloaded: {DOWNLOAD_HINT[spec.dataset]}"
                count = str(spec.expected_count or "?")
        print(f"{env_id:18} {count:>4} tasks  {state}")
    return 0
