"""Rollouts on a real local Ray cluster (a head and a second node, started through Ray's own cluster API).

The fault test kills one node's episode worker mid-run: its unfinished episodes must run again elsewhere and
every (task, attempt) must land in the file exactly once, with the reward the reference solution earns.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is part of jobenv[dev]; install it with pip install 'jobenv[ray]'")

from jobenv.rollout import OpenAIChatPolicy, collect_sync, regrade_sync  # noqa: E402

pytestmark = pytest.mark.slow
ENV_KW = {"sandbox": "local", "judge": "checks"}


@pytest.fixture(scope="module")
def cluster() -> Any:
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    yield c
    c.shutdown()


def _runner_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if b"EpisodeRunner" in cmd:
            pids.append(int(entry.name))
    return pids


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:  # a line being written right now
            continue
    return [r for r in rows if r.get("record", "episode") == "episode"]


def test_ray_rollout_survives_a_killed_worker(cluster: Any, policy_server: Any, sample_tasks: list[Any],
                                             tmp_path: Path) -> None:
    srv, agent = policy_server(hold_s=0.25)
    policy = OpenAIChatPolicy("scripted-model", base_url=srv.base_url, api_key="k")
    out = tmp_path / "ray.jsonl"
    killed: list[int] = []

    def kill_one_worker_mid_run() -> None:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if len(_lines(out)) >= 2:
                pids = _runner_pids()
                if pids:
                    os.kill(pids[-1], signal.SIGKILL)
                    killed.append(pids[-1])
                    return
            time.sleep(0.2)

    killer = threading.Thread(target=kill_one_worker_mid_run, daemon=True)
    killer.start()
    res = collect_sync("jobenv/sample", policy, attempts=2, out=out, env_kwargs=ENV_KW, executor="ray",
                       ray_address=cluster.address, per_node=2)
    killer.join(timeout=5)
    assert killed, "the test never killed a worker (the run ended before two episodes were written)"
    rows = _lines(out)
    keys = [(r["task_id"], r["attempt"]) for r in rows]
    expected = {(t.id, a) for t in sample_tasks for a in range(2)}
    assert len(keys) == len(set(keys)) == len(expected), "an episode was lost or written twice"
    assert set(keys) == expected
    assert all(r["status"] == "ok" and r["reward"] == 1.0 for r in rows), [(r["task_id"], r["status"]) for r in rows]
    assert len(res.trajectories) == len(expected) and res.new == len(expected)
    # the nodes sent their graded deliverables: the driver's store holds them and the run regrades
    assert all(r.get("deliverables") for r in rows), [r["task_id"] for r in rows if not r.get("deliverables")]
    again = regrade_sync(out, tmp_path / "regraded.jsonl", judge="checks")
    assert again.regraded == len(expected) and again.errors == 0
    assert all(t.reward == 1.0 for t in again.trajectories)
    # the same policy on the local executor gives the same rewards
    local = collect_sync("jobenv/sample", policy, tasks=[sample_tasks[0].id], env_kwargs=ENV_KW)
    assert [t.reward for t in local.trajectories] == [1.0]


def test_ray_rollout_resumes_like_a_local_one(cluster: Any, policy_server: Any, sample_tasks: list[Any],
                                              tmp_path: Path) -> None:
    srv, _ = policy_server()
    policy = OpenAIChatPolicy("scripted-model", base_url=srv.base_url, api_key="k")
    out = tmp_path / "resume.jsonl"
    first = [sample_tasks[0].id, sample_tasks[1].id]
    collect_sync("jobenv/sample", policy, tasks=first, out=out, env_kwargs=ENV_KW)  # local
    res = collect_sync("jobenv/sample", policy, tasks=[*first, sample_tasks[2].id], out=out, env_kwargs=ENV_KW,
                       executor="ray", ray_address=cluster.address, per_node=1)
    assert (res.new, res.skipped) == (1, 2)
    assert sorted(r["task_id"] for r in _lines(out)) == sorted([*first, sample_tasks[2].id])
