"""``jobenv serve`` start-up: the port opens before the protocol layer loads, progress is logged, early
requests wait instead of failing, and a compact tool listing for short prompts.

A real ``jobenv serve`` process and the real ``openreward`` client; the staged app's failure path is driven by
uvicorn on loopback with a builder that raises.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .serving import ServeProcess, free_port

pytestmark = pytest.mark.timeout(300)


def _skyrl_style_tool_prompt(tools: list[Any]) -> str:
    """The tool list as SkyRL's OpenReward recipe writes it into the system prompt (one JSON line per tool)."""
    return "\n".join(json.dumps({"name": t.name, "arguments_schema": t.input_schema, "description": t.description})
                     for t in tools)


def test_serve_listens_at_once_logs_progress_and_early_requests_wait(tmp_path: Path, serve: ServeProcess,
                                                                     orclient: Any) -> None:
    srv = ServeProcess(tmp_path, args=["--envs", "sample", "--compact-tools"], wait=False)
    try:
        deadline = time.monotonic() + 120
        while True:  # /health: 503 "loading" while the protocol layer loads, then 200 "ok"
            try:
                with urllib.request.urlopen(srv.url + "/health", timeout=2) as r:
                    assert json.loads(r.read()) == {"status": "ok"}
                    break
            except urllib.error.HTTPError as exc:
                assert exc.code == 503 and json.loads(exc.read()) == {"status": "loading"}
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            assert time.monotonic() < deadline and srv.proc.poll() is None, srv.log()
            time.sleep(0.05)
        # ready means loaded: the log says so before /health did, and the first tool listing is answered
        assert "ready: protocol layer loaded" in "\n".join(srv.jobenv_lines())
        code, body = srv.get("/jobenvsample/tools")
        assert code == 200, body
        lines = srv.jobenv_lines()
        text = "\n".join(lines)
        assert "starting: loading the tasks of jobenv/sample" in text and "tasks: jobenv/sample 7 loaded" in text
        order = [next(i for i, line in enumerate(lines) if needle in line)
                 for needle in ("starting:", "serving /jobenvsample", "listening;", "ready: protocol layer loaded")]
        assert order == sorted(order), lines

        # the compact listing: each tool's first sentence and bare schemas, the same tools, calls validated as ever
        from jobenv.tools import tool_schemas

        compact = {s["function"]["name"]: s["function"] for s in tool_schemas(compact=True)}
        env = orclient.environments.get("jobenv", variant="jobenvsample", base_url=srv.url)
        listed = env.list_tools()
        assert {t.name: (t.description, t.input_schema) for t in listed} == {
            n: (f["description"], f["parameters"]) for n, f in compact.items()}
        full = orclient.environments.get("jobenv", variant="jobenvsample", base_url=serve.url).list_tools()
        short, long = _skyrl_style_tool_prompt(listed), _skyrl_style_tool_prompt(full)
        assert len(short) < 0.5 * len(long) and '"description": "Run a bash command' in short
        with env.session(split="sample", index=0) as s:
            bad = s.call_tool("read", {"file_path": "task_folder/TASK_INSTRUCTIONS.txt", "limit": 0})
            assert not bad.finished and "limit" in bad.blocks[0].text  # the bound left out of the listing holds
            ok = s.call_tool("read", {"file_path": "task_folder/TASK_INSTRUCTIONS.txt", "limit": 3})
            assert "1\t" in ok.blocks[0].text or "     1" in ok.blocks[0].text
    finally:
        srv.stop()


def test_a_protocol_layer_that_cannot_load_is_logged_refused_and_stops_the_server() -> None:
    import uvicorn

    from jobenv.hosting.staged import StagedApp

    logged: list[str] = []
    gate = threading.Event()

    def build() -> Any:
        gate.wait(30)  # /health is answered while this is still running
        raise RuntimeError("the SDK is broken")

    stopped: list[str] = []
    port = free_port()
    app = StagedApp(build, log=logged.append, on_failure=stopped.append)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        with pytest.raises(urllib.error.HTTPError) as loading:  # not ready while the app is being built
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5)
        assert loading.value.code == 503 and json.loads(loading.value.read()) == {"status": "loading"}
        answers: list[tuple[int, str]] = []

        def early() -> None:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/jobenvsample/tools", timeout=30)
            except urllib.error.HTTPError as exc:
                answers.append((exc.code, exc.read().decode()))

        waiter = threading.Thread(target=early)
        waiter.start()
        time.sleep(0.3)
        assert not answers  # still waiting for the app
        gate.set()
        waiter.join(30)
        assert answers and answers[0][0] == 503 and "the SDK is broken" in answers[0][1]
        assert stopped == ["RuntimeError: the SDK is broken"] and "could not start" in logged[-1]
        with pytest.raises(urllib.error.HTTPError) as failed:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5)
        assert failed.value.code == 503 and json.loads(failed.value.read())["status"] == "failed"
    finally:
        gate.set()
        server.should_exit = True
        thread.join(30)


def _python(code: str) -> str:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def test_serving_imports_the_sdks_server_half_and_the_whole_sdk_stays_usable() -> None:
    # the provider type modules of the SDK's rollout client are not imported by serving ...
    out = _python("import sys, jobenv.hosting.environments\n"
                  "print(sorted({m.split('.')[0] for m in sys.modules} & {'anthropic', 'openreward'}))")
    assert out == "['openreward']"
    # ... yet every top-level name of the SDK is there on first use, in either import style
    out = _python("import jobenv.hosting.environments, openreward\n"
                  "from openreward import AsyncOpenReward, RolloutAPI\n"
                  "print(openreward.OpenReward.__name__, AsyncOpenReward.__name__, RolloutAPI.__name__, "
                  "hasattr(openreward, 'no_such_name'))")
    assert out == "OpenReward AsyncOpenReward RolloutAPI False"
    # an SDK imported first is left exactly as it was
    out = _python("import openreward; before = openreward\nimport jobenv.hosting.environments, sys\n"
                  "print(sys.modules['openreward'] is before, 'anthropic' in sys.modules)")
    assert out == "True True"
