"""Reference solution: October 2026 bank reconciliation.

Usage: python solve.py TASK_FOLDER OUTPUT_DIR
Matches the PDF statement to the SQLite ledger and September's outstanding items by reference; bank-only
items and recording errors go to the book side. Writes bank_rec_oct2026.xlsx, outstanding_items_oct2026.csv
and rec_notes.md.
"""

import csv
import re
import sqlite3
import sys
from pathlib import Path

import pandas as pd
import pdfplumber

LINES = [
    "Balance per bank statement", "Add: deposits in transit", "Less: outstanding checks", "Adjusted bank balance",
    "Balance per books", "Add: interest earned", "Less: bank service charges", "Less: NSF check and fee",
    "Add/(less): error corrections", "Adjusted book balance",
]


def cents(s: str) -> int:
    return round(float(s.replace(",", "")) * 100)


def read_statement(path: Path) -> tuple[list[dict], int]:
    with pdfplumber.open(path) as pdf:
        text = "\n".join(p.extract_text() or "" for p in pdf.pages)
    rows = []
    for line in text.splitlines():
        m = re.match(r"^(\d\d/\d\d)\s+(.+?)\s+(\S+)\s+(-?[\d,]+\.\d\d)\s+(-?[\d,]+\.\d\d)$", line.strip())
        if m:
            rows.append({"date": m.group(1), "desc": m.group(2), "ref": m.group(3), "amt": cents(m.group(4))})
    end = cents(re.search(r"Ending balance:\s*([\d,]+\.\d\d)", text).group(1))
    return rows, end


def main(task_folder: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    stmt, bank_end = read_statement(task_folder / "bank_statement_oct2026.pdf")
    con = sqlite3.connect(f"file:{task_folder / 'cash_ledger.db'}?mode=ro", uri=True)
    ledger = con.execute("SELECT entry_date, entry_type, reference, party, amount FROM gl_cash").fetchall()
    opening = con.execute("SELECT opening_balance FROM period_balances WHERE period = '2026-10'").fetchone()[0]
    con.close()
    prior = pd.read_excel(task_folder / "prior_month_rec_sep2026.xlsx", sheet_name="Outstanding Items", dtype={"Reference": str})

    bank_by_ref = {r["ref"]: r for r in stmt}
    book_end = round(opening * 100) + sum(round(a * 100) for *_, a in ledger)

    outstanding = []  # (type, ref, date, cents positive)
    for _, p in prior.iterrows():
        if p["Reference"] not in bank_by_ref:
            kind = "Deposit in transit" if p["Type"].startswith("Deposit") else "Outstanding check"
            outstanding.append((kind, p["Reference"], str(p["Date"])[:10], round(p["Amount"] * 100)))
    errors = []
    for dt, typ, ref, party, amt in ledger:
        a = round(amt * 100)
        if ref not in bank_by_ref:
            kind = "Deposit in transit" if typ == "DEP" else "Outstanding check"
            outstanding.append((kind, ref, dt, abs(a)))
        elif bank_by_ref[ref]["amt"] != a:
            errors.append((ref, party, a, bank_by_ref[ref]["amt"]))  # the bank's paid amount is right
    known = {p for p in prior["Reference"]} | {ref for _, _, ref, _, _ in ledger}
    bank_only = [r for r in stmt if r["ref"] not in known]
    interest = sum(r["amt"] for r in bank_only if "INTEREST" in r["desc"])
    svc = -sum(r["amt"] for r in bank_only if "SERVICE CHARGE" in r["desc"])
    nsf_rows = [r for r in bank_only if "RETURNED ITEM" in r["desc"]]
    nsf = -sum(r["amt"] for r in nsf_rows)
    other = [r for r in bank_only if r not in nsf_rows and "INTEREST" not in r["desc"] and "SERVICE CHARGE" not in r["desc"]]
    assert not other, other
    err = sum(bank - book for _, _, book, bank in errors)

    dit = sum(o[3] for o in outstanding if o[0] == "Deposit in transit")
    osc = sum(o[3] for o in outstanding if o[0] == "Outstanding check")
    adj_bank = bank_end + dit - osc
    adj_book = book_end + interest - svc - nsf + err
    values = [bank_end, dit, osc, adj_bank, book_end, interest, svc, nsf, err, adj_book]
    rec = pd.DataFrame({"Line": LINES, "Amount": [v / 100 for v in values]})
    with pd.ExcelWriter(out / "bank_rec_oct2026.xlsx", engine="openpyxl") as xw:
        rec.to_excel(xw, sheet_name="Reconciliation", index=False)

    with (out / "outstanding_items_oct2026.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Type", "Reference", "Date", "Amount"])
        for kind, ref, dt, a in sorted(outstanding, key=lambda o: (o[0], o[1])):
            w.writerow([kind, ref, dt, f"{a / 100:.2f}"])

    nsf_item = next(r for r in nsf_rows if "NSF" in r["desc"])
    customer = nsf_item["desc"].split(" - ", 1)[1].title() if " - " in nsf_item["desc"] else "customer"
    fee = -sum(r["amt"] for r in nsf_rows if "FEE" in r["desc"])
    lines = [
        "# October 2026 bank reconciliation - notes",
        "",
        f"NSF customer: {customer}",
        "NSF entry debit: Accounts receivable",
        f"Recording error check: {'; '.join(ref for ref, *_ in errors) or 'none'}",
        f"Recording error amount: ${sum(abs(bank - book) for _, _, book, bank in errors) / 100:,.2f}",
        "",
        f"Adjusted bank balance ${adj_bank / 100:,.2f}; adjusted book balance ${adj_book / 100:,.2f}"
        + (" - reconciled." if adj_bank == adj_book else f" - DIFFERENCE ${(adj_bank - adj_book) / 100:,.2f} unresolved."),
        "",
        "## Proposed journal entries",
        "",
        f"1. Dr Accounts receivable - {customer} ${(nsf - fee) / 100:,.2f}; Cr 1010 Cash ${(nsf - fee) / 100:,.2f} "
        f"(customer check returned NSF, {nsf_item['ref']}; re-establish the receivable).",
        f"2. Dr Bank fees expense ${(svc + fee) / 100:,.2f}; Cr 1010 Cash ${(svc + fee) / 100:,.2f} "
        f"(monthly service charge ${svc / 100:,.2f} + returned item fee ${fee / 100:,.2f}).",
        f"3. Dr 1010 Cash ${interest / 100:,.2f}; Cr Interest income ${interest / 100:,.2f}.",
    ]
    for ref, party, book, bank in errors:
        lines.append(
            f"4. Dr 1010 Cash ${(bank - book) / 100:,.2f}; Cr Accounts payable - {party} ${(bank - book) / 100:,.2f} "
            f"(check {ref} was recorded as ${-book / 100:,.2f} but paid as ${-bank / 100:,.2f}: a transposition "
            "error in the books).")
    lines += ["", "## Reconciling items", ""]
    lines += [f"- {k} {ref} dated {dt}: ${a / 100:,.2f}" for k, ref, dt, a in sorted(outstanding)]
    (out / "rec_notes.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
