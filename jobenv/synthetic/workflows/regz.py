"""Regulation Z review of a refinance: finance charge, actuarial APR and the rescission tolerance (lawyers).

The loan file is generated: a refinance of a principal dwelling with a face amount log-normal around 320,000
(sigma 0.35, clipped to 200,000-900,000, whole thousands), a note rate of 5.250-7.750 % in eighths, a term of 360
(half the draws), 240 or 180 months with a level payment rounded to the cent, and 1-28 days of prepaid interest.
The closing costs follow the closing disclosure's sections: origination charges (points 0-2 % in quarters,
origination 0.5-1 %, underwriting 595-1,095, processing 395-795, a broker fee of 0.6-1.5 % in some files), services
not shopped for (appraisal 450-750, credit report 25-85, flood determination 8-20, tax service 65-95), title
company charges (settlement agent 350-850, courier 20-75, lender's title insurance 0.25-0.5 %, search, notary,
document preparation), recording 90-250, the insurance premium and escrow deposits. One finance-charge fee is paid
by the lender or by others. The lender's disclosure leaves out one to three finance charges (a courier fee, the
settlement agent's fee, a broker fee), the size chosen so the rescission question comes out as targeted; the docket
shows a pending foreclosure or not. Failure behaviour: an ill-posed draw raises DegenerateTask.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import random
import re
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, write_files

__all__ = ["REG_Z_RESCISSION"]

_IN = ("Loan Discount Points", "Origination Fee", "Underwriting Fee", "Processing Fee", "Mortgage Broker Fee",
       "Tax Service Fee", "Settlement Agent Fee", "Courier Fee", "Prepaid Interest")
_OUT = ("Appraisal Fee", "Credit Report Fee", "Flood Determination Fee", "Lender's Title Insurance", "Title Search",
        "Notary Fee", "Document Preparation Fee", "Recording Fees", "Homeowner's Insurance Premium",
        "Homeowner's Insurance Reserve", "Property Tax Reserve")
_PAYERS = ("Borrower", "Borrower (before closing)")
_CASE_TYPES = ("Mortgage Foreclosure", "Foreclosure - Residential")
_LENDERS = ("Keystone Home Lending", "Bayview Mortgage Co.", "Summit Ridge Bank", "Pioneer Direct Mortgage",
            "Harborline Financial")
_AGENTS = ("Clearwater Title & Escrow", "First County Settlement Services", "Landmark Closing Group")
_STREETS = ("Maple Ave", "Ridgecrest Dr", "Old Mill Rd", "Lakeview Ct", "Sycamore Ln", "Hawthorne St")
_LABELS = {
    "prepaid": ("Prepaid finance charges", "Total prepaid finance charge", "Prepaid finance charges (recomputed)"),
    "amount_financed": ("Amount financed (recomputed)", "Recomputed amount financed", "Amount financed"),
    "finance_charge": ("Finance charge (recomputed)", "Recomputed finance charge", "Finance charge as recomputed"),
    "apr": ("Recomputed APR (%)", "APR by the actuarial method (%)", "Annual percentage rate, recomputed (%)"),
    "understatement": ("Finance charge understatement", "Understatement of the finance charge",
                       "Finance charge under-disclosed by"),
    "apr_ok": ("Disclosed APR within the 1/8 point tolerance", "APR disclosure accurate within tolerance",
               "APR within tolerance"),
    "tolerance": ("Rescission tolerance applied", "Finance-charge tolerance for rescission",
                  "Tolerance used for the rescission test"),
    "decision": ("Rescission claim available", "Extended right of rescission applies", "Client can rescind"),
    "premise": ("Foreclosure initiated, as the client says", "Client's foreclosure statement confirmed",
                "Foreclosure action pending on the loan"),
}


def _money(text: str) -> float:
    return float(str(text).replace("$", "").replace(",", "").strip() or 0)


def _kind(description: str) -> str:
    return description.removeprefix("Title - ").split(" (")[0]


def _payment(loan: float, rate_pct: float, n: int) -> float:
    r = rate_pct / 1200
    return rnd(loan * r / (1 - (1 + r) ** -n), 2)


def _apr_newton(af: float, pmt: float, n: int) -> float:
    """Actuarial APR (percent) by Newton's method on the monthly rate; raises DegenerateTask if it does not settle."""
    i = pmt / af
    for _ in range(100):
        v = (1 + i) ** -n
        f = pmt * (1 - v) / i - af
        df = pmt * (n * v / (1 + i) / i - (1 - v) / i ** 2)
        step = f / df
        i -= step
        if abs(step) < 1e-15:
            return i * 1200
    raise DegenerateTask("the APR did not converge")


# ---- the independent computation: csv, openpyxl and python-docx, not the solver's code ---------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact, recomputed from the task folder without the solver's code."""
    from docx import Document
    from openpyxl import load_workbook

    folder, F, N = Path(folder), P["files"], P["note_labels"]
    note = {m.group(1).strip(): m.group(2) for p in Document(str(folder / F["note"])).paragraphs
            if (m := re.match(r"([^:]+):\s*(.*)", p.text))}
    loan, pmt = _money(note[N["loan"]]), _money(note[N["payment"]])
    n = int(note[N["n"]].split()[0])
    inside = {t.lower() for t in P["finance_charges"]}
    payers = {t.lower() for t in P["borrower_payers"]}
    pfc = 0.0
    with (folder / F["fees"]).open(newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            kind = r["description"].split("(")[0].strip()
            if kind.lower().startswith("title -"):
                kind = kind[len("title -"):].strip()
            if kind.lower() in inside and r["paid_by"].strip().lower() in payers:
                pfc += _money(r["amount"])
    wb = load_workbook(folder / F["til"], read_only=True, data_only=True)
    til = {str(a): b for a, b in wb[P["til_sheet"]].iter_rows(min_row=2, values_only=True)}
    wb.close()
    d_apr, d_fc = _money(til[P["til_items"]["apr"]]), _money(til[P["til_items"]["finance_charge"]])
    with (folder / F["docket"]).open(newline="", encoding="utf-8") as f:
        filed = any(r["case_type"] in P["foreclosure_case_types"] and r["status"].lower() != "dismissed"
                    for r in csv.DictReader(f))
    pfc = rnd(pfc, 2)
    af = rnd(loan - pfc, 2)
    fc = rnd(rnd(pmt * n, 2) - af, 2)
    apr = rnd(_apr_newton(af, pmt, n), 3)
    under = rnd(fc - d_fc, 2)
    limit = P["foreclosure_tolerance"] if filed else rnd(loan * P["rescission_pct"] / 100, 2)
    return {"prepaid": pfc, "amount_financed": af, "finance_charge": fc, "apr": apr, "understatement": under,
            "apr_ok": rnd(abs(d_apr - apr), 3) <= P["apr_tolerance"] + 1e-9, "tolerance": limit,
            "decision": under > limit + 1e-9, "premise": filed}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _fees(rng: random.Random, loan: float, rate: float, closed: dt.date, targets: dict[str, bool],
          agent: str, lender: str) -> tuple[list[list[Any]], float]:
    """Closing-cost rows [section, description, paid_to, paid_by, amount] and what the lender's disclosure left out."""
    c = lambda lo, hi: round(rng.uniform(lo, hi), 2)  # noqa: E731
    broker = targets["decision"] and not targets["premise"] or rng.random() < 0.4
    rows: list[list[Any]] = []
    points = rng.choice((0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0))
    if points:
        rows.append(["A", f"Loan Discount Points ({points:g}% of loan amount)", lender, "Borrower",
                     rnd(loan * points / 100, 2)])
    rows += [["A", "Origination Fee", lender, "Borrower", rnd(loan * rng.uniform(0.5, 1.0) / 100, 2)],
             ["A", "Underwriting Fee", lender, "Borrower", float(rng.randrange(595, 1096, 25))],
             ["A", "Processing Fee", lender, "Borrower", float(rng.randrange(395, 796, 25))]]
    if broker:
        rows.append(["A", "Mortgage Broker Fee", "Crestview Mortgage Brokers", "Borrower",
                     rnd(loan * rng.uniform(0.6, 1.5) / 100, 2)])
    pick = rng.choice([r for r in rows if r[1] in ("Underwriting Fee", "Processing Fee")])
    pick[3] = rng.choice(("Lender credit", "Others"))  # a finance charge the borrower does not pay
    courier = c(20, 34.5) if not targets["decision"] and targets["premise"] else c(20, 75)
    settlement = float(rng.randrange(350, 851, 5))
    rows += [["B", "Appraisal Fee", "Valley Appraisal Group", "Borrower (before closing)", float(rng.randrange(450, 751, 25))],
             ["B", "Credit Report Fee", "Equinox Credit Services", "Borrower", c(25, 85)],
             ["B", "Flood Determination Fee", "Corelink Flood Services", "Borrower", c(8, 20)],
             ["B", "Tax Service Fee", "Corelink Tax Services", "Borrower", float(rng.randrange(65, 96, 5))],
             ["C", "Title - Settlement Agent Fee", agent, "Borrower", settlement],
             ["C", "Title - Courier Fee", agent, "Borrower", courier],
             ["C", "Title - Lender's Title Insurance", agent, "Borrower", rnd(loan * rng.uniform(0.25, 0.5) / 100, 2)],
             ["C", "Title - Title Search", agent, "Borrower", float(rng.randrange(150, 351, 25))],
             ["C", "Title - Notary Fee", agent, "Borrower", float(rng.randrange(50, 151, 25))],
             ["C", "Title - Document Preparation Fee", agent, "Borrower", float(rng.randrange(75, 251, 25))],
             ["E", "Recording Fees", "County Recorder", "Borrower", c(90, 250)]]
    days = rng.randint(1, 28)
    per_day = rnd(loan * rate / 100 / 365, 2)
    rows += [["F", f"Prepaid Interest ({per_day:.2f} per day from {iso(closed)}, {days} days)", lender, "Borrower",
              rnd(per_day * days, 2)],
             ["F", "Homeowner's Insurance Premium (12 mo.)", "Granite State Insurance", "Borrower", c(900, 2400)],
             ["G", "Homeowner's Insurance Reserve (3 mo.)", lender, "Borrower", c(225, 600)],
             ["G", "Property Tax Reserve (4 mo.)", lender, "Borrower", c(800, 3200)]]
    if not targets["decision"]:
        left_out = courier if targets["premise"] else courier + settlement
    elif targets["premise"]:
        left_out = settlement + (courier if rng.random() < 0.5 else 0.0)
    else:
        left_out = next(r[4] for r in rows if r[1] == "Mortgage Broker Fee") + courier
    return rows, left_out


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.regz import analyse

    prof = profession(occupation)
    loan = float(min(900_000, max(200_000, round(math.exp(rng.gauss(math.log(320_000), 0.35)), -3))))
    rate = rng.randrange(42, 63) / 8
    n = rng.choice((360, 360, 240, 180))
    pmt = _payment(loan, rate, n)
    closed = dt.date(rng.choice((2024, 2025)), rng.randint(1, 12), rng.randint(1, 27))
    today = closed + dt.timedelta(days=rng.randint(240, 720))
    lender, agent = rng.choice(_LENDERS), rng.choice(_AGENTS)
    borrower = person(rng)
    address = f"{rng.randint(12, 9800)} {rng.choice(_STREETS)}"
    fees, left_out = _fees(rng, loan, rate, closed, targets, agent, lender)
    fc_total = sum(r[4] for r in fees if _kind(r[1]) in _IN and r[3] in _PAYERS)
    lender_af = rnd(loan - rnd(fc_total - left_out, 2), 2)
    d_fc = rnd(rnd(pmt * n, 2) - lender_af, 2)
    d_apr = rnd(_apr_newton(lender_af, pmt, n), 3)
    P: dict[str, Any] = {
        "files": {"fees": "loan_file/closing_disclosure_fees.csv", "note": "loan_file/note_terms.docx",
                  "til": "loan_file/los_disclosure_export.xlsx", "docket": f"court_records/docket_search_{iso(today)}.csv"},
        "til_sheet": "TIL", "til_items": {"apr": "Annual Percentage Rate (%)", "finance_charge": "Finance Charge"},
        "note_labels": {"loan": "Principal amount", "payment": "Monthly principal and interest payment",
                        "n": "Number of payments"},
        "finance_charges": list(_IN), "borrower_payers": list(_PAYERS), "prepaid_interest": "Prepaid Interest",
        "foreclosure_case_types": list(_CASE_TYPES), "foreclosure_tolerance": 35.0, "rescission_pct": 0.5,
        "apr_tolerance": 0.125, "labels": pick_labels(rng, _LABELS),
        "deliverables": {"workbook": rng.choice(("apr_recomputation.xlsx", "reg_z_recompute.xlsx", "til_audit.xlsx")),
                         "memo": rng.choice(("reg_z_memo.docx", "rescission_memo.docx", "apr_review_memo.docx"))},
    }
    docket = _docket(rng, borrower, lender, closed, today, targets["premise"])
    data = _data_writers(P, fees, docket, loan, rate, n, pmt, closed, borrower, address, lender, d_apr, d_fc, lender_af)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, data)
        truth = analyse(str(root), P)
        singles = {k: analyse(str(root), P, (k,)) for k in ("section", "others", "premise")}
    if abs(truth["apr_diff"] - P["apr_tolerance"]) < 0.004 or abs(truth["understatement"] - truth["tolerance"]) < 1:
        raise DegenerateTask("a tolerance test sits on its boundary")
    keys = ("prepaid", "amount_financed", "finance_charge", "apr", "understatement", "tolerance", "premise")
    where = {"section": ("memo", "the settlement agent's, courier and tax service fees sit outside the origination "
                                 "charges (and under 'Title -'); the archived note counted only section A"),
             "others": ("data", "a finance-charge fee is paid by the lender or by others, not by the borrower"),
             "premise": ("email", "the client says foreclosure has begun; the docket shows no foreclosure action")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if any(nf[x] != truth[x] for x in keys)]
    if len(traps) < 2:
        raise DegenerateTask("fewer than two planted traps change a graded answer")
    writers, roles = _workspace(rng, P, data, today, borrower, lender, agent, closed, address, prof.title)
    L, D = P["labels"], P["deliverables"]
    memo_labels = [(L["prepaid"], "US dollars, 2 decimals"), (L["amount_financed"], "US dollars, 2 decimals"),
                   (L["finance_charge"], "US dollars, 2 decimals"), (L["apr"], "percent, 3 decimals"),
                   (L["understatement"], "recomputed minus disclosed finance charge, US dollars, 2 decimals"),
                   (L["apr_ok"], "yes or no"), (L["tolerance"], "US dollars, 2 decimals"),
                   (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    graded = ", ".join(L[k] for k in ("prepaid", "amount_financed", "finance_charge", "apr", "understatement"))
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role="Supervising Partner", org=rng.choice(prof.orgs),
        subject=f"{borrower} refinance - Reg Z APR and rescission",
        purpose=rng.choice(("I need to know whether the APR on the refinance was within tolerance and whether the "
                            "client has a rescission claim.",
                            "please recompute the finance charge and APR on the refinance and tell me if we have a "
                            "rescission claim.",
                            "before we advise, check the TIL figures on the refinance against Regulation Z.")),
        about="the closing disclosure, the note, the lender's disclosure export and the docket search",
        belief=rng.choice(("The client tells me the servicer has already started foreclosure, so the $35 "
                           "tolerance should apply - please confirm.",
                           "According to the client the loan is already in foreclosure; if so the tighter "
                           "foreclosure tolerance governs.")),
        table={"file": D["workbook"], "headers": ["Line", "Amount"],
               "unit": "line of the recomputation, in a sheet named Recompute"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"In {D['workbook']}, a sheet Fees classifying every closing cost, and in sheet "
                            f"Recompute lines labelled exactly {graded}, whose amounts are live formulas "
                            "(the APR with =RATE).",),
        policy="the firm's current finance-charge research note in research/", files=sorted(writers))
    return Draft(subject=f"Reg Z review, {borrower} refinance", instructions=prompt, files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="face log-normal median 320,000 (sigma 0.35, 200,000-900,000); rate 5.25-7.75 % in "
                               "eighths; 360/240/180 months; fees uniform in stated ranges; 1-3 finance charges "
                               "left out of the lender's disclosure")


def _docket(rng: random.Random, borrower: str, lender: str, closed: dt.date, today: dt.date,
            filed: bool) -> list[list[Any]]:
    county = rng.choice(("Hamilton", "Marion", "Lake", "Franklin"))
    rows = [[f"{closed.year - 6}-SC-{rng.randint(1000, 9999)}", iso(closed - dt.timedelta(days=rng.randint(1900, 2300))),
             f"{county} County Court", "Small Claims", f"Midtown Dental v. {borrower}", "Closed"],
            [f"{closed.year - 3}-CV-{rng.randint(1000, 9999)}", iso(closed - dt.timedelta(days=rng.randint(800, 1100))),
             f"{county} County Superior Court", "Mortgage Foreclosure", f"Old Harbor Savings v. {borrower}", "Dismissed"]]
    if filed:
        rows.append([f"{today.year}-MF-{rng.randint(1000, 9999)}", iso(today - dt.timedelta(days=rng.randint(10, 60))),
                     f"{county} County Superior Court", rng.choice(_CASE_TYPES), f"{lender} v. {borrower} et al.", "Open"])
    rows.append([f"{today.year}-TR-{rng.randint(1000, 9999)}", iso(today - dt.timedelta(days=rng.randint(70, 200))),
                 f"{county} County Court", "Traffic Infraction", f"State v. {borrower}", "Closed"])
    return sorted(rows, key=lambda r: r[1])


def _data_writers(P: dict[str, Any], fees: list[list[Any]], docket: list[list[Any]], loan: float, rate: float,
                  n: int, pmt: float, closed: dt.date, borrower: str, address: str, lender: str, d_apr: float,
                  d_fc: float, lender_af: float) -> dict[str, Any]:
    F, N, T = P["files"], P["note_labels"], P["til_items"]
    first = (closed.replace(day=1) + dt.timedelta(days=62)).replace(day=1)
    top = rnd(pmt * n, 2)
    return {
        F["fees"]: lambda p: write_csv(p, ["section", "description", "paid_to", "paid_by", "amount"],
                                       [[*r[:4], f"{r[4]:.2f}"] for r in fees]),
        F["note"]: lambda p: write_docx(p, "Adjustable terms: none. Fixed-rate note - summary of terms", [
            f"Borrower: {borrower}", f"Lender: {lender}", f"Property: {address} (borrower's principal dwelling)",
            f"Date of note: {iso(closed)}", f"{N['loan']}: ${loan:,.2f}", f"Interest rate: {rate:.3f} % per year",
            f"{N['n']}: {n} monthly payments", f"{N['payment']}: ${pmt:,.2f}", f"First payment date: {iso(first)}",
            "Purpose: refinance of the existing first mortgage with a new creditor; no escrow waiver."]),
        F["til"]: lambda p: write_xlsx(p, [
            ("TIL", ["item", "value"], [[T["apr"], f"{d_apr:.3f}"], [T["finance_charge"], f"{d_fc:.2f}"],
                                        ["Amount Financed", f"{lender_af:.2f}"], ["Total of Payments", f"{top:.2f}"]]),
            ("Loan", ["field", "value"], [["Loan amount", loan], ["Note rate", rate], ["Term (months)", n],
                                          ["Closing date", iso(closed)], ["Loan purpose", "Refinance (cash-out: no)"]])]),
        F["docket"]: lambda p: write_csv(p, ["case_number", "filed_on", "court", "case_type", "caption", "status"],
                                         docket),
    }


def _note(version: int, current: bool) -> list[str]:
    if current:
        fcs = ("- Finance charges (12 CFR 1026.4(a), (b)): " + "; ".join(_IN) + ". The lender's closing instructions "
               "require the settlement agent's services, so the settlement agent's fee and its courier fee are "
               "finance charges (1026.4(a)(2)) even though the closing disclosure lists them under 'Title -'.")
        more = [
            "- Not finance charges (1026.4(c)(7), (d), (e)): " + "; ".join(_OUT) + ".",
            "- Only charges the borrower pays (paid_by Borrower, at or before closing) count. Amounts paid by the "
            "lender (lender credits) or by others are not the borrower's finance charge.",
            "- Classify a fee by its description, not by the section of the closing disclosure it appears in.",
        ]
    else:
        fcs = ("- Finance charges: the origination charges (closing disclosure section A) and prepaid interest. "
               "Third-party services in sections B and C, including everything labelled 'Title -', are excluded.")
        more = []
    return [f"Research note: TILA finance charge and rescission review, version {version}",
            "Prepared for the consumer finance practice group. " + ("This version replaces all earlier versions."
                                                                   if current else "Version of an earlier year."),
            fcs, *more,
            "- Prepaid finance charges = the finance charges above paid at or before closing. Amount financed = loan "
            "amount (face of the note) less prepaid finance charges. Total of payments = number of payments x the "
            "monthly payment. Finance charge = total of payments less amount financed.",
            "- APR: actuarial method (Appendix J): the monthly rate at which the present value of the payments equals "
            "the amount financed, times 12. Convention: the odd first period is ignored (every period a full month). "
            "State the APR in percent rounded half up to 3 decimals; money to the cent.",
            "- APR tolerance: a regular transaction's disclosed APR is accurate if within 1/8 of 1 percentage point "
            "(0.125) of the recomputed APR (1026.22(a)(2)).",
            "- Understatement = recomputed finance charge less the disclosed finance charge.",
            ("- Rescission (1026.23(g), (h)): for a refinance of the principal dwelling by a new creditor, the "
             "finance charge is treated as accurate if not understated by more than 1/2 of 1 percent of the face "
             "amount of the note. Once foreclosure has been initiated the tolerance is $35. Foreclosure is initiated "
             "when a foreclosure action (docket case type " + " or ".join(_CASE_TYPES) + ") is filed and not "
             "dismissed; a notice of default or of intent to accelerate does not initiate foreclosure. A claim "
             "exists when the understatement exceeds the tolerance.") if current else
            "- Rescission: the finance charge is accurate if not understated by more than $100.",
            "- All matters reviewed under this note were consummated less than three years ago."]


def _workspace(rng: random.Random, P: dict[str, Any], data: dict[str, Any], today: dt.date, borrower: str,
               lender: str, agent: str, closed: dt.date, address: str, title: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    v = rng.randint(3, 6)
    add(f"research/finance_charge_note_v{v}.docx", "policy",
        lambda p: write_docx(p, f"Finance charge research note v{v}", _note(v, True)))
    add(f"research/archive/finance_charge_note_v{v - 1}.pdf", "stale",
        lambda p: write_pdf(p, f"Finance charge research note v{v - 1} (superseded)", _note(v - 1, False)))
    add("loan_file/lender_closing_instructions.pdf", "data", lambda p: write_pdf(p, f"{lender} closing instructions", [
        f"To: {agent}", f"Borrower: {borrower}; property {address}; closing {iso(closed)}.",
        "The lender requires that the loan be closed by a settlement agent approved by the lender. The settlement "
        "agent shall collect its settlement and courier fees from the borrower as shown on the closing disclosure.",
        "Record the security instrument and return the original note by overnight courier."]))
    tag = iso(today)
    add(f"correspondence/{tag}_client_email.txt", "email", lambda p: write_text(p, email_text(
        sender=borrower, to="consumer finance group", date=tag, subject="My refinance",
        body=f"I got a letter from {lender}'s servicer saying they intend to accelerate the loan, so foreclosure has "
             "started. My friend says the lender got the APR wrong and I can cancel the loan. I have all the closing "
             "papers if you need anything else.")))
    add(f"correspondence/{iso(today - dt.timedelta(days=rng.randint(20, 80)))}_notice_of_intent_to_accelerate.pdf",
        "data", lambda p: write_pdf(p, "Notice of default and intent to accelerate", [
            f"Borrower: {borrower}", f"Property: {address}",
            "Your loan is in default. If the default is not cured within 30 days we intend to accelerate the loan "
            "and may then begin foreclosure proceedings. This notice is not a foreclosure action."]))
    add("loan_file/payment_history.xlsx", "distractor", lambda p: write_xlsx(p, [("History", [
        "due_date", "amount_due", "amount_paid", "status"], [[iso(closed + dt.timedelta(days=30 * (k + 2))),
                                                               f"{rng.uniform(2000, 4000):.2f}", "", "open"]
                                                              for k in range(4)])]))
    add("admin/engagement_letter.docx", "distractor", lambda p: write_docx(p, "Engagement letter", [
        f"Client: {borrower}", "Scope: review of the refinance loan documents for claims under the Truth in Lending "
        "Act and advice on remedies.", "Fees: hourly, billed monthly."]))
    add("admin/time_entries.csv", "distractor", lambda p: write_csv(p, ["date", "timekeeper", "hours", "narrative"], [
        [tag, person(rng), round(rng.uniform(0.2, 2.0), 1), rng.choice(("Review loan file", "Call with client",
                                                                         "Pull docket search"))] for _ in range(4)]))
    add(f"meetings/{tag}_practice_group.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="refinance review", people=[person(rng) for _ in range(3)], date=tag)))
    add("research/state_usury_limits.txt", "distractor", lambda p: write_text(
        p, f"Notes kept by the {title} team: state usury ceilings do not apply to first-lien residential mortgages "
           "(federal preemption). Not relevant to TILA tolerance questions.\n"))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck

    L, D = P["labels"], P["deliverables"]
    memo, book = D["memo"], D["workbook"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def line(key: str, places: int) -> tuple[str, Any]:
        return (f"{book} Recompute: {L[key]} = {facts[key]:.{places}f}",
                CellCheck(file=book, sheet="Recompute", match={"Line": L[key]}, column="Amount",
                          value=float(facts[key]), tolerance=tol(places)))

    def num(key: str, places: int) -> tuple[str, Any]:
        return f"{L[key]} = {facts[key]:.{places}f}", fld_num(memo, L[key], facts[key], places)

    def flag(key: str) -> tuple[str, Any]:
        return f"{L[key]}: {yes(facts[key])}", fld(memo, L[key], yes(facts[key]), ["yes", "no"])

    out = [
        rubric("Classifies the closing costs as the firm's note says (by description, borrower-paid only)", 10,
               [num("prepaid", 2), line("prepaid", 2)]),
        rubric("Derives the amount financed", 8, [num("amount_financed", 2), line("amount_financed", 2)]),
        rubric("Recomputes the finance charge", 10, [num("finance_charge", 2), line("finance_charge", 2)]),
        rubric("Recomputes the APR by the actuarial method and tests the 1/8 point tolerance", 10,
               [num("apr", 3), line("apr", 3), flag("apr_ok")]),
        rubric("Measures the understatement against the disclosure", 8,
               [num("understatement", 2), line("understatement", 2)]),
        rubric("Answers the rescission question on the right tolerance", 10,
               [num("understatement", 2), num("tolerance", 2), flag("decision")]),
        rubric("Tests the client's foreclosure statement against the docket", 6, [flag("premise"), num("tolerance", 2)]),
    ]
    if judgement:
        out.append(rubric("Explains the classification and the tolerances", 6, [
            ("Names the fees the lender left out of its finance charge and why they are finance charges", llm("explanation")),
            ("Says that fees paid by the lender or others are not the borrower's finance charge", llm("explanation")),
            ("States the APR convention (actuarial, odd first period ignored) and which research note was applied",
             llm("explanation"))]))
        out.append(rubric("Writes advice the partner can take to the client", 6, [
            ("The rescission advice follows from the understatement and the tolerance", llm("reasoning")),
            ("Answers the client's foreclosure premise directly, with the docket and the notice", llm("tone and content")),
            ("Is concise and lists next steps (rescission notice, deadlines)", llm("writing"))]))
    return out


REG_Z_RESCISSION = Workflow(
    key="reg_z_rescission", family="consumer_credit_compliance",
    method="Regulation Z finance charge, actuarial APR and rescission tolerance", professions=("lawyers",),
    solver="regz", shortcuts=("section", "others", "premise"), draw=draw, recheck=recheck, rubrics=rubrics,
    data="generated refinance loan file (stated distributions)")
