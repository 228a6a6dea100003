"""Reference solution: Q3 2026 operating-expense variance review.

Usage: python solve.py TASK_FOLDER OUTPUT_DIR
Reads the GL export, keeps Q3 postings, counts each txn_id once, joins the Q3 budget and applies the
two-part flag rule of variance_policy.docx. Writes q3_variance.xlsx and variance_memo.md.
"""

import sys
from pathlib import Path

import pandas as pd


def main(task_folder: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    gl = pd.read_csv(task_folder / "gl_detail_q3_2026.csv", dtype={"txn_id": str})
    gl["posting_date"] = pd.to_datetime(gl["posting_date"])
    in_q3 = gl[(gl.posting_date >= "2026-07-01") & (gl.posting_date <= "2026-09-30")]
    excluded = gl[~gl.index.isin(in_q3.index)]
    dups = in_q3[in_q3.duplicated("txn_id", keep="first")]
    clean = in_q3.drop_duplicates("txn_id", keep="first")

    budget = pd.read_excel(task_folder / "budget_fy2026.xlsx", sheet_name="Q3 Budget")
    actual = clean.groupby(["cost_center", "account"], as_index=False)["amount"].sum()
    actual.columns = ["Cost Center", "Account", "Actual"]
    df = budget.merge(actual, on=["Cost Center", "Account"], how="left").fillna({"Actual": 0.0})
    df["Budget"] = df["Q3 Budget"].astype(float)
    df["Actual"] = df["Actual"].round(2)
    df["Variance"] = (df["Actual"] - df["Budget"]).round(2)
    df["Variance %"] = (df["Variance"] / df["Budget"] * 100).round(1)
    df["Status"] = ["Investigate" if abs(v) >= 5000 and abs(p) >= 10.0 else "OK"
                    for v, p in zip(df["Variance"], df["Variance %"])]
    cols = ["Cost Center", "Account", "Budget", "Actual", "Variance", "Variance %", "Status"]
    report = df[cols + ["Cost Center Name", "Account Name"]]
    with pd.ExcelWriter(out / "q3_variance.xlsx", engine="openpyxl") as xw:
        report[cols].to_excel(xw, sheet_name="Variance", index=False)

    tb, ta = report["Budget"].sum(), report["Actual"].sum()
    lines = [
        "# Q3 2026 Operating Expense Variance Review",
        "",
        f"Total Q3 budget: ${tb:,.2f}",
        f"Total Q3 actual: ${ta:,.2f}",
        f"Total net variance: ${ta - tb:,.2f}",
        f"Duplicate txn_ids: {'; '.join(sorted(set(dups.txn_id))) or 'none'}",
        "",
        "## Lines marked Investigate",
        "",
    ]
    for _, r in report[report.Status == "Investigate"].iterrows():
        direction = "over" if r.Variance > 0 else "under"
        lines.append(f"- {r['Cost Center']} {r['Cost Center Name']} / {r.Account} {r['Account Name']}: "
                     f"${r.Variance:,.2f} ({r['Variance %']:.1f}%) {direction} budget")
    lines += ["", "## Data issues", ""]
    for _, r in dups.iterrows():
        lines.append(f"- txn_id {r.txn_id} appears twice in the GL export ({r.cost_center} / {r.account}, "
                     f"${r.amount:,.2f}); counted once.")
    for _, r in excluded.iterrows():
        lines.append(f"- txn_id {r.txn_id} dated {r.posting_date.date()} is outside Q3 and was excluded "
                     f"(${r.amount:,.2f}).")
    (out / "variance_memo.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
