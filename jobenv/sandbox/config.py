"""A sandbox's configuration: backend, backend options and limits in one pydantic model.

``SandboxConfig.from_env(**overrides)`` reads ``JOBENV_SANDBOX`` (backend) and ``JOBENV_SANDBOX_IMAGE`` (Docker
image) where an override does not give them — the one place those variables are read. ``config.make()``
builds an unstarted sandbox; a bad backend name, an option the backend does not take or a bad limit is a
:class:`~jobenv.errors.SandboxError` naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import SandboxError, first_problem
from .base import SandboxLimits

if TYPE_CHECKING:
    from .base import Sandbox

__all__ = ["SandboxConfig", "BACKENDS", "ENV_BACKEND", "ENV_IMAGE"]

BACKENDS = ("local", "docker")
ENV_BACKEND = "JOBENV_SANDBOX"
ENV_IMAGE = "JOBENV_SANDBOX_IMAGE"
# the options each backend takes besides its limits
_BACKEND_OPTIONS = {"local": {"unsafe_no_isolation"}, "docker": {"image", "base_url", "seed"}}


class SandboxConfig(BaseModel):
    """``backend`` plus the options it takes (``local``: ``unsafe_no_isolation``; ``docker``: ``image``,
    ``base_url`` of the Docker engine, ``seed``: a folder of the image that fills the workspace) and the resource
    ``limits``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: Literal["local", "docker"] = "local"
    limits: SandboxLimits = Field(default_factory=SandboxLimits)
    options: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def build(cls, backend: str = "local", *, limits: SandboxLimits | Mapping[str, Any] | None = None,
              **options: Any) -> SandboxConfig:
        """Validate; SandboxError names an unknown backend, an option it does not take (an image for a backend
        other than docker says so), or a bad limit. An option given as None counts as not given."""
        if backend not in BACKENDS:
            raise SandboxError(f"unknown sandbox backend {backend!r}; choose one of {', '.join(BACKENDS)} "
                               "or pass a Sandbox")
        options = {k: v for k, v in options.items() if v is not None}
        if "image" in options and backend != "docker":
            raise SandboxError("a sandbox image needs the docker sandbox (--sandbox docker)")
        unknown = sorted(set(options) - _BACKEND_OPTIONS[backend])
        if unknown:
            raise SandboxError(f"the {backend!r} sandbox takes no option {', '.join(unknown)} "
                               f"(it takes: {', '.join(sorted(_BACKEND_OPTIONS[backend])) or 'none'})")
        try:
            lim = limits if isinstance(limits, SandboxLimits) else SandboxLimits(**dict(limits or {}))
            return cls.model_validate({"backend": backend, "limits": lim, "options": options})
        except ValidationError as exc:
            where, msg, _ = first_problem(exc, "limits")
            raise SandboxError(f"sandbox limit {where}: {msg}") from None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> SandboxConfig:
        """``overrides`` with the backend from ``JOBENV_SANDBOX`` and the Docker image from
        ``JOBENV_SANDBOX_IMAGE`` where not given (None counts as not given), read through :mod:`jobenv.settings`
        (``environ``: the variables to read; default the process's). SandboxError as :meth:`build` says."""
        from .. import settings

        backend = overrides.pop("backend", None) or settings.get(ENV_BACKEND, environ) or "local"
        if backend == "docker" and overrides.get("image") is None:
            overrides["image"] = settings.get(ENV_IMAGE, environ)
        return cls.build(backend, **overrides)

    def make(self) -> Sandbox:
        """A new, unstarted sandbox of this configuration."""
        if self.backend == "local":
            from .local import LocalSandbox

            return LocalSandbox(self.limits, **self.options)
        from ..errors import SandboxUnavailableError
        from ..extras import require

        require("docker", "the docker sandbox", SandboxUnavailableError)
        from .docker import DockerSandbox

        return DockerSandbox(self.limits, **self.options)
