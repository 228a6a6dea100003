"""Reference solution: RFQ-2026-114 line-by-line award recommendation.

Usage: python solve.py TASK_FOLDER OUTPUT_DIR
Coastal's prices come from its signed PDF quote (the bid tab holds them in cents), freight and vendor status
from the evaluation rules; suspended vendors get nothing. Writes award_recommendation.xlsx and award_memo.docx.
"""

import re
import sys
from pathlib import Path

import pandas as pd
import pdfplumber
from docx import Document

COASTAL = "Coastal Fastener Co"


def vendor_terms(path: Path) -> tuple[dict[str, float], set[str]]:
    doc = Document(path)
    freight, eligible = {}, set()
    for table in doc.tables:
        rows = [[c.text.strip() for c in r.cells] for r in table.rows]
        head = [h.lower() for h in rows[0]]
        if "freight %" in head:
            iv, ifr, ist = head.index("vendor"), head.index("freight %"), head.index("vendor status")
            for r in rows[1:]:
                freight[r[iv]] = float(r[ifr])
                if "not eligible" not in r[ist].lower() and "suspend" not in r[ist].lower():
                    eligible.add(r[iv])
    return freight, eligible


def coastal_quote(path: Path) -> dict[int, float | None]:
    with pdfplumber.open(path) as pdf:
        text = "\n".join(p.extract_text() or "" for p in pdf.pages)
    prices: dict[int, float | None] = {}
    for line in text.splitlines():
        m = re.match(r"^(\d+)\s+.*\s(\d+)\s+[A-Z]{2}\s+([\d,]+\.\d{2})\s+[\d,]+\.\d{2}$", line.strip())
        if m:
            prices[int(m.group(1))] = float(m.group(3).replace(",", ""))
        elif re.match(r"^(\d+)\s+.*No quote$", line.strip()):
            prices[int(line.split()[0])] = None
    return prices


def main(task_folder: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    freight, eligible = vendor_terms(task_folder / "rfq_evaluation_rules.docx")
    bid = pd.read_excel(task_folder / "rfq_2026_114_bid_tab.xlsx", sheet_name="Bid Tab")
    vendor_cols = {c.replace(" Unit Price (USD)", ""): c for c in bid.columns if c.endswith("Unit Price (USD)")}
    quote = coastal_quote(task_folder / "coastal_quote_Q-88231.pdf")

    rows, corrections = [], []
    for _, r in bid.iterrows():
        line, qty = int(r["Line"]), int(r["Qty"])
        evals = {}
        for v, col in vendor_cols.items():
            if v not in eligible:
                continue
            raw = r[col]
            price = None if isinstance(raw, str) else float(raw)
            if v == COASTAL:
                signed = quote.get(line)
                if price is not None and signed is not None and abs(price - signed) > 0.005:
                    corrections.append((line, price, signed))
                price = signed
            if price is None:
                continue
            evals[v] = (price, round(qty * price * (1 + freight[v] / 100), 2))
        best = min(evals.items(), key=lambda kv: (kv[1][1], kv[0] != "Apex Industrial Supply"))
        rows.append([line, r["Item Description"], qty, best[0], best[1][0], best[1][1]])

    award = pd.DataFrame(rows, columns=["Line", "Item Description", "Qty", "Awarded Vendor", "Unit Price",
                                        "Evaluated Line Total"])
    summary = (award.groupby("Awarded Vendor").agg(**{"Lines Awarded": ("Line", "count"),
                                                      "Award Value": ("Evaluated Line Total", "sum")})
               .reset_index().rename(columns={"Awarded Vendor": "Vendor"}))
    summary["Award Value"] = summary["Award Value"].round(2)
    total = pd.DataFrame([["Total", int(summary["Lines Awarded"].sum()), round(summary["Award Value"].sum(), 2)]],
                         columns=summary.columns)
    summary = pd.concat([summary, total], ignore_index=True)
    with pd.ExcelWriter(out / "award_recommendation.xlsx", engine="openpyxl") as xw:
        award.to_excel(xw, sheet_name="Award", index=False)
        summary.to_excel(xw, sheet_name="Summary", index=False)

    doc = Document()
    doc.add_heading("RFQ-2026-114 award recommendation", level=1)
    doc.add_paragraph("To: Category Manager, MRO. From: Senior Buyer.")
    ineligible = sorted(set(vendor_cols) - eligible)
    doc.add_paragraph(f"Ineligible vendors: {'; '.join(ineligible) or 'none'}")
    doc.add_paragraph("Coastal price source: signed quotation Q-88231" if corrections else
                      "Coastal price source: bid tab")
    doc.add_heading("Recommended awards", level=2)
    for _, s in summary.iterrows():
        doc.add_paragraph(f"{s['Vendor']}: {int(s['Lines Awarded'])} lines, ${s['Award Value']:,.2f}", style="List Bullet")
    doc.add_heading("Bids and figures set aside or corrected", level=2)
    for v in ineligible:
        doc.add_paragraph(f"{v} quoted the lowest prices but is suspended and not eligible for award under the "
                          "evaluation rules; none of its bids were considered.", style="List Bullet")
    if corrections:
        doc.add_paragraph(
            f"{COASTAL}: the bid tab holds its prices in cents keyed as dollars (e.g. line {corrections[0][0]}: "
            f"{corrections[0][1]:.0f} in the bid tab vs {corrections[0][2]:.2f} on the signed quote). All "
            f"{len(corrections)} Coastal prices were taken from signed quotation Q-88231, which governs.",
            style="List Bullet")
    doc.add_paragraph("Evaluated totals include freight per the vendor terms (Apex 4.0%, Coastal 6.5%, "
                      "Brightline freight included).")
    doc.save(out / "award_memo.docx")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
