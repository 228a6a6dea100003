"""jobenv tasks written as Harbor task directories, so every trainer with a Harbor loader can run them.

One directory per task, named ``<split>__<occupation>__taskN``:

* ``instruction.md``: jobenv's prompt, the official runners' wrapper around the task's instructions (task folder
  ``/workspace/task_folder``, deliverables in ``/workspace/output``), with the budget of the given rules;
* ``task.toml`` (schema 1.4): the task's name and metadata, the agent's timeout and the split's official network
  (``public`` for JobBench, ``no-network`` elsewhere), the verifier's timeout and judge variables, the environment's
  workdir and limits, and ``/workspace/output`` as the artifact;
* ``environment/``: a Dockerfile ``FROM`` jobenv's knowledge-worker image (what ``jobenv build-image`` builds,
  offline) that copies ``task_folder/`` to ``/workspace/task_folder`` and makes ``/workspace/output``;
* ``tests/``: ``RUBRICS.json`` (with jobenv's checks), the instructions and ``meta.json`` the checks read, and a
  ``test.sh`` (its second line marks it as jobenv's) that grades ``/workspace/output`` with ``jobenv judge`` (judge kind and endpoint from the verifier's
  ``JUDGE_KIND``, ``JUDGE_BASE_URL``, ``JUDGE_API_KEY``, ``JUDGE_MODEL``) and writes ``reward.json``; a grading
  error writes no reward, so Harbor records a verifier error, not a score.

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
if ! command -v jobenv >/dev/null 2>&1; then
  python3 -m pip install --quiet "jobenv=={version}" >/logs/verifier/install.txt 2>&1 || {{
    echo "jobenv {version} is not installed and could not be installed"; exit 1; }}
fi
export JOBENV_JUDGE_BASE_URL="${{JUDGE_BASE_URL:-}}" JOBENV_JUDGE_API_KEY="${{JUDGE_API_KEY:-}}"
export JOBENV_JUDGE_MODEL="${{JUDGE_MODEL:-}}"
jobenv judge --rubrics /tests/RUBRICS.json --output-dir /workspace/output --judge "${{JUDGE_KIND:-auto}}" \\
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


def export_task(task: Task, out: Path, *, rules: EpisodeRules, network: Literal["off", "web"] = "off",
                image: str | None = None) -> Path:
    """Write ``task`` as a Harbor task directory under ``out`` (see the module docstring); its path."""
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
    (tests / "test.sh").write_text(_TEST_SH.format(marker=EXPORT_MARKER, version=__version__), encoding="utf-8")
    (tests / "test.sh").chmod(0o755)
    return dest


def export_all(tasks: list[Task], out: Path, *, rules: EpisodeRules, network: Literal["off", "web"] = "off",
               image: str | None = None) -> list[Path]:
    """Export every task of ``tasks`` into ``out`` (made if missing); the directories written."""
    Path(out).mkdir(parents=True, exist_ok=True)
    return [export_task(t, Path(out), rules=rules, network=network, image=image) for t in tasks]
