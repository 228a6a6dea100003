"""Summaries: pass@k against brute-force enumeration, error exclusion, per-occupation breakdown."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from jobenv.rollout import Trajectory, pass_at_k, read_trajectories, summarize


def _brute_pass_at_k(outcomes: list[bool], k: int) -> float:
    subsets = list(itertools.combinations(range(len(outcomes)), k))
    return sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n,c,k", [(1, 0, 1), (1, 1, 1), (5, 2, 1), (5, 2, 3), (6, 1, 5), (8, 3, 8), (7, 0, 4)])
def test_pass_at_k_matches_enumeration(n: int, c: int, k: int) -> None:
    outcomes = [True] * c + [False] * (n - c)
    assert pass_at_k(n, c, k) == pytest.approx(_brute_pass_at_k(outcomes, k))


def test_pass_at_k_rejects_bad_counts() -> None:
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def _traj(task: str, attempt: int, reward: float | None, status: str = "ok", strict: bool | None = None, kind: str | None = None) -> Trajectory:
    return Trajectory(
        env_id="e", task_id=task, occupation=task.split("/")[0], attempt=attempt, reward=reward,
        strict_pass=(reward == 1.0) if strict is None else strict, status=status,
        finish_reason="submitted" if status != "error" else "grading_error", error_kind=kind,
        started_at="2026-01-01T00:00:00", finished_at="2026-01-01T00:00:01", duration_s=1.0,
    )


def test_summary_excludes_errors_and_breaks_down_by_occupation() -> None:
    rng = random.Random(3)
    trajs: list[Trajectory] = []
    truth: dict[str, list[bool]] = {}
    for task in ("a/task1", "a/task2", "b/task1"):
        for att in range(4):
            r = rng.choice([0.0, 0.5, 1.0])
            trajs.append(_traj(task, att, r))
            truth.setdefault(task, []).append(r == 1.0)
    trajs.append(_traj("b/task1", 4, None, status="error", kind="grading"))
    trajs.append(_traj("b/task1", 5, 0.25, status="truncated"))
    s = summarize(trajs)
    ok = [t for t in trajs if t.status != "error"]
    assert s.episodes == 14 and s.included == 13 and s.errors == 1 and s.error_kinds == {"grading": 1}
    assert s.statuses == {"ok": 12, "error": 1, "truncated": 1}
    assert s.overall.mean_reward == pytest.approx(sum(t.reward or 0 for t in ok) / 13)
    assert s.overall.strict_pass_rate == pytest.approx(sum(t.reward == 1.0 for t in ok) / 13)
    # pass@k: per task (b/task1 has 5 usable attempts), averaged; k goes up to the fewest attempts (4)
    truth["b/task1"].append(False)
    for k in (1, 2, 4):
        want = sum(_brute_pass_at_k(v, k) for v in truth.values()) / 3
        assert s.overall.pass_at_k[k] == pytest.approx(want, abs=1e-6)
    assert sorted(s.overall.pass_at_k) == [1, 2, 4]
    assert set(s.per_occupation) == {"a", "b"}
    assert s.per_occupation["a"].episodes == 8 and s.per_occupation["b"].errors == 1 and s.per_occupation["b"].truncated == 1
    assert s.per_task["b/task1"].episodes == 6
    s2 = summarize(trajs, include_errors=True)
    assert s2.included == 14 and s2.overall.mean_reward == pytest.approx(sum(t.reward or 0 for t in ok) / 14)


def test_reader_skips_corrupt_middle_lines_unless_strict(tmp_path: Any) -> None:
    p = tmp_path / "t.jsonl"
    a, b = _traj("a/task1", 0, 1.0), _traj("a/task1", 1, 0.0)
    p.write_text(a.model_dump_json() + "\n{not json\n" + b.model_dump_json())  # last one lacks its newline
    got = read_trajectories(p)
    assert [t.attempt for t in got] == [0, 1]
    with pytest.raises(Exception, match="unparseable"):
        read_trajectories(p, strict=True)
    with pytest.raises(Exception, match="not found"):
        read_trajectories(tmp_path / "missing.jsonl")
