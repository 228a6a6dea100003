"""Time of ``import jobenv`` in a fresh interpreter (median of 7), against ``import json`` as a floor. Prints JSON."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys


def timed(module: str) -> float:
    code = f"import time; t=time.perf_counter(); import {module}; print(time.perf_counter()-t)"
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


if __name__ == "__main__":
    jobenv_s = statistics.median(timed("jobenv") for _ in range(7))
    floor_s = statistics.median(timed("json") for _ in range(7))
    print(json.dumps({"import_jobenv_s": round(jobenv_s, 4), "import_json_s": round(floor_s, 4),
                      "target_s": 0.3, "meets_target": jobenv_s < 0.3}))
