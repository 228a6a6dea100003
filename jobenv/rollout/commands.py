"""The rollout commands' work: ``jobenv rollout``, ``report``, ``regrade`` and ``export-trajectories``.

Each is a typed function returning an exit status, so any front-end (the ``jobenv`` CLI, a script) calls it
with plain values. Bad values raise :class:`~jobenv.errors.ConfigError` before any work starts; the CLI
prints a :class:`~jobenv.errors.JobenvError` as one line with exit status 2. Exit status 1 means the run
finished but some episodes errored (they are in the file and counted in the summary).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from ..episode.outcome import Status
from ..episode.rules import EpisodeRules
from ..errors import ConfigError, JobenvError
from .store import export_trajectories, read_trajectories
from .summary import print_summary, summarize
from .trajectory import Trajectory

__all__ = [
    "RolloutOptions",
    "check_base_url",
    "check_options",
    "run_rollout",
    "run_report",
    "run_regrade",
    "run_export",
    "ProgressLine",
]


def check_base_url(url: str) -> str:
    """``url`` when it is an http(s) URL with a host; ConfigError (one line) otherwise."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ConfigError(f"--base-url {url!r} is not an http(s) URL (expected e.g. http://127.0.0.1:8000/v1)")
    return url


@dataclass(frozen=True)
class RolloutOptions:
    """Everything ``jobenv rollout`` takes; see :func:`run_rollout`."""

    env_id: str
    model: str
    base_url: str
    out: str
    api_key: str | None = None
    tasks: Sequence[str] | None = None
    attempts: int = 1
    concurrency: int = 8
    rules: EpisodeRules = field(default_factory=EpisodeRules)
    temperature: float | None = 0.7
    top_p: float | None = None
    max_tokens: int | None = None
    logprobs: bool = False
    top_logprobs: int | None = None
    tokens: bool = False
    sandbox: str | None = None  # None: $JOBENV_SANDBOX, else local
    sandbox_image: str | None = None  # None: $JOBENV_SANDBOX_IMAGE with docker, else the bundled image
    judge: str = "auto"
    keep_errors: bool = False
    disjoint_from: Sequence[str] = field(default_factory=tuple)
    progress_every_s: float = 30.0
    ray: str | None = None  # a Ray address, "" for $RAY_ADDRESS or a new local cluster; None: this machine
    per_node: int = 8
    start_concurrency: int | None = None  # sandboxes starting at once; None: the backend's figure (per node on Ray)


def check_options(o: RolloutOptions) -> None:
    """Every value of ``o`` that can be checked without doing work; ConfigError naming the first bad one."""
    for name, value in (("--attempts", o.attempts), ("--concurrency", o.concurrency)):
        if value < 1:
            raise ConfigError(f"{name} must be at least 1 (got {value})")
    for name, fvalue in (("--progress-every", o.progress_every_s),):
        if fvalue is not None and not fvalue > 0:
            raise ConfigError(f"{name} must be a positive number of seconds (got {fvalue})")
    if o.max_tokens is not None and o.max_tokens < 1:
        raise ConfigError(f"--max-tokens must be at least 1 (got {o.max_tokens})")
    if o.temperature is not None and o.temperature < 0:
        raise ConfigError(f"--temperature must be >= 0 (got {o.temperature})")
    if o.top_p is not None and not 0 <= o.top_p <= 1:
        raise ConfigError(f"--top-p must be between 0 and 1 (got {o.top_p})")
    if o.top_logprobs is not None and not (o.logprobs or o.tokens):
        raise ConfigError("--top-logprobs needs --logprobs")
    if o.per_node < 1:
        raise ConfigError(f"--per-node must be at least 1 (got {o.per_node})")
    if o.start_concurrency is not None and o.start_concurrency < 1:
        raise ConfigError(f"--start-concurrency must be at least 1 (got {o.start_concurrency})")
    if not o.model:
        raise ConfigError("--model must not be empty")
    check_base_url(o.base_url)


class ProgressLine:
    """Progress of a rollout: a live bar on a terminal, else one plain line every ``every_s`` seconds
    (episodes done, errors, mean reward, elapsed, ETA) and a last one when the run ends."""

    def __init__(self, label: str, every_s: float, stream: Any = None) -> None:
        self.label, self.every_s = label, every_s
        self.stream = stream or sys.stderr
        self.total = self.skipped = self.done = self.errors = self.scored = 0
        self.reward = 0.0
        self.t0 = time.monotonic()
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self._bar: Any = None
        self._task: Any = None

    def start(self, total: int, skipped: int) -> None:
        self.total, self.skipped, self.t0 = total, skipped, time.monotonic()
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeRemainingColumn(), TextColumn("{task.fields[info]}"),
                                 console=Console(file=self.stream), transient=False)
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=total, completed=skipped, info="")

    def episode(self, t: Trajectory) -> None:
        self.done += 1
        if t.status is Status.ERROR:
            self.errors += 1
        else:
            self.scored += 1
            self.reward += t.reward or 0.0
        if self._bar is not None:
            self._bar.update(self._task, advance=1, info=self._stats())

    def _stats(self) -> str:
        mean = f"{self.reward / self.scored:.3f}" if self.scored else "-"
        return f"{self.errors} errors, mean reward {mean}"

    def line(self) -> str:
        elapsed = time.monotonic() - self.t0
        left = self.total - self.skipped - self.done
        eta = f"{elapsed / self.done * left:.0f}s" if self.done else "?"
        return (f"{self.label}: {self.skipped + self.done}/{self.total} episodes ({self.skipped} resumed), "
                f"{self._stats()}, {elapsed:.0f}s elapsed, eta {eta}")

    async def ticker(self) -> None:
        """Print :meth:`line` every ``every_s`` seconds until cancelled (plain output only)."""
        if self.live:
            return
        while True:
            await asyncio.sleep(self.every_s)
            print(self.line(), file=self.stream, flush=True)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
        else:
            print(self.line(), file=self.stream, flush=True)


def run_rollout(o: RolloutOptions) -> int:
    """``jobenv rollout``: check everything (values, tasks, policy endpoint, sandbox), collect with progress,
    print the summary. Exit 0 when no episode of the run (resumed ones included) errored, 1 otherwise.

    Raises JobenvError (exit 2, one line) for bad values, unknown tasks, an unreachable endpoint or a
    sandbox that cannot start, before any episode runs.
    """
    from rich.console import Console

    from ..registry import load_tasks
    from ..tasks import select_tasks
    from .collect import CollectResult, collect
    from .episode import RolloutConfig
    from .policy import OpenAIChatPolicy

    check_options(o)
    cfg = RolloutConfig(rules=o.rules)
    tasks = select_tasks(load_tasks(o.env_id), list(o.tasks) if o.tasks else None, where=o.env_id)
    policy = OpenAIChatPolicy(o.model, base_url=o.base_url, api_key=o.api_key, temperature=o.temperature,
                              top_p=o.top_p, max_tokens=o.max_tokens, logprobs=o.logprobs,
                              top_logprobs=o.top_logprobs, tokens=o.tokens)
    from ..sandbox.config import SandboxConfig

    chosen = SandboxConfig.from_env(backend=o.sandbox, image=o.sandbox_image)  # SandboxError: exit 2
    env_kwargs: dict[str, Any] = {"sandbox": chosen.backend, "judge": o.judge, "sandbox_options": dict(chosen.options)}
    progress = ProgressLine(f"rollout {o.env_id}", o.progress_every_s)

    async def main() -> CollectResult:
        await policy.check()
        ticker = asyncio.create_task(progress.ticker())
        try:
            return await collect(
                tasks, policy, env_id=o.env_id, attempts=o.attempts, concurrency=o.concurrency, out=o.out,
                env_kwargs=env_kwargs, config=cfg, on_start=progress.start, on_episode=progress.episode,
                retry_errors=not o.keep_errors, disjoint_from=list(o.disjoint_from),
                executor="ray" if o.ray is not None else "local", ray_address=o.ray or None, per_node=o.per_node,
                start_concurrency=o.start_concurrency,
            )
        finally:
            ticker.cancel()
            await policy.aclose()

    from .._aio import run_sync

    result = run_sync(main())
    progress.stop()
    print_summary(result.summary(), console=Console())
    err = Console(stderr=True)
    err.print(f"{result.new} new episode(s), {result.skipped} resumed; trajectories in {o.out}")
    if result.errors:
        err.print(f"{result.errors} episode(s) errored (excluded from rewards): rerun the same command to run them "
                  "again, or `jobenv regrade` when only grading failed")
        return 1
    return 0


def run_report(trajectories: str, html: str | None = None, include_errors: bool = False) -> int:
    """``jobenv report``: the summary table, and with ``html`` the HTML report (with full grading reports). Exit 0.

    Raises JobenvError (exit 2) for a missing file or one with no readable trajectory.
    """
    from rich.console import Console

    from .report import write_html

    trajs = read_trajectories(trajectories, full_reports=bool(html))
    if not trajs:
        raise JobenvError(f"{trajectories}: no readable trajectories (is this a `jobenv rollout` output?)")
    summary = summarize(trajs, include_errors=include_errors)
    print_summary(summary, console=Console())
    if html:
        p = write_html(trajs, html, include_errors=include_errors)
        Console(stderr=True).print(f"HTML report: {p}")
    return 0


def run_regrade(trajectories: str, out: str, *, judge: str = "auto", scoring: str | None = None,
                concurrency: int = 4) -> int:
    """``jobenv regrade TRAJECTORIES --out NEW``: judge the saved deliverables again (no policy call), print
    the new summary. Exit 1 when some episodes still errored."""
    from rich.console import Console

    from .regrade import regrade_sync

    if scoring not in (None, "strict", "official"):
        raise ConfigError(f"--scoring must be strict or official (got {scoring!r})")
    if concurrency < 1:
        raise ConfigError(f"--concurrency must be at least 1 (got {concurrency})")
    res = regrade_sync(trajectories, out, judge=judge, scoring=scoring, concurrency=concurrency)  # type: ignore[arg-type]
    print_summary(summarize(res.trajectories), console=Console())
    Console(stderr=True).print(f"{res.regraded} episode(s) regraded, {res.kept} kept as they were; written to {res.out}")
    return 1 if res.errors else 0


def run_export(trajectories: str, out: str, *, full_reports: bool = False) -> int:
    """``jobenv export-trajectories TRAJECTORIES --out FILE``: one plain row per episode (the latest)."""
    n = export_trajectories(trajectories, out, full_reports=full_reports)
    print(f"{n} episode(s) written to {out} (tool schemas in its .tools.json)", file=sys.stderr)
    return 0
