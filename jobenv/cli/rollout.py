"""``jobenv rollout``: collect episodes from a policy behind an OpenAI-compatible API into a JSONL file.

The work is :func:`jobenv.rollout.commands.run_rollout`; this module is its parser.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._common import (
    JUDGE_CHOICES,
    add_rules_arguments,
    add_sandbox_arguments,
    non_negative_float,
    positive_float,
    positive_int,
    unit_float,
)

if TYPE_CHECKING:
    from ..episode.rules import EpisodeRules

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run", "base_url"]

NAME = "rollout"
HELP = "collect episodes from a policy behind an OpenAI-compatible API"


def base_url(text: str) -> str:
    """An http(s) URL with a host (argparse type: a bad one is a one-line usage error)."""
    from ..errors import ConfigError
    from ..rollout.commands import check_base_url

    try:
        return check_base_url(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--base-url ")) from None


@dataclass(frozen=True)
class Options:
    env_id: str
    model: str
    base_url: str
    api_key: str | None
    tasks: list[str] | None
    attempts: int
    concurrency: int
    rules: EpisodeRules
    temperature: float
    top_p: float | None
    max_tokens: int | None
    logprobs: bool
    top_logprobs: int | None
    tokens: bool
    sandbox: str | None
    sandbox_image: str | None
    judge: str
    out: str
    keep_errors: bool
    disjoint_from: list[str] | None
    progress_every: float
    ray: str | None
    per_node: int
    start_concurrency: int | None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("env_id", help="environment id (e.g. jobbench/main) or a task folder path")
    p.add_argument("--model", required=True, help="model name at the endpoint (required)")
    p.add_argument("--base-url", required=True, type=base_url,
                   help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (required)")
    p.add_argument("--api-key", default=None, help="default: $OPENAI_API_KEY, else 'EMPTY'")
    p.add_argument("--tasks", nargs="*", default=None, help="task ids (default: all)")
    p.add_argument("--attempts", type=positive_int, default=1, help="episodes per task")
    p.add_argument("--concurrency", type=positive_int, default=8, help="episodes at once")
    add_rules_arguments(p)
    p.add_argument("--temperature", type=non_negative_float, default=0.7, help="sampling temperature")
    p.add_argument("--top-p", type=unit_float, default=None, help="nucleus sampling (default: the endpoint's)")
    p.add_argument("--max-tokens", type=positive_int, default=None,
                   help="completion tokens per model call (default: the endpoint's)")
    p.add_argument("--logprobs", action="store_true",
                   help="store each assistant turn's token ids and logprobs (vLLM: logprobs + return_tokens_as_token_ids) "
                        "(default: off)")
    p.add_argument("--top-logprobs", type=positive_int, default=None, help="alternatives per token with --logprobs (default: none)")
    p.add_argument("--tokens", action="store_true",
                   help="token-exact trajectories: the engine's prompt and completion token ids (vLLM: return_token_ids, "
                        "else its /tokenize) with logprobs, for loss masks without re-tokenising (default: off)")
    add_sandbox_arguments(p)
    p.add_argument("--judge", choices=JUDGE_CHOICES, default="auto", help="judge kind")
    p.add_argument("--out", required=True, help="trajectories JSONL (appended; a rerun resumes) (required)")
    p.add_argument("--keep-errors", action="store_true",
                   help="on resume, keep errored episodes instead of running them again (default: rerun them)")
    p.add_argument("--disjoint-from", nargs="*", default=None, metavar="TRAJECTORIES",
                   help="warn when this run's tasks are the same tasks as episodes in these files (default: none)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run the episodes on a Ray cluster (ADDRESS, e.g. 10.0.0.5:6379; without one: $RAY_ADDRESS "
                        "or a new local cluster; needs pip install 'jobenv[ray]') (default: this machine only)")
    p.add_argument("--per-node", type=positive_int, default=8,
                   help="with --ray: episodes at once on each node (default: 8)")
    p.add_argument("--start-concurrency", type=positive_int, default=None,
                   help="sandboxes starting at once (default: one per usable CPU for local sandboxes, 16 for Docker; "
                        "with --ray, each node's own)")
    p.add_argument("--progress-every", type=positive_float, default=30.0,
                   help="seconds between progress lines when stderr is not a terminal")


def run(opts: Options) -> int:
    """See :func:`jobenv.rollout.commands.run_rollout`: exit 0, 1 when episodes errored, 2 for bad input."""
    from ..rollout.commands import RolloutOptions, run_rollout

    return run_rollout(RolloutOptions(
        env_id=opts.env_id, model=opts.model, base_url=opts.base_url, out=opts.out, api_key=opts.api_key,
        tasks=opts.tasks, attempts=opts.attempts, concurrency=opts.concurrency, rules=opts.rules,
        temperature=opts.temperature, top_p=opts.top_p, max_tokens=opts.max_tokens, logprobs=opts.logprobs,
        top_logprobs=opts.top_logprobs, tokens=opts.tokens, sandbox=opts.sandbox, sandbox_image=opts.sandbox_image, judge=opts.judge,
        keep_errors=opts.keep_errors, disjoint_from=tuple(opts.disjoint_from or ()), progress_every_s=opts.progress_every,
        ray=opts.ray, per_node=opts.per_node, start_concurrency=opts.start_concurrency,
    ))
