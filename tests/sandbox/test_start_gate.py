"""Sandbox starts go through their backend's start gate: at most ``start_slots()`` start at once per event loop."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from jobenv.env import JobEnv
from jobenv.sandbox import Sandbox, make_sandbox, start_slots
from jobenv.sandbox.local import LocalSandbox

ROOT = Path(__file__).resolve().parents[2]


async def _held(cls: type[Sandbox]) -> asyncio.Semaphore:
    """Take every slot of ``cls``'s gate on this loop, as a burst of other starts would."""
    gate = cls.start_gate()
    for _ in range(cls.start_slots()):
        await asyncio.wait_for(gate.acquire(), 1)  # never waits: the gate has exactly start_slots() slots
    assert gate.locked()
    return gate


def test_a_start_waits_for_a_free_slot_then_runs(backend: str, sandbox_options: dict[str, Any], task_dir: Path) -> None:
    async def main() -> None:
        sb = make_sandbox(backend, **sandbox_options)
        gate = await _held(type(sb))
        start = asyncio.create_task(sb.start(task_dir / "task_folder"))
        await asyncio.sleep(1.0)
        assert not start.done()  # queued behind the burst, nothing launched yet
        gate.release()
        await asyncio.wait_for(start, 120)
        try:
            assert (await sb.run("cat task_folder/data/sales.csv", timeout=30)).output.startswith("region,amount")
        finally:
            await sb.close()

    asyncio.run(main())


def test_every_event_loop_has_its_own_gate(task_dir: Path) -> None:
    # a semaphore is bound to the loop that first waits on it: a second asyncio.run must not inherit the first's
    async def once() -> str:
        gates = []
        for _ in range(2):
            async with LocalSandbox() as sb:
                gates.append(LocalSandbox.start_gate())
                await sb.start(task_dir / "task_folder")
                gates.append(LocalSandbox.start_gate())
                out = (await sb.run("ls task_folder", timeout=30)).output
        assert gates[0] is gates[-1] and not gates[0].locked()
        return out

    assert "data" in asyncio.run(once())
    assert "data" in asyncio.run(once())


def test_an_env_reset_waits_for_the_gate_too(sample_tasks: list[Any]) -> None:
    # trainers that drive many JobEnvs themselves (verifiers, OpenEnv) get the same bound as a rollout
    async def main() -> None:
        env = JobEnv(sample_tasks[:1], judge="checks")
        try:
            gate = await _held(LocalSandbox)
            reset = asyncio.create_task(env.areset())
            await asyncio.sleep(1.0)
            assert not reset.done()
            gate.release()
            await asyncio.wait_for(reset, 60)
            assert env.sandbox is not None
            names = {e.path.rsplit("/", 1)[-1] for e in await env.sandbox.list_files("task_folder")}
            assert "TASK_INSTRUCTIONS.txt" in names
        finally:
            await env.aclose()

    asyncio.run(main())


def test_the_figure_follows_the_backend_and_the_cpus_this_process_may_use() -> None:
    cpus = len(os.sched_getaffinity(0))
    assert start_slots("local") == start_slots(LocalSandbox) == start_slots(make_sandbox("local")) == cpus
    assert start_slots("docker") == Sandbox.start_slots() == 16  # starts that wait on the engine overlap well
    assert start_slots(lambda: LocalSandbox()) == 16  # a factory's backend is unknown until it runs
    # a process pinned to one CPU starts one sandbox at a time
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from jobenv.sandbox import start_slots; print(start_slots('local'))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


def test_a_subclass_of_a_backend_shares_its_gate() -> None:
    class Instrumented(LocalSandbox):
        pass

    async def main() -> None:
        assert Instrumented.start_gate() is LocalSandbox.start_gate()
        assert Instrumented.start_gate() is not Sandbox.start_gate()

    asyncio.run(main())
