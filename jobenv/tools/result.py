"""What a tool call returns, and the small formatting helpers every tool shares."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, Field

from ..sandbox.base import WORKSPACE, FileEntry

if TYPE_CHECKING:
    from ..sandbox.base import Sandbox

__all__ = ["ToolResult", "ToolContext", "tool_error", "display_path", "human_size", "listing_base"]


class ToolContext(Protocol):
    """What a tool's handler may use of its episode's toolbox (:class:`jobenv.tools.Toolbox` is one)."""

    sandbox: Sandbox
    todos: list[dict[str, Any]]
    deadline: float | None
    output_chars: int
    read_char_budget: int

    def command_timeout(self, requested: float | None) -> float | None: ...


class ToolResult(BaseModel):
    """What a tool call gives back: ``text`` for the model, ``ok`` False on any error, ``submitted`` on submit."""

    name: str
    text: str
    ok: bool = True
    submitted: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)


def tool_error(name: str, message: str, kind: str) -> ToolResult:
    """A failed call: the message (prefixed ``Error:``) for the model, ``metadata["error"]`` = ``kind``."""
    text = message if message.startswith("Error") else f"Error: {message}"
    return ToolResult(name=name, text=text, ok=False, metadata={"error": kind})


def display_path(rel: str) -> str:
    """``rel`` (relative to the workspace) as the absolute path the agent sees."""
    return f"{WORKSPACE}/{rel}" if rel else WORKSPACE


def listing_base(entries: list[FileEntry], base: str) -> str:
    """The folder a recursive listing is really rooted at: ``base`` itself, or, when ``base`` went through a
    symlink inside the workspace, the resolved folder (the parent of the shallowest entry)."""
    prefix = f"{base}/" if base else ""
    if not entries or not prefix or all(e.path.startswith(prefix) for e in entries):
        return base
    shallowest = min(entries, key=lambda e: e.path.count("/"))
    return posixpath.dirname(shallowest.path)


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"
