# ---- jobenv workflow ground truth: SLA availability and service credits before a hosting contract renewal ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the exports, the
# in-scope production services, the SLA schedule's rules (local-time offset, availability target, credit tiers,
# aggregate cap), the superseded schedule's tiers, the vendor's goodwill offer and the deliverables; ``naive`` names
# the shortcuts a hurried reviewer takes:
#   overlap         overlapping outages summed incident by incident instead of merged (union of intervals)
#   utc_months      service months cut at UTC midnight instead of the schedule's local time
#   old_tiers       the credit tiers of the superseded SLA schedule
#   customer_label  every outage the vendor labels customer-caused left out, even one its own change id triggered
#   overrun         an outage that began inside an approved maintenance window left out entirely (its minutes
#                   after the window's end are unplanned)
#   invoice_total   the credit base taken as the whole invoice (one-off and pass-through lines too) instead of the
#                   recurring Monthly Fee
import calendar
import datetime
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _ts(v):
    return datetime.datetime.fromisoformat(str(v).strip()[:16])


def _num(v):
    text = str(v).replace(",", "").replace("$", "").strip()
    return float(text) if text else 0.0


def merge(intervals):
    """The union of (start, end) intervals as sorted, disjoint intervals (touching ones joined)."""
    out: list = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def subtract(intervals, holes):
    """``intervals`` minus the union of ``holes`` (both lists of (start, end))."""
    out = []
    for a, b in intervals:
        pieces = [(a, b)]
        for h0, h1 in holes:
            pieces = [p for x, y in pieces for p in ((x, min(y, h0)), (max(x, h1), y)) if p[1] > p[0]]
        out += pieces
    return out


def month_bounds(month):
    """Local start and end (exclusive) of the service month 'YYYY-MM'."""
    y, m = int(month[:4]), int(month[5:7])
    start = datetime.datetime(y, m, 1)
    return start, start + datetime.timedelta(days=calendar.monthrange(y, m)[1])


def credit_pct(avail, tiers):
    """The service credit (% of the Monthly Fee) for an availability: the highest tier whose threshold it is below."""
    return max([pct for thr, pct in tiers if avail < thr], default=0.0)


def analyse(folder, P, naive=()):
    """The graded facts from the task folder. A missing file, sheet or column raises (OSError, KeyError)."""
    F, C = P["files"], P["columns"]
    scope = {s.lower() for s in P["services"]}
    counted = []
    for r in read_frame(folder, F["incidents"]).to_dict("records"):
        if str(r[C["service"]]).strip().lower() not in scope or str(r[C["impact"]]).strip().lower() != P["outage_impact"]:
            continue
        customer = str(r[C["cause"]]).strip().lower() == P["customer_cause"]
        if customer and ("customer_label" in naive or not str(r[C["change"]]).strip()):
            continue
        counted.append((_ts(r[C["start"]]), _ts(r[C["end"]]), str(r[C["id"]]).strip()))
    windows = [(_ts(r["start_utc"]), _ts(r["end_utc"])) for r in read_frame(folder, F["windows"]).to_dict("records")
               if str(r["status"]).strip().lower() == "approved"]
    if "overrun" in naive:
        counted = [c for c in counted if not any(a <= c[0] < b for a, b in windows)]
    if "overlap" in naive:
        pieces = [(x, y, c[2]) for c in counted for x, y in subtract([(c[0], c[1])], windows)]
    else:
        pieces = [(x, y, ", ".join(sorted(c[2] for c in counted if c[0] < b and c[1] > a)))
                  for a, b in merge([(c[0], c[1]) for c in counted]) for x, y in subtract([(a, b)], windows)]
    shift = datetime.timedelta(hours=0 if "utc_months" in naive else P["utc_offset_hours"])
    segments = []
    for month in P["months"]:
        m0, m1 = month_bounds(month)
        for a, b, ids in sorted(pieces):
            x, y = max(a + shift, m0), min(b + shift, m1)
            if y > x:
                segments.append({"start": x.isoformat(" "), "end": y.isoformat(" "), "month": month, "minutes": int((y - x).total_seconds() // 60),
                                 "incidents": ids})
    fees: dict = {}
    for r in read_frame(folder, F["invoices"], P["invoice_sheet"]).to_dict("records"):
        if "invoice_total" in naive or str(r["charge_type"]).strip().lower() == "recurring":
            period = str(r["billing_period"]).strip()[:7]
            fees[period] = fees.get(period, 0.0) + _num(r["amount_usd"])
    tiers = P["old_tiers"] if "old_tiers" in naive else P["tiers"]
    rows = []
    for month in P["months"]:
        m0, m1 = month_bounds(month)
        total = int((m1 - m0).total_seconds() // 60)
        down = sum(s["minutes"] for s in segments if s["month"] == month)
        raw = 100 * (total - down) / total
        avail = rnd(raw, 3)
        pct = credit_pct(avail, tiers)
        fee = rnd(fees.get(month, 0.0), 2)
        rows.append({"month": month, "days": (m1 - m0).days, "minutes": total, "down": down, "raw": raw,
                     "avail": avail, "met": yes_no(avail >= P["target"]), "pct": pct, "fee": fee,
                     "credit": rnd(fee * pct / 100, 2)})
    owed = rnd(sum(r["credit"] for r in rows), 2)
    cap = rnd(P["cap_pct"] / 100 * sum(r["fee"] for r in rows), 2)
    total = min(owed, cap)
    named = next(r for r in rows if r["month"] == P["named_month"])
    return {"rows": rows, "segments": segments, "tiers": tiers, "months_below": sum(r["met"] == "no" for r in rows),
            "total_down": sum(r["down"] for r in rows), "credits_sum": owed, "cap": cap, "total": total,
            "named_avail": named["avail"], "premise": named["met"] == "yes", "decision": bool(total > P["offer"])}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['months_below']}: {facts['months_below']}", f"{L['total_down']}: {facts['total_down']}",
            f"{L['named_avail']}: {facts['named_avail']:.3f}", f"{L['premise']}: {yes_no(facts['premise'])}",
            f"{L['total']}: {facts['total']:.2f}", f"{L['decision']}: {yes_no(facts['decision'])}"]


def _workbook(path, P, facts):
    """Merged (the counted outage minutes after merging, window exclusion and splitting at local month ends),
    the monthly table (minutes, downtime by SUMIFS, availability, tier, credit: formulas) and Credits (the tiers,
    the total, the cap and the claim)."""
    from openpyxl import Workbook

    C = P["out_columns"]
    wb = Workbook()
    ws = wb.active
    ws.title = P["sheet"]
    mg = wb.create_sheet("Merged")
    mg.append(["start_local", "end_local", "service_month", "minutes", "incidents"])
    for i, s in enumerate(facts["segments"], 2):
        mg.append([_ts(s["start"]), _ts(s["end"]), s["month"], f"=ROUND((B{i}-A{i})*1440,0)", s["incidents"]])
        for c in ("A", "B"):
            mg[f"{c}{i}"].number_format = "yyyy-mm-dd hh:mm"
    last = max(2, len(facts["segments"]) + 1)
    cr = wb.create_sheet("Credits")
    cr.append(["availability_below_pct", "credit_pct_of_monthly_fee"])
    tiers = sorted(facts["tiers"], key=lambda t: t[0])  # lowest threshold (largest credit) first
    for thr, pct in tiers:
        cr.append([thr, pct])
    ws.append([C[k] for k in ("month", "days", "minutes", "down", "avail", "met", "pct", "fee", "credit")])
    for i, r in enumerate(facts["rows"], 2):
        ifs = "0"
        for k in range(len(tiers), 0, -1):  # nested from the top threshold inwards: the lowest tier wins
            ifs = f"IF(E{i}<Credits!$A${k + 1},Credits!$B${k + 1},{ifs})"
        ws.append([r["month"], r["days"], f"=B{i}*1440", f"=SUMIFS(Merged!$D$2:$D${last},Merged!$C$2:$C${last},A{i})",
                   f"=ROUND((C{i}-D{i})/C{i}*100,3)", f"=IF(E{i}>={P['target']},\"yes\",\"no\")", f"={ifs}", r["fee"],
                   f"=ROUND(H{i}*G{i}/100,2)"])
    n, k = len(facts["rows"]) + 1, len(tiers) + 5  # k: the row of the credits before the cap
    L = P["labels"]
    cr.append([])
    cr.append([L["months_below"], f"=COUNTIF({P['sheet']}!F2:F{n},\"no\")"])
    cr.append([L["total_down"], f"=SUM({P['sheet']}!D2:D{n})"])
    cr.append(["Credits before the cap (USD)", f"=ROUND(SUM({P['sheet']}!I2:I{n}),2)"])
    cr.append([f"Aggregate cap, {P['cap_pct']:g} % of the Monthly Fees (USD)",
               f"=ROUND({P['cap_pct']}/100*SUM({P['sheet']}!H2:H{n}),2)"])
    cr.append([L["total"], f"=MIN(B{k},B{k + 1})"])
    wb.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, V = P["deliverables"], P["vendor"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    months = [f"- {r['month']}: availability {r['avail']:.3f} % ({r['down']} minutes of unplanned downtime), credit "
              f"{r['pct']:g} % of the Monthly Fee of {r['fee']:,.2f} USD = {r['credit']:,.2f} USD"
              for r in facts["rows"] if r["met"] == "no"]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"To: {V}, Service Delivery Manager", f"Re: Service credit claim under the SLA schedule, {P['months'][0]} "
        f"to {P['months'][-1]}", "", "Dear Service Delivery Manager,", "",
        f"Under the SLA schedule in force for this contract year we claim service credits for the Service Months "
        f"below, where availability of the Production Environment fell short of the {P['target']:g} % target.", ""]
        + months + [
        "", "Method: full outages of the in-scope production services from our incident export, overlapping outages "
        "merged as one period of unavailability, approved maintenance windows excluded only up to each window's "
        "scheduled end, outages labelled customer-caused counted where your own change record triggered them, and "
        "minutes assigned to Service Months in the schedule's local time. Credits follow the tiers of the current "
        "schedule on the recurring Monthly Fee, within the aggregate cap.",
        "Your availability report does not reflect these exclusions correctly; our workbook of the calculation is "
        "attached. Please confirm the credit against the next invoice.", "", "Yours sincerely"])
