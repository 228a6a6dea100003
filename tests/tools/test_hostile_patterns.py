"""Agent-chosen glob patterns against agent-chosen names never stall the tools (or the event loop)."""

from __future__ import annotations

import asyncio
import itertools
import random
import time

import pytest

from jobenv.tools import Toolbox


def _reference(pattern: str, name: str) -> bool:
    """A slow, obviously correct matcher (backtracking recursion) for small inputs."""
    if not pattern:
        return not name
    if pattern.startswith("**/"):
        # zero folders, or any prefix ending in "/"
        return _reference(pattern[3:], name) or any(
            name[i] == "/" and _reference(pattern[3:], name[i + 1 :]) for i in range(len(name))
        )
    if pattern.startswith("**"):
        return any(_reference(pattern[2:], name[i:]) for i in range(len(name) + 1))
    c = pattern[0]
    if c == "*":
        return any(_reference(pattern[1:], name[i:]) for i in range(len(name) + 1) if "/" not in name[:i])
    if not name:
        return False
    if c == "?":
        return name[0] != "/" and _reference(pattern[1:], name[1:])
    if c == "[" and (j := pattern.find("]", 2)) != -1:
        body, neg = pattern[1:j], False
        if body[:1] in "!^" and body:
            body, neg = body[1:], True
        inside = _in_class(body, name[0])
        return name[0] != "/" and inside != neg and _reference(pattern[j + 1 :], name[1:])
    return name[0] == c and _reference(pattern[1:], name[1:])


def _in_class(body: str, ch: str) -> bool:
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            if body[i] <= ch <= body[i + 2]:
                return True
            i += 3
        else:
            if body[i] == ch:
                return True
            i += 1
    return False


def test_matcher_agrees_with_a_reference_on_random_patterns():
    from jobenv.tools import compile_glob

    rng = random.Random(7)
    atoms = ["a", "b", "/", "*", "**", "**/", "?", "[ab]", "[!a]", "."]
    alphabet = "ab/."
    checked = 0
    for _ in range(3000):
        pattern = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 5)))
        for n in range(0, 6):
            for name in itertools.islice(("".join(t) for t in itertools.product(alphabet, repeat=n)), 0, None, 37):
                assert compile_glob(pattern).match(name) == _reference(pattern, name), (pattern, name)
                checked += 1
    assert checked > 10_000


def test_catastrophic_pattern_is_linear():
    from jobenv.tools import compile_glob

    name = "a" * 4000
    pattern = "*a" * 40 + "*c"
    t0 = time.perf_counter()
    assert not compile_glob(pattern).match(name)
    assert compile_glob(pattern[:-1] + "a").match(name)
    # a backtracking matcher needs about 4000**40 steps here; this one a few per character
    assert time.perf_counter() - t0 < 5


@pytest.mark.timeout(60)  # a backtracking matcher holds the event loop for minutes here
def test_glob_and_ls_ignore_with_hostile_names_answer_promptly(with_tools):
    pattern = "*a" * 12 + "*c"

    async def go(tb: Toolbox, sb):
        await sb.run("cd output && for k in 60 120 200; do touch $(printf 'a%.0s' $(seq $k)); done")
        ticks: list[float] = []

        async def ticker() -> None:
            while True:
                ticks.append(time.perf_counter())
                await asyncio.sleep(0.05)

        tick = asyncio.create_task(ticker())
        try:
            g = await asyncio.wait_for(tb.call("glob", {"pattern": pattern}), 20)
            ls = await asyncio.wait_for(tb.call("ls", {"path": "output", "ignore": [pattern, "?" * 60]}), 20)
        finally:
            tick.cancel()
        gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
        return g, ls, max(gaps, default=0.0)

    g, ls, worst_gap = with_tools(go)
    assert g.ok and "No files match" in g.text
    assert ls.ok and ls.metadata["count"] == 2  # the 60-character name is ignored, the longer two are listed
    assert worst_gap < 2.0  # the event loop kept running


def test_overlong_patterns_are_refused_with_a_message(with_tools):
    async def go(tb: Toolbox, sb):
        return await tb.call("glob", {"pattern": "*" * 5000}), await tb.call("ls", {"ignore": ["x"] * 500})

    g, ls = with_tools(go)
    assert not g.ok and "pattern" in g.text
    assert not ls.ok and "ignore" in ls.text
