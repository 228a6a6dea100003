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
from typing import TYPE_CHECKING, Any, Literal

from ..errors import JobenvError, TaskFormatError
from ._common import JUDGE_CHOICES, SCORING_CHOICES, non_negative_int

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "judge"
HELP = "grade an output directory against a rubric file"


@dataclass(frozen=True)
class Options:
    rubrics: str | None
    task: str | None
    output_dir: str | None
    report: str | None
    details: str | None
    scorecard: str | None
    scoring: Literal["strict", "official"]
    evaluated_model: str | None
    max_completion_tokens: int | None
    total_chars: int | None
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
    p.add_argument("--details", "--official", dest="details", default=None,
                   help="also write the official details JSON (the judge.py --details-file shape) here (default: not written)")
    p.add_argument("--scorecard", default=None, help="also write the official scorecard JSON here (default: not written)")
    p.add_argument("--scoring", choices=SCORING_CHOICES, default="strict",
                   help="which score is the reward: criteria recomputed (strict) or the judge's rubric_passed (official)")
    p.add_argument("--evaluated-model", default=None,
                   help="evaluated_model written in --details (default: the output directory's name)")
    p.add_argument("--max-completion-tokens", type=non_negative_int, default=None,
                   help="the judge's reply limit sent to the API (default: 200000, as the official judge; 0 sends none)")
    p.add_argument("--total-chars", type=non_negative_int, default=None,
                   help="characters of all deliverables together in one LLM request (default: 600000; 0: no total, "
                        "as the official judge)")
    p.add_argument("--judge", choices=JUDGE_CHOICES, default="auto", help="judge kind")
    p.add_argument("--extract-only", action="store_true",
                   help="print the extracted deliverable text and stop (default: grade)")
    p.add_argument("--mode", choices=["values", "formulas"], default="values",
                   help="spreadsheet extraction: formulas lists every formula cell in the evidence")


def _task_from_id(spec: str) -> Task:
    from ..registry import load_tasks
    from ..tasks import find_task

    if ":" not in spec:
        raise TaskFormatError(f"--task {spec!r}: expected '<env id>:<task id>', e.g. jobenv/sample:financial_managers/task1")
    env_id, tid = spec.rsplit(":", 1)
    return find_task(load_tasks(env_id), tid, where=f"--task {spec!r}: {env_id}")


def run(opts: Options) -> int:
    """Grade (or extract) and print the report; see the module docstring for the exit status."""
    from ..extract.service import extraction_service
    from ..judge import make_judge

    if not opts.output_dir:
        raise JobenvError("judge: --output-dir is required")
    out = Path(opts.output_dir)
    if not out.is_dir() or out.is_symlink():
        raise JobenvError(f"judge: --output-dir {out}: not a directory")
    if opts.extract_only:
        ex = extraction_service().extract_output_sync(out, mode=opts.mode)  # bounded, as the judge sees it
        sys.stdout.write(ex.text)
        if ex.rejected:
            print(f"refused entries: {', '.join(ex.rejected)}", file=sys.stderr)
            return 1
        return 0
    if opts.task:
        task = _task_from_id(opts.task)
    else:
        assert opts.rubrics is not None  # argparse: one of the two is required
        from ..tasks import task_from_rubrics

        task = task_from_rubrics(Path(opts.rubrics))
    options: dict[str, Any] = {"mode": opts.mode}
    if opts.max_completion_tokens is not None and opts.judge != "checks":
        options["max_completion_tokens"] = opts.max_completion_tokens or None  # 0 sends no limit
    if opts.total_chars is not None and opts.judge != "checks":
        options["total_chars"] = opts.total_chars or None  # 0: no total
    judge = make_judge(opts.judge, **options)
    report = judge.grade_sync(task, out)
    data = report.model_dump(mode="json")
    if opts.report:
        Path(opts.report).write_text(json.dumps(data, indent=2), encoding="utf-8")
    if opts.details:
        evaluated = opts.evaluated_model or out.resolve().name
        payload = report.to_official_details(evaluated_model=evaluated, scoring=opts.scoring)
        Path(opts.details).write_text(json.dumps(payload, indent=2, ensure_ascii=False), encoding="utf-8")
    if opts.scorecard:
        card = report.to_official_scorecard(scoring=opts.scoring)
        Path(opts.scorecard).write_text(json.dumps(card, indent=2), encoding="utf-8")
    if not opts.report:
        print(json.dumps(data, indent=2))
    other: Literal["strict", "official"] = "official" if opts.scoring == "strict" else "strict"
    summary = (
        f"status {report.status}: score {report.score(opts.scoring):.4f} ({opts.scoring}; {other} "
        f"{report.score(other):.4f}), {report.passed_count}/{report.total_count} rubrics passed, judge {report.judge_kind}"
        + (f" ({report.judge_model})" if report.judge_model else "")
    )
    print(summary, file=sys.stderr)
    if report.status != "ok":
        print(f"grading error: {report.error}", file=sys.stderr)
        return 1
    return 0
