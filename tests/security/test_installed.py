"""Nothing host-only is visible inside a sandbox, on the installs users really have.

A wheel built from this checkout is installed (a) into a fresh virtual environment and (b) with ``--target``
under ``/usr/local`` (the layout of a system-wide install, which the sandbox sees through its ``/usr`` bind); (c) is
the editable install the suite itself runs on. For each, a probe process started by *that* interpreter opens a
sandbox on a task whose rubric, card, meta, solution and ground truth sit beside its ``task_folder``, with
``$JOBENV_DATA`` placed inside the interpreter's prefix, and searches from inside like an agent would.

The fresh venv gets jobenv's dependencies through a ``.pth`` line to this suite's environment (no download):
jobenv's own files are installed by pip from the wheel exactly as users get them.
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from tests.sandbox.fixtures import ROOT, RUBRIC_SECRET

PROBE = r'''
import asyncio, json, os, sys
from pathlib import Path
import jobenv
from jobenv.errors import SandboxError
from jobenv.sandbox import make_sandbox

task_folder, backend, options = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
pkg = os.path.dirname(jobenv.__file__)
data = os.environ["JOBENV_DATA"]
FIND = ("find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o \\( -name solve.py -o -name RUBRICS.json "
        "-o -name task_card.md -o -name meta.json -o -name ground_truth -o -name solution "
        "-o -name files_required_to_search \\) -print 2>/dev/null; echo find-done")
PROBES = {
    "find": FIND,
    "import": "python3 -c 'import jobenv; print(\"IMPORTED\", jobenv.__file__)' 2>&1; "
              "python3 -c 'import importlib.metadata as m; print(\"META\", m.version(\"jobenv\"))' 2>&1; "
              "python3 -c 'import jobenv.synthetic' 2>&1 | tail -n 1; "
              "python3 -c 'import jobenv_verifiers' 2>&1 | tail -n 1; echo import-done",
    "pkg": f"ls -A {pkg}",
    "pkg_data": f"cat {pkg}/data/sample/*/*/RUBRICS.json 2>&1 | head -c 300",
    # files of jobenv under the import path, except the placeholders that make an import fail
    # (matched on the path below each import directory: a checkout cloned as .../jobenv/ holds the whole venv)
    "files": "for d in $(python3 -c 'import sys; print(\" \".join(sys.path))'); do "
             "find $d -maxdepth 2 -type f -size +0 -printf '%P\\n' 2>/dev/null | grep jobenv | "
             "while read -r f; do grep -L 'not available in a sandbox' \"$d/$f\"; done; done",
    "data": f"ls -AR {data} 2>&1 | head -n 20; grep -rs RUBRIC {data} | head -n 3; echo data-done",
    "task": f"cat {task_folder.parent}/RUBRICS.json {task_folder.parent}/solution/solve.py 2>&1; ls task_folder; echo task-done",
}

async def main():
    sb = make_sandbox(backend, **options)
    try:
        await sb.start(task_folder)
    except SandboxError as exc:
        print(json.dumps({"refused": str(exc)}))
        return
    try:
        out = {k: (await sb.run(c, timeout=600)).output for k, c in PROBES.items()}
    finally:
        await sb.close()
    print(json.dumps(out))

asyncio.run(main())
'''


def _site_packages(python: Path) -> Path:
    out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w",
                    str(dist), str(ROOT)], check=True, timeout=600)
    (whl,) = dist.glob("jobenv-*.whl")
    return whl


@pytest.fixture(scope="session")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with nothing installed; jobenv's dependencies reachable through a .pth line."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    (_site_packages(py) / "_jobenv_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return py


@pytest.fixture(scope="session")
def installs(wheel: Path, fresh_venv: Path, tmp_path_factory: pytest.TempPathFactory):
    """name -> (python, extra environment) for each install layout under test."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "--python", str(fresh_venv), "install", "--no-deps", str(wheel)], check=True, timeout=600)
    # the standard system-wide location, made by this test only where it does not exist yet (removed afterwards)
    usr_local = Path(f"/usr/local/lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages")
    made_usr_local = False
    layouts: dict[str, tuple[str, dict[str, str]]] = {
        "wheel-venv": (str(fresh_venv), {}),
        "editable": (sys.executable, {}),
    }
    try:
        usr_local.mkdir(parents=True)
        made_usr_local = True
        subprocess.run([*pip, "install", "--no-deps", "--target", str(usr_local), str(wheel)], check=True, timeout=600)
        # an interpreter whose prefix has no jobenv, importing it from under /usr/local
        empty = tmp_path_factory.mktemp("venv-empty") / "env"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(empty)], check=True, timeout=300)
        (_site_packages(empty / "bin" / "python") / "_jobenv_test_deps.pth").write_text(
            f"{usr_local}\n{sysconfig.get_paths()['purelib']}\n")
        layouts["wheel-usr-local"] = (str(empty / "bin" / "python"), {})
    except OSError:
        pass  # not root, or the directory exists already: the other layouts still run
    yield layouts
    if made_usr_local:
        shutil.rmtree(usr_local, ignore_errors=True)


def _task(root: Path) -> Path:
    d = root / "occupation" / "task1"
    (d / "task_folder").mkdir(parents=True)
    (d / "task_folder" / "TASK_INSTRUCTIONS.txt").write_text("do it\n")
    (d / "RUBRICS.json").write_text(json.dumps({"rubrics": [{"rubric": RUBRIC_SECRET, "weight": 1, "criterion": ["x"]}]}))
    (d / "task_card.md").write_text(RUBRIC_SECRET)
    (d / "meta.json").write_text("{}")
    for sub in ("solution", "ground_truth", "files_required_to_search"):
        (d / sub).mkdir()
        (d / sub / "solve.py").write_text(f"print('{RUBRIC_SECRET}')\n")
    return d / "task_folder"


def _probe(python: str, task_folder: Path, backend: str, options: dict[str, Any], data_dir: Path, *,
           toolchain: bool = False) -> dict[str, str]:
    """Without the toolchain (the default here) the sandbox mounts the install's own prefix: what must be hidden
    is in view, the stricter case."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["JOBENV_DATA"] = str(data_dir)
    if not toolchain:
        env["JOBENV_TOOLCHAIN"] = "none"
    proc = subprocess.run([python, "-c", PROBE, str(task_folder), backend, json.dumps(options)], capture_output=True,
                          text=True, timeout=1200, env=env, cwd="/")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _python_prefix(python: str) -> Path:
    out = subprocess.run([python, "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


@pytest.mark.parametrize("layout", ["wheel-venv", "wheel-usr-local", "editable"])
def test_an_agent_finds_nothing_host_only(installs, layout: str, backend: str, sandbox_options: dict,
                                          tmp_path: Path) -> None:
    if layout not in installs:
        pytest.skip(f"{layout}: needs root and no existing /usr/local/lib/python3.X/site-packages")
    python, _ = installs[layout]
    # the data directory inside the interpreter's prefix, i.e. inside what the sandbox mounts
    data_dir = _python_prefix(python) / "share" / f"jobenv-data-{secrets.token_hex(3)}"
    (data_dir / "jobbench" / "occ" / "task9").mkdir(parents=True)
    (data_dir / "jobbench" / "occ" / "task9" / "RUBRICS.json").write_text(f'{{"rubric": "{RUBRIC_SECRET}"}}')
    try:
        out = _probe(python, _task(tmp_path), backend, sandbox_options, data_dir)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    assert "refused" not in out, out
    found = [x for x in out["find"].split("\n") if x and x != "find-done" and "/site-packages/mypy/" not in x]
    assert found == [], found[:20]
    import jobenv

    # only names remain (empty mounts): no module, no metadata
    assert "IMPORTED" not in out["import"] and f"META {jobenv.__version__}" not in out["import"], out["import"]
    assert "No module named 'jobenv'" in out["import"] and "No module named 'jobenv_verifiers'" in out["import"]
    assert RUBRIC_SECRET not in json.dumps(out)
    # not there at all, or only the placeholder that makes the import fail
    assert out["pkg"].split() == ["__init__.py"] or "No such file" in out["pkg"], out["pkg"]
    assert "No such file" in out["pkg_data"]
    # allowed: this test's .pth, a console-script launcher (5 lines, no data)
    allowed = ("/_jobenv_test_deps.pth", "/bin/jobenv")
    leftovers = [f for f in out["files"].split() if not f.endswith(allowed)]
    assert leftovers == [], leftovers
    assert "task9" not in out["data"] and "RUBRIC" not in out["data"].replace("grep", ""), out["data"]
    assert "TASK_INSTRUCTIONS.txt" in out["task"]  # the agent does get its own task folder


@pytest.mark.parametrize("prefix", ["install", "toolchain"])
def test_guard_refuses_a_task_inside_a_mounted_prefix(installs, prefix: str) -> None:
    """A task whose rubric would be visible through the sandbox's mounts is refused, naming the path: inside the
    install's prefix (mounted without a toolchain) or inside the toolchain (mounted with one)."""
    from jobenv.sandbox.toolchain import active_toolchain

    python, _ = installs["wheel-venv"]
    tc = active_toolchain()
    assert tc is not None, "setup.sh installs the toolchain"
    root = _python_prefix(python) if prefix == "install" else Path(tc.root)
    base = root / "share" / f"jobenv-tasks-{secrets.token_hex(3)}"
    try:
        tf = _task(base)
        out = _probe(python, tf, "local", {}, base / "data", toolchain=prefix == "toolchain")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert "refused" in out, out
    assert "host-only path" in out["refused"] and str(base) in out["refused"]


@pytest.mark.docker
def test_docker_refuses_an_image_that_ships_a_rubric(docker_image: str) -> None:
    from jobenv.errors import SandboxError
    from jobenv.sandbox import make_sandbox
    from jobenv.sandbox.docker import docker_client

    client = docker_client()
    tag = f"jobenv-test:leaky-{secrets.token_hex(3)}"
    c = client.containers.run(docker_image, ["/bin/sh", "-c", "mkdir -p /opt/tasks/t1 && echo '{}' > /opt/tasks/t1/RUBRICS.json"],
                              detach=True)
    try:
        c.wait(timeout=60)
        c.commit(repository=tag.split(":")[0], tag=tag.split(":")[1])
    finally:
        c.remove(force=True)
    try:
        sb = make_sandbox("docker", image=tag)
        with pytest.raises(SandboxError, match="/opt/tasks/t1/RUBRICS.json"):
            sb.start_sync(None)
        sb.close_sync()
    finally:
        client.images.remove(tag, force=True)
        client.close()


@pytest.mark.slow
def test_the_security_suite_passes_on_the_wheel_install(installs, tmp_path: Path) -> None:
    """The isolation and red-team tests, on both backends, run by the interpreter that has the wheel installed.

    The tests are copied away from the checkout, so that ``import jobenv`` can only find the installed wheel.
    """
    import os

    python, _ = installs["wheel-venv"]
    shutil.copytree(ROOT / "tests", tmp_path / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    where = subprocess.run([python, "-c", "import jobenv; print(jobenv.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert "/site-packages/jobenv/" in where and str(ROOT) not in where, where
    proc = subprocess.run([python, "-m", "pytest", "tests/security/test_isolation.py", "tests/security/test_redteam.py",
                           "-q", "-p", "no:cacheprovider"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=2400)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and " failed" not in proc.stdout


def test_another_install_under_usr_is_hidden_from_this_interpreters_sandboxes(installs) -> None:
    """A system-wide jobenv (here the /usr/local one) is not this interpreter's, yet its sandboxes hide it too,
    however late it appeared."""
    from jobenv.sandbox import make_sandbox

    if "wheel-usr-local" not in installs:
        pytest.skip("needs the /usr/local install")
    site = f"/usr/local/lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
    sb = make_sandbox("local")
    sb.start_sync(None)
    try:
        r = sb.run_sync(f"ls -A {site}/jobenv; ls -A {site}/jobenv/data 2>&1; find {site} -name RUBRICS.json | wc -l")
    finally:
        sb.close_sync()
    lines = r.output.split("\n")
    assert lines[0] == "__init__.py" and "No such file" in lines[1] and lines[2] == "0", r.output
