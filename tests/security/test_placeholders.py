"""Placeholders earn nothing beyond the facts they get right, even where the prompt states the row count.

Real deliverables graded by the checks judge: placeholder rows with the input's keys (the red team's case),
correct answers in two layouts (full credit), and a wrong one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jobenv.judge.checks import ChecksJudge
from jobenv.tasks import Task, parse_rubrics

INSTRUCTIONS = ("Review claims.csv and list all 20 providers in output/providers.csv with the columns provider_id, "
                "claims and flag (yes when a provider has more than 100 claims, else no). Do not include patient "
                "names.")
CLAIMS = {f"P{i:03d}": 40 + 7 * i for i in range(1, 21)}  # P009 and up exceed 100
RUBRICS = [
    {"rubric": "The table has the requested layout", "weight": 2, "criterion": ["Has the three columns"],
     "jobenv_checks": [{"kind": "columns", "file": "providers.csv", "columns": ["provider_id", "claims", "flag"]}]},
    {"rubric": "Lists every provider", "weight": 1, "criterion": ["20 rows"],
     "jobenv_checks": [{"kind": "row_count", "file": "providers.csv", "count": 20}]},
    {"rubric": "Keeps patient names out", "weight": 2, "criterion": ["No patient names"],
     "jobenv_checks": [{"kind": "text", "file": "providers.csv", "pattern": "patient", "absent": True}]},
    {"rubric": "Flags the right providers", "weight": 5, "criterion": ["P009 flagged", "P008 not flagged"],
     "jobenv_checks": [{"kind": "cell", "file": "providers.csv", "match": {"provider_id": "P009"}, "column": "flag",
                        "value": "yes"},
                       {"kind": "cell", "file": "providers.csv", "match": {"provider_id": "P008"}, "column": "flag",
                        "value": "no"}]},
]


@pytest.fixture
def task(tmp_path: Path) -> Task:
    root = tmp_path / "auditors" / "task1"
    (root / "task_folder").mkdir(parents=True)
    (root / "task_folder" / "claims.csv").write_text(
        "provider_id,claims\n" + "".join(f"{p},{n}\n" for p, n in CLAIMS.items()))
    return Task(split="test", occupation="auditors", number=1, instructions=INSTRUCTIONS,
                task_folder=root / "task_folder", rubrics=parse_rubrics({"rubrics": RUBRICS}), root=root)


def _grade(task: Task, tmp_path: Path, name: str, csv: str) -> float:
    out = tmp_path / name
    out.mkdir()
    (out / "providers.csv").write_text(csv)
    rep = ChecksJudge().grade_sync(task, out)
    assert rep.status == "ok", rep.error
    return rep.normalized_score


def test_placeholder_rows_with_the_inputs_keys_earn_nothing(task: Task, tmp_path: Path) -> None:
    tbd = "provider_id,claims,flag\n" + "".join(f"{p},TBD,TBD\n" for p in CLAIMS)
    na = "provider_id,claims,flag\n" + "".join(f"{p},N/A,?\n" for p in CLAIMS)
    for name, csv in (("tbd", tbd), ("na", na)):
        assert _grade(task, tmp_path, name, csv) == 0.0, name  # one row per key is no work: the count proves nothing


def test_correct_answers_in_two_layouts_earn_full_credit(task: Task, tmp_path: Path) -> None:
    plain = "provider_id,claims,flag\n" + "".join(f"{p},{n},{'yes' if n > 100 else 'no'}\n" for p, n in CLAIMS.items())
    other = "flag,provider_id,claims,reviewer note\n" + "".join(
        f"{'Yes' if n > 100 else 'No'},{p},{n},checked against claims.csv\n" for p, n in CLAIMS.items())
    assert _grade(task, tmp_path, "plain", plain) == 1.0
    assert _grade(task, tmp_path, "other", other) == 1.0


def test_a_wrong_flagging_keeps_only_what_it_gets_right(task: Task, tmp_path: Path) -> None:
    wrong = "provider_id,claims,flag\n" + "".join(f"{p},{n},yes\n" for p, n in CLAIMS.items())  # flags everyone
    assert _grade(task, tmp_path, "wrong", wrong) < 0.6
