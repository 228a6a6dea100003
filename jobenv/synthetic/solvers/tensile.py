# ---- jobenv workflow ground truth: a tensile test report for a material lot from the machine's raw exports
# (engineering technicians) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names each specimen's raw export,
# the measurement sheet and the test log, the specimen geometry (flat or round) and nominal dimensions, the
# procedure's elastic-fit stress window, the specification minimums (current revision with its footnote; the
# superseded one), the mill certificate's values and agreement band, and the deliverables. ``naive`` names the
# shortcuts a hurried technician takes:
#   units         every export's load read as kN (the frame that exports newtons missed)
#   nominal       the cross-section from the nominal dimensions, not the measured ones
#   window        the elastic slope fitted from the first point up to the window's top (the toe region included)
#   extensometer  elongation from the extensometer's last reading, not the gauge marks
#   slip          the specimen whose grips slipped kept as a valid test
#   outside       the elongation of a specimen broken outside the gauge marks kept
#   superseded    the superseded specification revision's minimums
#   footnote      the table's elongation minimum without the specification's footnote
import csv
import math
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

OFFSET = 0.002  # 0.2 % offset


def read_export(path):
    """(header fields, rows of floats or None, load factor to newtons) of one machine export: a block of
    "name,value" lines, a blank line, the column names (Time, Extension, Load, Crosshead) and a row of units."""
    with open(path, newline="", encoding="utf-8") as f:
        lines = list(csv.reader(f))
    start = next(i for i, r in enumerate(lines) if r and r[0].strip().lower() == "time")
    head = {r[0].strip().lower(): r[1].strip() for r in lines[:start] if len(r) >= 2}
    names = [c.strip().lower() for c in lines[start]]
    units = [c.strip().strip("()").lower() for c in lines[start + 1]]
    factor = {"kn": 1000.0, "n": 1.0}[units[names.index("load")]]
    rows = []
    for r in lines[start + 2:]:
        if not r or not r[0].strip():
            continue
        rows.append({n: (float(v) if v.strip() else None) for n, v in zip(names, r)})
    return head, rows, factor


def fit_line(xs, ys):
    """Least-squares slope and intercept of ys on xs."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    return slope, my - slope * mx


def offset_yield(points, lo, hi, naive=()):
    """(modulus MPa, 0.2 % offset yield MPa) from (strain, stress) points of the initial loading with the
    extensometer on: the line fitted over lo <= stress <= hi up to the first point above hi; the yield is where the
    curve first falls below the line shifted by 0.002 strain, interpolated linearly between the two points."""
    top = next((i for i, (_, s) in enumerate(points) if s > hi), len(points))
    first = 0 if "window" in naive else None
    window = [(e, s) for e, s in points[:top] if (first == 0 or s >= lo) and s <= hi]
    if len(window) < 3 and naive:  # a shortcut (a load unit misread) left no elastic window: no figure to report
        return math.nan, math.nan
    E, c = fit_line([e for e, _ in window], [s for _, s in window])
    prev = None
    for e, s in points[top:]:
        d = s - (E * (e - OFFSET) + c)
        if d < 0 and prev is not None:
            (s0, d0) = prev
            return E, s0 + (s - s0) * d0 / (d0 - d)
        prev = (s, d)
    if naive:
        return E, math.nan
    raise ValueError("the curve never crosses the offset line")


def area(meas, P, naive=()):
    if "nominal" in naive:
        nom = P["nominal"]
        return math.pi * nom["d"] ** 2 / 4 if P["geometry"] == "round" else nom["w"] * nom["t"]
    mean = lambda k: sum(float(meas[f"{k}{i}"]) for i in (1, 2, 3)) / 3  # noqa: E731
    return math.pi * mean("d") ** 2 / 4 if P["geometry"] == "round" else mean("w") * mean("t")


def analyse(folder, P, naive=()):
    F = P["files"]
    meas = {str(r["specimen"]).strip(): r for r in read_frame(folder, F["measurements"]).to_dict("records")}
    log = {str(r["specimen"]).strip(): r for r in read_frame(folder, F["log"]).to_dict("records")}
    spec = P["old_spec"] if "superseded" in naive else P["spec"]
    el_min = spec["elong_min"] if "footnote" in naive or spec.get("elong_note") is None else spec["elong_note"]
    lo, hi = P["window"]
    out = []
    for sid, rel in P["files"]["exports"].items():
        head, rows, factor = read_export(os.path.join(folder, rel))
        if "units" in naive:
            factor = 1000.0
        A = area(meas[sid], P, naive)
        gl = float(head["extensometer gauge length (mm)"])
        stress = [r["load"] * factor / A for r in rows]
        points = [(r["extension"] / gl, s) for r, s in zip(rows, stress) if r["extension"] is not None]
        E, ys = offset_yield(points, lo, hi, naive)
        L = log[sid]
        remark = str(L["remarks"]).lower()
        void = "slip" in remark and "slip" not in naive
        l0, lf, pos = float(meas[sid]["L0"]), str(L["Lf_mm"]).strip(), str(L["fracture_from_mark_A_mm"]).strip()
        inside = pos != "" and 0 <= float(pos) <= l0
        if "extensometer" in naive:
            elong = max(e for e, _ in points) * 100
        else:
            elong = (float(lf) - l0) / l0 * 100 if lf else None
        elong_ok = elong is not None and not void and (inside or "outside" in naive)
        out.append({"specimen": sid, "area": rnd(A, 2), "modulus": rnd(E / 1000, 1), "yield": rnd(ys, 0),
                    "uts": rnd(max(stress), 0), "elong": rnd(elong, 1) if elong_ok else None,
                    "status": "void" if void else "valid" if elong_ok else "noelong", "void": void})
    valid = [s for s in out if not s["void"]]
    elong = [s["elong"] for s in valid if s["elong"] is not None]
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    ok = all(s["yield"] >= spec["yield_min"] and s["uts"] >= spec["uts_min"] for s in valid)
    ok = ok and all(e >= el_min for e in elong)
    facts = {"specimens": out, "tested": len(out), "valid": len(valid),
             "void_ids": sorted(s["specimen"] for s in out if s["void"]),
             "noelong_ids": sorted(s["specimen"] for s in valid if s["elong"] is None),
             "mean_yield": rnd(mean([s["yield"] for s in valid]), 0), "mean_uts": rnd(mean([s["uts"] for s in valid]), 0),
             "mean_elong": rnd(mean(elong), 1), "low_yield": min(s["yield"] for s in valid),
             "yield_min": spec["yield_min"], "elong_min": el_min, "decision": bool(ok)}
    band = P["mtr"]["band_pct"] / 100
    facts["premise"] = bool(abs(facts["mean_yield"] - P["mtr"]["yield"]) <= band * P["mtr"]["yield"]
                            and abs(facts["mean_uts"] - P["mtr"]["uts"]) <= band * P["mtr"]["uts"])
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    none = lambda xs: "; ".join(xs) if xs else "none"  # noqa: E731
    return [f"{L['tested']}: {facts['tested']}", f"{L['valid']}: {facts['valid']}",
            f"{L['void_ids']}: {none(facts['void_ids'])}", f"{L['noelong_ids']}: {none(facts['noelong_ids'])}",
            f"{L['mean_yield']}: {facts['mean_yield']:.0f}", f"{L['mean_uts']}: {facts['mean_uts']:.0f}",
            f"{L['mean_elong']}: {facts['mean_elong']:.1f}", f"{L['low_yield']}: {facts['low_yield']:.0f}",
            f"{L['yield_min']}: {facts['yield_min']:g}", f"{L['elong_min']}: {facts['elong_min']:g}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C, W = P["deliverables"], P["out_columns"], P["status_words"]
    rows = [[s["specimen"], f"{s['area']:.2f}", f"{s['modulus']:.1f}", f"{s['yield']:.0f}", f"{s['uts']:.0f}",
             "" if s["elong"] is None else f"{s['elong']:.1f}", W[s["status"]]] for s in facts["specimens"]]
    write_table(os.path.join(output_dir, D["table"]), [C[k] for k in ("specimen", "area", "modulus", "yield", "uts",
                                                                        "elong", "status")], rows)
    table = [f"- {s['specimen']}: E {s['modulus']:.1f} GPa, Rp0.2 {s['yield']:.0f} MPa, Rm {s['uts']:.0f} MPa, "
             f"A {'-' if s['elong'] is None else format(s['elong'], '.1f') + ' %'} ({W[s['status']]})"
             for s in facts["specimens"]]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"Tensile test report, lot {P['lot']} ({P['material']}) against {P['spec']['name']}", "",
        "Results per specimen:", *table, "",
        "Method: cross-section from the measured dimensions; stress from each export's load in its own unit; elastic "
        f"slope by least squares over {P['window'][0]:g}-{P['window'][1]:g} MPa with intercept; 0.2 % offset yield "
        "interpolated where the curve crosses the offset line; tensile strength from the maximum force; elongation "
        "after fracture from the gauge marks. The specimen whose grips slipped is void and replaced by its retest; "
        "a break outside the gauge marks leaves no valid elongation. Minimums are those of the current specification "
        "revision, with its note on elongation for this product."])
