"""SLA availability and service credits for a managed-hosting contract year before its renewal (IT managers).

A managed-hosting vendor runs 3-4 production services (in scope of the SLA) and 2-3 non-production ones for a
customer whose SLA schedule measures Service Months in its local time (a fixed offset of UTC-5, UTC+8, UTC+9 or
UTC+10, no daylight saving). Over the 12 months of the contract year each month has Poisson(1.2) vendor-caused full
outages of the production services, lasting log-normal minutes (median 15, sigma 0.8, 4-240), and with probability
0.1 a major one (median 120, sigma 0.5, 60-400); 2-3 cascades put a second service's outage inside and past the
first's; 1-2 outages sit on a local month boundary; 2-3 outages are labelled customer-caused, 1-2 of them carrying
the vendor change id that triggered them; 12 approved maintenance windows of 2-4 h (one a month) hold a planned
outage, 1-2 of them overrunning their end by 15-90 minutes, and 1-2 windows were cancelled. Degraded and
non-production incidents fill the export to about 150 rows. The recurring Monthly Fee is log-normal around 38,000
USD (sigma 0.3) with a 5-15 % step up mid-year; 4-6 invoices also carry one-off or pass-through lines of 800-9,000
USD. The current tiers are drawn from three common ladders (target 99.9 %); the superseded schedule pays 40-60 % of
them; the aggregate cap is 20-35 % of the year's Monthly Fees; the vendor's goodwill offer is 40-85 % or 110-140 %
of the credits owed.

Failure behaviour: ``draw`` raises DegenerateTask when an availability sits within 0.002 points of a tier
threshold, fewer than two or more than nine months miss the target, no month fits the named month's targets or a
planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not
this workflow's.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files

__all__ = ["SLA_CREDITS_CLAIM"]

_VENDORS = ("Cirrusfield Managed Hosting", "Halden Cloud Services", "Ortega Datacentre Partners", "Brightrack Hosting")
_ZONES = ((10, "Brisbane"), (8, "Singapore"), (9, "Tokyo"), (-5, "Bogota"))
_PROD = ("prod-web", "prod-api", "prod-db", "prod-storage", "prod-lb")
_NONPROD = ("stg-web", "stg-db", "dev-k8s", "uat-api")
_LADDERS = (((99.9, 10.0), (99.5, 25.0), (99.0, 50.0)), ((99.9, 5.0), (99.5, 15.0), (99.0, 30.0)),
            ((99.9, 10.0), (99.0, 25.0), (98.0, 50.0)))
_LABELS = {
    "months_below": ("Service months below the availability target", "Months the SLA was missed",
                     "Number of Service Months below target"),
    "total_down": ("Unplanned downtime in the contract year (minutes)", "Total chargeable downtime (minutes)",
                   "Contract-year unavailability (minutes)"),
    "named_avail": ("Availability in {m} (%)", "{m} availability (%)", "Measured availability, {m} (%)"),
    "premise": ("{m} met the SLA target", "SLA target achieved in {m}", "No credit due for {m}"),
    "total": ("Total service credits claimed (USD)", "Service credits owed (USD)", "Credit claim total (USD)"),
    "decision": ("Decline the goodwill offer", "Goodwill credit rejected in favour of the claim",
                 "Claim exceeds the goodwill offer"),
}
_OUT = {"month": ("service_month", "month"), "days": ("days", "days_in_month"),
        "minutes": ("minutes_in_month", "total_minutes"), "down": ("downtime_minutes", "unplanned_minutes"),
        "avail": ("availability_pct", "monthly_availability_pct"), "met": ("target_met", "sla_met"),
        "pct": ("credit_pct", "service_credit_pct"), "fee": ("monthly_fee_usd", "fee_usd"),
        "credit": ("credit_usd", "service_credit_usd")}
_COLS = ({"id": "incident_id", "start": "outage_start_utc", "end": "outage_end_utc", "service": "service",
          "impact": "impact", "cause": "cause_category", "change": "vendor_change_id"},
         {"id": "number", "start": "impact_start_utc", "end": "impact_end_utc", "service": "config_item",
          "impact": "impact_level", "cause": "root_cause_owner", "change": "related_change"})
_DIRS = {"mon": ("monitoring", "itsm_exports", "service_management"), "chg": ("change", "change_management", "cab"),
         "con": ("contracts", "vendor_management", "commercial"), "fin": ("finance", "ap_invoices", "accounts_payable")}
SHORTCUTS = ("overlap", "utc_months", "old_tiers", "customer_label", "overrun", "invoice_total")
_F = "%Y-%m-%d %H:%M"


# ---- the independent computation: csv and openpyxl only, minute by minute ------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact without the solver's code: the set of UTC minutes of counted outages (a set is its own
    union), less the minutes of approved windows, each minute shifted to local time and counted in its month."""
    folder, F, C = Path(folder), P["files"], P["columns"]
    epoch = dt.datetime(2000, 1, 1)

    def minute(text: str) -> int:
        return int((dt.datetime.strptime(text.strip()[:16], _F) - epoch).total_seconds() // 60)

    down: set[int] = set()
    for r in read_rows(folder / F["incidents"]):
        own = r[C["cause"]].strip().lower() != P["customer_cause"] or r[C["change"]].strip() != ""
        if r[C["service"]].strip() in P["services"] and r[C["impact"]].strip().lower() == P["outage_impact"] and own:
            down |= set(range(minute(r[C["start"]]), minute(r[C["end"]])))
    for r in read_rows(folder / F["windows"]):
        if r["status"].strip().lower() == "approved":
            down -= set(range(minute(r["start_utc"]), minute(r["end_utc"])))
    shift = int(P["utc_offset_hours"] * 60)
    per: dict[str, int] = {}
    for m in down:
        local = epoch + dt.timedelta(minutes=m + shift)
        key = f"{local.year:04d}-{local.month:02d}"
        per[key] = per.get(key, 0) + 1
    fee: dict[str, float] = {}
    for r in read_rows(folder / F["invoices"], P["invoice_sheet"]):
        if r["charge_type"].strip().lower() == "recurring":
            fee[r["billing_period"][:7]] = fee.get(r["billing_period"][:7], 0.0) + float(r["amount_usd"])
    rows: list[dict[str, Any]] = []
    for month in P["months"]:
        total = calendar.monthrange(int(month[:4]), int(month[5:]))[1] * 1440
        avail = rnd((total - per.get(month, 0)) / total * 100, 3)
        pct = 0.0
        for thr, p in sorted(P["tiers"], reverse=True):
            pct = p if avail < thr else pct
        f = rnd(fee.get(month, 0.0), 2)
        rows.append({"month": month, "down": per.get(month, 0), "avail": avail, "met": "yes" if avail >= P["target"]
                     else "no", "pct": pct, "fee": f, "credit": rnd(f * pct / 100, 2)})
    total_fee = sum(r["fee"] for r in rows)
    claim = min(rnd(sum(r["credit"] for r in rows), 2), rnd(P["cap_pct"] / 100 * total_fee, 2))
    named = next(r for r in rows if r["month"] == P["named_month"])
    return {"rows": rows, "months_below": sum(r["met"] == "no" for r in rows), "total_down": sum(per.get(m, 0)
            for m in P["months"]), "total": claim, "named_avail": named["avail"], "premise": named["met"] == "yes",
            "decision": claim > P["offer"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _lognorm(rng: random.Random, median: float, sigma: float, lo: float, hi: float) -> int:
    return int(min(hi, max(lo, math.exp(rng.gauss(math.log(median), sigma)))))


def _months(start: dt.date) -> list[str]:
    return [f"{start.year + (start.month - 1 + k) // 12:04d}-{(start.month - 1 + k) % 12 + 1:02d}" for k in range(12)]


def _record(rng: random.Random, months: list[str], offset: int, prod: list[str], nonprod: list[str],
            windows_only: bool = False) -> tuple[list[list[Any]], list[list[Any]]]:
    """Incident rows (id, start, end, service, impact, cause, change id, summary; UTC) and maintenance windows."""
    inc: list[list[Any]] = []
    win: list[list[Any]] = []
    chg = iter(rng.sample(range(4100, 9900), 400))
    back = dt.timedelta(hours=offset)

    def at(month: str, lo_day: int = 1, hi_day: int = 27) -> dt.datetime:  # a UTC time inside the local month
        local = dt.datetime(int(month[:4]), int(month[5:]), rng.randint(lo_day, hi_day), rng.randint(0, 23),
                            rng.randint(0, 59))
        return local - back

    def add(start: dt.datetime, mins: int, service: str, impact: str, cause: str, change: str, text: str) -> None:
        inc.append([start, start + dt.timedelta(minutes=mins), service, impact, cause, change, text])

    causes = (("vendor - hardware", "Host failure, workloads restarted"), ("vendor - network", "Core switch fault"),
              ("vendor - software", "Hypervisor patch regression"), ("third party - upstream", "Upstream carrier loss"))
    for k, month in enumerate(months):
        n = 0
        lam, p = math.exp(-0.6), rng.random()
        while p > lam:
            n, p = n + 1, p * rng.random()
        for _ in range(n):
            cause, text = rng.choice(causes)
            add(at(month), _lognorm(rng, 15, 0.8, 4, 240), rng.choice(prod), "outage", cause,
                f"CHG-{next(chg)}" if rng.random() < 0.3 else "", text)
        if rng.random() < 0.1:
            add(at(month), _lognorm(rng, 120, 0.5, 60, 400), rng.choice(prod), "outage", "vendor - software",
                f"CHG-{next(chg)}", "Storage controller failover failed")
        ws = at(month, 2, 26).replace(minute=0)
        hours = rng.randint(2, 4)
        cid = f"CHG-{next(chg)}"
        win.append([f"MW-{k + 1:03d}", ws, ws + dt.timedelta(hours=hours), "approved", cid, "Quarterly patching"
                    if k % 3 == 0 else "Firmware and OS updates"])
        add(ws + dt.timedelta(minutes=rng.randint(5, 30)), rng.randint(20, 60), rng.choice(prod), "outage",
            "planned maintenance", cid, "Planned restart during the window")
    for a in rng.sample(range(12), rng.randint(1, 2)):  # cancelled windows: they exclude nothing
        ws = at(months[a], 2, 26).replace(minute=0)
        win.append([f"MW-{13 + a:03d}", ws, ws + dt.timedelta(hours=3), "cancelled", f"CHG-{next(chg)}",
                    "Storage expansion (postponed)"])
    for a in rng.sample(range(12), rng.randint(1, 2)):  # overruns: the outage runs past the window's end
        w = win[a]
        start = w[1] + dt.timedelta(minutes=rng.randint(30, 90))
        add(start, int((w[2] - start).total_seconds() // 60) + rng.randint(15, 90), rng.choice(prod), "outage",
            "planned maintenance", w[4], "Database upgrade overran the window")
    for _ in range(rng.randint(2, 3)):  # cascades: a second service down inside and past the first
        s, mins = at(rng.choice(months)), rng.randint(20, 70)
        first, second = rng.sample(prod, 2)
        add(s, mins, first, "outage", "vendor - software", "", "Primary database failover")
        add(s + dt.timedelta(minutes=rng.randint(5, mins - 10)), mins, second, "outage", "vendor - software", "",
            "Application tier lost its database connection")
    for k in rng.sample(range(1, 12), rng.randint(1, 2)):  # on a local month boundary
        utc_edge = dt.datetime(int(months[k][:4]), int(months[k][5:]), 1)
        mins = rng.randint(30, 90)  # wholly between the UTC and the local midnight: the two months disagree
        start = min(utc_edge, utc_edge - back) + dt.timedelta(minutes=rng.randint(0, 60 * abs(offset) - mins))
        add(start, mins, rng.choice(prod), "outage", "vendor - network", "", "Edge router reload")
    quiet = rng.sample(range(12), 3)
    for j, k in enumerate(quiet):  # customer-labelled: the first one or two were triggered by a vendor change
        add(at(months[k]), rng.randint(40, 90), rng.choice(prod), "outage", "customer",
            f"CHG-{next(chg)}" if j < 2 and (j == 0 or rng.random() < 0.6) else "",
            "Customer configuration push" if j else "Customer-side certificate (per vendor)")
    filler = max(0, rng.randint(140, 160) - len(inc))
    for _ in range(filler):
        month = rng.choice(months)
        svc = rng.choice(nonprod + prod)
        add(at(month), _lognorm(rng, 30, 1.0, 3, 600), svc, rng.choice(("degraded", "degraded", "outage"))
            if svc in nonprod else "degraded", rng.choice(("vendor - software", "vendor - network", "customer")), "",
            rng.choice(("Elevated latency", "Intermittent 5xx", "Slow queries", "Backup job overran")))
    inc.sort(key=lambda r: r[0])
    win.sort(key=lambda r: r[1])
    return inc, win


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.sla import analyse

    prof = profession(occupation)
    dirs = pick_labels(rng, _DIRS)
    vendor = rng.choice(_VENDORS)
    offset, city = rng.choice(_ZONES)
    start = dt.date(rng.choice((2024, 2025)), rng.randint(1, 12), 1)
    months = _months(start)
    prod = sorted(rng.sample(_PROD, rng.randint(3, 4)))
    nonprod = sorted(rng.sample(_NONPROD, rng.randint(2, 3)))
    tiers = rng.choice(_LADDERS)
    share = rng.choice((0.4, 0.5, 0.6))
    cols = _COLS[rng.randrange(2)]
    slug = vendor.split()[0].lower()
    P: dict[str, Any] = {
        "files": {"incidents": f"{dirs['mon']}/incident_export_{months[0]}_{months[-1]}.csv",
                  "windows": f"{dirs['chg']}/maintenance_windows.csv",
                  "invoices": f"{dirs['fin']}/{slug}_invoice_lines.xlsx"},
        "columns": cols, "services": prod, "outage_impact": "outage", "customer_cause": "customer",
        "utc_offset_hours": offset, "months": months, "target": 99.9, "tiers": [list(t) for t in tiers],
        "old_tiers": [[thr, rnd(p * share, 2)] for thr, p in tiers], "cap_pct": float(rng.choice((20, 25, 30, 35))),
        "invoice_sheet": "Lines", "con_dir": dirs["con"], "named_month": months[0], "offer": 0.0, "vendor": vendor, "labels": {},
        "sheet": rng.choice(("Monthly", "Availability", "ServiceMonths")), "out_columns": pick_labels(rng, _OUT),
        "deliverables": {"workbook": rng.choice(("sla_credits.xlsx", "availability_and_credits.xlsx",
                                                 "sla_review.xlsx")),
                         "memo": rng.choice(("service_credit_claim.docx", "sla_claim_letter.docx",
                                               "credit_claim_to_vendor.docx"))}}
    inc, win = _record(rng, months, offset, prod, nonprod)
    fee0 = round(math.exp(rng.gauss(math.log(38000), 0.3)), -2)
    step, bump = rng.randint(4, 8), rng.uniform(0.05, 0.15)
    lines: list[list[Any]] = []
    for k, m in enumerate(months):
        fee = fee0 * (1 + bump) if k >= step else fee0
        base = round(fee * 0.7, -1)
        lines += [[f"INV-{slug[:3].upper()}-{m.replace('-', '')}", m, "Managed hosting platform fee", "recurring", base],
                  [f"INV-{slug[:3].upper()}-{m.replace('-', '')}", m, "Managed database service", "recurring",
                   round(fee - base, 2)]]
    for k in rng.sample(range(12), rng.randint(4, 6)):
        text, kind = rng.choice((("Professional services: migration support", "one-off"), ("Hardware install",
                                 "one-off"), ("Bandwidth overage", "pass-through"), ("Third-party licences at cost",
                                                                                       "pass-through")))
        lines.append([f"INV-{slug[:3].upper()}-{months[k].replace('-', '')}", months[k], text, kind,
                      float(rng.randint(8, 90) * 100)])
    lines.sort(key=lambda r: (r[1], r[3] != "recurring"))
    data = _data(P, inc, win, lines)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), data)
        truth = analyse(tmp, P)
        vendor_view = analyse(tmp, P, ("customer_label", "overrun", "utc_months"))
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
    rows = truth["rows"]
    thresholds = {t[0] for t in tiers}
    if any(abs(r["raw"] - t) < 0.002 for r in rows for t in thresholds):
        raise DegenerateTask("an availability sits on a tier threshold")
    if not 2 <= truth["months_below"] <= 9:
        raise DegenerateTask("too few or too many months below target")
    side = [r["month"] for r, v in zip(rows, vendor_view["rows"], strict=True)
            if v["met"] == "yes" and (r["met"] == "yes") == targets["premise"]]
    if not side:
        raise DegenerateTask("no month the vendor reports as met on the premise's side")
    P["named_month"] = rng.choice(side)
    owed = truth["total"]
    P["offer"] = (nice_between(owed * 0.4, owed * 0.85, 2) if targets["decision"]
                  else nice_between(owed * 1.1, owed * 1.4, 2))
    keys = ("down", "avail", "pct", "fee", "credit")
    where = {"overlap": ("data", "cascaded outages overlap and count once (union of intervals)"),
             "utc_months": ("policy", f"Service Months are local time (UTC{offset:+d}), the export is UTC"),
             "old_tiers": ("stale", "the renewal superseded the older SLA schedule's tiers"),
             "customer_label": ("email", "an outage labelled customer-caused was triggered by a vendor change"),
             "overrun": ("policy", "minutes past an approved window's end are unplanned"),
             "invoice_total": ("footnote", "credits are on the recurring Monthly Fee, not one-off lines")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k} for k, nf in singles.items()
             if any(a[x] != t[x] for a, t in zip(nf["rows"], rows, strict=True) for x in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    for key in ("named_avail", "premise"):
        labels[key] = labels[key].format(m=P["named_month"])
    P["labels"] = labels
    named_vendor = next(v for v in vendor_view["rows"] if v["month"] == P["named_month"])
    writers, roles = _workspace(rng, P, data, inc, vendor_view, city)
    L, D, C = labels, P["deliverables"], P["out_columns"]
    memo_labels = [(L["months_below"], "whole number"), (L["total_down"], "whole minutes"),
                   (L["named_avail"], "per cent, 3 decimal places"), (L["premise"], "yes or no"),
                   (L["total"], "US dollars, 2 decimal places"), (L["decision"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role="Head of Infrastructure", org=rng.choice(prof.orgs),
        subject=f"SLA credits from {vendor} before the renewal",
        purpose=rng.choice(("I need our measured availability against the SLA for the contract year and the service "
                            "credits we are owed, as a claim letter I can send.",
                            f"please work out availability against the {vendor} SLA month by month and draft the "
                            "credit claim.",
                            "before we sign the renewal I want the credits we are owed under the SLA, month by month, "
                            "and a letter to claim them.")),
        about="the incident export, the change calendar, the SLA schedule and the vendor's invoices",
        belief=f"The availability report from {vendor} has {P['named_month']} at {named_vendor['avail']:.3f} %, so I assume "
               f"there is nothing to claim for {P['named_month']} - please check that against our own record. If the "
               f"credits we are owed come to more than the goodwill offer from {vendor} we decline it and claim in "
               "full; "
               "otherwise we take the offer.",
        table={"file": D["workbook"], "headers": [C[k] for k in _OUT], "unit": "Service Month of the contract year"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"In {D['workbook']} the table is a sheet named {P['sheet']}, the months as YYYY-MM; "
                            f"{C['met']} is yes or no; {C['pct']} is the credit in % of the Monthly Fee (0 when "
                            f"none). {C['minutes']}, {C['down']}, {C['avail']}, {C['met']}, {C['pct']} and "
                            f"{C['credit']} are live formulas, {C['down']} summed from a sheet named Merged that "
                            "lists the counted outage periods after merging; a sheet named Credits holds the tiers "
                            "and the claim total.",
                            f"The memo below is also the claim letter to {vendor}: after its labelled lines, the months "
                            "claimed with availability, credit % and amount, and how the figures were measured."),
        policy=f"the SLA schedule in {dirs['con']}/", files=sorted(writers))
    return Draft(subject=f"SLA service credits claim to {vendor}", instructions=prompt, files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="12 service months; Poisson(0.6) outages a month, log-normal minutes (median 15, "
                               "sigma 0.8), major outages p 0.1 (median 120); 2-3 cascades, 1-2 boundary outages, "
                               "2-3 customer-labelled (1-2 with vendor change ids), 12 windows (1-2 overrun 15-90 "
                               "min), ~150 incident rows; Monthly Fee log-normal median 38,000 USD (sigma 0.3)")


def _data(P: dict[str, Any], inc: list[list[Any]], win: list[list[Any]], lines: list[list[Any]]) -> dict[str, Any]:
    F, C = P["files"], P["columns"]
    return {
        F["incidents"]: lambda p: write_csv(p, [C[k] for k in ("id", "start", "end", "service", "impact", "cause",
                                                               "change")] + ["summary"], [
            [f"INC{20400 + 7 * k}", a.strftime(_F), b.strftime(_F), s, i, c, ch, t]
            for k, (a, b, s, i, c, ch, t) in enumerate(inc)]),
        F["windows"]: lambda p: write_csv(p, ["window_id", "start_utc", "end_utc", "status", "change_id", "title"], [
            [w, a.strftime(_F), b.strftime(_F), st, c, t] for w, a, b, st, c, t in win]),
        F["invoices"]: lambda p: write_xlsx(p, [(P["invoice_sheet"], ["invoice_no", "billing_period", "description",
                                                                      "charge_type", "amount_usd"], lines)]),
    }


def _schedule(P: dict[str, Any], city: str, current: bool) -> list[str]:
    tiers = P["tiers"] if current else P["old_tiers"]
    ladder = "; ".join(f"below {t:g} %: {p:g} % of the Monthly Fee" for t, p in tiers)
    head = (["Schedule 3 - Service Levels (version 3, effective from the renewal on " + P["months"][0] + "-01)",
             "This Schedule supersedes Schedule 3 version 2 in full."] if current else
            ["Schedule 3 - Service Levels (version 2)", "Superseded at renewal by version 3."])
    return head + [
        "1. Service Month: a calendar month in Customer Local Time. For this Schedule Customer Local Time is "
        f"UTC{P['utc_offset_hours']:+d}:00 ({city}; no daylight-saving adjustment). Monitoring records are kept in UTC "
        "and are converted before measurement.",
        f"2. Production Environment: the services {', '.join(P['services'])}. Non-production services are outside "
        "this Schedule.",
        "3. Unavailability: any period in which one or more Production Environment services has impact 'outage' in the "
        "incident record. 'Degraded' impact is not Unavailability. Periods in which two or more services are down "
        "at once count once.",
        "4. Excluded: (a) Approved Maintenance Windows (status approved in the change calendar), up to the window's "
        "scheduled end - any Unavailability continuing beyond that end is unplanned and counts; (b) outages caused "
        "by the Customer, except where the incident record carries a Supplier change id (an outage triggered by a "
        "Supplier change counts whatever its cause label).",
        "5. Availability % = (minutes in the Service Month - minutes of Unavailability) / minutes in the Service "
        "Month x 100, calculated to three decimal places (half up); the tiers compare that rounded figure. Target: "
        f"{P['target']:g} %.",
        f"6. Service credits: {ladder}; only the highest applicable tier applies. Monthly Fee: the recurring charges "
        "invoiced for the Service Month (one-off and pass-through charges excluded). Credits to the cent.",
        f"7. Aggregate cap: credits for a contract year shall not exceed {P['cap_pct'] if current else 15:g} % of the "
        "Monthly Fees for that year.",
        "8. Claims: the Customer claims credits in writing within 60 days of the end of the contract year."]


def _workspace(rng: random.Random, P: dict[str, Any], data: dict[str, Any], inc: list[list[Any]],
               vendor_view: Facts, city: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    V, months = P["vendor"], P["months"]
    con = P["con_dir"]
    slug = V.split()[0].lower()
    y, m = int(months[-1][:4]), int(months[-1][5:])
    after = dt.date(y + m // 12, m % 12 + 1, 1)
    day = lambda k: (after + dt.timedelta(days=k)).isoformat()  # noqa: E731
    add(f"{con}/{slug}/sla_schedule_v3.pdf", "policy", lambda p: write_pdf(p, f"{V} - SLA Schedule", _schedule(
        P, city, True)))
    add(f"{con}/{slug}/archive/sla_schedule_v2.docx", "stale", lambda p: write_docx(p, f"{V} - SLA Schedule (v2)",
                                                                                     _schedule(P, city, False)))
    add(f"{con}/{slug}/msa_excerpt.docx", "reference", lambda p: write_docx(p, "Master Services Agreement - excerpt", [
        "Clause 14: the Schedules form part of this Agreement; a later version of a Schedule replaces the earlier.",
        "Clause 17: notices to the Supplier go to its Service Delivery Manager.",
        "Clause 21: the Agreement renews for 24 months unless either party gives 90 days' notice."]))
    rep = [f"Availability report, contract year {months[0]} to {months[-1]} (measured by {V})",
           "Availability by month (UTC, excluding maintenance and customer-caused incidents):"]
    rep += [f"- {r['month']}: {r['avail']:.3f} %" for r in vendor_view["rows"]]
    total = sum(r["minutes"] for r in vendor_view["rows"])
    vendor_year = 100 * (total - vendor_view["total_down"]) / total
    rep.append(f"Contract year: {vendor_year:.3f} % against a {P['target']:g} % target.")
    add(f"vendor_reports/{slug}_availability_report_{months[-1]}.pdf", "conflict",
        lambda p: write_pdf(p, f"{V} - Service review", rep))
    fin = P["files"]["invoices"].rsplit("/", 1)[0]
    add(f"{fin}/README.txt", "reference", lambda p: write_text(p, (
        "Invoice lines as loaded from the vendor's e-invoices. charge_type: recurring (the monthly platform and "
        "managed service charges), one-off (projects, installs), pass-through (third-party usage billed at cost).\n")))
    counted = [r for r in inc if r[4] == "customer" and r[5] and r[2] in P["services"] and r[3] == "outage"]
    inc_ids = {id(r): f"INC{20400 + 7 * k}" for k, r in enumerate(inc)}
    if counted:
        r0 = counted[0]
        add(f"mail/{day(4)}_rca_{inc_ids[id(r0)].lower()}.txt", "email", lambda p: write_text(p, email_text(
            sender=f"{person(rng)}, Senior Network Engineer", to="Head of Infrastructure", date=day(4),
            subject=f"RCA {inc_ids[id(r0)]}", body=f"{V} closed {inc_ids[id(r0)]} as customer-caused. Their own RCA "
            f"says the outage started when their change {r0[5]} rotated the load-balancer certificates; our config did "
            "not change. The change id is in the incident record.")))
    add(f"mail/{day(9)}_{slug}_goodwill_offer.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Account Director, {V}", to="Head of Infrastructure", date=day(9),
        subject="Renewal and service review", body=f"As our report shows, availability over the contract year was "
        f"{vendor_year:.3f} % against the {P['target']:g} % target. As a gesture of goodwill ahead of the renewal we offer a one-off credit of "
        f"{P['offer']:,.2f} USD in full and final settlement of any service-level claims for the contract year.")))
    chg = P["files"]["windows"].rsplit("/", 1)[0]
    add(f"{chg}/cab_minutes_{months[6]}.md", "reference", lambda p: write_text(p, (
        f"CAB minutes {months[6]}\n\n- Maintenance windows are approved by the CAB and recorded with status approved; "
        "cancelled windows did not take place.\n- The database upgrade overran its window; the vendor was reminded "
        "that overruns count as unplanned under the SLA.\n")))
    old = int(months[0][:4]) - 1
    add(f"{P['files']['incidents'].split('/')[0]}/archive/incident_export_{old}.csv", "stale", lambda p: write_csv(
        p, ["incident_id", "opened", "service", "impact"], [[f"INC{19000 + k}", f"{old}-{rng.randint(1, 12):02d}-10",
                                                             rng.choice(P["services"]), "degraded"] for k in range(40)]))
    add(f"{P['files']['incidents'].split('/')[0]}/synthetic_probe_summary.csv", "distractor", lambda p: write_csv(
        p, ["probe", "region", "success_pct"], [[f"https-{s}", rng.choice(("east", "west")),
                                                 round(rng.uniform(99.2, 99.99), 2)] for s in P["services"]]))
    add("procurement/renewal_timeline.docx", "distractor", lambda p: write_docx(p, "Renewal timeline", [
        "Commercial proposal due from the vendor four weeks before expiry.", "Legal review of the MSA redline.",
        "Board technology committee sign-off."]))
    add(f"meetings/{day(2)}_infra_weekly.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="SLA review before the renewal", people=[person(rng) for _ in range(3)], date=day(2))))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, C = P["deliverables"], P["labels"], P["out_columns"]
    book, memo, sheet = D["workbook"], D["memo"], P["sheet"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    rows = facts["rows"]

    def cells(key: str, places: int | None) -> list[tuple[str, Any]]:
        out = []
        for r in rows:
            v = r[key]
            text = f"{v:.{places}f}" if places is not None else (f"{v:g}" if isinstance(v, float) else str(v))
            out.append((f"{book} {sheet}: {r['month']} {C[key]} = {text}",
                        CellCheck(file=book, sheet=sheet, match={C["month"]: r["month"]}, column=C[key],
                                  value=float(v) if not isinstance(v, str) else v,
                                  tolerance=tol(places) if places else 0.0)))
        return out

    def whole(key: str) -> tuple[str, Any]:
        return f"{L[key]} = {facts[key]:g}", FieldCheck(file=memo, label=L[key], number=float(facts[key]), tolerance=0.0)

    out = [
        rubric("Merges overlapping outages and excludes approved maintenance only up to each window's end", 10, [
            (f"{book} {sheet} has {len(rows)} month rows", RowCountCheck(file=book, sheet=sheet, key=C["month"],
                                                                         count=len(rows))),
            *cells("down", None), whole("total_down")]),
        rubric("Measures availability per Service Month in the SLA's local time", 10, cells("avail", 3)),
        rubric("Applies the current schedule's credit tiers", 8, [*cells("met", None), *cells("pct", None),
                                                                  whole("months_below")]),
        rubric("Prices the credits on the recurring Monthly Fee", 8, [*cells("fee", 2), *cells("credit", 2)]),
        rubric("Totals the claim within the cap and answers the goodwill offer", 8, [
            (f"{L['total']} = {facts['total']:.2f}", fld_num(memo, L["total"], facts["total"], 2)),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]),
                                                              ["yes", "no"]))]),
        rubric("Tests the vendor's reported availability for the named month", 6, [
            (f"{L['named_avail']} = {facts['named_avail']:.3f}", fld_num(memo, L["named_avail"], facts["named_avail"], 3)),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Writes a claim letter the vendor must answer", 6, [
            ("Lists each month claimed with its availability, credit % and amount under the current schedule", llm("content")),
            ("Explains the overrun, the vendor-change outage labelled customer-caused and the local-time months",
             llm("explanation")),
            ("Declines or accepts the goodwill offer with the reason, in a tone fit to send", llm("writing"))]))
    return out


SLA_CREDITS_CLAIM = Workflow(
    key="sla_credits_claim", family="vendor_sla_management",
    method="monthly availability (union of outage intervals less approved windows, local-time Service Months) "
           "against the SLA tiers, service credits on the Monthly Fee within the cap",
    professions=("computer_and_information_systems_managers",), solver="sla", shortcuts=SHORTCUTS, draw=draw,
    recheck=recheck, rubrics=rubrics, data="generated managed-hosting incident and change records (stated distributions)")
