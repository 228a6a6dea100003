"""A Harbor task directory read into what jobenv runs: ``task.toml`` (schema 1.4, the legacy ``version`` key too),
``instruction.md`` (and ``system_prompt.md``), ``environment/`` and ``tests/``.

:func:`read_task_dir` validates the directory and returns a :class:`HarborSpec`: the workdir, network, limits,
timeouts and verifier settings jobenv applies, and where the workspace files are. Keys of ``task.toml`` jobenv
does not interpret are tolerated and listed in one warning. The workspace files are what the environment's
Dockerfile ``COPY``/``ADD``s into the workdir, and the directories a ``RUN mkdir -p ...`` line makes there (the
local sandbox runs no other ``RUN`` step); without a Dockerfile the workspace starts empty.

Failure behaviour: TaskFormatError naming the file and the problem for a malformed ``task.toml``, a missing or
empty ``instruction.md``, a ``tests/`` with neither ``test.sh`` nor ``judge.toml``, multi-step tasks, a copy
source outside ``environment/`` and a workdir the local sandbox cannot serve.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
import tomllib
import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import TaskFormatError, first_problem

__all__ = ["resolve_env", "HarborSpec", "HarborTaskToml", "read_task_dir", "is_task_dir", "copied_files", "made_dirs",
           "DEFAULT_WORKDIR"]

DEFAULT_WORKDIR = "/workspace"
NetworkModeName = Literal["no-network", "public", "allowlist"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow")

    def unknown(self, prefix: str) -> list[str]:
        return [f"{prefix}.{k}" for k in (self.model_extra or {})]


class _Agent(_Section):
    timeout_sec: float | None = Field(default=None, gt=0)
    network_mode: Literal["no-network", "public", "allowlist"] | None = None
    allowed_hosts: list[str] | None = None
    user: str | int | None = None


class _Verifier(_Section):
    timeout_sec: float = Field(default=600.0, gt=0)
    env: dict[str, str] = Field(default_factory=dict)
    network_mode: Literal["no-network", "public", "allowlist"] | None = None
    allowed_hosts: list[str] | None = None
    environment_mode: Literal["shared", "separate"] | None = None
    environment: dict[str, Any] | None = None  # a verifier image of its own: implies "separate"
    user: str | int | None = None


class _Environment(_Section):
    docker_image: str | None = None
    cpus: float | None = Field(default=None, gt=0)
    memory_mb: int | None = Field(default=None, ge=64)
    storage_mb: int | None = Field(default=None, ge=16)
    gpus: int | None = None
    workdir: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    network_mode: Literal["no-network", "public", "allowlist"] | None = None
    allowed_hosts: list[str] | None = None
    allow_internet: bool | None = None  # before network_mode
    build_timeout_sec: float | None = None
    os: str | None = None


class HarborTaskToml(BaseModel):
    """The parts of ``task.toml`` jobenv reads; the rest is kept and reported by :meth:`unknown_keys`."""

    model_config = ConfigDict(extra="allow")

    schema_version: str = "1.4"
    task: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    agent: _Agent = Field(default_factory=_Agent)
    verifier: _Verifier = Field(default_factory=_Verifier)
    environment: _Environment = Field(default_factory=_Environment)
    solution: dict[str, Any] = Field(default_factory=dict)
    source: str | None = None
    artifacts: list[str | dict[str, Any]] = Field(default_factory=list)
    steps: list[dict[str, Any]] | None = None

    @model_validator(mode="before")
    @classmethod
    def _legacy_version(cls, data: Any) -> Any:
        if isinstance(data, dict) and "version" in data:
            data = dict(data)
            data.setdefault("schema_version", str(data.pop("version")))
        return data

    def unknown_keys(self) -> list[str]:
        """Keys jobenv does not apply: unknown ones, and known ones it cannot serve (GPUs, a verifier image of its
        own, agent and verifier users)."""
        unserved = [k for k, v in (("environment.gpus", self.environment.gpus),
                                   ("verifier.environment", self.verifier.environment),
                                   ("agent.user", self.agent.user), ("verifier.user", self.verifier.user)) if v]
        return sorted([*(self.model_extra or {}), *self.agent.unknown("agent"), *self.verifier.unknown("verifier"),
                       *self.environment.unknown("environment"), *unserved])


class HarborSpec(BaseModel):
    """What jobenv applies of one Harbor task (see the module docstring)."""

    model_config = ConfigDict(frozen=True)

    name: str
    root: Path
    workdir: str
    network: Literal["off", "web"] = "off"
    allowed_hosts: tuple[str, ...] | None = None  # an allow-list: the only hosts "web" reaches
    agent_timeout_s: float | None = None
    docker_image: str | None = None  # a prebuilt image named instead of a Dockerfile
    cpus: float | None = None
    memory_mb: int | None = None
    storage_mb: int | None = None
    env: dict[str, str] = Field(default_factory=dict)
    verifier_timeout_s: float = 600.0
    verifier_env: dict[str, str] = Field(default_factory=dict)
    verifier_network: Literal["off", "web"] = "off"
    verifier_allowed_hosts: tuple[str, ...] | None = None
    verifier_mode: Literal["shared", "separate"] = "shared"
    grader: Literal["test.sh", "judge.toml"]
    system_prompt: str | None = None
    domain: str | None = None  # [metadata] domain (or category, occupation): the group reports show it under
    artifacts: tuple[str, ...] = ()  # what the agent leaves for grading, relative to the workdir
    unknown_keys: tuple[str, ...] = ()
    copies: tuple[tuple[Path, str], ...] = ()  # (host source, path in the workdir) the Dockerfile copies in
    made_dirs: tuple[str, ...] = ()  # workdir directories its plain `RUN mkdir -p` lines make

    @property
    def tests_dir(self) -> Path:
        return self.root / "tests"


def is_task_dir(path: Path) -> bool:
    """Whether ``path`` looks like a Harbor task directory (it holds ``task.toml`` and ``instruction.md``)."""
    return (path / "task.toml").is_file() and (path / "instruction.md").is_file()


def _network(mode: str | None, hosts: list[str] | None) -> tuple[Literal["off", "web"], tuple[str, ...] | None]:
    """A Harbor network mode as jobenv's: no-network -> off, public -> web, allowlist -> web reaching only
    ``allowed_hosts`` (off when it names none)."""
    if mode == "public":
        return "web", None
    if mode == "allowlist" and hosts:
        return "web", tuple(hosts)
    return "off", None


_TEMPLATE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?\}")


def resolve_env(env: dict[str, str], host: dict[str, str] | None = None) -> dict[str, str]:
    """A ``[verifier]`` or ``[environment]`` ``env`` with each whole-value ``${VAR}`` / ``${VAR:-default}`` replaced from ``host`` (default:
    this process's environment). ValueError names a variable that is unset and has no default."""
    host = dict(os.environ) if host is None else host
    out = {}
    for key, value in env.items():
        m = _TEMPLATE.fullmatch(value)
        if m is None:
            out[key] = value
        elif m.group(1) in host:
            out[key] = host[m.group(1)]
        elif m.group(2) is not None:
            out[key] = m.group(2)
        else:
            raise ValueError(f"verifier env {key}: ${{{m.group(1)}}} is not set on the host and has no default")
    return out


_INSTRUCTION = re.compile(r"^\s*(COPY|ADD|WORKDIR)\s+(.*?)\s*$", re.I)


def _dockerfile_lines(text: str) -> list[str]:
    """Logical lines: continuations joined, comments dropped."""
    out, cur = [], ""
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        out.append(cur + line)
        cur = ""
    if cur:
        out.append(cur)
    return out


def copied_files(env_dir: Path, dockerfile: Path, workdir: str | None) -> tuple[str, list[tuple[Path, str]]]:
    """The Dockerfile's final WORKDIR (or ``workdir`` when the task sets one) and every (host source, path
    relative to that workdir) its COPY/ADD lines put inside the workdir. Copies from other stages, URLs and
    destinations outside the workdir are skipped. TaskFormatError for a source outside ``env_dir``."""
    lines = _dockerfile_lines(dockerfile.read_text(encoding="utf-8", errors="replace"))
    current = "/"
    copies: list[tuple[str, str, str]] = []  # (source, destination, the WORKDIR at that line)
    for line in lines:
        m = _INSTRUCTION.match(line)
        if not m:
            continue
        op, rest = m.group(1).upper(), m.group(2)
        if op == "WORKDIR":
            current = posixpath.normpath(posixpath.join(current, rest.strip().strip('"')))
            continue
        if rest.startswith("["):
            import json

            try:
                words = json.loads(rest)
            except ValueError:
                continue
        else:
            words = shlex.split(rest)
        if any(w.startswith("--from") for w in words):
            continue
        words = [w for w in words if not w.startswith("--")]
        if len(words) < 2:
            continue
        *sources, dest = words
        for src in sources:
            if "://" not in src:
                copies.append((src, dest, current))
    final = workdir or (current if current != "/" else DEFAULT_WORKDIR)
    root = env_dir.resolve()
    out: list[tuple[Path, str]] = []
    for src, dest, at in copies:
        host = (env_dir / src).resolve()
        if not host.is_relative_to(root):
            raise TaskFormatError(f"{dockerfile}: COPY source {src!r} is outside {env_dir}")
        target = posixpath.normpath(posixpath.join(at, dest))
        if target != final and not target.startswith(final.rstrip("/") + "/"):
            continue
        rel = posixpath.relpath(target, final)
        if host.is_file() and (dest.endswith("/") or rel == "."):
            rel = posixpath.join(rel, host.name)
        out.append((host, posixpath.normpath(rel)))
    return final, out


_MKDIR = re.compile(r"^\s*RUN\s+mkdir\s+-p\s+([^;&|<>`$]+?)\s*$", re.I)


def made_dirs(dockerfile: Path, workdir: str) -> list[str]:
    """Directories (relative to ``workdir``) that the Dockerfile's plain ``RUN mkdir -p ...`` lines make inside it."""
    current, out = "/", []
    for line in _dockerfile_lines(dockerfile.read_text(encoding="utf-8", errors="replace")):
        m = _INSTRUCTION.match(line)
        if m and m.group(1).upper() == "WORKDIR":
            current = posixpath.normpath(posixpath.join(current, m.group(2).strip().strip('"')))
            continue
        m = _MKDIR.match(line)
        if m:
            for word in shlex.split(m.group(1)):
                target = posixpath.normpath(posixpath.join(current, word))
                if target.startswith(workdir.rstrip("/") + "/"):
                    out.append(posixpath.relpath(target, workdir))
    return out


def _artifacts(config: HarborTaskToml, workdir: str, where: Path) -> tuple[str, ...]:
    """The artifact sources as paths relative to the workdir; TaskFormatError for one outside it (the local and
    Docker sandboxes keep only the workdir) or climbing out with ``..``."""
    out = []
    for entry in config.artifacts:
        source = entry if isinstance(entry, str) else str(entry.get("source", ""))
        if entry and not isinstance(entry, str) and entry.get("service") not in (None, "main"):
            raise TaskFormatError(f"{where}: artifact {source!r} comes from service {entry['service']!r}; "
                                  "jobenv runs one container")
        full = posixpath.normpath(posixpath.join(workdir, source))
        if ".." in source.split("/") or not full.startswith(workdir.rstrip("/") + "/"):
            raise TaskFormatError(f"{where}: artifact {source!r} is not inside the workdir {workdir} (only the "
                                  "workdir is kept after the agent's run)")
        out.append(posixpath.relpath(full, workdir))
    return tuple(out)


def read_task_dir(root: Path) -> HarborSpec:
    """Validate Harbor task directory ``root`` and resolve what jobenv applies (see the module docstring)."""
    from ..sandbox.base import check_alias

    root = Path(root)
    toml_path = root / "task.toml"
    try:
        raw = tomllib.loads(toml_path.read_text(encoding="utf-8"))
        config = HarborTaskToml.model_validate(raw)
    except FileNotFoundError:
        raise TaskFormatError(f"{toml_path}: missing (a Harbor task directory needs task.toml)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskFormatError(f"{toml_path}: not valid TOML: {exc}") from None
    except ValidationError as exc:
        where, msg, _ = first_problem(exc, "the file")
        raise TaskFormatError(f"{toml_path}: {where}: {msg}") from None
    if config.steps:
        raise TaskFormatError(f"{toml_path}: multi-step tasks ([[steps]]) are not supported")
    instruction = root / "instruction.md"
    if not instruction.is_file() or not instruction.read_text(encoding="utf-8", errors="replace").strip():
        raise TaskFormatError(f"{instruction}: missing or empty (the request given to the agent)")
    tests = root / "tests"
    grader: Literal["test.sh", "judge.toml"]
    if (tests / "test.sh").is_file():
        grader = "test.sh"
    elif (tests / "judge.toml").is_file():
        grader = "judge.toml"
    else:
        raise TaskFormatError(f"{tests}: neither test.sh nor judge.toml (nothing could grade the task)")
    unknown = config.unknown_keys()
    if unknown:
        warnings.warn(f"{toml_path}: keys jobenv does not apply: {', '.join(unknown)}", stacklevel=2)
    env = config.environment
    dockerfile = root / "environment" / "Dockerfile"
    workdir: str | None = env.workdir
    copies: list[tuple[Path, str]] = []
    if dockerfile.is_file():
        workdir, copies = copied_files(root / "environment", dockerfile, env.workdir)
    workdir = posixpath.normpath(workdir or DEFAULT_WORKDIR)
    if workdir != DEFAULT_WORKDIR:
        try:
            check_alias(workdir, DEFAULT_WORKDIR)
        except ValueError as exc:
            raise TaskFormatError(f"{toml_path}: workdir {workdir}: the local sandbox cannot serve it ({exc})") from None
    legacy = None if env.allow_internet is None else ("public" if env.allow_internet else "no-network")
    agent_mode = config.agent.network_mode or env.network_mode or legacy
    network, allowed = _network(agent_mode, config.agent.allowed_hosts or env.allowed_hosts)
    verifier_network, verifier_allowed = _network(config.verifier.network_mode, config.verifier.allowed_hosts)
    system = root / "system_prompt.md"
    name = str((config.task or {}).get("name") or root.name)
    return HarborSpec(
        name=name, root=root.resolve(), workdir=workdir, network=network, allowed_hosts=allowed,
        agent_timeout_s=config.agent.timeout_sec, docker_image=env.docker_image, cpus=env.cpus, memory_mb=env.memory_mb, storage_mb=env.storage_mb,
        env=dict(env.env), verifier_timeout_s=config.verifier.timeout_sec, verifier_env=dict(config.verifier.env),
        verifier_network=verifier_network, verifier_allowed_hosts=verifier_allowed, grader=grader,
        system_prompt=system.read_text(encoding="utf-8", errors="replace") if system.is_file() else None,
        artifacts=_artifacts(config, workdir, toml_path),
        domain=next((str(config.metadata[k]) for k in ("domain", "category", "occupation")
                     if isinstance(config.metadata.get(k), str) and config.metadata[k].strip()), None),
        verifier_mode=config.verifier.environment_mode or ("separate" if config.verifier.environment else "shared"),
        unknown_keys=tuple(unknown), copies=tuple(copies),
        made_dirs=tuple(made_dirs(dockerfile, workdir)) if dockerfile.is_file() else ())
