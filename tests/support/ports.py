"""Loopback ports for the servers tests start."""

from __future__ import annotations

import random
import socket

__all__ = ["free_port"]


def free_port() -> int:
    """A free port below the kernel's ephemeral range (32768 up): a port bound to 0 and released can be handed to
    the next bind(0) of another test before our server binds it, and a request then reaches the wrong server."""
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(20000, 32000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in 20000-32000")
