"""File tools: ``read`` (numbered lines; office, PDF and SQLite files as extracted text), ``write``, ``edit``
and ``multi_edit``. Each returns a :class:`ToolResult`; agent mistakes become ``ok=False`` with a message."""

from __future__ import annotations

import asyncio
import posixpath
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import FileTooLargeError, JobenvError, WorkspacePathError
from ..sandbox.base import WORKSPACE, workspace_relpath
from .params import DEFAULT_READ_LIMIT, EditParams, MultiEditParams, ReadParams, WriteParams
from .result import ToolResult, display_path, human_size, tool_error

if TYPE_CHECKING:
    from .result import ToolContext

__all__ = ["EXTRACTED_SUFFIXES", "IMAGE_SUFFIXES", "read_file", "write_file", "edit_file", "multi_edit_file"]

# File types whose bytes mean nothing to a model: read shows the same extracted text the judge sees.
EXTRACTED_SUFFIXES = frozenset(
    {".xlsx", ".xlsm", ".xls", ".docx", ".pptx", ".pdf", ".db", ".sqlite", ".sqlite3", ".ipynb"}
)
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff", ".svg"})
MAX_LINE_CHARS = 2000
READ_MAX_BYTES = 32 * 1024 * 1024  # larger files are not loaded at all (bash can look at parts of them)
READ_TEXT_BYTES = 8 * 1024 * 1024  # of a text file, what is decoded and paged through
# a read is one step of an interactive episode: a file that takes longer to parse is shown as stopped (the
# judge, grading after submit, gives it the extraction service's full per-file time)
READ_EXTRACT_S = 15.0


# -- read -----------------------------------------------------------------------------------------------
async def read_file(tb: ToolContext, p: ReadParams) -> ToolResult:
    rel = workspace_relpath(p.file_path)
    if not rel:
        return tool_error("read", f"{WORKSPACE} is a folder; use ls or glob to see its files", "is_dir")
    size = await _file_size(tb, rel)
    if isinstance(size, ToolResult):
        return size
    if size > READ_MAX_BYTES:  # never pull a huge (or sparse) file into this process
        return _too_large("read", rel, size)
    data = await _read_bytes(tb, rel, "read")
    if isinstance(data, ToolResult):
        return data
    suffix = posixpath.splitext(rel)[1].lower()
    note = ""
    if suffix in EXTRACTED_SUFFIXES:
        text = await _extract(tb, rel, data)
        note = f"[{display_path(rel)}: {suffix[1:]} file shown as extracted text]\n"
    elif suffix in IMAGE_SUFFIXES:
        return ToolResult(
            name="read",
            text=f"{display_path(rel)} is an image ({human_size(len(data))}); its pixels cannot be shown as text.",
            metadata={"binary": True},
        )
    elif b"\x00" in data[:8192]:
        return ToolResult(
            name="read",
            text=f"{display_path(rel)} is a binary file ({human_size(len(data))}) of a type read cannot show; "
            "inspect it with a script through bash.",
            metadata={"binary": True},
        )
    else:
        text = data[:READ_TEXT_BYTES].decode("utf-8", errors="replace")
        if len(data) > READ_TEXT_BYTES:
            note = (f"[{display_path(rel)} is {human_size(len(data))}: read shows its first "
                    f"{human_size(READ_TEXT_BYTES)}; use bash (tail, sed -n) for the rest]\n")
    if not text:
        return ToolResult(name="read", text=f"{note}({display_path(rel)} is empty)")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    start = (p.offset or 1) - 1
    if start >= len(lines):
        return tool_error("read", f"offset {p.offset} is past the end of {display_path(rel)} ({len(lines)} lines)", "range")
    limit = p.limit or DEFAULT_READ_LIMIT
    out: list[str] = []
    used, i = 0, start
    end = min(len(lines), start + limit)
    while i < end:
        line = lines[i]
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f" [... line cut, {len(lines[i]) - MAX_LINE_CHARS} more characters]"
        row = f"{i + 1:>6}\t{line}"
        if out and used + len(row) > tb.read_char_budget:
            break
        out.append(row)
        used += len(row) + 1
        i += 1
    body = note + "\n".join(out)
    if i < len(lines):
        body += f"\n[showing lines {start + 1}-{i} of {len(lines)}; call read with offset={i + 1} to continue]"
    return ToolResult(name="read", text=body, metadata={"lines": len(lines), "shown": [start + 1, i]})


async def _file_size(tb: ToolContext, rel: str) -> int | ToolResult:
    """The size of regular file ``rel`` (from a listing, without reading it), or the error to show."""
    try:
        entries = await tb.sandbox.list_files(rel)
    except WorkspacePathError:
        raise
    except JobenvError:
        return tool_error("read", f"{display_path(rel)} does not exist", "not_found")
    # a file lists as itself (under its target's name when reached through a link inside the workspace)
    if len(entries) == 1 and entries[0].type != "dir" and posixpath.basename(entries[0].path) == posixpath.basename(rel):
        return entries[0].size
    return tool_error("read", f"{display_path(rel)} is a folder; use ls or glob to see its files", "is_dir")


def _too_large(tool: str, rel: str, size: int | None) -> ToolResult:
    what = f"is {human_size(size)}, more" if size is not None else "is more"
    return tool_error(tool, f"{display_path(rel)} {what} than {tool} loads ({human_size(READ_MAX_BYTES)}); "
                      "look at parts of it through bash (head, sed -n, a Python script)", "too_large")


async def _read_bytes(tb: ToolContext, rel: str, tool: str) -> bytes | ToolResult:
    try:
        return await tb.sandbox.read_file(rel, max_bytes=READ_MAX_BYTES)  # bounded even if the file grows
    except WorkspacePathError:
        raise
    except FileTooLargeError:
        return _too_large(tool, rel, None)
    except JobenvError as exc:
        # Tell a missing file from a folder so the model knows which tool to use next.
        kind = await _kind(tb, rel)
        if kind == "dir":
            return tool_error(tool, f"{display_path(rel)} is a folder; use ls or glob to see its files", "is_dir")
        if kind is None:
            return tool_error(tool, f"{display_path(rel)} does not exist", "not_found")
        return tool_error(tool, str(exc), "sandbox")


async def _kind(tb: ToolContext, rel: str) -> str | None:
    """The entry type of ``rel`` ('file', 'dir', ...) or None when it does not exist."""
    try:
        entries = await tb.sandbox.list_files(posixpath.dirname(rel))
    except JobenvError:
        return None
    return next((e.type for e in entries if e.path == rel), None)


async def _extract(tb: ToolContext, rel: str, data: bytes) -> str:
    """The text the judge would see, parsed by the bounded extraction workers within the episode's deadline."""
    from ..extract.service import STOPPED_TIME, extraction_service

    left = READ_EXTRACT_S if tb.deadline is None else min(READ_EXTRACT_S, tb.deadline - time.monotonic())
    if left <= 0:
        return STOPPED_TIME
    tmp = await asyncio.to_thread(tempfile.mkdtemp, prefix="jobenv-read-")
    try:
        path = Path(tmp) / posixpath.basename(rel)
        await asyncio.to_thread(path.write_bytes, data)
        return await extraction_service().extract_file(path, mode="formulas", time_s=left)
    finally:
        await asyncio.to_thread(shutil.rmtree, tmp, True)


# -- write / edit ---------------------------------------------------------------------------------------
async def write_file(tb: ToolContext, p: WriteParams) -> ToolResult:
    rel = workspace_relpath(p.file_path)
    if not rel or rel in ("output", "task_folder"):
        return tool_error("write", f"{display_path(rel)} is a folder; give a file path such as output/notes.md", "is_dir")
    data = p.content.encode("utf-8")
    await tb.sandbox.write_file(rel, data)
    n_lines = p.content.count("\n") + (0 if p.content.endswith("\n") or not p.content else 1)
    return ToolResult(name="write", text=f"Wrote {len(data)} bytes ({n_lines} lines) to {display_path(rel)}.")


async def _load_text(tb: ToolContext, rel: str, tool: str) -> str | ToolResult:
    data = await _read_bytes(tb, rel, tool)
    if isinstance(data, ToolResult):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return tool_error(
            tool, f"{display_path(rel)} is not UTF-8 text; edit binary files with a script through bash", "binary"
        )


def _apply(text: str, old: str, new: str, replace_all: bool) -> tuple[str, int] | str:
    if old == new:
        return "old_string and new_string are identical; nothing to change"
    count = text.count(old)
    if count == 0:
        return "old_string was not found in the file (it must match exactly, including whitespace and newlines)"
    if count > 1 and not replace_all:
        return f"old_string occurs {count} times; add surrounding text to make it unique, or set replace_all=true"
    return (text.replace(old, new) if replace_all else text.replace(old, new, 1)), (count if replace_all else 1)


async def edit_file(tb: ToolContext, p: EditParams) -> ToolResult:
    rel = workspace_relpath(p.file_path)
    text = await _load_text(tb, rel, "edit")
    if isinstance(text, ToolResult):
        return text
    res = _apply(text, p.old_string, p.new_string, p.replace_all)
    if isinstance(res, str):
        return tool_error("edit", f"{res}. {display_path(rel)} was not changed.", "edit")
    new_text, n = res
    await tb.sandbox.write_file(rel, new_text.encode("utf-8"))
    first = new_text[: new_text.find(p.new_string)].count("\n") + 1 if p.new_string else None
    where = f" (first change at line {first})" if first else ""
    return ToolResult(name="edit", text=f"Edited {display_path(rel)}: {n} replacement(s){where}.", metadata={"replacements": n})


async def multi_edit_file(tb: ToolContext, p: MultiEditParams) -> ToolResult:
    rel = workspace_relpath(p.file_path)
    text = await _load_text(tb, rel, "multi_edit")
    if isinstance(text, ToolResult):
        return text
    total = 0
    for k, e in enumerate(p.edits):
        res = _apply(text, e.old_string, e.new_string, e.replace_all)
        if isinstance(res, str):
            return tool_error(
                "multi_edit", f"edit {k} of {len(p.edits)} (0-based) failed: {res}. No edit was applied; "
                f"{display_path(rel)} is unchanged.", "edit"
            )
        text, n = res
        total += n
    await tb.sandbox.write_file(rel, text.encode("utf-8"))
    return ToolResult(
        name="multi_edit",
        text=f"Applied {len(p.edits)} edit(s) to {display_path(rel)}: {total} replacement(s).",
        metadata={"replacements": total},
    )
