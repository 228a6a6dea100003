# ---- jobenv workflow ground truth: month-end bank reconciliation of the operating account ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the files, the
# month end, the cash policy's rules and the deliverables; ``naive`` names the shortcuts a careless clerk takes
# (each proves that a planted item changes the graded answer).
import datetime
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass


def _money(v):
    text = str(v).replace(",", "").replace("$", "").strip()
    return float(text) if text else 0.0


def _day(v):
    return datetime.date.fromisoformat(str(v)[:10])


def analyse(folder, P, naive=()):
    F = P["files"]
    end = _day(P["month_end"])
    bank = read_frame(folder, F["statement"])
    gl = read_frame(folder, F["gl"], P["gl_sheet"])
    cleared: dict = {}
    credited: dict = {}
    other = 0.0
    fees = interest = nsf = 0.0
    for _, r in bank.iterrows():
        code, ref, debit, credit = r["tran_code"], str(r["reference"]), _money(r["debit"]), _money(r["credit"])
        if code == "CHK":
            cleared[ref] = cleared.get(ref, 0.0) + debit
        elif code == "DEP":
            credited[ref] = credited.get(ref, 0.0) + credit
        elif code == "SVC":
            fees += debit
        elif code == "INT":
            interest += credit
        elif code == "RTN":
            nsf += debit
    closing_bank = _money(bank.iloc[-1]["balance"])
    # the cheques that may still be outstanding: this month's, and (from last month's reconciliation) those still
    # outstanding then; last month's deposits in transit are already in the books
    cheques, deposits = {}, {}
    opening = 0.0
    for _, r in gl.iterrows():
        src, ref = r["source"], str(r["reference"])
        if src == "OB":
            opening = _money(r["debit"]) - _money(r["credit"])
        elif src == "CD":
            cheques[ref] = (str(r["date"])[:10], r["description"], _money(r["credit"]))
        elif src == "CR":
            deposits[ref] = _money(r["debit"])
    book = rnd(sum(_money(r["debit"]) - _money(r["credit"]) for _, r in gl.iterrows()), 2)
    prior_dit = {}
    if "prior_rec" not in naive:
        prior = read_frame(folder, F["prior"], P["prior_outstanding_sheet"])
        for _, r in prior.iterrows():
            cheques.setdefault(str(r["cheque_no"]), (str(r["date"])[:10], r["payee"], _money(r["amount"])))
        for _, r in read_frame(folder, F["prior"], P["prior_dit_sheet"]).iterrows():
            prior_dit[str(r["reference"])] = _money(r["amount"])
    # the archived policy: 90 days, and back to income
    stale_days = 90 if "archived_policy" in naive else int(P["stale_days"])
    stale_before = end - datetime.timedelta(days=stale_days)
    outstanding, stale, corrections = [], [], []
    for ref, (date, payee, amount) in sorted(cheques.items()):
        if ref in cleared:
            if abs(cleared[ref] - amount) > 0.005 and "transposition" not in naive:
                corrections.append({"cheque_no": ref, "booked": amount, "cleared": rnd(cleared[ref], 2),
                                    "correction": rnd(amount - cleared[ref], 2)})
            continue
        row = {"cheque_no": ref, "date": date, "payee": payee, "amount": rnd(amount, 2)}
        if _day(date) < stale_before and "stale" not in naive:
            stale.append(row)
        else:
            outstanding.append(row)
    # bank items with no counterpart in the books or last month's reconciliation (none when the work is right)
    for ref, amount in cleared.items():
        if ref not in cheques:
            other -= amount
    for ref, amount in credited.items():
        if ref not in deposits and ref not in prior_dit:
            other += amount
    dit = [{"reference": ref, "amount": rnd(amount, 2)} for ref, amount in sorted(deposits.items())
           if ref not in credited]
    os_total = rnd(sum(r["amount"] for r in outstanding), 2)
    dit_total = rnd(sum(r["amount"] for r in dit), 2)
    stale_total = rnd(sum(r["amount"] for r in stale), 2)
    correction = rnd(sum(c["correction"] for c in corrections), 2)
    adj_bank = rnd(closing_bank + dit_total - os_total, 2)
    adj_book = rnd(book + interest - fees - nsf + stale_total + correction + other, 2)
    facts = {"closing_bank": rnd(closing_bank, 2), "opening_book": rnd(opening, 2), "book": book,
             "outstanding": outstanding, "os_count": len(outstanding), "os_total": os_total, "dit": dit,
             "dit_total": dit_total, "interest": rnd(interest, 2), "fees": rnd(fees, 2), "nsf": rnd(nsf, 2),
             "stale": stale, "stale_total": stale_total, "corrections": corrections, "correction": correction,
             "unmatched": rnd(other, 2), "adjusted_bank": adj_bank, "adjusted_book": adj_book,
             "difference": rnd(adj_bank - adj_book, 2)}
    facts["decision"] = bool(adj_book >= P["funding"])
    facts["premise"] = P["premise_cheque"] in cleared
    facts["entries"] = entries(P, facts, "misc_income" if "archived_policy" in naive else "unclaimed")
    return facts


def entries(P, facts, stale_to="unclaimed"):
    """The adjusting entries for the books, one list of (account, debit, credit, description) per entry."""
    A, cash = P["accounts"], P["accounts"]["cash"]
    out = []
    if facts["interest"]:
        out.append([(cash, facts["interest"], 0.0, "Interest credited by the bank"),
                    (A["interest"], 0.0, facts["interest"], "Interest credited by the bank")])
    if facts["fees"]:
        out.append([(A["fees"], facts["fees"], 0.0, "Bank service charges"),
                    (cash, 0.0, facts["fees"], "Bank service charges")])
    if facts["nsf"]:
        out.append([(A["receivable"], facts["nsf"], 0.0, "Customer cheque returned NSF"),
                    (cash, 0.0, facts["nsf"], "Customer cheque returned NSF")])
    if facts["stale_total"]:
        out.append([(cash, facts["stale_total"], 0.0, "Stale cheques reclassified"),
                    (A[stale_to], 0.0, facts["stale_total"], "Stale cheques reclassified")])
    if facts["correction"]:
        c = facts["correction"]
        line = "Cheque posting corrected to the cleared amount"
        out.append([(cash, c, 0.0, line), (A["payable"], 0.0, c, line)] if c > 0 else
                   [(A["payable"], -c, 0.0, line), (cash, 0.0, -c, line)])
    if facts["unmatched"]:
        u = facts["unmatched"]
        line = "Unmatched bank items"
        out.append([(cash, u, 0.0, line), (A["suspense"], 0.0, u, line)] if u > 0 else
                   [(A["suspense"], -u, 0.0, line), (cash, 0.0, -u, line)])
    return out


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['adjusted']}: {facts['adjusted_book']:.2f}", f"{L['os_count']}: {facts['os_count']}",
            f"{L['os_total']}: {facts['os_total']:.2f}", f"{L['dit_total']}: {facts['dit_total']:.2f}",
            f"{L['stale_total']}: {facts['stale_total']:.2f}", f"{L['correction']}: {facts['correction']:.2f}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, R = P["deliverables"], P["rec_labels"]
    book = os.path.join(output_dir, D["workbook"])
    from openpyxl import Workbook

    wb = Workbook()
    rec = wb.active
    rec.title = "Rec"
    n_os, n_dit = len(facts["outstanding"]), len(facts["dit"])
    rows = [
        ("Line", "Amount"),
        (R["bank"], facts["closing_bank"]),
        (R["dit"], f"=SUM(DIT!B2:B{n_dit + 1})" if n_dit else 0),
        (R["os"], f"=SUM(Outstanding!D2:D{n_os + 1})" if n_os else 0),
        (R["adjusted_bank"], "=B2+B3-B4"),
        (R["book"], facts["book"]),
        (R["interest"], facts["interest"]),
        (R["fees"], facts["fees"]),
        (R["nsf"], facts["nsf"]),
        (R["stale"], f"=SUM(Stale!D2:D{len(facts['stale']) + 1})" if facts["stale"] else 0),
        (R["correction"], facts["correction"]),
        (R["unmatched"], facts["unmatched"]),
        (R["adjusted_book"], "=B6+B7-B8-B9+B10+B11+B12"),
        (R["difference"], "=ROUND(B5-B13,2)"),
    ]
    for r in rows:
        rec.append(list(r))
    ws = wb.create_sheet("Outstanding")
    ws.append(["cheque_no", "date", "payee", "amount"])
    for r in facts["outstanding"]:
        ws.append([r["cheque_no"], r["date"], r["payee"], r["amount"]])
    ws = wb.create_sheet("DIT")
    ws.append(["reference", "amount"])
    for r in facts["dit"]:
        ws.append([r["reference"], r["amount"]])
    ws = wb.create_sheet("Stale")
    ws.append(["cheque_no", "date", "payee", "amount"])
    for r in facts["stale"]:
        ws.append([r["cheque_no"], r["date"], r["payee"], r["amount"]])
    wb.save(book)
    _fixed_dates(book)
    lines = [[f"AJE-{k}", acct, rnd(dr, 2), rnd(cr, 2), text]
             for k, entry in enumerate(facts["entries"], 1) for acct, dr, cr, text in entry]
    write_table(os.path.join(output_dir, D["upload"]), ["entry", "account", "debit", "credit", "description"], lines)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: bank balance plus deposits in transit less outstanding cheques, agreed to the ledger balance after "
        "the bank's charges and credits, the stale cheques and the posting error; the workbook's totals are formulas."])
