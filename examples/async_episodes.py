"""Many episodes on one event loop: every sample task at once, each agent just looks around and submits.

    .venv/bin/python examples/async_episodes.py
"""

import asyncio

import jobenv


async def episode(index: int) -> tuple[str, float]:
    env = jobenv.make("jobenv/sample")
    try:
        _, info = await env.areset(options={"index": index})
        await env.astep({"name": "bash", "arguments": {"command": "ls -R task_folder | wc -l"}})
        _, reward, *_ = await env.astep({"name": "submit", "arguments": {}})
        return info["task_id"], reward
    finally:
        await env.aclose()


async def main() -> None:
    n = len(jobenv.load_tasks("jobenv/sample"))
    for task_id, reward in await asyncio.gather(*(episode(i) for i in range(n))):
        print(f"{task_id:45} reward={reward}")


asyncio.run(main())
