"""``jobenv list``: registered environment ids, task counts and whether each is on disk."""

from __future__ import annotations

from ._common import NoOptions

__all__ = ["NAME", "HELP", "run"]

NAME = "list"
HELP = "registered environment ids, task counts and whether each is downloaded"


def run(opts: NoOptions) -> int:
    """One line per environment id. Never raises for data that is missing (that is what the line says)."""
    from ..registry import ENV_SPECS, availability

    for env_id in ENV_SPECS:
        a = availability(env_id)
        print(f"{env_id:18} {a.count:>4} tasks  {a.state}")  # a partial download: "7 of 65"
    return 0
