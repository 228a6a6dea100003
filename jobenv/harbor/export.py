"""jobenv tasks written as Harbor task directories, so every trainer with a Harbor loader can run them.

One directory per task, named ``<split>__<occupation>__taskN``:

* ``instruction.md``: jobenv's prompt, the official runners' wrapper around the task's instructions (task folder
  ``/workspace/task_folder``, deliverables in ``/workspace/output``), with the budget of the given rules;
* ``task.toml`` (schema 1.4): the task's name and metadata, the agent's timeout and the split's official network
  (``public`` for JobBench, ``no-network`` elsewhere), the verifier's timeout and judge variables, the environment's
  workdir and limits, and ``/workspace/output`` as the artifact;
* ``environment/``: a Dockerfile ``FROM`` jobenv's knowledge-worker image (what ``jobenv build-image`` builds,
  offline) that copies ``task_folder/`` to ``/workspace/task_folder`` and makes ``/workspace/output``;
* ``tests/``: ``RUBRICS.json`` (with jobenv's checks), the instructions and ``meta.json`` the checks read, a jobenv
  wheel (no package index has jobenv), and a ``test.sh`` (its second line marks it as jobenv's) that installs that
  wheel into a venv over the image's Python packages (its dependencies from the index, which Harbor's verifier
  reaches) unless the image already has this jobenv, grades ``/workspace/output`` with ``jobenv judge`` (judge
  kind and endpoint from the verifier's ``JUDGE_KIND``, ``JUDGE_BASE_URL``, ``JUDGE_API_KEY``, ``JUDGE_MODEL``,
  which ``[verifier] env`` takes from the host's variables of the same names) and writes ``reward.json``; a
  failed install or a grading error writes no reward, so Harbor records a verifier error, not a score;
* ``solution/`` (when the task has a reference solution): its ``solve.py`` and a ``solve.sh`` running it, which
  Harbor's oracle agent uploads to ``/solution`` and runs in the task's environment, writing the reference
  deliverables into ``/workspace/output``.

jobenv itself recognises its own export (that line) and grades it natively, with the same
judge, so a round trip gives the same reward for the same deliverables.

Failure behaviour: JobenvError subclasses from loading the tasks; OSError naming the path when the output cannot be
written. An existing task directory in ``out`` is replaced whole.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ..episode.rules import EpisodeRules
    from ..tasks import Task

__all__ = ["export_task", "export_all", "EXPORT_MARKER", "is_jobenv_export"]

EXPORT_MARKER = "# jobenv-export"
_DEFAULT_TIMEOUT_S = 3600.0

_TEST_SH = """\
#!/bin/bash
{marker} {version}: grades /workspace/output against /tests/RUBRICS.json with jobenv's judge
set -u
mkdir -p /logs/verifier
JOBENV=jobenv
if ! jobenv --version 2>/dev/null | grep -qx "jobenv {version}"; then
  # no index has jobenv: install the wheel bundled beside this script; its dependencies come from the index
  # (the image's own Python packages are reused, so only what it lacks is downloaded)
  venv=/tmp/jobenv-verifier
  {{ python3 -m venv --system-site-packages "$venv" \\
    && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check /tests/{wheel}; }} \\
    >/logs/verifier/install.txt 2>&1 || {{
    echo "could not install jobenv {version} from /tests/{wheel} (see /logs/verifier/install.txt):"
    tail -n 5 /logs/verifier/install.txt; exit 1; }}
  JOBENV="$venv/bin/jobenv"
fi
export JOBENV_JUDGE_BASE_URL="${{JUDGE_BASE_URL:-}}" JOBENV_JUDGE_API_KEY="${{JUDGE_API_KEY:-}}"
export JOBENV_JUDGE_MODEL="${{JUDGE_MODEL:-}}"
mkdir -p /workspace/output
"$JOBENV" judge --rubrics /tests/RUBRICS.json --output-dir /workspace/output --judge "${{JUDGE_KIND:-auto}}" \\
  --report /logs/verifier/report.json || exit 1
python3 - <<'PY'
import json
report = json.load(open("/logs/verifier/report.json"))
if report.get("status") != "ok":
    raise SystemExit("grading failed: " + str(report.get("error")))
json.dump({{"reward": report["normalized_score"], "pass_rate": report["pass_rate"],
           "strict_pass": float(report["strict_pass"])}}, open("/logs/verifier/reward.json", "w"))
PY
"""

# Harbor's oracle uploads solution/ to /solution and runs solve.sh in the task's environment
_SOLVE_SH = """\
#!/bin/bash
# the reference solution of jobenv task {uid}: writes its deliverables into /workspace/output
set -eu
mkdir -p /workspace/output
cd /workspace
python3 /solution/solve.py /workspace/task_folder /workspace/output
"""

_DOCKERFILE = """\
# jobenv's knowledge-worker image: `jobenv build-image` builds it (from Debian's mirror when no registry answers)
FROM {image}
COPY task_folder/ /workspace/task_folder/
RUN mkdir -p /workspace/output
WORKDIR /workspace
"""


def is_jobenv_export(tests_dir: Path) -> bool:
    """Whether ``tests_dir`` is jobenv's own export (the second line of its test.sh is :data:`EXPORT_MARKER`)."""
    try:
        with open(tests_dir / "test.sh", encoding="utf-8", errors="replace") as fh:
            fh.readline()
            return fh.readline().startswith(EXPORT_MARKER) and (tests_dir / "RUBRICS.json").is_file()
    except OSError:
        return False


def _toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _task_toml(task: Task, rules: EpisodeRules, network: Literal["off", "web"], version: str) -> str:
    meta = {"jobenv_uid": task.uid, "occupation": task.occupation, "split": task.split,
            "jobenv_version": version, **({"revision": task.revision} if task.revision else {})}
    judge_env = ", ".join(f'{k} = "${{{k}:-{default}}}"' for k, default in
                          (("JUDGE_KIND", "auto"), ("JUDGE_BASE_URL", ""), ("JUDGE_API_KEY", ""), ("JUDGE_MODEL", "")))
    lines = [
        'schema_version = "1.4"', 'artifacts = ["/workspace/output"]', "",
        "[task]", f"name = {_toml_str('jobenv/' + _dir_name(task))}",  # Harbor's names are org/name
        f"description = {_toml_str(f'{task.occupation} task {task.number} of jobenv split {task.split}')}",
        f"keywords = {json.dumps(['jobenv', task.occupation])}", "",
        "[metadata]", *(f"{k} = {_toml_str(str(v))}" for k, v in meta.items()), "",
        "[agent]", f"timeout_sec = {float(rules.time_limit_s or _DEFAULT_TIMEOUT_S)}",
        f'network_mode = "{"public" if network == "web" else "no-network"}"', "",
        "[verifier]", "timeout_sec = 900.0", 'network_mode = "public"', f"env = {{ {judge_env} }}", "",
        "[environment]", 'workdir = "/workspace"', "cpus = 2", "memory_mb = 4096", "",
    ]
    return "\n".join(lines)


def _dir_name(task: Task) -> str:
    return f"{task.split}__{task.occupation}__task{task.number}"


def _solution(task: Task, dest: Path) -> None:
    """``solution/``: the task's reference solution (its ``solve.py`` and what it reads) and a ``solve.sh`` that
    runs it in the task's environment; nothing for a task without one."""
    if task.solution is None or not (Path(task.solution) / "solve.py").is_file():
        return
    shutil.copytree(task.solution, dest / "solution", symlinks=False,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "solve.sh"))
    (dest / "solution" / "solve.sh").write_text(_SOLVE_SH.format(uid=task.uid), encoding="utf-8")
    (dest / "solution" / "solve.sh").chmod(0o755)


def export_task(task: Task, out: Path, *, rules: EpisodeRules, wheel: Path, network: Literal["off", "web"] = "off",
                image: str | None = None) -> Path:
    """Write ``task`` as a Harbor task directory under ``out`` (see the module docstring), ``wheel`` (a jobenv
    wheel, see :mod:`jobenv.harbor.wheel`) bundled into its ``tests/``; its path."""
    from .. import __version__
    from ..episode.prompt import build_prompt
    from ..sandbox.docker import DEFAULT_IMAGE

    dest = Path(out) / _dir_name(task)
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "environment").mkdir(parents=True)
    (dest / "tests").mkdir()
    (dest / "instruction.md").write_text(build_prompt(task, rules=rules, network=network == "web"), encoding="utf-8")
    (dest / "task.toml").write_text(_task_toml(task, rules, network, __version__), encoding="utf-8")
    (dest / "environment" / "Dockerfile").write_text(_DOCKERFILE.format(image=image or DEFAULT_IMAGE), encoding="utf-8")
    shutil.copytree(task.task_folder, dest / "environment" / "task_folder", symlinks=False)
    tests = dest / "tests"
    (tests / "RUBRICS.json").write_text(json.dumps({"rubrics": [r.to_json() for r in task.rubrics]}, indent=1,
                                                   ensure_ascii=False), encoding="utf-8")
    (tests / "TASK_INSTRUCTIONS.txt").write_text(task.instructions, encoding="utf-8")
    if task.meta:
        (tests / "meta.json").write_text(json.dumps(task.meta, indent=1, ensure_ascii=False), encoding="utf-8")
    shutil.copyfile(wheel, tests / Path(wheel).name)
    (tests / "test.sh").write_text(_TEST_SH.format(marker=EXPORT_MARKER, version=__version__, wheel=Path(wheel).name),
                                   encoding="utf-8")
    (tests / "test.sh").chmod(0o755)
    _solution(task, dest)
    return dest


def export_all(tasks: list[Task], out: Path, *, rules: EpisodeRules, network: Literal["off", "web"] = "off",
               image: str | None = None, wheel: Path | None = None) -> list[Path]:
    """Export every task of ``tasks`` into ``out`` (made if missing); the directories written. ``wheel``: the
    jobenv wheel their tests install (default: one made of the running jobenv, :func:`installed_wheel`); a wheel
    of another version than the running jobenv is a JobenvError (its ``jobenv judge`` would not be the one the
    export's ``test.sh`` expects)."""
    import tempfile

    from .. import __version__
    from ..errors import JobenvError
    from .wheel import check_wheel, installed_wheel

    Path(out).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="jobenv-wheel-") as tmp:
        if wheel is None:
            wheel = installed_wheel(Path(tmp))
        elif check_wheel(Path(wheel)) != __version__:
            raise JobenvError(f"{wheel}: a jobenv {check_wheel(Path(wheel))} wheel, but this is jobenv {__version__} "
                              "(the exported test.sh runs the same version's judge)")
        return [export_task(t, Path(out), rules=rules, network=network, image=image, wheel=Path(wheel))
                for t in tasks]
