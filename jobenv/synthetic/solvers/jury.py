# ---- jobenv workflow ground truth: jury summons planning for a month's trial weeks (court clerks) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the summons history
# export, the status reason codes, the trial calendar, the docket events, the postponement list, the master-list
# pool status, the current jury plan's rules (yield window, source priority and shares, panel sizes by case type,
# safety margin) and the superseded plan's, the trial weeks, the week of the claim and the deliverables. ``naive``
# names the shortcuts a hurried clerk takes:
#   stale_calendar   trials counted where the calendar export sets them, the continuance orders on the docket ignored
#   status_column    the status column taken as it stands (age-70 exemptions recorded as disqualifications after the
#                    system upgrade stay disqualifications), not the reason code's category
#   both_lists       a summons of a person on two source lists counted once per list (mailed and appeared twice)
#   old_plan         the superseded plan's panel sizes and safety margin
#   no_returning     postponed jurors rescheduled into a trial week not netted out of its need
#   delivered_base   yield on summonses delivered (mailed less undeliverable) instead of mailed
#   full_export      every report date of the export, not the plan's twelve-month yield window
import datetime as dt
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, write_memo, write_table, yes_no
except ImportError:
    pass

OUTCOMES = ("UNDELIVERABLE", "DISQUALIFIED", "EXCUSED", "POSTPONED", "FTA", "APPEARED")


def day(text):
    return dt.date.fromisoformat(str(text).strip()[:10])


def monday(d):
    """The Monday of the trial week (Monday to Friday) a date falls in."""
    return d - dt.timedelta(days=d.weekday())


def ceil_div(a, b):
    """a / b rounded up, for non-negative integers (exact, no floating point)."""
    return -(-a // b)


def basis_points(num, den):
    """num / den as a fraction in hundredths of a per cent (basis points), rounded half up."""
    return (num * 20000 + den) // (2 * den) if den else 0


def category(status, reason, codes, naive=()):
    """The outcome of a summons: a disqualification or excusal by its reason code's category in the code table
    (the status column of records after the system upgrade mislabels age-70 exemptions), else the status."""
    status = str(status).strip().upper()
    if status in ("DISQUALIFIED", "EXCUSED") and "status_column" not in naive:
        return codes.get(str(reason).strip().upper(), status)
    return status


def records(frame):
    """A table's rows as dicts of text (column lists first: row-wise access to a large frame is slow)."""
    cols = {c: frame[c].tolist() for c in frame.columns}
    return [dict(zip(cols, vals)) for vals in zip(*cols.values())]


def source_tally(history, codes, P, naive=()):
    """Summonses mailed and their outcomes by source, over report dates in the plan's window, each summons once
    under the first source of the plan's priority order."""
    lo, hi = str(day(P["window_start"])), str(day(P["plan_date"]))
    rank = {s: k for k, s in enumerate(P["source_priority"])}
    kept: dict = {}
    for r in history:
        d = str(day(r["report_date"]))  # ISO dates compare as text
        if "full_export" not in naive and not lo <= d < hi:
            continue
        src = str(r["source"]).strip().upper()
        key = str(r["summons_no"]).strip()
        if "both_lists" in naive:
            key = key + "|" + src
        if key not in kept or rank[src] < rank[kept[key][0]]:
            kept[key] = (src, category(r["status"], r["reason_code"], codes, naive))
    tally = {s: dict.fromkeys(("MAILED",) + OUTCOMES, 0) for s in P["source_priority"]}
    for src, cat in kept.values():
        tally[src]["MAILED"] += 1
        tally[src][cat] += 1
    return tally


def yield_bp(t, naive=()):
    """Appearing jurors over summonses mailed (delivered with the shortcut), in basis points."""
    base = t["MAILED"] - (t["UNDELIVERABLE"] if "delivered_base" in naive else 0)
    return basis_points(t["APPEARED"], base)


def trial_dates(calendar, events, naive=()):
    """Case -> (case type, trial date): the calendar's setting, moved by the latest order continuing trial."""
    out = {str(r["case_no"]).strip(): (str(r["case_type"]).strip().upper(), day(r["trial_date"])) for r in calendar}
    if "stale_calendar" in naive:
        return out
    orders = sorted((day(e["event_date"]), str(e["case_no"]).strip(), day(e["new_trial_date"])) for e in events
                    if str(e["event_code"]).strip().upper() == "ORCT")
    for _, case, new in orders:
        if case in out:
            out[case] = (out[case][0], new)
    return out


def week_need(panels, margin_pct):
    """Jurors a week needs: the panel sizes summed, times (1 + margin), rounded up to a whole juror."""
    return ceil_div(sum(panels) * (100 + margin_pct), 100)


def analyse(folder, P, naive=()):
    F = P["files"]
    codes = {str(r["reason_code"]).strip().upper(): str(r["category"]).strip().upper()
             for r in records(read_frame(folder, F["codes"]))}
    tally = source_tally(records(read_frame(folder, F["history"])), codes, P, naive)
    mailed = sum(t["MAILED"] for t in tally.values())
    sources = []
    for s in P["source_priority"]:
        t = tally[s]
        sources.append({"source": s, "mailed": t["MAILED"], "appeared": t["APPEARED"],
                        "undeliverable": t["UNDELIVERABLE"], "yield_bp": yield_bp(t, naive)})
    rates = {k: basis_points(sum(t[k.upper()] for t in tally.values()), mailed)
             for k in ("undeliverable", "disqualified", "excused")}
    plan = P["old_plan"] if "old_plan" in naive else P["plan"]
    cases = trial_dates(records(read_frame(folder, F["calendar"])),
                        records(read_frame(folder, F["docket"])), naive)
    back = [monday(day(r["new_report_date"])) for r in records(read_frame(folder, F["postponed"]))]
    ybp = {x["source"]: x["yield_bp"] for x in sources}
    weeks, order = [], []
    for w in P["weeks"]:
        wk = day(w)
        panels = [plan["panels"][t] for t, d in cases.values() if monday(d) == wk]
        need = week_need(panels, plan["margin_pct"])
        returning = 0 if "no_returning" in naive else sum(1 for b in back if b == wk)
        net = max(0, need - returning)
        per = {}
        for s in P["source_priority"]:
            src_need = ceil_div(net * P["shares"][s], 100)
            per[s] = ceil_div(src_need * 10000, ybp[s]) if ybp[s] else 0
            order.append({"week": w, "source": s, "summonses": per[s]})
        weeks.append({"week": w, "trials": len(panels), "need": need, "returning": returning, "net": net,
                      "summonses": sum(per.values())})
    totals = {s: sum(o["summonses"] for o in order if o["source"] == s) for s in P["source_priority"]}
    avail = {str(r["source"]).strip().upper(): int(float(r["names_on_list"])) - int(float(r["summoned_last_24_months"]))
             for r in records(read_frame(folder, F["pool"]))}
    top = max(x["summonses"] for x in weeks)
    claim = next(x for x in weeks if x["week"] == P["claim_week"])
    return {"sources": sources, "rates": rates, "weeks": weeks, "order": order, "totals": totals,
            "total": sum(totals.values()), "available": avail,
            "top_unique": sum(1 for x in weeks if x["summonses"] == top) == 1,
            "decision": all(avail.get(s, 0) >= n for s, n in totals.items()),
            "premise": claim["summonses"] == top and sum(1 for x in weeks if x["summonses"] == top) == 1}


def _pct(bp):
    return f"{bp / 100:.2f}"


def _memo_lines(P, facts):
    L = P["labels"]
    out = [f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}",
           f"{L['total']}: {facts['total']}", ""]
    out += [f"{L['yield']} {x['source']}: {_pct(x['yield_bp'])}" for x in facts["sources"]]
    out += [f"{L['undeliverable']}: {_pct(facts['rates']['undeliverable'])}",
            f"{L['disqualified']}: {_pct(facts['rates']['disqualified'])}",
            f"{L['excused']}: {_pct(facts['rates']['excused'])}", ""]
    for x in facts["weeks"]:
        w = x["week"]
        out += [f"{L['need']} {w}: {x['need']}", f"{L['returning']} {w}: {x['returning']}",
                f"{L['week_total']} {w}: {x['summonses']}"]
    out += [f"{L['source_total']} {s}: {n}" for s, n in facts["totals"].items()]
    return out


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["columns"]
    write_table(os.path.join(output_dir, D["csv"]), [C["week"], C["source"], C["summonses"]],
                [[o["week"], o["source"], o["summonses"]] for o in facts["order"]])
    plan = P["plan"]
    sizes = ", ".join(f"{t} {n}" for t, n in sorted(plan["panels"].items()))
    write_memo(os.path.join(output_dir, D["memo"]), [
        f"To: {P['judge']}, Presiding Judge", f"Re: Jury summonses for the {P['month_name']} trial weeks", "",
        *_memo_lines(P, facts), "",
        f"Method: yield by source is the jurors who appeared over the summonses mailed for report dates from "
        f"{P['window_start']} to the day before {P['plan_date']}, each summons counted once under its master-list "
        "source; undeliverable, disqualified, excused, postponed and failure-to-appear summonses are not yield, and "
        "disqualifications and excusals follow the reason code table (age-70 exemptions are excusals). Each week's need "
        f"is the panels of the trials still set that week after the orders continuing trial ({sizes}) plus the "
        f"{plan['margin_pct']} % safety margin, rounded up; postponed jurors rescheduled into the week are netted out; "
        "each source's share of the net need, rounded up, is divided by its yield and rounded up to whole summonses."])
