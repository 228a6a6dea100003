"""The tool table is the one declaration of every tool: everything that lists tools reads it."""

from __future__ import annotations

from jobenv.tools import (
    CONCURRENT_TOOLS,
    OPTIONAL_TOOLS,
    SUBMIT,
    TOOL_NAMES,
    TOOL_PARAMS,
    TOOL_SPECS,
    sample_actions,
    tool_schemas,
    validate_arguments,
)


def test_every_listing_of_tools_is_derived_from_the_table(sample_tasks):
    import jobenv.hosting.environments as hosting
    from jobenv.env import ToolCallSpace
    from jobenv.episode.prompt import build_prompt

    names = [s.name for s in TOOL_SPECS if not s.optional]
    assert list(TOOL_NAMES) == names and names[-1] == SUBMIT
    assert OPTIONAL_TOOLS == ("python",)
    assert [s["function"]["name"] for s in tool_schemas()] == names
    assert {s["function"]["name"]: s["function"]["description"] for s in tool_schemas(extra=OPTIONAL_TOOLS)} == {
        s.name: s.description for s in TOOL_SPECS
    }
    assert set(TOOL_PARAMS) == {s.name for s in TOOL_SPECS} - {SUBMIT}
    assert hosting.CONCURRENT_TOOLS is CONCURRENT_TOOLS
    assert CONCURRENT_TOOLS == {s.name for s in TOOL_SPECS if s.concurrent}
    assert {"write", "edit", "multi_edit", "todo_write", SUBMIT}.isdisjoint(CONCURRENT_TOOLS)  # they change state

    tools_line = next(ln for ln in build_prompt(sample_tasks[0]).splitlines() if ln.startswith("Tools:"))
    for name in names[:-1]:
        assert name in tools_line, name

    assert "python" not in tools_line.split(".")[0]  # optional: off by default
    from jobenv.episode import EpisodeRules

    with_python = next(ln for ln in build_prompt(sample_tasks[0], rules=EpisodeRules(tools=("python",))).splitlines()
                       if ln.startswith("Tools:"))
    assert "python" in with_python.split(".")[0]
    assert "unknown tool 'python'" in validate_arguments("python", {"code": "1"})  # not enabled: unknown
    assert not isinstance(validate_arguments("python", {"code": "1"}, ("python",)), str)

    space = ToolCallSpace(seed=0)
    drawn = {space.sample()["name"] for _ in range(200)}
    assert drawn == {a["name"] for a in sample_actions()}
    for action in sample_actions():
        assert action["name"] != SUBMIT
        assert not isinstance(validate_arguments(action["name"], action["arguments"]), str), action
