"""Reference solution: DC-EAST reorder plan.

Usage: python solve.py TASK_FOLDER OUTPUT_DIR
Lead times come from the newest source (the 1 Sep 2026 PDF schedule), not inventory.db's stale field.
Writes reorder_plan.csv and reorder_summary.md.
"""

import csv
import math
import re
import sqlite3
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import pdfplumber


def pdf_lead_times(path: Path) -> dict[str, int]:
    with pdfplumber.open(path) as pdf:
        text = "\n".join(page.extract_text() or "" for page in pdf.pages)
    out = {}
    for m in re.finditer(r"^(SUP-\d+)\s+.+?\s+(\d+)\s+(?:\+\d+ days|no change)\s*$", text, re.M):
        out[m.group(1)] = int(m.group(2))
    return out


def main(task_folder: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    lt_new = pdf_lead_times(task_folder / "supplier_lead_time_schedule_2026-09.pdf")
    con = sqlite3.connect(f"file:{task_folder / 'inventory.db'}?mode=ro", uri=True)
    lt_old = dict(con.execute("SELECT supplier_id, lead_time_days FROM suppliers"))
    assert set(lt_new) == set(lt_old), (lt_new, lt_old)
    items = con.execute("SELECT sku, supplier_id, case_pack, unit_cost FROM items ORDER BY sku").fetchall()
    stock = {r[0]: r[1] - r[2] for r in con.execute("SELECT sku, SUM(on_hand), SUM(allocated) FROM stock GROUP BY sku")}
    open_po = dict(con.execute("SELECT sku, SUM(qty) FROM purchase_orders WHERE status = 'OPEN' GROUP BY sku"))
    con.close()

    series = defaultdict(list)
    with (task_folder / "demand_weekly.csv").open(newline="") as fh:
        for r in csv.DictReader(fh):
            series[r["sku"]].append((r["week_start"], int(r["units_shipped"])))

    rows = []
    for sku, sup, pack, cost in items:
        last12 = [u for _, u in sorted(series[sku])[-12:]]
        avg, sd = statistics.mean(last12), statistics.stdev(last12)
        ltw = lt_new[sup] / 7
        ss = math.ceil(1.65 * sd * math.sqrt(ltw))
        rop = math.ceil(avg * ltw) + ss
        pos = stock.get(sku, 0) + open_po.get(sku, 0)
        qty = 0
        if pos <= rop:
            target = rop + math.ceil(4 * avg)
            qty = math.ceil((target - pos) / pack) * pack
        rows.append([sku, sup, lt_new[sup], f"{avg:.1f}", ss, rop, pos, qty, f"{qty * cost:.2f}"])

    with (out / "reorder_plan.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["sku", "supplier_id", "lead_time_days", "avg_weekly_demand", "safety_stock", "reorder_point",
                    "inventory_position", "order_qty", "order_value"])
        w.writerows(rows)

    ordering = [r for r in rows if r[7] > 0]
    total = sum(float(r[8]) for r in ordering)
    changed = [f"{s}: {lt_old[s]} -> {lt_new[s]} days" for s in sorted(lt_new) if lt_new[s] != lt_old[s]]
    lines = [
        "# DC-EAST reorder plan - summary",
        "",
        f"SKUs needing a PO: {len(ordering)}",
        f"Total order value: ${total:,.2f}",
        "Lead-time source: supplier_lead_time_schedule_2026-09.pdf",
        "",
        "## Lead times used",
        "",
        "Lead times come from the Supplier Lead Time Schedule effective 1 September 2026. The lead_time_days "
        "values in inventory.db date from the March 2025 sync and are superseded (stale): " + "; ".join(changed) + ".",
        "",
        "## Data notes",
        "",
        "- Only purchase orders with status OPEN count toward inventory position; CANCELLED and RECEIVED POs are "
        "excluded.",
        "",
        "## Orders",
        "",
    ]
    lines += [f"- {r[0]} ({r[1]}): {r[7]} units, ${float(r[8]):,.2f}" for r in ordering]
    (out / "reorder_summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
