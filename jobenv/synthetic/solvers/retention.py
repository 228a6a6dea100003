# ---- jobenv workflow ground truth: a retention campaign's dialler list and offer cost (customer service) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the CRM customer export,
# the account-merge log, the do-not-contact suppression file, the offer history, the offer catalogue and the CRM
# notes, the campaign date, the renewal window, the current and the superseded rules' ARPU bands, the account of an
# agent's claim, the offer budget and the deliverables; ``naive`` names the shortcuts a hurried representative takes:
#   boundary_exclusive  contracts ending on the 60th day after the campaign date left off (the window read as "< 60")
#   merge_start         tenure of a merged account from its CRM start date, not the original account's start
#   crm_dnc_only        the CRM's do-not-contact flag only; the compliance suppression file ignored
#   history_any         any offer ever made (any outcome, any date) excludes, not only acceptances in 12 months
#   old_bands           the superseded rules' ARPU bands
#   honour_promise      an offer an agent promised in the CRM notes put on the list instead of the band's offer
#   full_term_cost      an offer's cost over its whole discount term instead of the first 12 months
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import datetime as dt
import os
import re

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

TIERS = ("A", "B", "C")
PROMISE = re.compile(r"(?i:promised)\D{0,40}?\b([A-Z]{2,5}-[A-Z0-9]{2,6})\b")


def day(text):
    return dt.date.fromisoformat(str(text).strip()[:10])


def year_before(d):
    """The same calendar date one year earlier (28 February for 29 February)."""
    try:
        return d.replace(year=d.year - 1)
    except ValueError:
        return d.replace(year=d.year - 1, day=28)


def tier_of(arpu, bands):
    """The tier of a monthly ARPU: A from the A band's floor up, B from the B floor up, else C."""
    if arpu >= float(bands["A"]):
        return "A"
    return "B" if arpu >= float(bands["B"]) else "C"


def cost_12(monthly, months, one_off, naive=()):
    """An offer's cost in the first 12 months after acceptance: the monthly discount for its term, capped at 12
    months, plus any one-off cost (credit or device)."""
    term = int(months) if "full_term_cost" in naive else min(int(months), 12)
    return rnd(float(monthly) * term + float(one_off), 2)


def in_window(end, campaign, days, naive=()):
    """A contract end date from the campaign date to ``days`` days after it, both days included."""
    last = campaign + dt.timedelta(days=int(days))
    return campaign <= end and (end < last if "boundary_exclusive" in naive else end <= last)


def analyse(folder, P, naive=()):
    F, T = P["files"], day(P["campaign"])
    bands = P["old_bands"] if "old_bands" in naive else P["bands"]
    cust = read_frame(folder, F["customers"]).to_dict("records")
    first: dict = {}  # account -> earliest start among the accounts merged into it
    for r in read_frame(folder, F["merges"]).to_dict("records"):
        a, s = str(r["surviving_account"]).strip(), day(r["merged_account_start"])
        first[a] = min(s, first.get(a, s))
    suppressed = {str(a).strip() for a in read_frame(folder, F["suppression"])["account_id"]}
    blocked = set()
    lo = year_before(T)
    for r in read_frame(folder, F["history"]).to_dict("records"):
        a = str(r["account_id"]).strip()
        if "history_any" in naive:
            blocked.add(a)
        elif str(r["outcome"]).strip().lower() == "accepted" and lo <= day(r["outcome_date"]) <= T:
            blocked.add(a)
    offers = {}
    for r in read_frame(folder, F["offers"]).to_dict("records"):
        if str(r["status"]).strip().lower() == "active":
            offers[str(r["tier"]).strip()] = {
                "code": str(r["offer_code"]).strip(), "rate": float(r["take_rate"]),
                "cost": cost_12(r["monthly_discount"], r["discount_months"], r["one_off_cost"], naive)}
    codes = {o["code"]: t for t, o in offers.items()}
    promised = {}
    if "honour_promise" in naive:
        for r in read_frame(folder, F["notes"]).to_dict("records"):
            m = PROMISE.search(str(r["note"]))
            if m and m.group(1) in codes:
                promised[str(r["account_id"]).strip()] = m.group(1)
    rows, dnc = [], []
    for r in cust:
        a = str(r["account_id"]).strip()
        start = day(r["start_date"])
        if "merge_start" not in naive:
            start = min(start, first.get(a, start))
        if start > lo or not in_window(day(r["contract_end"]), T, P["window_days"], naive) or a in blocked:
            continue
        flagged = str(r["dnc_flag"]).strip().upper() in ("Y", "YES", "TRUE", "1")
        if flagged or (a in suppressed and "crm_dnc_only" not in naive):
            dnc.append(a)
            continue
        arpu = float(r["arpu"])
        t = tier_of(arpu, bands)
        code = promised.get(a, offers[t]["code"])
        rows.append({"account": a, "tier": codes[code], "offer": code, "arpu": arpu,
                     "contract_end": day(r["contract_end"]).isoformat()})
    # dialler priority: soonest contract end first, then the higher ARPU, then the account number
    rows.sort(key=lambda x: (x["contract_end"], -x["arpu"], x["account"]))
    for k, x in enumerate(rows, 1):
        x["priority"] = k
    counts = {t: sum(x["tier"] == t for x in rows) for t in TIERS}
    saves = sum(counts[t] * offers[t]["rate"] for t in TIERS)
    cost = sum(counts[t] * offers[t]["rate"] * offers[t]["cost"] for t in TIERS)
    revenue = sum(offers[x["tier"]]["rate"] * 12 * x["arpu"] for x in rows)
    return {"rows": rows, "count": len(rows), "tiers": counts,
            "offer_cost": {offers[t]["code"]: offers[t]["cost"] for t in TIERS},
            "saves": rnd(saves, 1), "cost": rnd(cost, 2), "revenue": rnd(revenue, 2), "dnc": sorted(dnc),
            "decision": rnd(cost, 2) <= float(P["budget"]),
            "premise": any(x["account"] == P["focus"] for x in rows)}


def _memo_lines(P, facts):
    L = P["labels"]
    out = [f"{L['count']}: {facts['count']}"]
    out += [f"{L['tier'].format(t=t)}: {facts['tiers'][t]}" for t in TIERS]
    out += [f"{L['offer_cost'].format(code=c)}: {v:.2f}" for c, v in sorted(facts["offer_cost"].items())]
    out += [f"{L['saves']}: {facts['saves']:.1f}", f"{L['cost']}: {facts['cost']:.2f}",
            f"{L['revenue']}: {facts['revenue']:.2f}",
            f"{L['dnc']}: {'; '.join(facts['dnc']) if facts['dnc'] else 'none'}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]
    return out


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["columns"]
    write_table(os.path.join(output_dir, D["list"]), [C["account"], C["offer"], C["priority"]],
                [[x["account"], x["offer"], x["priority"]] for x in facts["rows"]])
    write_memo(os.path.join(output_dir, D["memo"]), [f"# Retention campaign {P['campaign']}", ""]
               + _memo_lines(P, facts) + [
        "", f"Offer budget: {float(P['budget']):.2f}; expected 12-month offer cost {facts['cost']:.2f}.",
        "Method: accounts with at least 12 months' tenure on the campaign date (merged accounts from the original "
        "account's start), a contract ending from the campaign date to 60 days after it (both days included), no "
        "offer accepted in the 12 months before the campaign date and not on do-not-contact (CRM flag or the "
        "compliance suppression file); each account gets the offer of its ARPU band under the current rules, not an "
        "offer an agent promised; an offer's 12-month cost is its monthly discount for at most 12 months plus any "
        "one-off cost; expected saves, cost and 12 months of saved revenue at each tier's take rate."])
