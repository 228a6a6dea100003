"""Grading deliverables against rubrics: the fail-closed LLM judge, deterministic checks, and reports.

``make_judge("auto" | "checks" | "llm", **options)`` returns a :class:`Judge` ("auto" is hybrid: deterministic
checks where sound, one LLM call per rubric for the rest); ``await judge.grade(task,
output_dir)`` (or ``judge.grade_sync``) returns a :class:`GradeReport` and never raises for infrastructure
problems: those give ``status="error"`` and a zero reward.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .auto import AutoJudge, make_judge
    from .base import Judge, run_sync
    from .checks import ChecksJudge, evaluate_check, evaluate_rubrics, parse_numbers
    from .config import JudgeConfig
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
    "JudgeConfig",
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
    "evaluate_rubrics",
    "parse_numbers",
    "grader_hash",
    "run_sync",
]

# name -> submodule; imported on first use, so reading the judge's configuration (``jobenv.judge.config``) does not
# import the judges, the extraction service and the HTTP client
_LAZY = {
    "AutoJudge": "auto", "make_judge": "auto", "Judge": "base", "run_sync": "base", "ChecksJudge": "checks",
    "evaluate_check": "checks", "evaluate_rubrics": "checks", "parse_numbers": "checks", "JudgeConfig": "config",
    "ENV_API_KEY": "llm", "ENV_BASE_URL": "llm", "ENV_MODEL": "llm", "LLMJudge": "llm", "VerdictCache": "llm",
    "build_messages": "llm", "parse_reply": "llm", "validate_reply": "llm", "CriterionResult": "report",
    "GradeReport": "report", "RubricResult": "report", "Usage": "report", "grader_hash": "report",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jobenv.judge' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
