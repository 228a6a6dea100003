"""Fixtures for the hosting tests: a real ``jobenv serve`` process on 127.0.0.1 and a real openreward client."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from .serving import ServeProcess


@pytest.fixture(scope="session")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """The main server: local sandbox, checks judge, empty data dir."""
    srv = ServeProcess(tmp_path_factory.mktemp("serve"))
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session")
def orclient() -> Iterator[Any]:
    """The real openreward client (any API key works against a local server)."""
    os.environ["OPENREWARD_DISABLE_UPDATE_CHECK"] = "1"
    from openreward import OpenReward

    client = OpenReward(api_key="local-test-key")
    try:
        yield client
    finally:
        client.environments.close()
