# ---- jobenv workflow ground truth: police-stop disparity check (stop, search and hit rates by race) ----
# Standard library, pandas and openpyxl (python-docx for the memo). PARAMS (defined above this code in solve.py)
# names the department's person-level stop export and its columns, the race codebook, the census population
# table and the rows the data desk's standards map to each group, the reference and comparison groups, the
# discretionary search bases, the suppression minimum, the draft story's multiple and the deliverables; ``naive``
# names the shortcuts a hurried reporter takes (each reproduces one planted mistake):
#   stops        one row per stop (the first person listed, usually the driver) instead of one per person stopped
#   amended      every version of a re-sent record counted, not only the latest record_version
#   out_of_year  the export's December rows from the previous year kept (the query started a month early)
#   race_alone   census "<race> alone" rows (which include Hispanic residents) as denominators, not the
#                "not Hispanic or Latino" rows the standards name
#   all_searches the outcome test run on every search, inventory and incident-to-arrest searches included
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import math
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass

Z95 = 1.96


def wilson(hits, n, z=Z95):
    """Wilson score interval for hits / n: (low, high) as proportions ((None, None) for n = 0)."""
    if n == 0:
        return None, None
    p = hits / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    den = 1 + z * z / n
    return (centre - half) / den, (centre + half) / den


def per_thousand(count, population):
    return 1000.0 * count / population


def person_rows(folder, P, naive=()):
    """The persons stopped in the year: one dict per (stop, person) at its latest record_version, with group,
    searched, basis and found. With ``stops`` only each stop's first person is kept."""
    C = P["columns"]
    codes = {str(r["code"]).strip(): str(r["group"]).strip()
             for r in read_frame(folder, P["files"]["codebook"]).to_dict("records")}
    latest = {}  # type: dict[tuple, tuple]  # stop, person and (with ``amended``) the row: every version stays
    order = []
    for i, r in enumerate(read_frame(folder, P["files"]["stops"]).to_dict("records")):
        if not str(r[C["date"]]).strip().startswith(str(P["year"])) and "out_of_year" not in naive:
            continue
        key = (str(r[C["stop"]]).strip(), str(r[C["person"]]).strip(), i if "amended" in naive else 0)
        version = int(float(str(r[C["version"]]).strip() or 1))
        if key not in latest:
            order.append(key)
        elif latest[key][0] > version:
            continue
        latest[key] = (version, r)
    rows = []
    for key in order:
        r = latest[key][1]
        stop, person_no = key[0], key[1]
        if "stops" in naive and int(float(str(r[C["person"]]).strip())) != 1:
            continue
        searched = str(r[C["searched"]]).strip().upper() in ("Y", "YES", "TRUE", "1")
        rows.append({"stop": stop, "person": person_no, "group": codes.get(str(r[C["race"]]).strip(), "Unknown"),
                     "searched": searched, "basis": str(r[C["basis"]]).strip() if searched else "",
                     "found": searched and str(r[C["found"]]).strip().upper() in ("Y", "YES", "TRUE", "1")})
    return rows


def populations(folder, P, naive=()):
    """Residents per group from the census table, by the row the standards map each group to."""
    table = {str(r["census_row"]).strip(): float(str(r["estimate"]).replace(",", ""))
             for r in read_frame(folder, P["files"]["population"]).to_dict("records")}
    which = "alone_row" if "race_alone" in naive else "census_row"
    return {g["group"]: table[g[which]] for g in P["groups"]}


def analyse(folder, P, naive=()):
    rows = person_rows(folder, P, naive)
    pops = populations(folder, P, naive)
    cut = int(P["min_events"])
    disc = set(P["discretionary"])
    groups = []
    for g in P["groups"]:
        name = g["group"]
        mine = [r for r in rows if r["group"] == name]
        stopped = len(mine)
        searched = sum(r["searched"] for r in mine)
        tested = [r for r in mine if r["searched"] and ("all_searches" in naive or r["basis"] in disc)]
        hits = sum(r["found"] for r in tested)
        lo, hi = wilson(hits, len(tested))
        groups.append({"group": name, "population": pops[name], "stopped": stopped, "searched": searched,
                       "tested": len(tested), "hits": hits,
                       "stop_raw": per_thousand(stopped, pops[name]), "search_raw": per_thousand(searched, pops[name]),
                       "hit_raw": 100.0 * hits / len(tested) if tested else None,
                       "lo_raw": None if lo is None else 100 * lo, "hi_raw": None if hi is None else 100 * hi,
                       "stop_ok": stopped >= cut, "search_ok": searched >= cut, "hit_ok": len(tested) >= cut})
    by = {g["group"]: g for g in groups}
    ref, cmp_ = by[P["reference"]], by[P["comparison"]]
    for g in groups:
        g["stop_rate"] = rnd(g["stop_raw"], 1) if g["stop_ok"] else None
        g["search_rate"] = rnd(g["search_raw"], 1) if g["search_ok"] else None
        g["stop_ratio"] = rnd(g["stop_raw"] / ref["stop_raw"], 2) if g["stop_ok"] else None
        g["search_ratio"] = rnd(g["search_raw"] / ref["search_raw"], 2) if g["search_ok"] else None
        g["hit_rate"] = rnd(g["hit_raw"], 1) if g["hit_ok"] else None
        g["ci_low"] = rnd(g["lo_raw"], 1) if g["hit_ok"] else None
        g["ci_high"] = rnd(g["hi_raw"], 1) if g["hit_ok"] else None
    suppressed = sum((not g["stop_ok"]) + (not g["search_ok"]) + (not g["hit_ok"]) for g in groups)
    stop_ratio_raw = cmp_["stop_raw"] / ref["stop_raw"]
    return {"rows": rows, "groups": groups, "persons": len(rows), "stops": len({r["stop"] for r in rows}),
            "unknown": sum(r["group"] == "Unknown" for r in rows),
            "cmp_stop_rate": cmp_["stop_rate"], "ref_stop_rate": ref["stop_rate"],
            "stop_ratio": rnd(stop_ratio_raw, 2), "stop_ratio_raw": stop_ratio_raw,
            "cmp_search_rate": cmp_["search_rate"], "ref_search_rate": ref["search_rate"],
            "search_ratio": rnd(cmp_["search_raw"] / ref["search_raw"], 2),
            "cmp_hit": cmp_["hit_rate"], "cmp_low": cmp_["ci_low"], "cmp_high": cmp_["ci_high"],
            "ref_hit": ref["hit_rate"], "ref_low": ref["ci_low"], "ref_high": ref["ci_high"],
            "gap_raw": None if None in (ref["lo_raw"], cmp_["hi_raw"]) else ref["lo_raw"] - cmp_["hi_raw"],
            "suppressed": suppressed,
            "all_searches": "all_searches" in naive,
            # the outcome test: the comparison group's hits come lower, and the 95 % intervals do not overlap
            "decision": bool(cmp_["tested"] and ref["tested"] and cmp_["hi_raw"] < ref["lo_raw"]),
            "premise": bool(stop_ratio_raw > float(P["claim_multiple"]))}


def _memo_lines(P, f):
    L = P["labels"]
    return [f"{L['persons']}: {f['persons']}", f"{L['stops']}: {f['stops']}",
            f"{L['cmp_stop_rate']}: {f['cmp_stop_rate']:.1f}", f"{L['ref_stop_rate']}: {f['ref_stop_rate']:.1f}",
            f"{L['stop_ratio']}: {f['stop_ratio']:.2f}", f"{L['cmp_search_rate']}: {f['cmp_search_rate']:.1f}",
            f"{L['ref_search_rate']}: {f['ref_search_rate']:.1f}", f"{L['search_ratio']}: {f['search_ratio']:.2f}",
            f"{L['cmp_hit']}: {f['cmp_hit']:.1f}", f"{L['cmp_low']}: {f['cmp_low']:.1f}",
            f"{L['cmp_high']}: {f['cmp_high']:.1f}", f"{L['ref_hit']}: {f['ref_hit']:.1f}",
            f"{L['ref_low']}: {f['ref_low']:.1f}", f"{L['ref_high']}: {f['ref_high']:.1f}",
            f"{L['suppressed']}: {f['suppressed']}", f"{L['decision']}: {yes_no(f['decision'])}",
            f"{L['premise']}: {yes_no(f['premise'])}"]


def _workbook(path, P, f):
    """Tally (persons by group, searched, discretionary search and hit: the cleaned person rows counted), Rates
    (counts as SUMIFS on the tally; rates, ratios, hit rates and Wilson bounds as formulas; a rate under the
    minimum says suppressed)."""
    from openpyxl import Workbook

    W, cut = P["sheet_labels"], int(P["min_events"])
    wb = Workbook()
    ts = wb.active
    ts.title = "Tally"
    ts.append(["group", "searched", "discretionary", "contraband_found", "persons"])
    disc = set(P["discretionary"])
    tally = {}  # type: dict[tuple, int]
    for r in f["rows"]:
        tested = r["searched"] and (f["all_searches"] or r["basis"] in disc)
        key = (r["group"], yes_no(r["searched"]).upper()[0], yes_no(tested).upper()[0], yes_no(r["found"]).upper()[0])
        tally[key] = tally.get(key, 0) + 1
    for key in sorted(tally):
        ts.append([*key, tally[key]])
    end = len(tally) + 1
    grp, srch, dsc, fnd, cnt = (f"Tally!${c}$2:${c}${end}" for c in "ABCDE")
    ws = wb.create_sheet(P["sheet"])
    ws.append([W[k] for k in ("group", "population", "stopped", "stop_rate", "stop_ratio", "searched", "search_rate",
                              "search_ratio", "tested", "hits", "hit_rate", "ci_low", "ci_high")])
    ref = 2 + next(i for i, g in enumerate(f["groups"]) if g["group"] == P["reference"])
    z = f"{Z95}"
    for i, g in enumerate(f["groups"], 2):
        p, n = f"(J{i}/I{i})", f"I{i}"
        half = f"{z}*SQRT({p}*(1-{p})/{n}+{z}^2/(4*{n}^2))"
        cen, den = f"({p}+{z}^2/(2*{n}))", f"(1+{z}^2/{n})"
        sup = '"suppressed"'
        ws.append([g["group"], g["population"], f"=SUMIFS({cnt},{grp},A{i})", f"=IF(C{i}<{cut},{sup},1000*C{i}/B{i})",
                   f"=IF(C{i}<{cut},{sup},(C{i}/B{i})/(C${ref}/B${ref}))",
                   f"=SUMIFS({cnt},{grp},A{i},{srch},\"Y\")", f"=IF(F{i}<{cut},{sup},1000*F{i}/B{i})",
                   f"=IF(F{i}<{cut},{sup},(F{i}/B{i})/(F${ref}/B${ref}))",
                   f"=SUMIFS({cnt},{grp},A{i},{dsc},\"Y\")", f"=SUMIFS({cnt},{grp},A{i},{dsc},\"Y\",{fnd},\"Y\")",
                   f"=IF(I{i}<{cut},{sup},100*{p})", f"=IF(I{i}<{cut},{sup},100*({cen}-{half})/{den})",
                   f"=IF(I{i}<{cut},{sup},100*({cen}+{half})/{den})"])
    wb.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    write_memo(os.path.join(output_dir, D["memo"]), [f"Fact-check: {P['subject']}", ""] + _memo_lines(P, facts) + [
        "", f"Method: persons stopped in {P['year']} (one row per person per stop, the latest record_version of a "
        "re-sent record), perceived race as coded by the officer; rates per 1,000 residents of the group on the "
        "census rows the data standards name (non-Hispanic rows for every group but Hispanic); ratios to the "
        f"{P['reference']} rate; hit rate = contraband or evidence found in discretionary searches "
        f"({', '.join(P['discretionary'])}), Wilson 95 % interval (z = 1.96); a rate resting on fewer than "
        f"{P['min_events']} events is suppressed.",
        f"The department's report counts persons stopped; the draft counted stops ({facts['stops']} stops held "
        f"{facts['persons']} persons)."])
