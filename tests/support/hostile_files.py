"""Crafted deliverables an agent could write to stall or exhaust the process that parses them.

Each builder writes a real file (workbooks through openpyxl, databases through sqlite3, a hand-written but valid
PDF) into a folder and returns its path. Used by the hostile-file tests and by ``benchmarks/hostile_bench.py``.
"""

from __future__ import annotations

import shutil
import sqlite3
import zipfile
import zlib
from pathlib import Path

__all__ = [
    "zero_member_xlsx",
    "shared_strings_xlsx",
    "glyph_pdf",
    "slow_sqlite",
    "printf_sqlite",
    "many_text_files",
    "BUILDERS",
]


def _base_workbook(path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["item", "amount"])
    ws.append(["widget", 12])
    wb.save(path)


def zero_member_xlsx(folder: Path, mb: int = 500) -> Path:
    """A small workbook (deflated, about 0.5 MB) carrying a member that expands to ``mb`` MB of zeros."""
    path = folder / "zeros.xlsx"
    _base_workbook(path)
    chunk = bytes(1 << 20)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED, compresslevel=1) as zf, \
            zf.open("xl/media/filler.bin", "w", force_zip64=True) as w:
        for _ in range(mb):
            w.write(chunk)
    return path


def shared_strings_xlsx(folder: Path, mb: int = 48, name: str = "strings.xlsx") -> Path:
    """A workbook whose shared-strings table expands to about ``mb`` MB of tiny strings (millions of them)."""
    src = folder / f".{name}.base"
    _base_workbook(src)
    path = folder / name
    item = b"<si><t>x</t></si>"
    count = mb * (1 << 20) // len(item)
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename != "xl/sharedStrings.xml":
                zout.writestr(info, zin.read(info))
        with zout.open("xl/sharedStrings.xml", "w", force_zip64=True) as w:
            w.write(b'<?xml version="1.0" encoding="UTF-8"?>'
                    b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                    + f'count="{count}" uniqueCount="{count}">'.encode())
            block = item * 65536
            for _ in range(count // 65536):
                w.write(block)
            w.write(b"</sst>")
    src.unlink()
    return path


def glyph_pdf(folder: Path, glyphs: int = 300_000) -> Path:
    """A valid one-page PDF (a few hundred KB, deflated) whose page draws ``glyphs`` characters."""
    line = b"(" + b"a" * 100 + b") Tj 0 -1 Td\n"
    body = b"BT /F1 1 Tf 0 800 Td\n" + line * (glyphs // 100) + b"ET\n"
    stream = zlib.compress(body, 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length " + str(len(stream)).encode() + b" /Filter /FlateDecode >>\nstream\n" + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path = folder / "glyphs.pdf"
    path.write_bytes(bytes(out))
    return path


def _with_generated(path: Path, rows: int, columns: list[str], tables: int = 1) -> Path:
    # columns are added after the rows, so writing the file never computes them; reading it does
    con = sqlite3.connect(path)
    for k in range(tables):
        con.execute(f"CREATE TABLE t{k} (x INTEGER)")
        con.executemany(f"INSERT INTO t{k} (x) VALUES (?)", [(i,) for i in range(rows)])
        for col in columns:
            con.execute(f"ALTER TABLE t{k} ADD COLUMN {col}")
    con.commit()
    con.close()
    return path


def slow_sqlite(folder: Path, tables: int = 3, columns: int = 20) -> Path:
    """A database of a few hundred KB whose virtual generated columns cost a minute of CPU to read."""
    # depends on x, so SQLite cannot compute it once per statement: every row pays
    expensive = "length(replace(replace(replace(hex(zeroblob(450000 + x)), '0', 'a'), 'a', 'b'), 'b', 'c'))"
    return _with_generated(folder / "slow.db", 500,
                           [f"g{i} INTEGER GENERATED ALWAYS AS ({expensive} + x) VIRTUAL" for i in range(columns)],
                           tables)


def printf_sqlite(folder: Path, rows: int = 20) -> Path:
    """A tiny database whose generated columns each produce a 100 MB string when read."""
    return _with_generated(folder / "huge_values.db", rows, [
        "big TEXT GENERATED ALWAYS AS (printf('%.*c', 100000000, 'x')) VIRTUAL",
        "big2 TEXT GENERATED ALWAYS AS (printf('%.*c', 100000000, 'y')) VIRTUAL",
    ])


def many_text_files(folder: Path, count: int = 40, size: int = 190_000) -> list[Path]:
    """``count`` plain-text deliverables of ``size`` characters each (each under the per-file cap)."""
    paths = []
    for i in range(count):
        p = folder / f"part_{i:03d}.md"
        p.write_text((f"Section {i}: " + "figures and notes " * (size // 18 + 1))[:size])
        paths.append(p)
    return paths


BUILDERS = {
    "zero_member_xlsx": zero_member_xlsx,
    "shared_strings_xlsx": shared_strings_xlsx,
    "glyph_pdf": glyph_pdf,
    "slow_sqlite": slow_sqlite,
    "printf_sqlite": printf_sqlite,
}


def copy_into(paths: list[Path], dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for p in paths:
        shutil.copy2(p, dest / p.name)
