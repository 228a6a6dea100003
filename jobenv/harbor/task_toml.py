"""Harbor's ``task.toml`` as a model that accepts and refuses what Harbor's own task config accepts and refuses
(``harbor.models.task.config.TaskConfig`` of harbor 0.26).

Harbor ignores keys it does not know, so jobenv keeps them (and lists them in one warning); what Harbor refuses is
refused here too: a ``[task]`` without an ``org/name`` ``name``, an author without a name, values of the wrong type
(``cpus = "two"``, ``version = 1.0`` as a number), an unknown ``network_mode``, ``os`` or ``environment_mode``,
``allowed_hosts`` without ``network_mode = "allowlist"`` (or entries that are URLs, ports or paths), a legacy
``memory``/``storage`` size that does not parse or contradicts ``memory_mb``/``storage_mb``, a shared verifier
with an environment of its own, MCP servers, collect hooks, healthchecks and steps missing their required fields,
and artifacts whose source or destination climbs out with ``..``.

The legacy keys Harbor migrates are migrated the same way: ``version`` -> ``schema_version``, ``[environment]``
``memory``/``storage`` ("4G", "512M", "2048K") -> ``memory_mb``/``storage_mb``, ``allow_internet`` -> the
environment's ``network_mode`` (``public`` / ``no-network``) when the task sets no ``network_mode`` or
``allowed_hosts`` itself. Where the two differ jobenv is stricter only on values no sandbox can serve (a timeout
or size that is not positive).

Network, as Harbor resolves it: the environment's baseline is its ``network_mode`` (default ``public``); the agent
gets ``[agent] network_mode`` when set, else that baseline; the verifier gets ``[verifier] network_mode`` when set,
else the baseline of the environment it runs in (the task's, or ``[verifier.environment]``'s when separate).

Failure behaviour: pydantic's ValidationError (the caller turns it into a TaskFormatError naming the file).
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["HarborTaskToml", "NetworkModeName", "parse_size_mb", "Policy"]

NetworkModeName = Literal["no-network", "public", "allowlist"]
Policy = tuple[NetworkModeName, tuple[str, ...]]  # a network mode and its allow-list
_ORG_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]*/[a-zA-Z0-9][a-zA-Z0-9._-]*$")
_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
_SERVICE = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]*$")


def parse_size_mb(text: str) -> int:
    """A legacy size ("4G", "512M", "2048K") in MB, as Harbor reads it; ValueError for any other form."""
    s = text.strip().upper()
    factor = {"G": 1024.0, "M": 1.0, "K": 1 / 1024}.get(s[-1:]) if s else None
    try:
        if factor is None:
            raise ValueError
        return int(float(s[:-1]) * factor)
    except ValueError:
        raise ValueError(f"invalid size {text!r}: expected a form like '1G' or '512M'") from None


def _host(entry: str) -> str:
    """One ``allowed_hosts`` entry normalised (a hostname, ``*.suffix``, an IP address or CIDR range)."""
    host = str(entry).strip().lower().rstrip(".")
    if not host:
        raise ValueError("allowed_hosts entries must be non-empty hostnames")
    bad = f"allowed_hosts entry {entry!r} is not a hostname, IP address or CIDR range (no URLs, ports or paths)"
    if "/" in host or ":" in host:
        try:
            return (ipaddress.ip_network(host, strict=True) if "/" in host else ipaddress.ip_address(host)).compressed
        except ValueError:
            raise ValueError(bad) from None
    name = host[2:] if host.startswith("*.") else host
    if "*" in name or not all(_LABEL.match(label) for label in name.split(".")):
        raise ValueError(bad)
    return host


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow")

    def unknown(self, prefix: str) -> list[str]:
        return [f"{prefix}.{k}" for k in (self.model_extra or {})]


class _Phase(_Section):
    """``[agent]`` / ``[verifier]``: a network override of the phase, when ``network_mode`` is set."""

    network_mode: NetworkModeName | None = None
    allowed_hosts: list[str] | None = None
    user: str | int | None = None

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, v: list[str] | None) -> list[str] | None:
        return None if v is None else [_host(h) for h in v]

    @model_validator(mode="after")
    def _policy(self) -> _Phase:
        if self.allowed_hosts is not None and (self.network_mode is None or
                                               (self.allowed_hosts and self.network_mode != "allowlist")):
            raise ValueError("allowed_hosts is only valid with network_mode = 'allowlist'")
        return self

    def policy(self) -> Policy | None:
        return None if self.network_mode is None else (self.network_mode, tuple(self.allowed_hosts or ()))


class _Agent(_Phase):
    timeout_sec: float | None = Field(default=None, gt=0)


class _Healthcheck(_Section):
    command: str


class _Mcp(_Section):
    name: str
    transport: Literal["stdio", "sse", "streamable-http"] = "sse"
    url: str | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)

    @field_validator("transport", mode="before")
    @classmethod
    def _http(cls, v: Any) -> Any:
        return "streamable-http" if v == "http" else v

    @model_validator(mode="after")
    def _fields(self) -> _Mcp:
        if self.transport != "stdio" and not self.url:
            raise ValueError(f"mcp server {self.name!r}: 'url' is required for transport {self.transport!r}")
        if self.transport == "stdio" and not self.command:
            raise ValueError(f"mcp server {self.name!r}: 'command' is required for transport 'stdio'")
        return self


class _Environment(_Section):
    build_timeout_sec: float | None = None
    docker_image: str | None = None
    os: Literal["linux", "windows"] = "linux"
    cpus: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    memory_mb: int | None = Field(default=None, ge=64)
    storage_mb: int | None = Field(default=None, ge=16)
    gpus: int | None = None
    gpu_types: list[str] | None = None
    tpu: dict[str, Any] | None = None
    network_mode: NetworkModeName = "public"
    allowed_hosts: list[str] | None = None
    allow_internet: bool | None = None  # legacy: the network_mode before there was one
    mcp_servers: list[_Mcp] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    skills_dir: str | None = None
    healthcheck: _Healthcheck | None = None
    workdir: str | None = None

    @field_validator("os", mode="before")
    @classmethod
    def _os(cls, v: Any) -> Any:
        return v.lower() if isinstance(v, str) else v

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, v: list[str] | None) -> list[str] | None:
        return None if v is None else [_host(h) for h in v]

    @model_validator(mode="before")
    @classmethod
    def _legacy_sizes(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for old, new in (("memory", "memory_mb"), ("storage", "storage_mb")):
            if old not in data:
                continue
            value = data.pop(old)
            if isinstance(value, str):  # Harbor drops a legacy size that is not a string
                mb = parse_size_mb(value)
                if new in data and data[new] != mb:
                    raise ValueError(f"{old} = {value!r} ({mb} MB) contradicts {new} = {data[new]!r}")
                data.setdefault(new, mb)
        if data.get("allow_internet") is not None and "network_mode" not in data and data.get("allowed_hosts") is None:
            data["network_mode"] = "public" if data["allow_internet"] else "no-network"
        return data

    @model_validator(mode="after")
    def _policy(self) -> _Environment:
        if self.allowed_hosts and self.network_mode != "allowlist":
            raise ValueError("allowed_hosts is only valid with network_mode = 'allowlist'")
        return self

    def baseline(self) -> Policy:
        return self.network_mode, tuple(self.allowed_hosts or ())


class _Collect(_Section):
    command: str
    service: str = "main"
    timeout_sec: float = 60.0
    user: str | int | None = None


class _Verifier(_Phase):
    timeout_sec: float = Field(default=600.0, gt=0)
    env: dict[str, str] = Field(default_factory=dict)
    environment_mode: Literal["shared", "separate"] | None = None
    environment: _Environment | None = None  # a verifier image of its own: implies "separate"
    collect: list[_Collect] = Field(default_factory=list)

    @model_validator(mode="after")
    def _mode(self) -> _Verifier:
        if self.environment_mode == "shared" and self.environment is not None:
            raise ValueError("environment_mode = 'shared' is incompatible with [verifier.environment]")
        return self


class _Artifact(_Section):
    source: str
    destination: str | None = None
    exclude: list[str] = Field(default_factory=list)
    service: str | None = None

    @model_validator(mode="after")
    def _paths(self) -> _Artifact:
        if ".." in self.source.split("/"):
            raise ValueError(f"artifact source must not contain '..': {self.source!r}")
        dest = self.destination
        if dest and (dest.startswith("/") or "\\" in dest or ".." in dest.split("/") or dest.rstrip("/") == "manifest.json"):
            raise ValueError(f"artifact destination {dest!r} must be a relative path inside the artifacts folder")
        if self.service is not None and not _SERVICE.match(self.service.strip()):
            raise ValueError(f"invalid compose service name {self.service!r}")
        return self


class _Author(BaseModel):
    name: str
    email: str | None = None


class _Package(_Section):
    name: str
    version: str | None = Field(default=None, min_length=1)
    description: str = ""
    authors: list[_Author] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _org_name(cls, v: str) -> str:
        if not _ORG_NAME.match(v) or ".." in v:
            raise ValueError(f"the task name must be 'org/name' (letters, digits, '.', '_', '-'), got {v!r}")
        return v


def _artifact_list(v: Any) -> Any:
    """Artifact tables validated one by one, so a bad table is reported for itself (not as "not a string")."""
    from pydantic import ValidationError

    if not isinstance(v, list):
        return v
    out = []
    for entry in v:
        try:
            out.append(_Artifact.model_validate(entry) if isinstance(entry, dict) else entry)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise ValueError(f"artifact {entry!r}: {err['msg'].removeprefix('Value error, ')}") from None
    return out


class _Step(_Section):
    name: str
    agent: _Agent = Field(default_factory=_Agent)
    verifier: _Verifier = Field(default_factory=_Verifier)
    min_reward: float | dict[str, float] | None = None
    healthcheck: _Healthcheck | None = None
    artifacts: list[str | _Artifact] = Field(default_factory=list)

    @field_validator("artifacts", mode="before")
    @classmethod
    def _artifact_tables(cls, v: Any) -> Any:
        return _artifact_list(v)


class HarborTaskToml(BaseModel):
    """``task.toml`` (see the module docstring); keys Harbor does not know are kept, :meth:`unknown_keys` lists
    them with the known ones jobenv cannot serve."""

    model_config = ConfigDict(extra="allow")

    schema_version: str = "1.4"
    task: _Package | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    agent: _Agent = Field(default_factory=_Agent)
    verifier: _Verifier = Field(default_factory=_Verifier)
    environment: _Environment = Field(default_factory=_Environment)
    solution: dict[str, Any] = Field(default_factory=dict)
    source: str | None = None
    multi_step_reward_strategy: Literal["mean", "final"] | None = None
    steps: list[_Step] | None = None
    artifacts: list[str | _Artifact] = Field(default_factory=list)

    @field_validator("artifacts", mode="before")
    @classmethod
    def _artifact_tables(cls, v: Any) -> Any:
        return _artifact_list(v)

    @model_validator(mode="before")
    @classmethod
    def _legacy_version(cls, data: Any) -> Any:
        if isinstance(data, dict) and "version" in data:
            data = dict(data)
            data.setdefault("schema_version", data.pop("version"))
        return data

    def agent_policy(self) -> Policy:
        """The agent phase's network: ``[agent]``'s override, else the environment's baseline."""
        return self.agent.policy() or self.environment.baseline()

    def verifier_policy(self) -> Policy:
        """The verifier phase's network: ``[verifier]``'s override, else the baseline of its environment."""
        own = self.verifier.environment
        return self.verifier.policy() or (own.baseline() if own is not None else self.environment.baseline())

    def artifact_sources(self) -> list[tuple[str, str | None]]:
        """(source, compose service) of every artifact."""
        return [(a, None) if isinstance(a, str) else (a.source, a.service) for a in self.artifacts]

    def unknown_keys(self) -> list[str]:
        """Keys jobenv does not apply: unknown ones, and known ones it cannot serve (GPUs, TPUs, MCP servers,
        skills, healthchecks, collect hooks, a verifier image of its own, agent and verifier users)."""
        env, ver = self.environment, self.verifier
        unserved = [k for k, v in (("environment.gpus", env.gpus), ("environment.gpu_types", env.gpu_types),
                                   ("environment.tpu", env.tpu), ("environment.mcp_servers", env.mcp_servers),
                                   ("environment.skills_dir", env.skills_dir),
                                   ("environment.healthcheck", env.healthcheck),
                                   ("verifier.environment", ver.environment), ("verifier.collect", ver.collect),
                                   ("agent.user", self.agent.user), ("verifier.user", ver.user)) if v]
        task = self.task.unknown("task") if self.task is not None else []
        return sorted({*(self.model_extra or {}), *self.agent.unknown("agent"), *ver.unknown("verifier"),
                       *env.unknown("environment"), *task, *unserved})
