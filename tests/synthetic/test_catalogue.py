"""The catalogue: every JobBench profession has workflows of its own, the rotation balances answers, sound gates."""

from __future__ import annotations

import json

import pytest

from jobenv.synthetic.common import DegenerateTask, nice_between
from jobenv.synthetic.professions import PROFESSIONS
from jobenv.synthetic.runner import GenerationStats, assignment, case_of, generate
from jobenv.synthetic.workflows import WORKFLOWS, workflows_for

from .conftest import RUN_N, RUN_SEED


def test_every_profession_draws_only_its_own_workflows():
    assert len(PROFESSIONS) == 35 and len({p.key for p in PROFESSIONS}) == 35
    for p in PROFESSIONS:
        assert workflows_for(p.key), p.key
    assert {p for w in WORKFLOWS for p in w.professions} == {p.key for p in PROFESSIONS}
    for i in range(70):
        occ, wf = case_of(5, i, 0) or ("", None)
        assert wf in workflows_for(occ), (i, occ)


def test_a_profession_with_several_workflows_rotates_through_them():
    several = [p.key for p in PROFESSIONS if len(workflows_for(p.key)) >= 2]
    assert several
    drawn: dict[str, set[str]] = {}
    for i in range(35 * 4):
        a = assignment(5, i)
        drawn.setdefault(a["occupation"], set()).add(a["workflow"].key)
    for occ in several:
        assert drawn[occ] == {w.key for w in workflows_for(occ)}, occ


def test_professions_cycle_and_answer_targets_balance():
    occ = [assignment(5, i)["occupation"] for i in range(70)]
    assert len(set(occ[:35])) == 35 and occ[:35] == occ[35:]
    for key in ("decision", "premise"):
        vals = [assignment(5, i)[key] for i in range(40)]
        assert sum(vals) == 20
        assert all(sum(vals[i:i + 4]) == 2 for i in range(0, 40, 4))


def test_thresholds_are_round_and_clear_of_the_values():
    assert nice_between(12.34, 15.9, 2) in (13.0, 15.0, 14.0)
    with pytest.raises(DegenerateTask):
        nice_between(3.0, 3.0, 2)


def test_a_repeated_answer_is_redrawn(seed7_run, tmp_path):
    first = sorted(seed7_run.glob("*/task*/meta.json"))
    hashes = {json.loads(p.read_text())["facts_hash"] for p in first}
    assert len(hashes) == RUN_N
    stats = GenerationStats()
    again = generate(2, RUN_SEED, tmp_path / "b", judgement=False, stats=stats, exclude_facts=hashes)
    assert stats.rejected.get("duplicate") == 2
    assert {json.loads((p / "meta.json").read_text())["facts_hash"] for p in again}.isdisjoint(hashes)
