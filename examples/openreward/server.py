"""Serve jobenv's environments on OpenReward (or anywhere) with the openreward SDK.

    python examples/openreward/server.py                      # 0.0.0.0:8080, local sandbox
    python examples/openreward/server.py --sandbox docker --port 9000

It serves the classes JobBench (splits main, easy, all), JobTasks (train) and JobenvSample (sample); the first one
is the default route. Pick and order them with JOBENV_SERVE_ENVS (e.g. "sample,jobbench"). Data is read from
$JOBENV_DATA (the Dockerfile points it at /orwd_data, where `orwd upload` puts files). The judge reads its
endpoint from the JOBENV_JUDGE_* variables; a session may bring its own key as the `openai_api_key` secret.
This is the same server as `jobenv serve`.
"""

from __future__ import annotations

import argparse

from jobenv.hosting import make_server


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--sandbox", default=None, help="local | docker (default $JOBENV_SANDBOX or local)")
    p.add_argument("--judge", default=None, help="auto | checks | llm (default $JOBENV_SERVE_JUDGE or auto)")
    args = p.parse_args()
    make_server(sandbox=args.sandbox, judge=args.judge).run(host=args.host, port=args.port)


if __name__ == "__main__":
    main()
