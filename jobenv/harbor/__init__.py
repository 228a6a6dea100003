"""Harbor task folders (the exchange format of RL trainers and DAYJOB's tasks): the rubric-judge file
(:mod:`.judge_toml`)."""

from __future__ import annotations

from .judge_toml import JudgeToml, aggregate, criterion_value, load_judge_toml, parse_judge_toml, score

__all__ = ["JudgeToml", "aggregate", "criterion_value", "load_judge_toml", "parse_judge_toml", "score"]
