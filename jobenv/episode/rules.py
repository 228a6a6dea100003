"""An episode's budget and scoring: :class:`EpisodeRules`, the one model every front-end's config nests."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["EpisodeRules", "DEFAULT_MAX_STEPS"]

DEFAULT_MAX_STEPS = 100
"""Tool calls per episode, submit included, everywhere (env, rollouts, hosting, verifiers). The official harness
gives its agents no step cap; 100 leaves room for the longest reference solutions (a few dozen calls) while
bounding a looping agent."""


class EpisodeRules(BaseModel):
    """An episode's budget and scoring. The prompt states exactly these; the episode core applies them.

    ``max_steps`` counts every tool call, ``submit`` included (``None``: unlimited). ``time_limit_s`` is
    wall-clock seconds from the start (``None``: unlimited). ``on_truncate`` decides what an episode that ran out
    before ``submit`` earns: ``"zero"`` (the default, as the official runners score a missing submission) or
    ``"grade"`` (its output folder is graded as if submitted). ``scoring`` picks the reward: ``"strict"``
    (``normalized_score``: rubric verdicts recomputed from the criteria) or ``"official"``
    (``official_normalized_score``: the judge's own ``rubric_passed``). ``tools`` adds optional tools to the
    default toolset (``("python",)``: a persistent interpreter; a comma-separated string is read too).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_steps: int | None = Field(default=DEFAULT_MAX_STEPS, ge=1, description="tool calls per episode, submit included")
    time_limit_s: float | None = Field(default=None, gt=0, description="wall-clock seconds per episode")
    on_truncate: Literal["zero", "grade"] = Field(default="zero", description="what running out earns: zero or grade")
    scoring: Literal["strict", "official"] = Field(default="strict", description="strict or official score as reward")
    tools: tuple[str, ...] = Field(default=(), description="optional tools to add, comma-separated: python")

    @field_validator("tools", mode="before")
    @classmethod
    def _known_tools(cls, v: Any) -> tuple[str, ...]:
        from ..tools.table import check_tool_names

        return check_tool_names(v)

    def check_backend(self, backend: str) -> None:
        """ConfigError when an enabled tool needs what sandbox ``backend`` lacks: the python tool's persistent
        interpreter exists in the local sandbox only."""
        if "python" in self.tools and backend != "local":
            from ..errors import ConfigError

            raise ConfigError(f"the python tool needs the local sandbox (sandbox={backend!r} has no persistent "
                              "interpreter)")

    def describe_budget(self) -> str | None:
        """The budget and truncation rule in one sentence for the prompt; None when the episode is unlimited."""
        parts = []
        if self.max_steps is not None:
            parts.append(f"at most {self.max_steps} tool calls (submit included)")
        if self.time_limit_s is not None:
            parts.append(f"about {self.time_limit_s:g} seconds of wall-clock time")
        if not parts:
            return None
        rule = (
            "the output folder is graded as it stands"
            if self.on_truncate == "grade"
            else "the episode scores 0"
        )
        return f"Budget: {' and '.join(parts)}. If it runs out before you call submit, {rule}."
