"""Deprecated: the episode rules and endings moved to :mod:`jobenv.episode`; this alias warns and forwards."""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["EpisodeRules", "Outcome", "Ending", "finish_episode", "OUTCOME_SCHEMA_VERSION"]  # noqa: F822 - forwarded by __getattr__


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"jobenv.grading.{name} moved to jobenv.episode.{name}", DeprecationWarning, stacklevel=2)
    from . import episode

    return getattr(episode, name)
