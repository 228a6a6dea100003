"""Per-criterion reward vectors: every grading carries one entry per criterion (rubric, index, passed, weight share,
grader) and a typed failure kind, in the env's ``info`` (here), in trajectories (tests/rollout/test_collect.py) and in
the hosted metadata (tests/hosting/test_serve.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import jobenv
from jobenv.demo import solution_actions
from jobenv.env import JobEnv
from tests.judge.conftest import make_task, n_criteria, rubric_of, verdict
from tests.support.openai_server import OpenAIServer, Reply

KEYS = {"rubric", "index", "passed", "weight_share", "grader", "failure"}


def _run(env: Any, actions: list[dict[str, Any]], **reset: Any) -> dict[str, Any]:
    env.reset(**reset)
    info: dict[str, Any] = {}
    for action in actions:
        _obs, _r, term, trunc, info = env.step(action)
        if term or trunc:
            break
    return info


def test_checks_grading_carries_one_entry_per_criterion():
    env = jobenv.make("jobenv/sample", judge="checks")
    try:
        task = env.tasks[0]
        solved = _run(env, solution_actions(task), options={"index": 0})
        blind = _run(env, [{"name": "write", "arguments": {"file_path": "output/answer.md", "content": "Done.\n"}},
                           {"name": "submit", "arguments": {}}], options={"index": 0})
    finally:
        env.close()
    n = sum(len(r.criteria) for r in task.rubrics)
    for info in (solved, blind):
        credit = info["criteria"]
        assert len(credit) == n and all(set(c) == KEYS for c in credit)
        assert sum(c["weight_share"] for c in credit) == pytest.approx(1.0, abs=1e-4)
        assert [(c["rubric"], c["index"]) for c in credit] == [
            (i, j) for i, r in enumerate(task.rubrics) for j in range(len(r.criteria))]
        assert {c["grader"] for c in credit} == {"checks"} and all(c["failure"] is None for c in credit)
        # the weight of the passed criteria of fully passed rubrics is the reward
        passed_rubrics = {r for r in {c["rubric"] for c in credit}
                          if all(c["passed"] for c in credit if c["rubric"] == r)}
        earned = sum(c["weight_share"] for c in credit if c["rubric"] in passed_rubrics)
        assert earned == pytest.approx(info["report"]["normalized_score"], abs=1e-3)
    assert all(c["passed"] for c in solved["criteria"])
    assert not all(c["passed"] for c in blind["criteria"])
    assert "criterion" not in json.dumps(solved["criteria"])  # no rubric or criterion text


def _write_and_submit(task: Any, srv: OpenAIServer) -> dict[str, Any]:
    """One episode graded by the LLM judge at ``srv`` (no cache, two attempts): write a memo, submit."""
    env = JobEnv([task], judge="llm", judge_options={"base_url": srv.base_url, "api_key": "k", "model": "m",
                                                     "cache_dir": False, "backoff_s": 0.01, "attempts": 2})
    try:
        return _run(env, [{"name": "write", "arguments": {"file_path": "output/a.md", "content": "total 5\n"}},
                          {"name": "submit", "arguments": {}}])
    finally:
        env.close()


def test_failures_are_typed_per_criterion(tmp_path):
    task = make_task(tmp_path, [
        {"rubric": "Gives the total", "weight": 6, "criterion": ["total stated", "units stated"]},
        {"rubric": "Unreachable rubric", "weight": 3, "criterion": ["x"]},
        {"rubric": "Garbled rubric", "weight": 1, "criterion": ["y", "z"]},
    ])

    def judge(req: dict[str, Any]) -> Any:
        rubric = rubric_of(req)
        if rubric.startswith("Unreachable"):
            return Reply(status=500, content="down")
        if rubric.startswith("Garbled"):
            return "I cannot answer in JSON today."
        return json.dumps(verdict(n_criteria(req), [True, False]))

    with OpenAIServer(judge) as srv:
        info = _write_and_submit(task, srv)
    assert info["status"] == "error"  # fail-closed: no reward ...
    by = {(c["rubric"], c["index"]): c for c in info["criteria"]}  # ... but the judged criteria are still told
    assert by[(0, 0)]["passed"] is True and by[(0, 1)]["passed"] is False and by[(0, 0)]["grader"] == "llm"
    assert by[(0, 0)]["weight_share"] == pytest.approx(0.3) and by[(2, 1)]["weight_share"] == pytest.approx(0.05)
    assert by[(1, 0)]["passed"] is None and by[(1, 0)]["failure"] == "judge_unreachable"
    # replies that never parse while the judge answered others are the deliverables' doing: judged, failed
    assert by[(2, 0)]["passed"] is False and by[(2, 1)]["failure"] is None

    with OpenAIServer(lambda req: "no JSON from me") as srv:  # a judge that never answers usably: its fault
        info = _write_and_submit(task, srv)
    assert info["status"] == "error" and len(info["criteria"]) == 5
    assert all(c["passed"] is None and c["failure"] == "invalid_reply" for c in info["criteria"])
