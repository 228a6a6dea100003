"""The judge's configuration: one pydantic model, and the one place that reads the ``JOBENV_JUDGE_*`` variables.

``JudgeConfig.from_env(**overrides)`` fills the LLM endpoint from the environment where an override does not
give it; :func:`jobenv.judge.make_judge` validates every option through this model, so an unknown option or a
bad value is a :class:`~jobenv.errors.JudgeConfigError` naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import JudgeConfigError, first_problem
from ..extract.folder import TOTAL_CAP

__all__ = ["JudgeConfig", "ENV_BASE_URL", "ENV_API_KEY", "ENV_MODEL", "CONFIG_HINT", "JUDGE_KINDS",
           "DEFAULT_MAX_COMPLETION_TOKENS"]

ENV_BASE_URL = "JOBENV_JUDGE_BASE_URL"
ENV_API_KEY = "JOBENV_JUDGE_API_KEY"
ENV_MODEL = "JOBENV_JUDGE_MODEL"
CONFIG_HINT = f"set {ENV_BASE_URL}, {ENV_API_KEY} and {ENV_MODEL} (or pass base_url, api_key and model)"
JUDGE_KINDS = ("auto", "checks", "llm", "agentic")
DEFAULT_MAX_COMPLETION_TOKENS = 200_000  # what the official judge sends


class JudgeConfig(BaseModel):
    """Everything a judge is built from. ``kind``: ``"auto"`` (checks where sound, the LLM for the rest),
    ``"checks"`` or ``"llm"``; the other fields configure the LLM judge and the extraction mode."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["auto", "checks", "llm", "agentic"] = "auto"
    mode: Literal["values", "formulas"] = "values"
    base_url: str | None = None
    api_key: str | None = Field(default=None, repr=False)
    model: str | None = None
    concurrency: int = Field(default=10, ge=1)
    timeout_s: float = Field(default=300.0, gt=0)
    attempts: int = Field(default=3, ge=1)
    backoff_s: float = Field(default=2.0, ge=0)
    max_images: int = Field(default=8, ge=0)
    cache_dir: Path | str | bool | None = None
    temperature: float = Field(default=0.0, ge=0)
    max_completion_tokens: int | None = Field(default=DEFAULT_MAX_COMPLETION_TOKENS, ge=1)  # None: send no limit
    # characters of all deliverables together in one LLM request; None: no total, as the official judge
    total_chars: int | None = Field(default=TOTAL_CAP, ge=1)
    # one cheap request at make() proving endpoint, key and model work; None: on unless JOBENV_JUDGE_CHECK=0
    check_endpoint: bool | None = None

    @classmethod
    def build(cls, **options: Any) -> JudgeConfig:
        """Validate ``options``; a JudgeConfigError names the first bad or unknown option."""
        try:
            return cls(**options)
        except ValidationError as exc:
            where, msg, _ = first_problem(exc, "options")
            raise JudgeConfigError(f"judge option {where}: {msg}") from None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> JudgeConfig:
        """``overrides`` with ``base_url``, ``api_key`` and ``model`` taken from the ``JOBENV_JUDGE_*`` variables
        (of ``environ``, default ``os.environ``) where not given. Raises JudgeConfigError for a bad option."""
        from .. import settings

        for field, var in (("base_url", ENV_BASE_URL), ("api_key", ENV_API_KEY), ("model", ENV_MODEL)):
            if not overrides.get(field):
                overrides[field] = settings.get(var, environ)
        return cls.build(**overrides)

    @property
    def llm_configured(self) -> bool:
        """True when an LLM endpoint, key and model are all known."""
        return bool(self.base_url and self.api_key and self.model)

    def missing_llm_settings(self) -> list[str]:
        """The ``JOBENV_JUDGE_*`` variables whose values are still missing."""
        return [var for var, v in ((ENV_BASE_URL, self.base_url), (ENV_API_KEY, self.api_key),
                                   (ENV_MODEL, self.model)) if not v]

    def options(self) -> dict[str, Any]:
        """The options given explicitly (besides ``kind``), for :func:`jobenv.judge.make_judge`: what was not
        given is still filled there (from the ``JOBENV_JUDGE_*`` variables, or the defaults)."""
        return self.model_dump(exclude={"kind"}, exclude_unset=True)

    def llm_options(self) -> dict[str, Any]:
        """Keyword arguments for :class:`~jobenv.judge.llm.LLMJudge`."""
        return self.model_dump(exclude={"kind"})
