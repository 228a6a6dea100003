"""network="off" and network="web" on both backends, with real servers.

"The internet" is stood in for by a network namespace this test creates itself (a veth pair on a private /30,
an HTTP server inside): with ``web`` it is reachable when its address is explicitly allowed, and not otherwise.
A server on the host's 127.0.0.1 and one on the host's own addresses are never reachable. Traffic goes only to
loopback and to the namespace made here. Needs root and iproute2 (installed by ``setup.sh --dev``).
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from jobenv.errors import SandboxUnavailableError
from jobenv.sandbox import SandboxLimits, make_sandbox
from tests.sandbox.fixtures import assert_healthy, run

REPLY = "NETNS-SERVER-REPLY"


def _connect(addr: str, port: int) -> str:
    """A bash probe that prints REACHED-<addr> only when an HTTP reply came back."""
    return (f"(exec 3<>/dev/tcp/{addr}/{port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && timeout 5 cat <&3) "
            f"2>/dev/null | grep -q REPLY && echo REACHED-{addr} || echo BLOCKED-{addr}")


@pytest.fixture
def host_server() -> Iterator[tuple[int, list[str]]]:
    """An HTTP server of the host on 0.0.0.0 (so on 127.0.0.1 and every host address)."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            hits.append(self.client_address[0])
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"HOST-SERVER-REPLY")

        def log_message(self, *a: object) -> None:
            pass

    server = HTTPServer(("0.0.0.0", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], hits
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def internet() -> Iterator[tuple[str, int]]:
    """A network namespace with an HTTP server at 10.213.<n>.2 (reached from the host over a veth pair)."""
    yield from _netns_server("10.213")


@pytest.fixture
def public_internet() -> Iterator[tuple[str, int]]:
    """The same at a public-looking address, 11.213.<n>.2: routed by this host to its own veth pair only, so
    traffic never leaves the machine."""
    yield from _netns_server("11.213")


def _netns_server(prefix: str) -> Iterator[tuple[str, int]]:
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2 to make a network namespace")
    tag = secrets.token_hex(3)
    ns, host_if, ns_if = f"jobenv-t-{tag}", f"jvh{tag}", f"jvn{tag}"
    n = 1 + secrets.randbelow(250)
    host_addr, ns_addr = f"{prefix}.{n}.1", f"{prefix}.{n}.2"

    def ip(*args: str) -> None:
        subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)

    server = None
    try:
        ip("netns", "add", ns)
        ip("link", "add", host_if, "type", "veth", "peer", "name", ns_if)
        ip("link", "set", ns_if, "netns", ns)
        ip("addr", "add", f"{host_addr}/30", "dev", host_if)
        ip("link", "set", host_if, "up")
        ip("-n", ns, "addr", "add", f"{ns_addr}/30", "dev", ns_if)
        ip("-n", ns, "link", "set", ns_if, "up")
        ip("-n", ns, "link", "set", "lo", "up")
        code = ("import http.server as h, sys\n"
                "class H(h.BaseHTTPRequestHandler):\n"
                "    def do_GET(self):\n"
                f"        self.send_response(200); self.end_headers(); self.wfile.write(b'{REPLY}')\n"
                "    def log_message(self, *a): pass\n"
                f"s = h.HTTPServer(('{ns_addr}', 0), H); print(s.server_address[1], flush=True); s.serve_forever()\n")
        server = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-I", "-c", code],
                                  stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None
        port = int(server.stdout.readline())
        with socket.create_connection((ns_addr, port), timeout=5):
            pass  # the host itself reaches it
        yield ns_addr, port
    finally:
        if server is not None:
            server.kill()
            server.wait()
        subprocess.run(["ip", "link", "del", host_if], capture_output=True, timeout=30)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def _host_addresses() -> list[str]:
    from jobenv.sandbox._net import host_addresses

    return host_addresses()


def test_web_reaches_an_allowed_address_and_never_the_host(new_sandbox, backend: str, internet, host_server) -> None:
    addr, port = internet
    hport, hits = host_server
    host_probes = [_connect(a, hport) for a in ["127.0.0.1", *_host_addresses()]]

    async def body() -> None:
        sb = await new_sandbox(network="web", network_allow=[addr])
        r = await sb.run("; ".join([_connect(addr, port), *host_probes,
                                    "timeout 5 bash -c '(exec 3<>/dev/tcp/169.254.169.254/80)' 2>/dev/null "
                                    "&& echo REACHED-metadata || echo BLOCKED-metadata"]), timeout=120)
        assert f"REACHED-{addr}" in r.output, r.output
        assert "REACHED-127.0.0.1" not in r.output and "REACHED-metadata" not in r.output, r.output
        for a in _host_addresses():
            assert f"REACHED-{a}" not in r.output, r.output
        # the agent cannot lift the fence: no capability to change routes
        r = await sb.run("ip route del 10.0.0.0/8 2>&1 || echo ROUTE-DEL-REFUSED; "
                         "python3 -c 'import socket; s=socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); print(\"nl\")'")
        assert "ROUTE-DEL-REFUSED" in r.output or "Operation not permitted" in r.output or "not found" in r.output
        await assert_healthy(sb)

    run(body())
    assert hits == [], f"the host server was reached from {hits}"


def test_web_without_allow_keeps_private_ranges_closed(new_sandbox, internet) -> None:
    addr, port = internet

    async def body() -> None:
        sb = await new_sandbox(network="web")
        r = await sb.run(_connect(addr, port), timeout=60)
        assert f"BLOCKED-{addr}" in r.output, r.output

    run(body())


def test_deny_list_wins_over_allow(new_sandbox, internet) -> None:
    addr, port = internet

    async def body() -> None:
        sb = await new_sandbox(network="web", network_allow=[addr], network_deny=[f"{addr}/32"])
        r = await sb.run(_connect(addr, port), timeout=60)
        assert f"BLOCKED-{addr}" in r.output, r.output

    run(body())


def _udp_route(addr: str) -> str:
    """A python probe of the sandbox's routing table: a UDP connect sends nothing, it only looks up the route."""
    return (f"python3 -c \"import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            f"try:\n    s.connect(('{addr}', 53)); print('ROUTE-{addr}')\n"
            f"except OSError as e:\n    print('NOROUTE-{addr}', e.errno)\"")


def test_an_allow_list_reaches_its_hosts_and_nothing_else(new_sandbox, public_internet, internet) -> None:
    addr, port = public_internet
    private, pport = internet
    neighbour = addr.rsplit(".", 1)[0] + ".6"

    async def body() -> None:
        sb = await new_sandbox(network="web")  # the plain web reaches the public server: the list is the fence
        r = await sb.run(f"{_connect(addr, port)}; {_udp_route('8.8.8.8')}", timeout=60)
        assert f"REACHED-{addr}" in r.output and "ROUTE-8.8.8.8" in r.output, r.output
        await sb.close()
        sb = await new_sandbox(network="web", network_only=[addr, "no-such-host.invalid", "169.254.169.254"],
                               network_allow=[private])
        r = await sb.run("; ".join([_connect(addr, port), _connect(private, pport), _udp_route("8.8.8.8"),
                                    _udp_route(neighbour), _udp_route("169.254.169.254")]), timeout=60)
        assert f"REACHED-{addr}" in r.output and f"REACHED-{private}" in r.output, r.output
        for other in ("8.8.8.8", neighbour, "169.254.169.254"):  # a block still wins over the list
            assert f"NOROUTE-{other}" in r.output, r.output
        await sb.close()
        sb = await new_sandbox(network="web", network_only=[])  # an empty list reaches nothing public
        r = await sb.run(f"{_connect(addr, port)}; {_udp_route('8.8.8.8')}", timeout=60)
        assert f"BLOCKED-{addr}" in r.output and "NOROUTE-8.8.8.8" in r.output, r.output

    run(body())


def test_off_reaches_nothing(new_sandbox, internet, host_server) -> None:
    addr, port = internet
    hport, hits = host_server

    async def body() -> None:
        sb = await new_sandbox(network="off", network_allow=[addr])
        r = await sb.run(f"{_connect(addr, port)}; {_connect('127.0.0.1', hport)}; ls /sys/class/net 2>/dev/null; "
                         "cat /proc/net/dev | tail -n +3 | cut -d: -f1", timeout=60)
        assert "REACHED" not in r.output, r.output
        assert "web0" not in r.output and "eth0" not in r.output

    run(body())
    assert hits == []


def test_true_is_an_alias_of_web() -> None:
    assert SandboxLimits(network=True).network == "web" and SandboxLimits(network=False).network == "off"
    assert SandboxLimits().network == "off"
    with pytest.raises(ValueError):
        SandboxLimits(network="host")  # type: ignore[arg-type]


def test_web_without_pasta_is_a_clear_error_not_the_host_network(backend: str, sandbox_options: dict,
                                                                   monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from jobenv.sandbox import _net

    monkeypatch.setenv("PATH", str(tmp_path))  # no pasta on PATH ...
    monkeypatch.setattr(_net, "_FALLBACK", ())  # ... nor in the usual places
    sb = make_sandbox(backend, limits=SandboxLimits(network="web"), **sandbox_options)
    with pytest.raises(SandboxUnavailableError, match="passt"):
        sb.start_sync(None)
    sb.close_sync()


def test_a_crashed_owner_leaves_no_network_stack(backend: str, sandbox_options: dict) -> None:
    """The owner dies without closing its web sandbox: its pasta is gone within seconds anyway."""
    import json
    import time

    code = ("import json, os, sys\nfrom jobenv.sandbox import SandboxLimits, make_sandbox\n"
            "sb = make_sandbox(sys.argv[1], limits=SandboxLimits(network='web'), **json.loads(sys.argv[2]))\n"
            "sb.start_sync(None)\nprint(sb._state['pasta'].pid, flush=True)\nos._exit(0)\n")
    proc = subprocess.run([sys.executable, "-c", code, backend, json.dumps(sandbox_options)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    pasta = int(proc.stdout.split()[-1])
    if backend == "docker":  # a container outlives its owner until `jobenv gc`; removing it ends the stack
        from jobenv.sandbox.gc import gc_docker

        gc_docker(verbose=False)
    def running(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split(")")[-1].split()[0] != "Z"
        except OSError:
            return False

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and running(pasta):
        time.sleep(0.1)
    assert not running(pasta), "pasta outlived its sandbox"
