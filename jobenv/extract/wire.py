"""The extraction workers' wire: length-prefixed pickles, read against a deadline, replies unpickled from an
allow-list of plain types (a worker subverted by a hostile file cannot smuggle code into the caller).

Shared by :mod:`jobenv.extract.service` (the caller) and :mod:`jobenv.extract.worker` (the worker).
"""

from __future__ import annotations

import io
import os
import pickle
import select
import struct
import time
from typing import Any

__all__ = ["write_frame", "read_exact", "frame_size", "load_reply"]

_SAFE_GLOBALS = {
    ("builtins", n) for n in ("list", "dict", "tuple", "set", "frozenset", "str", "bytes", "int", "float", "bool",
                              "complex", "bytearray", "slice")
} | {("datetime", n) for n in ("datetime", "date", "time", "timedelta", "timezone")} | {
    ("jobenv.extract.files", "ExtractedFile"), ("jobenv.extract.files", "ImageRef"), ("copyreg", "_reconstructor"),
    ("jobenv.extract.tables", "Uncomputed"),
}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refused global {module}.{name} in an extraction reply")


def write_frame(fd: int, obj: Any) -> None:
    """Send ``obj`` as one frame (8-byte big-endian length, then the pickle). OSError when the peer is gone."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(struct.pack(">Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def read_exact(fd: int, n: int, until: float | None) -> bytes | None:
    """``n`` bytes from ``fd``; None at end of file. TimeoutError once the monotonic time ``until`` passes."""
    buf = bytearray()
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    while len(buf) < n:
        if until is not None:
            left = until - time.monotonic()
            if left <= 0:
                raise TimeoutError
            if not poller.poll(max(1, int(left * 1000))):
                continue
        chunk = os.read(fd, min(n - len(buf), 1 << 20))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def frame_size(head: bytes) -> int:
    """The body length a frame's 8-byte head announces."""
    return int(struct.unpack(">Q", head)[0])


def load_reply(body: bytes) -> Any:
    """A worker's reply; pickle.UnpicklingError for any global outside the allow-list."""
    return _Unpickler(io.BytesIO(body)).load()
