"""Parameter models of the agent's tools (pydantic, ``extra="forbid"``): what a model may pass to each tool.

Names follow the OpenReward CLI toolset so an agent trained here transfers. Validation failures are turned
into a message for the model by :func:`jobenv.tools.validate_arguments`; nothing here raises on its own.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

__all__ = [
    "DEFAULT_READ_LIMIT",
    "MAX_PATTERN_CHARS",
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
]

DEFAULT_READ_LIMIT = 2000
MAX_PATTERN_CHARS = 1000  # a glob longer than any real path is a mistake or an attack


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


class PythonParams(_Params):
    """Run a cell in the episode's persistent Python interpreter."""

    code: str = Field(
        description="Python source to run in /workspace. Variables, imports and functions persist across calls, "
        "like notebook cells; the value of a final expression is shown."
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        description="Seconds before the interpreter is killed and restarted, losing its state (default 120, "
        "capped at 600).",
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
        max_length=MAX_PATTERN_CHARS,
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
    ignore: list[Annotated[str, Field(max_length=MAX_PATTERN_CHARS)]] | None = Field(
        default=None, max_length=100, description="Glob patterns of names to leave out."
    )


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
