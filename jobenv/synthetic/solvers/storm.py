# ---- jobenv workflow ground truth: storm sewer design check by the rational method and Manning full flow ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the exports, the design
# manual's rules (runoff coefficients, minimum inlet time, design storm per line class, Manning's n, standard sizes,
# unit factors) and the deliverables; ``naive`` names the shortcuts a hurried designer takes:
#   old_idf    intensities read from the archived IDF table instead of the revised one
#   units      every land-use area taken as acres, whatever its unit column says
#   min_tc     computed inlet times used as they are, below the manual's minimum
#   one_storm  the laterals' 10-year storm used for the trunk too
#   elsewhere  the subcatchment regraded to drain outside the system kept in the sums
# A missing file, column or table entry raises (OSError, KeyError, ValueError) and nothing is written.
import math
import os
import re

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass

MANNING_K = 1.486  # US customary units


def full_flow(d_in, slope, n):
    """Manning full-flow capacity (cfs) and velocity (ft/s) of a circular pipe ``d_in`` inches across."""
    d = d_in / 12
    area = math.pi * d * d / 4
    q = MANNING_K / n * area * (d / 4) ** (2 / 3) * math.sqrt(slope)
    return q, q / area


def required_diameter(q, slope, n):
    """The diameter (inches) whose full-flow capacity is exactly ``q``: Manning solved for D."""
    return 12 * (q * n * 4 ** (5 / 3) / (MANNING_K * math.pi * math.sqrt(slope))) ** 0.375


def pick_size(q, slope, n, sizes):
    """The smallest standard diameter that carries ``q`` flowing full (the largest when none does: a draw keeps
    every design flow below it, so only a shortcut's absurd flow gets there)."""
    need = required_diameter(q, slope, n)
    return next((s for s in sorted(sizes) if s >= need), max(sizes))


def intensity(durations, column, tc):
    """Rainfall intensity at ``tc`` minutes, linear between the table's two bracketing durations."""
    if not durations[0] <= tc < durations[-1]:
        raise ValueError(f"Tc {tc:.2f} min is outside the IDF table")
    k = max(j for j in range(len(durations) - 1) if durations[j] <= tc)
    d0, d1 = durations[k], durations[k + 1]
    return column[k] + (column[k + 1] - column[k]) * (tc - d0) / (d1 - d0)


def read_idf(folder, rel, sheet):
    frame = read_frame(folder, rel, sheet)
    durations = [float(x) for x in frame[frame.columns[0]]]
    table = {int(re.findall(r"\d+", str(c))[0]): [float(v) for v in frame[c]] for c in frame.columns[1:]}
    return durations, table


def analyse(folder, P, naive=()):
    """The reach table (upstream reaches first) and the memo's facts from the task folder. A missing file, column,
    land use or unit raises (OSError, KeyError, ValueError); a loop in the network or a Tc off the IDF table raises
    ValueError."""
    F = P["files"]
    durations, idf = read_idf(folder, F["idf_old"] if "old_idf" in naive else F["idf"], P["idf_sheet"])
    factors = {u.lower(): (1.0 if "units" in naive else f) for u, f in P["to_acres"].items()}
    coeff = {k.lower(): v for k, v in P["c_values"].items()}
    excluded = set() if "elsewhere" in naive else set(P["excluded"])
    min_tc = 0.0 if "min_tc" in naive else P["min_tc"]
    pipes = {str(r["pipe_id"]): r for _, r in read_frame(folder, F["pipes"]).iterrows()}
    by_from = {str(r["from_structure"]): pid for pid, r in pipes.items()}
    subs = {}
    for _, r in read_frame(folder, F["subcatchments"]).iterrows():
        if str(r["subcatchment_id"]) not in excluded:
            subs[str(r["subcatchment_id"])] = (by_from[str(r["inlet_structure"])], float(r["inlet_time_min"]))
    subareas = []
    for _, r in read_frame(folder, F["landuse"]).iterrows():
        sid = str(r["subcatchment_id"])
        if sid in subs:
            unit = str(r["unit"]).strip().lower()
            subareas.append({"sub": sid, "reach": subs[sid][0], "land_use": str(r["land_use"]),
                             "area": float(r["area"]), "unit": unit, "factor": factors[unit],
                             "c": coeff[str(r["land_use"]).strip().lower()]})
    done: dict = {}
    rows = []
    while len(done) < len(pipes):  # upstream reaches first
        ready = [p for p in sorted(pipes) if p not in done and all(
            u in done for u, r in pipes.items() if str(r["to_structure"]) == str(pipes[p]["from_structure"]))]
        if not ready:
            raise ValueError("the pipe network has a loop")
        for pid in ready:
            r = pipes[pid]
            ups = [done[u] for u, x in pipes.items() if str(x["to_structure"]) == str(r["from_structure"])]
            mine = [a for a in subareas if a["reach"] == pid]
            area = sum(a["area"] * a["factor"] for a in mine)
            ca_own = sum(a["area"] * a["factor"] * a["c"] for a in mine)
            inlets = [t for s, (reach, t) in subs.items() if reach == pid]
            times = ([max(max(inlets), min_tc)] if inlets else []) + [u["tc"] + u["travel"] for u in ups]
            trunk = str(r["system"]).strip().lower() == "trunk"
            rp = P["rp_trunk"] if trunk and "one_storm" not in naive else P["rp_lateral"]
            slope = (float(r["up_invert_ft"]) - float(r["dn_invert_ft"])) / float(r["length_ft"])
            row = {"reach": pid, "system": "trunk" if trunk else "lateral", "from": str(r["from_structure"]),
                   "to": str(r["to_structure"]), "length": float(r["length_ft"]), "up_inv": float(r["up_invert_ft"]),
                   "dn_inv": float(r["dn_invert_ft"]), "existing": int(float(r["diameter_in"])),
                   "raw_inlet": max(inlets) if inlets else None, "ups": [u["reach"] for u in ups], "rp": rp,
                   "area": area, "ca_own": ca_own, "ca": ca_own + sum(u["ca"] for u in ups), "tc": max(times)}
            row["i"] = intensity(durations, idf[rp], row["tc"])
            row["q"] = row["i"] * row["ca"]
            row["d"] = pick_size(row["q"], slope, P["n"], P["sizes"])
            row["q_full"], v = full_flow(row["d"], slope, P["n"])
            row["travel"] = row["length"] / v / 60
            row["undersized"] = row["existing"] < row["d"]
            done[pid] = row
            rows.append(row)
    out = next(r for r in rows if r["to"] not in by_from)
    under = sorted(r["reach"] for r in rows if r["undersized"])
    graded = [{"reach": r["reach"], "system": r["system"], "ca": rnd(r["ca"], 2), "tc": rnd(r["tc"], 2),
               "i": rnd(r["i"], 2), "q": rnd(r["q"], 2), "d": r["d"], "undersized": r["undersized"]} for r in rows]
    return {"rows": graded, "detail": rows, "subareas": subareas, "idf": {"durations": durations, "table": idf},
            "min_tc_used": min_tc, "rp_trunk_used": P["rp_lateral"] if "one_storm" in naive else P["rp_trunk"],
            "outfall_reach": out["reach"], "ca_total": rnd(out["ca"], 2), "outfall_tc": rnd(out["tc"], 2),
            "outfall_q": rnd(out["q"], 2), "outfall_d": out["d"], "under": under, "n_under": len(under),
            "decision": not any(r["undersized"] for r in rows if r["system"] == "trunk"),
            "premise": bool(out["q"] < P["claimed_q"])}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['ca_total']}: {facts['ca_total']:.2f}", f"{L['outfall_tc']}: {facts['outfall_tc']:.2f}",
            f"{L['outfall_q']}: {facts['outfall_q']:.2f}", f"{L['outfall_d']}: {facts['outfall_d']}",
            f"{L['n_under']}: {facts['n_under']}", f"{L['under']}: {'; '.join(facts['under']) or 'none'}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def _workbook(path, P, facts):
    """Inputs, Sizes, IDF, Subareas and the reach table, every derived cell a live formula."""
    from openpyxl import Workbook

    C = P["columns"]
    wb = Workbook()
    inp = wb.active
    inp.title = "Inputs"
    for row in (("Parameter", "Value"), ("Manning n", P["n"]), ("Minimum inlet time (min)", facts["min_tc_used"]),
                ("Lateral design storm (yr)", P["rp_lateral"]), ("Trunk design storm (yr)", facts["rp_trunk_used"]),
                ("Manning constant (US)", MANNING_K)):
        inp.append(list(row))
    sz = wb.create_sheet("Sizes")
    sz.append(["Diameter (in)"])
    for s in sorted(P["sizes"]):
        sz.append([s])
    ns = len(P["sizes"]) + 1
    idf = wb.create_sheet("IDF")
    rps = sorted(facts["idf"]["table"])
    idf.append(["Duration (min)", *rps])
    for k, d in enumerate(facts["idf"]["durations"]):
        idf.append([d, *[facts["idf"]["table"][rp][k] for rp in rps]])
    nd, last = len(facts["idf"]["durations"]) + 1, chr(ord("A") + len(rps))
    sa = wb.create_sheet("Subareas")
    sa.append(["Subcatchment", "Reach", "Land use", "Area", "Unit", "To acres", "Acres", "C", "C x A"])
    for k, a in enumerate(facts["subareas"], 2):
        sa.append([a["sub"], a["reach"], a["land_use"], a["area"], a["unit"], a["factor"], f"=D{k}*F{k}", a["c"],
                   f"=G{k}*H{k}"])
    na = len(facts["subareas"]) + 1
    ws = wb.create_sheet("Reaches")
    ws.append(["Reach", "System", "From", "To", "Length (ft)", "Up invert (ft)", "Down invert (ft)", "Slope (ft/ft)",
               "Existing (in)", "Area (ac)", "Own C x A (ac)", "Composite C", C["ca"], "Inlet time (min)", C["tc"],
               "Design storm (yr)", "IDF row", C["i"], C["q"], "Required D (in)", C["d"], "Full-flow Q (cfs)",
               "Full-flow V (ft/s)", "Travel time (min)", C["flag"]])
    at = {r["reach"]: k for k, r in enumerate(facts["detail"], 2)}
    tab, dur = f"IDF!$B$2:${last}${nd}", f"IDF!$A$2:$A${nd}"
    for r in facts["detail"]:
        k = at[r["reach"]]
        ups = [at[u] for u in r["ups"]]
        tc = ",".join(([f"MAX(N{k},Inputs!$B$3)"] if r["raw_inlet"] is not None else []) + [f"O{u}+X{u}" for u in ups])
        col = f"MATCH(P{k},IDF!$B$1:${last}$1,0)"
        lo, hi = f"INDEX({tab},Q{k},{col})", f"INDEX({tab},Q{k}+1,{col})"
        ws.append([r["reach"], r["system"], r["from"], r["to"], r["length"], r["up_inv"], r["dn_inv"],
                   f"=(F{k}-G{k})/E{k}", r["existing"], f"=SUMIF(Subareas!$B$2:$B${na},A{k},Subareas!$G$2:$G${na})",
                   f"=SUMIF(Subareas!$B$2:$B${na},A{k},Subareas!$I$2:$I${na})", f"=IF(J{k}>0,K{k}/J{k},0)",
                   "=" + "+".join([f"K{k}"] + [f"M{u}" for u in ups]), r["raw_inlet"], f"=MAX({tc})",
                   f'=IF(B{k}="trunk",Inputs!$B$5,Inputs!$B$4)', f"=MATCH(O{k},{dur},1)",
                   f"={lo}+({hi}-{lo})*(O{k}-INDEX({dur},Q{k}))/(INDEX({dur},Q{k}+1)-INDEX({dur},Q{k}))",
                   f"=R{k}*M{k}", f"=12*(S{k}*Inputs!$B$2*4^(5/3)/(Inputs!$B$6*PI()*SQRT(H{k})))^(3/8)",
                   f'=INDEX(Sizes!$A$2:$A${ns},COUNTIF(Sizes!$A$2:$A${ns},"<"&T{k})+1)',
                   f"=Inputs!$B$6/Inputs!$B$2*PI()*(U{k}/12)^2/4*(U{k}/48)^(2/3)*SQRT(H{k})",
                   f"=V{k}/(PI()*(U{k}/12)^2/4)", f"=E{k}/W{k}/60", f'=IF(I{k}<U{k},"yes","no")'])
    wb.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: rational method Q = C i A with area-weighted composite C, the manual's minimum inlet time, Tc "
        "accumulated along the longest path with full-flow travel times, intensity interpolated in the revised IDF "
        "table at the design storm for the line class, Manning full flow for the smallest standard diameter; the "
        "regraded subcatchment is excluded and every area is converted to acres."])
