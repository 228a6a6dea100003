"""Real episodes over generated tasks: the ground-truth script run by an agent scores 1.0, doing nothing 0."""

from __future__ import annotations

import pytest

from jobenv.env import JobEnv

from .conftest import one_per_family


@pytest.fixture(scope="module")
def env(split_tasks):
    tasks = one_per_family(split_tasks)[:4]
    e = JobEnv(tasks, sandbox="local", judge="checks", max_steps=10)
    yield e
    e.close()


def test_ground_truth_agent_scores_one_in_every_family(env):
    assert len(env.tasks) == 4 and len({t.meta["family"] for t in env.tasks}) == 4
    for i, task in enumerate(env.tasks):
        obs, info = env.reset(options={"index": i})
        assert info["task_id"] == task.id
        source = (task.root / "ground_truth" / "solve.py").read_text(encoding="utf-8")
        obs, reward, term, trunc, info = env.step({"name": "write", "arguments": {"file_path": "solve.py", "content": source}})
        assert info["ok"], obs
        obs, reward, term, trunc, info = env.step(
            {"name": "bash", "arguments": {"command": "python3 solve.py task_folder output && rm solve.py && ls output"}})
        assert info["ok"] and task.meta["deliverables"]["memo"] in obs, obs
        obs, reward, term, trunc, info = env.step({"name": "submit", "arguments": {}})
        assert term and info["status"] == "ok", info
        assert reward == 1.0, (task.id, info["report"])


def test_do_nothing_agent_scores_zero(env):
    for i in range(len(env.tasks)):
        env.reset(options={"index": i})
        obs, reward, term, trunc, info = env.step({"name": "submit", "arguments": {}})
        assert term and info["status"] == "ok" and reward == 0.0
