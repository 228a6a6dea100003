"""The Harbor verifier against an agent that plants files for it, tried as a policy would (issue 47).

Every probe is a whole episode on a real sandbox (bubblewrap and Docker): the agent sums the invoices wrongly or
rightly, plants everything a policy would plant in its workdir (a ``unittest`` package, ``json.py``, a git
``core.fsmonitor`` command, ``conftest.py``/``pytest.py``, ``sitecustomize``, PATH shims, a ``reward.json``), each
plant also trying to write ``/logs/verifier/reward.json``, and submits. The task's ``tests/test.sh`` reaches the
workdir the way real ones do (``cd /app`` and then ``python3 -m unittest``, ``python3 -c``, ``git status``,
``python3 -m pytest``). A wrong answer must score 0 and a right one 1.0, whatever was planted.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import jobenv
from tests.harbor.conftest import write_task
from tests.security.test_host_kernel import wheel_venv  # noqa: F401 - the wheel install a normal user can read

PROBE_IMAGE = "jobenv-test:verifier-probe"  # the Docker tests' image with git and pytest added
DOCKERFILE = "FROM {image}\nWORKDIR /app\nCOPY files/ /app/data/\nCOPY notes.md ./\n"
REWARD = '{"reward": 1}'
PY_PAYLOAD = ("import sys\ntry:\n    open('/logs/verifier/reward.json', 'w').write('" + REWARD + "')\n"
              "    print('PLANT-RAN', file=sys.stderr)\nexcept OSError:\n    pass\n")
SH_PAYLOAD = f"#!/bin/sh\necho '{REWARD}' > /logs/verifier/reward.json; echo PLANT-RAN >&2; exit 0\n"
PASS = "echo 1 > /logs/verifier/reward.txt"
FAIL = "echo 0 > /logs/verifier/reward.txt"

PLANTS = {
    # python3 -m unittest / -m pytest with the workdir as the current directory
    "unittest/__init__.py": PY_PAYLOAD + "raise SystemExit(0)\n",
    "unittest/__main__.py": PY_PAYLOAD + "raise SystemExit(0)\n",
    "pytest.py": PY_PAYLOAD + "raise SystemExit(0)\n",
    # a module a test imports, found first on the current directory
    "json.py": PY_PAYLOAD + "def dumps(*a, **k):\n    return 'true'\n",
    "csv.py": PY_PAYLOAD,
    # pytest's own hooks: every test reported passed
    "conftest.py": PY_PAYLOAD + ("import pytest\n\n@pytest.hookimpl(hookwrapper=True)\n"
                                 "def pytest_runtest_makereport(item, call):\n    outcome = yield\n"
                                 "    outcome.get_result().outcome = 'passed'\n"),
    "pytest.ini": "[pytest]\naddopts = -p conftest\n",
    # the interpreter's start-up hooks and a user site under a HOME that would be the workdir
    "sitecustomize.py": PY_PAYLOAD,
    "usercustomize.py": PY_PAYLOAD,
    ".local/lib/python3.11/site-packages/zz.pth": "import os; exec(open('/app/csv.py').read())\n",
    # PATH shims and git's user configuration, should the workdir be on PATH or be HOME
    "python3": SH_PAYLOAD, "tr": SH_PAYLOAD, "git": SH_PAYLOAD, "cat": SH_PAYLOAD,
    "bin/python3": SH_PAYLOAD, "bin/git": SH_PAYLOAD,
    ".gitconfig": "[core]\n\tfsmonitor = /app/git\n\tpager = /app/git\n",
    # a reward file of its own, wherever a verifier might look
    "logs/verifier/reward.json": REWARD, "reward.json": REWARD, "reward.txt": "1\n",
}
GIT_PLANT = ("cd /app && chmod +x python3 tr git cat bin/python3 bin/git && git init -q . && "
             "git -c user.name=a -c user.email=a@b.c commit -q --allow-empty -m init && "
             f"git config core.fsmonitor \"echo '{REWARD}' > /logs/verifier/reward.json; echo PLANT-RAN >&2; false\" && "
             "git config core.hooksPath /app/bin && git config core.pager /app/git && "
             f"git config alias.status '!echo {REWARD} > /logs/verifier/reward.json' && echo planted")

TEST_TOTAL_UNITTEST = ("import unittest\n\nclass Total(unittest.TestCase):\n    def test_total(self):\n"
                       "        self.assertEqual(open('/app/total.txt').read().strip(), '1250')\n")
TEST_TOTAL_PYTEST = "def test_total(answer):\n    assert answer == '1250'\n"
# the task's own conftest.py in /tests still loads (its fixture is what the test reads)
CONFTEST = ("import pytest\n\n@pytest.fixture\ndef answer():\n"
            "    return open('/app/total.txt').read().strip()\n")
# test.sh of each probe: each reaches the workdir as real Harbor tests do; extra files go to tests/
PROBES: dict[str, tuple[str, dict[str, str]]] = {
    "unittest": (f"cd /app\npython3 -m unittest discover -s /tests -p 'test_*.py' && {PASS} || {FAIL}\n",
                 {"test_total.py": TEST_TOTAL_UNITTEST}),
    "python-c": ("cd /app\nok=$(python3 -c \"import csv, json; "
                 "print(json.dumps(open('/app/total.txt').read().strip() == '1250'))\")\n"
                 f"[ \"$ok\" = true ] && {PASS} || {FAIL}\n", {}),
    "git": ("got=$(tr -d '[:space:]' < /app/total.txt)\n"
            f"[ \"$got\" = 1250 ] && {PASS} || {FAIL}\n"
            "cd /app && git status --short > \"$TMPDIR/status.txt\" 2>&1; git diff HEAD >> \"$TMPDIR/status.txt\" 2>&1\n"
            "git log -1 --oneline >> \"$TMPDIR/status.txt\" 2>&1; cat \"$TMPDIR/status.txt\"; true\n", {}),
    "pytest": (f"cd /app\npython3 -m pytest -q /tests/test_total.py && {PASS} || {FAIL}\n",
               {"test_total.py": TEST_TOTAL_PYTEST, "conftest.py": CONFTEST}),
    "path": (f"cd /app\n[ \"$(cat total.txt | tr -d '[:space:]')\" = 1250 ] && {PASS} || {FAIL}\n"
             "python3 -c 'print(1)' > /dev/null; git --version > /dev/null; true\n", {}),
}


@pytest.fixture(scope="session")
def probe_image(docker_image: str) -> str:
    """The Docker tests' image with git and pytest from Debian's archive (built once; the engine caches it)."""
    from jobenv.sandbox.docker import docker_client

    client = docker_client()
    try:
        try:
            client.images.get(PROBE_IMAGE)
        except Exception:  # noqa: BLE001 - not built yet
            import io

            recipe = (f"FROM {docker_image}\nRUN apt-get update -qq && apt-get install -y -qq "
                      "--no-install-recommends git python3-pytest >/dev/null && rm -rf /var/lib/apt/lists/*\n")
            client.images.build(fileobj=io.BytesIO(recipe.encode()), tag=PROBE_IMAGE, rm=True, timeout=900)
    finally:
        client.close()
    return PROBE_IMAGE


@pytest.fixture
def harbor_backend(backend: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """make() keywords and the Dockerfile's base image for a backend (Docker: the sandbox tests' image)."""
    if backend == "docker":
        return {"sandbox": "docker", "image": request.getfixturevalue("docker_image")}
    return {"sandbox": "local", "image": "python:3.12-slim"}


@pytest.fixture
def probe_backend(backend: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """As :func:`harbor_backend`, with git and pytest inside: on Docker the probe image; locally the sandbox's
    python3 is this interpreter's (it has pytest; the toolchain's has none)."""
    if backend == "docker":
        return {"sandbox": "docker", "image": request.getfixturevalue("probe_image")}
    monkeypatch.setenv("JOBENV_TOOLCHAIN", "none")
    return {"sandbox": "local", "image": "python:3.12-slim"}


def _task(root: Path, test_sh: str, tests: dict[str, str], image: str, extra: str = "") -> Path:
    # no network for the tests (Harbor's default is the environment's, public): a normal user has no web stack
    task = write_task(root, test_sh="#!/bin/bash\n" + test_sh, dockerfile=DOCKERFILE.format(image=image),
                      extra='network_mode = "no-network"\n' + extra)
    for name, text in tests.items():
        (task / "tests" / name).parent.mkdir(parents=True, exist_ok=True)
        (task / "tests" / name).write_text(text)
    return task


def _play(root: Path, sandbox: str, total: str, plant: bool = True) -> tuple[float, dict[str, Any], list[str]]:
    """One episode: the agent writes ``total``, plants everything (the write tool, then git and chmod in bash)
    and submits. Returns the reward, the final info and the observations."""
    env = jobenv.make(str(root), sandbox=sandbox)
    seen = []
    try:
        env.reset(options={"index": 0})
        steps = [{"name": "write", "arguments": {"file_path": "total.txt", "content": total + "\n"}}]
        if plant:
            steps += [{"name": "write", "arguments": {"file_path": p, "content": c}} for p, c in PLANTS.items()]
            steps.append({"name": "bash", "arguments": {"command": GIT_PLANT}})
        for step in steps:
            obs, _, term, trunc, _ = env.step(step)
            seen.append(obs)
            assert not (term or trunc), obs
        _, reward, term, _, info = env.step({"name": "submit", "arguments": {}})
        assert term
        return float(reward), info, seen
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize("probe", sorted(PROBES))
def test_planted_files_never_steer_the_tests(tmp_path: Path, probe_backend: dict[str, Any], probe: str) -> None:
    harbor_backend = probe_backend
    test_sh, tests = PROBES[probe]
    root = _task(tmp_path / "t", test_sh, tests, harbor_backend["image"])
    wrong, info, seen = _play(root, harbor_backend["sandbox"], "1000")
    assert "planted" in seen[-1], seen[-1]  # the plants are really there (git and chmod worked in the agent's box)
    verifier = info["report"].get("verifier", {})
    assert (wrong, info["status"]) == (0.0, "ok"), info["report"]
    assert "PLANT-RAN" not in verifier.get("stdout_tail", ""), verifier
    assert "rewards" in verifier and verifier["rewards"] == {"reward": 0.0}, verifier  # test.sh's own reward.txt
    right, info, _ = _play(root, harbor_backend["sandbox"], "1250")
    assert (right, info["status"]) == (1.0, "ok"), info["report"]
    assert "PLANT-RAN" not in info["report"]["verifier"].get("stdout_tail", "")


# the tests see the workdir read-only, as a uid that is not its owner, from /tests, with scratch of their own
VIEW = """\
echo "cwd=$(pwd) home=$HOME tmpdir=$TMPDIR"
cd /app
touch /app/new.txt 2>/dev/null && echo WROTE-NEW
echo 1250 > /app/total.txt 2>/dev/null && echo WROTE-TOTAL
chmod 666 /app/total.txt 2>/dev/null && echo CHMOD
rm -f /app/total.txt 2>/dev/null; [ -f /app/total.txt ] || echo REMOVED
python3 -c "import os, sys; print('uid-differs', os.stat('/app/total.txt').st_uid != os.getuid(), 'safe_path=%d' % sys.flags.safe_path)"
echo scratch > "$TMPDIR/s" && echo SCRATCH-OK
git -C /app status > /dev/null 2>&1 || echo GIT-REFUSED
git -c safe.directory=/app -C /app log -1 --format=%s 2>&1
echo '{"reward": 0.25}' > /logs/verifier/reward.json
"""


@pytest.mark.slow
def test_the_tests_see_a_read_only_workdir_from_tests(tmp_path: Path, probe_backend: dict[str, Any]) -> None:
    harbor_backend = probe_backend
    root = _task(tmp_path / "t", VIEW, {}, harbor_backend["image"])
    reward, info, _ = _play(root, harbor_backend["sandbox"], "1000")
    assert (reward, info["status"]) == (0.25, "ok"), info["report"]
    out = info["report"]["verifier"]["stdout_tail"]
    assert "cwd=/tests home=/tmp/jobenv-verifier/home tmpdir=/tmp/jobenv-verifier/tmp" in out, out
    for never in ("WROTE-NEW", "WROTE-TOTAL", "CHMOD", "REMOVED", "PLANT-RAN"):
        assert never not in out, out
    assert "SCRATCH-OK" in out and "GIT-REFUSED" in out and "safe_path=1" in out, out
    assert "init" in out  # a test that trusts the repository by name reads it, and runs none of its commands
    if os.geteuid() == 0 or harbor_backend["sandbox"] == "docker":  # a normal user's sandbox has one uid only
        assert "uid-differs True" in out, out


def test_the_tests_arrive_as_one_archive_all_488_of_them(tmp_path: Path, harbor_backend: dict[str, Any]) -> None:
    """Harbor v2 issue 48: a task with 488 test files grades, every file in place with its bytes."""
    files = {f"cases/group{i % 8}/case_{i:03d}.py": f"# case {i}\nVALUE = {i * 7}\n" for i in range(487)}
    digest = hashlib.sha256("".join(f"{p}\n{files[p]}" for p in sorted(files)).encode()).hexdigest()
    check = ("cd /tests && got=$(find cases -type f | LC_ALL=C sort | while read -r f; do printf '%s\\n' \"$f\"; "
             "cat \"$f\"; done | sha256sum | cut -d' ' -f1)\n"
             "n=$(find /tests/ -type f | wc -l); echo \"files=$n digest=$got\"\n"
             f"[ \"$got\" = {digest} ] && [ \"$n\" = 488 ] && {PASS} || {FAIL}\n")
    root = _task(tmp_path / "t", check, files, harbor_backend["image"])
    reward, info, _ = _play(root, harbor_backend["sandbox"], "1250", plant=False)
    assert (reward, info["status"]) == (1.0, "ok"), (digest, info["report"].get("verifier"))


SECRET = "sk-verifier-canary-5f1e2d"
LEAK = """\
echo "token=$API_TOKEN"
echo "{\\"reward\\": 1, \\"$API_TOKEN\\": 0.5}" > /logs/verifier/reward.json
"""


def test_verifier_env_values_are_redacted_and_never_reach_the_agent(tmp_path: Path, harbor_backend: dict[str, Any],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARBOR_PROBE_TOKEN", SECRET)
    root = _task(tmp_path / "t", LEAK, {}, harbor_backend["image"])
    toml = root / "task.toml"
    toml.write_text(toml.read_text().replace('env = { EXPECTED', 'env = { API_TOKEN = "${HARBOR_PROBE_TOKEN}", EXPECTED'))
    env = jobenv.make(str(root), sandbox=harbor_backend["sandbox"])
    try:
        env.reset(options={"index": 0})
        obs, *_ = env.step({"name": "bash", "arguments": {"command": "env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'"}})
        last, reward, _, _, info = env.step({"name": "submit", "arguments": {}})
    finally:
        env.close()
    assert SECRET not in obs and "API_TOKEN" not in obs  # the agent's sandbox never had it
    assert (reward, info["status"]) == (1.0, "ok"), info["report"]
    text = json.dumps(info, default=str)
    assert SECRET not in text and SECRET not in str(last), text  # not in the output's tail, a reward's name
    verifier = info["report"]["verifier"]
    assert "token=[redacted]" in verifier["stdout_tail"] and "[redacted]" in verifier["rewards"], verifier


# what remains, as the README says: a test that runs the agent's own program trusts it
TRUSTING = f"""\
python3 /app/solve.py
got=$(tr -d '[:space:]' < /app/total.txt)
[ "$got" = 1250 ] && {PASS} || {FAIL}
"""
SOLVE = """\
import os
for path, text in (("/app/total.txt", "1250"), ("/tests/../app/total.txt", "1250")):
    try:
        open(path, "w").write(text)
        print("REWROTE", path)
    except OSError as exc:
        print("refused", path, exc.strerror)
print("uid", os.getuid(), "owner", os.stat("/app/total.txt").st_uid)
if os.environ.get("WRITE_REWARD"):
    open("/logs/verifier/reward.json", "w").write('{"reward": 1}')
"""


@pytest.mark.parametrize("writes_reward", [False, True])
def test_a_program_the_tests_run_cannot_change_the_workdir_but_is_trusted(
        tmp_path: Path, harbor_backend: dict[str, Any], writes_reward: bool) -> None:
    root = _task(tmp_path / "t", TRUSTING, {}, harbor_backend["image"])
    if writes_reward:
        toml = root / "task.toml"
        toml.write_text(toml.read_text().replace("env = { EXPECTED", 'env = { WRITE_REWARD = "yes", EXPECTED'))
    env = jobenv.make(str(root), sandbox=harbor_backend["sandbox"])
    try:
        env.reset(options={"index": 0})
        env.step({"name": "write", "arguments": {"file_path": "total.txt", "content": "1000\n"}})
        env.step({"name": "write", "arguments": {"file_path": "solve.py", "content": SOLVE}})
        _, reward, _, _, info = env.step({"name": "submit", "arguments": {}})
    finally:
        env.close()
    out = info["report"]["verifier"]["stdout_tail"]
    assert "REWROTE" not in out and out.count("refused") == 2, out  # the answer it is graded on stays the agent's
    # the documented remainder: it runs as the tests' uid, so a reward file it writes is the tests' reward
    assert reward == (1.0 if writes_reward else 0.0) and info["status"] == "ok", out
    assert reward == (1.0 if writes_reward else 0.0) and info["status"] == "ok", info["report"]


NOBODY_PROBE = r'''
import asyncio, json, sys
from pathlib import Path
import jobenv
from jobenv.harbor.verifier import HarborVerifier

task_dir, outputs = Path(sys.argv[1]), json.loads(sys.argv[2])
(task,) = jobenv.load_tasks(str(task_dir))
verifier = HarborVerifier("local", unsafe_unbounded_memory=True)
print(json.dumps({name: asyncio.run(verifier.grade(task, Path(folder))).model_dump(mode="json")
                  for name, folder in outputs.items()}))
'''


@pytest.mark.slow
@pytest.mark.parametrize("as_nobody", [False, True], ids=["root", "normal-user"])
def test_on_a_wheel_install(wheel_venv: Any, as_nobody: bool) -> None:  # noqa: F811 - the fixture
    """The local verifier run from the installed wheel by root (the tests' uid owns no workdir file) and by a
    normal user (one uid inside: the read-only mount is what holds): every probe's wrong answer with every plant
    scores 0, its right answer 1."""
    if not as_nobody and os.geteuid() != 0:
        pytest.skip("the suite runs as a normal user: the other case covers it")
    python, _, _, home = wheel_venv
    base = Path(home) / f"verifier-{os.getpid()}-{int(as_nobody)}"
    cases: dict[str, str] = {}
    tasks = {}
    for probe, (test_sh, tests) in PROBES.items():
        if probe == "pytest":  # the wheel's interpreter has no pytest of its own; the others need nothing
            continue
        tasks[probe] = _task(base / probe, test_sh, tests, "python:3.12-slim")
        for total in ("1000", "1250"):
            folder = base / f"out-{probe}-{total}"
            for rel, text in PLANTS.items():
                (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                (folder / rel).write_text(text)
            (folder / "total.txt").write_text(total + "\n")
            subprocess.run(["git", "init", "-q", str(folder)], check=True)
            subprocess.run(["git", "-C", str(folder), "config", "core.fsmonitor",
                            f"echo '{REWARD}' > /logs/verifier/reward.json; false"], check=True)
            cases[f"{probe}:{total}"] = str(folder)
    (base / "home").mkdir()
    subprocess.run(["chmod", "-R", "a+rwX", str(base)], check=True)
    if as_nobody and os.geteuid() == 0:  # the exported folders belong to the grading process, as an export does
        subprocess.run(["chown", "-R", "65534:65534", *cases.values()], check=True)
    prefix = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"] if as_nobody and os.geteuid() == 0 else []
    results = {}
    for probe, task in tasks.items():
        mine = {k: v for k, v in cases.items() if k.startswith(probe + ":")}
        proc = subprocess.run([*prefix, str(python), "-c", NOBODY_PROBE, str(task), json.dumps(mine)],
                              capture_output=True, text=True, timeout=600, cwd=home,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(base / "home")})
        assert proc.returncode == 0, proc.stderr[-3000:]
        results.update(json.loads(proc.stdout.strip().splitlines()[-1]))
    for key, report in results.items():
        want = 1.0 if key.endswith(":1250") else 0.0
        assert (report["status"], report["normalized_score"]) == ("ok", want), (key, report)
        assert "PLANT-RAN" not in report["verifier"].get("stdout_tail", ""), (key, report)

