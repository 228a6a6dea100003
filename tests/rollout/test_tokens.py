"""Token-exact trajectories: the engine's own ids stitched into sequences with loss masks.

The loopback server plays a vLLM-like engine with a stand-in chat template (``template_ids``): prompt ids
in the reply (``return_token_ids``), or from ``/tokenize`` when an older engine ignores the field. The
sequences are checked against the template rendered independently from the trajectory's messages.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jobenv.errors import JobenvError
from jobenv.rollout import OpenAIChatPolicy, Trajectory, collect_sync, export_trajectories, read_trajectories
from tests.support.openai_server import Reply, completion_text, fake_tokens, template_ids

ENV_KW = {"sandbox": "local", "judge": "checks"}
LS_READ = [{"name": "ls", "arguments": {"path": "task_folder"}},
           {"name": "read", "arguments": {"file_path": "task_folder/TASK_INSTRUCTIONS.txt"}}]


def _policy(srv: Any, **kw: Any) -> OpenAIChatPolicy:
    return OpenAIChatPolicy("scripted-model", base_url=srv.base_url, api_key="k", max_retries=1, temperature=0.5, **kw)


def _ids(text: str) -> list[int]:
    return [t for t, _, _ in fake_tokens(text)]


def _assert_exact(t: Trajectory) -> None:
    """One segment, equal to the template rendered from the messages, masked on the sampled tokens only."""
    (seg,) = t.token_segments()
    last = t.completions[-1]
    want = template_ids(t.messages[:last.message_index], t.tools) + _ids(completion_text(t.messages[last.message_index]))
    assert seg.token_ids == want
    assert len(seg.loss_mask) == len(seg.logprobs) == len(seg.token_ids)
    model = [s for s in seg.spans if s.source == "model"]
    assert [s.first_message for s in model] == [c.message_index for c in t.completions]
    for s in model:  # each model span is exactly that assistant message's sampled tokens, logprobs included
        assert seg.token_ids[s.start:s.end] == _ids(completion_text(t.messages[s.first_message]))
        assert all(seg.loss_mask[s.start:s.end]) and None not in seg.logprobs[s.start:s.end]
    assert sum(seg.loss_mask) == sum(s.end - s.start for s in model)
    env = [s for s in seg.spans if s.source == "env"]
    assert env[0].start == 0 and env[0].first_message == 0 and all(seg.logprobs[s.start] is None for s in env)
    # stored once: each turn keeps only the ids it adds, so the line grows linearly with the episode
    stored = sum(len(c.prompt_new_ids or c.prompt_token_ids or []) + len(c.token_ids or []) for c in t.completions)
    assert stored == len(seg.token_ids)
    assert t.completions[0].prompt_token_ids and all(c.prompt_new_ids for c in t.completions[1:])


def test_the_cli_records_engine_tokens_and_the_export_carries_loss_masks(policy_server: Any, sample_tasks: list[Any],
                                                                         tmp_path: Path) -> None:
    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True)
    out = tmp_path / "t.jsonl"
    proc = subprocess.run([sys.executable, "-m", "jobenv.cli", "rollout", "jobenv/sample", "--model", "scripted-model",
                           "--base-url", srv.base_url, "--api-key", "k", "--tasks", sample_tasks[0].id, "--judge",
                           "checks", "--sandbox", "local", "--tokens", "--attempts", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    first, t = sorted(read_trajectories(out), key=lambda x: x.attempt)
    assert t.status == "ok" and t.num_turns == 2 and first.attempt == 0 and t.attempt == 1
    _assert_exact(first)
    _assert_exact(t)
    # the first prompt's ids (the task's shared prefix) are stored once in the file, by hash; the episode lines
    # refer to them and stay small
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    (shared,) = [r for r in lines if r.get("record") == "ids"]
    assert shared["ids"] == t.completions[0].prompt_token_ids == first.completions[0].prompt_token_ids
    episodes = [line for line in out.read_text().splitlines() if json.loads(line).get("record", "episode") == "episode"]
    assert len(episodes) == 2
    for line in episodes:
        assert json.loads(line)["completions"][0]["prompt_ids_ref"] == shared["id"]
        assert len(line.encode()) <= 8 * 1024 and json.dumps(shared["ids"][:40])[1:-1] not in line
    assert all(r.get("return_token_ids") is True and r.get("logprobs") is True for r in srv.requests)
    assert srv.tokenize_requests == []  # the reply carried the prompt ids
    export = tmp_path / "x.jsonl"
    export_trajectories(out, export)
    (row,) = [r for r in map(json.loads, export.read_text().splitlines()) if r["attempt"] == 1]
    (seg,) = row["token_segments"]
    assert seg["token_ids"] == t.token_segments()[0].token_ids and seg["loss_mask"] == t.token_segments()[0].loss_mask


def test_an_engine_that_ignores_the_field_is_completed_by_its_tokenize(policy_server: Any, sample_tasks: list[Any]) -> None:
    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True, server={"engine_ids": False})
    (t,) = collect_sync("jobenv/sample", _policy(srv, tokens=True), tasks=[sample_tasks[0].id], env_kwargs=ENV_KW).trajectories
    assert t.status == "ok"
    _assert_exact(t)  # completion ids from the as-id logprobs, prompt ids from /tokenize: the same sequence
    assert len(srv.tokenize_requests) == t.num_turns
    assert all(r["add_generation_prompt"] is True and r["tools"] and r["model"] == "scripted-model"
               for r in srv.tokenize_requests)


def test_a_refused_field_is_dropped_and_tokenize_takes_over(policy_server: Any, sample_tasks: list[Any]) -> None:
    refusal = b'{"error": {"message": "Unrecognized request argument supplied: return_token_ids", "type": "invalid_request_error"}}'
    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True,
                           fail=lambda req, turn: Reply(status=400, raw_body=refusal) if "return_token_ids" in req else None)
    with pytest.warns(UserWarning, match="return_token_ids"):
        (t,) = collect_sync("jobenv/sample", _policy(srv, tokens=True), tasks=[sample_tasks[0].id],
                            env_kwargs=ENV_KW).trajectories
    assert t.status == "ok" and t.policy["dropped_fields"] == ["return_token_ids"]
    assert t.sampling["extra_body"] == {"return_tokens_as_token_ids": True}
    _assert_exact(t)


def test_a_template_that_rewrites_history_gives_one_segment_per_turn(policy_server: Any, sample_tasks: list[Any]) -> None:
    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True, server={"rewrite_history": True})
    (t,) = collect_sync("jobenv/sample", _policy(srv, tokens=True), tasks=[sample_tasks[0].id], env_kwargs=ENV_KW).trajectories
    segs = t.token_segments()
    assert len(segs) == len(t.completions) == 2
    for seg, c in zip(segs, t.completions, strict=True):
        completion = _ids(completion_text(t.messages[c.message_index]))
        assert seg.token_ids == template_ids(t.messages[:c.message_index], t.tools, rewrite_history=True) + completion
        assert seg.loss_mask == [0] * (len(seg.token_ids) - len(completion)) + [1] * len(completion)


def test_without_any_engine_ids_the_episode_runs_and_the_sequences_say_why_not(policy_server: Any,
                                                                              sample_tasks: list[Any]) -> None:
    srv, _ = policy_server(prelude=[LS_READ], skip_solution=True, server={"engine_ids": False, "tokenize": False})
    policy = _policy(srv, tokens=True)
    with pytest.warns(UserWarning, match="/tokenize"):
        (t,) = collect_sync("jobenv/sample", policy, tasks=[sample_tasks[0].id], env_kwargs=ENV_KW).trajectories
    assert t.status == "ok" and "/tokenize" in t.policy["dropped_fields"]
    assert all(c.token_ids and c.prompt_token_ids is None for c in t.completions)
    with pytest.raises(JobenvError, match="turn 0 has no engine token ids"):
        t.token_segments()
    # without tokens asked, nothing token-level is recorded
    srv2, _ = policy_server(prelude=[LS_READ], skip_solution=True)
    (t2,) = collect_sync("jobenv/sample", _policy(srv2), tasks=[sample_tasks[0].id], env_kwargs=ENV_KW).trajectories
    assert "return_token_ids" not in srv2.requests[0] and all(c.prompt_new_ids is None for c in t2.completions)
    with pytest.raises(JobenvError, match="no engine token ids"):
        t2.token_segments()
