"""FLSA overtime damages for the plaintiffs of a collective action, recomputed after defense counsel's figures
(lawyers).

A plaintiffs' firm's Senior Associate gets the employer's weekly payroll export (18-28 hourly employees, 3.5-4 years
of Saturday week endings, 3,500-5,500 rows: hours 30-40 uniform or 40 plus gamma(2, 3) overtime hours with a per
employee overtime propensity of 20-60 %, rates 16-30 $/h with a 3 % raise each January, every hour paid at straight
time), the bonus register (a nondiscretionary quarterly production bonus, lognormal around $450, paid 10-30 days after
the quarter, 85 % of quarters; a discretionary holiday bonus of $100-400 in December for 60 % of employees), the
consents filed (the named plaintiff 3-25 days after the complaint, 7-13 opt-ins 40-260 days after it, one of whom
later withdrew), the complaint (pleading willfulness), the interest stipulation, the firm's current damages protocol
and its archived 2022 version, and defense counsel's workbook, which either matches the truth or makes one error
(bonuses left out, bonuses in the week paid, or two years back from their own calculation date).

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed or a planted trap moves no graded figure;
``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, llm, rubric
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files

__all__ = ["FLSA_OVERTIME"]

SHORTCUTS = ("bonus_week", "discretionary", "complaint_date", "three_year", "time_and_half", "interest_stacked",
             "withdrawn")
_LABELS = {
    "plaintiffs": ("Plaintiffs with recoverable claims", "Plaintiffs in the computation", "Consenting plaintiffs computed"),
    "named": ("Back wages, named plaintiff", "Named plaintiff's back wages", "Unpaid overtime, named plaintiff"),
    "back_wages": ("Total back wages", "Unpaid overtime compensation, all plaintiffs", "Back wages, all plaintiffs"),
    "liquidated": ("Total liquidated damages", "Liquidated damages, all plaintiffs", "Liquidated damages (equal amount)"),
    "interest": ("Prejudgment interest (alternative)", "Total prejudgment interest",
                 "Simple prejudgment interest, all plaintiffs"),
    "recoverable": ("Total recoverable (back wages plus liquidated)", "Total FLSA recovery",
                    "Recoverable amount, all plaintiffs"),
    "error": ("Opposing counsel's error", "Where defendant's calculation goes wrong", "Error in defense counsel's figures"),
    "premise": ("Defendant's back-wage total is correct", "Opposing back-wage figure holds",
                "Defense back-wage total confirmed"),
    "decision": ("Offer covers the full recovery", "Recommend accepting the offer as full value",
                 "Offer at or above full FLSA recovery"),
}
_ERRORS = {"no_bonus": ("bonuses left out of the regular rate", "regular rate without the bonuses"),
           "bonus_week": ("bonus counted in the week paid", "bonuses not spread over their quarter"),
           "calc_date": ("period measured from their calculation date", "lookback from the calculation date"),
           "none": ("none",)}
_OUT = {"id": ("employee_id", "emp_id"), "name": ("plaintiff", "name"), "consent": ("consent_filed", "consent_date"),
        "weeks": ("workweeks_in_period", "weeks_recoverable"), "back_wages": ("back_wages", "unpaid_overtime"),
        "liquidated": ("liquidated_damages", "liquidated"), "interest": ("prejudgment_interest", "interest"),
        "total": ("total_recoverable", "total")}
_DIRS = {"payroll": ("client_docs/payroll", "production/payroll", "discovery/payroll"),
         "pleadings": ("pleadings", "court_filings"), "corr": ("correspondence", "mail")}
_FIRST = ("Maria", "James", "Aisha", "Luis", "Tanya", "Kevin", "Rosa", "Darnell", "Mei", "Carlos", "Erin", "Omar",
          "Priya", "Shawn", "Elena", "Marcus", "Keisha", "Victor", "Hannah", "Andre", "Lucia", "Trevor", "Nadia", "Jorge",
          "Bianca", "Tyrone", "Grace", "Hector", "Yolanda", "Dmitri", "Fatima", "Wesley", "Carmen", "Jamal", "Irene",
          "Pablo", "Leah", "Curtis", "Sofia", "Reggie")
_LAST = ("Alvarez", "Brooks", "Chen", "Dawson", "Estrada", "Fowler", "Garcia", "Hughes", "Ibarra", "Jenkins", "Khan",
         "Lopez", "Morris", "Nguyen", "Ortiz", "Patel", "Quinn", "Reyes", "Simmons", "Torres", "Underwood", "Vasquez",
         "Washington", "Young", "Zimmer", "Barnes", "Coleman", "Diaz", "Ellis", "Flores")


# ---- the independent computation: csv and openpyxl only ------------------------------------------------------------

def _cents(x: float) -> float:
    from decimal import ROUND_HALF_UP, Decimal
    return float(Decimal(repr(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _back(d: dt.date, n: int) -> dt.date:
    return d.replace(year=d.year - n) if not (d.month == 2 and d.day == 29) else dt.date(d.year - n, 2, 28)


def _recompute(pay: list[dict[str, str]], bon: list[dict[str, str]], cons: list[dict[str, str]], P: dict[str, Any],
               error: str = "") -> list[dict[str, Any]]:
    emp_weeks: dict[str, list[tuple[dt.date, float, float]]] = {}
    for r in pay:
        emp_weeks.setdefault(r["employee_id"].strip(), []).append(
            (dt.date.fromisoformat(r["week_ending"].strip()), float(r["hours_worked"]), float(r["straight_time_pay"])))
    extra: dict[tuple[str, dt.date], float] = {}
    for b in bon:
        if error == "no_bonus" or b["bonus_type"].strip().lower().startswith("discretionary"):
            continue
        emp, ws = b["employee_id"].strip(), sorted(emp_weeks.get(b["employee_id"].strip(), []))
        if error == "bonus_week":
            later = [w for w, _, _ in ws if w >= dt.date.fromisoformat(b["paid_date"].strip())]
            if later:
                extra[(emp, later[0])] = extra.get((emp, later[0]), 0.0) + float(b["amount"])
            continue
        q = [w for w, h, _ in ws if h > 0 and f"{w.year}Q{(w.month + 2) // 3}" == b["earned_quarter"].strip()]
        for w in q:
            extra[(emp, w)] = extra.get((emp, w), 0.0) + float(b["amount"]) / len(q)
    through, out = dt.date.fromisoformat(P["interest_through"]), []
    for c in cons:
        if c["withdrawn"].strip():
            continue
        emp = c["employee_id"].strip()
        anchor = P["opposing_date"] if error == "calc_date" else c["consent_filed"].strip()
        start = _back(dt.date.fromisoformat(anchor), 2)
        mine = sorted(w for w in emp_weeks.get(emp, []) if w[0] >= start)
        due = [(w, 0.5 * (s + extra.get((emp, w), 0.0)) / h * (h - 40)) for w, h, s in mine if h > 40]
        bw = _cents(sum(d for _, d in due))
        out.append({"id": emp, "weeks": len(mine), "back_wages": bw, "named": c["role"].strip().lower() == "named plaintiff",
                    "interest": _cents(sum(d * P["interest_rate"] / 100 * (through - w).days / 365 for w, d in due))})
    return out


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: payroll, bonus register and consents read
    with csv, the protocol applied plaintiff by plaintiff; opposing counsel's error found by redoing their sums."""
    folder, F = Path(folder), P["files"]
    pay, bon, cons = (read_rows(folder / F[k]) for k in ("payroll", "bonuses", "consents"))
    rows = _recompute(pay, bon, cons, P)
    for r in rows:
        r["liquidated"], r["total"] = r["back_wages"], _cents(2 * r["back_wages"])
    theirs = _cents(sum(float(r["back_wages"]) for r in read_rows(folder / F["opposing"], P["opposing_sheet"])
                        if r["employee_id"].strip()))
    bw = _cents(sum(r["back_wages"] for r in rows))
    err = "other"
    for e in ("", "no_bonus", "bonus_week", "calc_date"):
        if abs(_cents(sum(r["back_wages"] for r in _recompute(pay, bon, cons, P, e))) - theirs) <= 1.0:
            err = e or "none"
            break
    total = _cents(sum(r["total"] for r in rows))
    return {"rows": rows, "plaintiffs": len(rows), "named_back_wages": next(r["back_wages"] for r in rows if r["named"]),
            "total_back_wages": bw, "total_liquidated": bw, "total_interest": _cents(sum(r["interest"] for r in rows)),
            "total_recoverable": total, "premise": abs(bw - theirs) <= 1.0, "opposing_error": err,
            "decision": P["offer"] >= total}


# ---- drawing a task ----------------------------------------------------------------------------------------

def _saturday_on_or_before(d: dt.date) -> dt.date:
    return d - dt.timedelta(days=(d.weekday() - 5) % 7)


def _data(rng: random.Random, P: dict[str, Any]) -> dict[str, list[list[Any]]]:
    complaint = dt.date.fromisoformat(P["complaint_filed"])
    first = _saturday_on_or_before(complaint - dt.timedelta(days=3 * 365 + rng.randint(150, 300)))
    last = dt.date.fromisoformat(P["practice_changed"])
    names = rng.sample([f"{f} {s}" for f in _FIRST for s in _LAST], rng.randint(18, 28))
    emps = [(f"E{rng.randint(10000, 99999)}", n) for n in names]
    emps = list({e: (e, n) for e, n in emps}.values())
    pay, bon = [], []
    for emp, name in emps:
        rate0, p_ot = round(rng.uniform(16, 30), 2), rng.uniform(0.2, 0.6)
        hired = first + dt.timedelta(weeks=rng.choice((0, 0, 0, rng.randint(1, 60))))
        w = hired
        while w <= last:
            if rng.random() < 0.04:  # leave week: no row
                w += dt.timedelta(weeks=1)
                continue
            rate = round(rate0 * 1.03 ** (w.year - first.year), 2)
            h = round(40 + min(24.0, rng.gammavariate(2, 3)) + 0.25, 2) if rng.random() < p_ot else round(
                rng.uniform(30, 40) * 4) / 4
            pay.append([emp, name, w.isoformat(), f"{h:.2f}", f"{rate:.2f}", f"{h * rate:.2f}"])
            w += dt.timedelta(weeks=1)
        q = dt.date(hired.year, (hired.month - 1) // 3 * 3 + 1, 1)
        while True:
            nq = dt.date(q.year + (q.month == 10), q.month % 12 + 3 if q.month != 10 else 1, 1)
            paid = nq + dt.timedelta(days=rng.randint(9, 29))
            if nq > last:
                break
            if rng.random() < 0.85:
                bon.append([emp, "Quarterly production bonus", f"{q.year}Q{(q.month + 2) // 3}", paid.isoformat(),
                            f"{math.exp(rng.gauss(math.log(450), 0.4)):.2f}"])
            if q.month == 10 and rng.random() < 0.6:
                bon.append([emp, "Discretionary holiday bonus", f"{q.year}Q4",
                            dt.date(q.year, 12, rng.randint(12, 20)).isoformat(), f"{rng.randint(10, 40) * 10:.2f}"])
            q = nq
    P["_emps"] = emps
    return {"payroll": pay, "bonuses": bon}


def _consents(rng: random.Random, P: dict[str, Any]) -> list[list[str]]:
    complaint = dt.date.fromisoformat(P["complaint_filed"])
    emps = P.pop("_emps")
    picks = rng.sample(emps, rng.randint(9, 15))
    rows = []
    for i, (emp, name) in enumerate(picks):
        when = complaint + dt.timedelta(days=rng.randint(3, 25) if i == 0 else rng.randint(40, 260))
        rows.append([emp, name, "Named plaintiff" if i == 0 else "Opt-in plaintiff", when.isoformat(),
                     f"ECF No. {rng.randint(2, 140)}", ""])
    out = rows[-1]
    out[5] = (dt.date.fromisoformat(out[3]) + dt.timedelta(days=rng.randint(20, 90))).isoformat()
    rows.sort(key=lambda r: r[3])
    P["named"] = rows[0][1]
    P["withdrawn_id"] = out[0]
    return rows


def _protocol(P: dict[str, Any], current: bool) -> list[str]:
    if not current:
        return ["FLSA overtime damages protocol (2022; archived, replaced by the current protocol)",
                "- Recovery period: two years back from the date the complaint was filed, for every plaintiff.",
                "- Bonuses: add a bonus to the regular rate of the workweek in which it was paid.",
                "- Overtime due: half the regular rate for each hour over 40.",
                "- Liquidated damages: an equal amount."]
    return [
        f"FLSA overtime damages protocol (current, adopted {P['protocol_year']}; replaces the 2022 protocol)",
        "- Regular rate (29 C.F.R. 778.109): for each workweek, the straight-time pay for all hours worked plus the "
        "nondiscretionary bonus pay allocated to that workweek, divided by the hours worked in it.",
        "- Bonuses (29 C.F.R. 778.209): a nondiscretionary bonus earned over a quarter is allocated in equal shares to "
        "the employee's workweeks that end within that quarter (every such workweek in the payroll export, whether or "
        "not it falls inside the recovery period), never to the week it happened to be paid. Discretionary bonuses "
        "(29 C.F.R. 778.211; the holiday bonus per the client's handbook) are excluded from the regular rate.",
        "- Overtime due: where straight time was already paid for every hour, the unpaid amount is the half-time "
        "premium only: 0.5 x regular rate x (hours worked - 40) for each workweek over 40 hours.",
        "- Recovery period (29 U.S.C. 255(a), 256): two years absent a finding of willfulness (three years only after "
        "such a finding). For every plaintiff, named plaintiffs included, the action commences on the date that "
        "plaintiff's written consent is filed, not the complaint's date. A workweek is recoverable when its "
        "week-ending date is on or after the same calendar day two years before the consent filing date; the period "
        "runs through the last workweek in the payroll export (the employer changed its pay practice after it). "
        "Count every recoverable workweek in the export, with or without overtime.",
        "- Plaintiffs: every person whose consent is on file and has not been withdrawn; a withdrawn consent "
        "removes that person from the computation.",
        "- Liquidated damages (29 U.S.C. 216(b), 260): an additional amount equal to the back wages.",
        "- Prejudgment interest: simple interest at the stipulated rate on each workweek's unpaid amount from its "
        "week-ending date to the stipulated accrual date, days / 365. FLSA liquidated damages compensate for delay, "
        "so interest is not added to them (Brooklyn Savings Bank v. O'Neil): report interest as the alternative "
        "recovery if liquidated damages are denied, and the total recoverable as back wages plus liquidated damages.",
        "- Rounding: sum each plaintiff's unrounded weekly amounts and round the plaintiff's back wages and interest "
        "to the cent (half up); totals are sums of the rounded per-plaintiff figures. Compare figures within $1."]


def _workspace(rng: random.Random, P: dict[str, Any], data: dict[str, Any], cons: list[list[str]],
               opp: list[list[Any]], err: str, dirs: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    out: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        out[name], roles[name] = writer, role

    F, co, cap = P["files"], P["company"], P["caption"]
    add(F["payroll"], "data", lambda p: write_csv(p, ["employee_id", "employee_name", "week_ending", "hours_worked",
                                                      "hourly_rate", "straight_time_pay"], data["payroll"]))
    add(F["bonuses"], "data", lambda p: write_csv(p, ["employee_id", "bonus_type", "earned_quarter", "paid_date",
                                                      "amount"], data["bonuses"]))
    add(F["consents"], "data", lambda p: write_csv(p, ["employee_id", "name", "role", "consent_filed", "docket",
                                                       "withdrawn"], cons))
    notes = {"none": "Regular rate includes quarterly bonuses allocated over the quarter's workweeks. Period: two "
                     "years before each plaintiff's consent filing.",
             "no_bonus": "Regular rate: the hourly rate in payroll. Period: two years before each plaintiff's consent "
                         "filing.",
             "bonus_week": "Regular rate includes each quarterly bonus in the workweek in which it was paid. Period: "
                           "two years before each plaintiff's consent filing.",
             "calc_date": f"Regular rate includes quarterly bonuses allocated over the quarter. Period: two years "
                          f"preceding the date of this calculation ({P['opposing_date']})."}[err]
    add(F["opposing"], "conflict", lambda p: write_xlsx(p, [
        (P["opposing_sheet"], ["employee_id", "name", "weeks", "back_wages", "liquidated", "interest"], opp),
        ("Notes", ["note"], [[f"Defendant's damages calculation, {cap}, prepared {P['opposing_date']}."], [notes],
                             ["Half-time premium for hours over 40; liquidated damages equal to back wages."]])]))
    pl, cd = dirs["pleadings"], P["complaint_filed"]
    add(f"{pl}/complaint_{cd}.pdf", "reference", lambda p: write_pdf(p, f"{cap} - Collective Action Complaint", [
        f"Filed {cd} in the United States District Court. Plaintiff {P['named']} brings this action on behalf of "
        f"all similarly situated hourly employees of {co} under 29 U.S.C. 216(b).",
        "Defendant paid straight time for hours over 40 and left its quarterly production bonuses out of the "
        "regular rate. Defendant's violations were willful, and a three-year limitations period applies.",
        "Plaintiffs seek unpaid overtime, liquidated damages, prejudgment interest, fees and costs."]))
    add(f"{pl}/order_summary_judgment_{P['order_date']}.pdf", "policy", lambda p: write_pdf(p, "Order on cross-motions", [
        f"{cap}. Entered {P['order_date']}.",
        "Liability for unpaid overtime is established. The Court makes no finding that the violations were willful; "
        "plaintiffs' request for a three-year period is denied without prejudice. Damages are to be computed under the "
        "two-year period of 29 U.S.C. 255(a).", "The parties shall exchange damages calculations before mediation."]))
    add(f"{pl}/stipulation_prejudgment_interest.pdf", "policy", lambda p: write_pdf(p, "Stipulation on interest", [
        f"{cap}. The parties stipulate that any prejudgment interest is simple interest at {P['interest_rate']:g}% per "
        f"annum, accruing from each workweek's week-ending date through {P['interest_through']}."]))
    add(f"{pl}/order_conditional_certification.pdf", "distractor", lambda p: write_pdf(p, "Order granting conditional "
        "certification", [f"{cap}. Notice to hourly production employees employed within three years; consents due "
                          "within 90 days of mailing."]))
    add("firm/protocols/flsa_damages_protocol.docx", "policy",
        lambda p: write_docx(p, "FLSA overtime damages protocol", _protocol(P, True)))
    add("firm/protocols/archive/flsa_damages_protocol_2022.pdf", "stale",
        lambda p: write_pdf(p, "FLSA overtime damages protocol (2022)", _protocol(P, False)))
    add(f"client_docs/handbook/{co.split()[0].lower()}_bonus_policy.pdf", "policy", lambda p: write_pdf(
        p, f"{co} employee handbook - section 6.4 Bonuses", [
            "Quarterly production bonus: paid to hourly production employees after each calendar quarter by the "
            "published formula (units over target x bonus rate). Employees who meet the formula receive it.",
            "Holiday bonus: a discretionary gift; whether it is paid, and its amount, are at the company's sole "
            "discretion each December and are not promised in advance."]))
    roster = [[e, n, rng.choice(("Production Associate", "Line Lead", "Material Handler", "Machine Operator"))]
              for e, n in {(r[0], r[1]) for r in data["payroll"]}]
    roster.sort()
    add(f"{dirs['payroll']}/employee_roster.csv", "distractor",
        lambda p: write_csv(p, ["employee_id", "name", "job_title"], roster))
    add(f"{dirs['payroll']}/earnings_codes.csv", "distractor", lambda p: write_csv(p, ["code", "description"], [
        ["REG", "Regular hours"], ["OTS", "Hours over 40 at straight time"], ["QPB", "Quarterly production bonus"],
        ["HOL", "Discretionary holiday bonus"], ["PTO", "Paid time off (not hours worked)"]]))
    c = dirs["corr"]
    dc = person(rng)
    add(f"{c}/{P['opposing_date']}_defense_counsel_damages.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{dc}, counsel for {co}", to="plaintiffs' counsel", date=P["opposing_date"],
        subject=f"{cap} - damages calculation and offer",
        body=f"Attached is defendant's damages calculation. To resolve the FLSA claims of all plaintiffs, {co} offers "
             f"${P['offer']:,.0f} inclusive of back wages and liquidated damages (fees to be addressed separately).")))
    add(f"{c}/{P['order_date']}_client_update.txt", "distractor", lambda p: write_text(p, email_text(
        sender=P["requester"], to="plaintiffs", date=P["order_date"], subject="Case update",
        body="The court ruled on liability in your favour. We are now working out the amounts owed to each of you.")))
    add(f"notes/{P['opposing_date']}_team_meeting.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{cap} mediation prep", people=[P["requester"], person(rng), person(rng)], date=P["opposing_date"])))
    return out, roles


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.flsa import analyse

    prof = dataclasses.replace(profession(occupation), occasions=(
        "opposing counsel produced new figures", "the mediation is in two weeks", "the client meeting is on Wednesday"),
        orgs=("a plaintiffs' employment law firm", "a wage-and-hour litigation boutique",
              "a workers' rights law firm's litigation group"))
    dirs = pick_labels(rng, _DIRS)
    complaint = dt.date(2024, rng.randint(1, 12), rng.randint(1, 28))
    changed = complaint + dt.timedelta(days=rng.randint(300, 420))
    opp_date = changed + dt.timedelta(days=rng.randint(20, 60))
    co = rng.choice(("Keystone Plastics Inc.", "Riverbend Foods LLC", "Apex Fulfillment Corp.", "Midland Castings Inc.",
                     "Harbor Packaging Co."))
    P: dict[str, Any] = {
        "complaint_filed": complaint.isoformat(), "practice_changed": changed.isoformat(),
        "opposing_date": opp_date.isoformat(), "order_date": (opp_date - dt.timedelta(days=rng.randint(30, 80))).isoformat(),
        "interest_through": (opp_date + dt.timedelta(days=rng.randint(30, 90))).isoformat(),
        "interest_rate": rng.choice((4.0, 5.0, 6.0, 7.5, 9.0)), "company": co, "protocol_year": rng.choice((2024, 2025)),
        "opposing_sheet": rng.choice(("Damages", "Calculation", "Summary")), "requester": person(rng),
        "files": {"payroll": f"{dirs['payroll']}/payroll_weekly_export.csv",
                  "bonuses": f"{dirs['payroll']}/bonus_register.csv",
                  "consents": f"{dirs['pleadings']}/consents/consents_filed.csv",
                  "opposing": f"{dirs['corr']}/defendant_damages_calc_{opp_date.isoformat()}.xlsx"},
        "out_columns": pick_labels(rng, _OUT), "offer": 0.0,
        "deliverables": {"memo": rng.choice(("damages_letter.docx", "letter_to_defense_counsel.docx",
                                               "flsa_damages_letter.docx")),
                         "table": rng.choice(("damages_by_plaintiff.csv", "plaintiff_damages.csv", "flsa_damages.csv"))}}
    data = _data(rng, P)
    cons = _consents(rng, P)
    P["caption"] = f"{P['named'].split()[-1]} v. {co}"
    err = "none" if targets["premise"] else rng.choice(("no_bonus", "bonus_week", "calc_date"))
    writers, _ = _workspace(rng, P, data, cons, [], err, dirs)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        core = {F: writers[F] for F in (P["files"]["payroll"], P["files"]["bonuses"], P["files"]["consents"])}
        write_files(Path(tmp), core)
        from ..solvers.flsa import damages, load
        loaded = load(tmp, P)
        theirs = damages(loaded, P, () if err == "none" else (err,))
        opp = [[r["id"], r["name"], r["weeks"], r["back_wages"], r["liquidated"], r["interest"]] for r in theirs]
        mine = damages(loaded, P)
        total = sum(r["back_wages"] * 2 for r in mine)
        P["offer"] = float(math.ceil(total * rng.uniform(1.01, 1.08) / 500) * 500 if targets["decision"]
                           else math.floor(total * rng.uniform(0.82, 0.97) / 500) * 500)
        writers, roles = _workspace(rng, P, data, cons, opp, err, dirs)
        write_files(Path(tmp), {P["files"]["opposing"]: writers[P["files"]["opposing"]]})
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    if truth["decision"] != targets["decision"] or truth["premise"] != targets["premise"] or truth["opposing_error"] != err:
        raise DegenerateTask("the targets are missed")
    keys = ("plaintiffs", "named_back_wages", "total_back_wages", "total_interest", "total_recoverable", "rows")
    traps = [{"kind": s, "where": w, "description": d, "naive": s} for s, (w, d) in {
        "bonus_week": ("memo", "a quarterly bonus is spread over the workweeks of its quarter, not the week paid"),
        "discretionary": ("footnote", "the handbook makes the holiday bonus discretionary: out of the regular rate"),
        "complaint_date": ("memo", "each plaintiff's period runs back from their own consent filing, not the complaint"),
        "three_year": ("data", "the complaint pleads willfulness but the order makes no finding: two years"),
        "time_and_half": ("memo", "straight time was paid for every hour: only the half-time premium is owed"),
        "interest_stacked": ("memo", "interest is the alternative to liquidated damages, not added to them"),
        "withdrawn": ("data", "an opt-in withdrew consent"),
    }.items() if any(singles[s][k] != truth[k] for k in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    P["labels"] = labels
    P["error_words"] = {k: rng.choice(v) for k, v in _ERRORS.items()}
    L, D, C, E = labels, P["deliverables"], P["out_columns"], P["error_words"]
    money = "US dollars, 2 decimals"
    memo_labels = [(L["plaintiffs"], "whole number"), (L["named"], money), (L["back_wages"], money),
                   (L["liquidated"], money), (L["interest"], money), (L["recoverable"], money),
                   (L["error"], "one of: " + "; ".join(E[k] for k in ("no_bonus", "bonus_week", "calc_date", "none"))),
                   (L["premise"], "yes or no"), (L["decision"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=P["requester"], role="Supervising Partner",
        org=rng.choice(prof.orgs), subject=f"{P['caption']}: overtime damages",
        purpose=rng.choice(("please recompute overtime, liquidated damages and interest for the plaintiffs and tell "
                            "me where defense counsel's numbers go wrong.",
                            "I need our own FLSA damages figures for every plaintiff before we answer defendant's offer.",
                            "can you redo the back-wage calculation for the opt-ins and check it against theirs?")),
        about=f"{co}'s payroll export and bonus register, the consents on file and defense counsel's workbook",
        belief=f"Their back-wage total looks about right to me (the named plaintiff is {P['named']}); confirm it so "
               "we can focus on liquidated damages and the offer.",
        table={"file": D["table"], "headers": [C[k] for k in ("id", "name", "consent", "weeks", "back_wages", "liquidated",
                                                              "interest", "total")],
               "unit": "plaintiff in the computation (amounts in dollars to the cent; total = back wages plus "
                       "liquidated damages)"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"{D['memo']} is our letter to defense counsel: after its labelled totals, each "
                            "plaintiff's figures, our method, where their calculation goes wrong, and our position on "
                            f"the ${P['offer']:,.0f} offer (it covers the full recovery only if it is at least the total "
                            "recoverable).",),
        policy="the firm's FLSA damages protocol in firm/protocols/", files=sorted(writers))
    return Draft(subject=f"FLSA damages {P['caption']}", instructions=prompt, files=writers, roles=roles, params=P,
                 traps=traps, targets=dict(targets),
                 distributions="18-28 hourly employees over 3.5-4 years of weeks (3,500-5,500 payroll rows); overtime "
                               "weeks 20-60 % per employee with gamma(2, 3) extra hours; rates uniform 16-30 $/h, +3 % "
                               "a year; quarterly bonus lognormal median $450 in 85 % of quarters; holiday bonus "
                               "$100-400 for 60 %; 9-15 consents, one withdrawn")


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, IdsCheck, RowCountCheck

    D, L, C, E = P["deliverables"], P["labels"], P["out_columns"], P["error_words"]
    letter, table = D["memo"], D["table"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def num(key: str, fact: str) -> tuple[str, Any]:
        return (f"{letter}: {L[key]} = {facts[fact]:.2f}",
                FieldCheck(file=letter, label=L[key], number=float(facts[fact]), tolerance=1.0))

    def cell(r: dict[str, Any], col: str, tol: float) -> tuple[str, Any]:
        return (f"{table}: {r['id']} {C[col]} = {r[col]}",
                CellCheck(file=table, match={C["id"]: r["id"]}, column=C[col], value=float(r[col]), tolerance=tol))

    rows = facts["rows"]
    out = [
        rubric("Computes each plaintiff's back wages at half the regular rate, quarterly bonuses spread over their "
               "quarter and the discretionary bonus left out", 10, [*[cell(r, "back_wages", 1.0) for r in rows],
                                                                    num("back_wages", "total_back_wages")]),
        rubric("Measures two years back from each plaintiff's own consent filing date", 10, [
            *[cell(r, "weeks", 0.0) for r in rows], num("named", "named_back_wages")]),
        rubric("Leaves out the plaintiff whose consent was withdrawn", 8, [
            (f"{table} has {len(rows)} rows", RowCountCheck(file=table, key=C["id"], count=len(rows))),
            (f"{table} does not list {P['withdrawn_id']}", IdsCheck(file=table, ids=[P["withdrawn_id"]], present="none")),
            (f"{letter}: {L['plaintiffs']} = {facts['plaintiffs']}",
             FieldCheck(file=letter, label=L["plaintiffs"], number=float(facts["plaintiffs"]), tolerance=0.0))]),
        rubric("Adds equal liquidated damages and computes simple interest at the stipulated rate", 8, [
            num("liquidated", "total_liquidated"), num("interest", "total_interest"),
            *[cell(r, "interest", 1.0) for r in rows[:3]]]),
        rubric("Totals the recovery without stacking interest on liquidated damages and answers the offer", 8, [
            num("recoverable", "total_recoverable"),
            (f"{letter}: {L['decision']}: {yes(facts['decision'])}",
             fld(letter, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Finds where defense counsel's calculation goes wrong", 8, [
            (f"{letter}: {L['premise']}: {yes(facts['premise'])}",
             fld(letter, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            (f"{letter}: {L['error']}: {E[facts['opposing_error']] if facts['opposing_error'] in E else 'other'}",
             fld(letter, L["error"], E.get(facts["opposing_error"], "other"), sorted(E.values())))]),
    ]
    if judgement:
        out.append(rubric("Writes a letter defense counsel can act on", 6, [
            ("Sets out each plaintiff's figures and the method", llm("content")),
            ("Explains the error in defendant's calculation and the limitations period", llm("explanation")),
            ("States the position on the offer plainly", llm("writing"))]))
    return out


FLSA_OVERTIME = Workflow(
    key="flsa_overtime_damages", family="wage_and_hour_litigation",
    method="FLSA regular rate with nondiscretionary quarterly bonuses allocated over the quarter's workweeks (29 CFR "
           "778.209), half-time premium for hours over 40, two-year period from each consent filing (29 USC 255, 256), "
           "liquidated damages equal to back wages, simple prejudgment interest as the alternative",
    professions=("lawyers",), solver="flsa", shortcuts=SHORTCUTS, draw=draw, recheck=recheck, rubrics=rubrics,
    data="generated payroll export, bonus register, consents and pleadings (stated distributions)")
