"""A tensile test report for a material lot from the test frames' raw load-extension exports (engineering
technicians).

A lot of 6061-T6 aluminium sheet, 304 stainless sheet (flat E8M specimens, 12.5 mm wide, 50 mm gauge) or 4140
quenched-and-tempered bar (round specimens, 12.5 mm, 62.5 mm gauge) is pulled: six specimens and the retest of the
one whose grips slipped. Each curve is Ramberg-Osgood up to the tensile strength (yield 12-30 MPa above the current
minimum, SD 2-4 MPa; tensile strength at 1.05-1.3 times the yield and at least 6 MPa above its minimum; hardening
exponent from the uniform elongation, 55-90 % of the elongation after fracture), then a parabolic drop to fracture at
78-90 % of the tensile strength; modulus normal around the alloy's (SD 0.9 %), a seating toe of 0.0002-0.0006 strain
below a fifth of the fit window's bottom, extensometer noise 0.15 um, load noise 0.03 % of the maximum. Rows every
1.2-1.8 MPa under stress control to 75 % of the yield, then every 4e-5, 4e-4 and 1-2e-3 strain. The extensometer
comes off at 2-10 % strain. Measured thickness is 3-6 % under nominal on sheet, diameter 0.3-0.8 % under on bar.
Elongations from the gauge marks sit 1.5-5 points over the footnoted minimum (SD 0.8); the specimen broken outside
the marks 0.8-2.5 points under it. Frame A exports kN, frame B newtons (the retest and some first-day pulls). When
the lot is to fail, one valid specimen's yield is 3-9 MPa under the minimum or its elongation 0.5-1.5 points under.
The mill certificate's yield and tensile strength are within 40 % of the agreement band of the lot means, or its
yield 1.4-2.0 bands and its tensile strength 0.6-2.0 bands over.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed, a result sits within rounding of a
limit, or a planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that
is not this workflow's.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_list, llm, rnd, rubric
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files
from .tensile_curves import MATERIALS, pull_rows

__all__ = ["TENSILE_REPORT"]

SHORTCUTS = ("units", "nominal", "window", "extensometer", "slip", "outside", "superseded", "footnote")
_LABELS = {
    "tested": ("Specimens tested", "Pulls run", "Specimens pulled"),
    "valid": ("Valid strength results", "Valid specimens", "Specimens counted for strength"),
    "void_ids": ("Void specimens", "Specimens voided", "Void tests"),
    "noelong_ids": ("Specimens without valid elongation", "Elongation not reportable", "Elongation invalid for"),
    "mean_yield": ("Mean offset yield strength (MPa)", "Mean yield strength Rp0.2 (MPa)", "Lot mean yield (MPa)"),
    "mean_uts": ("Mean tensile strength (MPa)", "Mean UTS (MPa)", "Lot mean tensile strength Rm (MPa)"),
    "mean_elong": ("Mean elongation after fracture (%)", "Mean elongation at break (%)", "Lot mean elongation (%)"),
    "low_yield": ("Lowest yield strength (MPa)", "Minimum individual yield (MPa)", "Lowest Rp0.2 (MPa)"),
    "yield_min": ("Specified minimum yield (MPa)", "Yield minimum applied (MPa)", "Spec yield minimum (MPa)"),
    "elong_min": ("Specified minimum elongation (%)", "Elongation minimum applied (%)", "Spec elongation minimum (%)"),
    "decision": ("Lot conforms to {spec}", "Lot accepted against {spec}", "{spec} requirements met"),
    "premise": ("Mill certificate values confirmed", "MTR yield and tensile confirmed", "Mill test report agrees"),
}
_OUT = {"specimen": ("specimen", "specimen_id"), "area": ("area_mm2", "csa_mm2"), "modulus": ("modulus_gpa", "E_gpa"),
        "yield": ("yield_mpa", "rp02_mpa"), "uts": ("uts_mpa", "rm_mpa"), "elong": ("elongation_pct", "a_pct"),
        "status": ("status", "validity")}
_WORDS = {"valid": ("valid", "accepted"), "void": ("void", "voided"), "noelong": ("elongation invalid", "no elongation")}
_DIRS = {"raw": ("raw", "machine_exports"), "lab": ("lab", "lab_records"), "specs": ("specs", "specifications")}


# ---- the independent computation: plain text and openpyxl -------------------------------------------------------

def _export(path: Path) -> tuple[float, float, list[tuple[float | None, float]]]:
    """(extensometer gauge length, newtons per load unit, [(extension or None, load)]) read line by line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    k = [ln.split(",")[0].strip().lower() for ln in lines].index("time")
    gl = next(float(ln.split(",")[1]) for ln in lines[:k] if ln.lower().startswith("extensometer gauge length"))
    col = {n.strip().lower(): j for j, n in enumerate(lines[k].split(","))}
    unit = lines[k + 1].split(",")[col["load"]].strip()
    per = 1000.0 if unit == "(kN)" else 1.0 if unit == "(N)" else float("nan")
    data = []
    for ln in lines[k + 2:]:
        cells = ln.split(",")
        if len(cells) > col["load"] and cells[col["load"]].strip():
            ext = cells[col["extension"]].strip()
            data.append((float(ext) if ext else None, float(cells[col["load"]])))
    return gl, per, data


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the folder without the solver's code: exports split by hand, the fit from the normal
    equations, the crossing found on the offset residual's sign change."""
    folder, F = Path(folder), P["files"]
    meas = {r["specimen"].strip(): r for r in read_rows(folder / F["measurements"])}
    log = {r["specimen"].strip(): r for r in read_rows(folder / F["log"])}
    lo, hi = P["window"]
    spec = P["spec"]
    el_min = spec["elong_note"] if spec.get("elong_note") is not None else spec["elong_min"]
    res = []
    for sid, rel in F["exports"].items():
        gl, per, data = _export(folder / rel)
        m = meas[sid]
        if P["geometry"] == "round":
            d = (float(m["d1"]) + float(m["d2"]) + float(m["d3"])) / 3
            area = math.pi / 4 * d * d
        else:
            area = (float(m["w1"]) + float(m["w2"]) + float(m["w3"])) * (float(m["t1"]) + float(m["t2"]) + float(m["t3"])) / 9
        pts = [(e / gl, f * per / area) for e, f in data if e is not None]
        top = min(i for i, (_, s) in enumerate(pts) if s > hi)
        win = [(x, y) for x, y in pts[:top] if lo <= y <= hi]
        n, sx, sy = len(win), sum(x for x, _ in win), sum(y for _, y in win)
        sxx, sxy = sum(x * x for x, _ in win), sum(x * y for x, y in win)
        E = (n * sxy - sx * sy) / (n * sxx - sx * sx)
        c = (sy - E * sx) / n
        r = [y - E * (x - 0.002) - c for x, y in pts[top:]]
        j = next(i for i in range(1, len(r)) if r[i] < 0 <= r[i - 1])
        (_, y0), (_, y1) = pts[top + j - 1], pts[top + j]
        ys = y0 + (y1 - y0) * r[j - 1] / (r[j - 1] - r[j])
        void = "slip" in log[sid]["remarks"].lower()
        pos, lf, l0 = log[sid]["fracture_from_mark_A_mm"].strip(), log[sid]["Lf_mm"].strip(), float(m["L0"])
        ok_el = not void and pos != "" and 0 <= float(pos) <= l0 and lf != ""
        res.append({"specimen": sid, "modulus": rnd(E / 1000, 1), "yield": rnd(ys, 0),
                    "uts": rnd(max(f * per / area for _, f in data), 0), "void": void,
                    "elong": rnd((float(lf) - l0) / l0 * 100, 1) if ok_el else None})
    valid = [s for s in res if not s["void"]]
    el = [s["elong"] for s in valid if s["elong"] is not None]
    ok = all(s["yield"] >= spec["yield_min"] and s["uts"] >= spec["uts_min"] for s in valid) and min(el) >= el_min
    mean_y, mean_u = rnd(sum(s["yield"] for s in valid) / len(valid), 0), rnd(sum(s["uts"] for s in valid) / len(valid), 0)
    band = P["mtr"]["band_pct"] / 100
    return {"specimens": res, "tested": len(res), "valid": len(valid),
            "void_ids": sorted(s["specimen"] for s in res if s["void"]),
            "noelong_ids": sorted(s["specimen"] for s in valid if s["elong"] is None),
            "mean_yield": mean_y, "mean_uts": mean_u, "mean_elong": rnd(sum(el) / len(el), 1),
            "low_yield": min(s["yield"] for s in valid), "yield_min": spec["yield_min"], "elong_min": el_min,
            "decision": ok, "premise": abs(mean_y - P["mtr"]["yield"]) <= band * P["mtr"]["yield"]
            and abs(mean_u - P["mtr"]["uts"]) <= band * P["mtr"]["uts"]}


# ---- drawing a task ----------------------------------------------------------------------------------------

def _lot(rng: random.Random, M: dict[str, Any], targets: dict[str, bool]) -> dict[str, Any]:
    """Per-specimen yield, tensile strength, elongation and role (slipped, outside, failing) of six pulls and the
    retest of the slipped one."""
    spec, note = M["spec"], M["spec"]["elong_note"]
    mu, sd = spec["yield_min"] + rng.uniform(12, 30), rng.uniform(2, 4)
    mu_a = note + rng.uniform(1.5, 5)
    slipped, outside = rng.sample(range(1, 7), 2)
    fail = rng.choice([k for k in range(1, 8) if k not in (slipped, outside)])
    mode = rng.choice(("yield", "elong"))
    out = []
    for k in range(1, 8):
        ys = max(rng.gauss(mu, sd), spec["yield_min"] + 4)
        a = max(rng.gauss(mu_a, 0.8), note + 0.4)
        if k == outside:
            a = note - rng.uniform(0.8, 2.5)
        if not targets["decision"] and k == fail:
            if mode == "yield":
                ys = spec["yield_min"] - rng.uniform(3, 9)
            else:
                a = note - rng.uniform(0.5, 1.5)
        uts = max(ys * rng.uniform(*M["ratio"]), spec["uts_min"] + rng.uniform(6, 30))
        out.append({"k": k, "ys": ys, "uts": uts, "elong": a, "slipped": k == slipped, "outside": k == outside,
                    "E": M["E"] * 1000 * (1 + rng.gauss(0, 0.009)), "uniform": rng.uniform(*M["uniform"]),
                    "drop": rng.uniform(*M["drop"])})
    return {"pulls": out, "slipped": slipped, "outside": outside}


def _measure(rng: random.Random, M: dict[str, Any], size: float) -> dict[str, Any]:
    if M["geometry"] == "round":
        d = 12.5 * (1 - rng.uniform(0.003, 0.008))
        row = {f"d{i}": round(d + rng.gauss(0, 0.004), 3) for i in (1, 2, 3)}
        area = math.pi / 4 * (sum(row.values()) / 3) ** 2
    else:
        w, t = 12.5 + rng.gauss(0, 0.03), size * (1 - rng.uniform(0.03, 0.06))
        row = {**{f"w{i}": round(w + rng.gauss(0, 0.01), 2) for i in (1, 2, 3)},
               **{f"t{i}": round(t + rng.gauss(0, 0.004), 3) for i in (1, 2, 3)}}
        area = (row["w1"] + row["w2"] + row["w3"]) / 3 * (row["t1"] + row["t2"] + row["t3"]) / 3
    row["L0"] = round(M["L0"] + rng.gauss(0, 0.03), 2)
    return {"row": row, "area": area}


def _export_text(head: list[tuple[str, str]], rows: list[list[Any]], newtons: bool) -> str:
    lines = [f"{k},{v}" for k, v in head] + ["", "Time,Extension,Load,Crosshead",
                                             f"(s),(mm),({'N' if newtons else 'kN'}),(mm)"]
    return "\n".join(lines + [",".join(str(c) for c in r) for r in rows]) + "\n"


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.tensile import analyse

    key = rng.choice(tuple(MATERIALS))
    M = MATERIALS[key]
    dirs = pick_labels(rng, _DIRS)
    size = rng.choice(M["sizes"])
    lot, heat = f"L{rng.randint(2100, 2999)}", f"H{rng.randint(10000, 99999)}"
    cur = rng.choice("DEF")
    old = chr(ord(cur) - 1)
    spec = dict(M["spec"], name=f"{M['spec']['name']} rev {cur}")
    old_spec = dict(M["old_spec"], name=f"{M['spec']['name']} rev {old}")
    L = _lot(rng, M, targets)
    first = dt.date(2025, 1, 6) + dt.timedelta(weeks=rng.randint(0, 70), days=rng.randint(0, 2))
    d1, d2 = first.isoformat(), (first + dt.timedelta(days=rng.randint(1, 2))).isoformat()
    ext_gl, ext_off = rng.choice(M["ext"]), round(rng.uniform(*M["ext_off"]) * 2) / 2
    toe_d, ops = rng.uniform(0.0002, 0.0006), [person(rng) for _ in range(2)]
    second_day = set(rng.sample(range(4, 7), rng.randint(0, 2)))
    P: dict[str, Any] = {
        "lot": lot, "material": M["material"], "geometry": M["geometry"], "window": list(M["window"]),
        "nominal": {"d": 12.5} if M["geometry"] == "round" else {"w": 12.5, "t": size},
        "spec": spec, "old_spec": old_spec, "mtr": {"yield": 0.0, "uts": 0.0, "band_pct": rng.choice((5.0, 6.0, 8.0))},
        "files": {"exports": {}, "measurements": f"{dirs['lab']}/specimen_measurements_{lot}.csv",
                  "log": f"{dirs['lab']}/test_log_{lot}.xlsx"},
        "labels": {}, "out_columns": pick_labels(rng, _OUT), "status_words": pick_labels(rng, _WORDS),
        "deliverables": {"memo": rng.choice((f"tensile_report_{lot}.docx", f"test_report_{lot}.docx",
                                             "tensile_test_report.docx")),
                         "table": rng.choice((f"results_{lot}.csv", f"tensile_results_{lot}.csv",
                                              "specimen_results.csv"))}}
    data: dict[str, Any] = {}
    meas_rows, log_rows = [], []
    for p in L["pulls"]:
        sid = f"{lot}-S{p['k']}"
        newtons = p["k"] == 7 or p["k"] in second_day
        date = d2 if newtons else d1
        frame = "frame_B_250kN" if newtons else "frame_A_100kN"
        m = _measure(rng, M, size)
        slip = rng.uniform(0.3, 0.7) * p["uniform"] * p["elong"] / 100 if p["slipped"] else None
        rows, _ = pull_rows(rng, E=p["E"], ys=p["ys"], uts=p["uts"], elong=p["elong"], uniform=p["uniform"],
                            drop=p["drop"], area=m["area"], gauge=ext_gl, ext_off=ext_off,
                            toe=(toe_d, M["window"][0] / 5), parallel=M["Lc"], newtons=newtons, slip=slip)
        head = [("Method", f"E8M {'round 12.5 mm 5D' if M['geometry'] == 'round' else 'sheet-type 12.5 mm'}"),
                ("Specimen", sid), ("Lot", lot), ("Frame", "B 250 kN" if newtons else "A 100 kN"),
                ("Operator", ops[int(newtons)]), ("Test date", date),
                ("Extensometer gauge length (mm)", f"{ext_gl:g}"), ("Extensometer removed at strain (%)", f"{ext_off:g}")]
        rel = f"{dirs['raw']}/{frame}/{date}/{sid}.csv"
        P["files"]["exports"][sid] = rel
        text = _export_text(head, rows, newtons)
        data[rel] = (lambda x: lambda path: write_text(path, x))(text)
        meas_rows.append({"specimen": sid, **m["row"]})
        l0 = m["row"]["L0"]
        pos: str | float
        if p["slipped"]:
            pos, lf, remark = "", "", f"Grips slipped (lower grip); test stopped. Retest on spare {lot}-S7."
        else:
            pos = (round(-rng.uniform(1.5, 6), 1) if rng.random() < 0.5 else round(l0 + rng.uniform(1.5, 6), 1)) \
                if p["outside"] else round(rng.uniform(0.25, 0.75) * l0, 1)
            lf = f"{l0 * (1 + p['elong'] / 100):.2f}"
            remark = rng.choice(("", "", "break near the shoulder")) if p["outside"] else rng.choice(
                ("", "", "", "cup-cone fracture" if M["geometry"] == "round" else "45 deg shear fracture"))
            if p["k"] == 7:
                remark = (remark + "; " if remark else "") + f"retest of {lot}-S{L['slipped']}"
        log_rows.append([sid, date, "B" if newtons else "A", ops[int(newtons)], pos, lf, remark])
    cols = ["specimen", *(["d1", "d2", "d3"] if M["geometry"] == "round" else ["w1", "w2", "w3", "t1", "t2", "t3"]), "L0"]
    spare = {c: "" for c in cols} | {"specimen": f"{lot}-S8"} | {k: v for k, v in _measure(rng, M, size)["row"].items()}
    data[P["files"]["measurements"]] = lambda p: write_csv(p, cols, [[r[c] for c in cols] for r in meas_rows + [spare]])
    data[P["files"]["log"]] = lambda p: write_xlsx(p, [("Log", ["specimen", "test_date", "frame", "operator",
                                                               "fracture_from_mark_A_mm", "Lf_mm", "remarks"], log_rows)])
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), data)
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    band = P["mtr"]["band_pct"] / 100
    f_y, f_u = (rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4)) if targets["premise"] else (
        rng.uniform(1.4, 2.0), rng.uniform(0.6, 2.0))
    P["mtr"] = {"yield": float(round(truth["mean_yield"] * (1 + f_y * band))),
                "uts": float(round(truth["mean_uts"] * (1 + f_u * band))),
                "elong": round(truth["mean_elong"] + rng.uniform(-1, 2), 1), "band_pct": P["mtr"]["band_pct"]}
    truth["premise"] = (abs(truth["mean_yield"] - P["mtr"]["yield"]) <= band * P["mtr"]["yield"]
                        and abs(truth["mean_uts"] - P["mtr"]["uts"]) <= band * P["mtr"]["uts"])
    if (truth["decision"], truth["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the targets are missed")
    valid = [s for s in truth["specimens"] if not s["void"]]
    if any(abs(s["yield"] - spec["yield_min"]) < 2 or abs(s["uts"] - spec["uts_min"]) < 2 for s in valid) or any(
            s["elong"] is not None and abs(s["elong"] - truth["elong_min"]) < 0.3 for s in valid):
        raise DegenerateTask("a result sits within rounding of a limit")
    where = {"units": ("header", "frame B exports its load in newtons"),
             "nominal": ("data", "measured thickness or diameter is under nominal"),
             "window": ("memo", "the elastic slope is fitted over the procedure's stress window, above the seating toe"),
             "extensometer": ("data", "the extensometer comes off before fracture; elongation is from the gauge marks"),
             "slip": ("data", "the test log records a grip slip: the test is void and retested"),
             "outside": ("data", "a specimen broke outside its gauge marks: no valid elongation"),
             "superseded": ("memo", "the current specification revision replaces the superseded one"),
             "footnote": ("footnote", "the specification's footnote sets the elongation minimum for this product")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s} for s, f in singles.items()
             if _moved(f, truth)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    labels["decision"] = labels["decision"].format(spec=spec["name"])
    P["labels"] = labels
    writers, roles = _workspace(rng, P, M, data, dirs, heat, size, (d1, d2), ops)
    prompt = _prompt(rng, P, M, occupation, heat, writers, dirs)
    return Draft(subject=f"Tensile test report, lot {lot}", instructions=prompt, files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="Ramberg-Osgood curves to the tensile strength, parabolic drop to fracture; yield "
                               "12-30 MPa over the minimum (SD 2-4), modulus SD 0.9 %, toe 0.0002-0.0006 strain, "
                               "noise 0.15 um and 0.03 % of the maximum load; elongation 1.5-5 points over the "
                               "footnoted minimum (SD 0.8); section 3-6 % (sheet) or 0.3-0.8 % (bar) under nominal")


def _moved(f: Facts, t: Facts) -> bool:
    if any(f[k] != t[k] for k in ("tested", "valid", "void_ids", "noelong_ids", "decision", "yield_min", "elong_min")):
        return True
    if any(abs(f[k] - t[k]) > 2 for k in ("mean_yield", "mean_uts", "low_yield")) or abs(f["mean_elong"] - t["mean_elong"]) > 0.2:
        return True
    for a, b in zip(f["specimens"], t["specimens"], strict=True):
        if b["void"]:
            continue
        if abs(a["yield"] - b["yield"]) > 2 or abs(a["uts"] - b["uts"]) > 2 or abs(a["modulus"] - b["modulus"]) > 4:
            return True
        if (a["elong"] is None) != (b["elong"] is None) or a["elong"] is not None and abs(a["elong"] - b["elong"]) > 0.2:
            return True
    return False


def _spec_text(spec: dict[str, Any], M: dict[str, Any], current: bool, old: str) -> list[str]:
    mark = "a" if spec.get("elong_note") is not None else ""
    lines = [f"Scope: {M['material']}, mill products for machined and fabricated parts. Tension tests per ASTM "
             "E8/E8M on specimens from each lot, longitudinal.",
             "Table 1 - Tensile requirements (each test):",
             f"- Tensile strength, min: {spec['uts_min']:g} MPa",
             f"- Yield strength (0.2 % offset), min: {spec['yield_min']:g} MPa",
             f"- Elongation after fracture, min: {spec['elong_min']:g} %{(' (note ' + mark + ')') if mark else ''}"]
    if mark:
        lines.append(f"Note a: {spec['note']}")
    lines.append(f"Revision history: rev {spec['name'][-1]} supersedes rev {old}; strength minimums raised and note a "
                 "added." if current else "This revision is superseded; see the current revision.")
    return lines


def _procedure(P: dict[str, Any], M: dict[str, Any]) -> list[str]:
    W = P["status_words"]
    lo, hi = P["window"]
    section = ("A = pi x d^2 / 4 with d the mean of the three diameter readings" if P["geometry"] == "round" else
               "A = (mean of the three width readings) x (mean of the three thickness readings)")
    return [
        "Scope: reduction of tension tests on metallic materials (ASTM E8/E8M) and the lot test report.",
        f"- Cross-section: from the measured dimensions in the measurement sheet, never the nominal ones: {section}.",
        "- Loads: each export states the load unit in the row under its column names (kN or N); convert to newtons. "
        "Stress (MPa) = load (N) / A (mm2). Strain = extension / the extensometer gauge length in the export's header.",
        f"- Modulus: least-squares line stress = E x strain + c (with intercept) through the points of the initial "
        f"loading with {lo:g} MPa <= stress <= {hi:g} MPa (Table 1 of this procedure for {M['material']}), up to the "
        "first point above the window. The seating toe below the window is not fitted.",
        "- Yield strength Rp0.2: the offset line is stress = E x (strain - 0.002) + c. Going up the curve from the end "
        "of the window, the yield is where the curve first falls below the offset line, interpolated linearly between "
        "the last point on or above it and the first point below it. Points without an extension reading are skipped.",
        "- Tensile strength Rm = maximum load / A.",
        "- Elongation after fracture = (Lf - L0) / L0 x 100, with L0 the measured gauge-mark spacing and Lf the "
        "spacing of the marks with the broken halves fitted together (test log). The extensometer is removed during "
        "the test; its last reading is not the elongation.",
        "- Validity: a test whose grips slipped (test log remarks) is void for every property and is repeated on a "
        "spare. A fracture outside the gauge marks (fracture_from_mark_A_mm below 0 or above L0) leaves the strengths "
        "valid but gives no valid elongation.",
        f"- Results table: one row per specimen pulled, retests included; status {W['valid']}, {W['void']} (grips "
        f"slipped) or {W['noelong']} (break outside the gauge marks). Blank elongation where none is valid.",
        "- Rounding: strengths to 1 MPa, modulus to 0.1 GPa, elongation to 0.1 %; lot means are the means of the "
        "rounded valid results, rounded the same way.",
        "- Acceptance: the lot conforms when every valid result meets each minimum of the current revision of the "
        "material specification, its notes included.",
        f"- Mill certificate: its values are confirmed when the lot mean yield and the lot mean tensile strength are "
        f"each within +/- {P['mtr']['band_pct']:g} % of the certificate's values."]


def _workspace(rng: random.Random, P: dict[str, Any], M: dict[str, Any], data: dict[str, Any], dirs: dict[str, str],
               heat: str, size: float, days: tuple[str, str], ops: list[str]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    spec, old, lot = P["spec"], P["old_spec"], P["lot"]
    base, cur, prev = spec["name"].rsplit(" rev ", 1)[0], spec["name"][-1], old["name"][-1]
    product = M["product"].format(size=size)
    S = dirs["specs"]
    add(f"{S}/{base}_rev_{cur}.pdf", "policy", lambda p: write_pdf(p, f"Material specification {spec['name']}",
                                                                    _spec_text(spec, M, True, prev)))
    add(f"{S}/superseded/{base}_rev_{prev}.pdf", "stale", lambda p: write_pdf(
        p, f"Material specification {old['name']} (SUPERSEDED)", _spec_text(old, M, False, prev)))
    add("procedures/LP-TT-07_tension_testing_rev4.docx", "policy", lambda p: write_docx(
        p, "LP-TT-07 Tension testing and lot reports, rev 4 (current)", _procedure(P, M)))
    add("procedures/archive/LP-TT-07_rev3.pdf", "stale", lambda p: write_pdf(p, "LP-TT-07 rev 3 (superseded by rev 4)", [
        "- Cross-section from the nominal dimensions of the specimen drawing.",
        "- Elongation at break: extensometer strain at fracture, or at removal if removed.",
        "- Acceptance against the specification revision printed on the purchase order.", "- Report to 1 MPa."]))
    mtr = P["mtr"]
    add(f"supplier/MTR_{heat}.pdf", "conflict", lambda p: write_pdf(p, f"Mill test report - heat {heat}", [
        f"Product: {product}, {M['material']}. Lot shipped as {lot}.",
        f"Tensile strength: {mtr['uts']:g} MPa. Yield strength (0.2 %): {mtr['yield']:g} MPa. Elongation: "
        f"{mtr['elong']:g} %.", f"Certified to {base} (revision {prev}).",
        "Chemistry and hardness per the attached mill data."]))
    add(f"receiving/{lot}_receiving_record.pdf", "reference", lambda p: write_pdf(p, f"Receiving record {lot}", [
        f"PO {rng.randint(450000, 459999)}: {product}, {M['material']}, heat {heat}.",
        f"Material specification on the PO: {base} (current revision at receipt).",
        "Inspection: verification tensile tests, six specimens from the lot, per LP-TT-07."]))
    lead = person(rng)
    add(f"mail/{days[0]}_frame_b_controller.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{lead}, Lab Supervisor", to="test lab", date=days[0], subject="Frame B after the controller upgrade",
        body="Frame B is back in service with the new controller. Its exports now give load in newtons; frame A still "
             "exports kN. The extensometer settings are unchanged.")))
    add(f"mail/{days[1]}_spec_revision.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Quality Engineer", to="test lab; receiving", date=days[1],
        subject=f"{base} rev {cur} released", body=f"Rev {cur} of {base} is released and replaces rev {prev} for all "
        "lots tested from today. Mills may still certify to the old revision; our acceptance is to the current one.")))
    hb = [[f"{lot}-H{k}", round(rng.gauss(95 if M["geometry"] == "flat" else 290, 2), 1),
           "HRB" if M["geometry"] == "flat" else "HBW"] for k in range(1, 6)]
    add(f"{dirs['lab']}/hardness_{lot}.csv", "distractor", lambda p: write_csv(p, ["reading", "value", "scale"], hb))
    add(f"equipment/frame_B_calibration_{days[0][:4]}.pdf", "distractor", lambda p: write_pdf(
        p, "Force verification certificate - frame B (250 kN)", [
            "Verified per ASTM E4, class 0.5 over 2.5-250 kN.", f"Next verification due {int(days[0][:4]) + 1}."]))
    prev_lot = f"L{int(lot[1:]) - rng.randint(3, 40)}"
    add(f"reports/archive/{prev_lot}_tensile_report.pdf", "distractor", lambda p: write_pdf(
        p, f"Tensile test report, lot {prev_lot}", [
            f"Material: {M['material']}. Specification: {old['name']}. Result: conforms.",
            "Cross-section from nominal dimensions; elongation from the extensometer (LP-TT-07 rev 3)."]))
    add(f"meetings/{days[1]}_lab_meeting.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"lot {lot} verification tests", people=[lead, *ops], date=days[1])))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], M: dict[str, Any], occupation: str, heat: str,
            writers: dict[str, Any], dirs: dict[str, str]) -> str:
    prof = profession(occupation)
    L, D, C, W = P["labels"], P["deliverables"], P["out_columns"], P["status_words"]
    ids = "specimen ids separated by semicolons, or none"
    memo_labels = [(L["tested"], "whole number"), (L["valid"], "whole number"), (L["void_ids"], ids),
                   (L["noelong_ids"], ids), (L["mean_yield"], "MPa, whole number"), (L["mean_uts"], "MPa, whole number"),
                   (L["mean_elong"], "per cent, 1 decimal"), (L["low_yield"], "MPa, whole number"),
                   (L["yield_min"], "MPa"), (L["elong_min"], "per cent"), (L["decision"], "yes or no"),
                   (L["premise"], "yes or no")]
    mtr = P["mtr"]
    return instructions(
        rng, prof=prof, requester=person(rng), role=rng.choice(prof.requesters), org=rng.choice(prof.orgs),
        subject=f"Tensile report, lot {P['lot']}",
        purpose=rng.choice((f"please reduce the tensile pulls on lot {P['lot']} to yield, tensile strength and "
                            "elongation, and tell me whether the lot meets the spec.",
                            f"I need the tensile test report for lot {P['lot']} ({M['material']}) against the material "
                            "specification.", f"can you turn the raw pulls of lot {P['lot']} into the lot test report?")),
        about=f"the frames' raw exports of lot {P['lot']}, the measurement sheet and the test log",
        belief=f"The mill certificate for heat {heat} shows {mtr['yield']:g} MPa yield and {mtr['uts']:g} MPa tensile; "
               "I expect our pulls simply confirm it.",
        table={"file": D["table"], "headers": [C[k] for k in ("specimen", "area", "modulus", "yield", "uts", "elong",
                                                              "status")],
               "unit": f"specimen pulled, retest included (area mm2, modulus GPa, strengths MPa, elongation %, status "
                       f"{W['valid']}, {W['void']} or {W['noelong']})"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"{D['memo']} (below) is the lot test report: after its opening lines, the results of "
                            "each specimen, the method, which tests are void or have no valid elongation and why, "
                            "and the acceptance statement.",),
        policy=f"LP-TT-07 in procedures/ and the material specification in {dirs['specs']}/", files=sorted(writers))


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck

    D, L, C, W = P["deliverables"], P["labels"], P["out_columns"], P["status_words"]
    memo, table = D["memo"], D["table"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def num(key: str, tolerance: float, fmt: str = ".0f", unit: str = "") -> tuple[str, Any]:
        return (f"{memo}: {L[key]} = {facts[key]:{fmt}}{unit}",
                FieldCheck(file=memo, label=L[key], number=float(facts[key]), tolerance=tolerance))

    def cell(s: dict[str, Any], col: str, value: Any, tolerance: float = 0.0, unit: str = "") -> tuple[str, Any]:
        shown = value if isinstance(value, str) else f"{value:g}{unit}"
        return (f"{table}: {s['specimen']} {C[col]} = {shown}",
                CellCheck(file=table, match={C["specimen"]: s["specimen"]}, column=C[col], value=value,
                          tolerance=tolerance))

    def ids(key: str) -> tuple[str, Any]:
        return f"{memo}: {L[key]}: {'; '.join(facts[key]) or 'none'}", fld_list(memo, L[key], facts[key])

    valid = [s for s in facts["specimens"] if not s["void"]]
    strengths = [c for s in valid for c in (cell(s, "modulus", s["modulus"], 2.0, " GPa"),
                                            cell(s, "yield", s["yield"], 1.0, " MPa"), cell(s, "uts", s["uts"], 1.0, " MPa"))]
    elong = [cell(s, "elong", s["elong"], 0.1, " %") for s in valid if s["elong"] is not None]
    noel = [cell(s, "status", W["noelong"]) for s in valid if s["elong"] is None]
    void = [cell(s, "status", W["void"]) for s in facts["specimens"] if s["void"]]
    out = [
        rubric("Reduces each valid pull to modulus, offset yield and tensile strength on the measured section", 10,
               strengths),
        rubric("Takes elongation after fracture from the gauge marks, none for a break outside them", 8, [
            *elong, *noel, ids("noelong_ids"), num("mean_elong", 0.1, ".1f", " %")]),
        rubric("Voids the test whose grips slipped and counts its retest", 8, [
            ids("void_ids"), *void, num("tested", 0.0, "d"), num("valid", 0.0, "d")]),
        rubric("Reports the lot means and the lowest yield", 8, [num("mean_yield", 1.0, unit=" MPa"),
                                                                 num("mean_uts", 1.0, unit=" MPa"),
                                                                 num("low_yield", 1.0, unit=" MPa")]),
        rubric("Applies the current specification revision with its note and decides the lot", 10, [
            num("yield_min", 0.0, "g", " MPa"), num("elong_min", 0.0, "g", " %"),
            (f"{memo}: {L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]),
                                                                        ["yes", "no"]))]),
        rubric("Checks the mill certificate against the lot means", 8, [
            (f"{memo}: {L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]),
                                                                      ["yes", "no"])), num("mean_yield", 1.0, unit=" MPa")]),
    ]
    if judgement:
        out.append(rubric("Writes a report the reliability engineer can sign", 6, [
            ("Tabulates each specimen's results with its validity", llm("content")),
            ("Explains the void test, the break outside the marks and the specification revision used", llm("explanation")),
            ("States the acceptance plainly", llm("writing"))]))
    return out


TENSILE_REPORT = Workflow(
    key="tensile_test_report", family="materials_testing",
    method="ASTM E8/E8M reduction: measured cross-section, load units per export, least-squares modulus over the "
           "stated stress window, 0.2 % offset yield, tensile strength, elongation after fracture from the gauge "
           "marks, void and outside-gauge rules, acceptance to the current specification revision and its note",
    professions=("mechanical_engineering_technicians",), solver="tensile", shortcuts=SHORTCUTS, draw=draw,
    recheck=recheck, rubrics=rubrics, data="generated test-frame exports, specimen log and documents (stated "
    "distributions)")
