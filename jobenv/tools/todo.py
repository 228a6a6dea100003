"""The ``todo_write`` tool (the agent's plan, kept on the Toolbox) and ``submit``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .params import SubmitParams, TodoWriteParams
from .result import ToolResult

if TYPE_CHECKING:
    from .result import ToolContext

__all__ = ["write_todos", "submit"]


async def write_todos(tb: ToolContext, p: TodoWriteParams) -> ToolResult:
    """Replace the episode's todo list and show it back."""
    tb.todos = [t.model_dump() for t in p.todos]
    if not tb.todos:
        return ToolResult(name="todo_write", text="Todo list cleared.", metadata={"todos": []})
    marks = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
    rows = [f"{marks[t['status']]} {t['content']}" + (f" ({t['priority']})" if t["priority"] != "medium" else "")
            for t in tb.todos]
    done = sum(t["status"] == "completed" for t in tb.todos)
    return ToolResult(
        name="todo_write",
        text=f"Todo list ({done}/{len(tb.todos)} done):\n" + "\n".join(rows),
        metadata={"todos": tb.todos},
    )


async def submit(tb: ToolContext, p: SubmitParams) -> ToolResult:
    """Mark the call as a submission; the front-end (env, rollout, hosting) grades and ends the episode."""
    return ToolResult(name="submit", text="Submitted.", submitted=True)
