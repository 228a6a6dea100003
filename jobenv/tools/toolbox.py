"""The :class:`Toolbox`: the tools of one episode over one started sandbox, dispatched through the table."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..errors import JobenvError, WorkspacePathError
from ..sandbox.base import WORKSPACE, Sandbox
from .result import ToolResult, tool_error
from .table import tool_spec, validate_arguments

__all__ = ["Toolbox"]


class Toolbox:
    """The tools of one episode over one started sandbox; holds the episode's todo list.

    ``call`` validates the arguments with the tool's params model and never raises for agent-caused problems.
    ``tools`` names the optional tools (:data:`~jobenv.tools.OPTIONAL_TOOLS`) it also serves.
    """

    def __init__(self, sandbox: Sandbox, *, read_char_budget: int | None = None, tools: tuple[str, ...] = ()) -> None:
        self.sandbox = sandbox
        self.tools = tuple(tools)  # the optional tools this episode enables
        self.todos: list[dict[str, Any]] = []
        self.deadline: float | None = None  # time.monotonic() value after which tool work is cut short
        self.started: float | None = None  # when the episode's clock started (start_clock)
        # seconds calls queued for the shared extraction workers: not the episode's time (deadline moves on)
        self.queued_s = 0.0
        limit = getattr(getattr(sandbox, "limits", None), "output_chars", 30_000)
        self.output_chars = int(limit)
        self.read_char_budget = read_char_budget or max(self.output_chars, 30_000)

    def start_clock(self, time_limit_s: float | None) -> None:
        """Start the episode's clock now; with a limit, tool work is cut short at it (:attr:`deadline`)."""
        self.started = time.monotonic()
        self.deadline = self.started + time_limit_s if time_limit_s is not None else None

    @property
    def elapsed_s(self) -> float:
        """The episode's seconds since :meth:`start_clock` (0 before), less the time its calls queued for the
        process's shared extraction workers: other episodes' files cause that wait. Every front-end's clock."""
        return 0.0 if self.started is None else time.monotonic() - self.started - self.queued_s

    def command_timeout(self, requested: float | None) -> float | None:
        """The timeout of one sandbox command: ``requested`` (None: the sandbox default), cut to what is left
        before :attr:`deadline` so one call cannot overrun the episode's time limit by much."""
        if self.deadline is None:
            return requested
        left = max(1.0, self.deadline - time.monotonic())
        return min(requested if requested is not None else self.sandbox.limits.timeout_s, left)

    async def call(self, name: str, arguments: Any = None) -> ToolResult:
        """Run tool ``name``; errors of any kind come back as ``ToolResult(ok=False)`` with an explanation."""
        params = validate_arguments(name, arguments, self.tools)
        if isinstance(params, str):
            return ToolResult(name=str(name), text=params, ok=False, metadata={"error": "invalid_arguments"})
        spec = tool_spec(name)
        assert spec is not None  # validate_arguments refused unknown names
        from ..extract.service import queue_wait

        waited = [0.0]
        try:
            with queue_wait() as waited:
                return await spec.handler(self, params)
        except WorkspacePathError as exc:
            return tool_error(name, f"{exc}. Use paths relative to {WORKSPACE}, e.g. output/report.md.", "path")
        except JobenvError as exc:
            return tool_error(name, str(exc), "sandbox")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool bug must not end the trainer's process; the agent sees what happened
            return tool_error(name, f"internal error in the {name} tool: {type(exc).__name__}: {exc}", "internal")
        finally:
            self.queued_s += waited[0]
            if self.deadline is not None:
                self.deadline += waited[0]
