"""Table checks (``columns``, ``cell``, ``row_count``) over csv/tsv files and workbook sheets.

Rules: a table's header is the first of its first 20 rows holding every column the check needs (a header
cell may carry a unit in parentheses, "Amount ($)"); with none named, the first row with two filled cells.
Data rows are the non-blank rows below it; ``row_count`` counts those with a filled key column (the
``key``, else the first header column) that are not total rows ("Total", "Grand total", "Subtotal", "Sum")
or note rows ("Note: ...", "Source: ...", "* ..."), nor rows where only the key is filled. ``cell`` needs
every row matching the key, in every candidate sheet and every column of that name, to agree, and so must every
such row of any other table deliverable (a second copy of a workbook cannot hedge).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..check_models import CellCheck, ColumnsCheck, RowCountCheck
from . import reading
from .facts import Verdict, equal, show
from .reading import Uncomputed, norm

__all__ = ["check_columns", "check_cell", "check_row_count"]

_HEADER_SCAN_ROWS = 20
_TOTAL_RE = re.compile(r"^(grand\s+|sub-?\s?)?totals?\b|^sum\b", re.IGNORECASE)
_NOTE_RE = re.compile(r"^(notes?|source|sources|footnote|prepared by)\b|^[*\u2020\u2021]", re.IGNORECASE)

def _header_keys(cell: Any) -> set[str]:
    if cell is None or isinstance(cell, Uncomputed) or not str(cell).strip():
        return set()
    return reading.label_keys(str(cell))


def _find_header(rows: list[list[Any]], needed: Sequence[str]) -> int | None:
    want = {reading.norm_label(c) for c in needed}
    for i, row in enumerate(rows[:_HEADER_SCAN_ROWS]):
        keys = [_header_keys(v) for v in row]
        have = set().union(*keys) if keys else set()
        if want and want <= have:
            return i
        if not want and sum(1 for k in keys if k) >= 2:
            return i
    return None


def _columns(header: list[Any], name: str) -> list[int]:
    k = reading.norm_label(name)
    return [j for j, v in enumerate(header) if k in _header_keys(v)]


def _cell(row: list[Any], j: int) -> Any:
    return row[j] if j < len(row) else None


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


class _Table:
    def __init__(self, label: str, rows: list[list[Any]], hi: int) -> None:
        self.label, self.header, self.body = label, rows[hi], [r for r in rows[hi + 1:] if not all(map(_blank, r))]

    def col(self, name: str) -> list[int]:
        return _columns(self.header, name)

    def matching(self, where: dict[str, Any]) -> list[list[Any]]:
        idx = {k: self.col(k) for k in where}
        return [r for r in self.body if all(any(equal(_cell(r, j), v, 0.0) for j in idx[k]) for k, v in where.items())]

    def data_rows(self, key: str | None) -> list[list[Any]]:
        kj = self.col(key)[0] if key else next((j for j, v in enumerate(self.header) if not _blank(v)), 0)
        named = [j for j, v in enumerate(self.header) if not _blank(v) and j != kj]
        out = []
        for r in self.body:
            k = _cell(r, kj)
            if _blank(k) or (isinstance(k, str) and (_TOTAL_RE.match(k.strip()) or _NOTE_RE.match(k.strip()))):
                continue
            if named and all(_blank(_cell(r, j)) for j in named):
                continue  # a title or note row: only the key cell is filled
            out.append(r)
        return out


def _tables(c: Any, ctx: Any, needed: Sequence[str], rel: str | None = None) -> tuple[list[_Table], str]:
    """The tables of the check's file (or of ``rel``; its sheet, when named) whose header holds ``needed``."""
    if rel is None:
        rel, why = ctx.resolve(c)
        if rel is None:
            return [], why
    if not ctx.is_table(rel):
        return [], f"{rel} is not a table file (csv, tsv, xlsx, xls)"
    tabs = ctx.tables(rel)
    if isinstance(tabs, str):
        return [], f"{rel}: unreadable ({tabs})"
    sheets = [(n, rows) for n, rows in tabs if c.sheet is None or not n or norm(n) == norm(c.sheet)]
    if not sheets:
        return [], f"{rel} has no sheet {c.sheet!r}"
    out = []
    for name, rows in sheets:
        hi = _find_header(rows, needed)
        if hi is not None:
            out.append(_Table(rel + (f"[{name}]" if name else ""), rows, hi))
    if not out:
        return [], f"{rel}" + (f"[{c.sheet}]" if c.sheet else "") + f" has no header row with {list(needed)}"
    return out, ""


def check_columns(c: ColumnsCheck, ctx: Any) -> Verdict:
    tables, why = _tables(c, ctx, c.columns)
    return (True, f"{tables[0].label} has columns {c.columns}") if tables else (False, why)


def check_cell(c: CellCheck, ctx: Any) -> Verdict:
    tables, why = _tables(c, ctx, [*c.match.keys(), c.column])
    if not tables:
        return False, why
    values = [(t.label, _cell(r, j)) for t in tables for r in t.matching(c.match) for j in t.col(c.column)]
    if not values:
        return False, f"no row with {c.match} in {', '.join(t.label for t in tables)}"
    rel = ctx.resolve(c)[0]
    for other in ctx.others(rel):  # one graded fact, one value: a second table (a copy of the book) may not differ
        if ctx.is_table(other):
            values += [(t.label, _cell(r, j)) for t in _tables(c, ctx, [*c.match.keys(), c.column], other)[0]
                       for r in t.matching(c.match) for j in t.col(c.column)]
    bad = [(lab, v) for lab, v in values if not equal(v, c.value, c.tolerance, c.sign, ctx.scales)]
    if bad:
        return False, f"{bad[0][0]}: row {c.match} has {c.column} = " + ", ".join(show(v) for _, v in values) + (
            f" (expected {c.value!r})")
    return True, f"{values[0][0]}: row {c.match} has {c.column} = {show(values[0][1])} (expected {c.value!r})"


def check_row_count(c: RowCountCheck, ctx: Any) -> Verdict:
    needed = ([c.key] if c.key else []) + list((c.where or {}).keys())
    tables, why = _tables(c, ctx, needed)
    if not tables:
        return False, why
    counts = []
    for t in tables:
        rows = t.data_rows(c.key)
        if c.where:
            matched = {id(r) for r in t.matching(c.where)}  # once per table: per row it was quadratic
            rows = [r for r in rows if id(r) in matched]
        counts.append((t.label, len(rows)))
    where = f" where {c.where}" if c.where else ""
    if all(n == c.count for _, n in counts):
        return True, f"{counts[0][0]}: {c.count} data rows{where}"
    return False, "; ".join(f"{lab}: {n} data rows{where}" for lab, n in counts) + f" (expected {c.count})"
