"""A Harbor task run the way Harbor's Docker environment runs it, for tests: no jobenv code on the path.

Harbor (``harbor.environments.docker``, ``harbor.agents.oracle``, ``harbor.verifier.verifier``, 0.26) builds
``environment/`` into an image, starts a container of it that sleeps, bind-mounts the trial's log folders at
``/logs/agent`` and ``/logs/verifier``, and runs every command as ``bash -c CMD`` in the task's workdir. Its oracle
uploads ``solution/`` to ``/solution``, ``chmod +x`` the script as root and runs ``/solution/solve.sh >
/logs/agent/oracle.txt 2>&1`` with ``DEBIAN_FRONTEND=noninteractive``. Its verifier removes old reward files,
uploads ``tests/`` to ``/tests``, resolves ``[verifier] env`` (``${VAR}`` / ``${VAR:-default}`` from the host),
``chmod +x`` the script and runs ``/tests/test.sh > /logs/verifier/test-stdout.txt 2>&1`` with that environment,
then reads ``reward.json`` (a JSON object of numbers) or else ``reward.txt``.

The host is reachable from the container as ``host.docker.internal`` (the engine's host gateway), so a stand-in
judge listening on the bridge's gateway address answers the verifier.
"""

from __future__ import annotations

import io
import json
import re
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HOST_ALIAS = "host.docker.internal"
_TEMPLATE = re.compile(r"\$\{([^}:]+)(?::-(.*))?\}")


def resolve_env(env: dict[str, str], host: dict[str, str]) -> dict[str, str]:
    """Harbor's ``resolve_env_vars``: whole-value templates from ``host``; KeyError for an unset one."""
    out = {}
    for key, value in env.items():
        m = _TEMPLATE.fullmatch(value)
        if m is None:
            out[key] = value
        elif m.group(1) in host:
            out[key] = host[m.group(1)]
        elif m.group(2) is not None:
            out[key] = m.group(2)
        else:
            raise KeyError(f"Environment variable '{m.group(1)}' not found in host environment")
    return out


def bridge_gateway(client: Any) -> str:
    """The host's address on Docker's default bridge (where a server must listen for containers to reach it)."""
    import ipaddress

    config = client.networks.get("bridge").attrs["IPAM"]["Config"][0]
    # the engine leaves the gateway out when it is the default: the subnet's first address
    return config.get("Gateway") or str(next(ipaddress.ip_network(config["Subnet"]).hosts()))


def build_image(client: Any, task_dir: Path, tag: str) -> str:
    """``environment/`` built by the local engine (its base image must be there: nothing is pulled)."""
    client.images.build(path=str(task_dir / "environment"), tag=tag, pull=False, rm=True, forcerm=True)
    return tag


def _tar(src: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path in sorted(src.rglob("*")):
            tar.add(path, arcname=str(path.relative_to(src)), recursive=False)
    return buf.getvalue()


@dataclass
class Trial:
    """One trial's container: ``logs`` is the host folder mounted at ``/logs``."""

    container: Any
    task_dir: Path
    logs: Path
    workdir: str

    def exec(self, command: str, env: dict[str, str] | None = None, user: str | None = None) -> tuple[int, str]:
        code, out = self.container.exec_run(["bash", "-c", command], workdir=self.workdir, environment=env or {},
                                            user=user or "")
        return code, out.decode(errors="replace")

    def upload_dir(self, src: Path, target: str) -> None:
        self.exec(f"mkdir -p {target}", user="root")
        self.container.put_archive(target, _tar(src))

    def oracle(self) -> int:
        """Harbor's oracle agent: ``solution/solve.sh`` run in the container; its exit status."""
        self.upload_dir(self.task_dir / "solution", "/solution")
        self.exec("chmod +x /solution/solve.sh", user="root")
        code, _ = self.exec("/solution/solve.sh > /logs/agent/oracle.txt 2>&1", env={"DEBIAN_FRONTEND": "noninteractive"})
        return code

    def verify(self, host_env: dict[str, str]) -> dict[str, float]:
        """Harbor's verifier; the rewards, or RuntimeError naming what is missing (Harbor's verifier error)."""
        self.exec("rm -f -- /logs/verifier/reward.txt /logs/verifier/reward.json", user="root")
        self.upload_dir(self.task_dir / "tests", "/tests")
        config = tomllib.loads((self.task_dir / "task.toml").read_text())
        env = resolve_env(config.get("verifier", {}).get("env", {}), host_env)
        self.exec("chmod +x /tests/test.sh", user="root")
        self.exec("/tests/test.sh > /logs/verifier/test-stdout.txt 2>&1", env=env)
        as_json, as_txt = self.logs / "verifier" / "reward.json", self.logs / "verifier" / "reward.txt"
        if as_json.is_file():
            return {k: float(v) for k, v in json.loads(as_json.read_text()).items()}
        if as_txt.is_file():
            return {"reward": float(as_txt.read_text())}
        stdout = self.logs / "verifier" / "test-stdout.txt"
        raise RuntimeError("no reward file; test-stdout.txt:\n" + (stdout.read_text()[-3000:] if stdout.is_file() else ""))


def start_trial(client: Any, image: str, task_dir: Path, logs: Path) -> Trial:
    """A container of ``image`` as Harbor starts one (sleeping, log folders bind-mounted, the host reachable)."""
    for sub in ("agent", "verifier"):
        (logs / sub).mkdir(parents=True, exist_ok=True)
        (logs / sub).chmod(0o777)
    config = tomllib.loads((task_dir / "task.toml").read_text())
    workdir = config.get("environment", {}).get("workdir") or client.images.get(image).attrs["Config"]["WorkingDir"]
    container = client.containers.run(
        image, ["sh", "-c", "sleep infinity"], detach=True, labels={"jobenv.test.harbor": "1"},
        volumes={str(logs / "agent"): {"bind": "/logs/agent", "mode": "rw"},
                 str(logs / "verifier"): {"bind": "/logs/verifier", "mode": "rw"}},
        extra_hosts={HOST_ALIAS: "host-gateway"})
    return Trial(container=container, task_dir=task_dir, logs=logs, workdir=workdir or "/")
