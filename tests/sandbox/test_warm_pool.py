"""Warm local sandboxes: a start adopts one launched ahead, which is never reused across configurations or mount
plans, and the start-up guard and staging still run for the task that takes it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from jobenv.errors import ConfigError
from jobenv.sandbox import SandboxLimits, make_sandbox
from jobenv.sandbox.local import _pool, drain_warm_sandboxes
from tests.sandbox.fixtures import run


def _waiting(timeout: float = 10.0, at_least: int = 2) -> set[int]:
    """Host pids of PID 1 of every waiting sandbox, once at least ``at_least`` wait."""
    deadline = time.monotonic() + timeout
    while True:
        with _pool._LOCK:
            pids = {sb._state["agent_pid"] for sbs in _pool._POOLS.values() for sb in sbs}
        if len(pids) >= at_least or time.monotonic() > deadline:
            return pids
        time.sleep(0.01)


@pytest.fixture(autouse=True)
def _fresh_pool(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("JOBENV_WARM_SANDBOXES", raising=False)
    drain_warm_sandboxes()
    yield
    drain_warm_sandboxes()


def test_a_start_adopts_a_warm_sandbox_and_still_stages_its_task(task_dir: Path) -> None:
    async def body() -> None:
        first = make_sandbox("local")
        await first.start(None)
        warm = _waiting()
        assert len(warm) == 2  # the default: two wait per configuration
        second = make_sandbox("local")
        await second.start(task_dir / "task_folder")
        try:
            assert second._state["agent_pid"] in warm  # type: ignore[attr-defined]
            r = await second.run("cat task_folder/data/sales.csv; ls /workspace; ps -eo pid= | wc -l")
            assert "south,32" in r.output and "output" in r.output
            assert r.output.split()[-1] == "4"  # PID 1, bash, ps and wc: the warm sandbox had run nothing
            assert second.sandbox_id != first.sandbox_id
        finally:
            await second.close()
            await first.close()
        assert all(not os.path.exists(f"/proc/{pid}") for pid in warm - _waiting(at_least=0))

    run(body())


def test_other_limits_and_a_changed_mount_plan_never_get_a_warm_sandbox(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    async def body() -> None:
        first = make_sandbox("local")
        await first.start(None)
        warm = _waiting()
        other = make_sandbox("local", limits=SandboxLimits(workspace_mb=64))
        await other.start(None)
        assert other._state["agent_pid"] not in warm  # type: ignore[attr-defined]
        assert (await other.run("df -m /workspace | tail -1")).output.split()[1] == "64"
        _waiting(at_least=4)  # both configurations now wait
        monkeypatch.setenv("JOBENV_CACHE", str(tmp_path / "cache"))  # a new host-only path: a new mount plan
        third = make_sandbox("local")
        await third.start(None)
        assert third._state["agent_pid"] not in warm  # type: ignore[attr-defined]
        for sb in (first, other, third):
            await sb.close()
        for pid in warm - _waiting(at_least=0):  # discarded, not left running
            deadline = time.monotonic() + 5
            while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not os.path.exists(f"/proc/{pid}")

    run(body())


def test_zero_turns_it_off_and_a_bad_value_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBENV_WARM_SANDBOXES", "0")

    async def body() -> None:
        sb = make_sandbox("local")
        await sb.start(None)
        await sb.close()

    run(body())
    time.sleep(0.2)
    assert _waiting(timeout=0, at_least=0) == set()
    monkeypatch.setenv("JOBENV_WARM_SANDBOXES", "many")
    with pytest.raises(ConfigError, match="JOBENV_WARM_SANDBOXES must be a whole number from 0 to 64"):
        run(body())


def test_drain_tears_every_waiting_sandbox_down() -> None:
    async def body() -> None:
        sb = make_sandbox("local")
        await sb.start(None)
        await sb.close()

    run(body())
    warm = _waiting()
    assert warm
    drain_warm_sandboxes()
    assert _waiting(timeout=0, at_least=0) == set()
    assert all(not os.path.exists(f"/proc/{pid}") for pid in warm)
