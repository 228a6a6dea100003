"""Warm local sandboxes: a start takes one that was launched ahead, up to its controller's ``ready``.

Launching is most of a start (~5 ms of namespace and mount set-up in bubblewrap), and it needs nothing of the task:
so after each start of a configuration (its limits and controller, without network), the spawner threads launch
replacements in the background until ``$JOBENV_WARM_SANDBOXES`` (default 2; 0 turns this off) wait. A warm sandbox
has run nothing; taking it still runs the start-up guard against the task, then stages the task folder. One taken
after the mount plan changed (a new install of jobenv, another toolchain) is discarded, never used. At most two
configurations are kept warm; waiting sandboxes are torn down at exit like any other, and a forked child forgets
them (they belong to the parent). :func:`drain` tears them all down now.

Failure behaviour: a launch that fails in the background stops the refill of that configuration silently (the next
start launches cold and reports the error itself); nothing here raises but :func:`warm_size` (ConfigError).
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from ... import settings
from ...errors import ConfigError
from ._spawn import spawner
from ._stop import teardown

__all__ = ["warm_size", "take", "refill", "drain", "stop"]

MAX_CONFIGURATIONS = 2
_POOLS: dict[str, list[Any]] = {}  # configuration key -> launched, never started sandboxes (oldest first)
_FILLING: set[str] = set()
_LOCK = threading.Lock()
_stopped = False  # set when the process shuts down: nothing is launched ahead any more


def _forget_after_fork() -> None:
    global _LOCK, _stopped
    _LOCK = threading.Lock()
    _stopped = False
    for sandboxes in _POOLS.values():
        for sb in sandboxes:
            sb._finalizer.detach()  # the parent's sandboxes: never tear them down from here
    _POOLS.clear()
    _FILLING.clear()


os.register_at_fork(after_in_child=_forget_after_fork)


def warm_size() -> int:
    """``$JOBENV_WARM_SANDBOXES`` (default 2): how many launched sandboxes wait per configuration."""
    value = settings.get("JOBENV_WARM_SANDBOXES")
    if value is None:
        return 2
    try:
        size = int(value)
    except ValueError:
        size = -1
    if not 0 <= size <= 64:
        raise ConfigError(f"JOBENV_WARM_SANDBOXES must be a whole number from 0 to 64, not {value!r}")
    return size


def take(key: str) -> Any | None:
    """A waiting sandbox of this configuration (the caller checks it is still current), or None."""
    with _LOCK:
        waiting = _POOLS.get(key)
        return waiting.pop(0) if waiting else None


def refill(key: str, launch: Callable[[], Any]) -> None:
    """Launch sandboxes of this configuration on the spawner threads until ``warm_size()`` wait."""
    size = warm_size()
    with _LOCK:
        if size == 0 or _stopped or key in _FILLING or len(_POOLS.get(key, ())) >= size:
            return
        _FILLING.add(key)
    spawner().submit(_fill, key, launch, size)


def _fill(key: str, launch: Callable[[], Any], size: int) -> None:
    evicted: list[Any] = []
    try:
        while True:
            with _LOCK:
                if len(_POOLS.get(key, ())) >= size:
                    return
            sb = launch()
            with _LOCK:
                if _stopped:
                    evicted.append(sb)
                    return
                _POOLS.setdefault(key, []).append(sb)
                while len(_POOLS) > MAX_CONFIGURATIONS:  # dicts keep insertion order: the oldest goes
                    evicted += _POOLS.pop(next(k for k in _POOLS if k != key))
    except Exception:
        return  # the next start of this configuration launches cold and reports what is wrong
    finally:
        with _LOCK:
            _FILLING.discard(key)
        for sb in evicted:
            teardown(sb._state)


def stop() -> None:
    """Launch nothing ahead any more and tear down what waits (at exit, and when a server shuts down)."""
    global _stopped
    _stopped = True
    _drain(wait_s=0.0)


atexit.register(stop)


def drain() -> None:
    """Tear down every waiting sandbox of this process now, after any refill under way (the next start of a
    configuration refills it)."""
    _drain(wait_s=10.0)


def _drain(wait_s: float) -> None:
    deadline = time.monotonic() + wait_s
    while _FILLING and time.monotonic() < deadline:
        time.sleep(0.005)
    with _LOCK:
        waiting = [sb for sandboxes in _POOLS.values() for sb in sandboxes]
        _POOLS.clear()
    for sb in waiting:
        teardown(sb._state)
