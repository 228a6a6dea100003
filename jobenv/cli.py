"""The ``jobenv`` command line: one entry point, a subcommand per job.

Each subcommand's work lives in the module that owns the concept; this file only parses arguments and
imports that module lazily, so ``jobenv --help`` stays fast. A :class:`~jobenv.errors.JobenvError` is printed
as one line and exits with status 2; other exit statuses are the subcommand's own.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Callable, Sequence

__all__ = ["main", "build_parser"]

# subcommand -> "module:function"; the function takes the parsed argparse.Namespace and returns an exit status.
_HANDLERS = {
    "list": "jobenv.registry:cli_list",
    "tasks": "jobenv.registry:cli_tasks",
    "download": "jobenv.datasets:cli_download",
    "validate": "jobenv.registry:cli_validate",
    "demo": "jobenv.demo:cli_demo",
    "judge": "jobenv.judge.cli:cli_judge",
    "rollout": "jobenv.rollout.commands:cli_rollout",
    "report": "jobenv.rollout.commands:cli_report",
    "serve": "jobenv.hosting:cli_serve",
    "generate": "jobenv.synthetic:cli_generate",
    "gc": "jobenv.sandbox:cli_gc",
    "build-image": "jobenv.sandbox.docker:cli_build_image",
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="jobenv", description="RL environments for professional white-collar work.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    sub.add_parser("list", help="registered environment ids, task counts and whether each is downloaded")

    s = sub.add_parser("tasks", help="the tasks of one environment, in index order")
    s.add_argument("env_id")

    s = sub.add_parser("validate", help="load and validate every task of an environment")
    s.add_argument("env_id", nargs="?", default="jobenv/sample")

    s = sub.add_parser("download", help="download JobBench (or JobTasks) and map it to the local tree")
    s.add_argument("--dataset", choices=["jobbench", "jobtasks"], default="jobbench")
    s.add_argument("--repo-id", default=None, help="Hub dataset repo (defaults per dataset)")
    s.add_argument("--revision", default=None, help="commit SHA to pin (default: the one recorded in jobenv)")
    s.add_argument("--from-dir", default=None, help="import an already-downloaded Hub snapshot instead")
    s.add_argument("--data-dir", default=None, help="where to put it (default $JOBENV_DATA or ~/.cache/jobenv)")

    s = sub.add_parser("demo", help="offline episodes on the bundled sample split: reference solution vs do-nothing")
    s.add_argument("--env", default="jobenv/sample")
    s.add_argument("--sandbox", default="local")
    s.add_argument("--tasks", nargs="*", default=None, help="task ids (default: all)")

    s = sub.add_parser("judge", help="grade an output directory against a rubric file")
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--rubrics", help="path to RUBRICS.json")
    src.add_argument("--task", help="<env id>:<task id>, e.g. jobenv/sample:financial_managers/task1")
    s.add_argument("--output-dir", help="the deliverables to grade")
    s.add_argument("--report", default=None, help="write the JSON report here")
    s.add_argument("--official", default=None, help="also write the official details JSON shape here")
    s.add_argument("--judge", choices=["auto", "checks", "llm"], default="auto")
    s.add_argument("--extract-only", action="store_true", help="print the extracted deliverable text and stop")
    s.add_argument("--mode", choices=["values", "formulas"], default="values", help="spreadsheet extraction mode")

    s = sub.add_parser("rollout", help="collect episodes from a policy behind an OpenAI-compatible API")
    s.add_argument("env_id")
    s.add_argument("--model", required=True)
    s.add_argument("--base-url", required=True)
    s.add_argument("--api-key", default=None, help="default: $OPENAI_API_KEY, else 'EMPTY'")
    s.add_argument("--tasks", nargs="*", default=None)
    s.add_argument("--attempts", type=int, default=1)
    s.add_argument("--concurrency", type=int, default=8)
    s.add_argument("--max-steps", type=int, default=50)
    s.add_argument("--temperature", type=float, default=0.7)
    s.add_argument("--top-p", type=float, default=None)
    s.add_argument("--max-tokens", type=int, default=None, help="completion tokens per model call")
    s.add_argument("--time-limit", type=float, default=None, help="wall-clock seconds per episode")
    s.add_argument("--sandbox", default="local")
    s.add_argument("--judge", choices=["auto", "checks", "llm"], default="auto")
    s.add_argument("--out", required=True, help="trajectories JSONL (appended; a rerun resumes)")
    s.add_argument("--retry-errors", action="store_true", help="rerun (task, attempt) pairs whose record errored")

    s = sub.add_parser("report", help="summarise a trajectories file (terminal table and HTML)")
    s.add_argument("trajectories")
    s.add_argument("--html", default=None, help="write a self-contained HTML report here")
    s.add_argument("--include-errors", action="store_true")

    s = sub.add_parser("serve", help="host the environments with the openreward SDK")
    s.add_argument("--host", default="0.0.0.0")
    s.add_argument("--port", type=int, default=8080)
    s.add_argument("--sandbox", default=None, help="sandbox backend: local | docker (default $JOBENV_SANDBOX or local)")

    s = sub.add_parser("generate", help="generate synthetic JobTasks-style tasks from real public data")
    s.add_argument("--n", type=int, default=20)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", required=True)

    sub.add_parser("gc", help="remove sandboxes (containers, temp dirs) left behind by crashed processes")

    s = sub.add_parser("build-image", help="build the knowledge-worker Docker image")
    s.add_argument("--tag", default=None)
    return p


def _resolve(spec: str) -> Callable[[argparse.Namespace], int]:
    module, func = spec.split(":")
    return getattr(importlib.import_module(module), func)


def main(argv: Sequence[str] | None = None) -> int:
    from .errors import JobenvError

    args = build_parser().parse_args(argv)
    try:
        return int(_resolve(_HANDLERS[args.command])(args) or 0)
    except JobenvError as exc:
        print(f"jobenv {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"jobenv {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
