"""The knowledge-worker image carries what the tasks need, and a full sample episode on it earns 1.0 with the
reference solution (bash, write, edit, read, python with pandas, submit), graded by the checks judge."""

from __future__ import annotations

import pytest

import jobenv
from jobenv.demo import solution_actions

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(3600)]

TASK = "financial_managers/task1"


def test_image_has_the_document_stack(knowledge_worker_image: str) -> None:
    env = jobenv.make("jobenv/sample", sandbox="docker", sandbox_image=knowledge_worker_image, judge="checks")
    try:
        env.reset(options={"task_id": TASK})
        probe = ("python3 -c 'import pandas, openpyxl, pdfplumber, docx, pptx, mammoth, xlrd; print(\"py-ok\")' && "
                 "soffice --version && pdftotext -v 2>&1 | head -1 && jq --version && unzip -v | head -1")
        obs, reward, terminated, truncated, info = env.step({"name": "bash", "arguments": {"command": probe,
                                                                                           "timeout": 300}})
        assert info["ok"], obs
        assert "py-ok" in obs and "LibreOffice" in obs and "pdftotext" in obs and "jq-" in obs, obs
    finally:
        env.close()


def test_full_episode_on_the_image_earns_full_reward(knowledge_worker_image: str) -> None:
    env = jobenv.make("jobenv/sample", sandbox="docker", sandbox_image=knowledge_worker_image, judge="checks")
    try:
        prompt, info = env.reset(options={"task_id": TASK})
        task = env.task
        assert task is not None and "/workspace/output" in prompt
        warmup = [
            {"name": "write", "arguments": {"file_path": "notes/plan.md", "content": "step one\nstep two\n"}},
            {"name": "edit", "arguments": {"file_path": "notes/plan.md", "old_string": "step two",
                                           "new_string": "step 2: run the solution"}},
            {"name": "read", "arguments": {"file_path": "notes/plan.md"}},
            {"name": "bash", "arguments": {"command": "python3 -c \"import pandas as pd; "
                                                      "print(pd.DataFrame({'a': [1, 2]}).a.sum())\""}},
            {"name": "ls", "arguments": {"path": "task_folder"}},
        ]
        outputs = [env.step(a) for a in warmup]
        assert all(o[4]["ok"] for o in outputs), [o[0] for o in outputs]
        assert "step 2: run the solution" in outputs[2][0]
        assert outputs[3][0].splitlines()[0].strip() == "3"
        reward, terminated = 0.0, False
        for action in solution_actions(task):
            obs, reward, terminated, truncated, info = env.step(action)
            assert not truncated, obs
            if action["name"] == "bash":
                assert info.get("ok"), obs
        assert terminated
        assert info["status"] == "ok", info
        assert reward == pytest.approx(1.0), info.get("report")
    finally:
        env.close()


def test_toolchain_check_in_the_image_finds_nothing_missing(knowledge_worker_image: str) -> None:
    import subprocess
    import sys

    from jobenv.sandbox import toolchain

    proc = subprocess.run([sys.executable, "-m", "jobenv.cli", "toolchain", "check", "--sandbox", "docker",
                           "--sandbox-image", knowledge_worker_image, "--json"],
                          capture_output=True, text=True, timeout=600)
    report = toolchain.ToolchainReport.model_validate_json(proc.stdout)
    assert proc.returncode == 0 and report.missing == [] and report.backend == "docker", proc.stdout + proc.stderr
    pins = dict(line.split("==") for line in toolchain.package_list("requirements.txt"))
    versions = {t.name: t.version for t in report.tools}
    assert all(versions[m] == pins[d] for m, d in toolchain.MODULES)  # the same pinned list as the local toolchain
