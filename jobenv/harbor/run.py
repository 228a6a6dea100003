"""How a Harbor task's settings become a jobenv sandbox and prompt: the one place both are decided.

* limits: the Harbor layout (the workspace is the task's files; all of it is graded), the workdir as a path
  aliasing ``/workspace`` when it is another path, the agent's network mode (``no-network``: off; ``public``: web;
  ``allowlist``: web reaching only ``allowed_hosts``, or off when it names none) and ``[environment] cpus`` / ``memory_mb`` when the task sets them;
* the prompt: ``system_prompt.md`` (when present), then ``instruction.md`` as written, then jobenv's short note
  on where the agent works, its tools, its budget and ``submit``.

On the docker backend the sandbox runs the task's environment image (:mod:`jobenv.harbor.image`), its base images
checked at make.

``[environment] env`` is every command's environment (``${VAR}`` and ``${VAR:-default}`` from the host, as Harbor
does); ``storage_mb`` caps the workspace's size when it is smaller (the workspace is a RAM-backed tmpfs, so a larger
disk cannot make it larger than memory allows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..episode.rules import EpisodeRules
    from ..sandbox.base import SandboxLimits
    from ..tasks import Task
    from .spec import HarborSpec

__all__ = ["harbor_limits", "harbor_prompt", "check_environments", "sandbox_options", "needs_image", "auto_backend"]


def needs_image(spec: HarborSpec) -> str | None:
    """What of ``spec``'s environment only a built image holds (its first RUN step the local sandbox cannot apply,
    or a prebuilt ``docker_image``), said for an error; None when the local sandbox serves it."""
    dockerfile = spec.root / "environment" / "Dockerfile"
    if spec.run_steps:
        more = f" (and {len(spec.run_steps) - 1} more)" if len(spec.run_steps) > 1 else ""
        return f"{dockerfile}: the step `{spec.run_steps[0][:200]}`{more}"
    if spec.docker_image and not dockerfile.is_file():
        return f"{spec.root / 'task.toml'}: [environment] docker_image {spec.docker_image!r}"
    return None


def auto_backend(specs: list[HarborSpec], options: dict[str, Any]) -> str:
    """``sandbox="auto"``: the docker backend when a task's environment needs a built image
    (:func:`needs_image`) and a Docker engine answers, else the local one (which then refuses such a task at
    make, saying no engine answered). Never raises."""
    if not any(needs_image(s) for s in specs):
        return "local"
    try:
        from ..sandbox.docker import docker_client

        docker_client(options.get("base_url")).close()
    except Exception:  # noqa: BLE001 - no engine (or no SDK): the local backend says why at make
        return "local"
    return "docker"


def check_environments(specs: list[HarborSpec], base: SandboxLimits, backend: object, options: dict[str, Any],
                       auto: bool = False) -> None:
    """At make: TaskFormatError for a task whose settings do not fit a sandbox; on the local backend for a task
    whose environment only a built image holds (naming the RUN step: the local sandbox runs none), and on the
    docker backend for a base image a task's environment lacks. ``auto``: the backend was chosen by
    :func:`auto_backend`."""
    for spec in specs:
        harbor_limits(base, spec)
    if backend == "local":
        for spec in specs:
            need = needs_image(spec)
            if need is not None:
                from ..errors import TaskFormatError

                how = ("sandbox='auto' found no Docker engine answering, so it could not build the image" if auto
                       else "use sandbox='docker' (the local Docker engine builds the image) or sandbox='auto'")
                raise TaskFormatError(f"{need} needs the task's image, which the local sandbox cannot apply (it "
                                      f"runs no Dockerfile RUN step): {how}")
    if backend == "docker":
        from .image import check_base_images

        check_base_images([s for s in specs if s.docker_image or (s.root / "environment" / "Dockerfile").is_file()],
                          options.get("base_url"))


def sandbox_options(spec: HarborSpec, backend: object, options: dict[str, Any]) -> dict[str, Any]:
    """The sandbox factory's options for a task: on the docker backend the task's environment image (built on
    first use; blocking) replaces the default one. TaskFormatError / SandboxError as
    :func:`jobenv.harbor.image.task_image`."""
    if backend != "docker":
        return options
    from .image import task_image

    image = task_image(spec, options.get("base_url"))
    # the workspace comes from the image's workdir: what its COPY and RUN steps put there
    return options if image is None else {**options, "image": image, "seed": spec.workdir}


def harbor_limits(base: SandboxLimits, spec: HarborSpec) -> SandboxLimits:
    """``base`` with ``spec`` applied (see the module docstring). TaskFormatError naming ``task.toml`` when the task's
    settings do not fit a sandbox (an env variable unset on the host, a name the sandbox keeps for itself, sizes
    that do not fit)."""
    from pydantic import ValidationError

    from ..errors import TaskFormatError, first_problem
    from ..sandbox.base import WORKSPACE, SandboxLimits
    from .spec import resolve_env

    aliases = dict(base.aliases)
    if spec.workdir != WORKSPACE:
        aliases[spec.workdir] = WORKSPACE
    data = base.model_dump()
    data.update(layout="harbor", aliases=aliases, network=spec.network,
                network_only=list(spec.allowed_hosts) if spec.allowed_hosts is not None else None)
    if spec.cpus is not None:
        data["cpus"] = spec.cpus
    default = SandboxLimits()
    sized = (base.workspace_mb, base.tmp_mb, base.shm_mb) != (default.workspace_mb, default.tmp_mb, default.shm_mb)
    if spec.memory_mb is not None:
        data["memory_mb"] = spec.memory_mb
        if not sized:
            # default sizes: split the task's memory (less the process reserve) between the three tmpfs mounts
            room = spec.memory_mb - max(32, spec.memory_mb // 8)
            data.update(workspace_mb=max(16, min(default.workspace_mb, room // 2)),
                        tmp_mb=max(4, min(512, room // 4)), shm_mb=max(4, min(64, room // 16)))
    if spec.storage_mb is not None and spec.storage_mb < data["workspace_mb"]:
        data["workspace_mb"] = max(16, spec.storage_mb)  # a smaller disk caps the workspace; a larger one cannot
        # grow it past what fits in memory (the workspace is RAM)
    try:
        data["env"] = {**base.env, **resolve_env(spec.env)}
        return SandboxLimits.model_validate(data)
    except ValueError as exc:  # pydantic's ValidationError is one
        why = first_problem(exc, "limits")[1] if isinstance(exc, ValidationError) else str(exc)
        raise TaskFormatError(f"{spec.root / 'task.toml'}: [environment]: {why}") from None


def harbor_prompt(task: Task, *, rules: EpisodeRules, network: bool, tools: str) -> str:
    """The first message of a Harbor task's episode (see the module docstring)."""
    spec = task.harbor
    assert spec is not None
    budget = rules.describe_budget()
    parts = [spec.system_prompt.strip() + "\n\n" if spec.system_prompt else "", task.instructions.strip(), "\n\n---\n",
             f"You work in a sandboxed Linux machine; your working directory is {spec.workdir}, where the task's "
             f"files are. Your tools: {tools}. ",
             ("There is no internet access. " if not network else "You may use the internet. "
              if spec.allowed_hosts is None else f"The internet is limited to {', '.join(spec.allowed_hosts)}. "),
             f"{budget.rstrip('.')}. " if budget else "",
             f"When you are done, call submit: the state of {spec.workdir} is then checked by the task's tests.\n"]
    return "".join(parts)
