"""Nursing hours per patient day against target, and the FTE gap by unit (health services managers).

One 14-day pay period of 4-6 inpatient units is generated. Each unit has a bed count (med-surg 28-36, telemetry
and oncology 24-32, progressive care 16-24, ICU 10-16), a midnight census drawn daily as a rounded normal around
72-94 % occupancy (sd 6 % of beds, capped at the beds), admissions Poisson around a quarter of the census, an
approved target HPPD from its type's range (med-surg 7.2-8.4, telemetry 8.4-9.6, oncology 8.0-9.4, progressive
care 10.0-12.0, ICU 15.0-18.0) and a worked HPPD 86-112 % of it. Productive hours come from 12-hour shifts of
unit staff (RN, LPN, CNA), 5-12 % float-pool hours and 0-15 % agency hours (a vendor timesheet, not the
timeclock); non-productive pay codes (PTO for about a third of staff, education, orientation for one or two new
hires, sick) add 8-15 %. Budgeted FTE is 84-106 % of the need. The targets workbook keeps the superseded revision
(other targets and non-productive allowances) as its first sheet; the archived standard counted orientation as
productive. The census export runs one day either side of the pay period.

Failure behaviour: ``draw`` raises DegenerateTask when no unit is short, two units tie for the largest gap, no unit
lies on the targeted side of its target or fewer than four planted items move a graded figure; the solver raises
ValueError for a unit without patient days.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, read_rows, write_files

__all__ = ["NURSE_STAFFING_HPPD"]

# name, cost centre, beds range, target HPPD range
_UNITS = (("3 North Med-Surg", "6310", (28, 36), (7.2, 8.4)), ("4 South Ortho Neuro", "6320", (28, 36), (7.2, 8.4)),
          ("5 West Telemetry", "6330", (24, 32), (8.4, 9.6)), ("6 East Oncology", "6340", (24, 32), (8.0, 9.4)),
          ("Progressive Care Unit", "6350", (16, 24), (10.0, 12.0)), ("Medical ICU", "6360", (10, 16), (15.0, 18.0)),
          ("Surgical ICU", "6370", (10, 14), (15.0, 18.0)))
FLOAT_CC = "6990"
PRODUCTIVE = ("REG", "OT", "CALLB", "CHG")
NONPRODUCTIVE = ("ORI", "EDU", "PTO", "SCK")
_CODES = {"REG": "Regular hours worked", "OT": "Overtime worked", "CALLB": "Call-back hours worked",
          "CHG": "Charge nurse hours worked", "ORI": "Orientation", "EDU": "Education / mandatory training",
          "PTO": "Paid time off", "SCK": "Sick leave"}
_LABELS = {
    "shortfall": ("Total FTE shortfall", "FTE shortfall across units", "Total FTE gap to fill"),
    "overall": ("Overall nursing HPPD", "Nursing HPPD, all units", "Combined HPPD"),
    "worst": ("Unit with the largest FTE shortfall", "Largest shortfall unit", "Most understaffed unit"),
    "worst_gap": ("Largest unit FTE gap", "FTE gap of that unit", "Its FTE gap"),
    "decision": ("Open requisitions cover the shortfall", "Approved requisitions are enough",
                 "Requisitions cover the gap"),
    "premise_hppd": ("{unit} HPPD", "HPPD on {unit}", "{unit} worked HPPD"),
    "premise": ("{unit} at or above target", "{unit} met its HPPD target", "{unit} staffed to target"),
}
_DIRS = {"census": ("census", "adt_reports", "bed_management"), "payroll": ("payroll", "timekeeping", "kronos_exports"),
         "agency": ("agency", "contract_labor", "vendor_timesheets"), "finance": ("finance", "budget", "nursing_finance"),
         "policy": ("policies", "standards", "nursing_admin/policies"), "mail": ("correspondence", "email", "inbox")}
_VENDORS = ("Meridian Nurse Staffing", "CareBridge Travel Nursing", "Apex Clinical Staffing", "Harbor Agency Nurses")


def _quarter(x: float) -> float:
    return round(round(x * 4) / 4, 2)


def _period(rng: random.Random) -> tuple[dt.date, dt.date]:
    first = dt.date(rng.choice((2024, 2025)), 1, 7)
    start = first + dt.timedelta(days=14 * rng.randint(0, 24))
    start -= dt.timedelta(days=(start.weekday() + 1) % 7)  # pay periods start on a Sunday
    return start, start + dt.timedelta(days=13)


def _unit(rng: random.Random, spec: tuple[Any, ...], start: dt.date, emp: list[int]) -> dict[str, Any]:
    """One unit's pay period: census days, timeclock lines, agency shifts, its targets and budget."""
    name, cc, beds_range, hppd_range = spec
    beds = rng.randint(*beds_range)
    occ = rng.uniform(0.72, 0.94)
    census: list[dict[str, Any]] = []
    for d in range(-1, 15):  # the export runs a day either side of the pay period
        mid = max(2, min(beds, round(rng.gauss(occ * beds, 0.06 * beds))))
        adm = sum(1 for _ in range(mid) if rng.random() < 0.25)
        census.append({"date": start + dt.timedelta(days=d), "midnight": mid, "admissions": adm,
                       "discharges": max(0, adm + rng.randint(-2, 2))})
    patient_days = sum(c["midnight"] for c in census[1:15])
    target = round(rng.uniform(*hppd_range), 2)
    worked = target * rng.uniform(0.86, 1.12)
    need_hours = worked * patient_days
    agency_share = rng.choice((0.0, rng.uniform(0.04, 0.15)))
    float_share = rng.uniform(0.05, 0.12)
    lines: list[list[Any]] = []
    agency: list[list[Any]] = []
    got = 0.0
    while got < need_hours * agency_share - 6:
        day = start + dt.timedelta(days=rng.randint(0, 13))
        h = rng.choice((12.0, 12.0, 8.0))
        agency.append([day, h])
        got += h
    while got < need_hours * (agency_share + float_share) - 6:
        emp[0] += 1
        h = 12.0 * rng.randint(1, 4)
        lines.append([f"E{emp[0]:05d}", rng.choice(("RN", "RN", "CNA")), FLOAT_CC, cc, "REG", h])
        got += h
    while got < need_hours - 6:
        emp[0] += 1
        eid, job = f"E{emp[0]:05d}", rng.choice(("RN", "RN", "RN", "LPN", "CNA", "CNA"))
        reg = _quarter(12.0 * rng.randint(3, 6) + rng.uniform(-0.5, 0.75))
        lines.append([eid, job, cc, cc, "REG", reg])
        got += reg
        if rng.random() < 0.2:
            ot = _quarter(rng.uniform(4, 12))
            lines.append([eid, job, cc, cc, "OT", ot])
            got += ot
        if job == "RN" and rng.random() < 0.15:
            lines.append([eid, job, cc, cc, "CHG", 12.0])
            got += 12.0
        if rng.random() < 0.35:
            lines.append([eid, job, cc, cc, "PTO", float(rng.choice((8, 12, 24, 36)))])
        if rng.random() < 0.2:
            lines.append([eid, job, cc, cc, "EDU", float(rng.choice((4, 8)))])
        if rng.random() < 0.08:
            lines.append([eid, job, cc, cc, "SCK", 12.0])
    for _ in range(rng.randint(1, 2)):  # new hires in orientation
        emp[0] += 1
        lines.append([f"E{emp[0]:05d}", "RN", cc, cc, "ORI", float(rng.choice((36, 48, 60, 72)))])
    np_pct = round(rng.uniform(9.0, 14.0), 1)
    adc = patient_days / 14
    need = target * adc * 365 / 2080 / (1 - np_pct / 100)
    return {"name": name, "cc": cc, "beds": beds, "census": census, "lines": lines, "agency": agency,
            "target": target, "np_pct": np_pct, "budget": round(need * rng.uniform(0.84, 1.06) * 10) / 10,
            "old_target": round(target + rng.choice((-1, 1)) * rng.uniform(0.3, 0.9), 2),
            "old_np": round(np_pct + rng.choice((-1.5, -1.0, 1.0, 2.0)), 1)}


def _cross_float(rng: random.Random, units: list[dict[str, Any]]) -> None:
    """A few unit staff pick up shifts on a sister unit: the line keeps the home cost centre."""
    for u in rng.sample(units, min(len(units), 3)):
        staff = [ln for ln in u["lines"] if ln[4] == "REG" and ln[2] == u["cc"] and ln[5] >= 36]
        other = rng.choice([v for v in units if v is not u])
        for ln in rng.sample(staff, min(len(staff), rng.randint(1, 2))):
            ln[5] -= 12.0
            other["lines"].append([ln[0], ln[1], u["cc"], other["cc"], "REG", 12.0])


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: sums keyed by cost centre in one pass
    per file, then the ratios. Raises KeyError or ZeroDivisionError on a folder that lacks a unit's data."""
    folder, F = Path(folder), P["files"]
    tgt = {r["cost_center"]: r for r in read_rows(folder / F["targets"], P["targets_sheet"]) if r["cost_center"]}
    pdays = dict.fromkeys(tgt, 0)
    for r in read_rows(folder / F["census"]):
        if r["cost_center"] in pdays and P["period_start"] <= r["census_date"][:10] <= P["period_end"]:
            pdays[r["cost_center"]] += int(float(r["midnight_census"]))
    hours = dict.fromkeys(tgt, 0.0)
    for r in read_rows(folder / F["timeclock"]):
        if r["worked_cost_center"] in hours and r["pay_code"].upper() in P["productive_codes"]:
            hours[r["worked_cost_center"]] += float(r["hours"])
    for r in read_rows(folder / F["agency"], P["agency_sheet"]):
        if r["cost_center"] in hours:
            hours[r["cost_center"]] += float(r["hours"])
    budget = dict.fromkeys(tgt, 0.0)
    for r in read_rows(folder / F["budget"]):
        if r["cost_center"] in budget:
            budget[r["cost_center"]] += float(r["budgeted_fte"])
    units: list[dict[str, Any]] = []
    gaps: dict[str, float] = {}
    for cc, t in tgt.items():
        target, npp = float(t["target_hppd"]), float(t["nonproductive_pct"])
        need = target * (pdays[cc] / int(P["days"])) * 365 / 2080 / (1 - npp / 100)
        gaps[cc] = need - budget[cc]
        units.append({"cost_center": cc, "unit": t["unit"], "patient_days": pdays[cc],
                      "productive_hours": rnd(hours[cc], 2), "hppd": rnd(hours[cc] / pdays[cc], 2),
                      "target_hppd": target, "fte_needed": rnd(need, 2), "fte_gap": rnd(gaps[cc], 2)})
    worst = max(units, key=lambda u: gaps[u["cost_center"]])
    pick = next(u for u in units if u["cost_center"] == P["premise_unit"])
    shortfall = rnd(sum(g for g in gaps.values() if g > 0), 1)
    return {"units": units, "overall_hppd": rnd(sum(hours.values()) / sum(pdays.values()), 2), "shortfall": shortfall,
            "worst_unit": worst["unit"], "worst_gap": worst["fte_gap"], "premise_hppd": pick["hppd"],
            "decision": shortfall <= float(P["requisitions"]), "premise": pick["hppd"] >= pick["target_hppd"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _standard(version: int, current: bool) -> list[str]:
    codes = PRODUCTIVE if current else PRODUCTIVE + ("ORI",)
    rows = [f"- {c}: {_CODES[c]} - {'productive' if c in codes else 'non-productive'}" for c in _CODES]
    rules = [
        f"Nursing productivity standard, version {version}",
        "Scope: direct-care nursing hours (RN, LPN, CNA) on the inpatient units listed on the approved targets sheet.",
        "Hours per patient day (HPPD) = productive nursing hours / patient days. Patient days are the sum of the "
        "midnight census for the days of the pay period; admissions, discharges and transfers are not patient days.",
        "Productive hours are charged to the cost centre where they were worked (worked_cost_center), not the "
        "employee's home cost centre, so float-pool and cross-unit shifts count on the unit that received them.",
        "Agency and travel nurse hours are productive hours of the unit worked; they come from the vendor "
        "timesheets, not the timeclock." if current else "Agency hours are reported separately by the vendor.",
        "Pay-code table:", *rows,
    ]
    if current:
        rules += ["FTE needed = target HPPD x average daily census (ADC = patient days / days in the period) x 365 / "
                  "2,080 / (1 - non-productive %), using the unit's non-productive allowance on the approved targets "
                  "sheet. FTE gap = FTE needed - budgeted FTE (position control); positive means short.",
                  "Report HPPD and FTE to 2 decimals (the total shortfall to 1 decimal), rounded half up from unrounded "
                  "figures."]
    else:
        rules += ["FTE needed = target HPPD x ADC x 365 / 2,080."]
    return rules


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.staffing import analyse

    prof = profession(occupation)
    start, end = _period(rng)
    specs = sorted(rng.sample(_UNITS, rng.randint(4, 6)), key=lambda s: s[1])
    emp = [rng.randint(10000, 40000)]
    units = [_unit(rng, s, start, emp) for s in specs]
    _cross_float(rng, units)
    tag = f"{start:%Y%m%d}"
    dirs = pick_labels(rng, _DIRS)
    version = rng.randint(2, 5)
    rev = rng.randint(2, 4)
    P: dict[str, Any] = {
        "files": {"census": f"{dirs['census']}/adt_midnight_census_pp{tag}.csv",
                  "timeclock": f"{dirs['payroll']}/labor_distribution_pp{tag}.csv",
                  "agency": f"{dirs['agency']}/agency_timesheets_pp{tag}.xlsx",
                  "targets": f"{dirs['finance']}/nursing_hppd_targets_FY{(end.year + (end.month >= 7)) % 100}.xlsx",
                  "budget": f"{dirs['finance']}/position_control_budgeted_fte.csv"}, "dirs": dirs,
        "targets_sheet": f"Rev {rev} approved", "old_targets_sheet": f"Rev {rev - 1}", "agency_sheet": "Shifts",
        "period_start": iso(start), "period_end": iso(end), "days": 14, "productive_codes": list(PRODUCTIVE),
        "nonproductive_codes": list(NONPRODUCTIVE), "requisitions": 0.0, "premise_unit": units[0]["cc"],
        "labels": {}, "deliverables": {"workbook": rng.choice((f"hppd_fte_gap_pp{tag}.xlsx", "staffing_hppd.xlsx")),
                                       "memo": rng.choice(("hppd_memo.docx", f"staffing_memo_pp{tag}.docx"))}}
    data = _data_writers(P, units)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, data)
        truth = analyse(str(root), P)
        shortcuts = ("nonproductive", "agency", "admissions", "old_targets", "float_home")
        singles = {k: analyse(str(root), P, (k,)) for k in shortcuts}
    if truth["shortfall"] < 1.0:
        raise DegenerateTask("no unit is meaningfully short of its FTE need")
    gaps = sorted((u["fte_gap"] for u in truth["units"]), reverse=True)
    if gaps[0] - gaps[1] < 0.1:
        raise DegenerateTask("two units tie for the largest shortfall")
    S = truth["shortfall"]
    P["requisitions"] = (nice_between(S * 1.05, S * 1.5, 1) if targets["decision"] else nice_between(S * 0.5, S * 0.95, 1))
    fits = [u for u in truth["units"] if abs(u["hppd"] - u["target_hppd"]) > 0.1
            and (u["hppd"] >= u["target_hppd"]) == targets["premise"]]
    if not fits:
        raise DegenerateTask("no unit on the targeted side of its HPPD target")
    pick = rng.choice(fits)
    P["premise_unit"] = pick["cost_center"]
    labels = pick_labels(rng, _LABELS)
    for k in ("premise", "premise_hppd"):
        labels[k] = labels[k].format(unit=pick["unit"])
    P["labels"] = labels
    where = {"nonproductive": ("memo", "orientation, education, PTO and sick hours are non-productive pay codes"),
             "agency": ("data", "agency hours are on the vendor's timesheets, not the timeclock"),
             "admissions": ("data", "the ADT export carries admissions beside the midnight census"),
             "old_targets": ("data", "the targets workbook's first sheet is the superseded revision"),
             "float_home": ("memo", "float-pool and cross-unit shifts keep the employee's home cost centre")}

    def graded(f: Facts) -> Any:
        return [(u["hppd"], u["fte_needed"], u["fte_gap"], u["productive_hours"], u["patient_days"]) for u in f["units"]]

    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 4:
        raise DegenerateTask("fewer than four planted items change a graded answer")
    writers, roles = _workspace(rng, P, units, data, version, rev, start, end)
    return Draft(subject=f"Nursing HPPD and FTE gap, pay period {iso(start)} to {iso(end)}",
                 instructions=_prompt(rng, P, prof.title, units, pick, sorted(writers)), files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="4-6 units; beds 10-36 by type; midnight census normal around 72-94 % occupancy; "
                               "admissions Poisson 25 % of census; target HPPD by unit type, worked 86-112 % of it; "
                               "12-hour shifts; float 5-12 %, agency 0-15 % of productive hours; budget 84-106 % of need")


def _prompt(rng: random.Random, P: dict[str, Any], title: str, units: list[dict[str, Any]], pick: dict[str, Any],
            files: list[str]) -> str:
    boss, L, D, dirs = person(rng), P["labels"], P["deliverables"], P["dirs"]
    period = f"the pay period {P['period_start']} to {P['period_end']}"
    opener = rng.choice((f"From: {boss}, VP Clinical Operations\nTo: Nursing finance\nSubject: HPPD vs target, {period}\n\n",
                         f"{boss} (VP Clinical Operations)\n\n", f"Subject: Staffing productivity for {period}\n"
                                                                 f"From: {boss}\n\n"))
    ask = rng.choice((f"The board's quality committee wants nursing HPPD against target by unit for {period}, and the "
                      "FTE gap behind it.", f"Before the staffing committee I need HPPD versus target for each "
                      f"inpatient unit for {period}, with what the targets imply in FTE against budget.",
                      f"Please pull together unit HPPD for {period} against the approved targets and the FTE gap."))
    belief = rng.choice((f"The {pick['unit']} manager tells me they ran at or above target this period - check that.",
                         f"I keep hearing {pick['unit']} was staffed to target; is that what the hours say?"))
    steps = [f"Patient days per unit from the midnight census in {dirs['census']}/ for the 14 days of the period.",
             f"Productive nursing hours per unit from the labor distribution in {dirs['payroll']}/ and the agency "
             f"timesheets in {dirs['agency']}/, classified by the pay-code table of the current productivity "
             f"standard in {dirs['policy']}/.",
             "HPPD per unit against the approved target, and the FTE needed to staff the target, as the standard "
             "defines it, against budgeted FTE from position control.",
             f"Whether the open requisitions finance has approved (see {dirs['mail']}/) cover the total FTE shortfall, "
             "i.e. the sum of the gaps of the units that are short (units over budget do not offset it)."]
    cols = "unit, cost_center, patient_days, adc, productive_hours, hppd, target_hppd, hppd_variance, " \
           "nonproductive_pct (a percentage, e.g. 11.5), fte_needed, budgeted_fte, fte_gap"
    memo_lines = [(L["shortfall"], "FTE, 1 decimal"), (L["overall"], "all listed units together, 2 decimals"),
                  (L["worst"], "unit name as on the targets sheet"), (L["worst_gap"], "FTE, 2 decimals"),
                  (L["decision"], "yes or no"), (L["premise_hppd"], "2 decimals"), (L["premise"], "yes or no")]
    deliverables = [
        f"{D['workbook']}: a sheet Units with one row per unit on the approved targets sheet and the columns {cols}; "
        + rng.choice(("adc, hppd, hppd_variance, fte_needed and fte_gap as live formulas, not typed values.",
                      "the derived columns (adc, hppd, hppd_variance, fte_needed, fte_gap) as formulas.")),
        f"{D['memo']}: " + rng.choice(("a memo to me that opens with these lines (label, colon, value), then a short "
                                       "explanation for the committee:", "a short Word memo beginning with these "
                                       "labelled lines, then what drove the gaps and any judgement calls:"))
        + "\n" + "\n".join(f"   {lbl}: <{hint}>" for lbl, hint in memo_lines)]
    return "\n\n".join([
        opener + ask + " " + belief,
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Please leave in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliverables, 1)),
        rng.choice(("Thanks.", "Flag anything in the exports that looks off.", "Cheers.")) + "\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in files),
    ]) + "\n"


def _data_writers(P: dict[str, Any], units: list[dict[str, Any]]) -> dict[str, Any]:
    F = P["files"]
    census = [[iso(c["date"]), u["cc"], u["name"], c["midnight"], c["admissions"], c["discharges"]]
              for u in units for c in u["census"]]
    census.sort(key=lambda r: (r[0], r[1]))
    lines = sorted((ln for u in units for ln in u["lines"]), key=lambda ln: (ln[0], ln[4], ln[3]))
    agency = sorted(([iso(d), u["cc"], u["name"], h] for u in units for d, h in u["agency"]), key=lambda r: (r[0], r[1]))
    vendor_rows = [[f"AG-{k:04d}", _VENDORS[k % len(_VENDORS)], r[0], r[1], r[2], r[3]] for k, r in enumerate(agency, 1)]

    def sheet(name: str, old: bool) -> tuple[str, list[str], list[list[Any]]]:
        rows = [[u["cc"], u["name"], u["old_target"] if old else u["target"], u["old_np"] if old else u["np_pct"],
                 "Superseded" if old else "Approved"] for u in units]
        return name, ["cost_center", "unit", "target_hppd", "nonproductive_pct", "status"], rows

    budget = []
    for u in units:  # position control holds RN and support lines per cost centre
        rn = round(u["budget"] * 0.7, 1)
        budget += [[u["cc"], u["name"], "RN", rn], [u["cc"], u["name"], "LPN/CNA", round(u["budget"] - rn, 1)]]
    return {
        F["census"]: lambda p: write_csv(p, ["census_date", "cost_center", "unit", "midnight_census", "admissions",
                                             "discharges"], census),
        F["timeclock"]: lambda p: write_csv(p, ["employee_id", "job_class", "home_cost_center", "worked_cost_center",
                                                "pay_code", "hours"], lines),
        F["agency"]: lambda p: write_xlsx(p, [(P["agency_sheet"], ["shift_id", "vendor", "shift_date", "cost_center",
                                                                    "unit", "hours"], vendor_rows)]),
        F["targets"]: lambda p: write_xlsx(p, [sheet(P["old_targets_sheet"], True), sheet(P["targets_sheet"], False)]),
        F["budget"]: lambda p: write_csv(p, ["cost_center", "unit", "position_group", "budgeted_fte"], budget),
    }


def _workspace(rng: random.Random, P: dict[str, Any], units: list[dict[str, Any]], data: dict[str, Any],
               version: int, rev: int, start: dt.date, end: dt.date) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    D = P["dirs"]
    add(f"{D['policy']}/nursing_productivity_standard_v{version}.docx", "policy", lambda p: write_docx(
        p, f"Nursing productivity standard v{version}", _standard(version, True)
        + [f"Version {version} replaces all earlier versions from {iso(start - dt.timedelta(days=120))}."]))
    add(f"{D['policy']}/archive/nursing_productivity_standard_v{version - 1}.pdf", "stale", lambda p: write_pdf(
        p, f"Nursing productivity standard v{version - 1}", _standard(version - 1, False)))
    add(f"{D['payroll']}/pay_codes.csv", "reference", lambda p: write_csv(
        p, ["pay_code", "description"], [[c, d] for c, d in _CODES.items()]))
    add(f"{D['payroll']}/cost_centers.csv", "reference", lambda p: write_csv(
        p, ["cost_center", "name"], [[u["cc"], u["name"]] for u in units] + [[FLOAT_CC, "Nursing Float Pool"],
                                                                           ["6010", "Nursing Administration"]]))
    cfo, staffing = person(rng), person(rng)
    sent = start - dt.timedelta(days=rng.randint(10, 40))
    add(f"{D['mail']}/{iso(sent)}_targets_rev{rev}.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{cfo}, Director of Nursing Finance", to="Nurse managers", date=iso(sent),
        subject=f"HPPD targets revision {rev} approved",
        body=f"The budget committee approved revision {rev} of the HPPD targets today (sheet '{P['targets_sheet']}'). "
             f"It replaces revision {rev - 1}, which stays in the workbook for reference only.")))
    asked = end + dt.timedelta(days=rng.randint(2, 5))
    add(f"{D['mail']}/{iso(asked)}_open_requisitions.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{cfo}, Director of Nursing Finance", to="VP Clinical Operations", date=iso(asked),
        subject="Open nursing requisitions",
        body=f"Finance has approved {P['requisitions']:.1f} FTE of open nursing requisitions across the inpatient "
             "units for this quarter. Anything beyond that needs to go back to the budget committee.")))
    add(f"{D['mail']}/{iso(end + dt.timedelta(days=1))}_float_pool_coding.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{staffing}, Staffing Office", to="Nursing finance", date=iso(end + dt.timedelta(days=1)),
                      subject="Float pool hours in the labor distribution",
                      body=f"Reminder: float pool staff (home cost centre {FLOAT_CC}) and anyone picking up on a "
                           "sister unit keep their home cost centre on the labor distribution; the unit that got "
                           "the shift is in worked_cost_center.")))
    prev = start - dt.timedelta(days=14)
    add(f"{D['census']}/archive/adt_midnight_census_pp{prev:%Y%m%d}.csv", "stale", lambda p: write_csv(
        p, ["census_date", "cost_center", "unit", "midnight_census", "admissions", "discharges"],
        [[iso(prev + dt.timedelta(days=d)), u["cc"], u["name"], rng.randint(5, u["beds"]), rng.randint(1, 6),
          rng.randint(1, 6)] for d in range(14) for u in units]))
    add(f"quality/falls_and_hapi_{start:%Y%m}.csv", "distractor", lambda p: write_csv(
        p, ["cost_center", "unit", "falls", "falls_with_injury", "hapi_stage2plus"],
        [[u["cc"], u["name"], rng.randint(0, 5), rng.randint(0, 1), rng.randint(0, 2)] for u in units]))
    add(f"meetings/{iso(end - dt.timedelta(days=3))}_nurse_leaders.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="staffing productivity report", people=[person(rng) for _ in range(3)],
                         date=iso(end - dt.timedelta(days=3)))))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, RowCountCheck

    D, L = P["deliverables"], P["labels"]
    book, memo = D["workbook"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def cell(u: dict[str, Any], column: str, decimals: int) -> tuple[str, Any]:
        v = float(u[column])
        return (f"{book} Units: {u['unit']} {column} = {v:.{decimals}f}",
                CellCheck(file=book, sheet="Units", match={"unit": u["unit"]}, column=column, value=v,
                          tolerance=tol(decimals)))

    U = facts["units"]
    return [
        rubric("Computes HPPD per unit from productive hours and patient days", 10, [cell(u, "hppd", 2) for u in U]),
        rubric("Counts patient days from the midnight census", 8, [
            (f"{book} Units has {len(U)} units", RowCountCheck(file=book, sheet="Units", key="unit", count=len(U))),
            *[cell(u, "patient_days", 0) for u in U]]),
        rubric("Counts productive hours by pay code, worked unit and agency", 8,
               [cell(u, "productive_hours", 2) for u in U]),
        rubric("Derives the FTE need from the approved targets", 10, [cell(u, "fte_needed", 2) for u in U]),
        rubric("Measures the FTE gap against budgeted FTE", 8, [cell(u, "fte_gap", 2) for u in U]),
        rubric("Names the unit with the largest shortfall", 6, [
            (f"{L['worst']}: {facts['worst_unit']}", fld(memo, L["worst"], facts["worst_unit"])),
            (f"{L['worst_gap']} = {facts['worst_gap']:.2f}", fld_num(memo, L["worst_gap"], facts["worst_gap"], 2))]),
        rubric("Answers whether the requisitions cover the shortfall", 8, [
            (f"{L['shortfall']} = {facts['shortfall']:.1f}", fld_num(memo, L["shortfall"], facts["shortfall"], 1)),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Checks the manager's claim against the hours", 6, [
            (f"{L['premise_hppd']} = {facts['premise_hppd']:.2f}", fld_num(memo, L["premise_hppd"], facts["premise_hppd"], 2)),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
        rubric("Reports the overall HPPD", 6, [
            (f"{L['overall']} = {facts['overall_hppd']:.2f}", fld_num(memo, L["overall"], facts["overall_hppd"], 2))]),
    ] + ([
        rubric("Explains the method and the judgement calls", 6, [
            ("Says orientation, education and PTO are non-productive and agency hours productive", llm("explanation")),
            ("Uses the approved targets revision, not the superseded sheet", llm("explanation")),
            ("Charges float-pool shifts to the unit worked", llm("explanation"))]),
        rubric("Writes a memo the committee can use", 6, [
            ("Answers the requisition question with the shortfall", llm("reasoning")),
            ("Answers the manager's claim directly", llm("tone and content")), ("Is concise", llm("writing"))]),
    ] if judgement else [])


NURSE_STAFFING_HPPD = Workflow(
    key="nurse_staffing_hppd", family="nurse_staffing", method="HPPD against target and FTE need from target HPPD",
    professions=("medical_and_health_services_managers",), solver="staffing",
    shortcuts=("nonproductive", "agency", "admissions", "old_targets", "float_home"), draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated inpatient pay period (stated distributions)")
