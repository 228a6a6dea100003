"""``jobenv demo`` as a user runs it: a subprocess, offline checks by default, the LLM judge when configured."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jobenv
from tests.support.openai_server import OpenAIServer, Reply

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_IDS = [t.id for t in jobenv.load_tasks("jobenv/sample")]


def _demo(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "jobenv.cli", "demo", *args],
        capture_output=True, text=True, timeout=600, cwd=ROOT, env=full_env,
    )


def _rows(stdout: str) -> dict[str, list[str]]:
    rows = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in re.split(r"[│|]", line)]
        for tid in SAMPLE_IDS:
            if tid in cells:
                rows[tid] = cells
    return rows


def test_demo_offline_checks():
    p = _demo()
    assert p.returncode == 0, p.stdout + p.stderr
    assert "deterministic checks" in p.stdout
    rows = _rows(p.stdout)
    assert set(rows) == set(SAMPLE_IDS)
    for tid, cells in rows.items():
        assert "1.0000" in cells and "0.0000" in cells, (tid, cells)
    assert re.search(r"solution: mean reward 1\.0000", p.stdout)
    assert re.search(r"do-nothing: mean reward 0\.0000", p.stdout)


def _all_pass(request: dict) -> Reply:
    text = request["messages"][-1]["content"]
    if isinstance(text, list):
        text = " ".join(part.get("text", "") for part in text)
    n = int(re.search(r"judge all (\d+) of them", text).group(1))
    body = {
        "criteria_results": [{"index": i, "passed": True, "reasoning": "ok", "evidence": "file"} for i in range(n)],
        "rubric_passed": True,
        "overall_reasoning": "all met",
    }
    return Reply(content=json.dumps(body))


def test_demo_grades_with_the_llm_judge_when_configured(tmp_path):
    with OpenAIServer(_all_pass) as srv:
        p = _demo(
            "--tasks", SAMPLE_IDS[0],
            env={"JOBENV_JUDGE_BASE_URL": srv.base_url, "JOBENV_JUDGE_API_KEY": "test-key",
                 "JOBENV_JUDGE_MODEL": "judge-model", "JOBENV_CACHE": str(tmp_path / "cache")},
        )
        calls = len(srv.requests)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "LLM judge (judge-model)" in p.stdout
    task = jobenv.load_tasks("jobenv/sample")[0]
    assert calls == len(task.rubrics)  # one call per rubric for the solution; none for the empty output
    cells = _rows(p.stdout)[SAMPLE_IDS[0]]
    assert "1.0000" in cells and "0.0000" in cells


def test_demo_exits_nonzero_when_grading_fails(tmp_path):
    with OpenAIServer(lambda req: Reply(status=500, content="down")) as srv:
        p = _demo(
            "--tasks", SAMPLE_IDS[0],
            env={"JOBENV_JUDGE_BASE_URL": srv.base_url, "JOBENV_JUDGE_API_KEY": "k", "JOBENV_JUDGE_MODEL": "m",
                 "JOBENV_CACHE": str(tmp_path / "cache")},
        )
    assert p.returncode == 1, p.stdout + p.stderr
    assert "error" in _rows(p.stdout)[SAMPLE_IDS[0]][2]  # the solution column shows the failed grading
