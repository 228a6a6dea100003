"""How many episodes of a rollout reset at once: the sandbox backend's figure for this machine unless told otherwise
(the episodes wait before their timed reset step; tests/sandbox/test_start_gate.py checks the backend's own gate)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

import pytest

from jobenv.errors import JobenvError
from jobenv.rollout import OpenAIChatPolicy, collect_sync
from jobenv.sandbox.local import LocalSandbox


class CountingSandbox(LocalSandbox):
    """A real local sandbox that records how many of its kind are starting at the same moment."""

    starting: ClassVar[int] = 0
    peak: ClassVar[int] = 0
    starts: ClassVar[int] = 0

    async def start(self, task_folder: Path | None) -> None:
        cls = type(self)
        cls.starting += 1
        cls.starts += 1
        cls.peak = max(cls.peak, cls.starting)
        try:
            await super().start(task_folder)
        finally:
            cls.starting -= 1

    @classmethod
    def reset_counts(cls) -> None:
        cls.starting = cls.peak = cls.starts = 0


def _collect(srv: Any, tasks: list[Any], **kw: Any) -> Any:
    policy = OpenAIChatPolicy("scripted-model", base_url=srv.base_url, api_key="k", max_retries=2)
    CountingSandbox.reset_counts()
    return collect_sync(tasks, policy, env_id="my/tasks", attempts=2, concurrency=len(tasks) * 2, preflight=False,
                        env_kwargs={"sandbox": CountingSandbox, "judge": "checks"}, **kw)


def test_a_rollout_starts_one_local_sandbox_per_usable_cpu_at_most(policy_server: Any, sample_tasks: list[Any]) -> None:
    srv, agent = policy_server()
    res = _collect(srv, sample_tasks)
    assert agent.problems == [] and res.errors == 0
    assert [t.reward for t in res.trajectories] == [1.0] * len(res.trajectories)
    cpus = len(os.sched_getaffinity(0))
    assert CountingSandbox.starts == len(res.trajectories) == 2 * len(sample_tasks)
    # every episode asked for its sandbox at once; the gate let exactly the CPU count through together
    assert CountingSandbox.peak == min(cpus, CountingSandbox.starts), (CountingSandbox.peak, cpus)


def test_an_explicit_start_concurrency_wins(policy_server: Any, sample_tasks: list[Any]) -> None:
    srv, _ = policy_server()
    res = _collect(srv, sample_tasks[:3], start_concurrency=5)
    assert res.errors == 0 and CountingSandbox.starts == 6
    assert CountingSandbox.peak == 5
    with pytest.raises(JobenvError, match="start_concurrency must be >= 1"):
        _collect(srv, sample_tasks[:1], start_concurrency=0)
