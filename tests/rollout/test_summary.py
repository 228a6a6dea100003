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


def _graded(task: str, attempt: int, verdicts: list[bool], tmp_path: Any) -> Trajectory:
    """An attempt graded by the real report builder: one binary criterion per rubric (DAYJOB's shape)."""
    from jobenv.judge.report import CriterionResult, RubricResult, build_report
    from jobenv.tasks import Task, parse_rubrics

    root = tmp_path / task / str(attempt)
    (root / "task_folder").mkdir(parents=True)
    rubrics = [{"rubric": f"criterion {i}", "weight": 1, "criterion": [f"criterion {i} holds"]} for i in range(len(verdicts))]
    t = Task(split="test", occupation=task.split("/")[0], number=1, instructions="do it", task_folder=root / "task_folder",
             rubrics=parse_rubrics({"rubrics": rubrics}), root=root)
    results = [RubricResult(index=i, rubric=f"criterion {i}", weight=1.0,
                            criteria_results=[CriterionResult(index=0, criterion=f"criterion {i} holds", passed=v)])
               for i, v in enumerate(verdicts)]
    report = build_report(t, results, judge_kind="checks", judge_model=None, mode="values")
    traj = _traj(task, attempt, report.normalized_score, strict=report.strict_pass)
    traj.report = report.model_dump(mode="json")
    return traj


def test_dayjob_metrics_weigh_tasks_equally_and_count_criteria(tmp_path: Any) -> None:
    twenty = [True] * 20
    trajs = [
        _graded("health/t1", 0, twenty, tmp_path),                       # every criterion
        _graded("health/t1", 1, twenty[:19] + [False], tmp_path),         # 19/20: 95 % and N-1, not strict
        _graded("health/t1", 2, twenty[:18] + [False] * 2, tmp_path),     # 18/20: 90 % only
        _graded("health/t1", 3, twenty[:17] + [False] * 3, tmp_path),     # 17/20: none of the thresholds
        _graded("health/t2", 0, [False] * 20, tmp_path),                  # one attempt, nothing met
        _traj("health/t2", 1, None, status="error", kind="grading"),      # errored: left out, counted
        _traj("health/t2", 2, 0.0, status="truncated"),                  # ran out, not graded: meets nothing
    ]
    s = summarize(trajs)
    o = s.overall
    assert s.errors == 1 and s.included == 6
    t1 = (1.0 + 0.95 + 0.9 + 0.85) / 4
    assert o.mean_reward == pytest.approx((1.0 + 0.95 + 0.9 + 0.85 + 0 + 0) / 6)
    assert o.task_mean_reward == pytest.approx((t1 + 0.0) / 2)  # t1's four attempts weigh as much as t2's two
    assert o.criteria_rate == pytest.approx((1 + 19 / 20 + 18 / 20 + 17 / 20) / 6)
    assert o.criteria_pass == pytest.approx({"100%": 1 / 6, "95%": 2 / 6, "90%": 3 / 6, "N-1": 2 / 6})
    # per task, as DAYJOB reports them: t1's four attempts averaged, t2's two (the errored one left out), then the two
    assert o.task_criteria_rate == pytest.approx((t1 + 0.0) / 2)
    assert o.task_criteria_pass == pytest.approx({"100%": 1 / 8, "95%": 2 / 8, "90%": 3 / 8, "N-1": 2 / 8})
    assert s.per_task["health/t1"].task_criteria_pass == pytest.approx({"100%": 1 / 4, "95%": 2 / 4, "90%": 3 / 4,
                                                                        "N-1": 2 / 4})
    assert s.per_occupation["health"].task_mean_reward == pytest.approx(o.task_mean_reward)
    assert s.per_task["health/t2"].criteria_pass["100%"] == 0.0 and s.per_task["health/t2"].errors == 1
    # a read back through the trajectories file keeps the report counts the metrics need
    from jobenv.rollout import TrajectoryWriter

    path = tmp_path / "traj.jsonl"
    import asyncio

    w = TrajectoryWriter(path)
    for t in trajs:
        asyncio.run(w.write(t))
    w.close()
    again = summarize(read_trajectories(path)).overall
    assert (again.criteria_rate, again.criteria_pass, again.task_mean_reward, again.task_criteria_pass) == (
        o.criteria_rate, o.criteria_pass, o.task_mean_reward, o.task_criteria_pass)
