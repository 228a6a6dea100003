"""Every ending of an episode, through every front-end that runs in-process, on an in-memory sandbox.

One table: an episode's actions and rules -> (status, reward, finish reason). Each front-end — ``JobEnv``, a
rollout, an OpenReward hosted session — drives the same :class:`jobenv.episode.Episode`, so each must report the
same triple. Adding an ending or a budget is one edit in the core plus one row here. No bubblewrap: this layer runs
in a few seconds.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from jobenv.episode import Ending, Episode, EpisodeRules, FinishReason, Status
from tests.support.memory_sandbox import MemorySandbox, ScriptedJudge
from tests.support.tasks import write_task


def _write(path: str, text: str) -> dict[str, Any]:
    return {"name": "write", "arguments": {"file_path": path, "content": text}}


def _bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "arguments": {"command": command}}


SUBMIT = {"name": "submit", "arguments": {}}


@dataclass
class Row:
    name: str
    actions: list[Any]
    status: Status
    reward: float | None
    finish: FinishReason
    rules: EpisodeRules = field(default_factory=EpisodeRules)
    ending: Ending | None = None  # ended by the front-end's own budget after the actions (rollout-style)
    judge_down: bool = False  # the judge answers nothing on any output (an outage)

    def judge(self) -> ScriptedJudge:
        return ScriptedJudge(down=self.judge_down)


ROWS = [
    Row("submit", [_write("output/score.txt", "0.75"), SUBMIT], Status.OK, 0.75, FinishReason.SUBMITTED),
    Row("submit, official score", [_write("output/score.txt", "1"), SUBMIT], Status.OK, 1.0, FinishReason.SUBMITTED,
        EpisodeRules(scoring="official")),
    Row("malformed action costs a step", ["{not json", _write("output/score.txt", "1"), SUBMIT], Status.OK, 1.0,
        FinishReason.SUBMITTED, EpisodeRules(max_steps=3)),
    Row("out of steps", [_write("output/score.txt", "1"), _bash("true")], Status.TRUNCATED, 0.0,
        FinishReason.MAX_STEPS, EpisodeRules(max_steps=2)),
    Row("out of steps, graded", [_write("output/score.txt", "0.5"), _bash("true")], Status.TRUNCATED, 0.5,
        FinishReason.MAX_STEPS, EpisodeRules(max_steps=2, on_truncate="grade")),
    Row("out of time", [_write("output/score.txt", "1"), _bash("sleep 0.4"), SUBMIT], Status.TRUNCATED, 0.0,
        FinishReason.TIME_LIMIT, EpisodeRules(time_limit_s=0.3)),
    Row("out of time, graded", [_write("output/score.txt", "0.5"), _bash("sleep 0.4"), SUBMIT], Status.TRUNCATED, 0.5,
        FinishReason.TIME_LIMIT, EpisodeRules(time_limit_s=0.3, on_truncate="grade")),
    Row("judge outage", [_write("output/score.txt", "1"), SUBMIT], Status.ERROR, None, FinishReason.GRADING_ERROR,
        judge_down=True),
    Row("output breaks the judge", [_write("output/score.txt", "outage"), SUBMIT], Status.OK, 0.0,
        FinishReason.SUBMITTED),
    Row("refused output", [_write("output/score.txt", "1"), _write("output/link@", "x"), SUBMIT], Status.OK, 0.0,
        FinishReason.SUBMITTED),
    Row("sandbox died", [_write("output/score.txt", "1"), _bash("die"), SUBMIT], Status.OK, 0.0,
        FinishReason.SUBMITTED),
    Row("token budget, graded", [_write("output/score.txt", "0.25")], Status.TRUNCATED, 0.25, FinishReason.TOKEN_BUDGET,
        EpisodeRules(on_truncate="grade"), Ending.TOKEN_BUDGET),
    Row("agent stopped calling tools", [_write("output/score.txt", "1")], Status.TRUNCATED, 0.0,
        FinishReason.NO_TOOL_CALL, EpisodeRules(), Ending.NO_TOOL_CALL),
]


@pytest.fixture(scope="module")
def task(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from jobenv.tasks import load_task_dir

    return load_task_dir(write_task(tmp_path_factory.mktemp("t") / "clerks" / "task1"), "sample")


async def _core(task: Any, row: Row) -> tuple[Any, ...]:
    ep = Episode(task, MemorySandbox(), row.judge(), row.rules)
    await ep.start()
    outcome = None
    for action in row.actions:
        outcome = (await ep.step(action)).outcome or outcome
        if outcome is not None:
            break
    if outcome is None:
        outcome = await ep.finish(row.ending or Ending.MAX_STEPS)
    assert ep.sandbox is None and ep.done  # the core closed it
    return outcome.status, outcome.scored_reward, outcome.finish_reason


async def _jobenv(task: Any, row: Row) -> tuple[Any, ...]:
    from jobenv.env import JobEnv

    env = JobEnv([task], sandbox=MemorySandbox, judge=row.judge(), rules=row.rules)
    await env.areset()
    try:
        for action in row.actions:
            _obs, reward, terminated, truncated, info = await env.astep(action)
            if terminated or truncated:
                status = info["status"]
                return status, None if status == "error" else reward, info["finish_reason"]
        outcome = await env.afinish(row.ending or Ending.MAX_STEPS)
        return outcome.status, outcome.scored_reward, outcome.finish_reason
    finally:
        await env.aclose()


class _ScriptedPolicy:
    """A custom policy (the rollout's public extension point): replies with the row's tool calls, one per turn,
    then plain text; ``tokens`` completion tokens per reply."""

    def __init__(self, actions: list[Any], tokens: int) -> None:
        self.actions, self.tokens = list(actions), tokens

    def describe(self) -> dict[str, Any]:
        return {"kind": "scripted", "model": "scripted"}

    async def act(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        import json

        from jobenv.rollout.policy import PolicyOutput

        message: dict[str, Any] = {"role": "assistant", "content": "done"}
        if self.actions:
            a = self.actions.pop(0)
            call = (a if isinstance(a, dict) else {"name": "bash", "arguments": {"command": a}})
            args = a if isinstance(a, str) else json.dumps(call["arguments"])
            name = "bash" if isinstance(a, str) else call["name"]
            if isinstance(a, str):  # a malformed call: arguments that are not JSON
                name, args = "write", a
            message["tool_calls"] = [{"id": f"c{len(self.actions)}", "type": "function",
                                      "function": {"name": name, "arguments": args}}]
        return PolicyOutput(message=message, prompt_tokens=10, completion_tokens=self.tokens)


async def _rollout(task: Any, row: Row) -> tuple[Any, ...]:
    from jobenv.env import JobEnv
    from jobenv.rollout.episode import RolloutConfig, run_episode

    cfg = RolloutConfig(rules=row.rules, nudge=None,
                        token_budget=len(row.actions) * 5 if row.ending is Ending.TOKEN_BUDGET else None)
    env = JobEnv([task], sandbox=MemorySandbox, judge=row.judge(), rules=row.rules)
    try:
        t = await run_episode(env, _ScriptedPolicy(row.actions, 5), task.id, config=cfg)  # type: ignore[arg-type]
    finally:
        await env.aclose()
    return t.status, t.reward, t.finish_reason


async def _hosted(task: Any, row: Row) -> tuple[Any, ...]:
    from jobenv.hosting import ServeConfig
    from jobenv.hosting.environments import JobenvSample
    from jobenv.hosting.runtime import Runtime

    rt = Runtime(ServeConfig(judge="checks", rules=row.rules), [JobenvSample.dataset], {"jobenv/sample": [task]},
                 {"jobenvsample": {"sample": "jobenv/sample"}}, row.judge(), None)  # type: ignore[arg-type]
    rt.sandbox_factory = MemorySandbox
    cls = type("Hosted", (JobenvSample,), {"runtime": rt})
    session = cls({"split": "sample", "id": task.id, "index": 0})
    await session.setup()
    try:
        for action in row.actions:
            if isinstance(action, str):  # the SDK refuses arguments that are not an object: send an unknown tool
                action = {"name": action, "arguments": {}}
            out = (await session._call_tool(action["name"], action["arguments"])).root
            if getattr(out, "finished", False) or getattr(getattr(out, "output", None), "finished", False):
                tool_out = getattr(out, "output", out)
                meta = tool_out.metadata
                return meta["status"], tool_out.reward, meta["finish_reason"]
        raise AssertionError("the hosted episode did not end")
    finally:
        await session.teardown()


FRONT_ENDS = {"core": _core, "jobenv": _jobenv, "rollout": _rollout, "hosted": _hosted}


# a hosted session has no token budget or nudges: the endings a front-end decides itself belong to the rollout
CASES = [(row, fe) for row in ROWS for fe in FRONT_ENDS if not (fe == "hosted" and row.ending is not None)]


@pytest.mark.parametrize(("row", "front_end"), CASES, ids=[f"{r.name}-{fe}" for r, fe in CASES])
def test_every_front_end_ends_each_episode_the_same_way(task: Any, row: Row, front_end: str) -> None:
    status, reward, finish = asyncio.run(FRONT_ENDS[front_end](task, row))
    assert (str(status), reward, str(finish)) == (row.status.value, row.reward, row.finish.value)


def test_the_readme_endings_table_names_every_ending_and_status() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("| the episode ends by"):]
    table = section[: section.index("\n\n")]
    for reason in FinishReason:
        assert f"`{reason.value}`" in table, reason
    for status in Status:
        assert f"`{status.value}`" in table, status


@pytest.mark.parametrize("row", [r for r in ROWS if r.ending is None], ids=lambda r: r.name)
def test_the_report_inside_an_outcome_agrees_with_its_status(task: Any, row: Row) -> None:
    """An agent's zero (refused output, an output that breaks the judge) carries a report whose status is ok too,
    naming the agent as the cause; an error carries an errored report."""
    async def run() -> Any:
        ep = Episode(task, MemorySandbox(), row.judge(), row.rules)
        await ep.start()
        for action in row.actions:
            if (outcome := (await ep.step(action)).outcome) is not None:
                return outcome
        return await ep.finish(Ending.MAX_STEPS)

    outcome = asyncio.run(run())
    if outcome.report is None:
        return
    assert (outcome.report.status == "error") == (outcome.status is Status.ERROR)
    agents = row.name in ("refused output", "output breaks the judge")
    assert (outcome.report.failure_cause == "agent") == agents and (outcome.report.error is not None) == (
        agents or outcome.status is Status.ERROR)


def test_the_readme_says_what_step_returns_for_a_grading_error(task: Any) -> None:
    """Gymnasium needs a float: step() returns 0.0 with status error, and the README's table says so."""
    row = next(r for r in ROWS if r.name == "judge outage")

    async def step_reward() -> tuple[float, str]:
        from jobenv.env import JobEnv

        env = JobEnv([task], sandbox=MemorySandbox, judge=row.judge(), rules=row.rules)
        await env.areset()
        try:
            for action in row.actions:
                _obs, reward, terminated, _truncated, info = await env.astep(action)
                if terminated:
                    return reward, info["status"]
        finally:
            await env.aclose()
        raise AssertionError("the episode did not end")

    assert asyncio.run(step_reward()) == (0.0, "error")
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    error_row = next(line for line in readme.splitlines() if line.startswith("|") and "`grading_error`" in line)
    assert "`env.step()` returns `0.0`" in error_row and "`None`" in error_row
