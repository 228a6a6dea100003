"""Hosted sessions keep the env's rules: step and time limits with the truncation rule, idle sessions closed, and
no rubric text in any response whatever characters the rubric holds. Real ``jobenv serve``, real client."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

import jobenv

from .serving import ServeProcess, strings_of

pytestmark = pytest.mark.timeout(300)

SAMPLE = "jobenvsample"


def env_handle(client: Any, serve: ServeProcess, variant: str = SAMPLE) -> Any:
    return client.environments.get("jobenv", variant=variant, base_url=serve.url)


def tool_error(fn: Any) -> Any:
    from openreward.api.errors import ToolCallError

    with pytest.raises(ToolCallError) as info:
        fn()
    return info.value


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = ServeProcess(tmp_path_factory.mktemp("limited"), args=["--envs", "sample", "--max-steps", "3",
                                                                 "--time-limit", "2", "--idle-timeout", "1.5"])
    try:
        yield srv
    finally:
        srv.stop()


def test_step_limit_ends_the_episode_with_the_truncation_rule(limited: ServeProcess, orclient: Any) -> None:
    with env_handle(orclient, limited).session(split="sample", index=0) as s:
        prompt = "\n".join(b.text for b in s.get_prompt())
        assert "3" in prompt  # the prompt states the budget, as the local prompt does
        first = s.call_tool("bash", {"command": "echo one"})
        second = s.call_tool("write", {"file_path": "output/a.md", "content": "partial\n"})
        assert first.finished is False and second.finished is False
        third = s.call_tool("bash", {"command": "echo three"})
        assert third.finished is True
        assert third.metadata["status"] == "truncated" and third.metadata["truncated_reason"] == "max_steps"
        assert third.reward == 0.0  # on_truncate=zero: a truncated episode scores 0, as in the env
        assert "three" in third.blocks[0].text  # the last call's output is still shown
        assert tool_error(lambda: s.call_tool("submit", {})).reason == "episode_finished"
    assert limited.status()["open_sandboxes"] == 0


def test_time_limit_ends_the_episode(limited: ServeProcess, orclient: Any) -> None:
    with env_handle(orclient, limited).session(split="sample", index=0) as s:
        out = s.call_tool("bash", {"command": "sleep 2.5; echo late"})
        assert out.finished is True and out.metadata["truncated_reason"] == "time_limit"
        assert out.reward == 0.0 and out.metadata["status"] == "truncated"


def test_prompt_matches_the_local_env(limited: ServeProcess, orclient: Any) -> None:
    env = jobenv.make("jobenv/sample", judge="checks", max_steps=3, time_limit_s=2)
    try:
        local_prompt, _ = env.reset(options={"index": 0})
    finally:
        env.close()
    with env_handle(orclient, limited).session(split="sample", index=0) as s:
        hosted = "\n".join(b.text for b in s.get_prompt())
    assert hosted == local_prompt


def test_python_tool_is_served_when_the_rules_enable_it(tmp_path: Path, orclient: Any) -> None:
    srv = ServeProcess(tmp_path, args=["--envs", "sample", "--tools", "python"])
    try:
        handle = env_handle(orclient, srv)
        assert "python" in {t["name"] for t in handle.list_tools(format="openai")}
        with handle.session(split="sample", index=0) as s:
            prompt = "\n".join(b.text for b in s.get_prompt())
            assert "python" in next(ln for ln in prompt.splitlines() if ln.startswith("Tools:"))
            first = s.call_tool("python", {"code": "kept = 6 * 7"})
            second = s.call_tool("python", {"code": "kept"})
            assert first.finished is False and second.blocks[0].text.strip() == "42"  # one interpreter per session
    finally:
        srv.stop()
    # and a server whose rules enable it on a backend without an interpreter does not start
    (tmp_path / "docker").mkdir()
    refused = ServeProcess(tmp_path / "docker", sandbox="docker", args=["--envs", "sample", "--tools", "python"],
                           wait=False)
    try:
        assert refused.wait_exit(60) == 2 and "python tool needs the local sandbox" in refused.log()
    finally:
        refused.stop()


def test_idle_session_is_closed_and_counted(limited: ServeProcess, orclient: Any) -> None:
    with env_handle(orclient, limited).session(split="sample", index=1) as s:
        s.call_tool("ls", {"path": "task_folder"})
        assert limited.status()["open_sandboxes"] == 1
        deadline = time.monotonic() + 20
        while limited.status()["open_sandboxes"] and time.monotonic() < deadline:
            time.sleep(0.3)
        assert limited.status()["open_sandboxes"] == 0, limited.jobenv_lines()
        closed = [line for line in limited.jobenv_lines() if "without a tool call" in line]
        assert closed and "(0 open)" in closed[-1], limited.jobenv_lines()
        out = s.call_tool("bash", {"command": "echo back"})
        assert out.finished is True and out.reward is None
        assert out.metadata["status"] == "error" and out.metadata["error_kind"] == "idle"
    opened = [line for line in limited.jobenv_lines() if "sandbox opened" in line]
    assert opened and opened[-1].endswith("(1 open)")


# ------------------------------------------------------------------------------------------ hostile rubrics

HOSTILE = [
    "Quotes the vendor's \"best and final\" rate of 4.2%\tfor {region!r} and \\path\\to\\file",
    "Ends with a backslash and a tab\t\\",
    "Naïve café résumé — «guillemets» and ‘curly quotes’ in the memo's summary line",
    "The memo's subject line reads 'Q3 variance: {fy}/{q}' exactly, with the braces",
]


def _hostile_tree(root: Path) -> Path:
    """A downloaded-looking jobtasks/train tree holding one task whose rubrics carry hostile characters."""
    src = jobenv.load_tasks("jobenv/sample")[0].root
    dest = root / "jobtasks" / "train" / "financial_managers" / "task1"
    shutil.copytree(src, dest)
    rubrics = {"rubrics": [{"rubric": text, "weight": 1, "criterion": [f"criterion of rubric {i}: {text[::-1]}"]}
                           for i, text in enumerate(HOSTILE)]}
    (dest / "RUBRICS.json").write_text(json.dumps(rubrics, ensure_ascii=False), encoding="utf-8")
    return root


def _variants(text: str) -> list[str]:
    """How a leaked rubric could look in a response: verbatim, repr-escaped, JSON-escaped, ASCII-escaped."""
    out = []
    for v in (text, repr(text)[1:-1], json.dumps(text)[1:-1], ascii(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]):
        out.extend([v, v[:40]])
    return [v for v in out if len(v) >= 12]


def test_hostile_rubric_text_never_reaches_a_client(tmp_path: Path, orclient: Any) -> None:
    from tests.support.openai_server import OpenAIServer

    def garbage(request: dict[str, Any]) -> str:
        msg = request["messages"][-1]["content"]
        text = msg if isinstance(msg, str) else " ".join(p.get("text", "") for p in msg if isinstance(p, dict))
        return "not json at all; the rubric was: " + text[-400:]  # an unparseable reply quoting the prompt

    data = _hostile_tree(tmp_path / "data")
    with OpenAIServer(garbage) as judge_srv:
        env = {"JOBENV_SERVE_JUDGE": "llm", "JOBENV_JUDGE_BASE_URL": judge_srv.base_url, "JOBENV_JUDGE_MODEL": "m",
               "JOBENV_JUDGE_API_KEY": "k", "JOBENV_JUDGE_CACHE": "0", "JOBENV_CACHE": str(tmp_path / "cache")}
        srv = ServeProcess(tmp_path, env=env, data_dir=data, args=["--envs", "jobtasks"])
        try:
            seen: list[Any] = []
            handle = env_handle(orclient, srv, "jobtasks")
            seen.append(handle.list_tasks("train"))
            with handle.session(split="train", index=0) as s:
                seen.append(s.get_prompt())
                seen.append(s.call_tool("write", {"file_path": "output/memo.md", "content": "Q3 memo\n"}))
                out = s.call_tool("submit", {})
                seen.append(out)
            assert judge_srv.requests, "the judge was never asked"
            assert out.finished is True and out.metadata["status"] == "error" and out.reward is None
            for _, raw in (srv.get("/jobtasks/tools"), srv.post("/jobtasks/tasks", {"split": "train"})):
                seen.append(raw)
        finally:
            srv.stop()
    blob = "\n".join(x for r in seen for x in strings_of(r))
    report_error = out.metadata["report"]["error"]
    assert "withheld" in report_error  # the error named the rubrics, so it is replaced whole
    private = HOSTILE + [f"criterion of rubric {i}: {t[::-1]}" for i, t in enumerate(HOSTILE)]
    leaks = [v for p in private for v in _variants(p) if v in blob]
    assert not leaks, f"rubric text reached a client: {leaks[:3]}"
