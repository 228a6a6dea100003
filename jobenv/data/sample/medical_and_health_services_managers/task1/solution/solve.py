"""Reference solution: Q3 2026 30-day readmissions by service line (internal measure QM-07 v4).

Usage: python solve.py TASK_FOLDER OUTPUT_DIR
Removes interface-duplicated stays (same MRN, admit and discharge date; keeps the earliest load), applies the
index-stay exclusions, the 1-30 day window and the planned-readmission rule. Writes readmissions_q3_2026.csv
and readmission_brief.pptx (aggregates only, no MRNs).
"""

import sqlite3
import sys
from pathlib import Path

import pandas as pd
from pptx import Presentation
from pptx.util import Inches


def main(task_folder: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(f"file:{task_folder / 'encounters.db'}?mode=ro", uri=True)
    stays = pd.read_sql_query("SELECT * FROM inpatient_stays", con, parse_dates=["admit_date", "discharge_date"])
    con.close()
    planned_codes = set(pd.read_excel(task_folder / "planned_procedures.xlsx", sheet_name="Planned Procedures",
                                      dtype=str)["ICD-10-PCS"].str.strip())

    stays = stays.sort_values(["loaded_at", "stay_id"])
    n_raw = len(stays)
    stays = stays.drop_duplicates(["mrn", "admit_date", "discharge_date"], keep="first")
    n_dups = n_raw - len(stays)

    index = stays[(stays.discharge_date >= "2026-07-01") & (stays.discharge_date <= "2026-09-30")
                  & ~stays.discharge_disposition.isin(["EXPIRED", "TRANSFER_ACUTE", "AMA"])]
    stays["planned"] = (stays.admit_type == "ELECTIVE") & stays.principal_procedure.fillna("").isin(planned_codes)
    returns = stays[~stays.planned][["mrn", "stay_id", "admit_date"]]
    pairs = index[["stay_id", "mrn", "discharge_date", "service_line"]].merge(returns, on="mrn", suffixes=("", "_r"))
    gap = (pairs.admit_date - pairs.discharge_date).dt.days
    readmitted = set(pairs[(pairs.stay_id_r != pairs.stay_id) & (gap >= 1) & (gap <= 30)].stay_id)
    index = index.assign(readmitted=index.stay_id.isin(readmitted))

    rows = []
    for line, g in sorted(index.groupby("service_line")):
        rows.append([line, len(g), int(g.readmitted.sum())])
    rows.append(["All", len(index), int(index.readmitted.sum())])
    table = pd.DataFrame(rows, columns=["service_line", "index_stays", "readmissions"])
    table["readmission_rate_pct"] = (table.readmissions / table.index_stays * 100).round(1)
    table.to_csv(out / "readmissions_q3_2026.csv", index=False)

    by_line = table[table.service_line != "All"]
    top = by_line.loc[by_line.readmission_rate_pct.idxmax()]
    overall = table[table.service_line == "All"].iloc[0]
    prs = Presentation()
    s1 = prs.slides.add_slide(prs.slide_layouts[1])
    s1.shapes.title.text = "Q3 2026 30-day readmissions (QM-07 v4)"
    body = s1.placeholders[1].text_frame
    body.text = f"Overall rate: {overall.readmission_rate_pct:.1f}% ({overall.readmissions} of {overall.index_stays} index stays)"
    body.add_paragraph().text = f"Highest rate: {top.service_line} ({top.readmission_rate_pct:.1f}%)"
    body.add_paragraph().text = f"Duplicate records removed: {n_dups}"
    s2 = prs.slides.add_slide(prs.slide_layouts[5])
    s2.shapes.title.text = "Readmissions by service line"
    tbl = s2.shapes.add_table(len(table) + 1, 4, Inches(0.5), Inches(1.6), Inches(9), Inches(3)).table
    for j, h in enumerate(["Service line", "Index stays", "Readmissions", "Rate %"]):
        tbl.cell(0, j).text = h
    for i, r in enumerate(table.itertuples(index=False), start=1):
        for j, v in enumerate([r.service_line, r.index_stays, r.readmissions, f"{r.readmission_rate_pct:.1f}"]):
            tbl.cell(i, j).text = str(v)
    s3 = prs.slides.add_slide(prs.slide_layouts[1])
    s3.shapes.title.text = "Data-quality note"
    tf = s3.placeholders[1].text_frame
    tf.text = (f"{n_dups} duplicate stay records (an ADT interface re-send: same patient, admit and discharge "
               "dates under new stay ids) were removed, keeping the earliest-loaded record.")
    tf.add_paragraph().text = "Planned readmissions (elective admissions with a listed planned procedure) are not counted."
    prs.save(out / "readmission_brief.pptx")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
