"""What every probe writer shares: the field checks of rubrics, a task's tables, labelled lines."""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...check_models import CellCheck, ColumnsCheck, FieldCheck, RowCountCheck, check_leaves

__all__ = ["field_checks", "copy_output", "target", "LINE_RE", "TEXT_EXTS", "table_columns", "write_memo"]

TEXT_EXTS = {".md", ".txt"}
LINE_RE = re.compile(r"^(?P<lead>\s*(?:[-*]\s+)?)(?P<label>[A-Za-z0-9][^:=|]{0,78}?)\s*:\s*(?P<value>\S.*)$")



def field_checks(rubrics: Sequence[Any]) -> list[tuple[int, FieldCheck]]:
    """(rubric index, field check) for every labelled-fact check of the rubrics."""
    return [(i, leaf) for i, r in enumerate(rubrics) for c in (r.checks or []) for leaf in check_leaves(c)
            if isinstance(leaf, FieldCheck)]


def copy_output(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)


def target(out: Path, name: str) -> Path | None:
    name = name.lower().removeprefix("output/")
    hits = [p for p in out.rglob("*") if p.is_file() and p.relative_to(out).as_posix().lower() == name]
    return hits[0] if hits else None


def table_columns(rubrics: Sequence[Any], rel: str) -> tuple[set[str], set[str]]:
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




def write_memo(path: Path, body: list[str]) -> None:
    """A memo of ``body`` lines in the format its name asks for: Word paragraphs, one slide, or text lines."""
    ext = path.suffix.lower()
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
