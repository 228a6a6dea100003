"""Reference solution: 2027 merit increase plan.

Usage: python solve.py TASK_FOLDER OUTPUT_DIR
Budget rate, eligibility cutoff and merit matrix are read from the FINAL guidelines deck (3.0%, not the 3.5%
the request quotes). Writes merit_plan_2027.xlsx and merit_summary.md (aggregates only, no names).
"""

import re
import sys
from datetime import date
from pathlib import Path

import pandas as pd
from pptx import Presentation


def read_deck(path: Path) -> tuple[float, date, dict[int, tuple[float, float, float]]]:
    prs = Presentation(path)
    texts, matrix = [], {}
    for slide in prs.slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                texts.append(shape.text_frame.text)
            if shape.has_table:
                rows = [[c.text for c in r.cells] for r in shape.table.rows]
                for r in rows[1:]:
                    matrix[int(r[0])] = tuple(float(x.rstrip("%")) for x in r[1:4])
    blob = "\n".join(texts)
    rate = float(re.search(r"Merit budget:\s*([\d.]+)%", blob).group(1))
    m = re.search(r"Eligible: hired on or before (\d+) (\w+) (\d{4})", blob)
    months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
              "October", "November", "December"]
    cutoff = date(int(m.group(3)), months.index(m.group(2)) + 1, int(m.group(1)))
    return rate, cutoff, matrix


def main(task_folder: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rate, cutoff, matrix = read_deck(task_folder / "merit_guidelines_2027.pptx")
    emp = pd.read_csv(task_folder / "employees_2026.csv", parse_dates=["hire_date"])
    rng = pd.read_excel(task_folder / "salary_structure_2026.xlsx", sheet_name="Ranges").set_index("Grade")

    rows = []
    for _, e in emp.iterrows():
        mid, mx = float(rng.loc[e.job_grade, "Midpoint"]), float(rng.loc[e.job_grade, "Maximum"])
        sal = float(e.base_salary)
        compa = round(sal / mid, 2)
        eligible = e.hire_date.date() <= cutoff
        band = 0 if compa < 0.90 else (1 if compa <= 1.10 else 2)
        pct = matrix[int(e.perf_rating_2026)][band] if eligible else 0.0
        inc = round(sal * pct / 100, 2)
        new = min(sal + inc, mx)
        lump = round(sal + inc - new, 2)
        rows.append([e.emp_id, e.job_grade, sal, compa, int(e.perf_rating_2026), pct, inc, round(new, 2), lump,
                     eligible])
    df = pd.DataFrame(rows, columns=["Employee ID", "Grade", "Current Salary", "Compa-Ratio", "Rating", "Merit %",
                                     "Merit Increase", "New Salary", "Lump Sum", "_eligible"])
    with pd.ExcelWriter(out / "merit_plan_2027.xlsx", engine="openpyxl") as xw:
        df.drop(columns="_eligible").to_excel(xw, sheet_name="Merit Plan", index=False)

    payroll = df.loc[df._eligible, "Current Salary"].sum()
    budget = round(payroll * rate / 100, 2)
    spend = round(df["Merit Increase"].sum(), 2)
    diff = round(spend - budget, 2)
    status = f"over budget by ${diff:,.2f}" if diff > 0 else f"within budget (${-diff:,.2f} under)"
    lines = [
        "# 2027 merit plan - summary for people managers",
        "",
        f"Eligible payroll: ${payroll:,.2f} ({int(df._eligible.sum())} eligible employees of {len(df)})",
        f"Budget rate: {rate:.1f}% (final Compensation Committee guidelines, 14 Oct 2026)",
        f"Merit budget: ${budget:,.2f}",
        f"Total merit spend: ${spend:,.2f} (base increases plus lump sums)",
        f"Spend % of eligible payroll: {spend / payroll * 100:.2f}%",
        f"Within budget: {'no' if diff > 0 else 'yes'}",
        f"Over/(under) budget: ${diff:,.2f}",
        "",
        f"- Result: the plan is {status}.",
        f"- Lump-sum payments for employees reaching their range maximum: ${df['Lump Sum'].sum():,.2f}",
        "",
        "## Note on the budget rate",
        "",
        f"The request referred to a 3.5% budget. The final guidelines deck sets {rate:.1f}% and supersedes the "
        "3.5% planning draft, so the plan is measured against the final rate. Calibration of ratings or a "
        "matrix adjustment is needed to bring the plan within budget." if diff > 0 else "",
    ]
    (out / "merit_summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
