"""Shared writers for the bundled sample split builder (sample_builder/build_sample.py).

Every writer produces a real file with the real library (csv, openpyxl, python-docx, python-pptx, fpdf2,
sqlite3) and pins whatever the library would otherwise stamp with the wall clock, so a rebuild is
byte-identical: Office files are re-zipped with fixed entry timestamps and fixed core-property dates, and
PDFs get a fixed creation date. Builder helpers raise AssertionError when a task breaks a house rule of
the split (prompt length, missing reference files, a rubric without a check per criterion).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import sqlite3
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "FIXED_TIME",
    "write_csv",
    "write_xlsx",
    "write_docx",
    "write_pptx",
    "write_pdf",
    "write_sqlite",
    "normalize_zip",
    "Crit",
    "rubric",
    "write_task",
]

FIXED_TIME = dt.datetime(2026, 11, 2, 9, 0, 0)
_ZIP_TIME = (2026, 11, 2, 9, 0, 0)


def normalize_zip(path: Path) -> None:
    """Rewrite an OOXML zip with fixed entry timestamps and fixed core-property dates (determinism)."""
    with zipfile.ZipFile(path) as zin:
        entries = [(info.filename, zin.read(info.filename)) for info in zin.infolist()]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, data in entries:
            if name == "docProps/core.xml":
                text = data.decode("utf-8")
                text = re.sub(
                    r"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)",
                    lambda m: m.group(1) + FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ") + m.group(3),
                    text,
                )
                data = text.encode("utf-8")
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zout.writestr(info, data)
    path.write_bytes(buf.getvalue())


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        for r in rows:
            w.writerow(r)


def write_xlsx(path: Path, sheets: dict[str, list[list[Any]]], *, widths: dict[str, list[int]] | None = None) -> None:
    """One sheet per key; the first row of each is bold (a header)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for r in rows:
            ws.append(list(r))
        for cell in ws[1]:
            cell.font = Font(bold=True)
        for i, wdt in enumerate((widths or {}).get(name, [])):
            ws.column_dimensions[chr(ord("A") + i)].width = wdt
    wb.properties.creator = "jobenv sample builder"
    wb.properties.created = FIXED_TIME
    wb.properties.modified = FIXED_TIME
    wb.save(path)
    normalize_zip(path)


def write_docx(path: Path, blocks: list[tuple[str, Any]]) -> None:
    """blocks: ("h1"|"h2", text), ("p", text), ("bullet", text), ("table", [header, *rows])."""
    from docx import Document

    doc = Document()
    for kind, content in blocks:
        if kind == "h1":
            doc.add_heading(content, level=1)
        elif kind == "h2":
            doc.add_heading(content, level=2)
        elif kind == "p":
            doc.add_paragraph(content)
        elif kind == "bullet":
            doc.add_paragraph(content, style="List Bullet")
        elif kind == "table":
            rows = content
            t = doc.add_table(rows=len(rows), cols=len(rows[0]))
            t.style = "Table Grid"
            for i, r in enumerate(rows):
                for j, v in enumerate(r):
                    t.cell(i, j).text = str(v)
        else:  # pragma: no cover - builder bug
            raise AssertionError(f"unknown docx block {kind}")
    cp = doc.core_properties
    cp.author = "jobenv sample builder"
    cp.created = FIXED_TIME
    cp.modified = FIXED_TIME
    cp.last_printed = FIXED_TIME
    cp.revision = 1
    doc.save(path)
    normalize_zip(path)


def write_pptx(path: Path, slides: list[dict[str, Any]]) -> None:
    """slides: {"title": str, "bullets": [str], "table": [header, *rows] (optional)}."""
    from pptx import Presentation
    from pptx.util import Inches, Pt

    prs = Presentation()
    for s in slides:
        layout = prs.slide_layouts[5] if s.get("table") else prs.slide_layouts[1]
        slide = prs.slides.add_slide(layout)
        slide.shapes.title.text = s["title"]
        if s.get("table"):
            rows = s["table"]
            top = Inches(1.6)
            if s.get("bullets"):
                tb = slide.shapes.add_textbox(Inches(0.5), Inches(1.3), Inches(9), Inches(0.8))
                tf = tb.text_frame
                tf.word_wrap = True
                for i, b in enumerate(s["bullets"]):
                    p = tf.paragraphs[0] if i == 0 else tf.add_paragraph()
                    p.text = b
                    p.font.size = Pt(14)
                top = Inches(2.4)
            shape = slide.shapes.add_table(len(rows), len(rows[0]), Inches(0.5), top, Inches(9), Inches(0.4) * len(rows))
            for i, r in enumerate(rows):
                for j, v in enumerate(r):
                    shape.table.cell(i, j).text = str(v)
        else:
            body = slide.placeholders[1].text_frame
            for i, b in enumerate(s.get("bullets", [])):
                p = body.paragraphs[0] if i == 0 else body.add_paragraph()
                p.text = b
                p.font.size = Pt(18)
    cp = prs.core_properties
    cp.author = "jobenv sample builder"
    cp.created = FIXED_TIME
    cp.modified = FIXED_TIME
    cp.last_printed = FIXED_TIME
    cp.revision = 1
    prs.save(path)
    normalize_zip(path)


def write_pdf(path: Path, blocks: list[tuple[str, Any]]) -> None:
    """blocks: ("title", text), ("p", text), ("table", (widths, [header, *rows])). Core fonts: latin-1 only."""
    from fpdf import FPDF

    pdf = FPDF(format="Letter")
    pdf.set_creation_date(FIXED_TIME.replace(tzinfo=dt.UTC))
    pdf.set_author("jobenv sample builder")
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    for kind, content in blocks:
        if kind == "title":
            pdf.set_font("Helvetica", "B", 14)
            pdf.multi_cell(0, 8, content, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        elif kind == "p":
            pdf.set_font("Helvetica", "", 10)
            pdf.multi_cell(0, 5, content, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        elif kind == "table":
            widths, rows = content
            for i, r in enumerate(rows):
                pdf.set_font("Helvetica", "B" if i == 0 else "", 9)
                for w, v in zip(widths, r):
                    align = "R" if isinstance(v, (int, float)) or re.fullmatch(r"-?[\d,]+\.?\d*", str(v) or "x") else "L"
                    pdf.cell(w, 6, str(v), border=1, align=align)
                pdf.ln(6)
            pdf.ln(3)
        else:  # pragma: no cover - builder bug
            raise AssertionError(f"unknown pdf block {kind}")
    pdf.output(str(path))


def write_sqlite(path: Path, ddl: str, tables: dict[str, list[Sequence[Any]]]) -> None:
    if path.exists():
        path.unlink()
    con = sqlite3.connect(path)
    try:
        con.executescript(ddl)
        for table, rows in tables.items():
            if rows:
                marks = ",".join("?" * len(rows[0]))
                con.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
        con.commit()
    finally:
        con.close()


class Crit:
    """One criterion with its deterministic check (a model of jobenv.check_models)."""

    def __init__(self, text: str, check: Any):
        self.text = text
        self.check = check


def rubric(text: str, weight: int, crits: list[Crit]) -> dict[str, Any]:
    """One rubric in the RUBRICS.json shape; checks written by jobenv.check_models.check_json."""
    from jobenv.check_models import check_json

    assert weight in (6, 10), weight
    assert 1 <= len(crits), text
    return {
        "rubric": text,
        "weight": weight,
        "criterion": [c.text for c in crits],
        "jobenv_checks": [check_json(c.check) for c in crits],
    }


def _wrap(text: str, width: int = 110) -> str:
    """Re-flow list items (a marker line plus its indented continuation lines) to ``width`` columns.

    Interpolated file names make some source lines long; re-flowing keeps the prompt tidy.
    """
    import textwrap

    marker = re.compile(r"^(\s*)(\d+\.|-)\s")
    blocks: list[list[str]] = []
    for line in text.splitlines():
        is_cont = bool(blocks) and line.startswith(" ") and not marker.match(line) and line.strip() \
            and marker.match(blocks[-1][0])
        if is_cont:
            blocks[-1].append(line.strip())
        else:
            blocks.append([line])
    out = []
    for b in blocks:
        m = marker.match(b[0])
        if not m:
            out.append(b[0])
            continue
        joined = " ".join([b[0].rstrip()] + b[1:])
        out.append(textwrap.fill(joined, width=width, subsequent_indent=" " * len(m.group(0)),
                                 break_on_hyphens=False, break_long_words=False))
    return "\n".join(out)


def write_task(
    task_dir: Path,
    *,
    instructions: str,
    rubrics: list[dict[str, Any]],
    task_card: str,
    solution: str,
    meta: dict[str, Any] | None = None,
) -> None:
    """Write TASK_INSTRUCTIONS.txt (with the Local Reference Files list), RUBRICS.json, task_card.md, solution."""
    folder = task_dir / "task_folder"
    refs = sorted(p.name for p in folder.iterdir() if p.name != "TASK_INSTRUCTIONS.txt")
    assert 2 <= len(refs) <= 15, refs
    for name in refs:
        assert name in instructions or name in task_card, f"{name} not mentioned"
    text = _wrap(instructions.strip()) + "\n\nLocal Reference Files:\n" + "".join(f"- {n}\n" for n in refs)
    assert 1400 <= len(text) <= 3000, (task_dir, len(text))
    (folder / "TASK_INSTRUCTIONS.txt").write_text(text, encoding="utf-8")
    assert 4 <= len(rubrics) <= 8, (task_dir, len(rubrics))
    (task_dir / "RUBRICS.json").write_text(json.dumps({"rubrics": rubrics}, indent=2) + "\n", encoding="utf-8")
    (task_dir / "task_card.md").write_text(task_card.strip() + "\n", encoding="utf-8")
    sol = task_dir / "solution"
    sol.mkdir(exist_ok=True)
    (sol / "solve.py").write_text(solution, encoding="utf-8")
    if meta is not None:
        (task_dir / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
