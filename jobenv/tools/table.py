"""The one table of the agent's tools. Every tool is declared once, as a :class:`ToolSpec`; everything else
is derived from :data:`TOOL_SPECS`: the OpenAI function schemas (:func:`tool_schemas`), argument validation
and dispatch (:class:`~jobenv.tools.Toolbox`), the prompt's tool list, hosting's set of tools that may run
concurrently, and the env's sample actions (:func:`sample_actions`).
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from . import params as P
from .files import edit_file, multi_edit_file, read_file, write_file
from .interpreter import run_python
from .listing import find_files, grep_files, list_folder
from .result import ToolResult
from .shell import run_bash
from .todo import submit, write_todos

if TYPE_CHECKING:
    from .result import ToolContext

__all__ = [
    "SUBMIT",
    "ToolSpec",
    "TOOL_SPECS",
    "TOOL_NAMES",
    "OPTIONAL_TOOLS",
    "TOOL_PARAMS",
    "TOOL_DESCRIPTIONS",
    "CONCURRENT_TOOLS",
    "tool_spec",
    "tool_names",
    "check_tool_names",
    "tool_schemas",
    "tool_summary",
    "sample_actions",
    "validate_arguments",
]

SUBMIT = "submit"

Handler = Callable[["ToolContext", Any], Awaitable[ToolResult]]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, parameter model, description for the model, handler, and three derived-use flags.

    ``concurrent``: the call only reads (or runs a command that must not wait on another), so a server may
    run it alongside other calls of the same session. ``examples``: read-only argument sets that are safe and
    deterministic on a freshly reset task; they become the env's sampled actions. ``optional``: off unless an
    episode's rules name it in ``tools`` (the official toolset does not have it).
    """

    name: str
    params: type[BaseModel]
    description: str
    handler: Handler
    concurrent: bool = False
    examples: tuple[dict[str, Any], ...] = ()
    optional: bool = False


TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "bash", P.BashParams,
        "Run a bash command in /workspace (no network unless the task says otherwise). Returns the combined "
        "stdout and stderr (long output keeps its head and tail) and the exit code. Use it to run Python scripts, "
        "e.g. to read or produce xlsx/docx/pptx/pdf files or query SQLite databases.",
        run_bash, concurrent=True, examples=({"command": "pwd"},),
    ),
    ToolSpec(
        "python", P.PythonParams,
        "Run Python code in a persistent interpreter in /workspace: variables, imports and functions survive "
        "between calls, like notebook cells. Returns what the code printed, the value of a final expression and "
        "a traceback on error. A call that times out restarts the interpreter and loses its state; processes "
        "the code starts do not outlive the call.",
        run_python, optional=True,
    ),
    ToolSpec(
        "read", P.ReadParams,
        "Read a file under /workspace with numbered lines (`cat -n` style). Office, PDF, SQLite and notebook "
        "files are shown as extracted text (sheets as CSV, slides and pages as sections). Use offset/limit to page "
        "through long files.",
        read_file, concurrent=True, examples=({"file_path": "task_folder/TASK_INSTRUCTIONS.txt", "limit": 20},),
    ),
    ToolSpec(
        "write", P.WriteParams,
        "Create or overwrite a text file under /workspace with exactly the given content. For binary formats "
        "(xlsx, docx, pptx, pdf) write a script and run it with bash instead.",
        write_file,
    ),
    ToolSpec(
        "edit", P.EditParams,
        "Replace one exact occurrence of old_string with new_string in a text file (or every occurrence with "
        "replace_all). Fails, changing nothing, when old_string is absent or occurs more than once without "
        "replace_all.",
        edit_file,
    ),
    ToolSpec(
        "multi_edit", P.MultiEditParams,
        "Apply several exact-string replacements to one text file in order, all or nothing: if any edit "
        "fails the file is unchanged.",
        multi_edit_file,
    ),
    ToolSpec(
        "glob", P.GlobParams,
        "List files whose path matches a glob pattern (`**` spans folders; a pattern without `/` matches names "
        "at any depth), sorted by path.",
        find_files, concurrent=True, examples=({"pattern": "*"},),
    ),
    ToolSpec(
        "grep", P.GrepParams,
        "Search file contents under /workspace with an extended regular expression (binary files such as xlsx "
        "are skipped: use read for those). Output modes: content (default), files_with_matches, count.",
        grep_files, concurrent=True,
    ),
    ToolSpec(
        "ls", P.LsParams,
        "List the entries of a folder under /workspace with their types and sizes.",
        list_folder, concurrent=True, examples=({"path": "task_folder"},),
    ),
    ToolSpec(
        "todo_write", P.TodoWriteParams,
        "Keep a todo list for planning this task; each call replaces the whole list and shows it back.",
        write_todos, examples=({"todos": [{"content": "read the instructions", "status": "in_progress"}]},),
    ),
    ToolSpec(
        SUBMIT, P.SubmitParams,
        "Submit your work: the files in /workspace/output are graded and the episode ends. Call it once, "
        "only after every deliverable is saved in /workspace/output.",
        submit,
    ),
)

_BY_NAME: dict[str, ToolSpec] = {s.name: s for s in TOOL_SPECS}
#: the default toolset (the official one plus submit), in table order
TOOL_NAMES: tuple[str, ...] = tuple(s.name for s in TOOL_SPECS if not s.optional)
#: tools an episode may add through its rules' ``tools``
OPTIONAL_TOOLS: tuple[str, ...] = tuple(s.name for s in TOOL_SPECS if s.optional)
#: parameter models of the tools that take arguments (every tool but ``submit``)
TOOL_PARAMS: dict[str, type[BaseModel]] = {s.name: s.params for s in TOOL_SPECS if s.name != SUBMIT}
TOOL_DESCRIPTIONS: dict[str, str] = {s.name: s.description for s in TOOL_SPECS}
CONCURRENT_TOOLS: frozenset[str] = frozenset(s.name for s in TOOL_SPECS if s.concurrent)


def check_tool_names(extra: Any) -> tuple[str, ...]:
    """``extra`` as a tuple of optional tool names, in table order; ValueError naming the choices otherwise."""
    if isinstance(extra, str):
        extra = [t for t in extra.split(",") if t.strip()]
    names = [str(t).strip() for t in extra or ()]
    unknown = [n for n in names if n not in OPTIONAL_TOOLS]
    if unknown:
        raise ValueError(f"unknown optional tool {unknown[0]!r}: choose from {', '.join(OPTIONAL_TOOLS)}")
    return tuple(n for n in OPTIONAL_TOOLS if n in names)


@functools.cache  # per tool call in hosting: computed once per set
def tool_names(extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The tools of an episode that enables the optional tools ``extra``, in table order (``submit`` last)."""
    return tuple(s.name for s in TOOL_SPECS if not s.optional or s.name in extra)


def tool_spec(name: str) -> ToolSpec | None:
    """The spec of tool ``name``, or None for an unknown name."""
    return _BY_NAME.get(name)


def sample_actions() -> list[dict[str, Any]]:
    """Read-only example calls ``{"name", "arguments"}`` drawn from the table (fresh copies)."""
    return [{"name": s.name, "arguments": copy.deepcopy(a)} for s in TOOL_SPECS for a in s.examples]


def tool_schemas(*, compact: bool = False, extra: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """OpenAI function-calling schemas of the default tools plus the optional tools ``extra`` (``submit`` last),
    with descriptions a model can act on.

    ``compact``: each tool's first sentence and no parameter descriptions (about a third of the size), for
    trainers that put the tool list in a short prompt (text-template tool calling). Built once per process;
    each call returns a fresh copy (decoded from the cached JSON: ~10x cheaper than a deep copy, and it runs
    on the event loop once per episode), so callers may modify it.
    """
    return json.loads(_tool_schemas_json(compact, tuple(extra)))


def tool_summary(name: str) -> str:
    """The first sentence of tool ``name``'s description (KeyError for an unknown name)."""
    text = _BY_NAME[name].description
    end = text.find(". ")
    return text if end < 0 else text[:end + 1]


@functools.cache
def _tool_schemas_json(compact: bool, extra: tuple[str, ...]) -> str:
    return json.dumps(_tool_schemas(compact, tool_names(extra)))


def _tool_schemas(compact: bool, names: tuple[str, ...]) -> list[dict[str, Any]]:
    out = []
    for s in (_BY_NAME[n] for n in names):
        if not s.params.model_fields:
            params: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
        else:
            params = _clean_schema(s.params.model_json_schema(by_alias=True))
        description = s.description
        if compact:
            params, description = _strip_descriptions(params), tool_summary(s.name)
        out.append({"type": "function", "function": {"name": s.name, "description": description, "parameters": params}})
    return out


# what a compact schema leaves out: prose and bounds (arguments are still validated against the full ones)
_VERBOSE_KEYS = frozenset({"description", "examples", "default", "additionalProperties", "minLength", "maxLength",
                           "minimum", "maximum", "exclusiveMinimum", "minItems", "maxItems"})


def _strip_descriptions(node: Any) -> Any:
    if isinstance(node, dict):
        props = node.get("properties")
        return {k: ({p: _strip_descriptions(v) for p, v in props.items()} if k == "properties" and isinstance(props, dict)
                    else _strip_descriptions(v))
                for k, v in node.items() if k not in _VERBOSE_KEYS}
    if isinstance(node, list):
        return [_strip_descriptions(x) for x in node]
    return node


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


def _format_validation_error(spec: ToolSpec, exc: ValidationError) -> str:
    lines = [f"Error: invalid arguments for {spec.name}:"]
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown parameter"
        lines.append(f"  - {loc}: {msg}")
    props = _clean_schema(spec.params.model_json_schema(by_alias=True))
    lines.append(f"Parameters of {spec.name}: {json.dumps(props.get('properties', {}), ensure_ascii=False)[:1500]}")
    return "\n".join(lines)


def validate_arguments(name: str, arguments: Any, extra: tuple[str, ...] = ()) -> BaseModel | str:
    """Validate ``arguments`` for tool ``name`` of an episode with the optional tools ``extra``: the params model,
    or an error message for the model."""
    spec = _BY_NAME.get(name) if isinstance(name, str) else None
    if spec is None or (spec.optional and spec.name not in extra):
        return f"Error: unknown tool {name!r}. Available tools: {', '.join(tool_names(extra))}."
    if arguments is None:
        arguments = {}
    if spec.name == SUBMIT:
        return spec.params()  # submit ignores whatever it is given, so a stray field never blocks a submission
    if not isinstance(arguments, dict):
        return f"Error: arguments for {name} must be a JSON object, got {type(arguments).__name__}."
    try:
        return spec.params.model_validate(arguments)
    except ValidationError as exc:
        return _format_validation_error(spec, exc)
