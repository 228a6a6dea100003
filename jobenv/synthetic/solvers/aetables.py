# ---- jobenv workflow ground truth: DSMB adverse-event tables from ADSL/ADAE-style exports (biostatisticians) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the ADSL and ADAE
# exports, the previous DSMB's SAE listing, the arms (active first), the data cut, the SAP's window and the
# deliverables; ``naive`` names the shortcuts a hurried programmer takes:
#   predose         no lower bound: adverse events that began before the first dose counted as treatment-emergent
#   partial         partial onset dates imputed to the 1st of the month / 1 January (the superseded SAP v1.0 rule)
#   window14        window ends at last dose + 14 days (the superseded SAP v1.0) instead of + 30
#   post_cut        events with onset after the data cut tabulated (and none listed separately)
#   all_randomised  denominators from every randomised subject instead of the safety set (SAFFL = Y)
#   events          events counted instead of subjects (a subject with two events in a SOC counted twice)
#   old_listing     SAE subjects taken from the previous DSMB's SAE listing (the old data cut)
import datetime as dt
import math
import os
from fractions import Fraction

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

Z95 = 1.959963984540054


def impute_onset(text, first_dose, naive=()):
    """An ISO 8601 onset date (YYYY-MM-DD, YYYY-MM or YYYY) as a date under the SAP's imputation rule: a missing
    day is the first dose date when year and month match the first dose, else the 1st of the month; a missing
    month and day is the first dose date when the year matches, else 1 January. Blank -> None."""
    text = str(text).strip()
    if not text:
        return None
    parts = text.split("-")
    if len(parts) == 3:
        return dt.date.fromisoformat(text)
    year = int(parts[0])
    if len(parts) == 2:
        month = int(parts[1])
        if "partial" not in naive and first_dose and (first_dose.year, first_dose.month) == (year, month):
            return first_dose
        return dt.date(year, month, 1)
    if "partial" not in naive and first_dose and first_dose.year == year:
        return first_dose
    return dt.date(year, 1, 1)


def wilson(x, n, z=Z95):
    """Wilson score interval (lower, upper) of the proportion x/n."""
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def newcombe(x1, n1, x2, n2, z=Z95):
    """Newcombe's hybrid score interval (method 10, no continuity correction) of p1 - p2: (difference, lower,
    upper), from the two Wilson intervals."""
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, z)
    l2, u2 = wilson(x2, n2, z)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def fisher_two_sided(a, b, c, d):
    """Two-sided Fisher exact p of [[a, b], [c, d]]: the probability of every table, margins fixed, no more likely
    than the observed one (relative slack 1e-7). Exact integer arithmetic."""
    row1, col1, n = a + b, a + c, a + b + c + d
    lo, hi = max(0, row1 + col1 - n), min(row1, col1)
    weights = {x: math.comb(col1, x) * math.comb(n - col1, row1 - x) for x in range(lo, hi + 1)}
    observed = weights[a]
    tail = sum(w for w in weights.values() if w * 10**7 <= observed * (10**7 + 1))
    return float(Fraction(tail, math.comb(n, row1)))


def records(folder, rel):
    """A csv or sheet as a list of column -> text dicts."""
    df = read_frame(folder, rel)
    return [dict(zip(df.columns, row)) for row in df.itertuples(index=False, name=None)]


def _date(text):
    text = str(text).strip()
    return dt.date.fromisoformat(text) if text else None


def subjects(folder, P, naive=()):
    """The analysis population: USUBJID -> {arm, first, last}; the safety set (SAFFL = Y, by actual treatment), or
    every randomised subject under ``all_randomised`` (by planned arm)."""
    C = P["adsl_columns"]
    out = {}
    for r in records(folder, P["files"]["adsl"]):
        safety = str(r[C["saffl"]]).strip().upper() == "Y"
        if not safety and "all_randomised" not in naive:
            continue
        arm = str(r[C["actual"]]).strip() if safety else str(r[C["planned"]]).strip()
        out[str(r[C["usubjid"]]).strip()] = {"arm": arm, "first": _date(r[C["first"]]), "last": _date(r[C["last"]]),
                                             "safety": safety}
    return out


def teae_rows(folder, P, naive=(), pop=None):
    """(tabulated TEAE records, SAE records with onset after the data cut): each record with usubjid, arm, soc,
    pt, ser and the imputed onset."""
    C = P["adae_columns"]
    pop = subjects(folder, P, naive) if pop is None else pop
    cut = dt.date.fromisoformat(P["cut"])
    days = 14 if "window14" in naive else P["window_days"]
    rows, late = [], []
    for r in records(folder, P["files"]["adae"]):
        s = pop.get(str(r[C["usubjid"]]).strip())
        if s is None or s["first"] is None:
            continue
        onset = impute_onset(r[C["start"]], s["first"], naive)
        if onset is None:
            continue
        rec = {"usubjid": str(r[C["usubjid"]]).strip(), "arm": s["arm"], "soc": str(r[C["soc"]]).strip(),
               "pt": str(r[C["pt"]]).strip(), "ser": str(r[C["ser"]]).strip().upper() == "Y", "onset": onset}
        if onset > cut and "post_cut" not in naive:
            if rec["ser"]:
                late.append(rec)
            continue
        if onset < s["first"] and "predose" not in naive:
            continue
        if s["last"] is not None and onset > s["last"] + dt.timedelta(days=days):
            continue
        rows.append(rec)
    return rows, late


def count(rows, key, arm, naive=()):
    """Subjects (or events under ``events``) of one arm per value of ``key``."""
    out: dict = {}
    for r in rows:
        if r["arm"] != arm:
            continue
        out.setdefault(r[key], []).append(r["usubjid"])
    return {k: len(v) if "events" in naive else len(set(v)) for k, v in out.items()}


def analyse(folder, P, naive=()):
    arms = P["arms"]
    pop = subjects(folder, P, naive)
    n = {a: sum(1 for s in pop.values() if s["arm"] == a) for a in arms}
    rows, late = teae_rows(folder, P, naive, pop)
    soc = {a: count(rows, "soc", a, naive) for a in arms}
    pt = {a: count(rows, "pt", a, naive) for a in arms}
    anyte = {}
    for a in arms:
        mine = [r["usubjid"] for r in rows if r["arm"] == a]
        anyte[a] = len(mine) if "events" in naive else len(set(mine))
    if "old_listing" in naive:
        L = P["listing_columns"]
        old = records(folder, P["files"]["old_listing"])
        sae = {a: len({str(r[L["usubjid"]]).strip() for r in old if str(r[L["arm"]]).strip() == a}) for a in arms}
    else:
        sae = {a: len({r["usubjid"] for r in rows if r["arm"] == a and r["ser"]}) for a in arms}
    x1, x2, n1, n2 = sae[arms[0]], sae[arms[1]], n[arms[0]], n[arms[1]]
    d, lo, hi = newcombe(x1, n1, x2, n2)
    p = fisher_two_sided(x1, n1 - x1, x2, n2 - x2)
    socs = sorted({k for a in arms for k in soc[a]}, key=lambda k: (-sum(soc[a].get(k, 0) for a in arms), k))
    table = [{"soc": k, **{f"n{i}": soc[a].get(k, 0) for i, a in enumerate(arms)},
              **{f"pct{i}": rnd(100 * soc[a].get(k, 0) / n[a], 1) for i, a in enumerate(arms)}} for k in socs]
    ranked = sorted(pt[arms[0]].items(), key=lambda kv: (-kv[1], kv[0]))
    top, top_n = ranked[0] if ranked else ("none", 0)
    facts = {"n": [n[a] for a in arms], "any": [anyte[a] for a in arms],
             "any_pct": [rnd(100 * anyte[a] / n[a], 1) for a in arms], "sae": [sae[a] for a in arms],
             "sae_pct": [rnd(100 * sae[a] / n[a], 1) for a in arms], "rd": rnd(100 * d, 1), "lower": rnd(100 * lo, 1),
             "upper": rnd(100 * hi, 1), "fisher_p": rnd(p, 4), "table": table, "top_pt": top, "top_n": top_n,
             "second_pt": ranked[1][0] if len(ranked) > 1 else "none", "top_gap": top_n - (ranked[1][1] if len(ranked) > 1 else 0),
             "post_cut": sorted({r["usubjid"] for r in late}), "raw_lower": 100 * lo}
    facts["decision"] = bool(lo > 0)  # the charter: flag when the 95 % CI of the SAE risk difference excludes 0 above
    facts["premise"] = top == P["claimed_pt"]
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    lines = [f"{L['n0']}: {facts['n'][0]}", f"{L['n1']}: {facts['n'][1]}", f"{L['any0']}: {facts['any'][0]}",
             f"{L['any1']}: {facts['any'][1]}", f"{L['sae0']}: {facts['sae'][0]}", f"{L['sae1']}: {facts['sae'][1]}",
             f"{L['rd']}: {facts['rd']:.1f}", f"{L['lower']}: {facts['lower']:.1f}", f"{L['upper']}: {facts['upper']:.1f}",
             f"{L['fisher_p']}: {facts['fisher_p']:.4f}", f"{L['top_pt']}: {facts['top_pt']}",
             f"{L['top_n']}: {facts['top_n']}",
             f"{L['post_cut']}: {'; '.join(facts['post_cut']) if facts['post_cut'] else 'none'}",
             f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]
    return lines


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C, arms = P["deliverables"], P["out_columns"], P["arms"]
    head = [C["soc"], f"{arms[0]}{C['n']}", f"{arms[0]}{C['pct']}", f"{arms[1]}{C['n']}", f"{arms[1]}{C['pct']}"]
    rows = [[t["soc"], t["n0"], f"{t['pct0']:.1f}", t["n1"], f"{t['pct1']:.1f}"] for t in facts["table"]]
    write_table(os.path.join(output_dir, D["table"]), head, rows)
    write_memo(os.path.join(output_dir, D["memo"]), [f"To: Data Safety Monitoring Board, {P['study']}",
                                                     f"Data cut: {P['cut']}", ""] + _memo_lines(P, facts) + [
        "", "Method: safety set (SAFFL = Y) by actual treatment; an adverse event is treatment-emergent when its onset "
        f"(partial dates imputed per the SAP) is on or after the first dose and no later than last dose + "
        f"{P['window_days']} days, and on or before the data cut; subjects counted once per SOC and per preferred term; "
        "SAE risk difference with Newcombe's hybrid score 95% interval and Fisher's exact test (two-sided). SAEs with "
        "onset after the data cut are listed, not tabulated."])
