"""Annual caseload report: clearance, time to disposition against the time standards, and age of the active
pending caseload (court clerks; the Court Administrator's annual report, CourTools measures 2, 3 and 4).

The docket is generated for a report year and the year before it: new filings per year of 110-190 felonies,
170-280 misdemeanours and 90-160 general civil cases, filed uniformly over each year; active time to disposition
log-normal (felony median 35-48 days when the felony standard is met, 70-95 when it is not, sigma 0.8;
misdemeanour median 28-45, sigma 0.8; civil median 140-200, sigma 0.7); continuances Poisson (1.2 a criminal case,
0.7 a civil one), each continued 14-56 days; one inactive period in 10 % of felonies (bench warrant; 4 % competency
evaluation), 12 % of misdemeanours (warrant) and 6 % of civil cases (bankruptcy stay), log-normal length (median
60-150 days), some still open at the export; 3-5 % of cases disposed earlier reopened in the year and disposed
again within 10-45 days; 3-5 stalled cases a type filed 400-900 days before year end. The export is run 4-12 days
after year end. Clock rules and thresholds are the folder's current standard and reporting procedure; the archived
standard (last year's report) used other tiers and grouped criminal cases together.

Failure behaviour: ``draw`` raises DegenerateTask when a draw misses its target or a planted item changes no
graded fact; ``recheck`` raises OSError/KeyError/ValueError on an unreadable folder.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, write_files

__all__ = ["CASELOAD_REPORT"]

TYPES = {"CF": "Felony", "CM": "Misdemeanor", "CV": "General civil"}
STANDARDS = {"CF": [[90, 75], [180, 90], [365, 98]], "CM": [[60, 75], [90, 90], [180, 98]],
             "CV": [[180, 75], [365, 90], [540, 98]]}
ARCHIVED = {"CF": [[120, 90], [180, 98], [365, 100]], "CM": [[30, 90], [90, 100]],
            "CV": [[365, 90], [540, 98], [730, 100]]}
INACTIVE = {"BWI": "BWS", "CEO": "CEF", "BKS": "BKL"}
CODES: dict[str, Any] = {"inactive": INACTIVE, "continuance": "CONT"}
_EVENT_TEXT = {"FILE": "Case filed", "ARR": "Arraignment held", "HRG": "Hearing held", "CONT": "Continuance granted",
               "BWI": "Bench warrant issued", "BWS": "Bench warrant served/recalled",
               "CEO": "Competency evaluation ordered", "CEF": "Competency finding entered",
               "BKS": "Notice of bankruptcy stay", "BKL": "Bankruptcy stay lifted", "DISP": "Disposition entered",
               "REOP": "Case reopened", "RDSP": "Reopened case disposed"}
_DISP = {"CF": ("PLEA", "DISM", "NOLLE", "TRJY", "TRBN"), "CM": ("PLEA", "DISM", "NOLLE", "TRBN", "DIVN"),
         "CV": ("SETT", "DFLT", "DISM", "SJDG", "TRBN")}
_LABELS = {
    "clearance": ("Clearance rate, {type} (%)", "{type} clearance rate (%)", "Clearance, {type} (%)"),
    "within": ("{type} disposed within {days} days (%)", "{type} dispositions within {days} days (%)",
               "Share of {type} cases disposed within {days} days (%)"),
    "over": ("Active pending cases over the standard", "Pending cases older than the standard",
             "Over-standard active pending cases"),
    "oldest": ("Oldest active pending case", "Oldest pending case number", "Longest-pending active case"),
    "oldest_age": ("Age of the oldest active pending case (days)", "Oldest pending case age (days)",
                   "Days pending, oldest active case"),
    "decision": ("Felony caseload meets every time standard tier", "All felony time standards met",
                 "Felony tiers all met"),
    "premise": ("Case {no} over the time standard at year end", "Case {no} active and beyond the standard",
                "Case {no} pending past the standard"),
}
_COLUMNS = {"type": ("Case type",), "filings": ("New filings", "Filings"), "reopened": ("Reopened", "Reopened cases"),
            "incoming": ("Incoming",), "outgoing": ("Outgoing", "Dispositions"),
            "clearance": ("Clearance rate (%)", "Clearance (%)"), "standard": ("Standard (days)",),
            "target": ("Target (%)",), "disposed": ("Disposed",), "within": ("Within standard",),
            "pct": ("Percent within (%)",), "met": ("Met",), "pending": ("Active pending",),
            "over": ("Over standard",), "share_over": ("Share over (%)",), "oldest": ("Oldest case",),
            "oldest_age": ("Oldest age (days)",)}
_DIRS = {"cms": ("cms_exports", "case_management/exports", "data/cms"),
         "std": ("standards", "policies/time_standards", "reference/standards"),
         "reports": ("reports", "annual_reports", "court_admin/reports"),
         "mail": ("correspondence", "email", "inbox")}


def _lognormal(rng: random.Random, median: float, sigma: float) -> int:
    return max(3, int(round(math.exp(rng.gauss(math.log(median), sigma)))))


def _poisson(rng: random.Random, lam: float) -> int:
    k, p, stop = 0, 1.0, math.exp(-lam)
    while True:
        p *= rng.random()
        if p <= stop:
            return k
        k += 1


def _case(rng: random.Random, t: str, filed: dt.date, net: int, export: dt.date, inactive: str | None,
          length: int) -> dict[str, Any]:
    """One case's life: filing, continuances, at most one inactive period, disposition (None if after export)."""
    c: dict[str, Any] = {"type": t, "filed": filed, "periods": [], "conts": [], "reopened": None, "redisp": None}
    gross = net
    if inactive:
        start = filed + dt.timedelta(days=max(1, int(net * rng.uniform(0.1, 0.8))))
        end = start + dt.timedelta(days=length)
        c["periods"].append((inactive, start, end if end <= export else None))
        gross += length
    disp = filed + dt.timedelta(days=gross)
    c["disp"] = disp if disp <= export and not (c["periods"] and c["periods"][0][2] is None) else None
    c["code"] = rng.choice(_DISP[t])
    last = min(disp, export)
    for _ in range(_poisson(rng, 1.2 if t != "CV" else 0.7)):
        room = (last - filed).days - 20
        if room <= 5:
            break
        at = filed + dt.timedelta(days=rng.randint(5, room))
        if any(s <= at < (e or export) for _, s, e in c["periods"]):
            continue
        to = min(at + dt.timedelta(days=rng.randint(14, 56)), last)
        if to > at:
            c["conts"].append((at, to))
    return c


def _docket(rng: random.Random, year: int, felony_ok: bool) -> dict[str, Any]:
    ye = dt.date(year, 12, 31)
    export = ye + dt.timedelta(days=rng.randint(4, 12))
    medians = {"CF": rng.uniform(35, 48) if felony_ok else rng.uniform(70, 95), "CM": rng.uniform(28, 45),
               "CV": rng.uniform(140, 200)}
    sigma = {"CF": 0.8, "CM": 0.8, "CV": 0.7}
    sizes = {"CF": (110, 190), "CM": (170, 280), "CV": (90, 160)}
    inact = {"CF": (0.10, "BWI", 90.0), "CM": (0.12, "BWI", 60.0), "CV": (0.06, "BKS", 150.0)}
    cases: list[dict[str, Any]] = []
    for t in TYPES:
        lo, hi = sizes[t]
        for yr in (year - 1, year):
            start = dt.date(yr, 1, 1)
            for _ in range(rng.randint(lo, hi)):
                filed = start + dt.timedelta(days=rng.randint(0, 364))
                p, kind, med = inact[t]
                u = rng.random()
                kind_now = kind if u < p else ("CEO" if t == "CF" and u < p + 0.04 else None)
                cases.append(_case(rng, t, filed, _lognormal(rng, medians[t], sigma[t]), export, kind_now,
                                   _lognormal(rng, med if kind_now != "CEO" else 120.0, 0.6)))
        for k in range(rng.randint(3, 5)):  # stalled cases: some aged past the standard, some only by inactive time
            filed = ye - dt.timedelta(days=rng.randint(400, 900))
            kind = "CEO" if t == "CF" and k == 1 else inact[t][1]
            c = _case(rng, t, filed, 5000, export, None, 0)
            top, age = STANDARDS[t][-1][0], (ye - filed).days
            if k % 3 == 1 and age > top + 40:  # an inactive period long enough to bring the net age under the top tier
                span = age - top + rng.randint(20, 90)
                s = filed + dt.timedelta(days=rng.randint(10, max(11, age - span - 15)))
                c["periods"] = [(kind, s, s + dt.timedelta(days=span))]
                if s + dt.timedelta(days=span) >= ye:
                    continue
            elif k % 3 == 2:  # warrant outstanding at year end: not active
                s = ye - dt.timedelta(days=rng.randint(30, 200))
                c["periods"] = [(kind, s, None)]
            c["conts"] = [x for x in c["conts"] if not any(p[1] <= x[0] for p in c["periods"])]
            c["stalled"] = True
            cases.append(c)
    for c in cases:  # reopened in the report year and disposed again
        d = c["disp"]
        if d and dt.date(year - 1, 3, 1) <= d <= dt.date(year, 9, 30) and rng.random() < 0.04:
            r = max(d + dt.timedelta(days=rng.randint(30, 200)), dt.date(year, 1, 1) + dt.timedelta(days=rng.randint(0, 40)))
            if r <= dt.date(year, 11, 15):
                c["reopened"], c["redisp"] = r, r + dt.timedelta(days=rng.randint(10, 45))
    keep = []
    for c in cases:
        d = c["disp"]
        if c["filed"].year == year or (d and d.year == year) or d is None or d > ye or c["reopened"]:
            keep.append(c)
    keep.sort(key=lambda c: (c["filed"], c["type"]))
    seq: dict[tuple[int, str], int] = {}
    for c in keep:
        key = (c["filed"].year, c["type"])
        seq[key] = seq.get(key, rng.randint(100, 900)) + rng.randint(1, 3)
        c["no"] = f"{c['filed'].year}-{c['type']}-{seq[key]:05d}"
    return {"cases": keep, "year": year, "ye": ye, "export": export}


def _case_rows(d: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for c in d["cases"]:
        held = {"BWI": "Inactive - warrant", "CEO": "Inactive - competency", "BKS": "Stayed"}
        status = ("Reopened - disposed" if c["reopened"] else "Disposed" if c["disp"] else
                  next((held[k] for k, _, e in c["periods"] if e is None), "Active"))
        rows.append([c["no"], c["type"], iso(c["filed"]), iso(c["disp"]) if c["disp"] else "",
                     c["code"] if c["disp"] else "", iso(c["reopened"]) if c["reopened"] else "",
                     iso(c["redisp"]) if c["redisp"] else "", status, f"Dept {int(c['no'][-2:]) % 9 + 1}"])
    return rows


def _event_rows(d: dict[str, Any]) -> list[list[Any]]:
    ev: list[tuple[str, dt.date, int, str, str]] = []
    for c in d["cases"]:
        no = c["no"]
        ev.append((no, c["filed"], 0, "FILE", ""))
        first = c["filed"] + dt.timedelta(days=2 + int(no[-1]))
        if first < (c["disp"] or d["export"]):
            ev.append((no, first, 1, "ARR" if c["type"] != "CV" else "HRG", ""))
        for at, to in c["conts"]:
            ev.append((no, at, 2, "CONT", iso(to)))
        for kind, s, e in c["periods"]:
            ev.append((no, s, 3, kind, ""))
            if e is not None:
                ev.append((no, e, 4, INACTIVE[kind], ""))
        if c["disp"]:
            ev.append((no, c["disp"], 5, "DISP", ""))
        if c["reopened"]:
            ev.append((no, c["reopened"], 6, "REOP", ""))
            ev.append((no, c["redisp"], 7, "RDSP", ""))
    ev = [e for e in ev if e[1] <= d["export"]]
    ev.sort(key=lambda e: (e[1], e[0], e[2]))
    return [[k, no, iso(at), code, _EVENT_TEXT[code], nxt] for k, (no, at, _, code, nxt) in enumerate(ev, 1)]


# ---- the independent computation: csv only, a per-case state machine over the events -------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the csv exports: each case's events are replayed in order, the clock stopping
    while an inactive status is open; continuances are not looked at."""
    folder, F = Path(folder), P["files"]
    year = int(P["year"])
    y0, ye = dt.date(year, 1, 1), dt.date(year, 12, 31)
    with (folder / F["events"]).open(newline="", encoding="utf-8") as f:
        events = sorted(csv.DictReader(f), key=lambda r: (r["case_number"], r["event_date"], int(r["seq"])))
    stops = {v: k for k, v in P["codes"]["inactive"].items()}
    replay: dict[str, list[tuple[dt.date, str]]] = {}
    for r in events:
        replay.setdefault(r["case_number"], []).append((dt.date.fromisoformat(r["event_date"]), r["event_code"]))

    def clock(case: str, filed: dt.date, until: dt.date) -> tuple[int, bool]:
        stopped_at: dict[str, dt.date] = {}
        off = 0
        for when, code in replay.get(case, []):
            if when > until:
                break
            if code in P["codes"]["inactive"]:
                stopped_at[code] = when
            elif code in stops and stops[code] in stopped_at:
                off += (when - stopped_at.pop(stops[code])).days
        off += sum((until - s).days for s in stopped_at.values())
        return (until - filed).days - off, bool(stopped_at)

    with (folder / F["cases"]).open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    got: Facts = {"clearance": [], "tiers": [], "pending": []}
    everyone: list[tuple[int, str]] = []
    premise = False
    for t, label in P["types"].items():
        mine = [r for r in rows if r["case_type"] == t]
        inside = lambda s: bool(s) and y0 <= dt.date.fromisoformat(s) <= ye  # noqa: E731
        filings = sum(inside(r["filing_date"]) for r in mine)
        reopened = sum(inside(r["reopened_date"]) for r in mine)
        outgoing = sum(inside(r["disposition_date"]) for r in mine) + sum(inside(r["reopen_disposition_date"]) for r in mine)
        got["clearance"].append({"type": t, "label": label, "filings": filings, "reopened": reopened,
                                 "incoming": filings + reopened, "dispositions": outgoing,
                                 "clearance": rnd(outgoing * 100.0 / (filings + reopened), 1)})
        times = [clock(r["case_number"], dt.date.fromisoformat(r["filing_date"]),
                       dt.date.fromisoformat(r["disposition_date"]))[0] for r in mine if inside(r["disposition_date"])]
        for days, target in P["standards"][t]:
            n = len([x for x in times if x <= days])
            pct = rnd(n * 100.0 / len(times), 1)
            got["tiers"].append({"type": t, "label": label, "days": days, "target": float(target),
                                 "disposed": len(times), "within": n, "pct": pct, "met": pct >= target})
        ages = []
        for r in mine:
            filed = dt.date.fromisoformat(r["filing_date"])
            if filed > ye or (r["disposition_date"] and dt.date.fromisoformat(r["disposition_date"]) <= ye):
                continue
            age, inactive = clock(r["case_number"], filed, ye)
            if not inactive:
                ages.append((-age, r["case_number"]))
        ages.sort()
        top = P["standards"][t][-1][0]
        got["pending"].append({"type": t, "label": label, "pending": len(ages), "over": sum(-a > top for a, _ in ages),
                               "oldest_case": ages[0][1] if ages else "", "oldest_age": -ages[0][0] if ages else 0,
                               "top": top})
        everyone += ages
        premise = premise or bool(t == P["premise_type"] and any(c == P["premise_case"] and -a > top for a, c in ages))
    everyone.sort()
    got.update(over_total=sum(p["over"] for p in got["pending"]), oldest_case=everyone[0][1],
               oldest_age=-everyone[0][0], premise=premise,
               decision=all(x["met"] for x in got["tiers"] if x["type"] == P["decision_type"]))
    return got


# ---- drawing a task ---------------------------------------------------------------------------------------

def _tier_text(std: dict[str, list[list[int]]]) -> list[str]:
    return [f"{TYPES[t]} ({t}): " + ", ".join(f"{p} % within {d} days" for d, p in tiers) + "." for t, tiers in std.items()]


def _standard(version: int, adopted: str, current: bool) -> list[str]:
    if current:
        rules = [f"Time standards for trial courts, version {version}, adopted {adopted}. This version replaces version "
                 f"{version - 1} and all earlier versions for every report issued after its adoption."] + [
            "Case types are reported as the case management system codes them: felony, misdemeanor and general civil, "
            "each separately."] + _tier_text(STANDARDS) + [
            "Elapsed time runs from the filing date to the disposition date in calendar days (disposition date minus "
            "filing date), less the time the case spent in inactive status. Inactive status is a bench warrant "
            "outstanding (from issue to service or recall), a competency evaluation (from the order to the finding) "
            "or a bankruptcy stay (from the notice to the lifting of the stay); each inactive period counts its end "
            "date minus its start date.",
            "Continuances, whether requested by a party or by the court, do NOT stop the clock.",
            "A case is within a tier when its elapsed time is at most the tier's number of days. Only a case's original "
            "disposition is measured; the second disposition of a reopened case is counted in the clearance rate only.",
            "The longest tier of a case type is its standard for the age of pending cases."]
    else:
        rules = [f"Time standards for trial courts, version {version}, adopted {adopted}.",
                 "Criminal cases (felony and misdemeanor) are reported together; civil cases separately."] + _tier_text(
            ARCHIVED) + ["Elapsed time runs from filing to disposition.",
                         "Time during a continuance granted at the request of the defence is excluded."]
    return rules


def _procedure(year: int) -> list[str]:
    return [
        "Scope: the annual caseload report covers cases by case type for the calendar year (1 January to 31 December).",
        "Clearance rate = outgoing cases / incoming cases x 100. Incoming cases are new filings in the year plus "
        "reopened cases (reopened date in the year). Outgoing cases are dispositions in the year, including the "
        "dispositions of reopened cases.",
        "Time to disposition: cases whose original disposition date falls in the year, measured under the current "
        "time standards (see the standards folder); the percentage within each tier is of those cases.",
        f"Active pending cases at year end: filed on or before 31 December {year}, with no disposition dated on or "
        f"before that day, and not in inactive status on 31 December {year} (a case whose inactive status ends on 31 "
        "December is active that day). Status is taken from the status events; events after year end are ignored. "
        "The export is run a few days into the new year, so a disposition dated after 31 December leaves the case "
        "pending at year end.",
        "Age of an active pending case = days from filing to 31 December less its inactive time up to that day. A "
        "case is over the standard when its age is greater than the longest tier of its case type. The oldest case is "
        "the one with the greatest age (a tie goes to the lower case number).",
        "Percentages are rounded half up to one decimal place; a tier is met when its rounded percentage is at least "
        "the tier's target. Rates and percentages in the workbook are formulas on the counts."]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers._deliver import read_frame
    from ..solvers.caseload import _periods, analyse, elapsed, inactive_on

    prof = profession(occupation)
    year = rng.choice((2023, 2024, 2025))
    dirs = pick_labels(rng, _DIRS)
    P: dict[str, Any] = {
        "files": {"cases": f"{dirs['cms']}/cms_cases_{year}.csv", "events": f"{dirs['cms']}/status_events_{year}.csv"},
        "dirs": dirs, "year": year, "types": dict(TYPES), "standards": STANDARDS, "archived_standards": ARCHIVED,
        "codes": CODES, "decision_type": "CF", "premise_type": "", "premise_case": "",
        "columns": pick_labels(rng, _COLUMNS), "labels": {},
        "deliverables": {"workbook": rng.choice((f"caseload_report_{year}.xlsx", f"courtools_{year}.xlsx")),
                         "memo": rng.choice((f"annual_report_section_{year}.docx", "caseload_section.docx"))}}
    shortcuts = ("reopened", "continuance_pause", "warrant_clock", "archived_standards")
    for _ in range(4):
        d = _docket(rng, year, targets["decision"])
        with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
            root = Path(tmp)
            write_files(root, _data_writers(P, d))
            truth = analyse(str(root), P)
            if truth["decision"] == targets["decision"]:
                singles = {k: analyse(str(root), P, (k,)) for k in shortcuts}
                periods, _ = _periods(read_frame(str(root), P["files"]["events"]), CODES)
                break
    else:
        raise DegenerateTask("the felony times missed the targeted decision")
    ye = d["ye"]
    pending = {c["no"]: c for c in d["cases"] if c["filed"] <= ye and (c["disp"] is None or c["disp"] > ye)}
    over = {a["type"]: a["top"] for a in truth["pending"]}
    active_over = [no for no, c in pending.items() if c.get("stalled") and (ye - c["filed"]).days > over[c["type"]]]
    solver_over = set()
    for no in active_over:
        per = periods.get(no, [])
        if not inactive_on(per, ye) and elapsed(pending[no]["filed"], ye, per) > over[pending[no]["type"]]:
            solver_over.add(no)
    pool = sorted(solver_over) if targets["premise"] else sorted(set(active_over) - solver_over)
    if not pool:
        raise DegenerateTask("no stalled case fits the premise target")
    pick = pending[rng.choice(pool)]
    P["premise_case"], P["premise_type"] = pick["no"], pick["type"]
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(no=pick["no"])
    P["labels"] = labels
    where = {"reopened": ("memo", "reopened cases count as incoming; leaving them out overstates clearance"),
             "continuance_pause": ("data", "continuances in the status events do not stop the clock"),
             "warrant_clock": ("data", "warrant, competency and stay periods are excluded from elapsed time and "
                                       "such cases are not active pending"),
             "archived_standards": ("memo", "last year's report and the archived standard use superseded tiers")}

    def graded(f: Facts) -> Any:
        return ([c["clearance"] for c in f["clearance"]], [(x["days"], x["pct"]) for x in f["tiers"]],
                [(a["pending"], a["over"]) for a in f["pending"]], f["oldest_case"], f["oldest_age"])

    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 4:
        raise DegenerateTask("a planted item changes no graded answer")
    writers, roles = _workspace(rng, P, d, prof.title)
    prompt = _prompt(rng, P, writers)
    return Draft(subject=f"Annual caseload report {year}: clearance, time to disposition, pending age",
                 instructions=prompt, files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="filings a year 110-190 felony, 170-280 misdemeanor, 90-160 civil; active time "
                               "log-normal (felony median 35-48 or 70-95 d, misdemeanor 28-45, civil 140-200); "
                               "continuances Poisson 1.2/0.7 of 14-56 d; inactive periods 6-14 % log-normal median "
                               "60-150 d; 4 % reopened; 3-5 stalled cases a type")


def _data_writers(P: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
    F = P["files"]
    return {
        F["cases"]: lambda p: write_csv(p, ["case_number", "case_type", "filing_date", "disposition_date",
                                            "disposition_code", "reopened_date", "reopen_disposition_date",
                                            "status_at_export", "department"], _case_rows(d)),
        F["events"]: lambda p: write_csv(p, ["seq", "case_number", "event_date", "event_code", "description",
                                             "next_date"], _event_rows(d)),
    }


def _workspace(rng: random.Random, P: dict[str, Any], d: dict[str, Any],
               title: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in _data_writers(P, d).items():
        add(rel, "data", write)
    D, year = P["dirs"], P["year"]
    version = rng.randint(3, 6)
    adopted = iso(dt.date(year, rng.randint(2, 9), rng.randint(1, 28)))  # first annual report under it is this one
    old_adopted = iso(dt.date(year - rng.randint(6, 12), rng.randint(1, 12), rng.randint(1, 28)))
    add(f"{D['std']}/time_standards_v{version}.pdf", "policy", lambda p: write_pdf(
        p, f"Time standards for trial courts (version {version})", _standard(version, adopted, True)))
    add(f"{D['std']}/archive/time_standards_v{version - 1}.pdf", "stale", lambda p: write_pdf(
        p, f"Time standards for trial courts (version {version - 1})", _standard(version - 1, old_adopted, False)))
    add(f"{D['std']}/caseload_reporting_procedure.docx", "policy", lambda p: write_docx(
        p, "Annual caseload report - reporting procedure", _procedure(year)))
    codes = [[k, v, {"CONT": "none - the clock keeps running; next_date is the date continued to",
                     "BWI": "inactive starts (warrant outstanding)", "BWS": "inactive ends",
                     "CEO": "inactive starts (competency evaluation)", "CEF": "inactive ends",
                     "BKS": "inactive starts (bankruptcy stay)", "BKL": "inactive ends"}.get(k, "none")]
             for k, v in _EVENT_TEXT.items()]
    add(f"{D['cms']}/event_codes.csv", "reference", lambda p: write_csv(p, ["event_code", "description",
                                                                             "status_effect"], codes))
    add(f"{D['cms']}/export_log.txt", "reference", lambda p: write_text(p, (
        f"CMS extract run {iso(d['export'])} 06:10 by scheduled job ANNUAL_STATS\nCase types: CF, CM, CV\n"
        f"Selection: filed in {year}, disposed in {year}, reopened in {year}, or not disposed at 31 Dec {year}\n"
        f"Rows: {len(d['cases'])} cases\nstatus_at_export is the status on the run date, not at year end.\n")))
    prev = year - 1
    disposed_then = (rng.randint(360, 580), rng.randint(80, 170))
    old: list[list[Any]] = [["Criminal", rng.randint(380, 560), disposed_then[0], f"{rng.uniform(88, 104):.1f}",
            f"{rng.uniform(70, 92):.1f}", f"{rng.uniform(88, 99):.1f}"],
           ["Civil", rng.randint(90, 160), disposed_then[1], f"{rng.uniform(85, 110):.1f}",
            f"{rng.uniform(80, 95):.1f}", f"{rng.uniform(92, 99):.1f}"]]
    add(f"{D['reports']}/{prev}/annual_caseload_{prev}.xlsx", "stale", lambda p: write_xlsx(p, [
        ("Summary", ["Case group", "Filings", "Dispositions", "Clearance (%)", "Within first tier (%)",
                     "Within second tier (%)"], old),
        ("Notes", ["note"], [[f"Prepared under time standards version {version - 1}; criminal cases combined."]])]))
    add(f"{D['reports']}/{prev}/annual_report_section_{prev}.docx", "stale", lambda p: write_docx(
        p, f"Caseload {prev}", [f"The court disposed of {sum(disposed_then)} cases in {prev}.",
                                "Criminal cases were measured against the 120-day standard, as in prior years.",
                                "Time during defence continuances was excluded from elapsed time."]))
    judge = person(rng)
    P["judge"] = judge
    add(f"{D['mail']}/{iso(d['export'] + dt.timedelta(days=1))}_presiding_judge.txt", "email", lambda p: write_text(
        p, email_text(sender=f"Hon. {judge}, Presiding Judge", to="Court Administrator",
                      date=iso(d["export"] + dt.timedelta(days=1)), subject=f"{year} caseload report",
                      body=f"Before the report goes to the Judicial Council: the DA's office tells me case "
                           f"{P['premise_case']} has been sitting past the time standard all year and is our worst "
                           "delay. Please confirm from the record whether it was active and over the standard at "
                           f"year end. I would also like to know plainly whether we met every felony tier.")))
    add(f"{D['mail']}/{iso(d['ye'] - dt.timedelta(days=20))}_it_export.txt", "email", lambda p: write_text(
        p, email_text(sender="CMS support desk", to="Court Administrator", date=iso(d["ye"] - dt.timedelta(days=20)),
                      subject="Annual statistics extract",
                      body="The ANNUAL_STATS job will run in the first week of January. Reopened cases keep their "
                           "original case number; the reopen and second disposition dates are in their own "
                           "columns.")))
    add(f"{D['mail']}/{iso(d['ye'] - dt.timedelta(days=35))}_deputy_clerk.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}, Chief Deputy Clerk", to="Court Administrator",
                      date=iso(d["ye"] - dt.timedelta(days=35)), subject="Last year's numbers",
                      body="Can we just reuse last year's layout (criminal combined, continuances taken out)? "
                           "It saves a day.")))
    add(f"calendar/judicial_assignments_{year}.csv", "distractor", lambda p: write_csv(
        p, ["department", "judicial_officer", "calendar"],
        [[f"Dept {k}", f"Hon. {person(rng)}", rng.choice(("Felony", "Misdemeanor", "Civil", "Family", "Probate"))]
         for k in range(1, 10)]))
    add(f"meetings/{iso(d['ye'] - dt.timedelta(days=12))}_caseflow_committee.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="annual caseload report", people=[person(rng) for _ in range(3)],
                         date=iso(d["ye"] - dt.timedelta(days=12)))))
    add("procedures/records_retention.md", "distractor", lambda p: write_text(p, (
        f"# Records retention ({title}s)\n\n- Felony files: permanent\n- Misdemeanor files: 5 years after disposition\n"
        "- Civil files: 10 years after judgment\n- Exhibits: returned or destroyed 60 days after appeal period\n")))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], writers: dict[str, Any]) -> str:
    year, D, C, L = P["year"], P["dirs"], P["columns"], P["labels"]
    boss = person(rng)
    opener = rng.choice((f"From: {boss}, Court Administrator\nSubject: {year} annual caseload report\n\n",
                         f"{boss} (Court Administrator) - the annual caseload report for {year} is due.\n\n",
                         f"Hi - {boss} here. The Judicial Council wants our {year} caseload report.\n\n"))
    ask = rng.choice(("Please prepare the caseload measures for the annual report: clearance, time to disposition "
                      "against the time standards, and the age of the active pending caseload, by case type.",
                      "I need the three CourTools measures (clearance, time to disposition, age of active pending "
                      "caseload) by case type for the report."))
    steps = [f"Work from the CMS extract and the status events in {D['cms']}/ (event codes are listed there).",
             f"Apply the current time standards and the reporting procedure in {D['std']}/ - not last year's layout.",
             "Clearance by case type, counting reopened cases as the procedure says.",
             "Time to disposition: the share of dispositions within each tier, with the clock rules of the standard "
             "(inactive time out; continuances do not stop the clock).",
             f"Age of the active pending caseload at 31 December {year}, and answer the presiding judge's questions "
             f"({D['mail']}/)."]
    types = ", ".join(TYPES.values())
    memo_lines = [L["clearance"].format(type=t) + ": <percent, 1 decimal>" for t in TYPES.values()]
    memo_lines += [L["within"].format(type=TYPES[t], days=STANDARDS[t][0][0]) + ": <percent, 1 decimal>" for t in TYPES]
    memo_lines += [f"{L['over']}: <number, all types>", f"{L['oldest']}: <case number>",
                   f"{L['oldest_age']}: <days>", f"{L['decision']}: <yes or no>", f"{L['premise']}: <yes or no>"]
    deliverables = [
        f"{P['deliverables']['workbook']}: sheet Clearance with columns {C['type']}, {C['filings']}, {C['reopened']}, "
        f"{C['incoming']}, {C['outgoing']}, {C['clearance']} (one row per case type: {types}); sheet TimeToDisp with "
        f"{C['type']}, {C['standard']}, {C['target']}, {C['disposed']}, {C['within']}, {C['pct']}, {C['met']} (one row "
        f"per tier of the current standard); sheet PendingAge with {C['type']}, {C['pending']}, {C['over']}, "
        f"{C['share_over']}, {C['oldest']}, {C['oldest_age']}. " + rng.choice((
            "The rates and percentages must be live formulas on the counts.",
            "Rates and percentages as formulas, not typed values.")),
        f"{P['deliverables']['memo']}: " + rng.choice((
            "the report section, opening with these lines (label: value), then the narrative:",
            "a draft section for the annual report that starts with these labelled lines, then explains the "
            "measures and anything you had to decide:")) + "\n" + "\n".join(f"   {x}" for x in memo_lines)]
    return "\n\n".join([
        opener + ask,
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        rng.choice(("Deliverables in the output folder:", "Please leave in the output folder:")) + "\n"
        + "\n".join(f"{k}. {t}" for k, t in enumerate(deliverables, 1)),
        rng.choice(("Thanks.", "Flag anything in the record that looks wrong.")) + "\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers)),
    ]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck

    D, L, C = P["deliverables"], P["labels"], P["columns"]
    book, memo = D["workbook"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def cell(sheet: str, match: dict[str, Any], column: str, value: float, decimals: int) -> tuple[str, Any]:
        where = ", ".join(str(v) for v in match.values())
        return (f"{book} {sheet}: {where}, {column} = {value:.{decimals}f}",
                CellCheck(file=book, sheet=sheet, match=match, column=column, value=float(value),
                          tolerance=tol(decimals) if decimals else 0.0))

    def pct(x: dict[str, Any]) -> tuple[str, Any]:
        return cell("TimeToDisp", {C["type"]: x["label"], C["standard"]: x["days"]}, C["pct"], x["pct"], 1)

    def count(label: str, v: int) -> tuple[str, Any]:
        return f"{label} = {v}", FieldCheck(file=memo, label=label, number=float(v), tolerance=0.0)

    first = [x for x in facts["tiers"] if x["days"] == STANDARDS[x["type"]][0][0]]
    cf = [x for x in facts["tiers"] if x["type"] == "CF"]
    rest = [x for x in facts["tiers"] if x["type"] != "CF"]
    out = [
        rubric("Computes clearance with reopened cases counted as incoming", 10, [
            cell("Clearance", {C["type"]: c["label"]}, C["clearance"], c["clearance"], 1) for c in facts["clearance"]]),
        rubric("Reports the clearance rates in the report section", 8, [
            (f"{L['clearance'].format(type=c['label'])} = {c['clearance']:.1f}",
             fld_num(memo, L["clearance"].format(type=c["label"]), c["clearance"], 1)) for c in facts["clearance"]]),
        rubric("Measures felony time to disposition net of inactive time, continuances left on the clock", 10, [
            *[pct(x) for x in cf],
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Measures misdemeanor and civil time to disposition against the current standards", 10,
               [pct(x) for x in rest]),
        rubric("States the first-tier results in the report section", 6, [
            (f"{L['within'].format(type=x['label'], days=x['days'])} = {x['pct']:.1f}",
             fld_num(memo, L["within"].format(type=x["label"], days=x["days"]), x["pct"], 1)) for x in first]),
        rubric("Counts the active pending caseload and the cases over the standard", 8, [
            *[cell("PendingAge", {C["type"]: a["label"]}, C["pending"], a["pending"], 0) for a in facts["pending"]],
            *[cell("PendingAge", {C["type"]: a["label"]}, C["over"], a["over"], 0) for a in facts["pending"]],
            count(L["over"], facts["over_total"])]),
        rubric("Names the oldest active pending case and answers the presiding judge", 8, [
            (f"{L['oldest']}: {facts['oldest_case']}", fld(memo, L["oldest"], facts["oldest_case"])),
            count(L["oldest_age"], facts["oldest_age"]),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Explains the measures for the Judicial Council", 6, [
            ("Says that inactive (warrant, competency, stay) time is excluded and continuances are not",
             llm("explanation")),
            ("Says the current standard replaces last year's tiers and combined criminal grouping", llm("explanation")),
            ("Answers the presiding judge's question about the named case with the record's evidence",
             llm("reasoning"))]))
    return out


CASELOAD_REPORT = Workflow(
    key="caseload_report", family="caseload_report",
    method="CourTools clearance, time to disposition against time standards (inactive time excluded), pending age",
    professions=("court_clerks",), solver="caseload",
    shortcuts=("reopened", "continuance_pause", "warrant_clock", "archived_standards"), draw=draw,
    recheck=recheck, rubrics=rubrics, data="generated court docket (stated distributions)")
