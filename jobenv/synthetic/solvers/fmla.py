# ---- jobenv workflow ground truth: FMLA eligibility and leave remaining for pending requests (HR specialists) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the HRIS roster, the
# worksites and their road miles, the timekeeping export, the leave history, the pending requests, the focus
# request of the decision, the employee of the manager's claim and the deliverables; ``naive`` names the shortcuts a
# hurried HR partner takes:
#   pto_counts          PTO, holiday and sick hours counted as hours worked
#   military_excluded   USERRA military leave left out of the hours worked
#   current_stint_only  service counted from the last hire date only (the 2022 handbook)
#   any_break           service before a break of seven years or more counted too
#   site_only           the 50-employee test on the employee's own worksite only
#   calendar_year       leave used counted in the calendar year (the 2022 handbook) instead of rolling backward
#   fulltime_hours      480 hours (12 x 40) for everyone, part-time schedules not prorated
import datetime as dt
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

WORKED = {"REG", "OT", "MIL"}  # hours worked under the 2024 handbook (USERRA military leave counts)


def day(text):
    return dt.date.fromisoformat(str(text).strip()[:10])


def year_before(d):
    """The same calendar date one year earlier (the handbook's '12 months before')."""
    try:
        return d.replace(year=d.year - 1)
    except ValueError:  # 29 February
        return d.replace(year=d.year - 1, day=28)


def service_days(start, hire, prior_start="", prior_end="", naive=()):
    """Days of employment before leave starts: the current period (hire date to leave start), plus a prior period
    (its start to its end) when the break between its end and the rehire was shorter than seven years."""
    days = (start - hire).days
    if str(prior_start).strip() and "current_stint_only" not in naive:
        ps, pe = day(prior_start), day(prior_end)
        seven = pe.replace(year=pe.year + 7) if not (pe.month == 2 and pe.day == 29) else dt.date(pe.year + 7, 3, 1)
        if hire < seven or "any_break" in naive:
            days += (pe - ps).days
    return days


def hours_worked(cards, start, naive=()):
    """Hours worked in the 12 months before ``start`` (work dates from one year earlier through the day before):
    regular, overtime and USERRA military leave; PTO, holidays, sick and FMLA hours are not hours worked."""
    lo = year_before(start)
    codes = set(WORKED)
    if "military_excluded" in naive:
        codes.discard("MIL")
    total = 0.0
    for d, code, h in cards:
        if lo <= d < start and (code in codes or ("pto_counts" in naive and code in ("PTO", "HOL", "SCK"))):
            total += h
    return total


def leave_used(leave, start, naive=()):
    """FMLA-designated hours in the 12 months before ``start`` (rolling backward), or in the calendar year of
    ``start`` before it under the superseded method."""
    lo = dt.date(start.year, 1, 1) if "calendar_year" in naive else year_before(start)
    return sum(h for d, h in leave if lo <= d < start)


def analyse(folder, P, naive=()):
    F = P["files"]
    emp = {str(r["employee_id"]).strip(): r for r in read_frame(folder, F["roster"]).to_dict("records")}
    sites = {str(r["worksite_id"]).strip(): int(float(r["headcount"])) for r in read_frame(folder, F["sites"]).to_dict("records")}
    miles = {}
    for r in read_frame(folder, F["miles"]).to_dict("records"):
        a, b, m = str(r["from_site"]).strip(), str(r["to_site"]).strip(), float(r["road_miles"])
        miles[(a, b)] = miles[(b, a)] = m
    cards: dict = {}
    t = read_frame(folder, F["time"])
    for e, d, c, h in zip(t["employee_id"], t["work_date"], t["pay_code"], t["hours"]):
        cards.setdefault(str(e).strip(), []).append((day(d), str(c).strip().upper(), float(h)))
    leave: dict = {}
    for r in read_frame(folder, F["leave"]).to_dict("records"):
        if str(r["fmla_designated"]).strip().upper() in ("Y", "YES"):
            leave.setdefault(str(r["employee_id"]).strip(), []).append((day(r["leave_date"]), float(r["hours"])))
    rows = []
    for r in read_frame(folder, F["requests"]).to_dict("records"):
        eid = str(r["employee_id"]).strip()
        e, start = emp[eid], day(r["leave_start"])
        svc = service_days(start, day(e["hire_date"]), e["prior_hire_date"], e["prior_term_date"], naive)
        hrs = rnd(hours_worked(cards.get(eid, []), start, naive), 2)
        site = str(e["worksite_id"]).strip()
        if "site_only" in naive:
            near = sites[site]
        else:
            near = sum(n for s, n in sites.items() if s == site or miles.get((site, s), 1e9) <= P["radius_miles"])
        eligible = svc >= 365 and hrs >= 1250 and near >= 50
        weekly = 40.0 if "fulltime_hours" in naive else float(e["scheduled_weekly_hours"])
        ent = rnd(12 * weekly, 2)
        used = rnd(leave_used(leave.get(eid, []), start, naive), 2)
        rem = rnd(max(0.0, ent - used), 2) if eligible else 0.0
        rows.append({"request_id": str(r["request_id"]).strip(), "employee_id": eid, "leave_start": start.isoformat(),
                     "service_days": svc, "hours_12mo": hrs, "employees_75mi": near, "eligible": eligible,
                     "entitlement": ent, "used": used, "remaining": rem, "requested": float(r["hours_requested"])})
    rows.sort(key=lambda x: x["employee_id"])
    by = {x["employee_id"]: x for x in rows}
    focus, claim = by[P["focus"]], by[P["claim"]]
    return {"rows": rows, "eligible_count": sum(x["eligible"] for x in rows),
            "decision": bool(focus["eligible"] and focus["requested"] <= focus["remaining"]),
            "premise": not claim["eligible"]}


def _memo_lines(P, facts):
    L = P["labels"]
    out = [f"{L['count']}: {facts['eligible_count']}", f"{L['decision']}: {yes_no(facts['decision'])}",
           f"{L['premise']}: {yes_no(facts['premise'])}", ""]
    for x in facts["rows"]:
        e = x["employee_id"]
        out += [f"{e} {L['elig']}: {yes_no(x['eligible'])}", f"{e} {L['hours']}: {x['hours_12mo']:.2f}",
                f"{e} {L['near']}: {x['employees_75mi']}", f"{e} {L['remaining']}: {x['remaining']:.2f}", ""]
    return out


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["columns"]
    keys = ("request_id", "employee_id", "leave_start", "eligible", "hours_12mo", "employees_75mi", "entitlement",
            "used", "remaining")
    rows = [[("Y" if x[k] else "N") if k == "eligible" else x[k] for k in keys] for x in facts["rows"]]
    write_table(os.path.join(output_dir, D["csv"]), [C[k] for k in keys], rows)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "Method: 12 months of service counts employment before a break shorter than seven years; hours worked in the "
        "12 months before leave starts are regular, overtime and USERRA military leave hours (PTO, holidays, sick and "
        "FMLA hours are not hours worked); employees within 75 road miles include the employee's own worksite; the "
        "entitlement is 12 times the scheduled weekly hours, less the FMLA hours used in the 12 months before the leave "
        "starts (rolling backward, 2024 handbook)."])
