"""A verifier that needed the network and did not get it: the marks a failed download, name lookup or connection
leaves in a test script's output (curl, wget, pip, uv, apt, Python's socket errors).

Harbor gives the verifier the environment's network (``public`` unless the task says otherwise), and most published
``test.sh`` scripts install their runner from the internet (the uv installer, ``uvx pytest``, ``apt-get``). Where
the sandbox or the machine has no route there, the script typically writes a reward of 0 anyway; jobenv reports
that as a grading error naming the network instead (:func:`network_failure`), never as a 0.

Failure behaviour: pure functions; never raise.
"""

from __future__ import annotations

import re

__all__ = ["NETWORK_FAILURE_PATTERN", "network_failure", "network_error"]

#: one extended regular expression (grep -E and Python alike) matching a line that says the network failed
NETWORK_FAILURE_PATTERN = "|".join([
    r"Could not resolve host", r"Could not resolve '[^']+'", r"Temporary failure (in name resolution|resolving)",
    r"Name or service not known", r"unable to resolve host address", r"nodename nor servname",
    r"failed to lookup address information", r"dns error", r"getaddrinfo (ENOTFOUND|EAI_AGAIN|failed)",
    r"Failed to (establish a new connection|connect to)", r"Network is unreachable", r"No route to host",
    r"NewConnectionError", r"ConnectTimeout", r"Connection timed out", r"socket\.gaierror", r"URLError",
    r"curl: \((5|6|7|28|35)\)", r"Failed to fetch", r"Unable to fetch some archives",
    r"error sending request for url", r"Could not fetch URL",
])
_PATTERN = re.compile(NETWORK_FAILURE_PATTERN, re.I)


def network_failure(output: str) -> str | None:
    """The first line of ``output`` that says a download, name lookup or connection failed (None when none)."""
    for line in output.splitlines():
        if _PATTERN.search(line):
            return line.strip()[:300]
    return None


def network_error(line: str, network: str, hosts: tuple[str, ...] | None) -> str:
    """The grading error for a verifier whose test.sh could not reach the network (``network``: the verifier
    sandbox's mode, ``off`` or ``web``)."""
    if network == "off":
        why = "the task gives its verifier no network ([verifier] network_mode)"
    elif hosts:
        why = f"the verifier's network reaches only {', '.join(hosts)}"
    else:
        why = "the verifier has the web, but this machine does not reach the host it needs"
    return (f"tests/test.sh needs the network and could not reach it ({why}): {line!r}; its reward is not "
            "trusted (a task whose tests install their runner from the internet needs a machine that reaches "
            "it, or an offline variant that installs nothing)")
