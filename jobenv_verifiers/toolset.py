"""The tool server of one verifiers rollout: one :class:`jobenv.env.JobEnv` episode behind MCP.

verifiers launches it as ``python -m jobenv_verifiers.toolset`` next to the harness and hands it the rollout's task.
It offers jobenv's own tool schemas under their own names and runs every call through ``JobEnv.astep``, so the step
budget, submit and grading are jobenv's, unchanged. When the episode ends its outcome is written into the rollout's
shared state, where the task's stop hook and reward read it.

Failure behaviour: a sandbox that cannot start fails the server's start-up (verifiers records a toolset error for the
rollout). Tool mistakes come back to the model as error results. Calls after the episode ended (including a submit
replayed by the client's retry) get the final observation again and change nothing. The sandbox is removed when
the server stops.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import verifiers.v1 as vf
from mcp.types import CallToolResult, TextContent, Tool

from .taskset import JobenvData, JobenvOutcome, JobenvState, JobenvToolsConfig

__all__ = ["JobenvToolset"]


class JobenvToolset(vf.Toolset[JobenvToolsConfig, JobenvState]):
    TOOL_PREFIX = None  # jobenv's tools keep their own names (bash, read, write, ..., submit)

    def __init__(self, config: JobenvToolsConfig) -> None:
        super().__init__(config)
        self._env: Any = None
        self._lock = asyncio.Lock()
        self._final: str | None = None

    async def setup_task(self, task: JobenvData) -> None:
        """Stage the episode's sandbox; raises (failing the rollout as an error) when it cannot start."""
        from jobenv.env import JobEnv
        from jobenv.registry import load_tasks
        from jobenv.tasks import select_tasks

        cfg = self.config
        judge_options = {k: v for k, v in (("model", cfg.judge_model), ("base_url", cfg.judge_base_url)) if v}
        tasks = select_tasks(load_tasks(task.env_id), [task.task_uid], where=task.env_id)
        sandbox_options = {"image": cfg.sandbox_image} if cfg.sandbox_image else {}
        env = JobEnv(tasks, env_id=task.env_id, sandbox=cfg.sandbox, sandbox_options=sandbox_options, judge=cfg.judge,
                     judge_options=judge_options, rules=cfg.rules)
        self._exit_stack.push_async_callback(env.aclose)
        await env.areset(options={"task_id": task.task_uid})
        self._env = env

    def register(self, mcp: Any) -> None:
        # the tool table is jobenv's: answer the MCP list/call requests directly instead of registering wrappers
        server = cast(Any, mcp)
        server.list_tools = self._with_state(self.list_tools)
        server.call_tool = self._with_state(self.call_tool)

    async def list_tools(self) -> list[Tool]:
        from jobenv.tools import tool_schemas

        return [
            Tool(name=s["function"]["name"], description=s["function"]["description"],
                 input_schema=s["function"]["parameters"])
            for s in (self._env.tool_schemas() if self._env is not None else tool_schemas())
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
        async with self._lock:  # one step at a time: JobEnv steps are sequential
            if self._final is not None:
                return _result(self._final, error=False)
            if self._env is None:
                return _result("Error: the episode's sandbox is not available.", error=True)
            obs, _reward, terminated, truncated, info = await self._env.astep(
                {"name": name, "arguments": dict(arguments or {})}
            )
            self.state.steps = int(info.get("step") or self.state.steps + 1)
            if terminated or truncated:
                self.state.outcome = JobenvOutcome.of(self._env.last_outcome)
                self._final = obs
                await self._env.aclose()
            return _result(obs, error=not info.get("ok", True) and not (terminated or truncated))


def _result(text: str, *, error: bool) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


if __name__ == "__main__":
    JobenvToolset.run()
