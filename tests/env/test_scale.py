"""Many episodes: 64 concurrent async episodes on one event loop, and no leaks over 200 episodes."""

from __future__ import annotations

import asyncio
import gc
import os
import tempfile

from jobenv.env import JobEnv
from jobenv.sandbox.local import drain_warm_sandboxes


def test_64_concurrent_async_episodes_on_one_loop(mini_tasks):
    n = 64

    async def main() -> list[tuple[float, dict]]:
        envs = [JobEnv(mini_tasks, judge="checks", max_steps=10) for _ in range(n)]
        all_reset = asyncio.Event()
        ready = 0

        async def episode(i: int, env: JobEnv) -> tuple[float, dict]:
            nonlocal ready
            await env.areset(options={"index": i % len(mini_tasks)})
            ready += 1
            if ready == n:
                all_reset.set()
            await all_reset.wait()  # every sandbox is alive at the same time
            content = "Total: 200\n" if i % 2 == 0 else "Total: unknown\n"
            obs, *_ = await env.astep({"name": "write", "arguments": {"file_path": "output/report.md", "content": content}})
            obs, *_ = await env.astep({"name": "bash", "arguments": {"command": f"echo episode-{i}; cat output/report.md"}})
            assert f"episode-{i}" in obs and content.strip() in obs  # each episode sees its own workspace
            obs, reward, term, trunc, info = await env.astep({"name": "submit"})
            assert term and info["status"] == "ok"
            return reward, info

        try:
            return await asyncio.wait_for(asyncio.gather(*(episode(i, e) for i, e in enumerate(envs))), 240)
        finally:
            await asyncio.gather(*(e.aclose() for e in envs))

    results = asyncio.run(main())
    rewards = [r for r, _ in results]
    # "unknown" has no right fact, so the report's existence earns nothing either (no credit without substance)
    assert rewards == [1.0 if i % 2 == 0 else 0.0 for i in range(n)]


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _children() -> set[int]:
    kids: set[int] = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                kids.update(int(x) for x in f.read().split())
        except OSError:
            pass
    return kids


def _temp_entries() -> set[str]:
    return set(os.listdir(tempfile.gettempdir()))


def test_no_leaks_after_200_episodes(mini_tasks, tmp_path, monkeypatch):
    # a private temp root: /tmp is shared with other processes, whose files must not count
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    # warm up lazily imported modules and caches so they do not count as leaks
    env = JobEnv(mini_tasks, judge="checks", max_steps=3)
    env.reset(seed=0)
    env.step({"name": "submit"})
    env.close()
    gc.collect()
    drain_warm_sandboxes()  # sandboxes launched ahead wait beside the episodes: counted apart (tests/sandbox)
    fds0, kids0, tmp0 = len(os.listdir("/proc/self/fd")), _children(), _temp_entries()

    env = JobEnv(mini_tasks, judge="checks", max_steps=3)
    for i in range(200):
        env.reset(seed=i)
        env.step({"name": "bash", "arguments": {"command": "true"}})
        if i % 3 == 0:
            env.step({"name": "write", "arguments": {"file_path": "output/report.md", "content": "200"}})
            env.step({"name": "submit"})  # graded: export + temp dir
        elif i % 3 == 1:
            env.step({"name": "ls", "arguments": {}})
            env.step({"name": "ls", "arguments": {}})  # truncated by max_steps
        # else: left mid-episode; the next reset must close the sandbox
    env.close()
    # forgotten envs (never closed, one mid-episode) are cleaned by their finalizers
    for _ in range(5):
        lost = JobEnv(mini_tasks, judge="checks")
        lost.reset(seed=1)
        del lost
    gc.collect()
    drain_warm_sandboxes()
    fds1, kids1, tmp1 = len(os.listdir("/proc/self/fd")), _children(), _temp_entries()
    assert fds1 <= fds0 + 2, (fds0, fds1)
    # no more children than before; a new one may only be an extraction worker that replaced one retired after
    # its max_jobs (earlier tests may have brought a worker close to that)
    assert len(kids1) <= len(kids0), kids1 - kids0
    assert all("jobenv.extract.worker" in _cmdline(pid) for pid in kids1 - kids0), {p: _cmdline(p) for p in kids1 - kids0}
    assert tmp1 <= tmp0, tmp1 - tmp0
    # grading temp dirs and sandbox dirs are all gone; only the process's one /etc snapshot stays until exit
    assert all(e.startswith(f"jobenv-{os.getpid()}-etc-") for e in tmp1), tmp1
