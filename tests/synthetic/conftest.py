"""Fixtures for the synthetic generator: a short run of seed 7, drawn workflow tasks, grading helpers (the session's
40-task split is in ``tests/support/splits.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobenv.synthetic.runner import generate
from tests.support.splits import SPLIT_N, SPLIT_SEED  # noqa: F401 (the tests of this folder import them here)

RUN_SEED, RUN_N = 7, 4


@pytest.fixture(scope="session")
def seed7_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first four checks-only tasks of seed 7 drawn in this process: what the runs of the generation tests
    (resumed, in worker processes, shorter, moved on) must reproduce byte for byte."""
    root = tmp_path_factory.mktemp("seed7")
    generate(RUN_N, RUN_SEED, root, judgement=False, workers=1)
    return root


@pytest.fixture(scope="session")
def split_tasks(split):
    from jobenv.tasks import load_task_dir

    _, paths = split
    return [load_task_dir(p, "synthetic") for p in paths]


def score_output(task_dir: Path, out: Path) -> float:
    """The checks judge's weighted score of the deliverables in ``out`` for the task written at ``task_dir``."""
    from jobenv.synthetic.gates import grade_checks, weighted_score
    from jobenv.tasks import load_task_dir

    t = load_task_dir(task_dir, "synthetic")
    return weighted_score(t.rubrics, grade_checks(t.rubrics, out, t.instructions))


def write_memo_lines(path: Path, lines: list[str]) -> None:
    """A hand-written memo: one paragraph per line in a Word file for a ``.docx`` path, else the lines as text."""
    if path.suffix == ".docx":
        import docx

        doc = docx.Document()
        for line in lines:
            doc.add_paragraph(line)
        doc.save(str(path))
    else:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def one_per_family(tasks):
    seen: dict[str, object] = {}
    for t in tasks:
        seen.setdefault(t.meta["family"], t)
    return list(seen.values())


def write_drawn(wf, root: Path, salt: str, targets: dict[str, bool], *, judgement: bool = False) -> Path:
    """The first draw of workflow ``wf`` from ``salt``'s streams that passes every gate, written to
    ``root/<salt>-<attempt>/<occupation>/task1``."""
    import random

    from jobenv.errors import QualityGateError
    from jobenv.synthetic.common import DegenerateTask
    from jobenv.synthetic.workflows.write import write_workflow_task

    occupation = wf.professions[0]
    for attempt in range(30):
        task = root / f"{salt}-{attempt}" / occupation / "task1"
        try:
            draft = wf.draw(random.Random(f"{salt}:{attempt}"), occupation, dict(targets))
            write_workflow_task(wf, draft, task, occupation=occupation, seed=0, index=0, attempt=attempt,
                                judgement=judgement)
            return task
        except (DegenerateTask, QualityGateError):
            continue
    raise AssertionError(f"{wf.key}: no draw passed the gates in 30 attempts")


@pytest.fixture(scope="session")
def workflow_task(tmp_path_factory: pytest.TempPathFactory):
    """``workflow_task(wf, decision, premise)``: a checks-only task of ``wf`` with those answers, drawn once per
    session (the shared workflow tests and each workflow's own module grade the same task; none may change it)."""
    made: dict[tuple[str, bool, bool], Path] = {}

    def get(wf, decision: bool, premise: bool) -> Path:
        key = (wf.key, decision, premise)
        if key not in made:
            root = tmp_path_factory.mktemp(f"{wf.key}-{int(decision)}{int(premise)}")
            made[key] = write_drawn(wf, root, f"{wf.key}-{int(decision)}{int(premise)}",
                                    {"decision": decision, "premise": premise})
        return made[key]

    return get
