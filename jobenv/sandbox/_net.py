"""``network="web"``: outbound access for one sandbox through a user-mode network stack, with the host fenced off.

A sandbox always has its own network namespace. For ``"web"`` the host attaches ``pasta`` (Debian/Ubuntu package
``passt``) to that namespace: pasta creates a tap device inside and translates the sandbox's TCP/UDP traffic into
ordinary sockets of the host, i.e. outbound NAT with no privileges and nothing shared between sandboxes. It runs
with every port forward off (``-t/-u/-T/-U none``: nothing on the host's loopback is reachable and nothing inside is
exposed) and ``--no-map-gw`` (the gateway address is not the host), IPv4 only, on a private /30 of its own.

pasta would still connect anywhere the *host* can, so before any command runs the host adds routes to the
sandbox's routing table that the agent (no capabilities) cannot change: ``unreachable`` for private, shared,
link-local (169.254.0.0/16, so also the 169.254.169.254 metadata service), documentation and multicast ranges, for
every address of the host itself and for the gateway; entries of ``network_deny`` are added the same way, and
``network_allow`` entries become more specific routes through the tap (added first, so a deny of the same prefix
wins). With ``network_only`` (an allow-list) the two halves of the address space are ``unreachable`` too, and only
its entries that no block covers get routes through the tap. Names in any list are resolved once, when the
sandbox starts. DNS goes to pasta's forwarder at
:data:`DNS_ADDR`, which relays to the host's first name server.

Failure behaviour: no ``pasta`` binary -> SandboxUnavailableError naming the package (never a fall-back to the
host's network); a stack that does not come up -> SandboxError, and the sandbox is destroyed.
"""

from __future__ import annotations

import ipaddress
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

from .. import settings
from ..errors import SandboxError, SandboxUnavailableError
from .base import SandboxLimits

__all__ = ["NetworkPolicy", "pasta_binary", "attach", "resolv_conf", "DNS_ADDR", "BLOCKED"]

IFNAME = "web0"
SANDBOX_ADDR, GATEWAY, PREFIX_LEN = "10.0.2.13", "10.0.2.14", 30
DNS_ADDR = "10.0.2.3"
_FALLBACK = ("/usr/bin/pasta", "/usr/sbin/pasta", "/usr/local/bin/pasta")
BLOCKED = (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
    "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
    "224.0.0.0/4", "240.0.0.0/4",
)


def pasta_binary() -> str:
    """Path of ``pasta``; SandboxUnavailableError naming the package when it is missing."""
    found = shutil.which("pasta") or next((p for p in _FALLBACK if os.access(p, os.X_OK)), None)
    if not found:
        raise SandboxUnavailableError(
            'network="web" needs the user-mode network stack pasta: install the "passt" package '
            "(apt-get install passt, dnf install passt); jobenv never falls back to the host's network"
        )
    return found


def _networks(entries: list[str], what: str) -> list[ipaddress.IPv4Network]:
    """``entries`` as IPv4 networks. A name that does not resolve is a SandboxError, except in the allow-list
    ``only``, where it is left out (then it is simply unreachable: the fence fails closed)."""
    out: list[ipaddress.IPv4Network] = []
    for e in entries:
        try:
            net = ipaddress.ip_network(e.strip(), strict=False)
        except ValueError:
            try:
                infos = socket.getaddrinfo(e.strip(), None, socket.AF_INET, socket.SOCK_STREAM)
            except OSError as exc:
                if what == "only":
                    continue
                raise SandboxError(f"network_{what}: cannot resolve {e!r} ({exc})") from None
            out += [ipaddress.IPv4Network(f"{i[4][0]}/32") for i in infos]
            continue
        if not isinstance(net, ipaddress.IPv4Network):
            raise SandboxError(f"network_{what}: {e!r} is not IPv4 (the web network is IPv4 only)")
        out.append(net)
    return sorted(set(out), key=lambda n: (n.prefixlen, int(n.network_address)))


def host_addresses() -> list[str]:
    """Every IPv4 address of the host's own interfaces (from /proc/net/fib_trie), loopback excluded."""
    found: set[str] = set()
    try:
        with open("/proc/net/fib_trie") as f:
            last = ""
            for line in f:
                s = line.strip()
                if s.startswith("|--"):
                    last = s[3:].strip()
                elif s.startswith("/32 host LOCAL") and last and not last.startswith("127."):
                    found.add(last)
    except OSError:
        pass
    return sorted(found)


class NetworkPolicy:
    """The routes of one ``"web"`` sandbox: ``allow`` (through the tap) and ``block`` (unreachable) prefixes."""

    def __init__(self, allow: list[ipaddress.IPv4Network], block: list[ipaddress.IPv4Network]) -> None:
        self.allow = [n for n in allow if n not in block]
        self.block = block

    @classmethod
    def from_limits(cls, limits: SandboxLimits) -> NetworkPolicy:
        allow = _networks(limits.network_allow, "allow")
        deny = _networks(limits.network_deny, "deny")
        host = [ipaddress.IPv4Network(f"{a}/32") for a in host_addresses()]
        block = set(deny) | set(host) | {ipaddress.IPv4Network(b) for b in BLOCKED}
        block.add(ipaddress.IPv4Network(f"{GATEWAY}/32"))
        block -= {n for n in allow if n not in set(deny)}  # an explicit allow of exactly a built-in block
        if limits.network_only is not None:  # an allow-list: everything else unreachable, blocks still win
            only = _networks(limits.network_only, "only")
            allow = allow + [n for n in only if not any(n.overlaps(b) for b in block)]
            block |= {ipaddress.IPv4Network("0.0.0.0/1"), ipaddress.IPv4Network("128.0.0.0/1")}
        return cls(allow, sorted(block, key=lambda n: (n.prefixlen, int(n.network_address))))

    def routes(self) -> list[tuple[str, str]]:
        """(kind, prefix) in the order they are added: allows first (they need the gateway), then blocks.

        pasta's DNS forwarder lies inside the blocked 10/8; its own /32 through the tap keeps names resolving.
        """
        dns = ("via", f"{DNS_ADDR}/32")
        return [dns] + [("via", str(n)) for n in self.allow] + [("unreachable", str(n)) for n in self.block]


def resolv_conf(snapshot_dir: str) -> str:
    """A resolv.conf naming pasta's DNS forwarder, made once in the per-process snapshot directory."""
    path = os.path.join(snapshot_dir, "resolv-web.conf")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(f"nameserver {DNS_ADDR}\noptions timeout:2 attempts:2\n")
    return path


# Runs in a fresh interpreter (setns needs a single-threaded process): join the sandbox's network namespace (and
# its user namespace when not root), add the routes with rtnetlink and say "ok"; then stay as pasta's watchdog until
# the sandbox's PID 1 is gone and kill pasta, so a crashed owner leaves no stack behind.
# argv: pid, JSON [[kind, prefix], ...], interface, gateway, pasta's pid.
_ROUTES = r"""
import ctypes, json, os, select, socket, struct, sys
pid, routes = sys.argv[1], json.loads(sys.argv[2])
pidfd = os.pidfd_open(int(pid))
libc = ctypes.CDLL(None, use_errno=True)
def join(ns, flag):
    fd = os.open(f'/proc/{pid}/ns/{ns}', os.O_RDONLY)
    if libc.setns(fd, flag) != 0:
        raise OSError(ctypes.get_errno(), f'setns {ns}')
    os.close(fd)
if os.geteuid() != 0:
    join('user', 0x10000000)
join('net', 0x40000000)
oif = socket.if_nametoindex(sys.argv[3])
gw = socket.inet_aton(sys.argv[4])
nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
nl.bind((0, 0))
def attr(kind, data):
    return struct.pack('HH', 4 + len(data), kind) + data + b'\0' * (-len(data) % 4)
for seq, (kind, prefix) in enumerate(routes, 1):
    addr, plen = prefix.split('/')
    rtype = 1 if kind == 'via' else 7  # RTN_UNICAST, RTN_UNREACHABLE
    body = struct.pack('BBBBBBBBI', socket.AF_INET, int(plen), 0, 0, 254, 4, 0, rtype, 0)
    body += attr(1, socket.inet_aton(addr))  # RTA_DST
    if kind == 'via':
        body += attr(5, gw) + attr(4, struct.pack('I', oif))  # RTA_GATEWAY, RTA_OIF
    msg = struct.pack('IHHII', 16 + len(body), 24, 1 | 4 | 0x400 | 0x200, seq, 0) + body  # RTM_NEWROUTE
    nl.send(msg)
    reply = nl.recv(65536)
    err = struct.unpack('i', reply[16:20])[0]
    if err != 0:
        raise OSError(-err, f'route {kind} {prefix}: {os.strerror(-err)}')
nl.close()
print('ok', flush=True)
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
select.select([pidfd], [], [])
os.kill(int(sys.argv[5]), 9)
"""


def _route_ready(pid: int) -> bool:
    """True once pasta has configured the namespace: a default route on the tap."""
    try:
        with open(f"/proc/{pid}/net/route") as f:
            return any(line.split()[:2] == [IFNAME, "00000000"] for line in f.readlines()[1:])
    except OSError:
        return False


def pasta_args(pasta: str, pid: int) -> list[str]:
    a = [pasta, "--config-net", "-4", "--no-map-gw", "-t", "none", "-u", "none", "-T", "none", "-U", "none",
         "--no-dhcp", "-q", "-f", "-I", IFNAME, "-a", SANDBOX_ADDR, "-n", str(PREFIX_LEN), "-g", GATEWAY,
         "--dns-forward", DNS_ADDR]
    if os.geteuid() == 0:
        a += ["--runas", "0:0"]  # this passt drops to nobody before it opens the namespace
        return a + ["--netns", f"/proc/{pid}/ns/net"]  # root: the network namespace alone (also a container's)
    return a + [str(pid)]  # not root: the user and network namespaces of the sandbox's PID 1


def attach(pasta: str, pid: int, policy: NetworkPolicy, state: dict[str, Any]) -> None:
    """Attach pasta to the network namespace of process ``pid`` and install ``policy`` (blocking, ~10-50 ms).

    pasta's process goes to ``state["pasta"]`` (:func:`stop` kills it); SandboxError when the stack does not come
    up or cannot be fenced, after stopping it.
    """
    with tempfile.TemporaryFile() as log:  # a file, not a pipe: pasta must never block or die on its stderr
        proc = subprocess.Popen(pasta_args(pasta, pid), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=log, start_new_session=True, env=settings.child_env())  # it carries agent traffic
        state["pasta"] = proc
        deadline = time.monotonic() + 10.0
        while not _route_ready(pid):
            if proc.poll() is not None or time.monotonic() > deadline:
                stop(state)
                log.seek(0)
                lines = [x for x in log.read(4096).decode("utf-8", "replace").splitlines() if "syslog" not in x]
                hint = "" if os.geteuid() == 0 else (" (not root: the sandbox forbids nested user namespaces, which this "
                                                     "pasta needs; run as root or use network='off')")
                raise SandboxError(
                    f"the web network (pasta) did not come up: {' '.join(lines) or 'no route in 10 s'}{hint}"
                )
            time.sleep(0.003)
    watch = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", _ROUTES, str(pid), json.dumps(policy.routes()), IFNAME, GATEWAY,
         str(proc.pid)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        env=settings.child_env(),
    )
    state["pasta_watch"] = watch
    assert watch.stdout is not None and watch.stderr is not None
    poller = select.poll()  # not select: a process with many sandboxes holds descriptors from 1024 up
    poller.register(watch.stdout, select.POLLIN)
    line = watch.stdout.readline() if poller.poll(30_000) else b""
    if line.strip() != b"ok":
        stop(state)
        tail = watch.stderr.read().decode("utf-8", "replace").strip().splitlines()[-1:] or ["no answer in 30 s"]
        raise SandboxError(f"cannot fence the web network of the sandbox: {tail[0]}")
    watch.stdout.close()
    watch.stderr.close()


def stop(state: dict[str, Any]) -> None:
    """Kill a sandbox's pasta and its watchdog (if any). Never raises."""
    for key in ("pasta_watch", "pasta"):
        proc = state.pop(key, None)
        if proc is None:
            continue
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            proc.wait(timeout=2)
        except Exception:
            pass
        for stream in (proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()
