"""The episode core: an :class:`Episode`'s life, its :class:`EpisodeRules`, and the :class:`Outcome` vocabulary.

Every front-end drives :class:`Episode`; :func:`finish_episode` is the one rule of how an episode ends and scores.
Names are imported on first use, so reading the rules (the CLI's flags) does not import the tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .outcome import OUTCOME_SCHEMA_VERSION, PUBLIC_SCORES, Ending, ErrorKind, FinishReason, Outcome, Status
from .rules import DEFAULT_MAX_STEPS, EpisodeRules

if TYPE_CHECKING:
    from .actions import parse_action
    from .core import EPISODE_OVER, Episode, Step
    from .finish import finish_episode, score_of

__all__ = [
    "DEFAULT_MAX_STEPS",
    "EPISODE_OVER",
    "Ending",
    "Episode",
    "EpisodeRules",
    "ErrorKind",
    "FinishReason",
    "OUTCOME_SCHEMA_VERSION",
    "Outcome",
    "PUBLIC_SCORES",
    "Status",
    "Step",
    "finish_episode",
    "parse_action",
    "score_of",
]

_LAZY = {"parse_action": "actions", "EPISODE_OVER": "core", "Episode": "core", "Step": "core",
         "finish_episode": "finish", "score_of": "finish"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jobenv.episode' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
