"""A generated task audited for the defect classes found in earlier splits, from its files alone (``RUBRICS.json``,
``task_folder/`` and the ground truth's outputs), none of it taken from the generator's own bookkeeping:

- ``tolerance``: a graded figure's tolerance is at least one unit in the last decimal place its criterion states,
  and a whole number (a count) is graded exactly;
- ``precision``: every number the memo is graded on has its precision stated where the prompt asks for it, and
  the house rules state the rounding rule (half up);
- ``phantom``: no graded key or value is blank, ``nan`` or ``None`` (rows a reader made up);
- ``top``: a graded "top" (highest, lowest, largest, most urgent) leads the next row of the ground-truth table by
  at least two units of the graded place;
- ``ground truth``: the ground truth's outputs earn every check-graded criterion (re-graded here).

Failure behaviour: :func:`audit_task` returns the problems as one-line strings (empty when the task is sound);
an unreadable task is one problem, never an exception.
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path
from typing import Any

__all__ = ["audit_task", "audit_split"]

_NUMBER = re.compile(r"(-?\d+(?:\.(\d+))?)\s*$")
_TOP_LABEL = re.compile(r"^(highest|lowest|largest|most|highest-scoring)\b", re.I)


def _stated_places(text: str) -> int | None:
    """Decimal places of the number a criterion ends with (``... = 62.5`` -> 1), None when it ends with none."""
    m = _NUMBER.search(text.strip().rstrip("."))
    return None if m is None else len(m.group(2) or "")


def _policy_text(folder: Path) -> str:
    from ..extract import extract_file

    texts = []
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.suffix.lower() in (".docx", ".pdf", ".md", ".txt"):
            try:
                texts.append(extract_file(p))
            except Exception:  # noqa: BLE001 - an unreadable document states nothing
                continue
    return "\n".join(texts)


def _table(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def audit_task(task_dir: Path, *, regrade: bool = True) -> list[str]:
    """The problems of one generated task (see the module docstring); ``regrade=False`` leaves out re-grading the
    ground truth (the generator's own gate has just done it)."""
    from ..check_models import CellCheck, FieldCheck, check_leaves, parse_check

    task_dir = Path(task_dir)
    try:
        rubrics = json.loads((task_dir / "RUBRICS.json").read_text(encoding="utf-8"))["rubrics"]
        folder = task_dir / "task_folder"
        instructions = (folder / "TASK_INSTRUCTIONS.txt").read_text(encoding="utf-8")
    except (OSError, ValueError, KeyError) as exc:
        return [f"unreadable: {exc}"]
    problems: list[str] = []
    numeric_labels: set[str] = set()
    top_fields: dict[str, str] = {}
    graded_numbers: list[float] = []
    for r in rubrics:
        after_top = False
        for text, raw in zip(r["criterion"], r.get("jobenv_checks") or [], strict=False):
            for leaf in check_leaves(parse_check(raw)):
                value = getattr(leaf, "number", None) if isinstance(leaf, FieldCheck) else getattr(leaf, "value", None)
                if isinstance(leaf, CellCheck):
                    keys = [str(v) for v in leaf.match.values()]
                    if any(k.strip().lower() in ("", "nan", "none") for k in keys):
                        problems.append(f"phantom: {text!r} grades a row keyed {keys}")
                if isinstance(leaf, (CellCheck, FieldCheck)) and isinstance(value, float):
                    places = _stated_places(text)
                    # a whole number is a count, exact by nature; a rounded figure gets a unit either way
                    if places and leaf.tolerance + 1e-12 < 10 ** -places:
                        problems.append(f"tolerance: {text!r} allows {leaf.tolerance:g}, under one unit of "
                                        f"{places} places")
                    if places == 0 and float(value).is_integer() and leaf.tolerance > 0:
                        problems.append(f"tolerance: {text!r} is a whole number graded within {leaf.tolerance:g} "
                                        "(counts are exact)")
                    if isinstance(leaf, FieldCheck) and places is not None and places > 0:
                        numeric_labels.add(leaf.label)
                    if isinstance(leaf, FieldCheck) and after_top:  # the figure stated for the top
                        graded_numbers.append(value)
                after_top = isinstance(leaf, FieldCheck) and leaf.equals is not None and bool(_TOP_LABEL.match(leaf.label))
                if isinstance(leaf, FieldCheck) and leaf.equals is not None and _TOP_LABEL.match(leaf.label):
                    top_fields[leaf.label] = leaf.equals
                if isinstance(value, str) and value.strip().lower() in ("nan", "none"):
                    problems.append(f"phantom: {text!r} expects {value!r}")
    for label in sorted(numeric_labels):
        line = next((ln for ln in instructions.splitlines() if ln.strip().startswith(label + ":")), "")
        if "decimal" not in line and "whole number" not in line:
            problems.append(f"precision: the prompt asks for {label!r} without its precision ({line.strip()!r})")
    if numeric_labels and "half up" not in _policy_text(folder).lower():
        problems.append("precision: the house rules do not state the rounding rule (half up)")
    problems += _top_problems(task_dir, top_fields, graded_numbers)
    if regrade:
        problems += _ground_truth_problems(task_dir, rubrics, instructions)
    return problems


def _top_problems(task_dir: Path, top_fields: dict[str, str], graded: list[float]) -> list[str]:
    """A graded top against the ground-truth table: in a column where the top's row holds a figure the memo is
    graded on (the top's value) and is that column's extreme, it must lead the next row by two units."""
    outputs = task_dir / "ground_truth" / "outputs"
    tables = [p for p in sorted(outputs.glob("*.csv"))] if outputs.is_dir() else []
    out = []
    for label, name in top_fields.items():
        for path in tables:
            rows = _table(path)
            if not rows:
                continue
            key = next(iter(rows[0]))
            mine = [r for r in rows if r[key] == name]
            if len(mine) != 1:
                continue
            for col in list(rows[0])[1:]:
                vals = [_num(r.get(col)) for r in rows]
                if any(v is None for v in vals) or len(rows) < 2:
                    continue
                places = max(_places(r.get(col)) for r in rows)
                ranked = sorted((v for v in vals if v is not None), reverse=True)
                mine_v = _num(mine[0][col])
                if mine_v is None or not any(abs(mine_v - g) < 1e-9 for g in graded):
                    continue  # not the column the top is ranked on
                for ordered in (ranked, ranked[::-1]):
                    if mine_v == ordered[0] and abs(ordered[0] - ordered[1]) < 2 * 10 ** -places - 1e-9:
                        out.append(f"top: {label} {name!r} leads the next row of {path.name}'s {col} by less than "
                                   "two units")
    return sorted(set(out))


def _num(text: Any) -> float | None:
    try:
        v = float(str(text).strip())
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _places(text: Any) -> int:
    s = str(text).strip()
    return len(s.split(".", 1)[1]) if "." in s else 0


def _ground_truth_problems(task_dir: Path, rubrics: list[dict[str, Any]], instructions: str) -> list[str]:
    from ..judge.checks import evaluate_rubrics
    from ..tasks import parse_rubrics

    outputs = task_dir / "ground_truth" / "outputs"
    if not outputs.is_dir():
        return ["ground truth: no ground_truth/outputs to grade"]
    parsed = parse_rubrics({"rubrics": rubrics}, str(task_dir / "RUBRICS.json"))
    verdicts = evaluate_rubrics(parsed, outputs, instructions=instructions)
    return [f"ground truth: fails {r.criteria[i]!r}" for r, row in zip(parsed, verdicts, strict=True)
            for i, v in enumerate(row) if v is not None and not v[0]]


def audit_split(task_dirs: list[Path]) -> dict[str, list[str]]:
    """Every task's problems by task directory (tasks without any left out)."""
    found = {str(d): audit_task(d) for d in task_dirs}
    return {k: v for k, v in found.items() if v}
