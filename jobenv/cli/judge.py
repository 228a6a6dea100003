"""``jobenv judge``: grade an output directory against a rubric file or a registered task.

Lives outside ``jobenv/judge/`` on purpose: that folder is hashed as the grader version, and the command line is
not part of the grader.

Exit status: 0 when grading succeeded (whatever the score), 1 on a grading error (status "error"), 2 for bad
arguments or inputs (raised as JobenvError and printed by the main CLI).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import JobenvError, TaskFormatError
from ._common import JUDGE_CHOICES

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run", "task_from_rubrics"]

NAME = "judge"
HELP = "grade an output directory against a rubric file"


@dataclass(frozen=True)
class Options:
    rubrics: str | None
    task: str | None
    output_dir: str | None
    report: str | None
    official: str | None
    judge: str
    extract_only: bool
    mode: Literal["values", "formulas"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--rubrics", default=None, help="path to RUBRICS.json (or give --task; no default)")
    src.add_argument("--task", default=None,
                     help="<env id>:<task id>, e.g. jobenv/sample:financial_managers/task1 (or give --rubrics; no default)")
    p.add_argument("--output-dir", default=None, help="the deliverables to grade (required; no default)")
    p.add_argument("--report", default=None, help="write the JSON report here (default: print it)")
    p.add_argument("--official", default=None, help="also write the official details JSON shape here (default: not written)")
    p.add_argument("--judge", choices=JUDGE_CHOICES, default="auto", help="judge kind")
    p.add_argument("--extract-only", action="store_true",
                   help="print the extracted deliverable text and stop (default: grade)")
    p.add_argument("--mode", choices=["values", "formulas"], default="values", help="spreadsheet extraction mode")


def task_from_rubrics(path: Path) -> Task:
    """A Task holding only the rubrics of ``path`` (the grader needs nothing else)."""
    from ..tasks import Task, load_rubrics_file

    path = Path(path)
    rubrics = load_rubrics_file(path)
    root = path.resolve().parent
    meta = None
    meta_path = root / "meta.json"
    if meta_path.is_file():
        try:
            loaded = json.loads(meta_path.read_text(encoding="utf-8"))
            meta = loaded if isinstance(loaded, dict) else None
        except (OSError, ValueError):
            meta = None
    return Task(split="adhoc", occupation=root.parent.name or "adhoc",
                number=int(root.name[4:]) if root.name.startswith("task") and root.name[4:].isdigit() else 0,
                instructions="", task_folder=root / "task_folder", rubrics=rubrics, root=root, meta=meta)


def _task_from_id(spec: str) -> Task:
    from ..registry import load_tasks
    from ..tasks import normalize_task_id

    if ":" not in spec:
        raise TaskFormatError(f"--task {spec!r}: expected '<env id>:<task id>', e.g. jobenv/sample:financial_managers/task1")
    env_id, tid = spec.rsplit(":", 1)
    tid = normalize_task_id(tid)
    for task in load_tasks(env_id):
        if tid in (task.id, task.uid):
            return task
    raise TaskFormatError(f"--task {spec!r}: no task {tid!r} in {env_id}")


def run(opts: Options) -> int:
    """Grade (or extract) and print the report; see the module docstring for the exit status."""
    from ..extract import extract_output
    from ..judge import make_judge

    if not opts.output_dir:
        raise JobenvError("judge: --output-dir is required")
    out = Path(opts.output_dir)
    if not out.is_dir() or out.is_symlink():
        raise JobenvError(f"judge: --output-dir {out}: not a directory")
    if opts.extract_only:
        ex = extract_output(out, mode=opts.mode)
        sys.stdout.write(ex.text)
        if ex.rejected:
            print(f"refused entries: {', '.join(ex.rejected)}", file=sys.stderr)
            return 1
        return 0
    if opts.task:
        task = _task_from_id(opts.task)
    else:
        assert opts.rubrics is not None  # argparse: one of the two is required
        task = task_from_rubrics(Path(opts.rubrics))
    judge = make_judge(opts.judge, mode=opts.mode)
    report = judge.grade_sync(task, out)
    data = report.model_dump(mode="json")
    if opts.report:
        Path(opts.report).write_text(json.dumps(data, indent=2), encoding="utf-8")
    if opts.official:
        Path(opts.official).write_text(json.dumps(report.to_official_details(), indent=2), encoding="utf-8")
    if not opts.report:
        print(json.dumps(data, indent=2))
    summary = (
        f"status {report.status}: score {report.normalized_score:.4f} ({report.total_score:g}/{report.max_score:g}), "
        f"{report.passed_count}/{report.total_count} rubrics passed, judge {report.judge_kind}"
        + (f" ({report.judge_model})" if report.judge_model else "")
    )
    print(summary, file=sys.stderr)
    if report.status != "ok":
        print(f"grading error: {report.error}", file=sys.stderr)
        return 1
    return 0
