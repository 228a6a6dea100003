# ---- jobenv workflow ground truth: Erlang C staffing of a service desk's phone queue ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the ACD export, the
# staffing standard's rules (hours, interval, target, short-abandon cut-off, shrinkage) and the growth in force;
# ``naive`` names the shortcuts a careless planner takes (each proves that a planted trap changes the answer).
# A missing file or column raises (OSError, KeyError); an export with no offered calls raises ZeroDivisionError
# in the service level; the generator never writes such a task.
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
    from ._erlang import agents_needed, erlang_c, service_level
except ImportError:
    pass

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def slots(P):
    """The interval-of-week keys (day, 'HH:MM' start) the desk is open, in week order."""
    step = int(P["interval_min"])
    open_m, close_m = (int(t[:2]) * 60 + int(t[3:]) for t in (P["open"], P["close"]))
    return [(d, f"{m // 60:02d}:{m % 60:02d}") for d in P["open_days"] for m in range(open_m, close_m, step)]


def analyse(folder, P, naive=()):
    calls = read_frame(folder, P["files"]["acd"])
    calls = calls[calls["queue"] == P["queue"]]
    wait = calls["wait_s"].astype(float)
    abandoned = calls["disposition"] == "ABANDONED"
    short = abandoned & (wait < float(P["short_abandon_s"]))
    offered = calls if "short_abandons" in naive else calls[~short]
    stamp = offered["queue_entry"].str.slice(0, 16)
    step = int(P["interval_min"])
    minute = stamp.str.slice(11, 13).astype(int) * 60 + stamp.str.slice(14, 16).astype(int)
    start = (minute // step) * step
    import pandas as pd

    weekday = pd.to_datetime(stamp.str.slice(0, 10)).dt.day_of_week.map(lambda k: DAYS[k])
    key = list(zip(weekday, [f"{m // 60:02d}:{m % 60:02d}" for m in start], strict=True))
    counts: dict = {}
    for k in key:
        counts[k] = counts.get(k, 0) + 1
    answered = calls[calls["disposition"] == "ANSWERED"]
    handle = answered["talk_s"].astype(float)
    if "no_acw" not in naive:
        handle = handle + answered["acw_s"].astype(float)
    aht = float(handle.mean())
    growth = float(P["old_growth"] if "old_growth" in naive else P["growth"])
    seconds = step * 60
    rows = []
    for day, hhmm in slots(P):
        mean = counts.get((day, hhmm), 0) / int(P["weeks"])
        forecast = mean * (1 + growth)
        traffic = forecast * aht / seconds
        n = agents_needed(traffic, P["threshold_s"], aht, P["target"])
        rows.append({"day": day, "interval": hhmm, "sample_mean": mean, "forecast": forecast, "traffic": traffic,
                     "agents": n, "p_wait": erlang_c(traffic, n) if n else 0.0,
                     "service_level": service_level(traffic, n, P["threshold_s"], aht) if n else 1.0,
                     "agent_hours": n * step / 60})
    peak = max(rows, key=lambda r: r["forecast"])  # max keeps the first of equals: the earliest in the week
    hours = sum(r["agent_hours"] for r in rows)
    fte = hours / (1 - float(P["shrinkage"])) / float(P["fte_hours"])
    quick = (offered["disposition"] == "ANSWERED") & (offered["wait_s"].astype(float) <= float(P["threshold_s"]))
    current = 100.0 * float(quick.sum()) / len(offered)
    return {"intervals": rows, "peak": dict(peak), "aht": aht, "growth": growth, "agent_hours": hours, "fte": fte,
            "current_sl": current, "offered": len(offered), "short_abandons": int(short.sum()),
            "decision": bool(rnd(fte, 1) <= float(P["budget_fte"])),
            "premise": bool(current >= 100 * float(P["target"]))}


def _memo_lines(P, facts):
    L, pk = P["labels"], facts["peak"]
    return [f"{L['peak']}: {rnd(pk['forecast'], 1):.1f}", f"{L['aht']}: {rnd(facts['aht'], 1):.1f}",
            f"{L['agents']}: {pk['agents']}", f"{L['fte']}: {rnd(facts['fte'], 1):.1f}",
            f"{L['current_sl']}: {rnd(facts['current_sl'], 1):.1f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    from openpyxl import Workbook

    os.makedirs(output_dir, exist_ok=True)
    D, IN = P["deliverables"], P["input_labels"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Inputs"
    ws.append(["Parameter", "Value"])
    for k, v in (("growth", facts["growth"]), ("aht", facts["aht"]), ("interval_s", int(P["interval_min"]) * 60),
                 ("threshold_s", P["threshold_s"]), ("target", P["target"]), ("shrinkage", P["shrinkage"]),
                 ("fte_hours", P["fte_hours"])):
        ws.append([IN[k], v])
    ws = wb.create_sheet("Intervals")
    ws.append(["day", "interval", "sample_offered_avg", "forecast_calls", "traffic_erlangs", "agents", "p_wait",
               "service_level", "agent_hours"])
    for i, r in enumerate(facts["intervals"], 2):
        ws.append([r["day"], r["interval"], r["sample_mean"], f"=C{i}*(1+Inputs!$B$2)", f"=D{i}*Inputs!$B$3/Inputs!$B$4",
                   r["agents"], r["p_wait"], f"=IF(F{i}>E{i},1-G{i}*EXP(-(F{i}-E{i})*Inputs!$B$5/Inputs!$B$3),0)",
                   f"=F{i}*Inputs!$B$4/3600"])
    last = len(facts["intervals"]) + 1
    ws = wb.create_sheet("FTE")
    ws.append(["Line", "Value"])
    ws.append([P["fte_labels"]["hours"], f"=SUM(Intervals!I2:I{last})"])
    ws.append([P["fte_labels"]["shrinkage"], "=Inputs!B7"])
    ws.append([P["fte_labels"]["fte"], "=B2/(1-B3)/Inputs!B8"])
    ws.append([P["fte_labels"]["budget"], P["budget_fte"]])
    ws.append([P["fte_labels"]["gap"], "=B5-B4"])
    book = os.path.join(output_dir, D["workbook"])
    wb.save(book)
    _fixed_dates(book)
    pk = facts["peak"]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"Method: offered calls per half-hour (abandons under {P['short_abandon_s']} seconds left out) averaged "
        f"over the {P['weeks']} sample weeks and grown by {facts['growth'] * 100:g} %; AHT is talk plus after-call "
        f"work; Erlang C gives the fewest agents above the traffic that reach {P['target'] * 100:g}/"
        f"{P['threshold_s']}. The peak is {pk['day']} {pk['interval']}; FTE is weekly agent-hours grossed up for "
        f"{P['shrinkage'] * 100:g} % shrinkage over {P['fte_hours']} paid hours."])
