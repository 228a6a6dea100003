"""Grading never reads outside its copy of the deliverables, and its workers hold no secrets (security v3).

Real workbooks written by openpyxl, real LibreOffice where installed, the real extraction workers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from jobenv.extract.recalc import soffice_path
from jobenv.extract.sheets import references_other_files, render_workbook

SECRET = 987654.321


@pytest.fixture
def host_book() -> Path:
    """A workbook on the host, outside any deliverable, holding a secret number (like a task's solution/)."""
    import openpyxl

    d = Path(tempfile.mkdtemp(prefix="jobenv-hostonly-"))
    wb = openpyxl.Workbook()
    wb.active["A1"] = SECRET
    wb.active.title = "Sheet1"
    wb.save(d / "book.xlsx")
    yield d / "book.xlsx"
    shutil.rmtree(d, ignore_errors=True)


def _deliverable(path: Path, formulas: dict[str, str]) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "label"
    for cell, f in formulas.items():
        ws[cell] = f
    wb.save(path)
    return path


@pytest.mark.parametrize("engine", ["formulas", "auto"])
def test_inline_references_to_other_workbooks_are_refused(host_book: Path, tmp_path: Path, engine: str) -> None:
    rel = os.path.relpath(host_book.parent, tempfile.gettempdir())
    refs = {
        "B1": f"='../{rel}/[book.xlsx]Sheet1'!A1",  # relative to the engine's scratch folder
        "B2": f"='{host_book.parent}/[book.xlsx]Sheet1'!A1+0",  # absolute
        "B3": f"=SUM('../{rel}/[book.xlsx]Sheet1'!A1:A2)",
        "B4": "=2+2",
    }
    path = _deliverable(tmp_path / "blind.xlsx", refs)
    text = render_workbook(path, engine=engine)
    assert "987654" not in text, text
    assert "refers to other files" in text and "not recalculated" in text


def test_references_to_other_files_are_told_apart_from_tables_and_text() -> None:
    other = ["=[b.xlsx]S!A1", "='C:\\x\\[b.xlsx]S'!A1", "=[1]S!A1*2", "=SUM([b.xlsx]S!A1:B2)", "=app|'topic'!A1",
             "=[b.xlsx]!Name"]
    plain = ["=SUM(A1:A3)", "=Table1[Amount]", "=SUM(T[[#This Row],[Amt]])", '="[x]y!"', "='My Sheet'!A1",
             "=INDEX(T[Amt],1)"]
    assert all(references_other_files(f) for f in other)
    assert not any(references_other_files(f) for f in plain)


@pytest.mark.skipif(soffice_path() is None, reason="needs LibreOffice (setup.sh --dev installs it)")
def test_a_workbook_libreoffice_cannot_load_gets_no_other_engine(tmp_path: Path) -> None:
    """Recompressed with bzip2, LibreOffice refuses the file: no silent reading by the pure-Python engine."""
    src = _deliverable(tmp_path / "plain.xlsx", {"B1": "=2+40"})
    bz = tmp_path / "bz.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(bz, "w", compression=zipfile.ZIP_BZIP2) as zout:
        for item in zin.infolist():
            zout.writestr(item.filename, zin.read(item.filename))
    text = render_workbook(bz)
    assert "no engine could run" in text, text.splitlines()[0]
    assert "formulas" not in text.splitlines()[0].split("(")[0]


WORKER_PROBE = r"""
import json, os, sys
from pathlib import Path
from jobenv.extract.service import extraction_service

out = Path(sys.argv[1])
ex = extraction_service().extract_output_sync(out)
kids = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
                kids.append(Path(f"/proc/{pid}/environ").read_bytes().decode("utf-8", "replace"))
        except (OSError, ValueError, IndexError):
            pass
def ppid(pid):
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])

def mine(pid):
    while pid > 1:
        pid = ppid(pid)
        if pid == os.getpid():
            return True
    return False

workers = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"jobenv.extract.worker" in argv and not argv[0].endswith(b"bwrap") and mine(int(pid)):
                workers.append({"net": os.readlink(f"/proc/{pid}/ns/net"), "pid": os.readlink(f"/proc/{pid}/ns/pid")})
        except OSError:
            pass
print(json.dumps({"text": ex.text[:200], "envs": kids, "workers": workers,
                  "mine": {"net": os.readlink("/proc/self/ns/net"), "pid": os.readlink("/proc/self/ns/pid")}}))
"""


def test_extraction_workers_hold_no_secrets_and_no_network(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "memo.md").write_text("hello\n")
    env = {**os.environ, "JOBENV_JUDGE_API_KEY": "sk-judge-secret-1", "OPENAI_API_KEY": "sk-openai-secret-2",
           "HF_TOKEN": "hf-secret-3", "JOBENV_EXTRACT_DEBUG": "0"}
    proc = subprocess.run([sys.executable, "-c", WORKER_PROBE, str(out)], capture_output=True, text=True, timeout=300,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "hello" in got["text"]
    assert got["envs"], "no extraction worker was found"
    for environ in got["envs"]:
        assert not any(v in environ for v in ("sk-judge-secret-1", "sk-openai-secret-2", "hf-secret-3")), environ
    assert got["workers"], "no extraction worker process was found"
    for w in got["workers"]:
        assert w["net"] != got["mine"]["net"] and w["pid"] != got["mine"]["pid"], w
