"""Month-end bank reconciliation of the operating account (accounting clerks, financial managers).

The month is generated: an opening book balance of 80,000-400,000, 8-14 customer deposits (log-normal, median
about 8,000) credited by the bank the next day, 14-26 cheques (log-normal, median about 2,500) clearing 2-12 days
after issue, 2-4 ACH payments, a service charge of 25-95, interest of 5-60 and one customer cheque returned
unpaid (300-3,000). Last month's reconciliation carries 4-7 outstanding cheques (most clear this month; one is
four to six months old; one is past the stale date) and one or two deposits in transit. One cheque that cleared
was posted to the ledger with two digits transposed (the cheque register and the bank agree on the amount).
The reconciliation follows the task's own cash policy; the archived policy wrote old cheques back to income.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, read_rows, write_files

__all__ = ["BANK_RECONCILIATION"]

_PAYEES = ("Northwind Freight", "Carver Office Supply", "Metro Utilities", "Lakeside Janitorial", "Pinnacle Insurance",
           "Redline Couriers", "Summit Staffing", "Oakridge Properties", "Bluewater IT", "Keystone Legal LLP",
           "Harper Print Shop", "Granite Tax Advisors", "Willow Catering", "Atlas Equipment Rental", "Crescent Telecom")
_CUSTOMERS = ("Dunmore Hardware", "Fairview Clinic", "Hollis & Sons", "Quarry Road Diner", "Brightstone Schools",
              "Elm Street Dental", "Vantage Realty")
_ACCOUNTS = {"cash": "1010", "receivable": "1200", "payable": "2000", "unclaimed": "2150", "suspense": "1990",
             "fees": "6150", "interest": "7010", "misc_income": "7900"}
_LABELS = {
    "adjusted": ("Adjusted cash balance", "Reconciled balance of account 1010", "Adjusted book balance of cash"),
    "os_count": ("Outstanding cheques (number)", "Number of cheques outstanding", "Cheques still outstanding"),
    "os_total": ("Outstanding cheques (total)", "Total of outstanding cheques", "Value of cheques outstanding"),
    "dit_total": ("Deposits in transit", "Total deposits in transit", "Deposits not yet credited by the bank"),
    "stale_total": ("Stale-dated cheques reclassified", "Stale cheques taken off the outstanding list",
                    "Stale-dated cheque total"),
    "correction": ("Correction to a cheque posting", "Cheque posting error (effect on cash)",
                   "Adjustment for the mis-posted cheque"),
    "decision": ("Payroll funding covered", "Balance covers the payroll transfer", "Enough cash for the payroll draw"),
    "premise": ("Cheque {no} cleared by month end", "Cheque {no} has cleared", "Cheque {no} paid by the bank"),
}
_REC = {"bank": ("Balance per bank statement", "Bank statement closing balance", "Balance per bank"),
        "dit": ("Add: deposits in transit", "Plus deposits in transit", "Add deposits not yet credited"),
        "os": ("Less: outstanding cheques", "Minus outstanding cheques", "Less cheques not yet presented"),
        "adjusted_bank": ("Adjusted bank balance", "Bank balance as adjusted", "Reconciled bank balance"),
        "book": ("Balance per general ledger", "GL 1010 closing balance", "Balance per books"),
        "interest": ("Add: interest credited by the bank", "Plus bank interest not yet booked", "Add interest earned"),
        "fees": ("Less: bank service charges", "Minus bank fees not yet booked", "Less service charges"),
        "nsf": ("Less: NSF cheques returned", "Minus returned customer cheques", "Less returned items (NSF)"),
        "stale": ("Add: stale-dated cheques reclassified", "Plus stale cheques to unclaimed property",
                  "Add back stale-dated cheques"),
        "correction": ("Add/(less): cheque posting corrections", "Plus/(minus) posting errors",
                       "Correction of mis-posted cheques"),
        "unmatched": ("Add/(less): other unmatched bank items", "Plus/(minus) other bank items",
                      "Other unexplained bank items"),
        "adjusted_book": ("Adjusted book balance", "Book balance as adjusted", "Reconciled book balance"),
        "difference": ("Unreconciled difference", "Difference (must be zero)", "Out-of-balance amount")}
_DIRS = {"bank": ("bank/statements", "treasury/bank_exports", "banking/statements"),
         "ledger": ("ledger", "gl_exports", "accounting/gl"),
         "recs": ("reconciliations", "close/bank_recs", "month_end/recs"),
         "mail": ("correspondence", "email", "inbox"),
         "policy": ("policies", "finance_manual", "controls/policies"),
         "ap": ("ap", "payables", "accounts_payable")}


def _lognormal(rng: random.Random, median: float, sigma: float = 0.8) -> float:
    return round(math.exp(rng.gauss(math.log(median), sigma)), 2)


def _transpose(rng: random.Random, amount: float) -> float:
    digits = list(f"{amount:.2f}".replace(".", ""))
    spots = [i for i in range(len(digits) - 1) if digits[i] != digits[i + 1] and not (i == 0 and digits[1] == "0")]
    if not spots:
        raise DegenerateTask("no two adjacent digits to transpose")
    i = rng.choice(spots)
    digits[i], digits[i + 1] = digits[i + 1], digits[i]
    return int("".join(digits)) / 100


def _month(rng: random.Random) -> dict[str, Any]:
    """One month of the operating account: ledger lines, bank lines, last month's open items."""
    year, month = rng.choice((2023, 2024)), rng.randint(1, 12)
    start = dt.date(year, month, 1)
    end = dt.date(year, month, calendar.monthrange(year, month)[1])
    prev_end = start - dt.timedelta(days=1)
    opening = round(rng.uniform(80_000, 400_000), 2)
    first_no = rng.randint(10_200, 48_000)
    payees = rng.sample(_PAYEES, 10)
    prior_os: list[dict[str, Any]] = []
    for k in range(rng.randint(2, 4)):  # clear this month
        prior_os.append({"no": str(first_no - 1 - k), "date": prev_end - dt.timedelta(days=rng.randint(0, 9)),
                         "payee": rng.choice(payees), "amount": _lognormal(rng, 2500), "clears": True})
    prior_os.append({"no": str(first_no - rng.randint(12, 30)), "date": prev_end - dt.timedelta(days=rng.randint(2, 20)),
                     "payee": rng.choice(payees), "amount": _lognormal(rng, 1500), "clears": False})
    prior_os.append({"no": str(first_no - rng.randint(60, 140)), "date": end - dt.timedelta(days=rng.randint(100, 170)),
                     "payee": rng.choice(payees), "amount": _lognormal(rng, 900), "clears": False})
    prior_os.append({"no": str(first_no - rng.randint(300, 600)), "date": end - dt.timedelta(days=rng.randint(195, 300)),
                     "payee": rng.choice(payees), "amount": _lognormal(rng, 600), "clears": False})
    prior_dit = [{"ref": f"DEP-{prev_end:%m%d}-{k + 1}", "date": prev_end, "amount": _lognormal(rng, 8000)}
                 for k in range(rng.randint(1, 2))]
    days = [start + dt.timedelta(days=d) for d in range((end - start).days + 1)]
    weekdays = [d for d in days if d.weekday() < 5]
    deposits: list[dict[str, Any]] = []
    for k, d in enumerate(sorted(rng.sample(weekdays, rng.randint(8, 14)))):
        deposits.append({"ref": f"DEP-{d:%m%d}-{k + 1}", "date": d, "amount": _lognormal(rng, 8000),
                         "credited": d + dt.timedelta(days=1)})
    deposits[-1]["date"] = deposits[-1]["credited"] = end  # the last day's deposit reaches the bank next month
    deposits[-1]["credited"] = end + dt.timedelta(days=1)
    cheques: list[dict[str, Any]] = []
    for k in range(rng.randint(14, 26)):
        d = rng.choice(weekdays)
        cheques.append({"no": str(first_no + k), "date": d, "payee": rng.choice(payees), "amount": _lognormal(rng, 2500),
                        "clears_on": d + dt.timedelta(days=rng.randint(2, 12))})
    cheques.sort(key=lambda c: (c["date"], c["no"]))
    for k, c in enumerate(cheques):  # cheque numbers run in issue order
        c["no"] = str(first_no + k)
    cleared = [c for c in cheques if c["clears_on"] <= end]
    if len(cleared) < 5 or len(cheques) - len(cleared) < 2:
        raise DegenerateTask("too few cleared or outstanding cheques this month")
    wrong = rng.choice(cleared)
    wrong["booked"] = _transpose(rng, wrong["amount"])
    if abs(wrong["booked"] - wrong["amount"]) < 1:
        raise DegenerateTask("the transposition moves the amount by under a dollar")
    ach = [{"ref": f"ACH-{rng.randint(100000, 999999)}", "date": rng.choice(weekdays), "amount": _lognormal(rng, 6000, 0.5),
            "payee": name} for name in rng.sample(("EFTPS payroll taxes", "State withholding", "Oakridge Properties rent",
                                                    "Pinnacle Insurance premium"), rng.randint(2, 4))]
    returned = rng.choice(deposits[:-1])
    credited = returned["credited"]
    nsf = {"date": min(end, credited + dt.timedelta(days=rng.randint(3, 6))), "customer": rng.choice(_CUSTOMERS),
           "amount": min(round(rng.uniform(300, 3000), 2), round(float(returned["amount"]) * 0.8, 2)),
           "ref": returned["ref"]}
    return {"start": start, "end": end, "prev_end": prev_end, "opening": opening, "prior_os": prior_os,
            "prior_dit": prior_dit, "deposits": deposits, "cheques": cheques, "ach": ach, "nsf": nsf,
            "fee": round(rng.uniform(25, 95), 2), "interest": round(rng.uniform(5, 60), 2), "payees": payees}


def _statement(m: dict[str, Any]) -> list[list[Any]]:
    """Bank statement lines [post_date, tran_code, description, reference, debit, credit, balance]."""
    lines: list[tuple[dt.date, int, str, str, str, float, float]] = []
    for d in m["prior_dit"]:
        lines.append((m["start"] + dt.timedelta(days=1), 1, "DEP", "DEPOSIT", d["ref"], 0.0, d["amount"]))
    for d in m["deposits"]:
        if d["credited"] <= m["end"]:
            lines.append((d["credited"], 1, "DEP", "DEPOSIT", d["ref"], 0.0, d["amount"]))
    for c in m["prior_os"]:
        if c["clears"]:
            lines.append((m["start"] + dt.timedelta(days=2), 2, "CHK", f"CHECK {c['no']}", c["no"], c["amount"], 0.0))
    for c in m["cheques"]:
        if c["clears_on"] <= m["end"]:
            lines.append((c["clears_on"], 2, "CHK", f"CHECK {c['no']}", c["no"], c["amount"], 0.0))
    for a in m["ach"]:
        lines.append((a["date"], 3, "ACH", f"ACH DEBIT {a['payee'].upper()}", a["ref"], a["amount"], 0.0))
    n = m["nsf"]
    lines.append((n["date"], 4, "RTN", f"RETURNED ITEM NSF {n['customer'].upper()}", n["ref"], n["amount"], 0.0))
    lines.append((m["end"], 5, "INT", "INTEREST PAID", "", 0.0, m["interest"]))
    lines.append((m["end"], 6, "SVC", "ACCOUNT ANALYSIS SERVICE CHARGE", "", m["fee"], 0.0))
    balance = m["opening"] - sum(d["amount"] for d in m["prior_dit"]) + sum(c["amount"] for c in m["prior_os"])
    out: list[list[Any]] = [[iso(m["start"]), "BAL", "OPENING BALANCE", "", "", "", f"{balance:.2f}"]]
    for d, _, code, text, ref, debit, credit in sorted(lines, key=lambda x: (x[0], x[1], x[4])):
        balance += credit - debit
        out.append([iso(d), code, text, ref, f"{debit:.2f}" if debit else "", f"{credit:.2f}" if credit else "",
                    f"{balance:.2f}"])
    return out


def _ledger(m: dict[str, Any]) -> list[list[Any]]:
    """Cash account 1010 detail [je, date, source, reference, description, debit, credit]."""
    rows: list[tuple[dt.date, str, str, str, float, float]] = []
    for d in m["deposits"]:
        rows.append((d["date"], "CR", d["ref"], "Deposit - customer receipts", d["amount"], 0.0))
    for c in m["cheques"]:
        rows.append((c["date"], "CD", c["no"], c["payee"], 0.0, c.get("booked", c["amount"])))
    for a in m["ach"]:
        rows.append((a["date"], "ACH", a["ref"], a["payee"], 0.0, a["amount"]))
    out: list[list[Any]] = [["JE-0000", iso(m["start"]), "OB", "", "Opening balance", m["opening"], 0.0]]
    for k, (d, src, ref, text, dr, cr) in enumerate(sorted(rows, key=lambda r: (r[0], r[1], r[2])), 1):
        out.append([f"JE-{k:04d}", iso(d), src, ref, text, dr, cr])
    return out


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def _num(text: str) -> float:
    return float(text.replace(",", "")) if text.strip() else 0.0


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact, recomputed from the task folder without the solver's code: the book side first (ledger
    balance and the bank's own items), then the bank side from the open items."""
    folder, F = Path(folder), P["files"]
    bank = read_rows(folder / F["statement"])
    ledger = read_rows(folder / F["gl"], P["gl_sheet"])
    book = rnd(sum(_num(r["debit"]) - _num(r["credit"]) for r in ledger), 2)
    by_code: dict[str, float] = {}
    paid: dict[str, float] = {}
    banked = {r["reference"] for r in bank if r["tran_code"] == "DEP"}
    for r in bank:
        by_code[r["tran_code"]] = by_code.get(r["tran_code"], 0.0) + _num(r["debit"]) + _num(r["credit"])
        if r["tran_code"] == "CHK":
            paid[r["reference"]] = paid.get(r["reference"], 0.0) + _num(r["debit"])
    open_items = {r["reference"]: (r["date"][:10], r["description"], _num(r["credit"])) for r in ledger if r["source"] == "CD"}
    for r in read_rows(folder / F["prior"], P["prior_outstanding_sheet"]):
        open_items.setdefault(r["cheque_no"], (r["date"][:10], r["payee"], _num(r["amount"])))
    cutoff = dt.date.fromisoformat(P["month_end"]) - dt.timedelta(days=int(P["stale_days"]))
    outstanding: list[dict[str, Any]] = []
    stale: list[float] = []
    correction = 0.0
    for no, (date, payee, amount) in sorted(open_items.items()):
        if no in paid:
            correction += amount - paid[no] if abs(amount - paid[no]) > 0.005 else 0.0
        elif dt.date.fromisoformat(date) < cutoff:
            stale.append(amount)
        else:
            outstanding.append({"cheque_no": no, "date": date, "payee": payee, "amount": rnd(amount, 2)})
    dit = rnd(sum(_num(r["debit"]) for r in ledger if r["source"] == "CR" and r["reference"] not in banked), 2)
    os_total = rnd(sum(r["amount"] for r in outstanding), 2)
    closing = _num(bank[-1]["balance"])
    stale_total, correction = rnd(sum(stale), 2), rnd(correction, 2)
    fees, interest, nsf = (rnd(by_code.get(k, 0.0), 2) for k in ("SVC", "INT", "RTN"))
    adj_book = rnd(book + interest - fees - nsf + stale_total + correction, 2)
    adj_bank = rnd(closing + dit - os_total, 2)
    return {"closing_bank": rnd(closing, 2), "book": book, "outstanding": outstanding, "os_count": len(outstanding),
            "os_total": os_total, "dit_total": dit, "interest": interest, "fees": fees, "nsf": nsf,
            "stale_total": stale_total, "correction": correction, "adjusted_bank": adj_bank, "adjusted_book": adj_book,
            "difference": rnd(adj_bank - adj_book, 2), "decision": adj_book >= P["funding"],
            "premise": P["premise_cheque"] in paid}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _policy(version: int, *, stale_days: int, current: bool) -> list[str]:
    A = _ACCOUNTS
    rules = [
        "Scope: the operating account (general ledger account 1010) is reconciled to the bank statement every month "
        "by the fifth business day; the savings and payroll accounts have their own reconciliations.",
        "Bank side: the balance per bank statement, plus deposits recorded in the ledger that the bank has not yet "
        "credited (deposits in transit), less cheques issued and not yet paid by the bank (outstanding cheques), "
        "including those still outstanding on the previous month's reconciliation.",
        "Book side: the ledger balance, adjusted for the items the bank has recorded and the ledger has not (interest, "
        "service charges, returned customer cheques) and for posting errors.",
        "Posting errors: where the bank paid a cheque for a different amount from the one posted, and the cheque "
        "register agrees with the bank, the posting is wrong: correct the ledger to the cleared amount against "
        f"accounts payable ({A['payable']}).",
    ]
    if current:
        rules += [
            f"Stale-dated cheques: a cheque still outstanding more than {stale_days} days after its issue date at the "
            "reconciliation date is removed from the outstanding list and reclassified from cash to unclaimed property "
            f"({A['unclaimed']}) for escheatment. It is never taken to income. A cheque {stale_days} days old or less "
            "stays on the outstanding list.",
            f"Returned (NSF) customer cheques are charged back to accounts receivable ({A['receivable']}); service "
            f"charges go to bank charges ({A['fees']}); interest to interest income ({A['interest']}).",
            "The reconciliation is complete only when the adjusted bank balance equals the adjusted book balance "
            "(an unreconciled difference of 0.00). Amounts in US dollars, rounded half up to the cent.",
        ]
    else:
        rules += ["Old cheques: a cheque outstanding more than 90 days is voided and written back to miscellaneous "
                  f"income ({A['misc_income']})."]
    return [f"Cash reconciliation policy, version {version}"] + [f"- {r}" for r in rules]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.bankrec import analyse

    prof = profession(occupation)
    m = _month(rng)
    tag = f"{m['end']:%Y-%m}"
    prev_tag = f"{m['prev_end']:%Y-%m}"
    acct = str(rng.randint(1000, 9999))
    dirs = pick_labels(rng, _DIRS)
    P: dict[str, Any] = {
        "files": {"statement": f"{dirs['bank']}/operating_x{acct}_{tag}.csv",
                  "gl": f"{dirs['ledger']}/{rng.choice(('gl_1010_detail', 'cash_1010_activity', 'gl_detail_1010'))}_{tag}.xlsx",
                  "prior": f"{dirs['recs']}/{prev_tag}/bank_rec_{prev_tag}.xlsx"}, "dirs": dirs,
        "gl_sheet": "GL detail", "prior_outstanding_sheet": "Outstanding", "prior_dit_sheet": "DIT",
        "month_end": iso(m["end"]), "stale_days": 180, "accounts": dict(_ACCOUNTS), "funding": 0.0,
        "premise_cheque": "", "labels": {}, "rec_labels": pick_labels(rng, _REC),
        "deliverables": {"workbook": f"bank_rec_{tag}.xlsx", "upload": rng.choice((f"aje_{tag}.csv", "gl_import_aje.csv")),
                         "memo": rng.choice((f"rec_memo_{tag}.docx", "cash_rec_note.docx", "controller_note.md"))},
    }
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, _data_writers(P, m))
        truth = analyse(str(root), P)
        shortcuts = ("prior_rec", "stale", "transposition", "archived_policy")
        singles = {k: analyse(str(root), P, (k,)) for k in shortcuts}
    if truth["difference"] != 0 or truth["unmatched"] != 0:
        raise DegenerateTask("the generated month does not reconcile")
    adj = truth["adjusted_book"]
    P["funding"] = (nice_between(adj * 0.7, adj * 0.97, 2) if targets["decision"]
                    else nice_between(adj * 1.03, adj * 1.3, 2))
    cleared = [c for c in m["cheques"] if c["clears_on"] <= m["end"] and "booked" not in c]
    waiting = [c for c in m["cheques"] if c["clears_on"] > m["end"]]
    pick = rng.choice(cleared if targets["premise"] else waiting)
    P["premise_cheque"] = pick["no"]
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(no=pick["no"])
    P["labels"] = labels
    where = {"prior_rec": ("data", "last month's reconciliation carries cheques still outstanding and deposits "
                                   "already booked"),
             "stale": ("memo", "a cheque on last month's list is past the policy's stale date"),
             "transposition": ("data", "a cleared cheque was posted with two digits transposed; the register and bank agree"),
             "archived_policy": ("memo", "the archived policy's 90-day write-back to income is superseded")}

    def graded(f: Facts) -> Any:
        return (f["adjusted_book"], f["adjusted_bank"], f["os_total"], f["os_count"], f["stale_total"], f["correction"])

    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 3:
        raise DegenerateTask("fewer than three planted items change a graded answer")
    writers, roles = _workspace(rng, P, m, acct, tag, prev_tag, prof.title)
    boss = person(rng)
    L = labels
    memo_lines = [(L["adjusted"], "US dollars, 2 decimal places"), (L["os_count"], "whole number"),
                  (L["os_total"], "US dollars, 2 decimal places"), (L["dit_total"], "US dollars, 2 decimal places"),
                  (L["stale_total"], "US dollars, 2 decimal places"),
                  (L["correction"], "US dollars, 2 decimal places, positive if it increases cash"),
                  (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    R = P["rec_labels"]
    rec_lines = "\n".join(f"   {R[k]}" for k in _REC)
    month_name = f"{m['end']:%B %Y}"
    D = P["dirs"]
    opener = rng.choice((f"From: {boss}, Controller\nTo: Accounts\nSubject: {month_name} bank reconciliation\n\n",
                         f"{boss} (Controller) - close checklist item {rng.randint(3, 6)}.{rng.randint(1, 4)}, bank "
                         f"reconciliation for {month_name}\n\n",
                         f"Subject: Operating account rec, {month_name}\nFrom: {boss}\n\n",
                         f"Hi - {boss} here.\n\n"))
    ask = rng.choice((f"Please reconcile the operating account (GL 1010) to the bank for {month_name}.",
                      f"The auditors want the {month_name} operating account reconciliation in the binder, so please "
                      "prepare it.", f"I need the {month_name} bank rec for the operating account before we sign off the close.",
                      f"Can you take the {month_name} cash rec for account 1010 this month? Our usual preparer is out."))
    belief = rng.choice((f"AP tells me cheque {pick['no']} to {pick['payee']} cleared before month end - confirm from "
                         "the statement.", f"I was told cheque {pick['no']} ({pick['payee']}) has been paid by the bank; "
                         "please check.", f"{pick['payee']} says they deposited our cheque {pick['no']} ages ago, so it "
                         "should have cleared - has it?"))
    steps = [rng.choice(("Match the bank statement to the ledger detail for 1010 and to last month's reconciliation.",
                         f"Tick the {month_name} statement against the 1010 ledger detail and last month's rec.",
                         "Agree every statement line to the ledger or to last month's open items.")),
             rng.choice(("List the outstanding cheques and the deposits in transit; deal with any stale-dated cheque "
                         "as the policy says.", "Work out what is still outstanding (cheques) and in transit "
                         "(deposits), applying the policy's stale-date rule.",
                         "Build the outstanding-cheque and deposit-in-transit lists; old cheques follow the policy.")),
             rng.choice(("Find any posting error and the bank's own items, and draft the adjusting entries.",
                         "Draft the adjusting entries for whatever the bank recorded that we have not, and for any "
                         "mis-posting.", "Put through entries for the bank's charges and credits and any posting error.")),
             rng.choice(("Prove the rec (adjusted bank = adjusted book) and tell me whether the adjusted balance covers "
                         f"the payroll funding payroll has asked for (see {D['mail']}/).",
                         f"Check that the rec balances, then tell me if the adjusted balance covers payroll's funding "
                         f"request in {D['mail']}/.", "Make sure the two sides agree, and say whether we can fund the "
                         f"payroll draw payroll mentioned ({D['mail']}/) without a sweep from savings."))]
    deliverables = [
        f"{P['deliverables']['workbook']}: a sheet Rec with these lines in column A (header Line) and the amounts in "
        "column B (header Amount), " + rng.choice(("the totals as live formulas:", "totals as formulas, not typed "
                                                    "values:", "with the subtotals and the difference as formulas:"))
        + "\n" + rec_lines + "\n   and sheets Outstanding (cheque_no, date, payee, amount), DIT (reference, amount) "
        "and Stale (cheque_no, date, payee, amount), one row per item.",
        f"{P['deliverables']['upload']}: " + rng.choice((
            "the adjusting entries for the GL import", "the journal entries in the ERP's import layout",
            "our adjusting journal, ready to upload")) + ", columns entry, account, debit, credit, description "
        "(account numbers from the chart of accounts; one line per account per entry).",
        f"{P['deliverables']['memo']}: " + rng.choice(("a note to me starting with these lines (label, colon, value), "
                                                       "then your explanation of the reconciling items and any "
                                                       "judgement calls:", "a covering note for my sign-off that opens "
                                                       "with these labelled lines, then explains the reconciling items:",
                                                       "a short memo beginning with these lines (label: value), then "
                                                       "the reasoning behind anything you had to decide:"))
        + "\n" + "\n".join(f"   {lbl}: <{hint}>" for lbl, hint in memo_lines)]
    prompt = "\n\n".join([
        opener + ask + " " + belief,
        rng.choice(("Steps, as the cash policy sets them out:", "What I need done (the cash policy in "
                                                                 f"{D['policy']}/ has the rules):",
                    "The usual routine:")) + "\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        rng.choice(("Deliverables in the output folder:", "Please leave in the output folder:", "Outputs:")) + "\n"
        + "\n".join(f"{k}. {t}" for k, t in enumerate(deliverables, 1)),
        rng.choice(("Thanks.", "Ping me if the statement and the ledger disagree on anything material.", "Cheers.",
                    "Flag anything odd rather than forcing it to balance.")) + "\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers)),
    ]) + "\n"
    return Draft(subject=f"Bank reconciliation, operating account, {month_name}", instructions=prompt, files=writers,
                 roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="8-14 deposits log-normal median 8,000; 14-26 cheques log-normal median 2,500 clearing "
                               "in 2-12 days; 2-4 ACH; fee 25-95; interest 5-60; one NSF 300-3,000; 4-7 prior "
                               "outstanding cheques incl. one aged 100-170 and one 195-300 days; one transposed posting")


def _data_writers(P: dict[str, Any], m: dict[str, Any]) -> dict[str, Any]:
    F = P["files"]
    prior_os = [[c["no"], iso(c["date"]), c["payee"], c["amount"]] for c in m["prior_os"]]
    prior_dit = [[d["ref"], d["amount"]] for d in m["prior_dit"]]
    S0 = m["opening"] - sum(d["amount"] for d in m["prior_dit"]) + sum(c["amount"] for c in m["prior_os"])
    rec_rows = [["Balance per bank statement", round(S0, 2)],
                ["Add: deposits in transit", round(sum(d["amount"] for d in m["prior_dit"]), 2)],
                ["Less: outstanding cheques", round(sum(c["amount"] for c in m["prior_os"]), 2)],
                ["Adjusted bank balance", m["opening"]], ["Balance per general ledger", m["opening"]],
                ["Adjusted book balance", m["opening"]], ["Prepared by", "AP clerk"], ["Reviewed by", "Controller"]]
    return {
        F["statement"]: lambda p: write_csv(p, ["post_date", "tran_code", "description", "reference", "debit", "credit",
                                                "balance"], _statement(m)),
        F["gl"]: lambda p: write_xlsx(p, [(P["gl_sheet"], ["je", "date", "source", "reference", "description", "debit",
                                                            "credit"], _ledger(m)),
                                          ("Notes", ["note"], [["Sources: OB opening balance, CR cash receipts, CD cheque "
                                                                "disbursements, ACH electronic payments."]])]),
        F["prior"]: lambda p: write_xlsx(p, [("Rec", ["Line", "Amount"], rec_rows),
                                             (P["prior_outstanding_sheet"], ["cheque_no", "date", "payee", "amount"], prior_os),
                                             (P["prior_dit_sheet"], ["reference", "amount"], prior_dit)]),
    }


def _workspace(rng: random.Random, P: dict[str, Any], m: dict[str, Any], acct: str, tag: str, prev_tag: str,
               title: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in _data_writers(P, m).items():
        add(rel, "data", write)
    D = P["dirs"]
    version = rng.randint(3, 6)
    add(f"{D['policy']}/cash_reconciliation_policy_v{version}.docx", "policy", lambda p: write_docx(
        p, f"Cash reconciliation policy v{version}", _policy(version, stale_days=P["stale_days"], current=True)
        + [f"Version {version} replaces all earlier versions from {iso(m['start'] - dt.timedelta(days=200))}."]))
    add(f"{D['policy']}/archive/cash_reconciliation_policy_v{version - 1}.pdf", "stale", lambda p: write_pdf(
        p, f"Cash reconciliation policy v{version - 1}", _policy(version - 1, stale_days=90, current=False)))
    register = [[c["no"], iso(c["date"]), c["payee"], f"{c['amount']:.2f}", "issued"] for c in m["cheques"]]
    add(f"{D['ap']}/cheque_register_{tag}.csv", "data", lambda p: write_csv(
        p, ["cheque_no", "issue_date", "payee", "amount", "status"], register))
    add(f"{D['ledger']}/chart_of_accounts.csv", "reference", lambda p: write_csv(p, ["account", "name"], [
        ["1010", "Cash - operating account"], ["1020", "Cash - savings"], ["1200", "Accounts receivable"],
        ["1990", "Suspense"], ["2000", "Accounts payable"], ["2150", "Unclaimed property payable"],
        ["6150", "Bank charges"], ["7010", "Interest income"], ["7900", "Miscellaneous income"]]))
    add(f"{D['bank']}/transaction_codes.txt", "reference", lambda p: write_text(p, (
        "Bank transaction codes on statement exports\nBAL opening balance line\nDEP deposit credited\nCHK cheque paid\n"
        "ACH electronic debit\nRTN returned item (customer cheque returned unpaid)\nINT interest paid\n"
        "SVC account analysis service charge\n")))
    end = m["end"]
    add(f"{D['bank']}/savings_x{rng.randint(1000, 9999)}_{tag}.csv", "distractor", lambda p: write_csv(
        p, ["post_date", "tran_code", "description", "reference", "debit", "credit", "balance"],
        [[iso(m["start"]), "BAL", "OPENING BALANCE", "", "", "", f"{rng.uniform(50_000, 150_000):.2f}"],
         [iso(end), "INT", "INTEREST PAID", "", "", f"{rng.uniform(20, 200):.2f}", ""]]))
    add(f"{D['bank']}/operating_x{acct}_{prev_tag}.csv", "stale", lambda p: write_csv(
        p, ["post_date", "tran_code", "description", "reference", "debit", "credit", "balance"],
        [[iso(m["prev_end"]), "BAL", "CLOSING BALANCE", "", "", "",
          f"{m['opening'] - sum(d['amount'] for d in m['prior_dit']) + sum(c['amount'] for c in m['prior_os']):.2f}"]]))
    n = m["nsf"]
    add(f"{D['mail']}/{iso(n['date'])}_bank_returned_item.txt", "email", lambda p: write_text(p, email_text(
        sender="Commercial Banking Services", to="accounts receivable", date=iso(n["date"]),
        subject=f"Returned item notice - account ending {acct}",
        body=f"A cheque from {n['customer']} for {n['amount']:,.2f} USD, deposited under {n['ref']}, was returned "
             "unpaid (insufficient funds) and charged back to your account today.")))
    payday = end + dt.timedelta(days=1)
    add(f"{D['mail']}/{iso(end - dt.timedelta(days=2))}_payroll_funding.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}, Payroll", to="Controller", date=iso(end - dt.timedelta(days=2)),
                      subject="Funding for the next payroll",
                      body=f"Payroll will draw {P['funding']:,.2f} USD from the operating account on {iso(payday)}. "
                           "Let me know if the operating account cannot cover it and we will sweep from savings.")))
    old = m["prior_os"][-1]
    add(f"{D['mail']}/{iso(end - dt.timedelta(days=5))}_ap_old_cheque.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}, Accounts payable", to="Accounts", date=iso(end - dt.timedelta(days=5)),
                      subject=f"Cheque {old['no']}",
                      body=f"{old['payee']} never cashed cheque {old['no']} from {iso(old['date'])}. Last year we "
                           "just wrote these back to income - can you do the same this month?")))
    add(f"meetings/{iso(end - dt.timedelta(days=8))}_finance_team.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="month-end close", people=[person(rng) for _ in range(3)],
                         date=iso(end - dt.timedelta(days=8)))))
    add("procedures/month_end_close_checklist.md", "distractor", lambda p: write_text(p, (
        f"# Month-end close checklist ({title} team)\n\n1. Accruals posted by day 2\n2. Fixed asset additions by day 3\n"
        "3. Intercompany confirmations by day 3\n4. Bank reconciliations by day 5 (see the cash policy)\n"
        "5. Flux review by day 6\n")))
    add(f"reports/ar_aging_{prev_tag}.csv", "distractor", lambda p: write_csv(
        p, ["customer", "current", "31_60", "61_90", "over_90"],
        [[c, f"{rng.uniform(0, 20000):.2f}", f"{rng.uniform(0, 5000):.2f}", "0.00", "0.00"] for c in _CUSTOMERS]))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, R, A = P["deliverables"], P["labels"], P["rec_labels"], P["accounts"]
    book, memo, upload = D["workbook"], D["memo"], D["upload"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def rec(key: str, value: float) -> tuple[str, Any]:
        return f"{book} Rec: {R[key]} = {value:.2f}", CellCheck(file=book, sheet="Rec", match={"Line": R[key]},
                                                                  column="Amount", value=float(value), tolerance=tol(2))

    def money(label: str, value: float) -> tuple[str, Any]:
        return f"{label} = {value:.2f}", fld_num(memo, label, value, 2)

    def entry(account: str, column: str, value: float) -> tuple[str, Any]:
        return (f"{upload}: account {account} {column} = {value:.2f}",
                CellCheck(file=upload, match={"account": account}, column=column, value=float(value), tolerance=tol(2)))

    aged = sorted(facts["outstanding"], key=lambda r: r["date"])[:2]
    c = facts["correction"]
    out = [
        rubric("Reconciles the bank side, carrying last month's open items", 10,
               [rec("adjusted_bank", facts["adjusted_bank"]), rec("os", facts["os_total"])]),
        rubric("Proves the reconciliation on the book side", 10,
               [rec("adjusted_book", facts["adjusted_book"]), rec("difference", 0.0), rec("book", facts["book"])]),
        rubric("Lists the cheques still outstanding", 8, [
            (f"{book} Outstanding has {facts['os_count']} cheques",
             RowCountCheck(file=book, sheet="Outstanding", key="cheque_no", count=facts["os_count"])),
            (f"{L['os_count']} = {facts['os_count']}",
             FieldCheck(file=memo, label=L["os_count"], number=float(facts["os_count"]), tolerance=0.0)),
            *[(f"{book} Outstanding: cheque {r['cheque_no']} amount = {r['amount']:.2f}",
               CellCheck(file=book, sheet="Outstanding", match={"cheque_no": r["cheque_no"]}, column="amount",
                         value=r["amount"], tolerance=tol(2))) for r in aged]]),
        rubric("Reclassifies the stale-dated cheque as the current policy says", 10, [
            money(L["stale_total"], facts["stale_total"]), entry(A["unclaimed"], "credit", facts["stale_total"])]),
        rubric("Corrects the mis-posted cheque to the amount the bank paid", 8, [
            money(L["correction"], c), entry(A["payable"], "credit" if c > 0 else "debit", abs(c))]),
        rubric("Carries the deposits in transit", 6, [money(L["dit_total"], facts["dit_total"]),
                                                      rec("dit", facts["dit_total"])]),
        rubric("Answers the payroll funding question from the adjusted balance", 8, [
            money(L["adjusted"], facts["adjusted_book"]),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Checks AP's statement about the cheque against the bank", 6, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
        rubric("Books the bank's own charges and credits", 6, [
            entry(A["fees"], "debit", facts["fees"]), entry(A["receivable"], "debit", facts["nsf"]),
            entry(A["interest"], "credit", facts["interest"])]),
    ]
    if judgement:
        out.append(rubric("Explains the reconciling items", 6, [
            ("Names the stale-dated cheque and why it goes to unclaimed property, not income", llm("explanation")),
            ("Identifies the transposed posting and the evidence (cheque register and bank agree)", llm("explanation")),
            ("Says which of last month's outstanding items cleared and which remain", llm("explanation"))]))
        out.append(rubric("Writes a note the controller can sign off", 6, [
            ("Answers the payroll funding question with the adjusted balance", llm("reasoning")),
            ("Answers AP's claims (the cheque that cleared; writing old cheques back to income) directly",
             llm("tone and content")), ("Is concise and lists the entries to post", llm("writing"))]))
    return out


BANK_RECONCILIATION = Workflow(
    key="bank_reconciliation", family="bank_reconciliation", method="book-to-bank reconciliation with adjusting entries",
    professions=("bookkeeping_accounting_and_auditing_clerks", "financial_managers_branch_or_department"),
    solver="bankrec", shortcuts=("prior_rec", "stale", "transposition", "archived_policy"), draw=draw,
    recheck=recheck, rubrics=rubrics, data="generated operating-account month (stated distributions)")
