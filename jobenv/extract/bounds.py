"""What a hostile deliverable can make a parser do, bounded: archive sizes checked before any reader opens
an OOXML file, a glyph cap inside each PDF page, and the limits of a SQLite dump. The worker processes of
:mod:`jobenv.extract.service` add a time and a memory limit around all of it.

Time budgets count CPU seconds (:func:`tree_cpu_seconds`: the worker and the helpers it starts), so the same
deliverable reads the same on an idle machine and on one at load 30; wall time is only a far backstop
(:data:`WALL_FACTOR` times the budget) against a parser that hangs without computing.

Failure behaviour: a file over a bound raises :class:`OverBudget`; extraction turns it into
``[extraction stopped: <reason>]`` for that file only.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any

from ..errors import JobenvError

__all__ = [
    "PARSE_MAX_BYTES",
    "ZIP_MAX_BYTES",
    "ZIP_MAX_MEMBERS",
    "SHARED_STRINGS_MAX_BYTES",
    "PDF_MAX_GLYPHS_PER_PAGE",
    "PDF_MAX_PAGES",
    "SQLITE_MAX_VALUE_BYTES",
    "SQLITE_CELL_CHARS",
    "SQLITE_MAX_CHARS",
    "SQLITE_TIME_S",
    "WALL_FACTOR",
    "OverBudget",
    "check_archive",
    "tree_cpu_seconds",
    "layout_within_glyph_cap",
]

PARSE_MAX_BYTES = 256 * 1024 * 1024  # larger office/pdf/SQLite/notebook files are not parsed at all
ZIP_MAX_BYTES = 128 * 1024 * 1024  # xlsx/docx/pptx: all members together, decompressed (the official workbook rule)
ZIP_MAX_MEMBERS = 20_000
SHARED_STRINGS_MAX_BYTES = 32 * 1024 * 1024  # openpyxl keeps every shared string in memory
PDF_MAX_GLYPHS_PER_PAGE = 20_000  # a dense page of text holds a few thousand
PDF_MAX_PAGES = 2_000
SQLITE_MAX_VALUE_BYTES = 1_000_000  # SQLite refuses to produce any longer value
SQLITE_CELL_CHARS = 10_000  # one cell of a table dump
SQLITE_MAX_CHARS = 2_000_000  # a whole database dump
SQLITE_TIME_S = 10.0  # CPU seconds of queries before they are interrupted
WALL_FACTOR = 10.0  # a CPU budget's wall-clock backstop, as a multiple of the budget
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class OverBudget(JobenvError):
    """A deliverable exceeds one of the parsing bounds; its text becomes ``[extraction stopped: ...]``."""


def check_archive(path: Path) -> None:
    """Raise :class:`OverBudget` when an OOXML (zip) file would expand beyond the budgets, before any reader
    decompresses it. zipfile never yields more than a member's declared size, so declared sizes are a bound."""
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        if len(infos) > ZIP_MAX_MEMBERS:
            raise OverBudget(f"the archive holds {len(infos):,} members, over the budget of {ZIP_MAX_MEMBERS:,}")
        total = sum(i.file_size for i in infos)
        if total > ZIP_MAX_BYTES:
            raise OverBudget(f"its members expand to {total / 2**20:,.0f} MiB, over the budget of "
                             f"{ZIP_MAX_BYTES // 2**20} MiB")
        for i in infos:
            if i.filename.lower().endswith("sharedstrings.xml") and i.file_size > SHARED_STRINGS_MAX_BYTES:
                raise OverBudget(f"its shared strings expand to {i.file_size / 2**20:,.0f} MiB, over the budget of "
                                 f"{SHARED_STRINGS_MAX_BYTES // 2**20} MiB")


def _stat_ticks(pid: int) -> tuple[int, int] | None:
    """(process group, user + system ticks with those of its reaped children) of ``pid``; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()  # the name may hold spaces and parentheses
    try:
        return int(fields[2]), sum(int(x) for x in fields[11:15])
    except (IndexError, ValueError):
        return None


def _children(pid: int) -> list[int] | None:
    """The live children of ``pid`` (every thread's), or None where the kernel does not list them."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        for tid in tasks:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                found += [int(x) for x in fh.read().split()]
    except FileNotFoundError:
        return None if not os.path.exists(f"/proc/{pid}") else found
    except (OSError, ValueError):
        return found
    return found


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) spent so far by process ``pid`` and every descendant, the exited ones it
    waited for included: an extraction worker with the LibreOffice it runs. 0.0 once the process is gone; never
    raises. Where the kernel does not list children, the processes of ``pid``'s group are counted instead."""
    ticks = 0
    todo, seen = [pid], set()
    group = None
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        got = _stat_ticks(p)
        if got is None:
            continue
        group = got[0] if p == pid else group
        ticks += got[1]
        kids = _children(p)
        if kids is None:  # no children lists here: every member of the group instead
            return _group_ticks(group if group is not None else pid) / _TICKS
        todo += kids
    return ticks / _TICKS


def _group_ticks(group: int) -> int:
    ticks = 0
    for name in os.listdir("/proc"):
        if name.isdigit() and (got := _stat_ticks(int(name))) is not None and got[0] == group:
            ticks += got[1]
    return ticks


class _GlyphCap(Exception):
    pass


def layout_within_glyph_cap(page: Any) -> bool:
    """Lay out a pdfplumber ``page`` (as pdfplumber would) unless it draws more than PDF_MAX_GLYPHS_PER_PAGE
    glyphs; the interpreter stops at the first glyph over, so a page of 300,000 glyphs costs no more than the
    cap. True when the page was laid out (pdfplumber then reuses that layout)."""
    from pdfminer.pdfinterp import PDFPageInterpreter
    from pdfplumber.page import PDFPageAggregatorWithMarkedContent

    class Capped(PDFPageAggregatorWithMarkedContent):
        glyphs = 0

        def render_char(self, *args: Any, **kwargs: Any) -> float:
            self.glyphs += 1
            if self.glyphs > PDF_MAX_GLYPHS_PER_PAGE:
                raise _GlyphCap
            return float(super().render_char(*args, **kwargs))

    device = Capped(page.pdf.rsrcmgr, pageno=page.page_number, laparams=page.pdf.laparams)
    try:
        PDFPageInterpreter(page.pdf.rsrcmgr, device).process_page(page.page_obj)
    except _GlyphCap:
        return False
    page._layout = device.get_result()
    return True
