# ---- jobenv workflow ground truth: exponential decline-curve analysis and remaining reserves per well ----
# Standard library, numpy, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the files and
# the reserves procedure's rules; ``naive`` names the shortcuts a careless engineer takes (each proves that a
# planted trap changes the graded answer).
import math
import os

import numpy as np
import pandas as pd

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

M3_TO_BBL = 6.289811
DAYS_PER_MONTH = 30.4375


def monthly(folder, P, naive=()):
    """One row per well and month: well, month index, oil in barrels, producing days."""
    F = P["files"]
    op = read_frame(folder, F["operated"])
    op = pd.DataFrame({"well": op["well_id"], "month": op["month"], "oil": op["oil_bbl"].astype(float),
                       "days": op["days_on"].astype(float)})
    nonop = read_frame(folder, F["partner"], P["partner_sheet"])
    factor = 1.0 if "units" in naive else M3_TO_BBL
    nonop = pd.DataFrame({"well": nonop["Well"], "month": nonop["Month"],
                          "oil": nonop[P["partner_volume"]].astype(float) * factor,
                          "days": nonop["Producing days"].astype(float)})
    df = pd.concat([op, nonop], ignore_index=True)
    ym = df["month"].str.slice(0, 7).str.split("-", expand=True).astype(int)
    df["t"] = ym[0] * 12 + ym[1]
    return df.sort_values(["well", "t"]).reset_index(drop=True)


def fit_well(rows, P, naive=()):
    """The procedure's fit for one well: rates, the fitting window, ln(rate) on months by least squares."""
    shut_in = int((rows["days"] < P["min_days"]).sum())
    if "shutin" not in naive:
        rows = rows[rows["days"] >= P["min_days"]]
    else:
        shut_in = 0
    rate = rows["oil"] / (DAYS_PER_MONTH if "rate" in naive else rows["days"])
    t = rows["t"].to_numpy(dtype=float)
    y = np.log(rate.to_numpy(dtype=float))
    if "window" not in naive and P["window"]:  # no window: the whole producing history
        t, y = t[-P["window"]:], y[-P["window"]:]
    b, a = np.polyfit(t, y, 1)
    q_now = math.exp(a + b * t[-1])
    decline = 100 * (1 - math.exp(12 * b))
    q_el = P["economic_limit"]
    if b >= 0 or q_now <= q_el:
        months_left, reserves = (0.0 if q_now <= q_el else None), 0.0  # None: never reaches the limit
    else:
        months_left = math.log(q_el / q_now) / b
        reserves = (q_now - q_el) * DAYS_PER_MONTH / -b
    return {"shut_in": shut_in, "decline_pct": decline, "rate": q_now, "months_left": months_left,
            "reserves_mbbl": reserves / 1000.0}


def analyse(folder, P, naive=()):
    df = monthly(folder, P, naive)
    d = P["decimals"]
    wells = []
    for well, rows in df.groupby("well", sort=True):
        f = fit_well(rows, P, naive)
        wells.append({"well": str(well), "shut_in": f["shut_in"], "decline_pct": rnd(f["decline_pct"], d["decline"]),
                      "rate": rnd(f["rate"], d["rate"]), "reserves_mbbl": rnd(f["reserves_mbbl"], d["reserves"]),
                      "raw": f})
    total = rnd(sum(w["reserves_mbbl"] for w in wells), d["reserves"])
    steep = sorted(wells, key=lambda w: -w["decline_pct"])
    facts = {
        "wells": wells,
        "total_mbbl": total,
        "abandon": sorted(w["well"] for w in wells
                          if w["raw"]["months_left"] is not None and w["raw"]["months_left"] <= P["horizon_months"]),
        "steepest": steep[0]["well"],
        "steepest_gap": steep[0]["decline_pct"] - steep[1]["decline_pct"] if len(steep) > 1 else None,
        "decision": bool(total >= P["threshold_mbbl"]),
    }
    facts["premise"] = facts["steepest"] == P["premise_well"]
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    d = P["decimals"]
    return [f"{L['total']}: {facts['total_mbbl']:.{d['reserves']}f}",
            f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['abandon']}: {'; '.join(facts['abandon']) or 'none'}",
            f"{L['steepest']}: {facts['steepest']}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    T = P["deliverables"]["table"]
    c = T["columns"]
    d = P["decimals"]
    header = [c["well"], c["shut_in"], c["decline"], c["rate"], c["reserves"]]
    rows = [[w["well"], w["shut_in"], w["decline_pct"], w["rate"], w["reserves_mbbl"]] for w in facts["wells"]]
    if T["file"].endswith(".xlsx"):  # a live total, as an engineer's workbook has it
        rows.append(["Total", None, None, None, f"=ROUND(SUM(E2:E{len(rows) + 1}),{d['reserves']})"])
    else:
        rows.append(["Total", "", "", "", facts["total_mbbl"]])
    write_table(os.path.join(output_dir, T["file"]), header, rows, sheet="Decline")
    write_memo(os.path.join(output_dir, P["deliverables"]["memo"]), _memo_lines(P, facts) + [
        "", "Method: exponential decline fitted by least squares to ln(producing-day rate) over the procedure's window; "
        "remaining reserves to the economic limit."])
