"""``jobenv demo``: offline episodes on the bundled sample split, reference solution vs do-nothing.

What runs and the exit status are described in :mod:`jobenv.demo`.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ._common import add_sandbox_arguments

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "demo"
HELP = "offline episodes on the bundled sample split: reference solution vs do-nothing"


@dataclass(frozen=True)
class Options:
    env: str
    sandbox: str | None
    sandbox_image: str | None
    tasks: list[str] | None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", default="jobenv/sample", help="environment id")
    add_sandbox_arguments(p)
    p.add_argument("--tasks", nargs="*", default=None, help="task ids (default: all)")


def run(opts: Options) -> int:
    """0 when every episode behaved as expected, 1 otherwise; configuration errors raise JobenvError (exit 2)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from .._aio import run_sync
    from ..demo import EpisodeResult, demo_judge_kind, demo_ok, run_demo
    from ..registry import load_tasks

    console = Console()
    env_id = opts.env
    task_ids = opts.tasks or None
    from ..sandbox.config import SandboxConfig

    chosen = SandboxConfig.from_env(backend=opts.sandbox, image=opts.sandbox_image)
    sandbox, sandbox_options = chosen.backend, dict(chosen.options)
    kind = demo_judge_kind()
    n_tasks = len(task_ids) if task_ids else len(load_tasks(env_id))
    from ..judge.config import JudgeConfig

    judge_desc = f"LLM judge ({JudgeConfig.from_env().model})" if kind == "llm" else "deterministic checks"
    console.print(f"[bold]jobenv demo[/]: {env_id}, {n_tasks} tasks x 2 agents, sandbox={sandbox}, judge={judge_desc}")

    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=True,
    ) as bar:
        pid = bar.add_task("episodes", total=n_tasks * 2)

        def advance(r: EpisodeResult) -> None:
            bar.update(pid, advance=1, description=f"{r.agent:>10} {r.task_id}")

        results = run_sync(run_demo(env_id, sandbox=sandbox, task_ids=task_ids, judge=kind, progress=advance,
                                       sandbox_options=sandbox_options))

    by_task: dict[str, dict[str, EpisodeResult]] = {}
    for r in results:
        by_task.setdefault(r.task_id, {})[r.agent] = r
    any_notes = any(r.note for r in results)
    table = Table(title=f"Rewards on {env_id} ({judge_desc})")
    table.add_column("task", no_wrap=True)
    table.add_column("solution agent", justify="right")
    table.add_column("do-nothing agent", justify="right")
    table.add_column("seconds", justify="right")
    if any_notes:
        table.add_column("notes")

    def cell(r: EpisodeResult | None) -> str:
        if r is None:
            return "-"
        return f"{r.reward:.4f}" if r.status == "ok" else f"[red]error[/] ({r.reward:.1f})"

    for tid, rows in by_task.items():
        secs = sum(r.seconds for r in rows.values())
        row = [tid, cell(rows.get("solution")), cell(rows.get("do-nothing")), f"{secs:.1f}"]
        if any_notes:
            row.append("; ".join(f"{a}: {r.note}" for a, r in rows.items() if r.note)[:160])
        table.add_row(*row)
    console.print(table)
    for agent in ("solution", "do-nothing"):
        rs = [r for r in results if r.agent == agent]
        if rs:
            mean = sum(r.reward for r in rs) / len(rs)
            console.print(f"{agent:>10}: mean reward {mean:.4f} over {len(rs)} episodes")
    ok = demo_ok(results, kind)
    if not ok:
        console.print("[red]demo: some episode did not behave as expected (see the table)[/]")
    return 0 if ok else 1
