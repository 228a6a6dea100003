"""Harbor task directories run as jobenv envs: loading, the workspace at the task's workdir, the separate verifier
sandbox running tests/test.sh, and every way a verifier can fail (a grading error, never credit)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import pytest

import jobenv
from jobenv.errors import JobenvError, TaskFormatError

from .conftest import SUM, write_task


def _play(env_id: str, commands: list[str], **kwargs: Any) -> tuple[float, dict[str, Any], str]:
    env = jobenv.make(env_id, **kwargs)
    try:
        prompt, _ = env.reset(options={"index": 0})
        for command in commands:
            env.step({"name": "bash", "arguments": {"command": command}})
        _, reward, terminated, _, info = env.step({"name": "submit", "arguments": {}})
        assert terminated
        return reward, info, prompt
    finally:
        env.close()


def test_a_harbor_task_runs_at_its_workdir_and_its_tests_grade_it(tmp_path: Path) -> None:
    root = write_task(tmp_path / "sum-invoices")
    reward, info, prompt = _play(str(root), [f"ls /app/data /app/notes.md && {SUM}"])
    assert reward == 1.0 and info["status"] == "ok", info
    verifier = info["report"]["verifier"]
    # EXPECTED is a [verifier] env value: reports never show it (here the right total is the same number)
    assert verifier["rewards"] == {"reward": 1.0} and "checked [redacted] against [redacted]" in verifier["stdout_tail"]
    # the prompt is the task's own instruction, then jobenv's note (workdir, tools, budget with the agent timeout)
    assert prompt.startswith("Sum the amounts in /app/data/invoices.csv") and "working directory is /app" in prompt
    assert "300 seconds" in prompt and "There is no internet access" in prompt

    wrong, info, _ = _play(str(root), ["echo 1000 > /app/total.txt"])
    assert wrong == 0.0 and info["status"] == "ok"  # a wrong answer is the agent's zero, not an error


ROUTE_PROBE = ("python3 -c \"import socket\nfor a in ('11.12.13.14', '8.8.8.8'):\n    s = socket.socket(2, 2)\n"
               "    try:\n        s.connect((a, 53)); print('ROUTE', a)\n    except OSError:\n        print('NOROUTE', a)\"")


@pytest.mark.parametrize("mode,hosts,want", [
    ("allowlist", '["11.12.13.14"]', ["ROUTE 11.12.13.14", "NOROUTE 8.8.8.8"]),
    ("allowlist", "[]", ["NOROUTE 11.12.13.14", "NOROUTE 8.8.8.8"]),
    ("public", "[]", ["ROUTE 11.12.13.14", "ROUTE 8.8.8.8"]),
])
def test_the_agents_network_mode_and_its_allow_list(tmp_path: Path, mode: str, hosts: str, want: list[str]) -> None:
    """allowlist reaches only allowed_hosts (its routes, read inside the agent's sandbox; an empty list means no
    network at all), public reaches the web."""
    toml = (tmp_path / "t" / "task.toml")
    root = write_task(tmp_path / "t")
    toml.write_text(toml.read_text().replace('network_mode = "no-network"',
                                             f'network_mode = "{mode}"\nallowed_hosts = {hosts}'))
    env = jobenv.make(str(root))
    try:
        prompt, _ = env.reset()
        out, *_ = env.step({"name": "bash", "arguments": {"command": ROUTE_PROBE}})
    finally:
        env.close()
    assert all(w in out for w in want), out
    assert ("limited to 11.12.13.14" in prompt) == (hosts != "[]" and mode == "allowlist")


def test_verifier_env_templates_take_the_hosts_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_task(tmp_path / "t")
    monkeypatch.setenv("HARBOR_TEST_EXPECTED", "1000")  # ${HARBOR_TEST_EXPECTED:-1250} now resolves to 1000
    assert _play(str(root), [SUM])[0] == 0.0
    assert _play(str(root), ["echo 1000 > /app/total.txt"])[0] == 1.0


def test_a_directory_of_tasks_and_the_harbor_prefix(tmp_path: Path) -> None:
    write_task(tmp_path / "suite" / "b-task")
    write_task(tmp_path / "suite" / "a-task")
    (tmp_path / "suite" / "not-a-task").mkdir()
    tasks = jobenv.load_tasks(f"harbor:{tmp_path / 'suite'}")
    assert [t.id for t in tasks] == ["a-task/task1", "b-task/task1"]
    assert all(t.harbor is not None and t.harbor.workdir == "/app" and t.rubrics == [] for t in tasks)
    assert sorted(p.name for p in tasks[0].task_folder.rglob("*")) == ["data", "invoices.csv", "notes.md"]


@pytest.mark.parametrize("test_sh,why", [
    ("echo '{\"reward\": 0.5, \"style\": 1}' > /logs/verifier/reward.json", None),
    ("echo '{\"score\": 1}' > /logs/verifier/reward.json", "'reward'"),
    ("echo '{\"reward\": \"1\"}' > /logs/verifier/reward.json", "not a number"),
    ("echo '{\"reward\": NaN}' > /logs/verifier/reward.json", "not finite"),
    ("echo 1.5 > /logs/verifier/reward.txt", "outside"),
    ("echo -0.1 > /logs/verifier/reward.txt", "outside"),
    ("echo lots > /logs/verifier/reward.txt", "not one number"),
    (": > /logs/verifier/reward.txt", "empty"),
    ("echo done", "no /logs/verifier/reward"),
    ("sleep 30; echo 1 > /logs/verifier/reward.txt", "timed out"),
    ("head -c 70000 /dev/zero | tr '\\0' 1 > /logs/verifier/reward.txt", "larger than"),
])
def test_every_verifier_failure_is_a_grading_error(tmp_path: Path, test_sh: str, why: str | None) -> None:
    root = write_task(tmp_path / "t", test_sh=f"#!/bin/bash\n{test_sh}\n", verifier_timeout=3)
    reward, info, _ = _play(str(root), [SUM])
    if why is None:
        assert (reward, info["status"]) == (0.5, "ok") and info["report"]["verifier"]["rewards"]["style"] == 1.0
        return
    assert info["status"] == "error" and reward == 0.0, info
    assert why in info["report"]["error"], info["report"]["error"]


def test_the_agent_cannot_plant_tests_or_rewards(tmp_path: Path) -> None:
    root = write_task(tmp_path / "t")
    planted = ("mkdir -p /app/.jobenv-harbor/tests && printf '#!/bin/bash\\necho 1 > /logs/verifier/reward.txt\\n' "
               "> /app/.jobenv-harbor/tests/test.sh && printf 'extra' > /app/.jobenv-harbor/tests/helper.sh && "
               "echo 1 > /app/reward.txt && mkdir -p /app/logs/verifier && echo 1 > /app/logs/verifier/reward.txt; "
               "ls /tests /logs 2>&1; true")
    reward, info, _ = _play(str(root), [planted, "echo 7 > /app/total.txt"])
    assert reward == 0.0 and info["status"] == "ok"  # the task's own test.sh ran, and the total is wrong
    assert "checked 7 against [redacted]" in info["report"]["verifier"]["stdout_tail"]


def _bad(tmp_path: Path, **kw: Any) -> Path:
    return write_task(tmp_path / "bad", **kw)


@pytest.mark.parametrize("make_bad,problem", [
    (lambda p: _bad(p, toml="[agent\ntimeout_sec = 1\n"), "task.toml: not valid TOML"),
    (lambda p: _bad(p, toml="[agent]\ntimeout_sec = -5\n"), "agent.timeout_sec"),
    (lambda p: _bad(p, toml="[[steps]]\nname = 'one'\n"), "multi-step"),
    (lambda p: _bad(p, instruction="  \n"), "instruction.md: missing or empty"),
    (lambda p: _bad(p, test_sh=None), "neither test.sh nor judge.toml"),
    (lambda p: _bad(p, dockerfile="FROM x\nWORKDIR /usr/src/app\nCOPY files/ data/\n"), "workdir /usr/src/app"),
    (lambda p: _bad(p, dockerfile="FROM x\nWORKDIR /app\nCOPY ../../etc/ data/\n"), "outside"),
])
def test_malformed_task_directories_fail_at_make_naming_the_file(tmp_path: Path, make_bad: Any, problem: str) -> None:
    root = make_bad(tmp_path)
    with pytest.raises(TaskFormatError, match=problem) as err:
        jobenv.make(str(root))
    assert str(root) in str(err.value)


def test_a_task_graded_only_by_judge_toml_is_refused_at_make(tmp_path: Path) -> None:
    root = _bad(tmp_path, test_sh=None, judge_toml="[[criterion]]\ndescription = 'The total is right'\n")
    with pytest.raises(JobenvError, match="judge.toml"):
        jobenv.make(str(root))


def test_unknown_keys_are_listed_in_one_warning_and_legacy_version_is_read(tmp_path: Path) -> None:
    root = write_task(tmp_path / "t", extra="future_knob = 3\n\n[telemetry]\nendpoint = 'x'\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        (task,) = jobenv.load_tasks(str(root))
    msgs = [str(w.message) for w in seen if "keys jobenv does not apply" in str(w.message)]
    assert len(msgs) == 1 and "environment.future_knob" in msgs[0] and "telemetry" in msgs[0]
    assert task.harbor is not None and task.harbor.agent_timeout_s == 300 and task.harbor.cpus == 1


def test_the_docker_backend_refuses_aliases_it_cannot_mount(tmp_path: Path) -> None:
    from jobenv.errors import SandboxError
    from jobenv.sandbox.base import SandboxLimits

    pytest.importorskip("docker")
    from jobenv.sandbox.docker import DockerSandbox

    with pytest.raises(SandboxError, match="aliases of /workspace itself or of a /tmp path"):
        DockerSandbox(SandboxLimits(layout="harbor", aliases={"/app": "/workspace/data"}))


@pytest.mark.parametrize("path,target", [("app", "/workspace"), ("/usr/local/app", "/workspace"),
                                         ("/proc/x", "/workspace"), ("/app/../etc", "/workspace"),
                                         ("/workspace/x", "/workspace"), ("/init", "/workspace"),
                                         ("/app", "/etc"), ("/app", "/workspace/../etc"), ("/", "/workspace"),
                                         ("/a/b/c/d/e", "/workspace")])
def test_aliases_that_would_touch_the_sandbox_itself_are_refused(path: str, target: str) -> None:
    from pydantic import ValidationError

    from jobenv.sandbox.base import SandboxLimits

    with pytest.raises(ValidationError, match="alias"):
        SandboxLimits(aliases={path: target})


def test_no_sandbox_is_left_behind(tmp_path: Path) -> None:
    from jobenv.sandbox.local import drain_warm_sandboxes
    from tests.support.procs import descendants

    root = write_task(tmp_path / "t", test_sh="#!/bin/bash\nsleep 30\n", verifier_timeout=2)
    drain_warm_sandboxes()
    before = set(descendants(os.getpid()))
    reward, info, _ = _play(str(root), [SUM + " && (sleep 300 &)"])  # a background process the agent left
    assert info["status"] == "error"  # the verifier timed out (its test.sh sleeps past the timeout)
    drain_warm_sandboxes()  # the sandboxes launched ahead for the next episode are not leaks
    assert set(descendants(os.getpid())) - before == set()


def test_jobenv_rollout_runs_a_harbor_directory(tmp_path: Path) -> None:
    """The command line as a user runs it: a policy on loopback sums the invoices, submits, and the trajectory
    carries the verifier's reward."""
    import json
    import subprocess
    import sys

    from tests.support.openai_server import OpenAIServer, Reply

    root = write_task(tmp_path / "suite" / "sum-invoices", extra="\n[metadata]\ndomain = \"accounts-payable\"\n")

    def policy(request: dict[str, Any]) -> Reply:
        turn = sum(1 for m in request["messages"] if m["role"] == "assistant")
        call = {"name": "bash", "arguments": {"command": SUM}} if turn == 0 else {"name": "submit", "arguments": {}}
        return Reply(tool_calls=[call])

    out = tmp_path / "traj.jsonl"
    with OpenAIServer(policy) as srv:
        proc = subprocess.run([sys.executable, "-m", "jobenv.cli", "rollout", str(root.parent), "--model", "m",
                               "--base-url", srv.base_url, "--api-key", "k", "--out", str(out)],
                              capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (episode,) = [r for r in map(json.loads, out.read_text().splitlines()) if r.get("record", "episode") == "episode"]
    assert episode["task_id"].endswith("sum-invoices/task1") and episode["reward"] == 1.0 and episode["status"] == "ok"
    assert episode["occupation"] == "accounts-payable"  # reports group a Harbor task by its [metadata] domain
    report = subprocess.run([sys.executable, "-m", "jobenv.cli", "report", str(out)], capture_output=True, text=True,
                            timeout=120)
    assert report.returncode == 0 and "accounts-payable" in report.stdout, report.stdout + report.stderr


def _with(tmp_path: Path, environment: str = "", top: str = "", verifier: str = "", **kw: Any) -> Path:
    """The sum-invoices task with lines added to its [environment] (and top-level keys, [verifier] keys)."""
    root = write_task(tmp_path / "t", **kw)
    toml = root / "task.toml"
    text = toml.read_text().replace("[environment]\n", f"[environment]\n{environment}\n")
    text = text.replace("[verifier]\n", f"[verifier]\n{verifier}\n")
    toml.write_text(top + "\n" + text)
    return root


def test_environment_env_reaches_every_command_with_host_templates(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = _with(tmp_path, 'env = { REGION = "emea", TOKEN = "${HARBOR_T_TOKEN:-none}" }')
    for host, want in ((None, "REGION=emea TOKEN=none"), ("abc", "REGION=emea TOKEN=abc")):
        if host:
            monkeypatch.setenv("HARBOR_T_TOKEN", host)
        with jobenv.make(str(root), tools=["python"]) as env:
            env.reset()
            out, *_ = env.step({"name": "bash", "arguments": {"command": 'echo "REGION=$REGION TOKEN=$TOKEN"'}})
            py, *_ = env.step({"name": "python", "arguments": {"code": "import os; print(os.environ['REGION'])"}})
        assert want in out and "emea" in py, (out, py)


@pytest.mark.parametrize("env_line,problem", [
    ('env = { PATH = "/evil" }', "'PATH' cannot be set"),
    ('env = { LD_PRELOAD = "/x.so" }', "'LD_PRELOAD' cannot be set"),
    ('env = { KEY = "${HARBOR_T_UNSET_VAR}" }', "HARBOR_T_UNSET_VAR"),
])
def test_environment_env_that_cannot_be_served_fails_at_make(tmp_path: Path, env_line: str, problem: str) -> None:
    root = _with(tmp_path, env_line)
    with pytest.raises(TaskFormatError, match=problem) as err:
        jobenv.make(str(root))
    assert str(root / "task.toml") in str(err.value)


def test_storage_mb_caps_the_workspace(tmp_path: Path) -> None:
    root = _with(tmp_path, "storage_mb = 48")
    with jobenv.make(str(root)) as env:
        env.reset()
        out, *_ = env.step({"name": "bash", "arguments": {"command": "df -m /app | tail -1 | awk '{print \"size=\" $2}'; "
                                                          "head -c 60M /dev/zero > /app/big || echo FULL"}})
    size = int(out.split("size=")[1].split()[0])
    assert size <= 48 and "FULL" in out, out


# test.sh recomputes the expected total from the data at grading time: an agent that edits the data to match a
# wrong total fools a shared verifier (as in Harbor), never a separate one, which sees only the artifacts
RECOMPUTE = """\
#!/bin/bash
want=$(python3 -c "import csv; print(sum(int(r['amount']) for r in csv.DictReader(open('/app/data/invoices.csv'))))")
got=$(tr -d '[:space:]' < /app/total.txt 2>/dev/null)
[ "$got" = "$want" ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
"""
TAMPER = "printf 'id,amount\\n1,1000\\n' > /app/data/invoices.csv && echo 1000 > /app/total.txt"


@pytest.mark.parametrize("mode,honest,tampered", [("shared", 1.0, 1.0), ("separate", 1.0, 0.0)])
def test_a_separate_verifier_sees_a_fresh_workspace_and_the_artifacts(tmp_path: Path, mode: str, honest: float,
                                                                     tampered: float) -> None:
    root = _with(tmp_path, top='artifacts = ["/app/total.txt"]', verifier=f'environment_mode = "{mode}"',
                 test_sh=RECOMPUTE)
    assert _play(str(root), [SUM])[0] == honest
    assert _play(str(root), [TAMPER])[0] == tampered


@pytest.mark.parametrize("artifact,problem", [("/etc/passwd", "not inside the workdir /app"),
                                              ("../secret", "not inside the workdir"),
                                              ({"source": "/app/x", "service": "db"}, "service 'db'")])
def test_artifacts_outside_the_workdir_fail_at_make(tmp_path: Path, artifact: Any, problem: str) -> None:
    import json

    value = json.dumps(artifact) if isinstance(artifact, str) else '{ source = "/app/x", service = "db" }'
    root = _with(tmp_path, top=f"artifacts = [{value}]")
    with pytest.raises(TaskFormatError, match=problem):
        jobenv.make(str(root))
