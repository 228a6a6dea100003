"""Listing and search tools: ``glob`` (paths by pattern), ``ls`` (one folder) and ``grep`` (contents, run
inside the sandbox with GNU grep). Each returns a :class:`ToolResult`; agent mistakes become ``ok=False``."""

from __future__ import annotations

import asyncio
import posixpath
import shlex
from typing import TYPE_CHECKING

from ..sandbox.base import WORKSPACE, FileEntry, cap_output, workspace_relpath
from .globmatch import compile_glob
from .params import GlobParams, GrepParams, LsParams
from .result import ToolResult, display_path, human_size, listing_base, tool_error

if TYPE_CHECKING:
    from .result import ToolContext

__all__ = ["MAX_LIST_ENTRIES", "find_files", "list_folder", "grep_files"]

MAX_LIST_ENTRIES = 1000
# Matching is linear, but a listing of many long names is still real work: past this many, leave the loop.
_OFF_LOOP_ENTRIES = 256


async def find_files(tb: ToolContext, p: GlobParams) -> ToolResult:
    base = workspace_relpath(p.path or ".")
    pattern = p.pattern.strip()
    if pattern.startswith("/"):
        # An absolute pattern is matched against full workspace paths, whatever ``path`` says.
        if not (pattern == WORKSPACE or pattern.startswith(WORKSPACE + "/")):
            return tool_error("glob", f"pattern {p.pattern!r} is outside {WORKSPACE}", "path")
        pattern = pattern[len(WORKSPACE) + 1 :]
        base = ""
    entries = await tb.sandbox.list_files(base)
    matcher = compile_glob(pattern)
    by_name = "/" not in pattern
    base = listing_base(entries, base)
    prefix = f"{base}/" if base else ""

    def select() -> list[str]:
        hits = []
        for e in entries:
            if e.type == "dir":
                continue
            sub = e.path[len(prefix):] if prefix and e.path.startswith(prefix) else e.path
            if matcher.match(posixpath.basename(sub) if by_name else sub):
                hits.append(e.path)
        return hits

    hits = await asyncio.to_thread(select) if len(entries) > _OFF_LOOP_ENTRIES else select()
    if not hits:
        return ToolResult(name="glob", text=f"No files match {p.pattern!r} under {display_path(base)}.", metadata={"count": 0})
    shown = hits[:MAX_LIST_ENTRIES]
    text = "\n".join(shown)
    if len(hits) > len(shown):
        text += f"\n[{len(hits) - len(shown)} more matches not shown; narrow the pattern]"
    return ToolResult(name="glob", text=text, metadata={"count": len(hits)})


async def list_folder(tb: ToolContext, p: LsParams) -> ToolResult:
    rel = workspace_relpath(p.path)
    entries = await tb.sandbox.list_files(rel)
    if len(entries) == 1 and entries[0].type != "dir" and posixpath.basename(entries[0].path) == posixpath.basename(rel):
        e = entries[0]
        return ToolResult(name="ls", text=f"{display_path(rel)} is a {e.type} ({human_size(e.size)}), not a folder.")
    rel = listing_base(entries, rel)
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
    ignore = [compile_glob(g) for g in (p.ignore or [])]

    def kept() -> list[str]:
        return [name for name in sorted(children) if not any(m.match(name) for m in ignore)]

    names = await asyncio.to_thread(kept) if ignore and len(children) * len(ignore) > _OFF_LOOP_ENTRIES else kept()
    rows = []
    for name in names:
        e = children[name]
        if e.type == "dir":
            rows.append(f"{name}/  ({counts.get(name, 0)} entries inside)")
        elif e.type == "symlink":
            rows.append(f"{name}  (symlink, not followed)")
        elif e.type == "other":
            rows.append(f"{name}  (special file)")
        else:
            rows.append(f"{name}  ({human_size(e.size)})")
    if not rows:
        return ToolResult(name="ls", text=f"{display_path(rel)} is empty.", metadata={"count": 0})
    shown = rows[:MAX_LIST_ENTRIES]
    text = f"{display_path(rel)}:\n" + "\n".join(shown)
    if len(rows) > len(shown):
        text += f"\n[{len(rows) - len(shown)} more entries not shown]"
    return ToolResult(name="ls", text=text, metadata={"count": len(rows)})


async def grep_files(tb: ToolContext, p: GrepParams) -> ToolResult:
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
    res = await tb.sandbox.run(script, tb.command_timeout(None))
    if res.exit_code == 3:
        return tool_error("grep", f"{display_path(rel)} does not exist", "not_found")
    if res.exit_code == 4:
        return tool_error("grep", f"{display_path(rel)} leads outside {WORKSPACE} (symlink); refused", "path")
    if res.exit_code == 1 and not res.output.strip():
        return ToolResult(name="grep", text=f"No matches for {p.pattern!r} under {display_path(rel)}.", metadata={"count": 0})
    if res.timed_out or res.exit_code not in (0, 1):
        return tool_error("grep", f"grep failed (exit {res.exit_code}): {res.output.strip()[:2000]}", "grep")
    lines = [ln for ln in res.output.splitlines() if ln]
    if p.output_mode == "count":
        lines = [ln for ln in lines if not ln.endswith(":0")]
    lines = [ln[2:] if ln.startswith("./") else ln for ln in lines]
    total = len(lines)
    if p.head_limit is not None:
        lines = lines[: p.head_limit]
    text, cut = cap_output("\n".join(lines), tb.output_chars)
    if total > len(lines):
        text += f"\n[{total - len(lines)} more lines not shown (head_limit={p.head_limit})]"
    if not text.strip():
        text = f"No matches for {p.pattern!r} under {display_path(rel)}."
    return ToolResult(name="grep", text=text, metadata={"lines": total, "truncated": cut or res.truncated})
