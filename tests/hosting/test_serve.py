"""``jobenv serve`` driven over HTTP by the real ``openreward`` client.

Every response a client receives is collected and scanned: no rubric text or criterion may appear in any of them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import jobenv
from jobenv.tools import TOOL_PARAMS

from .serving import ServeProcess, strings_of

pytestmark = pytest.mark.timeout(300)

SAMPLE = "jobenvsample"


def sample_tasks() -> list[Any]:
    return jobenv.load_tasks("jobenv/sample")


def private_strings() -> list[str]:
    """Every rubric text and criterion of the sample split (long enough not to match by chance)."""
    out = []
    for t in sample_tasks():
        for r in t.rubrics:
            out.extend([r.text, *r.criteria])
    return [s for s in out if len(s.strip()) >= 12]


def assert_no_private(responses: list[Any]) -> None:
    blob = "\n".join(s for r in responses for s in strings_of(r))
    assert blob, "nothing was collected to scan"
    leaked = [p for p in private_strings() if p in blob]
    assert not leaked, f"private rubric text reached a client: {leaked[:3]}"


def solved_task_index() -> int:
    """Index of the first sample task that ships a reference solution and deterministic checks."""
    for i, t in enumerate(sample_tasks()):
        if t.solution is not None and (Path(t.solution) / "solve.py").is_file() and t.has_checks:
            return i
    pytest.fail("the sample split has no task with solution/solve.py and checks")


def solution_files(task: Any) -> dict[str, str]:
    """The reference solution's text files, keyed by path relative to solution/."""
    root = Path(task.solution)
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def env_handle(client: Any, serve: ServeProcess, variant: str = SAMPLE) -> Any:
    return client.environments.get("jobenv", variant=variant, base_url=serve.url)


def tool_error(fn: Any) -> Any:
    from openreward.api.errors import ToolCallError

    with pytest.raises(ToolCallError) as info:
        fn()
    return info.value


# ---------------------------------------------------------------------------------------------------------------


def test_only_routes_whose_tasks_load_are_served(serve: ServeProcess, orclient: Any) -> None:
    status, body = serve.get("/list_environments")
    assert status == 200
    # JobBench is not downloaded and the train stand-in not generated here: neither is served, each with one log line
    # that says how to fix it (start-up never generates); the default route (first) serves every split that loads
    assert json.loads(body) == ["jobenv", "jobenvsample"]
    assert env_handle(orclient, serve, "jobenv").list_splits() == ["sample"]
    for route, fix in (("jobbench", "jobenv download"), ("jobtasks", "`jobenv tasks jobtasks/train` generates")):
        skipped = [line for line in serve.jobenv_lines() if f"not serving /{route}" in line]
        assert len(skipped) == 1 and fix in skipped[0], serve.jobenv_lines()
    assert env_handle(orclient, serve, SAMPLE).list_splits() == ["sample"]
    status, body = serve.get("/jobtasks/splits")
    assert status == 404, body
    assert serve.status()["open_sandboxes"] == 0


def test_list_tasks_gives_public_specs_only(serve: ServeProcess, orclient: Any) -> None:
    tasks = env_handle(orclient, serve).list_tasks("sample")
    local = sample_tasks()
    assert [t.task_spec["id"] for t in tasks] == [t.id for t in local]
    for i, t in enumerate(tasks):
        assert dict(t.task_spec) == {"id": local[i].id, "occupation": local[i].occupation, "split": "sample", "index": i}
    status, raw = serve.post(f"/{SAMPLE}/tasks", {"split": "sample"})
    assert status == 200
    assert_no_private([tasks, raw])
    # the raw body carries no file paths of the host either (task folders, solutions)
    assert "solution" not in raw and "task_card" not in raw


def test_unknown_split_is_a_client_error(serve: ServeProcess, orclient: Any) -> None:
    status, body = serve.post(f"/{SAMPLE}/tasks", {"split": "nope"})
    assert status == 400
    # the server is unharmed
    assert env_handle(orclient, serve).list_splits() == ["sample"]


def test_tool_schemas_are_the_local_ones(serve: ServeProcess, orclient: Any) -> None:
    from openreward.api.environments.client import sanitize_tool_schema

    from jobenv.tools import OPTIONAL_TOOLS, tool_schemas

    local = {s["function"]["name"]: s["function"] for s in tool_schemas()}
    # what the server sends is exactly the local schema ...
    status, raw_body = serve.get(f"/{SAMPLE}/tools")
    served = {t["name"]: t for t in json.loads(raw_body)["tools"]}
    assert set(served) == set(local) == (set(TOOL_PARAMS) - set(OPTIONAL_TOOLS)) | {"submit"}
    for name, spec in local.items():
        assert served[name]["description"] == spec["description"], name
        assert served[name]["input_schema"] == spec["parameters"], name
    # ... none of pydantic's decorations (title, anyOf with null, null defaults) among it ...
    raw = json.dumps([served[n]["input_schema"] for n in served])
    assert '"title"' not in raw and '"anyOf"' not in raw and '"default": null' not in raw
    # ... and the client's OpenAI format is its usual rendering of the local schema
    hosted = {t["name"]: t for t in env_handle(orclient, serve).list_tools(format="openai")}
    for name, spec in local.items():
        assert hosted[name]["parameters"] == sanitize_tool_schema(spec["parameters"], "openai"), name
    assert "command" in hosted["bash"]["parameters"]["required"]


def test_reference_solution_earns_full_reward_then_session_is_finished(serve: ServeProcess, orclient: Any) -> None:
    idx = solved_task_index()
    task = sample_tasks()[idx]
    seen: list[Any] = []
    with env_handle(orclient, serve).session(split="sample", index=idx) as s:
        prompt = s.get_prompt()
        seen.append(prompt)
        text = "\n".join(b.text for b in prompt)
        assert task.instructions.strip()[:200] in text
        assert "/workspace/output" in text

        out = s.call_tool("bash", {"command": "ls task_folder && echo hello-from-sandbox"})
        seen.append(out)
        assert "hello-from-sandbox" in out.blocks[0].text and "TASK_INSTRUCTIONS.txt" in out.blocks[0].text
        assert out.finished is False and out.reward is None and out.metadata["status"] == "ok"

        out = s.call_tool("write", {"file_path": "notes/hello.txt", "content": "line one\nline two\n"})
        seen.append(out)
        assert out.metadata["status"] == "ok"
        out = s.call_tool("read", {"file_path": "notes/hello.txt"})
        seen.append(out)
        assert "line two" in out.blocks[0].text

        # the reference solution, written with the write tool and run with bash, as an agent would
        for rel, content in solution_files(task).items():
            seen.append(s.call_tool("write", {"file_path": f"solution/{rel}", "content": content}))
        out = s.call_tool("bash", {"command": "python3 solution/solve.py task_folder output && ls output",
                                   "timeout": 300})
        seen.append(out)
        assert out.metadata["status"] == "ok", out.blocks[0].text

        out = s.call_tool("submit", {})
        seen.append(out)
        assert out.finished is True
        assert out.reward == pytest.approx(1.0), out.metadata
        assert out.metadata["status"] == "ok"
        report = out.metadata["report"]
        assert report["normalized_score"] == pytest.approx(1.0)
        assert report["passed_count"] == report["total_count"] == len(task.rubrics)
        assert [r["index"] for r in report["rubrics"]] == list(range(len(task.rubrics)))
        assert all(set(r) <= {"index", "weight", "passed", "score", "status", "attempts", "cached", "parse_step",
                              "criteria_total", "criteria_passed", "error"} for r in report["rubrics"])
        credit = out.metadata["criteria"]  # one entry per criterion, no text (the rubric guard saw it all)
        assert len(credit) == sum(len(r.criteria) for r in task.rubrics) and all(c["passed"] for c in credit)
        assert sum(c["weight_share"] for c in credit) == pytest.approx(1.0, abs=1e-4)
        assert all(set(c) == {"rubric", "index", "passed", "weight_share", "grader", "failure"} for c in credit)

        err = tool_error(lambda: s.call_tool("bash", {"command": "echo again"}))
        assert err.reason == "episode_finished"
        err = tool_error(lambda: s.call_tool("submit", {}))
        assert err.reason == "episode_finished"
        seen.extend([str(err)])
    assert_no_private(seen)


def test_do_nothing_submission_scores_below_full(serve: ServeProcess, orclient: Any) -> None:
    idx = solved_task_index()
    with env_handle(orclient, serve).session(split="sample", index=idx) as s:
        out = s.call_tool("submit", {})
        assert out.finished is True
        assert out.metadata["status"] == "ok"
        assert out.reward is not None and out.reward < 1.0
        assert out.metadata["report"]["passed_count"] < out.metadata["report"]["total_count"]
        assert_no_private([out])


def _local_observations(actions: list[dict[str, Any]]) -> list[str]:
    """What the local env answers to ``actions`` on sample task 0 (the reference for the hosted answers)."""
    env = jobenv.make("jobenv/sample", judge="checks")
    try:
        env.reset(options={"index": 0})
        return [env.step(a)[0] for a in actions]
    finally:
        env.close()


BAD_CALLS = [
    {"name": "bash", "arguments": {}},
    {"name": "write", "arguments": {"file_path": "x.txt", "content": "a", "colour": "red"}},
    {"name": "no_such_tool", "arguments": {}},
    {"name": "read", "arguments": {"file_path": 42}},
]


def test_bad_arguments_and_unknown_tools_are_observations_like_the_local_env(serve: ServeProcess, orclient: Any) -> None:
    expected = _local_observations(BAD_CALLS)
    seen: list[Any] = []
    with env_handle(orclient, serve).session(split="sample", index=0) as s:
        for call, want in zip(BAD_CALLS, expected, strict=True):
            out = s.call_tool(call["name"], call["arguments"])
            seen.append(out)
            assert out.finished is False and out.reward is None, call
            assert out.metadata["status"] == "error" and out.metadata["ok"] is False, call
            assert out.blocks[0].text == want, call
        assert "unknown tool 'no_such_tool'" in seen[2].blocks[0].text
        # a mistake the tool itself reports (path outside the workspace) is an ordinary, unfinished output
        out = s.call_tool("read", {"file_path": "/etc/passwd"})
        seen.append(out)
        assert out.finished is False and out.metadata["status"] == "error" and "root:" not in out.blocks[0].text
        out = s.call_tool("bash", {"command": "echo still-alive"})
        seen.append(out)
        assert "still-alive" in out.blocks[0].text and out.finished is False
        assert out.metadata["step"] == len(BAD_CALLS) + 2  # every call counts as a step, as in the env
    assert_no_private(seen)


def test_a_toolset_cannot_add_tools(serve: ServeProcess, orclient: Any) -> None:
    from openreward.api._session.http import SessionResponseError

    with pytest.raises(SessionResponseError) as info:
        with env_handle(orclient, serve).session(split="sample", index=0, toolset="backsearch") as s:
            s.call_tool("web_search", {"query": "jobbench answers"})
    assert "not served here" in str(info.value) and "own tools" in str(info.value)
    # without a toolset the same client gets a session, and web tools are simply unknown
    with env_handle(orclient, serve).session(split="sample", index=0) as s:
        out = s.call_tool("web_search", {"query": "jobbench answers"})
        assert out.finished is False and "unknown tool 'web_search'" in out.blocks[0].text


def test_session_by_bad_spec_is_refused(serve: ServeProcess) -> None:
    status, body = serve.post("/create", {"env_name": SAMPLE, "task_spec": {"id": "nobody/task999", "split": "sample"}},
                              headers={"X-Session-ID": "bad-spec-session"})
    assert status == 500 and "nobody/task999" in body
    status, body = serve.post("/create", {"env_name": SAMPLE, "split": "sample", "index": 10_000},
                              headers={"X-Session-ID": "bad-index-session"})
    assert status == 400 and "Invalid index" in body


@pytest.mark.docker
def test_sandbox_failure_is_an_infrastructure_error_not_a_score(tmp_path: Path, orclient: Any) -> None:
    pytest.importorskip("docker")
    srv = ServeProcess(tmp_path, sandbox="docker", args=["--envs", "sample", "--sandbox-image", "jobenv-test:no-such-image"])
    try:
        with env_handle(orclient, srv).session(split="sample", index=0) as s:
            assert s.get_prompt()  # the prompt needs no sandbox
            out = s.call_tool("bash", {"command": "echo hi"})
            assert out.metadata["status"] == "error" and out.metadata["error_kind"] == "sandbox"
            assert "no-such-image" in out.blocks[0].text and out.blocks[0].text.startswith("Infrastructure error")
            assert out.finished is True and out.reward is None  # not a 0: nothing was graded
            err = tool_error(lambda: s.call_tool("submit", {}))
            assert err.reason == "episode_finished"
        assert srv.status()["open_sandboxes"] == 0
    finally:
        srv.stop()


def _judge_reply(request: dict[str, Any]) -> str:
    """An all-pass verdict for one rubric call, echoing the rubric wording (which must not reach the client)."""
    import re

    msg = request["messages"][-1]["content"]
    text = msg if isinstance(msg, str) else " ".join(p.get("text", "") for p in msg if isinstance(p, dict))
    n = int(re.search(r"judge all (\d+) of them", text).group(1))
    rubric_line = "RUBRIC: " + text.split("## Rubric\n", 1)[1].splitlines()[0]
    return json.dumps({
        "criteria_results": [{"index": i, "passed": True, "reasoning": rubric_line, "evidence": rubric_line}
                             for i in range(n)],
        "rubric_passed": True, "overall_reasoning": rubric_line,
    })


def test_llm_judge_is_checked_at_start_up_and_takes_the_key_from_session_secrets(tmp_path: Path, orclient: Any) -> None:
    from tests.support.openai_server import OpenAIServer

    idx = solved_task_index()
    task = sample_tasks()[idx]
    with OpenAIServer(_judge_reply) as judge_srv:
        env = {"JOBENV_SERVE_JUDGE": "llm", "JOBENV_JUDGE_BASE_URL": judge_srv.base_url,
               "JOBENV_JUDGE_MODEL": "test-model", "JOBENV_JUDGE_API_KEY": "", "JOBENV_JUDGE_CACHE": "0",
               "JOBENV_CACHE": str(tmp_path / "cache")}
        srv = ServeProcess(tmp_path, env=env, args=["--envs", "sample"])
        seen: list[Any] = []
        try:
            # the missing key is said at start-up, not first discovered at submit
            assert any("JOBENV_JUDGE_API_KEY" in line and "openai_api_key" in line for line in srv.jobenv_lines())
            handle = env_handle(orclient, srv)
            # a session without a key ends at its first call, as an infrastructure error, before any work
            with handle.session(split="sample", index=idx) as s:
                out = s.call_tool("write", {"file_path": "output/answer.md", "content": "my answer\n"})
                seen.append(out)
                assert out.finished is True and out.reward is None
                assert out.metadata["status"] == "error" and out.metadata["error_kind"] == "judge"
                assert "openai_api_key" in out.metadata["error"]
            assert judge_srv.requests == []
            assert srv.status()["open_sandboxes"] == 0
            # the session's openai_api_key configures the judge: one call per rubric, all passing
            with handle.session(split="sample", index=idx, secrets={"openai_api_key": "sk-session-key"}) as s:
                seen.append(s.call_tool("write", {"file_path": "output/answer.md", "content": "my answer\n"}))
                out = s.call_tool("submit", {})
                seen.append(out)
                assert out.metadata["status"] == "ok", out.metadata
                assert out.finished is True and out.reward == pytest.approx(1.0)
                assert out.metadata["report"]["judge_kind"] == "llm"
            assert len(judge_srv.requests) == len(task.rubrics)
        finally:
            srv.stop()
    assert_no_private(seen)


def test_judge_without_a_model_refuses_to_start(tmp_path: Path) -> None:
    env = {"JOBENV_SERVE_JUDGE": "llm", "JOBENV_JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "JOBENV_JUDGE_MODEL": "",
           "JOBENV_JUDGE_API_KEY": "k"}
    srv = ServeProcess(tmp_path, env=env, args=["--envs", "sample"], wait=False)
    assert srv.wait_exit() == 2
    errors = [line for line in srv.log().splitlines() if line.startswith("jobenv serve: error:")]
    assert len(errors) == 1 and "JOBENV_JUDGE_MODEL" in errors[0], srv.log()
    assert "Traceback" not in srv.log()


def test_concurrent_calls_on_one_session_each_get_their_own_result(serve: ServeProcess) -> None:
    import asyncio

    from openreward import AsyncOpenReward

    async def main() -> None:
        client = AsyncOpenReward(api_key="local-test-key")
        env = client.environments.get("jobenv", variant=SAMPLE, base_url=serve.url)
        try:
            async with env.session(split="sample", index=0) as s:
                await s.call_tool("write", {"file_path": "notes/a.txt", "content": "alpha-content\n"})
                calls = [s.call_tool("bash", {"command": f"echo token-{i}-$(( {i} * 7 ))"})
                         for i in range(4)]
                calls += [s.call_tool("read", {"file_path": "notes/a.txt"}), s.call_tool("ls", {"path": "task_folder"})]
                outs = await asyncio.gather(*calls)
                for i in range(4):
                    assert f"token-{i}-{i * 7}" in outs[i].blocks[0].text
                    assert all(f"token-{j}-" not in outs[i].blocks[0].text for j in range(4) if j != i)
                assert "alpha-content" in outs[4].blocks[0].text
                assert "TASK_INSTRUCTIONS.txt" in outs[5].blocks[0].text
                # submit waits for in-flight calls and then ends the episode
                results = await asyncio.gather(s.call_tool("bash", {"command": "echo last"}), s.call_tool("submit", {}),
                                               return_exceptions=True)
                assert any(getattr(r, "finished", False) for r in results)
        finally:
            await client.environments.aclose()

    asyncio.run(main())


def test_symlink_in_output_is_a_plain_zero(serve: ServeProcess, orclient: Any) -> None:
    with env_handle(orclient, serve).session(split="sample", index=0) as s:
        s.call_tool("write", {"file_path": "output/report.md", "content": "draft\n"})
        s.call_tool("bash", {"command": "ln -s /etc/passwd output/passwd.txt"})
        out = s.call_tool("submit", {})
    assert out.finished is True and out.reward == 0.0
    assert out.metadata["status"] == "ok" and out.metadata["refused_output"] == ["passwd.txt"]
    assert "root:" not in json.dumps(out.metadata)
