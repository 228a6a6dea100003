"""The knowledge worker's toolchain: what a local sandbox runs on, what ``jobenv toolchain check`` reports from
inside it, and the prompt's account of it, with and without the toolchain."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from jobenv.sandbox import toolchain
from jobenv.sandbox.local import LocalSandbox


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobenv.cli", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


async def _in_sandbox(*commands: str) -> list[str]:
    sb = LocalSandbox()
    await sb.start(None)
    try:
        return [(await sb.run(c, timeout=120)).output for c in commands]
    finally:
        await sb.close()


def test_check_lists_every_module_and_command_from_inside_the_sandbox():
    proc = _cli("toolchain", "check", "--json")
    report = toolchain.ToolchainReport.model_validate_json(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tc = toolchain.active_toolchain()
    assert tc is not None and report.executable.startswith(tc.root)
    assert [t.name for t in report.tools if t.kind == "module"] == [m for m, _ in toolchain.MODULES]
    assert [t.name for t in report.tools if t.kind == "command"] == [c for c, _ in toolchain.COMMANDS]
    assert report.missing == []
    assert report.controller is not None and report.controller.startswith("native (")  # gcc is on this machine
    # the versions are the pinned ones
    pins = dict(line.split("==") for line in toolchain.package_list("requirements.txt"))
    by_name = {t.name: t.version for t in report.tools}
    for module, dist in toolchain.MODULES:
        assert by_name[module] == pins[dist], module
    text = _cli("toolchain", "check")
    assert text.returncode == 0 and "nothing missing" in text.stdout and "MISSING" not in text.stdout
    assert "  controller native (" in text.stdout


def test_sandbox_python_is_the_toolchain_and_jobenv_stays_invisible():
    which, pip, imp = asyncio.run(_in_sandbox(
        "command -v python3", "python3 -m pip list --format=json 2>/dev/null",
        "python3 -c 'import jobenv' 2>&1; python3 -c 'import pydantic' 2>&1 | tail -1"))
    tc = toolchain.active_toolchain()
    assert tc is not None and which.strip() == os.path.join(tc.root, "bin", "python3")
    names = {p["name"].lower() for p in json.loads(pip)}
    assert {"pandas", "matplotlib", "statsmodels", "scikit-learn"} <= names and "jobenv" not in names
    assert "No module named 'jobenv'" in imp and "No module named 'pydantic'" in imp  # jobenv's env is not mounted


def test_charts_render_headless_and_libreoffice_converts_office_files():
    script = (
        "import matplotlib.pyplot as plt, docx\n"
        "plt.plot([1, 2, 3], [2, 4, 3]); plt.title('t'); plt.savefig('chart.png')\n"
        "d = docx.Document(); d.add_paragraph('x'); d.add_picture('chart.png'); d.save('r.docx')\n"
    )
    out = asyncio.run(_in_sandbox(
        f"python3 -c {shlex.quote(script)} && file chart.png",
        "soffice --headless --convert-to pdf r.docx >/dev/null 2>&1; pdftotext r.pdf - | head -3; ls r.pdf"))
    assert "PNG image data" in out[0]
    assert out[1].split()[0] == "x" and out[1].strip().endswith("r.pdf")


def test_without_the_toolchain_sandboxes_still_work_and_the_prompt_says_what_is_absent(tmp_path: Path):
    env = {"JOBENV_TOOLCHAIN": "none"}
    proc = _cli("toolchain", "check", "--json", env=env)
    report = toolchain.ToolchainReport.model_validate_json(proc.stdout)
    assert report.executable.startswith(sys.prefix)  # jobenv's own interpreter
    code = ("import jobenv\nenv = jobenv.make('jobenv/sample', judge='checks')\n"
            "obs, _ = env.reset(options={'index': 0})\n"
            "print(next(l for l in obs.splitlines() if l.startswith('- Software')))\nenv.close()\n")
    note = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env}).stdout
    missing_modules = [t.name for t in report.tools if t.kind == "module" and not t.present]
    assert (proc.returncode == 1) == bool(report.missing)
    if missing_modules:  # the note names exactly what the probe found absent
        assert note.split("Not installed: ")[1].rstrip(".\n").split(", ")[:len(missing_modules)] == missing_modules
    # an incomplete toolchain folder (no manifest) is not used
    broken = tmp_path / "tc"
    (broken / "bin").mkdir(parents=True)
    os.symlink(sys.executable, broken / "bin" / "python3")
    again = _cli("toolchain", "check", "--json", env={"JOBENV_TOOLCHAIN": str(broken)})
    assert toolchain.ToolchainReport.model_validate_json(again.stdout).executable.startswith(sys.prefix)


def test_install_keeps_a_complete_toolchain_and_refuses_none():
    tc = toolchain.active_toolchain()
    assert tc is not None
    proc = _cli("toolchain", "install", "--apt", "no", env={"JOBENV_TOOLCHAIN": tc.root})
    assert proc.returncode == 0 and "already installed" in proc.stdout
    refused = _cli("toolchain", "install", env={"JOBENV_TOOLCHAIN": "none"})
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "JOBENV_TOOLCHAIN" in refused.stderr
    bad = _cli("toolchain", "fix")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
