"""The optional ``python`` tool: a persistent interpreter per episode inside the local sandbox.

End to end first (through ``jobenv.make`` and ``step``), then what hostile cells do to it: each is an observation,
the interpreter is restarted when needed, the episode goes on, and nothing is left behind after close.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

import jobenv
from jobenv.errors import ConfigError
from jobenv.sandbox.base import SandboxLimits
from jobenv.sandbox.local import LocalSandbox, drain_warm_sandboxes
from tests.support.procs import descendants


def _step(env, code, timeout=None):
    args = {"code": code} if timeout is None else {"code": code, "timeout": timeout}
    obs, _r, term, trunc, info = env.step({"name": "python", "arguments": args})
    assert not (term or trunc), obs
    return obs, info


def test_python_tool_keeps_state_across_calls_and_writes_the_workspace():
    env = jobenv.make("jobenv/sample", judge="checks", tools="python")
    try:
        obs, info = env.reset(options={"index": 0})
        names = [s["function"]["name"] for s in info["tool_schemas"]]
        assert names[:2] == ["bash", "python"] and names[-1] == "submit"
        assert "python" in next(ln for ln in obs.splitlines() if ln.startswith("Tools:"))
        out, info = _step(env, "import csv, os\nrows = [r for r in csv.reader(open('task_folder/' + "
                               "sorted(f for f in os.listdir('task_folder') if f != 'TASK_INSTRUCTIONS.txt')[0], "
                               "errors='replace'))]\ncount = len(rows)\nprint('read', count > 0)")
        assert out.strip() == "read True" and info["ok"] and info["exit_code"] == 0
        out, _ = _step(env, "total = count * 2\ntotal")  # a final expression's repr, like a notebook cell
        first = int(out.strip())
        out, _ = _step(env, "total // 2")
        assert int(out.strip()) * 2 == first
        _step(env, "open('output/answer.txt', 'w').write(str(total))")
        obs, *_ = env.step({"name": "bash", "arguments": {"command": "cat output/answer.txt"}})
        assert obs.startswith(str(first))
        out, info = _step(env, "undefined_name + 1")
        assert "NameError" in out and "Traceback" in out and info["exit_code"] == 1 and info["ok"]
        assert 'File "<cell' in out and "_worker" not in out and "exec(" not in out  # the loop's frames are cut
        out, _ = _step(env, "total")  # an exception does not lose the state
        assert int(out.strip()) == first
    finally:
        env.close()


def test_python_tool_is_off_by_default_and_refused_where_it_cannot_run():
    env = jobenv.make("jobenv/sample", judge="checks")
    try:
        _obs, info = env.reset(options={"index": 0})
        assert "python" not in [s["function"]["name"] for s in info["tool_schemas"]]
        obs, _r, _t, _tr, info = env.step({"name": "python", "arguments": {"code": "1"}})
        assert "unknown tool 'python'" in obs and info["error"] == "invalid_arguments"
    finally:
        env.close()
    with pytest.raises(ConfigError, match="local sandbox"):
        jobenv.make("jobenv/sample", judge="checks", tools=["python"], sandbox="docker")
    with pytest.raises(ConfigError, match="unknown optional tool 'pyhton'"):
        jobenv.make("jobenv/sample", judge="checks", tools=["pyhton"])


def test_cli_flag_enables_the_tool_and_rejects_a_bad_name(tmp_path):
    bad = subprocess.run([sys.executable, "-m", "jobenv.cli", "rollout", "jobenv/sample", "--tools", "pyton"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown optional tool 'pyton'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
    from jobenv.cli.main import build_parser, options_for

    ns = build_parser().parse_args(["rollout", "jobenv/sample", "--tools", "python", "--model", "m", "--base-url",
                                    "http://127.0.0.1:9/v1", "--out", str(tmp_path / "t.jsonl")])
    assert options_for("rollout", ns).rules.tools == ("python",)


async def _cells(sandbox, *cells, timeout=20):
    out = []
    for code in cells:
        out.append(await sandbox.run_python(code, timeout=timeout))
    return out


def _processes(sandbox) -> list[str]:
    root = f"/proc/{sandbox._state['agent_pid']}/root/proc"  # the sandbox's own /proc, read from the host
    return sorted(p for p in os.listdir(root) if p.isdigit())


@pytest.mark.parametrize("cell, exits", [
    ("import os; os._exit(7)", 7),
    ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", 137),
])
def test_an_interpreter_that_dies_is_reported_and_replaced(cell, exits):
    async def go():
        sb = LocalSandbox()
        await sb.start(None)
        try:
            r = await _cells(sb, "x = 5", cell, "x", "x = 6; x")
        finally:
            await sb.close()
        return r

    set_x, died, lost, again = asyncio.run(go())
    assert set_x.exit_code == 0 and not set_x.restarted
    assert died.exit_code == exits and not died.interpreter_alive
    assert lost.restarted and "NameError" in lost.output  # a new interpreter, and it says so
    assert again.output.strip() == "6" and not again.restarted


def test_hostile_cells_are_observations_and_the_episode_goes_on():
    async def go():
        sb = LocalSandbox(SandboxLimits(memory_mb=1024, pids=64, output_chars=5000))
        await sb.start(None)
        try:
            results = {}
            results["syntax"] = await sb.run_python("def f(:\n    pass", timeout=10)
            results["exit"] = await sb.run_python("keep = 1\nimport sys\nsys.exit(3)", timeout=10)
            results["kept"] = await sb.run_python("keep", timeout=10)
            results["loop"] = await sb.run_python("while True:\n    pass", timeout=2)
            results["after_loop"] = await sb.run_python("'alive'", timeout=10)
            results["flood"] = await sb.run_python(
                "import sys\nfor _ in range(100):\n    sys.stdout.write('x' * (1 << 20))", timeout=60)
            results["binary"] = await sb.run_python(
                "import sys\nsys.stdout.buffer.write(bytes(range(256)) * 4); sys.stdout.flush(); 'ok'", timeout=10)
            results["membomb"] = await sb.run_python("hog = bytearray(4 << 30)", timeout=30)
            results["forkbomb"] = await sb.run_python(
                "import os\nkids = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            import time\n"
                "            time.sleep(600)\n            os._exit(0)\n        kids += 1\nexcept OSError as e:\n"
                "    print('stopped at', kids, type(e).__name__)", timeout=30)
            results["background"] = await sb.run_python(
                "import subprocess\nsubprocess.Popen(['sleep', '600']); 'started'", timeout=10)
            results["after"] = await sb.run_python("import os; sorted(os.listdir('/proc'))[:0] or 'fine'", timeout=10)
            procs = _processes(sb)
            results["bash"] = await sb.run("echo still here", timeout=10)
        finally:
            await sb.close()
        return results, procs

    r, procs = asyncio.run(go())
    assert r["syntax"].exit_code == 1 and "SyntaxError" in r["syntax"].output and r["syntax"].interpreter_alive
    assert "SystemExit: 3" in r["exit"].output and r["kept"].output.strip() == "1"  # sys.exit keeps the state
    assert r["loop"].timed_out and not r["loop"].interpreter_alive
    assert r["after_loop"].restarted and r["after_loop"].output.strip() == "'alive'"
    assert r["flood"].truncated and len(r["flood"].output) < 10_000 and r["flood"].interpreter_alive
    assert "'ok'" in r["binary"].output and r["binary"].interpreter_alive
    assert "MemoryError" in r["membomb"].output or not r["membomb"].interpreter_alive
    assert r["forkbomb"].interpreter_alive or r["forkbomb"].exit_code != 0
    assert r["background"].output.strip() == "'started'"
    # between cells only PID 1 and the interpreter live: the fork bomb's children and the background sleep are gone
    assert len(procs) <= 2 + 1, procs  # + at most one zombie child the interpreter has not collected
    assert r["bash"].output.strip() == "still here"


def test_interpreter_leaves_nothing_behind_after_close():
    async def once() -> None:  # what the process opens once for all sandboxes (spawner, extraction) is no leak
        sb = LocalSandbox()
        await sb.start(None)
        await sb.run_python("x = 1", timeout=10)
        await sb.close()

    asyncio.run(once())
    drain_warm_sandboxes()  # sandboxes launched ahead hold descriptors of their own
    before = set(os.listdir("/proc/self/fd"))

    async def go() -> tuple[int, set[int]]:
        sb = LocalSandbox()
        await sb.start(None)
        await sb.run_python("import subprocess; subprocess.Popen(['sleep', '600']); x = 1", timeout=10)
        agent = sb._state["agent_pid"]
        mine = descendants(agent)  # this sandbox's processes only: other tests' sandboxes may run meanwhile
        await sb.close()
        return agent, mine

    agent, mine = asyncio.run(go())
    drain_warm_sandboxes()
    assert not os.path.exists(f"/proc/{agent}")
    assert set(os.listdir("/proc/self/fd")) <= before | {str(max(map(int, before)) + 1)}
    assert len(mine) >= 2  # at least the interpreter and its sleep
    assert not [pid for pid in mine if os.path.exists(f"/proc/{pid}")]  # every process of the sandbox is gone


def test_processes_of_bash_commands_do_not_touch_a_living_interpreter():
    async def go():
        sb = LocalSandbox()
        await sb.start(None)
        try:
            await sb.run_python("state = [1, 2, 3]", timeout=10)
            bg = await sb.run("sleep 600 & echo started", timeout=10)
            ps = await sb.run("ps -eo stat,comm --no-headers", timeout=10)
            cell = await sb.run_python("sum(state)", timeout=10)
        finally:
            await sb.close()
        return bg, ps, cell

    bg, ps, cell = asyncio.run(go())
    assert bg.output.strip() == "started"
    lines = [ln.split() for ln in ps.output.strip().splitlines()]
    assert ["T", "python3"] in [[s[0][0], s[1]] for s in lines]  # the interpreter waits, stopped
    assert "sleep" not in ps.output  # the background job of the earlier command is gone
    assert cell.output.strip() == "6" and not cell.restarted


def test_python_tool_output_is_json_safe_for_trajectories():
    env = jobenv.make("jobenv/sample", judge="checks", tools=("python",))
    try:
        env.reset(options={"index": 0})
        out, info = _step(env, "print('\\udcff'.encode('utf-8', 'surrogateescape')); b'\\x00\\xff'")
        json.dumps({"obs": out, "info": {k: v for k, v in info.items() if k != "report"}})
    finally:
        env.close()
