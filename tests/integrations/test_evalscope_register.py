"""``jobenv register evalscope`` on a stand-in evalscope installation (a package folder with evalscope's benchmark
index): what it writes, that it is idempotent and undone by ``--remove``, and its one-line refusals. The real
evalscope command line finding the benchmark is tests/integrations/test_evalscope.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

INDEX = {"aime24": "evalscope.benchmarks.aime.aime24_adapter", "gsm8k": "evalscope.benchmarks.gsm8k.gsm8k_adapter"}


def _jobenv(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path[1:]])}
    return subprocess.run([sys.executable, "-m", "jobenv.cli", "register", *args], capture_output=True, text=True,
                          env=env, timeout=60)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    bench = tmp_path / "site" / "evalscope" / "benchmarks"
    bench.mkdir(parents=True)
    (bench.parent / "__init__.py").write_text("")
    (bench / "__init__.py").write_text("")
    (bench / "_index.json").write_text(json.dumps(INDEX, indent=1, sort_keys=True) + "\n")
    return tmp_path / "site"


def test_register_adds_an_adapter_and_an_index_entry_and_remove_undoes_both(site: Path) -> None:
    bench = site / "evalscope" / "benchmarks"
    for _ in range(2):  # idempotent
        proc = _jobenv(site, "evalscope")
        assert proc.returncode == 0, proc.stderr
    index = json.loads((bench / "_index.json").read_text())
    assert index == {**INDEX, "jobenv": "jobenv.integrations.evalscope"} and list(index) == sorted(index)
    adapter = bench / "jobenv" / "jobenv_adapter.py"
    assert "import jobenv.integrations.evalscope" in adapter.read_text()
    compile(adapter.read_text(), str(adapter), "exec")
    proc = _jobenv(site, "evalscope", "--remove")
    assert proc.returncode == 0 and "removed" in proc.stdout
    assert json.loads((bench / "_index.json").read_text()) == INDEX and not (bench / "jobenv").exists()
    proc = _jobenv(site, "evalscope", "--remove")
    assert proc.returncode == 0 and "had no jobenv benchmark" in proc.stdout


@pytest.mark.parametrize("index, message", [
    ("{not json", "cannot read evalscope's benchmark index"),
    (json.dumps({"jobenv": "someone.elses.adapter"}), "already has a benchmark named 'jobenv'"),
])
def test_register_refuses_in_one_line_and_changes_nothing(site: Path, index: str, message: str) -> None:
    bench = site / "evalscope" / "benchmarks"
    (bench / "_index.json").write_text(index)
    proc = _jobenv(site, "evalscope")
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert (bench / "_index.json").read_text() == index and not (bench / "jobenv").exists()


def test_register_without_evalscope_names_the_install(tmp_path: Path) -> None:
    # the dev environment has no evalscope (it is an extra of its own), so only the stand-in could be found
    proc = _jobenv(tmp_path, "evalscope")
    assert proc.returncode == 2 and "pip install 'jobenv[evalscope]'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
