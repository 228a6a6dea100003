"""Harbor's judge.toml: criterion values, aggregations and refusals (parity with harbor-rewardkit itself is in
tests/integrations/test_rewardkit.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobenv.errors import TaskFormatError
from jobenv.harbor import load_judge_toml, parse_judge_toml, score

DAYJOB_LIKE = '''
[judge]
judge = "agent"
files = ["/workspace/memo.docx", "/workspace/model.xlsx"]

[[criterion]]
description = "States that the chart documents a stroke, not Bell's palsy"

[[criterion]]
description = "Recommends a hold on the release"
weight = 3

[[criterion]]
description = "Names a patient in the summary"
negate = true

[[criterion]]
description = "Formatting is tidy"
type = "likert"
points = 5
optional = true

[scoring]
aggregation = "{agg}"
threshold = 0.75
'''


@pytest.mark.parametrize("agg,answers,want", [
    # weighted mean: (1*1 + 3*1 + 1*1 + 1*0.5) / 6
    ("weighted_mean", {"premise": "yes", "hold": True, "names": "no", "tidy": 3}, 5.5 / 6),
    ("weighted-sum", {"premise": "yes", "hold": True, "names": "no", "tidy": 3}, 5.5),
    ("all_pass", {"premise": "yes", "hold": True, "names": "no", "tidy": 5}, 1.0),
    ("all_pass", {"premise": "yes", "hold": True, "names": "no", "tidy": 4}, 0.0),
    ("required_pass", {"premise": "yes", "hold": True, "names": "no", "tidy": 1}, 1.0),  # the optional one fails
    ("required_pass", {"premise": "yes", "hold": True, "names": "yes", "tidy": 5}, 0.0),  # a named patient fails
    ("any_pass", {"premise": "no", "hold": False, "names": "yes", "tidy": 1}, 0.0),
    ("threshold", {"premise": "yes", "hold": True, "names": "no", "tidy": 1}, 1.0),   # 5/6 >= 0.75
    ("threshold", {"premise": "no", "hold": True, "names": "yes", "tidy": 5}, 0.0),   # 4/6 < 0.75
])
def test_dayjob_style_rubric_scores(agg: str, answers: dict[str, object], want: float) -> None:
    cfg = parse_judge_toml(DAYJOB_LIKE.replace("{agg}", agg))
    names = [c.name for c in cfg.criterion]
    assert names[1] == "recommends_a_hold_on_the_release"  # the default name: a slug of the description
    raw = dict(zip(names, answers.values()))
    reward, values = score(cfg, raw)
    assert reward == pytest.approx(want)
    assert values[2] == (0.0 if answers["names"] == "yes" else 1.0)  # negated


@pytest.mark.parametrize("text,problem", [
    ("[judge]\njudge = 'x'\n", "criterion"),                                           # no criteria
    ("[[criterion]]\ndescription = 'a'\n[scoring]\naggregation = 'mean'\n", "aggregation"),
    ("[[criterion]]\ndescription = 'a'\n[scoring]\naggregation = 'weighted_sum'\n", "aggregation"),
    ("[[criterion]]\ndescription = 'a'\noptional = true\n[scoring]\naggregation = 'required_pass'\n", "not optional"),
    ("[[criterion]]\ndescription = 'a'\ntype = 'numeric'\nmin = 5\nmax = 5\n", "max must be greater"),
    ("[[criterion]]\ndescription = 'a'\ntype = 'rubric'\nlevels = ['only']\n", "levels"),
    ("[[criterion]]\ndescription = 'a'\nname = 'has space'\n", "name"),
    ("[[criterion]]\ndescription = 'a'\n[[criterion]]\ndescription = 'a'\n", "unique"),
    ("[[criterion]]\ndescription = 'a'\ncolour = 'red'\n", "colour"),
    ("[[criterion]\ndescription = 'a'\n", "not valid TOML"),
])
def test_bad_judge_files_are_refused_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "tests" / "judge.toml"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(TaskFormatError, match=problem) as err:
        load_judge_toml(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value).strip()


@pytest.mark.parametrize("raw", [float("nan"), float("inf"), "seven", None])
def test_unreadable_answers_are_errors_not_scores(raw: object) -> None:
    cfg = parse_judge_toml("[[criterion]]\ndescription = 'a'\ntype = 'likert'\n")
    with pytest.raises(ValueError, match="must be"):
        score(cfg, {"a": raw})
    with pytest.raises(ValueError, match="no answer"):
        score(cfg, {})
