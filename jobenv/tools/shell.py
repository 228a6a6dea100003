"""The ``bash`` tool: one command in the sandbox, cut short by the episode's time limit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .params import BashParams
from .result import ToolResult, tool_error

if TYPE_CHECKING:
    from .result import ToolContext

__all__ = ["run_bash"]


async def run_bash(tb: ToolContext, p: BashParams) -> ToolResult:
    """Run ``p.command``; a timeout is reported (``ok=False``), a non-zero exit code is not an error."""
    if not p.command.strip():
        return tool_error("bash", "command is empty", "invalid_arguments")
    timeout = tb.command_timeout(p.timeout)
    res = await tb.sandbox.run(p.command, timeout)
    notes = []
    if res.timed_out:
        notes.append(f"the command hit its time limit ({tb.sandbox.limits.clamp_timeout(timeout):g} s) and was killed")
    if res.truncated:
        notes.append("output was too long; its middle was cut")
    text = f"{res.output.rstrip(chr(10))}\n\n(exit {res.exit_code})" if res.output else f"(no output)\n\n(exit {res.exit_code})"
    if notes:
        text += f"\n[{'; '.join(notes)}]"
    return ToolResult(
        name="bash",
        text=text,
        ok=not res.timed_out,
        metadata={"exit_code": res.exit_code, "timed_out": res.timed_out, "truncated": res.truncated},
    )
