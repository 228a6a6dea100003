"""The knowledge worker's toolchain: the Python packages and command-line tools the official JobBench image gives
an agent, for both sandbox backends from one pinned list.

* The lists are ``jobenv/sandbox/docker/requirements.txt`` (Python packages, exact pins) and ``apt-packages.txt``
  (Debian packages): the Docker image installs them (``jobenv build-image``), and ``jobenv toolchain install``
  builds the same Python packages into a virtual environment for the local sandbox (default
  ``~/.cache/jobenv-toolchain/<version>-py<major><minor>``, ``$JOBENV_TOOLCHAIN`` to move it, ``none`` to do
  without) and, as root with apt, the Debian packages whose commands the host lacks.
* A local sandbox mounts an installed toolchain read-only at its own path and runs on its interpreter (its
  ``python3`` and ``pip list`` are the toolchain's; jobenv's own environment is not mounted at all). Without one it
  runs on jobenv's interpreter, as before, and the prompt says which tools are absent.
* :data:`MODULES` and :data:`COMMANDS` are what is expected; :data:`PROBE` lists, from inside a sandbox, each one's
  version or absence (``jobenv toolchain check``); :func:`software_note` is the prompt's one-line account.

Failure behaviour: :func:`install` raises SandboxError naming the step that failed (and removes a half-built
environment); a toolchain that is missing, incomplete or unreadable by this user is simply not used.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, Field

from .. import settings
from ..errors import SandboxError

__all__ = [
    "TOOLCHAIN_VERSION", "MANIFEST_NAME", "MODULES", "COMMANDS", "PROBE", "ToolchainManifest", "ToolStatus", "ToolchainReport",
    "package_list", "toolchain_dir", "active_toolchain", "install", "probe_report", "probe_command", "software_note",
    "local_software_note",
]

TOOLCHAIN_VERSION = "1"
MANIFEST_NAME = "jobenv-toolchain.json"

#: (import name, distribution) of every module the toolchain provides, in the order the prompt lists them
MODULES: tuple[tuple[str, str], ...] = (
    ("pandas", "pandas"), ("numpy", "numpy"), ("openpyxl", "openpyxl"), ("xlrd", "xlrd"),
    ("xlsxwriter", "XlsxWriter"), ("docx", "python-docx"), ("pptx", "python-pptx"), ("pdfplumber", "pdfplumber"),
    ("pypdf", "pypdf"), ("fitz", "PyMuPDF"), ("reportlab", "reportlab"), ("fpdf", "fpdf2"), ("mammoth", "mammoth"),
    ("matplotlib", "matplotlib"), ("seaborn", "seaborn"), ("scipy", "scipy"), ("statsmodels", "statsmodels"),
    ("sklearn", "scikit-learn"), ("geopandas", "geopandas"), ("duckdb", "duckdb"), ("tabulate", "tabulate"),
    ("nbformat", "nbformat"), ("nbclient", "nbclient"), ("ipykernel", "ipykernel"),
)
#: (command, Debian package that provides it)
COMMANDS: tuple[tuple[str, str], ...] = (
    ("soffice", "libreoffice-writer-nogui"), ("pandoc", "pandoc"), ("pdftotext", "poppler-utils"),
    ("pdftoppm", "poppler-utils"), ("tesseract", "tesseract-ocr"), ("sqlite3", "sqlite3"), ("jq", "jq"),
    ("git", "git"), ("zip", "zip"), ("unzip", "unzip"),
)
# Debian packages a host toolchain also wants (no command of their own: LibreOffice's other apps, fonts)
_HOST_EXTRAS = ("libreoffice-writer-nogui", "libreoffice-calc-nogui", "libreoffice-impress-nogui", "fonts-dejavu-core", "fonts-liberation")

# Runs inside a sandbox with its python3: JSON of every expected module's and command's version (null: absent).
PROBE = r"""
import importlib.metadata as md, importlib.util, json, re, shutil, subprocess, sys
mods, cmds = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out = {'python': sys.version.split()[0], 'executable': sys.executable, 'modules': {}, 'commands': {}}
for name, dist in mods:
    try:
        found = importlib.util.find_spec(name) is not None
    except Exception:
        found = False
    try:
        out['modules'][name] = md.version(dist) if found else None
    except md.PackageNotFoundError:
        out['modules'][name] = '?'
for name, _ in cmds:
    path = shutil.which(name)
    version = None
    if path:
        try:
            flag = '-v' if name in ('unzip', 'zip', 'pdftotext', 'pdftoppm') else '--version'
            proc = subprocess.run([path, flag], capture_output=True, text=True, timeout=60)
            lines = (proc.stdout + '\n' + proc.stderr).strip().splitlines()
            version = next((ln for ln in lines if re.search(r'\d+\.\d+', ln) and 'Copyright' not in ln), '?')[:80]
        except Exception:
            version = '?'
    out['commands'][name] = version
print(json.dumps(out))
"""


class ToolchainManifest(BaseModel):
    """What ``jobenv toolchain install`` wrote (``jobenv-toolchain.json`` in the toolchain's folder)."""

    schema_version: int = 1
    version: str
    python: str
    packages: dict[str, str] = Field(default_factory=dict, description="distribution -> version, as installed")
    seconds: float = 0.0
    size_bytes: int = 0


class ToolStatus(BaseModel):
    name: str
    kind: str  # "module" or "command"
    version: str | None = None  # None: absent

    @property
    def present(self) -> bool:
        return self.version is not None


class ToolchainReport(BaseModel):
    """What a sandbox offers, as :data:`PROBE` found it."""

    schema_version: int = 1
    backend: str
    python: str
    executable: str
    tools: list[ToolStatus]
    controller: str | None = None  # a local sandbox's PID 1: "native (<path>)" or "python (fallback: <why>)"

    @property
    def missing(self) -> list[str]:
        return [t.name for t in self.tools if not t.present]


def package_list(name: str) -> list[str]:
    """The entries of one of the packaged lists (``requirements.txt``, ``apt-packages.txt``), comments left out."""
    path = Path(str(resources.files("jobenv.sandbox") / "docker" / name))
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def toolchain_dir() -> Path | None:
    """Where the toolchain lives: ``$JOBENV_TOOLCHAIN`` (``none``: nowhere) or the default under ``~/.cache``."""
    return settings.toolchain_dir(f"{TOOLCHAIN_VERSION}-py{sys.version_info.major}{sys.version_info.minor}")


class Toolchain(BaseModel):
    """An installed toolchain a sandbox can run on: its folder, interpreter, base prefix and manifest."""

    root: str
    python: str
    base_prefix: str
    manifest: ToolchainManifest


def active_toolchain() -> Toolchain | None:
    """The installed toolchain sandboxes use now, or None (not installed, ``none``, or not usable by this user).

    One ``stat`` per call; the folder is read again only when its manifest changes."""
    root = toolchain_dir()
    if root is None:
        return None
    try:
        st = os.stat(root / MANIFEST_NAME)
    except OSError:
        return None
    return _load(str(root), st.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _load(root: str, _mtime: int) -> Toolchain | None:
    try:
        manifest = ToolchainManifest.model_validate_json(Path(root, MANIFEST_NAME).read_text(encoding="utf-8"))
        lines = Path(root, "pyvenv.cfg").read_text().splitlines()
        cfg = {k.strip(): v.strip() for k, v in (line.split("=", 1) for line in lines if "=" in line)}
        home = cfg["home"]
    except Exception:
        return None
    python = os.path.join(root, "bin", "python3")
    if manifest.version != TOOLCHAIN_VERSION or not os.access(python, os.X_OK):
        return None
    return Toolchain(root=root, python=python, base_prefix=os.path.dirname(os.path.normpath(home)), manifest=manifest)


def _base_python() -> str:
    """The interpreter a toolchain is made from: the one jobenv's environment was made from (never a venv's own,
    whose site-packages would leak in)."""
    for cand in (getattr(sys, "_base_executable", None), os.path.join(sys.base_prefix, "bin", "python3")):
        if cand and os.path.exists(cand):
            return cand
    return sys.executable


def _run(cmd: list[str], what: str, log: Callable[[str], None]) -> None:
    log(f"$ {' '.join(cmd[:6])}{' ...' if len(cmd) > 6 else ''}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-12:])
        raise SandboxError(f"toolchain install: {what} failed (exit {proc.returncode}):\n{tail}")


def _missing_debian_packages() -> list[str]:
    wanted = [pkg for cmd, pkg in COMMANDS if shutil.which(cmd) is None]
    for pkg in _HOST_EXTRAS:
        if subprocess.run(["dpkg", "-s", pkg], capture_output=True).returncode != 0:
            wanted.append(pkg)
    return sorted(set(wanted))


def install(path: Path | None = None, *, apt: bool | None = None, force: bool = False,
            log: Callable[[str], None] = print) -> ToolchainManifest:
    """Build the toolchain at ``path`` (default :func:`toolchain_dir`) from the package index, and with ``apt``
    (default: when root and apt-get exist) the missing Debian packages. An existing complete toolchain of this
    version is kept unless ``force``. Raises SandboxError naming the failed step; a failed build is removed."""
    root = path or toolchain_dir()
    if root is None:
        raise SandboxError("JOBENV_TOOLCHAIN is 'none': set it to a folder (or unset it) to install the toolchain")
    if apt is None:
        apt = os.geteuid() == 0 and shutil.which("apt-get") is not None and shutil.which("dpkg") is not None
    started = time.monotonic()
    if apt:
        missing = _missing_debian_packages()
        if missing:
            log(f"installing Debian packages: {' '.join(missing)}")
            env_cmd = ["env", "DEBIAN_FRONTEND=noninteractive"]
            _run([*env_cmd, "apt-get", "update", "-qq"], "apt-get update", log)
            _run([*env_cmd, "apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
                 "apt-get install", log)
    manifest_path = root / MANIFEST_NAME
    if manifest_path.exists() and not force:
        try:
            manifest = ToolchainManifest.model_validate_json(manifest_path.read_text(encoding="utf-8"))
            if manifest.version == TOOLCHAIN_VERSION:
                log(f"the toolchain is already installed at {root} ({manifest.size_bytes / 2**20:,.0f} MiB)")
                return manifest
        except Exception:
            pass
    shutil.rmtree(root, ignore_errors=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    try:
        _run([_base_python(), "-m", "venv", str(root)], "creating the virtual environment", log)
        os.chmod(root, 0o755)  # root's sandboxes run commands as an unprivileged uid, which must read it
        pip = [str(root / "bin" / "python3"), "-m", "pip", "--disable-pip-version-check", "--no-input"]
        _run([*pip, "install", "--no-cache-dir", "--only-binary=:all:", *package_list("requirements.txt")],
             "pip install", log)
        frozen = subprocess.run([*pip, "list", "--format=json"], capture_output=True, text=True, check=True)
        packages = {p["name"]: p["version"] for p in json.loads(frozen.stdout)}
        size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file() and not f.is_symlink())
        manifest = ToolchainManifest(version=TOOLCHAIN_VERSION, python=sys.version.split()[0], packages=packages,
                                     seconds=round(time.monotonic() - started, 1), size_bytes=size)
        manifest_path.write_text(manifest.model_dump_json(indent=2), encoding="utf-8")  # last: marks it complete
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    log(f"installed the toolchain at {root}: {len(packages)} packages, {size / 2**20:,.0f} MiB, "
        f"{manifest.seconds:.0f} s")
    return manifest


def probe_report(backend: str, output: str) -> ToolchainReport:
    """The report from :data:`PROBE`'s output; SandboxError when it is not the probe's JSON."""
    try:
        data = json.loads(output.strip().splitlines()[-1])
        tools = [ToolStatus(name=n, kind="module", version=v) for n, v in data["modules"].items()]
        tools += [ToolStatus(name=n, kind="command", version=v) for n, v in data["commands"].items()]
        return ToolchainReport(backend=backend, python=data["python"], executable=data["executable"], tools=tools)
    except Exception:
        raise SandboxError(f"the toolchain probe did not answer: {output.strip()[-300:]}") from None


def probe_command() -> str:
    """The bash command that runs :data:`PROBE` with the sandbox's ``python3``."""
    import shlex

    return "python3 -c " + " ".join(shlex.quote(a) for a in (PROBE, json.dumps(MODULES), json.dumps(COMMANDS)))


def software_note(python: str | None, modules: list[str], commands: list[str]) -> str:
    """The prompt's account of the sandbox's software: what is there, then what is not."""
    have_m = [m for m, _ in MODULES if m in modules]
    have_c = [c for c, _ in COMMANDS if c in commands]
    lacks = [m for m, _ in MODULES if m not in modules] + [c for c, _ in COMMANDS if c not in commands]
    text = f"- Software: python3 {python or ''}".rstrip()
    text += f" with {', '.join(have_m)}" if have_m else " (standard library only)"
    if have_c:
        text += f"; commands {', '.join(have_c)}"
    if "soffice" in have_c:
        text += " (`soffice --headless --convert-to pdf FILE` renders an Office file to PDF to check it)"
    if "matplotlib" in have_m:
        text += "; matplotlib draws off-screen (save figures to files)"
    text += "." if not lacks else f". Not installed: {', '.join(lacks)}."
    return text + "\n"


def local_software_note(python_exe: str) -> str | None:
    """:func:`software_note` of a local sandbox on ``python_exe``, read on the host: the toolchain's manifest, or
    jobenv's own interpreter's metadata; commands on the sandbox's PATH (``/usr`` is the host's). Cached per
    interpreter for the process; None (never an exception) when it cannot be read."""
    try:
        return software_note(*_host_software(python_exe))
    except Exception:
        return None


@functools.lru_cache(maxsize=4)
def _host_software(python_exe: str) -> tuple[str, list[str], list[str]]:
    tc = active_toolchain()
    if tc is not None and tc.python == python_exe:
        names = {k.lower().replace("_", "-") for k in tc.manifest.packages}
        modules = [m for m, dist in MODULES if dist.lower().replace("_", "-") in names]
        python = tc.manifest.python
    else:
        import importlib.metadata as md

        modules = []
        for m, dist in MODULES:
            try:
                md.version(dist)
                modules.append(m)
            except md.PackageNotFoundError:
                pass
        python = sys.version.split()[0]
    path = "/usr/local/bin:/usr/bin:/bin"
    commands = [c for c, _ in COMMANDS if shutil.which(c, path=path)]
    return python, modules, commands
