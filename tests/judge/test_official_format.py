"""Both scores in every report, and the official details/scorecard files.

The reference files are built here the official way, straight from the documented format
(shared/spec/official-judge.md, "Details JSON" and "Scorecard"), from the same judge replies; ours must have
exactly the same keys, the same value types and - for the official scoring - the same values.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from jobenv.judge import LLMJudge
from tests.judge.conftest import RUBRICS, n_criteria, rubric_of, verdict
from tests.support.openai_server import OpenAIServer, Reply

# per rubric text: the criteria verdicts and the judge's rubric_passed claim
SCRIPT = {
    "States the Q3 total": ([True, True], True),       # honest pass
    "Flags the anomaly": ([False], True),             # over-claims: official credits it, strict does not
    "Recommends an action": ([True, False, True], False),
}


def scripted(req: dict[str, Any]) -> str:
    passed, claim = SCRIPT[rubric_of(req)]
    assert n_criteria(req) == len(passed)
    return json.dumps(verdict(len(passed), passed, rubric_passed=claim))


def official_details(rubrics: list[dict[str, Any]], replies: dict[str, Any], judge_model: str, evaluated: str) -> dict[str, Any]:
    """The details file as the documented format describes it (criteria by position, rubric_passed credited)."""
    results = []
    for i, r in enumerate(rubrics):
        reply = replies[r["rubric"]]
        crit = [{"index": j, "criterion": c, "passed": bool(reply["criteria_results"][j]["passed"]),
                 "reasoning": reply["criteria_results"][j]["reasoning"], "evidence": reply["criteria_results"][j]["evidence"]}
                for j, c in enumerate(r["criterion"])]
        passed = bool(reply["rubric_passed"])
        results.append({"index": i, "rubric": r["rubric"], "weight": r["weight"], "result": {
            "passed": passed, "score": r["weight"] if passed else 0, "criteria_count": len(crit),
            "criteria_passed": sum(c["passed"] for c in crit), "criteria_results": crit,
            "overall_reasoning": reply["overall_reasoning"]}})
    passed_n = sum(r["result"]["passed"] for r in results)
    return {
        "evaluated_model": evaluated, "judge_model": judge_model,
        "judge_implementation": {"extraction_schema": 2, "sha256": "0" * 64},
        "timestamp": "2026-01-01T00:00:00+00:00",
        "total_score": sum(r["result"]["score"] for r in results), "max_score": sum(r["weight"] for r in results),
        "pass_rate": f"{int(passed_n / len(results) * 100)}%", "passed_count": passed_n, "total_count": len(results),
        "rubrics": results,
    }


def official_scorecard(details: dict[str, Any]) -> dict[str, Any]:
    rs = details["rubrics"]
    total, mx = sum(r["result"]["score"] for r in rs), sum(r["weight"] for r in rs)
    passed = sum(1 for r in rs if r["result"]["passed"])
    card: dict[str, Any] = {"total_score": total, "max_score": mx, "normalized_score": round(total / mx, 4),
                            "pass_rate": round(passed / len(rs), 4), "passed_count": passed, "total_count": len(rs)}
    for r in rs:
        card[f"rubric_{r['index']}_passed"] = 1 if r["result"]["passed"] else 0
        card[f"rubric_{r['index']}_score"] = r["result"]["score"]
    return card


def shape(x: Any) -> Any:
    """Keys and value types, recursively (lists by their items)."""
    if isinstance(x, dict):
        return {k: shape(v) for k, v in x.items()}
    if isinstance(x, list):
        return [shape(v) for v in x]
    return type(x).__name__


def test_both_scores_and_official_files_match_the_documented_format(task, output, tmp_path) -> None:
    with OpenAIServer(scripted) as srv:
        rep = LLMJudge(base_url=srv.base_url, api_key="k", model="judge-m", cache_dir=False).grade_sync(task, output)
    assert rep.status == "ok"
    # strict: only rubric 0 (weight 10 of 20); official: rubrics 0 and 1 (16 of 20), as judge.py credits them
    assert (rep.normalized_score, rep.total_score, rep.passed_count) == (0.5, 10.0, 1)
    assert (rep.official_normalized_score, rep.official_total_score, rep.official_passed_count) == (0.8, 16.0, 2)
    assert rep.score("strict") == 0.5 and rep.score("official") == 0.8
    assert [r.official_passed for r in rep.rubrics] == [True, True, False]

    replies = {r["rubric"]: verdict(len(SCRIPT[r["rubric"]][0]), *SCRIPT[r["rubric"]]) for r in RUBRICS}
    reference = official_details(RUBRICS, replies, "judge-m", "model-x")
    ours = rep.to_official_details(evaluated_model="model-x", scoring="official")
    assert shape(ours) == shape(reference)
    assert list(ours) == list(reference) and list(ours["rubrics"][0]["result"]) == list(reference["rubrics"][0]["result"])
    for volatile in ("timestamp", "judge_implementation"):
        ours.pop(volatile), reference.pop(volatile)
    assert ours == reference  # same verdicts, same file
    assert isinstance(rep.to_official_details()["max_score"], int)  # integers stay integers
    assert rep.to_official_details(scoring="strict")["pass_rate"] == "33%"

    card = rep.to_official_scorecard(scoring="official")
    assert card == official_scorecard(official_details(RUBRICS, replies, "judge-m", "model-x"))
    strict = rep.to_official_scorecard(scoring="strict")
    assert strict["normalized_score"] == 0.5 and strict["rubric_1_passed"] == 0
    # the official files default to official scoring: called bare, they are the official judge's files
    assert rep.to_official_scorecard() == card and rep.to_official_details()["total_score"] == 16
    impl = rep.to_official_details()["judge_implementation"]
    assert impl["extraction_schema"] == 2 and re.fullmatch(r"[0-9a-f]{64}", impl["sha256"])
    assert impl["sha256"].startswith(rep.grader_hash)
    datetime.fromisoformat(rep.to_official_details()["timestamp"])
    json.dumps(ours)


def test_an_unjudged_rubric_is_written_as_the_official_failure_and_scores_nothing(task, output, tmp_path) -> None:
    def handler(req: dict[str, Any]) -> Reply | str:
        return Reply(status=503) if rubric_of(req) == "Flags the anomaly" else scripted(req)

    with OpenAIServer(handler) as srv:
        rep = LLMJudge(base_url=srv.base_url, api_key="k", model="judge-m", cache_dir=False,
                       backoff_s=0.01).grade_sync(task, output)
    assert rep.status == "error"
    assert rep.normalized_score == rep.official_normalized_score == 0.0  # fail-closed under both scorings
    d = rep.to_official_details(scoring="official")
    bad = d["rubrics"][1]["result"]
    assert bad["passed"] is False and bad["score"] == 0 and bad["criteria_passed"] == 0
    assert bad["overall_reasoning"].startswith("Failed after 3 attempts: ")
    assert all(c["passed"] is False and c["reasoning"].startswith("Failed to get judge response") for c in bad["criteria_results"])
    # the scorecard follows from its rubric lines: official counts the judged rubrics, as judge.py does ...
    card = rep.to_official_scorecard(scoring="official")
    assert card["total_score"] == sum(r["result"]["score"] for r in d["rubrics"]) == d["total_score"] > 0
    assert card["normalized_score"] == round(card["total_score"] / card["max_score"], 4)
    assert card["passed_count"] == sum(card[f"rubric_{i}_passed"] for i in range(card["total_count"]))
    # ... strict fails every rubric of an errored report, so nothing in the card says otherwise
    strict = rep.to_official_scorecard(scoring="strict")
    assert strict["total_score"] == strict["normalized_score"] == strict["passed_count"] == 0
    assert all(strict[f"rubric_{i}_score"] == 0 for i in range(strict["total_count"]))


def test_empty_output_scores_zero_both_ways(task, tmp_path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    with OpenAIServer(scripted) as srv:
        rep = LLMJudge(base_url=srv.base_url, api_key="k", model="judge-m", cache_dir=False).grade_sync(task, out)
        assert srv.requests == []
    assert rep.status == "ok" and rep.normalized_score == rep.official_normalized_score == 0.0
    assert rep.to_official_details()["pass_rate"] == "0%"
