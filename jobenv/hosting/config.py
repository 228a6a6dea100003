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

import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .. import settings
from ..episode.rules import EpisodeRules
from ..errors import JobenvError, UnknownEnvError, first_problem
from ..judge.config import JudgeConfig
from ..sandbox.config import SandboxConfig

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


_LEGACY_RULES = tuple(EpisodeRules.model_fields)  # schema 1 had them flat

class ServeConfig(BaseModel):
    """Everything ``jobenv serve`` can be told: the episode ``rules``, the ``sandbox`` and the ``judge`` are their
    own models (:class:`~jobenv.episode.EpisodeRules`, :class:`~jobenv.sandbox.SandboxConfig`,
    :class:`~jobenv.judge.JudgeConfig`), nested; a judge may be given as its kind alone. ``ServeConfig.from_env(**overrides)`` reads the ``JOBENV_*`` variables (through :mod:`jobenv.settings`)
    and lets explicit (non-None) values win. The flat keys of schema 1 (``max_steps``, ``sandbox_image``, ...)
    are still read, with a DeprecationWarning."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[2] = 2
    envs: list[str] | None = None  # keys or routes (see HOSTED_DATASETS); None serves every class whose tasks load
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    judge: JudgeConfig = Field(default_factory=JudgeConfig)
    rules: EpisodeRules = Field(default_factory=EpisodeRules)
    idle_timeout_s: float = Field(default=600.0, gt=0)
    max_sessions: int = Field(default=64, ge=1)  # sandboxes open at once; a create past it is refused (HTTP 503)
    api_key: str | None = Field(default=None, min_length=8, repr=False)
    # list_tools gives each tool's first sentence and bare schemas (~45% of the size), for trainers that put the
    # tool list in a short prompt (text-template tool calling); arguments are validated as always
    compact_tools: bool = False

    @model_validator(mode="before")
    @classmethod
    def _nest_flat_keys(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if isinstance(data.get("judge"), str) or "judge_options" in data:  # a kind (the CLI's flag) and options
            judge = data.get("judge")
            kind = judge if isinstance(judge, str) else getattr(judge, "kind", None) or "auto"
            data["judge"] = {"kind": kind, **dict(data.pop("judge_options", None) or {})}
        flat = [k for k in (*_LEGACY_RULES, "sandbox_image", "sandbox_options") if k in data]
        if not flat and not isinstance(data.get("sandbox"), str):
            return data
        if flat:
            warnings.warn(f"ServeConfig({', '.join(flat)}=...) is deprecated: use rules=EpisodeRules(...) and "
                          "sandbox=SandboxConfig(...)", DeprecationWarning, stacklevel=3)
        data.pop("schema_version", None)
        rules = {k: data.pop(k) for k in _LEGACY_RULES if k in data}
        if rules:
            base = data.get("rules")
            data["rules"] = {**(base.model_dump() if isinstance(base, EpisodeRules) else dict(base or {})), **rules}
        sandbox = data.get("sandbox")
        if isinstance(sandbox, str) or "sandbox_image" in data or "sandbox_options" in data:
            options = dict(data.pop("sandbox_options", None) or {})
            data["sandbox"] = SandboxConfig.build(sandbox if isinstance(sandbox, str) else "local",
                                                  image=data.pop("sandbox_image", None), **options)
        return data

    @model_validator(mode="after")
    def _tools_fit_the_sandbox(self) -> ServeConfig:
        self.rules.check_backend(self.sandbox.backend)
        return self

    @classmethod
    def from_env(cls, *, sandbox: str | None = None, sandbox_image: str | None = None,
                 rules: EpisodeRules | None = None, **overrides: Any) -> ServeConfig:
        """Defaults from ``$JOBENV_SANDBOX``, ``$JOBENV_SANDBOX_IMAGE``, ``$JOBENV_SERVE_JUDGE``,
        ``$JOBENV_SERVE_ENVS``, ``$JOBENV_SERVE_IDLE_TIMEOUT`` and ``$JOBENV_SERVE_API_KEY``; ``overrides`` that are
        not None win. Raises JobenvError naming a bad value."""
        values: dict[str, Any] = {}
        if settings.get(JUDGE_ENV_VAR):
            values["judge"] = settings.get(JUDGE_ENV_VAR)
        envs = settings.get(ENVS_ENV_VAR)
        if envs:
            values["envs"] = [e for e in envs.split(",") if e.strip()]
        if settings.get(IDLE_ENV_VAR):
            values["idle_timeout_s"] = settings.get(IDLE_ENV_VAR)
        if settings.get(API_KEY_ENV_VAR):
            values["api_key"] = settings.get(API_KEY_ENV_VAR)
        options = dict(overrides.pop("sandbox_options", None) or {})
        values.update({k: v for k, v in overrides.items() if v is not None})  # flat rule keys: the validator's
        if rules is not None:
            values["rules"] = rules
        try:
            values["sandbox"] = SandboxConfig.from_env(backend=sandbox, image=sandbox_image, **options)
            return cls(**values)
        except ValidationError as exc:
            where, msg, got = first_problem(exc, "config")
            raise JobenvError(f"serve configuration: {where}: {msg} (got {got!r})") from None
        except (ValueError, JobenvError) as exc:
            raise JobenvError(f"serve configuration: {exc}") from None
