"""A Harbor task's environment as the Docker sandbox's image: ``environment/Dockerfile`` built by the local Docker
engine from base images it already has (nothing is pulled: this is how an offline machine runs Harbor tasks), or
``[environment] docker_image`` when the task names a prebuilt image instead.

Built images are tagged ``jobenv-harbor/<task>:<digest of environment/>`` and reused while the directory is
unchanged; concurrent starts of one task in a process build it once.

Failure behaviour: :func:`check_base_images` raises TaskFormatError naming the Dockerfile and each base image the
engine lacks (called at ``make``, before anything starts); :func:`task_image` raises the same for a missing base
or named image, and SandboxError with the end of the build log when a build step fails (no tag is left for a
failed build). Both need the ``docker`` extra and a running engine (SandboxUnavailableError otherwise).
"""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Any

from ..errors import SandboxError, TaskFormatError
from .spec import HarborSpec

__all__ = ["base_images", "check_base_images", "task_image", "image_tag"]

_FROM = re.compile(r"^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$", re.I)
_ARG = re.compile(r"^\s*ARG\s+([A-Za-z_]\w*)(?:=(\S*))?\s*$", re.I)
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def base_images(dockerfile: Path) -> list[str]:
    """The images the Dockerfile's stages start from (``ARG`` defaults before the first ``FROM`` substituted;
    earlier stages and ``scratch`` left out), in order."""
    from .spec import _dockerfile_lines

    args: dict[str, str] = {}
    stages: set[str] = set()
    out: list[str] = []
    for line in _dockerfile_lines(dockerfile.read_text(encoding="utf-8", errors="replace")):
        arg = _ARG.match(line)
        if arg and not out and arg.group(2) is not None:
            args[arg.group(1)] = arg.group(2).strip("\"'")
            continue
        m = _FROM.match(line)
        if not m:
            continue
        image = re.sub(r"\$\{?([A-Za-z_]\w*)\}?", lambda v: args.get(v.group(1), v.group(0)), m.group(1))
        if image.lower() != "scratch" and image not in stages and image not in out:
            out.append(image)
        if m.group(2):
            stages.add(m.group(2))
    return out


def _has(client: Any, image: str) -> bool:
    import docker

    try:
        client.images.get(image)
        return True
    except docker.errors.ImageNotFound:
        return False
    except docker.errors.APIError as exc:
        raise SandboxError(f"cannot inspect image {image!r}: {exc}") from None


def _missing(spec: HarborSpec, client: Any) -> None:
    dockerfile = spec.root / "environment" / "Dockerfile"
    if dockerfile.is_file():
        lacking = [b for b in base_images(dockerfile) if not _has(client, b)]
        if lacking:
            raise TaskFormatError(
                f"{dockerfile}: base image {', '.join(map(repr, lacking))} is not available to the Docker engine, "
                "and jobenv pulls nothing: load it first (`docker load -i image.tar`, or `docker pull` on a "
                "machine that reaches its registry)")
    elif spec.docker_image and not _has(client, spec.docker_image):
        raise TaskFormatError(f"{spec.root / 'task.toml'}: docker_image {spec.docker_image!r} is not available to "
                              "the Docker engine, and jobenv pulls nothing: load or build it first")


def check_base_images(specs: list[HarborSpec], base_url: str | None = None) -> None:
    """TaskFormatError for the first task whose base (or named) image the engine lacks (see the module
    docstring)."""
    from ..sandbox.docker import docker_client

    client = docker_client(base_url)
    try:
        for spec in specs:
            _missing(spec, client)
    finally:
        client.close()


def image_tag(spec: HarborSpec) -> str:
    """The tag a built environment gets: the task's name and a digest of every file under ``environment/``."""
    env = spec.root / "environment"
    digest = hashlib.sha256()
    for path in sorted(p for p in env.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(env)).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    slug = re.sub(r"[^a-z0-9_.-]+", "-", spec.root.name.lower()).strip("-.") or "task"
    return f"jobenv-harbor/{slug[:64]}:{digest.hexdigest()[:16]}"


def task_image(spec: HarborSpec, base_url: str | None = None, log: Any = None) -> str | None:
    """The Docker image a sandbox for ``spec`` runs: its built Dockerfile, its ``docker_image``, or None when the
    task has neither (then the sandbox's own image). Blocking; builds at most once per tag and process."""
    from ..sandbox.docker import docker_client

    dockerfile = spec.root / "environment" / "Dockerfile"
    if not dockerfile.is_file():
        if spec.docker_image:
            check_base_images([spec], base_url)
        return spec.docker_image
    tag = image_tag(spec)
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(tag, threading.Lock())
    with lock:
        client = docker_client(base_url)
        try:
            if _has(client, tag):
                return tag
            _missing(spec, client)
            _build(client, spec, tag, log)
        finally:
            client.close()
    return tag


def _build(client: Any, spec: HarborSpec, tag: str, log: Any) -> None:
    import docker

    tail: list[str] = []
    try:
        for chunk in client.api.build(path=str(spec.root / "environment"), tag=tag, pull=False, rm=True,
                                      forcerm=True, decode=True, labels={"jobenv.harbor": spec.name}):
            text = str(chunk.get("stream") or chunk.get("status") or "").rstrip()
            if text:
                tail = (tail + text.splitlines())[-20:]
                if log is not None:
                    log(text)
            if "error" in chunk:
                raise SandboxError(f"{spec.root / 'environment' / 'Dockerfile'}: the build failed: "
                                   f"{str(chunk['error']).strip()}\n" + "\n".join(tail[-10:]))
    except docker.errors.APIError as exc:
        raise SandboxError(f"{spec.root / 'environment' / 'Dockerfile'}: the build failed: {exc}") from None
