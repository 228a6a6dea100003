"""The episode core: an :class:`Episode`'s life, its :class:`EpisodeRules`, and the :class:`Outcome` vocabulary.

Every front-end drives :class:`Episode`; :func:`finish_episode` is the one rule of how an episode ends and scores.
"""

from __future__ import annotations

from .actions import parse_action
from .core import EPISODE_OVER, Episode, Step
from .finish import finish_episode, score_of
from .outcome import OUTCOME_SCHEMA_VERSION, PUBLIC_SCORES, Ending, ErrorKind, FinishReason, Outcome, Status
from .rules import DEFAULT_MAX_STEPS, EpisodeRules

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
