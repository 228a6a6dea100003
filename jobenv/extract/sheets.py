"""Workbook text for judges, laid out like the official JobBench extractor (in our own words).

Per workbook: a line naming the recalculation engine (or why there was none) and warnings (external
links, macros, volatile functions, stale caches, calculation errors). Per sheet: a header with the count
of formula cells, non-empty value rows and blank value rows omitted; a "Formula evidence" block (each
formula with its cached and recalculated value; adjacent fill-down copies of one formula grouped as one
range line; every cell listed when the sheet has at most 32 formulas, otherwise errors and stale caches
still listed one by one); then the values as CSV with row numbers and column letters.

Values of formula cells are the recalculated ones; a stale cached value is flagged; a formula no engine
evaluated shows its cached value (flagged) or, without one, a visible ``[not calculated]`` marker - never
an empty cell. Budget: one character budget per workbook shared across sheets: small sheets whole, the
rest shared among large ones, which keep whole head and tail lines around a marker counting what was
omitted.

Failure behaviour: raises on an unreadable workbook (the caller turns that into an
``[extraction failed: ...]`` marker); a failing engine is a note in the text, never an exception.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .numfmt import display_text
from .recalc import CellValue, Recalculation, plain, recalculate

__all__ = [
    "WORKBOOK_BUDGET",
    "VALUES_HEADING",
    "render_workbook",
    "formula_cells",
    "formula_values",
    "value_cells",
    "share_budget",
    "fit_lines",
]

WORKBOOK_BUDGET = 190_000  # characters of sheet text per workbook (official), shared across sheets
MAX_SHEET_CELLS = 2_000_000  # grid cells per sheet (official limit)
LIST_ALL_FORMULAS = 32  # a sheet with at most this many formulas lists every one
_VOLATILE_RE = re.compile(r"\b(WEBSERVICE|DDE|RTD|CALL|IMAGE|REGISTER\.ID|NOW|TODAY|RAND|RANDBETWEEN|RANDARRAY|CELL|INFO)\s*\(", re.I)
# a reference into another workbook written inline (no externalLinks part): `[book.xlsx]Sheet1!A1`,
# `'../dir/[book.xlsx]Sheet1'!A1`, `[1]Sheet1!A1`, `'C:\path\[b.xlsx]'!Name`; and DDE links (`app|'topic'!item`)
_INLINE_EXTERNAL_RE = re.compile(r"\[[^\[\]]+\][^!\[\](),;=+*/^&<>\-]*'?!|[A-Za-z_][\w.]*\|'[^']*'!")
_STRING_LITERAL_RE = re.compile(r'"(?:[^"]|"")*"')

_WS_OPEN_RE = re.compile(rb"<(\w+:)?worksheet\b[^>]*>")
VALUES_HEADING = "Values (CSV; row numbers and column letters):"
_FORMULA_TAG_RE = re.compile(rb"<(?:\w+:)?f[\s>/]")


def references_other_files(formula: str) -> bool:
    """Whether a formula (or a defined name's text) reads another file: an inline workbook reference or a DDE link.
    String literals are not references."""
    return bool(_INLINE_EXTERNAL_RE.search(_STRING_LITERAL_RE.sub('""', formula)))


@dataclass(slots=True)
class _Cell:
    row: int
    col: int
    coord: str
    value: Any  # the cell's own value (the cached one for a formula)
    formula: str | None = None
    array_range: str | None = None
    date_format: bool = False
    number_format: str = ""  # a formula cell's format: its result is also shown as the sheet displays it


# ---------------------------------------------------------------------------------------------- reading


def _with_dimensions(path: Path, tmpdir: str) -> tuple[Path, set[str]]:
    """A copy openpyxl can stream when sheets lack a <dimension> record (openpyxl's write-only output):
    without it the read-only reader parses a whole sheet up front. Returns (path, patched sheet parts)."""
    patched: dict[str, bytes] = {}
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            if not (name.startswith("xl/worksheets/") and name.endswith(".xml")):
                continue
            with zf.open(name) as fh:
                head = fh.read(65536)
            if b"dimension" in head:
                continue
            m = _WS_OPEN_RE.search(head)
            if m is None:
                continue
            prefix = m.group(1) or b""
            patched[name] = head[: m.end()] + b"<" + prefix + b'dimension ref="A1"/>' + head[m.end():]
        if not patched:
            return path, set()
        out = Path(tmpdir) / "stream.xlsx"
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
            for info in zf.infolist():
                if info.filename in patched:
                    with zf.open(info) as src, dst.open(info.filename, "w", force_zip64=True) as w:
                        src.read(65536)  # the head, replaced by its patched version
                        w.write(patched[info.filename])
                        shutil.copyfileobj(src, w, 1 << 20)
                else:
                    dst.writestr(info, zf.read(info), compress_type=info.compress_type)
    return out, set(patched)


def _load(path: Path, tmpdir: str, data_only: bool) -> Any:
    import openpyxl

    readable, patched = _with_dimensions(path, tmpdir)
    wb = openpyxl.load_workbook(readable, read_only=True, data_only=data_only, keep_links=False)
    if patched:
        for ws in wb.worksheets:
            if getattr(ws, "_worksheet_path", "").lstrip("/") in patched:
                ws.reset_dimensions()
    return wb


@dataclass
class _Book:
    sheets: list[tuple[str, list[_Cell] | str]]  # (name, cells) or (name, reason the sheet is not shown)
    defined_names: list[str]
    external_links: bool
    macros: bool
    volatile: list[str]


def _has_formulas(zf: zipfile.ZipFile) -> bool:
    """Whether any worksheet holds a formula element (a byte scan: far cheaper than parsing the XML)."""
    for name in zf.namelist():
        if not (name.startswith("xl/worksheets/") and name.endswith(".xml")):
            continue
        with zf.open(name) as fh:
            tail = b""
            while chunk := fh.read(1 << 20):
                if _FORMULA_TAG_RE.search(tail + chunk):
                    return True
                tail = chunk[-16:]
    return False


def _read(path: Path) -> _Book:
    from openpyxl.styles.numbers import is_date_format
    from openpyxl.utils import get_column_letter

    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        formulas_inside = _has_formulas(zf)
    # links to other workbooks, data connections and web queries: all read outside the file
    external = any(n.startswith(("xl/externalLinks/", "xl/queryTables/")) or n == "xl/connections.xml" for n in names)
    macros = any(n.lower().endswith("vbaproject.bin") for n in names)
    tmp = tempfile.mkdtemp(prefix="jobenv-xlsx-")
    wb_f = wb_v = None
    sheets: list[tuple[str, list[_Cell] | str]] = []
    defined: list[str] = []
    volatile: list[str] = []
    try:
        (Path(tmp) / "f").mkdir()
        (Path(tmp) / "v").mkdir()
        wb_f = _load(path, str(Path(tmp) / "f"), data_only=False)
        # cached values matter only for formula cells: a workbook without any is read once
        wb_v = _load(path, str(Path(tmp) / "v"), data_only=True) if formulas_inside else None
        try:
            for name, dn in wb_f.defined_names.items():
                defined.append(f"{name}: {dn.attr_text}")
                if references_other_files(str(dn.attr_text)):
                    external = True
        except Exception:  # defined names are context, not essential
            pass
        for ws in wb_f.worksheets:
            size = (ws.max_row or 0) * (ws.max_column or 0)
            if size > MAX_SHEET_CELLS:
                sheets.append((ws.title, f"not shown: {size:,} grid cells exceed the {MAX_SHEET_CELLS:,}-cell limit"))
                continue
            wv = wb_v[ws.title] if wb_v is not None and ws.title in wb_v.sheetnames else None
            v_rows = wv.iter_rows() if wv is not None else iter(())
            cells: list[_Cell] = []
            for r, row in enumerate(ws.iter_rows(), 1):
                cached_row = next(v_rows, ())
                for k, cell in enumerate(row):
                    v = cell.value
                    if v is None:
                        continue
                    rnum = getattr(cell, "row", None) or r
                    cnum = getattr(cell, "column", None) or k + 1
                    cached = cached_row[k].value if k < len(cached_row) else None
                    coord = f"{get_column_letter(cnum)}{rnum}"
                    if getattr(cell, "data_type", None) == "f" or type(v).__name__ in ("ArrayFormula", "DataTableFormula"):
                        text = v if isinstance(v, str) else getattr(v, "text", None)
                        rng = None if isinstance(v, str) else getattr(v, "ref", None)
                        formula = text if isinstance(text, str) else "[unsupported formula structure]"
                        if _VOLATILE_RE.search(formula):
                            volatile.append(f"{ws.title}!{coord}")
                        if references_other_files(formula):
                            external = True
                        fmt = getattr(cell, "number_format", "") or ""
                        cells.append(_Cell(rnum, cnum, coord, plain(cached), formula, rng, bool(is_date_format(fmt)),
                                           fmt))
                    else:
                        cells.append(_Cell(rnum, cnum, coord, plain(v)))
            sheets.append((ws.title, cells))
    finally:
        for wb in (wb_f, wb_v):
            if wb is not None:
                wb.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return _Book(sheets, defined, external, macros, volatile)


def formula_cells(path: Path) -> dict[str, list[str]]:
    """Sheet name -> coordinates of its formula cells (empty sheets omitted)."""
    book = _read(Path(path))
    out: dict[str, list[str]] = {}
    for name, cells in book.sheets:
        if isinstance(cells, list):
            coords = [c.coord for c in cells if c.formula is not None]
            if coords:
                out[name] = coords
    return out


def formula_values(path: Path | str, *, engine: str | None = None) -> dict[str, dict[str, Any]]:
    """Recalculated values of every formula cell: sheet -> coordinate -> value (errors as their code text,
    e.g. "#DIV/0!"). Cells no engine could evaluate are absent. For graders that compare numbers.
    Raises on a workbook openpyxl cannot open; an unknown engine name raises ValueError when there is a formula to
    recalculate (a workbook without formulas starts no engine and returns {})."""
    wanted = formula_cells(Path(path))
    if not any(wanted.values()):
        return {}  # nothing to recalculate: no engine is started
    res = recalculate(path, engine=engine, formula_cells=wanted)
    return {s: {c: (v.error if v.error else v.value) for c, v in cells.items()} for s, cells in res.cells.items()}


# ---------------------------------------------------------------------------------------------- values


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _js(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return json.dumps(str(value), ensure_ascii=False)


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b or (a in ("", None) and b in ("", None))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b and type(a) is type(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return str(a) == str(b)


@dataclass
class _Shown:
    """A formula cell's outcome: what the grid shows and what its evidence line says."""

    text: str
    recalculated: CellValue | None
    stale: bool
    uncalculated: bool


def _as_date(value: Any) -> Any:
    from openpyxl.utils.datetime import from_excel

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return plain(from_excel(value))
        except (ValueError, OverflowError):
            return value
    return value


def _outcome(cell: _Cell, calc: Recalculation, sheet: str, restricted: bool) -> _Shown:
    got = None if restricted else calc.get(sheet, cell.coord)
    if got is None:
        if cell.value is not None:
            return _Shown(f"{_fmt(cell.value)} [cached; not recalculated]", None, False, True)
        return _Shown("[not calculated]", None, False, True)
    if got.error:
        return _Shown(f"{got.error} [calculation error]", got, False, False)
    value = _as_date(got.value) if cell.date_format and calc.engine == "formulas" else got.value
    got = CellValue(value=value)
    stale = cell.value is not None and not _same(cell.value, value)
    return _Shown(_fmt(value), got, stale, False)


def _evidence(cell: _Cell, shown: _Shown, engine: str) -> str:
    line = f"{cell.coord}: {cell.formula}; cached: {_js(cell.value) if cell.value is not None else 'none'}"
    if cell.array_range:
        line += f"; array range {cell.array_range}"
    if shown.recalculated is None:
        return line + "; not calculated by any engine"
    r = shown.recalculated
    line += f"; recalculated ({engine}): " + (f"{r.error} (calculation error)" if r.error else _js(r.value))
    display = None if r.error or cell.date_format else display_text(r.value, cell.number_format)
    if display is not None and display != _fmt(r.value):
        line += f" (displayed as {display})"
    if shown.stale:
        line += " [STALE CACHE: the saved value differs from the recalculated one]"
    return line


def _fill_groups(cells: list[_Cell]) -> list[list[_Cell]]:
    """Runs of vertically adjacent cells in one column whose formulas are exact fill-down copies."""
    from openpyxl.formula.translate import Translator

    groups: list[list[_Cell]] = []
    for cell in sorted(cells, key=lambda c: (c.col, c.row)):
        last = groups[-1][-1] if groups else None
        joined = False
        if (last is not None and cell.array_range is None and last.array_range is None and last.col == cell.col
                and cell.row == last.row + 1 and last.formula and last.formula.startswith("=")):
            try:
                anchor = groups[-1][0]
                joined = Translator(anchor.formula or "", origin=anchor.coord).translate_formula(cell.coord) == cell.formula
            except Exception:  # an untranslatable formula stays its own line
                joined = False
        if joined:
            groups[-1].append(cell)
        else:
            groups.append([cell])
    return groups


def _formula_block(cells: list[_Cell], shown: dict[str, _Shown], engine: str, list_all: bool) -> list[str]:
    formulas = [c for c in cells if c.formula is not None]
    every = list_all or len(formulas) <= LIST_ALL_FORMULAS
    lines: list[str] = []
    for group in _fill_groups(formulas):
        if len(group) == 1:
            lines.append(_evidence(group[0], shown[group[0].coord], engine))
            continue
        first, last = group[0], group[-1]
        none_cached = sum(c.value is None for c in group)
        zero_cached = sum(isinstance(c.value, (int, float)) and not isinstance(c.value, bool) and c.value == 0 for c in group)
        outs = [shown[c.coord] for c in group]
        calc = [o for o in outs if o.recalculated is not None]
        line = (f"{first.coord}:{last.coord}: {len(group)} formulas filled down from {first.coord} ({first.formula}); "
                f"cached none: {none_cached}, zero: {zero_cached}")
        if calc:
            errors = sum(bool(o.recalculated and o.recalculated.error) for o in calc)
            blank = sum(o.recalculated is not None and not o.recalculated.error and o.recalculated.value in (None, "") for o in calc)
            line += f"; recalculated ({engine}): {len(calc)}, blank {blank}, errors {errors}, stale caches {sum(o.stale for o in outs)}"
        if len(calc) < len(group):
            line += f"; not calculated: {len(group) - len(calc)}"
        lines.append(line)
        for c, o in zip(group, outs, strict=True):
            if every or o.stale or o.uncalculated or (o.recalculated is not None and o.recalculated.error):
                lines.append(_evidence(c, o, engine))
    return lines


def _csv_line(values: list[Any]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(values)
    return buf.getvalue().rstrip("\n")


@dataclass
class _Sheet:
    header: str
    formulas: list[str]
    grid_header: str
    rows: list[str]


def _sheet(name: str, cells: list[_Cell], calc: Recalculation, restricted: bool, list_all: bool) -> tuple[_Sheet, dict[str, int]]:
    from openpyxl.utils import get_column_letter

    shown = {c.coord: _outcome(c, calc, name, restricted) for c in cells if c.formula is not None}
    grid: dict[int, dict[int, str]] = {}
    rows_seen: set[int] = set()
    for c in cells:
        rows_seen.add(c.row)
        text = shown[c.coord].text if c.formula is not None else _fmt(c.value)
        if text != "":
            grid.setdefault(c.row, {})[c.col] = text
    cols = sorted({k for row in grid.values() for k in row})
    grid_header = _csv_line(["row", *(get_column_letter(k) for k in cols)])
    rows = [_csv_line([r, *(vals.get(k, "") for k in cols)]) for r, vals in sorted(grid.items())]
    if not rows:
        rows = ["(no non-empty values; formula cells are listed above)"]
    n_formulas = len(shown)
    header = (f"--- sheet: {name} ---\nformula cells: {n_formulas}; non-empty value rows: {len(grid)}; "
              f"blank value rows omitted: {len(rows_seen) - len(grid)}")
    stats = {
        "stale": sum(o.stale for o in shown.values()),
        "errors": sum(bool(o.recalculated and o.recalculated.error) for o in shown.values()),
        "uncalculated": sum(o.uncalculated for o in shown.values()),
        "names": sum(bool(o.recalculated and o.recalculated.error == "#NAME?") for o in shown.values()),
        "formulas": n_formulas,
    }
    return _Sheet(header, _formula_block(cells, shown, calc.engine, list_all),
                  grid_header, rows), stats


# ---------------------------------------------------------------------------------------------- budgeting


def share_budget(lengths: list[int], budget: int) -> list[int]:
    """Split ``budget`` so every part that fits its fair share is kept whole and the rest share the remainder."""
    out = [0] * len(lengths)
    pending = list(range(len(lengths)))
    budget = max(0, budget)
    while pending:
        fair = budget // len(pending)
        whole = [i for i in pending if lengths[i] <= fair]
        if not whole:
            extra = budget - fair * len(pending)
            for n, i in enumerate(pending):
                out[i] = fair + (1 if n < extra else 0)
            break
        for i in whole:
            out[i] = lengths[i]
            budget -= lengths[i]
            pending.remove(i)
    return out


def fit_lines(lines: list[str], budget: int, what: str) -> str:
    """``lines`` joined, or as many whole lines from the head and the tail as fit around a marker that
    counts the omitted middle ones."""
    full = "\n".join(lines)
    if len(full) <= budget:
        return full

    def marker(omitted: int) -> str:
        return f"[... {omitted:,} of {len(lines):,} {what} omitted here by jobenv to fit the workbook budget ...]"

    room = budget - len(marker(len(lines))) - 2
    head: list[str] = []
    tail: list[str] = []
    lo, hi = 0, len(lines) - 1
    from_head = True
    while lo <= hi:
        order = (lo, hi) if from_head else (hi, lo)
        pick = next((i for i in order if len(lines[i]) + 1 <= room), None)
        if pick is None:
            break
        room -= len(lines[pick]) + 1
        if pick == lo:
            head.append(lines[lo])
            lo += 1
            from_head = False
        else:
            tail.append(lines[hi])
            hi -= 1
            from_head = True
    return "\n".join([*head, marker(hi - lo + 1), *reversed(tail)])[: max(0, budget)]


def _render(s: _Sheet, budget: int | None) -> str:
    def join(formula_text: str, row_text: str) -> str:
        parts = [s.header]
        if s.formulas:
            parts += ["Formula evidence:", formula_text]
        parts += [VALUES_HEADING, s.grid_header, row_text]
        return "\n".join(parts)

    f_text, r_text = "\n".join(s.formulas), "\n".join(s.rows)
    full = join(f_text, r_text)
    if budget is None or len(full) <= budget:
        return full
    room = budget - len(join("", ""))
    if room < 90:  # too little for two blocks: one list of everything after the sheet name
        title, stats = s.header.split("\n", 1)
        body = fit_lines([stats, *s.formulas, s.grid_header, *s.rows], max(0, budget - len(title) - 1), "sheet lines")
        return (title + "\n" + body)[: max(0, budget)]
    if len(f_text) <= room // 2:
        f_room, r_room = len(f_text), room - len(f_text)
    else:
        f_room, r_room = share_budget([len(f_text), len(r_text)], room)
    return join(fit_lines(s.formulas, f_room, "formula lines"), fit_lines(s.rows, r_room, "value rows"))


def _layout(sheets: list[str | _Sheet], budget: int | None) -> str:
    plain_texts = [x if isinstance(x, str) else _render(x, None) for x in sheets]
    if budget is None or sum(map(len, plain_texts)) + len(plain_texts) - 1 <= budget:
        return "\n".join(plain_texts)
    shares = share_budget([len(t) for t in plain_texts], budget - len(plain_texts) + 1)
    out = []
    for x, text, share in zip(sheets, plain_texts, shares, strict=True):
        out.append(text[:share] if isinstance(x, str) else _render(x, share))
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- workbook


def render_workbook(path: Path, *, budget: int | None = WORKBOOK_BUDGET, engine: str | None = None,
                    list_all: bool = False) -> str:
    """The judge text of one xlsx/xlsm workbook (see the module docstring). ``list_all`` lists every
    formula cell in the evidence blocks. Raises on a workbook openpyxl cannot open."""
    path = Path(path)
    book = _read(path)
    wanted = {name: [c.coord for c in cells if c.formula is not None]
              for name, cells in book.sheets if isinstance(cells, list)}
    wanted = {k: v for k, v in wanted.items() if v}
    n_formulas = sum(map(len, wanted.values()))
    restricted = book.external_links or book.macros or bool(book.volatile)
    head: list[str] = []
    calc = Recalculation("none", "none")
    if not n_formulas:
        head.append("Workbook recalculation: no formulas")
    elif restricted:
        why = [w for w, on in (("external links", book.external_links), ("macros", book.macros),
                               ("volatile or external functions", bool(book.volatile))) if on]
        head.append(f"Workbook recalculation: not recalculated ({', '.join(why)}); cached values shown and flagged")
    else:
        calc = recalculate(path, engine=engine, formula_cells=wanted)
        if calc.engine == "none":
            head.append(f"Workbook recalculation: no engine could run ({calc.note}); cached values shown and flagged")
        else:
            head.append(f"Workbook recalculation: every formula recalculated by {calc.label}"
                        + (f"; {calc.note}" if calc.note else ""))
    if book.external_links:
        head.append("[note: the workbook refers to other files (external links or inline references to other "
                    "workbooks); they were not opened or refreshed]")
    if book.macros:
        head.append("[note: the workbook has macros; they were not run]")
    if book.volatile:
        head.append(f"[note: volatile or external functions in {', '.join(book.volatile[:20])}"
                    + (" ..." if len(book.volatile) > 20 else "") + "]")
    if book.defined_names:
        head.append("Defined names: " + "; ".join(book.defined_names[:50]) + (" ..." if len(book.defined_names) > 50 else ""))
    parts: list[str | _Sheet] = []
    totals = {"stale": 0, "errors": 0, "uncalculated": 0, "names": 0}
    for name, cells in book.sheets:
        if isinstance(cells, str):
            parts.append(f"--- sheet: {name} ---\n[{cells}]")
            continue
        sheet, stats = _sheet(name, cells, calc, restricted, list_all)
        for k in totals:
            totals[k] += stats[k]
        parts.append(sheet)
    if totals["stale"]:
        head.append(f"[note: {totals['stale']} cached value(s) disagree with the recalculation (STALE CACHE); recalculated values shown]")
    if totals["errors"]:
        head.append(f"[note: {totals['errors']} formula cell(s) give a calculation error]")
    if calc.engine == "formulas" and totals["names"]:
        head.append("[note: the pure-Python engine gives #NAME? for functions it does not implement, so those "
                    "cells are not necessarily wrong in a spreadsheet program]")
    if totals["uncalculated"]:
        head.append(f"[note: {totals['uncalculated']} formula cell(s) were not calculated by any engine; "
                    "cached values, where present, are shown and marked]")
    header = "\n".join(head)
    if len(header) > 9000:
        header = header[:4500] + "\n[... workbook notes shortened by jobenv ...]\n" + header[-4000:]
    if not parts:
        return header + "\n(workbook has no sheets)"
    return header + "\n" + _layout(parts, budget)


def value_cells(text: str) -> list[str]:
    """The value cells of a rendered workbook text (each sheet's CSV grid without its row-number column,
    header or omission markers): what a grader should read numbers from, not the coordinates."""
    out: list[str] = []
    state = "other"  # "header": the next line is the grid header; "grid": CSV rows
    for line in text.splitlines():
        if line.startswith("--- sheet: "):
            state = "other"
        elif line == VALUES_HEADING:
            state = "header"
        elif state == "header":
            state = "grid"
        elif state == "grid" and line and not line.startswith(("[... ", "(no non-empty values")):
            row = next(csv.reader([line]), [])
            out.extend(row[1:])
    return out
