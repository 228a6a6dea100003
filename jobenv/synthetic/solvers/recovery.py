# ---- jobenv workflow ground truth: sectors below their pre-recession peak (employment recovery tracker) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the statistics
# bureau's seasonally adjusted sector export (thousands, the revised vintage), the government export (persons),
# the story month, the pre-recession window, the sector columns the desk's method names, and the deliverables;
# ``naive`` names the shortcuts a hurried reporter takes (each reproduces one planted mistake):
#   persons        the government export's persons read as if they were thousands
#   change_column  every numeric column taken for a series, the derived 1-month net change column included
#   first_vintage  the first release used, not the benchmark-revised vintage that supersedes it
#   nsa            the not seasonally adjusted table used instead of the seasonally adjusted one
#   latest_row     the file's last row taken as "now", not the story month
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass


def _number(text):
    return float(str(text).replace(",", "").strip())


def load_series(folder, P, naive=()):
    """{series name: [(month 'YYYY-MM', level in thousands), ...]} in file order, through the story month (or the
    file's last row with ``latest_row``). Total nonfarm first, then the sectors the method names."""
    F, C = P["files"], P["columns"]
    main = F["nsa"] if "nsa" in naive else F["first"] if "first_vintage" in naive else F["sa"]
    stop = None if "latest_row" in naive else P["story_month"]
    out = {}
    frame = read_frame(folder, main)
    names = [P["total"]] + list(P["sectors"])
    if "change_column" in naive:
        names += [c for c in frame.columns if c not in names and c != C["month"]]
    for name in names:
        out[name] = [(str(m).strip()[:7], _number(v)) for m, v in zip(frame[C["month"]], frame[name])
                     if str(v).strip() and (stop is None or str(m).strip()[:7] <= stop)]
    gov = read_frame(folder, F["gov"])
    scale = 1.0 if "persons" in naive else 1000.0
    for name in P["gov_sectors"]:
        out[name] = [(str(m).strip()[:7], _number(v) / scale) for m, v in zip(gov[C["gov_month"]], gov[name])
                     if str(v).strip() and (stop is None or str(m).strip()[:7] <= stop)]
    return out


def recovery(series, start, end):
    """Peak (highest level in the window, earliest if tied), trough (lowest level from the peak through the last
    month, earliest if tied), drawdown, last level and the first month after the trough back at or above the peak
    (a level equal to the peak has regained it). None for an empty window."""
    window = [(m, v) for m, v in series if start <= m <= end]
    if not window:
        return None
    peak_m, peak = window[0]
    for m, v in window:
        if v > peak:
            peak_m, peak = m, v
    after = [(m, v) for m, v in series if m >= peak_m]
    trough_m, trough = after[0]
    for m, v in after:
        if v < trough:
            trough_m, trough = m, v
    regained = None
    if trough < peak:
        regained = next((m for m, v in after if m > trough_m and v >= peak), None)
    last_m, last = series[-1]
    return {"peak_month": peak_m, "peak": peak, "trough_month": trough_m, "trough": trough,
            "drawdown_raw": peak - trough, "drawdown_pct_raw": 100.0 * (peak - trough) / peak if peak else 0.0,
            "latest_month": last_m, "latest": last, "gap_pct_raw": 100.0 * (last - peak) / peak if peak else 0.0,
            "regained_month": regained, "below": last < peak}


def analyse(folder, P, naive=()):
    series = load_series(folder, P, naive)
    rows = []
    for name, s in series.items():
        r = recovery(s, P["window"][0], P["window"][1])
        if r is None:
            continue
        rows.append(dict(r, sector=name, peak_level=rnd(r["peak"], 1), trough_level=rnd(r["trough"], 1),
                         drawdown_level=rnd(r["drawdown_raw"], 1), drawdown_pct=rnd(r["drawdown_pct_raw"], 1),
                         latest_level=rnd(r["latest"], 1), gap_pct=rnd(r["gap_pct_raw"], 1)))
    total = rows[0]
    sectors = rows[1:]
    below = [r["sector"] for r in sectors if r["below"]]
    steepest = max(sectors, key=lambda r: r["drawdown_pct_raw"])["sector"]  # max keeps the first of a tie
    biggest = max(sectors, key=lambda r: r["drawdown_raw"])["sector"]
    return {"rows": rows, "jobs_lost": total["drawdown_level"], "nf_drop_pct": total["drawdown_pct"],
            "nf_peak": total["peak_month"], "nf_trough": total["trough_month"], "nf_gap": total["gap_pct"],
            "below_count": len(below), "below_list": below, "steepest": steepest, "biggest": biggest,
            # the headline: total nonfarm employment is back at (or above) its pre-recession peak
            "decision": not total["below"],
            "premise": len(below) == int(P["claim_below"])}


def _memo_lines(P, f):
    L = P["labels"]
    return [f"{L['jobs_lost']}: {f['jobs_lost']:.1f}", f"{L['nf_drop_pct']}: {f['nf_drop_pct']:.1f}",
            f"{L['nf_peak']}: {f['nf_peak']}", f"{L['nf_trough']}: {f['nf_trough']}",
            f"{L['nf_gap']}: {f['nf_gap']:.1f}", f"{L['below_count']}: {f['below_count']}",
            f"{L['below_list']}: {'; '.join(f['below_list']) or 'none'}", f"{L['steepest']}: {f['steepest']}",
            f"{L['biggest']}: {f['biggest']}", f"{L['decision']}: {yes_no(f['decision'])}",
            f"{L['premise']}: {yes_no(f['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, W = P["deliverables"], P["chart_labels"]
    keys = ("sector", "peak_month", "peak_level", "trough_month", "trough_level", "drawdown_level", "drawdown_pct",
            "latest_level", "gap_pct", "regained_month", "below_peak")
    rows = [[r["sector"], r["peak_month"], r["peak_level"], r["trough_month"], r["trough_level"],
             r["drawdown_level"], r["drawdown_pct"], r["latest_level"], r["gap_pct"], r["regained_month"] or "",
             yes_no(r["below"])] for r in facts["rows"]]
    write_table(os.path.join(output_dir, D["chart"]), [W[k] for k in keys], rows)
    write_memo(os.path.join(output_dir, D["memo"]), [f"# Fact-check: {P['subject']}", ""] + _memo_lines(P, facts) + [
        "", f"Method: seasonally adjusted levels in thousands from the revised vintage (government converted from "
        f"persons), as of {P['story_month']}; peak = highest level {P['window'][0]} to {P['window'][1]} (earliest if "
        "tied); trough = lowest level after the peak; a sector at or above its peak has recovered.",
        f"The draft's count of sectors below peak was {P['claim_below']}; the record shows {facts['below_count']}."])
