"""Correct outputs with a second answer: another line, a competing copy, or the value hedged in place."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...check_models import FieldCheck, check_leaves
from .. import reading
from ._files import LINE_RE, TEXT_EXTS, copy_output, field_checks, target

__all__ = ["HEDGES", "SECOND_ANSWERS", "hedge"]


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


def _edit_paragraph(para: Any, edit: Any) -> None:
    """A Word or slide paragraph's text replaced by ``edit(text)``, kept in its first run."""
    new = edit(para.text)
    if new != para.text:
        for run in para.runs[1:]:
            run.text = ""
        if para.runs:
            para.runs[0].text = new


def _rewrite_lines(path: Path, edit: Any) -> None:
    """Apply ``edit(line) -> line`` to every text line of a memo (Markdown/text lines, Word paragraphs, slide
    paragraphs)."""
    ext = path.suffix.lower()
    if ext == ".docx":
        import docx

        d = docx.Document(str(path))
        for para in d.paragraphs:
            _edit_paragraph(para, edit)
        d.save(str(path))
    elif ext == ".pptx":
        from pptx import Presentation

        prs = Presentation(str(path))
        for slide in prs.slides:
            for shape in slide.shapes:
                if shape.has_text_frame:
                    for para in shape.text_frame.paragraphs:
                        _edit_paragraph(para, edit)
        prs.save(str(path))
    elif ext in TEXT_EXTS:
        lines = path.read_text(encoding="utf-8").splitlines()
        path.write_text("\n".join(edit(line) for line in lines) + "\n", encoding="utf-8")


# A second answer offered beside the value rather than in it: a table row's further cell, a footnote on the value,
# a second memo under another name; each must fail the field it hedges.
SECOND_ANSWERS = ("row", "footnote", "second-file")


def _second_answer(path: Path, how: str, alts: dict[str, str]) -> None:
    """Offer each labelled value's alternative beside it in ``path`` (see :data:`SECOND_ANSWERS`); a Word or slide
    memo gets the alternative as a second line (a footnote or a Markdown row has no meaning there)."""
    notes: list[str] = []

    def edit(line: str) -> str:
        m = LINE_RE.match(reading.strip_markup(line))
        alt = alts.get(reading.norm_label(m.group("label"))) if m else None
        if m is None or alt is None:
            return line
        label, value = m.group("label").strip(), m.group("value")
        if how == "row":
            return f"| {label} | {value} | {alt} |"
        if how == "footnote":
            notes.append(f"[^{len(notes) + 1}]: {alt} when the stricter reading of the rules is applied.")
            return f"{m.group('lead')}{label}: {value}[^{len(notes)}]"
        return line

    if how == "second-file":
        twin = path.with_name(f"{path.stem} (alternative){path.suffix}")
        shutil.copy2(path, twin)
        _rewrite_lines(twin, lambda line: _replace_value(line, alts))
        return
    if path.suffix.lower() not in TEXT_EXTS:
        _append_lines(path, [f"{lab}: {alt}" for lab, alt in alts.items()])
        return
    _rewrite_lines(path, edit)
    if notes:
        _append_lines(path, notes)


def _replace_value(line: str, alts: dict[str, str]) -> str:
    m = LINE_RE.match(reading.strip_markup(line))
    alt = alts.get(reading.norm_label(m.group("label"))) if m else None
    return line if m is None or alt is None else f"{m.group('lead')}{m.group('label')}: {alt}"


def hedge(src: Path, dst: Path, rubrics: Sequence[Any], how: str = "fields") -> tuple[Path, list[int]]:
    """A hedged copy of the correct output and the indices of the rubrics that must then earn nothing.

    ``how="fields"``: every labelled fact gets a second, competing line. ``how="copies"``: each deliverable a
    field check reads gets a competing copy under the same name in upper case. A key of :data:`HEDGES`: every
    labelled value is rewritten in place offering a second answer that way ("X or Y", "X (Y on the rerun)"). One
    of :data:`SECOND_ANSWERS`: the alternative is offered beside the value (a table row's further cell, a
    footnote on the value, a second memo "<name> (alternative)" with the alternatives).
    """
    copy_output(src, dst)
    fields = field_checks(rubrics)
    hedged: set[int] = set()
    by_file: dict[Path, list[str]] = {}
    for i, f in fields:
        p = target(dst, f.file)
        if p is None:
            continue
        hedged.add(i)
        by_file.setdefault(p, []).append(f"{f.label}: {_alternative(f)}")
    if how in HEDGES:
        template = HEDGES[how]
        by_label = {reading.norm_label(lab): f for _, f in fields for lab in f.labels}

        def edit(line: str) -> str:
            m = LINE_RE.match(reading.strip_markup(line))
            f = by_label.get(reading.norm_label(m.group("label"))) if m else None
            if m is None or f is None:
                return line
            return f"{m.group('lead')}{m.group('label')}: " + template.format(v=m.group("value"), a=_alternative(f))

        for p in by_file:
            _rewrite_lines(p, edit)
        return dst, sorted(hedged)
    if how in SECOND_ANSWERS:
        alts = {reading.norm_label(lab): _alternative(f) for _, f in fields for lab in f.labels}
        for p in by_file:
            _second_answer(p, how, alts)
        return dst, sorted(hedged)
    for p, lines in by_file.items():
        if how == "fields":
            _append_lines(p, sorted(set(lines)))
        elif how == "copies":
            twin = p.with_name(p.stem.upper() + p.suffix)
            shutil.copy2(p, twin)
            _append_lines(twin, sorted(set(lines)))
            hedged |= {i for i, r in enumerate(rubrics) for c in (r.checks or []) for leaf in check_leaves(c)
                       if hasattr(leaf, "names") and target(dst, leaf.names[0]) in (p, twin)}
        else:
            raise ValueError(f"unknown hedge {how!r}: expected 'fields', 'copies' or one of "
                             f"{sorted(HEDGES) + list(SECOND_ANSWERS)}")
    return dst, sorted(hedged)


