"""Outputs written without computing anything: placeholders, a spray of every candidate, a realistic guess."""

from __future__ import annotations

import csv
import io
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...check_models import CellCheck, FieldCheck, check_leaves
from .. import reading
from ._files import TEXT_EXTS, field_checks, table_columns, target, write_memo

__all__ = ["blind", "guess", "BLIND_LIMIT"]

BLIND_LIMIT = 0.05


def blind(dst: Path, rubrics: Sequence[Any], how: str = "template") -> Path:
    """An output written without looking at the data (see the module docstring); ``how`` is "template" or "spray"."""
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    files: dict[str, list[str]] = {}
    for r in rubrics:
        for c in r.checks or []:
            for leaf in check_leaves(c):
                if hasattr(leaf, "names"):
                    files.setdefault(leaf.file.lower().removeprefix("output/"), [])
    for _, f in field_checks(rubrics):
        lines = files.setdefault(f.file.lower().removeprefix("output/"), [])
        if how == "spray":  # every candidate an agent could enumerate without computing anything
            answers = list(f.options or []) or list(f.mentions or []) or ["<to be completed>"]
            lines += [f"{f.label}: {a}" for a in answers]
            if f.number is not None:
                lines += [f"{f.label}: {f.number * k:.2f}" for k in (0.5, 0.9, 1.1, 2)]
        else:
            lines.append(f"{f.label}: <to be completed>")
    for rel, lines in files.items():
        path = dst / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        ext = path.suffix.lower()
        body = ["Summary", "", *lines, "", "Analysis to follow once the data has been reviewed."]
        if ext in (".csv", ".xlsx", ".xlsm", ".tsv"):
            cols, _ = table_columns(rubrics, rel)
            header = sorted(cols) or ["item", "value"]
            if ext == ".csv":
                path.write_text(",".join(header) + "\n", encoding="utf-8")
            else:
                import openpyxl

                wb = openpyxl.Workbook()
                ws = wb.active
                ws.append(header)
                wb.save(path)
        else:
            write_memo(path, body)
        if how == "spray" and ext in TEXT_EXTS:  # per-category copies: one file per candidate answer
            for k, line in enumerate(lines[:8]):
                (path.with_name(f"{path.stem}_{k + 1}{path.suffix}")).write_text(line + "\n", encoding="utf-8")
    return dst



_FILLER = ("We reviewed the files in the task folder, applied the house rules as written and checked the figures "
           "against the source records. The results below are ready for review and reflect the current extract; "
           "data problems were handled as the rules require and nothing else needs escalation at this stage.")


def _guess_answer(f: FieldCheck, known: str, choice: int) -> str:
    """What a writer who computed nothing puts on a labelled line: the ``choice``-th allowed answer, "none" for a
    list, a value the instructions state, else a placeholder."""
    if f.options and f.equals is not None:
        return f.options[choice % len(f.options)]
    if f.items is not None or f.contains is not None or f.excludes is not None:
        return "none"
    for value in [f.equals, *(f.mentions or [])]:
        if value and f" {reading.norm(value)} " in known:
            return value
    return "TBD"


def _read_table(path: Path) -> list[tuple[str, list[list[Any]]]]:
    if path.suffix.lower() == ".csv":
        return [("", [list(r) for r in csv.reader(io.StringIO(path.read_text(encoding="utf-8")))])]
    import openpyxl

    wb = openpyxl.load_workbook(path, data_only=True, read_only=True)
    try:
        return [(ws.title, [list(r) for r in ws.iter_rows(values_only=True)]) for ws in wb.worksheets]
    finally:
        wb.close()


def _answer_rows(rubrics: Sequence[Any], rel: str) -> bool:
    """Whether a table's rows are themselves the answer (a check wants a given key present): then its keys are not
    knowable without the work and a guess writes none."""
    return any(isinstance(leaf, CellCheck) and leaf.column in leaf.match
               and leaf.file.lower().removeprefix("output/") == rel
               for r in rubrics for c in (r.checks or []) for leaf in check_leaves(c))


def _guess_rows(rows: list[list[Any]]) -> list[list[Any]]:
    """The header and key column of a correct table (both knowable without computing) with every other column
    filled by a guess: 0 for numbers, the column's most common text (the default flag) otherwise."""
    start = next((i for i, r in enumerate(rows) if sum(1 for v in r if v not in (None, "")) >= 2), None)
    if start is None:
        return rows[:1]
    header, body = rows[start], [r for r in rows[start + 1:] if r and r[0] not in (None, "")]
    guesses: list[Any] = []
    for j in range(1, len(header)):
        col = [r[j] for r in body if j < len(r) and r[j] not in (None, "")]
        texts = [str(v) for v in col if reading.to_number(v) is None]
        guesses.append(max(set(texts), key=texts.count) if texts else 0)
    return [header, *[[r[0], *guesses] for r in body]]


def guess(src: Path, dst: Path, rubrics: Sequence[Any], *, instructions: str = "", choice: int = 0) -> Path:
    """A realistic blind deliverable at ``dst``: what a writer who reads the request but computes nothing hands in.

    Every file the checks name, with the correct tables' headers and keys (the input's ids, the stated row
    count) and guessed cells (0, the usual flag), memos with every label answered by a guess (the ``choice``-th
    allowed answer, so ``choice=-1`` is the negative decision; "none" for lists; values the instructions state),
    the words the request mentions and a paragraph of plausible prose. A sound grader gives it at most
    :data:`BLIND_LIMIT`. ``src`` is the correct output (only its table keys are used)."""
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    known = " " + reading.norm(instructions) + " "
    lines_by_file: dict[str, list[str]] = {}
    words: list[str] = []
    for r in rubrics:
        for c in r.checks or []:
            for leaf in check_leaves(c):
                if hasattr(leaf, "names"):
                    lines_by_file.setdefault(leaf.file.lower().removeprefix("output/"), [])
                pattern = getattr(leaf, "pattern", None)
                if pattern and not leaf.absent:
                    literal = re.sub(r"\(\?<?[=!][^)]*\)|\(\?[a-z]+\)", "", pattern).replace("\\", "")
                    if re.fullmatch(r"[\w .,&'-]+", literal) and f" {reading.norm(literal)} " in known:
                        words.append(literal)
    for _, f in field_checks(rubrics):
        lines_by_file.setdefault(f.file.lower().removeprefix("output/"), []).append(
            f"{f.label}: {_guess_answer(f, known, choice)}")
    for rel, lines in lines_by_file.items():
        path = dst / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        ext = path.suffix.lower()
        ref = target(src, rel)
        if ext in (".csv", ".xlsx", ".xlsm"):
            try:
                sheets = _read_table(ref) if ref is not None and ref.suffix.lower() == ext else []
            except (OSError, ValueError, KeyError):
                sheets = []
            cols, _ = table_columns(rubrics, rel)
            sheets = [(t, _guess_rows(rows)[:1 if _answer_rows(rubrics, rel) else None]) for t, rows in sheets] or [("Sheet1", [sorted(cols) or ["item", "value"]])]
            if ext == ".csv":
                buf = io.StringIO()
                csv.writer(buf, lineterminator="\n").writerows(sheets[0][1])
                path.write_text(buf.getvalue(), encoding="utf-8")
            else:
                import openpyxl

                wb = openpyxl.Workbook()
                wb.remove(wb.active)
                for title, rows in sheets:
                    ws = wb.create_sheet(title or "Sheet1")
                    for row in rows:
                        ws.append(list(row))
                wb.save(path)
            continue
        body = ["Summary", "", *dict.fromkeys(lines), "", _FILLER]
        if words:
            body.append("This note also covers " + ", ".join(dict.fromkeys(words)) + ", as the request asked.")
        write_memo(path, body)
    return dst


