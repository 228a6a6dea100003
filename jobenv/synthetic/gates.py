"""What every generated task must pass before it is written: the task's metadata model, grading with the judge's
own check evaluator, and the scores the gates compare.

Failure behaviour: the helpers raise nothing of their own; the evaluator's errors propagate.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..errors import TaskFormatError
from ..tasks import Rubric

__all__ = ["TaskMeta", "MAX_TASK_BYTES", "MAX_NAIVE_SCORE", "grade_checks", "weighted_score", "passes", "to_json",
           "dir_bytes", "facts_hash", "solver_script"]

MAX_TASK_BYTES = 6_000_000
MAX_NAIVE_SCORE = 0.5


class TaskMeta(BaseModel):
    """meta.json of a generated task (host-side; never shown to the agent)."""

    schema_version: int = 4  # 3: naive_score; 4: workflow
    generator: str = "jobenv.synthetic"
    generator_version: str
    seed: int
    index: int
    attempt: int
    family: str
    scenario: str  # the workflow's key (the field predates workflows)
    occupation: str
    data_source: dict[str, Any]
    licence: str
    traps: list[dict[str, Any]]
    answers: dict[str, Any]
    reference_files: list[dict[str, Any]]
    ground_truth: dict[str, str]
    expected: dict[str, Any]
    deliverables: dict[str, Any]
    facts_hash: str
    naive_score: float | None = None  # what the naive pipeline (every shortcut at once) scores under the checks
    workflow: dict[str, Any] | None = None  # the profession workflow's key, method and solver (None: generator 2.x)


def grade_checks(rubrics: list[Rubric], output_dir: Path, instructions: str = "", inputs: Path | None = None
                 ) -> list[list[bool | None]]:
    """Per rubric, per criterion: does its check pass on ``output_dir``? ``None`` for LLM-graded criteria.

    The judge's own evaluator (:func:`jobenv.judge.checks.evaluate_rubrics`) on the judge's own extraction,
    with the task's ``instructions`` as the judge reads them and, given ``inputs`` (the task folder), the
    figures its input tables state (a copied cell proves no work), as the checks judge grades an episode.
    """
    from ..judge.checks import evaluate_rubrics

    verdicts = evaluate_rubrics(rubrics, Path(output_dir), instructions=instructions, inputs=inputs)
    return [[None if v is None else bool(v[0]) for v in row] for row in verdicts]


def weighted_score(rubrics: list[Rubric], verdicts: list[list[bool | None]]) -> float:
    """The share of rubric weight whose check-graded criteria all pass; a rubric only the LLM grades counts as
    passed (so a score is never lowered by what checks cannot see)."""
    total = sum(r.weight for r in rubrics)
    got = sum(r.weight for r, row in zip(rubrics, verdicts, strict=True) if all(v is not False for v in row))
    return round(got / total, 4) if total else 0.0


def passes(row: list[bool | None]) -> bool:
    """A rubric's check-graded criteria all pass (and it has at least one)."""
    graded = [x for x in row if x is not None]
    return bool(graded) and all(graded)


def to_json(obj: Any) -> str:
    """Indented JSON, numpy scalars as Python numbers."""
    def default(o: Any) -> Any:
        if hasattr(o, "item"):
            return o.item()
        raise TypeError(f"not JSON serialisable: {type(o).__name__}")

    return json.dumps(obj, indent=2, ensure_ascii=False, default=default) + "\n"


def dir_bytes(d: Path) -> int:
    return sum(p.stat().st_size for p in d.rglob("*") if p.is_file())


def facts_hash(rubrics: list[Rubric]) -> str:
    """A short hash of every check-graded criterion (equal hashes: the same graded facts)."""
    graded = [c for r in rubrics for c in r.to_json().get("jobenv_checks", []) if c.get("kind") != "llm"]
    return hashlib.sha256(json.dumps(graded, sort_keys=True).encode()).hexdigest()[:16]


def solver_script(params: dict[str, Any], title: str, *sources: Path) -> str:
    """A ground-truth script: a docstring, the ``PARAMS`` literal, then the solver modules' texts in order (runnable
    on its own: ``python solve.py TASK_FOLDER OUTPUT_DIR``). Raises TaskFormatError when the parameters would break the
    literal."""
    literal = json.dumps(params, indent=1, sort_keys=True, ensure_ascii=False, default=lambda o: o.item())
    if "'''" in literal:
        raise TaskFormatError(f"{title}: solver parameters contain a triple quote")
    head = ("#!/usr/bin/env python3\n"
            f'"""Ground truth for {title}.\n\n'
            "Usage: python solve.py TASK_FOLDER OUTPUT_DIR\n"
            "Reads only TASK_FOLDER and writes the deliverables to OUTPUT_DIR. Uses the standard library, pandas and\n"
            "openpyxl (python-docx for a .docx memo).\n"
            '"""\nimport json\n\n'
            f"PARAMS = json.loads(r'''{literal}''')\n\n")
    return head + "\n\n".join(p.read_text(encoding="utf-8") for p in sources)
