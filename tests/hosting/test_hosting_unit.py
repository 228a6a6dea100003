"""Hosting pieces that need no server: lazy import, report redaction, tool flags, CLI wiring."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jobenv.hosting import HOSTED_DATASETS, public_task_spec, redact_report
from jobenv.hosting.redact import WITHHELD

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
                                           "evidence": "x"}]}, {"index": 1, "error": "reply had no choices"}],
        "usage": {"prompt_tokens": 3, "calls": 1}, "something_new": {"rubric": rubric},
    }
    safe = redact_report(report, [rubric, crit])
    blob = repr(safe)
    assert "Zeta" not in blob and "explicitly" not in blob
    assert safe["rubrics"][0] == {"index": 0, "weight": 10.0, "passed": False, "score": 0.0, "status": "error",
                                  "criteria_total": 1, "criteria_passed": 0, "error": WITHHELD}
    assert safe["rubrics"][1] == {"index": 1, "error": "reply had no choices"}  # harmless text is kept
    assert safe["error"] == WITHHELD
    assert safe["usage"] == {"prompt_tokens": 3, "calls": 1}
    assert "something_new" not in safe


HOSTILE = [
    "Quotes the vendor's \"best and final\" rate of 4.2%\tfor {region!r}",
    "Ends with a backslash and a tab\t\\ then more words after it",
    "Naïve café résumé — «guillemets» and ‘curly quotes’ in the summary",
]


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize(
    "render",
    [
        lambda t: f"rubric 3 ({t!r}): judge reply unparseable",
        lambda t: f"rubric 3 ({(t[:77] + '...')!r}): failed",
        lambda t: json.dumps({"rubric": t}),
        lambda t: "judge said: " + ascii(t),
        lambda t: t.upper().replace(" ", "  "),
        lambda t: "partial quote: " + t[5:45],
    ],
    ids=["repr", "short-repr", "json", "ascii", "respaced", "partial"],
)
def test_any_rendering_of_a_rubric_is_withheld(text: str, render: Any) -> None:
    from jobenv.hosting.redact import PrivateText

    guard = PrivateText([text])
    rendered = render(text)
    assert guard.leaks(rendered), rendered
    assert guard.clean(rendered) == WITHHELD
    report = redact_report({"status": "error", "error": rendered, "rubrics": [{"error": rendered}]}, guard)
    assert report["error"] == WITHHELD and report["rubrics"][0]["error"] == WITHHELD


def test_unrelated_text_is_not_withheld() -> None:
    from jobenv.hosting.redact import PrivateText

    guard = PrivateText(HOSTILE)
    for text in ("could not export /workspace/output: disk full", "judge timed out after 300 s", "rubric 2: HTTP 502"):
        assert not guard.leaks(text) and guard.clean(text) == text


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


def test_environment_classes_are_module_level_and_follow_the_tool_table() -> None:
    os.environ["OPENREWARD_DISABLE_UPDATE_CHECK"] = "1"
    import inspect

    from openreward.environments import Environment

    from jobenv.hosting import environments
    from jobenv.tools import TOOL_DESCRIPTIONS, TOOL_NAMES

    found = {name for name, obj in vars(environments).items()
             if inspect.isclass(obj) and issubclass(obj, Environment) and obj.__module__ == environments.__name__}
    assert {"JobBench", "JobTasks", "JobenvSample"} <= found
    cls = environments.JobenvSample
    listed = {t.name: t for t in cls.list_tools().tools}
    assert set(listed) == set(TOOL_NAMES)
    concurrent = {"bash", "read", "glob", "grep", "ls"}
    for name, spec in listed.items():
        assert spec.description == TOOL_DESCRIPTIONS[name]
        fn = getattr(cls, name)
        assert fn._env_tool_concurrent is (name in concurrent), name
        assert fn._env_tool_exclusive is (name == "submit"), name


def test_serve_config_reads_the_environment_and_rejects_bad_values(monkeypatch: pytest.MonkeyPatch) -> None:
    from jobenv.episode import EpisodeRules
    from jobenv.errors import JobenvError
    from jobenv.hosting import ServeConfig

    monkeypatch.setenv("JOBENV_SANDBOX", "docker")
    monkeypatch.setenv("JOBENV_SERVE_JUDGE", "checks")
    monkeypatch.setenv("JOBENV_SERVE_IDLE_TIMEOUT", "30")
    monkeypatch.setenv("JOBENV_SANDBOX_IMAGE", "my/img:1")
    cfg = ServeConfig.from_env(rules=EpisodeRules(max_steps=7))
    assert (cfg.sandbox.backend, cfg.judge.kind, cfg.idle_timeout_s, cfg.rules.max_steps) == ("docker", "checks", 30.0, 7)
    assert cfg.sandbox.options["image"] == "my/img:1"  # the image variable is honoured, as everywhere
    assert ServeConfig.from_env(sandbox_image="their/img:2").sandbox.options["image"] == "their/img:2"
    assert ServeConfig.from_env(judge="llm").judge.kind == "llm"  # explicit values win
    monkeypatch.setenv("JOBENV_SANDBOX", "local")
    assert "image" not in ServeConfig.from_env().sandbox.options  # an image means nothing to the local sandbox
    with pytest.raises(JobenvError, match="docker"):
        ServeConfig.from_env(sandbox_image="img:1")
    monkeypatch.setenv("JOBENV_SERVE_JUDGE", "gpt")
    with pytest.raises(JobenvError, match="judge"):
        ServeConfig.from_env()


def test_unknown_hosted_env_is_a_clear_error() -> None:
    from jobenv.errors import UnknownEnvError
    from jobenv.hosting.config import select_datasets

    with pytest.raises(UnknownEnvError, match="jobbench"):
        select_datasets("nope")


def test_serve_parser_defaults() -> None:
    from jobenv.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.sandbox, args.max_steps, args.scoring) == ("127.0.0.1", 8080, None, 100, "strict")
    assert args.time_limit_s is None
    args = build_parser().parse_args(["serve", "--host", "127.0.0.1", "--port", "9001", "--sandbox", "docker",
                                      "--sandbox-image", "img:1", "--judge", "checks", "--time-limit", "60",
                                      "--idle-timeout", "30"])
    assert (args.port, args.sandbox, args.sandbox_image, args.judge, args.time_limit_s, args.idle_timeout) == (
        9001, "docker", "img:1", "checks", 60.0, 30.0)


def _serve(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(REPO), "OPENREWARD_DISABLE_UPDATE_CHECK": "1", **env}
    return subprocess.run([sys.executable, "-m", "jobenv.cli", "serve", "--host", "127.0.0.1", "--port", "1", *args],
                          cwd=str(REPO), env=full, capture_output=True, text=True, timeout=120)


def test_serve_with_unknown_env_selection_exits_with_one_line_error() -> None:
    res = _serve(JOBENV_SERVE_ENVS="nope")
    assert res.returncode == 2
    assert "jobenv serve: error: unknown hosted environment 'nope'" in res.stderr
    assert "Traceback" not in res.stderr


def test_serve_with_nothing_to_serve_says_why(tmp_path: Path) -> None:
    res = _serve("--envs", "jobbench", JOBENV_DATA=str(tmp_path))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert lines[-1].startswith("jobenv serve: error: nothing to serve") and "Traceback" not in res.stderr
    assert any("not serving /jobbench" in line and "jobenv download" in line for line in lines)


def test_image_without_docker_sandbox_is_a_usage_error() -> None:
    res = _serve("--envs", "sample", "--sandbox", "local", "--sandbox-image", "img:1")
    assert res.returncode == 2 and "needs the docker sandbox" in res.stderr and "Traceback" not in res.stderr


def test_make_server_builds_the_sdk_server_for_the_chosen_classes() -> None:
    from openreward.environments import Server

    from jobenv.hosting import ServeConfig, make_server

    server = make_server(ServeConfig(judge="checks", envs=["sample"]), quiet=True)
    assert isinstance(server, Server)
    assert list(server._env_classes) == ["jobenvsample"]
    paths = {getattr(r, "path", "") for r in server.app.routes}
    assert {"/health", "/{env_name}/call", "/{env_name}/tasks", "/{env_name}/status"} <= paths
    assert server.jobenv_runtime.status()["open_sandboxes"] == 0


def test_the_judge_is_built_once_per_server_and_once_per_keyed_session() -> None:
    from jobenv.hosting import ServeConfig, make_server

    server = make_server(ServeConfig(judge="checks", envs=["sample"]), quiet=True)
    cls = server._env_classes["jobenvsample"]
    spec = cls.list_tasks("sample")[0]
    a, b = cls(task_spec=spec), cls(task_spec=spec)
    assert a._judge is b._judge is server.jobenv_runtime.judge
    keyed = cls(task_spec=spec, secrets={"openai_api_key": "sk-test"})
    assert keyed._judge is not a._judge  # a session's own key gets that session its own judge, built at start


def test_a_burst_of_sessions_starts_its_sandboxes_through_the_start_gate() -> None:
    import asyncio

    from jobenv.hosting import ServeConfig, make_server
    from jobenv.sandbox.local import LocalSandbox

    server = make_server(ServeConfig(judge="checks", envs=["sample"]), quiet=True)
    rt = server.jobenv_runtime
    cls = server._env_classes["jobenvsample"]
    session = cls(task_spec=cls.list_tasks("sample")[0])

    async def main() -> None:
        gate = LocalSandbox.start_gate()
        for _ in range(LocalSandbox.start_slots()):
            await gate.acquire()  # every slot taken: a burst of other sessions is starting
        setup = asyncio.create_task(session.setup())
        await asyncio.sleep(1.0)
        assert not setup.done() and rt.open_sandboxes == 0  # this one waits for a slot
        gate.release()
        await asyncio.wait_for(setup, 30)
        assert rt.open_sandboxes == 1 and session._episode is not None and session._episode.sandbox is not None
        await session.teardown()
        assert rt.open_sandboxes == 0

    asyncio.run(main())


def test_serve_config_nests_the_core_models_and_reads_schema_one_keys() -> None:
    import warnings

    from jobenv.episode import EpisodeRules
    from jobenv.hosting import ServeConfig
    from jobenv.judge import JudgeConfig
    from jobenv.sandbox import SandboxConfig

    cfg = ServeConfig(judge="llm", rules=EpisodeRules(max_steps=9))
    assert isinstance(cfg.judge, JudgeConfig) and cfg.judge.kind == "llm" and cfg.judge.options() == {}
    assert isinstance(cfg.sandbox, SandboxConfig) and cfg.rules.max_steps == 9
    with pytest.raises(ValueError, match="timeout_s"):
        ServeConfig(judge={"kind": "llm", "timeout_s": -1})  # judge options are validated with the config
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = ServeConfig(sandbox="docker", sandbox_image="img:1", max_steps=7, judge="checks",
                          judge_options={"mode": "formulas"})
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert (old.sandbox.backend, old.sandbox.options, old.rules.max_steps) == ("docker", {"image": "img:1"}, 7)
    assert (old.judge.kind, old.judge.options()) == ("checks", {"mode": "formulas"})
