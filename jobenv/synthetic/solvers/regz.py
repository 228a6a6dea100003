# ---- jobenv workflow ground truth: Regulation Z finance charge, actuarial APR and rescission tolerance ----
# Standard library, pandas, openpyxl and python-docx. PARAMS (defined above this code in solve.py) names the files,
# the firm's finance-charge classification (fee types in and out of 12 CFR 1026.4) and the tolerances; ``naive``
# names the shortcuts a careless reviewer takes (each proves that a planted trap changes the graded answer).
import os
import re

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _money(text):
    return float(str(text).replace("$", "").replace(",", "").strip() or 0)


def annuity(rate, n):
    """Present value of 1 a month for ``n`` months at monthly ``rate``."""
    return n if rate == 0 else (1 - (1 + rate) ** -n) / rate


def apr_pct(amount_financed, payment, n):
    """Actuarial APR in percent (unrounded): the monthly rate at which the payments' present value equals the
    amount financed, times 12. Bisection, so it never diverges; raises ValueError when no rate in 0-100 %
    a year fits (payments that do not repay the amount financed)."""
    lo, hi = 0.0, 1.0 / 12
    if payment * n < amount_financed or payment * annuity(hi, n) > amount_financed:
        raise ValueError("no APR between 0 and 100 % fits these payments")
    for _ in range(200):
        mid = (lo + hi) / 2
        if payment * annuity(mid, n) > amount_financed:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2 * 1200


def note_terms(folder, P):
    """The note's terms from its 'Label: value' paragraphs: loan amount, monthly payment, number of payments."""
    from docx import Document

    found = {}
    for p in Document(os.path.join(folder, P["files"]["note"])).paragraphs:
        if ":" in p.text:
            k, v = p.text.split(":", 1)
            found[k.strip()] = v.strip()
    N = P["note_labels"]
    return {"loan": _money(found[N["loan"]]), "payment": _money(found[N["payment"]]),
            "n": int(found[N["n"]].split()[0])}


def disclosed(folder, P):
    """The lender's disclosed figures (the loan-origination system's TIL export)."""
    t = read_frame(folder, P["files"]["til"], P["til_sheet"])
    vals = {r["item"]: _money(r["value"]) for _, r in t.iterrows()}
    T = P["til_items"]
    return {"apr": vals[T["apr"]], "finance_charge": vals[T["finance_charge"]]}


def fee_type(description):
    """A closing-cost line's fee type: its description without the 'Title - ' prefix the form puts on title
    company charges and any parenthetical detail (a per-diem note)."""
    kind = re.sub(r"^\s*title\s*-\s*", "", str(description), flags=re.I)
    return re.sub(r"\s*\(.*\)\s*$", "", kind).strip().lower()


def classify(fees, P, naive=()):
    """Each closing-cost line with ``fc`` True when it is a prepaid finance charge the borrower pays."""
    inside = {t.lower() for t in P["finance_charges"]}
    payers = {p.lower() for p in P["borrower_payers"]}
    out = []
    for _, r in fees.iterrows():
        kind = fee_type(r["description"])
        if "section" in naive:  # the archived note: origination charges (section A) and prepaid interest only
            fc = r["section"].strip().upper() == "A" or kind == P["prepaid_interest"].lower()
        else:
            fc = kind in inside
        if "others" not in naive and r["paid_by"].strip().lower() not in payers:
            fc = False
        out.append({"section": r["section"], "description": r["description"], "paid_by": r["paid_by"],
                    "amount": _money(r["amount"]), "fc": bool(fc)})
    return out


def foreclosure_filed(folder, P):
    d = read_frame(folder, P["files"]["docket"])
    types = {t.lower() for t in P["foreclosure_case_types"]}
    return bool(any(r["case_type"].strip().lower() in types and r["status"].strip().lower() != "dismissed"
                    for _, r in d.iterrows()))


def analyse(folder, P, naive=()):
    """The graded facts from the task folder. A missing file, note label or TIL item raises (OSError, KeyError);
    payments that cannot repay the amount financed raise ValueError."""
    terms = note_terms(folder, P)
    fees = classify(read_frame(folder, P["files"]["fees"]), P, naive)
    pfc = rnd(sum(f["amount"] for f in fees if f["fc"]), 2)
    af = rnd(terms["loan"] - pfc, 2)
    top = rnd(terms["payment"] * terms["n"], 2)
    fc = rnd(top - af, 2)
    apr = rnd(apr_pct(af, terms["payment"], terms["n"]), 3)
    lender = disclosed(folder, P)
    under = rnd(fc - lender["finance_charge"], 2)
    diff = rnd(abs(lender["apr"] - apr), 3)
    premise = True if "premise" in naive else foreclosure_filed(folder, P)
    tolerance = P["foreclosure_tolerance"] if premise else rnd(terms["loan"] * P["rescission_pct"] / 100, 2)
    return {"fees": fees, "loan": terms["loan"], "payment": terms["payment"], "n": terms["n"],
            "prepaid": pfc, "amount_financed": af, "total_of_payments": top, "finance_charge": fc, "apr": apr,
            "disclosed_apr": lender["apr"], "disclosed_fc": lender["finance_charge"], "understatement": under,
            "apr_diff": diff, "apr_ok": bool(diff <= P["apr_tolerance"] + 1e-9), "tolerance": tolerance,
            "decision": bool(under > tolerance + 1e-9), "premise": bool(premise)}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['prepaid']}: {facts['prepaid']:.2f}", f"{L['amount_financed']}: {facts['amount_financed']:.2f}",
            f"{L['finance_charge']}: {facts['finance_charge']:.2f}", f"{L['apr']}: {facts['apr']:.3f}",
            f"{L['understatement']}: {facts['understatement']:.2f}", f"{L['apr_ok']}: {yes_no(facts['apr_ok'])}",
            f"{L['tolerance']}: {facts['tolerance']:.2f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def _workbook(path, P, facts):
    """Fees sheet (each closing cost and its classification) and Recompute sheet whose key cells are formulas."""
    from openpyxl import Workbook

    L = P["labels"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Fees"
    ws.append(["section", "description", "paid_by", "amount", "finance_charge"])
    for f in facts["fees"]:
        ws.append([f["section"], f["description"], f["paid_by"], f["amount"], "Y" if f["fc"] else "N"])
    last = len(facts["fees"]) + 1
    rc = wb.create_sheet("Recompute")
    rows = [("Loan amount (face of the note)", facts["loan"]),
            (L["prepaid"], f'=SUMIF(Fees!E2:E{last},"Y",Fees!D2:D{last})'),
            (L["amount_financed"], "=B2-B3"), ("Monthly payment", facts["payment"]), ("Number of payments", facts["n"]),
            ("Total of payments", "=ROUND(B5*B6,2)"), (L["finance_charge"], "=B7-B4"),
            (L["apr"], "=ROUND(RATE(B6,-B5,B4)*1200,3)"), ("Disclosed finance charge", facts["disclosed_fc"]),
            (L["understatement"], "=B8-B10"), ("Disclosed APR (%)", facts["disclosed_apr"]),
            ("APR difference (percentage points)", "=ROUND(ABS(B12-B9),3)")]
    rc.append(["Line", "Amount"])
    for r in rows:
        rc.append(list(r))
    wb.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    memo = os.path.join(output_dir, D["memo"])
    lines = _memo_lines(P, facts) + [
        "", "Method: prepaid finance charges are the borrower-paid closing costs the firm's note classifies as finance "
        "charges; amount financed = loan amount less prepaid finance charges; the APR is the actuarial rate on "
        "the monthly payments (odd first period ignored), compared with the disclosed APR within 1/8 point; the "
        "understatement is compared with the rescission tolerance."]
    if not memo.lower().endswith(".docx"):
        write_memo(memo, lines)
        return
    from docx import Document

    doc = Document()
    for line in lines:
        doc.add_paragraph(line)
    tab = doc.add_table(rows=1, cols=2)  # the recomputation table, same labels and values as the lines above
    tab.rows[0].cells[0].text, tab.rows[0].cells[1].text = "Line", "Amount"
    for line in _memo_lines(P, facts)[:5]:
        k, v = line.split(":", 1)
        cells = tab.add_row().cells
        cells[0].text, cells[1].text = k, v.strip()
    doc.save(memo)
    _fixed_dates(memo)
