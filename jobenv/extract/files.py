"""Turning one deliverable file into text (documents, tables, databases, images); the folder-level
assembly and budget are in :mod:`.folder`."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import re
import sqlite3
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..sandbox.base import REJECTED_MANIFEST  # written by the sandbox export; not a deliverable
from .bounds import (
    PARSE_MAX_BYTES,
    PDF_MAX_GLYPHS_PER_PAGE,
    PDF_MAX_PAGES,
    SQLITE_CELL_CHARS,
    SQLITE_MAX_CHARS,
    SQLITE_MAX_VALUE_BYTES,
    SQLITE_TIME_S,
    WALL_FACTOR,
    OverBudget,
    check_archive,
    layout_within_glyph_cap,
)
from .recalc import recalculate
from .sheets import formula_values

__all__ = [
    "EXTRACT_VERSION",
    "DEFAULT_CAP",
    "REJECTED_MANIFEST",
    "TEXT_EXTENSIONS",
    "IMAGE_EXTENSIONS",
    "SQLITE_EXTENSIONS",
    "ExtractMode",
    "ExtractedFile",
    "ImageRef",
    "Extraction",
    "OverBudget",
    "check_archive",
    "extract_file",
    "is_visual_rubric",
    "select_images",
    "recalculate",
    "formula_values",
]

EXTRACT_VERSION = "2"
DEFAULT_CAP = 200_000
SQLITE_ROW_LIMIT = 500
MAX_IMAGE_BYTES = 20 * 1024 * 1024  # larger images are not worth sending to a judge

ExtractMode = Literal["values", "formulas"]

TEXT_EXTENSIONS = frozenset(
    "txt md csv tsv py json sh log xml html htm css js ts yaml yml ini cfg conf sql rules geojson r rmd tex "
    "jsonl toml".split()
)
IMAGE_EXTENSIONS = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
}
OTHER_IMAGE_EXTENSIONS = frozenset("bmp tif tiff svg ico heic".split())
SQLITE_EXTENSIONS = frozenset({"db", "sqlite", "sqlite3"})
_PARSED_EXTENSIONS = frozenset({"xlsx", "xlsm", "xls", "docx", "pdf", "pptx", "ipynb"}) | SQLITE_EXTENSIONS

# The official rule for a "visual" rubric (it then gets images): one of these whole words, any case.
# Deliberately narrow, as there: "plots", "figures", "chart" and "graph" do not count.
_VISUAL_RE = re.compile(
    r"\b(?:plot|figure|visuali[sz]ation|visuali[sz]e|heatmap|histogram|scatter ?plot|biplot|diagram|q[- ]?q)\b",
    re.IGNORECASE,
)


@dataclass
class ExtractedFile:
    """One deliverable: its relative path, how it was read, and its (capped) text."""

    path: str
    kind: str
    text: str
    size: int
    truncated: bool = False
    failed: bool = False


@dataclass
class ImageRef:
    """An image a visual rubric may be shown: where it came from and its base64 data URL."""

    source: str
    mime: str
    sha256: str
    data_url: str


@dataclass
class Extraction:
    """Everything a judge needs from an output directory.

    ``text`` is the whole document; ``files`` the per-file parts; ``images`` every distinct image found
    (standalone, inside docx, inside notebooks), in file order; ``rejected`` relative paths that were
    refused (symlinks, special files, or listed by the sandbox export in ``.jobenv_rejected.json``);
    ``budget_cut`` the files shown in part or not at all because of the total budget.
    """

    root: Path
    mode: str
    text: str = ""
    files: list[ExtractedFile] = field(default_factory=list)
    images: list[ImageRef] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    budget_cut: list[str] = field(default_factory=list)  # files cut or left out by the total budget

    @property
    def empty(self) -> bool:
        """True when there is no deliverable file at all."""
        return not self.files

    def file_map(self) -> dict[str, ExtractedFile]:
        return {f.path: f for f in self.files}


# ---------------------------------------------------------------------------------------------- helpers


def _ext(path: Path) -> str:
    return path.suffix.lower().lstrip(".")


def _cap(text: str, cap: int | None) -> tuple[str, bool]:
    if cap is None or cap <= 0 or len(text) <= cap:
        return text, False
    marker = f"\n[... truncated by jobenv: showing the first {cap:,} of {len(text):,} characters ...]"
    return text[:cap] + marker, True


def _failed(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"[extraction failed: {type(exc).__name__}{': ' + msg[:300] if msg else ''}]"


def _read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def _cell_str(value: Any) -> str:
    if value is None:
        return ""
    try:
        import math

        if isinstance(value, float) and math.isnan(value):
            return ""
    except Exception:  # pragma: no cover - defensive
        pass
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _rows_to_csv(rows: Iterable[Iterable[Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for row in rows:
        w.writerow([_cell_str(v) for v in row])
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------- formats


class _Budget:
    """Characters still allowed before the per-file cap; lets big workbooks stop reading early."""

    def __init__(self, cap: int | None) -> None:
        self.left = cap if cap and cap > 0 else None
        self.stopped = False

    def take(self, n: int) -> bool:
        if self.left is None:
            return True
        self.left -= n
        if self.left < 0:
            self.stopped = True
        return not self.stopped


def _extract_xls_values(path: Path) -> str:
    import pandas as pd

    sheets = pd.read_excel(path, sheet_name=None, header=None)
    parts = []
    for name, df in sheets.items():
        df = df.dropna(how="all").dropna(axis=1, how="all")
        body = _rows_to_csv(df.itertuples(index=False, name=None)) if not df.empty else "(empty sheet)\n"
        parts.append(f"--- sheet: {name} ---\n{body}")
    return "\n".join(parts) if parts else "(workbook has no sheets)"


def _extract_docx(path: Path) -> str:
    import mammoth

    counter = iter(range(1, 10_000))

    def image(img: Any) -> dict[str, str]:  # keep base64 blobs out of the text
        return {"src": f"embedded-image-{next(counter)}", "alt": getattr(img, "alt_text", None) or "image"}

    with path.open("rb") as fh:
        result = mammoth.convert_to_markdown(fh, convert_image=mammoth.images.img_element(image))
    return result.value.strip() or "(document has no text)"


def _extract_pdf(path: Path, cap: int | None = DEFAULT_CAP) -> str:
    import logging

    import pdfplumber

    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    parts = []
    budget = _Budget(cap)
    with pdfplumber.open(path) as pdf:
        n_pages = len(pdf.pages)
        for i, page in enumerate(pdf.pages, 1):
            if budget.stopped or i > PDF_MAX_PAGES:  # later pages would be cut anyway: do not pay for reading them
                why = "the per-file cap was reached" if budget.stopped else f"only {PDF_MAX_PAGES:,} pages are read"
                parts.append(f"[... truncated by jobenv: pages {i}-{n_pages} not shown; {why} ...]")
                break
            try:
                if layout_within_glyph_cap(page):
                    text = page.extract_text(layout=True) or ""
                else:
                    text = f"[extraction stopped: the page holds over {PDF_MAX_GLYPHS_PER_PAGE:,} glyphs]"
            except Exception as exc:  # one bad page must not hide the others
                text = _failed(exc)
            # layout mode pads with spaces; trailing ones carry nothing
            text = "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")
            parts.append(f"--- page {i} ---\n{text}")
            budget.take(len(parts[-1]) + 1)
            page.close()
    return "\n".join(parts) if parts else "(pdf has no pages)"


def _pptx_shape_lines(shape: Any) -> list[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    lines: list[str] = []
    if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
        for sub in shape.shapes:
            lines.extend(_pptx_shape_lines(sub))
        return lines
    if getattr(shape, "has_table", False) and shape.has_table:
        for row in shape.table.rows:
            lines.append(" | ".join(cell.text.strip() for cell in row.cells))
        return lines
    if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        text = shape.text_frame.text.strip()
        if text:
            lines.append(text)
    if getattr(shape, "has_chart", False) and shape.has_chart:
        try:
            chart = shape.chart
            title = chart.chart_title.text_frame.text if chart.has_title else ""
            lines.append(f"[chart{': ' + title if title else ''}]")
        except Exception:
            lines.append("[chart]")
    if shape.shape_type == MSO_SHAPE_TYPE.PICTURE:
        lines.append("[picture]")
    return lines


def _extract_pptx(path: Path) -> str:
    from pptx import Presentation

    prs = Presentation(str(path))
    parts = []
    for i, slide in enumerate(prs.slides, 1):
        lines = []
        for shape in slide.shapes:
            lines.extend(_pptx_shape_lines(shape))
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame.text.strip() if slide.notes_slide.notes_text_frame else ""
            if notes:
                lines.append(f"[notes] {notes}")
        parts.append(f"--- slide {i} ---\n" + "\n".join(lines))
    return "\n".join(parts) if parts else "(presentation has no slides)"


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _extract_sqlite(path: Path) -> str:
    import time

    # read-only and immutable: never create journal files next to the deliverable
    uri = "file:" + str(path.resolve()).replace("?", "%3f").replace("#", "%23") + "?mode=ro&immutable=1"
    con = sqlite3.connect(uri, uri=True)
    # generated columns, views and huge printf() values are computed while reading: bound time and value size.
    # Time is this process's CPU time (the query runs here), so load on the machine does not cut a dump short;
    # wall time is only the far backstop.
    deadline, backstop = time.process_time() + SQLITE_TIME_S, time.monotonic() + SQLITE_TIME_S * WALL_FACTOR

    def over() -> bool:
        return time.process_time() > deadline or time.monotonic() > backstop

    con.set_progress_handler(lambda: int(over()), 100)
    con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, SQLITE_MAX_VALUE_BYTES)
    budget = _Budget(SQLITE_MAX_CHARS)
    try:
        con.text_factory = lambda b: b.decode("utf-8", errors="replace")
        schema = con.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type='table' DESC, name"
        ).fetchall()
        parts = ["--- schema ---"]
        parts.extend(_sqlite_cell(sql.strip()) + ";" for _, _, sql in schema)
        tables = [name for typ, name, _ in schema if typ == "table" and not name.startswith("sqlite_")]
        for name in tables:
            if budget.stopped:
                parts.append(f"--- table {name}: [not shown: the database dump reached {SQLITE_MAX_CHARS:,} characters]")
                continue
            try:
                parts.append(_sqlite_table(con, name, budget))
            except sqlite3.Error as exc:  # one table over a bound must not hide the others
                why = "over the time budget" if over() else str(exc)
                parts.append(f"--- table {name} ---\n[extraction stopped: {why}]")
        return "\n".join(parts)
    finally:
        con.close()


def _sqlite_cell(value: Any) -> str:
    text = _cell_str(value)
    if len(text) > SQLITE_CELL_CHARS:
        return text[:SQLITE_CELL_CHARS] + f" [... cell cut: {len(text) - SQLITE_CELL_CHARS:,} more characters]"
    return text


def _sqlite_table(con: sqlite3.Connection, name: str, budget: _Budget) -> str:
    q = _quote_ident(name)
    count = con.execute(f"SELECT COUNT(*) FROM {q}").fetchone()[0]
    cur = con.execute(f"SELECT * FROM {q} LIMIT {SQLITE_ROW_LIMIT}")
    cols = [d[0] for d in cur.description or []]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    n = 0
    for row in cur:  # one row at a time: a table of huge values never sits in memory at once
        start = buf.tell()
        w.writerow([_sqlite_cell(v) for v in row])
        n += 1
        if not budget.take(buf.tell() - start):
            buf.write(f"[... truncated by jobenv: the database dump reached {SQLITE_MAX_CHARS:,} characters ...]\n")
            break
    shown = f" (first {n} shown)" if count > n else ""
    return f"--- table {name}: {count} rows{shown} ---\n" + buf.getvalue().rstrip("\n")


def extract_file(path: Path, *, mode: ExtractMode = "values", cap: int | None = DEFAULT_CAP) -> str:
    """Render one file as text, capped at ``cap`` characters with a visible marker (a SQLite dump has its own bounds).

    Never raises: an unreadable or malformed file yields ``[extraction failed: ...]``. ``mode`` only
    matters for xlsx workbooks (``formulas`` lists every formula cell in the evidence blocks).
    """
    text, _, _, _ = _extract_one(Path(path), mode, cap)
    return text


def _extract_one(path: Path, mode: str, cap: int | None) -> tuple[str, str, bool, bool]:
    """(text, kind, truncated, failed)."""
    ext = _ext(path)
    name = path.name
    try:
        if ext in TEXT_EXTENSIONS:
            size = path.stat().st_size
            if cap and cap > 0 and size > 4 * cap + 4:  # a huge log: read only what can be shown
                with path.open("rb") as fh:
                    head = fh.read(4 * cap + 4).decode("utf-8", errors="replace")[:cap]
                marker = f"\n[... truncated by jobenv: showing the first {cap:,} characters of a {size:,}-byte file ...]"
                return head + marker, "text", True, False
            kind, text = "text", _read_text(path)
        elif ext in _PARSED_EXTENSIONS and path.stat().st_size > PARSE_MAX_BYTES:
            return (f"[extraction stopped: the file is {path.stat().st_size / 2**20:,.0f} MiB, over the "
                    f"{PARSE_MAX_BYTES // 2**20} MiB that are parsed]"), "failed", False, True
        elif ext in ("xlsx", "xlsm"):
            from .sheets import WORKBOOK_BUDGET, render_workbook

            check_archive(path)
            kind = "workbook"
            budget = None if not cap or cap <= 0 else min(WORKBOOK_BUDGET, cap - min(10_000, cap // 20))
            text = render_workbook(path, budget=budget, list_all=mode == "formulas")
        elif ext == "xls":
            kind, text = "workbook", _extract_xls_values(path)
            if mode == "formulas":
                text = "(legacy .xls: formulas are not available; cached values shown)\n" + text
        elif ext == "docx":
            check_archive(path)
            kind, text = "docx", _extract_docx(path)
        elif ext == "pdf":
            kind, text = "pdf", _extract_pdf(path, cap)
        elif ext == "pptx":
            check_archive(path)
            kind, text = "pptx", _extract_pptx(path)
        elif ext in SQLITE_EXTENSIONS:
            return _extract_sqlite(path), "sqlite", False, False
        elif ext == "ipynb":
            from .notebook import render_notebook

            kind, text = "notebook", render_notebook(path.read_bytes())
        elif ext in IMAGE_EXTENSIONS or ext in OTHER_IMAGE_EXTENSIONS:
            return f"[image file: {name}, {path.stat().st_size:,} bytes]", "image", False, False
        else:
            return f"[binary/unsupported file: {name}, {path.stat().st_size:,} bytes]", "binary", False, False
    except OverBudget as exc:
        return f"[extraction stopped: {exc}]", "failed", False, True
    except MemoryError:
        return "[extraction stopped: over the memory budget]", "failed", False, True
    except Exception as exc:  # a broken deliverable is visible to the judge, never silent
        return _failed(exc), "failed", False, True
    if (kind == "workbook" and ext != "xls" or kind == "pdf") and cap:
        # the reader already kept to its budget and said so; allow its notes and sheet headers
        truncated = "by jobenv" in text or "[not shown: the per-file cap" in text
        text, hard = _cap(text, cap + 10_000)
        return text, kind, truncated or hard, False
    text, truncated = _cap(text, cap)
    return text, kind, truncated, False


# ---------------------------------------------------------------------------------------------- images


def _image_ref(source: str, mime: str, data: bytes) -> ImageRef:
    return ImageRef(
        source=source,
        mime=mime,
        sha256=hashlib.sha256(data).hexdigest(),
        data_url=f"data:{mime};base64," + base64.b64encode(data).decode("ascii"),
    )


# where an Office file keeps its pictures (charts saved as images included)
_MEDIA_FOLDERS = {"docx": "word/media/", "pptx": "ppt/media/"}


def _images_of(path: Path, rel: str) -> list[ImageRef]:
    """The images of one deliverable: itself (a standalone image), its media members (docx, pptx; in
    member-name order) or its image outputs (notebook, cell and output order)."""
    ext = _ext(path)
    out: list[ImageRef] = []
    try:
        if ext in IMAGE_EXTENSIONS:
            if path.stat().st_size <= MAX_IMAGE_BYTES:
                out.append(_image_ref(rel, IMAGE_EXTENSIONS[ext], path.read_bytes()))
        elif ext in _MEDIA_FOLDERS:
            check_archive(path)
            with zipfile.ZipFile(path) as zf:
                for info in sorted(zf.infolist(), key=lambda i: i.filename):
                    iext = info.filename.rsplit(".", 1)[-1].lower()
                    if (info.filename.startswith(_MEDIA_FOLDERS[ext]) and iext in IMAGE_EXTENSIONS
                            and info.file_size <= MAX_IMAGE_BYTES):
                        out.append(_image_ref(f"{rel}:{info.filename}", IMAGE_EXTENSIONS[iext], zf.read(info)))
        elif ext == "ipynb":
            from .notebook import notebook_images

            for label, mime, blob in notebook_images(path.read_bytes()):
                if len(blob) <= MAX_IMAGE_BYTES:
                    out.append(_image_ref(f"{rel}:{label}", mime, blob))
    except Exception:  # images are a bonus; the text section already reports broken files
        pass
    return out


def _image_group(rel: str) -> int:
    """The official order: standalone images first, then images inside docx files, then notebook outputs; then
    pptx pictures, which the official judge does not send (they only fill slots the others leave)."""
    ext = rel.rsplit(".", 1)[-1].lower() if "." in rel else ""
    return 0 if ext in IMAGE_EXTENSIONS else 1 if ext == "docx" else 2 if ext == "ipynb" else 3 if ext == "pptx" else 4


def is_visual_rubric(text: str, criteria: Iterable[str] = ()) -> bool:
    """True when the rubric text or a criterion mentions a plot, figure, chart, diagram and the like."""
    return any(_VISUAL_RE.search(t or "") for t in [text, *criteria])


def select_images(extraction: Extraction, limit: int = 8) -> list[ImageRef]:
    """The first ``limit`` distinct images (deduplicated by content hash): standalone images, then docx
    images, then notebook images, each group in sorted path order (the official order)."""
    return extraction.images[: max(0, limit)]

