"""Client programs the integration tests run inside the integrations' own venvs, and a server process helper.

Each program plays the loopback policy against a jobenv server with the library's own client and prints one JSON
line per episode: ``{"task_id", "reward", "done", "status", "tools"}``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.ports import free_port

from .venvs import Venv

# The policy loop shared by both programs: ask the model, run each tool call, feed the results back.
_AGENT_LOOP = r'''
import asyncio, json, sys
from openai import AsyncOpenAI

async def play(prompt, tools, call_tool, policy_url):
    """Drive one episode with the policy; call_tool(name, args) -> (text, reward, done, status)."""
    llm = AsyncOpenAI(base_url=policy_url, api_key="k")
    messages = [{"role": "user", "content": prompt}]
    reward, done, status = None, False, None
    for _ in range(50):
        reply = (await llm.chat.completions.create(model="scripted", messages=messages, tools=tools)).choices[0].message
        messages.append(reply.model_dump(exclude_none=True))
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            text, reward, done, status = await call_tool(call.function.name, json.loads(call.function.arguments or "{}"))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
        if done:
            break
    return reward, done, status
'''

OPENENV_CLIENT = _AGENT_LOOP + r'''
from openenv import GenericEnvClient

async def episode(base_url, policy_url, index):
    async with GenericEnvClient(base_url=base_url, message_timeout_s=600) as env:
        result = await env.reset(split="sample", index=index)
        obs = result.observation
        async def call_tool(name, args):
            r = await env.step({"name": name, "arguments": args})
            return r.observation["text"], r.reward, r.done, r.observation["status"]
        reward, done, status = await play(obs["text"], obs["tools"], call_tool, policy_url)
        return {"task_id": obs["task_id"], "reward": reward, "done": done, "status": status,
                "tools": [t["function"]["name"] for t in obs["tools"]]}

async def main():
    base_url, policy_url, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for rec in await asyncio.gather(*(episode(base_url, policy_url, i) for i in range(n))):
        print(json.dumps(rec))

asyncio.run(main())
'''

# SkyRL's OpenReward example: OpenReward() configured by environment variables only, environments.get(name=...)
# with no base_url and no variant, a session per (split, index), tools in OpenAI format.
OPENREWARD_CLIENT = _AGENT_LOOP + r'''
from openreward import AsyncOpenReward

async def episode(env, tools, split, index, policy_url):
    async with env.session(split=split, index=index) as s:
        prompt = "\n".join(b.text for b in await s.get_prompt())
        async def call_tool(name, args):
            out = await s.call_tool(name, args)
            text = "\n".join(getattr(b, "text", "") for b in out.blocks)
            return text, out.reward, out.finished, (out.metadata or {}).get("status")
        reward, done, status = await play(prompt, tools, call_tool, policy_url)
        return {"task_id": s.task_spec["id"] if hasattr(s, "task_spec") else None, "index": index, "reward": reward,
                "done": done, "status": status, "tools": [t["function"]["name"] for t in tools]}

async def main():
    env_name, split, policy_url = sys.argv[1], sys.argv[2], sys.argv[3]
    client = AsyncOpenReward()
    env = client.environments.get(name=env_name)
    try:
        tasks = await env.list_tasks(split)
        tools = [{"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters")}}
                 for t in await env.list_tools(format="openai")]
        recs = await asyncio.gather(*(episode(env, tools, split, i, policy_url) for i in range(len(tasks))))
        for i, rec in enumerate(recs):
            rec["task_id"] = tasks[i].task_spec["id"]
            print(json.dumps(rec))
    finally:
        await client.environments.aclose()

asyncio.run(main())
'''


def judge_failing_on(broken_rubrics: set[str]) -> Any:
    """A judge handler for OpenAIServer: every criterion passes, except that a rubric of ``broken_rubrics`` gets a
    reply that is no verdict (so that task's grading errors)."""
    import re

    def answer(request: dict[str, Any]) -> str:
        content = request["messages"][-1]["content"]
        text = content if isinstance(content, str) else "\n".join(p.get("text", "") for p in content)
        if any(r in text for r in broken_rubrics):
            return "no verdict here"
        n = len(re.findall(r"^Criterion \d+: ", text.split("## Deliverables", 1)[0], re.M))
        return json.dumps({"criteria_results": [{"index": i, "passed": True, "reasoning": "checked",
                                                 "evidence": "output"} for i in range(n)],
                           "rubric_passed": True, "overall_reasoning": "ok"})
    return answer


def run_client(venv: Venv, program: str, *args: str, env: dict[str, str] | None = None,
               tmp: Path) -> list[dict[str, Any]]:
    script = tmp / "client.py"
    script.write_text(program)
    proc = venv.run("python", str(script), *args, env=env, timeout=900)
    assert proc.returncode == 0, f"client failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-4000:]}"
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


class Server:
    """``jobenv serve ...`` from a venv, in its own process group; ``stop()`` sends SIGTERM (as a supervisor does)."""

    def __init__(self, venv: Venv, tmp: Path, *args: str, env: dict[str, str] | None = None,
                 health: str = "/health") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp / f"serve-{self.port}.log"
        full = {**os.environ, **(env or {})}
        full["PATH"] = f"{venv.bin}{os.pathsep}{full.get('PATH', '')}"
        full.pop("PYTHONPATH", None)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([str(venv.bin / "jobenv"), "serve", "--host", "127.0.0.1", "--port",
                                      str(self.port), *args], env=full, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True, cwd=str(tmp))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jobenv serve exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + health, timeout=2):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"jobenv serve did not come up:\n{self.log()}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-6000:]

    def request(self, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method="POST" if data else "GET",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    def stop(self) -> int | None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=60)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self._log.close()
        return self.proc.returncode
