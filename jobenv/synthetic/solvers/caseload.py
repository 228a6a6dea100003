# ---- jobenv workflow ground truth: annual caseload report (clearance, time to disposition, pending age) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the files, the report
# year, the current time standards, the event codes and the deliverables; ``naive`` names the shortcuts a careless
# analyst takes (each proves that a planted item changes the graded answer):
#   reopened            reopened cases left out of incoming (clearance = all dispositions / new filings)
#   continuance_pause   a continuance treated as stopping the clock until the continued-to date
#   warrant_clock       inactive time (warrant, competency, stay) not excluded; inactive cases aged as active
#   archived_standards  last year's superseded standards (its tiers) instead of the current ones
import datetime
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _day(v):
    text = str(v).strip()[:10]
    return datetime.date.fromisoformat(text) if text else None


def inactive_days(periods, upto):
    """Days of inactive status before ``upto``: each (start, end-or-None) period counts end - start days, an open
    period (or one ending after ``upto``) counting up to ``upto``; periods starting on or after ``upto`` count 0."""
    total = 0
    for start, end in periods:
        if start >= upto:
            continue
        stop = upto if end is None or end > upto else end
        total += (stop - start).days
    return total


def inactive_on(periods, when):
    """True when ``when`` falls inside an inactive period (from its start day to the day before it ends)."""
    return any(start <= when and (end is None or end > when) for start, end in periods)


def elapsed(filed, until, periods, continuances=(), pause_continuances=False, exclude_inactive=True):
    """Days on the clock from filing to ``until``, less inactive time (a continuance never stops the clock; the
    ``pause_continuances`` shortcut subtracts each continued span as if it did)."""
    days = (until - filed).days
    if exclude_inactive:
        days -= inactive_days(periods, until)
    if pause_continuances:
        days -= sum((min(to, until) - at).days for at, to in continuances if at < until and to > at)
    return days


def _periods(events, codes):
    """Inactive periods per case from the status events: a start code opens, its end code closes."""
    starts = codes["inactive"]
    ends = {v: k for k, v in starts.items()}
    out: dict = {}
    conts: dict = {}
    open_: dict = {}
    for r in events.sort_values(["case_number", "event_date", "seq"]).to_dict("records"):
        case, code, at = str(r["case_number"]), str(r["event_code"]), _day(r["event_date"])
        if code in starts:
            open_[(case, code)] = at
        elif code in ends and (case, ends[code]) in open_:
            out.setdefault(case, []).append((open_.pop((case, ends[code])), at))
        elif code == codes["continuance"]:
            to = _day(r["next_date"])
            if to is not None:
                conts.setdefault(case, []).append((at, to))
    for (case, _), at in open_.items():
        out.setdefault(case, []).append((at, None))
    return out, conts


def analyse(folder, P, naive=()):
    F = P["files"]
    year = int(P["year"])
    first, last = datetime.date(year, 1, 1), datetime.date(year, 12, 31)
    cases = read_frame(folder, F["cases"])
    events = read_frame(folder, F["events"])
    events["seq"] = events["seq"].astype(int)
    periods, conts = _periods(events, P["codes"])
    if "warrant_clock" in naive:
        periods = {}
    standards = P["archived_standards"] if "archived_standards" in naive else P["standards"]
    pause = "continuance_pause" in naive
    types = P["types"]
    clear = {t: {"filings": 0, "reopened": 0, "dispositions": 0} for t in types}
    times: dict = {t: [] for t in types}
    pending: dict = {t: [] for t in types}
    for r in cases.to_dict("records"):
        t, case = str(r["case_type"]), str(r["case_number"])
        if t not in clear:
            continue
        filed, disp = _day(r["filing_date"]), _day(r["disposition_date"])
        reopened, redisp = _day(r["reopened_date"]), _day(r["reopen_disposition_date"])
        c = clear[t]
        c["filings"] += first <= filed <= last
        if reopened and first <= reopened <= last and "reopened" not in naive:
            c["reopened"] += 1
        c["dispositions"] += bool(disp and first <= disp <= last) + bool(redisp and first <= redisp <= last)
        per = periods.get(case, [])
        if disp and first <= disp <= last:
            times[t].append(elapsed(filed, disp, per, conts.get(case, []), pause))
        if filed <= last and (disp is None or disp > last) and not inactive_on(per, last):
            pending[t].append((case, elapsed(filed, last, per, conts.get(case, []), pause)))
    clearance, tiers, ages = [], [], []
    for t, label in types.items():
        c = clear[t]
        incoming = c["filings"] + c["reopened"]
        clearance.append({"type": t, "label": label, "filings": c["filings"], "reopened": c["reopened"],
                          "incoming": incoming, "dispositions": c["dispositions"],
                          "clearance": rnd(100.0 * c["dispositions"] / incoming, 1) if incoming else 0.0})
        done = times[t]
        for days, target in standards[t]:
            within = sum(1 for d in done if d <= days)
            pct = rnd(100.0 * within / len(done), 1) if done else 0.0
            tiers.append({"type": t, "label": label, "days": int(days), "target": float(target), "disposed": len(done),
                          "within": within, "pct": pct, "met": bool(pct >= target)})
        top = max(d for d, _ in standards[t])
        rows = sorted(pending[t], key=lambda x: (-x[1], x[0]))
        ages.append({"type": t, "label": label, "pending": len(rows), "over": sum(1 for _, a in rows if a > top),
                     "oldest_case": rows[0][0] if rows else "", "oldest_age": rows[0][1] if rows else 0,
                     "top": int(top)})
    every = sorted(((case, age) for t in types for case, age in pending[t]), key=lambda x: (-x[1], x[0]))
    facts = {"clearance": clearance, "tiers": tiers, "pending": ages,
             "over_total": sum(a["over"] for a in ages),
             "oldest_case": every[0][0] if every else "", "oldest_age": every[0][1] if every else 0}
    facts["decision"] = all(x["met"] for x in tiers if x["type"] == P["decision_type"])
    pt = P["premise_type"]
    facts["premise"] = pt in standards and any(case == P["premise_case"] and age > max(d for d, _ in standards[pt])
                                               for case, age in pending[pt])
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    out = [f"{L['clearance'].format(type=c['label'])}: {c['clearance']:.1f}" for c in facts["clearance"]]
    out += [f"{L['within'].format(type=x['label'], days=x['days'])}: {x['pct']:.1f}" for x in facts["tiers"]
            if x["days"] == min(y["days"] for y in facts["tiers"] if y["type"] == x["type"])]
    return out + [f"{L['over']}: {facts['over_total']}", f"{L['oldest']}: {facts['oldest_case']}",
                  f"{L['oldest_age']}: {facts['oldest_age']}", f"{L['decision']}: {yes_no(facts['decision'])}",
                  f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    from openpyxl import Workbook

    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["columns"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Clearance"
    ws.append([C["type"], C["filings"], C["reopened"], C["incoming"], C["outgoing"], C["clearance"]])
    for k, c in enumerate(facts["clearance"], 2):
        ws.append([c["label"], c["filings"], c["reopened"], f"=B{k}+C{k}", c["dispositions"],
                   f'=IF(D{k}=0,0,ROUND(E{k}/D{k}*100,1))'])
    n = len(facts["clearance"]) + 1
    ws.append(["Total", f"=SUM(B2:B{n})", f"=SUM(C2:C{n})", f"=SUM(D2:D{n})", f"=SUM(E2:E{n})",
               f"=IF(D{n + 1}=0,0,ROUND(E{n + 1}/D{n + 1}*100,1))"])
    ws = wb.create_sheet("TimeToDisp")
    ws.append([C["type"], C["standard"], C["target"], C["disposed"], C["within"], C["pct"], C["met"]])
    for k, x in enumerate(facts["tiers"], 2):
        ws.append([x["label"], x["days"], x["target"], x["disposed"], x["within"],
                   f"=IF(D{k}=0,0,ROUND(E{k}/D{k}*100,1))", f'=IF(F{k}>=C{k},"yes","no")'])
    ws = wb.create_sheet("PendingAge")
    ws.append([C["type"], C["pending"], C["over"], C["share_over"], C["oldest"], C["oldest_age"]])
    for k, a in enumerate(facts["pending"], 2):
        ws.append([a["label"], a["pending"], a["over"], f"=IF(B{k}=0,0,ROUND(C{k}/B{k}*100,1))", a["oldest_case"],
                   a["oldest_age"]])
    path = os.path.join(output_dir, D["workbook"])
    wb.save(path)
    _fixed_dates(path)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: clearance is outgoing over incoming cases (reopened cases count as incoming, their dispositions as "
        "outgoing); time to disposition runs from filing to disposition less time in inactive status (a continuance "
        "does not stop the clock), measured against the current time standards; pending age is counted at year end "
        "for active cases only. The workbook's rates are live formulas."])
