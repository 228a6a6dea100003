"""Formula results carry the text the sheet displays (``12.5%``, ``$82,500.00``, ``($3,000.00)``): checked against
LibreOffice's own rendering of the same cells, and end to end in the judge's workbook text."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest

from jobenv.extract.files import extract_file
from jobenv.extract.numfmt import display_text

# formats people and libraries write, each with values of every sign and scale
FORMATS = [
    "0", "0.00", "#,##0", "#,##0.00", "0%", "0.0%", "0.00%", '"$"#,##0.00', '"$"#,##0.00_);("$"#,##0.00)',
    '"$"#,##0_);[Red]("$"#,##0)', "#,##0.00;[Red]-#,##0.00", '0.00;-0.00;"-"', "0.00E+00", "##0.0E+0",
    '#,##0,"K"', '#,##0.0,,"M"', "000", "0.0#", '[$€-407]#,##0.00', '0.0" pts"', "#,##0_);(#,##0)", "0.000",
    '#,##0.00 "USD"', "0.0%;(0.0%)", "#,##0.00_-", '\\(0.0\\)', "[Blue]0.0;[Red]-0.0;0.0", "0.00E-00",
]
VALUES = [0, 0.125, 1, -1.5, 82500, -3000, 1234.5, 0.004, 1234567.891, -0.25, 98.07, 999.995, -82500.5, 1e-7, 5e9]


def _libreoffice_csv(path: Path, out: Path) -> list[list[str]]:
    subprocess.run(["soffice", f"-env:UserInstallation=file://{out}/profile", "--headless", "--convert-to",
                    'csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true,true',
                    "--outdir", str(out), str(path)], check=True, capture_output=True, timeout=180)
    return list(csv.reader(io.StringIO((out / (path.stem + ".csv")).read_text(encoding="utf-8"))))


def test_display_text_matches_libreoffices_rendering(tmp_path: Path) -> None:
    assert shutil.which("soffice"), "setup.sh installs LibreOffice"
    wb = openpyxl.Workbook()
    ws = wb.active
    for r, value in enumerate(VALUES, 1):
        for c, fmt in enumerate(FORMATS, 1):
            cell = ws.cell(row=r, column=c, value=value)
            cell.number_format = fmt
    path = tmp_path / "formats.xlsx"
    wb.save(path)
    shown = _libreoffice_csv(path, tmp_path)
    mismatches = []
    for r, value in enumerate(VALUES):
        for c, fmt in enumerate(FORMATS):
            ours = display_text(value, fmt)
            theirs = shown[r][c].strip()
            if ours != theirs:
                mismatches.append((value, fmt, ours, theirs))
    assert mismatches == [], mismatches


@pytest.mark.parametrize("value, fmt", [
    (45000, "yyyy-mm-dd"), (0.5, "h:mm"), (3, "General"), (150, "[>100]0;0"), (0.5, "# ?/?"), ("text", "0.00"),
    (True, "0"), (None, "0.00"), (1.5, ""), (2, None),
])
def test_formats_it_does_not_render_give_none(value, fmt) -> None:
    assert display_text(value, fmt) is None


def test_formula_evidence_carries_the_display_text(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["B1"], ws["A2"], ws["A3"] = 1, 8, 82500, -3000
    ws["C1"] = "=A1/B1"
    ws["C1"].number_format = "0.0%"
    ws["C2"] = "=A2*1"
    ws["C2"].number_format = '"$"#,##0.00'
    ws["C3"] = "=A3"
    ws["C3"].number_format = '"$"#,##0.00_);("$"#,##0.00)'
    ws["C4"] = "=A2+1"  # General: the value alone
    ws["C5"] = "=DATE(2024,6,30)"
    ws["C5"].number_format = "yyyy-mm-dd"
    path = tmp_path / "book.xlsx"
    wb.save(path)
    text = extract_file(path)
    lines = {ln.split(":", 1)[0]: ln for ln in text.splitlines() if ln[:2] in ("C1", "C2", "C3", "C4", "C5")}
    assert lines["C1"].endswith("0.125 (displayed as 12.5%)")
    assert lines["C2"].endswith("82500 (displayed as $82,500.00)")
    assert lines["C3"].endswith("-3000 (displayed as ($3,000.00))")
    assert "displayed as" not in lines["C4"] and "displayed as" not in lines["C5"]
    assert "\n2,82500,,82500\n" in text  # the value grid keeps plain values (the checks read them)
