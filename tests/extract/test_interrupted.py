"""An extraction interrupted in the calling process (a trainer's own timeout, Ctrl-C, a test timeout) leaves the
service usable: the worker that was mid-job is not reused, so the next job reads its own files, not the rest of the
interrupted job's reply."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from jobenv.extract.recalc import soffice_path
from jobenv.extract.service import ExtractionService, ExtractLimits


class _Interrupted(Exception):
    pass


def _raise(signum: int, frame: object) -> None:
    raise _Interrupted


@pytest.mark.skipif(soffice_path() is None, reason="needs LibreOffice: its recalculation makes the job slow enough")
def test_the_next_job_after_an_interrupted_one_reads_its_own_files(tmp_path: Path) -> None:
    from openpyxl import Workbook

    slow = tmp_path / "slow"
    slow.mkdir()
    wb = Workbook()
    ws = wb.active
    for r in range(1, 200):
        ws.append([r, f"=A{r}*7", "SLOW-WORKBOOK-MARKER"])
    wb.save(slow / "book.xlsx")
    fast = tmp_path / "fast"
    fast.mkdir()
    (fast / "answer.csv").write_text("item,value\nFAST-CSV-MARKER,42\n")

    svc = ExtractionService(ExtractLimits(workers=1))  # one worker: a reused one would serve the next job
    try:
        assert "FAST-CSV-MARKER" in svc.extract_file_sync(fast / "answer.csv")  # the worker is up and warm
        previous = signal.signal(signal.SIGALRM, _raise)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.3)  # while LibreOffice recalculates the workbook
            with pytest.raises(_Interrupted):
                svc.extract_output_sync(slow, with_images=False)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        after = svc.extract_output_sync(fast, with_images=False)
        text = " ".join(f.text for f in after.files)
        assert "FAST-CSV-MARKER" in text and "SLOW-WORKBOOK-MARKER" not in text, text[:500]
        assert "SLOW-WORKBOOK-MARKER" in " ".join(f.text for f in svc.extract_output_sync(slow, with_images=False).files)
    finally:
        svc.close()
