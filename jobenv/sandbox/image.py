"""Building the knowledge-worker image of the Docker sandbox (``jobenv build-image``).

The build context (``jobenv/sandbox/docker/Dockerfile``) ships inside the package. Failure behaviour:
SandboxUnavailableError without the docker extra or a Docker engine, SandboxError (with the build log's tail) when
the build fails.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..errors import SandboxError
from .docker import DEFAULT_IMAGE, docker_client

__all__ = ["DEFAULT_IMAGE", "dockerfile_dir", "build_image"]


def dockerfile_dir() -> Path:
    """The build context of the knowledge-worker image shipped inside the package."""
    return Path(str(resources.files("jobenv.sandbox") / "docker"))


def build_image(tag: str = DEFAULT_IMAGE) -> str:
    """Build the image from the packaged Dockerfile as ``tag``; returns the tag."""
    client = docker_client(None)
    import docker

    context = dockerfile_dir()
    if not (context / "Dockerfile").is_file():
        raise SandboxError(f"the packaged Dockerfile is missing at {context}")
    print(f"building {tag} from {context} (needs access to a registry and the Debian/PyPI mirrors)")
    log: list[str] = []
    try:
        for chunk in client.api.build(path=str(context), tag=tag, rm=True, decode=True):
            if "stream" in chunk:
                line = chunk["stream"].rstrip()
                if line:
                    log.append(line)
                    print(line)
            if "error" in chunk:
                raise SandboxError(f"building {tag} failed: {chunk['error'].strip()}")
    except docker.errors.DockerException as exc:
        tail = "\n".join(log[-10:])
        raise SandboxError(f"building {tag} failed: {exc}\n{tail}") from None
    print(f"built {tag}")
    return tag
