"""Deliverables read as structure for the deterministic checks: tables cell by cell (:func:`read_tables`) and Word
documents line by line (:func:`docx_lines`). They parse agent-written bytes, so the checks run them in the bounded
extraction workers by job name (:data:`JOBS`, see :meth:`jobenv.extract.service.ExtractionService.call_sync`).

Failure behaviour: nothing raises on a bad file: a table that cannot be read is an error string, a document that
cannot be read is None (the checks fall back to the extracted text).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .recalc import recalculate_batch

__all__ = ["Uncomputed", "read_tables", "docx_lines", "JOBS"]


@dataclass(frozen=True)
class Uncomputed:
    """A formula cell with no cached value and no recalculation available."""

    formula: str

    def __str__(self) -> str:
        return f"[formula without a computed value: {self.formula}]"


def docx_lines(path: Path) -> list[str] | None:
    """A Word document as lines: paragraphs, then each table row as ``a | b`` (a Markdown rule row under its first
    row, which names the columns); None when unreadable."""
    try:
        import docx

        d = docx.Document(str(path))
        lines = [p.text for p in d.paragraphs]
        for t in d.tables:
            lines.append("")
            for k, row in enumerate(t.rows):
                lines.append(" | ".join(c.text.replace("|", "/").strip() for c in row.cells))
                if k == 0:
                    lines.append("|---|")  # the first row names the columns
        return lines
    except Exception:  # an unreadable document falls back to the extracted text
        return None


# ---------------------------------------------------------------------------------------------- tables


def _pct_format(fmt: Any) -> bool:
    return isinstance(fmt, str) and "%" in fmt.replace("\\%", "").replace('"%"', "")


def _xlsx_tables(path: Path) -> list[tuple[str, list[list[Any]]]]:
    """Sheets as rows of cell values. A formula cell reads as the value the extraction layer's recalculation
    computed (:func:`jobenv.extract.formula_values`, what the LLM judge is shown), else its cached value, else
    :class:`Uncomputed`. Percent-formatted numbers read as percentages."""
    from openpyxl import load_workbook

    values = load_workbook(path, data_only=True, read_only=False)
    formulas = load_workbook(path, data_only=False, read_only=False)
    has_formulas = any(isinstance(c.value, str) and c.value.startswith("=")
                       for ws in formulas.worksheets for row in ws.iter_rows() for c in row)
    recalculated: dict[str, dict[str, Any]] = {}
    if has_formulas:
        from .files import formula_values

        recalculated = formula_values(path)
    out = []
    for ws in values.worksheets:
        wf = formulas[ws.title]
        computed = recalculated.get(ws.title, {})
        rows: list[list[Any]] = []
        for row in ws.iter_rows():
            cells: list[Any] = []
            for c in row:
                v = c.value
                f = wf.cell(row=c.row, column=c.column).value
                if isinstance(f, str) and f.startswith("="):
                    v = computed.get(c.coordinate, v)
                    if v is None:
                        v = Uncomputed(f)
                if isinstance(v, (int, float)) and not isinstance(v, bool) and _pct_format(c.number_format):
                    v = round(float(v) * 100, 10)
                cells.append(v)
            rows.append(cells)
        out.append((ws.title, rows))
    values.close()
    formulas.close()
    return out


def read_tables(path: Path) -> list[tuple[str, list[list[Any]]]] | str:
    """[(sheet name or "", rows of cells)] of a csv/tsv/xlsx/xlsm/xls file, or an error string."""
    ext = path.suffix.lower().lstrip(".")
    try:
        if ext in ("csv", "tsv"):
            text = path.read_bytes().decode("utf-8-sig", errors="replace")
            delim = "\t" if ext == "tsv" else ","
            if ext == "csv":
                try:
                    delim = csv.Sniffer().sniff(text[:4096], delimiters=",;\t").delimiter
                except csv.Error:
                    delim = ","
            return [("", [list(r) for r in csv.reader(io.StringIO(text), delimiter=delim)])]
        if ext in ("xlsx", "xlsm"):
            return _xlsx_tables(path)
        if ext == "xls":
            import pandas as pd

            sheets = pd.read_excel(path, sheet_name=None, header=None)
            return [(str(n), df.astype(object).where(df.notna(), None).values.tolist()) for n, df in sheets.items()]
    except Exception as exc:  # a broken table fails its checks, with the reason as evidence
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    return "not a table file (csv, tsv, xlsx, xls)"


JOBS: dict[str, Callable[..., Any]] = {"tables": read_tables, "docx_lines": docx_lines,
                                       "recalculate_batch": recalculate_batch}
"""The jobs a caller may run in a worker, by name (nothing else runs there)."""
