"""A Harbor task directory read into what jobenv runs: ``task.toml`` (schema 1.4, the legacy ``version`` key too),
``instruction.md`` (and ``system_prompt.md``), ``environment/`` and ``tests/``.

:func:`read_task_dir` validates the directory (``task.toml`` as Harbor validates it,
:mod:`jobenv.harbor.task_toml`) and returns a :class:`HarborSpec`: the workdir, network, limits, timeouts and
verifier settings jobenv applies, and where the workspace files are. Keys of ``task.toml`` jobenv does not apply
are tolerated and listed in one warning. The workspace files are what the environment's Dockerfile
``COPY``/``ADD``s into the workdir, and the directories a ``RUN mkdir -p ...`` line makes there; every other
``RUN`` step is listed in ``run_steps`` (the local sandbox cannot apply them, so such a task needs the docker
backend: :func:`jobenv.harbor.run.check_environments`). Without a Dockerfile the workspace starts empty.

The grader: ``tests/test.sh``, except where ``tests/judge.toml`` stands beside harbor-rewardkit's ``test.sh`` (or
alone), DAYJOB's layout: then jobenv's judge grades the judge.toml and the test.sh is not run.

Failure behaviour: TaskFormatError naming the file and the problem for a ``task.toml`` Harbor refuses, a missing
or empty ``instruction.md``, a ``tests/`` with neither ``test.sh`` nor ``judge.toml``, a compose or multi-step
task (named as such: jobenv does not run them), a non-Linux task, a copy source outside ``environment/`` and a
workdir the local sandbox cannot serve.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
import tomllib
import warnings
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import TaskFormatError, first_problem
from .task_toml import HarborTaskToml, Policy

__all__ = ["resolve_env", "HarborSpec", "HarborTaskToml", "read_task_dir", "is_task_dir", "copied_files", "made_dirs",
           "DEFAULT_WORKDIR", "unsupported_reason", "run_steps"]

DEFAULT_WORKDIR = "/workspace"
COMPOSE_FILES = ("docker-compose.yaml", "docker-compose.yml", "compose.yaml", "compose.yml")


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
    run_steps: tuple[str, ...] = ()  # the Dockerfile's RUN steps the local sandbox does not apply

    @property
    def tests_dir(self) -> Path:
        return self.root / "tests"


def is_task_dir(path: Path) -> bool:
    """Whether ``path`` looks like a Harbor task directory (it holds ``task.toml`` and ``instruction.md``, or the
    ``steps/`` folder of a multi-step task)."""
    return (path / "task.toml").is_file() and ((path / "instruction.md").is_file() or (path / "steps").is_dir())


def unsupported_reason(root: Path) -> str | None:
    """Why jobenv does not run the Harbor task at ``root`` although Harbor may (a compose environment, a
    multi-step task), or None. Reads only what it needs; a malformed task.toml is :func:`read_task_dir`'s to
    report."""
    env = root / "environment"
    compose = next((env / f for f in COMPOSE_FILES if (env / f).is_file()), None)
    if compose is not None:
        return (f"{compose}: a compose task (its environment is a Docker Compose project of services started "
                "together); jobenv runs each episode in one sandbox and does not run compose environments")
    try:
        steps = tomllib.loads((root / "task.toml").read_text(encoding="utf-8")).get("steps")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    if steps:
        names = [str(s.get("name")) for s in steps if isinstance(s, dict)]
        return (f"{root / 'task.toml'}: a multi-step task ([[steps]] {', '.join(names)}: Harbor runs each step's "
                "instruction and tests in turn in one environment); jobenv runs one instruction and one grading "
                "per episode and does not run multi-step tasks")
    return None


def _network(policy: Policy) -> tuple[Literal["off", "web"], tuple[str, ...] | None]:
    """A Harbor network policy as jobenv's: no-network -> off, public -> web, allowlist -> web reaching only its
    hosts (off when it names none)."""
    mode, hosts = policy
    if mode == "public":
        return "web", None
    if mode == "allowlist" and hosts:
        return "web", hosts
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


def _mkdir_targets(line: str, current: str) -> list[str] | None:
    """The absolute directories a plain ``RUN mkdir -p ...`` line makes (None for any other line)."""
    m = _MKDIR.match(line)
    return None if m is None else [posixpath.normpath(posixpath.join(current, w)) for w in shlex.split(m.group(1))]


def _walk_runs(dockerfile: Path) -> list[tuple[str, str]]:
    """(logical line, the WORKDIR at it) of every RUN line (and COPY/ADD ``--from`` another stage or image) of the
    Dockerfile's last stage."""
    current, out = "/", list[tuple[str, str]]()
    for line in _dockerfile_lines(dockerfile.read_text(encoding="utf-8", errors="replace")):
        m = _INSTRUCTION.match(line)
        if m and m.group(1).upper() == "WORKDIR":
            current = posixpath.normpath(posixpath.join(current, m.group(2).strip().strip('"')))
        elif re.match(r"^\s*FROM\s", line, re.I):
            current, out = "/", []  # only the final stage's steps shape the image the agent works in
        elif re.match(r"^\s*(RUN\s|(COPY|ADD)\s.*--from[=\s])", line, re.I):  # a copy out of another image too
            out.append((" ".join(line.split()), current))
    return out


def made_dirs(dockerfile: Path, workdir: str) -> list[str]:
    """Directories (relative to ``workdir``) that the Dockerfile's plain ``RUN mkdir -p ...`` lines make inside it."""
    out = []
    for line, current in _walk_runs(dockerfile):
        for target in _mkdir_targets(line, current) or []:
            if target.startswith(workdir.rstrip("/") + "/"):
                out.append(posixpath.relpath(target, workdir))
    return out


def run_steps(dockerfile: Path, workdir: str) -> list[str]:
    """The Dockerfile's steps the local sandbox cannot apply: every RUN step but plain ``mkdir -p`` lines making
    directories inside ``workdir`` (or the workdir itself), and copies out of another stage or image."""
    inside = workdir.rstrip("/") + "/"
    return [line for line, current in _walk_runs(dockerfile)
            if not all(t == workdir or t.startswith(inside) for t in (_mkdir_targets(line, current) or ["/"]))]


def _artifacts(config: HarborTaskToml, workdir: str, where: Path) -> tuple[str, ...]:
    """The artifact sources as paths relative to the workdir; TaskFormatError for one outside it (the local and
    Docker sandboxes keep only the workdir) or climbing out with ``..``."""
    out = []
    for source, service in config.artifact_sources():
        if service not in (None, "main"):
            raise TaskFormatError(f"{where}: artifact {source!r} comes from service {service!r}; "
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
    why = unsupported_reason(root)
    if why is not None:
        raise TaskFormatError(why)
    if config.environment.os != "linux":
        raise TaskFormatError(f"{toml_path}: [environment] os = {config.environment.os!r}: jobenv's sandboxes run "
                              "Linux only")
    instruction = root / "instruction.md"
    if not instruction.is_file() or not instruction.read_text(encoding="utf-8", errors="replace").strip():
        raise TaskFormatError(f"{instruction}: missing or empty (the request given to the agent)")
    tests = root / "tests"
    grader: Literal["test.sh", "judge.toml"]
    if (tests / "judge.toml").is_file() and (not (tests / "test.sh").is_file() or _runs_rewardkit(tests / "test.sh")):
        grader = "judge.toml"  # DAYJOB's layout: rewardkit's test.sh would only call a judge on judge.toml
    elif (tests / "test.sh").is_file():
        grader = "test.sh"
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
    network, allowed = _network(config.agent_policy())
    verifier_network, verifier_allowed = _network(config.verifier_policy())
    system = root / "system_prompt.md"
    name = config.task.name if config.task is not None else root.name
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
        made_dirs=tuple(made_dirs(dockerfile, workdir)) if dockerfile.is_file() else (),
        run_steps=tuple(run_steps(dockerfile, workdir)) if dockerfile.is_file() else ())


def _runs_rewardkit(test_sh: Path) -> bool:
    """Whether a test.sh is harbor-rewardkit's runner (it names the package or its command)."""
    return "rewardkit" in test_sh.read_text(encoding="utf-8", errors="replace")
