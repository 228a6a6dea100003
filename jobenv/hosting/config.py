"""What a hosted server serves and how: the route table and :class:`ServeConfig`. Imports no SDK.

=====================  ===============================  ===========
class (route)          split -> env id                  split type
=====================  ===============================  ===========
``Jobenv`` (default)   every split below                per split
``JobBench``           main, easy, all -> jobbench/*    test
``JobTasks``           train -> jobtasks/train          train
``JobenvSample``       sample -> jobenv/sample          test
=====================  ===============================  ===========
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import JobenvError, UnknownEnvError, first_problem

__all__ = [
    "HostedDataset",
    "HOSTED_DATASETS",
    "ServeConfig",
    "select_datasets",
    "SANDBOX_ENV_VAR",
    "JUDGE_ENV_VAR",
    "ENVS_ENV_VAR",
    "IDLE_ENV_VAR",
    "API_KEY_ENV_VAR",
]

SANDBOX_ENV_VAR = "JOBENV_SANDBOX"
"""Sandbox backend of hosted sessions when ``--sandbox`` is not given (default ``local``)."""
JUDGE_ENV_VAR = "JOBENV_SERVE_JUDGE"
"""Judge kind of hosted sessions (``auto`` | ``checks`` | ``llm``; default ``auto``)."""
ENVS_ENV_VAR = "JOBENV_SERVE_ENVS"
"""Comma-separated hosted classes in order, e.g. ``jobbench,sample``; the first is the default route."""
IDLE_ENV_VAR = "JOBENV_SERVE_IDLE_TIMEOUT"
"""Seconds without a tool call after which a session's sandbox is closed (default 600)."""
API_KEY_ENV_VAR = "JOBENV_SERVE_API_KEY"
"""The key every request must carry (``X-API-Key`` or ``Authorization: Bearer``); unset: no key is asked."""


@dataclass(frozen=True)
class HostedDataset:
    """One OpenReward environment class: its name (the route is the lower-cased name) and split table."""

    class_name: str
    splits: dict[str, str]  # OpenReward split name -> jobenv env id
    split_type: Literal["train", "validation", "test"]
    description: str
    key: str
    split_types: dict[str, Literal["train", "validation", "test"]] = field(default_factory=dict)  # per-split overrides

    @property
    def route(self) -> str:
        return self.class_name.lower()

    def type_of(self, split: str) -> Literal["train", "validation", "test"]:
        return self.split_types.get(split, self.split_type)


HOSTED_DATASETS: tuple[HostedDataset, ...] = (
    # first, so it is the default route: a client that passes no variant (SkyRL's OpenReward example) reaches
    # every split here instead of one dataset's
    HostedDataset("Jobenv", {"main": "jobbench/main", "easy": "jobbench/easy", "all": "jobbench/all",
                             "train": "jobtasks/train", "sample": "jobenv/sample"}, "test",
                  "every jobenv split under one route (the default route)", "jobenv", {"train": "train"}),
    HostedDataset("JobBench", {"main": "jobbench/main", "easy": "jobbench/easy", "all": "jobbench/all"}, "test",
                  "JobBench professional tasks (download first: jobenv download --dataset jobbench)", "jobbench"),
    HostedDataset("JobTasks", {"train": "jobtasks/train"}, "train",
                  "JobTasks synthetic training tasks (download first: jobenv download --dataset jobtasks)", "jobtasks"),
    HostedDataset("JobenvSample", {"sample": "jobenv/sample"}, "test",
                  "the small sample split bundled with jobenv (offline, deterministic checks)", "sample"),
)


def select_datasets(envs: list[str] | str | None) -> list[HostedDataset]:
    """The hosted classes named by key or route, in the given order (all of them for None).

    Raises UnknownEnvError for an unknown name or an empty selection.
    """
    if envs is None:
        return list(HOSTED_DATASETS)
    keys = [e.strip().lower() for e in (envs.split(",") if isinstance(envs, str) else envs) if e.strip()]
    by_key = {d.key: d for d in HOSTED_DATASETS} | {d.route: d for d in HOSTED_DATASETS}
    out: list[HostedDataset] = []
    for k in keys:
        if k not in by_key:
            raise UnknownEnvError(f"unknown hosted environment {k!r}; choose from {sorted(d.key for d in HOSTED_DATASETS)}")
        if by_key[k] not in out:
            out.append(by_key[k])
    if not out:
        raise UnknownEnvError("no hosted environment selected")
    return out


class ServeConfig(BaseModel):
    """Everything ``jobenv serve`` can be told. ``ServeConfig.from_env(**overrides)`` reads the ``JOBENV_*``
    variables and lets explicit (non-None) values win."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1] = 1
    envs: list[str] | None = None  # keys or routes (see HOSTED_DATASETS); None serves every class whose tasks load
    sandbox: Literal["local", "docker"] = "local"
    sandbox_image: str | None = None  # docker backend only
    judge: Literal["auto", "checks", "llm"] = "auto"
    scoring: Literal["strict", "official"] = "strict"
    max_steps: int | None = Field(default=100, ge=1)
    time_limit_s: float | None = Field(default=None, gt=0)
    on_truncate: Literal["zero", "grade"] = "zero"
    idle_timeout_s: float = Field(default=600.0, gt=0)
    max_sessions: int = Field(default=64, ge=1)  # sandboxes open at once; a create past it is refused (HTTP 503)
    api_key: str | None = Field(default=None, min_length=8, repr=False)
    sandbox_options: dict[str, Any] = Field(default_factory=dict)
    judge_options: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_env(cls, **overrides: Any) -> ServeConfig:
        """Defaults from ``$JOBENV_SANDBOX``, ``$JOBENV_SERVE_JUDGE``, ``$JOBENV_SERVE_ENVS``,
        ``$JOBENV_SERVE_IDLE_TIMEOUT`` and ``$JOBENV_SERVE_API_KEY``; ``overrides`` that are not None win. Raises pydantic's ValidationError
        (a ValueError) for a bad value."""
        values: dict[str, Any] = {}
        if os.environ.get(SANDBOX_ENV_VAR):
            values["sandbox"] = os.environ[SANDBOX_ENV_VAR]
        if os.environ.get(JUDGE_ENV_VAR):
            values["judge"] = os.environ[JUDGE_ENV_VAR]
        if os.environ.get(ENVS_ENV_VAR):
            values["envs"] = [e for e in os.environ[ENVS_ENV_VAR].split(",") if e.strip()]
        if os.environ.get(IDLE_ENV_VAR):
            values["idle_timeout_s"] = os.environ[IDLE_ENV_VAR]
        if os.environ.get(API_KEY_ENV_VAR):
            values["api_key"] = os.environ[API_KEY_ENV_VAR]
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls(**values)
        except ValidationError as exc:
            where, msg, got = first_problem(exc, "config")
            raise JobenvError(f"serve configuration: {where}: {msg} (got {got!r})") from None

    @model_validator(mode="after")
    def _image_needs_docker(self) -> ServeConfig:
        if self.sandbox_image and self.sandbox != "docker":
            raise ValueError("a sandbox image needs the docker sandbox (--sandbox docker)")
        return self

    def sandbox_kwargs(self) -> dict[str, Any]:
        """Options for :func:`jobenv.sandbox.make_sandbox` (the image goes to the docker backend)."""
        opts = dict(self.sandbox_options)
        if self.sandbox_image:
            opts["image"] = self.sandbox_image
        return opts
