"""A folder of a Docker image as the tar that fills a sandbox's workspace (the docker backend's ``seed`` option):
what a Harbor task's Dockerfile put in its workdir, ``RUN`` steps included, which a tmpfs workspace mounted over
the workdir would otherwise hide.

Read once per process per (image, folder) from a container that is created, never started, and removed; kept in a
bounded cache (an image never changes), the least recently used dropped first.
"""

from __future__ import annotations

import io
import tarfile
from collections import OrderedDict
from typing import Any

from ..errors import SandboxError
from ._archive import ChunkReader

__all__ = ["seed_tree", "CACHE_BYTES"]

CACHE_BYTES = 256 << 20
_CACHE: OrderedDict[tuple[str, str], bytes] = OrderedDict()


def seed_tree(client: Any, image_id: str, folder: str, limit: int, labels: dict[str, str]) -> bytes:
    """``folder`` of image ``image_id`` as a tar rooted at the folder (regular files and folders only, as a task
    folder is copied). SandboxError when the image lacks the folder or it holds more than ``limit`` bytes."""
    key = (image_id, folder)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    helper = client.containers.create(image_id, command=["true"], entrypoint=[], network_mode="none", labels=labels)
    try:
        try:
            stream, _ = client.api.get_archive(helper.id, folder, chunk_size=1 << 20)
        except Exception as exc:  # noqa: BLE001 - the SDK's NotFound and API errors alike
            raise SandboxError(f"the image has no folder {folder} to fill the workspace from: {exc}") from None
        out = io.BytesIO()
        total = 0
        with tarfile.open(fileobj=ChunkReader(stream), mode="r|") as src, tarfile.open(fileobj=out, mode="w") as dst:
            for m in src:
                name = m.name.split("/", 1)[1] if "/" in m.name else ""
                if not name or not (m.isfile() or m.isdir()):
                    continue
                total += m.size
                if total > limit:
                    raise SandboxError(f"{folder} of the image is larger than the workspace ({limit >> 20} MB)")
                m.name = name
                dst.addfile(m, src.extractfile(m) if m.isfile() else None)
    finally:
        try:
            client.api.remove_container(helper.id, force=True, v=True)
        except Exception:  # noqa: BLE001 - best effort; `jobenv gc` removes a labelled leftover
            pass
    data = out.getvalue()
    _CACHE[key] = data
    while sum(map(len, _CACHE.values())) > CACHE_BYTES and len(_CACHE) > 1:
        _CACHE.popitem(last=False)
    return data
