"""Reply recovery and validation against the official recovery vectors and the Harbor verifier's rules.

The vectors are those of the official harness's JSON-recovery tests (facts: which raw reply parses, to
what, under which step name, and which must not parse); the last tests send such replies through the
real judge over HTTP.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from jobenv.judge.llm import PARSE_STEPS, ReplyError, parse_reply, strip_trailing_commas, validate_reply
from tests.judge.conftest import make_task, n_criteria, verdict
from tests.support.openai_server import OpenAIServer

HARBOR_STEPS = set(PARSE_STEPS) | {f"{s}_trailing_commas" for s in PARSE_STEPS}


def payload() -> dict[str, Any]:
    return {
        "criteria_results": [{"index": 0, "passed": True,
                              "reasoning": 'Preserve ,] and ,}, quotes " and backslashes \\.',
                              "evidence": "Unicode \u6771\u4eac; literal [,] and {,}."}],
        "rubric_passed": True,
        "overall_reasoning": "One criterion passed.",
    }


def parses(raw: str, expected: Any, step: str) -> None:
    value, got = parse_reply(raw)
    assert (value, got) == (expected, step)
    assert got in HARBOR_STEPS


def test_nested_trailing_commas_are_repaired() -> None:
    raw = '{"criteria_results": [{"nested": [1, false, null,], "object": {"value": true,},},],}'
    parses(raw, {"criteria_results": [{"nested": [1, False, None], "object": {"value": True}}]}, "direct_json_trailing_commas")


def test_strings_quotes_backslashes_and_unicode_survive_the_repair() -> None:
    expected = payload()
    expected["criteria_results"][0]["evidence"] += '\\" end \\\\ '
    raw = json.dumps(expected, ensure_ascii=False)[:-1] + ",\t\r\n}"
    parses(raw, expected, "direct_json_trailing_commas")
    assert strip_trailing_commas('["Preserve ,] and ,}",]') == '["Preserve ,] and ,}"]'


def test_plain_steps_keep_their_official_names() -> None:
    raw = json.dumps(payload())
    parses(raw, payload(), "direct_json")
    parses("```json\n" + raw + "\n```", payload(), "markdown_fence")
    parses("Some prose\n" + raw + "\nMore prose", payload(), "first_last_brace")
    parses('{"criteria_results": []} between {"criteria_results": [true]}', {"criteria_results": [True]}, "regex_extract")
    for valid in ("[]", "{}", "false", "null", '"literal ,] ,}"'):
        assert parse_reply(valid) == (json.loads(valid), "direct_json")


def test_repair_applies_to_each_step() -> None:
    raw = json.dumps(payload())[:-1] + ",}"
    parses("```json\n" + raw + "\n```", payload(), "markdown_fence_trailing_commas")
    parses("Some prose\n" + raw + "\nMore prose", payload(), "first_last_brace_trailing_commas")
    parses('{"criteria_results": [,]} between {"criteria_results": [true,],}', {"criteria_results": [True]},
           "regex_extract_trailing_commas")


def test_a_valid_later_step_wins_over_repairing_an_earlier_one() -> None:
    raw = '```json\n{"criteria_results": [1,]}\n```\n{"criteria_results": []}'
    parses(raw, {"criteria_results": []}, "regex_extract")


@pytest.mark.parametrize("raw", [
    "[,]", "{,}", "[1,,]", "[1,,,]", '{"criteria_results": [,]}',
    '{"criteria_results": [1,,]}', '{"criteria_results": [1,],,}',
    '{"criteria_results": [1,], "missing":,}',
    '{"criteria_results": [1,], "passed": true/false}',
    '{"criteria_results": [1,\v]}', '{"criteria_results": [1,\u00a0]}',
    '{"criteria_results": [1,] /* comment */}',
    "{\"criteria_results\": ['single quotes',]}",
    '{"criteria_results": ["bad\\q",]}',
    '{"criteria_results": ["unterminated,],}',
    '{"criteria_results": [1,}}',
])
def test_invalid_syntax_stays_invalid(raw: str) -> None:
    with pytest.raises(ReplyError):
        parse_reply(raw)


def test_validation_matches_the_harbor_schema() -> None:
    crit = ["a", "b"]
    good = verdict(2, [True, False])
    results, claimed, overall, by = validate_reply(good, crit)
    assert [r.passed for r in results] == [True, False] and claimed is False and by == "index"
    bad: list[tuple[Any, str]] = [
        ({"result": good}, "criteria_results is missing"),
        ({**good, "criteria_results": good["criteria_results"][:1]}, "1 items, expected 2"),
        ({**good, "criteria_results": [*good["criteria_results"], good["criteria_results"][0]]}, "3 items"),
        ({**good, "rubric_passed": "false"}, "rubric_passed"),
        ({k: v for k, v in good.items() if k != "overall_reasoning"}, "overall_reasoning"),
        ({**good, "overall_reasoning": 3}, "overall_reasoning"),
        ({**good, "criteria_results": [{"index": 0, "passed": "false"}, {"index": 1, "passed": True}]}, "not a boolean"),
        ({**good, "criteria_results": [{"index": 0}, {"index": 1, "passed": True}]}, "not a boolean"),
        ({**good, "criteria_results": ["yes", "no"]}, "not an object"),
        ([good], "not an object"),
    ]
    for obj, reason in bad:
        with pytest.raises(ReplyError, match=reason.replace("(", r"\(")):
            validate_reply(obj, crit)


def test_index_mapping_digit_strings_and_position() -> None:
    crit = ["a", "b", "c"]
    items = [{"index": "2", "passed": False}, {"index": 0, "passed": True}, {"index": "1", "passed": True}]
    results, _, _, by = validate_reply({"criteria_results": items, "rubric_passed": False, "overall_reasoning": ""}, crit)
    assert by == "index" and [r.passed for r in results] == [True, True, False]  # read by index, not position
    plain = [{"passed": True}, {"passed": False}, {"passed": True}]
    results, _, _, by = validate_reply({"criteria_results": plain, "rubric_passed": False, "overall_reasoning": ""}, crit)
    assert by == "position" and [r.passed for r in results] == [True, False, True]
    assert [r.criterion for r in results] == crit


def test_indices_that_do_not_match_the_criteria_make_the_reply_invalid() -> None:
    """Ids are never ignored in favour of position: all-zero, repeated, unknown, partly missing or non-digit
    indices are an invalid reply, even when every item passed (what position matching would credit 1.0)."""
    crit = ["a", "b", "c"]
    wrong: list[list[Any]] = [[0, 0, 0], [0, 1, 1], [1, 2, 3], [0, 1, None], [0, 1, "x"], [0, 1, -1], [0, 1, 2.0]]
    for ids in wrong:
        items = [{"index": i, "passed": True} for i in ids]
        with pytest.raises(ReplyError, match="do not match the 3 criteria"):
            validate_reply({"criteria_results": items, "rubric_passed": True, "overall_reasoning": ""}, crit)
    partly = [{"index": 0, "passed": True}, {"passed": True}, {"index": 2, "passed": True}]
    with pytest.raises(ReplyError, match="do not match"):
        validate_reply({"criteria_results": partly, "rubric_passed": True, "overall_reasoning": ""}, crit)


def test_wrong_ids_through_the_real_judge_are_never_credited(tmp_path) -> None:
    """A judge that answers every rubric with all-zero ids gives no verdict (an error, retried), and a judge that
    does so on one rubric while answering the other validly fails that rubric: no credit either way."""
    from jobenv.judge import LLMJudge

    out = tmp_path / "out"
    out.mkdir()
    (out / "memo.md").write_text("total 41,250")
    task = make_task(tmp_path, [{"rubric": "R", "weight": 1, "criterion": ["c0", "c1"]}])
    zeros = json.dumps({"criteria_results": [{"index": 0, "passed": True}, {"index": 0, "passed": True}],
                        "rubric_passed": True, "overall_reasoning": "all met"})
    with OpenAIServer(lambda req: zeros) as srv:
        judge = LLMJudge(base_url=srv.base_url, api_key="k", model="m", cache_dir=False, backoff_s=0.01, attempts=2)
        rep = judge.grade_sync(task, out)
        assert len(srv.requests) == 2  # each attempt asked, none accepted
    assert rep.status == "error" and rep.normalized_score == 0.0
    assert "do not match" in (rep.rubrics[0].error or "")
    two = make_task(tmp_path / "two", [{"rubric": "R0", "weight": 1, "criterion": ["c0", "c1"]},
                                       {"rubric": "R1", "weight": 1, "criterion": ["d0", "d1"]}])

    def reply(req: dict[str, Any]) -> str:
        text = json.dumps(req["messages"])
        ids = [0, 0] if "d0" in text else [0, 1]
        return json.dumps({"criteria_results": [{"index": i, "passed": True} for i in ids],
                           "rubric_passed": True, "overall_reasoning": "all met"})

    with OpenAIServer(reply) as srv:
        judge = LLMJudge(base_url=srv.base_url, api_key="k", model="m", cache_dir=False, backoff_s=0.01, attempts=2)
        rep = judge.grade_sync(two, out)
    assert [r.passed for r in rep.rubrics] == [True, False] and rep.normalized_score == 0.5


def test_recovered_replies_through_the_real_judge(tmp_path) -> None:
    from jobenv.judge import LLMJudge

    out = tmp_path / "out"
    out.mkdir()
    (out / "memo.md").write_text("total 41,250")
    task = make_task(tmp_path, [{"rubric": "R", "weight": 7, "criterion": ["c0", "c1"]}])
    replies = iter([
        json.dumps(verdict(2))[:-1] + ",}",  # trailing comma, repaired
        "```\n" + json.dumps({"criteria_results": [{"passed": True}, {"passed": True}],
                              "rubric_passed": True, "overall_reasoning": "fine"}) + "\n```",  # no indices: by position
        json.dumps({"criteria_results": [{"index": "1", "passed": True}, {"index": "0", "passed": False}],
                    "rubric_passed": False, "overall_reasoning": "c0 missing"}),
    ])
    with OpenAIServer(lambda req: next(replies)) as srv:
        judge = LLMJudge(base_url=srv.base_url, api_key="k", model="m", cache_dir=False, backoff_s=0.01)
        reps = [judge.grade_sync(task, out) for _ in range(3)]
        assert all(n_criteria(r) == 2 for r in srv.requests)
    assert [r.status for r in reps] == ["ok"] * 3
    assert [r.rubrics[0].parse_step for r in reps] == ["direct_json_trailing_commas", "markdown_fence", "direct_json"]
    assert [r.rubrics[0].matched_by for r in reps] == ["index", "position", "index"]
    assert [r.normalized_score for r in reps] == [1.0, 1.0, 0.0]
    assert [c.passed for c in reps[2].rubrics[0].criteria_results] == [False, True]
