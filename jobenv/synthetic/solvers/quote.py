# ---- jobenv workflow ground truth: a multi-site instrument quote with tiers, service, freight and approval ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the files, the quote
# date, the discount policy's figures (bundle discount, service rate, margin floor, approval bands), the service
# term the RFQ asks for and the deliverables; ``naive`` names the shortcuts a hurried account manager takes:
#   per_site        quantity tiers looked up on each site's quantity instead of the combined order
#   old_price_book  the price book's older effective date read as the list price
#   service_net     the service contract priced on the discounted equipment instead of list
#   no_freight      freight to the sites left out of the quote (and of its cost)
#   promo           the expired promotion price the customer cites used for the promoted instrument
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _num(v):
    text = str(v).replace(",", "").replace("$", "").replace("%", "").strip()
    return float(text) if text else 0.0


def tier_pct(tiers, family, qty):
    """The volume discount % of the tier whose [min, max] holds ``qty`` (a blank max is open-ended)."""
    for t in tiers:
        if t["family"] == family and t["min"] <= qty and (t["max"] is None or qty <= t["max"]):
            return t["pct"]
    return 0.0


def unit_net(list_price, tier, bundle):
    """List less the tier discount, then less the bundle discount, to the cent."""
    return rnd(list_price * (100 - tier) * (100 - bundle) / 10000, 2)


def margin_pct(price, cost):
    """Gross margin on price: (price - cost) / price, in % to 2 places."""
    return rnd((price - cost) / price * 100, 2)


def approval(discount, margin, P):
    """The highest level the approval matrix requires for the discount off list and the margin."""
    A, levels = P["approval"], P["approval_levels"]
    if margin < P["floor"] - A["cfo_gap"]:
        return levels[3]
    if margin < P["floor"] or discount > A["director_max"]:
        return levels[2]
    if discount > A["owner_max"]:
        return levels[1]
    return levels[0]


def _current(rows, date, old):
    """sku -> the price row in force on ``date`` (latest effective_from on or before it); with ``old`` the row
    before that one."""
    out = {}
    for sku in {r["sku"] for r in rows}:
        dated = sorted((r for r in rows if r["sku"] == sku and r["effective_from"][:10] <= date),
                       key=lambda r: r["effective_from"][:10])
        out[sku] = dated[-2] if old and len(dated) > 1 else dated[-1]
    return out


def analyse(folder, P, naive=()):
    """The graded facts from the task folder. A missing file, sheet or column raises (OSError, KeyError)."""
    F = P["files"]
    book = [{k: str(v).strip() for k, v in r.items()} for r in
            read_frame(folder, F["price_book"], P["price_sheet"]).to_dict("records")]
    prices = _current(book, P["quote_date"], "old_price_book" in naive)
    tiers = [{"family": r["family"].strip(), "min": _num(r["min_qty"]), "pct": _num(r["discount_pct"]),
              "max": _num(r["max_qty"]) if str(r["max_qty"]).strip() else None}
             for r in read_frame(folder, F["price_book"], P["tier_sheet"]).to_dict("records")]
    costs = {r["sku"].strip(): r for r in read_frame(folder, F["costs"]).to_dict("records")}
    sched = [r for r in read_frame(folder, F["rfq"], P["lines_sheet"]).to_dict("records") if _num(r["qty"]) > 0]
    sites = read_frame(folder, F["rfq"], P["sites_sheet"]).to_dict("records")
    zones = {r["state"].strip(): r["zone"].strip() for r in read_frame(folder, F["freight"], "Zones").to_dict("records")}
    rates = {r["zone"].strip(): r for r in read_frame(folder, F["freight"], "Rates").to_dict("records")}
    combined: dict = {}
    for r in sched:
        combined[r["sku"].strip()] = combined.get(r["sku"].strip(), 0.0) + _num(r["qty"])
    rows = []
    for r in sched:
        sku, site, qty = r["sku"].strip(), r["site"].strip(), _num(r["qty"])
        p = prices[sku]
        lst = _num(p["list_price"])
        tier = tier_pct(tiers, p["family"], qty if "per_site" in naive else combined[sku])
        net = unit_net(lst, tier, P["bundle_pct"])
        typed = "promo" in naive and sku == P["promo_sku"]
        if typed:
            net = P["promo_price"]
        rows.append({"site": site, "sku": sku, "description": p["description"], "family": p["family"],
                     "eligible": p["service_eligible"].lower() == "yes", "typed": typed, "qty": qty, "combined": combined[sku],
                     "list": lst, "tier": tier, "bundle": P["bundle_pct"], "net": net, "ext": rnd(net * qty, 2),
                     "list_ext": rnd(lst * qty, 2), "cost": _num(costs[sku]["standard_cost"]),
                     "svc_cost": _num(costs[sku]["service_cost_per_year"])})
    eq_list = rnd(sum(r["list_ext"] for r in rows), 2)
    eq_net = rnd(sum(r["ext"] for r in rows), 2)
    base = sum(r["ext"] if "service_net" in naive else r["list_ext"] for r in rows if r["eligible"])
    years = P["service_years"]
    service = rnd(P["service_rate"] / 100 * base * years, 2)
    freight = []
    for s in sites:
        name = s["site"].strip()
        units = sum(r["qty"] for r in rows if r["site"] == name and r["family"] == P["instrument_family"])
        zone = zones[s["state"].strip()]
        rate = rates[zone]
        amount = 0.0 if "no_freight" in naive else rnd(_num(rate["per_shipment"]) + _num(rate["per_instrument"]) * units, 2)
        freight.append({"site": name, "state": s["state"].strip(), "zone": zone, "units": units,
                        "per_shipment": _num(rate["per_shipment"]), "per_instrument": _num(rate["per_instrument"]),
                        "freight": amount})
    freight_total = rnd(sum(f["freight"] for f in freight), 2)
    total = rnd(eq_net + service + freight_total, 2)
    cost = rnd(sum(r["cost"] * r["qty"] for r in rows) + sum(r["svc_cost"] * r["qty"] * years for r in rows
                                                             if r["eligible"]) + freight_total, 2)
    margin = margin_pct(total, cost)
    discount = rnd((1 - eq_net / eq_list) * 100, 2)
    named = next(r for r in rows if r["site"] == P["named_site"] and r["sku"] == P["promo_sku"])
    return {"rows": rows, "freight": freight, "eq_list": eq_list, "eq_net": eq_net, "service": service,
            "freight_total": freight_total, "total": total, "cost": cost, "margin": margin, "discount": discount,
            "approval": approval(discount, margin, P), "service_on_net": "service_net" in naive, "named": named["ext"], "named_unit": named["net"],
            "decision": bool(margin >= P["floor"]), "premise": bool(named["net"] <= P["promo_price"])}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['total']}: {facts['total']:.2f}", f"{L['discount']}: {facts['discount']:.2f}",
            f"{L['service']}: {facts['service']:.2f}", f"{L['freight']}: {facts['freight_total']:.2f}",
            f"{L['margin']}: {facts['margin']:.2f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['approval']}: {facts['approval']}", f"{L['named']}: {facts['named']:.2f}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def _workbook(path, P, facts):
    """Sheet Quote (one row per site and SKU: combined quantity, unit net, extended and list extended are live
    formulas), sheet Freight (per-site freight formulas) and sheet Summary (totals, service, cost and margin)."""
    from openpyxl import Workbook

    C, L, rows = P["out_columns"], P["labels"], facts["rows"]
    wb = Workbook()
    ws = wb.active
    ws.title = P["sheet"]
    keys = ["site", "sku", "description", "eligible", "qty", "combined", "list", "tier", "bundle", "net", "ext",
            "list_ext", "cost", "svc_cost"]
    ws.append([C[k] for k in keys])
    n = len(rows) + 1
    for i, r in enumerate(rows, 2):
        ws.append([r["site"], r["sku"], r["description"], "yes" if r["eligible"] else "no", r["qty"],
                   f"=SUMIF($B$2:$B${n},B{i},$E$2:$E${n})", r["list"], r["tier"], r["bundle"],
                   r["net"] if r["typed"] else f"=ROUND(G{i}*(100-H{i})*(100-I{i})/10000,2)",
                   f"=ROUND(E{i}*J{i},2)", f"=ROUND(E{i}*G{i},2)", r["cost"], r["svc_cost"]])
    fr = wb.create_sheet("Freight")
    fr.append(["Site", "State", "Zone", "Instrument units", "Per shipment", "Per instrument", C["freight"]])
    m = len(facts["freight"]) + 1
    for i, f in enumerate(facts["freight"], 2):
        fr.append([f["site"], f["state"], f["zone"], f["units"], f["per_shipment"], f["per_instrument"],
                   0 if f["freight"] == 0 else f"=ROUND(E{i}+F{i}*D{i},2)"])
    q = P["sheet"]
    base = "K" if facts["service_on_net"] else "L"
    s = wb.create_sheet("Summary")
    s.append(["Line", "Value"])
    for line in (["Equipment at list", f"=SUM('{q}'!L2:L{n})"], ["Equipment net", f"=SUM('{q}'!K2:K{n})"],
                 [L["discount"], "=ROUND((1-B3/B2)*100,2)"], ["Service rate % a year", P["service_rate"]],
                 ["Service years", P["service_years"]],
                 [L["service"], f"=ROUND(B5/100*SUMIF('{q}'!D2:D{n},\"yes\",'{q}'!{base}2:{base}{n})*B6,2)"],
                 [L["freight"], f"=SUM(Freight!G2:G{m})"], [L["total"], "=ROUND(B3+B7+B8,2)"],
                 ["Cost", f"=ROUND(SUMPRODUCT('{q}'!E2:E{n},'{q}'!M2:M{n})+SUMPRODUCT(('{q}'!D2:D{n}=\"yes\")*"
                          f"'{q}'!E2:E{n}*'{q}'!N2:N{n})*B6+B8,2)"],
                 [L["margin"], "=ROUND((B9-B10)/B9*100,2)"], ["Margin floor %", P["floor"]],
                 [L["approval"], facts["approval"]]):
        s.append(line)
    wb.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, L = P["deliverables"], P["labels"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"Equipment at list {facts['eq_list']:.2f}, net {facts['eq_net']:.2f}; cost {facts['cost']:.2f}.",
        "Method: list prices from the price book in force on the quote date; volume tiers on each SKU's quantity "
        "combined across the sites; the bundle discount on every equipment line; service on the list price of the "
        "covered instruments per year times the term; freight per site from the rate card; margin = (price - cost) "
        "/ price against the floor; the approval matrix's highest level applies. The promotion the customer cites "
        "has expired and is not applied."])
    lines = [f"- {r['site']}: {r['qty']:g} x {r['sku']} {r['description']} at {r['net']:.2f} = {r['ext']:.2f}"
             for r in facts["rows"]]
    freight = [f"- Freight to {f['site']}: {f['freight']:.2f}" for f in facts["freight"]]
    write_memo(os.path.join(output_dir, D["letter"]), [
        f"Dear {P['customer_contact']},", "",
        f"Thank you for your request for quotation {P['rfq_id']}. Our quotation for the three sites follows.",
        f"{L['total']}: {facts['total']:.2f}", "", *lines,
        f"- Service contract, {P['service_years']} years, covering every instrument: {facts['service']:.2f}", *freight,
        "", "Volume pricing is based on the combined quantities of the order across your sites. The "
        "promotion price you mention ended before this quotation and is not included.", "",
        "Kind regards,", P["sender"]])
