"""The ground truths' Office files: fixed bytes, and only the Word styles a document uses (the template's 300 KB of
unused styles cost every reader, the judge's extraction included, half a second a file)."""

from __future__ import annotations

import hashlib
import time
import zipfile
from pathlib import Path

from jobenv.extract import extract_file
from jobenv.extract.tables import docx_lines
from jobenv.synthetic.solvers._deliver import _fixed_dates, write_memo
from jobenv.synthetic.writers import write_docx


def _styles(path: Path) -> bytes:
    with zipfile.ZipFile(path) as z:
        return z.read("word/styles.xml")


def test_a_memo_keeps_its_text_and_only_the_styles_it_uses(tmp_path):
    lines = ["Positions counted: 361", "Layers (CEO counted as 1): 6", "", "Method: spans from the HRIS extract."]
    write_memo(str(tmp_path / "memo.docx"), lines)
    styles = _styles(tmp_path / "memo.docx")
    assert len(styles) < 20_000 and b'w:styleId="Normal"' in styles and b"latentStyles" not in styles
    assert docx_lines(tmp_path / "memo.docx") == lines  # what the checks judge reads a memo's facts from
    assert "Positions counted: 361" in extract_file(tmp_path / "memo.docx")


def test_used_heading_table_and_list_styles_survive_with_what_they_are_based_on(tmp_path):
    import docx

    d = docx.Document()
    d.add_heading("Findings", level=1)
    d.add_paragraph("a point", style="List Bullet")
    t = d.add_table(rows=1, cols=2)
    t.style = "Table Grid"
    t.cell(0, 0).text, t.cell(0, 1).text = "Units", "12"
    path = tmp_path / "report.docx"
    d.save(str(path))
    _fixed_dates(str(path))
    styles = _styles(path)
    for sid in (b"Heading1", b"ListBullet", b"TableGrid", b"Normal", b"TableNormal"):
        assert b'w:styleId="' + sid + b'"' in styles, sid
    assert b'w:styleId="Heading9"' not in styles and b'w:styleId="IntenseQuote"' not in styles
    reread = docx.Document(str(path))
    assert reread.paragraphs[0].style.name == "Heading 1" and reread.tables[0].style.name == "Table Grid"
    text = extract_file(path)
    assert "Findings" in text and "a point" in text and "Units" in text and "12" in text


def test_office_files_are_the_same_bytes_whenever_written(tmp_path):
    a, b = tmp_path / "a.docx", tmp_path / "b.docx"
    write_docx(a, "Procedure", ["Rule one.", "Rule two."])
    time.sleep(1.1)  # the template's save time would differ
    write_docx(b, "Procedure", ["Rule one.", "Rule two."])
    assert hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest()
    assert len(_styles(a)) < 20_000
