"""A scripted policy played by the loopback OpenAI-compatible server (tests and the rollout benchmark).

The server answers each chat-completions request from the conversation it receives, so it needs no
per-episode state: it counts the assistant turns so far and replies with the next scripted turn. The script
is a real agent's path through a sample task: list the task folder and read the instructions (two tool
calls in one reply), write the task's reference solution into /workspace/solution (one reply with one write
per file), run it with bash, remove it, submit. It also checks what a strict server checks: every tool call
of the previous assistant turns has exactly one tool result with its id, and the tools are offered.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from jobenv.demo import solution_actions
from tests.support.openai_server import Reply

__all__ = ["ScriptedAgent", "find_task"]


def find_task(tasks: list[Any], prompt: str) -> Any:
    """The task whose instructions the first user message carries (longest match wins)."""
    hits = [t for t in tasks if t.instructions.strip()[:400] in prompt]
    if not hits:
        raise AssertionError("the prompt carries no known task's instructions")
    return max(hits, key=lambda t: len(t.instructions))


def script_for(task: Any) -> list[list[dict[str, Any]]]:
    """The scripted assistant turns for ``task``: each turn is a list of tool calls."""
    acts = solution_actions(task)
    writes = [a for a in acts if a["name"] == "write"]
    rest = [a for a in acts if a["name"] != "write"]
    turns = [[{"name": "ls", "arguments": {"path": "task_folder"}},
              {"name": "read", "arguments": {"file_path": "task_folder/TASK_INSTRUCTIONS.txt"}}],
             writes]
    turns += [[a] for a in rest]  # run, clean up, submit
    return turns


class ScriptedAgent:
    """Handler for OpenAIServer. ``prelude`` turns (strings = text-only replies, lists = tool calls) come first.

    ``fail``: optional callable(request, turn_index) -> Reply | None to inject errors. ``hold_s`` keeps each
    request busy; ``gather`` holds the first ``gather`` episodes' first requests until all of them have arrived
    (at most 60 s), so concurrency is observed whatever the machine's load; ``peak`` records the most requests
    in flight at once.
    """

    def __init__(self, tasks: list[Any], *, prelude: list[Any] | None = None,
                 fail: Callable[[dict[str, Any], int], Reply | None] | None = None, hold_s: float = 0.0,
                 gather: int = 0, skip_solution: bool = False) -> None:
        self.tasks = tasks
        self.prelude = prelude or []
        self.fail = fail
        self.hold_s = hold_s
        self.gather = gather
        self._arrived = 0
        self._gathered = threading.Condition()
        self.skip_solution = skip_solution
        self.inflight = 0
        self.peak = 0
        self.episodes_started = 0
        self.problems: list[str] = []
        self._lock = threading.Lock()
        self._scripts: dict[str, list[list[dict[str, Any]]]] = {}

    def _validate(self, req: dict[str, Any]) -> str | None:
        msgs = req.get("messages") or []
        if not req.get("tools"):
            return "no tools offered"
        pending: list[str] = []
        for m in msgs:
            if m["role"] == "assistant":
                if pending:
                    return f"tool calls without results: {pending}"
                pending = [tc["id"] for tc in m.get("tool_calls") or []]
            elif m["role"] == "tool":
                if m.get("tool_call_id") not in pending:
                    return f"tool result for unknown call {m.get('tool_call_id')}"
                pending.remove(m["tool_call_id"])
            elif pending:
                return f"{m['role']} message before the results of {pending}"
        return f"tool calls without results: {pending}" if pending else None

    def __call__(self, req: dict[str, Any]) -> Reply | str:
        with self._lock:
            self.inflight += 1
            self.peak = max(self.peak, self.inflight)
        try:
            if self.gather and not any(m["role"] == "assistant" for m in req.get("messages") or []):
                with self._gathered:
                    self._arrived += 1
                    self._gathered.notify_all()
                    self._gathered.wait_for(lambda: self._arrived >= self.gather, timeout=60)
            if self.hold_s:
                time.sleep(self.hold_s)
            return self._reply(req)
        finally:
            with self._lock:
                self.inflight -= 1

    def _reply(self, req: dict[str, Any]) -> Reply | str:
        msgs = req["messages"]
        turn = sum(1 for m in msgs if m["role"] == "assistant")
        if turn == 0:
            with self._lock:
                self.episodes_started += 1
        if self.fail is not None:
            injected = self.fail(req, turn)
            if injected is not None:
                return injected
        problem = self._validate(req)
        if problem:
            with self._lock:
                self.problems.append(problem)
            return Reply(status=400, raw_body=b'{"error": {"message": "' + problem.encode() + b'"}}')
        if turn < len(self.prelude):
            step = self.prelude[turn]
            return step if isinstance(step, str) else Reply(tool_calls=step)
        prompt = next(m["content"] for m in msgs if m["role"] == "user")
        task = find_task(self.tasks, prompt)
        script = self._scripts.get(task.uid)
        if script is None:
            script = self._scripts[task.uid] = script_for(task)
        if self.skip_solution:
            script = [[{"name": "submit", "arguments": {}}]]
        i = turn - len(self.prelude)
        if i >= len(script):
            return "I have nothing more to do."
        return Reply(content=f"turn {i}", tool_calls=script[i])
