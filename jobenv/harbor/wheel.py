"""The installed jobenv as a wheel, for task directories that install it where no package index has it.

:func:`installed_wheel` writes ``jobenv-<version>-py3-none-any.whl`` from what this interpreter runs, with no build
tool and no network: the distribution's own metadata (its requirements included) and ``entry_points.txt``, and
every file of its top-level packages as the interpreter imports them (site-packages for a regular install, the
source tree for an editable one), compiled caches left out. :func:`check_wheel` validates a wheel the user gives instead.

Failure behaviour: JobenvError when jobenv's distribution metadata cannot be found or a given file is not a
jobenv wheel; OSError naming the path when the wheel cannot be written.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from importlib import metadata
from pathlib import Path

from ..errors import JobenvError

__all__ = ["installed_wheel", "check_wheel", "wheel_name"]

_DIST = "jobenv"


def wheel_name(version: str) -> str:
    """The file name of jobenv's pure-Python wheel of ``version``."""
    return f"{_DIST}-{version}-py3-none-any.whl"


def _skipped(rel: str) -> bool:
    parts = rel.split("/")
    return "__pycache__" in parts or rel.endswith((".pyc", ".pyo")) or any(p in ("..", "") for p in parts)


def _package_files(dist: metadata.Distribution) -> dict[str, Path]:
    """(path in the wheel -> file) of every file of jobenv's top-level packages, from the folders this interpreter
    imports them from (site-packages for a regular install, the source tree for an editable one)."""
    import importlib.util

    tops = [t.strip() for t in (dist.read_text("top_level.txt") or "").splitlines() if t.strip()] or [_DIST]
    files: dict[str, Path] = {}
    for top in tops:
        spec = importlib.util.find_spec(top)
        if spec is None or not spec.submodule_search_locations:
            continue
        root = Path(list(spec.submodule_search_locations)[0])
        for path in sorted(root.rglob("*")):
            rel = f"{top}/{path.relative_to(root).as_posix()}"
            if path.is_file() and not path.is_symlink() and not _skipped(rel):
                files[rel] = path
    return files


def _metadata_text(dist: metadata.Distribution, version: str) -> str:
    """The core metadata: the installed ``METADATA`` (``PKG-INFO`` of an egg-info install), its requirements
    added when that file lists none (older egg-info keeps them in ``requires.txt``)."""
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or f"Metadata-Version: 2.1\nName: {_DIST}\n" \
        f"Version: {version}\n"
    if "\nRequires-Dist:" in text.split("\n\n", 1)[0] or not dist.requires:
        return text
    head, sep, body = text.partition("\n\n")
    extras = sorted({m for r in dist.requires for m in re.findall(r'extra == "([^"]+)"', r)})
    lines = [f"Provides-Extra: {e}" for e in extras] + [f"Requires-Dist: {r}" for r in dist.requires]
    return head + "\n" + "\n".join(lines) + (sep or "\n") + body


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def installed_wheel(dest_dir: Path) -> Path:
    """Write the running jobenv as a wheel into ``dest_dir`` (see the module docstring); its path."""
    try:
        dist = metadata.distribution(_DIST)
    except metadata.PackageNotFoundError:
        raise JobenvError("jobenv's distribution metadata is not installed (run from a pip install), so no "
                          "wheel can be made of it: pass a jobenv wheel with --wheel") from None
    version = dist.version
    files = _package_files(dist)
    if not any(rel.startswith(f"{_DIST}/") for rel in files):
        raise JobenvError(f"no files of the installed jobenv {version} were found: pass a jobenv wheel with --wheel")
    info = f"{_DIST}-{version}.dist-info"
    meta = {
        "METADATA": _metadata_text(dist, version),
        "WHEEL": "Wheel-Version: 1.0\nGenerator: jobenv\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    for extra in ("entry_points.txt", "top_level.txt"):
        text = dist.read_text(extra)
        if text:
            meta[extra] = text
    dest_dir.mkdir(parents=True, exist_ok=True)
    out = dest_dir / wheel_name(version)
    record: list[str] = []
    tmp = out.with_suffix(".partial")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, path in sorted(files.items()):
            data = path.read_bytes()
            zf.writestr(rel, data)
            record.append(_record_line(rel, data))
        for name, text in meta.items():
            data = text.encode("utf-8")
            zf.writestr(f"{info}/{name}", data)
            record.append(_record_line(f"{info}/{name}", data))
        record.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    tmp.replace(out)
    return out


def check_wheel(path: Path) -> str:
    """The version of the jobenv wheel at ``path``; JobenvError when it is not one (a missing file, another
    project's wheel, a file that is not a zip with jobenv's METADATA)."""
    path = Path(path)
    parts = path.name.split("-")
    if path.suffix != ".whl" or len(parts) < 5 or parts[0] != _DIST:
        raise JobenvError(f"{path}: not a jobenv wheel (expected {wheel_name('<version>')})")
    try:
        with zipfile.ZipFile(path) as zf:
            zf.getinfo(f"{_DIST}-{parts[1]}.dist-info/METADATA")
    except (OSError, zipfile.BadZipFile, KeyError) as exc:
        raise JobenvError(f"{path}: not a readable jobenv wheel ({exc})") from None
    return parts[1]
