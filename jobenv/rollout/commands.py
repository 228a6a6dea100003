"""The rollout commands: ``jobenv rollout`` and ``jobenv report``.

Each command is a function of the parsed arguments returning an exit status, so any front-end can call it.
A :class:`~jobenv.errors.JobenvError` raised here is printed by the CLI as one line with exit status 2.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..errors import JobenvError
from .collect import CollectResult, collect, select_tasks
from .episode import RolloutConfig
from .policy import OpenAIChatPolicy
from .report import write_html
from .summary import print_summary, summarize
from .trajectory import Trajectory, read_trajectories

__all__ = ["cli_rollout", "cli_report"]


def cli_rollout(args: Any) -> int:
    """``jobenv rollout``: collect with a rich progress display, then print the summary table.

    Exit 0 when every episode finished without error, 1 when some errored (they are in the file), 2 for bad
    arguments or an unreachable endpoint (raised as JobenvError and printed by the CLI).
    """
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    policy = OpenAIChatPolicy(
        args.model,
        base_url=args.base_url,
        api_key=args.api_key,
        temperature=args.temperature,
        max_tokens=getattr(args, "max_tokens", None),
        top_p=getattr(args, "top_p", None),
    )
    env_kwargs: dict[str, Any] = {"sandbox": args.sandbox, "judge": args.judge}
    cfg = RolloutConfig(max_steps=args.max_steps, time_limit_s=getattr(args, "time_limit", None))
    stats = {"reward": 0.0, "n": 0, "errors": 0}

    # bad env or task ids fail before anything is contacted
    from ..registry import load_tasks

    tasks = select_tasks(load_tasks(args.env_id), args.tasks, args.env_id)

    async def main() -> CollectResult:
        await policy.check()
        with Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), TextColumn("{task.fields[info]}"), console=console, transient=False,
        ) as progress:
            bar = progress.add_task(f"rollout {args.env_id}", total=None, info="")

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
                    tasks, policy, env_id=args.env_id, attempts=args.attempts, concurrency=args.concurrency,
                    out=args.out, env_kwargs=env_kwargs, config=cfg, on_start=on_start, on_episode=on_episode,
                    retry_errors=getattr(args, "retry_errors", False),
                )
            finally:
                await policy.aclose()

    result = asyncio.run(main())
    summary = result.summary()
    print_summary(summary, console=Console())
    console.print(f"{result.new} new episode(s), {result.skipped} resumed; trajectories in {args.out}")
    return 1 if stats["errors"] else 0


def cli_report(args: Any) -> int:
    """``jobenv report traj.jsonl [--html out.html] [--include-errors]``.

    Raises JobenvError (exit 2) for a missing file or one with no readable trajectory.
    """
    from rich.console import Console

    trajs = read_trajectories(args.trajectories)
    if not trajs:
        raise JobenvError(f"{args.trajectories}: no readable trajectories (is this a `jobenv rollout` output?)")
    summary = summarize(trajs, include_errors=args.include_errors)
    print_summary(summary, console=Console())
    if args.html:
        p = write_html(trajs, args.html, include_errors=args.include_errors)
        Console(stderr=True).print(f"HTML report: {p}")
    return 0
