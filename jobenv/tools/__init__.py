"""The agent's tools, implemented over any :class:`~jobenv.sandbox.base.Sandbox`.

Tool names and parameter names follow the OpenReward CLI toolset (``bash``, ``read``, ``write``, ``edit``,
``multi_edit``, ``glob``, ``grep``, ``ls``, ``todo_write``) so an agent trained here transfers; ``submit``
ends the episode. ``python`` (a persistent interpreter) is optional: an episode enables it through its rules. Each tool is declared once in :data:`TOOL_SPECS` (params model, description, concurrency
flag, handler, sample calls); schemas, dispatch, the prompt's list, hosting and the env's samples read it.

Paths are relative to ``/workspace``; absolute paths must stay inside it. ``..`` escapes are refused here and
symlink escapes by the sandbox; either way the agent gets a clear message, never an exception.

Failure behaviour: :meth:`Toolbox.call` never raises for anything an agent can cause (unknown tool, bad
arguments, missing files, sandbox errors); it returns a :class:`ToolResult` with ``ok=False`` and a message
that says what went wrong and how to fix it.
"""

from __future__ import annotations

from .globmatch import GlobPattern, compile_glob
from .params import (
    BashParams,
    EditOperation,
    EditParams,
    GlobParams,
    GrepParams,
    LsParams,
    MultiEditParams,
    PythonParams,
    ReadParams,
    SubmitParams,
    TodoItem,
    TodoWriteParams,
    WriteParams,
)
from .result import ToolResult
from .table import (
    CONCURRENT_TOOLS,
    OPTIONAL_TOOLS,
    SUBMIT,
    TOOL_DESCRIPTIONS,
    TOOL_NAMES,
    TOOL_PARAMS,
    TOOL_SPECS,
    ToolSpec,
    check_tool_names,
    sample_actions,
    tool_names,
    tool_schemas,
    tool_spec,
    validate_arguments,
)
from .toolbox import Toolbox

__all__ = [
    "SUBMIT",
    "TOOL_SPECS",
    "TOOL_NAMES",
    "OPTIONAL_TOOLS",
    "TOOL_PARAMS",
    "TOOL_DESCRIPTIONS",
    "CONCURRENT_TOOLS",
    "ToolSpec",
    "BashParams",
    "PythonParams",
    "ReadParams",
    "WriteParams",
    "EditParams",
    "EditOperation",
    "MultiEditParams",
    "GlobParams",
    "GrepParams",
    "LsParams",
    "TodoItem",
    "TodoWriteParams",
    "SubmitParams",
    "ToolResult",
    "Toolbox",
    "GlobPattern",
    "compile_glob",
    "sample_actions",
    "tool_names",
    "check_tool_names",
    "tool_schemas",
    "tool_spec",
    "validate_arguments",
]
