"""Outage credits and bill corrections for a batch of escalated accounts (customer service representatives at a
broadband provider).

One billing cycle (a calendar month: February or a 31-day month) and 14-22 escalated accounts. Plans carry a
monthly recurring charge (MRC) of 39.99-129.99; sales tax is 6-10 % of the MRC. About 60 % of the escalated
accounts have an outage ticket, its length gamma-distributed (shape 2, mean about 30 h); two or three accounts have
a second, overlapping ticket for the same outage (opened by another agent), one of them a single 14-20 h outage whose
two tickets add to over 24 h, and one outage of 24.5-43 h began 8-20 h before the cycle (6-23 h inside it). Two or three accounts downgraded their plan mid-cycle (day 5-25) and were billed the
old MRC for the whole cycle. About 35 % of bills (and one downgraded account's) carry a 10.00 late fee. Three or four agents' CRM notes promise
goodwill of 10-50 USD, at least one above and one at or below the 25.00 cap.

Failure behaviour: ``draw`` raises DegenerateTask when no escalated outage reaches 24 hours, no account has two
adjustments or the premise misses its target; ``recheck`` raises OSError, KeyError or ValueError on a folder that is
not this workflow's (``recheck_task`` reports that as one problem).
"""

from __future__ import annotations

import calendar
import csv
import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, write_files

__all__ = ["OUTAGE_CREDITS"]

_PLANS = {"NET100": ("Internet 100", 39.99), "NET300": ("Internet 300", 54.99), "NET1G": ("Gig Fiber", 79.99),
          "BUNDLE": ("Internet + TV", 129.99), "NET500": ("Internet 500", 64.99)}
_LABELS = {
    "total": ("Total adjustments (USD)", "Total credited this batch", "Batch credit total"),
    "named": ("Credit for account {acct}", "Account {acct} credit", "Adjustment total, account {acct}"),
    "ineligible": ("Outage escalations not eligible", "Outages under 24 hours (no credit)", "Ineligible outage claims"),
    "fees": ("Late fees reversed (USD)", "Late fee reversals", "Total late fees reversed"),
    "flagged": ("Goodwill credits needing approval", "Goodwill flagged for approval", "Goodwill over the cap"),
    "decision": ("Within my credit authority", "Batch within the manager's authority", "No director sign-off needed"),
    "premise": ("Account {acct} offline 24 hours or more", "Account {acct} outage reached 24 hours",
                "Account {acct} eligible for an outage credit"),
}
_CODES = {"outage": ("OUTCR", "CR-OUT", "SVC_CREDIT"), "proration": ("PRORA", "CR-PLN", "PLAN_ADJ"),
          "late_fee": ("LFREV", "CR-LF", "FEE_REV"), "goodwill": ("GDWL", "CR-GW", "GOODWILL")}
_COLS = (["account_id", "adj_code", "amount", "cycle", "approval_required", "memo"],
         ["acct", "code", "amount", "bill_cycle", "approval_flag", "note"])
_DIRS = {"billing": ("billing", "billing_exports", "bss"), "network": ("network", "noc", "outages"),
         "crm": ("crm", "care", "crm_exports"), "policy": ("policies", "tariff", "care_manual")}


def _ts(d: dt.datetime) -> str:
    return d.strftime("%Y-%m-%dT%H:%M")


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """The graded facts with the csv module: per account the union of its outage intervals, the cycle's true length,
    the MRC ex-tax, the downgrade's remaining days, fees on corrected bills and goodwill capped at the tariff's cap."""
    folder, F = Path(folder), P["files"]

    def rows(rel: str) -> list[dict[str, str]]:
        with (folder / rel).open(newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    y, m = int(P["cycle"][:4]), int(P["cycle"][5:])
    ndays = calendar.monthrange(y, m)[1]
    mrc = {r["account_id"]: float(r["mrc"]) for r in rows(F["accounts"])}
    bill: dict[tuple[str, str], float] = {}
    for r in rows(F["bills"]):
        if r["cycle"] == P["cycle"]:
            bill[(r["account_id"], r["line_type"])] = bill.get((r["account_id"], r["line_type"]), 0.0) + float(r["amount"])
    tick: dict[str, list[tuple[dt.datetime, dt.datetime]]] = {}
    for r in rows(F["outages"]):
        tick.setdefault(r["account_id"], []).append((dt.datetime.fromisoformat(r["start"]), dt.datetime.fromisoformat(r["end"])))

    def hours(acct: str) -> float:
        cover: set[int] = set()  # minutes offline, so overlaps count once
        for a, b in tick.get(acct, []):
            t0 = int(a.timestamp() // 60)
            cover.update(range(t0, t0 + int((b - a).total_seconds() // 60)))
        return len(cover) / 60

    per: dict[str, float] = {}
    by_code: dict[str, float] = {}
    C = P["codes"]

    def post(acct: str, code: str, amount: float) -> float:
        by_code[f"{acct}|{code}"] = rnd(by_code.get(f"{acct}|{code}", 0.0) + amount, 2)
        return amount

    ineligible = flagged = 0
    fees = 0.0
    for acct in [r["account_id"] for r in rows(F["escalations"])]:
        got, wrong = 0.0, False
        if acct in tick:
            h = hours(acct)
            if h >= P["min_hours"]:
                got += post(acct, C["outage"], rnd(min(mrc[acct], mrc[acct] / ndays * math.ceil(h / 24 - 1e-9)), 2))
                wrong = True
            else:
                ineligible += 1
        for r in rows(F["changes"]):
            d = dt.date.fromisoformat(r["effective_date"][:10])
            if r["account_id"] == acct and (d.year, d.month) == (y, m):
                amt = rnd((bill.get((acct, "MRC"), 0.0) - float(r["new_mrc"])) * (ndays - d.day + 1) / ndays, 2)
                if amt > 0:
                    got, wrong = got + post(acct, C["proration"], amt), True
        if wrong and bill.get((acct, "LATE_FEE")):
            got += post(acct, C["late_fee"], bill[(acct, "LATE_FEE")])
            fees += bill[(acct, "LATE_FEE")]
        for r in rows(F["crm"]):
            g = float(r["goodwill_promised"] or 0)
            if r["account_id"] == acct and g > 0:
                got += post(acct, C["goodwill"], min(g, P["goodwill_cap"]))
                flagged += g > P["goodwill_cap"]
        if got:
            per[acct] = rnd(got, 2)
    total = rnd(sum(per.values()), 2)
    return {"per_account": per, "total": total, "ineligible_n": ineligible, "flagged_n": flagged,
            "fees_reversed": rnd(fees, 2), "named_credit": per.get(P["named_account"], 0.0),
            "decision": total <= P["authority"], "premise": hours(P["premise_account"]) >= P["min_hours"], "by_code": by_code}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _hours(rng: random.Random, lo: float, hi: float) -> float:
    """An outage length in whole minutes, kept away from the 24-hour steps the credit rounds at."""
    for _ in range(50):
        h = min(max(rng.gammavariate(2, 15), lo), hi)
        h = round(h * 60) / 60
        if abs(h / 24 - round(h / 24)) * 24 > 0.5:
            return h
    raise DegenerateTask("no outage length away from a day boundary")


def _book(rng: random.Random) -> dict[str, Any]:
    year = rng.choice((2024, 2025))
    month = 2 if rng.random() < 0.4 else rng.choice((1, 3, 5, 7, 8, 10, 12))
    ndays = calendar.monthrange(year, month)[1]
    start = dt.datetime(year, month, 1)
    rate = rng.choice((0.06, 0.0625, 0.07, 0.0725, 0.08, 0.0875, 0.1))
    n = rng.randint(14, 22)
    ids = [f"ACC-{x}" for x in rng.sample(range(100000, 999999), n + 6)]
    plans = {a: rng.choice(sorted(_PLANS)) for a in ids}
    esc = ids[:n]
    down = rng.sample(esc, rng.randint(2, 3))
    changes: list[dict[str, Any]] = []
    for a in down:
        new = rng.choice([p for p in _PLANS if _PLANS[p][1] < 100])
        old = rng.choice([p for p in _PLANS if _PLANS[p][1] > _PLANS[new][1]])
        plans[a] = new
        changes.append({"account": a, "date": dt.date(year, month, rng.randint(5, 25)), "old": old, "new": new})
    rest = [a for a in esc if a not in down]
    with_out = rng.sample(rest, max(4, round(len(rest) * 0.6)))
    tickets: list[dict[str, Any]] = []
    for a in with_out:
        h = _hours(rng, 2, 80)
        t0 = start + dt.timedelta(minutes=rng.randint(0, (ndays - 5) * 1440))
        tickets.append({"account": a, "start": t0, "end": t0 + dt.timedelta(hours=h)})
    planted, across = rng.sample(with_out, 2)
    pre = rng.randint(8 * 60, 20 * 60)  # minutes before the cycle start; after it, under a day, 24.5-43 h in all
    post = rng.randint(max(6 * 60, 24 * 60 + 31 - pre), 23 * 60)
    t = next(x for x in tickets if x["account"] == across)
    t["start"], t["end"] = start - dt.timedelta(minutes=pre), start + dt.timedelta(minutes=post)
    t = next(x for x in tickets if x["account"] == planted)
    t["end"] = t["start"] + dt.timedelta(minutes=rng.randint(14 * 60, 20 * 60))
    shift = dt.timedelta(minutes=rng.randint(2 * 60, 5 * 60))
    dup_end = t["end"] + dt.timedelta(minutes=rng.randint(5, 50))
    if (t["end"] - t["start"]) + (dup_end - t["start"] - shift) < dt.timedelta(hours=24.5):
        raise DegenerateTask("the duplicate tickets do not add past a day")
    tickets.append({"account": planted, "start": t["start"] + shift, "end": dup_end})
    for x in rng.sample([x for x in tickets if x["account"] not in (planted, across)], rng.randint(1, 2)):
        s2 = x["start"] + dt.timedelta(minutes=rng.randint(30, 240))
        if s2 < x["end"]:
            tickets.append({"account": x["account"], "start": s2, "end": x["end"] + dt.timedelta(minutes=rng.randint(0, 90))})
    for a in ids[n:]:  # other customers on the same node, not escalated
        t0 = start + dt.timedelta(minutes=rng.randint(0, (ndays - 5) * 1440))
        tickets.append({"account": a, "start": t0, "end": t0 + dt.timedelta(hours=_hours(rng, 2, 60))})
    promised = {a: rng.choice((10, 15, 20, 25, 30, 40, 50)) for a in rng.sample(esc, rng.randint(3, 4))}
    keys = sorted(promised)
    if not any(v > 25 for v in promised.values()):  # at least one promise on each side of the cap
        promised[keys[0]] = rng.choice((30, 40, 50))
    if not any(v <= 25 for v in promised.values()):
        promised[keys[-1]] = rng.choice((10, 15, 20))
    fees = {a for a in esc if rng.random() < 0.35} | {down[0]}  # a downgraded (corrected) bill carries a late fee
    billed = {a: _PLANS[next((c["old"] for c in changes if c["account"] == a), plans[a])][1] for a in ids}
    return {"year": year, "month": month, "ndays": ndays, "rate": rate, "ids": ids, "esc": esc, "plans": plans,
            "changes": changes, "tickets": tickets, "planted": planted, "promised": promised, "fees": fees,
            "billed": billed, "with_out": with_out, "across": across}


def _data(P: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    F, cyc = P["files"], P["cycle"]
    bills = []
    for a in b["ids"]:
        bills.append([a, cyc, "MRC", f"{b['billed'][a]:.2f}"])
        bills.append([a, cyc, "TAX", f"{rnd(b['billed'][a] * b['rate'], 2):.2f}"])
        if a in b["fees"]:
            bills.append([a, cyc, "LATE_FEE", "10.00"])
    tickets = sorted(b["tickets"], key=lambda x: x["start"])
    return {
        F["accounts"]: lambda p: write_csv(p, ["account_id", "plan_code", "plan_name", "mrc", "status"], [
            [a, b["plans"][a], _PLANS[b["plans"][a]][0], f"{_PLANS[b['plans'][a]][1]:.2f}", "active"] for a in b["ids"]]),
        F["bills"]: lambda p: write_csv(p, ["account_id", "cycle", "line_type", "amount"], bills),
        F["outages"]: lambda p: write_csv(p, ["ticket_id", "account_id", "start", "end", "cause"], [
            [f"INC{700000 + k * 37}", x["account"], _ts(x["start"]), _ts(x["end"]), "node outage"]
            for k, x in enumerate(tickets)]),
        F["changes"]: lambda p: write_csv(p, ["account_id", "effective_date", "old_plan", "new_plan", "old_mrc", "new_mrc"], [
            [c["account"], c["date"].isoformat(), c["old"], c["new"], f"{_PLANS[c['old']][1]:.2f}",
             f"{_PLANS[c['new']][1]:.2f}"] for c in b["changes"]]),
        F["crm"]: lambda p: write_csv(p, ["account_id", "agent", "note", "goodwill_promised"], [
            [a, person(random.Random(a)), f"Customer upset; I promised a {v} dollar goodwill credit.", f"{v:.2f}"]
            for a, v in sorted(b["promised"].items())]),
        F["escalations"]: lambda p: write_csv(p, ["case_id", "account_id", "reason"], [
            [f"CASE-{4100 + k}", a, "billing dispute / outage"] for k, a in enumerate(b["esc"])]),
    }


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.outage import analyse, merged_hours

    b = _book(rng)
    cyc = f"{b['year']}-{b['month']:02d}"
    dirs = pick_labels(rng, _DIRS)
    codes = pick_labels(rng, _CODES)
    cols = list(rng.choice(_COLS))
    P: dict[str, Any] = {
        "files": {"accounts": f"{dirs['billing']}/accounts_{cyc}.csv", "bills": f"{dirs['billing']}/bill_lines_{cyc}.csv",
                  "outages": f"{dirs['network']}/outage_tickets_{cyc}.csv", "changes": f"{dirs['billing']}/plan_changes.csv",
                  "crm": f"{dirs['crm']}/crm_notes_{cyc}.csv", "escalations": f"{dirs['crm']}/escalations_{cyc}.csv"},
        "dirs": dirs, "cycle": cyc, "codes": codes, "upload_columns": cols, "min_hours": 24, "goodwill_cap": 25.0,
        "authority": 0.0, "named_account": "", "premise_account": "", "labels": {},
        "deliverables": {"upload": rng.choice((f"billing_adjustments_{cyc}.csv", "adjustment_upload.csv")),
                         "memo": rng.choice(("escalation_replies.md", f"credits_{cyc}.md"))}}
    eligible = [a for a in b["with_out"] if a != b["planted"] and merged_hours(
        [(_ts(x["start"]), _ts(x["end"])) for x in b["tickets"] if x["account"] == a]) >= 24]
    if not eligible:
        raise DegenerateTask("no escalated outage reaches 24 hours")
    P["premise_account"] = rng.choice(eligible) if targets["premise"] else b["planted"]
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), _data(P, b))
        P["authority"] = 1.0
        first = analyse(tmp, P)
        multi = [a for a in sorted(first["per_account"]) if a != P["premise_account"]
                 and sum(k.startswith(a + "|") for k in first["by_code"]) >= 2]
        if not multi:
            raise DegenerateTask("no account has more than one adjustment")
        P["named_account"] = rng.choice(multi)
        truth = analyse(tmp, P)
    if targets["premise"] != truth["premise"] or truth["named_credit"] <= 0:
        raise DegenerateTask("the premise account or the named account is off target")
    tot = truth["total"]
    P["authority"] = nice_between(tot * 1.03, tot * 1.3, 2) if targets["decision"] else nice_between(tot * 0.7, tot * 0.97, 2)
    labels = pick_labels(rng, _LABELS)
    labels["named"] = labels["named"].format(acct=P["named_account"])
    labels["premise"] = labels["premise"].format(acct=P["premise_account"])
    P["labels"] = labels
    P["probe"] = {"outage": next((a for a in eligible if f"{a}|{codes['outage']}" in truth["by_code"]
                                  and sum(x["account"] == a for x in b["tickets"]) == 1), eligible[0]),
                  "proration": b["changes"][0]["account"],
                  "goodwill": next(a for a, v in sorted(b["promised"].items()) if v > 25),
                  "planted": b["planted"], "across": b["across"]}
    traps = [{"kind": "duplicate_tickets", "where": "data", "naive": "duplicates",
              "description": f"account {b['planted']} has two tickets for one outage under 24 h"},
             {"kind": "across_cycles", "where": "memo", "naive": "clip_cycle",
              "description": f"account {b['across']}'s outage began in the previous cycle"},
             {"kind": "cycle_length", "where": "memo", "naive": "thirty_day",
              "description": f"the {cyc} cycle has {b['ndays']} days, not 30"},
             {"kind": "tax", "where": "memo", "naive": "tax", "description": "credits exclude tax"},
             {"kind": "goodwill_cap", "where": "data", "naive": "goodwill",
              "description": "goodwill over 25.00 is capped and flagged for approval"},
             {"kind": "late_fee", "where": "memo", "naive": "late_fees",
              "description": "late fees on bills in error are reversed"}]
    writers, roles = _workspace(rng, P, b)
    return Draft(subject=f"Outage credits and bill corrections, {cyc}", instructions=_prompt(rng, P, b, writers),
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="14-22 escalations; MRC 39.99-129.99; tax 6-10 %; outage hours gamma(2, 15) in 2-80 h; "
                               "2-3 duplicate tickets; 2-3 mid-cycle downgrades; late fee p 0.35; 3-4 goodwill "
                               "promises of 10-50")


def _policy(current: bool, cap: float) -> list[str]:
    if not current:
        return ["Service credit policy (2019, superseded)",
                "- Outages of 48 hours or more earn a credit of MRC / 30 per full day, including tax.",
                "- Agents may give goodwill credits of any amount they consider fair."]
    return ["Tariff section 7 - service credits and billing adjustments (current)",
            "- Outage credit: an outage of 24 hours or more earns, for each 24-hour period or part of one, the monthly "
            "recurring charge (MRC) divided by the number of days in the billing cycle (28 or 29 in February, 31 in a "
            "31-day month); never more than one MRC per cycle.",
            "- Tickets for the same account whose times overlap are one outage: count the time offline once.",
            "- An outage that began in the previous cycle is credited in full in the cycle in which service was "
            "restored: all of its hours count, at that cycle's MRC and number of days.",
            "- Plan changes take effect on their effective date: a cycle billed at the old MRC is credited the "
            "difference for the days from the effective date to the cycle's end inclusive, divided by the days in "
            "the cycle.",
            "- A late fee on a bill that is being corrected (an outage credit or a plan-change correction) is reversed "
            "in full.",
            "- Credits are computed on the MRC before tax; tax is recalculated by the billing system.",
            f"- Goodwill credits: up to {cap:.2f} USD per account without approval. A promise above that is posted at "
            f"{cap:.2f} with approval_required set to Y and sent to the care manager for approval of the rest.",
            "- Amounts are in US dollars, rounded half up to the cent per adjustment line."]


def _workspace(rng: random.Random, P: dict[str, Any], b: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in _data(P, b).items():
        add(rel, "data", write)
    D, cyc = P["dirs"], P["cycle"]
    add(f"{D['policy']}/tariff_section7_service_credits.pdf", "policy",
        lambda p: write_pdf(p, "Tariff section 7", _policy(True, P["goodwill_cap"])))
    add(f"{D['policy']}/archive/service_credit_policy_2019.docx", "stale",
        lambda p: write_docx(p, "Service credit policy 2019", _policy(False, P["goodwill_cap"])))
    add(f"{D['billing']}/rate_card.xlsx", "reference", lambda p: write_xlsx(p, [(
        "Plans", ["plan_code", "plan_name", "mrc"], [[k, v[0], v[1]] for k, v in sorted(_PLANS.items())])]))
    add(f"{D['billing']}/upload_layout.txt", "reference", lambda p: write_text(p, (
        "Billing adjustment upload (BSS batch import)\nColumns, in order: " + ", ".join(P["upload_columns"]) + "\n"
        f"Adjustment codes: {P['codes']['outage']} outage credit; {P['codes']['proration']} plan-change proration; "
        f"{P['codes']['late_fee']} late fee reversal; {P['codes']['goodwill']} goodwill.\n"
        "Amounts are positive credits in USD with two decimals; one line per account and code; cycle as YYYY-MM; "
        "approval flag Y or N.\n")))
    add(f"{D['network']}/noc_incident_summary_{cyc}.docx", "distractor", lambda p: write_docx(
        p, f"NOC incident summary {cyc}", ["Fibre cut on the east ring; node ND-14 restored in stages.",
                                           "Customer-level outage times are in the ticket export."]))
    add(f"mail/{cyc}_manager_note.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Care Manager", to="Escalations desk", date=f"{cyc}-28",
        subject="This month's escalations", body=f"My credit authority this month is {P['authority']:,.2f} USD in "
        "total; anything over goes to the director. Some agents promised goodwill on the phone - follow the tariff.")))
    add(f"mail/{cyc}_customer_{P['premise_account']}.txt", "email", lambda p: write_text(p, email_text(
        sender=f"Customer, account {P['premise_account']}", to="support", date=f"{cyc}-27",
        subject="Outage credit", body="I was offline for more than a day" + (
            " - I have two ticket numbers to prove it" if P["premise_account"] == b["planted"] else "")
        + ". Please credit my account.")))
    add(f"meetings/{cyc}_care_team.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="escalation backlog", people=[person(rng) for _ in range(3)], date=f"{cyc}-15")))
    add("templates/reply_template.md", "reference", lambda p: write_text(p, (
        "# Reply template\n\nDear customer,\n\nThank you for your patience. We have reviewed your account and applied "
        "[credit] to your next bill.\n")))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], b: dict[str, Any], writers: dict[str, Any]) -> str:
    D, L, cyc = P["deliverables"], P["labels"], P["cycle"]
    boss = person(rng)
    lines = [(L["total"], "US dollars, 2 decimal places"), (L["named"], "US dollars, 2 decimal places"),
             (L["ineligible"], "whole number of escalated accounts with outage tickets but no outage credit"),
             (L["fees"], "US dollars, 2 decimal places"), (L["flagged"], "whole number"), (L["decision"], "yes or no"),
             (L["premise"], "yes or no")]
    steps = ["Work out each escalated account's outage credit from the ticket export and the tariff.",
             "Correct bills for mid-cycle plan changes and reverse late fees on the bills you correct.",
             "Post the goodwill the agents promised, as the tariff allows.",
             f"Tell me whether the batch total is within my credit authority (see the note in mail/), and answer "
             f"account {P['premise_account']}'s claim."]
    deliv = [f"{D['upload']}: the billing-adjustment upload in the layout of {P['dirs']['billing']}/upload_layout.txt "
             "(one line per account and adjustment code).",
             f"{D['memo']}: start with these lines (label: value), then a reply text for account {P['named_account']}:\n"
             + "\n".join(f"   {k}: <{v}>" for k, v in lines)]
    return "\n\n".join([
        f"From: {boss}, Customer Care Manager\nSubject: Escalations, {cyc} cycle\n\n"
        f"Complaints are up after the {cyc} outages. Please work the {len(b['esc'])} escalations in "
        f"{P['dirs']['crm']}/ and prepare the credits and bill corrections.",
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Deliverables in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliv, 1)),
        "Thanks.\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers))]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, C, cols = P["deliverables"], P["labels"], P["codes"], P["upload_columns"]
    up, memo = D["upload"], D["memo"]
    acct, code, amt, flag = cols[0], cols[1], cols[2], cols[4]
    yes = lambda x: "yes" if x else "no"  # noqa: E731
    by = facts["by_code"]

    def line(a: str, c: str) -> tuple[str, Any]:
        v = by.get(f"{a}|{C[c]}", 0.0)
        return (f"{up}: {a} {C[c]} = {v:.2f}", CellCheck(file=up, match={acct: a, code: C[c]}, column=amt,
                                                          value=float(v), tolerance=tol(2)))

    def count(c: str) -> tuple[str, Any]:
        n = sum(k.endswith(f"|{C[c]}") for k in by)
        return (f"{up} has {n} {C[c]} lines", RowCountCheck(file=up, key=acct, where={code: C[c]}, count=n))

    def money(k: str, v: float) -> tuple[str, Any]:
        return f"{L[k]} = {v:.2f}", fld_num(memo, L[k], v, 2)

    def whole(k: str, v: int) -> tuple[str, Any]:
        return f"{L[k]} = {v}", FieldCheck(file=memo, label=L[k], number=float(v), tolerance=0.0)

    def has(a: str, c: str) -> tuple[str, Any]:
        n = int(f"{a}|{C[c]}" in by)
        return (f"{up}: {a} has {n} {C[c]} line", RowCountCheck(file=up, key=acct, where={acct: a, code: C[c]}, count=n))

    pr = P["probe"]
    prem = by.get(f"{P['premise_account']}|{C['outage']}")
    out = [
        rubric("Credits outages pro rata by the cycle's days, on the MRC before tax", 10, [line(pr["outage"], "outage"),
                                                                                         has(pr["across"], "outage")]),
        rubric("Treats overlapping tickets as one outage", 8, [whole("ineligible", facts["ineligible_n"]),
                                                               has(pr["planted"], "outage")]),
        rubric("Prorates the mid-cycle plan change by days", 8, [line(pr["proration"], "proration")]),
        rubric("Reverses late fees on the corrected bills", 8, [money("fees", facts["fees_reversed"]), count("late_fee")]),
        rubric("Caps goodwill at the tariff limit and flags it for approval", 8, [
            line(pr["goodwill"], "goodwill"), whole("flagged", facts["flagged_n"]),
            (f"{up}: {pr['goodwill']} {C['goodwill']} {flag} = Y",
             CellCheck(file=up, match={acct: pr["goodwill"], code: C["goodwill"]}, column=flag, value="Y"))]),
        rubric("Totals the batch and the named account", 10, [money("total", facts["total"]),
                                                              money("named", facts["named_credit"]), count("goodwill")]),
        rubric("Answers the authority question from the batch total", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            count("proration")]),
        rubric("Answers the customer's claim from the merged ticket times", 6, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            (f"{up}: {P['premise_account']} has {'an' if prem else 'no'} outage credit",
             RowCountCheck(file=up, key=acct, where={acct: P["premise_account"], code: C["outage"]}, count=1 if prem else 0))]),
    ]
    if judgement:
        out.append(rubric("Writes a reply the customer can understand", 6, [
            ("States the credit and what it covers (outage days, plan change, fee, goodwill)", llm("content")),
            ("Is courteous and does not promise more than the tariff allows", llm("tone"))]))
    return out


OUTAGE_CREDITS = Workflow(
    key="outage_credits", family="outage_credits", method="tariff outage credits and bill proration",
    professions=("customer_service_representatives",), solver="outage",
    shortcuts=("duplicates", "clip_cycle", "thirty_day", "tax", "goodwill", "late_fees"), draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated broadband billing cycle (stated distributions)")
