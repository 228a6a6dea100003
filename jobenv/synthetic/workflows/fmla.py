"""FMLA eligibility and leave remaining for the pending requests, as eligibility-notice facts and an HRIS upload
(human resources specialists).

A multi-site employer's HR business partner decides 5-6 pending FMLA requests. The HRIS extract, the worksites with
their road miles, a daily timekeeping export (REG, OT, PTO, HOL, SCK, MIL, FML codes over 15 months), the leave
history and the request log are generated. The requesters: a rehire whose break was under seven years and who needs
the prior service (current period 270-340 days, prior 400-1,500 days, break 440-2,000 days); a rehire whose break was
over seven years (2,670-4,000 days); a part-timer (28 h/week) whose hours worked fall to 1,150-1,240 while PTO and
holidays would lift them over 1,250; a full-timer whose USERRA military leave (a block of 17-24 weeks) is needed to
reach 1,250; a part-timer (30 or 32 h/week) on intermittent leave whose FMLA hours of the previous autumn fall inside
the rolling 12 months (the decision's request); a full-timer at a worksite of 12-35 employees with 1-2 sites 20-70
road miles away that lift the count to 50; and, half the time, an employee at an isolated site. The 2024 handbook
(docx) states every rule; the 2022 handbook (pdf, superseded) counts the calendar year and service from the last hire.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed or a planted trap moves no graded figure;
``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import datetime as dt
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, llm, rubric
from ..compose import email_text, meeting_notes, person
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, day, iso, pick_labels, read_rows, write_files

__all__ = ["FMLA_ELIGIBILITY"]

SHORTCUTS = ("pto_counts", "military_excluded", "current_stint_only", "any_break", "site_only", "calendar_year",
             "fulltime_hours")
_LABELS = {
    "count": ("Employees eligible", "Eligible requests", "Requests meeting FMLA eligibility"),
    "decision": ("{e} request can be designated in full", "Designate all of {e} requested hours as FMLA",
                 "{e} request fits the remaining entitlement"),
    "premise": ("Claim that {e} is ineligible holds", "{e} fails the eligibility test", "Manager's view on {e} holds"),
    "elig": ("eligible", "FMLA eligible", "meets eligibility"),
    "hours": ("hours worked in prior 12 months", "hours worked (12-month lookback)", "lookback hours worked"),
    "near": ("employees within 75 miles", "employees within 75 road miles", "headcount within 75 miles"),
    "remaining": ("FMLA hours remaining", "entitlement hours remaining", "hours of FMLA leave remaining"),
}
_COLS = {"request_id": ("request_id", "case_id"), "employee_id": ("employee_id", "emp_id", "worker_id"),
         "leave_start": ("leave_start", "leave_begin_date"), "eligible": ("eligible", "fmla_eligible"),
         "hours_12mo": ("hours_12mo", "lookback_hours", "hours_worked_12m"),
         "employees_75mi": ("employees_75mi", "headcount_75mi"), "entitlement": ("entitlement_hours", "entitlement"),
         "used": ("used_hours", "fmla_used_rolling"), "remaining": ("remaining_hours", "balance_hours")}
_DIRS = {"hris": ("hris", "hris_exports", "workday_exports"), "time": ("timekeeping", "kronos", "time_and_attendance"),
         "leave": ("leave_admin", "leave", "absence_mgmt"), "policy": ("policies", "handbook", "hr_policies"),
         "mail": ("correspondence", "email", "mail")}
_HOLIDAYS = {"2024-01-01", "2024-01-15", "2024-05-27", "2024-07-04", "2024-09-02", "2024-11-28", "2024-11-29",
             "2024-12-25", "2025-01-01", "2025-01-20", "2025-05-26", "2025-07-04", "2025-09-01", "2025-11-27",
             "2025-11-28", "2025-12-25", "2026-01-01", "2026-01-19", "2026-05-25", "2026-07-03", "2026-09-07"}
_CITIES = ("Dayton OH", "Springfield OH", "Columbus OH", "Lima OH", "Zanesville OH", "Marietta OH", "Findlay OH",
           "Athens OH", "Mansfield OH", "Sandusky OH")


# ---- the independent computation: csv only ----------------------------------------------------------------------

def _back(d: dt.date) -> dt.date:
    return d.replace(year=d.year - 1) if not (d.month == 2 and d.day == 29) else dt.date(d.year - 1, 2, 28)


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: csv rows, the handbook's rules in one pass
    per request."""
    folder, F = Path(folder), P["files"]
    emp = {r["employee_id"].strip(): r for r in read_rows(folder / F["roster"])}
    heads = {r["worksite_id"].strip(): int(r["headcount"]) for r in read_rows(folder / F["sites"])}
    road: dict[frozenset[str], float] = {frozenset((r["from_site"].strip(), r["to_site"].strip())): float(r["road_miles"])
                                         for r in read_rows(folder / F["miles"])}
    cards = read_rows(folder / F["time"])
    fmla = [r for r in read_rows(folder / F["leave"]) if r["fmla_designated"].strip().upper() in ("Y", "YES")]
    rows: list[dict[str, Any]] = []
    for q in read_rows(folder / F["requests"]):
        eid = q["employee_id"].strip()
        e, start = emp[eid], day(q["leave_start"].strip())
        lo = _back(start)
        hire = day(e["hire_date"].strip())
        svc = (start - hire).days
        if e["prior_hire_date"].strip():
            pe = day(e["prior_term_date"].strip())
            seven = dt.date(pe.year + 7, 3, 1) if (pe.month, pe.day) == (2, 29) else pe.replace(year=pe.year + 7)
            if hire < seven:
                svc += (pe - day(e["prior_hire_date"].strip())).days
        hrs = round(sum(float(c["hours"]) for c in cards if c["employee_id"].strip() == eid
                        and c["pay_code"].strip().upper() in ("REG", "OT", "MIL")
                        and lo <= day(c["work_date"].strip()) < start) + 1e-9, 2)
        site = e["worksite_id"].strip()
        near = sum(n for s, n in heads.items() if s == site or road.get(frozenset((site, s)), 1e9) <= P["radius_miles"])
        ok = svc >= 365 and hrs >= 1250 and near >= 50
        ent = 12 * float(e["scheduled_weekly_hours"])
        used = sum(float(r["hours"]) for r in fmla if r["employee_id"].strip() == eid
                   and lo <= day(r["leave_date"].strip()) < start)
        rows.append({"employee_id": eid, "eligible": ok, "hours_12mo": hrs, "employees_75mi": near,
                     "remaining": round(max(0.0, ent - used), 2) if ok else 0.0, "requested": float(q["hours_requested"])})
    rows.sort(key=lambda x: x["employee_id"])
    by = {x["employee_id"]: x for x in rows}
    f = by[P["focus"]]
    return {"rows": rows, "eligible_count": sum(x["eligible"] for x in rows),
            "decision": bool(f["eligible"] and f["requested"] <= f["remaining"] + 1e-9),
            "premise": not by[P["claim"]]["eligible"]}


# ---- drawing a task ----------------------------------------------------------------------------------------

def _workdays(a: dt.date, b: dt.date) -> list[dt.date]:
    return [a + dt.timedelta(days=k) for k in range((b - a).days) if (a + dt.timedelta(days=k)).weekday() < 5]


class _Cards:
    """Daily timecards: one row per employee, day and pay code."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rows: dict[str, dict[dt.date, list[tuple[str, float]]]] = {}

    def employ(self, eid: str, a: dt.date, b: dt.date, weekly: float, pto: float = 0.03) -> None:
        rng, daily = self.rng, weekly / 5
        book = self.rows.setdefault(eid, {})
        for d in _workdays(a, b):
            if iso(d) in _HOLIDAYS:
                book[d] = [("HOL", daily)]
            elif rng.random() < pto:
                book[d] = [(rng.choice(("PTO", "PTO", "SCK")), daily)]
            else:
                book[d] = [("REG", daily)] + ([("OT", rng.choice((1.0, 1.5, 2.0, 2.5)))]
                                              if weekly >= 40 and rng.random() < 0.1 else [])

    def worked(self, eid: str, lo: dt.date, hi: dt.date, codes: tuple[str, ...] = ("REG", "OT", "MIL")) -> float:
        return sum(h for d, items in self.rows[eid].items() if lo <= d < hi for c, h in items if c in codes)

    def recode(self, eid: str, d: dt.date, code: str, hours: float | None = None) -> None:
        items = self.rows[eid][d]
        h = items[0][1] if hours is None else hours
        rest = items[0][1] - h
        self.rows[eid][d] = [(code, h)] + ([("REG", round(rest, 2))] if rest > 0 else [])

    def table(self) -> list[list[Any]]:
        return [[eid, iso(d), c, f"{h:.2f}"] for eid, book in sorted(self.rows.items()) for d, items in sorted(book.items())
                for c, h in items]


def _draw_people(rng: random.Random, T: dt.date, targets: dict[str, bool]) -> tuple[dict[str, Any], _Cards]:
    ids = [f"E{n:05d}" for n in rng.sample(range(10000, 99999), 30)]
    cards = _Cards(rng)
    sites = {"WS-01": rng.randint(150, 400), "WS-02": rng.randint(12, 35), "WS-03": rng.randint(60, 180),
             "WS-04": rng.randint(8, 30)}
    roles = ["short_break", "long_break", "pto", "military", "rolling", "site"] + (["remote"] if rng.random() < 0.5 else [])
    near = rng.sample(("WS-05", "WS-06"), rng.randint(1, 2))
    need = 50 - sites["WS-02"]
    for k, s in enumerate(near):
        sites[s] = need + rng.randint(1, 20) if k == 0 else rng.randint(5, 25)
    sites.setdefault("WS-05", rng.randint(10, 40))
    sites.setdefault("WS-06", rng.randint(10, 40))
    ws = sorted(sites)
    miles: dict[frozenset[str], int] = {}
    for i, a in enumerate(ws):
        for b in ws[i + 1:]:
            pair = frozenset((a, b))
            if "WS-04" in pair:
                miles[pair] = rng.randint(95, 240)
            elif pair == frozenset(("WS-02", "WS-03")):
                miles[pair] = rng.randint(76, 92)
            elif "WS-02" in pair:
                miles[pair] = rng.randint(20, 70) if (pair - {"WS-02"}) <= set(near) else rng.randint(90, 180)
            else:
                miles[pair] = rng.randint(40, 160)
    people: dict[str, Any] = {}
    starts = {}
    for role, eid in zip(roles, ids):
        start = T - dt.timedelta(days=rng.randint(1, 12))
        while start.weekday() > 4:
            start -= dt.timedelta(days=1)
        starts[eid] = start
        weekly = {"pto": 28.0, "rolling": float(rng.choice((30, 32)))}.get(role, 40.0)
        hire = start - dt.timedelta(days=rng.randint(800, 4000))
        prior = ("", "")
        if role in ("short_break", "long_break"):
            hire = start - dt.timedelta(days=rng.randint(270, 340))
            pe = hire - dt.timedelta(days=rng.randint(440, 2000) if role == "short_break" else rng.randint(2670, 4000))
            prior = (iso(pe - dt.timedelta(days=rng.randint(400, 1500))), iso(pe))
        site = {"site": "WS-02", "remote": "WS-04"}.get(role, rng.choice(("WS-01", "WS-01", "WS-03")))
        people[eid] = {"role": role, "weekly": weekly, "hire": hire, "prior": prior, "site": site, "start": start}
        cards.employ(eid, max(hire, T - dt.timedelta(days=400)), start, weekly, pto=0.07 if role == "pto" else 0.03)
    for role, eid in zip(roles, ids):
        p, start = people[eid], starts[eid]
        lo = _back(start)
        days = sorted(d for d, items in cards.rows[eid].items() if lo <= d < start and items[0][0] == "REG")
        if role == "pto":
            target = rng.uniform(1150, 1240)
            for d in rng.sample(days, len(days)):
                if cards.worked(eid, lo, start) <= target:
                    break
                cards.recode(eid, d, "PTO")
        if role == "military":
            target, k0 = rng.uniform(1100, 1240), rng.randint(5, 60)
            for d in days[k0:]:
                if cards.worked(eid, lo, start, ("REG", "OT")) <= target:
                    break
                cards.recode(eid, d, "MIL")
        p["leave"] = []
        if role == "rolling":  # intermittent FMLA last autumn (inside the rolling year) and this year
            autumn = [d for d in days if d.year == start.year - 1 and d.month >= 8]
            spring = [d for d in days if d.year == start.year]
            for d in sorted(rng.sample(autumn, rng.randint(8, 14)) + rng.sample(spring, min(len(spring), rng.randint(2, 6)))):
                h = rng.choice((2.0, 3.0, 4.0, p["weekly"] / 5))
                cards.recode(eid, d, "FML", h)
                p["leave"].append((d, h, "Y"))
            old = [start - dt.timedelta(days=k) for k in range(380, 420) if (start - dt.timedelta(days=k)).weekday() < 5]
            for d in rng.sample(old, 3):  # before the rolling year: counts under neither method
                p["leave"].append((d, p["weekly"] / 5, "Y"))
        elif role in ("military", "site") and rng.random() < 0.7:
            for d in rng.sample(days, rng.randint(2, 6)):
                cards.recode(eid, d, "FML")
                p["leave"].append((d, p["weekly"] / 5, "Y"))
        if rng.random() < 0.4 and days:
            d = rng.choice(days)
            if cards.rows[eid][d][0][0] == "REG":
                cards.recode(eid, d, "PTO")
                p["leave"].append((d, p["weekly"] / 5, "N"))
    for eid in ids[len(roles):len(roles) + 4]:  # co-workers in the export
        hire = T - dt.timedelta(days=rng.randint(200, 5000))
        weekly = rng.choice((40.0, 40.0, 40.0, 30.0, 24.0))
        people[eid] = {"role": "other", "weekly": weekly, "hire": hire, "prior": ("", ""),
                       "site": rng.choice(ws), "start": None, "leave": []}
        cards.employ(eid, max(hire, T - dt.timedelta(days=400)), T, weekly)
    claim = next(e for e, p in people.items() if p["role"] == ("long_break" if targets["premise"] else "short_break"))
    focus = next(e for e, p in people.items() if p["role"] == "rolling")
    return {"people": people, "sites": sites, "miles": miles, "claim": claim, "focus": focus}, cards


def _handbook(P: dict[str, Any], current: bool) -> list[str]:
    if not current:
        return ["Employee Handbook 2022 - Section 7.3 Family and Medical Leave (superseded 1 January 2024)",
                "- Eligibility: 12 months of service since your most recent hire date, 1,250 hours in the 12 months "
                "before leave, and 50 employees within 75 miles.",
                "- Leave year: the calendar year. Each employee has 12 workweeks of leave each calendar year (480 hours "
                "for a full-time schedule); leave taken earlier in the same calendar year is deducted.",
                "- Paid time off runs concurrently with FMLA leave."]
    return [
        "Employee Handbook 2024 - Section 7.3 Family and Medical Leave (effective 1 January 2024; replaces the 2022 "
        "section)",
        "- Eligibility: an employee is eligible when, on the date the leave starts, all three tests are met: (1) 12 "
        "months of service, (2) at least 1,250 hours worked in the 12 months before the leave starts, (3) at least 50 "
        f"employees work at worksites within {P['radius_miles']} road miles of the employee's worksite.",
        "- Service: 12 months means at least 365 days of employment in total. A period of employment counts the days "
        "from its start date to its end date (the current period runs from the hire date to the leave start date). "
        "Employment before a break in service counts when the break (from the prior termination date to the rehire "
        "date) was shorter than seven years; a break of seven years or more erases the earlier service.",
        "- Hours worked: the 12 months before the leave starts are the work dates from the same calendar date one "
        "year earlier through the day before the leave starts. Hours worked are regular (REG) and overtime (OT) hours, "
        "plus military leave (MIL): under USERRA the hours the employee would have worked during military service "
        "count. Paid time off (PTO), holidays (HOL), sick time (SCK) and FMLA leave (FML) are not hours worked, "
        "whether paid or not. Report hours to two decimals, rounded half up.",
        f"- Worksite test: count the headcount of the employee's own worksite and of every worksite whose road distance "
        f"from it is {P['radius_miles']} miles or less (hris worksite headcounts and road-mile table).",
        "- Leave year: the rolling 12-month period measured backward from the date leave is used. The leave available "
        "when a leave starts is the entitlement less the FMLA-designated hours used in the 12 months before the start "
        "date (same window as for hours worked). Leave not designated FMLA does not count.",
        "- Entitlement in hours: 12 times the employee's scheduled weekly hours (part-time schedules prorated; "
        "intermittent and reduced-schedule leave is deducted in hours). An ineligible employee has 0 hours available.",
        "- Designation: a request can be designated FMLA in full only when the employee is eligible and the hours "
        "requested do not exceed the hours available."]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.fmla import analyse

    dirs = pick_labels(rng, _DIRS)
    T = dt.date(2026, rng.randint(3, 6), rng.randint(1, 28))
    W, cards = _draw_people(rng, T, targets)
    people = W["people"]
    P: dict[str, Any] = {
        "radius_miles": 75, "focus": W["focus"], "claim": W["claim"], "columns": pick_labels(rng, _COLS),
        "files": {"roster": f"{dirs['hris']}/employee_extract_{iso(T)}.csv", "sites": f"{dirs['hris']}/worksites.csv",
                  "miles": f"{dirs['hris']}/worksite_road_miles.csv",
                  "time": f"{dirs['time']}/exports/timecard_detail_{iso(T - dt.timedelta(days=400))}_{iso(T)}.csv",
                  "leave": f"{dirs['leave']}/leave_history.csv", "requests": f"{dirs['leave']}/pending/fmla_requests.csv"},
        "deliverables": {"memo": rng.choice(("fmla_determinations_memo.docx", "fmla_eligibility_notices.docx")),
                         "csv": rng.choice(("hris_fmla_determinations.csv", "fmla_upload.csv"))}}
    reqs = [e for e, p in people.items() if p["start"] is not None]
    kinds = {"rolling": "intermittent"}
    reasons = ("own serious health condition", "care of a parent", "bonding with a newborn", "care of a spouse")
    req_rows = [[f"FMLA-{T.year % 100}-{rng.randint(100, 999)}{k}", e, iso(people[e]["start"] - dt.timedelta(days=rng.randint(3, 20))),
                 iso(people[e]["start"]), kinds.get(people[e]["role"], rng.choice(("continuous", "continuous", "reduced schedule"))),
                 rng.choice(reasons), f"{people[e]['weekly'] * rng.randint(2, 8):.2f}"] for k, e in enumerate(reqs)]
    req_head = ["request_id", "employee_id", "received", "leave_start", "leave_kind", "reason", "hours_requested"]
    files = _files(rng, P, W, cards, req_head, req_rows, dirs, T)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), {k: files[k] for k in P["files"].values()})
        pre = analyse(tmp, P)
    f = next(x for x in pre["rows"] if x["employee_id"] == W["focus"])
    gap = rng.choice((4.0, 8.0, 12.0, 16.0, 24.0))
    want = f["remaining"] - gap if targets["decision"] else f["remaining"] + gap
    if not f["eligible"] or want <= 0:
        raise DegenerateTask("the focus request cannot carry the decision")
    for r in req_rows:
        if r[1] == W["focus"]:
            r[6] = f"{want:.2f}"
    files = _files(rng, P, W, cards, req_head, req_rows, dirs, T)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), {k: files[k] for k in P["files"].values()})
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    if truth["decision"] != targets["decision"] or truth["premise"] != targets["premise"]:
        raise DegenerateTask("the targets are missed")
    role = {e: p["role"] for e, p in people.items()}
    want_ok = {"short_break": True, "long_break": False, "pto": False, "military": True, "rolling": True, "site": True,
               "remote": False}
    if any(x["eligible"] != want_ok[role[x["employee_id"]]] for x in truth["rows"]):
        raise DegenerateTask("a planted requester missed its determination")
    graded = ("eligible", "hours_12mo", "employees_75mi", "remaining")
    where = {"pto_counts": ("data", "PTO, holiday and sick hours are not hours worked"),
             "military_excluded": ("footnote", "USERRA military leave counts as hours worked"),
             "current_stint_only": ("memo", "service before a break shorter than seven years counts"),
             "any_break": ("memo", "a break of seven years or more erases the earlier service"),
             "site_only": ("data", "the 50-employee test counts every worksite within 75 road miles"),
             "calendar_year": ("memo", "the 2024 handbook's rolling-backward year supersedes the 2022 calendar year"),
             "fulltime_hours": ("memo", "a part-time entitlement is 12 times the scheduled weekly hours")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s} for s, g in singles.items()
             if any(a[k] != b[k] for a, b in zip(g["rows"], truth["rows"]) for k in graded)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    for k in ("decision", "premise"):
        labels[k] = labels[k].format(e=W["focus"] if k == "decision" else W["claim"])
    P["labels"] = labels
    P["probe"] = {r: e for e, r in role.items() if e in {x["employee_id"] for x in truth["rows"]}}
    return Draft(subject=f"FMLA determinations {iso(T)}", instructions=_prompt(rng, P, files, people, T), files=files,
                 roles={k: ("data" if k in P["files"].values() else "distractor") for k in files} | {
                     k: v for k, v in ((f"{dirs['policy']}/employee_handbook_2024_s7-3_fmla.docx", "policy"),
                                       (f"{dirs['policy']}/archive/employee_handbook_2022_s7-3_fmla.pdf", "stale"))},
                 params=P, traps=traps, targets=dict(targets),
                 distributions="5-6 requesters with 4 co-workers in a daily timecard export over 400 days (REG daily at "
                               "schedule/5, PTO/SCK 3 % of days, OT 1-2.5 h on 10 % of full-time days, US holidays); "
                               "headcounts uniform 8-400 over 6 worksites; road miles 20-240; service and breaks "
                               "uniform in stated day ranges; intermittent FMLA 2-6.4 h occurrences")


def _files(rng: random.Random, P: dict[str, Any], W: dict[str, Any], cards: _Cards, req_head: list[str],
           req_rows: list[list[Any]], dirs: dict[str, str], T: dt.date) -> dict[str, Any]:
    F, people = P["files"], W["people"]
    r2 = random.Random(repr(T) + W["focus"])  # the same distractor text on a redraw of the files
    roster = [[e, person(r2), p["site"], iso(p["hire"]), p["prior"][0], p["prior"][1],
               "PT" if p["weekly"] < 40 else "FT", f"{p['weekly']:.1f}", r2.choice(("Operations", "Finance", "Customer care",
                                                                                   "Warehouse", "IT", "Sales"))]
              for e, p in sorted(people.items())]
    sites = [[s, _CITIES[k], n] for k, (s, n) in enumerate(sorted(W["sites"].items()))]
    miles = [[*sorted(pair), m] for pair, m in sorted(W["miles"].items(), key=lambda x: sorted(x[0]))]
    leave = [[e, f"LV-{k:04d}", iso(d), f"{h:.2f}", "Y" if y == "Y" else "N", "FMLA" if y == "Y" else "personal"]
             for k, (e, d, h, y) in enumerate(sorted((e, d, h, y) for e, p in people.items() for d, h, y in p["leave"]), 1)]
    table = cards.table()
    claim, hire = W["claim"], people[W["claim"]]["hire"]
    out: dict[str, Any] = {
        F["roster"]: lambda p: write_csv(p, ["employee_id", "name", "worksite_id", "hire_date", "prior_hire_date",
                                             "prior_term_date", "ft_pt", "scheduled_weekly_hours", "department"], roster),
        F["sites"]: lambda p: write_csv(p, ["worksite_id", "city", "headcount"], sites),
        F["miles"]: lambda p: write_csv(p, ["from_site", "to_site", "road_miles"], miles),
        F["time"]: lambda p: write_csv(p, ["employee_id", "work_date", "pay_code", "hours"], table),
        F["leave"]: lambda p: write_csv(p, ["employee_id", "entry_id", "leave_date", "hours", "fmla_designated",
                                            "leave_type"], leave),
        F["requests"]: lambda p: write_csv(p, req_head, req_rows),
        f"{dirs['policy']}/employee_handbook_2024_s7-3_fmla.docx": lambda p: write_docx(
            p, "Employee Handbook 2024 - Family and Medical Leave", _handbook(P, True)),
        f"{dirs['policy']}/archive/employee_handbook_2022_s7-3_fmla.pdf": lambda p: write_pdf(
            p, "Employee Handbook 2022 - Family and Medical Leave", _handbook(P, False)),
        f"{dirs['time']}/pay_codes.csv": lambda p: write_csv(p, ["pay_code", "description"], [
            ["REG", "Regular hours"], ["OT", "Overtime hours"], ["PTO", "Paid time off"], ["HOL", "Paid holiday"],
            ["SCK", "Sick time"], ["MIL", "Military leave (USERRA)"], ["FML", "FMLA leave"]]),
        f"{dirs['mail']}/{iso(T - dt.timedelta(days=2))}_re_fmla_requests.txt": lambda p: write_text(p, email_text(
            sender=f"{person(r2)}, Operations Manager", to="HR Business Partner", date=iso(T - dt.timedelta(days=2)),
            subject="FMLA requests on my team",
            body=f"{claim} was only rehired on {iso(hire)}, so as far as I can tell they are not eligible for FMLA yet. "
                 f"Can you confirm with the others? I also need to know if {W['focus']}'s intermittent hours are all "
                 "covered.")),
        f"{dirs['mail']}/{iso(T - dt.timedelta(days=9))}_benefits_vendor.txt": lambda p: write_text(p, email_text(
            sender="Leave administration vendor", to="HR", date=iso(T - dt.timedelta(days=9)),
            subject="Short-term disability claim forms",
            body="Attached are the updated STD claim forms. STD is a wage-replacement benefit and runs separately from "
                 "FMLA job protection; the designation remains the employer's decision.")),
        f"{dirs['leave']}/templates/wh-381_notice_fields.md": lambda p: write_text(p, (
            "# Notice of Eligibility and Rights (WH-381) - fields we fill\n\n- Employee, request date, leave start\n"
            "- Eligible yes/no; if not, which test failed (service, hours, worksite)\n- Hours available under FMLA\n")),
        f"meetings/{iso(T - dt.timedelta(days=14))}_hr_team.md": lambda p: write_text(p, meeting_notes(
            r2, topic="FMLA backlog", people=[person(r2) for _ in range(3)], date=iso(T - dt.timedelta(days=14)))),
        f"{dirs['hris']}/benefits/open_enrollment_{T.year}.xlsx": lambda p: write_xlsx(p, [(
            "Rates", ["plan", "tier", "employee_cost_per_pay"], [["PPO", "employee", 112.40], ["PPO", "family", 398.10],
                                                                  ["HDHP", "employee", 58.00], ["HDHP", "family", 201.75]])]),
    }
    return out


def _prompt(rng: random.Random, P: dict[str, Any], files: dict[str, Any], people: dict[str, Any], T: dt.date) -> str:
    L, D, C = P["labels"], P["deliverables"], P["columns"]
    boss = person(rng)
    cols = ", ".join(C[k] for k in ("request_id", "employee_id", "leave_start", "eligible", "hours_12mo",
                                    "employees_75mi", "entitlement", "used", "remaining"))
    steps = ["Check each pending request in the request log against the current handbook section 7.3 (service with "
             "any break in service, hours worked in the 12 months before the leave starts, employees within 75 road "
             "miles).",
             "Work out the hours each eligible employee has left under the handbook's leave year, in hours, prorated "
             "for part-time schedules.",
             f"Tell me whether {P['focus']}'s intermittent request can be designated FMLA in full.",
             f"Check the manager's email about {P['claim']}."]
    memo = [f"{L['count']}: <number>", f"{L['decision']}: <yes or no>", f"{L['premise']}: <yes or no>"]
    for e in sorted(e for e, p in people.items() if p["start"] is not None):
        memo += [f"{e} {L['elig']}: <yes or no>", f"{e} {L['hours']}: <hours, 2 decimals>",
                 f"{e} {L['near']}: <whole number>", f"{e} {L['remaining']}: <hours, 2 decimals>"]
    deliv = [f"{D['csv']}: the HRIS determinations upload, columns {cols}, one row per pending request, "
             f"{C['eligible']} Y or N, dates YYYY-MM-DD, hours to two decimals, {C['remaining']} 0 for an ineligible "
             "employee.",
             f"{D['memo']}: the facts for the eligibility notices, opening with these labelled lines (label: value), "
             "then a short note of the method:\n"
             + "\n".join(f"   {x}" for x in memo)]
    return "\n\n".join([
        rng.choice((f"From: {boss}, HR Director\nSubject: Pending FMLA requests\n\n", f"Hi - {boss} here.\n\n"))
        + rng.choice(("We have FMLA requests pending and the notices are due within five business days. Who is "
                      "eligible, and how much leave does each have left?",
                      "Please decide the pending FMLA requests: who is eligible, and how many hours remain under the "
                      "rolling year?")),
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Please leave in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliv, 1)),
        "Thanks.\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(files)),
    ]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, C = P["deliverables"], P["labels"], P["columns"]
    memo, up = D["memo"], D["csv"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    by = {x["employee_id"]: x for x in facts["rows"]}
    R = P["probe"]

    def cell(role: str, key: str) -> tuple[str, Any]:
        x = by[R[role]]
        v: Any = ("Y" if x[key] else "N") if key == "eligible" else float(x[key])
        shown = v if key == "eligible" else str(int(v)) if key == "employees_75mi" else f"{v:.2f}"
        return (f"{up}: {x['employee_id']} {C[key]} = {shown}", CellCheck(
            file=up, match={C["employee_id"]: x["employee_id"]}, column=C[key], value=v,
            tolerance=0.0 if key in ("eligible", "employees_75mi") else 0.01))

    def line(role: str, key: str) -> tuple[str, Any]:
        x, lab = by[R[role]], {"eligible": "elig", "hours_12mo": "hours", "employees_75mi": "near",
                               "remaining": "remaining"}[key]
        label = f"{x['employee_id']} {L[lab]}"
        if key == "eligible":
            return f"{label}: {yes(x[key])}", fld(memo, label, yes(x[key]), ["yes", "no"])
        shown = x[key] if key == "employees_75mi" else f"{x[key]:.2f}"
        return f"{label}: {shown}", FieldCheck(file=memo, label=label, number=float(x[key]),
                                                tolerance=0.0 if key == "employees_75mi" else 0.01)

    out = [
        rubric("Counts hours actually worked: PTO and holidays out, USERRA military leave in", 10, [
            cell("pto", "hours_12mo"), line("pto", "eligible"), cell("military", "hours_12mo"),
            line("military", "eligible")]),
        rubric("Applies the break-in-service rule to the 12 months of service", 10, [
            cell("short_break", "eligible"), line("short_break", "eligible"), cell("long_break", "eligible"),
            line("long_break", "eligible")]),
        rubric("Counts employees within 75 road miles across worksites", 8, [
            cell("site", "employees_75mi"), line("site", "employees_75mi"), cell("site", "eligible")]),
        rubric("Measures leave used on the rolling-backward year, prorated for the part-time schedule", 10, [
            cell("rolling", "remaining"), line("rolling", "remaining"), cell("military", "remaining"),
            cell("site", "remaining")]),
        rubric("Gives one determination per pending request", 6, [
            (f"{up} has {len(facts['rows'])} rows", RowCountCheck(file=up, key=C["employee_id"], count=len(facts["rows"]))),
            (f"{L['count']} = {facts['eligible_count']}",
             FieldCheck(file=memo, label=L["count"], number=float(facts["eligible_count"]), tolerance=0.0))]),
        rubric("Decides the intermittent request against the hours available", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            cell("rolling", "remaining")]),
        rubric("Tests the manager's claim against the record", 8, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            line("short_break" if not facts["premise"] else "long_break", "eligible")]),
    ]
    if judgement:
        out.append(rubric("Writes notice facts HR can send", 6, [
            ("States for each ineligible employee which test failed", llm("content")),
            ("Explains the rolling-backward year and the part-time proration", llm("explanation"))]))
    return out


FMLA_ELIGIBILITY = Workflow(
    key="fmla_eligibility", family="fmla_eligibility",
    method="FMLA eligibility (12 months with the seven-year break rule, 1,250 hours worked incl. USERRA, 50 within 75 "
           "miles) and leave remaining on the rolling-backward year in hours, prorated for part-time schedules",
    professions=("human_resources_specialists",), solver="fmla", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated HRIS extract, daily timekeeping export and leave history (stated distributions)")
