"""Deprecated: the prompt moved to :mod:`jobenv.episode.prompt`; this alias warns and forwards."""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["TASK_FOLDER", "OUTPUT_DIR", "build_prompt"]  # noqa: F822 - forwarded by __getattr__


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"jobenv.prompt.{name} moved to jobenv.episode.prompt.{name}", DeprecationWarning, stacklevel=2)
    from .episode import prompt

    return getattr(prompt, name)
