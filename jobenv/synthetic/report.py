"""The split report: what a generated split covers and how varied, balanced and distinct its tasks are.

``split_report(task_dirs)`` reads each task's meta.json, RUBRICS.json and instructions and returns a
plain dict; ``format_report`` renders it as the text ``jobenv generate`` prints. Instruction similarity is
the median ``difflib.SequenceMatcher`` ratio over pairs of tasks in the same family (a seeded sample of at
most ``max_pairs`` pairs per family, so the figure is cheap on large splits).
"""

from __future__ import annotations

import difflib
import json
import random
import statistics
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

__all__ = ["split_report", "format_report"]


def _similarity(texts: list[str], max_pairs: int, rng: random.Random) -> float | None:
    pairs = list(combinations(range(len(texts)), 2))
    if not pairs:
        return None
    if len(pairs) > max_pairs:
        pairs = rng.sample(pairs, max_pairs)
    return statistics.median(difflib.SequenceMatcher(None, texts[i], texts[j]).ratio() for i, j in pairs)


def split_report(task_dirs: list[Path], stats: Any = None, *, max_pairs: int = 150) -> dict[str, Any]:
    """Coverage, balance, similarity, folder-size and rubric figures of the tasks in ``task_dirs``."""
    metas, instr, rubrics, files, sizes = [], [], [], [], []
    for d in task_dirs:
        d = Path(d)
        metas.append(json.loads((d / "meta.json").read_text(encoding="utf-8")))
        instr.append((d / "task_folder" / "TASK_INSTRUCTIONS.txt").read_text(encoding="utf-8"))
        rubrics.append(json.loads((d / "RUBRICS.json").read_text(encoding="utf-8"))["rubrics"])
        ref = [p for p in (d / "task_folder").rglob("*") if p.is_file() and p.name != "TASK_INSTRUCTIONS.txt"]
        files.append(len(ref))
        sizes.append(sum(p.stat().st_size for p in ref))
    n = len(metas)
    fam = Counter(m["family"] for m in metas)
    rng = random.Random(0)
    sim = {f: _similarity([t for t, m in zip(instr, metas) if m["family"] == f], max_pairs, rng) for f in sorted(fam)}
    trap_counts = Counter(len(m["traps"]) for m in metas)
    kinds = Counter(t["kind"] for m in metas for t in m["traps"])
    crit = [len(r["criterion"]) for rs in rubrics for r in rs]
    llm = sum(1 for rs in rubrics for r in rs if all(c.get("kind") == "llm" for c in r.get("jobenv_checks", [])))
    weights = [r["weight"] for rs in rubrics for r in rs]
    rep: dict[str, Any] = {
        "tasks": n,
        "families": dict(sorted(fam.items())),
        "professions": dict(sorted(Counter(m["occupation"] for m in metas).items())),
        "data_sources": dict(sorted(Counter(f"{m['data_source']['package']}/{m['data_source']['dataset']}"
                                            for m in metas).items())),
        "licences": sorted({m["licence"] for m in metas}),
        "data_source_licences": dict(sorted({f"{m['data_source']['package']}/{m['data_source']['dataset']}":
                                             f"{'generated' if _generated(m) else 'real'}, {m['licence']}"
                                             for m in metas}.items())),
        "generated_data_share": sum(map(_generated, metas)) / n if n else None,
        "workflows": dict(sorted(Counter(m["workflow"]["key"] for m in metas if m.get("workflow")).items())),
        "workflows_per_profession": _workflows_per_profession(metas),
        "traps_per_task": {str(k): trap_counts[k] for k in sorted(trap_counts)},
        "trap_kinds": dict(sorted(kinds.items())),
        "premise_holds_share": sum(m["answers"]["premise_holds"] for m in metas) / n if n else None,
        "decision_positive_share": sum(m["answers"]["decision"] for m in metas) / n if n else None,
        "similarity_median_by_family": sim,
        "similarity_median_max": max((v for v in sim.values() if v is not None), default=None),
        "deliverable_types": _deliverable_types(metas),
        "files_per_task": [min(files), statistics.median(files), max(files)] if n else [],
        "bytes_per_task": [min(sizes), int(statistics.median(sizes)), max(sizes)] if n else [],
        "rubrics_per_task": statistics.mean(len(rs) for rs in rubrics) if n else None,
        "criteria_per_rubric": statistics.mean(crit) if crit else None,
        "weights": [min(weights), max(weights)] if weights else [],
        "llm_graded_rubrics": llm,
        "distinct_graded_facts": len({m["facts_hash"] for m in metas}),
        "audit_problems": _audit(task_dirs),
        "value_duplicates": _value_duplicates(task_dirs),
        "naive_pipeline_score": ([min(ns), statistics.median(ns), max(ns)]
                                 if (ns := [m["naive_score"] for m in metas if m.get("naive_score") is not None]) else []),
        "blind_score": _blind_scores(task_dirs),
    }
    if stats is not None:
        rep["rejected_draws"] = dict(sorted(stats.rejected.items()))
        rep["moved_on"] = dict(sorted(getattr(stats, "moved_on", {}).items()))
        rep["moves"] = list(getattr(stats, "moves", []))
    return rep


def _deliverable_types(metas: list[dict[str, Any]]) -> dict[str, int]:
    """Per file type (xlsx, docx, csv, md, ...), how many tasks ask for at least one deliverable of it."""
    def names(v: Any) -> list[str]:
        if isinstance(v, str):
            return [v] if "." in v and " " not in v else []
        if isinstance(v, dict):
            return [x for k, w in v.items() if k in ("file", "workbook", "upload", "memo", "table", "exceptions")
                    for x in names(w)]
        return []

    seen: Counter[str] = Counter()
    for m in metas:
        seen.update({name.rsplit(".", 1)[1].lower() for name in names(m.get("deliverables") or {})})
    return dict(sorted(seen.items()))


def _generated(meta: dict[str, Any]) -> bool:
    """Whether a task's data were generated (a workflow's, or any marked so) rather than a real data set."""
    return bool(meta["data_source"].get("generated", meta.get("workflow") is not None))


def _workflows_per_profession(metas: list[dict[str, Any]]) -> dict[str, int]:
    """Per profession in the split, how many distinct profession workflows it has tasks of."""
    seen: dict[str, set[str]] = {m["occupation"]: set() for m in metas}
    for m in metas:
        if m.get("workflow"):
            seen[m["occupation"]].add(m["workflow"]["key"])
    return {k: len(v) for k, v in sorted(seen.items())}


def _value_duplicates(task_dirs: list[Path]) -> int:
    """Tasks whose graded values (labels aside) overlap another task's by the duplicate gate's share or more."""
    from .generator import MAX_VALUE_OVERLAP, graded_values, value_overlap

    values = [graded_values(Path(d)) for d in task_dirs]
    return sum(any(value_overlap(v, w) >= MAX_VALUE_OVERLAP for j, w in enumerate(values) if j != i)
               for i, v in enumerate(values))


def _audit(task_dirs: list[Path]) -> dict[str, int]:
    """Audit problems of the split by class (:mod:`jobenv.synthetic.audit`); empty for a sound split."""
    from .audit import audit_task
    from .workflows.write import recheck_task

    found = [p for d in task_dirs for p in audit_task(Path(d)) + recheck_task(Path(d))]
    return dict(sorted(Counter(p.split(":", 1)[0] for p in found).items()))


def _blind_scores(task_dirs: list[Path]) -> dict[str, Any]:
    """What answers written without computing anything earn from the checks judge, per task the best of the
    judge's blind probes (a template, a spray of every candidate, and a realistic guess with the first and with
    the last allowed answer), graded with the task's instructions as the gate grades them: without the input
    tables, so an upper bound (the checks judge's copied-input rule can only lower a score), and cheap on a large
    split. A criterion only an LLM grades counts as not passed. Mean, max and the tasks above the probes' limit."""
    import tempfile

    from ..judge.checks import evaluate_rubrics
    from ..judge.probes.blind import BLIND_LIMIT, blind, guess
    from ..tasks import load_task_dir

    best: list[float] = []
    with tempfile.TemporaryDirectory(prefix="jobenv-blind-") as tmp:
        for d in map(Path, task_dirs):
            task = load_task_dir(d, "synthetic")
            total = sum(r.weight for r in task.rubrics) or 1
            outs = [blind(Path(tmp) / "template", task.rubrics, "template"),
                    blind(Path(tmp) / "spray", task.rubrics, "spray"),
                    *(guess(d / "ground_truth" / "outputs", Path(tmp) / f"guess{c}", task.rubrics,
                            instructions=task.instructions, choice=c) for c in (0, -1))]
            scores = []
            for out in outs:
                rows = evaluate_rubrics(task.rubrics, out, instructions=task.instructions)
                scores.append(sum(r.weight for r, row in zip(task.rubrics, rows, strict=True)
                                  if all(v is not None and v[0] for v in row)) / total)
            best.append(max(scores))
    return {"mean": round(statistics.mean(best), 4) if best else None, "max": round(max(best), 4) if best else None,
            "above_limit": sum(b > BLIND_LIMIT for b in best), "limit": BLIND_LIMIT}


def _kv(d: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items())


def format_report(rep: dict[str, Any]) -> str:
    """The report as aligned text lines."""
    pct = lambda x: "-" if x is None else f"{100 * x:.1f} %"  # noqa: E731
    sim = rep["similarity_median_by_family"]
    lines = [
        f"tasks                {rep['tasks']}",
        f"families ({len(rep['families'])})        {_kv(rep['families'])}",
        f"professions          {len(rep['professions'])} of 35 (tasks per profession {min(rep['professions'].values(), default=0)}"
        f"-{max(rep['professions'].values(), default=0)})",
        f"data sources ({len(rep['data_sources'])})    {_kv(rep['data_sources'])}",
        f"licences             {'; '.join(rep['licences'])}",
        f"data (real or generated, licence) {'; '.join(f'{k} ({v})' for k, v in rep['data_source_licences'].items())}",
        f"generated data       {pct(rep['generated_data_share'])} of tasks",
        f"workflows ({len(rep['workflows'])})        {_kv(rep['workflows']) or 'none'} (professions with one or more: "
        f"{sum(1 for v in rep['workflows_per_profession'].values() if v)} of {len(rep['workflows_per_profession'])})",
        "workflows per profession " + (_kv({k: v for k, v in rep["workflows_per_profession"].items() if v}) or "none"),
        f"traps per task       {_kv(rep['traps_per_task'])}",
        f"trap kinds           {_kv(rep['trap_kinds'])}",
        f"premise holds        {pct(rep['premise_holds_share'])}",
        f"decision positive    {pct(rep['decision_positive_share'])}",
        "instruction similarity (median pairwise SequenceMatcher ratio within family): "
        + ", ".join(f"{k} {'-' if v is None else f'{v:.3f}'}" for k, v in sim.items()),
        "  worst family median " + ("-" if rep["similarity_median_max"] is None else f"{rep['similarity_median_max']:.3f}"),
        f"deliverable types    {_kv(rep['deliverable_types'])} (tasks asking for one or more)",
        f"files per task       min {rep['files_per_task'][0]}, median {rep['files_per_task'][1]}, max {rep['files_per_task'][2]}",
        f"bytes per task       min {rep['bytes_per_task'][0]:,}, median {rep['bytes_per_task'][1]:,}, max {rep['bytes_per_task'][2]:,}",
        f"rubrics per task     {rep['rubrics_per_task']:.2f} (criteria per rubric {rep['criteria_per_rubric']:.2f}, "
        f"weights {rep['weights'][0]}-{rep['weights'][1]}, LLM-graded rubrics {rep['llm_graded_rubrics']})",
        f"distinct graded facts {rep['distinct_graded_facts']} of {rep['tasks']}",
        f"audit problems       {_kv(rep['audit_problems']) or 'none'}",
        f"value duplicates     {rep['value_duplicates']} (tasks whose graded values overlap another's 90 % or more)",
        "naive pipeline score " + ("-" if not rep["naive_pipeline_score"] else
                                   "min {:.2f}, median {:.2f}, max {:.2f}".format(*rep["naive_pipeline_score"])),
        "blind answers        " + ("-" if rep["blind_score"]["mean"] is None else
                                   "mean {mean:.3f}, max {max:.3f}, {above_limit} tasks above {limit}".format(
                                       **rep["blind_score"])) + " (best of the judge's blind probes per task)",
    ]
    if "rejected_draws" in rep:
        lines.append(f"rejected draws       {_kv(rep['rejected_draws']) or 'none'}")
        lines.append(f"moved on to a case   {_kv(rep['moved_on']) or 'none'}")
        lines += [f"  {m}" for m in rep["moves"][:10]]
    return "\n".join(lines) + "\n"
