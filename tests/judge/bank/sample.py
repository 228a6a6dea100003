"""Bank cases for the bundled sample split: reference solutions rewritten, trap-believing runs, hedges, blinds.

A trap variant runs the task's reference solution on a copy of its task folder altered so that the
reference logic "believes" the trap (a duplicate given its own id, the stale lead times restored, the
bid-tab prices taken at face value, ...): the output a careful but fooled analyst would deliver.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from jobenv.judge.probes import HEDGES, SECOND_ANSWERS, blind, guess, hedge, paraphrase
from jobenv.tasks import load_task_dir

from . import Case, Variant

__all__ = ["TRAPS", "SAMPLE_ROOT", "sample_cases", "run_solution"]

SAMPLE_ROOT = Path(__file__).resolve().parents[3] / "jobenv" / "data" / "sample"
CORRECT_STYLES = ("bold", "table", "formats", "prose", "sheets", "formulas")
TRAP_STYLES = ("as-is", "bold", "formats")


def run_solution(task_root: Path, task_folder: Path, out: Path) -> None:
    """Run ``solution/solve.py TASK_FOLDER OUT`` with this interpreter."""
    proc = subprocess.run([sys.executable, str(task_root / "solution" / "solve.py"), str(task_folder), str(out)],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise AssertionError(f"{task_root}: solution failed\n{proc.stderr[-3000:]}")


def _rewrite_pdf(path: Path, fix) -> None:
    """Re-typeset a PDF line by line (fpdf2) after passing each extracted line through ``fix``."""
    import pdfplumber
    from fpdf import FPDF

    with pdfplumber.open(path) as pdf:
        lines = [ln for page in pdf.pages for ln in (page.extract_text() or "").splitlines()]
    out = FPDF(format="Letter")
    out.add_page()
    out.set_font("Helvetica", size=8)
    for ln in lines:
        out.cell(0, 4, fix(ln), new_x="LMARGIN", new_y="NEXT")
    out.output(str(path))


def _believe_duplicate(tf: Path) -> None:
    p = tf / "gl_detail_q3_2026.csv"
    lines = p.read_text().splitlines()
    seen = set()
    for i, ln in enumerate(lines):
        tid = ln.split(",", 1)[0]
        if tid in seen:  # give the re-sent posting its own id: an analysis that does not dedupe
            lines[i] = "JE-2026-99999" + ln[len(tid):]
        seen.add(tid)
    p.write_text("\n".join(lines) + "\n")


def _believe_stale_lead_times(tf: Path) -> None:
    con = sqlite3.connect(tf / "inventory.db")
    old = dict(con.execute("SELECT supplier_id, lead_time_days FROM suppliers"))
    con.close()

    def fix(ln: str) -> str:
        m = re.match(r"^(SUP-\d+)(\s+.+?\s+)\d+\s+(?:\+\d+ days|no change)$", ln.strip())
        return f"{m.group(1)}{m.group(2)}{old[m.group(1)]} no change" if m else ln

    _rewrite_pdf(tf / "supplier_lead_time_schedule_2026-09.pdf", fix)


def _believe_all_sites(tf: Path) -> None:
    import openpyxl

    p = tf / "site_status.xlsx"
    wb = openpyxl.load_workbook(p)
    for row in wb["Sites"].iter_rows(min_row=2):
        row[4].value = "Included"
    wb.save(p)


def _believe_bid_tab_prices(tf: Path) -> None:
    def fix(ln: str) -> str:
        m = re.match(r"^(\d+\s+.*\s\d+\s+[A-Z]{2}\s+)([\d,]+\.\d{2})(\s+[\d,]+\.\d{2})$", ln.strip())
        if not m:
            return ln
        cents_as_dollars = float(m.group(2).replace(",", "")) * 100
        return f"{m.group(1)}{cents_as_dollars:,.2f}{m.group(3)}"

    _rewrite_pdf(tf / "coastal_quote_Q-88231.pdf", fix)


def _believe_request_budget(tf: Path) -> None:
    from pptx import Presentation

    p = tf / "merit_guidelines_2027.pptx"
    prs = Presentation(p)
    for slide in prs.slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                for para in shape.text_frame.paragraphs:
                    for run in para.runs:
                        run.text = run.text.replace("Merit budget: 3.0%", "Merit budget: 3.5%")
    prs.save(p)


def _believe_resent_stays(tf: Path) -> None:
    # Nudge the re-sent copies so an exact-duplicate filter no longer sees them: the analysis then counts
    # every record, as one that never checked for duplicates would.
    con = sqlite3.connect(tf / "encounters.db")
    n = con.execute("UPDATE inpatient_stays SET admit_date = date(admit_date, '-1 day') "
                    "WHERE stay_id IN (SELECT b.stay_id FROM inpatient_stays a JOIN inpatient_stays b "
                    "ON a.mrn = b.mrn AND a.admit_date = b.admit_date AND a.discharge_date = b.discharge_date "
                    "AND b.loaded_at > a.loaded_at)").rowcount
    con.commit()
    con.close()
    assert n == 4


TRAPS = {
    "medical_and_health_services_managers/task1": (_believe_resent_stays, "Catches the duplicated stays"),
    "financial_managers/task1": (_believe_duplicate, "Catches the duplicated posting"),
    "supply_chain_managers/task1": (_believe_stale_lead_times, "Uses the 1 Sep 2026 supplier lead-time schedule"),
    "biostatisticians/task1": (_believe_all_sites, "Catches that site 104"),
    "purchasing_agents/task1": (_believe_bid_tab_prices, "Catches that Coastal"),
    "human_resources_specialists/task1": (_believe_request_budget, "Uses the final 3.0% budget"),
}


def _believe_carried_check_cleared(tf: Path) -> None:
    """Forget the check carried from September: drop it from the prior month's outstanding items."""
    import openpyxl

    p = tf / "prior_month_rec_sep2026.xlsx"
    wb = openpyxl.load_workbook(p)
    ws = wb["Outstanding Items"]
    for row in range(ws.max_row, 1, -1):
        if str(ws.cell(row=row, column=2).value) == "10433":  # still outstanding at 31 October
            ws.delete_rows(row)
            break
    else:
        raise AssertionError("check 10433 not in the prior month's outstanding items")
    wb.save(p)


TRAPS["accountants_and_auditors/task1"] = (_believe_carried_check_cleared, "Bank side")


def _style(src: Path, dst: Path, rubrics: list, style: str) -> Path:
    if style == "as-is":
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(src, dst)
        return dst
    return paraphrase(src, dst, rubrics, style)


def sample_cases(root: Path) -> list[Case]:
    """One case per sample task: 5 correct, 3 trap, 2 hedged, 2 blind variants written under ``root``."""
    cases = []
    for task_dir in sorted(SAMPLE_ROOT.glob("*/task*")):
        task = load_task_dir(task_dir, "sample")
        base = root / task.id.replace("/", "__")
        ref = base / "reference"
        run_solution(task_dir, task.task_folder, ref)
        variants = [Variant(f"correct-{s}", "correct", paraphrase(ref, base / f"correct-{s}", task.rubrics, s))
                    for s in CORRECT_STYLES]
        believe, prefix = TRAPS[task.id]
        fooled_root = base / "fooled-task" / task.occupation / task_dir.name
        if fooled_root.exists():
            shutil.rmtree(fooled_root)
        shutil.copytree(task_dir, fooled_root)
        believe(fooled_root / "task_folder")
        fooled = base / "fooled"
        run_solution(task_dir, fooled_root / "task_folder", fooled)
        trap_idx = [i for i, r in enumerate(task.rubrics) if r.text.startswith(prefix)]
        assert trap_idx, (task.id, prefix)
        variants += [Variant(f"trap-{s}", "trap", _style(fooled, base / f"trap-{s}", task.rubrics, s), trap_idx)
                     for s in TRAP_STYLES]
        for how in ("fields", "copies", *HEDGES, *SECOND_ANSWERS):
            out, must_fail = hedge(ref, base / f"hedged-{how}", task.rubrics, how)
            variants.append(Variant(f"hedged-{how}", "hedged", out, must_fail))
        for how in ("template", "spray"):
            variants.append(Variant(f"blind-{how}", "blind", blind(base / f"blind-{how}", task.rubrics, how)))
        for choice in (0, -1):  # a guess with the first allowed answers, then with the last (the negative decision)
            variants.append(Variant(f"blind-guess{choice}", "blind", guess(
                ref, base / f"blind-guess{choice}", task.rubrics, instructions=task.instructions, choice=choice)))
        cases.append(Case(task.id, task, variants))
    return cases
