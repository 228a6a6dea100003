"""The host's process tree from /proc: who is whose parent, and everything below a process."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["parent_map", "descendants", "children_cpu", "cpu_while"]


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


def children_cpu() -> float:
    """CPU seconds spent so far by this process's live descendants (the extraction workers; a killed worker's
    share leaves the count with it)."""
    from jobenv.extract.bounds import tree_cpu_seconds

    own = os.times()
    return tree_cpu_seconds(os.getpid()) - (own.user + own.system + own.children_user + own.children_system)


def cpu_while(work: Callable[[], Any]) -> tuple[Any, float, float]:
    """``work()``'s result, the most CPU this process's descendants spent beyond their start while it ran
    (sampled every 50 ms, so a worker killed at its budget is counted up to its end) and its wall seconds."""
    base, peak, done = children_cpu(), [0.0], threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], children_cpu() - base)

    t = threading.Thread(target=sample)
    t0 = time.perf_counter()
    t.start()
    try:
        result = work()
    finally:
        done.set()
        t.join()
    return result, peak[0], time.perf_counter() - t0
