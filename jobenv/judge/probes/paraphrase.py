"""Correct outputs rewritten the way other professionals write them (see :mod:`jobenv.judge.probes`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...check_models import FieldCheck
from .. import reading
from ._files import LINE_RE, TEXT_EXTS, copy_output, field_checks

__all__ = ["STYLES", "paraphrase"]

STYLES = ("bold", "table", "formats", "prose", "sheets", "formulas")
_SMALL = "zero one two three four five six seven eight nine ten eleven twelve".split()


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
        m = LINE_RE.match(line)
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
        m = LINE_RE.match(p.text)
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

    from ...extract.sheets import formula_values

    src = openpyxl.load_workbook(path, data_only=True)
    computed = formula_values(path)  # a workbook of live formulas written without cached values: what they compute
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for ws in src.worksheets:
        done = computed.get(ws.title, {})
        rows = [[done.get(c.coordinate) if c.value is None and hasattr(c, "coordinate") else c.value for c in r]
                for r in ws.iter_rows()]
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
    copy_output(src, dst)
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
            if p.suffix.lower() in TEXT_EXTS:
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


