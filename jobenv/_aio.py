"""The one bridge from synchronous code to jobenv's async implementation.

Two shapes, one rule: code that calls a sync wrapper from a thread that already runs an event loop (a
notebook, an async trainer calling sync code) gets the same result as code that does not, because the work
then runs on a loop in a helper thread.

- :func:`run_sync` runs one self-contained coroutine to completion (a judge's ``grade``, a ``collect``).
- :class:`PrivateLoop` keeps one loop for an object whose resources are bound to the loop that created them
  (an env's or a sandbox's subprocesses): every call on that object runs on the same loop, and the helper
  thread, once needed, lives until :meth:`PrivateLoop.close`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync", "run_on", "PrivateLoop"]

T = TypeVar("T")


def _in_running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from synchronous code; exceptions propagate unchanged."""
    if not _in_running_loop():
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="jobenv-sync") as pool:
        return pool.submit(asyncio.run, coro).result()


def run_on(loop: asyncio.AbstractEventLoop | None, coro: Coroutine[Any, Any, Any], timeout: float = 60.0) -> None:
    """Finish ``coro`` on ``loop``, the loop that owns what it touches, from any thread: waited for (up to
    ``timeout``) from another thread, scheduled when called on that loop itself, run here when the loop is gone.
    Exceptions of a waited coroutine propagate."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if loop is not None and loop.is_running() and running is not loop:
        asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=timeout)
    elif running is not None and running is loop:
        running.create_task(coro)
    else:
        run_sync(coro)


class PrivateLoop:
    """An event loop owned by one object. Runs on the calling thread, or on a helper thread when the caller's
    thread already runs a loop; after that first move it stays on the helper thread (a subprocess started there
    dies with that thread, so the thread must outlive it)."""

    def __init__(self, name: str = "jobenv-loop") -> None:
        self.name = name
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Drive ``coro`` on this object's loop and return its result."""
        if self.loop is None or self.loop.is_closed():
            self.loop = asyncio.new_event_loop()
        if self.thread is None:
            if not _in_running_loop():
                return self.loop.run_until_complete(coro)
            self.thread = threading.Thread(target=self.loop.run_forever, name=self.name, daemon=True)
            self.thread.start()
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def run_quietly(self, coro: Coroutine[Any, Any, Any], timeout: float = 30) -> None:
        """Best effort for finalizers: run ``coro`` if the loop can still run it, never raise, never block an
        event loop (inside a running loop without a helper thread the coroutine is dropped)."""
        try:
            if self.thread is not None and self.loop is not None and self.thread.is_alive():
                asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=timeout)
            elif self.loop is not None and not self.loop.is_closed() and not self.loop.is_running():
                self.loop.run_until_complete(coro)
            elif not _in_running_loop():
                asyncio.run(coro)
            else:
                coro.close()
        except Exception:
            pass

    def close(self) -> None:
        """Stop the helper thread and close the loop. Safe to call twice."""
        loop, th = self.loop, self.thread
        self.thread = None
        if loop is not None and th is not None and th.is_alive():
            loop.call_soon_threadsafe(loop.stop)
            th.join(timeout=10)
        self.loop = None
        if loop is not None and not loop.is_closed() and not loop.is_running():
            try:
                loop.close()
            except Exception:
                pass
