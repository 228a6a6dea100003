"""Concurrent episodes, a tenth of them hostile (crafted files read, copied to output and graded): every one
ends with status ok and the honest ones keep their full reward. The full-size run is benchmarks/hostile_bench.py."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "hostile_bench.py"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_hostile_episodes_do_not_disturb_honest_ones(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("hostile_bench", _BENCH)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = asyncio.run(bench.many_episodes(tmp_path, n=20, concurrency=20, time_limit=3.0))
    assert result["statuses"] == {"ok": 20} and result["hostile"] == 2
    assert result["honest_all_full_reward"] and result["honest_reward_mean"] == 1.0
    assert result["trainer_rss_growth_mb"] < 256
