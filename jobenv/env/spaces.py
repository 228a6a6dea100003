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


# ---- shared memory for AsyncVectorEnv: text as length-prefixed UTF-8 in a fixed slot per env -------------------
SHARED_TEXT_BYTES = 1 << 20
"""Bytes of one observation in an ``AsyncVectorEnv``'s shared memory (tool output is capped far below this)."""
_HEAD = 8


def _register_shared_memory() -> None:
    """Teach Gymnasium's vector utilities to put :class:`AnyText` observations in shared memory, so
    ``gymnasium.make_vec(id, n, vectorization_mode="async")`` works with its default arguments."""
    import multiprocessing as mp
    from types import ModuleType

    from gymnasium.vector.utils import shared_memory as sm

    def create(space: AnyText, n: int = 1, ctx: ModuleType = mp) -> Any:
        return ctx.Array("B", n * (_HEAD + SHARED_TEXT_BYTES))

    def slot(shared: Any, index: int) -> Any:
        view = np.frombuffer(shared.get_obj(), dtype=np.uint8)
        size = _HEAD + SHARED_TEXT_BYTES
        return view[index * size:(index + 1) * size]

    def read_one(shared: Any, i: int) -> str:
        cell = slot(shared, i)
        length = int.from_bytes(cell[:_HEAD].tobytes(), "little")
        return str(cell[_HEAD:_HEAD + length].tobytes().decode("utf-8"))

    class SharedTexts(Sequence[str]):
        """The vector env's observations as a live view of the shared memory (Gymnasium reads the buffer once and
        expects later writes to show through, as numpy views do); a copy is a plain tuple of str."""

        def __init__(self, shared: Any, n: int) -> None:
            self.shared, self.n = shared, n

        def __len__(self) -> int:
            return self.n

        def __getitem__(self, i: Any) -> Any:
            if isinstance(i, slice):
                return tuple(self)[i]
            if not -self.n <= i < self.n:
                raise IndexError(i)
            return read_one(self.shared, i % self.n)

        def __eq__(self, other: Any) -> bool:
            return tuple(self) == (tuple(other) if isinstance(other, Sequence) else other)

        def __hash__(self) -> int:
            return hash(tuple(self))

        def __repr__(self) -> str:
            return repr(tuple(self))

        def __copy__(self) -> tuple[str, ...]:
            return tuple(self)

        def __deepcopy__(self, memo: Any) -> tuple[str, ...]:
            return tuple(self)

    def read(space: AnyText, shared: Any, n: int = 1) -> SharedTexts:
        return SharedTexts(shared, n)

    def write(space: AnyText, index: int, value: str, shared: Any) -> None:
        data = value.encode("utf-8")
        if len(data) > SHARED_TEXT_BYTES:  # cut at a character boundary, and say so in the observation
            note = f"\n[observation cut: {len(data) - SHARED_TEXT_BYTES} more bytes than the vector env carries]"
            keep = SHARED_TEXT_BYTES - len(note.encode())
            data = data[:keep].decode("utf-8", errors="ignore").encode("utf-8") + note.encode()
        cell = slot(shared, index)
        cell[:_HEAD] = np.frombuffer(len(data).to_bytes(_HEAD, "little"), dtype=np.uint8)
        cell[_HEAD:_HEAD + len(data)] = np.frombuffer(data, dtype=np.uint8)

    sm.create_shared_memory.register(AnyText)(create)
    sm.read_from_shared_memory.register(AnyText)(read)
    sm.write_to_shared_memory.register(AnyText)(write)


_register_shared_memory()
