"""A first episode by hand: list the task folder, write a deliverable, submit, read the report.

    .venv/bin/python examples/quickstart.py
"""

import jobenv

env = jobenv.make("jobenv/sample", max_steps=20)
obs, info = env.reset(options={"task_id": "financial_managers/task1"})
print(obs[:400], "...\n")
print("tools:", [s["function"]["name"] for s in info["tool_schemas"]])

for action in (
    {"name": "ls", "arguments": {"path": "task_folder"}},
    {"name": "bash", "arguments": {"command": "head -3 task_folder/*.csv"}},
    {"name": "write", "arguments": {"file_path": "output/notes.md", "content": "Work in progress.\n"}},
    {"name": "submit", "arguments": {}},
):
    obs, reward, terminated, truncated, info = env.step(action)
    print(f"> {action['name']}: {obs[:300]!r}")

report = info["report"]
print(f"\nreward={reward} status={info['status']} passed {report['passed_count']}/{report['total_count']} rubrics")
env.close()
