"""Importing the OpenReward SDK's environment-server half without its client half.

The SDK's package ``__init__`` imports its rollout client, which imports the type modules of several model providers
(anthropic, google-genai, openai): seconds of start-up that ``jobenv serve`` never uses. The server half
(``openreward.environments``) imports only its own submodules. :func:`import_server_half` therefore registers the
``openreward`` package without running its ``__init__`` and imports ``openreward.environments``; the package body
runs on the first use of a top-level name (``openreward.OpenReward``, ``from openreward import ...``), so a later
user of the whole SDK in the same process sees the whole SDK. When ``openreward`` is already imported, nothing
changes.

Failure behaviour: the SDK not installed is MissingExtraError naming the install; an error inside the deferred
package body is raised to the code that first used a top-level name, as a normal import error would be.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

from ..errors import MissingExtraError

__all__ = ["import_server_half"]

_PACKAGE = "openreward"
_lock = threading.RLock()


def _deferred_package() -> ModuleType:
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.loader is None:
        raise MissingExtraError("hosting needs the openreward SDK: pip install 'jobenv[hosting]'")
    package = importlib.util.module_from_spec(spec)  # __path__ and __spec__ set; the body not run
    loader = spec.loader
    state = {"ran": False}

    def finish(name: str) -> Any:
        with _lock:
            if not state["ran"]:
                state["ran"] = True
                loader.exec_module(package)
        if name in package.__dict__:
            return package.__dict__[name]
        raise AttributeError(f"module {_PACKAGE!r} has no attribute {name!r}")

    package.__getattr__ = finish  # type: ignore[method-assign]  # PEP 562: runs for names the body defines
    return package


def import_server_half() -> ModuleType:
    """``openreward.environments``, imported (with the package's own body deferred when it was not loaded yet)."""
    with _lock:
        deferred = None
        if _PACKAGE not in sys.modules:
            deferred = sys.modules[_PACKAGE] = _deferred_package()
        try:
            return importlib.import_module(f"{_PACKAGE}.environments")
        except ImportError as exc:
            if deferred is not None and sys.modules.get(_PACKAGE) is deferred:
                del sys.modules[_PACKAGE]  # leave no half-made package behind
            raise MissingExtraError(f"hosting needs the openreward SDK ({exc}): pip install 'jobenv[hosting]'") from None
