"""Rollouts a trainer can trust: one episode semantics, keyed runs, token data, saved deliverables, regrading.

Real env, real local sandbox, real checks judge, the policy (and a failing LLM judge) on the loopback
OpenAI-compatible server through the real ``openai`` client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jobenv.env import JobEnv
from jobenv.errors import JobenvError
from jobenv.rollout import (
    OpenAIChatPolicy,
    collect_sync,
    export_trajectories,
    read_trajectories,
    regrade_sync,
    summarize,
)
from jobenv.rollout.store import objects_dir
from tests.rollout.helpers import episode_lines
from tests.rollout.scripted import script_for
from tests.support.openai_server import OpenAIServer, Reply, completion_text, fake_tokens

ENV_KW = {"sandbox": "local", "judge": "checks"}
LS_READ = [{"name": "ls", "arguments": {"path": "task_folder"}},
           {"name": "read", "arguments": {"file_path": "task_folder/TASK_INSTRUCTIONS.txt"}}]


def _policy(srv: Any, model: str = "scripted-model", **kw: Any) -> OpenAIChatPolicy:
    kw.setdefault("max_retries", 1)
    kw.setdefault("temperature", 0.5)
    return OpenAIChatPolicy(model, base_url=srv.base_url, api_key="test-key", **kw)


def _calls(task: Any) -> list[dict[str, Any]]:
    return [c for turn in script_for(task) for c in turn]


def test_the_prompt_states_exactly_the_budget_the_run_allows(policy_server: Any, sample_tasks: list[Any]) -> None:
    """--max-steps 3 used to promise 4 tool calls; now the prompt's number is the env's, submit included."""
    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True)  # ls + read, then submit: 3 calls
    tid = [sample_tasks[0].id]
    t = collect_sync("jobenv/sample", _policy(srv), tasks=tid, env_kwargs=ENV_KW, max_steps=3, time_limit_s=300).trajectories[0]
    prompt = t.messages[0]["content"]
    assert "at most 3 tool calls (submit included)" in prompt and "about 300 seconds" in prompt
    assert "scores 0" in prompt  # the rule in force is stated
    assert (t.status, t.finish_reason, t.submitted, t.num_tool_calls) == ("ok", "submitted", True, 3)
    assert t.rules == {"max_steps": 3, "time_limit_s": 300.0, "on_truncate": "zero", "scoring": "strict", "tools": []}
    # one call fewer: the third call (submit) is the one the budget no longer allows
    t = collect_sync("jobenv/sample", _policy(srv), tasks=tid, env_kwargs=ENV_KW, max_steps=2).trajectories[0]
    assert "at most 2 tool calls" in t.messages[0]["content"]
    assert (t.status, t.finish_reason, t.submitted, t.num_tool_calls) == ("truncated", "max_steps", False, 2)


@pytest.mark.parametrize("on_truncate, want", [("zero", 0.0), ("grade", 1.0)])
def test_truncation_is_scored_the_same_in_the_env_and_in_rollouts(policy_server: Any, sample_tasks: list[Any],
                                                                   on_truncate: str, want: float) -> None:
    """An agent that does all the work but never submits: 0 under "zero" (the default), its graded output under
    "grade"; the plain env and a rollout agree (rollouts used to grade it to 1.0 with submitted=False)."""
    task = sample_tasks[0]
    calls = _calls(task)
    assert calls[-1]["name"] == "submit"
    budget = len(calls) - 1  # everything but the submit
    srv, _ = policy_server()
    t = collect_sync("jobenv/sample", _policy(srv), tasks=[task.id], env_kwargs=ENV_KW, max_steps=budget,
                     on_truncate=on_truncate).trajectories[0]
    assert (t.status, t.finish_reason, t.submitted, t.reward) == ("truncated", "max_steps", False, want)
    assert ("graded as it stands" if on_truncate == "grade" else "scores 0") in t.messages[0]["content"]
    assert (t.report is not None) == (on_truncate == "grade")

    env = JobEnv([task], env_id="jobenv/sample", judge="checks", max_steps=budget, on_truncate=on_truncate)  # type: ignore[arg-type]
    try:
        env.reset(options={"task_id": task.id})
        for call in calls[:-1]:
            _, reward, terminated, truncated, info = env.step(call)
        assert (terminated, truncated, reward, info["status"]) == (False, True, want, "truncated")
    finally:
        env.close()


def test_runs_of_several_models_and_configs_stay_apart(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True)
    ids = [t.id for t in sample_tasks[:2]]
    out = tmp_path / "t.jsonl"
    runs = [_policy(srv, "model-a"), _policy(srv, "model-b"), _policy(srv, "model-a", temperature=1.0)]
    for p in runs:
        res = collect_sync("jobenv/sample", p, tasks=ids, attempts=2, out=out, env_kwargs=ENV_KW)
        assert res.new == 4 and res.skipped == 0  # nothing of another model or config counts as done
    trajs = read_trajectories(out)
    assert len(trajs) == 12 and len({t.key for t in trajs}) == 12
    assert len({t.policy_id for t in trajs}) == 3
    s = summarize(trajs)
    assert s.models == ["model-a", "model-b"] and len(s.per_model) == 3
    assert sum(g.episodes for g in s.per_model.values()) == 12 and all(g.tasks == 2 for g in s.per_model.values())
    # a rerun of one of them resumes exactly its own episodes
    again = collect_sync("jobenv/sample", runs[1], tasks=ids, attempts=2, out=out, env_kwargs=ENV_KW)
    assert (again.new, again.skipped) == (0, 4) and {t.model for t in again.trajectories} == {"model-b"}


def test_token_ids_logprobs_and_sampling_parameters_are_recorded(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True)
    out = tmp_path / "t.jsonl"
    res = collect_sync("jobenv/sample", _policy(srv, logprobs=True, top_logprobs=2, seed=7), tasks=[sample_tasks[0].id],
                       out=out, env_kwargs=ENV_KW)
    (t,) = res.trajectories
    assert t.status == "ok" and len(t.completions) == t.num_turns == 2
    for c in t.completions:
        msg = t.messages[c.message_index]
        assert msg["role"] == "assistant"
        want = fake_tokens(completion_text(msg))
        assert want and c.token_ids == [i for i, _, _ in want] and c.logprobs == [lp for _, _, lp in want]
        assert c.tokens is None and c.finish_reason == "tool_calls" and c.completion_tokens == 5
    assert t.sampling == {"temperature": 0.5, "logprobs": True, "top_logprobs": 2, "seed": 7,
                          "extra_body": {"return_tokens_as_token_ids": True}}
    assert all(r["logprobs"] is True and r["return_tokens_as_token_ids"] is True and r["seed"] == 7 for r in srv.requests)
    # written to the file and read back intact
    (back,) = read_trajectories(out)
    assert back.completions == t.completions and back.sampling == t.sampling
    # without logprobs nothing is asked and nothing is stored
    srv2, _ = policy_server(prelude=[LS_READ], skip_solution=True)
    (t2,) = collect_sync("jobenv/sample", _policy(srv2), tasks=[sample_tasks[0].id], env_kwargs=ENV_KW).trajectories
    assert all(c.token_ids is None and c.logprobs is None for c in t2.completions)
    assert all("logprobs" not in r and "return_tokens_as_token_ids" not in r for r in srv2.requests)


def test_a_server_that_refuses_the_token_ids_field_is_asked_again_without_it(policy_server: Any, sample_tasks: list[Any],
                                                                             tmp_path: Path) -> None:
    # as OpenAI's API does: an unknown request field is a 400; the policy drops the optional field once, says so,
    # keeps asking for logprobs, and records what it sent
    refusal = (b'{"error": {"message": "Unrecognized request argument supplied: return_tokens_as_token_ids", '
               b'"type": "invalid_request_error"}}')

    def refuse(req: dict[str, Any], turn: int) -> Reply | None:
        return Reply(status=400, raw_body=refusal) if "return_tokens_as_token_ids" in req else None

    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True, fail=refuse)
    policy = _policy(srv, logprobs=True)
    with pytest.warns(UserWarning, match="return_tokens_as_token_ids"):
        (t,) = collect_sync("jobenv/sample", policy, tasks=[sample_tasks[0].id], env_kwargs=ENV_KW).trajectories
    assert t.status == "ok" and t.num_turns == 2
    assert t.sampling == {"temperature": 0.5, "logprobs": True}  # what was sent, without the refused field
    assert t.policy["dropped_fields"] == ["return_tokens_as_token_ids"]
    assert all(c.logprobs for c in t.completions)
    refused = [r for r in srv.requests if "return_tokens_as_token_ids" in r]
    assert len(refused) == 1  # detected once, for the whole run


def test_the_summary_says_what_the_first_error_of_each_kind_was(policy_server: Any, sample_tasks: list[Any]) -> None:
    from jobenv.rollout import summarize

    srv, _ = policy_server(fail=lambda req, turn: Reply(status=400, raw_body=b'{"error": {"message": "bad model"}}'))
    (t,) = collect_sync("jobenv/sample", _policy(srv), tasks=[sample_tasks[0].id], env_kwargs=ENV_KW).trajectories
    s = summarize([t])
    assert s.error_kinds == {"policy": 1} and "bad model" in s.first_errors["policy"]
    assert "\n" not in s.first_errors["policy"]


def test_a_light_episode_line_is_small_and_the_file_round_trips(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True)
    out = tmp_path / "t.jsonl"
    res = collect_sync("jobenv/sample", _policy(srv), tasks=[t.id for t in sample_tasks[:3]], attempts=2, out=out,
                       env_kwargs=ENV_KW)
    lines = out.read_text().splitlines()
    kinds = [json.loads(line)["record"] for line in lines]
    assert kinds.count("tools") == 1 and kinds.count("episode") == 6
    sizes = [len(line.encode()) for line in episode_lines(out)]
    assert max(sizes) < 4500, sizes
    # the reader gives back exactly what collect returned, tool schemas and full texts included
    back = {t.key: t for t in read_trajectories(out, full_reports=True)}
    for t in res.trajectories:
        b = back[t.key]
        assert b.messages == t.messages and b.tools == t.tools and b.report == t.report and b.reward == t.reward


def test_resume_reruns_errored_episodes_and_the_exit_status_says_errors(policy_server: Any, sample_tasks: list[Any],
                                                                         tmp_path: Path, jobenv_cli: Any) -> None:
    down, _ = policy_server(fail=lambda req, turn: Reply(status=401))
    out = tmp_path / "t.jsonl"
    ids = [t.id for t in sample_tasks[:2]]
    base = ["rollout", "jobenv/sample", "--model", "m", "--api-key", "k", "--tasks", *ids, "--judge", "checks", "--out", str(out)]
    proc = jobenv_cli(*base, "--base-url", down.base_url)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "2 episode(s) errored" in proc.stderr
    # the same command again: the errored episodes are not counted as done
    proc = jobenv_cli(*base, "--base-url", down.base_url, "--keep-errors")
    assert proc.returncode == 1 and "0 new episode(s), 2 resumed" in proc.stderr  # kept on request, still an error
    up, _ = policy_server()
    proc = jobenv_cli(*base, "--base-url", up.base_url)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "2 new episode(s), 0 resumed" in proc.stderr
    assert {t.status for t in read_trajectories(out)} == {"ok"}


def test_a_sandbox_that_cannot_start_fails_the_run_before_any_episode(policy_server: Any, tmp_path: Path,
                                                                      jobenv_cli: Any) -> None:
    srv, _ = policy_server()
    out = tmp_path / "t.jsonl"
    proc = jobenv_cli("rollout", "jobenv/sample", "--model", "m", "--base-url", srv.base_url, "--out", str(out),
                      "--sandbox", "docker", "--sandbox-image", "jobenv/no-such-image:never")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "docker sandbox cannot run episodes" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists() and not [r for r in srv.requests]


@pytest.mark.parametrize("flag, value, needle", [
    ("--max-steps", "0", "--max-steps: must be at least 1, got 0"),
    ("--attempts", "0", "--attempts: must be at least 1, got 0"),
    ("--concurrency", "0", "--concurrency: must be at least 1, got 0"),
    ("--base-url", "127.0.0.1:8000/v1", "is not an http(s) URL"),
])
def test_bad_cli_values_fail_before_any_work(flag: str, value: str, needle: str, policy_server: Any, tmp_path: Path,
                                             jobenv_cli: Any) -> None:
    srv, _ = policy_server()
    out = tmp_path / "t.jsonl"
    # the bad value comes last: argparse keeps the last of a repeated option
    proc = jobenv_cli("rollout", "jobenv/sample", "--model", "m", "--out", str(out), "--base-url", srv.base_url, flag, value)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and needle in proc.stderr, proc.stderr
    assert not out.exists() and srv.requests == []


def test_regrade_rejudges_saved_deliverables_without_the_policy(policy_server: Any, sample_tasks: list[Any],
                                                                 tmp_path: Path, jobenv_cli: Any) -> None:
    """A judge outage during the rollout costs a regrade, not a rollout."""
    srv, _ = policy_server()
    ids = [t.id for t in sample_tasks[:2]]
    out = tmp_path / "run.jsonl"
    with OpenAIServer(lambda req: Reply(status=500)) as judge_srv:
        opts = {"base_url": judge_srv.base_url, "api_key": "k", "model": "judge-model", "attempts": 1, "cache_dir": False}
        res = collect_sync("jobenv/sample", _policy(srv), tasks=ids, attempts=2, out=out,
                           env_kwargs={"sandbox": "local", "judge": "llm", "judge_options": opts})
    assert res.errors == 4 and all(t.error_kind == "grading" and t.deliverables for t in res.trajectories)
    for t in res.trajectories:  # each graded output is kept, content-addressed, next to the file
        assert t.deliverables is not None and all((objects_dir(out) / d[:2] / d).is_file() for d in t.deliverables.values())
    before = out.read_bytes()
    policy_calls = len(srv.requests)

    new = tmp_path / "regraded.jsonl"
    proc = jobenv_cli("regrade", str(out), "--out", str(new), "--judge", "checks")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "4 episode(s) regraded, 0 kept" in proc.stderr
    assert len(srv.requests) == policy_calls and out.read_bytes() == before  # no policy call; the run is untouched
    regraded = read_trajectories(new)
    assert len(regraded) == 4 and {(t.status, t.reward, t.finish_reason) for t in regraded} == {("ok", 1.0, "submitted")}
    assert all(t.regraded_at and "checks" in (t.versions["judge"] or "") for t in regraded)
    assert {t.key for t in regraded} == {t.key for t in res.trajectories}
    # the new file is a run like any other: it regrades again (official scoring) and keeps what was never graded
    again = regrade_sync(new, tmp_path / "official.jsonl", judge="checks", scoring="official")
    assert again.regraded == 4 and all(t.rules["scoring"] == "official" and t.reward == 1.0 for t in again.trajectories)
    with pytest.raises(JobenvError, match="exists"):
        regrade_sync(out, new, judge="checks")


def test_export_writes_one_plain_row_per_episode(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    import pandas as pd

    srv, _ = policy_server(fail=lambda req, turn: Reply(status=401))
    out = tmp_path / "t.jsonl"
    ids = [t.id for t in sample_tasks[:2]]
    collect_sync("jobenv/sample", _policy(srv), tasks=ids, attempts=2, out=out, env_kwargs=ENV_KW)
    good, _ = policy_server(prelude=[LS_READ], skip_solution=True)
    collect_sync("jobenv/sample", _policy(good), tasks=ids, attempts=2, out=out, env_kwargs=ENV_KW)
    assert len(episode_lines(out)) == 8  # the errored lines stay in the store
    export = tmp_path / "export.jsonl"
    assert export_trajectories(out, export) == 4
    df = pd.read_json(export, lines=True)
    assert len(df) == 4 and set(df["status"]) == {"ok"}
    assert df[["model", "policy_id", "task_id", "attempt"]].drop_duplicates().shape[0] == 4
    assert isinstance(df["messages"][0][0]["content"], str) and "content_ref" not in df["messages"][0][0]
    tools = json.loads((tmp_path / "export.tools.json").read_text())
    assert set(df["tools_id"]) == set(tools) and {s["function"]["name"] for s in next(iter(tools.values()))} >= {"bash", "submit"}


def test_overlapping_runs_are_warned_about(policy_server: Any, sample_tasks: list[Any], tmp_path: Path) -> None:
    import shutil

    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True)
    train = tmp_path / "train.jsonl"
    task = sample_tasks[0]
    collect_sync("jobenv/sample", _policy(srv), tasks=[task.id], out=train, env_kwargs=ENV_KW)
    # the same task, copied into a folder of one's own: another env id, the same task
    folder = tmp_path / "mytasks" / task.occupation / f"task{task.number}"
    shutil.copytree(task.root, folder)
    with pytest.warns(UserWarning, match="1 of the 1 tasks .* are the same tasks as jobenv/sample episodes"):
        res = collect_sync(str(tmp_path / "mytasks"), _policy(srv), env_kwargs=ENV_KW, disjoint_from=[train])
    (t,) = res.trajectories
    assert t.env_id == str(tmp_path / "mytasks") and t.status == "ok" and t.versions["dataset"]


def test_generated_train_and_evaluation_tasks_are_disjoint_and_versioned(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import jobenv
    from jobenv import registry
    from jobenv.rollout.collect import task_digest

    monkeypatch.setattr(registry, "DEFAULT_SYNTHETIC_TASKS", 3)  # small splits: the rule does not depend on size
    train = jobenv.load_tasks("jobtasks/train")
    evaluation = jobenv.load_tasks("jobenv/synthetic", n=3)  # the default seed
    assert len(train) == len(evaluation) == 3
    assert not {task_digest(t) for t in train} & {task_digest(t) for t in evaluation}
    assert train[0].revision and evaluation[0].revision and train[0].revision != evaluation[0].revision
    with pytest.raises(JobenvError, match="seed must be >= 0"):
        jobenv.load_tasks("jobenv/synthetic", seed=registry.TRAIN_STANDIN_SEED, n=3)
