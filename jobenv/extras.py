"""The optional extras of the package and how a missing one is reported.

``pip install 'jobenv[docker]'`` etc. Each extra maps to the modules it provides; :func:`require` raises a
:class:`~jobenv.errors.JobenvError` (or the subclass the caller names, e.g. SandboxUnavailableError for the docker
backend) that names the ``pip install`` fixing it. Checking is by ``importlib.util.find_spec``, which does not
import the (often slow) module.
"""

from __future__ import annotations

import importlib.util

from .errors import JobenvError, MissingExtraError

__all__ = ["EXTRAS", "missing_modules", "available", "install_hint", "require", "import_failure"]

# extra -> import names it provides (the pyproject's [project.optional-dependencies] lists their distributions)
EXTRAS: dict[str, tuple[str, ...]] = {
    "docker": ("docker",),
    "hosting": ("openreward",),
    "synthetic": ("fpdf",),
    "openenv": ("openenv",),
    "verifiers": ("verifiers",),
    "ray": ("ray",),
    "nemo-gym": ("nemo_gym",),
    "skyrl": ("skyrl", "skyrl_gym", "openreward"),
    "evalscope": ("evalscope",),
}


def missing_modules(extra: str) -> list[str]:
    """The import names of ``extra`` that cannot be found (empty when the extra is installed)."""
    out = []
    for name in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(name)
    return out


def available(extra: str) -> bool:
    return not missing_modules(extra)


def install_hint(extra: str) -> str:
    return f"pip install 'jobenv[{extra}]'"


def require(extra: str, what: str, error: type[JobenvError] = MissingExtraError) -> None:
    """Raise ``error`` naming the install command when ``extra`` is not installed; otherwise do nothing."""
    missing = missing_modules(extra)
    if missing:
        raise error(f"{what} needs the {extra!r} extra (missing {', '.join(missing)}): {install_hint(extra)}")


def import_failure(extra: str, what: str, exc: ImportError) -> MissingExtraError:
    """The error for an integration whose import failed: the module really missing (the framework itself, or one
    the framework imports), then the install of ``extra``, which pins the tested range; ``what`` says what it needs."""
    name = exc.name or str(exc)
    return MissingExtraError(f"{what} cannot import {name!r} ({exc}): {install_hint(extra)}")
