"""``jobenv judge``: grade an output directory against a rubric file or a registered task.

Exit status: 0 when grading succeeded (whatever the score), 1 on a grading error (status "error"),
2 for bad arguments or inputs (raised as JobenvError and printed by the main CLI).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import JobenvError, TaskFormatError

__all__ = ["cli_judge", "task_from_rubrics"]


def task_from_rubrics(path: Path) -> Any:
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


def _task_from_id(spec: str) -> Any:
    import jobenv
    from ..tasks import normalize_task_id

    if ":" not in spec:
        raise TaskFormatError(f"--task {spec!r}: expected '<env id>:<task id>', e.g. jobenv/sample:financial_managers/task1")
    env_id, tid = spec.rsplit(":", 1)
    tid = normalize_task_id(tid)
    for task in jobenv.load_tasks(env_id):
        if tid in (task.id, task.uid):
            return task
    raise TaskFormatError(f"--task {spec!r}: no task {tid!r} in {env_id}")


def cli_judge(args: argparse.Namespace) -> int:
    from ..extract import extract_output
    from . import make_judge

    if not args.output_dir:
        raise JobenvError("judge: --output-dir is required")
    out = Path(args.output_dir)
    if not out.is_dir() or out.is_symlink():
        raise JobenvError(f"judge: --output-dir {out}: not a directory")
    mode = getattr(args, "mode", "values") or "values"
    if args.extract_only:
        ex = extract_output(out, mode=mode)
        sys.stdout.write(ex.text)
        if ex.rejected:
            print(f"refused entries: {', '.join(ex.rejected)}", file=sys.stderr)
            return 1
        return 0
    task = _task_from_id(args.task) if args.task else task_from_rubrics(Path(args.rubrics))
    judge = make_judge(args.judge, mode=mode)
    report = judge.grade_sync(task, out)
    data = report.model_dump(mode="json")
    if args.report:
        Path(args.report).write_text(json.dumps(data, indent=2), encoding="utf-8")
    if getattr(args, "official", None):
        Path(args.official).write_text(json.dumps(report.to_official_details(), indent=2), encoding="utf-8")
    if not args.report:
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
