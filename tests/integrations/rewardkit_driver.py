"""Runs inside the harbor-rewardkit venv: for each case (a judge.toml and a judge's raw answers by criterion
name), rewardkit's own discovery of the file, its parsing of the judge's JSON answer and its aggregation.

argv: a JSON file holding a list of ``{"toml": text, "answers": {name: raw}}``. Prints one JSON list: per case
``{"reward", "values"}`` or ``{"error"}`` (rewardkit refused the file or the answers).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from rewardkit import discover
from rewardkit.judges import parse_judge_response
from rewardkit.reward import aggregate_scores


def one(case: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "judge.toml").write_text(case["toml"])
        try:
            (reward,) = discover(tmp, workspace=tmp)
            answer = json.dumps({k: {"score": v, "reasoning": ""} for k, v in case["answers"].items()})
            scores = parse_judge_response(answer, reward.criteria, reward.weights)
            return {"reward": aggregate_scores(scores, reward.aggregation, reward.threshold),
                    "values": [s.value for s in scores]}
        except Exception as exc:  # noqa: BLE001 - a refusal is a result to compare
            return {"error": f"{type(exc).__name__}: {exc}"}


def main() -> None:
    cases = json.loads(Path(sys.argv[1]).read_text())
    print(json.dumps([one(c) for c in cases]))


if __name__ == "__main__":
    main()
