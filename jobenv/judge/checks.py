"""Deterministic checks: grade a task whose rubrics carry ``jobenv_checks`` with no network and no LLM.

Each criterion has one check (see :mod:`jobenv.tasks` for the kinds and their meaning). Text and number
checks read the same extracted text an LLM judge would see; table checks (``columns``, ``cell``,
``row_count``) read csv/tsv files and workbook sheets with pandas.

Matching rules chosen here (documented because they decide scores):

* ``file`` globs match the relative path case-insensitively; a glob without ``/`` also matches the file's
  base name, so ``summary.xlsx`` finds ``out/summary.xlsx``.
* Text is searched both as extracted and with whitespace collapsed and Markdown escapes removed.
* A table's header row is the first of its first 20 rows that holds every column the check names
  (row 1 when the check names none), so a title row above the header does not hide the table.

Failure behaviour: evaluating a check never raises. A deliverable that cannot be read makes the
criterion fail with the reason as evidence; a task without checks is a grading *error*.
"""

from __future__ import annotations

import fnmatch
import math
import re
import time
from pathlib import Path
from typing import Any

from ..extract import ExtractMode, Extraction, extract_output
from ..tasks import (
    AllOfCheck,
    AnyOfCheck,
    CellCheck,
    ColumnsCheck,
    FileExistsCheck,
    NotCheck,
    NumberCheck,
    RowCountCheck,
    TextCheck,
)
from .base import Judge, empty_output_report, rejected_report
from .report import CriterionResult, GradeReport, RubricResult, build_report

__all__ = ["ChecksJudge", "evaluate_check", "parse_numbers", "CheckContext"]

_MD_ESCAPE_RE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])")
_TABLE_EXTS = {"csv", "tsv", "xlsx", "xlsm", "xls"}
_HEADER_SCAN_ROWS = 20

# A number token: optional "(" for accounting negatives, sign, currency, digits with thousands
# separators, decimals, exponent, percent, ")". The look-behind keeps "Q3" or "x2" from reading as numbers.
_NUM_RE = re.compile(
    r"(?<![\w.])(?P<open>\()?\s?(?P<sign>[-+\u2212])?\s?(?P<cur>[$\u20ac\u00a3\u00a5])?\s?(?P<sign2>[-\u2212])?"
    r"(?P<int>\d{1,3}(?:,\d{3})+|\d+)?(?P<frac>\.\d+)?(?P<exp>[eE][-+]?\d+)?(?![\w])\s?(?P<pct>%)?\s?(?P<close>\))?"
)


def parse_numbers(text: str) -> list[float]:
    """Every number in ``text``: ``1,234.5``, ``$1,234``, ``(1,234)`` (= -1234), ``-3``, ``12.5%`` (= 12.5).

    Commas are read as thousands separators; table text (csv, workbook sheets) is split into cells
    first by :meth:`CheckContext.numbers`, so ``100,200`` in a CSV row is two numbers there.
    """
    out: list[float] = []
    for m in _NUM_RE.finditer(text):
        ip, frac = m.group("int"), m.group("frac")
        if not ip and not frac:
            continue
        neg = (m.group("sign") in ("-", "\u2212")) or (m.group("sign2") in ("-", "\u2212"))
        if m.group("open") and m.group("close"):
            neg = True
        body = (ip or "0").replace(",", "") + (frac or "") + (m.group("exp") or "")
        try:
            val = float(body)
        except ValueError:
            continue
        out.append(-val if neg else val)
    return out


def _to_number(value: Any) -> float | None:
    """A cell or expected value as a number, or None when it is text."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return None if isinstance(value, float) and math.isnan(value) else float(value)
    s = str(value).strip()
    if not s:
        return None
    m = _NUM_RE.fullmatch(s)
    if not m or not (m.group("int") or m.group("frac")):
        return None
    nums = parse_numbers(s)
    return nums[0] if nums else None


def _norm(s: Any) -> str:
    return " ".join(str(s).split()).casefold()


def _is_blank(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or (isinstance(v, str) and not v.strip())


def _equal(actual: Any, expected: Any, tol: float) -> bool:
    """Numbers within ``tol`` (when both sides read as numbers), else trimmed case-insensitive text."""
    a, e = _to_number(actual), _to_number(expected)
    if a is not None and e is not None:
        return abs(a - e) <= max(tol, 1e-9 * max(1.0, abs(e)))
    if _is_blank(actual):
        return _is_blank(expected)
    if isinstance(actual, float) and actual.is_integer():
        actual = int(actual)
    return _norm(actual) == _norm(expected)


def _glob_match(rel: str, pattern: str) -> bool:
    rel_l, pat_l = rel.lower(), pattern.lower().removeprefix("./")
    if fnmatch.fnmatchcase(rel_l, pat_l):
        return True
    return "/" not in pat_l and fnmatch.fnmatchcase(rel_l.rsplit("/", 1)[-1], pat_l)


class CheckContext:
    """The deliverables of one grading: the extraction plus lazily loaded tables."""

    def __init__(self, extraction: Extraction) -> None:
        self.extraction = extraction
        self._tables: dict[str, list[tuple[str, Any]] | str] = {}
        self._files = extraction.file_map()
        self._plain: dict[str, str] = {}

    def files(self, pattern: str) -> list[str]:
        return [f.path for f in self.extraction.files if _glob_match(f.path, pattern)]

    def text(self, rel: str) -> str:
        return self._files[rel].text

    def plain(self, rel: str) -> str:
        """The text with Markdown escapes removed and whitespace collapsed (docx arrives as escaped Markdown)."""
        if rel not in self._plain:
            self._plain[rel] = " ".join(_MD_ESCAPE_RE.sub(r"\1", self.text(rel)).split())
        return self._plain[rel]

    def numbers(self, rel: str) -> list[float]:
        """Numbers of one deliverable; csv/tsv files and workbook sheets are read cell by cell."""
        f = self._files[rel]
        ext = rel.rsplit(".", 1)[-1].lower() if "." in rel else ""
        if f.kind == "workbook" and ext != "xls":
            from ..extract.sheets import value_cells  # the grid only: row numbers and coordinates are not numbers

            return [x for cell in value_cells(f.text) for x in parse_numbers(cell)]
        if ext in ("csv", "tsv") or f.kind == "workbook":
            import csv

            out: list[float] = []
            for row in csv.reader(f.text.splitlines(), delimiter="\t" if ext == "tsv" else ","):
                for cell in row:
                    out.extend(parse_numbers(cell))
            return out
        return parse_numbers(self.plain(rel))

    def tables(self, rel: str) -> list[tuple[str, Any]] | str:
        """[(sheet name, DataFrame without header)] of a table file, or an error string."""
        if rel not in self._tables:
            self._tables[rel] = self._load(rel)
        return self._tables[rel]

    def _load(self, rel: str) -> list[tuple[str, Any]] | str:
        import pandas as pd

        path = self.extraction.root / rel
        ext = rel.rsplit(".", 1)[-1].lower() if "." in rel else ""
        try:
            if ext in ("csv", "tsv"):
                sep = "\t" if ext == "tsv" else None
                df = pd.read_csv(path, header=None, dtype=str, sep=sep, engine="python",
                                 keep_default_na=False, encoding_errors="replace", skip_blank_lines=True)
                return [("", df)]
            if ext in ("xlsx", "xlsm", "xls"):
                sheets = pd.read_excel(path, sheet_name=None, header=None)
                return [(str(name), df) for name, df in sheets.items()]
        except Exception as exc:  # a broken table fails the check, with the reason as evidence
            return f"{type(exc).__name__}: {str(exc)[:200]}"
        return "not a table file (csv, tsv, xlsx, xls)"


def _table_files(ctx: CheckContext, pattern: str) -> list[str]:
    return [p for p in ctx.files(pattern) if p.rsplit(".", 1)[-1].lower() in _TABLE_EXTS]


def _header_row(df: Any, needed: list[str]) -> int | None:
    want = {_norm(c) for c in needed}
    for i in range(min(len(df), _HEADER_SCAN_ROWS)):
        row = {_norm(v) for v in df.iloc[i].tolist() if not _is_blank(v)}
        if not want:
            if row:
                return i
            continue
        if want <= row:
            return i
    return None


def _col_index(df: Any, header_i: int) -> dict[str, int]:
    idx: dict[str, int] = {}
    for j, v in enumerate(df.iloc[header_i].tolist()):
        if not _is_blank(v):
            idx.setdefault(_norm(v), j)
    return idx


def _data_rows(df: Any, header_i: int) -> list[list[Any]]:
    rows = df.iloc[header_i + 1 :].values.tolist()
    return [r for r in rows if not all(_is_blank(v) for v in r)]


def _sheets(ctx: CheckContext, pattern: str, sheet: str | None) -> tuple[list[tuple[str, Any]], list[str]]:
    """[(label, DataFrame)] of matching tables and notes about files that could not be read."""
    found: list[tuple[str, Any]] = []
    notes: list[str] = []
    for rel in _table_files(ctx, pattern):
        tabs = ctx.tables(rel)
        if isinstance(tabs, str):
            notes.append(f"{rel}: unreadable ({tabs})")
            continue
        for name, df in tabs:
            if sheet is not None and name and _norm(name) != _norm(sheet):
                continue
            found.append((f"{rel}" + (f"[{name}]" if name else ""), df))
    return found, notes


def _no_table(pattern: str, sheet: str | None, notes: list[str]) -> tuple[bool, str]:
    msg = f"no table matches file {pattern!r}" + (f" sheet {sheet!r}" if sheet else "")
    return False, msg + (" (" + "; ".join(notes) + ")" if notes else "")


def _snippet(text: str, start: int, end: int) -> str:
    a, b = max(0, start - 40), min(len(text), end + 40)
    return " ".join(text[a:b].split())


def _check_text(c: TextCheck, ctx: CheckContext) -> tuple[bool, str]:
    files = ctx.files(c.file)
    flags = 0 if c.case_sensitive else re.IGNORECASE
    pat = re.compile(c.pattern if c.regex else re.escape(c.pattern), flags)
    found = None
    for rel in files:
        raw = ctx.text(rel)
        for variant in (raw, ctx.plain(rel)):
            m = pat.search(variant)
            if m:
                found = (rel, _snippet(variant, m.start(), m.end()))
                break
        if found:
            break
    where = f"{len(files)} file(s) matching {c.file!r}"
    if c.absent:
        if found:
            return False, f"forbidden pattern {c.pattern!r} found in {found[0]}: ...{found[1]}..."
        return True, f"pattern {c.pattern!r} absent from {where}"
    if found:
        return True, f"pattern {c.pattern!r} found in {found[0]}: ...{found[1]}..."
    return False, f"pattern {c.pattern!r} not found in {where}"


# Number spraying: a deliverable that lists many numbers close to the expected value (to hit it by chance)
# earns nothing. Past SPRAY_LIMIT distinct numbers within the window around the value, a match is not credited.
SPRAY_LIMIT = 25


def _spray_window(value: float, allowed: float) -> float:
    return max(0.01 * abs(value), 50 * allowed, 0.5)


def _check_number(c: NumberCheck, ctx: CheckContext) -> tuple[bool, str]:
    files = ctx.files(c.file)
    allowed = max(c.tolerance, c.rel_tolerance * abs(c.value))
    window = _spray_window(c.value, allowed)
    closest: tuple[float, str] | None = None
    hit: tuple[float, str] | None = None
    near_values: set[float] = set()
    for rel in files:
        for x in ctx.numbers(rel):
            d = abs(x - c.value)
            if d <= window:
                near_values.add(x)
            if hit is None and d <= allowed + 1e-12 * max(1.0, abs(c.value)):
                hit = (x, rel)
            if closest is None or d < abs(closest[0] - c.value):
                closest = (x, rel)
    if len(near_values) > SPRAY_LIMIT:
        return False, (f"{len(near_values)} distinct numbers within {window:g} of {c.value:g} in files matching "
                       f"{c.file!r}: too many to credit a match (number spraying)")
    if hit is not None:
        return True, f"{hit[0]:g} found in {hit[1]} (expected {c.value:g} +/- {allowed:g})"
    near = f"; closest {closest[0]:g} in {closest[1]}" if closest else ""
    return False, f"no number within {allowed:g} of {c.value:g} in {len(files)} file(s) matching {c.file!r}{near}"


def _check_columns(c: ColumnsCheck, ctx: CheckContext) -> tuple[bool, str]:
    tables, notes = _sheets(ctx, c.file, c.sheet)
    if not tables:
        return _no_table(c.file, c.sheet, notes)
    best: tuple[int, str, list[str]] | None = None
    for label, df in tables:
        if _header_row(df, c.columns) is not None:
            return True, f"{label} has columns {c.columns}"
        hi = _header_row(df, [])
        have = set(_col_index(df, hi)) if hi is not None else set()
        missing = [col for col in c.columns if _norm(col) not in have]
        if best is None or len(missing) < best[0]:
            best = (len(missing), label, missing)
    assert best is not None
    return False, f"no table has all of {c.columns}; best {best[1]} lacks {best[2]}"


def _matching_rows(df: Any, hi: int, where: dict[str, Any]) -> list[list[Any]]:
    cols = _col_index(df, hi)
    rows = _data_rows(df, hi)
    return [r for r in rows if all(_equal(r[cols[_norm(k)]], v, 0.0) for k, v in where.items())]


def _check_cell(c: CellCheck, ctx: CheckContext) -> tuple[bool, str]:
    tables, notes = _sheets(ctx, c.file, c.sheet)
    if not tables:
        return _no_table(c.file, c.sheet, notes)
    needed = [*c.match.keys(), c.column]
    reasons = []
    for label, df in tables:
        hi = _header_row(df, needed)
        if hi is None:
            reasons.append(f"{label}: lacks columns {needed}")
            continue
        rows = _matching_rows(df, hi, c.match)
        if not rows:
            reasons.append(f"{label}: no row with {c.match}")
            continue
        j = _col_index(df, hi)[_norm(c.column)]
        values = [r[j] for r in rows]
        # every matching row must agree: duplicate rows cannot hedge between answers
        if all(_equal(v, c.value, c.tolerance) for v in values):
            return True, f"{label}: row {c.match} has {c.column} = {values[0]!r} (expected {c.value!r})"
        reasons.append(f"{label}: row {c.match} has {c.column} = {', '.join(repr(v) for v in values)} (expected {c.value!r})")
    return False, "; ".join(reasons + notes)


def _check_row_count(c: RowCountCheck, ctx: CheckContext) -> tuple[bool, str]:
    tables, notes = _sheets(ctx, c.file, c.sheet)
    if not tables:
        return _no_table(c.file, c.sheet, notes)
    reasons = []
    for label, df in tables:
        hi = _header_row(df, list((c.where or {}).keys()))
        if hi is None:
            reasons.append(f"{label}: no header" + (f" with {list(c.where)}" if c.where else ""))
            continue
        n = len(_matching_rows(df, hi, c.where)) if c.where else len(_data_rows(df, hi))
        if n == c.count:
            return True, f"{label}: {n} data rows" + (f" where {c.where}" if c.where else "")
        reasons.append(f"{label}: {n} data rows" + (f" where {c.where}" if c.where else "") + f" (expected {c.count})")
    return False, "; ".join(reasons + notes)


def evaluate_check(check: Any, ctx: CheckContext) -> tuple[bool, str]:
    """(passed, evidence) for one check. Never raises: an unexpected failure fails the check with its reason."""
    try:
        if isinstance(check, FileExistsCheck):
            hits = ctx.files(check.file)
            return (True, f"found {', '.join(hits[:5])}") if hits else (False, f"no file matches {check.file!r}")
        if isinstance(check, TextCheck):
            return _check_text(check, ctx)
        if isinstance(check, NumberCheck):
            return _check_number(check, ctx)
        if isinstance(check, ColumnsCheck):
            return _check_columns(check, ctx)
        if isinstance(check, CellCheck):
            return _check_cell(check, ctx)
        if isinstance(check, RowCountCheck):
            return _check_row_count(check, ctx)
        if isinstance(check, AllOfCheck):
            subs = [evaluate_check(s, ctx) for s in check.checks]
            ok = all(p for p, _ in subs)
            return ok, "all of: " + " | ".join(("PASS " if p else "FAIL ") + e for p, e in subs)
        if isinstance(check, AnyOfCheck):
            subs = [evaluate_check(s, ctx) for s in check.checks]
            ok = any(p for p, _ in subs)
            return ok, "any of: " + " | ".join(("PASS " if p else "FAIL ") + e for p, e in subs)
        if isinstance(check, NotCheck):
            p, e = evaluate_check(check.check, ctx)
            return (not p), f"not ({e})"
        return False, f"unknown check kind {getattr(check, 'kind', type(check).__name__)!r}"
    except Exception as exc:  # odd deliverables fail the criterion, they never crash grading
        return False, f"check could not be evaluated: {type(exc).__name__}: {str(exc)[:200]}"


class ChecksJudge(Judge):
    """Grades with the tasks' deterministic checks. A rubric without checks makes the report an error."""

    kind = "checks"

    def __init__(self, *, mode: ExtractMode = "values") -> None:
        self.mode = mode

    async def grade(self, task: Any, output_dir: Path) -> GradeReport:
        import asyncio

        return await asyncio.to_thread(self.grade_blocking, task, output_dir)

    def grade_blocking(self, task: Any, output_dir: Path, extraction: Extraction | None = None) -> GradeReport:
        """Synchronous grading; never raises (an internal failure becomes ``status="error"``)."""
        t0 = time.perf_counter()
        try:
            ex = extraction if extraction is not None else extract_output(Path(output_dir), mode=self.mode, with_images=False)
            if ex.rejected:
                return rejected_report(task, ex, self.kind, None, self.mode, t0)
            if not task.has_checks:
                missing = [i for i, r in enumerate(task.rubrics) if r.checks is None]
                return build_report(
                    task, [], judge_kind=self.kind, judge_model=None, mode=self.mode,
                    extra_errors=[f"the checks judge needs jobenv_checks on every rubric; rubrics {missing} have none "
                                  "(use judge='llm' or 'auto' with an LLM configured)"],
                    latency_s=time.perf_counter() - t0,
                )
            if ex.empty:
                return empty_output_report(task, self.kind, None, self.mode, t0)
            ctx = CheckContext(ex)
            results = []
            for i, rubric in enumerate(task.rubrics):
                crit = []
                for j, (text, check) in enumerate(zip(rubric.criteria, rubric.checks or [])):
                    passed, evidence = evaluate_check(check, ctx)
                    crit.append(CriterionResult(index=j, criterion=text, passed=passed,
                                                reasoning=f"deterministic {check.kind} check", evidence=evidence))
                results.append(RubricResult(index=i, rubric=rubric.text, weight=rubric.weight, criteria_results=crit))
            return build_report(task, results, judge_kind=self.kind, judge_model=None, mode=self.mode,
                                latency_s=time.perf_counter() - t0)
        except Exception as exc:  # fail-closed: never a score from a crashed grader
            return build_report(task, [], judge_kind=self.kind, judge_model=None, mode=self.mode,
                                extra_errors=[f"checks judge failed: {type(exc).__name__}: {exc}"],
                                latency_s=time.perf_counter() - t0)
