"""The grader test bank (tests/judge/bank): correct answers written differently earn full credit; trap-falling,
hedged and blind answers earn nothing on their rubrics (blind at most 0.05 overall). Every sample task and
every bank workflow's generated task has at least 5 correct, 2 trap, 12 hedged and 4 blind variants."""

from __future__ import annotations

from pathlib import Path

import pytest

from .bank import KINDS, Case, build_bank, grade_variant
from .bank.sample import SAMPLE_ROOT
from .bank.synthetic import BANK_WORKFLOWS

NAMES = [f"{d.parent.name}/{d.name}" for d in sorted(SAMPLE_ROOT.glob("*/task*"))] + list(BANK_WORKFLOWS)


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    return {c.name: c for c in build_bank(tmp_path_factory.mktemp("bank"))}


def test_bank_covers_every_sample_task_and_bank_workflow(bank: dict[str, Case]) -> None:
    assert sorted(bank) == sorted(NAMES)
    for case in bank.values():
        counts = {k: sum(1 for v in case.variants if v.kind == k) for k in KINDS}
        assert counts["correct"] >= 5 and counts["trap"] >= 2 and counts["hedged"] >= 12 and counts["blind"] >= 4, (
            case.name, counts)
        assert all(v.must_fail for v in case.variants if v.kind in ("trap", "hedged")), case.name


@pytest.mark.parametrize("name", NAMES)
def test_bank_verdicts(name: str, bank: dict[str, Case]) -> None:
    case = bank[name]
    problems = []
    for v in case.variants:
        task = v.task or case.task
        rep = grade_variant(task, v.out)
        assert rep.status == "ok", (v.name, rep.error)
        if v.kind == "correct":
            bad = [(r.rubric, c.criterion, c.evidence) for r in rep.rubrics for c in r.criteria_results if not c.passed]
            if bad or rep.normalized_score != 1.0:
                problems.append((v.name, rep.normalized_score, bad[:3]))
        elif v.kind in ("trap", "hedged"):
            kept = [rep.rubrics[i].rubric for i in v.must_fail if rep.rubrics[i].score > 0]
            if kept:
                problems.append((v.name, "kept", kept))
        elif rep.normalized_score > 0.05:
            problems.append((v.name, rep.normalized_score,
                             [r.rubric for r in rep.rubrics if r.passed]))
    assert not problems, problems


def test_reference_outputs_still_score_one(bank: dict[str, Case]) -> None:
    """The references the bank starts from (sample solutions, synthetic ground truths) score 1.0."""
    for case in bank.values():
        root = Path(case.variants[0].out).parent
        ref = root / "reference" if (root / "reference").is_dir() else case.task.root / "ground_truth" / "outputs"
        assert grade_variant(case.task, ref).normalized_score == 1.0, case.name


def test_blind_spray_and_copies_earn_nothing_on_generated_and_sample_splits(split: tuple[Path, list[Path]],
                                                                             tmp_path: Path) -> None:
    """A blind spray of every alternative over memo lines plus per-category copies earns at most 0.05 on
    jobenv/synthetic (the session's split, 8 tasks of it) and on jobenv/sample; competing copies of the deliverables
    earn the hedged rubrics nothing."""
    from jobenv.judge.probes import blind, hedge
    from jobenv.tasks import load_task_dir

    tasks = [load_task_dir(p, "synthetic") for p in split[1][::5]]
    tasks += [load_task_dir(d, "sample") for d in sorted(SAMPLE_ROOT.glob("*/task*"))]
    for k, task in enumerate(tasks):
        out = blind(tmp_path / f"blind{k}", task.rubrics, "spray")
        assert grade_variant(task, out).normalized_score <= 0.05, task.uid
        if task.split == "synthetic":
            hedged, must_fail = hedge(task.root / "ground_truth" / "outputs", tmp_path / f"copies{k}", task.rubrics,
                                      "copies")
            rep = grade_variant(task, hedged)
            assert must_fail and all(rep.rubrics[i].score == 0 for i in must_fail), task.uid
