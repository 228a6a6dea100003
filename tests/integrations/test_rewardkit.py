"""harbor-rewardkit (from the package index, in its own Python >= 3.12 venv) and :mod:`jobenv.harbor.judge_toml`
give the same criterion values and the same aggregate for the same judge.toml and the same judge answers, on
every aggregation and spelling, and refuse the same files and answers.

The cases are drawn from a seed: 1-6 criteria of every type (binary answers as booleans, words and numbers;
likert, numeric and rubric answers inside and outside their range), weights including 0 (and negative ones,
which only weighted-sum allows), ``negate`` and ``optional`` set directly or through ``annotations``, and a
threshold.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from jobenv.errors import TaskFormatError
from jobenv.harbor import parse_judge_toml, score

from .conftest import _venv
from .venvs import Venv

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

DRIVER = Path(__file__).with_name("rewardkit_driver.py")
SPELLINGS = ["weighted_mean", "weighted-mean", "weighted-sum", "weighted_sum", "all_pass", "all-pass", "any_pass",
             "any-pass", "required_pass", "required-pass", "threshold"]


@pytest.fixture(scope="module")
def rewardkit_venv(tmp_path_factory: pytest.TempPathFactory, jobenv_wheel: Path) -> Venv:
    return _venv(tmp_path_factory, jobenv_wheel, "rewardkit-venv", "", "harbor-rewardkit==0.2.3", python=(3, 12))


def _criterion(rng: random.Random, i: int, aggregation: str) -> tuple[list[str], Any]:
    kind = rng.choice(["binary", "likert", "numeric", "rubric"])
    weights = [1, -1, 2.5, 0] if aggregation.startswith("weighted") and aggregation.endswith("sum") else [1, 1, 2, 0.5, 0, 3]
    lines = ["[[criterion]]", f'description = "criterion {i} of the case"', f'name = "c{i}"', f'type = "{kind}"',
             f"weight = {rng.choice(weights)}"]
    notes = []
    r = rng.random()
    if r < 0.25:
        lines.append("negate = true")
    elif r < 0.4:
        notes.append('type = "negative criterion"')
    if rng.random() < 0.3:
        lines.append("optional = true")
    elif rng.random() < 0.2:
        notes.append('importance = "optional"')
    if notes:
        lines.append("annotations = { " + ", ".join(notes) + " }")
    if kind == "binary":
        return lines, rng.choice([True, False, "yes", "no", "TRUE", 0, 1, 0.3])
    if kind == "likert":
        points = rng.randint(2, 7)
        return lines + [f"points = {points}"], rng.randint(0, points + 1)
    if kind == "numeric":
        lo = rng.choice([0, -5, 10])
        hi = lo + rng.choice([1, 10, 100])
        return lines + [f"min = {lo}", f"max = {hi}"], round(rng.uniform(lo - 3, hi + 3), 3)
    n = rng.randint(2, 4)
    return lines + ["levels = [" + ", ".join(f'"level {j}"' for j in range(n)) + "]"], rng.randint(0, n)


def _cases(seed: int, per_spelling: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for aggregation in SPELLINGS:
        for _ in range(per_spelling):
            lines, answers = ["[judge]", 'judge = "openai/gpt-4o"', ""], {}
            for i in range(rng.randint(1, 6)):
                crit, answers[f"c{i}"] = _criterion(rng, i, aggregation)
                lines += crit + [""]
            lines += ["[scoring]", f'aggregation = "{aggregation}"', f"threshold = {round(rng.uniform(0.2, 0.9), 2)}"]
            out.append({"toml": "\n".join(lines), "answers": answers})
    return out


def _ours(case: dict[str, Any]) -> dict[str, Any]:
    try:
        reward, values = score(parse_judge_toml(case["toml"]), case["answers"])
    except (TaskFormatError, ValueError) as exc:
        return {"error": str(exc)}
    return {"reward": reward, "values": values}


def test_jobenv_aggregates_judge_toml_as_rewardkit_does(rewardkit_venv: Venv, tmp_path: Path) -> None:
    cases = _cases(seed=20261203, per_spelling=14)
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    proc = rewardkit_venv.run("python", str(DRIVER), str(path), env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(theirs) == len(cases)
    graded: dict[str, int] = {}
    for case, want in zip(cases, theirs):
        got = _ours(case)
        assert ("error" in got) == ("error" in want), (case, got, want)
        if "error" in want:
            continue
        assert got["reward"] == pytest.approx(want["reward"], abs=1e-12), (case, got, want)
        assert got["values"] == pytest.approx(want["values"], abs=1e-12), (case, got, want)
        spelling = case["toml"].rsplit('aggregation = "', 1)[1].split('"', 1)[0]
        graded[spelling] = graded.get(spelling, 0) + 1
    # every spelling rewardkit accepts was compared on graded cases, and weighted_sum is refused by both
    assert set(graded) == set(SPELLINGS) - {"weighted_sum"}, graded
    assert all(n >= 5 for n in graded.values()), graded
    rewards = {round(_ours(c).get("reward", -1), 6) for c in cases}
    assert {0.0, 1.0} <= rewards and len(rewards) > 10  # the cases reach both ends and many values between
