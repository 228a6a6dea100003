"""Gymnasium spaces for text observations and tool-call actions."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from ..episode.actions import parse_action
from ..tools import TOOL_NAMES, sample_actions

__all__ = ["AnyText", "ToolCallSpace"]


class AnyText(gymnasium.Space[str]):
    """Any Python ``str`` of any Unicode characters (Gymnasium's ``spaces.Text`` rejects characters outside
    its charset). ``max_length`` (optional) bounds the length. Not flattenable to numpy."""

    def __init__(self, max_length: int | None = None, seed: int | np.random.Generator | None = None) -> None:
        self.max_length = max_length
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and (self.max_length is None or len(x) <= self.max_length)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A random string mixing ASCII, accented, CJK and emoji characters (never surrogates)."""
        n = int(self.np_random.integers(0, min(self.max_length or 64, 64) + 1))
        ranges = [(0x20, 0x7E), (0xC0, 0x24F), (0x4E00, 0x9FFF), (0x1F300, 0x1F64F)]
        out = []
        for _ in range(n):
            lo, hi = ranges[int(self.np_random.integers(len(ranges)))]
            out.append(chr(int(self.np_random.integers(lo, hi + 1))))
        return "".join(out)

    def __repr__(self) -> str:
        return f"AnyText(max_length={self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, AnyText) and other.max_length == self.max_length


# Read-only actions for ToolCallSpace.sample(): harmless and deterministic for a freshly reset task.
_SAMPLE_ACTIONS: tuple[dict[str, Any], ...] = tuple(sample_actions())


class ToolCallSpace(gymnasium.Space[Any]):
    """Tool calls in any accepted format (see :func:`parse_action`) naming one of the env's tools.

    ``contains`` is True when the action parses; ``step`` still accepts anything and explains what is wrong.
    ``sample`` draws read-only calls, so random probing never submits or changes the workspace.
    """

    def __init__(self, tool_names: Sequence[str] = TOOL_NAMES, seed: int | np.random.Generator | None = None) -> None:
        self.tool_names = tuple(tool_names)
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        parsed = parse_action(x)
        return not isinstance(parsed, str) and parsed[0] in self.tool_names

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        pick = _SAMPLE_ACTIONS[int(self.np_random.integers(len(_SAMPLE_ACTIONS)))]
        return json.loads(json.dumps(pick))  # a fresh copy each time

    def __repr__(self) -> str:
        return f"ToolCallSpace({list(self.tool_names)})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ToolCallSpace) and other.tool_names == self.tool_names
