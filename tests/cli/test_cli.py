"""The ``jobenv`` command line: one module per command, typed options, one-line usage errors (exit 2)."""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from jobenv.cli import build_parser, main
from jobenv.cli._common import NoOptions, rule_fields
from jobenv.cli.main import COMMANDS, options_for

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobenv.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=str(REPO))


def subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_version() -> None:
    import jobenv

    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"jobenv {jobenv.__version__}"


def test_every_command_has_typed_options_matching_its_parser() -> None:
    subs = subparsers()
    assert sorted(subs) == sorted(m.NAME for m in COMMANDS)
    for module in COMMANDS:
        dests = {a.dest for a in subs[module.NAME]._actions if a.dest != "help"}
        fields = {f.name for f in dataclasses.fields(getattr(module, "Options", NoOptions))}
        if "rules" in fields:  # the EpisodeRules flags arrive as one value
            fields = (fields - {"rules"}) | set(rule_fields())
        assert dests == fields, module.NAME


def test_rule_flags_are_derived_from_episode_rules() -> None:
    from jobenv.episode import EpisodeRules

    for command in ("rollout", "serve"):
        args = ["rollout", "jobenv/sample", "--model", "m", "--base-url", "http://x", "--out", "o"] \
            if command == "rollout" else ["serve"]
        opts = options_for(command, build_parser().parse_args(args))
        assert opts.rules == EpisodeRules()  # one default, the model's, for every front-end
        opts = options_for(command, build_parser().parse_args([*args, "--max-steps", "7", "--time-limit", "9.5",
                                                               "--on-truncate", "grade", "--scoring", "official"]))
        assert opts.rules == EpisodeRules(max_steps=7, time_limit_s=9.5, on_truncate="grade", scoring="official")


def test_every_flag_has_help_that_shows_its_default() -> None:
    from jobenv.cli._common import DefaultsFormatter

    for name, sub in subparsers().items():
        fmt = DefaultsFormatter(prog=sub.prog)
        for action in sub._actions:
            if action.dest == "help" or not action.option_strings:
                continue
            flag = f"jobenv {name} {action.option_strings[0]}"
            assert action.help and len(action.help) >= 5, f"{flag} has no help"
            shown = (fmt._get_help_string(action) or "") % {"default": action.default}
            assert "default" in shown or "required" in shown, f"{flag}: {shown!r}"
            if action.default not in (None, False):
                assert str(action.default) in shown, f"{flag}: {shown!r}"
    assert "(default: 8080)" in subparsers()["serve"].format_help()


def test_choices_are_the_librarys_own() -> None:
    from jobenv.cli._common import JUDGE_CHOICES, SANDBOX_CHOICES
    from jobenv.judge import make_judge
    from jobenv.sandbox import BACKENDS

    assert SANDBOX_CHOICES == BACKENDS
    for kind in JUDGE_CHOICES:
        make_judge(kind, **({"base_url": "http://127.0.0.1:9", "api_key": "k", "model": "m"}
                            if kind in ("llm", "agentic") else {}))


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["serve", "--port", "99999"], "argument --port: a port is 1..65535, got 99999"),
        (["serve", "--port", "http"], "argument --port: expected an integer, got 'http'"),
        (["serve", "--sandbox", "vm"], "argument --sandbox: invalid choice: 'vm'"),
        (["demo", "--sandbox", "nope"], "argument --sandbox: invalid choice: 'nope'"),
        (["rollout", "jobenv/sample", "--model", "m", "--base-url", "http://x", "--out", "o.jsonl", "--max-steps", "0"],
         "argument --max-steps: must be at least 1, got 0"),
        (["rollout", "jobenv/sample", "--model", "m", "--base-url", "http://x", "--out", "o.jsonl", "--time-limit",
          "-3"], "argument --time-limit: must be greater than 0"),
        (["rollout", "jobenv/sample", "--model", "m", "--base-url", "http://x", "--out", "o.jsonl", "--top-p", "2"],
         "argument --top-p: must be between 0 and 1"),
        (["generate", "--n", "0", "--out", "x"], "argument --n: must be at least 1, got 0"),
        (["judge", "--judge", "gpt", "--rubrics", "r.json"], "argument --judge: invalid choice: 'gpt'"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_values_fail_at_once_with_one_line(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert needle in lines[0]
    assert lines[0].startswith("jobenv")


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    # `jobenv list | head -1`: the pipe closes after the first line
    proc = subprocess.Popen([sys.executable, "-m", "jobenv.cli", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(REPO))
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err and err == ""


def test_bad_value_in_a_subprocess_is_one_line_without_traceback(tmp_path: Path) -> None:
    proc = run_cli("serve", "--port", "99999")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip() == "jobenv serve: error: argument --port: a port is 1..65535, got 99999"


def test_options_are_typed_values_not_a_namespace() -> None:
    ns = build_parser().parse_args(["serve", "--port", "9001"])
    opts = options_for("serve", ns)
    assert dataclasses.is_dataclass(opts) and opts.port == 9001 and opts.host == "127.0.0.1"
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.port = 1  # type: ignore[misc]


def test_generate_refuses_a_non_empty_folder_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tasks"
    out.mkdir()
    (out / "keep.txt").write_text("mine\n")
    assert main(["generate", "--n", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not empty" in err and "--force" in err
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    (tmp_path / "file").write_text("x")
    assert main(["generate", "--n", "1", "--out", str(tmp_path / "file")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_judge_cli_is_not_part_of_the_hashed_grader() -> None:
    import jobenv.judge

    judge_dir = Path(jobenv.judge.__file__).parent
    assert not (judge_dir / "cli.py").exists()
    assert not any("argparse" in p.read_text() for p in judge_dir.glob("*.py"))


def test_task_folder_without_instructions_is_warned_not_skipped_silently(tmp_path: Path) -> None:
    import shutil

    import jobenv

    src = jobenv.load_tasks("jobenv/sample")[0].root
    shutil.copytree(src, tmp_path / "occ" / "task1")
    broken = tmp_path / "occ" / "task2"
    shutil.copytree(src, broken)
    (broken / "task_folder" / "TASK_INSTRUCTIONS.txt").unlink()
    proc = run_cli("validate", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "1 tasks valid" in proc.stdout
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert warnings == [f"jobenv validate: warning: {broken}: no task_folder/TASK_INSTRUCTIONS.txt, so this task is "
                        "skipped"], proc.stderr


def test_garbage_trajectory_line_is_warned_with_path_and_line(tmp_path: Path) -> None:
    from jobenv.rollout.trajectory import Trajectory

    def record(task: str, reward: float) -> str:
        return Trajectory(env_id="jobenv/sample", task_id=task, occupation=task.split("/")[0], attempt=0,
                          reward=reward, strict_pass=reward == 1.0, status="ok", finish_reason="submitted",
                          started_at="2026-01-01T00:00:00", finished_at="2026-01-01T00:00:01",
                          duration_s=1.0).model_dump_json()

    traj = tmp_path / "t.jsonl"
    traj.write_text(record("acc/task1", 1.0) + "\n{not json at all\n" + record("law/task2", 0.5) + "\n")
    proc = run_cli("report", str(traj))
    assert proc.returncode == 0, proc.stderr
    assert f"jobenv report: warning: {traj}: line 2 is not a trajectory record, so it is skipped" in proc.stderr
    assert "0.750" in proc.stdout  # both good records are still summarised


def test_make_takes_a_sandbox_image_and_rejects_a_bad_sandbox_name() -> None:
    import jobenv

    env = jobenv.make("jobenv/sample", sandbox="docker", sandbox_image="jobenv-test:minbase", judge="checks")
    try:
        assert env.sandbox_options["image"] == "jobenv-test:minbase"
        text = repr(env)
        assert "jobenv/sample" in text and "7 tasks" in text and "docker" in text and "checks" in text
    finally:
        env.close()
    with pytest.raises(jobenv.SandboxError, match="needs sandbox='docker'"):
        jobenv.make("jobenv/sample", sandbox_image="img:1")
    with pytest.raises(jobenv.SandboxError, match="unknown sandbox backend 'vm'"):
        jobenv.make("jobenv/sample", sandbox="vm")


def test_extras_table_matches_the_packaging_metadata() -> None:
    import tomllib

    from jobenv.extras import EXTRAS

    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS) == set(meta) - {"all", "dev"}
    # "all" bundles the extras that install together (the trainer integrations pin conflicting servers)
    assert set(meta["all"][0].removeprefix("jobenv[").removesuffix("]").split(",")) <= set(EXTRAS)


@pytest.mark.parametrize("command", [
    ["demo"],
    ["rollout", "jobenv/sample", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--out", "never.jsonl"],
    ["serve", "--envs", "sample", "--port", "1"],
])
def test_every_command_reads_the_sandbox_flags_the_same_way(command: list[str], tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "jobenv.cli", *command, "--sandbox", "local", "--sandbox-image", "i:1"],
                          capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and "needs the docker sandbox" in line and "Traceback" not in line
    assert not (tmp_path / "never.jsonl").exists()


def test_the_sandbox_flags_fall_back_to_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from jobenv.sandbox.config import SandboxConfig

    def sandbox_config(backend: str | None, image: str | None) -> SandboxConfig:
        return SandboxConfig.from_env(backend=backend, image=image)  # how every command reads the two flags

    monkeypatch.setenv("JOBENV_SANDBOX", "docker")
    monkeypatch.setenv("JOBENV_SANDBOX_IMAGE", "my/img:1")
    assert (sandbox_config(None, None).backend, sandbox_config(None, None).options) == ("docker", {"image": "my/img:1"})
    assert sandbox_config(None, "flag:2").options == {"image": "flag:2"}
    assert sandbox_config("local", None).options == {}
