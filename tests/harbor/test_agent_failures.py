"""What the agent breaks in a Harbor task's tests is its own zero: a test.sh that times out or writes no reward over
the agent's workspace is graded again over the task's untouched workspace (the canary), on the local backend.
A clean canary makes the failure the agent's (reward 0, status ok, the reason in the report); a canary that fails
too leaves an infrastructure error."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobenv.episode import canary

from .conftest import SUM, write_task
from .test_harbor_tasks import _play

#: the task asks for a program; the test runs it (as a task's tests may run the agent's code)
RUNS_PROGRAM = """\
#!/bin/bash
got=$(python3 /app/total.py 2>/dev/null | tr -d '[:space:]')
if [ "$got" = "1250" ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""

#: the test reads the task's data before it writes a reward, and stops at the first error
READS_DATA = """\
#!/bin/bash
set -e
expected=$(python3 -c "import csv; print(sum(int(r['amount']) for r in csv.DictReader(open('/app/data/invoices.csv'))))")
got=$(cat /app/total.txt 2>/dev/null | tr -d '[:space:]' || true)
if [ "$got" = "$expected" ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""


@pytest.fixture(autouse=True)
def _fresh_canaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBENV_CACHE", str(tmp_path / "cache"))
    canary.clear_memory()


def test_agent_code_that_sleeps_past_the_tests_timeout_is_the_agents_zero(tmp_path: Path) -> None:
    root = write_task(tmp_path / "t", test_sh=RUNS_PROGRAM, verifier_timeout=3)
    reward, info, _ = _play(str(root), ["printf 'import time\\ntime.sleep(120)\\nprint(1250)\\n' > /app/total.py"])
    assert (reward, info["status"], info["finish_reason"]) == (0.0, "ok", "submitted"), info
    report = info["report"]
    assert report["status"] == "ok" and report["failure_cause"] == "agent"
    assert "timed out after 3 s" in report["error"]
    # the same task still credits a right program, and a wrong one is a plain 0 without any failure
    right, info, _ = _play(str(root), ["printf 'print(1250)\\n' > /app/total.py"])
    assert (right, info["status"], info["report"]["failure_cause"]) == (1.0, "ok", None)
    wrong, info, _ = _play(str(root), ["printf 'print(1000)\\n' > /app/total.py"])
    assert (wrong, info["status"], info["report"]["failure_cause"]) == (0.0, "ok", None)


def test_files_that_crash_the_tests_before_a_reward_are_the_agents_zero(tmp_path: Path) -> None:
    root = write_task(tmp_path / "t", test_sh=READS_DATA)
    corrupt = "printf 'id,amount\\n1,lots\\n' > /app/data/invoices.csv && echo 7 > /app/total.txt"
    reward, info, _ = _play(str(root), [corrupt])
    assert (reward, info["status"]) == (0.0, "ok"), info
    assert info["report"]["failure_cause"] == "agent" and "wrote no" in info["report"]["error"]
    assert "error" in info and "untouched workspace" in info["error"]
    # the untouched data and a right total still earn full credit
    assert _play(str(root), [SUM])[0] == 1.0


def test_tests_that_write_no_reward_even_for_the_untouched_workspace_stay_an_error(tmp_path: Path) -> None:
    root = write_task(tmp_path / "t", test_sh="#!/bin/bash\necho 'forgot the reward'\n")
    reward, info, _ = _play(str(root), [SUM])
    assert (reward, info["status"], info["finish_reason"]) == (0.0, "error", "grading_error"), info
    assert info["report"]["status"] == "error" and info["report"]["failure_cause"] is None
    assert "wrote no" in info["report"]["error"]
