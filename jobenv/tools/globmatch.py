"""A glob matcher that cannot backtrack: linear in the name's length for any pattern.

Translating a glob to a backtracking regex lets a pattern like ``*a*a*a*a*a*a*a*a*c`` against a long name of
``a``s take minutes (each ``*`` multiplies the work), and the tools match agent-chosen patterns against
agent-chosen names. Here the pattern is compiled to a small automaton whose live states are the bits of one
integer, so matching a name costs a few integer operations per character, whatever the pattern.

Syntax: ``*`` any run of characters within one path segment, ``?`` one character other than ``/``,
``[abc]`` / ``[a-z]`` / ``[!a-z]`` one character of (or not of) a set (never ``/``), ``**`` anything
including ``/``, ``**/`` zero or more whole folders; every other character stands for itself. The whole name
must match. Never raises for any pattern (an unclosed ``[`` is a literal).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GlobPattern", "compile_glob"]

_LIT, _ANY, _CLASS, _STAR, _GSTAR, _GSLASH, _GSINNER = range(7)


@dataclass(frozen=True)
class _Token:
    kind: int
    char: str = ""
    negated: bool = False
    ranges: tuple[tuple[str, str], ...] = ()

    def accepts(self, ch: str) -> bool:
        """Whether this single-character token consumes ``ch`` (star tokens are handled apart)."""
        if self.kind == _LIT:
            return ch == self.char
        if self.kind == _ANY:
            return ch != "/"
        if self.kind == _CLASS:
            if ch == "/":
                return False
            inside = any(lo <= ch <= hi for lo, hi in self.ranges)
            return inside != self.negated
        return False


def _class(body: str) -> _Token:
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    ranges: list[tuple[str, str]] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            ranges.append((body[i], body[i + 2]))
            i += 3
        else:
            ranges.append((body[i], body[i]))
            i += 1
    return _Token(_CLASS, negated=negated, ranges=tuple(ranges))


def _tokens(pattern: str) -> list[_Token]:
    out: list[_Token] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            kind, step = _GSLASH, 3
        elif pattern.startswith("**", i):
            kind, step = _GSTAR, 2
        elif c == "*":
            kind, step = _STAR, 1
        elif c == "?":
            out.append(_Token(_ANY))
            i += 1
            continue
        elif c == "[" and (j := pattern.find("]", i + 2)) != -1:
            out.append(_class(pattern[i + 1 : j]))
            i = j + 1
            continue
        else:
            out.append(_Token(_LIT, char=c))
            i += 1
            continue
        if kind == _GSLASH:  # "**/" is (.*/)? : an entry that may skip, and a loop that leaves on "/"
            out += [_Token(_GSLASH), _Token(_GSINNER)]
        elif not (out and out[-1].kind == kind):  # "***" within a segment means no more than "*"
            out.append(_Token(kind))
        i += step
    return out


class GlobPattern:
    """One compiled glob; :meth:`match` tests a whole POSIX path or name in time linear in its length."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens = _tokens(pattern)
        n = len(self._tokens)
        self._accept = 1 << n
        self._skip1 = sum(1 << i for i, t in enumerate(self._tokens) if t.kind in (_STAR, _GSTAR, _GSLASH))
        self._skip2 = sum(1 << i for i, t in enumerate(self._tokens) if t.kind == _GSLASH)
        self._steps: dict[str, tuple[int, int]] = {}

    def _step_masks(self, ch: str) -> tuple[int, int]:
        """(tokens that consume ``ch`` and move on, star tokens that consume ``ch`` and stay)."""
        masks = self._steps.get(ch)
        if masks is None:
            advance = stay = 0
            for i, t in enumerate(self._tokens):
                bit = 1 << i
                if t.kind == _STAR:
                    if ch != "/":
                        stay |= bit
                elif t.kind == _GSTAR:
                    stay |= bit
                elif t.kind == _GSINNER:
                    stay |= bit
                    if ch == "/":
                        advance |= bit
                elif t.kind == _GSLASH:
                    continue  # consumes nothing itself: its closure enters the loop or skips past it
                elif t.accepts(ch):
                    advance |= bit
            masks = (advance, stay)
            if len(self._steps) < 512:  # names draw on few characters; do not let odd ones grow this forever
                self._steps[ch] = masks
        return masks

    def _closure(self, states: int) -> int:
        while True:
            grown = states | ((states & self._skip1) << 1) | ((states & self._skip2) << 2)
            if grown == states:
                return states
            states = grown

    def match(self, name: str) -> bool:
        """True when the whole of ``name`` matches the pattern."""
        states = self._closure(1)
        for ch in name:
            advance, stay = self._step_masks(ch)
            states = self._closure(((states & advance) << 1) | (states & stay))
            if not states:
                return False
        return bool(states & self._accept)

    def __repr__(self) -> str:
        return f"GlobPattern({self.pattern!r})"


def compile_glob(pattern: str) -> GlobPattern:
    """Compile ``pattern`` (see the module docstring for the syntax)."""
    return GlobPattern(pattern)
