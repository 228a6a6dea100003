"""Desk review of 24 months of discharge monitoring reports against an NPDES permit (licensing examiners and
inspectors at a state environmental agency).

The permittee is a municipal wastewater treatment plant with a design flow of 1.2-3.0 MGD and one process outfall
(001; a stormwater outfall 002 reports TSS only and is out of scope). Monthly average flow is uniform 45-90 % of
design flow; in one wet month it is 122-138 % of design flow while BOD5 or TSS runs at 84-93 % of its
concentration limit, so the mass loading (mg/L x MGD x 8.34) alone exceeds its lb/d limit. Monthly averages are
log-normal: BOD5 median 8 mg/L, TSS median 10 mg/L, ammonia as N median 2.2 mg/L before and 1.6 mg/L after the
modification (sigma 0.3-0.35, capped well below the limits), zinc median 0.045 mg/L; daily maxima are the average
times uniform 1.2-2.0. Copper is below the minimum level (ML, 0.010 mg/L) in about 35 % of months and in four or
five of some six consecutive months; detected months average 0.0030-0.0080 mg/L (non-detect samples count as
zero) with a daily maximum of 0.0105-0.0130 mg/L. With probability 0.7 a TSS or BOD5 daily maximum is 46-58 mg/L
in one month (an upset). The permit was modified at month 9-14 of the review (ammonia tightened from 10/15 mg/L to
3.5-4.5 mg/L and twice that). For a "refer" task two post-modification months run ammonia at 1.48-1.85 x the new
monthly limit within five months of each other (SNC by the technical review criterion); otherwise one month runs at
1.08-1.30 x. One month's zinc results come from a contract lab that reported in ug/L.

Failure behaviour: ``draw`` raises DegenerateTask when the planted months miss the targeted SNC finding or the
careless reading finds the same SNC parameters; ``recheck`` raises OSError, KeyError or ValueError on a folder that
is not this workflow's (``recheck_task`` reports that as one problem).
"""

from __future__ import annotations

import csv
import datetime as dt
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, llm, rnd, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels

__all__ = ["DMR_REVIEW"]

_PARAMS = [{"code": "00310", "name": "BOD5", "group": "conventional"},
           {"code": "00530", "name": "TSS", "group": "conventional"},
           {"code": "00610", "name": "Ammonia as N", "group": "conventional"},
           {"code": "01119", "name": "Total recoverable copper", "group": "toxic"},
           {"code": "01094", "name": "Total recoverable zinc", "group": "toxic"}]
_LABELS = {
    "exceed_total": ("Effluent limit exceedances", "Number of limit exceedances", "Permit limit violations (count)"),
    "load_exceed": ("Mass loading exceedances", "Loading limit violations (count)", "Exceedances of lb/d limits"),
    "worst_load": ("Highest loading month", "Month of worst mass loading", "Peak loading period"),
    "snc": ("Parameters in significant non-compliance", "SNC parameters", "Parameters meeting the SNC criteria"),
    "decision": ("Refer for formal enforcement", "Escalate to formal enforcement", "Formal enforcement referral"),
    "premise": ("{param} over its limit in {month}", "{param} limit exceeded in {month}", "{param} violation in {month}"),
}
_BASIS = {"avg": ("Monthly average", "MO AVG concentration", "Average monthly"),
          "max": ("Daily maximum", "DAILY MX concentration", "Maximum daily"),
          "load": ("Loading (lb/d)", "Mass loading, monthly average", "Monthly average loading")}
_DIRS = {"permit": ("permit", "permits/npdes", "permit_file"), "dmr": ("dmr", "netdmr_exports", "monitoring/dmr"),
         "lab": ("lab_reports", "laboratory", "monitoring/lab"), "mail": ("correspondence", "complaints", "inbox"),
         "guide": ("enforcement", "guidance", "compliance_manual")}
_FACILITIES = ("Cedar Falls WWTP", "North Fork Water Reclamation Facility", "Millbrook Wastewater Plant",
               "Harlan Creek POTW", "Eastgate Regional WWTF", "Pine Hollow Sanitary District Plant")


def _month_add(year: int, month: int, k: int) -> tuple[int, int]:
    total = year * 12 + month - 1 + k
    return total // 12, total % 12 + 1


def _end(year: int, month: int) -> dt.date:
    y, m = _month_add(year, month, 1)
    return dt.date(y, m, 1) - dt.timedelta(days=1)


def _ln(rng: random.Random, median: float, sigma: float, cap: float) -> float:
    import math

    return min(math.exp(rng.gauss(math.log(median), sigma)), cap)


def _series(rng: random.Random, design: float, new_avg: float, eff: int, decision: bool) -> dict[str, Any]:
    """Twenty-four monitoring periods of outfall 001: flows and reported (value text, units) per parameter."""
    n = 24
    flows = [design * rng.uniform(0.45, 0.9) for _ in range(n)]
    vals: dict[tuple[int, str], tuple[float, float]] = {}
    for k in range(n):
        bod, tss = _ln(rng, 8, 0.35, 18), _ln(rng, 10, 0.35, 20)
        nh3 = _ln(rng, 2.2, 0.3, 3.5) if k < eff else _ln(rng, 1.6, 0.3, new_avg * 0.8)
        zn = _ln(rng, 0.045, 0.3, 0.09)
        vals[(k, "00310")] = (bod, bod * rng.uniform(1.3, 2.0))
        vals[(k, "00530")] = (tss, tss * rng.uniform(1.3, 2.0))
        vals[(k, "00610")] = (nh3, nh3 * rng.uniform(1.3, 1.7))
        vals[(k, "01094")] = (zn, zn * rng.uniform(1.2, 1.6))
    wet, wet_code = rng.randrange(n), rng.choice(("00310", "00530"))
    flows[wet] = design * rng.uniform(1.22, 1.38)
    avg = 30 * rng.uniform(0.84, 0.93)
    vals[(wet, wet_code)] = (avg, avg * rng.uniform(1.1, 1.4))
    if rng.random() < 0.7:
        k, code = rng.choice([x for x in range(n) if x != wet]), rng.choice(("00310", "00530"))
        vals[(k, code)] = (vals[(k, code)][0], rng.uniform(46, 58))
    post = list(range(eff, n))
    if decision:
        a = rng.choice(post[:-1])
        b = rng.choice([k for k in post if a < k <= a + 5])
        for k in (a, b):
            v = new_avg * rng.uniform(1.48, 1.85)
            vals[(k, "00610")] = (v, v * rng.uniform(1.15, 1.35))
    else:
        k = rng.choice(post)
        v = new_avg * rng.uniform(1.08, 1.3)
        vals[(k, "00610")] = (v, v * rng.uniform(1.1, 1.35))
    start = rng.randrange(0, n - 5)
    nd = set(rng.sample(range(start, start + 6), rng.choice((4, 5))))
    nd |= {k for k in range(n) if rng.random() < 0.2}
    copper = {k: None if k in nd else (rng.uniform(0.003, 0.008), rng.uniform(0.0105, 0.013)) for k in range(n)}
    ug = rng.randrange(n)
    return {"flows": flows, "vals": vals, "copper": copper, "ug": ug, "wet": (wet, wet_code), "nd": sorted(nd)}


def _dmr_rows(P: dict[str, Any], s: dict[str, Any], months: list[dt.date], received: list[dt.date]) -> list[list[Any]]:
    rows: list[list[Any]] = []
    names = {p["code"]: p["name"] for p in P["parameters"]}
    for k, end in enumerate(months):
        flow = f"{s['flows'][k]:.3f}"
        base = [P["permit_id"], P["outfall"], end.isoformat()]
        for code in ("00310", "00530", "00610", "01119", "01094"):
            for j, stat in enumerate(("MO AVG", "DAILY MX")):
                units, nodi = "mg/L", ""
                if code == "01119":
                    pair = s["copper"][k]
                    text = "<0.010" if pair is None else f"{pair[j]:.4f}"
                    nodi = "B" if pair is None else ""
                elif code == "01094" and k == s["ug"]:
                    text, units = f"{s['vals'][(k, code)][j] * 1000:.1f}", "ug/L"
                else:
                    v = s["vals"][(k, code)][j]
                    text = f"{v:.3f}" if code == "01094" else f"{v:.2f}" if code == "00610" else f"{v:.1f}"
                rows.append(base + [code, names[code], stat, text, units, flow, nodi, received[k].isoformat()])
        rows.append([P["permit_id"], "002", end.isoformat(), "00530", "TSS", "MO AVG",
                     f"{60 + 40 * (k % 3) + k:.1f}", "mg/L", "", "", received[k].isoformat()])
    return rows


# ---- the independent computation: csv only -----------------------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the DMR export with the csv module: each (period, parameter, statistic) value in
    mg/L under the limits in force that period, then the per-parameter monthly flags and the six-period windows."""
    with (Path(folder) / P["files"]["dmr"]).open(newline="", encoding="utf-8") as f:
        raw = [r for r in csv.DictReader(f) if r["outfall"].strip() == P["outfall"]]
    names = {p["code"]: p["name"] for p in P["parameters"]}
    flow: dict[str, float] = {}
    review: list[dict[str, Any]] = []
    for r in raw:
        code, month = r["parameter_code"].strip(), r["monitoring_period_end"][:7]
        flow[month] = float(r["flow_mgd"])
        v = r["value"].strip()
        conc = 0.0 if v.startswith("<") else float(v) * (0.001 if r["units"].strip().lower() == "ug/l" else 1.0)
        lim = P["limits"]["modified" if month >= P["effective_month"] else "original"][code]
        key = "avg" if r["statistical_base"].startswith("MO") else "max"
        review.append({"month": month, "code": code, "basis": key, "value": conc, "limit": float(lim[key])})
        if key == "avg" and lim.get("load"):
            review.append({"month": month, "code": code, "basis": "load", "value": conc * float(r["flow_mgd"]) * 8.34,
                           "limit": float(lim["load"])})
    params = []
    for p in P["parameters"]:
        trc = float(P["trc"][p["group"]])
        mine = [x for x in review if x["code"] == p["code"]]
        for x in mine:
            x.update(parameter=names[x["code"]], ratio=x["value"] / x["limit"], exceed=x["value"] > x["limit"],
                     trc=x["value"] >= trc * x["limit"])
        months = sorted(flow)
        over = [int(any(x["exceed"] for x in mine if x["month"] == m)) for m in months]
        hits = [int(any(x["trc"] for x in mine if x["month"] == m)) for m in months]
        w = int(P["window"])
        snc = any(sum(hits[i:i + w]) >= P["trc_months"] or sum(over[i:i + w]) >= P["chronic_share"] * w
                  for i in range(len(months) - w + 1))
        params.append({"code": p["code"], "parameter": p["name"], "exceedances": sum(x["exceed"] for x in mine),
                       "snc": snc})
    loads = sorted((x for x in review if x["basis"] == "load"), key=lambda x: -x["ratio"])
    snc_names = [p["parameter"] for p in params if p["snc"]]
    return {"review": review, "parameters": params, "exceed_total": sum(x["exceed"] for x in review),
            "load_exceed": sum(x["exceed"] for x in loads), "worst_load_month": loads[0]["month"],
            "worst_load_parameter": loads[0]["parameter"], "worst_load": rnd(loads[0]["value"], 1),
            "snc": snc_names, "decision": bool(snc_names),
            "premise": any(x["exceed"] for x in review
                           if x["month"] == P["premise_month"] and x["code"] == P["premise_code"])}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _limit_lines(P: dict[str, Any], which: str) -> list[str]:
    lim = P["limits"][which]
    out = []
    for p in P["parameters"]:
        x = lim[p["code"]]
        text = f"- {p['name']} (parameter {p['code']}): monthly average {x['avg']} mg/L; daily maximum {x['max']} mg/L"
        if x.get("load"):
            text += f"; monthly average loading {x['load']} lb/d"
        if p["code"] == "01119":
            text += " [footnote 3]"
        out.append(text)
    return out


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.dmr import analyse, row_of

    prof = profession(occupation)
    design = rng.choice((1.2, 1.5, 1.8, 2.0, 2.4, 3.0))
    new_avg = rng.choice((3.5, 4.0, 4.5))
    eff = rng.randint(9, 14)
    y0, m0 = rng.choice((2023, 2024)), rng.randint(1, 12)
    months = [_end(*_month_add(y0, m0, k)) for k in range(24)]
    tags = [f"{d:%Y-%m}" for d in months]
    received = [d + dt.timedelta(days=rng.randint(18, 28)) for d in months]
    s = _series(rng, design, new_avg, eff, targets["decision"])
    load = int(round(30 * design * 8.34))
    base: dict[str, dict[str, float]] = {"00310": {"avg": 30, "max": 45, "load": load}, "00530": {"avg": 30, "max": 45, "load": load},
            "00610": {"avg": 10, "max": 15}, "01119": {"avg": 0.009, "max": 0.014},
            "01094": {"avg": 0.12, "max": 0.16}}
    modified = {k: dict(v) for k, v in base.items()}
    modified["00610"] = {"avg": new_avg, "max": new_avg * 2}
    permit_id = f"{rng.choice(('OH', 'PA', 'MO', 'KY', 'WV', 'IN'))}00{rng.randint(20000, 29999)}"
    dirs = pick_labels(rng, _DIRS)
    fac = rng.choice(_FACILITIES)
    ymd = f"{tags[0].replace('-', '')}_{tags[-1].replace('-', '')}"
    P: dict[str, Any] = {
        "files": {"dmr": f"{dirs['dmr']}/{permit_id}_netdmr_export_{ymd}.csv"}, "dirs": dirs,
        "permit_id": permit_id, "facility": fac, "outfall": "001", "parameters": [dict(p) for p in _PARAMS],
        "limits": {"original": base, "modified": modified}, "effective_month": tags[eff], "mod_no": rng.randint(1, 3),
        "trc": {"conventional": 1.4, "toxic": 1.2}, "window": 6, "trc_months": 2, "chronic_share": 0.66,
        "design_mgd": design, "premise_month": "", "premise_code": "", "labels": {},
        "basis_labels": pick_labels(rng, _BASIS),
        "deliverables": {"workbook": rng.choice((f"{permit_id}_dmr_review.xlsx", "dmr_desk_review.xlsx")),
                         "memo": rng.choice((f"NOV_{permit_id}_draft.docx", "nov_draft.docx"))},
    }
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        path = Path(tmp) / P["files"]["dmr"]
        path.parent.mkdir(parents=True)
        write_csv(path, _DMR_HEADER, _dmr_rows(P, s, months, received))
        truth = analyse(tmp, P)
        pipeline = analyse(tmp, P, ("old_limits", "detection", "units"))
    if truth["decision"] != targets["decision"]:
        raise DegenerateTask("the planted ammonia months do not give the targeted SNC finding")
    if pipeline["snc"] == truth["snc"]:
        raise DegenerateTask("the careless reading finds the same SNC parameters")
    zinc = row_of(truth, tags[s["ug"]], "01094", "avg")
    if targets["premise"]:
        pool = sorted({(x["month"], x["code"], x["basis"]) for x in truth["review"] if x["exceed"]})
        pm, pc, pb = rng.choice(pool)
    else:
        pm, pc, pb = zinc["month"], "01094", "avg"
    P.update(premise_month=pm, premise_code=pc, premise_basis=pb)
    name = {p["code"]: p["name"] for p in _PARAMS}
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(param=name[pc], month=pm)
    P["labels"] = labels
    post_nh3 = [x for x in truth["review"] if x["code"] == "00610" and x["basis"] == "avg" and x["month"] >= tags[eff]]
    P["probe"] = {"mod": max(post_nh3, key=lambda x: x["ratio"])["month"], "nd": tags[s["nd"][0]],
                  "ug": tags[s["ug"]]}
    traps = [{"kind": "permit_modification", "where": "data", "naive": "old_limits",
              "description": f"modification {P['mod_no']} tightened ammonia from {tags[eff]}"},
             {"kind": "below_detection", "where": "footnote", "naive": "detection",
              "description": "copper '<0.010' results count as zero per the permit footnote"},
             {"kind": "units", "where": "data", "naive": "units",
              "description": f"zinc for {tags[s['ug']]} was reported in ug/L"}]
    writers, roles = _workspace(rng, P, s, months, received, tags, eff, prof.title)
    prompt = _prompt(rng, P, s, tags, eff, zinc, writers)
    return Draft(subject=f"DMR desk review, {fac} ({permit_id}), {tags[0]} to {tags[-1]}", instructions=prompt,
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="design flow 1.2-3.0 MGD; monthly flow 45-90 % of design (one wet month 122-138 %); "
                               "BOD5/TSS/NH3/Zn log-normal medians 8/10/2.2 (1.6 after the modification)/0.045 mg/L; "
                               "daily max = average x U(1.2, 2.0); copper below ML in ~35 % of months; one upset "
                               "with p 0.7; one zinc month in ug/L; modification at month 9-14")


_DMR_HEADER = ["npdes_id", "outfall", "monitoring_period_end", "parameter_code", "parameter", "statistical_base",
               "value", "units", "flow_mgd", "nodi", "received_date"]


def _prompt(rng: random.Random, P: dict[str, Any], s: dict[str, Any], tags: list[str], eff: int,
            zinc: dict[str, Any], writers: dict[str, Any]) -> str:
    D, L, B, dirs = P["deliverables"], P["labels"], P["basis_labels"], P["dirs"]
    boss = person(rng)
    pname = {p["code"]: p["name"] for p in _PARAMS}[P["premise_code"]]
    if P["premise_code"] == "01094" and P["premise_month"] == zinc["month"]:
        belief = (f"The complainant's letter says the {P['premise_month']} zinc result on the DMR is far over the "
                  "permit limit - confirm or refute that from the record.")
    else:
        belief = rng.choice((f"The complaint alleges {pname} was over its permit limit in {P['premise_month']}; "
                             "confirm or refute it from the record.", f"The complainant says the plant broke its "
                             f"{pname} limit in {P['premise_month']}. Is that right?"))
    steps = [
        f"Take the NetDMR export in {dirs['dmr']}/ for outfall {P['outfall']} only (outfall 002 is stormwater, "
        "report-only) and compare each period's monthly average and daily maximum with the limits in force for that "
        "period: the permit's Part I.A limits, replaced by any modification from its effective date (a period is "
        "judged under the limits in force on its first day).",
        "Apply the permit's footnotes and convert every result to mg/L before comparing (watch the units column).",
        "Compute the monthly average mass loading for each parameter with a lb/d limit as monthly average "
        "concentration (mg/L) x monthly average flow (MGD) x 8.34 and compare it with that limit.",
        "An exceedance is a value strictly above its limit; each limit (monthly average, daily maximum, loading) "
        "in each period counts once. Decide significant non-compliance per parameter by the current enforcement "
        f"response guide in {dirs['guide']}/ (a period counts for a parameter when any of its limits is exceeded, "
        "and as a technical-review-criterion period when any value is at or above the criterion times its limit; "
        "the windows are any six consecutive periods of the 24).",
        "Draft the notice of violation, with a referral for formal enforcement if and only if a parameter is in SNC."]
    cols = "month (YYYY-MM), parameter (as on the DMR), basis, reported, units, conc_mg_l, flow_mgd, value, limit, " \
           "ratio, exceed (1/0), trc (1/0)"
    basis = "; ".join(f"'{B[k]}'" for k in ("avg", "max", "load"))
    memo = [(L["exceed_total"], "whole number, all parameters and limits"), (L["load_exceed"], "whole number"),
            (L["worst_load"], "YYYY-MM, the period with the highest loading-to-limit ratio"),
            (L["snc"], "parameter names separated by semicolons, or None"), (L["decision"], "yes or no"),
            (L["premise"], "yes or no")]
    deliverables = [
        f"{D['workbook']}: sheet Review with one row per period, parameter and limit, columns {cols}; basis is one "
        f"of {basis}. value, ratio (value / limit), exceed and trc are live formulas (the loading value as "
        "=conc x flow x 8.34). Sheet SNC: parameter, group, trc_factor, exceedances (a formula over Review), "
        "months_over, worst_6_trc_months, worst_6_months_over, snc (yes/no), one row per parameter.",
        f"{D['memo']}: the draft notice of violation to the permittee, opening with these labelled lines "
        "(label: value), then the violations by period and the basis for the SNC finding:\n"
        + "\n".join(f"   {lbl}: <{hint}>" for lbl, hint in memo)]
    opener = rng.choice((f"From: {boss}, Chief Inspector\nSubject: Desk review, {P['facility']} ({P['permit_id']})\n\n",
                         f"{boss} (Chief Inspector) - complaint-driven desk review of {P['permit_id']}\n\n",
                         f"Hi - {boss} here.\n\n"))
    ask = rng.choice((f"We have a citizen complaint about {P['facility']}. Please check the last 24 months of DMRs "
                      f"({tags[0]} to {tags[-1]}) against the permit.", f"Before we answer the complaint about "
                      f"{P['facility']}, I need a desk review of its DMRs for {tags[0]} to {tags[-1]} against the "
                      "NPDES permit."))
    return "\n\n".join([
        opener + ask + " " + belief,
        "Method:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Deliverables in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliverables, 1)),
        rng.choice(("Thanks.", "Flag anything in the record you had to interpret.", "Keep the NOV factual.")) + "\n"
        + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers))]) + "\n"


def _workspace(rng: random.Random, P: dict[str, Any], s: dict[str, Any], months: list[dt.date],
               received: list[dt.date], tags: list[str], eff: int, title: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    D, pid, fac = P["dirs"], P["permit_id"], P["facility"]
    issued = months[0] - dt.timedelta(days=rng.randint(400, 900))
    eff_day = months[eff].replace(day=1)
    signed = eff_day - dt.timedelta(days=rng.randint(30, 50))
    add(P["files"]["dmr"], "data", lambda p: write_csv(p, _DMR_HEADER, _dmr_rows(P, s, months, received)))
    add(f"{D['permit']}/{pid}_permit_{issued:%Y}.pdf", "policy", lambda p: write_pdf(p, f"NPDES permit {pid}", [
        f"Permittee: {fac}. Design flow {P['design_mgd']} MGD. Effective {issued:%Y-%m-%d} for five years.",
        "Part I.A. Final effluent limitations, outfall 001 (treated municipal wastewater):", *_limit_lines(P, "original"),
        "Outfall 002 (stormwater): TSS monitor and report only; no numeric limit.",
        "Mass loadings (lb/d) = concentration (mg/L) x flow (MGD) x 8.34.",
        "Footnote 3: The minimum level (ML) for total recoverable copper is 0.010 mg/L. Results below the ML are "
        "reported as '<0.010' and are considered zero (0) for calculating averages and for compliance.",
        "Part III. Monitoring results are submitted monthly on discharge monitoring reports through NetDMR."]))
    add(f"{D['permit']}/modifications/{pid}_major_modification_{P['mod_no']}.pdf", "policy", lambda p: write_pdf(
        p, f"Permit {pid}: major modification No. {P['mod_no']} (final)", [
            f"Signed {signed:%Y-%m-%d}. Effective date: {eff_day:%Y-%m-%d}.",
            "Reason: the receiving stream's total maximum daily load for ammonia. Part I.A is amended for outfall 001 "
            "as follows; all other limits and conditions, including the footnotes, are unchanged:",
            f"- Ammonia as N (parameter 00610): monthly average {P['limits']['modified']['00610']['avg']} mg/L; daily "
            f"maximum {P['limits']['modified']['00610']['max']} mg/L",
            "The limits above apply to monitoring periods beginning on or after the effective date."]))
    add(f"{D['permit']}/modifications/{pid}_mod_{P['mod_no']}_public_notice_DRAFT.docx", "stale", lambda p: write_docx(
        p, f"DRAFT for public notice - proposed modification of {pid}", [
            "Proposed limits (not in force; see the final modification):",
            f"- Ammonia as N: monthly average {P['limits']['modified']['00610']['avg'] + 1.5} mg/L; daily maximum "
            f"{P['limits']['modified']['00610']['max'] + 3} mg/L", "Comment period: 30 days from publication."]))
    add(f"{D['permit']}/archive/{pid}_permit_{issued.year - 5}_expired.pdf", "stale", lambda p: write_pdf(
        p, f"NPDES permit {pid} (expired {issued:%Y-%m-%d})", [
            "Part I.A: BOD5 monthly average 45 mg/L; TSS monthly average 45 mg/L; ammonia as N report only; copper "
            "monthly average 0.020 mg/L.", "Results below detection are reported at the detection limit."]))
    add(f"{D['guide']}/enforcement_response_guide_rev{rng.randint(4, 7)}.docx", "policy", lambda p: write_docx(
        p, "Water enforcement response guide (current)", [
            "Significant non-compliance (SNC) for effluent limits is decided per parameter:",
            "- Technical review criterion (TRC): a parameter is in SNC if in at least 2 of any 6 consecutive monthly "
            "periods a value equals or exceeds its limit multiplied by the TRC factor: 1.4 for conventional "
            "pollutants (BOD5, TSS, ammonia), 1.2 for toxic pollutants (metals).",
            "- Chronic violation: a parameter is in SNC if it exceeds any of its limits at all in 66 % or more of the "
            "monthly periods of any 6 consecutive periods.",
            "- A permittee with any parameter in SNC is referred for formal enforcement; otherwise a notice of "
            "violation with a compliance schedule request is sent.",
            "Supersedes all earlier revisions."]))
    add(f"{D['guide']}/archive/enforcement_response_guide_1998.pdf", "stale", lambda p: write_pdf(
        p, "Enforcement response guide (1998, superseded)", [
            "SNC: 4 or more of 6 months at or above 1.5 x the limit (conventional) or 1.25 x (toxic).",
            "Results below detection are counted at the detection limit."]))
    lab = rng.choice(("Tri-County Analytical", "Keystone Environmental Labs", "Riverbend Testing Services"))
    ug = s["ug"]
    zn_avg, zn_max = s["vals"][(ug, "01094")]
    add(f"{D['lab']}/{tags[ug]}_{lab.split()[0].lower()}_metals_report.pdf", "data", lambda p: write_pdf(
        p, f"{lab} - certificate of analysis", [
            f"Client: {fac}. Samples: outfall 001 composite, {tags[ug]}.",
            f"Zinc, total recoverable (EPA 200.7): monthly average {zn_avg * 1000:.1f} ug/L; highest daily "
            f"{zn_max * 1000:.1f} ug/L. Method detection limit 2.0 ug/L.",
            "All results are reported in micrograms per litre (ug/L)."]))
    other = rng.choice([k for k in range(24) if k != ug])
    add(f"{D['lab']}/{tags[other]}_inhouse_bench_summary.pdf", "data", lambda p: write_pdf(
        p, f"{fac} laboratory - monthly summary {tags[other]}", [
            f"BOD5 monthly average {s['vals'][(other, '00310')][0]:.1f} mg/L; TSS {s['vals'][(other, '00530')][0]:.1f} "
            f"mg/L; ammonia as N {s['vals'][(other, '00610')][0]:.2f} mg/L. All results in mg/L."]))
    add(f"{D['mail']}/complaint_{received[-1]:%Y%m%d}.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)} (resident)", to="Division of Surface Water", date=received[-1].isoformat(),
        subject=f"Complaint about {fac}", body="The creek below the plant smells and looks cloudy after rain. I "
        f"looked at the public DMR data and think the plant is violating its permit, especially in {P['premise_month']}"
        " and in the wet months.")))
    add(f"{D['mail']}/{fac.split()[0].lower()}_response_letter.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Superintendent, {fac}", to="Chief Inspector", date=received[-1].isoformat(),
        subject="DMR questions", body=f"Our contract lab reported zinc for {tags[ug]} in ug/L, which is what went "
        "on the DMR with the units shown. Copper results below the ML are reported as '<0.010' as the permit says. "
        "We believe we have been in compliance since the ammonia upgrade.")))
    add(f"inspections/{pid}_cei_{months[6]:%Y%m%d}.docx", "distractor", lambda p: write_docx(
        p, f"Compliance evaluation inspection - {fac}", [
            f"Inspector: {person(rng)}. Records reviewed on site; flow meter calibrated {months[5]:%Y-%m-%d}.",
            "Sludge handling and disinfection in order. No unpermitted outfalls observed."]))
    add(f"facility/{pid}_influent_monitoring.xlsx", "distractor", lambda p: write_xlsx(p, [(
        "Influent", ["month", "influent_bod_mg_l", "influent_tss_mg_l", "rain_in"],
        [[t, round(rng.uniform(160, 260), 1), round(rng.uniform(180, 300), 1), round(rng.uniform(0.5, 6), 2)]
         for t in tags])]))
    add("templates/nov_template.docx", "reference", lambda p: write_docx(p, "Notice of violation - template", [
        "Re: NPDES permit [number], [facility]", "Summary of findings (labelled lines)", "Violations by period",
        "Required response within 30 days", "Signature: Chief Inspector"]))
    add(f"meetings/{received[-1]:%Y-%m-%d}_section_meeting.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="complaint desk reviews", people=[person(rng) for _ in range(3)],
                         date=received[-1].isoformat())))
    add("procedures/desk_review_checklist.md", "reference", lambda p: write_text(p, (
        f"# DMR desk review checklist ({title}s)\n\n1. Confirm the permit and every modification in force\n"
        "2. Pull the NetDMR export for the review period\n3. Check units and footnotes before comparing\n"
        "4. Apply the enforcement response guide for SNC\n5. Draft the NOV from the template\n")))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck

    D, L, B = P["deliverables"], P["labels"], P["basis_labels"]
    book, memo = D["workbook"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    name = {p["code"]: p["name"] for p in P["parameters"]}
    rows = {(x["month"], x["code"], x["basis"]): x for x in facts["review"]}
    by = {p["code"]: p for p in facts["parameters"]}

    def cell(month: str, code: str, basis: str, column: str, decimals: int) -> tuple[str, Any]:
        x = rows[(month, code, basis)]
        value = {"ratio": x["ratio"], "value": x["value"], "exceed": float(x["exceed"])}[column]
        value = rnd(value, decimals)
        return (f"{book} Review: {month} {name[code]} {B[basis]} {column} = {value:.{decimals}f}",
                CellCheck(file=book, sheet="Review", match={"month": month, "parameter": name[code], "basis": B[basis]},
                          column=column, value=float(value), tolerance=tol(decimals)))

    def snc_cell(code: str, column: str) -> tuple[str, Any]:
        v: Any = float(by[code]["exceedances"]) if column == "exceedances" else yes(by[code]["snc"])
        shown = f"{v:.0f}" if column == "exceedances" else v
        return (f"{book} SNC: {name[code]} {column} = {shown}",
                CellCheck(file=book, sheet="SNC", match={"parameter": name[code]}, column=column, value=v))

    pr = P["probe"]
    wl = facts["worst_load_month"]
    wl_code = next(c for c, n in name.items() if n == facts["worst_load_parameter"])
    snc = facts["snc"]
    out = [
        rubric("Counts the exceedances against the limits in force", 10, [
            (f"{L['exceed_total']} = {facts['exceed_total']}",
             FieldCheck(file=memo, label=L["exceed_total"], number=float(facts["exceed_total"]), tolerance=0.0)),
            snc_cell("00610", "exceedances"), snc_cell("01119", "exceedances"), snc_cell("01094", "exceedances")]),
        rubric("Applies the modified ammonia limits from the modification's effective date", 10, [
            cell(pr["mod"], "00610", "avg", "ratio", 2), cell(pr["mod"], "00610", "max", "ratio", 2)]),
        rubric("Counts copper results below the ML as zero, as the permit footnote says", 8, [
            cell(pr["nd"], "01119", "avg", "ratio", 2), snc_cell("01119", "snc")]),
        rubric("Converts the lab's ug/L zinc results to mg/L", 8, [
            cell(pr["ug"], "01094", "avg", "ratio", 2), cell(pr["ug"], "01094", "max", "ratio", 2)]),
        rubric("Computes the mass loadings from concentration, flow and 8.34", 8, [
            (f"{L['load_exceed']} = {facts['load_exceed']}",
             FieldCheck(file=memo, label=L["load_exceed"], number=float(facts["load_exceed"]), tolerance=0.0)),
            (f"{L['worst_load']}: {wl}", fld(memo, L["worst_load"], wl)), cell(wl, wl_code, "load", "value", 1)]),
        rubric("Decides significant non-compliance by the enforcement response guide", 10, [
            (f"{L['snc']}: {'; '.join(snc) or 'None'}",
             FieldCheck(file=memo, label=L["snc"], items=list(snc), options=[p["name"] for p in P["parameters"]])),
            snc_cell("00610", "snc")]),
        rubric("Recommends the enforcement response the guide requires", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            snc_cell("00310", "snc")]),
        rubric("Tests the complaint's claim against the record", 6, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            cell(P["premise_month"], P["premise_code"], P["premise_basis"], "exceed", 0)]),
    ]
    if judgement:
        out.append(rubric("Writes a notice of violation the Chief Inspector can sign", 6, [
            ("Lists each violation with its period, parameter, reported value and limit", llm("content")),
            ("States the permit modification and the limits applied before and after it", llm("explanation")),
            ("Explains the below-ML copper results and the ug/L zinc report", llm("explanation"))]))
        out.append(rubric("Grounds the SNC finding and the referral in the guide", 6, [
            ("Cites the TRC and chronic criteria and the six-period windows that meet them", llm("reasoning")),
            ("Answers the complainant's specific allegation", llm("tone and content"))]))
    return out


DMR_REVIEW = Workflow(
    key="dmr_desk_review", family="dmr_desk_review", method="NPDES DMR review: limits, loadings, SNC by TRC",
    professions=("licensing_examiners_and_inspectors",), solver="dmr",
    shortcuts=("old_limits", "detection", "units"), draw=draw, recheck=recheck, rubrics=rubrics,
    data="generated municipal WWTP DMRs (stated distributions)")
