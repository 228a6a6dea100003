"""Bounded extraction: deliverables are parsed in worker processes with a memory and a CPU-time limit.

The agent controls every byte of the files it writes, and the ``read`` tool, the checks judge and the LLM
judge all parse such files. Here every parse runs in a small pool of worker processes shared by the whole
trainer process (at most :attr:`ExtractLimits.workers` at once, whatever the number of episodes): each worker
runs under an address-space limit, a job that overruns its time is killed together with its worker, and so is
a job whose caller is cancelled, so no thread or process keeps burning CPU for a step that is over. Jobs queue
first-come first-served for a worker; a job's time limit counts from the moment it has one (:func:`queue_wait`).
Time limits are CPU seconds of the worker and its helpers (so load slows a job without cutting it short); wall
time is only a backstop at ``WALL_FACTOR`` times the budget (:mod:`jobenv.extract.bounds`).

Failure behaviour: nothing here raises for anything a file does. A file that is stopped reads
``[extraction stopped: over the time budget]`` (or ``... over the memory budget`` / ``... the parser process
failed``); a whole output directory that runs out of time keeps the files extracted so far and marks the rest.
Cancellation (``asyncio.CancelledError``) propagates after the worker is killed.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import concurrent.futures
import contextlib
import contextvars
import math
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import settings
from ..errors import ConfigError, first_problem
from .bounds import WALL_FACTOR, tree_cpu_seconds
from .box import boxed
from .files import DEFAULT_CAP, ExtractedFile, Extraction, ExtractMode, ImageRef
from .folder import TOTAL_CAP, assemble_output, scan_output
from .tables import JOBS
from .wire import frame_size, load_reply, read_exact, write_frame

__all__ = [
    "STOPPED_TIME",
    "STOPPED_MEMORY",
    "STOPPED_CRASH",
    "ExtractLimits",
    "ExtractionService",
    "extraction_service",
    "configure_extraction",
    "queue_wait",
]

STOPPED_TIME = "[extraction stopped: over the time budget]"
STOPPED_MEMORY = "[extraction stopped: over the memory budget]"
STOPPED_CRASH = "[extraction stopped: the parser process failed (out of memory or crashed)]"
_MAX_FRAME = 160 * 1024 * 1024  # one file's text plus its share of images; anything larger is a fault
_START_S = 120.0  # a worker that has not started in this time is broken
_POLL_S = 0.25  # how often a waiting caller reads the worker's CPU clock
_QUEUE_WAIT: contextvars.ContextVar[tuple[list[float], ...]] = contextvars.ContextVar("jobenv_extract_wait",
                                                                                   default=())


@contextlib.contextmanager
def queue_wait() -> Iterator[list[float]]:
    """Within the block, ``[seconds]`` that jobs started here waited for a free worker (a job's own time limit
    starts only once it has one; blocks may nest, each counts). An episode's clock leaves that wait out: other
    episodes' files cause it."""
    waited = [0.0]
    token = _QUEUE_WAIT.set((*_QUEUE_WAIT.get(), waited))
    try:
        yield waited
    finally:
        _QUEUE_WAIT.reset(token)


def _count_wait(seconds: float) -> None:
    for waited in _QUEUE_WAIT.get():
        waited[0] += seconds


class ExtractLimits(BaseModel):
    """Limits of the extraction workers. ``from_env`` reads ``JOBENV_EXTRACT_<FIELD>`` (upper case)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    workers: int = Field(default=2, ge=1, le=32, description="worker processes at most, for the whole process")
    memory_mb: int = Field(default=1536, ge=512, description="address-space limit of one worker")
    file_time_s: float = Field(default=60.0, gt=0, description="CPU seconds for one file (recalculation included)")
    output_time_s: float = Field(default=180.0, gt=0, description="CPU seconds for a whole output folder")
    image_limit: int = Field(default=8, ge=0, description="distinct images kept from one output folder")
    image_mb: int = Field(default=32, ge=0, description="bytes of images kept from one output folder")
    max_jobs: int = Field(default=500, ge=1, description="jobs a worker runs before it is replaced (leaks)")

    @classmethod
    def from_env(cls) -> ExtractLimits:
        """Defaults overridden by ``JOBENV_EXTRACT_WORKERS`` and the like; a bad value is a ConfigError."""
        raw = {k: value for k in cls.model_fields
               if (value := settings.get(f"{settings.EXTRACT_PREFIX}{k.upper()}"))}
        try:
            return cls.model_validate(raw)
        except ValidationError as exc:
            where, msg, _ = first_problem(exc)
            raise ConfigError(f"JOBENV_EXTRACT_{where.split('.')[0].upper()}: {msg}") from None


class _Budget:
    """A job's ``cpu_s`` CPU seconds (``spent`` so far) and its wall backstop, ``WALL_FACTOR`` times as long or a
    caller's own deadline ``wall_s`` (what is left of an episode), moved on by waits for a worker to start."""

    def __init__(self, cpu_s: float, wall_s: float | None = None) -> None:
        self.cpu_s = cpu_s
        self.spent = 0.0
        self.wall_until = time.monotonic() + min(cpu_s * WALL_FACTOR, wall_s if wall_s is not None else math.inf)


class _Stopped(Exception):
    """A job did not finish: ``marker`` says why (time, memory or crash)."""

    def __init__(self, marker: str) -> None:
        super().__init__(marker)
        self.marker = marker


# ---------------------------------------------------------------------------------------------- one worker


class _Worker:
    """One worker process speaking length-prefixed pickles over its stdin and stdout."""

    def __init__(self, limits: ExtractLimits) -> None:
        env = settings.child_env()
        # one thread per numeric library: the address-space limit must not be spent on idle thread stacks
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MALLOC_ARENA_MAX="2")
        here = str(Path(__file__).resolve().parents[2])  # the jobenv this process runs, not another one
        inherited = os.environ.get("PYTHONPATH")  # where the caller's own imports come from: the worker's too
        env["PYTHONPATH"] = here + (os.pathsep + inherited if inherited else "")
        debug = settings.get("JOBENV_EXTRACT_DEBUG") == "1"
        self.proc = subprocess.Popen(
            boxed([sys.executable, "-m", "jobenv.extract.worker", str(limits.memory_mb * 2**20)]),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None if debug else subprocess.DEVNULL,
            env=env, close_fds=True, start_new_session=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in, self._out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        self.ready = False
        self.killed = False
        self.jobs = 0

    @property
    def alive(self) -> bool:
        return not self.killed and self.proc.poll() is None

    def kill(self) -> None:
        """Stop the worker now (safe from any thread, any number of times)."""
        self.killed = True  # at once: the kernel may take a moment to make the process exit
        try:  # the whole group: a helper the worker started (LibreOffice) must not outlive the job
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.kill()
        except OSError:
            pass

    def reap(self) -> None:
        self.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - a SIGKILLed process always exits
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass

    def poll_ready(self) -> bool:
        """Whether the worker has finished starting (reads its "ready" frame if it is waiting; never blocks)."""
        if not self.ready:
            poller = select.poll()  # not select: descriptors from 1024 up are refused there
            poller.register(self._out, select.POLLIN)
            if poller.poll(0):
                self.wait_ready(time.monotonic() + 5)
        return self.ready

    def wait_ready(self, until: float) -> bool:
        """Block until the worker has finished starting (False, and the worker killed, if it fails or ``until``
        passes)."""
        if not self.ready:
            try:
                self.ready = self._recv(until)[0] == "ready"
            except (_Stopped, OSError, pickle.UnpicklingError, EOFError, struct.error):
                pass
            if not self.ready:
                self.kill()
        return self.ready

    def _recv(self, until: float | None) -> tuple[Any, ...]:
        try:
            head = read_exact(self._out, 8, until)
            if head is None:
                raise _Stopped(STOPPED_CRASH)
            size = frame_size(head)
            if size > _MAX_FRAME:
                raise _Stopped(STOPPED_MEMORY)
            body = read_exact(self._out, size, until)
        except TimeoutError:
            raise _Stopped(STOPPED_TIME) from None
        if body is None:
            raise _Stopped(STOPPED_CRASH)
        frame = load_reply(body)
        if not isinstance(frame, tuple) or not frame:
            raise _Stopped(STOPPED_CRASH)
        return frame

    def cpu_seconds(self) -> float:  # this worker's and its helpers' (0.0 once it is gone)
        return tree_cpu_seconds(self.proc.pid)

    def _readable(self, timeout_s: float) -> bool:
        (poller := select.poll()).register(self._out, select.POLLIN | select.POLLHUP | select.POLLERR)
        return bool(poller.poll(int(timeout_s * 1000)))

    def call(self, request: tuple[Any, ...], budget: _Budget, frame_s: float,
             on_frame: Callable[[tuple[Any, ...]], None]) -> None:
        """Run ``request``, handing every frame to ``on_frame``; each frame must come within ``frame_s`` CPU seconds
        of the previous one and all within what is left of ``budget`` (each also within ``WALL_FACTOR`` times that
        in wall time); the worker must have started (:meth:`wait_ready`). Adds the CPU time spent to ``budget``.
        Raises _Stopped (the worker is then killed)."""
        if not self.ready:
            self.kill()
            raise _Stopped(STOPPED_CRASH)
        self.jobs += 1
        start = last = frame_cpu = self.cpu_seconds()
        try:
            write_frame(self._in, (_job_env(), request))
            frame_wall = time.monotonic() + frame_s * WALL_FACTOR
            while True:
                while not self._readable(_POLL_S):
                    last = max(last, self.cpu_seconds())
                    if (budget.spent + last - start >= budget.cpu_s or last - frame_cpu >= frame_s
                            or time.monotonic() >= min(budget.wall_until, frame_wall)):
                        raise _Stopped(STOPPED_TIME)
                # the frame has begun: its rest is on its way (read against the wall backstop only)
                frame = self._recv(min(budget.wall_until, frame_wall))
                last = frame_cpu = max(last, self.cpu_seconds())
                frame_wall = time.monotonic() + frame_s * WALL_FACTOR
                if frame[0] == "done":
                    return
                on_frame(frame)
        except _Stopped:
            self.kill()
            raise
        except (OSError, pickle.UnpicklingError, EOFError, struct.error):
            self.kill()
            raise _Stopped(STOPPED_CRASH) from None
        except BaseException:  # interrupted here (a caller's timeout, Ctrl-C): the rest of this job's reply is
            self.kill()  # still on its way, and a reused worker would hand it to the next job as that job's
            raise
        finally:
            budget.spent += max(0.0, last - start)


# ---------------------------------------------------------------------------------------------- the pool


class _Slots:
    """A FIFO counting semaphore that async callers (on any event loop) and threads can share."""

    def __init__(self, n: int) -> None:
        self._free = n
        self._lock = threading.Lock()
        self._waiters: collections.deque[Any] = collections.deque()

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._free > 0 and not self._waiters:
                self._free -= 1
                return
            fut: asyncio.Future[None] = loop.create_future()
            waiter = (loop, fut)
            self._waiters.append(waiter)
        try:
            await fut
        except asyncio.CancelledError:
            with self._lock:
                queued = waiter in self._waiters
                if queued:
                    self._waiters.remove(waiter)
            if not queued and fut.done() and not fut.cancelled():
                self.release()  # the slot arrived just as the caller gave up
            raise

    def acquire_blocking(self) -> None:
        with self._lock:
            if self._free > 0 and not self._waiters:
                self._free -= 1
                return
            event = threading.Event()
            self._waiters.append(event)
        event.wait()

    def release(self) -> None:
        with self._lock:
            while self._waiters:
                waiter = self._waiters.popleft()
                if isinstance(waiter, threading.Event):
                    waiter.set()
                    return
                loop, fut = waiter
                try:
                    loop.call_soon_threadsafe(self._grant, fut)
                    return
                except RuntimeError:  # that loop is closed: its caller is gone
                    continue
            self._free += 1

    def _grant(self, fut: asyncio.Future[None]) -> None:
        if fut.cancelled():
            self.release()
        else:
            fut.set_result(None)


class ExtractionService:
    """The worker pool of one process; see the module docstring. Use :func:`extraction_service`."""

    def __init__(self, limits: ExtractLimits | None = None) -> None:
        self.limits = limits or ExtractLimits.from_env()
        self._slots = _Slots(self.limits.workers)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._threads = concurrent.futures.ThreadPoolExecutor(self.limits.workers, thread_name_prefix="jobenv-extract")
        self._closed = False
        # A worker dies with the *thread* that started it (PR_SET_PDEATHSIG is per thread), so workers are started
        # only by this thread, which lives as long as the service; a caller's short-lived thread (asyncio's
        # default executor, shut down at the end of asyncio.run) would take the pool down with it.
        self._starter = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="jobenv-extract-start")
        self._idle = [self._new_worker() for _ in range(self.limits.workers)]  # they warm up in the background

    def _new_worker(self) -> _Worker:
        return self._starter.submit(_Worker, self.limits).result()

    # -- workers ----------------------------------------------------------------------------------------
    def _checkout(self) -> _Worker:
        with self._lock:
            dead = [w for w in self._idle if not w.alive]
            self._idle = [w for w in self._idle if w.alive]
            # a worker that has finished starting first: a fresh one's imports would eat the job's time
            w = next((w for w in reversed(self._idle) if w.poll_ready()), None) or (self._idle[-1] if self._idle else None)
            if w is not None:
                self._idle.remove(w)
        for d in dead:
            d.reap()
        return w if w is not None else self._new_worker()

    def _checkin(self, w: _Worker) -> None:
        if not w.alive or w.jobs >= self.limits.max_jobs or self._closed:
            w.reap()
            w = self._new_worker() if not self._closed else w  # start the replacement now: it warms up meanwhile
            if self._closed:
                return
        with self._lock:
            self._idle.append(w)

    def _drive_blocking(self, gen: Generator[Any, Any, Any], current: list[_Worker],
                        cancelled: threading.Event, waited: list[float]) -> Any:
        """Run a job's requests one after another in workers (the caller holds a slot). ``current`` names the
        worker at work, so a canceller can kill it; once ``cancelled`` is set no further request starts.
        Time spent waiting for a fresh worker to start goes to ``waited`` and is not the job's."""
        try:
            step = next(gen)  # the job's clock starts here, once a slot is held: waiting is not its time
        except StopIteration as end:  # nothing to do (an empty folder)
            return end.value
        while True:
            request, budget, frame_s, got = step
            outcome: str | None = STOPPED_TIME
            if not cancelled.is_set():
                w = self._checkout()
                current[:] = [w]
                try:
                    if cancelled.is_set():
                        w.kill()
                    if not w.ready:  # a replacement still importing its parsers (slow on a loaded machine)
                        t = time.monotonic()
                        w.wait_ready(t + _START_S)
                        started = time.monotonic() - t
                        budget.wall_until += started
                        waited[0] += started
                    w.call(request, budget, frame_s, _collector(got))
                    outcome = None
                except _Stopped as exc:
                    outcome = exc.marker
                finally:
                    current.clear()
                    self._checkin(w)
            try:
                step = gen.send(outcome)
            except StopIteration as end:
                return end.value

    # -- jobs -------------------------------------------------------------------------------------------
    def _file_job(self, path: Path, mode: str, cap: int | None, time_s: float | None) -> Generator[Any, Any, str]:
        limit = min(time_s, self.limits.file_time_s) if time_s is not None else self.limits.file_time_s
        got: list[str] = []
        stopped = yield (("file", str(path), mode, cap), _Budget(limit, time_s), limit, got)
        return stopped or (got[0] if got else STOPPED_CRASH)

    def _output_job(self, root: Path, mode: str, cap: int | None, with_images: bool, time_s: float | None,
                    files: list[str]) -> Generator[Any, Any, list[tuple[ExtractedFile, list[ImageRef]]]]:
        budget = _Budget(min(time_s, self.limits.output_time_s) if time_s else self.limits.output_time_s, time_s or None)
        done: dict[int, tuple[ExtractedFile, list[ImageRef]]] = {}
        images_left = [self.limits.image_limit, self.limits.image_mb * 2**20]
        start = 0
        while start < len(files):
            got: list[tuple[Any, ...]] = []
            request = ("entries", str(root), files[start:], mode, cap, with_images, *images_left)
            stopped = yield (request, budget, self.limits.file_time_s, got)
            for item in got:
                if isinstance(item, str):  # the job itself failed (a parser bug): said like a stop
                    stopped = stopped or item
                    continue
                _, k, part, images, left = item
                done[start + k] = (part, images)
                images_left = list(left)
            nxt = start + sum(1 for item in got if not isinstance(item, str))
            if stopped is None or nxt >= len(files):
                break
            # the file the worker was on when it was stopped gets the marker; the rest go to a fresh worker
            done[nxt] = (_stopped_entry(root, files[nxt], stopped), [])
            start = nxt + 1
            if budget.spent >= budget.cpu_s or time.monotonic() >= budget.wall_until:
                break
        return [done.get(i) or (_stopped_entry(root, rel, STOPPED_TIME), []) for i, rel in enumerate(files)]

    def _call_job(self, func: str, args: tuple[Any, ...], time_s: float | None) -> Generator[Any, Any, Any]:
        limit = min(time_s, self.limits.file_time_s) if time_s is not None else self.limits.file_time_s
        got: list[Any] = []
        stopped = yield (("call", func, args), _Budget(limit, time_s), limit, got)
        if stopped:
            return _Stopped(stopped)
        return got[0] if got else _Stopped(STOPPED_CRASH)

    def _drive_sync(self, gen: Generator[Any, Any, Any]) -> Any:
        t0 = time.monotonic()
        self._slots.acquire_blocking()
        _count_wait(time.monotonic() - t0)
        waited = [0.0]
        try:
            return self._drive_blocking(gen, [], threading.Event(), waited)
        finally:
            self._slots.release()
            _count_wait(waited[0])

    async def _drive_async(self, gen: Generator[Any, Any, Any]) -> Any:
        t0 = time.monotonic()
        await self._slots.acquire()
        _count_wait(time.monotonic() - t0)
        current: list[_Worker] = []
        cancelled = threading.Event()
        waited = [0.0]
        fut = asyncio.get_running_loop().run_in_executor(self._threads, self._drive_blocking, gen, current, cancelled,
                                                         waited)
        try:
            result = await asyncio.shield(fut)
            _count_wait(waited[0])
        except asyncio.CancelledError:
            cancelled.set()
            for w in list(current):
                w.kill()  # the blocked thread sees the worker's end at once and returns
            fut.add_done_callback(lambda _f: self._slots.release())  # the slot is free once the thread is
            raise
        except BaseException:
            self._slots.release()
            raise
        self._slots.release()
        return result

    # -- public -----------------------------------------------------------------------------------------
    async def extract_file(self, path: Path, *, mode: ExtractMode = "values", cap: int | None = DEFAULT_CAP,
                           time_s: float | None = None) -> str:
        """The text of one file (as :func:`jobenv.extract.extract_file`), or a stop marker. ``time_s`` lowers
        the per-file limit and is also a wall-clock deadline (e.g. what is left of an episode)."""
        return str(await self._drive_async(self._file_job(Path(path), mode, cap, time_s)))

    def extract_file_sync(self, path: Path, *, mode: ExtractMode = "values", cap: int | None = DEFAULT_CAP,
                          time_s: float | None = None) -> str:
        return str(self._drive_sync(self._file_job(Path(path), mode, cap, time_s)))

    async def extract_output(self, output_dir: Path, *, mode: ExtractMode = "values", cap: int | None = DEFAULT_CAP,
                             with_images: bool = True, total_cap: int | None = TOTAL_CAP,
                             time_s: float | None = None) -> Extraction:
        """An output directory (as :func:`jobenv.extract.extract_output`), every file parsed in a worker."""
        root = Path(output_dir)
        files, rejected = await asyncio.to_thread(scan_output, root)
        entries = await self._drive_async(self._output_job(root, mode, cap, with_images, time_s, files))
        return assemble_output(root, mode, rejected, entries, total_cap=total_cap)

    def extract_output_sync(self, output_dir: Path, *, mode: ExtractMode = "values", cap: int | None = DEFAULT_CAP,
                            with_images: bool = True, total_cap: int | None = TOTAL_CAP,
                            time_s: float | None = None) -> Extraction:
        root = Path(output_dir)
        files, rejected = scan_output(root)
        entries = self._drive_sync(self._output_job(root, mode, cap, with_images, time_s, files))
        return assemble_output(root, mode, rejected, entries, total_cap=total_cap)

    def call_sync(self, job: str, *args: Any, time_s: float | None = None) -> Any:
        """Run the extraction job ``job`` (a name in :data:`jobenv.extract.tables.JOBS`) on ``args`` in a worker.
        Returns its result, or ``[extraction stopped: ...]`` (a str) when it overran or crashed; ValueError for a
        name that is not a job."""
        if job not in JOBS:
            raise ValueError(f"{job} is not a job the extraction workers run")
        result = self._drive_sync(self._call_job(job, args, time_s))
        return result.marker if isinstance(result, _Stopped) else result

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """Block until the idle workers have started (imports done); False if ``timeout`` passed first.
        Optional: a job waits for its worker anyway, and that wait is not counted against its own limit."""
        until = time.monotonic() + timeout
        with self._lock:
            idle = list(self._idle)
        for w in idle:
            if not w.ready:
                try:
                    w.ready = w._recv(until)[0] == "ready"
                except _Stopped:
                    return False
        return True

    def close(self) -> None:
        """Kill every worker (idle ones at once; busy ones when their job returns)."""
        self._closed = True
        with self._lock:
            idle, self._idle = self._idle, []
        for w in idle:
            w.reap()


def _job_env() -> dict[str, str]:
    """The caller's variables a parser may read (:func:`jobenv.settings.child_env`: ``PATH`` for helper programs,
    the locale, jobenv's extraction settings), sent with each job so a worker started earlier follows changes made
    since; never a secret."""
    return settings.child_env()


def _collector(got: list[Any]) -> Callable[[tuple[Any, ...]], None]:
    """Keep a job's frames: a "result" frame as its payload, an "entry" frame whole."""

    def on_frame(frame: tuple[Any, ...]) -> None:
        got.append(frame[1] if frame[0] == "result" else frame)

    return on_frame


def _stopped_entry(root: Path, rel: str, marker: str) -> ExtractedFile:
    try:
        size = (Path(root) / rel).stat().st_size
    except OSError:
        size = 0
    return ExtractedFile(path=rel, kind="failed", text=marker, size=size, failed=True)


_SERVICE: ExtractionService | None = None
_SERVICE_PID = 0
_SERVICE_LOCK = threading.Lock()


def extraction_service() -> ExtractionService:
    """The process's extraction service, created on first use (a forked child gets its own)."""
    global _SERVICE, _SERVICE_PID
    with _SERVICE_LOCK:
        if _SERVICE is None or _SERVICE_PID != os.getpid():
            _SERVICE, _SERVICE_PID = ExtractionService(), os.getpid()
        return _SERVICE


def configure_extraction(limits: ExtractLimits) -> ExtractionService:
    """Replace the process's extraction service by one with ``limits`` (the old one's workers are stopped)."""
    global _SERVICE, _SERVICE_PID
    with _SERVICE_LOCK:
        old, _SERVICE, _SERVICE_PID = _SERVICE, ExtractionService(limits), os.getpid()
    if old is not None and _SERVICE_PID == os.getpid():
        old.close()
    return _SERVICE


@atexit.register
def _shutdown() -> None:
    if _SERVICE is not None and _SERVICE_PID == os.getpid():
        _SERVICE.close()
