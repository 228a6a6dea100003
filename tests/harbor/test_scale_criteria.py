"""judge.toml scale criteria (likert, numeric, rubric) graded end to end by jobenv's LLM judge: each is asked as
its rungs ("at least k") in one request, the rungs met give the raw score, and the format's own normalisation
and aggregation give the reward (that arithmetic is checked against harbor-rewardkit itself in
tests/integrations/test_rewardkit.py).

The loopback judge places the memo on each scale by what it finds in it (a "clarity: N" line, the number of issue
phrases flagged, how far the reconciliation went), so the expected verdicts are known in advance.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import jobenv
from jobenv.harbor.judge_toml import ladder_answer, parse_judge_toml, rungs, score
from tests.harbor.conftest import write_task
from tests.support.openai_server import OpenAIServer

JUDGE_TOML = """\
[judge]
judge = "openai/gpt-4o"
files = ["/app/memo.md"]

[[criterion]]
name = "clarity"
description = "How clearly the memo explains the total"
type = "likert"
points = 5

[[criterion]]
name = "issues"
description = "How many of the four invoice issues the memo flags"
type = "numeric"
min = 0
max = 4
weight = 2

[[criterion]]
name = "reconciliation"
description = "How far the memo reconciles the invoices with the ledger"
type = "rubric"
levels = ["not attempted", "partly reconciled", "fully reconciled"]

[[criterion]]
name = "total"
description = "States the total of 1250"

[scoring]
aggregation = "weighted_mean"
"""
ISSUES = ["duplicate invoice", "missing PO", "wrong currency", "late fee"]


def _place(criterion: str, memo: str) -> bool:
    """The stand-in's verdict on one rung (or binary criterion) for ``memo``."""
    m = re.search(r"merit at least (\d+) for: How clearly", criterion)
    if m:
        clarity = re.search(r"clarity: (\d)", memo)
        return bool(clarity) and int(clarity.group(1)) >= int(m.group(1))  # type: ignore[union-attr]
    m = re.search(r"the answer is at least ([\d.]+) for: How many", criterion)
    if m:
        return sum(issue in memo for issue in ISSUES) >= float(m.group(1))
    m = re.search(r"reach at least level (\d+) of", criterion)
    if m:
        level = 2 if "fully reconciled" in memo else 1 if "partly reconciled" in memo else 0
        return level >= int(m.group(1))
    return "1250" in memo


def _judge(request: dict[str, Any]) -> str:
    text = request["messages"][-1]["content"]
    head, memo = text.split("## Deliverables", 1)
    criteria = re.findall(r"^Criterion \d+: (.*)$", head, re.M)
    verdicts = [_place(c, memo) for c in criteria]
    return json.dumps({"criteria_results": [{"index": i, "passed": v, "reasoning": "placed", "evidence": "memo.md"}
                                            for i, v in enumerate(verdicts)],
                       "rubric_passed": all(verdicts), "overall_reasoning": "placed on the scale"})


def _grade(task: Path, memo: str, monkeypatch: pytest.MonkeyPatch, url: str) -> dict[str, Any]:
    monkeypatch.setenv("JOBENV_JUDGE_BASE_URL", url)
    monkeypatch.setenv("JOBENV_JUDGE_API_KEY", "k")
    monkeypatch.setenv("JOBENV_JUDGE_MODEL", "judge")
    monkeypatch.setenv("JOBENV_JUDGE_CACHE", "0")
    with jobenv.make(str(task)) as env:
        env.reset()
        env.step({"name": "write", "arguments": {"file_path": "/workspace/memo.md", "content": memo}})
        _, reward, terminated, _, info = env.step({"name": "submit", "arguments": {}})
    assert terminated and info["status"] == "ok", info.get("report", {}).get("error")
    return {"reward": reward, **info}


@pytest.mark.parametrize("memo,raw", [
    ("clarity: 4\nTotal 1250. Flags: duplicate invoice, missing PO, late fee. partly reconciled.",
     {"clarity": 4, "issues": 3, "reconciliation": 1, "total": True}),
    ("clarity: 5\nTotal 1250. duplicate invoice, missing PO, wrong currency, late fee. fully reconciled.",
     {"clarity": 5, "issues": 4, "reconciliation": 2, "total": True}),
    ("Total 1300.", {"clarity": 1, "issues": 0, "reconciliation": 0, "total": False}),
])
def test_scale_criteria_are_placed_by_their_rungs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memo: str,
                                                   raw: dict[str, Any]) -> None:
    task = write_task(tmp_path / "scaled", test_sh=None, judge_toml=JUDGE_TOML)
    config = parse_judge_toml(JUDGE_TOML)
    want, values = score(config, raw)
    with OpenAIServer(_judge) as judge:
        out = _grade(task, memo, monkeypatch, judge.base_url)
        assert len(judge.requests) == 4  # one request per criterion, its rungs together
    assert out["reward"] == pytest.approx(want)
    got = out["report"]["verifier"]["judge_toml"]
    assert got["raw"] == [raw[c.name] for c in config.criterion] and got["values"] == pytest.approx(values)
    assert out["report"]["criteria_passed"] == sum(v >= 1.0 for v in values)


def test_the_rungs_of_each_scale() -> None:
    config = parse_judge_toml(JUDGE_TOML + '\n[[criterion]]\nname = "share"\ndescription = "share"\ntype = "numeric"'
                              '\nmin = 0\nmax = 1\n'.replace("[scoring]", ""))
    clarity, issues, recon, total = config.criterion[:4]
    assert [len(rungs(c)) for c in config.criterion] == [4, 4, 2, 1, 10]
    assert "at least 2 " in rungs(clarity)[0] and "at least 5 " in rungs(clarity)[-1]
    assert "at least 1 for" in rungs(issues)[0] and "level 2 of 2 (fully reconciled)" in rungs(recon)[-1]
    assert rungs(total) == ["States the total of 1250"]
    share = config.criterion[4]
    assert ladder_answer(share, [True] * 10) == 1.0 and ladder_answer(share, [True] * 3 + [False] * 7) == pytest.approx(0.3)
    # inconsistent verdicts never raise a score: a rung met above a missed one counts nothing
    assert ladder_answer(clarity, [True, False, True, True]) == 2
    assert ladder_answer(issues, [False, True, True, True]) == 0
    assert ladder_answer(recon, [False, True]) == 0 and ladder_answer(total, [False]) is False
