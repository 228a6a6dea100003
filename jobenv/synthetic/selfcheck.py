"""A small evaluator of ``jobenv_checks`` used as a generation-time gate.

It reads deliverables the way the graders do for the formats the generated ground truth uses (csv,
markdown/text, xlsx, docx paragraphs) and evaluates every check kind. The generator runs it on each ground truth (every
rubric must pass) and on an empty output folder (every rubric must fail); the real grader
(``jobenv.judge``'s checks judge) is run over the same tasks in the tests.

Failure behaviour: never raises on a bad deliverable; an unreadable file simply makes its checks fail.
"""

from __future__ import annotations

import csv
import fnmatch
import io
import re
from pathlib import Path
from typing import Any

__all__ = ["evaluate_rubrics", "evaluate_check"]

_NUM_RE = re.compile(r"\(?-?[$€£]?\d[\d,]*(?:\.\d+)?%?\)?|\(?-?[$€£]?\.\d+%?\)?")


def _files(out: Path, pattern: str) -> list[Path]:
    if not out.is_dir():
        return []
    rels = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    return [out / r for r in rels if fnmatch.fnmatch(r, pattern) or fnmatch.fnmatch(Path(r).name, pattern)]


def _tables(path: Path, sheet: str | None) -> list[list[list[str]]]:
    try:
        if path.suffix.lower() == ".csv":
            return [list(csv.reader(io.StringIO(path.read_text(encoding="utf-8", errors="replace"))))]
        if path.suffix.lower() in (".xlsx", ".xlsm"):
            from openpyxl import load_workbook

            wb = load_workbook(path, data_only=True, read_only=True)
            out = []
            for ws in wb.worksheets:
                if sheet is not None and ws.title.strip().lower() != sheet.strip().lower():
                    continue
                out.append([["" if v is None else str(v) for v in row] for row in ws.iter_rows(values_only=True)])
            return out
    except Exception:
        return []
    return []


def _text(path: Path) -> str:
    if path.suffix.lower() == ".docx":
        try:
            from docx import Document

            return "\n".join(p.text for p in Document(str(path)).paragraphs)
        except Exception:
            return ""
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        return "\n".join("\n".join(",".join(r) for r in t) for t in _tables(path, None))
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _num(s: str) -> float | None:
    t = s.strip().replace(",", "").replace("$", "").replace("€", "").replace("£", "").replace("%", "")
    neg = t.startswith("(") and t.endswith(")")
    t = t.strip("()")
    try:
        v = float(t)
    except ValueError:
        return None
    return -v if neg else v


def _eq(cell: str, want: Any, tolerance: float) -> bool:
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        v = _num(cell)
        return v is not None and abs(v - float(want)) <= tolerance + 1e-9
    return cell.strip().casefold() == str(want).strip().casefold()


def _header_index(header: list[str], name: str) -> int | None:
    for i, h in enumerate(header):
        if h.strip().casefold() == name.strip().casefold():
            return i
    return None


def evaluate_check(c: dict[str, Any], out: Path) -> bool:
    kind = c["kind"]
    if kind == "file_exists":
        return bool(_files(out, c["file"]))
    if kind == "text":
        flags = 0 if c.get("case_sensitive") else re.IGNORECASE
        hit = False
        for p in _files(out, c.get("file", "*")):
            t = _text(p)
            if c.get("regex"):
                hit = re.search(c["pattern"], t, flags) is not None
            else:
                hit = (c["pattern"] in t) if c.get("case_sensitive") else (c["pattern"].lower() in t.lower())
            if hit:
                break
        return not hit if c.get("absent") else hit
    if kind == "number":
        tol = max(c.get("tolerance", 0.0), abs(c["value"]) * c.get("rel_tolerance", 0.0))
        for p in _files(out, c.get("file", "*")):
            for m in _NUM_RE.finditer(_text(p)):
                v = _num(m.group(0))
                if v is not None and abs(v - c["value"]) <= tol + 1e-9:
                    return True
        return False
    if kind in ("columns", "cell", "row_count"):
        for p in _files(out, c["file"]):
            for t in _tables(p, c.get("sheet")):
                if not t:
                    continue
                header, rows = t[0], t[1:]
                if kind == "columns":
                    if all(_header_index(header, col) is not None for col in c["columns"]):
                        return True
                    continue
                if kind == "row_count":
                    where = c.get("where") or {}
                    idx = {k: _header_index(header, k) for k in where}
                    if any(i is None for i in idx.values()):
                        continue
                    n = sum(1 for r in rows if any(x.strip() for x in r)
                            and all(i < len(r) and _eq(r[i], where[k], 0.0) for k, i in idx.items()))
                    if n == c["count"]:
                        return True
                    continue
                idx = {k: _header_index(header, k) for k in c["match"]}
                col = _header_index(header, c["column"])
                if col is None or any(i is None for i in idx.values()):
                    continue
                for r in rows:
                    if all(i < len(r) and _eq(r[i], c["match"][k], 0.0) for k, i in idx.items()):
                        if col < len(r) and _eq(r[col], c["value"], c.get("tolerance", 0.0)):
                            return True
        return False
    if kind == "all_of":
        return all(evaluate_check(s, out) for s in c["checks"])
    if kind == "any_of":
        return any(evaluate_check(s, out) for s in c["checks"])
    if kind == "not":
        return not evaluate_check(c["check"], out)
    raise ValueError(f"unknown check kind {kind!r}")


def evaluate_rubrics(rubrics: list[dict[str, Any]], out: Path) -> list[list[bool]]:
    """Per rubric, per criterion: did its check pass on the deliverables in ``out``?"""
    return [[evaluate_check(c, out) for c in r["jobenv_checks"]] for r in rubrics]
