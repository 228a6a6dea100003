"""``jobenv serve --envs sample`` start-up: seconds until ``/health`` says ready (200: the OpenReward SDK is loaded,
so the first tool call is answered at once; 503 "loading" before) and until the first real request
(``GET /jobenvsample/tools``) is answered, median of 3, beside the time to import the whole OpenReward SDK (which
serving no longer waits for: it imports the SDK's server half only). Prints JSON. Target: ready in under 3 s."""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str, start: float, deadline_s: float = 120.0) -> float:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                r.read()
                return time.monotonic() - start
        except OSError:
            if time.monotonic() - start > deadline_s:
                raise
            time.sleep(0.02)


def one_start(data_dir: str) -> tuple[float, float]:
    port = _port()
    env = {**os.environ, "OPENREWARD_DISABLE_UPDATE_CHECK": "1", "JOBENV_SERVE_JUDGE": "checks", "JOBENV_DATA": data_dir}
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "jobenv.cli", "serve", "--port", str(port), "--envs", "sample"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        health = _wait(f"http://127.0.0.1:{port}/health", start)
        first = _wait(f"http://127.0.0.1:{port}/jobenvsample/tools", start)
    finally:
        proc.terminate()
        proc.wait(30)
    return health, first


def sdk_import_s() -> float:
    code = "import time; t=time.perf_counter(); import openreward, openreward.environments; print(time.perf_counter()-t)"
    env = {**os.environ, "OPENREWARD_DISABLE_UPDATE_CHECK": "1"}
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as data:
        runs = [one_start(data) for _ in range(3)]
    health = statistics.median(h for h, _ in runs)
    first = statistics.median(f for _, f in runs)
    sdk = statistics.median(sdk_import_s() for _ in range(3))
    print(json.dumps({"health_s": round(health, 3), "first_request_s": round(first, 3), "sdk_import_s": round(sdk, 3),
                      "first_request_over_sdk_import": round(first / sdk, 2), "target_health_s": 3.0,
                      "meets_target": health < 3.0}))
