"""JobEnv: reset, prompt, action formats, malformed actions, submit/grading, truncation, close."""

from __future__ import annotations

import json
import time

import gymnasium
import pytest

from jobenv.env import AnyText, JobEnv, ToolCallSpace, parse_action
from jobenv.errors import ConfigError, JudgeConfigError, SandboxError, TaskFormatError


@pytest.fixture
def env(mini_tasks):
    e = JobEnv(mini_tasks, judge="checks", max_steps=20)
    yield e
    e.close()


def test_reset_prompt_carries_every_wrapper_point(env, mini_tasks):
    obs, info = env.reset(options={"task_id": "analysts/task2"})
    assert info["task_id"] == "analysts/task2" and info["split"] == "mini" and info["uid"] == "mini/analysts/task2"
    assert [s["function"]["name"] for s in info["tool_schemas"]][-1] == "submit"
    low = obs.lower()
    # every point of "What the agent is told" (jobbench.md), in jobenv's wording
    assert "/workspace/task_folder" in obs and "/workspace/output" in obs
    assert "task_instructions.txt" in low and "reference file" in low
    assert "complete the task" in low
    assert "only your final deliverables" in low and "scratch" in low
    assert "stay inside /workspace" in low
    assert "conflict" in low and "ambiguous" in low and "explain" in low
    assert all(ext in low for ext in ("xlsx", "docx", "pptx", ".db")) and "code" in low
    assert "modify a database or a workbook" in low and "final modified copy" in low
    assert "submit" in low and "20 tool calls" in obs
    # the instructions themselves, unicode intact
    assert "Total the sales (ünïcödé ✓ 数据)." in obs
    assert env.observation_space.contains(obs)


def test_seeded_choice_index_and_unknown_task(env):
    picks = [env.reset(seed=s)[1]["task_id"] for s in (1, 2, 3, 1)]
    assert picks[0] == picks[3]
    assert len({env.reset(seed=s)[1]["task_id"] for s in range(12)}) > 1  # the seed really chooses
    assert env.reset(options={"index": 2})[1]["task_id"] == "clerks/task1"
    assert env.reset(options={"task_id": "analysts__task1"})[1]["task_id"] == "analysts/task1"
    assert env.reset(options={"task_id": "mini/clerks/task1"})[1]["task_id"] == "clerks/task1"
    with pytest.raises(TaskFormatError, match="no task"):
        env.reset(options={"task_id": "analysts/task9"})
    with pytest.raises(TaskFormatError, match="out of range"):
        env.reset(options={"index": 3})


def _openai_tool_call(name: str, args: dict):
    from openai.types.chat import ChatCompletionMessageToolCall

    return ChatCompletionMessageToolCall.model_validate(
        {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    )


def test_action_format_variants(env):
    env.reset(options={"index": 0})
    args = {"command": "echo fmt-ok"}
    variants = [
        {"name": "bash", "arguments": args},
        {"name": "bash", "arguments": json.dumps(args)},
        {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": json.dumps(args)}},
        _openai_tool_call("bash", args),
        json.dumps({"name": "bash", "arguments": args}),
        json.dumps({"type": "function", "function": {"name": "bash", "arguments": json.dumps(args)}}),
        {"type": "tool_use", "name": "bash", "input": args},
        [{"name": "bash", "arguments": args}],
        {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "bash", "arguments": json.dumps(args)}}]},
    ]
    for i, action in enumerate(variants):
        assert env.action_space.contains(action), i
        obs, reward, term, trunc, info = env.step(action)
        assert "fmt-ok" in obs and info["ok"] and info["tool"] == "bash", (i, obs)
        assert (reward, term, trunc) == (0.0, False, False)
    assert env.steps == len(variants)
    # an OpenAI message object with one tool call
    from openai.types.chat import ChatCompletionMessage

    msg = ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "tool_calls": [_openai_tool_call("ls", {}).model_dump()]}
    )
    assert parse_action(msg) == ("ls", {})
    assert parse_action({"name": "submit"}) == ("submit", {})
    assert parse_action({"name": "submit", "arguments": ""}) == ("submit", {})


@pytest.mark.parametrize(
    "action, expect",
    [
        ("{not json", "not valid JSON"),
        ("", "empty"),
        (None, "empty"),
        (42, "names no tool"),
        ('"bash"', "bare string"),
        ({"arguments": {}}, "names no tool"),
        ({"name": "bash", "arguments": "{bad"}, "not valid JSON"),
        ({"name": "bash", "arguments": [1, 2]}, "JSON object"),
        ([{"name": "ls"}, {"name": "ls"}], "exactly one tool call"),
        ({"name": "launch_missiles", "arguments": {}}, "unknown tool"),
        ({"name": "bash", "arguments": {"cmd": "ls"}}, "invalid arguments for bash"),
        ({"tool_calls": []}, "no tool call"),
    ],
)
def test_malformed_actions_explain_and_cost_a_step(env, action, expect):
    env.reset(options={"index": 0})
    obs, reward, term, trunc, info = env.step(action)
    assert expect in obs
    assert "Error" in obs and (reward, term, trunc) == (0.0, False, False)
    assert info["ok"] is False and info["step"] == 1 and env.steps == 1


def test_submit_grades_full_partial_and_empty(env):
    results = {}
    for label, content in (("full", "Total sales: 200\n"), ("partial", "Total sales: unknown\n"), ("empty", None)):
        env.reset(options={"index": 0})
        if content is not None:
            obs, *_ = env.step({"name": "write", "arguments": {"file_path": "output/report.md", "content": content}})
            assert "Wrote" in obs
        obs, reward, term, trunc, info = env.step({"name": "submit", "arguments": {}})
        assert term and not trunc and info["status"] == "ok"
        assert info["report"]["normalized_score"] == reward
        results[label] = reward
        # the episode is over: further steps say so and never raise
        obs2, r2, t2, tr2, info2 = env.step({"name": "bash", "arguments": {"command": "true"}})
        assert "episode is over" in obs2 and t2 and r2 == 0.0
        assert env.sandbox is None  # released as soon as the episode ended
    # a report that exists but answers nothing is a placeholder: existence alone earns no credit
    assert results == {"full": 1.0, "partial": 0.0, "empty": 0.0}


def test_grading_infrastructure_error_gives_no_credit(mini_tasks):
    from tests.support.openai_server import OpenAIServer, Reply

    with OpenAIServer(lambda req: Reply(status=500, content="boom")) as srv:
        env = JobEnv(
            mini_tasks, judge="llm", max_steps=5,
            judge_options={"base_url": srv.base_url, "api_key": "k", "model": "m", "attempts": 1, "backoff_s": 0.0,
                           "cache_dir": False},
        )
        try:
            env.reset(options={"index": 0})
            env.step({"name": "write", "arguments": {"file_path": "output/report.md", "content": "Total: 200"}})
            obs, reward, term, trunc, info = env.step({"name": "submit"})
        finally:
            env.close()
    assert term and not trunc
    assert reward == 0.0 and info["status"] == "error" and info["report"]["status"] == "error"
    assert info["error"] and "no credit" in obs


def test_llm_judge_without_configuration_fails_at_construction(mini_tasks):
    with pytest.raises(JudgeConfigError):
        JobEnv(mini_tasks, judge="llm")


def test_truncation_by_steps(mini_tasks):
    env = JobEnv(mini_tasks, judge="checks", max_steps=3)
    try:
        env.reset(options={"index": 0})
        env.step({"name": "write", "arguments": {"file_path": "output/report.md", "content": "200"}})
        out = env.step({"name": "bash", "arguments": {"command": "true"}})
        assert out[2:4] == (False, False)
        obs, reward, term, trunc, info = env.step({"name": "ls", "arguments": {}})
        assert (reward, term, trunc) == (0.0, False, True)
        assert info["truncated_reason"] == "max_steps" and "scores 0" in obs
        # a truncated episode never grades, even with a perfect output on disk
        obs, reward, term, trunc, info = env.step({"name": "submit"})
        assert reward == 0.0 and "episode is over" in obs
    finally:
        env.close()


def test_truncation_grade_rule_grades_the_output_as_it_stands(mini_tasks):
    env = JobEnv(mini_tasks, judge="checks", max_steps=2, on_truncate="grade")
    try:
        obs, info = env.reset(options={"index": 0})
        assert "at most 2 tool calls" in obs and "graded as it stands" in obs and info["on_truncate"] == "grade"
        env.step({"name": "write", "arguments": {"file_path": "output/report.md", "content": "Total: 200"}})
        obs, reward, term, trunc, info = env.step({"name": "ls", "arguments": {}})
        assert (reward, term, trunc) == (1.0, False, True)
        assert info["status"] == "truncated" and info["truncated_reason"] == "max_steps"
        assert info["report"]["normalized_score"] == 1.0 and "graded as it stands" in obs
        # the same output under the default rule earns nothing
        zero = JobEnv(mini_tasks, judge="checks", max_steps=2)
        try:
            zero.reset(options={"index": 0})
            zero.step({"name": "write", "arguments": {"file_path": "output/report.md", "content": "Total: 200"}})
            assert zero.step({"name": "ls", "arguments": {}})[1:4] == (0.0, False, True)
        finally:
            zero.close()
    finally:
        env.close()


def test_truncation_by_time_cuts_a_long_command(mini_tasks):
    env = JobEnv(mini_tasks, judge="checks", max_steps=None, time_limit_s=1.5)
    try:
        env.reset(options={"index": 0})
        t0 = time.monotonic()
        obs, reward, term, trunc, info = env.step({"name": "bash", "arguments": {"command": "sleep 20"}})
        took = time.monotonic() - t0
        assert trunc and not term and reward == 0.0 and info["truncated_reason"] == "time_limit"
        assert took < 8, took  # the episode deadline bounded the command
    finally:
        env.close()


def test_step_before_reset_and_close_semantics(mini_tasks):
    env = JobEnv(mini_tasks, judge="checks")
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step({"name": "ls"})
    env.reset(options={"index": 0})
    first = env.sandbox
    env.reset(options={"index": 1})
    assert env.sandbox is not first  # a fresh sandbox per episode
    env.step({"name": "todo_write", "arguments": {"todos": [{"content": "a"}]}})
    assert env.todos and env.todos[0]["content"] == "a"
    env.close()
    env.close()  # idempotent
    assert env.sandbox is None
    obs, _ = env.reset(options={"index": 2})  # usable again after close
    assert "Report the total." in obs
    env.close()


def test_constructor_errors(mini_tasks):
    with pytest.raises(TaskFormatError):
        JobEnv([], judge="checks")
    with pytest.raises(TaskFormatError, match=r"jobenv\.make"):
        JobEnv("jobenv/sample")  # an id is loaded by the registry, never by the env
    with pytest.raises(ConfigError, match="max_steps"):
        JobEnv(mini_tasks, judge="checks", max_steps=0)
    with pytest.raises(ConfigError, match="on_truncate"):
        JobEnv(mini_tasks, judge="checks", on_truncate="maybe")  # type: ignore[arg-type]
    with pytest.raises(SandboxError, match="unknown sandbox backend"):
        JobEnv(mini_tasks, judge="checks", sandbox="dockr")


def test_spaces_accept_any_unicode_and_tool_calls():
    space = AnyText()
    for s in ("", "plain", "数据 ✓ émoji 🎉", "\x00\n\t"):
        assert space.contains(s)
    assert not space.contains(b"bytes") and not space.contains(3)
    space.seed(0)
    samples = [space.sample() for _ in range(50)]
    assert all(space.contains(x) for x in samples) and any(ord(c) > 0x2FF for x in samples for c in x)
    acts = ToolCallSpace()
    acts.seed(0)
    assert all(acts.contains(acts.sample()) for _ in range(20))
    assert all(acts.sample()["name"] != "submit" for _ in range(50))
    assert not acts.contains({"name": "nope"}) and not acts.contains("garbage")


def test_submit_after_the_time_limit_earns_nothing(mini_tasks):
    env = JobEnv(mini_tasks, judge="checks", max_steps=None, time_limit_s=0.8)
    try:
        env.reset(options={"index": 0})
        obs, *_ = env.step({"name": "write", "arguments": {"file_path": "output/report.md", "content": "Total 200"}})
        assert "Wrote" in obs
        time.sleep(0.9)
        obs, reward, term, trunc, info = env.step({"name": "submit"})
        assert (reward, term, trunc) == (0.0, False, True)
        assert info["truncated_reason"] == "time_limit" and "report" not in info
    finally:
        env.close()


def test_sync_api_works_from_inside_a_running_loop(mini_tasks):
    # e.g. a notebook cell: the thread's loop is busy, the env drives its own loop on a helper thread
    import asyncio

    async def main():
        env = JobEnv(mini_tasks, judge="checks")
        try:
            obs, info = env.reset(options={"index": 0})
            out = env.step({"name": "bash", "arguments": {"command": "echo inside-loop"}})
            return info, out
        finally:
            env.close()

    info, out = asyncio.run(main())
    assert info["task_id"] == "analysts/task1" and "inside-loop" in out[0]


def test_prompt_variants(mini_tasks):
    from jobenv.episode import EpisodeRules
    from jobenv.episode.prompt import build_prompt

    online = build_prompt(mini_tasks[0], network=True, rules=EpisodeRules(max_steps=None, time_limit_s=600))
    offline = build_prompt(mini_tasks[0], include_instructions=False)
    assert "look up public information online" in online and "600 seconds" in online
    assert "no internet access" in offline and "tool calls" not in offline
    stepped = build_prompt(mini_tasks[0], rules=EpisodeRules(max_steps=7, on_truncate="grade"))
    assert "at most 7 tool calls" in stepped and "graded as it stands" in stepped
    assert "scores 0" in build_prompt(mini_tasks[0], rules=EpisodeRules(max_steps=7))
    assert "Write output/report.md stating the total sales." not in offline
    assert "Write output/report.md stating the total sales." in online


def test_sandbox_factory_and_single_use_instance(mini_tasks):
    from jobenv.errors import SandboxError
    from jobenv.sandbox import make_sandbox

    made = []

    def factory():
        made.append(make_sandbox("local"))
        return made[-1]

    env = JobEnv(mini_tasks, judge="checks", sandbox=factory)
    try:
        env.reset(options={"index": 0})
        env.step({"name": "todo_write", "arguments": {"todos": [{"content": "plan"}]}})
        env.step({"name": "submit"})
        assert env.todos[0]["content"] == "plan"  # still readable after the episode ended
        env.reset(options={"index": 1})
        assert len(made) == 2 and env.sandbox is made[1] and env.todos == []
    finally:
        env.close()
    env = JobEnv(mini_tasks, judge="checks", sandbox=make_sandbox("local"))
    try:
        env.reset(options={"index": 0})
        with pytest.raises(SandboxError, match="one episode"):
            env.reset(options={"index": 0})
    finally:
        env.close()
