"""The ``python`` tool: a cell in the episode's persistent interpreter (off unless the episode enables it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .params import PythonParams
from .result import ToolResult, tool_error

if TYPE_CHECKING:
    from .result import ToolContext

__all__ = ["run_python"]

_STATE_LOST = "variables, imports and definitions from earlier calls are gone"


async def run_python(tb: ToolContext, p: PythonParams) -> ToolResult:
    """Run ``p.code``; a traceback is an ordinary result, a timeout or a dead interpreter is reported (``ok=False``)
    with what was lost. Raises nothing the agent can cause (a sandbox without an interpreter is a SandboxError,
    which the toolbox turns into an error result)."""
    if not p.code.strip():
        return tool_error("python", "code is empty", "invalid_arguments")
    timeout = tb.command_timeout(p.timeout)
    res = await tb.sandbox.run_python(p.code, timeout)
    notes = []
    if res.restarted:
        notes.append(f"this ran in a new interpreter: {_STATE_LOST}")
    if res.timed_out:
        notes.append(f"the call hit its time limit ({tb.sandbox.limits.clamp_timeout(timeout):g} s): the interpreter "
                     f"was killed and the next call starts a new one; {_STATE_LOST}")
    elif not res.interpreter_alive:
        notes.append(f"the interpreter exited (status {res.exit_code}); the next call starts a new one")
    if res.truncated:
        notes.append("output was too long; its middle was cut")
    text = res.output.rstrip("\n") or "(no output)"
    if notes:
        text += f"\n[{'; '.join(notes)}]"
    return ToolResult(
        name="python",
        text=text,
        ok=res.interpreter_alive and not res.timed_out,
        metadata={"exit_code": res.exit_code, "timed_out": res.timed_out, "truncated": res.truncated,
                  "restarted": res.restarted, "interpreter_alive": res.interpreter_alive},
    )
