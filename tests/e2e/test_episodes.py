"""End-to-end episodes on the bundled sample split: real tool calls in a real sandbox, real grading.

- the reference-solution agent (writes solve.py into /workspace, runs it with bash, removes it, submits)
  scores 1.0 on every task;
- the do-nothing agent scores 0.0;
- a half-done output (the solution's output minus one deliverable) scores strictly between 0 and 1, exactly
  what the checks judge gives the same files graded directly on the host.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import jobenv
from jobenv.demo import SOLUTION_DIR, run_do_nothing_agent, run_solution_agent, solution_actions
from jobenv.env import JobEnv

SAMPLE = jobenv.load_tasks("jobenv/sample")


def _env(tasks) -> JobEnv:
    return JobEnv(tasks, judge="checks", max_steps=30)


@pytest.mark.parametrize("task", SAMPLE, ids=[t.id for t in SAMPLE])
def test_solution_agent_scores_one_and_do_nothing_zero(task):
    async def main():
        env = _env([task])
        try:
            sol = await run_solution_agent(env, task)
            none = await run_do_nothing_agent(env, task)
        finally:
            await env.aclose()
        return sol, none

    sol, none = asyncio.run(main())
    assert sol.status == "ok" and sol.note == "", sol.note
    assert sol.reward == 1.0, sol.report
    assert none.status == "ok" and none.reward == 0.0 and none.steps == 1
    assert none.report["empty_output"] is True


def test_solution_agent_uses_tools_and_leaves_only_deliverables():
    task = SAMPLE[0]
    actions = solution_actions(task)
    names = [a["name"] for a in actions]
    assert names[-3:] == ["bash", "bash", "submit"] and set(names[:-3]) == {"write"}
    assert all(not a["arguments"]["file_path"].startswith("output") for a in actions if a["name"] == "write")

    async def main():
        env = _env([task])
        try:
            await env.areset(options={"task_id": task.id})
            for a in actions[:-1]:
                obs, *_ = await env.astep(a)
            listing = (await env.astep({"name": "glob", "arguments": {"pattern": "**"}}))[0]
        finally:
            await env.aclose()
        return listing

    listing = asyncio.run(main())
    assert f"{SOLUTION_DIR}/" not in listing  # the script was removed after running
    assert "output/" in listing  # deliverables are there


def _host_solution_output(task, dest: Path) -> list[str]:
    dest.mkdir(parents=True)
    subprocess.run(
        [sys.executable, str(task.solution / "solve.py"), str(task.task_folder), str(dest)],
        check=True, capture_output=True, timeout=300, cwd=dest.parent,
    )
    return sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())


def test_half_done_output_scores_in_between(tmp_path):
    from jobenv.judge import make_judge

    judge = make_judge("checks")
    found = []
    for task in SAMPLE:
        files = _host_solution_output(task, tmp_path / task.id / "full")
        for victim in files:
            partial = tmp_path / task.id / f"without-{victim.replace('/', '_')}"
            shutil.copytree(tmp_path / task.id / "full", partial)
            os.remove(partial / victim)
            expected = judge.grade_sync(task, partial)
            if expected.status == "ok" and 0.0 < expected.normalized_score < 1.0:
                found.append((task, victim, expected.normalized_score))
                break
    assert found, "no sample task has a half-done output between 0 and 1"

    async def episode(task, victim):
        env = _env([task])
        try:
            await env.areset(options={"task_id": task.id})
            for a in solution_actions(task)[:-1]:
                await env.astep(a)
            obs, *_ = await env.astep({"name": "bash", "arguments": {"command": f"rm output/{victim}"}})
            assert "(exit 0)" in obs
            return await env.astep({"name": "submit"})
        finally:
            await env.aclose()

    for task, victim, expected in found:
        obs, reward, term, trunc, info = asyncio.run(episode(task, victim))
        assert term and info["status"] == "ok"
        assert reward == expected and 0.0 < reward < 1.0, (task.id, victim, reward, expected)
        # the reward is a sum of whole rubric weights over the total (no partial credit inside a rubric)
        earned = sum(r["score"] for r in info["report"]["rubrics"])
        assert round(earned / task.max_score, 4) == reward


def test_symlink_escape_in_output_scores_zero_and_is_kept():
    """A full solution plus a symlink to a host file: nothing is credited, and the episode is a plain 0."""

    async def main():
        task = SAMPLE[0]
        env = _env([task])
        try:
            await env.areset(options={"task_id": task.id})
            for action in solution_actions(task)[:-1]:  # everything but submit
                await env.astep(action)
            await env.astep({"name": "bash", "arguments": {"command": f"ln -s {task.root}/RUBRICS.json output/rubrics.json"}})
            obs, reward, terminated, _, info = await env.astep({"name": "submit", "arguments": {}})
        finally:
            await env.aclose()
        assert terminated and reward == 0.0
        assert info["status"] == "ok" and info["refused_output"] == ["rubrics.json"]
        assert info["report"]["status"] == "ok" and info["report"]["failure_cause"] == "agent" and "refused" in obs

    asyncio.run(main())
