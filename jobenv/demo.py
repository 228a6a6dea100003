"""``jobenv demo``: real offline episodes on the bundled sample split, two scripted agents per task.

- the reference-solution agent acts only through tools: it ``write``s the task's ``solution/`` files into
  ``/workspace/solution/`` (never into ``output/``), runs ``python3 solution/solve.py task_folder output``
  with ``bash``, removes the script folder with ``bash`` and calls ``submit``;
- the do-nothing agent calls ``submit`` straight away.

Grading is deterministic (the checks judge: no network, no key) unless ``JOBENV_JUDGE_BASE_URL``,
``JOBENV_JUDGE_API_KEY`` and ``JOBENV_JUDGE_MODEL`` are all set, in which case the LLM judge grades.

Exit status: 0 when every episode ran and graded (status "ok") and, under the checks judge, the solution agent
scored 1.0 and the do-nothing agent 0.0 on every task; 1 otherwise (the table shows which episode broke);
2 for a configuration error (unknown env, sandbox unavailable), via the CLI's JobenvError handling.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .episode.outcome import Status
from .errors import TaskFormatError

__all__ = ["EpisodeResult", "solution_actions", "run_solution_agent", "run_do_nothing_agent", "run_demo", "demo_judge_kind", "demo_ok"]

SOLUTION_DIR = "solution"  # under /workspace, beside task_folder/ and output/


@dataclass
class EpisodeResult:
    """One demo episode."""

    task_id: str
    agent: str
    reward: float = 0.0
    status: Status = Status.ERROR
    steps: int = 0
    seconds: float = 0.0
    note: str = ""
    report: dict[str, Any] | None = field(default=None, repr=False)


def demo_judge_kind() -> str:
    """"llm" when the three JOBENV_JUDGE_* variables are set, else "checks"."""
    from .judge.config import JudgeConfig

    return "llm" if JudgeConfig.from_env().llm_configured else "checks"


def solution_actions(task: Any) -> list[dict[str, Any]]:
    """The tool calls of the reference-solution agent for ``task`` (ends with submit).

    Raises TaskFormatError when the task has no ``solution/solve.py`` or a solution file is not UTF-8 text.
    """
    sol = task.solution
    if sol is None or not (Path(sol) / "solve.py").is_file():
        raise TaskFormatError(f"{task.uid}: no solution/solve.py to run")
    actions: list[dict[str, Any]] = []
    for path in sorted(p for p in Path(sol).rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        rel = path.relative_to(sol).as_posix()
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise TaskFormatError(f"{path}: solution files must be UTF-8 text") from None
        actions.append({"name": "write", "arguments": {"file_path": f"{SOLUTION_DIR}/{rel}", "content": content}})
    actions.append(
        {"name": "bash", "arguments": {"command": f"python3 {SOLUTION_DIR}/solve.py task_folder output", "timeout": 300}}
    )
    actions.append({"name": "bash", "arguments": {"command": f"rm -rf {SOLUTION_DIR}"}})
    actions.append({"name": "submit", "arguments": {}})
    return actions


async def _play(env: Any, task: Any, agent: str, actions: list[dict[str, Any]]) -> EpisodeResult:
    t0 = time.perf_counter()
    res = EpisodeResult(task_id=task.id, agent=agent)
    await env.areset(options={"task_id": task.id})
    for action in actions:
        obs, reward, terminated, truncated, info = await env.astep(action)
        res.steps += 1
        if action["name"] == "bash" and info.get("exit_code", 0) != 0:
            res.note = f"bash failed: {obs[-300:]}"
        elif not info.get("ok") and action["name"] != "submit":
            res.note = f"{action['name']} failed: {obs[:300]}"
        if terminated or truncated:
            res.reward = float(reward)
            res.status = Status(info.get("status", Status.ERROR))
            res.report = info.get("report")
            if res.status is not Status.OK and not res.note:
                res.note = str(info.get("error", ""))[:300]
            break
    res.seconds = time.perf_counter() - t0
    return res


async def run_solution_agent(env: Any, task: Any) -> EpisodeResult:
    """One episode of the reference-solution agent on ``task`` (env must serve that task)."""
    return await _play(env, task, "solution", solution_actions(task))


async def run_do_nothing_agent(env: Any, task: Any) -> EpisodeResult:
    """One episode of the agent that submits an empty output folder."""
    return await _play(env, task, "do-nothing", [{"name": "submit", "arguments": {}}])


async def run_demo(
    env_id: str = "jobenv/sample",
    *,
    sandbox: str = "local",
    task_ids: list[str] | None = None,
    judge: str | None = None,
    progress: Any = None,
    sandbox_options: dict[str, Any] | None = None,
) -> list[EpisodeResult]:
    """Run both agents on every (or each named) task, one after the other. ``progress(result)`` is called
    after each episode. Raises JobenvError for an unknown env/task or an unusable sandbox."""
    from .env import JobEnv
    from .registry import load_tasks
    from .tasks import select_tasks

    tasks = select_tasks(load_tasks(env_id), task_ids, where=env_id)
    env = JobEnv(tasks, sandbox=sandbox, judge=judge or demo_judge_kind(), sandbox_options=sandbox_options)
    env.env_id = env_id
    results: list[EpisodeResult] = []
    try:
        for task in tasks:
            for runner in (run_solution_agent, run_do_nothing_agent):
                try:
                    r = await runner(env, task)
                except TaskFormatError as exc:
                    r = EpisodeResult(task_id=task.id, agent="solution", note=str(exc))
                results.append(r)
                if progress is not None:
                    progress(r)
    finally:
        await env.aclose()
    return results


def demo_ok(results: list[EpisodeResult], judge_kind: str) -> bool:
    """The exit-status rule (see the module docstring)."""
    for r in results:
        if r.status is not Status.OK:
            return False
        if judge_kind == "checks":
            if r.agent == "solution" and r.reward < 1.0:
                return False
            if r.agent == "do-nothing" and r.reward != 0.0:
                return False
    return True
