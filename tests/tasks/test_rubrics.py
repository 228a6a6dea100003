"""RUBRICS.json validation: each official rule, and the jobenv_checks extension."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.errors import JobenvError, TaskFormatError
from jobenv.tasks import NumberCheck, TextCheck, load_rubrics_file, normalize_task_id, parse_rubrics


def one(**over):
    item = {"rubric": "States the total", "weight": 10, "criterion": ["Total is 1,250"]}
    item.update(over)
    return {"rubrics": [item]}


def test_accepts_official_shape_and_variants():
    rubrics = parse_rubrics({"evaluation_rubrics": [{"rubric": "r", "weight": 6, "criterion": "single"}]})
    assert rubrics[0].criteria == ["single"] and rubrics[0].weight == 6.0 and rubrics[0].checks is None
    assert parse_rubrics(one())[0].text == "States the total"
    assert parse_rubrics(one(weight=0) | {"rubrics": one()["rubrics"] + [{"rubric": "x", "weight": 0, "criterion": ["y"]}]})


@pytest.mark.parametrize(
    "doc, fragment",
    [
        ({}, "no 'rubrics'"),
        ({"rubrics": []}, "rubrics: must be a non-empty list"),
        ({"rubrics": "x"}, "rubrics: must be a non-empty list"),
        ([42], "rubrics[0]: must be an object"),
        (one(rubric=""), "rubrics[0].rubric: must be non-empty text"),
        (one(rubric=None), "rubrics[0].rubric: must be non-empty text"),
        (one(weight=True), "rubrics[0].weight: must be a number, got bool"),
        (one(weight="10"), "rubrics[0].weight: must be a number, got str"),
        (one(weight=float("inf")), "rubrics[0].weight: must be finite"),
        (one(weight=float("nan")), "rubrics[0].weight: must be finite"),
        (one(weight=-1), "rubrics[0].weight: must be >= 0"),
        (one(weight=0), "total weight must be > 0"),
        (one(criterion=[]), "rubrics[0].criterion: must be a non-empty list"),
        (one(criterion=["ok", " "]), "rubrics[0].criterion[1]: must be non-empty text"),
        (one(criterion=[3]), "rubrics[0].criterion[0]: must be non-empty text"),
        ("text", "expected a JSON object"),
    ],
)
def test_each_rule_names_file_and_field(doc, fragment):
    with pytest.raises(TaskFormatError) as err:
        parse_rubrics(doc, "some/RUBRICS.json")
    assert str(err.value).startswith("some/RUBRICS.json")
    assert fragment in str(err.value)
    assert isinstance(err.value, JobenvError)


def test_missing_weight_is_named():
    doc = one()
    del doc["rubrics"][0]["weight"]
    with pytest.raises(TaskFormatError, match=r"rubrics\[0\]\.weight: is missing"):
        parse_rubrics(doc)


def test_checks_extension_parses_and_round_trips():
    doc = one(
        criterion=["total", "no apology"],
        jobenv_checks=[
            {"kind": "number", "file": "memo.md", "value": 1250, "tolerance": 0.5},
            {"kind": "text", "file": "memo.md", "pattern": "sorry", "absent": True},
        ],
    )
    rubric = parse_rubrics(doc)[0]
    assert isinstance(rubric.checks[0], NumberCheck) and rubric.checks[0].value == 1250
    assert isinstance(rubric.checks[1], TextCheck) and rubric.checks[1].absent
    again = parse_rubrics({"rubrics": [rubric.to_json()]})[0]
    assert again == rubric
    # written compactly: defaults left out, the kind always kept
    assert rubric.to_json()["jobenv_checks"][1] == {"kind": "text", "file": "memo.md", "pattern": "sorry", "absent": True}


def test_nested_checks():
    check = {"kind": "all_of", "checks": [{"kind": "file_exists", "file": "*.xlsx"}, {"kind": "not", "check": {"kind": "text", "file": "memo.md", "pattern": "TODO"}}]}
    rubric = parse_rubrics(one(jobenv_checks=[check]))[0]
    assert rubric.checks[0].checks[1].check.pattern == "TODO"


@pytest.mark.parametrize(
    "checks, fragment",
    [
        ([], "one check per criterion (1)"),
        ([{"kind": "number", "file": "m", "value": 1}, {"kind": "number", "file": "m", "value": 2}], "one check per criterion"),
        ([{"kind": "telepathy"}], "jobenv_checks[0]"),
        ([{"kind": "number", "file": "m"}], "jobenv_checks[0].number.value"),
        ([{"kind": "number", "value": 1}], "jobenv_checks[0].number.file"),
        ([{"kind": "number", "file": "m", "value": 1, "tolerance": -1}], "jobenv_checks[0].number.tolerance"),
        ([{"kind": "field", "file": "m", "label": "Total"}], "exactly one of equals"),
        ([{"kind": "field", "file": "m", "label": "Total", "number": 1, "equals": "1"}], "exactly one of equals"),
        ([{"kind": "file_exists", "file": "a", "extra": 1}], "jobenv_checks[0].file_exists.extra"),
    ],
)
def test_bad_checks_are_named(checks, fragment):
    with pytest.raises(TaskFormatError) as err:
        parse_rubrics(one(jobenv_checks=checks), "R.json")
    assert fragment in str(err.value)


def test_rubric_file_errors(tmp_path: Path):
    with pytest.raises(TaskFormatError, match="file not found"):
        load_rubrics_file(tmp_path / "RUBRICS.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(TaskFormatError, match="bad.json: not valid JSON"):
        load_rubrics_file(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(one()), encoding="utf-8")
    assert load_rubrics_file(good)[0].weight == 10


@pytest.mark.parametrize(
    "raw, expected",
    [("lawyers/task3", "lawyers/task3"), ("lawyers__task3", "lawyers/task3"), ("main/lawyers/task3", "main/lawyers/task3")],
)
def test_task_ids(raw, expected):
    assert normalize_task_id(raw) == expected


@pytest.mark.parametrize("raw", ["lawyers", "lawyers/3", "/task1", "a/b/c/task1"])
def test_bad_task_ids(raw):
    with pytest.raises(TaskFormatError, match="expected '<occupation>/taskN'"):
        normalize_task_id(raw)
