"""Jupyter notebooks as judge text: each cell's source and its saved outputs, never executed.

Outputs carry what the official reader shows: stream text, error name, message and traceback (terminal
colour codes removed), and the text representations of rich outputs - ``text/plain``, ``text/markdown``,
``text/html`` (rendered to visible text: scripts, styles and heads dropped, table cells tab-separated, one
row per line), ``text/latex`` and ``application/json`` - identical renderings shown once. Images are
placeholders here (the judge gets the pictures themselves, see ``notebook_images``).

Failure behaviour: a malformed notebook raises ValueError (the caller shows an extraction-failed marker);
a malformed cell or output becomes a ``[warning: ...]`` line and the rest is still shown.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from html.parser import HTMLParser
from typing import Any

__all__ = ["render_notebook", "html_to_text", "notebook_images", "NOTEBOOK_IMAGE_MIMES"]

NOTEBOOK_IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_TEXT_MIMES = ("text/plain", "text/markdown", "text/html", "text/latex", "application/json")
_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


class _VisibleText(HTMLParser):
    """Collects visible text; block tags break lines, table cells are separated by tabs."""

    _HIDDEN = frozenset({"script", "style", "template", "head"})
    _BREAKS = frozenset(
        "address article aside blockquote br div dl dt dd fieldset figcaption figure footer form h1 h2 h3 h4 h5 "
        "h6 header hr li main nav ol p pre section table tr ul".split()
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.hidden_depth = 0
        self.first_cell = True
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in self._HIDDEN:
            self.hidden_depth += 1
        elif self.hidden_depth:
            return
        elif tag in ("td", "th"):
            if not self.first_cell:
                self.chunks.append("\t")
            self.first_cell = False
        elif tag in self._BREAKS:
            self.chunks.append("\n")
            self.first_cell = True
        self.pre += tag == "pre"

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN:
            self.hidden_depth = max(0, self.hidden_depth - 1)
        elif not self.hidden_depth and tag in self._BREAKS:
            self.chunks.append("\n")
            self.first_cell = True
        self.pre -= tag == "pre" and self.pre > 0

    def handle_data(self, data: str) -> None:
        if self.hidden_depth:
            return
        self.chunks.append(data if self.pre else re.sub(r"\s+", " ", data))

    def text(self) -> str:
        lines = []
        for line in "".join(self.chunks).split("\n"):
            cells = [c.strip(" ") for c in line.split("\t")]
            if any(cells):
                lines.append("\t".join(cells))
        return "\n".join(lines)


def html_to_text(html: str) -> str:
    """The visible text of an HTML fragment (tables as tab-separated rows)."""
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return parser.text()


def _joined(value: Any, what: str, warnings: list[str], sep: str = "") -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        bad = [i for i, v in enumerate(value, 1) if not isinstance(v, str)]
        if bad:
            warnings.append(f"[warning: {what}: item(s) {bad[:5]} are not text; skipped]")
        return sep.join(v for v in value if isinstance(v, str))
    if value is not None:
        warnings.append(f"[warning: {what}: not text; skipped]")
    return ""


def _output(out: Any, where: str, parts: list[str]) -> None:
    if not isinstance(out, dict):
        parts.append(f"[warning: {where}: not an output object; skipped]")
        return
    kind = out.get("output_type")
    if kind == "stream" or "text" in out:
        text = _joined(out.get("text"), f"{where} text", parts)
        if text:
            parts.append(f"[output {out.get('name', 'stdout')}]\n{text}" if kind == "stream" else f"[output]\n{text}")
    if kind == "error":
        name = _joined(out.get("ename", ""), f"{where} error name", parts)
        msg = _joined(out.get("evalue", ""), f"{where} error message", parts)
        trace = _ANSI_RE.sub("", _joined(out.get("traceback", ""), f"{where} traceback", parts, "\n"))
        summary = ": ".join(x for x in (name, msg) if x)
        parts.append("[output error]" + (f" {summary}" if summary and summary not in trace else ""))
        if trace:
            parts.append(trace)
        return
    if kind not in ("display_data", "execute_result", "pyout"):
        return
    data = out.get("data") or {}
    if not isinstance(data, dict):
        parts.append(f"[warning: {where}: output data is not an object; skipped]")
        return
    seen: set[str] = set()
    for mime in _TEXT_MIMES:
        if mime not in data:
            continue
        try:
            if mime == "application/json":
                text = json.dumps(data[mime], ensure_ascii=False, indent=2)
            else:
                text = _joined(data[mime], f"{where} {mime}", parts)
                if mime == "text/html":
                    text = html_to_text(text)
        except Exception as exc:  # one odd representation must not hide the others
            parts.append(f"[warning: {where} {mime}: {type(exc).__name__}]")
            continue
        if text.strip() and text.strip() not in seen:
            seen.add(text.strip())
            parts.append(f"[output {mime}]\n{text}")
    for mime in data:
        if isinstance(mime, str) and mime.startswith("image/"):
            parts.append(f"[output image: {mime}]")


def _cells(nb: Any) -> list[Any]:
    if not isinstance(nb, dict):
        raise ValueError("not a notebook object")
    cells = nb.get("cells")
    if cells is None:  # nbformat 3
        cells = [c for ws in nb.get("worksheets", []) or [] if isinstance(ws, dict) for c in ws.get("cells", []) or []]
    if not isinstance(cells, list):
        raise ValueError("the notebook's cells are not a list")
    return cells


def render_notebook(raw: bytes) -> str:
    """The judge text of a notebook file's bytes."""
    cells = _cells(json.loads(raw.decode("utf-8", errors="replace")))
    parts: list[str] = []
    for i, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            parts.append(f"[warning: cell {i}: not a cell object; skipped]")
            continue
        parts.append(f"--- cell {i} ({cell.get('cell_type', '?')}) ---")
        parts.append(_joined(cell.get("source", cell.get("input", "")), f"cell {i} source", parts))
        outputs = cell.get("outputs", []) or []
        if not isinstance(outputs, list):
            parts.append(f"[warning: cell {i}: outputs are not a list; skipped]")
            continue
        for k, out in enumerate(outputs, 1):
            _output(out, f"cell {i} output {k}", parts)
    return "\n".join(parts) if parts else "(notebook has no cells)"


def notebook_images(raw: bytes) -> list[tuple[str, str, bytes]]:
    """(label "cell-<i>-output-<k>:<mime>" counted from 0, mime, bytes) of every image output, in order."""
    try:
        cells = _cells(json.loads(raw.decode("utf-8", errors="replace")))
    except ValueError:
        return []
    found: list[tuple[str, str, bytes]] = []
    for ci, cell in enumerate(cells):
        outputs = cell.get("outputs", []) if isinstance(cell, dict) else []
        for oi, out in enumerate(outputs if isinstance(outputs, list) else []):
            data = out.get("data") if isinstance(out, dict) else None
            if not isinstance(data, dict):
                continue
            for mime in NOTEBOOK_IMAGE_MIMES:
                enc = data.get(mime)
                if isinstance(enc, list):
                    enc = "".join(str(x) for x in enc)
                if not isinstance(enc, str):
                    continue
                try:
                    blob = base64.b64decode("".join(enc.split()), validate=True)
                except (ValueError, binascii.Error):
                    continue
                found.append((f"cell-{ci}-output-{oi}:{mime}", mime, blob))
    return found
