"""The agent's tools, implemented over any :class:`~jobenv.sandbox.base.Sandbox`.

Tool names and parameter names follow the OpenReward CLI toolset (``bash``, ``read``, ``write``, ``edit``,
``multi_edit``, ``glob``, ``grep``, ``ls``, ``todo_write``) so an agent trained here transfers; ``submit``
ends the episode. Each tool's parameters are a pydantic model (:data:`TOOL_PARAMS`) that hosting code reuses,
and :func:`tool_schemas` turns them into OpenAI function-calling schemas.

Paths are relative to ``/workspace``; absolute paths must stay inside it. ``..`` escapes are refused here and
symlink escapes by the sandbox; either way the agent gets a clear message, never an exception.

Failure behaviour: :meth:`Toolbox.call` never raises for anything an agent can cause (unknown tool, bad
arguments, missing files, sandbox errors); it returns a :class:`ToolResult` with ``ok=False`` and a message
that says what went wrong and how to fix it.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import posixpath
import re
import shlex
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from .errors import JobenvError, WorkspacePathError
from .sandbox.base import WORKSPACE, FileEntry, Sandbox, cap_output, workspace_relpath

__all__ = [
    "SUBMIT",
    "TOOL_NAMES",
    "TOOL_PARAMS",
    "TOOL_DESCRIPTIONS",
    "BashParams",
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
    "tool_schemas",
    "validate_arguments",
]

SUBMIT = "submit"

# File types whose bytes mean nothing to a model: read shows the same extracted text the judge sees.
EXTRACTED_SUFFIXES = frozenset(
    {".xlsx", ".xlsm", ".xls", ".docx", ".pptx", ".pdf", ".db", ".sqlite", ".sqlite3", ".ipynb"}
)
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff", ".svg"})
DEFAULT_READ_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_LIST_ENTRIES = 1000


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class BashParams(_Params):
    """Run a shell command."""

    command: str = Field(
        description="The bash command to run. It runs with `bash -c` in /workspace; each call starts a fresh "
        "shell, so `cd` and variables do not carry over (chain commands with && instead)."
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        description="Seconds before the command and all its children are killed (default 120, capped at 600).",
    )


_PATH_ALIASES = AliasChoices("file_path", "path")


class ReadParams(_Params):
    """Read a file with numbered lines."""

    file_path: str = Field(
        validation_alias=_PATH_ALIASES,
        description="File to read, relative to /workspace (e.g. task_folder/TASK_INSTRUCTIONS.txt) or an "
        "absolute path under /workspace. `path` is accepted as a synonym.",
    )
    offset: int | None = Field(
        default=None, ge=1, description="1-based line number to start from (default 1). Use it to page on."
    )
    limit: int | None = Field(
        default=None, ge=1, description=f"Maximum number of lines to show (default {DEFAULT_READ_LIMIT})."
    )


class WriteParams(_Params):
    """Create or overwrite a text file."""

    file_path: str = Field(
        validation_alias=_PATH_ALIASES,
        description="File to write, relative to /workspace (e.g. output/report.md). Parent folders are "
        "created. `path` is accepted as a synonym.",
    )
    content: str = Field(description="The complete new content of the file, written exactly as given (UTF-8).")


class EditParams(_Params):
    """Replace an exact string in a text file."""

    file_path: str = Field(
        validation_alias=_PATH_ALIASES,
        description="Text file to edit, relative to /workspace. `path` is accepted as a synonym.",
    )
    old_string: str = Field(
        min_length=1,
        description="Exact text to replace (whitespace and newlines included; no regex). It must occur exactly "
        "once unless replace_all is true: add surrounding lines to make it unique.",
    )
    new_string: str = Field(description="Text to put in its place (must differ from old_string).")
    replace_all: bool = Field(default=False, description="Replace every occurrence instead of exactly one.")


class EditOperation(_Params):
    """One replacement inside a multi_edit."""

    old_string: str = Field(min_length=1, description="Exact text to replace, as in the edit tool.")
    new_string: str = Field(description="Replacement text.")
    replace_all: bool = Field(default=False, description="Replace every occurrence instead of exactly one.")


class MultiEditParams(_Params):
    """Apply several replacements to one file, all or nothing."""

    file_path: str = Field(
        validation_alias=_PATH_ALIASES,
        description="Text file to edit, relative to /workspace. `path` is accepted as a synonym.",
    )
    edits: list[EditOperation] = Field(
        min_length=1,
        description="Replacements applied in order, each to the result of the previous one. If any fails, "
        "the file is left unchanged.",
    )


class GlobParams(_Params):
    """Find files by name pattern."""

    pattern: str = Field(
        min_length=1,
        description="Glob pattern. `*` and `?` stay within one folder, `**` spans folders "
        "(e.g. `task_folder/**/*.csv`). A pattern without `/` matches file names at any depth (e.g. `*.xlsx`).",
    )
    path: str | None = Field(default=None, description="Folder to search in, relative to /workspace (default: all).")


class GrepParams(_Params):
    """Search file contents with a regular expression."""

    pattern: str = Field(min_length=1, description="Extended regular expression (grep -E syntax) to search for.")
    path: str | None = Field(
        default=None, description="File or folder to search, relative to /workspace (default: all of it)."
    )
    glob: str | None = Field(
        default=None,
        validation_alias=AliasChoices("glob", "include"),
        description="Only search files whose name matches this glob, e.g. `*.csv`. `include` is a synonym.",
    )
    output_mode: Literal["content", "files_with_matches", "count"] = Field(
        default="content",
        description="`content`: matching lines with file and line number; `files_with_matches`: file names "
        "only; `count`: matches per file.",
    )
    case_insensitive: bool = Field(
        default=False, validation_alias=AliasChoices("-i", "case_insensitive"), description="Ignore case."
    )
    context: int | None = Field(
        default=None,
        ge=0,
        le=50,
        validation_alias=AliasChoices("-C", "context"),
        description="Lines of context around each match (content mode).",
    )
    after: int | None = Field(
        default=None, ge=0, le=50, validation_alias=AliasChoices("-A", "after"), description="Lines after each match."
    )
    before: int | None = Field(
        default=None, ge=0, le=50, validation_alias=AliasChoices("-B", "before"), description="Lines before each match."
    )
    head_limit: int | None = Field(default=None, ge=1, description="Show at most this many output lines.")


class LsParams(_Params):
    """List a folder."""

    path: str = Field(default=".", description="Folder to list, relative to /workspace (default: /workspace).")
    ignore: list[str] | None = Field(default=None, description="Glob patterns of names to leave out.")


class TodoItem(_Params):
    """One item of the agent's plan."""

    content: str = Field(min_length=1, description="What to do.")
    status: Literal["pending", "in_progress", "completed"] = "pending"
    priority: Literal["low", "medium", "high"] = "medium"
    id: str | None = None


class TodoWriteParams(_Params):
    """Replace the todo list."""

    todos: list[TodoItem] = Field(description="The whole updated list (it replaces the previous one).")


class SubmitParams(BaseModel):
    """Submit takes no arguments; anything passed is ignored so a stray field never blocks a submission."""

    model_config = ConfigDict(extra="ignore")


TOOL_PARAMS: dict[str, type[BaseModel]] = {
    "bash": BashParams,
    "read": ReadParams,
    "write": WriteParams,
    "edit": EditParams,
    "multi_edit": MultiEditParams,
    "glob": GlobParams,
    "grep": GrepParams,
    "ls": LsParams,
    "todo_write": TodoWriteParams,
}
TOOL_NAMES: tuple[str, ...] = (*TOOL_PARAMS, SUBMIT)

TOOL_DESCRIPTIONS: dict[str, str] = {
    "bash": "Run a bash command in /workspace (no network unless the task says otherwise). Returns the combined "
    "stdout and stderr (long output keeps its head and tail) and the exit code. Use it to run Python scripts, "
    "e.g. to read or produce xlsx/docx/pptx/pdf files or query SQLite databases.",
    "read": "Read a file under /workspace with numbered lines (`cat -n` style). Office, PDF, SQLite and notebook "
    "files are shown as extracted text (sheets as CSV, slides and pages as sections). Use offset/limit to page "
    "through long files.",
    "write": "Create or overwrite a text file under /workspace with exactly the given content. For binary formats "
    "(xlsx, docx, pptx, pdf) write a script and run it with bash instead.",
    "edit": "Replace one exact occurrence of old_string with new_string in a text file (or every occurrence with "
    "replace_all). Fails, changing nothing, when old_string is absent or occurs more than once without replace_all.",
    "multi_edit": "Apply several exact-string replacements to one text file in order, all or nothing: if any edit "
    "fails the file is unchanged.",
    "glob": "List files whose path matches a glob pattern (`**` spans folders; a pattern without `/` matches names "
    "at any depth), sorted by path.",
    "grep": "Search file contents under /workspace with an extended regular expression (binary files such as xlsx "
    "are skipped: use read for those). Output modes: content (default), files_with_matches, count.",
    "ls": "List the entries of a folder under /workspace with their types and sizes.",
    "todo_write": "Keep a todo list for planning this task; each call replaces the whole list and shows it back.",
    "submit": "Submit your work: the files in /workspace/output are graded and the episode ends. Call it once, "
    "only after every deliverable is saved in /workspace/output.",
}


class ToolResult(BaseModel):
    """What a tool call gives back: ``text`` for the model, ``ok`` False on any error, ``submitted`` on submit."""

    name: str
    text: str
    ok: bool = True
    submitted: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)


def tool_schemas() -> list[dict[str, Any]]:
    """OpenAI function-calling schemas of every tool (``submit`` last), with descriptions a model can act on.

    Built once per process; each call returns a fresh deep copy, so callers may modify it.
    """
    return copy.deepcopy(_tool_schemas())


@functools.cache
def _tool_schemas() -> list[dict[str, Any]]:
    out = []
    for name in TOOL_NAMES:
        if name == SUBMIT:
            params: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
        else:
            params = _clean_schema(TOOL_PARAMS[name].model_json_schema(by_alias=True))
        out.append({"type": "function", "function": {"name": name, "description": TOOL_DESCRIPTIONS[name], "parameters": params}})
    return out


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Make a pydantic schema plain for function calling: ``$defs`` inlined (some OpenAI-compatible servers
    mishandle ``$ref``), titles dropped, ``Optional[X]`` shown as ``X``, no top-level description."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                extra = {k: v for k, v in node.items() if k != "$ref"}
                return walk({**defs[ref.split("/")[-1]], **extra})
            node = {k: walk(v) for k, v in node.items() if k not in ("title", "$defs")}
            any_of = node.get("anyOf")
            if isinstance(any_of, list) and len(any_of) == 2 and {"type": "null"} in any_of:
                other = next(x for x in any_of if x != {"type": "null"})
                node.pop("anyOf")
                node = {**other, **node}
                if "default" in node and node["default"] is None:
                    node.pop("default")
            return node
        if isinstance(node, list):
            return [walk(x) for x in node]
        return node

    out = walk(schema)
    out.pop("description", None)
    return out


def _format_validation_error(name: str, exc: ValidationError) -> str:
    lines = [f"Error: invalid arguments for {name}:"]
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown parameter"
        lines.append(f"  - {loc}: {msg}")
    props = _clean_schema(TOOL_PARAMS[name].model_json_schema(by_alias=True))
    lines.append(f"Parameters of {name}: {json.dumps(props.get('properties', {}), ensure_ascii=False)[:1500]}")
    return "\n".join(lines)


def validate_arguments(name: str, arguments: Any) -> BaseModel | str:
    """Validate ``arguments`` for tool ``name``: the params model, or an error message for the model."""
    if name == SUBMIT:
        return SubmitParams()
    model = TOOL_PARAMS.get(name)
    if model is None:
        return f"Error: unknown tool {name!r}. Available tools: {', '.join(TOOL_NAMES)}."
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return f"Error: arguments for {name} must be a JSON object, got {type(arguments).__name__}."
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        return _format_validation_error(name, exc)


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob over POSIX relative paths: ``*``/``?``/``[..]`` within one segment, ``**`` across them."""
    i, out = 0, []
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def _display(rel: str) -> str:
    return f"{WORKSPACE}/{rel}" if rel else WORKSPACE


def _listing_base(entries: list[FileEntry], base: str) -> str:
    """The folder a recursive listing is really rooted at: ``base`` itself, or, when ``base`` went through a
    symlink inside the workspace, the resolved folder (the parent of the shallowest entry)."""
    prefix = f"{base}/" if base else ""
    if not entries or not prefix or all(e.path.startswith(prefix) for e in entries):
        return base
    shallowest = min(entries, key=lambda e: e.path.count("/"))
    return posixpath.dirname(shallowest.path)


def _human_size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


class Toolbox:
    """The tools of one episode over one started sandbox; holds the episode's todo list.

    ``call`` validates the arguments with :data:`TOOL_PARAMS` and never raises for agent-caused problems.
    """

    def __init__(self, sandbox: Sandbox, *, read_char_budget: int | None = None) -> None:
        self.sandbox = sandbox
        self.todos: list[dict[str, Any]] = []
        self.deadline: float | None = None  # time.monotonic() value after which bash commands are cut short
        limit = getattr(getattr(sandbox, "limits", None), "output_chars", 30_000)
        self.output_chars = int(limit)
        self.read_char_budget = read_char_budget or max(self.output_chars, 30_000)

    async def call(self, name: str, arguments: Any = None) -> ToolResult:
        """Run tool ``name``; errors of any kind come back as ``ToolResult(ok=False)`` with an explanation."""
        params = validate_arguments(name, arguments)
        if isinstance(params, str):
            return ToolResult(name=str(name), text=params, ok=False, metadata={"error": "invalid_arguments"})
        if name == SUBMIT:
            return ToolResult(name=SUBMIT, text="Submitted.", submitted=True)
        try:
            return await getattr(self, f"_tool_{name}")(params)
        except WorkspacePathError as exc:
            return self._error(name, f"{exc}. Use paths relative to {WORKSPACE}, e.g. output/report.md.", "path")
        except JobenvError as exc:
            return self._error(name, str(exc), "sandbox")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool bug must not end the trainer's process; the agent sees what happened
            return self._error(name, f"internal error in the {name} tool: {type(exc).__name__}: {exc}", "internal")

    @staticmethod
    def _error(name: str, message: str, kind: str) -> ToolResult:
        text = message if message.startswith("Error") else f"Error: {message}"
        return ToolResult(name=name, text=text, ok=False, metadata={"error": kind})

    # -- bash -------------------------------------------------------------------------------------------
    async def _tool_bash(self, p: BashParams) -> ToolResult:
        if not p.command.strip():
            return self._error("bash", "command is empty", "invalid_arguments")
        timeout = p.timeout
        if self.deadline is not None:
            # An episode time limit also bounds a single command, so one call cannot overrun it by much.
            left = max(1.0, self.deadline - time.monotonic())
            timeout = min(timeout if timeout is not None else self.sandbox.limits.timeout_s, left)
        res = await self.sandbox.run(p.command, timeout)
        notes = []
        if res.timed_out:
            notes.append(f"the command hit its time limit ({self.sandbox.limits.clamp_timeout(timeout):g} s) and was killed")
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

    # -- read -------------------------------------------------------------------------------------------
    async def _tool_read(self, p: ReadParams) -> ToolResult:
        rel = workspace_relpath(p.file_path)
        if not rel:
            return self._error("read", f"{WORKSPACE} is a folder; use ls or glob to see its files", "is_dir")
        data = await self._read_bytes(rel, "read")
        if isinstance(data, ToolResult):
            return data
        suffix = posixpath.splitext(rel)[1].lower()
        note = ""
        if suffix in EXTRACTED_SUFFIXES:
            text = await self._extract(rel, data)
            note = f"[{_display(rel)}: {suffix[1:]} file shown as extracted text]\n"
        elif suffix in IMAGE_SUFFIXES:
            return ToolResult(
                name="read",
                text=f"{_display(rel)} is an image ({_human_size(len(data))}); its pixels cannot be shown as text.",
                metadata={"binary": True},
            )
        elif b"\x00" in data[:8192]:
            return ToolResult(
                name="read",
                text=f"{_display(rel)} is a binary file ({_human_size(len(data))}) of a type read cannot show; "
                "inspect it with a script through bash.",
                metadata={"binary": True},
            )
        else:
            text = data.decode("utf-8", errors="replace")
        if not text:
            return ToolResult(name="read", text=f"{note}({_display(rel)} is empty)")
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        start = (p.offset or 1) - 1
        if start >= len(lines):
            return self._error("read", f"offset {p.offset} is past the end of {_display(rel)} ({len(lines)} lines)", "range")
        limit = p.limit or DEFAULT_READ_LIMIT
        out, used, i = [], 0, start
        end = min(len(lines), start + limit)
        while i < end:
            line = lines[i]
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + f" [... line cut, {len(lines[i]) - MAX_LINE_CHARS} more characters]"
            row = f"{i + 1:>6}\t{line}"
            if out and used + len(row) > self.read_char_budget:
                break
            out.append(row)
            used += len(row) + 1
            i += 1
        body = note + "\n".join(out)
        if i < len(lines):
            body += f"\n[showing lines {start + 1}-{i} of {len(lines)}; call read with offset={i + 1} to continue]"
        return ToolResult(name="read", text=body, metadata={"lines": len(lines), "shown": [start + 1, i]})

    async def _read_bytes(self, rel: str, tool: str) -> bytes | ToolResult:
        try:
            return await self.sandbox.read_file(rel)
        except WorkspacePathError:
            raise
        except JobenvError as exc:
            # Tell a missing file from a folder so the model knows which tool to use next.
            kind = await self._kind(rel)
            if kind == "dir":
                return self._error(tool, f"{_display(rel)} is a folder; use ls or glob to see its files", "is_dir")
            if kind is None:
                return self._error(tool, f"{_display(rel)} does not exist", "not_found")
            return self._error(tool, str(exc), "sandbox")

    async def _kind(self, rel: str) -> str | None:
        """The entry type of ``rel`` ('file', 'dir', ...) or None when it does not exist."""
        try:
            entries = await self.sandbox.list_files(posixpath.dirname(rel))
        except JobenvError:
            return None
        return next((e.type for e in entries if e.path == rel), None)

    async def _extract(self, rel: str, data: bytes) -> str:
        from .extract import extract_file  # lazy: pulls in pandas/openpyxl

        name = posixpath.basename(rel)

        def work() -> str:
            with tempfile.TemporaryDirectory(prefix="jobenv-read-") as tmp:
                path = Path(tmp) / name
                path.write_bytes(data)
                return extract_file(path, mode="formulas")

        return await asyncio.to_thread(work)

    # -- write / edit -------------------------------------------------------------------------------------
    async def _tool_write(self, p: WriteParams) -> ToolResult:
        rel = workspace_relpath(p.file_path)
        if not rel or rel in ("output", "task_folder"):
            return self._error("write", f"{_display(rel)} is a folder; give a file path such as output/notes.md", "is_dir")
        data = p.content.encode("utf-8")
        await self.sandbox.write_file(rel, data)
        n_lines = p.content.count("\n") + (0 if p.content.endswith("\n") or not p.content else 1)
        return ToolResult(name="write", text=f"Wrote {len(data)} bytes ({n_lines} lines) to {_display(rel)}.")

    async def _load_text(self, rel: str, tool: str) -> str | ToolResult:
        data = await self._read_bytes(rel, tool)
        if isinstance(data, ToolResult):
            return data
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return self._error(
                tool, f"{_display(rel)} is not UTF-8 text; edit binary files with a script through bash", "binary"
            )

    @staticmethod
    def _apply(text: str, old: str, new: str, replace_all: bool) -> tuple[str, int] | str:
        if old == new:
            return "old_string and new_string are identical; nothing to change"
        count = text.count(old)
        if count == 0:
            return "old_string was not found in the file (it must match exactly, including whitespace and newlines)"
        if count > 1 and not replace_all:
            return (
                f"old_string occurs {count} times; add surrounding text to make it unique, or set replace_all=true"
            )
        return (text.replace(old, new) if replace_all else text.replace(old, new, 1)), (count if replace_all else 1)

    async def _tool_edit(self, p: EditParams) -> ToolResult:
        rel = workspace_relpath(p.file_path)
        text = await self._load_text(rel, "edit")
        if isinstance(text, ToolResult):
            return text
        res = self._apply(text, p.old_string, p.new_string, p.replace_all)
        if isinstance(res, str):
            return self._error("edit", f"{res}. {_display(rel)} was not changed.", "edit")
        new_text, n = res
        await self.sandbox.write_file(rel, new_text.encode("utf-8"))
        first = new_text[: new_text.find(p.new_string)].count("\n") + 1 if p.new_string else None
        where = f" (first change at line {first})" if first else ""
        return ToolResult(name="edit", text=f"Edited {_display(rel)}: {n} replacement(s){where}.", metadata={"replacements": n})

    async def _tool_multi_edit(self, p: MultiEditParams) -> ToolResult:
        rel = workspace_relpath(p.file_path)
        text = await self._load_text(rel, "multi_edit")
        if isinstance(text, ToolResult):
            return text
        total = 0
        for k, e in enumerate(p.edits):
            res = self._apply(text, e.old_string, e.new_string, e.replace_all)
            if isinstance(res, str):
                return self._error(
                    "multi_edit", f"edit {k} of {len(p.edits)} (0-based) failed: {res}. No edit was applied; "
                    f"{_display(rel)} is unchanged.", "edit"
                )
            text, n = res
            total += n
        await self.sandbox.write_file(rel, text.encode("utf-8"))
        return ToolResult(
            name="multi_edit",
            text=f"Applied {len(p.edits)} edit(s) to {_display(rel)}: {total} replacement(s).",
            metadata={"replacements": total},
        )

    # -- listing and search --------------------------------------------------------------------------------
    async def _tool_glob(self, p: GlobParams) -> ToolResult:
        base = workspace_relpath(p.path or ".")
        pattern = p.pattern.strip()
        if pattern.startswith("/"):
            # An absolute pattern is matched against full workspace paths, whatever ``path`` says.
            if not (pattern == WORKSPACE or pattern.startswith(WORKSPACE + "/")):
                return self._error("glob", f"pattern {p.pattern!r} is outside {WORKSPACE}", "path")
            pattern = pattern[len(WORKSPACE) + 1 :]
            base = ""
        entries = await self.sandbox.list_files(base)
        rx = glob_to_regex(pattern)
        by_name = "/" not in pattern
        base = _listing_base(entries, base)
        prefix = f"{base}/" if base else ""
        hits = []
        for e in entries:
            if e.type == "dir":
                continue
            sub = e.path[len(prefix):] if prefix and e.path.startswith(prefix) else e.path
            target = posixpath.basename(sub) if by_name else sub
            if rx.match(target):
                hits.append(e.path)
        if not hits:
            return ToolResult(name="glob", text=f"No files match {p.pattern!r} under {_display(base)}.", metadata={"count": 0})
        shown = hits[:MAX_LIST_ENTRIES]
        text = "\n".join(shown)
        if len(hits) > len(shown):
            text += f"\n[{len(hits) - len(shown)} more matches not shown; narrow the pattern]"
        return ToolResult(name="glob", text=text, metadata={"count": len(hits)})

    async def _tool_ls(self, p: LsParams) -> ToolResult:
        rel = workspace_relpath(p.path)
        entries = await self.sandbox.list_files(rel)
        if len(entries) == 1 and entries[0].type != "dir" and posixpath.basename(entries[0].path) == posixpath.basename(rel):
            e = entries[0]
            return ToolResult(name="ls", text=f"{_display(rel)} is a {e.type} ({_human_size(e.size)}), not a folder.")
        rel = _listing_base(entries, rel)
        prefix = f"{rel}/" if rel else ""
        children: dict[str, FileEntry] = {}
        counts: dict[str, int] = {}
        for e in entries:
            sub = e.path[len(prefix):] if prefix and e.path.startswith(prefix) else e.path
            if sub == "" or e.path == rel:
                continue
            head, _, rest = sub.partition("/")
            if rest:
                counts[head] = counts.get(head, 0) + 1
            else:
                children[head] = e
        ignore = [glob_to_regex(g) for g in (p.ignore or [])]
        rows = []
        for name in sorted(children):
            if any(rx.match(name) for rx in ignore):
                continue
            e = children[name]
            if e.type == "dir":
                rows.append(f"{name}/  ({counts.get(name, 0)} entries inside)")
            elif e.type == "symlink":
                rows.append(f"{name}  (symlink, not followed)")
            elif e.type == "other":
                rows.append(f"{name}  (special file)")
            else:
                rows.append(f"{name}  ({_human_size(e.size)})")
        if not rows:
            return ToolResult(name="ls", text=f"{_display(rel)} is empty.", metadata={"count": 0})
        shown = rows[:MAX_LIST_ENTRIES]
        text = f"{_display(rel)}:\n" + "\n".join(shown)
        if len(rows) > len(shown):
            text += f"\n[{len(rows) - len(shown)} more entries not shown]"
        return ToolResult(name="ls", text=text, metadata={"count": len(rows)})

    async def _tool_grep(self, p: GrepParams) -> ToolResult:
        rel = workspace_relpath(p.path or ".")
        target = rel or "."
        args = ["grep", "-r", "-I", "-E", "--color=never"]
        if p.case_insensitive:
            args.append("-i")
        if p.output_mode == "files_with_matches":
            args.append("-l")
        elif p.output_mode == "count":
            args.append("-c")
        else:
            args += ["-n", "-H"]
            if p.context is not None:
                args += ["-C", str(p.context)]
            if p.after is not None:
                args += ["-A", str(p.after)]
            if p.before is not None:
                args += ["-B", str(p.before)]
        if p.glob:
            args.append(f"--include={p.glob}")
        args += ["-e", p.pattern, "--", target]
        q = shlex.quote(target)
        # Refuse a search root that is (or passes through) a symlink leaving the workspace; grep follows it.
        script = (
            f"cd {WORKSPACE} || exit 2\n"
            f"[ -e {q} ] || {{ echo 'jobenv: no such file or folder' >&2; exit 3; }}\n"
            f"r=$(realpath -- {q}) || exit 2\n"
            f'case "$r" in {WORKSPACE}|{WORKSPACE}/*) ;; *) echo \'jobenv: outside workspace\' >&2; exit 4;; esac\n'
            + " ".join(shlex.quote(a) for a in args)
        )
        res = await self.sandbox.run(script)
        if res.exit_code == 3:
            return self._error("grep", f"{_display(rel)} does not exist", "not_found")
        if res.exit_code == 4:
            return self._error("grep", f"{_display(rel)} leads outside {WORKSPACE} (symlink); refused", "path")
        if res.exit_code == 1 and not res.output.strip():
            return ToolResult(name="grep", text=f"No matches for {p.pattern!r} under {_display(rel)}.", metadata={"count": 0})
        if res.timed_out or res.exit_code not in (0, 1):
            return self._error("grep", f"grep failed (exit {res.exit_code}): {res.output.strip()[:2000]}", "grep")
        lines = [ln for ln in res.output.splitlines() if ln]
        if p.output_mode == "count":
            lines = [ln for ln in lines if not ln.endswith(":0")]
        lines = [ln[2:] if ln.startswith("./") else ln for ln in lines]
        total = len(lines)
        if p.head_limit is not None:
            lines = lines[: p.head_limit]
        text, cut = cap_output("\n".join(lines), self.output_chars)
        if total > len(lines):
            text += f"\n[{total - len(lines)} more lines not shown (head_limit={p.head_limit})]"
        if not text.strip():
            text = f"No matches for {p.pattern!r} under {_display(rel)}."
        return ToolResult(name="grep", text=text, metadata={"lines": total, "truncated": cut or res.truncated})

    # -- todo ---------------------------------------------------------------------------------------------
    async def _tool_todo_write(self, p: TodoWriteParams) -> ToolResult:
        self.todos = [t.model_dump() for t in p.todos]
        if not self.todos:
            return ToolResult(name="todo_write", text="Todo list cleared.", metadata={"todos": []})
        marks = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
        rows = [f"{marks[t['status']]} {t['content']}" + (f" ({t['priority']})" if t["priority"] != "medium" else "")
                for t in self.todos]
        done = sum(t["status"] == "completed" for t in self.todos)
        return ToolResult(
            name="todo_write",
            text=f"Todo list ({done}/{len(self.todos)} done):\n" + "\n".join(rows),
            metadata={"todos": self.todos},
        )
