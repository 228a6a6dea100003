# ---- jobenv workflow ground truth: outage credits and bill corrections for escalated accounts (customer service) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the exports, the billing
# cycle, the tariff's credit rules and the deliverables; ``naive`` names the shortcuts a hurried agent takes:
#   duplicates  every outage ticket counted in full (duplicate tickets for one outage not merged)
#   clip_cycle  only the hours inside this cycle counted for an outage that began in the previous one
#   thirty_day  the daily rate as MRC / 30 whatever the cycle's length
#   tax         credits worked from the billed amount with tax instead of the MRC ex-tax
#   goodwill    the goodwill the agent promised posted in full, unflagged
#   late_fees   late fees left on bills that are being corrected
import calendar
import datetime
import math
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass


def _money(v):
    text = str(v).replace(",", "").replace("$", "").strip()
    return float(text) if text else 0.0


def _ts(v):
    return v if isinstance(v, datetime.datetime) else datetime.datetime.fromisoformat(str(v).strip())


def merged_hours(intervals, naive=()):
    """Hours offline: overlapping tickets for one account are one outage (their union), unless naive."""
    spans = sorted((_ts(a), _ts(b)) for a, b in intervals)
    if "duplicates" in naive:
        return sum((b - a).total_seconds() for a, b in spans) / 3600
    total, cur = 0.0, None
    for a, b in spans:
        if cur and a <= cur[1]:
            cur = (cur[0], max(cur[1], b))
        else:
            if cur:
                total += (cur[1] - cur[0]).total_seconds()
            cur = (a, b)
    if cur:
        total += (cur[1] - cur[0]).total_seconds()
    return total / 3600


def outage_credit(mrc, hours, days_in_cycle, min_hours=24):
    """MRC / days in the cycle for each 24-hour period or part of one, once the outage reaches ``min_hours``;
    never more than the MRC. Returns (days credited, credit)."""
    if hours < min_hours:
        return 0, 0.0
    days = math.ceil(hours / 24 - 1e-9)
    return days, rnd(min(mrc, mrc / days_in_cycle * days), 2)


def analyse(folder, P, naive=()):
    F, C = P["files"], P["codes"]
    cycle = P["cycle"]
    year, month = int(cycle[:4]), int(cycle[5:7])
    days = 30 if "thirty_day" in naive else calendar.monthrange(year, month)[1]
    accounts = read_frame(folder, F["accounts"])
    bills = read_frame(folder, F["bills"])
    bills = bills[bills["cycle"].astype(str) == cycle]
    tickets = read_frame(folder, F["outages"])
    changes = read_frame(folder, F["changes"])
    notes = read_frame(folder, F["crm"])
    escalated = [str(a) for a in read_frame(folder, F["escalations"])["account_id"]]
    mrc = {str(r["account_id"]): _money(r["mrc"]) for _, r in accounts.iterrows()}
    billed: dict = {}
    for _, r in bills.iterrows():
        billed.setdefault(str(r["account_id"]), {}).setdefault(str(r["line_type"]), 0.0)
        billed[str(r["account_id"])][str(r["line_type"])] += _money(r["amount"])
    lines, ineligible, flagged = [], [], []
    for acct in escalated:
        b = billed.get(acct, {})
        base = mrc[acct] + (b.get("TAX", 0.0) if "tax" in naive else 0.0)
        mine = [(r["start"], r["end"]) for _, r in tickets.iterrows() if str(r["account_id"]) == acct]
        if "clip_cycle" in naive:
            mine = [(max(_ts(a), _ts(cycle + "-01T00:00")), _ts(b)) for a, b in mine]
        wrong_bill = False
        if mine:
            n_days, credit = outage_credit(base, merged_hours(mine, naive), days, P["min_hours"])
            if credit:
                lines.append([acct, C["outage"], credit, cycle, "N", f"outage credit, {n_days} day(s)"])
                wrong_bill = True
            else:
                ineligible.append(acct)
        for _, r in changes.iterrows():
            if str(r["account_id"]) != acct:
                continue
            d = datetime.date.fromisoformat(str(r["effective_date"])[:10])
            if f"{d:%Y-%m}" != cycle:
                continue
            over = b.get("MRC", 0.0) - _money(r["new_mrc"])
            remaining = calendar.monthrange(year, month)[1] - d.day + 1
            amount = rnd(over * remaining / days, 2)
            if amount > 0:
                lines.append([acct, C["proration"], amount, cycle, "N", f"plan change prorated, {remaining} day(s)"])
                wrong_bill = True
        if wrong_bill and b.get("LATE_FEE") and "late_fees" not in naive:
            lines.append([acct, C["late_fee"], rnd(b["LATE_FEE"], 2), cycle, "N", "late fee reversed (bill in error)"])
        for _, r in notes.iterrows():
            if str(r["account_id"]) == acct and _money(r["goodwill_promised"]) > 0:
                promised = _money(r["goodwill_promised"])
                over_cap = promised > P["goodwill_cap"] and "goodwill" not in naive
                amount = P["goodwill_cap"] if over_cap else promised
                lines.append([acct, C["goodwill"], rnd(amount, 2), cycle, "Y" if over_cap else "N",
                              "goodwill capped, approval needed" if over_cap else "goodwill"])
                if over_cap:
                    flagged.append(acct)
    per: dict = {}
    by_code: dict = {}
    for ln in lines:
        by_code[f"{ln[0]}|{ln[1]}"] = rnd(by_code.get(f"{ln[0]}|{ln[1]}", 0.0) + ln[2], 2)
        per[ln[0]] = rnd(per.get(ln[0], 0.0) + ln[2], 2)
    total = rnd(sum(ln[2] for ln in lines), 2)
    facts = {"lines": lines, "by_code": by_code, "total": total, "per_account": per, "ineligible": ineligible,
             "ineligible_n": len(ineligible), "flagged": flagged, "flagged_n": len(flagged),
             "fees_reversed": rnd(sum(ln[2] for ln in lines if ln[1] == C["late_fee"]), 2),
             "named": P["named_account"], "named_credit": per.get(P["named_account"], 0.0)}
    facts["decision"] = bool(total <= P["authority"])
    hours = merged_hours([(r["start"], r["end"]) for _, r in tickets.iterrows()
                          if str(r["account_id"]) == P["premise_account"]], naive)
    facts["premise"] = bool(hours >= P["min_hours"])
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['total']}: {facts['total']:.2f}", f"{L['named']}: {facts['named_credit']:.2f}",
            f"{L['ineligible']}: {facts['ineligible_n']}", f"{L['fees']}: {facts['fees_reversed']:.2f}",
            f"{L['flagged']}: {facts['flagged_n']}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    write_table(os.path.join(output_dir, D["upload"]), P["upload_columns"], facts["lines"])
    named = P["named_account"]
    reply = [f"Dear customer (account {named}),", "",
             f"We have reviewed your bill for {P['cycle']} and applied a credit of {facts['named_credit']:.2f} USD "
             "before tax, which will appear on your next bill."]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + ["", "## Reply", ""] + reply + [
        "", "Credits are worked on the monthly recurring charge before tax; overlapping outage tickets are one outage; "
        "goodwill over the cap is capped and flagged for approval."])
