"""Fixtures for the synthetic generator: one small generated split shared by the module's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobenv.synthetic.runner import GenerationStats, generate

SPLIT_N = 40  # the first 40 tasks of seed 0: all 35 professions, and some workflows twice
SPLIT_SEED = 0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The first test to use the split draws it in its setup (minutes): every user of it may take that long."""
    for item in items:
        if "split" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.timeout(1200))


@pytest.fixture(scope="session")
def split_stats() -> GenerationStats:
    return GenerationStats()


@pytest.fixture(scope="session")
def split(tmp_path_factory: pytest.TempPathFactory, split_stats: GenerationStats) -> tuple[Path, list[Path]]:
    """The first 40 checks-only tasks of seed 0 (as the registry serves them), generated once for the session (the
    prefix of any larger split of the seed: generation is prefix-stable)."""
    root = tmp_path_factory.mktemp("synthetic-split")
    return root, generate(SPLIT_N, SPLIT_SEED, root, stats=split_stats, judgement=False)


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
