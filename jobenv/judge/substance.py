"""Which criteria prove work, and which a deliverable written without any work could pass.

A criterion *proves work* when one of its checks has a definite answer that cannot be guessed: a non-zero
number or cell (not a cell the task's input tables state at the same key, copied into a table that keeps every
key of its source: :func:`copied_cells`), a field whose answer is a value no instruction states (not a choice between allowed
options, not "none", not a keyword), a row that must be present, ids present, a count of rows with a given
value. Every other criterion - structure (files, columns, row counts), prohibitions (absent text,
``not``, ids absent, zero rows), choices (decisions, yes/no, a group picked from the options, flag cells),
"none" lists, keywords - is credited only on a deliverable that carries substance: some criterion of the
task that proves work passes on that same file (see :func:`jobenv.judge.checks.evaluate_rubrics`). So a
template with the right names, headers, row count, guessed flags and the negative decision earns nothing.

Failure behaviour: pure functions over check models and text; nothing here raises.
"""

from __future__ import annotations

import functools
import itertools
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..check_models import (
    AllOfCheck,
    AnyOfCheck,
    CellCheck,
    FieldCheck,
    FileExistsCheck,
    IdsCheck,
    NotCheck,
    NumberCheck,
    RowCountCheck,
    TextCheck,
)
from .reading import norm, to_number

__all__ = ["Stated", "stated", "input_tables", "copied_cells", "is_prohibition", "proves_work", "work_leaves", "needs_substance", "placeholder_only"]

_SUBSTANCE_WORDS = 25
_GUESS_ANSWERS = {"none", "no", "yes", "nil", "n/a", "na", "0", "ok", "true", "false", "nothing", "-", ""}
_PLACEHOLDER_WORD = re.compile(r"^(?:tbd|tbc|todo|tba|n/?a|pending|placeholder|x+|\?+|-+|\.{3}|…|lorem|ipsum|"
                               r"fill(?:\s*in)?|unknown|\[.*\]|<.*>)[.,;:]?$", re.I)


@dataclass(frozen=True)
class Stated:
    """What the task already says: its instructions' normalised text, and the cells its input tables state (as
    (file, match, column) keys of the cell checks that copy them): an answer copied from either proves nothing."""

    text: str = ""
    copied: frozenset[tuple[str, tuple[tuple[str, str], ...], str]] = frozenset()


def _cell_key(c: CellCheck) -> tuple[str, tuple[tuple[str, str], ...], str]:
    return (c.file.lower(), tuple(sorted((k, norm(v)) for k, v in c.match.items())), c.column)


_INPUT_EXTS = {".csv", ".tsv", ".xlsx", ".xlsm", ".db", ".sqlite", ".sqlite3"}
_INPUT_MAX_BYTES = 20_000_000
_INPUT_MAX_ROWS = 50_000
_INPUT_MAX_UNZIPPED = 100_000_000  # a workbook that inflates past this is not read (a zip bomb)
_INPUT_MAX_VALUE = 1_000_000  # bytes of one SQLite value
_INPUT_CPU_S = 5.0  # CPU seconds of this thread for all of a folder's inputs: a crafted table stops being read


class _OverBudget(Exception):
    pass


def input_tables(folder: Path | None) -> list[list[list[Any]]]:
    """The tables of a task's input folder (csv/tsv files, workbook sheets, SQLite tables) as rows of cells. The
    inputs are the task's own files, not the agent's; an unreadable one is skipped, and so is whatever is left when
    the folder's reading has used ``_INPUT_CPU_S`` of CPU (a crafted table: generated columns, a zip bomb, which
    would otherwise stall grading in the caller's process). Never raises."""
    out: list[list[list[Any]]] = []
    if folder is None or not Path(folder).is_dir():
        return out
    deadline = time.thread_time() + _INPUT_CPU_S

    def over() -> bool:
        return time.thread_time() > deadline

    def rows_of(it: Any) -> list[list[Any]]:
        rows: list[list[Any]] = []
        for r in itertools.islice(it, _INPUT_MAX_ROWS):
            if len(rows) % 1000 == 0 and over():
                raise _OverBudget
            rows.append(list(r))
        return rows

    for p in sorted(Path(folder).rglob("*")):
        if over():
            break  # the rest of the inputs stay unread: a copy from them is simply not recognised
        try:
            if p.suffix.lower() not in _INPUT_EXTS or not p.is_file() or p.stat().st_size > _INPUT_MAX_BYTES:
                continue
            if p.suffix.lower() in (".csv", ".tsv"):
                import csv

                with p.open(encoding="utf-8", errors="replace", newline="") as fh:
                    out.append(rows_of(csv.reader(fh, delimiter="\t" if p.suffix.lower() == ".tsv" else ",")))
            elif p.suffix.lower() in (".xlsx", ".xlsm"):
                import zipfile

                import openpyxl

                with zipfile.ZipFile(p) as z:
                    if sum(i.file_size for i in z.infolist()) > _INPUT_MAX_UNZIPPED:
                        continue
                wb = openpyxl.load_workbook(p, data_only=True, read_only=True)
                try:
                    out += [rows_of(ws.iter_rows(values_only=True)) for ws in wb.worksheets]
                finally:
                    wb.close()
            else:
                import sqlite3

                con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
                con.set_progress_handler(lambda: 1 if over() else 0, 100)  # non-zero aborts the statement
                con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, _INPUT_MAX_VALUE)  # no 100 MB generated string
                try:
                    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
                        cur = con.execute(f'SELECT * FROM "{name}" LIMIT {_INPUT_MAX_ROWS}')
                        out.append([[d[0] for d in cur.description], *rows_of(cur)])
                finally:
                    con.close()
        except Exception:  # an input that cannot be read, or reads past the budget, states nothing
            continue
    return out


_Row = tuple[frozenset[str], tuple[float, ...]]


@functools.lru_cache(maxsize=32)
def _input_index(folder: str, signature: tuple[tuple[str, int, int], ...]) -> tuple[
        tuple[dict[str, list[_Row]], dict[str, int]], ...]:
    """Per input table: ({cell text: the rows (texts, numbers) holding it}, {cell text: how many distinct values
    the column it is in holds}). Cached per folder state (``signature``: names, sizes, modification times)."""
    out = []
    for rows in input_tables(Path(folder)):
        index: dict[str, list[_Row]] = {}
        columns: dict[int, set[str]] = {}
        where: dict[str, int] = {}
        for row in rows[1:]:
            cells = [(j, norm(v)) for j, v in enumerate(row) if v is not None and str(v).strip()]
            texts = frozenset(t for _, t in cells)
            nums = tuple(y for v in row if (y := to_number(v)) is not None)
            for j, t in cells:
                index.setdefault(t, []).append((texts, nums))
                columns.setdefault(j, set()).add(t)
                where.setdefault(t, j)
        out.append((index, {t: len(columns[j]) for t, j in where.items()}))
    return tuple(out)


def copied_cells(checks: list[Any], folder: Path | None) -> frozenset[tuple[str, tuple[tuple[str, str], ...], str]]:
    """The cell checks (as keys) whose value an input table of ``folder`` states in a row holding every key of the
    match, when the deliverable keeps every key of that table (no row count of the task is below the number of
    distinct keys in the input's key column): copying or pivoting a column of the inputs into the required layout
    proves no work, selecting its rows does."""
    if folder is None or not Path(folder).is_dir():
        return frozenset()
    if not any(isinstance(leaf, CellCheck) and leaf.match for leaf in checks):
        return frozenset()  # nothing to look up: the inputs are never read (a large export costs seconds)
    try:
        sig = tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(Path(folder).rglob("*"))
                    if p.suffix.lower() in _INPUT_EXTS and p.is_file())
    except OSError:
        return frozenset()
    tables = _input_index(str(folder), sig)
    counts: dict[str, list[int]] = {}
    for leaf in checks:
        if isinstance(leaf, RowCountCheck) and leaf.count > 0:
            counts.setdefault(leaf.file.lower(), []).append(leaf.count)
    out = set()
    for leaf in checks:
        x = to_number(leaf.value) if isinstance(leaf, CellCheck) else None
        if x is None or x == 0 or not leaf.match:
            continue
        keys = {norm(v) for v in leaf.match.values()}
        key = min(keys)
        tol = leaf.tolerance + 1e-9 * max(1.0, abs(x))
        for index, distinct in tables:
            if key not in index or any(c < distinct[key] for c in counts.get(leaf.file.lower(), [])):
                continue  # the deliverable selects rows of this table
            if any(keys <= texts and any(abs(y - x) <= tol for y in nums) for texts, nums in index[key]):
                out.add(_cell_key(leaf))
                break
    return frozenset(out)


def stated(instructions: str, copied: frozenset[tuple[str, tuple[tuple[str, str], ...], str]] = frozenset()
           ) -> Stated:
    """The instructions of a task (and the cells its inputs state, :func:`copied_cells`) as :class:`Stated`."""
    return Stated(" " + norm(instructions or "") + " ", copied)


def is_prohibition(check: Any) -> bool:
    """True for a check that passes by something being absent (absent text, ``not``, ids absent, zero rows)."""
    if isinstance(check, TextCheck):
        return check.absent
    if isinstance(check, IdsCheck):
        return check.present == "none"
    if isinstance(check, NotCheck):
        return True
    if isinstance(check, RowCountCheck):
        return check.count == 0
    if isinstance(check, (AllOfCheck, AnyOfCheck)):
        parts = [s for s in check.checks if not isinstance(s, FileExistsCheck)]
        return bool(parts) and all(is_prohibition(s) for s in parts)
    return False


def work_leaves(check: Any) -> list[Any]:
    """The leaves of ``check`` that must pass for it to pass (leaves under ``not`` excluded)."""
    if isinstance(check, (AllOfCheck, AnyOfCheck)):
        return [leaf for sub in check.checks for leaf in work_leaves(sub)]
    if isinstance(check, NotCheck):
        return []
    return [check]


def _stated_text(value: str, known: Stated) -> bool:
    v = norm(value)
    return bool(v) and (f" {v} " in known.text or (len(v) > 3 and v in known.text))


def proves_work(leaf: Any, known: Stated = Stated()) -> bool:
    """Whether a passing ``leaf`` shows a right answer that no guess supplies (see the module docstring)."""
    if isinstance(leaf, FieldCheck):
        if leaf.mentions is not None or (leaf.options and leaf.equals is not None):
            return False  # a keyword, or one of the allowed answers
        if leaf.number is not None:
            return leaf.number != 0
        if leaf.numbers is not None:
            return any(x != 0 for x in leaf.numbers)
        if leaf.equals is not None:
            return norm(leaf.equals) not in _GUESS_ANSWERS and not _stated_text(leaf.equals, known)
        return bool(leaf.items) or bool(leaf.contains)  # "none" and exclusions are guesses
    if isinstance(leaf, NumberCheck):
        return leaf.value != 0
    if isinstance(leaf, CellCheck):
        x = to_number(leaf.value)
        if x is not None:
            return x != 0 and _cell_key(leaf) not in known.copied
        # a text cell is a flag or a choice; only "this row is there" (the key itself) is a fact
        return any(norm(k) == norm(leaf.column) and norm(v) == norm(leaf.value) for k, v in leaf.match.items())
    if isinstance(leaf, IdsCheck):
        return leaf.present == "all"
    if isinstance(leaf, RowCountCheck):  # a plain count is met by one placeholder row per key of the input
        return leaf.count > 0 and leaf.where is not None
    return False


def needs_substance(check: Any, known: Stated = Stated()) -> bool:
    """True when no leaf of ``check`` proves work: the criterion is credited only on a deliverable with substance."""
    return not any(proves_work(leaf, known) for leaf in work_leaves(check))


def placeholder_only(text: str) -> bool:
    """True for a deliverable no check defines facts for that holds fewer than 25 real words, or fewer than twice as
    many real words as placeholders (``TBD``, ``N/A``, ``...``)."""
    words = text.replace(",", " ").split()
    real = [w for w in words if not _PLACEHOLDER_WORD.match(w)]
    return not (len(real) >= _SUBSTANCE_WORDS and len(real) >= 2 * (len(words) - len(real)))
