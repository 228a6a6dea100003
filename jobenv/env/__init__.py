"""The Gymnasium environment (:class:`JobEnv`), its spaces, and how actions are read."""

from __future__ import annotations

from ..episode.actions import parse_action
from .environment import JobEnv
from .spaces import AnyText, ToolCallSpace

__all__ = ["JobEnv", "AnyText", "ToolCallSpace", "parse_action"]
