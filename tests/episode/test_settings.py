"""``jobenv.settings``: the one reader of the ``JOBENV_*`` variables, and the front-ends that follow it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobenv import settings


def test_unknown_names_are_programming_errors_and_empty_values_are_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(KeyError):
        settings.get("JOBENV_NO_SUCH_THING")
    monkeypatch.setenv("JOBENV_SANDBOX_IMAGE", "")
    assert settings.get("JOBENV_SANDBOX_IMAGE") is None
    assert settings.get("JOBENV_SANDBOX_IMAGE", {"JOBENV_SANDBOX_IMAGE": "x:1"}) == "x:1"


def test_data_and_cache_paths_follow_the_variables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JOBENV_DATA", str(tmp_path / "d"))
    monkeypatch.setenv("JOBENV_CACHE", str(tmp_path / "c"))
    from jobenv.datasets import data_dir
    from jobenv.judge.llm import default_cache_dir

    assert data_dir() == settings.data_dir() == tmp_path / "d"
    assert default_cache_dir() == tmp_path / "c" / "judge"
    monkeypatch.delenv("JOBENV_DATA")
    assert settings.data_dir() == Path.home() / ".cache" / "jobenv"


def test_every_front_end_takes_the_sandbox_image_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from jobenv.hosting import ServeConfig
    from jobenv.sandbox.config import SandboxConfig

    monkeypatch.setenv("JOBENV_SANDBOX", "docker")
    monkeypatch.setenv("JOBENV_SANDBOX_IMAGE", "my/img:1")
    assert SandboxConfig.from_env().options["image"] == "my/img:1"  # OpenEnv's server reads this
    assert ServeConfig.from_env().sandbox.options["image"] == "my/img:1"  # jobenv serve (OpenReward)
    assert ServeConfig.from_env(sandbox_image="mine:2").sandbox.options["image"] == "mine:2"  # a flag wins
