# ---- jobenv workflow ground truth: 911 call answering against the NENA standard, and call-taker positions ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the call detail export
# and the standard's thresholds; ``naive`` names the shortcuts a careless reviewer takes (each proves that a planted
# trap changes the answer). A missing file or column raises (OSError, KeyError).
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
    from ._erlang import erlang_c, service_level
except ImportError:
    pass


def positions_needed(traffic, aht, rules):
    """The fewest call-taker positions N > A meeting every (seconds, share) rule by Erlang C."""
    n = int(traffic) + 1
    while any(service_level(traffic, n, s, aht) < share - 1e-12 for s, share in rules):
        n += 1
    return n


def analyse(folder, P, naive=()):
    import pandas as pd

    calls = read_frame(folder, P["files"]["calls"])
    if "admin" not in naive:
        calls = calls[calls["line_type"] == "911"]
    start_col = "call_start" if "transfer_origin" in naive else "psap_seized"
    start = pd.to_datetime(calls[start_col])
    answered = calls["answered"] != ""
    if "callback" in naive:  # abandoned calls that were called back treated as handled and left out
        keep = answered | (calls["callback"] == "")
        calls, start, answered = calls[keep], start[keep], answered[keep]
    delay = (pd.to_datetime(calls["answered"].where(answered, None)) - start).dt.total_seconds()
    seized = pd.to_datetime(calls["psap_seized"])
    hour = seized.dt.hour
    T1, T2 = int(P["rules"][0][0]), int(P["rules"][1][0])
    in1 = answered & (delay <= T1)
    in2 = answered & (delay <= T2)
    hours = []
    for h in range(24):
        m = hour == h
        n = int(m.sum())
        hours.append({"hour": h, "calls": n, "within_1": int((in1 & m).sum()), "within_2": int((in2 & m).sum()),
                      "pct_1": 100.0 * float((in1 & m).sum()) / n if n else 100.0,
                      "pct_2": 100.0 * float((in2 & m).sum()) / n if n else 100.0})
    total = len(calls)
    pct1 = 100.0 * float(in1.sum()) / total
    pct2 = 100.0 * float(in2.sum()) / total
    worst = min(hours, key=lambda r: r["pct_1"])  # min keeps the first of equals: the earliest hour
    days = int(P["days"])
    busy = max(hours, key=lambda r: r["calls"])
    lam = busy["calls"] / days
    released = pd.to_datetime(calls["released"].where(answered, None))
    aht = float((released - pd.to_datetime(calls["answered"].where(answered, None))).dt.total_seconds()[answered].mean())
    traffic = lam * aht / 3600
    rules = [(float(s), float(share)) for s, share in P["rules"]]
    n = positions_needed(traffic, aht, rules)
    abandon = 100.0 * float((~answered).sum()) / total
    return {"hours": hours, "calls": total, "within_1": int(in1.sum()), "within_2": int(in2.sum()), "pct_1": pct1,
            "pct_2": pct2, "worst": dict(worst), "busy": {"hour": busy["hour"], "per_hour": lam, "traffic": traffic},
            "aht": aht, "positions": n, "sl_1": service_level(traffic, n, rules[0][0], aht),
            "sl_2": service_level(traffic, n, rules[1][0], aht), "abandon_pct": abandon,
            "decision": bool(pct1 >= 100 * rules[0][1] and pct2 >= 100 * rules[1][1]),
            "premise": bool(n <= int(P["minimum_positions"]))}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['pct_1']}: {rnd(facts['pct_1'], 1):.1f}", f"{L['pct_2']}: {rnd(facts['pct_2'], 1):.1f}",
            f"{L['worst']}: {facts['worst']['hour']}", f"{L['positions']}: {facts['positions']}",
            f"{L['abandon']}: {rnd(facts['abandon_pct'], 1):.1f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    from openpyxl import Workbook

    os.makedirs(output_dir, exist_ok=True)
    D, S = P["deliverables"], P["summary_labels"]
    (t1, share1), (t2, share2) = P["rules"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Hourly"
    ws.append(["hour", "calls_911", f"answered_within_{t1}s", f"answered_within_{t2}s", f"pct_within_{t1}s",
               f"pct_within_{t2}s"])
    for i, r in enumerate(facts["hours"], 2):
        ws.append([r["hour"], r["calls"], r["within_1"], r["within_2"], f"=IF(B{i}>0,C{i}/B{i}*100,100)",
                   f"=IF(B{i}>0,D{i}/B{i}*100,100)"])
    ws = wb.create_sheet("Summary")
    ws.append(["Line", "Value"])
    ws.append([S["calls"], "=SUM(Hourly!B2:B25)"])
    ws.append([S["pct_1"], "=SUM(Hourly!C2:C25)/B2*100"])
    ws.append([S["pct_2"], "=SUM(Hourly!D2:D25)/B2*100"])
    ws.append([S["meets"], f'=IF(AND(B3>={share1 * 100:g},B4>={share2 * 100:g}),"yes","no")'])
    b = facts["busy"]
    ws = wb.create_sheet("Positions")
    ws.append(["Line", "Value"])
    ws.append([S["busy_hour"], b["hour"]])
    ws.append([S["per_hour"], b["per_hour"]])
    ws.append([S["aht"], facts["aht"]])
    ws.append([S["traffic"], "=B3*B4/3600"])
    ws.append([S["positions"], facts["positions"]])
    ws.append([S["p_wait"], erlang_c(b["traffic"], facts["positions"])])
    ws.append([S["sl_1"], f"=1-B7*EXP(-(B6-B5)*{t1}/B4)"])
    ws.append([S["sl_2"], f"=1-B7*EXP(-(B6-B5)*{t2}/B4)"])
    book = os.path.join(output_dir, D["workbook"])
    wb.save(book)
    _fixed_dates(book)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"Method: 911 lines only, each call timed from its arrival at this PSAP (transferred calls too); "
        f"abandoned calls stay in the count as not answered in time. Positions by Erlang C at the busiest hour "
        f"({b['hour']}:00, {b['per_hour']:.1f} calls an hour) for {share1 * 100:g} % in {t1} s and "
        f"{share2 * 100:g} % in {t2} s."])
