"""A storm sewer design check for a subdivision by the rational method and Manning full flow (civil engineers).

The network is generated: a trunk of 4-6 reaches to an end wall and 2-3 single-pipe laterals from catch basins
into trunk manholes, each reach 150-450 ft at 0.4-2.0 % slope, each upstream structure fed by one drainage area of
2-4 land uses (0.2-2.5 acres each; runoff coefficients from the design manual's table). One drainage area's
land uses come in square feet (a commercial site plan) and one in hectares (a consultant's export); a further
drainage area, regraded to drain to a roadside ditch, is still listed against a catch basin. Computed inlet times
are 5-9 minutes on the laterals (below the manual's 10-minute minimum) and 8-16 on the trunk. The revised IDF
table (i = a / (t + b)^c with a 10-year a of 50-62, b 8-12, c 0.72-0.80, scaled by return period) supersedes an
archived one 7-15 % lower. Laterals are designed for the 10-year storm and the trunk for the 25-year storm.
Existing pipes are drawn so that at least one lateral is a size short and the trunk is adequate or not, as
targeted; the consultant's outfall figure lands 3-10 % above or below the design flow.
Failure behaviour: a draw whose flows sit within 2 % of a pipe size's capacity, or off target, raises
DegenerateTask; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from functools import cache
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_list, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files

__all__ = ["STORM_SEWER_DESIGN"]

C_VALUES = {"Roof": 0.95, "Pavement": 0.90, "Gravel": 0.50, "Lawn (clay soil)": 0.25, "Lawn (sandy soil)": 0.15,
            "Woods": 0.12}
SIZES = [15, 18, 21, 24, 27, 30, 33, 36, 42, 48, 54, 60, 66, 72]
DURATIONS = [5, 10, 15, 20, 30, 45, 60, 90, 120, 180]
RETURN = {2: 0.68, 5: 0.85, 10: 1.0, 25: 1.18, 50: 1.33, 100: 1.48}
TO_ACRES = {"ac": 1.0, "ha": 2.4711, "sf": 1 / 43560}
_LABELS = {
    "ca_total": ("Sum of C x A at the outfall (ac)", "Contributing C x A, outfall reach (acres)", "Total weighted CA (ac)"),
    "outfall_tc": ("Tc at the outfall reach (min)", "Time of concentration at the outfall (min)", "Outfall reach Tc (min)"),
    "outfall_q": ("Design flow at the outfall (cfs)", "Outfall peak flow Q (cfs)", "Peak design discharge at the outfall (cfs)"),
    "outfall_d": ("Required diameter, outfall reach (in)", "Outfall pipe size needed (in)", "Outfall standard size (in)"),
    "n_under": ("Number of undersized reaches", "Reaches short of capacity", "Existing pipes too small (count)"),
    "under": ("Undersized reaches", "Reaches to upsize", "Pipes failing the capacity check"),
    "decision": ("Existing trunk can stay", "Trunk line adequate as built", "No trunk replacement needed"),
    "premise": ("Outfall flow under the consultant's {x} cfs", "Consultant's {x} cfs figure holds", "Outfall peak below {x} cfs"),
}
_COLUMNS = {"ca": ("Sum C x A (ac)", "Cumulative CA (ac)", "Total CA (acres)"),
            "tc": ("Tc (min)", "Time of concentration (min)", "Tc at upper end (min)"),
            "i": ("i (in/hr)", "Intensity (in/hr)", "Rainfall intensity (in/hr)"),
            "q": ("Q (cfs)", "Design flow (cfs)", "Peak flow Q (cfs)"),
            "d": ("Design D (in)", "Selected diameter (in)", "Standard size (in)"),
            "flag": ("Existing undersized", "Upsize existing", "Existing short of capacity")}
_DIRS = {"gis": ("gis", "gis_exports", "asset_data"), "std": ("standards", "design_criteria", "manuals"),
         "mail": ("correspondence", "email", "project_mail")}


# ---- the independent computation: csv and openpyxl rows, recursion up the network ---------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact, recomputed from the task folder without the solver's code."""
    import numpy as np

    folder, F = Path(folder), P["files"]
    pipes = {r["pipe_id"]: r for r in read_rows(folder / F["pipes"])}
    idf = read_rows(folder / F["idf"], P["idf_sheet"])
    first = list(idf[0])[0]
    durations = [float(r[first]) for r in idf]
    curve = {int(h.split("-")[0].strip()): [float(r[h]) for r in idf] for h in idf[0] if h != first}
    inlet: dict[str, list[float]] = {}
    reach_of = {}
    for r in read_rows(folder / F["subcatchments"]):
        if r["subcatchment_id"] not in P["excluded"]:
            pid = next(p for p, x in pipes.items() if x["from_structure"] == r["inlet_structure"])
            reach_of[r["subcatchment_id"]] = pid
            inlet.setdefault(pid, []).append(float(r["inlet_time_min"]))
    own: dict[str, float] = {}
    for r in read_rows(folder / F["landuse"]):
        if r["subcatchment_id"] in reach_of:
            pid = reach_of[r["subcatchment_id"]]
            acres = float(r["area"]) * P["to_acres"][r["unit"].strip().lower()]
            own[pid] = own.get(pid, 0.0) + acres * P["c_values"][r["land_use"]]

    def capacity(d_in: float, slope: float) -> float:
        radius_ft = d_in / 24
        return 1.486 / P["n"] * math.pi * radius_ft ** 2 * (radius_ft / 2) ** (2 / 3) * slope ** 0.5

    @cache
    def reach(pid: str) -> dict[str, Any]:
        x = pipes[pid]
        ups = [reach(u) for u, y in pipes.items() if y["to_structure"] == x["from_structure"]]
        slope = (float(x["up_invert_ft"]) - float(x["dn_invert_ft"])) / float(x["length_ft"])
        tc = max(([max(inlet[pid] + [P["min_tc"]])] if pid in inlet else []) + [u["tc"] + u["tt"] for u in ups])
        ca = own.get(pid, 0.0) + sum(u["ca"] for u in ups)
        rp = P["rp_trunk"] if x["system"] == "trunk" else P["rp_lateral"]
        i = float(np.interp(tc, durations, curve[rp]))
        d = next(s for s in sorted(P["sizes"]) if capacity(s, slope) >= i * ca)
        tt = float(x["length_ft"]) / (capacity(d, slope) / (math.pi * (d / 24) ** 2)) / 60
        return {"reach": pid, "system": x["system"], "ca": ca, "tc": tc, "i": i, "q": i * ca, "d": d, "tt": tt,
                "undersized": float(x["diameter_in"]) < d}

    downstream = {x["from_structure"] for x in pipes.values()}
    out = next(reach(p) for p, x in pipes.items() if x["to_structure"] not in downstream)
    rows = sorted((reach(p) for p in pipes), key=lambda r: r["reach"])
    under = sorted(r["reach"] for r in rows if r["undersized"])
    return {"rows": [{k: rnd(r[k], 2) if k in ("ca", "tc", "i", "q") else r[k]
                      for k in ("reach", "system", "ca", "tc", "i", "q", "d", "undersized")} for r in rows],
            "outfall_reach": out["reach"], "ca_total": rnd(out["ca"], 2), "outfall_tc": rnd(out["tc"], 2),
            "outfall_q": rnd(out["q"], 2), "outfall_d": out["d"], "under": under, "n_under": len(under),
            "decision": not any(r["undersized"] for r in rows if r["system"] == "trunk"),
            "premise": out["q"] < P["claimed_q"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _network(rng: random.Random) -> dict[str, Any]:
    """Pipes (trunk then laterals), drainage areas with their land uses, and the planted areas' ids."""
    m, base, first = rng.randint(4, 6), rng.randint(10, 60), rng.randint(100, 600)
    mh = [f"MH-{base + k}" for k in range(m)] + [rng.choice(("EW-1", "HW-2", "OF-1"))]
    pipes = [{"id": f"SD-{first + 2 * k:04d}", "from": mh[k], "to": mh[k + 1], "system": "trunk",
              "length": rng.randint(150, 450)} for k in range(m)]
    joins = rng.sample(mh[1:m], rng.randint(2, min(3, m - 1)))
    for j, at in enumerate(joins):
        pipes.append({"id": f"SD-{first + 60 + 3 * j:04d}", "from": f"CB-{base + 40 + j}", "to": at,
                      "system": "lateral", "length": rng.randint(150, 400)})
    labels, subs, land = rng.sample(range(1, 30), len(pipes) + 1), [], []
    for k, p in enumerate(pipes):
        p["slope"] = round(rng.uniform(0.004, 0.02), 4)
        t = rng.uniform(5, 9) if p["system"] == "lateral" else rng.uniform(8, 16) if k == 0 else rng.uniform(5, 12)
        subs.append({"id": f"DA-{labels[k]:02d}", "at": p["from"], "time": round(t, 1), "pipe": p["id"]})
    trunk_subs, lat_subs = subs[:m], subs[m:]
    sf_sub, ha_sub = rng.choice(trunk_subs), rng.choice(lat_subs)
    away_at = rng.choice([s for s in lat_subs if s is not ha_sub])
    away = {"id": f"DA-{labels[-1]:02d}", "at": away_at["at"], "time": round(rng.uniform(12, 20), 1), "pipe": away_at["pipe"]}
    subs.append(away)
    for s in subs:
        for use in rng.sample(sorted(C_VALUES), rng.randint(2, 4)):
            acres, unit = round(rng.uniform(0.2, 2.5) * (1.4 if s is away else 1.0), 2), {id(sf_sub): "sf", id(ha_sub): "ha"}.get(id(s), "ac")
            land.append([s["id"], use, round(acres * 43560) if unit == "sf" else round(acres / TO_ACRES[unit], 3), unit])
    return {"pipes": pipes, "subs": subs, "land": land, "sf": sf_sub, "ha": ha_sub, "away": away,
            "mintc": next(s for s in lat_subs if s is not ha_sub and s["pipe"] != away["pipe"]) if len(lat_subs) > 2
            else ha_sub, "top": rng.uniform(95, 130)}


def _pipe_rows(net: dict[str, Any]) -> list[list[Any]]:
    """The asset inventory rows: inverts chained down the trunk (0.10 ft drop in each manhole), laterals 0.5 ft
    above the trunk invert they join."""
    rows, up = [], round(net["top"], 2)
    inv: dict[str, float] = {}
    for p in (p for p in net["pipes"] if p["system"] == "trunk"):
        dn = round(up - p["slope"] * p["length"], 2)
        inv[p["from"]] = up
        rows.append([p["id"], p["from"], p["to"], "trunk", p["length"], f"{up:.2f}", f"{dn:.2f}", p.get("existing", 24), "RCP"])
        up = round(dn - 0.10, 2)
    for p in (p for p in net["pipes"] if p["system"] == "lateral"):
        dn = round(inv[p["to"]] + 0.5, 2)
        rows.append([p["id"], p["from"], p["to"], "lateral", p["length"], f"{dn + p['slope'] * p['length']:.2f}",
                     f"{dn:.2f}", p.get("existing", 15), "RCP"])
    return sorted(rows, key=lambda r: r[0])


def _data(P: dict[str, Any], net: dict[str, Any], idf: dict[int, list[float]], old: dict[int, list[float]]) -> dict[str, Any]:
    F = P["files"]

    def table(t: dict[int, list[float]]) -> list[list[Any]]:
        return [[d, *[t[rp][k] for rp in sorted(t)]] for k, d in enumerate(DURATIONS)]

    head = ["Duration (min)", *[f"{rp}-yr" for rp in sorted(idf)]]
    return {
        F["pipes"]: lambda p: write_csv(p, ["pipe_id", "from_structure", "to_structure", "system", "length_ft",
                                            "up_invert_ft", "dn_invert_ft", "diameter_in", "material"], _pipe_rows(net)),
        F["subcatchments"]: lambda p: write_xlsx(p, [("Subcatchments", ["subcatchment_id", "inlet_structure",
                                                                         "inlet_time_min", "description"],
                                                      [[s["id"], s["at"], s["time"], "residential lots and street"]
                                                       for s in sorted(net["subs"], key=lambda s: s["id"])])]),
        F["landuse"]: lambda p: write_csv(p, ["subcatchment_id", "land_use", "area", "unit"],
                                          sorted(net["land"], key=lambda r: (r[0], r[1]))),
        F["idf"]: lambda p: write_xlsx(p, [(P["idf_sheet"], head, table(idf))]),
        F["idf_old"]: lambda p: write_xlsx(p, [(P["idf_sheet"], head, table(old))]),
    }


def _robust(row: dict[str, Any], P: dict[str, Any]) -> bool:
    """The design flow is more than 2 % from the capacity of its size and of the size below (so a designer's
    rounding cannot change the pipe picked)."""
    from ..solvers.storm import full_flow

    slope = (row["up_inv"] - row["dn_inv"]) / row["length"]
    k = P["sizes"].index(row["d"])
    below = full_flow(P["sizes"][k - 1], slope, P["n"])[0] if k else 0.0
    return below * 1.02 < row["q"] < row["q_full"] * 0.98


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    """One design check on ``targets``; raises DegenerateTask when 40 re-slopings leave a flow on a size's capacity,
    an answer misses its target or fewer than four planted items change a graded answer."""
    import tempfile

    from ..solvers.storm import analyse

    net = _network(rng)
    a10, b, c = rng.uniform(50, 62), rng.uniform(8, 12), rng.uniform(0.72, 0.80)
    idf = {rp: [round(a10 * f / (t + b) ** c, 2) for t in DURATIONS] for rp, f in RETURN.items()}
    drop = rng.uniform(0.07, 0.15)
    old = {rp: [round(v * (1 - drop), 2) for v in col] for rp, col in idf.items()}
    dirs = pick_labels(rng, _DIRS)
    project = rng.choice(("Willow Run", "Cedar Hollow", "Briar Glen", "Fox Meadow", "Stonegate", "Millbrook"))
    slug = project.lower().replace(" ", "_")
    P: dict[str, Any] = {
        "files": {"pipes": f"{dirs['gis']}/{slug}_storm_pipes.csv", "subcatchments": f"{dirs['gis']}/drainage_areas.xlsx",
                  "landuse": f"{dirs['gis']}/drainage_area_landuse.csv",
                  "idf": f"{dirs['std']}/idf/idf_table_revised_atlas14.xlsx",
                  "idf_old": f"{dirs['std']}/archive/idf_table_1998_tp40.xlsx"},
        "idf_sheet": "IDF", "c_values": C_VALUES, "to_acres": TO_ACRES, "n": 0.013, "min_tc": 10.0, "rp_lateral": 10,
        "rp_trunk": 25, "sizes": SIZES, "excluded": [net["away"]["id"]], "claimed_q": 1e9, "dirs": dirs,
        "columns": pick_labels(rng, _COLUMNS), "labels": {},
        "deliverables": {"workbook": rng.choice((f"{slug}_storm_design.xlsx", "storm_sewer_design.xlsx",
                                                 "rational_method_check.xlsx")),
                         "memo": rng.choice(("storm_design_memo.docx", f"{slug}_storm_memo.md", "memo_to_pe.docx"))}}
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        def run(naive: tuple[str, ...] = ()) -> Facts:
            write_files(Path(tmp), _data(P, net, idf, old))
            return analyse(tmp, P, naive)

        for _ in range(40):  # re-slope the first reach (upstream first) whose flow sits on a size's capacity
            truth = run()
            bad = next((r for r in truth["detail"] if not _robust(r, P)), None)
            if bad is None:
                break
            next(p for p in net["pipes"] if p["id"] == bad["reach"])["slope"] = round(rng.uniform(0.004, 0.02), 4)
        else:
            raise DegenerateTask("a design flow sits on a pipe size's capacity")
        exist = [12, *SIZES]
        need = {r["reach"]: r["d"] for r in truth["detail"]}
        laterals = [p for p in net["pipes"] if p["system"] == "lateral"]
        trunk = [p for p in net["pipes"] if p["system"] == "trunk"]
        short = {rng.choice(laterals)["id"]}
        if not targets["decision"]:
            short |= {p["id"] for p in rng.sample(trunk, rng.randint(1, 2))}
        for p in net["pipes"]:
            k = exist.index(need[p["id"]])
            p["existing"] = exist[k - 1] if p["id"] in short else exist[min(k + rng.randint(0, 1), len(exist) - 1)]
        truth = run()
        q = truth["outfall_q"]
        P["claimed_q"] = (nice_between(q * 1.03, q * 1.10, 1) if targets["premise"]
                          else nice_between(q * 0.90, q * 0.97, 1))
        truth = run()
        shortcuts = ("old_idf", "units", "min_tc", "one_storm", "elsewhere")
        singles = {k: run((k,)) for k in shortcuts}
        truth = run()
    if truth["decision"] != targets["decision"] or truth["premise"] != targets["premise"] or not truth["under"]:
        raise DegenerateTask("the trunk check or the consultant's figure misses its target")
    keys = ("ca_total", "outfall_tc", "outfall_q", "outfall_d", "under", "rows")
    where = {"old_idf": ("memo", "the revised IDF table supersedes the 1998 table in the archive folder"),
             "units": ("data", f"{net['sf']['id']} is in square feet and {net['ha']['id']} in hectares"),
             "min_tc": ("footnote", "computed inlet times under the manual's 10-minute minimum"),
             "one_storm": ("memo", "the trunk is designed for the 25-year storm, laterals for the 10-year"),
             "elsewhere": ("email", f"{net['away']['id']} was regraded to drain to the roadside ditch")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, f in singles.items() if any(f[x] != truth[x] for x in keys)]
    if len(traps) < 4:
        raise DegenerateTask("fewer than four planted items change a graded answer")
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(x=f"{P['claimed_q']:g}")
    P["labels"] = labels
    under_lat = next(r["reach"] for r in truth["detail"] if r["undersized"] and r["system"] == "lateral")
    P["probes"] = {"sf": net["sf"]["pipe"], "ha": net["ha"]["pipe"], "away": net["away"]["pipe"],
                   "mintc": net["mintc"]["pipe"], "under": under_lat, "outfall": truth["outfall_reach"]}
    ctx = {"project": project, "boss": person(rng), "consultant": person(rng), "net": net,
           "day": dt.date(rng.choice((2025, 2026)), rng.randint(1, 11), rng.randint(1, 28))}
    writers, roles = _workspace(rng, P, ctx, _data(P, net, idf, old))
    return Draft(subject=f"Storm sewer design check, {project}", instructions=_prompt(rng, P, ctx, writers),
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="trunk of 4-6 reaches and 2-3 laterals, 150-450 ft at 0.4-2.0 %; drainage areas of "
                               "2-4 land uses at 0.2-2.5 ac; inlet times 5-9 min (laterals), 5-16 min (trunk); "
                               "IDF i = a/(t+b)^c, a 50-62, b 8-12, c 0.72-0.80; archived IDF 7-15 % lower; "
                               "consultant's figure 3-10 % from the design flow")


def _manual(P: dict[str, Any], current: bool) -> list[str]:
    if not current:
        return ["Storm Drainage Design Manual, 2009 edition (superseded)",
                "- Storm sewers are designed for the 10-year storm by the rational method.",
                "- Inlet time: as computed, not less than 5 minutes.",
                "- Rainfall intensity from the 1998 IDF table (TP-40 basis)."]
    sizes = ", ".join(str(s) for s in P["sizes"])
    return ["Storm Drainage Design Manual, 2023 edition. This edition supersedes the 2009 edition; the 1998 IDF "
            "table (TP-40 basis) is withdrawn and replaced by the revised IDF table (NOAA Atlas 14 basis).",
            "- Peak flow by the rational method, Q = C i A: Q in cfs, i in in/hr, A in acres.",
            "- Runoff coefficient of a drainage area: the area-weighted composite of its land uses, with C = "
            + "; ".join(f"{k} {v:.2f}" for k, v in C_VALUES.items()) + ".",
            "- Areas are in acres: 1 ha = 2.4711 ac; 43,560 sf = 1 ac. Convert before weighting.",
            f"- Inlet time: as computed for the drainage area, but not less than {P['min_tc']:g} minutes.",
            "- Time of concentration at a structure: the longest of the inlet time of the areas entering there and, "
            "for each pipe entering it, the upstream Tc plus the travel time in that pipe. Travel time = length / "
            "full-flow velocity of the pipe selected for the reach. Carry times unrounded.",
            "- Intensity: from the revised IDF table at the Tc, linear between the two tabulated durations either side.",
            f"- Design storm: laterals {P['rp_lateral']}-year; trunk sewers (system 'trunk' in the asset inventory) "
            f"{P['rp_trunk']}-year.",
            f"- Pipe capacity: Manning's equation flowing full, Q = (1.486 / n) A R^(2/3) S^(1/2), n = {P['n']} for "
            "reinforced concrete pipe, S from the inverts (up minus down, over the length).",
            f"- Standard diameters (in): {sizes}. Select the smallest that carries the design flow; minimum 15 in. "
            "An existing pipe smaller than the selected diameter is undersized and is to be replaced.",
            "- Report flows in cfs and C x A in acres to 2 decimals, Tc in minutes to 2 decimals, rounding half up."]


def _workspace(rng: random.Random, P: dict[str, Any], c: dict[str, Any], data: dict[str, Any]
               ) -> tuple[dict[str, Any], dict[str, str]]:
    w, roles = dict(data), {rel: "stale" if rel == P["files"]["idf_old"] else "data" for rel in data}
    D, net = P["dirs"], c["net"]

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    away, day = net["away"], c["day"]
    add(f"{D['std']}/storm_drainage_design_manual_2023.docx", "policy",
        lambda p: write_docx(p, "Storm Drainage Design Manual (2023)", _manual(P, True)))
    add(f"{D['std']}/archive/storm_drainage_design_manual_2009.pdf", "stale",
        lambda p: write_pdf(p, "Storm Drainage Design Manual (2009)", _manual(P, False)))
    add(f"{D['mail']}/{(day - dt.timedelta(days=12)).isoformat()}_grading_revision.docx", "email", lambda p: write_docx(
        p, "Grading revision, sheet C-4 rev 2", [
            f"Date: {(day - dt.timedelta(days=12)).isoformat()}",
            f"The frontage along the county road ({away['id']}) has been regraded. It now drains overland to the "
            f"roadside ditch and no longer enters the storm sewer at {away['at']}.",
            "The drainage-area export has not been updated yet; please take this into account in the pipe design."]))
    add(f"{D['mail']}/{(day - dt.timedelta(days=3)).isoformat()}_consultant.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{c['consultant']}, developer's engineer", to=c["boss"],
                      date=(day - dt.timedelta(days=3)).isoformat(), subject=f"{c['project']} storm sewers",
                      body=f"Our numbers put the outfall peak under {P['claimed_q']:g} cfs; we ran the 10-year storm "
                           "throughout with the IDF table we have always used. The existing trunk should be fine.")))
    add(f"{D['gis']}/export_notes.txt", "reference", lambda p: write_text(p, (
        "Drainage-area export\nLand-use areas are reported in the unit of the source survey (see the unit column: "
        "ac, ha or sf). The commercial lot comes from the site plan; one lateral's areas from the consultant's "
        "metric survey.\nInlet times are computed by the kinematic-wave method, before any minimum.\n")))
    add(f"{D['gis']}/cctv_condition_grades.csv", "distractor", lambda p: write_csv(
        p, ["pipe_id", "inspection_date", "structural_grade", "om_grade"],
        [[x["id"], (day - dt.timedelta(days=rng.randint(200, 900))).isoformat(), rng.randint(1, 3), rng.randint(1, 3)]
         for x in net["pipes"]]))
    add("meetings/design_review_notes.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{c['project']} storm design", people=[person(rng) for _ in range(3)], date=day.isoformat())))
    bmps = ("silt fence", "inlet protection", "construction entrance")
    add("permits/swppp_inspection_log.csv", "distractor", lambda p: write_csv(p, ["date", "inspector", "bmp", "condition"], [
        [(day - dt.timedelta(days=7 * k)).isoformat(), person(rng), rng.choice(bmps), rng.choice(("good", "repair"))]
        for k in range(1, 7)]))
    add("permits/notice_of_intent.pdf", "distractor", lambda p: write_pdf(p, "Notice of intent", [
        f"Construction stormwater general permit coverage for {c['project']}, disturbed area under 25 acres."]))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], c: dict[str, Any], writers: dict[str, Any]) -> str:
    L, D, C = P["labels"], P["deliverables"], P["columns"]
    lines = [(L["ca_total"], "acres, 2 decimals"), (L["outfall_tc"], "minutes, 2 decimals"),
             (L["outfall_q"], "cfs, 2 decimals"), (L["outfall_d"], "inches, a standard size"),
             (L["n_under"], "whole number"), (L["under"], "pipe ids separated by semicolons"),
             (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    ask = rng.choice((f"The county wants the storm sewer design check for {c['project']} before it signs off the "
                      "subdivision. Can you run the reach table and tell me whether the existing trunk can stay?",
                      f"Please check the {c['project']} storm sewers - the existing pipes against the design flows - "
                      "and tell me whether we keep the trunk or upsize it.",
                      f"I need the rational-method check of the {c['project']} storm system: design flows, pipe "
                      "sizes, and which existing pipes are too small, the trunk in particular."))
    steps = [rng.choice(("Work each reach's contributing area and composite C from the drainage-area exports.",
                         "Build C x A per reach from the land-use areas, then accumulate it down the system.")),
             rng.choice(("Tc, intensity and Q as the design manual sets them out.",
                         "Time of concentration with travel times, intensity from the IDF table, Q = CiA.")),
             rng.choice(("Size each reach by Manning's equation flowing full and flag the existing pipes that are "
                         "too small.", "Pick the smallest standard pipe for each reach and compare it with what "
                         "is in the ground."))]
    return "\n\n".join([
        rng.choice((f"From: {c['boss']}, Project Engineer\n\n", f"{c['boss']} (Project Engineer) here.\n\n",
                    f"Hi - {c['boss']}, PE.\n\n")) + ask + " " + rng.choice((
                        f"The developer's engineer says the outfall peak is under {P['claimed_q']:g} cfs.",
                        f"Their consultant claims under {P['claimed_q']:g} cfs at the outfall - check it.")),
        rng.choice(("Steps:", "How I'd go about it:", "Please:")) + "\n" + "\n".join(
            f"{k}. {t}" for k, t in enumerate(steps, 1)),
        rng.choice(("Deliverables in the output folder:", "Outputs:", "Leave in the output folder:")) + "\n"
        f"1. {D['workbook']}: a sheet Reaches, one row per pipe with a Reach column (the pipe id) and the columns "
        + ", ".join(C[k] for k in ("ca", "tc", "i", "q", "d", "flag")) + " (the last as yes or no), every "
        "derived figure a live formula.\n"
        f"2. {D['memo']}: a memo to me starting with these lines (label: value), then the recommendation:\n"
        + "\n".join(f"   {k}: <{h}>" for k, h in lines),
        rng.choice(("Thanks.", "Cheers.", "Shout if the exports look off.")) + "\n" + c["boss"].split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers)),
    ]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, RowCountCheck

    D, L, C, pr = P["deliverables"], P["labels"], P["columns"], P["probes"]
    book, memo = D["workbook"], D["memo"]
    rows = {r["reach"]: r for r in facts["rows"]}
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def cell(probe: str, key: str) -> tuple[str, Any]:
        reach = pr[probe]
        v = rows[reach][key]
        if key == "undersized":
            return (f"{book} Reaches: {reach} {C['flag']} = {yes(v)}",
                    CellCheck(file=book, sheet="Reaches", match={"Reach": reach}, column=C["flag"], value=yes(v)))
        places = 0 if key == "d" else 2
        return (f"{book} Reaches: {reach} {C[key]} = {v:.{places}f}",
                CellCheck(file=book, sheet="Reaches", match={"Reach": reach}, column=C[key], value=float(v),
                          tolerance=tol(places)))

    def num(key: str, places: int = 2) -> tuple[str, Any]:
        return f"{L[key]} = {facts[key]:.{places}f}", fld_num(memo, L[key], facts[key], places)

    under = (f"{L['under']}: {'; '.join(facts['under'])}", fld_list(memo, L["under"], facts["under"]))
    out = [
        rubric("Builds C x A from the land-use areas in acres, without the regraded drainage area", 10,
               [num("ca_total"), cell("sf", "ca"), cell("ha", "ca"), cell("away", "ca")]),
        rubric("Accumulates Tc from the minimum inlet time and the pipe travel times", 8,
               [num("outfall_tc"), cell("mintc", "tc"), cell("outfall", "tc")]),
        rubric("Reads intensity from the revised IDF table at each line's design storm", 10,
               [cell("mintc", "i"), cell("outfall", "i")]),
        rubric("Computes the design flow Q = C i A reach by reach", 10, [
            num("outfall_q"), cell("sf", "q"), cell("away", "q"),
            (f"{book} Reaches has {len(rows)} rows", RowCountCheck(file=book, sheet="Reaches", key="Reach",
                                                                   count=len(rows)))]),
        rubric("Selects the smallest standard diameter by Manning full flow", 8,
               [num("outfall_d", 0), cell("outfall", "d"), cell("under", "d")]),
        rubric("Flags the existing pipes that are undersized", 8,
               [num("n_under", 0), under, cell("under", "undersized"), cell("outfall", "undersized")]),
        rubric("Decides whether the existing trunk can stay", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]),
                                                                 ["yes", "no"])), under]),
        rubric("Tests the consultant's outfall figure", 6, [
            num("outfall_q"), (f"{L['premise']}: {yes(facts['premise'])}",
                               fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Writes a recommendation the project engineer can act on", 6, [
            ("Says which reaches to upsize and whether the trunk stays, with the flows", llm("reasoning")),
            ("Explains the revised IDF table, the 25-year trunk storm, the minimum inlet time, the unit conversions "
             "and the regraded area", llm("explanation")),
            ("Is clear and brief enough for the project file", llm("writing"))]))
    return out


STORM_SEWER_DESIGN = Workflow(
    key="storm_sewer_design", family="storm_sewer_design",
    method="rational method Q = CiA with accumulated Tc, Manning full-flow pipe sizing",
    professions=("civil_engineers",), solver="storm", shortcuts=("old_idf", "units", "min_tc", "one_storm", "elsewhere"),
    draw=draw, recheck=recheck, rubrics=rubrics, data="generated subdivision storm sewer network (stated distributions)")
