"""The verifier's network as Harbor gives it (the environment's, unless ``[verifier]`` overrides it), and a test
script that needed the network and did not get it: a grading error that names the network, never a silent 0.

This machine reaches package mirrors only, so the uv installer from astral.sh fails to resolve here, as it does on
any offline machine; the ``no-network`` variants fail the same way everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import jobenv

from .conftest import SUM, write_task

TOML = """\
schema_version = "1.4"
[task]
name = "acme/sum-invoices"
[agent]
network_mode = "no-network"
{verifier}
"""

# a route to an address outside the machine exists only with a network (UDP connect sends nothing)
PROBE = ("python3 -c \"import socket\ns = socket.socket(2, 2)\ntry:\n    s.connect(('11.12.13.14', 53)); print('ROUTE')\n"
         "except OSError:\n    print('NOROUTE')\"")

UV_TEST_SH = """\
#!/bin/bash
apt-get update > /dev/null 2>&1 || true
curl -LsSf https://astral.sh/uv/install.sh | sh
source $HOME/.local/bin/env
uvx -p 3.13 -w pytest==8.4.1 pytest /tests/test_outputs.py -rA
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""


def _grade(tmp_path: Path, test_sh: str, verifier: str = "", commands: tuple[str, ...] = (SUM,)) -> dict[str, Any]:
    root = write_task(tmp_path / "t", toml=TOML.format(verifier=verifier), test_sh=test_sh)
    (root / "tests" / "test_outputs.py").write_text("def test_total():\n    assert open('/app/total.txt').read().strip() == '1250'\n")
    env = jobenv.make(str(root))
    try:
        env.reset()
        outs = [env.step({"name": "bash", "arguments": {"command": c}})[0] for c in commands]
        _, reward, terminated, _, info = env.step({"name": "submit", "arguments": {}})
    finally:
        env.close()
    assert terminated
    return {"reward": reward, "outs": outs, **info}


def test_the_verifier_gets_the_environments_network_unless_verifier_overrides_it(tmp_path: Path) -> None:
    probe_sh = f"{PROBE} > /tmp/probe; if grep -q '^ROUTE' /tmp/probe; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n"
    got = _grade(tmp_path / "a", probe_sh, commands=(PROBE,))
    assert "NOROUTE" in got["outs"][0]  # the agent: [agent] network_mode = "no-network"
    assert got["status"] == "ok" and got["reward"] == 1.0  # the verifier: the environment's default, public
    closed = _grade(tmp_path / "b", probe_sh, verifier='[verifier]\nnetwork_mode = "no-network"\n')
    assert closed["status"] == "ok" and closed["reward"] == 0.0


@pytest.mark.parametrize("verifier,cause", [
    ("", "does not reach the host"),  # the web, on a machine that does not reach astral.sh
    ('[verifier]\nnetwork_mode = "no-network"\n', "[verifier] network_mode"),
    ('[verifier]\nnetwork_mode = "allowlist"\nallowed_hosts = ["pypi.org"]\n', "reaches only pypi.org"),
])
def test_an_installer_that_cannot_download_is_a_grading_error_naming_the_network(tmp_path: Path, verifier: str,
                                                                                 cause: str) -> None:
    got = _grade(tmp_path, UV_TEST_SH, verifier)  # a right answer: only the runner's download fails
    report = got["report"]
    assert got["status"] == "error" and got["reward"] == 0.0, report
    assert "needs the network" in report["error"] and cause in report["error"] and "astral.sh" in report["error"]
    assert "astral.sh" in report["verifier"]["network_failure"]


def test_a_failed_download_with_no_reward_file_names_the_network(tmp_path: Path) -> None:
    test_sh = ("python3 -c \"import urllib.request; urllib.request.urlopen('https://data.example.invalid/key.csv')\" "
               "&& echo 1 > /logs/verifier/reward.txt\n")
    got = _grade(tmp_path, test_sh)
    assert got["status"] == "error" and "needs the network" in got["report"]["error"]
    assert "wrote no" not in got["report"]["error"]


def test_full_credit_despite_a_failed_side_download_stands(tmp_path: Path) -> None:
    test_sh = ("curl -sS -m 5 https://telemetry.example.invalid/ping || true\n"
               "got=$(cat /app/total.txt); [ \"$got\" = 1250 ] && echo 1 > /logs/verifier/reward.txt "
               "|| echo 0 > /logs/verifier/reward.txt\n")
    right = _grade(tmp_path / "a", test_sh)
    assert right["status"] == "ok" and right["reward"] == 1.0
    assert "Could not resolve host" in right["report"]["verifier"]["network_failure"]
    # the same script over a wrong answer: the download failed too, so the 0 is not trusted either
    wrong = _grade(tmp_path / "b", test_sh, commands=("echo 999 > /app/total.txt",))
    assert wrong["status"] == "error"


def test_a_wrong_answer_without_network_trouble_is_the_agents_zero(tmp_path: Path) -> None:
    test_sh = ("got=$(cat /app/total.txt); [ \"$got\" = 1250 ] && echo 1 > /logs/verifier/reward.txt "
               "|| echo 0 > /logs/verifier/reward.txt\necho 'connection pool ready; 0 failures'\n")
    got = _grade(tmp_path, test_sh, commands=("echo 999 > /app/total.txt",))
    assert got["status"] == "ok" and got["reward"] == 0.0 and "network_failure" not in got["report"]["verifier"]
