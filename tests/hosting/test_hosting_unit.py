"""Hosting pieces that need no server: lazy import, report redaction, tool flags, CLI wiring."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jobenv.hosting import HOSTED_DATASETS, public_task_spec, redact_report

REPO = Path(__file__).resolve().parents[2]


def test_import_jobenv_and_hosting_do_not_import_openreward() -> None:
    code = (
        "import sys\n"
        "import jobenv\n"
        "assert 'jobenv.hosting' not in sys.modules, 'import jobenv pulled in jobenv.hosting'\n"
        "import jobenv.hosting\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in {'openreward', 'fastapi', 'uvicorn', 'starlette'})\n"
        "assert not heavy, heavy\n"
        "print('clean')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPENREWARD_DISABLE_UPDATE_CHECK": "1"}
    res = subprocess.run([sys.executable, "-c", code], cwd=str(REPO), env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0 and "clean" in res.stdout, res.stderr


def test_redact_report_keeps_numbers_and_drops_wording() -> None:
    rubric, crit = "The memo recommends vendor Zeta at 4.2% cost", "Mentions the 4.2% figure explicitly"
    report = {
        "schema_version": 1, "status": "error", "normalized_score": 0.0, "passed_count": 0, "total_count": 1,
        "error": f"rubric 0 ({rubric!r}): judge reply unparseable",
        "rubrics": [{"index": 0, "rubric": rubric, "weight": 10.0, "passed": False, "score": 0.0, "status": "error",
                     "error": f"could not judge {crit}", "overall_reasoning": f"because {crit}",
                     "criteria_results": [{"index": 0, "criterion": crit, "passed": None, "reasoning": crit,
                                           "evidence": "x"}]}],
        "usage": {"prompt_tokens": 3, "calls": 1}, "something_new": {"rubric": rubric},
    }
    safe = redact_report(report, [rubric, crit])
    blob = repr(safe)
    assert rubric not in blob and crit not in blob and "Zeta" not in blob
    assert safe["rubrics"] == [{"index": 0, "weight": 10.0, "passed": False, "score": 0.0, "status": "error",
                                "criteria_total": 1, "criteria_passed": 0, "error": "could not judge [withheld]"}]
    assert safe["error"].startswith("rubric 0 (") and "unparseable" in safe["error"]
    assert safe["usage"] == {"prompt_tokens": 3, "calls": 1}
    assert "something_new" not in safe


def test_public_spec_has_exactly_the_public_fields() -> None:
    import jobenv

    task = jobenv.load_tasks("jobenv/sample")[0]
    spec = public_task_spec(task, "sample", 0)
    assert spec == {"id": task.id, "occupation": task.occupation, "split": "sample", "index": 0}


def test_hosted_split_tables_name_registered_envs() -> None:
    import jobenv

    ids = {env_id for ds in HOSTED_DATASETS for env_id in ds.splits.values()}
    assert ids <= set(jobenv.list_envs())
    assert {"jobbench/main", "jobbench/easy", "jobbench/all", "jobtasks/train", "jobenv/sample"} <= ids


def test_tool_flags_and_descriptions_follow_jobenv_tools() -> None:
    os.environ["OPENREWARD_DISABLE_UPDATE_CHECK"] = "1"
    from jobenv.hosting import build_environments
    from jobenv.tools import TOOL_DESCRIPTIONS, TOOL_PARAMS

    classes = build_environments(envs="sample,jobbench")
    assert [c.__name__ for c in classes] == ["JobenvSample", "JobBench"]
    cls = classes[0]
    listed = {t.name: t for t in cls.list_tools().tools}
    assert set(listed) == set(TOOL_PARAMS) | {"submit"}
    for name, spec in listed.items():
        assert spec.description == TOOL_DESCRIPTIONS[name]
        fn = getattr(cls, name)
        assert getattr(fn, "_env_tool_concurrent") is (name in {"bash", "read", "glob", "grep", "ls"}), name
        assert getattr(fn, "_env_tool_exclusive") is (name == "submit"), name
    assert listed["submit"].input_schema is None


def test_unknown_hosted_env_is_a_clear_error() -> None:
    from jobenv.errors import UnknownEnvError
    from jobenv.hosting import build_environments

    with pytest.raises(UnknownEnvError, match="jobbench"):
        build_environments(envs="nope")


def test_serve_parser_defaults() -> None:
    from jobenv.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.sandbox) == ("0.0.0.0", 8080, None)
    args = build_parser().parse_args(["serve", "--host", "127.0.0.1", "--port", "9001", "--sandbox", "docker"])
    assert (args.host, args.port, args.sandbox) == ("127.0.0.1", 9001, "docker")


def test_serve_with_unknown_env_selection_exits_with_one_line_error() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPENREWARD_DISABLE_UPDATE_CHECK": "1", "JOBENV_SERVE_ENVS": "nope"}
    res = subprocess.run([sys.executable, "-m", "jobenv.cli", "serve", "--host", "127.0.0.1", "--port", "1"],
                         cwd=str(REPO), env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert "jobenv serve: error: unknown hosted environment 'nope'" in res.stderr
    assert "Traceback" not in res.stderr


def test_make_server_builds_the_sdk_server_for_the_chosen_classes() -> None:
    from openreward.environments import Server

    from jobenv.hosting import make_server

    server = make_server(sandbox="local", judge="checks", envs="sample")
    assert isinstance(server, Server)
    assert list(server._env_classes) == ["jobenvsample"]
    paths = {getattr(r, "path", "") for r in server.app.routes}
    assert {"/health", "/{env_name}/call", "/{env_name}/tasks"} <= paths
