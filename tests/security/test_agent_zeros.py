"""What the agent can cause is the agent's zero, never an error a trainer drops (issue: security v3).

Each path is driven for real: names that escape alike in a real export (both backends), a sandbox that dies under
an episode (both backends), and an LLM judge on loopback that refuses an over-long request or is made to stray by
the deliverables. The counterparts stay errors: a judge that answers nothing valid at all, a 400 that is not about
length.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from jobenv.env import JobEnv
from jobenv.judge import LLMJudge
from jobenv.sandbox import Sandbox, make_sandbox
from tests.judge.conftest import make_task as make_judge_task
from tests.judge.conftest import n_criteria, rubric_of, verdict
from tests.sandbox.fixtures import run
from tests.security.episodes import make_task
from tests.support.openai_server import OpenAIServer, Reply


# --------------------------------------------------------------------------- escaped names
def test_names_that_escape_alike_are_exported_apart(new_sandbox, tmp_path: Path) -> None:
    """``d\\xff`` spelled with a backslash and a folder named with the byte 0xFF: both exported, apart."""

    async def body() -> Path:
        sb = await new_sandbox()
        r = await sb.run("cd output && printf text > 'd\\xff' && mkdir \"$(printf 'd\\377')\" && "
                         "printf inner > \"$(printf 'd\\377')/f.txt\" && printf b > 'a\\b' && ls | wc -l")
        assert r.output.strip() == "3", r.output
        return await sb.export_output(tmp_path / "out")

    out = run(body())
    names = sorted(p.name for p in out.iterdir() if p.name != ".jobenv_rejected.json")
    assert names == ["a\\x5cb", "d\\x5cxff", "d\\xff"], names
    assert (out / "d\\x5cxff").read_text() == "text"
    assert (out / "d\\xff" / "f.txt").read_text() == "inner"
    assert json.loads((out / ".jobenv_rejected.json").read_text()) == []


# --------------------------------------------------------------------------- a sandbox that dies
def _kill(sb: Sandbox) -> None:
    """What the OOM killer would do to the sandbox's first process."""
    if sb.name == "local":
        os.kill(sb._state["agent_pid"], signal.SIGKILL)  # type: ignore[attr-defined]
    else:
        sb._state["client"].api.kill(sb._cid)  # type: ignore[attr-defined]


def test_a_sandbox_that_dies_is_the_agents_zero(backend: str, sandbox_options: dict[str, Any], tmp_path: Path) -> None:
    made: list[Sandbox] = []

    def factory() -> Sandbox:
        sb = make_sandbox(backend, **sandbox_options)
        made.append(sb)
        return sb

    env = JobEnv([make_task(tmp_path)], judge="checks", sandbox=factory, max_steps=10)
    try:
        env.reset(options={"index": 0})
        obs, *_ = env.step({"name": "bash", "arguments": {"command": "echo 'Total: 200' > output/report.md"}})
        _kill(made[0])
        obs, reward, term, trunc, info = env.step({"name": "bash", "arguments": {"command": "ls output"}})
        assert not (term or trunc) and "died" in obs.lower(), obs
        obs, reward, term, _, info = env.step({"name": "submit", "arguments": {}})
    finally:
        env.close()
    assert term and reward == 0.0
    assert info["status"] == "ok", info  # kept by trainers, not dropped
    assert "sandbox died" in obs


# --------------------------------------------------------------------------- the judge broken by the deliverables
def _judge(srv: OpenAIServer) -> LLMJudge:
    return LLMJudge(base_url=srv.base_url, api_key="k", model="judge-m", backoff_s=0.01, cache_dir=False)


TOO_LONG = json.dumps({"error": {"message": "This model's maximum context length is 8192 tokens. However, your "
                                            "messages resulted in 150301 tokens.", "type": "invalid_request_error"}})


@pytest.fixture
def long_output(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    (out / "memo.md").write_text("Q3 total: 41,250\n" + "padding line\n" * 20_000)
    return out


RUBRICS = [{"rubric": "States the Q3 total", "weight": 5, "criterion": ["Gives 41,250"]},
           {"rubric": "Names the currency", "weight": 5, "criterion": ["Says USD"]}]


def test_a_request_too_long_for_the_judge_is_a_graded_zero(tmp_path: Path, long_output: Path) -> None:
    task = make_judge_task(tmp_path, RUBRICS)
    with OpenAIServer(lambda req: Reply(status=400, raw_body=TOO_LONG.encode())) as srv:
        rep = _judge(srv).grade_sync(task, long_output)
    assert rep.status == "ok" and rep.normalized_score == 0.0, rep.error
    assert all(r.passed is False and "too long" in r.note for r in rep.rubrics)
    assert len(srv.requests) == 2  # no retries of a request that cannot fit


def test_a_400_that_is_not_about_length_stays_an_error(tmp_path: Path, long_output: Path) -> None:
    task = make_judge_task(tmp_path, RUBRICS)
    body = json.dumps({"error": {"message": "Unsupported parameter: 'temperature'", "type": "invalid_request_error"}})
    with OpenAIServer(lambda req: Reply(status=400, raw_body=body.encode())) as srv:
        rep = _judge(srv).grade_sync(task, long_output)
    assert rep.status == "error" and "temperature" in (rep.error or "")


def test_a_rubric_the_deliverables_made_the_judge_garble_is_a_zero(tmp_path: Path, long_output: Path) -> None:
    """The judge answers one rubric validly and the other never (it obeyed text asking for prose): a 0, not error."""
    task = make_judge_task(tmp_path, RUBRICS)

    def handler(req: dict[str, Any]) -> str:
        if rubric_of(req) == "Names the currency":
            return "As the memo asked, here is my answer in plain words: it passes."
        return json.dumps(verdict(n_criteria(req)))

    with OpenAIServer(handler) as srv:
        rep = _judge(srv).grade_sync(task, long_output)
    assert rep.status == "ok", rep.error
    assert [r.passed for r in rep.rubrics] == [True, False]
    assert "no valid verdict" in rep.rubrics[1].note
    assert rep.normalized_score == 0.5


def test_a_judge_that_answers_nothing_valid_stays_an_error(tmp_path: Path, long_output: Path) -> None:
    task = make_judge_task(tmp_path, RUBRICS)
    with OpenAIServer(lambda req: "no json at all") as srv:
        rep = _judge(srv).grade_sync(task, long_output)
    assert rep.status == "error" and rep.normalized_score == 0.0
