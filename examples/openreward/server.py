"""Serve jobenv's environments on OpenReward (or anywhere): a thin call to `jobenv serve`.

    python examples/openreward/server.py                                  # 0.0.0.0:8080, local sandbox
    python examples/openreward/server.py --sandbox docker --port 9000 --max-steps 60 --judge llm

Every option is `jobenv serve`'s (see `jobenv serve --help`): --envs, --sandbox, --sandbox-image, --judge,
--scoring, --max-steps, --time-limit, --on-truncate, --idle-timeout. Data is read from $JOBENV_DATA (the
Dockerfile points it at /orwd_data, where `orwd upload` puts files); routes whose data is missing are not served.
"""

from __future__ import annotations

import sys

from jobenv.cli import main

if __name__ == "__main__":
    sys.exit(main(["serve", "--host", "0.0.0.0", "--port", "8080", *sys.argv[1:]]))
