# ---- jobenv workflow ground truth: adverse-impact analysis of a screening test (UGESP four-fifths rule) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the applicant-flow
# export, the ethnicity groups, the procedure's conventions and the deliverables; ``naive`` names the shortcuts a
# careless analyst takes (each proves that a planted item changes the graded answer):
#   withdrawn     every applicant is in the denominator, also those who withdrew before sitting the test
#   duplicates    one row per application, so a person on several requisitions counts several times
#   undisclosed   candidates who did not disclose their ethnicity are treated as a group of their own
#   majority_ref  impact ratios against the largest group (the superseded procedure) instead of the highest rate
import math
import os
from fractions import Fraction

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def fisher_two_sided(a, b, c, d):
    """Two-sided Fisher exact p for the 2x2 table [[a, b], [c, d]]: the probability, under the hypergeometric
    distribution with all margins fixed, of every table no more likely than the observed one (relative slack
    1e-7, so tables equal in probability up to rounding count as equal). Exact integer arithmetic."""
    row1, col1, n = a + b, a + c, a + b + c + d
    lo, hi = max(0, row1 + col1 - n), min(row1, col1)
    weights = {x: math.comb(col1, x) * math.comb(n - col1, row1 - x) for x in range(lo, hi + 1)}
    observed = weights[a]
    tail = sum(w for w in weights.values() if w * 10**7 <= observed * (10**7 + 1))
    return float(Fraction(tail, math.comb(n, row1)))


def two_proportion_z(x1, n1, x2, n2):
    """Pooled two-proportion z of p1 - p2 (raises ZeroDivisionError when the pooled rate is 0 or 1)."""
    pooled = (x1 + x2) / (n1 + n2)
    return (x1 / n1 - x2 / n2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))


def candidates(folder, P, naive=()):
    """The test-stage population: one row per counted unit (person, or application under ``duplicates``) with
    its group and pass flag. Failure behaviour: a missing column raises KeyError."""
    C = P["columns"]
    flow = read_frame(folder, P["files"]["flow"])
    seen, out = set(), []
    for _, r in flow.iterrows():
        took = str(r[C["taken"]]).strip().upper() == "Y"
        if not took and "withdrawn" not in naive:
            continue  # withdrew before the test: not an applicant at this stage
        key = str(r[C["candidate"]]) if "duplicates" not in naive else str(r[C["application"]])
        if key in seen:
            continue
        seen.add(key)
        out.append({"id": key, "group": str(r[C["ethnicity"]]).strip(),
                    "passed": str(r[C["passed"]]).strip().upper() == "Y"})
    return out


def analyse(folder, P, naive=()):
    rows = candidates(folder, P, naive)
    groups = list(P["groups"]) + ([P["undisclosed"]] if "undisclosed" in naive else [])
    stats = []
    for g in groups:
        mine = [r for r in rows if r["group"] == g]
        n, k = len(mine), sum(r["passed"] for r in mine)
        stats.append({"group": g, "tested": n, "passed": k, "rate": k / n if n else 0.0})
    if "majority_ref" in naive:
        ref = max(stats, key=lambda s: (s["tested"], s["group"]))
    else:
        ref = max(stats, key=lambda s: (s["rate"], s["group"]))
    for s in stats:
        s["ratio"] = s["rate"] / ref["rate"] if ref["rate"] else 0.0
        s["shortfall"] = ref["rate"] * s["tested"] - s["passed"]
        s["below"] = s["ratio"] < P["threshold"]
    others = [s for s in stats if s["group"] != ref["group"]]
    low = min(others, key=lambda s: (s["ratio"], s["group"]))
    p = fisher_two_sided(low["passed"], low["tested"] - low["passed"], ref["passed"], ref["tested"] - ref["passed"])
    z = two_proportion_z(low["passed"], low["tested"], ref["passed"], ref["tested"])
    top = max(stats, key=lambda s: (s["rate"], s["group"]))
    hidden = [r for r in rows if r["group"] == P["undisclosed"]]
    facts = {"groups": [{"group": s["group"], "tested": s["tested"], "passed": s["passed"], "rate": rnd(s["rate"], 4),
                         "ratio": rnd(s["ratio"], 4), "shortfall": rnd(s["shortfall"], 1),
                         "four_fifths": P["labels"]["below"] if s["below"] else P["labels"]["meets"]} for s in stats],
             "reference": ref["group"], "highest": top["group"], "lowest": low["group"],
             "lowest_ratio": rnd(low["ratio"], 3), "fisher_p": rnd(p, 4), "z": rnd(z, 2),
             "shortfall": rnd(ref["rate"] * low["tested"] - low["passed"], 1),
             "undisclosed_tested": len(hidden), "undisclosed_passed": sum(r["passed"] for r in hidden),
             "total_tested": len(rows),
             "candidates": [[r["id"], r["group"], "Y" if r["passed"] else "N"] for r in rows]}
    facts["significant"] = bool(p < P["alpha"])
    facts["decision"] = bool(any(s["below"] for s in stats))
    facts["premise"] = top["group"] == P["premise_group"]
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['lowest_ratio']}: {facts['lowest_ratio']:.3f}", f"{L['lowest']}: {facts['lowest']}",
            f"{L['highest']}: {facts['highest']}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['fisher_p']}: {facts['fisher_p']:.4f}", f"{L['z']}: {facts['z']:.2f}",
            f"{L['shortfall']}: {facts['shortfall']:.1f}", f"{L['undisclosed']}: {facts['undisclosed_tested']}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    """The workbook (Candidates: the counted population; Rates: COUNTIFS counts, rates, ratios and the
    four-fifths flag as live formulas) and the memo."""
    os.makedirs(output_dir, exist_ok=True)
    D, L, W = P["deliverables"], P["labels"], P["sheet_columns"]
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Rates"
    ws.append([W["group"], W["tested"], W["passed"], W["rate"], W["ratio"], W["four_fifths"], W["shortfall"]])
    n = len(facts["groups"])
    last = n + 1
    end = len(facts["candidates"]) + 1  # bounded ranges: a whole-column reference slows every recalculation
    grp, ok = f"Candidates!$B$2:$B${end}", f"Candidates!$C$2:$C${end}"
    for i, g in enumerate(facts["groups"], 2):
        ws.append([g["group"], f"=COUNTIFS({grp},A{i})", f'=COUNTIFS({grp},A{i},{ok},"Y")',
                   f"=IF(B{i}=0,0,C{i}/B{i})", f"=IF(MAX($D$2:$D${last})=0,0,D{i}/MAX($D$2:$D${last}))",
                   f'=IF(E{i}<{P["threshold"]},"{L["below"]}","{L["meets"]}")',
                   f"=ROUND(MAX($D$2:$D${last})*B{i}-C{i},1)"])
    ws.append([])
    if all(g["group"] != P["undisclosed"] for g in facts["groups"]):
        ws.append([P["undisclosed"], f"=COUNTIFS({grp},A{last + 2})", f'=COUNTIFS({grp},A{last + 2},{ok},"Y")',
                   "", "", "excluded from ratios"])
    cand = wb.create_sheet("Candidates")
    cand.append(["candidate_id", "ethnicity", "passed"])
    for cid, group, passed in facts["candidates"]:
        cand.append([cid, group, passed])
    book = os.path.join(output_dir, D["workbook"])
    wb.save(book)
    _fixed_dates(book)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: selection rate = candidates who passed / candidates who sat the test, one count per person; "
        "candidates who withdrew before the test are excluded and those who did not disclose ethnicity are reported "
        "but not compared. Impact ratio = group rate / highest group rate; below 0.80 indicates adverse impact "
        "(four-fifths rule). Fisher's exact test (two-sided) compares the group with the lowest ratio with the "
        "highest-rate group; the z is the pooled two-proportion statistic."])
