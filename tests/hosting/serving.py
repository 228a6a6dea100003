"""Helpers of the hosting tests: a real ``jobenv serve`` process on 127.0.0.1 and a leak-scan helper.

The server runs as a subprocess (the same path a deployment takes), so the SDK's FastAPI app, uvicorn, SSE and the
client's HTTP stack are all exercised for real. Its log goes to a file that is shown when start-up fails.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.ports import free_port

REPO = Path(__file__).resolve().parents[2]


class ServeProcess:
    """``jobenv serve`` in a subprocess; ``url`` is its base URL. Stopped by pid (its own process group)."""

    def __init__(self, tmp: Path, *, sandbox: str = "local", args: list[str] | None = None,
                 env: dict[str, str] | None = None, data_dir: Path | None = None, wait: bool = True) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp / f"serve-{self.port}.log"
        # by default an empty data dir: JobBench is "not downloaded" here, deterministically
        self.data_dir = data_dir or tmp / "data"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        full_env = dict(os.environ)
        full_env.update(
            {
                "OPENREWARD_DISABLE_UPDATE_CHECK": "1",
                "PYTHONPATH": str(REPO) + os.pathsep + full_env.get("PYTHONPATH", ""),
                "JOBENV_DATA": str(self.data_dir),
                "JOBENV_SERVE_JUDGE": "checks",
            }
        )
        full_env.update(env or {})
        cmd = [sys.executable, "-m", "jobenv.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
               "--sandbox", sandbox, *(args or [])]
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, cwd=str(REPO), env=full_env, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        if wait:
            self._wait_healthy(120.0)

    def jobenv_lines(self) -> list[str]:
        """The server's own log lines (``jobenv serve: ...``), without the SDK's."""
        return [line for line in self.log().splitlines() if line.startswith("jobenv serve:")]

    def status(self, route: str = "jobenvsample") -> dict[str, Any]:
        code, body = self.get(f"/{route}/status")
        assert code == 200, body
        return json.loads(body)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-20000:]
        except OSError:
            return ""

    def _wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jobenv serve exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as r:
                    if json.loads(r.read()) == {"status": "ok"}:
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"jobenv serve did not become healthy in {timeout}s:\n{self.log()}")

    def get(self, path: str) -> tuple[int, str]:
        return self._request(urllib.request.Request(self.url + path))

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[int, str]:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
        return self._request(req)

    @staticmethod
    def _request(req: urllib.request.Request) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def wait_exit(self, timeout: float = 120.0) -> int:
        """For servers expected to refuse to start: the exit status (the log is in :meth:`log`)."""
        rc = self.proc.wait(timeout=timeout)
        self._log.close()
        return rc

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGINT)  # our own session/group: uvicorn shuts down cleanly
                self.proc.wait(timeout=20)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(timeout=10)
        if not self._log.closed:
            self._log.close()


def strings_of(obj: Any) -> list[str]:
    """Every string inside a client result (dataclasses, pydantic models, dicts, lists), for leak scans."""
    out: list[str] = []

    def walk(o: Any) -> None:
        if isinstance(o, str):
            out.append(o)
        elif isinstance(o, dict):
            for k, v in o.items():
                walk(k)
                walk(v)
        elif isinstance(o, (list, tuple, set)):
            for v in o:
                walk(v)
        elif hasattr(o, "model_dump"):
            walk(o.model_dump())
        elif hasattr(o, "__dataclass_fields__"):
            for f in o.__dataclass_fields__:
                walk(getattr(o, f))
        elif o is not None and not isinstance(o, (int, float, bool)):
            out.append(str(o))

    walk(obj)
    return out
