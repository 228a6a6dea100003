"""Rollouts end to end: real env, real sandbox, real checks judge, a policy over the real openai client."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest

from jobenv.errors import JobenvError
from jobenv.rollout import (
    TRAJECTORY_SCHEMA_VERSION,
    OpenAIChatPolicy,
    RolloutConfig,
    Trajectory,
    collect,
    collect_sync,
    read_trajectories,
    regrade_sync,
)
from tests.rollout.helpers import episode_lines
from tests.support.openai_server import OpenAIServer, Reply


def _policy(srv: Any, **kw: Any) -> OpenAIChatPolicy:
    kw.setdefault("max_retries", 2)
    return OpenAIChatPolicy("scripted-model", base_url=srv.base_url, api_key="test-key", temperature=0.5, **kw)


ENV_KW = {"sandbox": "local", "judge": "checks"}


def test_scripted_episode_is_a_complete_openai_trajectory(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, agent = policy_server()
    task = sample_tasks[0]
    out = tmp_path / "traj.jsonl"
    res = collect_sync("jobenv/sample", _policy(srv), tasks=[task.id], out=out, env_kwargs=ENV_KW)
    assert agent.problems == []
    assert res.new == 1 and res.skipped == 0
    t = res.trajectories[0]
    assert (t.status, t.finish_reason, t.submitted, t.error) == ("ok", "submitted", True, None)
    assert t.reward == 1.0 and t.strict_pass is True
    assert t.report is not None and t.report["status"] == "ok" and t.report["normalized_score"] == 1.0
    assert (t.env_id, t.task_id, t.split, t.occupation, t.attempt) == ("jobenv/sample", task.id, "sample", task.occupation, 0)
    assert t.schema_version == TRAJECTORY_SCHEMA_VERSION and t.model == "scripted-model"
    assert t.policy["temperature"] == 0.5
    # message list: user prompt, then assistant turns each followed by one tool result per call, ids matching
    roles = [m["role"] for m in t.messages]
    assert roles[0] == "user" and task.instructions.strip()[:200] in t.messages[0]["content"]
    first = t.messages[1]
    assert [c["function"]["name"] for c in first["tool_calls"]] == ["ls", "read"]
    assert [m["tool_call_id"] for m in t.messages[2:4]] == [c["id"] for c in first["tool_calls"]]
    assert "TASK_INSTRUCTIONS.txt" in t.messages[2]["content"]  # the ls result really lists the folder
    assert t.messages[-2]["tool_calls"][0]["function"]["name"] == "submit"
    assert t.messages[-1]["role"] == "tool" and "graded" in t.messages[-1]["content"].lower()
    n_calls = sum(len(m.get("tool_calls") or []) for m in t.messages if m["role"] == "assistant")
    assert t.num_tool_calls == n_calls == roles.count("tool")
    assert t.num_turns == roles.count("assistant") == t.usage.model_calls
    assert t.usage.prompt_tokens == 10 * t.num_turns and t.usage.completion_tokens == 5 * t.num_turns
    assert [s.kind for s in t.steps].count("tool") == n_calls and t.steps[0].kind == "reset"
    assert all(s.duration_s >= 0 for s in t.steps) and t.duration_s >= sum(s.duration_s for s in t.steps) * 0.99
    assert {s["function"]["name"] for s in t.tools} >= {"bash", "read", "write", "ls", "submit"}
    assert t.versions["jobenv"] and t.versions["judge"] and "checks" in t.versions["judge"] and t.versions["dataset"]
    assert t.started_at < t.finished_at
    # the file holds exactly that episode, and each request the server got offered the tools
    lines = episode_lines(out)
    assert len(lines) == 1 and Trajectory.model_validate_json(lines[0]).episode_id == t.episode_id
    assert all(r["tools"] and r["model"] == "scripted-model" and r["temperature"] == 0.5 for r in srv.requests)


def test_trajectories_carry_the_per_criterion_vector(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, _agent = policy_server()
    task = sample_tasks[0]
    out = tmp_path / "traj.jsonl"
    t = collect_sync("jobenv/sample", _policy(srv), tasks=[task.id], out=out, env_kwargs=ENV_KW).trajectories[0]
    credit = t.criteria_credit()
    assert len(credit) == sum(len(r.criteria) for r in task.rubrics) and all(c["passed"] for c in credit)
    assert sum(c["weight_share"] for c in credit) == pytest.approx(1.0, abs=1e-4)
    assert read_trajectories(out, full_reports=True)[0].criteria_credit() == credit
    with pytest.raises(JobenvError, match="full_reports=True"):
        read_trajectories(out)[0].criteria_credit()  # the line alone keeps scores, not verdicts


def test_32_concurrent_rollouts_with_k_attempts(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, agent = policy_server(hold_s=0.05, gather=16)
    k = math.ceil(32 / len(sample_tasks))
    n = len(sample_tasks) * k
    assert n >= 32
    out = tmp_path / "traj.jsonl"
    seen: list[str] = []
    res = collect_sync("jobenv/sample", _policy(srv), attempts=k, concurrency=32, out=out, env_kwargs=ENV_KW,
                       on_episode=lambda t: seen.append(t.task_id))
    assert agent.problems == []
    assert len(seen) == n, sorted(seen)
    assert res.new == n == len(res.trajectories)
    bad = [(t.task_id, t.attempt, t.status, t.error, t.reward) for t in res.trajectories if t.status != "ok" or t.reward != 1.0]
    assert bad == []
    assert sorted((t.task_id, t.attempt) for t in res.trajectories) == sorted((x.id, a) for x in sample_tasks for a in range(k))
    assert agent.peak >= 16, f"episodes did not overlap (peak {agent.peak} requests in flight)"
    assert len(read_trajectories(out)) == n
    s = res.summary()
    assert s.overall.mean_reward == 1.0 and s.overall.strict_pass_rate == 1.0 and s.overall.pass_at_k[k] == 1.0
    assert set(s.per_occupation) == {x.occupation for x in sample_tasks}


def test_cancelled_run_resumes_only_missing_pairs_and_survives_a_torn_line(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, agent = policy_server(hold_s=0.02)
    tasks = sample_tasks[: min(4, len(sample_tasks))]
    ids = [t.id for t in tasks]
    attempts = 3
    total = len(tasks) * attempts
    out = tmp_path / "traj.jsonl"

    async def first_run() -> int:
        done = asyncio.Event()
        count = 0

        def on_episode(_: Trajectory) -> None:
            nonlocal count
            count += 1
            if count >= 3:
                done.set()

        job = asyncio.create_task(collect("jobenv/sample", _policy(srv), tasks=ids, attempts=attempts, concurrency=2,
                                          out=out, env_kwargs=ENV_KW, on_episode=on_episode))
        await done.wait()
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job
        return count

    written = asyncio.run(first_run())
    lines = episode_lines(out)
    assert 3 <= len(lines) == written < total
    first_keys = {(json.loads(line)["task_id"], json.loads(line)["attempt"]) for line in lines}
    # a crash in the middle of a write leaves half a record without its newline
    torn = lines[0][: len(lines[0]) // 2]
    with out.open("a") as fh:
        fh.write(torn)
    assert len(read_trajectories(out)) == written  # readers tolerate it

    started_before = agent.episodes_started
    starts: list[tuple[int, int]] = []
    res = collect_sync("jobenv/sample", _policy(srv), tasks=ids, attempts=attempts, concurrency=4, out=out,
                       env_kwargs=ENV_KW, on_start=lambda tot, skip: starts.append((tot, skip)))
    assert starts == [(total, written)]
    assert res.new == total - written and res.skipped == written
    assert agent.episodes_started - started_before == total - written  # the policy only saw the missing pairs
    raw = out.read_text()
    assert raw.endswith("\n") and torn not in raw.splitlines()  # the torn tail was dropped, not glued to a record
    recs = read_trajectories(out, latest_only=False)
    keys = [(r.task_id, r.attempt) for r in recs]
    assert len(keys) == len(set(keys)) == total
    assert first_keys <= set(keys)
    assert all(r.status == "ok" for r in recs)
    # a third run has nothing left to do
    res3 = collect_sync("jobenv/sample", _policy(srv), tasks=ids, attempts=attempts, out=out, env_kwargs=ENV_KW)
    assert res3.new == 0 and res3.skipped == total and len(res3.trajectories) == total


def test_judge_outage_marks_episodes_as_errors_and_retry_errors_reruns_them(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, agent = policy_server()
    ids = [t.id for t in sample_tasks[:2]]
    out = tmp_path / "traj.jsonl"
    with OpenAIServer(lambda req: Reply(status=500)) as judge_srv:
        env_kwargs = {"sandbox": "local", "judge": "llm", "judge_options": {
            "base_url": judge_srv.base_url, "api_key": "k", "model": "judge-model", "attempts": 2, "backoff_s": 0.01,
            "cache_dir": False}}
        res = collect_sync("jobenv/sample", _policy(srv), tasks=ids, attempts=2, concurrency=4, out=out, env_kwargs=env_kwargs)
        assert len(judge_srv.requests) > 0  # the judge really was asked (and failed)
    assert len(res.trajectories) == 4
    for t in res.trajectories:
        assert (t.status, t.error_kind, t.finish_reason, t.reward, t.submitted) == ("error", "grading", "grading_error", None, True)
        assert t.report is not None and t.report["status"] == "error" and t.error
        assert t.messages[-1]["role"] == "tool"  # the whole conversation is kept
    s = res.summary()
    assert (s.episodes, s.included, s.errors, s.error_kinds) == (4, 0, 4, {"grading": 4})
    assert s.overall.mean_reward is None
    s_all = res.summary(include_errors=True)
    assert s_all.included == 4 and s_all.overall.mean_reward == 0.0 and s_all.overall.strict_pass_rate == 0.0
    # retry_errors=False keeps them; a plain rerun (resume) does not count them as done: it reruns them with a
    # working judge and the new lines win
    kept = collect_sync("jobenv/sample", _policy(srv), tasks=ids, attempts=2, out=out, env_kwargs=ENV_KW, retry_errors=False)
    assert kept.new == 0 and kept.errors == 4
    res2 = collect_sync("jobenv/sample", _policy(srv), tasks=ids, attempts=2, out=out, env_kwargs=ENV_KW)
    assert res2.new == 4 and res2.errors == 0 and all(t.status == "ok" and t.reward == 1.0 for t in res2.trajectories)
    assert len(episode_lines(out)) == 8
    latest = read_trajectories(out)
    assert len(latest) == 4 and all(t.status == "ok" for t in latest)
    assert len(read_trajectories(out, latest_only=False)) == 8


def test_policy_failure_ends_only_that_episode(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    bad_task = sample_tasks[0]

    def fail(req: dict[str, Any], turn: int) -> Reply | None:
        prompt = next(m["content"] for m in req["messages"] if m["role"] == "user")
        return Reply(status=503) if bad_task.instructions.strip()[:400] in prompt and turn == 1 else None

    srv, agent = policy_server(fail=fail)
    ids = [t.id for t in sample_tasks[:3]]
    res = collect_sync("jobenv/sample", _policy(srv, max_retries=2), tasks=ids, concurrency=3, out=tmp_path / "t.jsonl", env_kwargs=ENV_KW)
    by_id = {t.task_id: t for t in res.trajectories}
    b = by_id[bad_task.id]
    assert (b.status, b.error_kind, b.finish_reason, b.reward) == ("error", "policy", "policy_error", None)
    assert "503" in (b.error or "") and "3 attempts" in (b.error or "")
    assert b.num_turns == 1 and b.messages[-1]["role"] == "tool"  # the first turn's tools ran and are kept
    others = [t for t in res.trajectories if t.task_id != bad_task.id]
    assert others and all(t.status == "ok" and t.reward == 1.0 for t in others)


def test_transient_api_errors_are_retried(policy_server: Any, sample_tasks: list[Any]) -> None:
    failures = {"n": 0}

    def fail(req: dict[str, Any], turn: int) -> Reply | None:
        if turn == 0 and failures["n"] < 2:
            failures["n"] += 1
            return Reply(status=429 if failures["n"] == 1 else 502)
        return None

    srv, _ = policy_server(fail=fail)
    res = collect_sync("jobenv/sample", _policy(srv, max_retries=3), tasks=[sample_tasks[0].id], env_kwargs=ENV_KW)
    t = res.trajectories[0]
    assert t.status == "ok" and t.reward == 1.0 and t.usage.retries == 2


def test_client_errors_are_not_retried_and_garbage_replies_are(policy_server: Any, sample_tasks: list[Any]) -> None:
    srv, _ = policy_server(fail=lambda req, turn: Reply(status=401))
    t = collect_sync("jobenv/sample", _policy(srv, max_retries=3), tasks=[sample_tasks[0].id], env_kwargs=ENV_KW).trajectories[0]
    assert t.status == "error" and t.error_kind == "policy" and "401" in (t.error or "")
    assert len(srv.requests) == 1
    srv2, _ = policy_server(fail=lambda req, turn: Reply(raw_body=b"<html>not json</html>"))
    t2 = collect_sync("jobenv/sample", _policy(srv2, max_retries=1), tasks=[sample_tasks[0].id], env_kwargs=ENV_KW).trajectories[0]
    assert t2.status == "error" and t2.error_kind == "policy" and len(srv2.requests) == 2


def test_limits_nudges_and_budgets(policy_server: Any, sample_tasks: list[Any]) -> None:
    tid = [sample_tasks[0].id]
    # a text-only reply gets the nudge, then the agent carries on and succeeds
    srv, _ = policy_server(prelude=["Let me think about it first."])
    t = collect_sync("jobenv/sample", _policy(srv), tasks=tid, env_kwargs=ENV_KW).trajectories[0]
    assert t.status == "ok" and t.reward == 1.0
    assert t.messages[1]["role"] == "assistant" and "tool_calls" not in t.messages[1]
    assert t.messages[2] == {"role": "user", "content": RolloutConfig().nudge}
    # without a nudge the text-only reply ends the episode before submit: the truncation rule applies (zero)
    t = collect_sync("jobenv/sample", _policy(srv), tasks=tid, env_kwargs=ENV_KW, nudge=None).trajectories[0]
    assert (t.status, t.finish_reason, t.submitted, t.reward, t.num_tool_calls) == ("truncated", "no_tool_call", False, 0.0, 0)
    assert t.report is None
    # ... or, with on_truncate="grade", the (empty) output is graded
    t = collect_sync("jobenv/sample", _policy(srv), tasks=tid, env_kwargs=ENV_KW, nudge=None, on_truncate="grade").trajectories[0]
    assert (t.status, t.finish_reason, t.reward) == ("truncated", "no_tool_call", 0.0)
    assert t.report is not None and t.report["empty_output"] is True and t.rules["on_truncate"] == "grade"
    # an agent that never calls a tool is stopped after max_nudges
    srv2, _ = policy_server(prelude=["a", "b", "c", "d", "e"])
    t = collect_sync("jobenv/sample", _policy(srv2), tasks=tid, env_kwargs=ENV_KW, max_nudges=2).trajectories[0]
    assert t.finish_reason == "no_tool_call" and t.num_turns == 3 and len(srv2.requests) == 3
    srv, _ = policy_server()
    # step limit: the env allows exactly max_steps tool calls (ls + read in one turn), then the episode is truncated
    t = collect_sync("jobenv/sample", _policy(srv), tasks=tid, env_kwargs=ENV_KW, max_steps=2).trajectories[0]
    assert (t.status, t.finish_reason, t.num_tool_calls, t.submitted, t.reward) == ("truncated", "max_steps", 2, False, 0.0)
    assert "at most 2 tool calls" in t.messages[0]["content"] and "scores 0" in t.messages[0]["content"]
    # a step limit in the middle of a multi-call reply: the rest get a "not executed" result
    t = collect_sync("jobenv/sample", _policy(srv), tasks=tid, env_kwargs=ENV_KW, max_steps=1).trajectories[0]
    assert t.num_tool_calls == 1 and t.messages[3]["role"] == "tool" and "Not executed" in t.messages[3]["content"]
    # token budget: 5 completion tokens per call, budget 10 -> two model calls
    t = collect_sync("jobenv/sample", _policy(srv), tasks=tid, env_kwargs=ENV_KW, token_budget=10).trajectories[0]
    assert (t.status, t.finish_reason, t.num_turns) == ("truncated", "token_budget", 2)
    # context limit: prompt+completion of one call (15) reaching the limit ends the episode after that turn
    t = collect_sync("jobenv/sample", _policy(srv), tasks=tid, env_kwargs=ENV_KW, context_limit=15).trajectories[0]
    assert (t.status, t.finish_reason, t.num_turns) == ("truncated", "context_length", 1)


def test_wall_clock_and_context_rejection(policy_server: Any, sample_tasks: list[Any]) -> None:
    tid = [sample_tasks[0].id]
    srv, _ = policy_server(fail=lambda req, turn: Reply(content="slow", delay_s=3.0) if turn == 1 else None)
    t = collect_sync("jobenv/sample", _policy(srv), tasks=tid, env_kwargs=ENV_KW, time_limit_s=1.0).trajectories[0]
    assert (t.status, t.finish_reason, t.num_turns) == ("truncated", "time_limit", 1)
    assert t.duration_s < 2.9
    ctx = b'{"error": {"message": "This model\'s maximum context length is 8192 tokens", "type": "invalid_request_error"}}'
    srv2, _ = policy_server(fail=lambda req, turn: Reply(status=400, raw_body=ctx) if turn == 1 else None)
    t = collect_sync("jobenv/sample", _policy(srv2), tasks=tid, env_kwargs=ENV_KW).trajectories[0]
    assert (t.status, t.finish_reason, t.error) == ("truncated", "context_length", None)
    assert len(srv2.requests) == 2  # not retried


def test_env_failure_is_an_episode_error_not_a_crash(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, _ = policy_server()
    # the pre-flight check starts one sandbox first: a sandbox that cannot start fails the run before any episode
    out = tmp_path / "t.jsonl"
    with pytest.raises(JobenvError, match="no-such-backend sandbox cannot run episodes"):
        collect_sync("jobenv/sample", _policy(srv), tasks=[sample_tasks[0].id], out=out, env_kwargs={"sandbox": "no-such-backend"})
    assert len(srv.requests) == 0 and not out.exists()
    # without it, the failure is recorded per episode
    res = collect_sync("jobenv/sample", _policy(srv), tasks=[sample_tasks[0].id], env_kwargs={"sandbox": "no-such-backend"},
                       preflight=False)
    t = res.trajectories[0]
    assert t.status == "error" and t.error_kind == "env" and t.reward is None and "no-such-backend" in (t.error or "")
    assert len(srv.requests) == 0 and res.errors == 1


def test_bad_arguments_raise_clear_errors(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, _ = policy_server()
    with pytest.raises(JobenvError, match="no task"):
        collect_sync("jobenv/sample", _policy(srv), tasks=["nobody/task99"])
    with pytest.raises(JobenvError, match="unknown environment"):
        collect_sync("nope/env", _policy(srv))
    with pytest.raises(JobenvError, match="attempts"):
        collect_sync("jobenv/sample", _policy(srv), attempts=0)
    with pytest.raises(JobenvError, match="invalid rollout settings"):
        collect_sync("jobenv/sample", _policy(srv), max_stepz=3)
    out = tmp_path / "x.jsonl"
    out.write_text("something\n")
    with pytest.raises(JobenvError, match="exists"):
        collect_sync("jobenv/sample", _policy(srv), out=out, resume=False)
    assert out.read_text() == "something\n"  # nothing lost


def test_collect_over_a_task_list(policy_server: Any, sample_tasks: list[Any]) -> None:
    srv, _ = policy_server()
    res = collect_sync(sample_tasks[:1], _policy(srv), env_id="my/tasks", env_kwargs=ENV_KW)
    t = res.trajectories[0]
    assert t.env_id == "my/tasks" and t.status == "ok" and t.reward == 1.0


def test_symlink_in_output_scores_zero_and_is_not_dropped(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    """Refused output is the agent's doing: reward 0 and counted, never an error a summary would drop."""
    plant = [{"name": "bash", "arguments": {"command": "ln -s /etc/passwd output/leak.txt"}}]
    srv, _ = policy_server(prelude=[plant])
    res = collect_sync("jobenv/sample", _policy(srv), tasks=[sample_tasks[0].id], out=tmp_path / "t.jsonl", env_kwargs=ENV_KW)
    (t,) = res.trajectories
    assert (t.status, t.error_kind, t.reward, t.submitted) == ("ok", None, 0.0, True)
    assert t.report["status"] == "ok" and t.report["failure_cause"] == "agent" and t.report["rejected_files"] == ["leak.txt"]
    s = res.summary()
    assert (s.included, s.errors, s.overall.mean_reward) == (1, 0, 0.0)
    # the export's list of refused entries is not a deliverable, yet a regrade still refuses what it lists
    assert t.deliverables is not None and ".jobenv_rejected.json" not in t.deliverables and t.rejected_ref
    (again,) = regrade_sync(tmp_path / "t.jsonl", tmp_path / "again.jsonl", judge="checks").trajectories
    assert again.reward == 0.0 and again.report["rejected_files"] == ["leak.txt"]
    # an episode whose export refused nothing lists only the agent's files and no manifest
    (clean,) = collect_sync("jobenv/sample", _policy(policy_server()[0]), tasks=[sample_tasks[0].id],
                            out=tmp_path / "c.jsonl", env_kwargs=ENV_KW).trajectories
    assert clean.reward == 1.0 and clean.deliverables and clean.rejected_ref is None
    assert not any(name.startswith(".jobenv") for name in clean.deliverables)


def test_a_policy_spreads_many_requests_over_small_http_clients() -> None:
    # httpcore's pool scans all its connections on every request: one client per few requests keeps that cheap
    import threading

    from jobenv.rollout.policy import CLIENT_SHARE

    n = 80
    loads: list[int] = []
    policy: Any = None

    def snapshot() -> None:  # runs once all n requests have arrived, before any is answered
        loads.extend(load for _, load in next(iter(policy._clients.values())))

    arrived = threading.Barrier(n, action=snapshot, timeout=60)

    def handler(req: dict[str, Any]) -> Reply:
        arrived.wait()  # every request is in flight at once
        return Reply(content="done")

    with OpenAIServer(handler) as srv:
        policy = OpenAIChatPolicy("m", base_url=srv.base_url, api_key="k", max_retries=0)

        async def main() -> list[str]:
            outs = await asyncio.gather(*(policy.act([{"role": "user", "content": f"q{i}"}], []) for i in range(n)))
            await policy.aclose()
            return [o.message.get("content") for o in outs]

        contents = asyncio.run(main())
    assert contents == ["done"] * n
    assert sum(loads) == n and max(loads) <= CLIENT_SHARE and len(loads) == math.ceil(n / CLIENT_SHARE)
    assert policy._clients == {}  # closed
