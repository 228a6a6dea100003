"""Harbor tasks graded by ``tests/judge.toml`` alone: its criteria judged by jobenv's LLM judge over the files the
``[judge]`` table names, then valued and aggregated as the format says (:mod:`jobenv.harbor.judge_toml`).

Each criterion is asked as a rubric of its own (one request per criterion, the official judge's format: the
criterion must hold in the deliverables, which stay data); a passed criterion is worth 1, ``negate`` turns that
around, and the ``[scoring]`` aggregation gives the reward. The files are ``[judge] files`` (absolute paths in the
task's workdir, or relative to it), else the task's ``artifacts``, else the whole workspace.

A judge.toml naming an agent (``judge = "claude-code" | "codex" | "fx" | "jev"``) is graded by jobenv's agentic
judge (:mod:`jobenv.judge.agentic`) over the whole workdir instead, every criterion in one inspection.
Scale criteria (likert, numeric, rubric) are asked as their rungs (:func:`jobenv.harbor.judge_toml.rungs`), all
in the criterion's one request; the rungs met give the raw score and the format's own normalisation its value.
Failure behaviour: a judge outage or an unusable reply is a report with ``status="error"`` (droppable), never
credit; a named file that is missing is simply not there for the judge.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from ..judge.report import GradeReport
from .judge_toml import aggregate, criterion_value, ladder_answer, load_judge_toml, rungs

__all__ = ["unable_reason", "grade_with_judge_toml", "wants_agent", "AGENT_JUDGES"]

#: harbor-rewardkit's judges that are agents, not a model name
AGENT_JUDGES = frozenset({"claude-code", "codex", "fx", "jev"})


def unable_reason(spec: Any) -> str | None:
    """Why ``spec``'s judge.toml cannot be graded by this version (None when it can)."""
    try:
        config = load_judge_toml(spec.tests_dir / "judge.toml")
    except Exception as exc:  # noqa: BLE001 - a malformed file is a reason, reported at make
        return str(exc)
    del config
    return None


def wants_agent(spec: Any) -> bool:
    """Whether ``spec``'s judge.toml names an agent judge (then the agentic judge grades it)."""
    return load_judge_toml(spec.tests_dir / "judge.toml").judge.judge in AGENT_JUDGES


def _select(workspace: Path, names: tuple[str, ...], workdir: str, dest: Path) -> None:
    """Copy what ``names`` names (all of it when empty) from the exported workspace into ``dest``."""
    if not names:
        shutil.copytree(workspace, dest, dirs_exist_ok=True)
        return
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        rel = name[len(workdir.rstrip("/")) + 1:] if name.startswith(workdir.rstrip("/") + "/") else name.lstrip("/")
        src = (workspace / rel).resolve()
        if not src.is_relative_to(workspace.resolve()) or not src.exists():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, target, dirs_exist_ok=True)
        else:
            shutil.copyfile(src, target)


async def grade_with_judge_toml(task: Any, workspace: Path, llm: Any) -> GradeReport:
    """Grade ``task`` (a Harbor task graded by judge.toml) over its exported ``workspace`` with ``llm`` (the LLM
    judge, or the agentic judge for an agent entry)."""
    from ..sandbox.base import REJECTED_MANIFEST
    from ..tasks import Rubric, Task

    t0 = time.perf_counter()
    spec = task.harbor
    config = load_judge_toml(spec.tests_dir / "judge.toml")
    agent = getattr(llm, "kind", "") == "agentic"
    rubric_task = Task(split="harbor", occupation=task.occupation, number=task.number,
                       instructions=task.instructions, task_folder=task.task_folder, root=task.root,
                       harbor=spec if agent else None,  # the agentic judge inspects the whole workdir
                       rubrics=[Rubric(text=c.description, weight=1.0, criteria=rungs(c))
                                for c in config.criterion])
    (workspace / REJECTED_MANIFEST).unlink(missing_ok=True)
    if agent:
        report = await llm.grade(rubric_task, workspace)
    else:
        with tempfile.TemporaryDirectory(prefix="jobenv-judge-toml-") as tmp:
            files = Path(tmp) / "deliverables"
            _select(workspace, config.judge.files or spec.artifacts, spec.workdir, files)
            report = await llm.grade(rubric_task, files)
    if report.status != "ok":
        return report.model_copy(update={"task_id": task.uid})
    values, raws = [], []
    for spec_c, rubric in zip(config.criterion, report.rubrics, strict=True):
        raw = ladder_answer(spec_c, [c.passed for c in rubric.criteria_results])
        raws.append(raw)
        values.append(criterion_value(spec_c, raw))
    reward = aggregate(values, [c.weight for c in config.criterion], [c.optional for c in config.criterion],
                       config.scoring.aggregation, config.scoring.threshold)
    met = sum(v >= 1.0 for v in values)
    return report.model_copy(update={
        "task_id": task.uid, "normalized_score": reward, "official_normalized_score": reward, "total_score": reward,
        "official_total_score": reward, "judge_score": reward, "max_score": 1.0, "criteria_passed": met,
        "criteria_total": len(values), "strict_pass": met == len(values),
        "pass_at_95": met >= 0.95 * len(values), "pass_at_90": met >= 0.90 * len(values),
        "pass_n_minus_1": met >= len(values) - 1, "latency_s": round(time.perf_counter() - t0, 4),
        "verifier": {"judge_toml": {"values": values, "raw": raws, "aggregation": config.scoring.aggregation,
                                    "names": [c.name for c in config.criterion]}}})
