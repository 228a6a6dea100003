# ---- jobenv workflow ground truth: reorder points and EOQ order quantities before peak season (online merchants) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the exports, the demand
# window, the replenishment policy's rules (service level per ABC class, z table, order cost, holding rate), the
# supplier lead times the notices state and the deliverables; ``naive`` names the shortcuts a hurried merchant takes:
#   web_only       the marketplace export left out
#   cancelled      cancelled and returned order lines counted as demand
#   bundles        bundle sales not exploded into the component SKUs they consume
#   stockouts      stock-out days kept in the mean and standard deviation (as zero-demand days)
#   old_lead_time  the main supplier's superseded lead-time notice
#   po_cases       open purchase-order quantities (in cases) read as units
#   no_pack        the EOQ rounded up to whole units instead of whole case packs
import datetime
import math
import os
import statistics

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _num(v):
    text = str(v).replace(",", "").replace("$", "").strip()
    return float(text) if text else 0.0


def _day(v):
    return datetime.date.fromisoformat(str(v).strip()[:10])


def safety_stock(z, sd, lead):
    """z x sigma_d x sqrt(L), in units."""
    return z * sd * math.sqrt(lead)


def eoq(annual_units, order_cost, holding_rate, unit_cost):
    """Economic order quantity sqrt(2 D S / H), with H = holding rate x unit cost a year."""
    return math.sqrt(2 * annual_units * order_cost / (holding_rate * unit_cost))


def round_up(qty, pack):
    """``qty`` rounded up to a whole number of ``pack``s."""
    return int(math.ceil(qty / pack - 1e-9) * pack)


def abc_classes(revenue, a_cut, b_cut):
    """SKU -> A/B/C: ranked by revenue (ties by SKU), A while the cumulative share including the SKU is at most
    ``a_cut`` %, B while at most ``b_cut`` %, C after."""
    total = sum(revenue.values())
    out, cum = {}, 0.0
    for sku in sorted(revenue, key=lambda s: (-revenue[s], s)):
        cum += revenue[sku]
        share = 100 * cum / total
        out[sku] = "A" if share <= a_cut + 1e-9 else "B" if share <= b_cut + 1e-9 else "C"
    return out


def analyse(folder, P, naive=()):
    """The graded facts from the task folder. A missing file, sheet or column raises (OSError, KeyError)."""
    F, W = P["files"], P["columns"]
    start, end = _day(P["window"][0]), _day(P["window"][1])
    days = [start + datetime.timedelta(days=k) for k in range((end - start).days + 1)]
    master = read_frame(folder, F["master"], P["master_sheet"]).to_dict("records")
    recipe: dict = {}
    for r in read_frame(folder, F["master"], P["bundle_sheet"]).to_dict("records"):
        recipe.setdefault(r["bundle_sku"].strip(), []).append((r["component_sku"].strip(), _num(r["units_per_bundle"])))
    skip = set() if "cancelled" in naive else {s.lower() for s in P["exclude_status"]}
    units: dict = {}
    channels = [("web", F["web"])] + ([] if "web_only" in naive else [("market", F["market"])])
    for ch, rel in channels:
        c = W[ch]
        for r in read_frame(folder, rel).to_dict("records"):
            d = _day(r[c["date"]])
            if str(r[c["status"]]).strip().lower() in skip or not start <= d <= end:
                continue
            sku, qty = str(r[c["sku"]]).strip(), _num(r[c["qty"]])
            if sku in recipe and "bundles" in naive:
                continue
            for comp, per in recipe.get(sku, [(sku, 1.0)]):
                units[(comp, d)] = units.get((comp, d), 0.0) + qty * per
    out = set()
    if "stockouts" not in naive:
        for r in read_frame(folder, F["stockouts"]).to_dict("records"):
            a, b = _day(r["first_day_out"]), _day(r["last_day_out"])
            out |= {(r["sku"].strip(), a + datetime.timedelta(days=k)) for k in range((b - a).days + 1)}
    on_hand = {r["sku"].strip(): _num(r["on_hand"]) for r in read_frame(folder, F["stock"]).to_dict("records")}
    packs = {r["sku"].strip(): int(_num(r["case_pack"])) for r in master}
    on_order: dict = {}
    for r in read_frame(folder, F["pos"]).to_dict("records"):
        if str(r["status"]).strip().lower() == "open":
            sku = r["sku"].strip()
            on_order[sku] = on_order.get(sku, 0) + _num(r["qty"]) * (1 if "po_cases" in naive else packs[sku])
    leads = dict(P["lead_times"])
    if "old_lead_time" in naive:
        leads.update(P["old_lead_times"])
    rows, daily, revenue = [], {}, {}
    for m in master:
        sku = m["sku"].strip()
        series = [None if (sku, d) in out else units.get((sku, d), 0.0) for d in days]
        daily[sku] = series
        revenue[sku] = sum(v for v in series if v) * _num(m["list_price"])
    classes = abc_classes(revenue, P["abc_cuts"][0], P["abc_cuts"][1])
    for m in master:
        sku = m["sku"].strip()
        vals = [v for v in daily[sku] if v is not None]
        mean, sd = statistics.fmean(vals), statistics.stdev(vals)
        lead = float(leads[m["supplier"].strip()])
        z = float(P["z_table"][str(P["service_levels"][classes[sku]])])
        ss = safety_stock(z, sd, lead)
        rop = mean * lead + ss
        cost, pack = _num(m["unit_cost"]), packs[sku]
        q = eoq(mean * 365, P["order_cost"], P["holding_rate"] / 100, cost)
        qty = round_up(q, 1 if "no_pack" in naive else pack)
        position = on_hand.get(sku, 0.0) + on_order.get(sku, 0.0)
        flag = position <= rop
        rows.append({"sku": sku, "supplier": m["supplier"].strip(), "class": classes[sku], "z": z,
                     "mean": rnd(mean, 2), "sd": rnd(sd, 2), "lead": lead, "ss": rnd(ss, 2), "rop": rnd(rop, 2),
                     "rop_raw": rop, "annual": rnd(mean * 365, 2), "cost": cost, "eoq": rnd(q, 2), "pack": pack,
                     "qty": qty, "on_hand": on_hand.get(sku, 0.0), "on_order": on_order.get(sku, 0.0),
                     "position": position, "flag": yes_no(flag), "value": rnd(qty * cost if flag else 0.0, 2)})
    named = next(r for r in rows if r["sku"] == P["named_sku"])
    total = rnd(sum(r["value"] for r in rows), 2)
    return {"rows": rows, "daily": daily, "days": [d.isoformat() for d in days], "no_pack": "no_pack" in naive,
            "reorder_count": sum(r["flag"] == "yes" for r in rows), "po_total": total,
            "a_count": sum(r["class"] == "A" for r in rows), "lead_main": float(leads[P["main_supplier"]]),
            "named_rop": named["rop"], "decision": bool(total <= P["budget"]), "premise": named["flag"] == "no"}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['reorder_count']}: {facts['reorder_count']}", f"{L['po_total']}: {facts['po_total']:.2f}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['a_count']}: {facts['a_count']}",
            f"{L['lead']}: {facts['lead_main']:g}", f"{L['named_rop']}: {facts['named_rop']:.2f}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def _col(k):
    """Spreadsheet column letters of the 1-based index ``k``."""
    s = ""
    while k:
        k, r = divmod(k - 1, 26)
        s = chr(65 + r) + s
    return s


def _workbook(path, P, facts):
    """Daily (in-window demand per SKU, stock-out days blank so AVERAGE and STDEV skip them), Inputs, and the
    Reorder sheet whose statistics, safety stock, ROP, EOQ, order quantity, position, flag and value are formulas."""
    from openpyxl import Workbook

    C = P["out_columns"]
    wb = Workbook()
    ws = wb.active
    ws.title = P["sheet"]
    daily = wb.create_sheet("Daily")
    skus = [r["sku"] for r in facts["rows"]]
    daily.append(["date"] + skus)
    for k, d in enumerate(facts["days"]):
        daily.append([d] + [facts["daily"][s][k] for s in skus])
    last = len(facts["days"]) + 1
    inp = wb.create_sheet("Inputs")
    for row in (("Parameter", "Value"), ("Order cost per order (USD)", P["order_cost"]),
                ("Holding cost rate per year", P["holding_rate"] / 100), ("Days per year", 365)):
        inp.append(list(row))
    keys = ["sku", "supplier", "class", "z", "mean", "sd", "lead", "ss", "rop", "annual", "cost", "eoq", "pack", "qty",
            "on_hand", "on_order", "position", "flag", "value"]
    ws.append([C[k] for k in keys])
    x = {k: _col(i + 1) for i, k in enumerate(keys)}
    for i, r in enumerate(facts["rows"], 2):
        col = _col(i)  # the SKU's column in Daily (column A holds the dates)
        f = {k: f"{x[k]}{i}" for k in keys}
        qty = f"=ROUNDUP({f['eoq']},0)" if facts["no_pack"] else f"=ROUNDUP({f['eoq']}/{f['pack']},0)*{f['pack']}"
        ws.append([r["sku"], r["supplier"], r["class"], r["z"], f"=AVERAGE(Daily!{col}2:{col}{last})",
                   f"=STDEV(Daily!{col}2:{col}{last})", r["lead"], f"={f['z']}*{f['sd']}*SQRT({f['lead']})",
                   f"={f['mean']}*{f['lead']}+{f['ss']}", f"={f['mean']}*Inputs!B4", r["cost"],
                   f"=SQRT(2*{f['annual']}*Inputs!B2/(Inputs!B3*{f['cost']}))", r["pack"], qty, r["on_hand"],
                   r["on_order"], f"={f['on_hand']}+{f['on_order']}", f"=IF({f['position']}<={f['rop']},\"yes\",\"no\")",
                   f"=IF({f['flag']}=\"yes\",{f['qty']}*{f['cost']},0)"])
    n, s = len(facts["rows"]) + 1, wb.create_sheet("Summary")
    s.append(["Line", "Value"])
    s.append([P["labels"]["reorder_count"], f"=COUNTIF({P['sheet']}!{x['flag']}2:{x['flag']}{n},\"yes\")"])
    s.append([P["labels"]["po_total"], f"=ROUND(SUM({P['sheet']}!{x['value']}2:{x['value']}{n}),2)"])
    s.append([P["labels"]["a_count"], f"=COUNTIF({P['sheet']}!{x['class']}2:{x['class']}{n},\"A\")"])
    wb.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    po = [f"- {r['sku']} from {r['supplier']}: {r['qty']} units ({r['qty'] // r['pack']} cases of {r['pack']}), "
          f"{r['value']:.2f} USD" for r in sorted(facts["rows"], key=lambda r: r["supplier"]) if r["flag"] == "yes"]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + ["", "## Purchase orders", ""] + po + [
        "", "Method: daily demand from the web shop and marketplace exports without cancelled or returned lines, "
        "bundles exploded into their components, stock-out days left out; safety stock = z x sigma_d x sqrt(L) at "
        "the service level of the SKU's ABC class, L from each supplier's current notice; ROP = mean x L + safety "
        "stock; EOQ rounded up to whole case packs; reorder when on hand plus open POs (in units) is at or below "
        "the ROP."])
