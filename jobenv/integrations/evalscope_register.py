"""Making the ``evalscope`` command line find the ``jobenv`` benchmark, through evalscope's own discovery.

evalscope (1.14) has no entry-point plugins: its CLI finds a benchmark by the name-to-module index
``evalscope/benchmarks/_index.json`` and, for a name not in it, by importing every ``evalscope/benchmarks/*/*_adapter.py``.
:func:`register` adds jobenv to both, in the installed evalscope: an adapter module
``evalscope/benchmarks/jobenv/jobenv_adapter.py`` that imports :mod:`jobenv.integrations.evalscope` (whose import
registers the benchmark), and the index entry ``"jobenv": "jobenv.integrations.evalscope"`` so a run imports only
that module. ``evalscope benchmark-info --update-index`` keeps the entry (it rebuilds the index from the adapters).
Nothing here imports evalscope. :func:`unregister` removes both.

Failure behaviour: evalscope not installed is MissingExtraError naming the install; an unwritable evalscope
installation or an unreadable index is JobenvError naming the path; both leave the installation as it was.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

from ..errors import JobenvError, MissingExtraError

__all__ = ["register", "unregister", "benchmarks_dir", "ADAPTER_MODULE", "INTEGRATION_MODULE"]

INTEGRATION_MODULE = "jobenv.integrations.evalscope"
ADAPTER_MODULE = "evalscope.benchmarks.jobenv.jobenv_adapter"
_NAME = "jobenv"
_ADAPTER = (
    '"""The jobenv benchmark for evalscope\'s discovery (written by `jobenv register evalscope`; '
    '`jobenv register evalscope --remove` deletes it)."""\n\n'
    f"import {INTEGRATION_MODULE}  # noqa: F401 - its import registers the benchmark\n"
)


def benchmarks_dir() -> Path:
    """The installed evalscope's ``benchmarks`` folder (found without importing evalscope)."""
    spec = importlib.util.find_spec("evalscope")
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtraError("evalscope is not installed: pip install 'jobenv[evalscope]'")
    folder = Path(next(iter(spec.submodule_search_locations))) / "benchmarks"
    if not folder.is_dir():
        raise JobenvError(f"{folder} does not exist: this evalscope has no benchmarks folder (jobenv needs 1.14 or later)")
    return folder


def _index(folder: Path) -> tuple[Path, dict[str, str]]:
    path = folder / "_index.json"
    if not path.exists():
        return path, {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise JobenvError(f"cannot read evalscope's benchmark index {path}: {exc}") from None
    if not isinstance(data, dict):
        raise JobenvError(f"evalscope's benchmark index {path} is not a JSON object")
    return path, data


def _dump(index: dict[str, str]) -> str:
    """The index as evalscope itself writes it."""
    return json.dumps(index, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def _write(path: Path, text: str) -> None:
    """Replace ``path`` atomically (a reader never sees half an index)."""
    tmp = path.with_name(f".{path.name}.jobenv-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise JobenvError(f"cannot write {path}: {exc.strerror or exc}") from None


def register() -> Path:
    """Add the jobenv benchmark to the installed evalscope's discovery; returns the adapter module's path.
    Idempotent."""
    folder = benchmarks_dir()
    index_path, index = _index(folder)
    owner = index.get(_NAME)
    if owner not in (None, INTEGRATION_MODULE):
        raise JobenvError(f"evalscope already has a benchmark named {_NAME!r} ({owner}); not replacing it")
    adapter = folder / "jobenv" / "jobenv_adapter.py"
    try:
        adapter.parent.mkdir(exist_ok=True)
    except OSError as exc:
        raise JobenvError(f"cannot write to {adapter.parent}: {exc.strerror or exc}") from None
    _write(adapter, _ADAPTER)
    if index_path.exists():
        index[_NAME] = INTEGRATION_MODULE
        _write(index_path, _dump(index))
    return adapter


def unregister() -> bool:
    """Remove what :func:`register` added; False when nothing was there."""
    folder = benchmarks_dir()
    index_path, index = _index(folder)
    adapter = folder / "jobenv" / "jobenv_adapter.py"
    found = adapter.exists() or index.get(_NAME) == INTEGRATION_MODULE
    if index.get(_NAME) == INTEGRATION_MODULE:
        del index[_NAME]
        _write(index_path, _dump(index))
    try:
        adapter.unlink(missing_ok=True)
        for p in (adapter.parent / "__pycache__").glob("jobenv_adapter.*"):
            p.unlink()
    except OSError as exc:
        raise JobenvError(f"cannot remove {adapter}: {exc.strerror or exc}") from None
    for leftover in (adapter.parent / "__pycache__", adapter.parent):
        try:
            leftover.rmdir()
        except OSError:  # absent, or holding files jobenv did not write: left alone
            pass
    return found
