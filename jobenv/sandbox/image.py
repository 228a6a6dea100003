"""Building the knowledge-worker image of the Docker sandbox (``jobenv build-image``).

Two ways to the same contents, both reading the package lists shipped beside the Dockerfile
(``jobenv/sandbox/docker/apt-packages.txt`` and ``requirements.txt``):

* ``dockerfile``: ``docker build`` of the packaged Dockerfile (needs a registry for its ``FROM`` image);
* ``debootstrap``: a Debian root file system made with ``debootstrap`` from Debian's package mirror, the Debian
  packages installed in it with apt, the Python packages from PyPI with pip, then ``docker import``-ed. It needs
  only the Debian and PyPI mirrors (and root, for debootstrap and chroot). The build host's local CA
  certificates (``/usr/local/share/ca-certificates``) are trusted inside, as they are on the host.

``method="auto"`` (the default) uses the Dockerfile when the base image is present or can be pulled, otherwise
debootstrap. Failure behaviour: SandboxUnavailableError without the docker extra, a Docker engine, root or the
``debootstrap`` program (each message says what to install or run); SandboxError, with the tail of the build log,
when a build step fails. Nothing is left behind on failure (the root file system is removed).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from ..errors import SandboxError, SandboxUnavailableError
from .docker import DEFAULT_IMAGE, docker_client

__all__ = ["DEFAULT_IMAGE", "BuildMethod", "dockerfile_dir", "base_image", "registry_available", "build_image",
           "image_exists", "debian_mirror"]

BuildMethod = Literal["auto", "dockerfile", "debootstrap"]
SUITE = "bookworm"
# what the image's configuration says (the Dockerfile's ENV/WORKDIR/CMD, for the imported root file system)
_IMAGE_CHANGES = [
    "ENV LANG=C.UTF-8", "ENV LC_ALL=C.UTF-8", "ENV MPLBACKEND=Agg", "ENV PYTHONDONTWRITEBYTECODE=1",
    "ENV HOME=/tmp", "WORKDIR /workspace", 'CMD ["/bin/bash"]',
]
Log = Callable[[str], None]


def dockerfile_dir() -> Path:
    """The build context of the knowledge-worker image shipped inside the package."""
    return Path(str(resources.files("jobenv.sandbox") / "docker"))


def _package_list(name: str) -> list[str]:
    from .toolchain import package_list

    return package_list(name)


def base_image() -> str:
    """The ``FROM`` image of the packaged Dockerfile."""
    text = (dockerfile_dir() / "Dockerfile").read_text(encoding="utf-8")
    match = re.search(r"^FROM\s+(\S+)", text, flags=re.M)
    if not match:
        raise SandboxError("the packaged Dockerfile has no FROM line")
    return match.group(1)


def image_exists(tag: str, client: Any = None) -> bool:
    """Whether the engine already has ``tag`` (a built image is reused by tag: ``build_image`` is not needed)."""
    import docker

    client = client or docker_client(None)
    try:
        client.images.get(tag)
        return True
    except docker.errors.ImageNotFound:
        return False


def registry_available(client: Any, image: str) -> bool:
    """True when ``image`` is present or can be pulled; False when no registry answers (or it lacks the image)."""
    import docker

    if image_exists(image, client):
        return True
    try:
        client.images.pull(image)
        return True
    except docker.errors.DockerException:
        return False


def debian_mirror() -> str:
    """``$JOBENV_DEBIAN_MIRROR``, else the first Debian archive of this machine's apt sources, else deb.debian.org."""
    from .. import settings

    mirror = settings.get("JOBENV_DEBIAN_MIRROR")
    if mirror:
        return mirror
    sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for path in sources:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for url in re.findall(r"https?://\S+/debian/?(?=\s|$)", text):
            if "security" not in url:
                return url.rstrip("/")
    return "http://deb.debian.org/debian"


def build_image(tag: str = DEFAULT_IMAGE, *, method: BuildMethod = "auto", log: Log = print) -> str:
    """Build the knowledge-worker image as ``tag`` by ``method`` (see the module docstring); returns the tag."""
    client = docker_client(None)
    if method == "auto":
        base = base_image()
        method = "dockerfile" if registry_available(client, base) else "debootstrap"
        if method == "debootstrap":
            log(f"no registry answers for {base}: building {tag} from a debootstrap root file system instead")
    if method == "dockerfile":
        _build_dockerfile(client, tag, log)
    else:
        _build_debootstrap(client, tag, log)
    log(f"built {tag}")
    return tag


def _build_dockerfile(client: Any, tag: str, log: Log) -> None:
    import docker

    context = dockerfile_dir()
    log(f"building {tag} from {context / 'Dockerfile'}")
    lines: list[str] = []
    try:
        for chunk in client.api.build(path=str(context), tag=tag, rm=True, decode=True):
            if "stream" in chunk and chunk["stream"].strip():
                lines.append(chunk["stream"].rstrip())
                log(lines[-1])
            if "error" in chunk:
                raise SandboxError(f"building {tag} failed: {chunk['error'].strip()}\n" + "\n".join(lines[-10:]))
    except docker.errors.DockerException as exc:
        raise SandboxError(f"building {tag} failed: {exc}\n" + "\n".join(lines[-10:])) from None


def _run(cmd: list[str], log: Log, what: str, *, env: dict[str, str] | None = None) -> None:
    """Run one build step, streaming its output; SandboxError with the output's tail when it fails.

    ``env`` replaces the environment (chroot steps must not see the host's paths, e.g. a REQUESTS_CA_BUNDLE that
    names a host file and would override pip's certificate setting); None inherits it.
    """
    tail: list[str] = []
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                                env=env)
    except OSError as exc:
        raise SandboxError(f"{what}: cannot run {cmd[0]}: {exc}") from None
    assert proc.stdout is not None
    for line in proc.stdout:
        line = line.rstrip()
        if line:
            tail = (tail + [line])[-15:]
            log(line)
    if proc.wait() != 0:
        raise SandboxError(f"{what} failed (exit {proc.returncode}):\n" + "\n".join(tail))


def _host_ca_bundle() -> Path | None:
    for candidate in (os.environ.get("PIP_CERT"), os.environ.get("SSL_CERT_FILE"), "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def _trust_local_cas(root: Path, chroot: list[str], log: Log, env: dict[str, str]) -> None:
    """Install the build host's local CA certificates (``/usr/local/share/ca-certificates``) in the image, so the
    image trusts what the host trusts (a TLS-inspecting proxy, for one) when something inside installs packages."""
    local = Path("/usr/local/share/ca-certificates")
    certs = sorted(local.glob("*.crt")) if local.is_dir() else []
    if not certs:
        return
    dest = root / "usr/local/share/ca-certificates"
    dest.mkdir(parents=True, exist_ok=True)
    for cert in certs:
        shutil.copy(cert, dest / cert.name)
    _run([*chroot, "update-ca-certificates"], log, "update-ca-certificates", env=env)


def _build_debootstrap(client: Any, tag: str, log: Log) -> None:
    if os.geteuid() != 0:
        raise SandboxUnavailableError("building the image with debootstrap needs root (debootstrap and chroot)")
    if shutil.which("debootstrap") is None:
        raise SandboxUnavailableError("building the image without a registry needs debootstrap: apt-get install debootstrap")
    apt = _package_list("apt-packages.txt")
    pip = _package_list("requirements.txt")
    mirror = debian_mirror()
    work = Path(tempfile.mkdtemp(prefix="jobenv-rootfs-", dir="/var/tmp"))
    root = work / "root"
    proc_mounted = False
    try:
        log(f"debootstrap {SUITE} from {mirror} into {root}")
        _run(["debootstrap", "--variant=minbase", "--include=ca-certificates", SUITE, str(root), mirror], log,
             "debootstrap")
        (root / "etc/apt/sources.list").write_text(f"deb {mirror} {SUITE} main\ndeb {mirror} {SUITE}-updates main\n")
        shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
        ca = _host_ca_bundle()
        pip_env = {"DEBIAN_FRONTEND": "noninteractive", "LANG": "C.UTF-8", "HOME": "/root",
                   "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
        if ca is not None:  # a host behind a TLS-inspecting proxy needs its CA inside the chroot too
            shutil.copy(ca, root / "tmp/host-ca.crt")
            pip_env["PIP_CERT"] = "/tmp/host-ca.crt"
        _run(["mount", "-t", "proc", "proc", str(root / "proc")], log, "mount /proc")
        proc_mounted = True
        chroot = ["chroot", str(root)]
        _run([*chroot, "apt-get", "update"], log, "apt-get update", env=pip_env)
        _run([*chroot, "apt-get", "install", "-y", "--no-install-recommends", *apt], log, "apt-get install",
             env=pip_env)
        _trust_local_cas(root, chroot, log, pip_env)
        _run([*chroot, "python3", "-m", "pip", "install", "--break-system-packages", "--no-cache-dir",
              "--disable-pip-version-check", *pip], log, "pip install", env=pip_env)
        _run([*chroot, "apt-get", "clean"], log, "apt-get clean", env=pip_env)
        _run(["umount", str(root / "proc")], log, "umount /proc")
        proc_mounted = False
        for junk in ("var/lib/apt/lists", "usr/share/doc", "usr/share/man", "tmp", "root/.cache"):
            shutil.rmtree(root / junk, ignore_errors=True)
        (root / "tmp").mkdir(mode=0o1777, exist_ok=True)
        os.chmod(root / "tmp", 0o1777)
        (root / "workspace").mkdir(exist_ok=True)
        (root / "etc/resolv.conf").write_text("")
        archive = work / "rootfs.tar"
        log(f"packing {root} and importing it as {tag}")
        _run(["tar", "-C", str(root), "--numeric-owner", "-cf", str(archive), "."], log, "tar")
        repository, _, version = tag.rpartition(":") if ":" in tag.split("/")[-1] else (tag, "", "latest")
        client.api.import_image_from_file(str(archive), repository=repository, tag=version or "latest",
                                          changes=_IMAGE_CHANGES)
        if not image_exists(tag, client):
            raise SandboxError(f"docker import did not produce {tag}")
    finally:
        if proc_mounted:
            subprocess.run(["umount", "-l", str(root / "proc")], check=False)
        shutil.rmtree(work, ignore_errors=True)
