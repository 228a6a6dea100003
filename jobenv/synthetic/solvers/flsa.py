# ---- jobenv workflow ground truth: FLSA overtime back wages, liquidated damages and prejudgment interest for the
# plaintiffs of a collective action, checked against opposing counsel's calculation (lawyers) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the weekly payroll
# export, the bonus register, the consents, opposing counsel's workbook, the complaint filing date, the stipulated
# interest rate and accrual date, the defendant's offer and the deliverables. ``naive`` names the shortcuts a hurried
# associate takes:
#   bonus_week      a quarterly bonus added to the regular rate of the week it was paid, not spread over its quarter
#   discretionary   the discretionary holiday bonus put into the regular rate too
#   complaint_date  the two years measured back from the complaint's filing date for everyone, not each consent
#   three_year      three years back (the willfulness the complaint pleads, which no one has found)
#   time_and_half   1.5 x the regular rate for hours over 40, though straight time for them was already paid
#   interest_stacked prejudgment interest added on top of liquidated damages in the recoverable total
#   withdrawn       the opt-in who withdrew their consent kept as a plaintiff
# Two more flags reproduce opposing counsel's usual errors: no_bonus (bonuses left out of the regular rate) and
# calc_date (two years back from the date of their calculation).
import datetime as dt
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

ERRORS = ("no_bonus", "bonus_week", "calc_date")


def years_back(d, n):
    """The same calendar day n years earlier (28 February for 29 February)."""
    try:
        return d.replace(year=d.year - n)
    except ValueError:
        return d.replace(year=d.year - n, day=28)


def quarter_of(d):
    return f"{d.year}Q{(d.month - 1) // 3 + 1}"


def allocate(by_emp, bonuses, naive=()):
    """Bonus dollars per (employee, week ending): a nondiscretionary quarterly bonus spread equally over the
    employee's workweeks ending in the quarter it was earned in; a discretionary bonus left out. ``by_emp`` holds
    each employee's (week ending, hours, straight-time pay) in date order."""
    out: dict = {}
    by_q: dict = {}
    for emp, ws in by_emp.items():
        for we, hours, _ in ws:
            if hours > 0:
                by_q.setdefault((emp, quarter_of(we)), []).append(we)
    for b in bonuses:
        if "no_bonus" in naive:
            break
        if b["discretionary"] and "discretionary" not in naive:
            continue
        if "bonus_week" in naive:
            later = [we for we, _, _ in by_emp.get(b["emp"], []) if we >= b["paid"]]
            if later:
                out[(b["emp"], later[0])] = out.get((b["emp"], later[0]), 0.0) + b["amount"]
            continue
        ws = by_q.get((b["emp"], b["quarter"]), [])
        for we in ws:
            out[(b["emp"], we)] = out.get((b["emp"], we), 0.0) + b["amount"] / len(ws)
    return out


_CACHE: dict = {}


def load(folder, P):
    """(weeks by employee, bonuses, consents) of the task folder, read once per folder state."""
    F = P["files"]
    paths = [os.path.join(folder, F[k]) for k in ("payroll", "bonuses", "consents")]
    key = tuple((os.path.abspath(p), os.stat(p).st_mtime_ns, os.stat(p).st_size) for p in paths)
    if key in _CACHE:
        return _CACHE[key]
    pay = read_frame(folder, F["payroll"])
    by_emp: dict = {}
    for emp, we, h, s in zip(pay["employee_id"], pay["week_ending"], pay["hours_worked"], pay["straight_time_pay"]):
        by_emp.setdefault(str(emp).strip(), []).append((dt.date.fromisoformat(str(we).strip()), float(h), float(s)))
    for ws in by_emp.values():
        ws.sort()
    bonuses = []
    for r in read_frame(folder, F["bonuses"]).to_dict("records"):
        bonuses.append({"emp": str(r["employee_id"]).strip(), "quarter": str(r["earned_quarter"]).strip(),
                        "paid": dt.date.fromisoformat(str(r["paid_date"]).strip()), "amount": float(r["amount"]),
                        "discretionary": str(r["bonus_type"]).strip().lower().startswith("discretionary")})
    consents = read_frame(folder, F["consents"]).to_dict("records")
    _CACHE.clear()
    _CACHE[key] = (by_emp, bonuses, consents)
    return _CACHE[key]


def damages(data, P, naive=()):
    by_emp, bonuses, consents = data
    alloc = allocate(by_emp, bonuses, naive)
    through = dt.date.fromisoformat(P["interest_through"])
    rate = P["interest_rate"] / 100
    mult = 1.5 if "time_and_half" in naive else 0.5
    years = 3 if "three_year" in naive else 2
    rows = []
    for c in consents:
        if str(c["withdrawn"]).strip() and "withdrawn" not in naive:
            continue
        emp = str(c["employee_id"]).strip()
        anchor = dt.date.fromisoformat(str(c["consent_filed"]).strip())
        if "complaint_date" in naive:
            anchor = dt.date.fromisoformat(P["complaint_filed"])
        if "calc_date" in naive:
            anchor = dt.date.fromisoformat(P["opposing_date"])
        start = years_back(anchor, years)
        bw = interest = 0.0
        n = 0
        for we, hours, straight in by_emp.get(emp, []):
            if we < start:
                continue
            n += 1
            if hours <= 40:
                continue
            rr = (straight + alloc.get((emp, we), 0.0)) / hours
            due = mult * rr * (hours - 40)
            bw += due
            interest += due * rate * (through - we).days / 365
        bw = rnd(bw, 2)
        rows.append({"id": emp, "name": str(c["name"]).strip(), "named": str(c["role"]).strip().lower() == "named plaintiff",
                     "consent": str(c["consent_filed"]).strip(), "weeks": n, "back_wages": bw, "liquidated": bw,
                     "interest": rnd(interest, 2)})
    return rows


def opposing_error(data, P, theirs, naive=()):
    """The flag that reproduces opposing counsel's total back wages (within a dollar), 'none' when ours does."""
    for flag in ("",) + ERRORS:
        mine = damages(data, P, tuple(naive) + ((flag,) if flag else ()))
        if abs(sum(r["back_wages"] for r in mine) - theirs) <= 1.0:
            return flag or "none"
    return "other"


def analyse(folder, P, naive=()):
    data = load(folder, P)
    rows = damages(data, P, naive)
    for r in rows:
        r["total"] = rnd(r["back_wages"] + r["liquidated"] + (r["interest"] if "interest_stacked" in naive else 0.0), 2)
    opp = read_frame(folder, P["files"]["opposing"], P["opposing_sheet"]).to_dict("records")
    theirs = rnd(sum(float(str(r["back_wages"]).replace(",", "").replace("$", "")) for r in opp
                     if str(r["employee_id"]).strip()), 2)
    named = next(r for r in rows if r["named"])
    facts = {"rows": rows, "plaintiffs": len(rows), "named_back_wages": named["back_wages"],
             "total_back_wages": rnd(sum(r["back_wages"] for r in rows), 2),
             "total_liquidated": rnd(sum(r["liquidated"] for r in rows), 2),
             "total_interest": rnd(sum(r["interest"] for r in rows), 2),
             "total_recoverable": rnd(sum(r["total"] for r in rows), 2), "opposing_back_wages": theirs}
    facts["premise"] = bool(abs(facts["total_back_wages"] - theirs) <= 1.0)
    facts["opposing_error"] = opposing_error(data, P, theirs, naive)
    facts["decision"] = bool(P["offer"] >= facts["total_recoverable"])
    return facts


def _memo_lines(P, facts):
    L, E = P["labels"], P["error_words"]
    money = lambda x: f"${x:,.2f}"  # noqa: E731
    return [f"{L['plaintiffs']}: {facts['plaintiffs']}", f"{L['named']}: {money(facts['named_back_wages'])}",
            f"{L['back_wages']}: {money(facts['total_back_wages'])}", f"{L['liquidated']}: {money(facts['total_liquidated'])}",
            f"{L['interest']}: {money(facts['total_interest'])}", f"{L['recoverable']}: {money(facts['total_recoverable'])}",
            f"{L['error']}: {E.get(facts['opposing_error'], facts['opposing_error'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}", f"{L['decision']}: {yes_no(facts['decision'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["out_columns"]
    rows = [[r["id"], r["name"], r["consent"], r["weeks"], f"{r['back_wages']:.2f}", f"{r['liquidated']:.2f}",
             f"{r['interest']:.2f}", f"{r['total']:.2f}"] for r in facts["rows"]]
    write_table(os.path.join(output_dir, D["table"]), [C[k] for k in ("id", "name", "consent", "weeks", "back_wages",
                                                                        "liquidated", "interest", "total")], rows)
    per = [f"- {r['name']} ({r['id']}): back wages ${r['back_wages']:,.2f}, liquidated ${r['liquidated']:,.2f}, "
           f"interest ${r['interest']:,.2f}" for r in facts["rows"]]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"Re: {P['caption']} - plaintiffs' overtime damages", "", "Per plaintiff:", *per, "",
        "Method: regular rate = straight-time pay plus nondiscretionary quarterly bonuses allocated equally to the "
        "workweeks of the quarter they were earned in, divided by hours worked; half the regular rate for each hour "
        "over 40 (straight time for those hours was already paid); two years back from each plaintiff's own consent "
        "filing date (no willfulness finding); liquidated damages equal to back wages; simple prejudgment interest at "
        f"{P['interest_rate']:g}% a year through {P['interest_through']}, reported as the alternative to liquidated "
        "damages and not added to them."])
