"""Fixtures of the rollout tests: the bundled sample split and a scripted policy server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.rollout.scripted import ScriptedAgent
from tests.support.openai_server import OpenAIServer


@pytest.fixture
def policy_server(sample_tasks: list[Any]) -> Iterator[Any]:
    """Start a scripted policy server; call it with ScriptedAgent options. Yields (server, agent) pairs."""
    servers: list[OpenAIServer] = []

    def start(**options: Any) -> tuple[OpenAIServer, ScriptedAgent]:
        agent = ScriptedAgent(sample_tasks, **options)
        srv = OpenAIServer(agent).__enter__()
        servers.append(srv)
        return srv, agent

    yield start
    for s in servers:
        s.__exit__(None, None, None)
