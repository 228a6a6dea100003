"""Byte-deterministic writers for the reference files of generated tasks.

Office and PDF libraries stamp the current time into their output (document properties, zip entry
dates, PDF creation dates), which would make two generations from the same seed differ. Every writer
here pins those stamps to :data:`FIXED_TIME`, and zip-based files are re-packed with fixed entry
dates, so the same inputs always give the same bytes.

Failure behaviour: writers raise the underlying library's exception on bad input (the generator treats
that as a bug, not as a degenerate task); they never leave a half-written file under its final name.
"""

from __future__ import annotations

import datetime as _dt
import io
import os
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "FIXED_TIME",
    "normalize_zip",
    "write_text",
    "write_csv",
    "write_xlsx",
    "write_docx",
    "write_pdf",
]

# One fixed instant for every timestamp a library would otherwise take from the clock.
FIXED_TIME = _dt.datetime(2024, 6, 28, 9, 0, 0)
_ZIP_TIME = (2024, 6, 28, 9, 0, 0)
_ISO_TIME = b"2024-06-28T09:00:00Z"


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def normalize_zip(data: bytes) -> bytes:
    """Re-pack a zip archive in entry order with a fixed date on every entry and in the core properties, a Word
    document with only the styles it uses."""
    from .solvers._deliver import _used_styles  # the rule the ground truths' documents are written by

    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    names = set(src.namelist())
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            zi = zipfile.ZipInfo(info.filename, date_time=_ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            body = src.read(info.filename)
            if info.filename == "word/styles.xml" and "word/document.xml" in names:
                body = _used_styles(body, src.read("word/document.xml"))
            elif info.filename == "docProps/core.xml":
                # openpyxl stamps the save time into dcterms:modified whatever the properties say.
                body = re.sub(rb"(<dcterms:(?:modified|created)[^>]*>)[^<]*(</dcterms:)",
                              rb"\g<1>" + _ISO_TIME + rb"\g<2>", body)
            dst.writestr(zi, body)
    return out.getvalue()


def write_text(path: Path, text: str) -> None:
    """UTF-8 text with Unix newlines."""
    _atomic_write(path, text.encode("utf-8"))


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A CSV with Unix newlines; floats written with ``repr`` so values round-trip exactly."""
    import csv

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(list(header))
    for r in rows:
        w.writerow(["" if v is None else v for v in r])
    _atomic_write(path, buf.getvalue().encode("utf-8"))


def write_xlsx(path: Path, sheets: Sequence[tuple[str, Sequence[str], Sequence[Sequence[Any]]]]) -> None:
    """A workbook with one sheet per ``(name, header, rows)``, properties and zip dates pinned."""
    from openpyxl import Workbook

    wb = Workbook()  # not write_only: that mode writes no sheet dimensions, and readers then scan every sheet twice
    wb.remove(wb.active)
    for name, header, rows in sheets:
        ws = wb.create_sheet(title=name[:31])
        ws.append(list(header))
        for r in rows:
            ws.append(list(r))
    wb.properties.creator = "jobenv synthetic generator"
    wb.properties.created = FIXED_TIME
    wb.properties.modified = FIXED_TIME
    wb.properties.lastModifiedBy = "jobenv"
    buf = io.BytesIO()
    wb.save(buf)
    _atomic_write(path, normalize_zip(buf.getvalue()))


def write_docx(path: Path, title: str, paragraphs: Sequence[str]) -> None:
    """A Word document: a heading, then paragraphs (lines starting with ``- `` become bullets)."""
    from docx import Document

    doc = Document()
    doc.add_heading(title, level=1)
    for p in paragraphs:
        if p.startswith("- "):
            doc.add_paragraph(p[2:], style="List Bullet")
        else:
            doc.add_paragraph(p)
    cp = doc.core_properties
    cp.author = "jobenv synthetic generator"
    cp.last_modified_by = "jobenv"
    cp.created = FIXED_TIME
    cp.modified = FIXED_TIME
    cp.revision = 1
    buf = io.BytesIO()
    doc.save(buf)
    _atomic_write(path, normalize_zip(buf.getvalue()))


def _latin1(text: str) -> str:
    # The core PDF fonts only cover Latin-1; replace anything else rather than fail.
    return text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2019", "'").encode(
        "latin-1", "replace").decode("latin-1")


def write_pdf(path: Path, title: str, paragraphs: Sequence[str]) -> None:
    """A one-column PDF memo with a pinned creation date."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_creation_date(FIXED_TIME.replace(tzinfo=_dt.UTC))
    pdf.set_creator("jobenv synthetic generator")
    pdf.set_title(_latin1(title))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.multi_cell(0, 8, _latin1(title))
    pdf.ln(2)
    pdf.set_font("Helvetica", size=10)
    for p in paragraphs:
        pdf.multi_cell(0, 5, _latin1(p))
        pdf.ln(1)
    # fpdf2's default trailer /ID is a hash of the content, so a pinned date is enough for stable bytes.
    _atomic_write(path, bytes(pdf.output()))
