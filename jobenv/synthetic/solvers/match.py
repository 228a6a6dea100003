# ---- jobenv workflow ground truth: three-way match of supplier invoices to purchase orders and receipts ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the files and the
# accounts-payable policy's rules; ``naive`` names the shortcuts a careless clerk takes (each proves that a
# planted trap changes the graded answer).
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass


def _num(series):
    return series.astype(str).str.replace(",", "", regex=False).astype(float)


def po_prices(folder, P, naive=()):
    """(po, line) -> (ordered quantity, unit price in force): the PO's price unless a change order replaced it."""
    F = P["files"]
    po = read_frame(folder, F["orders"], P["orders_sheet"])
    prices = {(r["po_number"], int(r["line"])): (float(r["qty_ordered"]), float(r["unit_price"])) for _, r in po.iterrows()}
    if "change_order" not in naive:
        co = read_frame(folder, F["changes"])
        co = co.sort_values("approved_on")
        for _, r in co.iterrows():
            key = (r["po_number"], int(r["line"]))
            if key in prices:
                prices[key] = (prices[key][0], float(r["new_unit_price"]))
    return prices


def received(folder, P, naive=()):
    """(po, line) -> quantity received net of returns to the vendor."""
    g = read_frame(folder, P["files"]["receipts"])
    g = g.assign(qty=_num(g["qty"]))
    if "returns" in naive:
        g = g[g["movement"] != P["return_code"]]
    else:
        g = g.assign(qty=g["qty"].where(g["movement"] != P["return_code"], -g["qty"].abs()))
    return {(k[0], int(k[1])): v for k, v in g.groupby(["po_number", "line"])["qty"].sum().items()}


def analyse(folder, P, naive=()):
    inv = read_frame(folder, P["files"]["invoices"])
    inv = inv.assign(qty=_num(inv["qty_billed"]), price=_num(inv["unit_price"]))
    if "duplicate" not in naive:  # a re-sent invoice (same vendor and invoice number) is one invoice
        first = inv.drop_duplicates(["vendor", "invoice_number"])[["vendor", "invoice_number", "register_id"]]
        inv = inv.merge(first, on=["vendor", "invoice_number", "register_id"])
    prices = po_prices(folder, P, naive)
    got = received(folder, P, naive)
    tol = P["price_tolerance_pct"] / 100.0
    rows = []
    for rid, lines in inv.groupby("register_id", sort=False):
        status = "approve"
        for _, ln in lines.iterrows():
            key = (ln["po_number"], int(ln["line"]))
            ordered, price = prices[key]
            have = ordered if "receipts" in naive else got.get(key, 0.0)
            if ln["qty"] > have + 1e-9 or abs(ln["price"] - price) > tol * price + 1e-9:
                status = "hold"
        amount = float((lines["qty"] * lines["price"]).sum())
        first = lines.iloc[0]
        rows.append({"register_id": rid, "vendor": first["vendor"], "invoice": first["invoice_number"],
                     "status": status, "amount": rnd(amount, 2)})
    approved = [r for r in rows if r["status"] == "approve"]
    held = [r for r in rows if r["status"] == "hold"]
    facts = {"invoices": rows, "approved_total": rnd(sum(r["amount"] for r in approved), 2),
             "approved_count": len(approved), "held_total": rnd(sum(r["amount"] for r in held), 2),
             "held_count": len(held)}
    facts["decision"] = bool(facts["approved_total"] <= P["cash_limit"])
    facts["premise"] = not any(r["vendor"] == P["premise_vendor"] for r in held)
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['approved_total']}: {facts['approved_total']:.2f}", f"{L['approved_count']}: {facts['approved_count']}",
            f"{L['held_total']}: {facts['held_total']:.2f}", f"{L['held_count']}: {facts['held_count']}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    T = P["deliverables"]["table"]
    c = T["columns"]
    rows = [[r["vendor"], r["invoice"], r["status"], r["amount"]] for r in facts["invoices"]]
    write_table(os.path.join(output_dir, T["file"]), [c["vendor"], c["invoice"], c["status"], c["amount"]], rows,
                sheet="Match")
    write_memo(os.path.join(output_dir, P["deliverables"]["memo"]), _memo_lines(P, facts) + [
        "", "Method: each invoice line matched to its purchase order line (price in force after change orders) and to "
        "the quantity received net of returns; an invoice with any line outside the policy is held."])
