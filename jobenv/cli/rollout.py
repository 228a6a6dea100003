"""``jobenv rollout``: collect episodes from a policy behind an OpenAI-compatible API into a JSONL file."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._common import JUDGE_CHOICES, SANDBOX_CHOICES, non_negative_float, positive_float, positive_int, unit_float

if TYPE_CHECKING:
    from ..rollout.collect import CollectResult
    from ..rollout.trajectory import Trajectory

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "rollout"
HELP = "collect episodes from a policy behind an OpenAI-compatible API"


@dataclass(frozen=True)
class Options:
    env_id: str
    model: str
    base_url: str
    api_key: str | None
    tasks: list[str] | None
    attempts: int
    concurrency: int
    max_steps: int
    temperature: float
    top_p: float | None
    max_tokens: int | None
    time_limit: float | None
    sandbox: str
    sandbox_image: str | None
    judge: str
    out: str
    retry_errors: bool


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("env_id", help="environment id, e.g. jobbench/main")
    p.add_argument("--model", required=True, help="model name at the endpoint (required)")
    p.add_argument("--base-url", required=True, help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (required)")
    p.add_argument("--api-key", default=None, help="default: $OPENAI_API_KEY, else 'EMPTY'")
    p.add_argument("--tasks", nargs="*", default=None, help="task ids (default: all)")
    p.add_argument("--attempts", type=positive_int, default=1, help="episodes per task")
    p.add_argument("--concurrency", type=positive_int, default=8, help="episodes at once")
    p.add_argument("--max-steps", type=positive_int, default=50, help="tool calls per episode, submit included")
    p.add_argument("--temperature", type=non_negative_float, default=0.7, help="sampling temperature")
    p.add_argument("--top-p", type=unit_float, default=None, help="nucleus sampling (default: the endpoint's)")
    p.add_argument("--max-tokens", type=positive_int, default=None,
                   help="completion tokens per model call (default: the endpoint's)")
    p.add_argument("--time-limit", type=positive_float, default=None, help="wall-clock seconds per episode (default: none)")
    p.add_argument("--sandbox", choices=SANDBOX_CHOICES, default="local", help="sandbox backend")
    p.add_argument("--sandbox-image", default=None,
                   help="Docker image of the docker sandbox (default: jobenv/knowledge-worker:latest)")
    p.add_argument("--judge", choices=JUDGE_CHOICES, default="auto", help="judge kind")
    p.add_argument("--out", required=True, help="trajectories JSONL (appended; a rerun resumes) (required)")
    p.add_argument("--retry-errors", action="store_true",
                   help="rerun (task, attempt) pairs whose record errored (default: keep them)")


def run(opts: Options) -> int:
    """Collect with a progress display, then print the summary table.

    Exit 0 when every episode finished without error, 1 when some errored (they are in the file), 2 for bad
    arguments or an unreachable endpoint (raised as JobenvError and printed by the CLI).
    """
    import asyncio

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from ..errors import SandboxError
    from ..registry import load_tasks
    from ..rollout.collect import collect, select_tasks
    from ..rollout.episode import RolloutConfig
    from ..rollout.policy import OpenAIChatPolicy
    from ..rollout.summary import print_summary

    if opts.sandbox_image and opts.sandbox != "docker":
        raise SandboxError("--sandbox-image needs --sandbox docker")
    console = Console(stderr=True)
    policy = OpenAIChatPolicy(
        opts.model,
        base_url=opts.base_url,
        api_key=opts.api_key,
        temperature=opts.temperature,
        max_tokens=opts.max_tokens,
        top_p=opts.top_p,
    )
    env_kwargs: dict[str, Any] = {"sandbox": opts.sandbox, "judge": opts.judge}
    if opts.sandbox_image:
        env_kwargs["sandbox_options"] = {"image": opts.sandbox_image}
    cfg = RolloutConfig(max_steps=opts.max_steps, time_limit_s=opts.time_limit)
    stats = {"reward": 0.0, "n": 0, "errors": 0}

    # bad env or task ids fail before anything is contacted
    tasks = select_tasks(load_tasks(opts.env_id), opts.tasks, opts.env_id)

    async def main() -> CollectResult:
        await policy.check()
        with Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), TextColumn("{task.fields[info]}"), console=console, transient=False,
        ) as progress:
            bar = progress.add_task(f"rollout {opts.env_id}", total=None, info="")

            def on_start(total: int, skipped: int) -> None:
                progress.update(bar, total=total, completed=skipped, info=f"resumed {skipped}" if skipped else "")

            def on_episode(t: Trajectory) -> None:
                if t.status == "error":
                    stats["errors"] += 1
                else:
                    stats["n"] += 1
                    stats["reward"] += t.reward or 0.0
                mean = stats["reward"] / stats["n"] if stats["n"] else 0.0
                progress.update(bar, advance=1, info=f"mean reward {mean:.3f}  errors {stats['errors']}")

            try:
                return await collect(
                    tasks, policy, env_id=opts.env_id, attempts=opts.attempts, concurrency=opts.concurrency,
                    out=opts.out, env_kwargs=env_kwargs, config=cfg, on_start=on_start, on_episode=on_episode,
                    retry_errors=opts.retry_errors,
                )
            finally:
                await policy.aclose()

    result = asyncio.run(main())
    summary = result.summary()
    print_summary(summary, console=Console())
    console.print(f"{result.new} new episode(s), {result.skipped} resumed; trajectories in {opts.out}")
    return 1 if stats["errors"] else 0
