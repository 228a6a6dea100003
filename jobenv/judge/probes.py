"""Grader probes: rewrite a correct output the way other professionals would, hedge it, or answer blind.

A reward an RL run optimises must pay for meaning, not for wording, and never for hedging or guessing.
These probes are built from a task's own check definitions and a correct output (a ground truth or a
reference solution), so they apply to any task:

* :func:`paraphrase` - the same answers written differently: labels in bold, bulleted or as a table,
  ``=`` instead of ``:``, thousands separators and currency signs, small counts as words, reasoning after
  the required lines that names other candidates, tables with a title row and a note row, percentages
  stored as percent-formatted fractions, and derived columns (a difference, a percentage of another
  column) written as formulas without cached values, as openpyxl writes them. Every criterion must still
  pass.
* :func:`hedge` - the correct output plus a second answer for every labelled fact (``hedge_fields``), or
  a competing copy of each deliverable under the same name in other letter case (``hedge_copies``). Every
  rubric reading a hedged fact or file must earn nothing.
* :func:`blind` - no computation: every file the checks name, with every label and every allowed answer
  sprayed, numbers as placeholders, tables as headers only, and per-category copies. At most 0.05.

:func:`probe_rubrics` runs all three against rubrics and returns the problems found; the synthetic
generator uses it as a quality gate and the grader test bank in the tests uses the writers directly.

Failure behaviour: writers raise OSError only for an unwritable destination; a deliverable they cannot
parse is copied unchanged.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..check_models import (
    CellCheck,
    ColumnsCheck,
    FieldCheck,
    RowCountCheck,
    check_leaves,
)
from . import reading

__all__ = ["STYLES", "HEDGES", "paraphrase", "hedge", "blind", "guess", "field_checks", "probe_rubrics",
           "BLIND_LIMIT"]

STYLES = ("bold", "table", "formats", "prose", "sheets", "formulas")
BLIND_LIMIT = 0.05
_SMALL = "zero one two three four five six seven eight nine ten eleven twelve".split()
_TEXT_EXTS = {".md", ".txt"}


def field_checks(rubrics: Sequence[Any]) -> list[tuple[int, FieldCheck]]:
    """(rubric index, field check) for every labelled-fact check of the rubrics."""
    return [(i, leaf) for i, r in enumerate(rubrics) for c in (r.checks or []) for leaf in check_leaves(c)
            if isinstance(leaf, FieldCheck)]


def _copy(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)


def _target(out: Path, name: str) -> Path | None:
    name = name.lower().removeprefix("output/")
    hits = [p for p in out.rglob("*") if p.is_file() and p.relative_to(out).as_posix().lower() == name]
    return hits[0] if hits else None


# ---------------------------------------------------------------------------------------------- paraphrase

_LINE_RE = re.compile(r"^(?P<lead>\s*(?:[-*]\s+)?)(?P<label>[A-Za-z][^:=|]{0,78}?)\s*:\s*(?P<value>\S.*)$")


def _restyle_number(value: str, style: str, label: str) -> str:
    nums = reading.find_numbers(value, words=False)
    if len(nums) != 1 or style not in ("formats", "prose"):
        return value
    n = nums[0]
    raw = value[n.start:n.end]
    if "%" in raw or "$" in raw:
        return value
    x = n.value
    if x.is_integer() and 0 <= x <= 12 and "." not in raw and style == "prose":
        body = _SMALL[int(x)]
    elif "." in raw:
        decimals = len(raw.split(".")[1].rstrip(")% "))
        body = f"{x:,.{decimals}f}"
    else:
        body = f"{x:,.0f}"
    if "rate" in label.lower() or "%" in label:
        body += "%" if not body[-1].isalpha() else ""
    tail = raw[len(raw.rstrip()):]
    return value[: n.start] + body + tail + value[n.end:]


def _rationale(rubrics: Sequence[Any]) -> list[str]:
    """Reasoning after the required lines that names other candidates and numbers, on lines of their own."""
    others: list[str] = []
    for _, f in field_checks(rubrics):
        if f.options and f.equals is not None:
            others += [o for o in f.options if reading.norm(o) != reading.norm(f.equals)][:1]
        elif f.options:
            others += list(f.options)[:1]
    lines = ["", "Rationale", "",
             "The figures above follow the house rules; intermediate values were kept at full precision and "
             "only the reported figures were rounded."]
    if others:
        lines.append(f"For context, {others[0]} was also reviewed and sits on the other side of the line, "
                     "so it is not part of the answer above.")
    lines.append("Two reviewers checked the calculation independently before this note was written.")
    return lines


def _aside(f: FieldCheck, value: str) -> str:
    """A same-line aside naming another candidate ("(nearest other: X)"), as people add after a list or choice."""
    if not f.options or len(f.options) < 3:
        return value
    named = {reading.norm(o) for o in f.options if reading.norm(o) in reading.norm(value)}
    other = next((o for o in f.options if reading.norm(o) not in named), None)
    return f"{value} (nearest other: {other})" if other else value


def _paraphrase_text(path: Path, labels: dict[str, FieldCheck], style: str, rubrics: Sequence[Any]) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    table: list[tuple[str, str]] = []
    for line in lines:
        m = _LINE_RE.match(line)
        if not m or reading.norm_label(m.group("label")) not in labels:
            out.append(line)
            continue
        label, value = m.group("label").strip(), m.group("value")
        f = labels[reading.norm_label(label)]
        if f.number is not None:
            value = _restyle_number(value, style, label)
        if style == "prose":
            value = _aside(f, value)
        if style == "table":
            if not table:
                out.append("\u0000TABLE")
            table.append((label, value))
        elif style == "bold":
            out.append(f"- **{label}:** {value}")
        elif style == "formats":
            out.append(f"{label} = {value}")
        else:
            out.append(f"**{label}**: {value}")
    if table:
        i = out.index("\u0000TABLE")
        out[i:i + 1] = ["| Item | Value |", "|---|---|"] + [f"| {a} | {b} |" for a, b in table]
    if style in ("prose", "bold"):
        out += _rationale(rubrics)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _paraphrase_docx(path: Path, labels: dict[str, FieldCheck], style: str, rubrics: Sequence[Any]) -> None:
    import docx

    src = docx.Document(str(path))
    doc = docx.Document()
    facts: list[tuple[str, str]] = []
    for p in src.paragraphs:
        m = _LINE_RE.match(p.text)
        if m and reading.norm_label(m.group("label")) in labels:
            value = m.group("value")
            f = labels[reading.norm_label(m.group("label"))]
            if f.number is not None:
                value = _restyle_number(value, style, m.group("label"))
            if style == "prose":
                value = _aside(f, value)
            facts.append((m.group("label").strip(), value))
            continue
        doc.add_paragraph(p.text)
    if style == "table":
        t = doc.add_table(rows=len(facts) + 1, cols=2)
        t.cell(0, 0).text, t.cell(0, 1).text = "Item", "Value"
        for k, (a, b) in enumerate(facts, 1):
            t.cell(k, 0).text, t.cell(k, 1).text = a, b
    else:
        for a, b in facts:
            para = doc.add_paragraph()
            para.add_run(f"{a}:").bold = True
            para.add_run(f" {b}")
    for line in _rationale(rubrics) if style in ("prose", "bold") else []:
        if line:
            doc.add_paragraph(line)
    doc.save(str(path))


def _table_columns(rubrics: Sequence[Any], rel: str) -> tuple[set[str], set[str]]:
    """(columns the checks name, key columns) of one table deliverable."""
    cols: set[str] = set()
    keys: set[str] = set()
    for r in rubrics:
        for c in r.checks or []:
            for leaf in check_leaves(c):
                if not hasattr(leaf, "names") or rel.lower() not in [n.lower().removeprefix("output/") for n in leaf.names]:
                    continue
                if isinstance(leaf, ColumnsCheck):
                    cols |= set(leaf.columns)
                elif isinstance(leaf, CellCheck):
                    cols |= {leaf.column, *leaf.match}
                    keys |= set(leaf.match)
                elif isinstance(leaf, RowCountCheck) and leaf.key:
                    keys.add(leaf.key)
    return cols, keys


def _pct_column(name: Any) -> bool:
    n = str(name).lower()
    return "%" in n or n.endswith("_pct") or "percent" in n


def _paraphrase_csv(path: Path, style: str) -> None:
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    if not rows:
        return
    header, body = rows[0], rows[1:]
    if style == "formats":  # percent signs on percentage columns, quoted thousands separators elsewhere
        for r in body:
            for j, v in enumerate(r):
                x = reading.to_number(v)
                if x is None or j >= len(header):
                    continue
                if _pct_column(header[j]) and "%" not in v:
                    r[j] = v + "%"
                elif "." in v and abs(x) >= 1000:
                    r[j] = f"{x:,.{len(v.split('.')[1])}f}"
    extra = [["Note: prepared from the current extract; figures in the reporting unit."]] if style != "bold" else []
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerows([header, *body, *extra])
    path.write_text(buf.getvalue(), encoding="utf-8")


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _derived_columns(header: list[Any], body: list[list[Any]]) -> dict[int, tuple[str, int, int, int]]:
    """Columns computable from two others in every row: {c: ("diff", a, b, 0)} for c = a - b, and
    {c: ("pct", d, b, decimals)} for c = round(d / b * 100, decimals), so a sheet can carry them as formulas."""
    n = len(header)
    raw = [[_num(r[j]) if j < len(r) else None for r in body] for j in range(n)]
    full = [j for j in range(n) if body and all(x is not None for x in raw[j])]
    cols: dict[int, list[float]] = {j: [x for x in raw[j] if x is not None] for j in full}
    out: dict[int, tuple[str, int, int, int]] = {}
    for c in full:
        for a in full:
            for b in full:
                if len({a, b, c}) < 3 or c in out or c < max(a, b):  # from columns to its left: no cycles
                    continue
                if all(abs(x - (y - z)) < 0.005 for x, y, z in zip(cols[c], cols[a], cols[b], strict=True)):
                    out[c] = ("diff", a, b, 0)
                elif all(z for z in cols[b]) and all(
                        abs(x - round(y / z * 100, 1)) < 1e-9 for x, y, z in zip(cols[c], cols[a], cols[b], strict=True)):
                    out[c] = ("pct", a, b, 1)
    return out


def _paraphrase_xlsx(path: Path, style: str) -> None:
    import openpyxl
    from openpyxl.utils import get_column_letter

    src = openpyxl.load_workbook(path, data_only=True)
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for ws in src.worksheets:
        rows = [list(r) for r in ws.iter_rows(values_only=True)]
        out = wb.create_sheet(ws.title)
        if not rows:
            continue
        header = rows[0]
        out.append([f"{ws.title} - prepared for review"])
        out.append([])
        out.append(header)
        derived = _derived_columns(list(header), [list(r) for r in rows[1:]]) if style == "formulas" else {}
        for r in rows[1:]:
            out.append(r)
            k = out.max_row
            for c, (op, a, b, dec) in derived.items():  # formulas as openpyxl writes them: no cached values
                A, B = f"{get_column_letter(a + 1)}{k}", f"{get_column_letter(b + 1)}{k}"
                out.cell(row=k, column=c + 1, value=f"={A}-{B}" if op == "diff" else f"=ROUND({A}/{B}*100,{dec})")
            if style in ("sheets", "formats"):
                for j, v in enumerate(r):
                    if j < len(header) and _pct_column(header[j]) and isinstance(v, (int, float)):
                        c = out.cell(row=out.max_row, column=j + 1, value=float(v) / 100)
                        c.number_format = "0.0%"
        out.append([])
        out.append(["Note: amounts in US dollars; percentages to one decimal."])
    wb.save(path)


def paraphrase(src: Path, dst: Path, rubrics: Sequence[Any], style: str = "bold") -> Path:
    """A copy of the correct output ``src`` at ``dst`` with the same answers written in ``style`` (see STYLES)."""
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}: expected one of {STYLES}")
    _copy(src, dst)
    labels_by_file: dict[str, dict[str, FieldCheck]] = {}  # file -> label -> its field check
    for _, f in field_checks(rubrics):
        for name in f.names:
            for lab in f.labels:
                labels_by_file.setdefault(name.lower().removeprefix("output/"), {})[reading.norm_label(lab)] = f
    for p in sorted(dst.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(dst).as_posix().lower()
        labels = labels_by_file.get(rel, {})
        try:
            if p.suffix.lower() in _TEXT_EXTS:
                _paraphrase_text(p, labels, style, rubrics)
            elif p.suffix.lower() == ".docx":
                _paraphrase_docx(p, labels, style, rubrics)
            elif p.suffix.lower() == ".csv" and style in ("formats", "sheets", "prose"):
                _paraphrase_csv(p, style)
            elif p.suffix.lower() == ".xlsx" and style in ("sheets", "formats", "table", "formulas"):
                _paraphrase_xlsx(p, style)
        except (OSError, ValueError, KeyError, IndexError):
            continue  # a deliverable the rewriter cannot parse stays as it was
    return dst


# ---------------------------------------------------------------------------------------------- hedges


def _alternative(f: FieldCheck) -> str:
    if f.equals is not None:
        others = [o for o in (f.options or []) if reading.norm(o) != reading.norm(f.equals)]
        return others[0] if others else "to be confirmed"
    if f.number is not None:
        x = f.number
        return f"{x * 1.1 + 1:.2f}" if x else "3"
    if f.numbers is not None:
        return " to ".join(f"{x * 1.1 - 0.5:.2f}" for x in f.numbers)
    if f.options:
        return "; ".join(f.options)
    if f.items is not None or f.contains is not None or f.excludes is not None:
        return "; ".join([*(f.items or []), *(f.contains or []), *(f.excludes or []), "all others"])
    return "not determined"


def _append_lines(path: Path, lines: list[str]) -> None:
    if path.suffix.lower() == ".docx":
        import docx

        d = docx.Document(str(path))
        for line in lines:
            d.add_paragraph(line)
        d.save(str(path))
    elif path.suffix.lower() == ".pptx":
        from pptx import Presentation
        from pptx.util import Inches

        prs = Presentation(str(path))
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        tf = slide.shapes.add_textbox(Inches(0.5), Inches(0.5), Inches(9), Inches(5)).text_frame
        tf.text = lines[0]
        for line in lines[1:]:
            tf.add_paragraph().text = line
        prs.save(str(path))
    else:
        with path.open("a", encoding="utf-8") as fh:
            fh.write("\n" + "\n".join(lines) + "\n")


# How people offer two answers on one line; each must fail the field it hedges.
HEDGES: dict[str, str] = {
    "or": "{v} or {a}",
    "or-first": "{a} or {v}",
    "none-or": "none or {v}",
    "or-zero": "{v} or 0",
    "and-or": "{v} and/or {a}",
    "slash": "{v} / {a}",
    "possibly": "{v} (possibly {a})",
    "rerun": "{v} ({a} on the rerun)",
    "if": "{v} ({a} if the limit is read as inclusive)",
    "unless": "{v}, unless the superseded file applies, in which case {a}",
}


def _rewrite_lines(path: Path, edit: Any) -> None:
    """Apply ``edit(line) -> line`` to every text line of a memo (Markdown/text lines, Word paragraphs, slide
    paragraphs)."""
    ext = path.suffix.lower()
    if ext == ".docx":
        import docx

        d = docx.Document(str(path))
        for para in d.paragraphs:
            new = edit(para.text)
            if new != para.text:
                for run in para.runs[1:]:
                    run.text = ""
                if para.runs:
                    para.runs[0].text = new
        d.save(str(path))
    elif ext == ".pptx":
        from pptx import Presentation

        prs = Presentation(str(path))
        for slide in prs.slides:
            for shape in slide.shapes:
                if shape.has_text_frame:
                    for para in shape.text_frame.paragraphs:
                        new = edit(para.text)
                        if new != para.text:
                            for run in para.runs[1:]:
                                run.text = ""
                            if para.runs:
                                para.runs[0].text = new
        prs.save(str(path))
    elif ext in _TEXT_EXTS:
        lines = path.read_text(encoding="utf-8").splitlines()
        path.write_text("\n".join(edit(line) for line in lines) + "\n", encoding="utf-8")


def hedge(src: Path, dst: Path, rubrics: Sequence[Any], how: str = "fields") -> tuple[Path, list[int]]:
    """A hedged copy of the correct output and the indices of the rubrics that must then earn nothing.

    ``how="fields"``: every labelled fact gets a second, competing line. ``how="copies"``: each deliverable a
    field check reads gets a competing copy under the same name in upper case. A key of :data:`HEDGES`: every
    labelled value is rewritten in place offering a second answer that way ("X or Y", "X (Y on the rerun)").
    """
    _copy(src, dst)
    fields = field_checks(rubrics)
    hedged: set[int] = set()
    by_file: dict[Path, list[str]] = {}
    for i, f in fields:
        p = _target(dst, f.file)
        if p is None:
            continue
        hedged.add(i)
        by_file.setdefault(p, []).append(f"{f.label}: {_alternative(f)}")
    if how in HEDGES:
        template = HEDGES[how]
        by_label = {reading.norm_label(lab): f for _, f in fields for lab in f.labels}

        def edit(line: str) -> str:
            m = _LINE_RE.match(reading.strip_markup(line))
            f = by_label.get(reading.norm_label(m.group("label"))) if m else None
            if m is None or f is None:
                return line
            return f"{m.group('lead')}{m.group('label')}: " + template.format(v=m.group("value"), a=_alternative(f))

        for p in by_file:
            _rewrite_lines(p, edit)
        return dst, sorted(hedged)
    for p, lines in by_file.items():
        if how == "fields":
            _append_lines(p, sorted(set(lines)))
        elif how == "copies":
            twin = p.with_name(p.stem.upper() + p.suffix)
            shutil.copy2(p, twin)
            _append_lines(twin, sorted(set(lines)))
            hedged |= {i for i, r in enumerate(rubrics) for c in (r.checks or []) for leaf in check_leaves(c)
                       if hasattr(leaf, "names") and _target(dst, leaf.names[0]) in (p, twin)}
        else:
            raise ValueError(f"unknown hedge {how!r}: expected 'fields', 'copies' or one of {sorted(HEDGES)}")
    return dst, sorted(hedged)


# ---------------------------------------------------------------------------------------------- blind


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
            cols, _ = _table_columns(rubrics, rel)
            header = sorted(cols) or ["item", "value"]
            if ext == ".csv":
                path.write_text(",".join(header) + "\n", encoding="utf-8")
            else:
                import openpyxl

                wb = openpyxl.Workbook()
                ws = wb.active
                ws.append(header)
                wb.save(path)
        elif ext == ".docx":
            import docx

            d = docx.Document()
            for line in body:
                d.add_paragraph(line)
            d.save(str(path))
        elif ext == ".pptx":
            from pptx import Presentation

            prs = Presentation()
            slide = prs.slides.add_slide(prs.slide_layouts[1])
            slide.shapes.title.text = "Summary"
            slide.placeholders[1].text_frame.text = "\n".join(body)
            prs.save(str(path))
        else:
            path.write_text("\n".join(body) + "\n", encoding="utf-8")
        if how == "spray" and ext in _TEXT_EXTS:  # per-category copies: one file per candidate answer
            for k, line in enumerate(lines[:8]):
                (path.with_name(f"{path.stem}_{k + 1}{path.suffix}")).write_text(line + "\n", encoding="utf-8")
    return dst


# ---------------------------------------------------------------------------------------------- guess

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
        ref = _target(src, rel)
        if ext in (".csv", ".xlsx", ".xlsm"):
            try:
                sheets = _read_table(ref) if ref is not None and ref.suffix.lower() == ext else []
            except (OSError, ValueError, KeyError):
                sheets = []
            cols, _ = _table_columns(rubrics, rel)
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
        if ext == ".docx":
            import docx

            d = docx.Document()
            for line in body:
                d.add_paragraph(line)
            d.save(str(path))
        elif ext == ".pptx":
            from pptx import Presentation

            prs = Presentation()
            slide = prs.slides.add_slide(prs.slide_layouts[1])
            slide.shapes.title.text = "Summary"
            slide.placeholders[1].text_frame.text = "\n".join(body)
            prs.save(str(path))
        else:
            path.write_text("\n".join(body) + "\n", encoding="utf-8")
    return dst


# ---------------------------------------------------------------------------------------------- gate


def probe_rubrics(rubrics: Sequence[Any], correct: Path, work: Path, *, full: bool = True,
                  instructions: str = "") -> list[str]:
    """Problems found by the probes on a correct output: a paraphrase that loses a criterion, a hedge that keeps
    a rubric, a blind answer (a spray, or a guess with either extreme allowed answer) above BLIND_LIMIT. Empty when
    the checks are sound on this task. ``full=False`` runs fewer paraphrase and hedge styles (the generator's gate:
    a paraphrase, a field hedge, three in-place hedges, a spray and the guesses); ``instructions`` is the task's
    text (what a blind writer knows)."""
    from .checks import evaluate_rubrics

    def score(out: Path) -> tuple[float, list[bool]]:
        verdicts = evaluate_rubrics(rubrics, out, instructions=instructions)
        passed = [all(v is not None and v[0] for v in row) for row in verdicts]
        total = sum(r.weight for r in rubrics)
        return sum(r.weight for r, ok in zip(rubrics, passed, strict=True) if ok) / total, passed

    problems: list[str] = []
    for style in ("bold", "prose") if full else ("prose",):
        out = paraphrase(correct, work / f"paraphrase-{style}", rubrics, style)
        for r, row in zip(rubrics, evaluate_rubrics(rubrics, out, instructions=instructions), strict=True):
            bad = [c for c, v in zip(r.criteria, row, strict=True) if v is not None and not v[0]]
            if bad:
                problems.append(f"paraphrase ({style}) fails {r.text!r}: {bad[0]!r}")
    for how in ("fields", "copies", *HEDGES) if full else ("fields", "or", "rerun", "none-or"):
        out, must_fail = hedge(correct, work / f"hedge-{how}", rubrics, how)
        _, passed = score(out)
        kept = [rubrics[i].text for i in must_fail if passed[i]]
        if kept:
            problems.append(f"hedged ({how}) output keeps rubric {kept[0]!r}")
    for how in ("template", "spray") if full else ("spray",):
        s, _ = score(blind(work / f"blind-{how}", rubrics, how))
        if s > BLIND_LIMIT:
            problems.append(f"blind ({how}) output scores {s:.3f} > {BLIND_LIMIT}")
    for choice in (0, -1):
        s, _ = score(guess(correct, work / f"guess{choice}", rubrics, instructions=instructions, choice=choice))
        if s > BLIND_LIMIT:
            problems.append(f"blind guess (answer {choice}) scores {s:.3f} > {BLIND_LIMIT}")
    return problems
