"""A fiscal year's laptop refresh list under the lifecycle standard, priced against the vendor's quote, as a
procurement upload and a note for the budget review (computer user support specialists).

The fiscal year starts in January, April, July or October; the asset register and the ticket export are taken 45-110
days before it and the cut-off date is its last day. 550-850 deployed laptops of 10 models (build profiles Standard,
Performance, Mobile; warranty 36 or 48 months) were bought 20-1,460 days before the export (12 %: 1,460-1,900 days);
30 % of those bought before 2023 are records migrated from the old CMDB without a purchase date. Battery health
(full charge / design capacity) is 100 - 0.35-0.75 points per month of age less |N(0, 3)|, reported for 93 % of the
laptops; a laptop under the age limit reports 61 % or more unless planted. Hardware tickets are 0-3 per laptop over
two years (15 % of an old laptop's first ticket re-logged as a Duplicate); a laptop under the age limit keeps at most
2 in the 12-month window. Planted: when the director's belief is to fail, 2-6 young laptops with battery 35-57 % and
1-4 with 3-5 incidents in the window; always 2-4 young laptops with 2 incidents in the window and 1-2 older ones, 2-4
with 2 in the window and a Duplicate, 3-7 due laptops (and 20-45 young ones) on the lessor's schedule (by serial
number), 3-7 due laptops of confirmed leavers and 12-30 leavers leaving after the cut-off or not yet confirmed.
Loaners, spares, last year's retired laptops and 50-90 desktops sit in the register. The quote prices one SKU per
build profile plus a per-unit deployment service; the budget line is a round $5,000 3-12 % above the list's cost, or
5-18 % below it. The current standard (v3) is 48 months, battery under 60 %, 3 incidents; the archived 2022 standard
60 months, under 50 %, 4 incidents.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed or a planted trap moves no graded figure;
``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime as dt
import math
import random
import tempfile
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rubric
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files
from .refresh_fleet import MODELS, fleet, months_back, register_rows

__all__ = ["LAPTOP_REFRESH"]

_LABELS = {
    "count": ("Laptops on the refresh list", "Laptops due for refresh", "Refresh list size"),
    "age": ("Due on age", "Age-triggered laptops", "Refreshed for age"),
    "battery": ("Due on battery health", "Battery-triggered laptops", "Refreshed for battery"),
    "incidents": ("Due on hardware incidents", "Reliability-triggered laptops", "Refreshed for repeated faults"),
    "leased": ("Leased units left off", "Leased laptops excluded", "Leased units not refreshed"),
    "leavers": ("Leavers' laptops left off", "Laptops of leavers excluded", "Leavers excluded"),
    "cost": ("Refresh cost ($)", "Total cost of the list ($)", "List cost at the quote ($)"),
    "decision": ("Fits the {fy} budget", "Within the {fy} refresh budget", "Can be ordered within the {fy} budget"),
    "premise": ("Only laptops past the age limit are due", "Age alone decides the {fy} list",
                "No laptop is due on battery or faults alone"),
}
_OUT = {"tag": ("asset_tag", "asset_id", "tag"), "cost_centre": ("cost_centre", "cost_center", "cc"),
        "sku": ("sku", "item_code", "replacement_sku"), "reason": ("reason_code", "refresh_reason", "trigger"),
        "cost": ("unit_cost", "line_cost", "unit_price")}
_CODES = {"age": ("AGE", "LIFECYCLE", "EOL"), "battery": ("BATTERY", "BATT", "BAT-HEALTH"),
          "incidents": ("RELIABILITY", "HW-FAULTS", "INCIDENTS")}
_DIRS = {"assets": ("assets", "cmdb", "asset_management"), "itsm": ("servicedesk", "itsm", "tickets"),
         "policy": ("policies", "standards", "it_policies"), "mail": ("mail", "correspondence", "email")}
_SKU = {"Standard": ("NB-STD-14", 1040, 1290), "Performance": ("NB-PRF-16", 1780, 2240), "Mobile": ("NB-MOB-13", 1390, 1690)}
SHORTCUTS = ("old_policy", "cutoff", "warranty", "window", "duplicates", "leased", "leavers")


# ---- the independent computation: csv and openpyxl, completed months ------------------------------------------------

def _months(a: dt.date, b: dt.date) -> int:
    """Completed calendar months from ``a`` to ``b`` (a month completes on the same day, or on a shorter month's end)."""
    k = (b.year - a.year) * 12 + b.month - a.month
    end_of_month = b.day == calendar.monthrange(b.year, b.month)[1]
    return k - (1 if b.day < a.day and not end_of_month else 0)


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: each deployed laptop's triggers in one
    pass, ages in completed months, the leavers' workbook read with openpyxl."""
    folder, F = Path(folder), P["files"]
    cut, exp = dt.date.fromisoformat(P["cutoff"]), dt.date.fromisoformat(P["export"])
    lim = P["limits"]
    terms = {r["model"]: (int(r["warranty_months"]), r["build_profile"]) for r in read_rows(folder / F["catalogue"])}
    pct = {r["serial_number"]: int(r["full_charge_capacity_mwh"]) * 100 / int(r["design_capacity_mwh"])
           for r in read_rows(folder / F["battery"])}
    year_ago = exp.replace(year=exp.year - 1, day=min(exp.day, calendar.monthrange(exp.year - 1, exp.month)[1]))
    faults: dict[str, int] = {}
    for t in read_rows(folder / F["tickets"]):
        day = dt.date.fromisoformat(t["opened"][:10])
        if t["category"] == "Hardware" and t["resolution"] != "Duplicate" and year_ago <= day <= exp:
            faults[t["asset_tag"]] = faults.get(t["asset_tag"], 0) + 1
    leased = {r["serial_number"] for r in read_rows(folder / F["lessor"])}
    going = {r["employee_id"] for r in read_rows(folder / F["leavers"])
             if r["status"] == "Confirmed" and dt.date.fromisoformat(r["leaving_date"][:10]) <= cut}
    out: list[dict[str, Any]] = []
    gone = {"leased": 0, "leavers": 0}
    for r in read_rows(folder / F["register"]):
        if (r["asset_type"], r["status"]) != ("Laptop", "Deployed"):
            continue
        term, profile = terms[r["model"]]
        if r["purchase_date"]:
            age = _months(dt.date.fromisoformat(r["purchase_date"]), cut)
        else:
            age = _months(dt.date.fromisoformat(r["warranty_end"]), cut) + term
        why = ("age" if age >= lim["age_months"] else "battery" if pct.get(r["serial_number"], 100.0) < lim["battery_pct"]
               else "incidents" if faults.get(r["asset_tag"], 0) >= lim["incidents"] else "")
        if not why:
            continue
        if r["serial_number"] in leased or r["employee_id"] in going:
            gone["leased" if r["serial_number"] in leased else "leavers"] += 1
            continue
        q = P["quote"][profile]
        out.append({"tag": r["asset_tag"], "reason": why, "sku": q["sku"],
                    "unit_cost": float(Decimal(str(q["price"])) + Decimal(str(P["service"])))})
    out.sort(key=lambda d: d["tag"])
    cost = float(sum((Decimal(str(d["unit_cost"])) for d in out), Decimal(0)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
    n = {k: sum(d["reason"] == k for d in out) for k in ("age", "battery", "incidents")}
    return {"due": out, "count": len(out), **n, **gone, "cost": cost, "decision": cost <= P["budget"],
            "premise": n["battery"] + n["incidents"] == 0}


# ---- the workspace ------------------------------------------------------------------------------------------------

def _standard(P: dict[str, Any], current: bool) -> list[str]:
    fy, cut = P["fy"], P["cutoff"]
    if not current:
        return ["End-user laptop lifecycle standard (2022)",
                "- Laptops are refreshed at 60 months of age, measured on the last day of the fiscal year being planned.",
                "- A battery holding less than 50 % of its design capacity is replaced with the laptop.",
                "- Four or more hardware incidents in twelve months make a laptop due.",
                "- Leased laptops follow the lease schedule."]
    due_by = months_back(dt.date.fromisoformat(cut), 48).isoformat()
    return [
        f"End-user laptop lifecycle standard v3 (effective {P['policy_date']}; replaces the 2022 standard)",
        "- Scope: assets of type Laptop with status Deployed in the asset register. Loaners, spares, retired units and "
        "desktops are out of scope.",
        "- A laptop is due for refresh when any of these triggers applies:",
        f"- Age: 48 months old or more on the cut-off date. The cut-off date of a fiscal year's list is the last day "
        f"of that fiscal year ({fy}: {cut}), so a laptop purchased on or before {due_by} is due. [1]",
        "- Battery: health below 60 % in the endpoint battery report, where health = full charge capacity / design "
        "capacity x 100. A laptop without a report has no battery trigger.",
        "- Reliability: 3 or more hardware incidents in the 12 months to the ticket export date (opened on or after "
        "the same day a year earlier): tickets of category Hardware logged against the laptop's asset tag. Tickets "
        "resolved as Duplicate are not incidents.",
        "- Exceptions: leased laptops go back to the lessor at lease end and are not refreshed; the lessor's schedule "
        "(matched by serial number) is the record of leased units, the register does not record funding. A laptop "
        "assigned to an employee with a Confirmed leaving date on or before the cut-off date is recovered at exit, "
        "not refreshed; pending leavers are not excluded.",
        "- Reason: each laptop on the list carries the first trigger that applies, in the order age, battery, "
        "reliability.",
        "- Cost: each laptop is replaced by the current quote's SKU for its build profile (standard builds catalogue) "
        "at the quoted unit price plus the per-unit deployment service. Amounts in US dollars to cents, rounded half "
        "up; the list's cost is the sum of its lines.",
        "[1] Records migrated from the old CMDB have no purchase date: take it as the warranty end date less the "
        "model's warranty term in the standard builds catalogue."]


def _workspace(rng: random.Random, P: dict[str, Any], core: dict[str, Any], dirs: dict[str, str],
               last: list[list[Any]], vendor: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in core.items():
        add(rel, "data", write)
    pol, mail, fy = dirs["policy"], dirs["mail"], P["fy"]
    add(f"{pol}/laptop_lifecycle_standard_v3.docx", "policy",
        lambda p: write_docx(p, "Laptop lifecycle standard v3", _standard(P, True)))
    add(f"{pol}/archive/laptop_lifecycle_standard_2022.pdf", "stale",
        lambda p: write_pdf(p, "Laptop lifecycle standard 2022", _standard(P, False)))
    quote = [f"Quotation {P['quote_no']} for {P['org']}, issued {P['export']}, valid 90 days. Prices in USD, "
             "excluding tax."]
    for prof, q in P["quote"].items():
        quote.append(f"{q['sku']} - {prof} build: {q['desc']} - unit price {q['price']:,.2f}")
    quote += [f"SVC-DEPLOY - imaging, deployment and secure wipe of the returned unit, per laptop - {P['service']:,.2f}",
              "Delivery within 15 working days of the purchase order. Volume pricing already applied."]
    add(f"procurement/quotes/{vendor}_{P['quote_no']}.pdf", "reference", lambda p: write_pdf(p, f"{vendor} quotation", quote))
    C = P["out_columns"]
    add(f"procurement/uploads/{P['prev_fy']}_laptop_refresh_upload.csv", "distractor", lambda p: write_csv(
        p, [C["tag"], C["cost_centre"], C["sku"], C["reason"], C["cost"]], last))
    budget_day = (dt.date.fromisoformat(P["export"]) + dt.timedelta(days=3)).isoformat()
    add(f"{mail}/{budget_day}_budget_line.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Finance Business Partner", to=P["requester"], date=budget_day,
        subject=f"{fy} laptop refresh budget",
        body=f"The {fy} capital plan carries a laptop refresh line of ${P['budget']:,.0f}, covering the hardware and "
             "the deployment service. If the list costs more than that we will need to phase it.")))
    add(f"{mail}/{P['export']}_leavers_list.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, HR Operations", to="service desk", date=P["export"],
        subject="Leavers list for the refresh",
        body="Attached is the leavers list from the HR system: confirmed leavers with their leaving dates, and "
             "resignations still pending.")))
    add(f"{dirs['itsm']}/quarterly_service_review.md", "distractor", lambda p: write_text(p, (
        f"# Service desk quarterly review\n\nFirst-contact resolution {rng.uniform(62, 78):.0f} %; hardware tickets "
        f"down {rng.randint(3, 12)} % on the quarter; the battery swap programme ended last year.\n")))
    add(f"meetings/{budget_day}_eus_team.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{fy} laptop refresh", people=[person(rng) for _ in range(3)], date=budget_day)))
    return w, roles


# ---- drawing a task ----------------------------------------------------------------------------------------------

def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.refresh import analyse

    prof = dataclasses.replace(profession(occupation), occasions=(
        "the capital plan for next year is locked at the end of the month", "procurement needs the upload before "
        "the quote expires", "the quarterly service review is coming up"))
    dirs = pick_labels(rng, _DIRS)
    start_month = rng.choice((1, 4, 7, 10))
    fy_start = dt.date(2027 if start_month == 1 else 2026, start_month, 1)
    export = fy_start - dt.timedelta(days=rng.randint(45, 110))
    cutoff = months_back(fy_start, -12) - dt.timedelta(days=1)
    fy = f"FY{cutoff.year}"
    F = fleet(rng, targets, export, cutoff)
    reg, batt, tickets, last_tags = register_rows(rng, F, export)
    A, T = dirs["assets"], dirs["itsm"]
    files = {"register": f"{A}/asset_register_{export.isoformat()}.csv", "catalogue": f"{A}/standard_builds.csv",
             "battery": f"endpoint/battery_health_report_{export.isoformat()}.csv",
             "tickets": f"{T}/hardware_and_service_tickets_{F['start'].isoformat()}_{export.isoformat()}.csv",
             "lessor": f"finance/leases/lessor_schedule_{F['lessor'][0][0]}.csv",
             "leavers": f"hr/leavers_{export.isoformat()}.xlsx"}
    quote = {}
    for p, (sku, lo, hi) in _SKU.items():
        quote[p] = {"sku": f"{sku}G{rng.randint(5, 7)}", "price": float(rng.randrange(lo, hi, 10) - rng.choice((0, 1))),
                    "desc": {"Standard": "14-inch, 16 GB, 512 GB SSD, 3-year warranty",
                             "Performance": "16-inch, 32 GB, 1 TB SSD, discrete GPU, 3-year warranty",
                             "Mobile": "13-inch ultralight, 16 GB, 512 GB SSD, 3-year warranty"}[p]}
    P: dict[str, Any] = {
        "fy": fy, "prev_fy": f"FY{cutoff.year - 1}", "cutoff": cutoff.isoformat(), "export": export.isoformat(),
        "limits": {"age_months": 48, "battery_pct": 60.0, "incidents": 3},
        "old_limits": {"age_months": 60, "battery_pct": 50.0, "incidents": 4}, "files": files, "quote": quote,
        "service": float(rng.randrange(65, 96)), "budget": 0.0, "codes": pick_labels(rng, _CODES),
        "quote_no": f"Q-{export.year}-{rng.randint(1000, 9999)}", "policy_date": rng.choice(("2025-01-01", "2025-04-01")),
        "org": rng.choice(("Halden University", "Corvid Telecom", "Ashgrove Software", "Brightline Health")),
        "requester": person(rng), "labels": {}, "out_columns": pick_labels(rng, _OUT),
        "deliverables": {"memo": rng.choice(("refresh_note.md", f"laptop_refresh_{fy}.md", "refresh_summary.md")),
                         "table": rng.choice((f"{fy}_laptop_refresh_upload.csv", "procurement_refresh_lines.csv",
                                              "refresh_upload.csv"))}}
    core = {files["register"]: lambda p: write_csv(p, [
        "asset_tag", "asset_type", "manufacturer", "model", "serial_number", "status", "employee_id", "assigned_to",
        "department", "cost_centre", "purchase_date", "warranty_end"], reg),
        files["catalogue"]: lambda p: write_csv(p, ["model", "manufacturer", "build_profile", "warranty_months"],
                                                [[m[0], m[1], m[2], m[3]] for m in MODELS]),
        files["battery"]: lambda p: write_csv(p, ["serial_number", "device_name", "design_capacity_mwh",
                                                  "full_charge_capacity_mwh", "last_report"], batt),
        files["tickets"]: lambda p: write_csv(p, ["ticket_id", "opened", "category", "subcategory", "asset_tag",
                                                  "requester", "state", "resolution"], tickets),
        files["lessor"]: lambda p: write_csv(p, ["schedule", "serial_number", "model", "lease_start", "lease_end",
                                                 "monthly_rent"], F["lessor"]),
        files["leavers"]: lambda p: write_xlsx(p, [("Leavers", ["employee_id", "name", "department", "leaving_date",
                                                                "status"], F["hr"])])}
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), core)
        truth = analyse(tmp, P)
        up = rng.uniform(1.03, 1.12) if targets["decision"] else rng.uniform(0.82, 0.95)
        P["budget"] = float((math.ceil if targets["decision"] else math.floor)(truth["cost"] * up / 5000) * 5000)
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    if (truth["decision"], truth["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the targets are missed")
    keys = ("count", "age", "battery", "incidents", "leased", "leavers", "cost")
    where = {"old_policy": ("memo", "the 2022 standard's 60 months (and battery, incident limits) is superseded"),
             "cutoff": ("memo", "age is measured on the cut-off date, the last day of the fiscal year"),
             "warranty": ("footnote", "a migrated record's purchase date is the warranty end less the term"),
             "window": ("data", "incidents older than 12 months do not count"),
             "duplicates": ("data", "tickets resolved as Duplicate are not incidents"),
             "leased": ("data", "the lessor's schedule, by serial number, names the leased laptops"),
             "leavers": ("data", "confirmed leavers' laptops are recovered, not refreshed")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s}
             for s, f in singles.items() if any(f[k] != truth[k] for k in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    listed = {d["tag"] for d in truth["due"]}
    P["decoys"] = sorted(t for t in F["planted"]["window"] + F["planted"]["duplicates"] if t not in listed)
    P["excluded"] = sorted(truth["leased_tags"] + truth["leaver_tags"])
    migrated = {lt["tag"] for lt in F["laptops"] if lt["migrated"]}
    P["migrated_due"] = sorted(listed & migrated)
    labels = pick_labels(rng, _LABELS)
    P["labels"] = {k: v.format(fy=fy) for k, v in labels.items()}
    vendor = rng.choice(("Northgate_IT", "Pinnacle_Systems", "Bluecrest_Tech"))
    last = [[t, rng.choice(("CC-110", "CC-210", "CC-310", "CC-230")), "NB-STD-14G4", P["codes"]["age"],
             f"{rng.uniform(1100, 1250):.2f}"] for t in last_tags]
    writers, roles = _workspace(rng, P, core, dirs, last, vendor)
    L, D, C, codes = P["labels"], P["deliverables"], P["out_columns"], P["codes"]
    whole = "whole number"
    memo_labels = [(L["count"], whole), (L["age"], whole), (L["battery"], whole), (L["incidents"], whole),
                   (L["leased"], whole), (L["leavers"], whole), (L["cost"], "US dollars to 2 decimal places"),
                   (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=P["requester"], role="Customer Operations Director", org=P["org"],
        subject=f"{fy} laptop refresh list",
        purpose=rng.choice((f"I need the {fy} laptop refresh list for procurement, and what it costs against the "
                            "vendor's quote.", f"which laptops are due for refresh in {fy}, and will the list fit "
                            "the budget at the quoted prices?")),
        about="the asset register, the endpoint battery report, the service desk's ticket export, the lessor's "
              "schedule and HR's leavers list",
        belief="I assume the battery and ticket triggers only ever catch laptops that are past the age limit anyway, "
               "so the list is really just the age cohort. Please confirm.",
        table={"file": D["table"], "headers": [C["tag"], C["cost_centre"], C["sku"], C["reason"], C["cost"]],
               "unit": "laptop on the refresh list (the procurement system's upload layout)"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"In {D['table']}, {C['reason']} is {codes['age']} for age, {codes['battery']} for battery "
                            f"health and {codes['incidents']} for hardware incidents; {C['sku']} is the quote's SKU "
                            f"and {C['cost']} the unit price plus the deployment service, in dollars to 2 decimals.",),
        policy=f"the laptop lifecycle standard in {dirs['policy']}/", files=sorted(writers))
    return Draft(subject=f"{fy} laptop refresh", instructions=prompt, files=writers, roles=roles, params=P,
                 traps=traps, targets=dict(targets),
                 distributions="550-850 deployed laptops bought 20-1,900 days before the export (88 % under 1,460); "
                               "30 % of pre-2023 records migrated without a purchase date; battery health 100 - "
                               "0.35-0.75/month - |N(0,3)|; 0-3 hardware tickets per laptop over two years; planted "
                               "young battery (2-6) and incident (1-4) cases when the belief fails, 2-4 window and 2-4 "
                               "duplicate decoys, 3-7 due leased, 3-7 due leavers; budget a round $5,000 3-12 % above "
                               "or 5-18 % below the cost")


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, IdsCheck, RowCountCheck

    D, L, C = P["deliverables"], P["labels"], P["out_columns"]
    memo, table = D["memo"], D["table"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def count(key: str) -> tuple[str, Any]:
        return f"{memo}: {L[key]} = {facts[key]}", FieldCheck(file=memo, label=L[key], number=float(facts[key]),
                                                              tolerance=0.0)

    cost = (f"{memo}: {L['cost']} = {facts['cost']:.2f}", fld_num(memo, L["cost"], facts["cost"], 2))
    firsts = {d["sku"]: d for d in reversed(facts["due"])}
    lines = [(f"{table}: {d['tag']} {C['cost']} = {d['unit_cost']:.2f}", CellCheck(
        file=table, match={C["tag"]: d["tag"]}, column=C["cost"], value=d["unit_cost"], tolerance=0.01))
        for d in sorted(firsts.values(), key=lambda d: d["tag"])]
    reasons = [(f"{table}: {d['tag']} {C['reason']} = {P['codes'][d['reason']]}", CellCheck(
        file=table, match={C["tag"]: d["tag"]}, column=C["reason"], value=P["codes"][d["reason"]]))
        for d in facts["due"] if d["reason"] != "age"][:4]
    tags = [d["tag"] for d in facts["due"]]
    out = [
        rubric("Applies the v3 standard's 48-month limit on the cut-off date, the last day of the fiscal year", 10, [
            count("count"), count("age"),
            (f"{table} has {len(tags)} rows", RowCountCheck(file=table, key=C["tag"], count=len(tags)))]),
        rubric("Ages the migrated records from the warranty end less the model's term", 8, [
            count("age"), *([(f"{table} lists {'; '.join(P['migrated_due'])}",
                              IdsCheck(file=table, ids=list(P["migrated_due"]), present="all"))]
                            if P["migrated_due"] else [])]),
        rubric("Applies the battery and reliability triggers as the standard words them", 10, [
            count("battery"), count("incidents"), count("count"), *reasons,
            (f"{table} lists none of the laptops with old or duplicate tickets only",
             IdsCheck(file=table, ids=list(P["decoys"]), present="none"))]),
        rubric("Leaves off leased laptops and confirmed leavers' laptops", 10, [
            count("leased"), count("leavers"),
            (f"{table} lists none of {'; '.join(P['excluded'])}", IdsCheck(file=table, ids=list(P["excluded"]),
                                                                            present="none"))]),
        rubric("Prices each line at the quote's SKU price plus the deployment service", 10, [cost, *lines]),
        rubric(f"Decides whether the list fits the {P['fy']} budget line", 8, [
            (f"{memo}: {L['decision']}: {yes(facts['decision'])}",
             fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])), cost]),
        rubric("Answers the director's belief that age alone decides the list", 6, [
            (f"{memo}: {L['premise']}: {yes(facts['premise'])}",
             fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            count("battery"), count("incidents"), count("count")]),
    ]
    if judgement:
        out.append(rubric("Writes a note the director can take to the budget review", 6, [
            ("Breaks the list down by trigger and names the exclusions", llm("content")),
            ("Explains the cut-off date, the migrated records and why the 2022 standard was not used",
             llm("explanation")),
            ("Answers the budget question and the director's belief plainly", llm("writing"))]))
    return out


LAPTOP_REFRESH = Workflow(
    key="laptop_refresh_list", family="end_user_computing",
    method="lifecycle standard triggers: age in months on the fiscal year's cut-off date (migrated records from the "
           "warranty end less the term), battery health from full charge / design capacity, hardware incidents in a "
           "12-month window net of duplicates; leased units and confirmed leavers excluded; first trigger as reason; "
           "priced at the quote per build profile plus deployment against the budget line",
    professions=("computer_user_support_specialists",), solver="refresh", shortcuts=SHORTCUTS, draw=draw,
    recheck=recheck, rubrics=rubrics, data="generated asset register, endpoint battery report, ticket export, lessor "
                                           "schedule and HR leavers list (stated distributions)")
