"""Every ``JOBENV_*`` environment variable, read here and nowhere else, and the data and cache paths.

Values are read on every call (a test or a long-lived server that changes a variable is followed). A variable not in
:data:`VARIABLES` is a programming error (KeyError), so the table below is the whole list users can set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["VARIABLES", "get", "data_dir", "cache_dir", "host_only_dirs", "EXTRACT_PREFIX", "CHILD_VARIABLES",
           "CHILD_SETTINGS", "child_env"]

EXTRACT_PREFIX = "JOBENV_EXTRACT_"

VARIABLES: dict[str, str] = {
    "JOBENV_DATA": "where downloaded datasets live (default ~/.cache/jobenv)",
    "JOBENV_CACHE": "where caches live, e.g. the judge's verdicts (default ~/.cache/jobenv)",
    "JOBENV_JOBTASKS_REPO": "Hugging Face id of the JobTasks mirror",
    "JOBENV_SANDBOX": "sandbox backend when none is given: local or docker",
    "JOBENV_TOOLCHAIN": "folder of the local sandbox's toolchain, or none (default ~/.cache/jobenv-toolchain/<version>)",
    "JOBENV_CONTROLLER": "PID 1 of local sandboxes: auto (native when it can be built), native or python",
    "JOBENV_WARM_SANDBOXES": "local sandboxes launched ahead per configuration, for fast starts (default 2; 0: none)",
    "JOBENV_SANDBOX_IMAGE": "Docker image of the docker sandbox when none is given",
    "JOBENV_JUDGE_BASE_URL": "OpenAI-compatible endpoint of the LLM judge",
    "JOBENV_JUDGE_API_KEY": "API key of the LLM judge",
    "JOBENV_JUDGE_MODEL": "model of the LLM judge",
    "JOBENV_JUDGE_CACHE": "0 turns the judge's verdict cache off",
    "JOBENV_JUDGE_CHECK": "0 skips the one request that checks the judge's endpoint and model at make()",
    "JOBENV_SERVE_JUDGE": "judge kind of jobenv serve (auto, checks, llm)",
    "JOBENV_SERVE_ENVS": "comma-separated hosted classes of jobenv serve, the first the default route",
    "JOBENV_SERVE_IDLE_TIMEOUT": "seconds without a tool call before a hosted session's sandbox is closed",
    "JOBENV_SERVE_API_KEY": "the key every request to jobenv serve must carry",
    "JOBENV_RECALC": "workbook recalculation engine: auto, libreoffice, formulas or none",
    "JOBENV_DEBIAN_MIRROR": "Debian mirror for jobenv build-image",
    "JOBENV_EXTRACT_DEBUG": "1 shows the extraction workers' stderr",
    **{f"{EXTRACT_PREFIX}{k}": f"extraction workers' {k.lower().replace('_', ' ')} (see ExtractLimits)"
       for k in ("WORKERS", "MEMORY_MB", "FILE_TIME_S", "OUTPUT_TIME_S", "IMAGE_LIMIT", "IMAGE_MB", "MAX_JOBS")},
}


def get(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The value of ``name`` (one of :data:`VARIABLES`; KeyError otherwise), None when unset or empty."""
    if name not in VARIABLES:
        raise KeyError(f"{name} is not a jobenv setting")
    value = (os.environ if environ is None else environ).get(name)
    return value or None


def _home_cache() -> Path:
    return Path.home() / ".cache" / "jobenv"


def data_dir() -> Path:
    """``$JOBENV_DATA`` if set, else ``~/.cache/jobenv``."""
    value = get("JOBENV_DATA")
    return Path(value).expanduser() if value else _home_cache()


def cache_dir() -> Path:
    """``$JOBENV_CACHE`` if set, else ``~/.cache/jobenv``."""
    value = get("JOBENV_CACHE")
    return Path(value).expanduser() if value else _home_cache()


def toolchain_dir(tag: str) -> Path | None:
    """``$JOBENV_TOOLCHAIN`` (``none``: no toolchain) if set, else ``~/.cache/jobenv-toolchain/<tag>`` (beside the
    cache, not inside it: sandboxes mount the toolchain, and never the cache)."""
    value = get("JOBENV_TOOLCHAIN")
    if value is not None and value.strip().lower() in ("none", "off", "0"):
        return None
    if value:
        return Path(value).expanduser().absolute()
    return Path.home() / ".cache" / "jobenv-toolchain" / tag


def host_only_dirs() -> list[Path]:
    """The folders of this user's jobenv data and caches (set or default), which no sandbox may show."""
    return [data_dir(), cache_dir(), _home_cache()]


#: the host's variables a child process that handles agent-made data inherits (extraction workers and the programs
#: they start): what finding programs and libraries, locale and time need, and nothing else. An allow-list, so a
#: secret passes whatever its name (DATABASE_URL with a password in it, GITHUB_PAT, a cloud token): none does.
CHILD_VARIABLES = frozenset({"PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "TZ", "LD_LIBRARY_PATH"})
#: jobenv's own settings such a child reads (never the judge's or the server's key)
CHILD_SETTINGS = frozenset({"JOBENV_DATA", "JOBENV_CACHE", "JOBENV_RECALC", "JOBENV_EXTRACT_DEBUG",
                            *(k for k in VARIABLES if k.startswith(EXTRACT_PREFIX))})


def child_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The part of ``environ`` (default: this process's) a child that handles agent-made data may see: the names
    in :data:`CHILD_VARIABLES`, ``LC_*`` and :data:`CHILD_SETTINGS`. The one rule for every such child (extraction
    workers, LibreOffice, the programs that launch a local sandbox and carry its web traffic); a sandbox's commands
    inherit nothing at all (:func:`jobenv.sandbox.base.command_env`)."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if k in CHILD_VARIABLES or k in CHILD_SETTINGS or k.startswith("LC_")}
