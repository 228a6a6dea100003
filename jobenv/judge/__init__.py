"""Grading deliverables against rubrics: the fail-closed LLM judge, deterministic checks, and reports.

``make_judge("auto" | "checks" | "llm", **options)`` returns a :class:`Judge`; ``await judge.grade(task,
output_dir)`` (or ``judge.grade_sync``) returns a :class:`GradeReport` and never raises for infrastructure
problems: those give ``status="error"`` and a zero reward.
"""

from __future__ import annotations

from .auto import AutoJudge, make_judge
from .base import Judge, run_sync
from .checks import ChecksJudge, evaluate_check, parse_numbers
from .llm import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_MODEL,
    LLMJudge,
    VerdictCache,
    build_messages,
    parse_reply,
    validate_reply,
)
from .report import CriterionResult, GradeReport, RubricResult, Usage, grader_hash

__all__ = [
    "make_judge",
    "Judge",
    "AutoJudge",
    "ChecksJudge",
    "LLMJudge",
    "GradeReport",
    "RubricResult",
    "CriterionResult",
    "Usage",
    "VerdictCache",
    "ENV_BASE_URL",
    "ENV_API_KEY",
    "ENV_MODEL",
    "build_messages",
    "parse_reply",
    "validate_reply",
    "evaluate_check",
    "parse_numbers",
    "grader_hash",
    "run_sync",
]
