"""The host's process tree from /proc: who is whose parent, and everything below a process."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["parent_map", "descendants"]


def parent_map() -> dict[int, int]:
    """{pid: parent pid} of every process readable now (one that exits meanwhile is left out)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])  # after the ")" ending the command name
    return parents


def descendants(root: int) -> set[int]:
    """Pids of every process below ``root``."""
    parents = parent_map()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found
