# ---- jobenv workflow ground truth: shared helpers (rounding, reading a table, writing the deliverables) ----
import hashlib
import io
import os
import re
import zipfile
from decimal import ROUND_HALF_UP, Decimal

import pandas as pd


def rnd(x, decimals):
    """Round half away from zero on the decimal representation (what people do by hand)."""
    q = Decimal(1).scaleb(-int(decimals))
    return float(Decimal(repr(float(x))).quantize(q, rounding=ROUND_HALF_UP))


_FRAMES: dict = {}  # (file bytes' digest, kind, sheet) -> frame: a generator's gates solve one folder many times


def read_frame(folder, rel, sheet=None):
    """A csv or workbook sheet as text columns, blanks as '' (a fresh copy each call; callers may change it)."""
    path = os.path.join(folder, rel)
    with open(path, "rb") as f:
        key = (hashlib.sha256(f.read()).hexdigest(), rel.lower().endswith(".xlsx"), sheet)
    if key not in _FRAMES:
        if rel.lower().endswith(".xlsx"):
            frame = pd.read_excel(path, sheet_name=sheet or 0, dtype=str).fillna("")
        else:
            frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        if len(_FRAMES) >= 256:
            _FRAMES.clear()
        _FRAMES[key] = frame
    return _FRAMES[key].copy()


def write_table(path, header, rows, sheet="Sheet1"):
    """A csv, or an xlsx whose cells may be formulas (strings starting with '='; openpyxl stores them without
    cached values, so a reader recalculates)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if path.lower().endswith(".xlsx"):
        from openpyxl import Workbook

        wb = Workbook()
        ws = wb.active
        ws.title = sheet
        ws.append(header)
        for r in rows:
            ws.append(r)
        wb.save(path)
        _fixed_dates(path)
    else:
        pd.DataFrame(rows, columns=header).to_csv(path, index=False)


def _fixed_dates(path):
    """Re-pack an Office file with one fixed date on every entry and in its properties (an embedded workbook, such
    as a chart's data, too), so the same answer is the same bytes whenever it is written."""
    with open(path, "rb") as f:
        data = _fixed_zip(f.read())
    with open(path, "wb") as f:
        f.write(data)


_STYLE_RE = re.compile(rb"<w:style\b[^>]*?w:styleId=\"([^\"]+)\".*?</w:style>", re.S)
_STYLE_REF_RE = re.compile(rb"<w:(?:pStyle|rStyle|tblStyle|basedOn|link|next) w:val=\"([^\"]+)\"")


def _used_styles(styles, document):
    """Word's template carries some 300 KB of styles nobody uses, and every reader of the file parses them: keep the
    default styles, the ones the document names and the ones those are based on or linked to."""
    blocks = {m.group(1): m.group(0) for m in _STYLE_RE.finditer(styles)}
    todo = set(_STYLE_REF_RE.findall(document)) | {k for k, b in blocks.items() if b"w:default=\"1\"" in b.split(b">", 1)[0]}
    keep = set()
    while todo:
        k = todo.pop()
        if k not in keep and k in blocks:
            keep.add(k)
            todo |= set(_STYLE_REF_RE.findall(blocks[k]))
    styles = re.sub(rb"<w:latentStyles\b.*?</w:latentStyles>", b"", styles, flags=re.S)
    return _STYLE_RE.sub(lambda m: m.group(0) if m.group(1) in keep else b"", styles)


def _fixed_zip(data):
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src:
        entries = [(i.filename, src.read(i.filename)) for i in src.infolist()]
    bodies = dict(entries)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for name, body in entries:
            if name == "word/styles.xml" and "word/document.xml" in bodies:
                body = _used_styles(body, bodies["word/document.xml"])
            elif name == "docProps/core.xml":
                body = re.sub(rb"(<dcterms:(?:modified|created)[^>]*>)[^<]*(</dcterms:)",
                              rb"\g<1>2024-01-01T00:00:00Z\g<2>", body)
            elif name.lower().endswith((".xlsx", ".docx", ".pptx")) and body[:2] == b"PK":
                body = _fixed_zip(body)
            dst.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), body, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def write_memo(path, lines):
    """A memo of plain lines: Markdown/text, or a Word document with one paragraph per line."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if path.lower().endswith(".docx"):
        from docx import Document

        doc = Document()
        for line in lines:
            doc.add_paragraph(line)
        doc.save(path)
        _fixed_dates(path)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def yes_no(flag):
    return "yes" if flag else "no"
