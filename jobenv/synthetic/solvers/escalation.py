# ---- jobenv workflow ground truth: a supplier's PPI escalation request checked against the contract's clause
# (purchasing agents) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the BLS download pulls
# (oldest first, with their dates), the contract's Schedule A workbook, the ERP price list, the supplier's proposed
# prices, and the clause as amended: the series, base month, lag, escalable shares by category, the firm-fixed-price
# mark of Schedule A's footnote, trigger, cap and floor, the effective date and the supplier's stated index change.
# ``naive`` names the shortcuts a hurried buyer takes:
#   series       the similar series the supplier's letter or the download lists next to it (not the contract's)
#   lag          the adjustment index of the month just before the effective date (the clause's lag ignored)
#   base         the base month of the original contract (Amendment 2 re-based it)
#   preliminary  the index value as first released (footnoted P) instead of the final value
#   share        the whole unit price escalated (the escalable share ignored)
#   footnote     the firm-fixed-price items of Schedule A's footnote escalated too
#   cap          the index change applied without the cap and floor
#   trigger      an adjustment made however small the index change (the trigger ignored)
import os
from decimal import ROUND_HALF_UP, Decimal

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass


def month_index(text):
    """'2025-03' as a month count (year * 12 + month - 1)."""
    y, m = str(text).strip()[:7].split("-")
    return int(y) * 12 + int(m) - 1


def month_text(k):
    return f"{k // 12:04d}-{k % 12 + 1:02d}"


def read_pull(folder, rel):
    """A BLS time-series download (series_id, year, period M01-M12, value, footnote_codes) as
    {(series, month): (value, preliminary)}; series ids are trimmed (BLS pads them) and M13 annual averages skipped."""
    out = {}
    for r in read_frame(folder, rel).to_dict("records"):
        period = str(r["period"]).strip().upper()
        if not period.startswith("M") or period == "M13":
            continue
        key = (str(r["series_id"]).strip().upper(), int(str(r["year"]).strip()) * 12 + int(period[1:]) - 1)
        out[key] = (float(r["value"]), "P" in str(r["footnote_codes"]).upper())
    return out


def index_value(pulls, series, month, naive=()):
    """The final value of ``series`` for ``month`` from the latest pull that carries it as final; with the
    ``preliminary`` shortcut the value as first released (the oldest pull that has the month)."""
    have = [p[(series, month)] for p in pulls if (series, month) in p]
    if not have:
        raise KeyError(f"{series} {month_text(month)} is in no download")
    if "preliminary" in naive:
        return have[0][0]
    final = [v for v, prelim in have if not prelim]
    if not final and naive:  # a shortcut reached a month not yet final: its latest release, as a hurried reader takes it
        return have[-1][0]
    if not final:
        raise KeyError(f"{series} {month_text(month)} has no final value yet")
    return final[-1]


def cents(x):
    return Decimal(repr(float(x))).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def new_price(price, share, applied_pct):
    """Current price x (1 + share x applied change), rounded to the cent half up."""
    return float(cents(float(price) * (1 + share * applied_pct / 100)))


def analyse(folder, P, naive=()):
    F = P["files"]
    pulls = [read_pull(folder, p["file"]) for p in F["pulls"]]
    series = (P["decoy_series"] if "series" in naive else P["series"]).upper()
    effective = month_index(P["effective"])
    base_m = month_index(P["original_base_month"] if "base" in naive else P["base_month"])
    adj_m = effective - 1 if "lag" in naive else effective - int(P["lag"])
    base = index_value(pulls, series, base_m, naive)
    adj = index_value(pulls, series, adj_m, naive)
    change = (adj / base - 1) * 100
    due = "trigger" in naive or abs(rnd(change, 2)) >= P["trigger"]
    applied = change if "cap" in naive else min(max(change, -P["floor"]), P["cap"])
    applied = applied if due else 0.0
    mark = P["ffp_mark"]
    sched = {}
    for r in read_frame(folder, F["schedule"]).to_dict("records"):
        item = str(r["item_no"]).strip()
        if item and mark not in item:  # the footnote row starts with the mark and has no item number
            sched[item] = r
    shares = {k.strip().lower(): v for k, v in P["shares"].items()}
    proposed = {str(r["item_no"]).strip(): float(r["proposed_price"])
                for r in read_frame(folder, F["proposal"]).to_dict("records")}
    items = []
    for r in read_frame(folder, F["prices"]).to_dict("records"):
        item = str(r["item_no"]).strip()
        s = sched[item]
        fixed = mark in str(s["description"])
        share = 1.0 if "share" in naive else shares[str(s["category"]).strip().lower()]
        if fixed and "footnote" not in naive:
            share = 0.0
        price, qty = float(r["unit_price"]), float(r["annual_qty"])
        new = new_price(price, share, applied)
        items.append({"item": item, "description": str(r["description"]).strip(), "current": price, "new": new,
                      "share": share, "fixed": fixed, "qty": qty, "proposed": proposed[item]})
    cost = sum((cents(i["new"]) - cents(i["current"])) * Decimal(repr(i["qty"])) for i in items)
    over = sum((cents(i["proposed"]) - cents(i["new"])) * Decimal(repr(i["qty"])) for i in items)
    return {"series": P["series"], "base_month": month_text(base_m), "adj_month": month_text(adj_m),
            "base_index": base, "adj_index": adj, "change": rnd(change, 2), "change_raw": change,
            "applied": rnd(applied, 2), "decision": bool(due), "items": items,
            "repriced": sum(1 for i in items if i["new"] != i["current"]),
            "annual_cost": float(cents(cost)), "overclaim": float(cents(over)),
            "premise": abs(rnd(change, 2) - float(P["claim"])) < 0.005}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['series']}: {facts['series']}", f"{L['base_index']}: {facts['base_index']:.3f}",
            f"{L['adj_index']}: {facts['adj_index']:.3f}", f"{L['change']}: {facts['change']:.2f}",
            f"{L['applied']}: {facts['applied']:.2f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['repriced']}: {facts['repriced']}", f"{L['annual_cost']}: {facts['annual_cost']:.2f}",
            f"{L['overclaim']}: {facts['overclaim']:.2f}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["out_columns"]
    write_table(os.path.join(output_dir, D["table"]), [C["item"], C["current"], C["new"], C["effective"]],
                [[i["item"], f"{i['current']:.2f}", f"{i['new']:.2f}", P["effective"]] for i in facts["items"]])
    lines = [f"- {i['item']} {i['description']}: current {i['current']:.2f} USD, allowed {i['new']:.2f} USD"
             + (" (firm-fixed price, not adjusted)" if i["fixed"] else "") for i in facts["items"]]
    verdict = (f"The index change of {facts['change']:.2f} % meets the trigger, so an adjustment of "
               f"{facts['applied']:.2f} % on the escalable share of each price is due from {P['effective']}."
               if facts["decision"] else
               f"The index change of {facts['change']:.2f} % is below the trigger of {P['trigger']:g} %, so no "
               "adjustment is due this contract year and current prices stand.")
    claim = ("Your stated index change agrees with ours." if facts["premise"] else
             f"Your letter states an index change of {P['claim']:.2f} %, which the clause does not support.")
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"To: {P['vendor']}", f"Re: Request for price adjustment under clause 7, contract {P['contract']}", "",
        "Dear Sir or Madam,", "",
        f"We have checked your request against clause 7 of the contract as amended. The index is {facts['series']}, "
        f"not seasonally adjusted, final values. The base index is that of {facts['base_month']} (Amendment 2) and "
        f"the adjustment index that of {facts['adj_month']}, {P['lag']} months before the effective date.",
        verdict, claim, "", "Allowed unit prices:", *lines, "",
        "Firm-fixed-price items of Schedule A are not adjusted; the other items are adjusted on their category's "
        "escalable share only. Please invoice at the allowed prices above.", "", "Yours faithfully"])
