"""Harbor's rubric-judge file (``tests/judge.toml``, the harbor-rewardkit format): its model, how a judge's raw
answer per criterion becomes a value in [0, 1], and how the values aggregate into the reward.

The format: a ``[judge]`` table (which judge, over which ``files``), one ``[[criterion]]`` table per criterion
(``description``; ``type`` binary | likert | numeric | rubric with ``points``, ``min``/``max`` or ``levels``;
``weight``; ``negate``; ``optional``; a ``name`` defaulting to a slug of the description), and ``[scoring]``
(``aggregation`` weighted-mean | weighted-sum | all-pass | any-pass | required-pass | threshold, each but
weighted-sum also spelled with underscores; ``threshold``, default 0.5).

Values: binary answers are 1 for true / "yes" / "true" / "1" / a non-zero number, else 0; likert ``(v - 1) /
(points - 1)``, numeric ``(v - min) / (max - min)`` and rubric ``v / (levels - 1)``, each clipped to [0, 1];
``negate`` turns a value v into 1 - v. A criterion passes at 1.0. A judge that answers yes or no (jobenv's LLM
and agentic judges) places a scale criterion by its :func:`rungs`: one statement per step ("at least k"), its raw
score the bottom plus the rungs met from the lowest up (a numeric range of 2 to 20 whole units in unit steps,
any other range in :data:`NUMERIC_STEPS` steps). Aggregations: the weighted mean (0 when the
weights sum to 0), the weighted sum, 1/0 for every criterion passing, for any passing, for every non-optional
one passing, and for the weighted mean reaching the threshold.

Failure behaviour: :func:`load_judge_toml` raises TaskFormatError naming the file and the first problem;
:func:`criterion_value` and :func:`aggregate` raise ValueError for a non-finite or unreadable answer, a negative
weight outside ``weighted_sum`` and a non-finite aggregate (a grading error for the caller, never credit).
"""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..errors import TaskFormatError, first_problem

__all__ = ["JudgeToml", "CriterionSpec", "ScoringSpec", "JudgeSpec", "load_judge_toml", "parse_judge_toml",
           "criterion_value", "aggregate", "score", "AGGREGATIONS", "rungs", "ladder_answer", "NUMERIC_STEPS"]

AGGREGATIONS = ("weighted-mean", "weighted-sum", "all-pass", "any-pass", "required-pass", "threshold")
# the spellings the format accepts (its underscore forms cover all but weighted-sum)
_SPELLINGS = (*AGGREGATIONS, "weighted_mean", "all_pass", "any_pass", "required_pass")
_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text[:40].lower()).strip("_")


class JudgeSpec(BaseModel):
    """The ``[judge]`` table: which judge grades, over which files. Other keys are kept, not interpreted."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    judge: str = "llm"
    model: str | None = None
    files: tuple[str, ...] = ()
    timeout: int = 300
    weight: float = 1.0


class CriterionSpec(BaseModel):
    """One ``[[criterion]]`` table."""

    model_config = ConfigDict(extra="forbid")

    description: str
    type: Literal["binary", "likert", "numeric", "rubric"] = "binary"
    name: str | None = None
    id: str | None = None
    points: int = Field(default=5, ge=2)
    levels: tuple[str, ...] = ()
    min: float = 0.0
    max: float = 1.0
    weight: float = 1.0
    files: tuple[str, ...] = ()
    negate: bool = False
    optional: bool = False
    annotations: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _defaults(self) -> CriterionSpec:
        if self.name is None:
            self.name = _slug(self.description)
        if not _NAME_RE.match(self.name or ""):
            raise ValueError(f"criterion name {self.name!r} must be 1-64 letters, digits, '_' or '-'")
        # polarity and importance may come nested under annotations (imported rubrics); explicit keys win
        if "negate" not in self.model_fields_set:
            self.negate = "negative" in str(self.annotations.get("type", "")).lower()
        if "optional" not in self.model_fields_set:
            self.optional = "optional" in str(self.annotations.get("importance", "")).lower()
        if self.type == "numeric" and not (self.max > self.min and math.isfinite(self.max - self.min)):
            raise ValueError(f"criterion {self.name!r}: max must be greater than min")
        if self.type == "rubric" and not (2 <= len(self.levels) <= 10 and all(lv.strip() for lv in self.levels)):
            raise ValueError(f"criterion {self.name!r}: a rubric needs 2 to 10 non-empty levels")
        return self


class ScoringSpec(BaseModel):
    """The ``[scoring]`` table."""

    model_config = ConfigDict(extra="forbid")

    aggregation: str = "weighted-mean"
    threshold: float = 0.5

    @field_validator("aggregation")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in _SPELLINGS:
            raise ValueError(f"aggregation must be one of {', '.join(_SPELLINGS)}, not {v!r}")
        return v.replace("_", "-")


class JudgeToml(BaseModel):
    """A whole ``judge.toml``."""

    model_config = ConfigDict(extra="forbid")

    judge: JudgeSpec = Field(default_factory=JudgeSpec)
    criterion: list[CriterionSpec] = Field(min_length=1)
    scoring: ScoringSpec = Field(default_factory=ScoringSpec)

    @model_validator(mode="after")
    def _consistent(self) -> JudgeToml:
        names = [c.name for c in self.criterion]
        if len(set(names)) != len(names):
            raise ValueError("criterion names must be unique")
        if self.scoring.aggregation == "required-pass" and all(c.optional for c in self.criterion):
            raise ValueError("aggregation 'required-pass' needs at least one criterion that is not optional")
        return self


def parse_judge_toml(text: str, where: str = "judge.toml") -> JudgeToml:
    """A judge file's text as a model; TaskFormatError naming ``where`` and the first problem."""
    try:
        return JudgeToml.model_validate(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise TaskFormatError(f"{where}: not valid TOML: {exc}") from None
    except ValidationError as exc:
        field, msg, _ = first_problem(exc, "the file")
        raise TaskFormatError(f"{where}: {field}: {msg}") from None


def load_judge_toml(path: str | Path) -> JudgeToml:
    """Read and validate a ``judge.toml`` (see :func:`parse_judge_toml`)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFormatError(f"{path}: cannot read: {exc}") from None
    return parse_judge_toml(text, str(path))


def _finite(raw: Any) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"a score must be a number, not {raw!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"a score must be finite, not {raw!r}")
    return value


def criterion_value(spec: CriterionSpec, raw: Any) -> float:
    """The value in [0, 1] of a judge's ``raw`` answer for ``spec`` (``negate`` applied)."""
    if spec.type == "binary":
        if isinstance(raw, bool):
            value = 1.0 if raw else 0.0
        elif isinstance(raw, str):
            value = 1.0 if raw.strip().lower() in ("yes", "true", "1") else 0.0
        else:
            value = 1.0 if (raw if isinstance(raw, int) else _finite(raw)) else 0.0
    elif spec.type == "likert":
        value = (_finite(raw) - 1) / (spec.points - 1)
    elif spec.type == "numeric":
        value = (_finite(raw) - spec.min) / (spec.max - spec.min)
    else:
        value = _finite(raw) / (len(spec.levels) - 1)
    value = max(0.0, min(1.0, value))
    return 1.0 - value if spec.negate else value


NUMERIC_STEPS = 10  # rungs of a numeric criterion whose range is not a small whole number of units


def _numeric_step(spec: CriterionSpec) -> float:
    span = spec.max - spec.min
    whole = float(span).is_integer() and float(spec.min).is_integer() and 2 <= span <= 20
    return 1.0 if whole else span / NUMERIC_STEPS


def _num(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e15 else repr(x)


def rungs(spec: CriterionSpec) -> list[str]:
    """The yes/no statements a binary judge decides for ``spec``: the description itself for a binary criterion;
    for a scale, one statement per step above its bottom ("at least k"), lowest first, so a binary judge places the
    deliverables on the scale (:func:`ladder_answer` reads its verdicts back as the raw score)."""
    d = spec.description.strip()
    if spec.type == "binary":
        return [d]
    if spec.type == "likert":
        return [f"On a scale from 1 to {spec.points}, the deliverables merit at least {k} for: {d}"
                for k in range(2, spec.points + 1)]
    if spec.type == "rubric":
        return [f"For: {d} -- the deliverables reach at least level {i} of {len(spec.levels) - 1} "
                f"({spec.levels[i].strip()}), levels being " + "; ".join(
                    f"{j} = {lv.strip()}" for j, lv in enumerate(spec.levels))
                for i in range(1, len(spec.levels))]
    step, out, k = _numeric_step(spec), [], 1
    while spec.min + k * step <= spec.max + step * 1e-9:
        out.append(f"On a scale from {_num(spec.min)} to {_num(spec.max)}, the answer is at least "
                   f"{_num(spec.min + k * step)} for: {d}")
        k += 1
    return out


def ladder_answer(spec: CriterionSpec, passed: list[bool]) -> float | bool:
    """The raw score of ``spec`` from the verdicts on its :func:`rungs`: the binary verdict, or the scale's bottom
    plus one step per rung met counting from the lowest, stopping at the first missed (a higher rung met above a
    missed one earns nothing: inconsistent verdicts never raise a score)."""
    if spec.type == "binary":
        return bool(passed and passed[0])
    met = 0
    for ok in passed:
        if not ok:
            break
        met += 1
    if spec.type == "likert":
        return 1 + met
    if spec.type == "rubric":
        return met
    return spec.max if met == len(passed) else spec.min + met * _numeric_step(spec)


def aggregate(values: list[float], weights: list[float], optional: list[bool], aggregation: str,
              threshold: float = 0.5) -> float:
    """The reward of criterion ``values`` (see the module docstring); 0.0 for no criteria."""
    if not values:
        return 0.0
    aggregation = aggregation.replace("_", "-")
    if any(not math.isfinite(w) for w in weights):
        raise ValueError("criterion weights must be finite")
    if aggregation != "weighted-sum" and any(w < 0 for w in weights):
        raise ValueError(f"negative weights need aggregation 'weighted-sum', not {aggregation!r}")
    if aggregation == "all-pass":
        return 1.0 if all(v >= 1.0 for v in values) else 0.0
    if aggregation == "any-pass":
        return 1.0 if any(v >= 1.0 for v in values) else 0.0
    if aggregation == "required-pass":
        required = [v for v, opt in zip(values, optional) if not opt]
        return 1.0 if required and all(v >= 1.0 for v in required) else 0.0
    if aggregation == "weighted-sum":
        result = sum(v * w for v, w in zip(values, weights))
    else:
        total = sum(weights)
        result = sum(v * w for v, w in zip(values, weights)) / total if total else 0.0
    if not math.isfinite(result):
        raise ValueError(f"the {aggregation} aggregate is not finite")
    if aggregation == "threshold":
        return 1.0 if result >= threshold else 0.0
    return result


def score(config: JudgeToml, raw: dict[str, Any]) -> tuple[float, list[float]]:
    """The reward and per-criterion values for a judge's ``raw`` answers by criterion name. ValueError names a
    criterion the answers lack."""
    values = []
    for spec in config.criterion:
        if spec.name not in raw:
            raise ValueError(f"no answer for criterion {spec.name!r}")
        values.append(criterion_value(spec, raw[spec.name]))
    reward = aggregate(values, [c.weight for c in config.criterion], [c.optional for c in config.criterion],
                       config.scoring.aggregation, config.scoring.threshold)
    return reward, values
