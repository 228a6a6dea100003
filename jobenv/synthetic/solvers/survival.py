# ---- jobenv workflow ground truth: overall survival by the Kaplan-Meier product-limit method ----
# Standard library, pandas and openpyxl (python-docx for a .docx memo). PARAMS (defined above this code in
# solve.py) names the files and the statistical analysis plan's rules; ``naive`` names the shortcuts a
# careless analyst takes (each proves that a planted trap changes the graded answer).
import os

import pandas as pd

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass


def follow_up(folder, P, naive=()):
    """One row per analysed patient: arm, days from randomisation to death or censoring, death flag.

    P["population"]: the column that must be filled for a patient to be analysed ("" for all randomised);
    P["registry_deaths"]: deaths found by registry linkage after a withdrawal count (else follow-up stops at the
    withdrawal)."""
    F = P["files"]
    pts = read_frame(folder, F["patients"])
    if P["population"] and "population" not in naive:
        pts = pts[pts[P["population"]].str.strip() != ""]
    ev = read_frame(folder, F["events"])
    if "event_type" not in naive:
        ev = ev[ev["event_type"].str.strip() == P["death_code"]]
    ev = ev.assign(d=pd.to_datetime(ev["event_date"])).groupby("patient_id")["d"].min()
    wd = read_frame(folder, F["withdrawals"], P.get("withdrawal_sheet"))
    wd = pd.to_datetime(wd.set_index("patient_id")["withdrawal_date"])
    cutoff = pd.Timestamp(P["extract_date"] if "cutoff" in naive else P["cutoff"])
    rows = []
    for _, p in pts.iterrows():
        start = pd.Timestamp(p["randomised_on"])
        death = ev.get(p["patient_id"])
        end = cutoff
        if "withdrawal" not in naive and p["patient_id"] in wd.index:
            registry = P["registry_deaths"] and death is not None and death <= cutoff
            if not registry:
                end = min(end, wd[p["patient_id"]])
        died = death is not None and death <= end
        stop = death if died else end
        rows.append({"arm": p["arm"], "days": int((stop - start).days), "died": bool(died)})
    return pd.DataFrame(rows, columns=["arm", "days", "died"])


def km_curve(df):
    """Distinct death times with S(t) just after each: deaths at t are counted before censorings at t."""
    out = []
    s = 1.0
    deaths = df[df["died"]].groupby("days").size()
    for t, d in deaths.sort_index().items():
        at_risk = int((df["days"] >= t).sum())
        s *= 1.0 - d / at_risk
        out.append((int(t), s))
    return out


def surv_at(curve, t):
    s = 1.0
    for time, value in curve:
        if time <= t:
            s = value
    return s


def analyse(folder, P, naive=()):
    df = follow_up(folder, P, naive)
    d = P["decimals"]
    facts: dict = {"arms": {}, "life_table": []}
    for arm in P["arms"]:
        part = df[df["arm"] == arm]
        curve = km_curve(part)
        median = next((t for t, s in curve if s <= 0.5 + 1e-12), None)
        on_boundary = any(abs(s - 0.5) < 1e-12 for _, s in curve)
        facts["arms"][arm] = {"n": int(len(part)), "deaths": int(part["died"].sum()),
                              "surv_pct": rnd(100 * surv_at(curve, P["horizon"]), d),
                              "surv_raw": 100 * surv_at(curve, P["horizon"]),
                              "median": median, "median_on_boundary": on_boundary}
        for t in P["landmarks"]:
            facts["life_table"].append({"arm": arm, "day": t, "at_risk": int((part["days"] >= t).sum()),
                                        "surv_pct": rnd(100 * surv_at(curve, t), d)})
    a, b = P["arms"]
    diff = facts["arms"][b]["surv_pct"] - facts["arms"][a]["surv_pct"]
    facts["difference"] = rnd(diff, d)
    facts["decision"] = bool(facts["difference"] >= P["threshold_pp"])
    med = facts["arms"][P["premise"]["arm"]]["median"]
    facts["premise"] = bool(med is not None and med < P["premise"]["days"])
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    d = P["decimals"]
    lines = []
    for arm in P["arms"]:
        f = facts["arms"][arm]
        name = P["arm_names"][arm]
        lines.append(f"{L['n'].format(arm=name)}: {f['n']}")
        lines.append(f"{L['deaths'].format(arm=name)}: {f['deaths']}")
        lines.append(f"{L['surv'].format(arm=name)}: {f['surv_pct']:.{d}f}")
        lines.append(f"{L['median'].format(arm=name)}: {'not reached' if f['median'] is None else f['median']}")
    lines.append(f"{L['difference']}: {facts['difference']:.{d}f}")
    lines.append(f"{L['decision']}: {yes_no(facts['decision'])}")
    lines.append(f"{L['premise']}: {yes_no(facts['premise'])}")
    return lines


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    T = P["deliverables"]["table"]
    cols = T["columns"]
    rows = [[P["arm_names"][r["arm"]], r["day"], r["at_risk"], round(r["surv_pct"], P["decimals"])]
            for r in facts["life_table"]]
    write_table(os.path.join(output_dir, T["file"]), [cols["arm"], cols["day"], cols["at_risk"], cols["surv"]], rows,
                sheet="Life table")
    write_memo(os.path.join(output_dir, P["deliverables"]["memo"]), _memo_lines(P, facts) + [
        "", "Method: Kaplan-Meier product-limit estimate on the analysis population, censoring as the statistical "
        "analysis plan sets out."])
