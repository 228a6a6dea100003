"""Summaries of trajectories: mean reward, strict pass rate, unbiased pass@k, breakdowns, a terminal table.

Errored episodes are counted, never scored: they are left out of rewards unless ``include_errors`` (then
they count as reward 0, never as a pass).

DAYJOB's metrics are here too: the task-weighted mean (each task's mean over its attempts, then the mean over
tasks, so a task run five times weighs as much as one run once: DAYJOB's per-domain table is the per-occupation
table's ``task_mean_reward``), the unweighted share of criteria met, and the share meeting every criterion, 95 %
and 90 % of them, and all but one (pass@1 (N-1)): per task as DAYJOB reports them (``task_criteria_*``: each task's
attempts averaged, then the tasks, equally) and per attempt beside them (``criteria_*``). An attempt that was not
graded (a budget ran out under ``on_truncate="zero"``) meets none; errored attempts are left out and counted, as
everywhere (DAYJOB excludes them from task means too).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from ..episode.outcome import Status
from .trajectory import TokenUsage, Trajectory

__all__ = ["pass_at_k", "GroupSummary", "Summary", "summarize", "print_summary", "fmt", "pass_at_k_text"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` attempts with ``c`` successes: 1 - C(n-c, k) / C(n, k).

    Raises ValueError when k > n or counts are inconsistent.
    """
    if not (0 <= c <= n) or k < 1 or k > n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


class GroupSummary(BaseModel):
    """Aggregates over one group (all, an occupation or a task)."""

    episodes: int = 0
    tasks: int = 0
    mean_reward: float | None = None
    strict_pass_rate: float | None = None
    pass_at_k: dict[int, float] = Field(default_factory=dict)
    truncated: int = 0
    errors: int = 0
    task_mean_reward: float | None = None  # tasks weighted equally (DAYJOB's per-domain aggregate)
    criteria_rate: float | None = None  # unweighted share of criteria met, per attempt, averaged
    criteria_pass: dict[str, float] = Field(default_factory=dict)  # "100%", "95%", "90%", "N-1" -> share of attempts
    task_criteria_rate: float | None = None  # the same per task: each task's attempts averaged, then the tasks
    task_criteria_pass: dict[str, float] = Field(default_factory=dict)  # per task, as DAYJOB reports them
    rewards: list[float] = Field(default_factory=list)


class Summary(BaseModel):
    """What ``jobenv report`` shows. Errored episodes are counted in ``errors``/``error_kinds`` and left out
    of rewards unless ``include_errors`` (then they count as reward 0, never as a pass)."""

    schema_version: int = 3
    episodes: int
    included: int
    include_errors: bool
    errors: int
    error_kinds: dict[str, int]
    first_errors: dict[str, str] = Field(default_factory=dict)  # error kind -> first line of its first error
    statuses: dict[str, int]
    finish_reasons: dict[str, int]
    models: list[str]
    env_ids: list[str]
    overall: GroupSummary
    per_model: dict[str, GroupSummary] = Field(default_factory=dict)  # by model [policy id]: compare these
    per_occupation: dict[str, GroupSummary]
    per_task: dict[str, GroupSummary]
    tokens: TokenUsage
    mean_duration_s: float | None = None


def _group(trajs: list[Trajectory], include_errors: bool) -> GroupSummary:
    g = GroupSummary(episodes=len(trajs))
    g.errors = sum(t.status is Status.ERROR for t in trajs)
    g.truncated = sum(t.status is Status.TRUNCATED for t in trajs)
    used = [t for t in trajs if include_errors or t.status is not Status.ERROR]
    # pass@k is per (policy, task): attempts of two models are never pooled
    by_task: dict[tuple[str, str, str, str], list[Trajectory]] = defaultdict(list)
    for t in used:
        by_task[(t.model or "", t.policy_id, t.env_id, t.task_id)].append(t)
    g.tasks = len(by_task)
    if used:
        g.rewards = [float(t.reward or 0.0) for t in used]
        g.mean_reward = sum(g.rewards) / len(g.rewards)
        g.strict_pass_rate = sum(bool(t.strict_pass) for t in used) / len(used)
        n_min = min(len(v) for v in by_task.values())
        for k in sorted({1, 2, 4, 8, 16, 32, n_min}):
            if k > n_min:
                continue
            vals = [pass_at_k(len(v), sum(bool(t.strict_pass) for t in v), k) for v in by_task.values()]
            g.pass_at_k[k] = sum(vals) / len(vals)
        means = [sum(float(t.reward or 0.0) for t in v) / len(v) for v in by_task.values()]
        g.task_mean_reward = sum(means) / len(means)
        _criteria_metrics(g, by_task)
    return g


#: DAYJOB's thresholds over an attempt's criteria: name -> (share needed, misses allowed)
CRITERIA_THRESHOLDS: dict[str, tuple[float, int | None]] = {
    "100%": (1.0, None), "95%": (0.95, None), "90%": (0.90, None), "N-1": (0.0, 1)}


def _meets(passed: int, total: int, share: float, misses: int | None) -> bool:
    if total <= 0:
        return False
    return total - passed <= misses if misses is not None else passed >= share * total - 1e-9


def _criteria_metrics(g: GroupSummary, by_task: dict[Any, list[Trajectory]]) -> None:
    """Fill the criteria shares from each attempt's report counts (no graded report: no criterion met): per
    attempt (``criteria_rate``, ``criteria_pass``) and per task as DAYJOB reports them (each task's attempts
    averaged first, then the tasks, equally: ``task_criteria_rate``, ``task_criteria_pass``)."""
    attempts: list[tuple[float, dict[str, bool]]] = []
    tasks: list[tuple[float, dict[str, float]]] = []
    for trajs in by_task.values():
        mine = []
        for t in trajs:
            rep = t.report or {}
            total = int(rep.get("criteria_total") or 0) if rep.get("status", "ok") == "ok" else 0
            passed = min(int(rep.get("criteria_passed") or 0), total)
            mine.append((passed / total if total else 0.0,
                         {name: _meets(passed, total, share, misses)
                          for name, (share, misses) in CRITERIA_THRESHOLDS.items()}))
        attempts += mine
        tasks.append((sum(f for f, _ in mine) / len(mine),
                      {name: sum(m[name] for _, m in mine) / len(mine) for name in CRITERIA_THRESHOLDS}))
    g.criteria_rate = sum(f for f, _ in attempts) / len(attempts)
    g.criteria_pass = {name: sum(m[name] for _, m in attempts) / len(attempts) for name in CRITERIA_THRESHOLDS}
    g.task_criteria_rate = sum(f for f, _ in tasks) / len(tasks)
    g.task_criteria_pass = {name: sum(m[name] for _, m in tasks) / len(tasks) for name in CRITERIA_THRESHOLDS}


def summarize(trajectories: Iterable[Trajectory], *, include_errors: bool = False) -> Summary:
    """Mean reward, strict pass rate, pass@k (unbiased, per policy and task then averaged; k up to the fewest
    attempts any task has), per-model, per-occupation and per-task breakdowns, error counts. Passing means
    ``strict_pass`` (every rubric passed). ``per_model`` is keyed by the model name, with the policy id added
    when one model ran with several sampling configurations."""
    trajs = list(trajectories)
    kinds: dict[str, int] = defaultdict(int)
    first: dict[str, str] = {}
    statuses: dict[str, int] = defaultdict(int)
    reasons: dict[str, int] = defaultdict(int)
    tokens = TokenUsage()
    for t in trajs:
        statuses[t.status] += 1
        reasons[t.finish_reason] += 1
        if t.status is Status.ERROR:
            kind = str(t.error_kind or "unknown")
            kinds[kind] += 1
            first.setdefault(kind, (t.error or "").strip().splitlines()[0][:300] if (t.error or "").strip() else "")
        tokens.prompt_tokens += t.usage.prompt_tokens
        tokens.completion_tokens += t.usage.completion_tokens
        tokens.total_tokens += t.usage.total_tokens
        tokens.model_calls += t.usage.model_calls
        tokens.retries += t.usage.retries
    by_occ: dict[str, list[Trajectory]] = defaultdict(list)
    by_task: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajs:
        by_occ[t.occupation or t.task_id.split("/")[0]].append(t)
        by_task[t.task_id].append(t)
    overall = _group(trajs, include_errors)
    configs: dict[str, set[str]] = defaultdict(set)
    for t in trajs:
        configs[t.model or "?"].add(t.policy_id)
    by_model: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajs:
        by_model[t.run_label if len(configs[t.model or "?"]) > 1 else (t.model or "?")].append(t)
    return Summary(
        episodes=len(trajs),
        included=len(overall.rewards),
        include_errors=include_errors,
        errors=statuses.get("error", 0),
        error_kinds=dict(kinds),
        first_errors=first,
        statuses=dict(statuses),
        finish_reasons=dict(reasons),
        models=sorted({t.model for t in trajs if t.model}),
        env_ids=sorted({t.env_id for t in trajs}),
        overall=overall,
        per_model={k: _group(v, include_errors) for k, v in sorted(by_model.items())},
        per_occupation={k: _group(v, include_errors) for k, v in sorted(by_occ.items())},
        per_task={k: _group(v, include_errors) for k, v in sorted(by_task.items())},
        tokens=tokens,
        mean_duration_s=round(sum(t.duration_s for t in trajs) / len(trajs), 4) if trajs else None,
    )


MAX_TASK_ROWS = 60  # more tasks than this: the per-task table goes to the HTML report only


def fmt(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def pass_at_k_text(g: GroupSummary) -> str:
    return "  ".join(f"@{k} {v:.3f}" for k, v in sorted(g.pass_at_k.items())) or "-"


def print_summary(summary: Summary, *, console: Any = None) -> None:
    """Print the overall metrics, a per-model table (several models), the per-occupation table and error
    counts with rich. Fits 80 columns: names are never wrapped; pass@k stays in the head table."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    o = summary.overall

    def table(title: str, cols: tuple[str, ...]) -> Table:
        # no vertical rules: a 42-character task id plus five number columns fit 80 columns unwrapped
        t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for i, col in enumerate(cols):
            t.add_column(col, justify="left" if i == 0 else "right", no_wrap=True)
        return t

    head = Table(title="rollout summary", show_header=False, title_justify="left", box=box.SIMPLE, pad_edge=False)
    head.add_column("metric", style="bold", no_wrap=True)
    head.add_column("value", overflow="fold")
    head.add_row("episodes", f"{summary.episodes} ({summary.included} in rewards)")
    head.add_row("tasks", str(o.tasks))
    head.add_row("mean reward", fmt(o.mean_reward))
    head.add_row("strict pass rate", fmt(o.strict_pass_rate))
    head.add_row("pass@k (strict)", pass_at_k_text(o))
    head.add_row("task-weighted reward", fmt(o.task_mean_reward))
    meeting = ", ".join(f"{k} {fmt(v)}" for k, v in o.criteria_pass.items())
    per_task = ", ".join(f"{k} {fmt(v)}" for k, v in o.task_criteria_pass.items())
    head.add_row("criteria met (per task)",
                 f"{fmt(o.task_criteria_rate)} (unweighted); tasks meeting {per_task}" if per_task else "-")
    head.add_row("criteria met (per attempt)",
                 f"{fmt(o.criteria_rate)} (unweighted); attempts meeting {meeting}" if meeting else "-")
    head.add_row("statuses", ", ".join(f"{k} {v}" for k, v in sorted(summary.statuses.items())) or "-")
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(summary.error_kinds.items()))
    head.add_row("errors", f"{summary.errors}" + (f" ({kinds})" if summary.errors else "")
                 + ("" if summary.include_errors or not summary.errors else ", excluded from rewards"))
    for kind, line in sorted(summary.first_errors.items()):
        if line:  # what went wrong, so a run that errored says why without opening the file
            head.add_row(f"first {kind} error", line)
    head.add_row("model(s)", ", ".join(summary.models) or "-")
    head.add_row("tokens", f"{summary.tokens.prompt_tokens} prompt / {summary.tokens.completion_tokens} completion "
                           f"in {summary.tokens.model_calls} calls")
    console.print(head)
    if len(summary.per_model) > 1:
        mt = table("per model", ("model", "eps", "reward", "strict", "pass@1", "trunc", "err"))
        for name, g in summary.per_model.items():
            mt.add_row(name, str(g.episodes), fmt(g.mean_reward), fmt(g.strict_pass_rate), fmt(g.pass_at_k.get(1)),
                       str(g.truncated), str(g.errors))
        console.print(mt)
    occ = table("per occupation (reward: mean; strict: strict pass rate)",
                ("occupation", "tasks", "eps", "reward", "strict", "trunc", "err"))
    for name, g in summary.per_occupation.items():
        occ.add_row(name, str(g.tasks), str(g.episodes), fmt(g.mean_reward), fmt(g.strict_pass_rate),
                    str(g.truncated), str(g.errors))
    console.print(occ)
    if len(summary.per_task) <= MAX_TASK_ROWS:
        tt = table("per task", ("task", "eps", "reward", "strict", "trunc", "err"))
        for name, g in summary.per_task.items():
            tt.add_row(name, str(g.episodes), fmt(g.mean_reward), fmt(g.strict_pass_rate), str(g.truncated), str(g.errors))
        console.print(tt)
    else:
        console.print(f"({len(summary.per_task)} tasks: the per-task table is in the HTML report, `jobenv report --html`)")
