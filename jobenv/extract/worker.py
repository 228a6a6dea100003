"""The worker half of :mod:`jobenv.extract.service`: ``python -m jobenv.extract.worker <address-space bytes>``.

It limits its own address space, dies with its parent, and answers one request at a time on stdin/stdout
(length-prefixed pickles; anything a library prints is moved to stderr so it cannot corrupt the stream).
"""

from __future__ import annotations

import importlib
import os
import resource
import sys
from typing import Any


def _die_with_parent() -> None:
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # not Linux: the worker still exits when its stdin closes
        pass


def _unlimit_children() -> None:
    """Child processes start without this worker's address-space limit (LibreOffice maps far more than it
    uses); they stay in the worker's process group, so killing the worker's group stops them too."""
    import subprocess

    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    original = subprocess.Popen.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        own = kwargs.get("preexec_fn")

        def preexec() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
            if own is not None:  # the caller's own limits (recalculation's CPU limit) still apply
                own()

        kwargs["preexec_fn"] = preexec
        original(self, *args, **kwargs)

    subprocess.Popen.__init__ = init  # type: ignore[method-assign]


def _warm() -> None:
    """Import the parsers before the first job so its time budget is spent on the file, not on imports."""
    for name in ("jobenv.extract", "openpyxl", "pandas", "pdfplumber", "mammoth", "pptx"):
        try:
            importlib.import_module(name)
        except Exception:  # an optional parser missing is reported by the job that needs it
            pass


def _entries(send: Any, root: str, rels: list[str], mode: str, cap: int | None, with_images: bool,
             images_left: int, bytes_left: int) -> None:
    from pathlib import Path

    from jobenv.extract import extract_entry

    for k, rel in enumerate(rels):
        part, images = extract_entry(Path(root), rel, mode=mode, cap=cap, with_images=with_images)  # type: ignore[arg-type]
        kept = []
        for img in images:  # the folder's image budget: a few images of bounded size reach the judge
            size = len(img.data_url)
            if images_left > 0 and size <= bytes_left:
                kept.append(img)
                images_left -= 1
                bytes_left -= size
        send(("entry", k, part, kept, (images_left, bytes_left)))


def _plain(value: Any) -> Any:
    """Library types (pandas timestamps, numpy scalars) as the plain ones the parent accepts on the wire."""
    import datetime as dt

    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dt.datetime) and type(value) is not dt.datetime:
        return dt.datetime(value.year, value.month, value.day, value.hour, value.minute, value.second,
                           value.microsecond, value.tzinfo)
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def _handle(request: tuple[Any, ...], send: Any) -> None:
    kind = request[0]
    if kind == "file":
        from pathlib import Path

        from jobenv.extract import extract_file

        _, path, mode, cap = request
        send(("result", extract_file(Path(path), mode=mode, cap=cap)))
    elif kind == "entries":
        _entries(send, *request[1:])
    elif kind == "call":
        from jobenv.extract.tables import JOBS

        _, job, args = request
        if job not in JOBS:
            raise ValueError(f"{job} is not an extraction job")
        send(("result", _plain(JOBS[job](*args))))
    else:
        raise ValueError(f"unknown request {kind!r}")


def main(argv: list[str]) -> int:
    from jobenv.extract.wire import frame_size, read_exact, write_frame

    out_fd = os.dup(1)
    os.dup2(2, 1)  # library prints go to stderr, never into the reply stream
    sys.stdout = sys.stderr
    _die_with_parent()
    limit = int(argv[0])
    # a soft limit: helpers this worker starts (LibreOffice for recalculation) get their own budget and timeout
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    _unlimit_children()
    _warm()

    def send(obj: Any) -> None:
        write_frame(out_fd, obj)

    send(("ready",))
    import pickle

    from jobenv.settings import child_env

    while True:
        head = read_exact(0, 8, None)
        if head is None:
            return 0
        body = read_exact(0, frame_size(head), None)
        if body is None:
            return 0
        try:
            env, request = pickle.loads(body)
            for key in [k for k in child_env() if k not in env]:  # the caller unset it since
                del os.environ[key]
            os.environ.update(env)
            _handle(request, send)
        except MemoryError:
            send(("result", "[extraction stopped: over the memory budget]"))
        except Exception as exc:  # the job's caller turns this into a marker; the worker stays usable
            send(("result", f"[extraction failed: {type(exc).__name__}: {str(exc)[:300]}]"))
        send(("done",))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
