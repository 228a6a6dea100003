# ---- jobenv workflow ground truth: a one-dimensional tolerance stack-up (worst case and RSS) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the stack export, the
# drawing note that overrides one row, the required minimum gap and the claimed top contributor; ``naive`` names
# the shortcuts a careless engineer takes (each proves that a planted item changes the graded answer).
# An unreadable export raises (KeyError, ValueError) and nothing is written.
import math
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def contributor(nominal, plus, minus, direction, factor):
    """One row as a mean-shifted symmetric contributor (signed mean, half-band tolerance). ``plus`` and
    ``minus`` are the signed deviations of the drawing (+0.10 / -0.05); ``factor`` is 0.5 for a diameter whose
    radius is in the stack."""
    mean = (nominal + (plus + minus) / 2) * factor
    return direction * mean, (plus - minus) / 2 * factor


def rows(folder, P, naive=()):
    """The stack's rows after the drawing note: dicts of ref, description, direction, nominal, plus, minus, factor."""
    out = []
    for _, r in read_frame(folder, P["files"]["stack"]).iterrows():
        row = {"ref": str(r["ref"]), "description": str(r["description"]), "direction": int(float(r["direction"])),
               "nominal": float(r["nominal_mm"]), "plus": float(r["plus_tol_mm"]), "minus": float(r["minus_tol_mm"]),
               "factor": 0.5 if str(r["feature"]).strip().lower() == "diameter" and "diameter" not in naive else 1.0}
        note = P["override"]
        if row["ref"] == note["ref"] and "superseded_note" not in naive:
            row.update(nominal=float(note["nominal"]), plus=float(note["plus"]), minus=float(note["minus"]))
        out.append(row)
    return out


def analyse(folder, P, naive=()):
    stack = rows(folder, P, naive)
    means, tols = [], []
    for r in stack:
        if "no_mean_shift" in naive:  # the nominal with the larger deviation as a symmetric band
            m, t = r["direction"] * r["nominal"] * r["factor"], max(abs(r["plus"]), abs(r["minus"])) * r["factor"]
        else:
            m, t = contributor(r["nominal"], r["plus"], r["minus"], r["direction"], r["factor"])
        means.append(m)
        tols.append(t)
        r["mean"], r["tol"] = m, t
    nominal_gap = sum(r["direction"] * r["nominal"] * r["factor"] for r in stack)
    mean_gap = sum(means)
    wc, rss = sum(tols), math.sqrt(sum(t * t for t in tols))
    squares = sum(t * t for t in tols)
    for r in stack:
        r["share"] = r["tol"] ** 2 / squares * 100
    top = max(stack, key=lambda r: r["share"])
    facts = {"rows": [{k: r[k] for k in ("ref", "description", "direction", "nominal", "plus", "minus", "factor")}
                      for r in stack],
             "nominal_gap": rnd(nominal_gap, 3), "mean_gap": rnd(mean_gap, 3), "wc_tol": rnd(wc, 3),
             "rss_tol": rnd(rss, 3), "wc_min": rnd(mean_gap - wc, 3), "rss_min": rnd(mean_gap - rss, 3),
             "top": top["ref"], "top_share": rnd(top["share"], 1),
             "shares": {r["ref"]: rnd(r["share"], 1) for r in stack}, "tols": {r["ref"]: rnd(r["tol"], 4) for r in stack}}
    facts["decision"] = bool(facts["rss_min"] >= float(P["min_gap"]))
    facts["premise"] = facts["top"] == P["claimed_top"]
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['nominal_gap']}: {facts['nominal_gap']:.3f}", f"{L['mean_gap']}: {facts['mean_gap']:.3f}",
            f"{L['wc_min']}: {facts['wc_min']:.3f}", f"{L['rss_min']}: {facts['rss_min']:.3f}",
            f"{L['top']}: {facts['top']}", f"{L['top_share']}: {facts['top_share']:.1f}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    from openpyxl import Workbook

    os.makedirs(output_dir, exist_ok=True)
    D, W = P["deliverables"], P["sheet_labels"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Stack"
    ws.append(["ref", "description", "direction", "nominal_mm", "plus_tol_mm", "minus_tol_mm", "factor", "mean_mm",
               "tol_mm", "contribution_pct"])
    end = len(facts["rows"]) + 1
    for i, r in enumerate(facts["rows"], 2):
        ws.append([r["ref"], r["description"], r["direction"], r["nominal"], r["plus"], r["minus"], r["factor"],
                   f"=C{i}*(D{i}+(E{i}+F{i})/2)*G{i}", f"=(E{i}-F{i})/2*G{i}",
                   f"=I{i}^2/SUMSQ($I$2:$I${end})*100"])
    s = wb.create_sheet("Summary")
    s.append(["Item", "Value"])
    for row in [(W["nominal_gap"], f"=SUMPRODUCT(Stack!C2:C{end},Stack!D2:D{end},Stack!G2:G{end})"),  # B2
                (W["mean_gap"], f"=SUM(Stack!H2:H{end})"),  # B3
                (W["wc_tol"], f"=SUM(Stack!I2:I{end})"),  # B4
                (W["rss_tol"], f"=SQRT(SUMSQ(Stack!I2:I{end}))"),  # B5
                (W["wc_min"], "=B3-B4"), (W["rss_min"], "=B3-B5"),  # B6, B7
                (W["min_gap"], float(P["min_gap"])),  # B8
                (W["decision"], '=IF(ROUND(B7,3)>=B8,"yes","no")')]:
        s.append(list(row))
    path = os.path.join(output_dir, D["workbook"])
    wb.save(path)
    _fixed_dates(path)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: each dimension converted to its mean and a symmetric tolerance (half the band), diameters as "
        "radii, signed by direction; worst case = sum of tolerances, RSS = square root of the sum of squares; "
        "contribution = t^2 / sum t^2. The drawing note of the current revision overrides the export's row."])
