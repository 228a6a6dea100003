"""Process capability of a critical diameter for a PPAP submission (engineering technicians in a test lab).

The run is generated: a turned diameter (nominal 8-40 mm) measured by an air gauge (0.0001 mm) in subgroups of 5
every 15-30 minutes. The current drawing revision tolerances it by 0.010-0.025 mm a side; the superseded revision
allowed 0.005-0.010 mm more on one or both sides. Readings are normal with a within-subgroup sigma set so the true
Cpk is 1.50-1.90 (a capable process) or 0.95-1.20 (not capable), about a mean 0-15 % of the half tolerance off the
band's centre, a tool-wear drift of half a sigma over the run and subgroup-to-subgroup noise of a tenth of a sigma.
The export carries 3-5 subgroups cut with the worn insert before the logged insert change (mean 2.5-3.5 sigma
high), 25 complete subgroups after it, and one subgroup the gauge faulted on (one reading missing, the others 2
sigma high); when the run is not in control, 1-2 subgroups carry a mean shift of 2.6-3.2 sigma. The study follows
the lab's capability procedure (rule 1 on the X-bar and R charts, sigma within = R-bar/d2, overall sigma for Ppk)
and the customer's requirement Cpk >= 1.33.
"""

from __future__ import annotations

import csv
import datetime as dt
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_list, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, place_away, write_files

__all__ = ["PPAP_CAPABILITY"]

_CONSTANTS = {2: (1.880, 0.0, 3.267, 1.128), 3: (1.023, 0.0, 2.574, 1.693), 4: (0.729, 0.0, 2.282, 2.059),
              5: (0.577, 0.0, 2.114, 2.326), 6: (0.483, 0.0, 2.004, 2.534), 7: (0.419, 0.076, 1.924, 2.704)}
_CUSTOMERS = ("Halvorsen Drivetrain", "Marquette Axle Systems", "Kestrel Powertrain", "Ridgeway Steering",
              "Bergmann Fluid Power")
_PARTS = (("pinion shaft", "bearing journal"), ("valve spool", "land diameter"), ("pump shaft", "seal journal"),
          ("actuator piston rod", "rod diameter"), ("idler pin", "pin diameter"), ("output shaft", "bearing seat"))
_LABELS = {
    "n_subgroups": ("Subgroups in study", "Subgroups used", "Number of subgroups analysed"),
    "grand_mean": ("Grand mean (mm)", "X-double-bar (mm)", "Process average (mm)"),
    "rbar": ("Average range (mm)", "R-bar (mm)", "Mean subgroup range (mm)"),
    "ucl_x": ("UCL X-bar (mm)", "Upper control limit of the X-bar chart (mm)", "X-bar chart UCL (mm)"),
    "lcl_x": ("LCL X-bar (mm)", "Lower control limit of the X-bar chart (mm)", "X-bar chart LCL (mm)"),
    "ucl_r": ("UCL R (mm)", "Upper control limit of the R chart (mm)", "R chart UCL (mm)"),
    "ooc": ("Out-of-control subgroups", "Subgroups beyond the control limits", "Subgroups flagged by rule 1"),
    "ooc_count": ("Number of out-of-control subgroups", "Count of subgroups beyond the limits",
                  "How many subgroups are flagged"),
    "cpk": ("Cpk", "Cpk (within)", "Process capability Cpk"),
    "ppk": ("Ppk", "Ppk (overall)", "Process performance Ppk"),
    "decision": ("Meets the customer's Cpk requirement", "Cpk requirement met", "Capability acceptable for PPAP"),
    "premise": ("In control throughout the run", "No subgroup beyond the control limits",
                "Production's in-control claim holds"),
}
_DIRS = {"spc": ("spc_exports", "spc/exports", "measurement/spc"), "production": ("production", "shop_floor", "cell_logs"),
         "drawings": ("drawings", "engineering/drawings", "plm_export"), "quality": ("quality", "qms", "quality_system"),
         "customer": ("customer", "customer_docs", "oem_requirements"), "mail": ("correspondence", "email", "inbox")}


def _run(rng: random.Random, targets: dict[str, bool]) -> dict[str, Any]:
    """The drawing limits and one production run's subgroups (the export's rows in run order)."""
    nominal = rng.choice((8.0, 10.0, 12.0, 12.7, 15.875, 16.0, 19.05, 20.0, 25.0, 25.4, 30.0, 40.0))
    up, down = rng.choice((0.010, 0.015, 0.020, 0.025)), rng.choice((0.010, 0.015, 0.020, 0.025))
    if rng.random() < 0.6:
        down = up
    lsl, usl = round(nominal - down, 4), round(nominal + up, 4)
    widen = rng.choice((0.005, 0.010))
    old = {"lsl": round(lsl - (widen if rng.random() < 0.7 else 0.0), 4), "usl": round(usl + widen, 4)}
    half = (usl - lsl) / 2
    offset = rng.choice((-1, 1)) * rng.uniform(0.0, 0.15) * half
    centre = (usl + lsl) / 2 + offset
    target = rng.uniform(1.50, 1.90) if targets["decision"] else rng.uniform(0.95, 1.20)
    sigma = (half - abs(offset)) / (3 * target)
    start = dt.datetime(rng.choice((2024, 2025)), rng.randint(1, 12), rng.randint(1, 27), rng.choice((6, 7, 14)),
                        rng.choice((0, 10, 20, 30)))
    gap = rng.randint(15, 30)
    rows: list[dict[str, Any]] = []
    t = start

    def subgroup(mean: float, spread: float, size: int = 5) -> list[float | None]:
        got: list[float | None] = [round(rng.gauss(mean, spread), 4) for _ in range(size)]
        return got + [None] * (5 - size)

    n_pre = rng.randint(3, 5)
    for _ in range(n_pre):
        rows.append({"ts": t, "x": subgroup(centre + rng.uniform(2.5, 3.5) * sigma, 1.2 * sigma), "note": ""})
        t += dt.timedelta(minutes=gap)
    change = t - dt.timedelta(minutes=rng.randint(3, gap - 5))
    short_at = rng.randint(4, 21)
    shifted = set(rng.sample([k for k in range(2, 24) if k != short_at], rng.randint(1, 2))) if not targets["premise"] else set()
    k = 0
    while k < 25:
        drift = (k / 24 - 0.5) * 0.5 * sigma
        if len(rows) - n_pre == short_at:
            rows.append({"ts": t, "x": subgroup(centre + drift + 2 * sigma, sigma, 4),
                         "note": "gauge fault - 5th reading not recorded (low air pressure)"})
        else:
            mean = centre + drift + rng.gauss(0, 0.1 * sigma)
            if k in shifted:
                mean += rng.choice((-1, 1)) * rng.uniform(2.6, 3.2) * sigma
            rows.append({"ts": t, "x": subgroup(mean, sigma), "note": ""})
            k += 1
        t += dt.timedelta(minutes=gap)
    return {"nominal": nominal, "spec": {"lsl": lsl, "usl": usl}, "old": old, "rows": rows, "change": change,
            "start": start, "end": t, "sigma": sigma}


# ---- the independent computation: csv only ---------------------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the two csv exports without the solver's code: the insert change on the study
    machine inside the run sets the first subgroup; incomplete subgroups drop out; then the charts and indices."""
    folder, F = Path(folder), P["files"]
    with (folder / F["subgroups"]).open(newline="", encoding="utf-8") as f:
        export = list(csv.DictReader(f))
    with (folder / F["tool_log"]).open(newline="", encoding="utf-8") as f:
        log = list(csv.DictReader(f))
    stamps = [r["timestamp"][:16] for r in export]
    cuts = [r["timestamp"][:16] for r in log if r["machine"] == P["machine"] and r["event"] == P["tool_change_event"]
            and min(stamps) < r["timestamp"][:16] <= max(stamps)]
    keep = [r for r in export if not cuts or r["timestamp"][:16] >= max(cuts)]
    sets = [(r["subgroup"], [float(r[f"x{i}"]) for i in range(1, 6)]) for r in keep
            if all(r[f"x{i}"].strip() for i in range(1, 6))]
    K = P["constants"]
    xbars = [statistics.fmean(v) for _, v in sets]
    ranges = [max(v) - min(v) for _, v in sets]
    centre, rbar = statistics.fmean(xbars), statistics.fmean(ranges)
    ucl, lcl, ucl_r = centre + K["A2"] * rbar, centre - K["A2"] * rbar, K["D4"] * rbar
    flagged = [s for (s, _), m, r in zip(sets, xbars, ranges, strict=True) if not lcl <= m <= ucl or r > ucl_r]
    lsl, usl = float(P["spec"]["lsl"]), float(P["spec"]["usl"])
    room = min(usl - centre, centre - lsl) / 3
    cpk = rnd(room / (rbar / K["d2"]), 2)
    ppk = rnd(room / statistics.stdev([x for _, v in sets for x in v]), 2)
    return {"n_subgroups": len(sets), "grand_mean": rnd(centre, 4), "rbar": rnd(rbar, 4), "ucl_x": rnd(ucl, 4),
            "lcl_x": rnd(lcl, 4), "ucl_r": rnd(ucl_r, 4), "ooc": flagged, "ooc_count": len(flagged),
            "sigma_within": rnd(rbar / K["d2"], 5), "cpk": cpk, "ppk": ppk, "decision": cpk >= float(P["cpk_min"]),
            "premise": not flagged}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _export_rows(run: dict[str, Any], machine: str, gauge: str, ops: list[str]) -> list[list[Any]]:
    out = []
    for k, r in enumerate(run["rows"], 1):
        out.append([f"SG{k:03d}", r["ts"].strftime("%Y-%m-%d %H:%M"), machine, ops[k % len(ops)]]
                   + ["" if x is None else f"{x:.4f}" for x in r["x"]] + [gauge, r["note"]])
    return out


def _tool_log(rng: random.Random, run: dict[str, Any], machine: str, others: list[str], event: str) -> list[list[Any]]:
    s, e = run["start"], run["end"]
    rows = [[(s - dt.timedelta(days=rng.randint(2, 6), hours=rng.randint(0, 8))), machine, event, "CNMG 120408",
             "scheduled change"],
            [s - dt.timedelta(hours=rng.randint(2, 5)), machine, "OFFSET_ADJ", "", "X offset -0.004 after warm-up"],
            [run["change"], machine, event, "CNMG 120408", "insert worn (flank wear), parts trending high"],
            [s + (e - s) * rng.uniform(0.4, 0.8), rng.choice(others), event, "DCMT 11T304", "chipped insert"],
            [s + (e - s) * rng.uniform(0.1, 0.9), rng.choice(others), "COOLANT", "", "concentration topped up"],
            [e + dt.timedelta(hours=rng.randint(3, 20)), machine, "PM_CHECK", "", "weekly preventive maintenance"]]
    rows.sort(key=lambda r: r[0])
    return [[r[0].strftime("%Y-%m-%d %H:%M"), *r[1:]] for r in rows]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    """One PPAP capability task on ``targets``; raises DegenerateTask when the drawn run misses a target, its Cpk
    sits within 0.05 of the requirement or fewer than three planted items change a graded answer."""
    from ..solvers.capability import analyse

    prof = profession(occupation)
    run = _run(rng, targets)
    part, feature = rng.choice(_PARTS)
    part_no = f"{rng.choice(('P', 'SH', 'VS'))}-{rng.randint(10000, 99999)}"
    rev = rng.choice("DEFGH")
    old_rev = chr(ord(rev) - 1)
    machine = f"{rng.choice(('CNC', 'LATHE', 'TC'))}-{rng.randint(1, 24):02d}"
    others = [f"{machine.split('-')[0]}-{k:02d}" for k in rng.sample([k for k in range(1, 30)
                                                                      if f"{k:02d}" != machine[-2:]], 3)]
    customer = rng.choice(_CUSTOMERS)
    dirs = pick_labels(rng, _DIRS)
    qp = f"QP-{rng.randint(710, 790)}"
    csr_rev = rng.randint(3, 9)
    day = run["start"].date()
    K = dict(zip(("A2", "D3", "D4", "d2"), _CONSTANTS[5], strict=True))
    labels = pick_labels(rng, _LABELS)
    P: dict[str, Any] = {
        "files": {"subgroups": f"{dirs['spc']}/{part_no}_{feature.replace(' ', '_')}_{day:%Y%m%d}.csv",
                  "tool_log": f"{dirs['production']}/tool_change_log_{day:%Y%m}.csv"}, "dirs": dirs,
        "machine": machine, "tool_change_event": "INSERT_CHANGE", "n": 5, "constants": K,
        "spec": run["spec"], "superseded_spec": run["old"], "cpk_min": 1.33, "drawing_rev": f"rev {rev}",
        "labels": labels, "sheet_labels": dict(labels, lcl_r="LCL R (mm)", usl="USL (mm)", lsl="LSL (mm)",
                                               sigma_within="Sigma within = R-bar/d2 (mm)",
                                               sigma_overall="Sigma overall (mm)", cpk_min="Required Cpk"),
        "slide_title": f"{part_no} {feature}: X-bar/R chart and capability",
        "deliverables": {"workbook": rng.choice((f"{part_no}_capability.xlsx", "ppap_capability_study.xlsx")),
                         "slide": rng.choice((f"{part_no}_control_chart.pptx", "capability_slide.pptx")),
                         "memo": rng.choice((f"{part_no}_capability_summary.docx", "ppap_capability_note.md",
                                             "capability_summary.docx"))},
    }
    ops = [person(rng).split()[0] for _ in range(2)]
    gauge = f"AG-{rng.randint(100, 399)}"
    export = _export_rows(run, machine, gauge, ops)
    header = ["subgroup", "timestamp", "machine", "operator", "x1", "x2", "x3", "x4", "x5", "gauge", "note"]
    tool_rows = _tool_log(rng, run, machine, others, P["tool_change_event"])
    data = {P["files"]["subgroups"]: lambda p: write_csv(p, header, export),
            P["files"]["tool_log"]: lambda p: write_csv(p, ["timestamp", "machine", "event", "insert", "comment"],
                                                        tool_rows)}
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), data)
        truth = analyse(tmp, P)
        shortcuts = ("tool_change", "short_subgroup", "superseded_rev", "overall_sigma")
        singles = {k: analyse(tmp, P, (k,)) for k in shortcuts}
    if truth["n_subgroups"] != 25:
        raise DegenerateTask("the study does not hold 25 subgroups")
    if truth["premise"] != targets["premise"] or truth["decision"] != targets["decision"]:
        raise DegenerateTask("the drawn run misses its planted answer")
    if abs(truth["cpk"] - P["cpk_min"]) < 0.05:
        raise DegenerateTask("Cpk too close to the requirement")
    where = {"tool_change": ("data", "subgroups cut with the worn insert before the logged insert change"),
             "short_subgroup": ("data", "a subgroup the gauge faulted on has four readings"),
             "superseded_rev": ("memo", f"the superseded drawing rev {old_rev} has wider limits"),
             "overall_sigma": ("memo", "Cpk needs the within-subgroup sigma R-bar/d2, not the overall sigma")}

    def moved(f: Facts) -> bool:  # beyond the graded tolerance of some fact
        return (f["n_subgroups"] != truth["n_subgroups"] or f["ooc"] != truth["ooc"]
                or any(place_away(f[k], [truth[k]], 4) for k in ("grand_mean", "ucl_x", "lcl_x", "ucl_r", "rbar"))
                or any(place_away(f[k], [truth[k]], 2) for k in ("cpk", "ppk")))

    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if moved(nf)]
    if len(traps) < 3:
        raise DegenerateTask("fewer than three planted items change a graded answer")
    ctx = {"part": part, "part_no": part_no, "feature": feature, "rev": rev, "old_rev": old_rev, "machine": machine,
           "customer": customer, "qp": qp, "csr_rev": csr_rev, "gauge": gauge, "day": day}
    writers, roles = _workspace(rng, P, run, ctx, data)
    return Draft(subject=f"PPAP capability study, {part_no} {feature}", instructions=_prompt(rng, P, ctx, writers, prof.title),
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="diameter 8-40 mm, tolerance 0.010-0.025 mm a side; normal readings (0.0001 mm) in "
                               "subgroups of 5 every 15-30 min, true Cpk 1.50-1.90 or 0.95-1.20; 3-5 worn-insert "
                               "subgroups 2.5-3.5 sigma high before the insert change; one gauge-fault subgroup of 4; "
                               "0 or 1-2 subgroups shifted 2.6-3.2 sigma")


def _procedure(qp: str, current: bool) -> list[str]:
    rules = [
        "Scope: capability studies of characteristics marked critical on the drawing, for PPAP submissions.",
        "Data: one production run measured in subgroups of 5 consecutive parts, at least 25 subgroups.",
    ]
    if current:
        rules += [
            "Tool changes: subgroups cut before an insert change (event INSERT_CHANGE) logged on the study machine "
            "during the run are excluded; the study starts with the first subgroup after the last such change. "
            "Changes on other machines, offsets and coolant events do not exclude anything.",
            "Incomplete subgroups: a subgroup with any reading missing (gauge fault) is excluded and not replaced; "
            "the n = 5 chart constants apply only to complete subgroups.",
            "Chart: X-bar and R chart from the study subgroups; centre lines X-double-bar and R-bar; limits "
            "X-double-bar +/- A2 x R-bar and D3 x R-bar, D4 x R-bar, constants from the standard excerpt. Limits are "
            "computed once from all study subgroups (no points removed and no recomputation).",
            "Out of control: a subgroup whose mean is outside the X-bar limits or whose range is outside the R "
            "limits (rule 1). Run rules 2-4 are reviewed separately and not counted here. Flagged subgroups stay "
            "in the capability calculation and are reported with the reaction plan.",
            "Capability: sigma within = R-bar / d2 gives Cpk = min(USL - X-double-bar, X-double-bar - LSL) / "
            "(3 sigma within); the sample standard deviation of all study readings (n - 1) gives Ppk by the same "
            "formula. Specification limits come from the current drawing revision released in PLM.",
            "Rounding (half up): control limits and averages in mm to 4 decimals, sigma to 5; Cpk and Ppk to 2 "
            "decimals, and the reported Cpk is compared with the customer's requirement.",
        ]
    else:
        rules += ["Chart and capability: as the customer requests; the first subgroups may be dropped at the "
                  "engineer's discretion. Cpk from the standard deviation of all readings."]
    return [f"{qp} Process capability studies" + ("" if current else " (superseded)")] + [f"- {r}" for r in rules]


def _workspace(rng: random.Random, P: dict[str, Any], run: dict[str, Any], c: dict[str, Any],
               data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = dict(data)
    roles = {rel: "data" for rel in data}
    D = P["dirs"]

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    spec, old = P["spec"], P["superseded_spec"]
    nom = run["nominal"]

    def drawing(rev: str, s: dict[str, float], released: dt.date, current: bool) -> list[str]:
        up, down = round(s["usl"] - nom, 4), round(nom - s["lsl"], 4)
        return [f"Part {c['part_no']} {c['part']}, revision {rev}, released {released.isoformat()}"
                + ("" if current else f" - SUPERSEDED by revision {c['rev']}"),
                f"Critical characteristic (diamond symbol): {c['feature']} diameter {nom:.3f} +{up:.3f} / -{down:.3f} mm "
                f"(limits {s['lsl']:.4f} to {s['usl']:.4f} mm).",
                "General tolerances ISO 2768-m unless stated. Surface finish Ra 0.8 on the journal.",
                "Material 42CrMo4, induction hardened 50-55 HRC." if current else "Material 42CrMo4."]

    rel_day = c["day"] - dt.timedelta(days=rng.randint(20, 90))
    add(f"{D['drawings']}/{c['part_no']}_rev{c['rev']}_drawing_notes.pdf", "policy", lambda p: write_pdf(
        p, f"{c['part_no']} drawing notes rev {c['rev']}", drawing(c["rev"], spec, rel_day, True)))
    add(f"{D['drawings']}/archive/{c['part_no']}_rev{c['old_rev']}_drawing_notes.pdf", "stale", lambda p: write_pdf(
        p, f"{c['part_no']} drawing notes rev {c['old_rev']}",
        drawing(c["old_rev"], old, rel_day - dt.timedelta(days=rng.randint(200, 500)), False)))
    add(f"{D['quality']}/procedures/{c['qp']}_capability_studies.docx", "policy", lambda p: write_docx(
        p, f"{c['qp']} Process capability studies", _procedure(c["qp"], True)))
    add(f"{D['quality']}/procedures/archive/{c['qp']}_capability_studies_2019.pdf", "stale", lambda p: write_pdf(
        p, f"{c['qp']} (2019)", _procedure(c["qp"], False)))
    add(f"{D['quality']}/standards/control_chart_constants_excerpt.pdf", "reference", lambda p: write_pdf(
        p, "Control chart constants (excerpt)", ["Constants for X-bar and R charts by subgroup size n."]
        + [f"n = {n}: A2 = {a:.3f}, D3 = {d3:.3f}, D4 = {d4:.3f}, d2 = {d2:.3f}" for n, (a, d3, d4, d2) in _CONSTANTS.items()]))
    add(f"{D['customer']}/{c['customer'].replace(' ', '_')}_CSR_rev{c['csr_rev']}.pdf", "policy", lambda p: write_pdf(
        p, f"{c['customer']} customer-specific requirements, revision {c['csr_rev']}",
        ["PPAP element 11 (initial process studies): for every characteristic marked critical, submit an X-bar/R "
         "chart of at least 25 subgroups and the capability indices.",
         f"Acceptance: Cpk of at least {P['cpk_min']:.2f} (sigma estimated within subgroups). Ppk is reported for "
         "information. A characteristic that does not meet the requirement needs a containment and improvement plan "
         "with 100 % inspection until it does.", "Submissions without the chart are rejected."]))
    add(f"{D['quality']}/gauges/gauge_register.xlsx", "distractor", lambda p: write_xlsx(p, [(
        "Gauges", ["gauge_id", "type", "resolution_mm", "last_calibration", "status"],
        [[c["gauge"], "air gauge", 0.0001, (c["day"] - dt.timedelta(days=rng.randint(10, 150))).isoformat(), "in calibration"],
         [f"MIC-{rng.randint(10, 99)}", "outside micrometer", 0.001, "2023-11-02", "in calibration"],
         [f"CMM-{rng.randint(1, 4)}", "coordinate measuring machine", 0.0005, "2024-02-15", "in calibration"]])]))
    others = [[c["feature"], f"{nom:.3f}", f"{spec['lsl']:.4f}", f"{spec['usl']:.4f}", "critical", c["gauge"], "5 per 30 min"],
              ["overall length", "84.000", "83.900", "84.100", "standard", "height gauge", "1 per hour"],
              ["shoulder runout", "0.000", "", "0.020", "significant", "dial indicator", "1 per hour"],
              ["thread M12x1.25", "", "", "", "standard", "go/no-go", "1 per hour"]]
    add(f"{D['quality']}/control_plan_{c['part_no']}.xlsx", "reference", lambda p: write_xlsx(p, [(
        "Control plan", ["characteristic", "nominal_mm", "lsl_mm", "usl_mm", "class", "gauge", "frequency"], others)]))
    prev = c["day"] - dt.timedelta(days=rng.randint(20, 40))
    add(f"{D['spc']}/{c['part_no']}_overall_length_{prev:%Y%m%d}.csv", "distractor", lambda p: write_csv(
        p, ["subgroup", "timestamp", "x1", "x2", "x3"],
        [[f"SG{k:03d}", f"{prev} {8 + k // 2:02d}:{(k % 2) * 30:02d}"] + [f"{rng.gauss(84.0, 0.02):.3f}" for _ in range(3)]
         for k in range(1, 9)]))
    boss = person(rng)
    add(f"{D['mail']}/{c['day'].isoformat()}_production_run_note.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Production supervisor", to=boss, date=c["day"].isoformat(),
        subject=f"{c['part_no']} capability run on {c['machine']}",
        body=f"The capability run for {c['part_no']} is done on {c['machine']}. The operators changed the insert early "
             "in the run when parts started trending high - it is in the tool log. "
             + rng.choice(("The process ran in control the whole time, nothing went outside the limits.",
                           "Everything stayed inside the control limits all run.",
                           "No out-of-control points on the run, so the chart should be clean.")))))
    add(f"{D['mail']}/{(c['day'] + dt.timedelta(days=1)).isoformat()}_customer_ppap_request.txt", "email",
        lambda p: write_text(p, email_text(
            sender=f"{person(rng)}, Supplier Quality Engineer, {c['customer']}", to=boss,
            date=(c["day"] + dt.timedelta(days=1)).isoformat(), subject=f"PPAP {c['part_no']} - capability evidence",
            body=f"For the PPAP of {c['part_no']} we need the capability of the critical {c['feature']} diameter from "
                 f"25 subgroups with the control chart, per our CSR revision {c['csr_rev']}.")))
    add(f"meetings/{(c['day'] - dt.timedelta(days=3)).isoformat()}_quality_team.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="PPAP launch", people=[person(rng) for _ in range(3)],
                         date=(c["day"] - dt.timedelta(days=3)).isoformat())))
    add(f"{D['quality']}/msa/{c['gauge']}_grr_summary.docx", "distractor", lambda p: write_docx(
        p, f"Gauge R&R summary {c['gauge']}", [f"Study on 10 parts x 3 operators x 3 trials: %GRR of tolerance "
                                               f"{rng.uniform(6, 9.5):.1f} %, ndc {rng.randint(7, 12)}. Acceptable."]))
    c["boss"] = boss
    return w, roles


_MM = "number in mm, 4 decimals, no unit after it"


def _prompt(rng: random.Random, P: dict[str, Any], c: dict[str, Any], writers: dict[str, Any], title: str) -> str:
    L, D, boss = P["labels"], P["deliverables"], c["boss"]
    opener = rng.choice((f"From: {boss}, Lab Supervisor\nSubject: PPAP capability, {c['part_no']}\n\n",
                         f"Hi - {boss} (Lab Supervisor) here.\n\n", f"{boss}, Lab Supervisor - PPAP request\n\n"))
    ask = rng.choice((f"{c['customer']} wants the capability evidence for the critical {c['feature']} diameter of "
                      f"{c['part_no']} ({c['part']}): Cpk from 25 subgroups, with the chart.",
                      f"The customer's SQE is waiting on Cpk for the {c['feature']} diameter on {c['part_no']}, from 25 "
                      "subgroups with the control chart, for the PPAP package."))
    belief = rng.choice(("Production says the run stayed in control throughout - please confirm that from the chart.",
                         "I'm told nothing went outside the control limits; check that."))
    steps = [rng.choice((f"Take the SPC export of the run on {c['machine']} and use the subgroups our capability "
                         f"procedure ({c['qp']}) says to use (tool log, incomplete subgroups).",
                         f"Select the study subgroups from the {c['machine']} run as {c['qp']} requires, using the "
                         "tool change log.")),
             rng.choice(("Build the X-bar and R chart with the n = 5 constants from the standard excerpt and flag the "
                         "out-of-control subgroups (rule 1).", "Compute the X-bar/R limits (n = 5 constants) and list "
                         "the subgroups beyond them (rule 1).")),
             rng.choice(("Cpk from sigma within (R-bar/d2) and Ppk from the overall sigma, against the current "
                         "drawing's limits.", "Work out Cpk (within-subgroup sigma) and Ppk (overall sigma) against "
                         "the limits of the released drawing revision.")),
             "Tell me whether we meet the customer's Cpk requirement (their CSR) and whether production's claim holds."]
    W = P["sheet_labels"]
    lines = [(L["n_subgroups"], "whole number"), (L["grand_mean"], _MM), (L["rbar"], _MM),
             (L["ucl_x"], _MM), (L["lcl_x"], _MM), (L["ucl_r"], _MM),
             (L["ooc"], "subgroup ids separated by ';', or none"), (L["ooc_count"], "whole number"),
             (L["cpk"], "2 decimals"), (L["ppk"], "2 decimals"), (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    deliverables = [
        f"{D['workbook']}: sheet Subgroups (subgroup, timestamp, x1..x5, mean, range, out_of_control), one row per "
        "study subgroup; sheet Limits and sheet Capability with an Item column and a Value column, the values as "
        "live formulas. Limits rows: " + "; ".join(W[k] for k in ("n_subgroups", "grand_mean", "rbar")) + "; A2; D3; D4; "
        + "; ".join(W[k] for k in ("ucl_x", "lcl_x", "ucl_r", "lcl_r", "ooc_count")) + ". Capability rows: "
        + "; ".join(W[k] for k in ("usl", "lsl")) + "; d2; " + "; ".join(W[k] for k in ("sigma_within", "sigma_overall",
                                                                                        "cpk", "ppk", "cpk_min", "decision")) + ".",
        f"{D['slide']}: one slide for the PPAP package with the X-bar and R charts and these lines (label: value): "
        + ", ".join((L["cpk"], L["ppk"], L["ooc_count"], L["decision"])) + ".",
        f"{D['memo']}: a short capability summary starting with these lines (label: value), then what you excluded "
        "and why:\n" + "\n".join(f"   {lbl}: <{hint}>" for lbl, hint in lines)]
    return "\n\n".join([
        opener + ask + " " + belief,
        rng.choice(("What I need:", "Steps:", "Please:")) + "\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        rng.choice(("Leave in the output folder:", "Deliverables in the output folder:")) + "\n"
        + "\n".join(f"{k}. {t}" for k, t in enumerate(deliverables, 1)),
        rng.choice(("Thanks.", "Shout if the data look odd.", "Cheers.")) + "\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers)),
    ]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, W = P["deliverables"], P["labels"], P["sheet_labels"]
    book, memo, slide = D["workbook"], D["memo"], D["slide"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def cell(sheet: str, key: str, value: float, decimals: int) -> tuple[str, Any]:
        return (f"{book} {sheet}: {W[key]} = {value:.{decimals}f}",
                CellCheck(file=book, sheet=sheet, match={"Item": W[key]}, column="Value", value=float(value),
                          tolerance=tol(decimals)))

    def num(key: str, decimals: int, file: str = memo) -> tuple[str, Any]:
        return f"{file}: {L[key]} = {facts[key]:.{decimals}f}", fld_num(file, L[key], facts[key], decimals)

    def count(key: str, file: str = memo) -> tuple[str, Any]:
        return (f"{file}: {L[key]} = {facts[key]}",
                FieldCheck(file=file, label=L[key], number=float(facts[key]), tolerance=0.0))

    out = [
        rubric("Builds the X-bar and R chart limits from the study subgroups", 10, [
            cell("Limits", "grand_mean", facts["grand_mean"], 4), cell("Limits", "ucl_x", facts["ucl_x"], 4),
            cell("Limits", "lcl_x", facts["lcl_x"], 4), cell("Limits", "ucl_r", facts["ucl_r"], 4)]),
        rubric("Uses exactly the study subgroups the procedure allows", 8, [
            count("n_subgroups"), num("rbar", 4),
            (f"{book} Subgroups has {facts['n_subgroups']} rows",
             RowCountCheck(file=book, sheet="Subgroups", key="subgroup", count=facts["n_subgroups"]))]),
        rubric("Flags the out-of-control subgroups by rule 1", 8, [
            (f"{L['ooc']}: {'; '.join(facts['ooc']) or 'none'}", fld_list(memo, L["ooc"], list(facts["ooc"]))),
            num("ucl_x", 4), num("lcl_x", 4), num("ucl_r", 4)]),
        rubric("Computes Cpk from the within-subgroup sigma and the current drawing limits", 10, [
            num("cpk", 2), cell("Capability", "cpk", facts["cpk"], 2),
            cell("Capability", "sigma_within", facts["sigma_within"], 5)]),
        rubric("Computes Ppk from the overall sigma", 8, [num("ppk", 2), cell("Capability", "ppk", facts["ppk"], 2),
                                                           num("grand_mean", 4)]),
        rubric("Answers the customer's Cpk requirement", 8, [
            num("cpk", 2), (f"{L['decision']}: {yes(facts['decision'])}",
                            fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Checks production's claim that the run stayed in control", 6, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            count("ooc_count")]),
        rubric("Hands over the chart slide for the PPAP package", 6, [num("cpk", 2, slide), num("ppk", 2, slide),
                                                                      count("ooc_count", slide)]),
    ]
    if judgement:
        out.append(rubric("Explains what the study left out and why", 6, [
            ("Names the subgroups cut before the insert change and excludes them per the procedure", llm("explanation")),
            ("Excludes the gauge-fault subgroup with a missing reading", llm("explanation")),
            ("Uses the current drawing revision's limits, not the superseded one", llm("explanation"))]))
        out.append(rubric("Writes a summary the customer's SQE can accept", 6, [
            ("States the decision against the CSR's Cpk requirement with the numbers", llm("reasoning")),
            ("Answers production's in-control claim with the flagged subgroups, if any", llm("tone and content")),
            ("Is concise and says what happens next (submission or containment)", llm("writing"))]))
    return out


PPAP_CAPABILITY = Workflow(
    key="ppap_capability", family="process_capability", method="X-bar/R control chart with Cpk and Ppk",
    professions=("mechanical_engineering_technicians",), solver="capability",
    shortcuts=("tool_change", "short_subgroup", "superseded_rev", "overall_sigma"), draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated production-run measurements (stated distributions)")
