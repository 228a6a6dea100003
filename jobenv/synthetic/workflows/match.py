"""Three-way match of a week's supplier invoices before the payment run (purchasing, supply chain, AP clerks).

The purchasing records are generated: 12-20 purchase orders from 5-7 vendors with 1-4 lines each (unit prices
log-uniform between 4 and 2,500, quantities 1-200), 2-4 lines repriced by an approved change order (3-12 %),
receipts that are complete for most lines and partial (60-90 %) for a few, returns to the vendor on 2-3 lines,
one invoice per order billing what was received at the price in force, a few lines priced up 1-8 %, and one or
two invoices re-sent under the same number. The match follows the task's own accounts-payable policy.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, read_rows, write_files

__all__ = ["THREE_WAY_MATCH"]

_VENDORS = ("Apex Industrial Supply", "Brightline Medical", "Cobalt Office Products", "Delta Fasteners", "Evergreen Lab",
            "Fulcrum Electrical", "Granite Safety", "Harbor Packaging", "Ironwood Tools", "Juniper IT Services")
_ITEMS = ("nitrile gloves (box)", "toner cartridge", "safety glasses", "cable tie pack", "copy paper (case)",
          "pallet wrap", "hex bolt M10", "lab pipette tips", "LED panel", "network switch", "torque wrench",
          "first aid kit", "hi-vis vest", "circuit breaker 20A", "printer drum", "shipping cartons")
_LABELS = {
    "approved_total": ("Total approved for payment", "Payment run total (approved)", "Approved invoice value"),
    "approved_count": ("Invoices approved", "Number of invoices cleared to pay", "Count of approved invoices"),
    "held_total": ("Total on hold", "Value of invoices held", "Held invoice value"),
    "held_count": ("Invoices on hold", "Number of invoices held", "Count of held invoices"),
    "decision": ("Run fits within the weekly cash limit", "Within treasury's limit", "Payment run under the cap"),
    "premise": ("Every invoice from {vendor} can be paid", "{vendor} fully payable this week",
                "No {vendor} invoice on hold"),
}
_COLUMNS = ({"vendor": "vendor", "invoice": "invoice_number", "status": "status", "amount": "invoice_amount"},
            {"vendor": "Vendor", "invoice": "Invoice #", "status": "Match result", "amount": "Amount"},
            {"vendor": "supplier", "invoice": "supplier_invoice", "status": "decision", "amount": "amount_usd"})


def _book(rng: random.Random, start: dt.date) -> dict[str, Any]:
    vendors = rng.sample(_VENDORS, rng.randint(5, 7))
    pos: list[tuple[str, str, dt.date]] = []
    lines: list[dict[str, Any]] = []
    for k in range(rng.randint(12, 20)):
        po = f"PO-{rng.randint(41, 48)}{k:03d}"
        vendor = vendors[k % len(vendors)] if k < len(vendors) else rng.choice(vendors)
        ordered_on = start + dt.timedelta(days=rng.randint(0, 20))
        pos.append((po, vendor, ordered_on))
        for line in range(1, rng.randint(1, 4) + 1):
            price = round(math.exp(rng.uniform(math.log(4), math.log(2500))), 2)
            lines.append({"po": po, "vendor": vendor, "line": line, "item": rng.choice(_ITEMS),
                          "qty": rng.randint(1, 200), "price": price, "ordered_on": ordered_on})
    changed = rng.sample(lines, rng.randint(2, 4))
    for ln in changed:
        ln["new_price"] = round(ln["price"] * (1 + rng.choice((-1, 1)) * rng.uniform(0.03, 0.12)), 2)
    for ln in lines:
        partial = rng.random() < 0.12 and ln["qty"] >= 5
        ln["received"] = max(1, int(ln["qty"] * rng.uniform(0.6, 0.9))) if partial else ln["qty"]
        ln["returned"] = 0
    for ln in rng.sample([x for x in lines if x["received"] >= 4], 3):
        ln["returned"] = rng.randint(1, max(1, ln["received"] // 3))
    return {"vendors": vendors, "pos": pos, "lines": lines}


def _invoices(rng: random.Random, book: dict[str, Any], week: dt.date) -> list[list[Any]]:
    """Invoice register rows [register_id, vendor, invoice_number, invoice_date, po_number, line, qty_billed,
    unit_price, line_amount]: one invoice per order, a re-sent copy or two at the end."""
    by_po: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for ln in book["lines"]:
        by_po[ln["po"]].append(ln)
    rows, invoices = [], []
    rid = rng.randint(7000, 8000)
    for po, vendor, _ in book["pos"]:
        number = f"{vendor.split()[0][:3].upper()}-{rng.randint(10000, 99999)}"
        date = week - dt.timedelta(days=rng.randint(3, 12))
        inv = []
        for ln in by_po[po]:
            price = ln.get("new_price", ln["price"])
            if rng.random() < 0.12:
                price = round(price * (1 + rng.uniform(0.01, 0.08)), 2)
            qty = ln["qty"] if ln["received"] < ln["qty"] and rng.random() < 0.7 else ln["received"] - (
                0 if rng.random() < 0.5 else ln["returned"])
            inv.append([vendor, number, iso(date), po, ln["line"], qty, f"{price:.2f}", f"{qty * price:.2f}"])
        invoices.append(inv)
        rows += [[f"R{rid}", *r] for r in inv]
        rid += 1
    for inv in rng.sample(invoices, rng.randint(1, 2)):
        later = iso(dt.date.fromisoformat(inv[0][2]) + dt.timedelta(days=rng.randint(2, 6)))
        rows += [[f"R{rid}", r[0], r[1], later, *r[3:]] for r in inv]
        rid += 1
    return rows


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact, recomputed from the task folder without the solver's code."""
    folder, F = Path(folder), P["files"]
    price = {(r["po_number"], int(float(r["line"]))): float(r["unit_price"])
             for r in read_rows(folder / F["orders"], P["orders_sheet"])}
    for r in sorted(read_rows(folder / F["changes"]), key=lambda r: r["approved_on"]):
        key = (r["po_number"], int(float(r["line"])))
        if key in price:
            price[key] = float(r["new_unit_price"])
    net: dict[tuple[str, int], float] = defaultdict(float)
    for r in read_rows(folder / F["receipts"]):
        q = abs(float(r["qty"].replace(",", "")))
        net[(r["po_number"], int(float(r["line"])))] += -q if r["movement"] == P["return_code"] else q
    seen: dict[tuple[str, str], str] = {}
    lines: dict[str, list[dict[str, str]]] = defaultdict(list)
    for r in read_rows(folder / F["invoices"]):
        owner = seen.setdefault((r["vendor"], r["invoice_number"]), r["register_id"])
        if owner == r["register_id"]:
            lines[owner].append(r)
    rows: list[dict[str, Any]] = []
    for rid, ls in lines.items():
        ok = True
        for r in ls:
            key, q, p = (r["po_number"], int(float(r["line"]))), float(r["qty_billed"]), float(r["unit_price"])
            ok &= q <= net[key] + 1e-9 and abs(p - price[key]) <= P["price_tolerance_pct"] / 100 * price[key] + 1e-9
        rows.append({"register_id": rid, "vendor": ls[0]["vendor"], "invoice": ls[0]["invoice_number"],
                     "status": "approve" if ok else "hold",
                     "amount": rnd(sum(float(r["qty_billed"]) * float(r["unit_price"]) for r in ls), 2)})
    approved = [r for r in rows if r["status"] == "approve"]
    held = [r for r in rows if r["status"] == "hold"]
    total = rnd(sum(r["amount"] for r in approved), 2)
    return {"invoices": rows, "approved_total": total, "approved_count": len(approved),
            "held_total": rnd(sum(r["amount"] for r in held), 2), "held_count": len(held),
            "decision": total <= P["cash_limit"], "premise": not any(r["vendor"] == P["premise_vendor"] for r in held)}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _policy(version: str, *, tolerance: float, current: bool) -> list[str]:
    rules = [
        "Three-way match: every invoice line is matched to its purchase order line and to the goods received for it.",
        f"Price: the unit price billed may differ from the price in force by at most {tolerance:g} % of that price. "
        + ("The price in force is the latest approved change order's new unit price, otherwise the order's."
           if current else "The price in force is the price on the purchase order."),
        ("Quantity: the quantity billed may not exceed the quantity received net of returns to the vendor "
         "(movement RTV in the receiving log)." if current else
         "Quantity: the quantity billed may not exceed the quantity ordered."),
        "An invoice with any line outside these limits is held in full; the others are approved in full at the "
        "billed amount.",
        "An invoice registered twice (same vendor, same invoice number) is one invoice: the first registration "
        "stands and the later one is not paid.",
    ]
    if current:
        rules.append("Amounts are in US dollars, rounded half up to the cent.")
    return [f"Accounts payable invoice matching policy, version {version}"] + [f"- {r}" for r in rules]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.match import analyse

    prof = profession(occupation)
    start = dt.date(rng.choice((2023, 2024)), rng.randint(1, 10), rng.randint(1, 20))
    week = start + dt.timedelta(days=rng.randint(40, 60))
    book = _book(rng, start)
    register = _invoices(rng, book, week)
    tag = iso(week)
    P: dict[str, Any] = {
        "files": {"orders": "purchasing/open_purchase_orders.xlsx", "changes": "purchasing/change_orders.csv",
                  "receipts": f"receiving/receiving_log_{tag[:7]}.csv", "invoices": f"ap/invoice_register_{tag}.csv"},
        "orders_sheet": "PO lines", "return_code": "RTV", "price_tolerance_pct": float(rng.choice((1, 2, 2.5, 3, 5))),
        "cash_limit": 0.0, "premise_vendor": "", "labels": {},
        "deliverables": {"table": {"file": rng.choice(("match_results.xlsx", "invoice_match.csv", "ap_match.csv")),
                                   "columns": rng.choice(_COLUMNS)},
                         "memo": rng.choice(("payment_run_memo.docx", "match_summary.md", "ap_note.docx"))},
    }
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, _data_writers(P, book, register))
        truth = analyse(str(root), P)
        shortcuts = ("duplicate", "change_order", "returns", "receipts")
        singles = {k: analyse(str(root), P, (k,)) for k in shortcuts}
    total = truth["approved_total"]
    if truth["held_count"] < 2 or truth["approved_count"] < 3:
        raise DegenerateTask("too few held or approved invoices")
    P["cash_limit"] = (nice_between(total * 1.02, total * 1.4, 2) if targets["decision"]
                       else nice_between(total * 0.6, total * 0.98, 2))
    held_vendors = {r["vendor"] for r in truth["invoices"] if r["status"] == "hold"}
    pool = sorted(held_vendors) if not targets["premise"] else sorted(set(book["vendors"]) - held_vendors)
    if not pool:
        raise DegenerateTask("no vendor gives the targeted premise")
    P["premise_vendor"] = rng.choice(pool)
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(vendor=P["premise_vendor"])
    P["labels"] = labels
    where = {"duplicate": ("data", "an invoice is registered twice under the same vendor and number"),
             "change_order": ("data", "approved change orders reprice some order lines"),
             "returns": ("data", "the receiving log holds returns to the vendor (RTV) that reduce what was received"),
             "receipts": ("memo", "the current policy matches against receipts; the archived one only against the order")}

    def graded(f: Facts) -> Any:
        return (sorted((r["vendor"], r["invoice"], r["status"], r["amount"]) for r in f["invoices"]),
                f["approved_total"], f["held_total"])

    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 2:
        raise DegenerateTask("fewer than two planted traps change a graded answer")
    P["graded_invoices"] = _pick_graded(rng, truth, singles)
    writers, roles = _workspace(rng, P, book, register, week, prof.title)
    L, cols = P["labels"], P["deliverables"]["table"]["columns"]
    memo_labels = [(L["approved_total"], "US dollars, 2 decimal places"), (L["approved_count"], "whole number"),
                   (L["held_total"], "US dollars, 2 decimal places"), (L["held_count"], "whole number"),
                   (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role=rng.choice(prof.requesters), org=rng.choice(prof.orgs),
        subject=f"Invoice match for the payment run of {tag}",
        purpose=rng.choice(("I need this week's invoices matched before the payment run.",
                            "please run the three-way match on the invoices registered this week.",
                            "we need to know which invoices can go in Friday's payment run.")),
        about="the invoice register, the open purchase orders and the receiving log",
        belief=rng.choice((f"I'm told everything from {P['premise_vendor']} is clean this week.",
                           f"My understanding is that {P['premise_vendor']} has nothing that needs holding - please check.")),
        table={"file": P["deliverables"]["table"]["file"], "headers": list(cols.values()),
               "unit": "invoice (status approve or hold; amount as billed, 2 decimal places)"},
        memo_file=P["deliverables"]["memo"], memo_labels=memo_labels, extra_deliverables=(),
        policy="the current accounts payable matching policy in policies/", files=sorted(writers))
    return Draft(subject=f"Three-way match, payment run {tag}", instructions=prompt, files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="12-20 POs, 5-7 vendors, 1-4 lines; prices log-uniform 4-2,500; 2-4 change orders "
                               "(3-12 %); 12 % partial receipts; 3 returns; 12 % lines priced up 1-8 %; 1-2 re-sent "
                               "invoices")


def _pick_graded(rng: random.Random, truth: Facts, singles: dict[str, Facts]) -> list[str]:
    """Register ids whose status is graded: every invoice a shortcut changes, plus held and approved others."""
    status = {r["register_id"]: r["status"] for r in truth["invoices"]}
    moved = sorted({r["register_id"] for f in singles.values() for r in f["invoices"]
                    if r["register_id"] in status and status[r["register_id"]] != r["status"]})
    rest = [k for k in status if k not in moved]
    held = [k for k in rest if status[k] == "hold"]
    ok = [k for k in rest if status[k] == "approve"]
    return moved[:8] + rng.sample(held, min(2, len(held))) + rng.sample(ok, min(3, len(ok)))


def _data_writers(P: dict[str, Any], book: dict[str, Any], register: list[list[Any]]) -> dict[str, Any]:
    F = P["files"]
    po_rows = [[ln["po"], ln["line"], ln["vendor"], ln["item"], ln["qty"], f"{ln['price']:.2f}", iso(ln["ordered_on"])]
               for ln in book["lines"]]
    co_rows = [[f"CO-{i + 1:03d}", ln["po"], ln["line"], f"{ln['price']:.2f}", f"{ln['new_price']:.2f}",
                iso(ln["ordered_on"] + dt.timedelta(days=5 + i))] for i, ln in enumerate(x for x in book["lines"] if "new_price" in x)]
    gr, n = [], 1
    for ln in book["lines"]:
        day = ln["ordered_on"] + dt.timedelta(days=7)
        gr.append([f"GR{n:05d}", ln["po"], ln["line"], "RECEIPT", ln["received"], iso(day)])
        n += 1
        if ln["returned"]:
            gr.append([f"GR{n:05d}", ln["po"], ln["line"], P["return_code"], ln["returned"], iso(day + dt.timedelta(days=3))])
            n += 1
    gr.sort(key=lambda r: (r[5], r[0]))
    return {
        F["orders"]: lambda p: write_xlsx(p, [("PO lines", ["po_number", "line", "vendor", "item", "qty_ordered",
                                                            "unit_price", "ordered_on"], po_rows),
                                              ("About", ["note"], [["Open purchase orders as issued; change orders are "
                                                                    "kept in change_orders.csv."]])]),
        F["changes"]: lambda p: write_csv(p, ["change_order", "po_number", "line", "old_unit_price", "new_unit_price",
                                              "approved_on"], co_rows),
        F["receipts"]: lambda p: write_csv(p, ["receipt_id", "po_number", "line", "movement", "qty", "posted_on"], gr),
        F["invoices"]: lambda p: write_csv(p, ["register_id", "vendor", "invoice_number", "invoice_date", "po_number",
                                               "line", "qty_billed", "unit_price", "line_amount"], register),
    }


def _workspace(rng: random.Random, P: dict[str, Any], book: dict[str, Any], register: list[list[Any]],
               week: dt.date, title: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in _data_writers(P, book, register).items():
        add(rel, "data", write)
    tol_pct = P["price_tolerance_pct"]
    version = rng.randint(3, 7)
    add(f"policies/ap_matching_policy_v{version}.docx", "policy", lambda p: write_docx(
        p, f"AP matching policy v{version}", _policy(str(version), tolerance=tol_pct, current=True)
        + [f"Version {version} replaces all earlier versions."]))
    add(f"policies/archive/ap_matching_policy_v{version - 1}.pdf", "stale", lambda p: write_pdf(
        p, f"AP matching policy v{version - 1}", _policy(str(version - 1), tolerance=tol_pct + 5, current=False)))
    tag = iso(week)
    add(f"correspondence/{tag}_treasury_cash_limit.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Treasury", to="accounts payable", date=tag, subject="This week's payment run",
        body=f"The cash limit for this week's supplier payment run is {P['cash_limit']:,.2f} USD. If the approved "
             "invoices come to more than that, tell me before the run and we will split it.")))
    add("vendors/vendor_master.csv", "distractor", lambda p: write_csv(
        p, ["vendor", "payment_terms", "remit_method", "tax_form_on_file"],
        [[v, rng.choice(("net 30", "net 45", "2/10 net 30")), rng.choice(("ACH", "check", "wire")), "yes"]
         for v in book["vendors"]]))
    add("receiving/dock_notes.md", "data", lambda p: write_text(p, "# Receiving dock notes\n\n" + "\n".join(
        f"- {ln['po']} line {ln['line']}: {ln['returned']} x {ln['item']} sent back to {ln['vendor']} (damaged)"
        for ln in book["lines"] if ln["returned"]) + "\n"))
    add(f"reports/ap_aging_{iso(week - dt.timedelta(days=35))}.csv", "stale", lambda p: write_csv(
        p, ["vendor", "current", "30_days", "60_days"],
        [[v, f"{rng.uniform(500, 20000):.2f}", f"{rng.uniform(0, 5000):.2f}", "0.00"] for v in book["vendors"]]))
    add(f"meetings/{tag}_ap_team.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="payment run", people=[person(rng) for _ in range(3)], date=tag)))
    add("procedures/month_end_calendar.txt", "distractor", lambda p: write_text(
        p, f"Month-end close calendar maintained by the {title} team: accruals on day 2, reconciliations by day 5.\n"))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    def count(label: str, v: int) -> Any:
        return FieldCheck(file=memo, label=label, number=float(v), tolerance=0.0)

    T, L, memo = P["deliverables"]["table"], P["labels"], P["deliverables"]["memo"]
    c = T["columns"]
    by_id = {r["register_id"]: r for r in facts["invoices"]}

    def cell(r: dict[str, Any], key: str) -> tuple[str, Any]:
        value = r["status"] if key == "status" else r["amount"]
        text = f"{T['file']}: {r['vendor']} {r['invoice']}, {c[key]} = " + (value if key == "status" else f"{value:.2f}")
        return text, CellCheck(file=T["file"], match={c["vendor"]: r["vendor"], c["invoice"]: r["invoice"]},
                               column=c[key], value=value, tolerance=0.0 if key == "status" else tol(2))

    graded = [by_id[k] for k in P["graded_invoices"] if k in by_id]
    half = (len(graded) + 1) // 2
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    out = [
        rubric("Matches the invoices that turn on receipts, returns and change orders", 10,
               [cell(r, "status") for r in graded[:half]]),
        rubric("Matches the rest of the graded invoices", 8, [cell(r, "status") for r in graded[half:]]),
        rubric("Lists each invoice once with its billed amount", 8, [
            (f"{T['file']} has {len(facts['invoices'])} invoice rows",
             RowCountCheck(file=T["file"], count=len(facts["invoices"]), key=c["invoice"])),
            *[cell(r, "amount") for r in graded[:3]]]),
        rubric("Totals the approved payment run", 10, [
            (f"{L['approved_total']} = {facts['approved_total']:.2f}", fld_num(memo, L["approved_total"], facts["approved_total"], 2)),
            (f"{L['approved_count']} = {facts['approved_count']}", count(L["approved_count"], facts["approved_count"]))]),
        rubric("Reports what is held", 8, [
            (f"{L['held_total']} = {facts['held_total']:.2f}", fld_num(memo, L["held_total"], facts["held_total"], 2)),
            (f"{L['held_count']} = {facts['held_count']}", count(L["held_count"], facts["held_count"]))]),
        rubric("Applies treasury's cash limit", 8, [
            (f"{L['approved_total']} = {facts['approved_total']:.2f}", fld_num(memo, L["approved_total"], facts["approved_total"], 2)),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Checks the requester's belief about the vendor", 6, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            (f"{L['held_count']} = {facts['held_count']}", count(L["held_count"], facts["held_count"]))]),
    ]
    if judgement:
        out.append(rubric("Explains each hold", 6, [
            ("Gives the reason for every held invoice (quantity or price, and which line)", llm("explanation")),
            ("Says how the re-registered invoice was treated", llm("explanation")),
            ("Says which policy version and price source were applied", llm("explanation"))]))
        out.append(rubric("Writes a note the payment-run owner can act on", 6, [
            ("The recommendation on the run follows from the total and treasury's limit", llm("reasoning")),
            ("Answers the requester's belief about the vendor directly", llm("tone and content")),
            ("Is concise and lists the follow-ups with vendors or receiving", llm("writing"))]))
    return out


THREE_WAY_MATCH = Workflow(
    key="three_way_match", family="invoice_matching", method="three-way match (order, receipt, invoice)",
    professions=("purchasing_agents_except_wholesale_retail_and_farm_products", "supply_chain_managers",
                 "bookkeeping_accounting_and_auditing_clerks"),
    solver="match", shortcuts=("duplicate", "change_order", "returns", "receipts"), draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated purchasing records (stated distributions)")
