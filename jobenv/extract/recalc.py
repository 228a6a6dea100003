"""Recalculating workbook formulas: LibreOffice headless where ``soffice`` exists, else (only then) the pure-Python
``formulas`` package, so a workbook written by openpyxl (formulas without cached values) or one with
stale cached values shows what its formulas actually compute.

:func:`recalculate` returns a :class:`Recalculation`: the engine that computed the values and, per sheet
and cell coordinate, a :class:`CellValue` (a value or an Excel error code). :func:`jobenv.extract.sheets.formula_values`
is the plain-dict view other graders use. Engine choice: ``engine=`` or ``$JOBENV_RECALC`` (``auto`` - the
default -, ``libreoffice``, ``formulas``, ``none``).

Failure behaviour: never raises for a bad workbook or a missing engine. When no engine can run, the
result has ``engine == "none"`` and ``note`` says why; a cell an engine could not evaluate is simply
absent from ``cells`` (callers mark it, never show it blank). LibreOffice runs with a private profile
that recalculates on load, no macros, a CPU-time limit (wall time only as a far backstop), and its own temporary
directory.
"""

from __future__ import annotations

import atexit
import hashlib
import io
import math
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date, datetime
from datetime import time as dtime
from pathlib import Path
from typing import Any, Literal

from .. import settings
from .bounds import WALL_FACTOR

__all__ = [
    "ENV_ENGINE",
    "Engine",
    "CellValue",
    "Recalculation",
    "recalculate",
    "recalculate_batch",
    "soffice_path",
    "EXCEL_ERRORS",
]

ENV_ENGINE = "JOBENV_RECALC"
Engine = Literal["auto", "libreoffice", "formulas", "none"]
EXCEL_ERRORS = frozenset(
    "#NULL! #DIV/0! #VALUE! #REF! #NAME? #NUM! #N/A #GETTING_DATA #SPILL! #CALC! #FIELD! #BLOCKED! #CONNECT! "
    "#BUSY! #UNKNOWN! Err:502 Err:504 Err:508 Err:511 Err:522 Err:523".split()
)
LIBREOFFICE_CPU_S = 180  # CPU seconds of each LibreOffice process (RLIMIT_CPU); wall time is a backstop only
FORMULAS_MAX_FORMULAS = 20_000  # the pure-Python engine builds a graph of every cell (~5 s per 1,000 formulas): bound its cost
_CACHE_SIZE = 32


@dataclass(frozen=True)
class CellValue:
    """One recalculated cell: ``value`` (number, text, bool, ISO date string or None for empty) or ``error``."""

    value: Any = None
    error: str | None = None


@dataclass
class Recalculation:
    """What an engine computed. ``engine`` is "libreoffice", "formulas" or "none"; ``label`` names it for
    people (with its version); ``cells`` maps sheet name -> coordinate ("C2") -> value."""

    engine: str
    label: str
    cells: dict[str, dict[str, CellValue]] = field(default_factory=dict)
    note: str = ""
    seconds: float = 0.0

    def get(self, sheet: str, coordinate: str) -> CellValue | None:
        return self.cells.get(sheet, {}).get(coordinate)


def soffice_path() -> str | None:
    """The LibreOffice binary on PATH (``soffice`` or ``libreoffice``), or None."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def _chosen(engine: str | None) -> str:
    name = (engine or settings.get(ENV_ENGINE) or "auto").strip().lower()
    if name not in ("auto", "libreoffice", "formulas", "none"):
        raise ValueError(f"unknown recalculation engine {name!r}: expected auto, libreoffice, formulas or none")
    return name


_cache: OrderedDict[tuple[str, str, str], Recalculation] = OrderedDict()
_cache_lock = threading.Lock()


def recalculate(path: Path | str, *, engine: str | None = None, formula_cells: dict[str, list[str]] | None = None) -> Recalculation:
    """Recalculate every formula of the workbook at ``path`` with the chosen engine.

    ``auto`` uses LibreOffice when ``soffice`` is on PATH (a workbook it cannot load gets engine "none" and a note,
    never another engine's reading) and ``formulas`` only where LibreOffice is not installed; ``formula_cells`` (sheet -> coordinates) limits what is read back (default: every
    cell the engine reports). Results are cached in memory by file content and engine. Never raises for a
    bad workbook; an unknown engine name raises ValueError.
    """
    path = Path(path)
    name = _chosen(engine)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        return Recalculation("none", "none", note=f"workbook unreadable: {exc}")
    wanted = repr(sorted((k, sorted(v)) for k, v in (formula_cells or {}).items()))
    key = (digest, name + ("+lo" if name == "auto" and soffice_path() else ""), wanted)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    t0 = time.perf_counter()
    result = _run(path, name, formula_cells, digest)
    result.seconds = round(time.perf_counter() - t0, 3)
    with _cache_lock:
        _cache[key] = result
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return result


def _run(path: Path, name: str, formula_cells: dict[str, list[str]] | None, digest: str) -> Recalculation:
    if name == "none":
        return Recalculation("none", "none", note="recalculation switched off")
    if name == "formulas":
        return _formulas(path, formula_cells)
    if soffice_path():
        # no fall-back when LibreOffice is there but cannot load the workbook: the other engine reads
        # differently (a workbook LibreOffice refuses is said to be refused, not quietly read another way)
        return _libreoffice(path, formula_cells, digest)
    missing = "LibreOffice (soffice) is not installed"
    if name == "libreoffice":
        return Recalculation("none", "none", note=missing)
    res = _formulas(path, formula_cells)
    res.note = f"{missing}; {res.note}" if res.note else missing
    return res


def plain(value: Any) -> Any:
    """A JSON-friendly scalar: dates as ISO strings, NaN as None, numpy scalars as Python numbers."""
    if isinstance(value, (datetime, date, dtime)):
        return value.isoformat()
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()
        except (TypeError, ValueError):
            return str(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


# ---------------------------------------------------------------------------------------------- LibreOffice

# A profile that recalculates OOXML and ODF documents on load ("always"), so stale caches are replaced, runs no
# macros and never updates links to other files.
_PROFILE_XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Content/Update"><prop oor:name="Link" oor:op="fuse"><value>2</value></prop></item>
</oor:items>
"""
_lo_version: str | None = None
_lo_lock = threading.Lock()
_lo_profile: tuple[int, Path] | None = None  # (pid, directory): a forked child makes its own


def _profile() -> Path:
    """This process's LibreOffice profile (made once: a fresh profile costs seconds per start). Call under _lo_lock."""
    global _lo_profile
    if _lo_profile is None or _lo_profile[0] != os.getpid() or not _lo_profile[1].is_dir():
        root = Path(tempfile.mkdtemp(prefix="jobenv-lo-profile-"))
        (root / "user").mkdir()
        (root / "user" / "registrymodifications.xcu").write_text(_PROFILE_XCU, encoding="utf-8")
        atexit.register(shutil.rmtree, root, True)
        _lo_profile = (os.getpid(), root)
    return _lo_profile[1]


def _libreoffice_label(soffice: str) -> str:
    global _lo_version
    if _lo_version is None:
        try:
            out = subprocess.run([soffice, "--version"], capture_output=True, text=True, timeout=60).stdout
            m = re.search(r"LibreOffice\s+([\d.]+)", out)
            _lo_version = m.group(1) if m else "unknown version"
        except (OSError, subprocess.SubprocessError):
            _lo_version = "unknown version"
    return f"LibreOffice {_lo_version} (headless)"


def _cpu_limit() -> None:
    """In the LibreOffice child: at most LIBREOFFICE_CPU_S CPU seconds (SIGXCPU, then SIGKILL 5 s later)."""
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (LIBREOFFICE_CPU_S, LIBREOFFICE_CPU_S + 5))


# workbook digest -> the copy LibreOffice recalculated and saved (read back per caller's cells)
_converted: OrderedDict[str, bytes] = OrderedDict()


def _convert(soffice: str, paths: list[Path], tmp: str) -> tuple[list[Path | None], str]:
    """One LibreOffice run recalculating and saving every workbook of ``paths`` (a start costs about a second, a
    workbook a fraction of one): the saved copies in order (None where none was written) and, when LibreOffice
    could not run, why. Call under _lo_lock."""
    label = _libreoffice_label(soffice)
    srcs = []
    for i, path in enumerate(paths):
        src = Path(tmp) / f"in{i}{path.suffix.lower()}"
        shutil.copyfile(path, src)  # a plain name: agent file names never reach the command line
        srcs.append(src)
    outdir = Path(tmp) / "out"
    env = {**settings.child_env(), "HOME": tmp, "TMPDIR": tmp, "SAL_USE_VCLPLUGIN": "svp"}
    cmd = [soffice, f"-env:UserInstallation={_profile().as_uri()}", "--headless", "--norestore", "--nologo",
           "--nodefault", "--nolockcheck", "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(outdir),
           *map(str, srcs)]
    try:
        proc = subprocess.run(cmd, capture_output=True, timeout=LIBREOFFICE_CPU_S * WALL_FACTOR, env=env, cwd=tmp,
                              preexec_fn=_cpu_limit)
    except subprocess.TimeoutExpired:
        return [None] * len(paths), f"{label} timed out after {LIBREOFFICE_CPU_S * WALL_FACTOR:g} s"
    except OSError as exc:
        return [None] * len(paths), f"{label} could not start: {exc}"
    outs = [outdir / f"in{i}.xlsx" for i in range(len(paths))]
    err = (proc.stderr or b"").decode("utf-8", "replace").strip().splitlines()
    return [o if o.is_file() else None for o in outs], f"{label} produced no file" + (f": {err[-1][:200]}" if err else "")


def _keep_converted(digest: str, data: bytes) -> None:
    with _cache_lock:
        _converted[digest] = data
        _converted.move_to_end(digest)
        while len(_converted) > _CACHE_SIZE:
            _converted.popitem(last=False)


def recalculate_batch(paths: list[str]) -> int:
    """Recalculate several workbooks in one LibreOffice run, ahead of the :func:`recalculate` calls that will read
    them (a generator's gates grade a dozen answer workbooks in a row). Returns how many were recalculated now;
    0 when LibreOffice is not the engine in use. Never raises for a bad workbook (it is left for
    :func:`recalculate` to report)."""
    soffice = soffice_path()
    if soffice is None or _chosen(None) not in ("auto", "libreoffice"):
        return 0
    todo: dict[str, Path] = {}
    for p in map(Path, paths):
        try:
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
        except OSError:
            continue
        with _cache_lock:
            if digest not in _converted:
                todo.setdefault(digest, p)
    todo = dict(list(todo.items())[:_CACHE_SIZE])
    if not todo:
        return 0
    tmp = tempfile.mkdtemp(prefix="jobenv-lo-")
    try:
        with _lo_lock:
            outs, _ = _convert(soffice, list(todo.values()), tmp)
        for digest, out in zip(todo, outs, strict=True):
            if out is not None:
                _keep_converted(digest, out.read_bytes())
        return sum(o is not None for o in outs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _libreoffice(path: Path, formula_cells: dict[str, list[str]] | None, digest: str) -> Recalculation:
    """``path`` recalculated by LibreOffice (``digest``: its content's, as :func:`recalculate` keyed it), or the copy
    a batch run kept for that content."""
    soffice = soffice_path()
    if soffice is None:
        return Recalculation("none", "none", note="LibreOffice (soffice) is not installed")
    label = _libreoffice_label(soffice)
    tmp = tempfile.mkdtemp(prefix="jobenv-lo-")
    try:
        with _cache_lock:
            done = _converted.get(digest)
        if done is None:
            with _lo_lock:  # one conversion at a time per process: soffice is memory-hungry, the profile is shared
                (made,), why = _convert(soffice, [path], tmp)
            if made is None:
                return Recalculation("none", "none", note=why)
            done = made.read_bytes()
            _keep_converted(digest, done)
        return Recalculation("libreoffice", label, cells=_read_back(io.BytesIO(done), formula_cells))
    except Exception as exc:  # a broken conversion is a note, never a crash
        return Recalculation("none", "none", note=f"{label} failed: {type(exc).__name__}: {exc}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _read_back(path: Path | io.BytesIO, formula_cells: dict[str, list[str]] | None) -> dict[str, dict[str, CellValue]]:
    """Cached values of the recalculated copy LibreOffice wrote (every non-empty cell, or the requested ones)."""
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    cells: dict[str, dict[str, CellValue]] = {}
    try:
        for ws in wb.worksheets:
            want = set(formula_cells.get(ws.title, ())) if formula_cells is not None else None
            if want is not None and not want:
                continue
            sheet: dict[str, CellValue] = {}
            for row in ws.iter_rows():
                for cell in row:
                    coord = getattr(cell, "coordinate", None)
                    if coord is None or (want is not None and coord not in want):
                        continue
                    v = cell.value
                    if isinstance(v, str) and getattr(cell, "data_type", "") == "e" or isinstance(v, str) and v in EXCEL_ERRORS:
                        sheet[coord] = CellValue(error=v)
                    else:
                        sheet[coord] = CellValue(value=plain(v))
            if want is not None:
                for coord in want - set(sheet):  # an empty result (a formula giving "") reads back as no cell
                    sheet[coord] = CellValue(value=None)
            cells[ws.title] = sheet
    finally:
        wb.close()
    return cells


# ---------------------------------------------------------------------------------------------- formulas

_REF_RE = re.compile(r"^'?\[(?P<book>[^\]]*)\](?P<sheet>.*?)'?!(?P<cell>\$?[A-Z]{1,3}\$?\d+)$")


class _QuietTqdm:
    """Stands in for the tqdm module inside ``formulas`` so loading a workbook prints no progress bars."""

    @staticmethod
    def tqdm(iterable: Any = None, *args: Any, **kwargs: Any) -> Any:
        import tqdm

        kwargs["disable"] = True
        return tqdm.tqdm(iterable, *args, **kwargs)


def _formulas_label() -> str:
    try:
        from importlib.metadata import version

        return f"formulas {version('formulas')} (pure Python)"
    except Exception:
        return "formulas (pure Python)"


def _formulas(path: Path, formula_cells: dict[str, list[str]] | None) -> Recalculation:
    try:
        import formulas
        import formulas.excel as fx
    except ImportError:
        return Recalculation("none", "none", note="the pure-Python engine is missing (pip install formulas)")
    label = _formulas_label()
    if formula_cells is not None:
        n = sum(len(v) for v in formula_cells.values())
        if n > FORMULAS_MAX_FORMULAS:
            return Recalculation("none", "none", note=f"{label} skipped: {n:,} formulas exceed its limit of {FORMULAS_MAX_FORMULAS:,}")
    fx.tqdm = _QuietTqdm  # type: ignore[attr-defined]
    tmp = tempfile.mkdtemp(prefix="jobenv-fx-")
    try:
        src = Path(tmp) / ("in" + path.suffix.lower())
        shutil.copyfile(path, src)
        model = formulas.ExcelModel().loads(str(src)).finish()
        solution = model.calculate()
    except Exception as exc:
        return Recalculation("none", "none", note=f"{label} could not evaluate the workbook: {type(exc).__name__}: {str(exc)[:200]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    by_upper: dict[str, str] = {}
    if formula_cells is not None:
        by_upper = {s.upper(): s for s in formula_cells}
    else:
        try:
            import openpyxl

            wb = openpyxl.load_workbook(path, read_only=True)
            by_upper = {s.upper(): s for s in wb.sheetnames}
            wb.close()
        except Exception:
            by_upper = {}
    cells: dict[str, dict[str, CellValue]] = {}
    for key, ranges in solution.items():
        m = _REF_RE.match(str(key))
        if m is None:
            continue
        sheet = by_upper.get(m.group("sheet").replace("''", "'").upper())
        if sheet is None:
            continue
        coord = m.group("cell").replace("$", "")
        if formula_cells is not None and coord not in formula_cells.get(sheet, ()):
            continue
        try:
            raw = ranges.value[0][0]
        except (AttributeError, IndexError, TypeError):
            continue
        cells.setdefault(sheet, {})[coord] = _fx_value(raw)
    return Recalculation("formulas", label, cells=cells)


def _fx_value(raw: Any) -> CellValue:
    from formulas.tokens.operand import XlError

    if isinstance(raw, XlError):
        return CellValue(error=str(raw))
    from schedula.utils.gen import Token

    if isinstance(raw, Token):  # the engine's marker for an empty cell
        return CellValue(value=None)
    return CellValue(value=plain(raw))
