"""Fixtures of the rollout tests: the bundled sample split and a scripted policy server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.rollout.scripted import ScriptedAgent
from tests.support.openai_server import OpenAIServer


@pytest.fixture
def policy_server(sample_tasks: list[Any]) -> Iterator[Any]:
    """Start a scripted policy server; call it with ScriptedAgent options (``server=``: OpenAIServer's).
    Yields (server, agent) pairs."""
    servers: list[OpenAIServer] = []

    def start(*, server: dict[str, Any] | None = None, **options: Any) -> tuple[OpenAIServer, ScriptedAgent]:
        agent = ScriptedAgent(sample_tasks, **options)
        srv = OpenAIServer(agent, **(server or {})).__enter__()
        servers.append(srv)
        return srv, agent

    yield start
    for s in servers:
        s.__exit__(None, None, None)


@pytest.fixture
def jobenv_cli() -> Any:
    """Run the installed ``jobenv`` command line as a user does (a subprocess); returns CompletedProcess."""

    def run(*args: str, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "jobenv.cli", *args], capture_output=True, text=True,
                              timeout=timeout, env={**os.environ, **(env or {})})

    return run
