"""Reorder points and EOQ order quantities for an online shop's SKUs before peak season (online merchants).

A home-and-kitchen shop of 10-14 stocked SKUs from three suppliers (the main one supplies about 55 %) and two bundle
SKUs (gift sets of two components, 1-2 units each) is generated over a 91-day demand window ending the day before a
stock snapshot in August or September. Daily demand per SKU is Poisson around a gamma-distributed rate (shape 3)
whose mean is log-normal (median 3.5 units a day, sigma 0.8, clipped to 0.4-25); 15-45 % of an SKU's units sell on
a marketplace whose orders come in a second export. About 3 % of lines are returned and 5 % of orders are
cancelled (as are 0-2 orders on each stock-out day); 3-4 SKUs have a stock-out run of 4-9 days with no sales. List
prices 12-48, unit costs 35-55 % of price, case packs of 6-48. The main supplier's current lead time is 21-35 days
and its superseded notice 7-12 days shorter; the others quote 10-24 days. Order cost 30-75 USD an order, holding
18-28 % a year. Inventory positions are set 30-90 % (to reorder) or 110-200 % of the reorder point, with about
40 % of SKUs on open purchase orders counted in cases; the owner's budget is 3-30 % above or below the PO total.

Failure behaviour: ``draw`` raises DegenerateTask when a position, a cumulative revenue share or an EOQ sits on a
boundary, fewer than two SKUs fall on either side of the reorder point, or a planted trap moves no graded figure;
``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, read_rows, write_files

__all__ = ["REORDER_POINTS"]

_PRODUCTS = (("Ceramic pour-over dripper", 28.0), ("Glass carafe 600 ml", 22.0), ("Bamboo serving board", 35.0),
             ("Linen tea towel set", 18.0), ("Enamel camping mug", 14.0), ("Cast iron trivet", 19.0),
             ("Stoneware mixing bowl", 42.0), ("Walnut salad servers", 26.0), ("Beeswax food wraps, 3 pack", 16.0),
             ("Copper measuring cups", 38.0), ("Olive wood spoon", 12.0), ("Borosilicate tumbler pair", 24.0),
             ("Cotton apron", 29.0), ("Marble mortar and pestle", 48.0), ("Hand-thrown espresso cup", 17.0),
             ("Matcha whisk set", 32.0), ("Recycled glass vase", 27.0), ("Soy wax candle", 21.0))
_SUPPLIERS = ("Nordic Clay Works", "Pacific Homeware Trading", "Greenleaf Textiles", "Atlas Kitchen Supply",
              "Harbor Glass Co.")
_MARKETS = ("Marketly", "ShopHub", "Bazaarly")
_Z = {"90": 1.28, "92": 1.41, "95": 1.65, "97": 1.88, "98": 2.05, "99": 2.33}
_LABELS = {
    "reorder_count": ("SKUs to reorder now", "Number of SKUs at or below the reorder point", "SKUs triggering a PO"),
    "po_total": ("Purchase order total (USD)", "Recommended PO value", "Total cost of the recommended orders"),
    "decision": ("Fits the stock budget", "Within the cash budget for stock", "PO affordable from the budget"),
    "a_count": ("Class A SKUs", "SKUs in class A", "Number of A items"),
    "lead": ("Lead time used for {sup} (days)", "{sup} lead time (days)", "Days of lead time, {sup}"),
    "named_rop": ("Reorder point for {sku}", "{sku} reorder point (units)", "ROP, {sku}"),
    "premise": ("{sku} can wait until after peak", "{sku} stock covers the lead time", "No reorder needed for {sku}"),
}
_OUT = {"sku": ("sku", "item_sku"), "supplier": ("supplier", "vendor"), "class": ("abc_class", "revenue_class"),
        "z": ("z_value", "z_score"), "mean": ("mean_daily_demand", "avg_daily_units"),
        "sd": ("sd_daily_demand", "daily_demand_sd"), "lead": ("lead_time_days", "supplier_lead_days"),
        "ss": ("safety_stock", "buffer_units"), "rop": ("reorder_point", "rop_units"),
        "annual": ("annual_demand", "yearly_units"), "cost": ("unit_cost", "cost_per_unit"),
        "eoq": ("eoq", "economic_order_qty"), "pack": ("case_pack", "units_per_case"), "qty": ("order_qty", "order_units"),
        "on_hand": ("on_hand", "units_in_stock"), "on_order": ("on_order_units", "inbound_units"),
        "position": ("inventory_position", "stock_position"), "flag": ("reorder_now", "below_rop"),
        "value": ("po_value", "order_value")}
_WEB = ({"id": "order_id", "date": "created_at", "sku": "sku", "qty": "quantity", "price": "unit_price", "status": "status"},
        {"id": "order_number", "date": "order_date", "sku": "line_sku", "qty": "qty", "price": "price",
         "status": "fulfillment_status"})
_WEB_STATUS = (("fulfilled", "cancelled", "refunded"), ("shipped", "voided", "returned"))
_MARKET = {"id": "order-id", "date": "purchase-date", "sku": "sku", "qty": "quantity-purchased", "price": "item-price",
           "status": "order-status"}
_DIRS = {"shop": ("shop_exports", "webstore", "exports/shop"), "ops": ("ops", "operations", "policies"),
         "market": ("marketplace", "exports/marketplace", "channels/marketplace"),
         "inv": ("inventory", "warehouse", "stock"), "buy": ("purchasing", "buying", "procurement")}
SHORTCUTS = ("web_only", "cancelled", "bundles", "stockouts", "old_lead_time", "po_cases", "no_pack")


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: a (SKU, day) ledger of units shipped,
    components credited per bundle, stock-out days dropped, then the policy's formulas row by row."""
    folder, F, W = Path(folder), P["files"], P["columns"]
    lo, hi = P["window"]
    master = read_rows(folder / F["master"], P["master_sheet"])
    recipe: dict[str, list[tuple[str, float]]] = {}
    for r in read_rows(folder / F["master"], P["bundle_sheet"]):
        recipe.setdefault(r["bundle_sku"], []).append((r["component_sku"], float(r["units_per_bundle"])))
    excluded = {s.lower() for s in P["exclude_status"]}
    sold: dict[tuple[str, str], float] = {}
    for channel in ("web", "market"):
        c = W[channel]
        for r in read_rows(folder / F[channel]):
            day = r[c["date"]][:10]
            if r[c["status"]].strip().lower() not in excluded and lo <= day <= hi:
                for sku, per in recipe.get(r[c["sku"]], [(r[c["sku"]], 1.0)]):
                    sold[(sku, day)] = sold.get((sku, day), 0.0) + float(r[c["qty"]]) * per
    first = dt.date.fromisoformat(lo)
    days = [iso(first + dt.timedelta(days=k)) for k in range((dt.date.fromisoformat(hi) - first).days + 1)]
    gone = {(r["sku"], d) for r in read_rows(folder / F["stockouts"]) for d in days
            if r["first_day_out"][:10] <= d <= r["last_day_out"][:10]}
    pack = {m["sku"]: int(float(m["case_pack"])) for m in master}
    stock = {r["sku"]: float(r["on_hand"]) for r in read_rows(folder / F["stock"])}
    for r in read_rows(folder / F["pos"]):
        if r["status"].lower() == "open":
            stock[r["sku"]] = stock.get(r["sku"], 0.0) + float(r["qty"]) * pack[r["sku"]]
    series = {m["sku"]: [sold.get((m["sku"], d), 0.0) for d in days if (m["sku"], d) not in gone] for m in master}
    revenue = sorted((-sum(series[m["sku"]]) * float(m["list_price"]), m["sku"]) for m in master)
    total_rev, running, cls = -sum(v for v, _ in revenue), 0.0, {}
    for v, sku in revenue:
        running -= v
        pct = running / total_rev * 100
        cls[sku] = "A" if pct <= P["abc_cuts"][0] + 1e-9 else ("B" if pct <= P["abc_cuts"][1] + 1e-9 else "C")
    rows: list[dict[str, Any]] = []
    for m in master:
        x = series[m["sku"]]
        n = len(x)
        mean = sum(x) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in x) / (n - 1))
        lead = float(P["lead_times"][m["supplier"]])
        ss = float(P["z_table"][str(P["service_levels"][cls[m["sku"]]])]) * sd * math.sqrt(lead)
        rop = mean * lead + ss
        cost = float(m["unit_cost"])
        q = math.sqrt(2 * mean * 365 * P["order_cost"] / (P["holding_rate"] / 100 * cost))
        qty = math.ceil(q / pack[m["sku"]] - 1e-9) * pack[m["sku"]]
        hit = stock.get(m["sku"], 0.0) <= rop
        rows.append({"sku": m["sku"], "class": cls[m["sku"]], "mean": rnd(mean, 2), "sd": rnd(sd, 2), "lead": lead,
                     "ss": rnd(ss, 2), "rop": rnd(rop, 2), "qty": qty, "position": stock.get(m["sku"], 0.0),
                     "flag": "yes" if hit else "no", "value": rnd(qty * cost if hit else 0.0, 2)})
    total = rnd(sum(r["value"] for r in rows), 2)
    named = next(r for r in rows if r["sku"] == P["named_sku"])
    return {"rows": rows, "reorder_count": sum(r["flag"] == "yes" for r in rows), "po_total": total,
            "a_count": sum(r["class"] == "A" for r in rows), "lead_main": float(P["lead_times"][P["main_supplier"]]),
            "named_rop": named["rop"], "decision": total <= P["budget"], "premise": named["flag"] == "no"}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _poisson(rng: random.Random, lam: float) -> int:
    if lam > 30:
        return max(0, round(rng.gauss(lam, math.sqrt(lam))))
    limit, k, p = math.exp(-lam), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def _shop(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(10, 14)
    prefix = rng.choice(("HK", "KT", "HM", "CW"))
    sups = rng.sample(_SUPPLIERS, 3)
    numbers = sorted(rng.sample(range(1001, 1999), n))
    main_set = set(rng.sample(range(n), max(5, round(n * 0.55))))
    skus: list[dict[str, Any]] = []
    for k, (name, price) in enumerate(rng.sample(_PRODUCTS, n)):
        skus.append({"sku": f"{prefix}-{numbers[k]}", "name": name, "price": price,
                     "cost": round(price * rng.uniform(0.35, 0.55), 2), "pack": rng.choice((6, 8, 10, 12, 20, 24, 36, 48)),
                     "supplier": sups[0] if k in main_set else rng.choice(sups[1:]),
                     "rate": min(25.0, max(0.4, math.exp(rng.gauss(math.log(3.5), 0.8)))),
                     "market": rng.uniform(0.15, 0.45)})
    comps = rng.sample(skus, 4)
    bundles = [{"sku": f"BND-{prefix}{k + 1}", "name": f"Gift set: {a['name']} + {b['name']}",
                "parts": [(a["sku"], rng.choice((1, 2))), (b["sku"], 1)], "rate": rng.uniform(0.6, 2.5),
                "market": rng.uniform(0.15, 0.45), "price": round(a["price"] + b["price"] - 5, 2)}
               for k, (a, b) in enumerate([comps[:2], comps[2:]])]
    snap = dt.date(rng.choice((2025, 2026)), rng.choice((8, 9)), rng.randint(1, 28))
    end = snap - dt.timedelta(days=1)
    start = end - dt.timedelta(days=90)
    outs = {}
    for s in rng.sample([s for s in skus if s not in comps], rng.randint(3, 4)):
        run = rng.randint(4, 9)
        a = start + dt.timedelta(days=rng.randint(5, 91 - run - 5))
        outs[s["sku"]] = (a, a + dt.timedelta(days=run - 1))
    return {"skus": skus, "bundles": bundles, "suppliers": sups, "snap": snap, "start": start, "end": end,
            "outs": outs, "prefix": prefix}


def _orders(rng: random.Random, b: dict[str, Any], status: tuple[str, str, str]) -> tuple[list[Any], list[Any]]:
    """Order lines (web, marketplace): (time, sku, qty, price, status, market?) drawn day by day."""
    lines: list[tuple[dt.date, dict[str, Any], int, int]] = []
    for k in range(91):
        d = b["start"] + dt.timedelta(days=k)
        for item in b["skus"] + b["bundles"]:
            out = b["outs"].get(item["sku"])
            units = 0 if out and out[0] <= d <= out[1] else _poisson(rng, rng.gammavariate(3, item["rate"] / 3))
            cancels = rng.randint(0, 2) if units == 0 and out and out[0] <= d <= out[1] else 0
            while units > 0:
                q = min(units, rng.choice((1, 1, 1, 2, 2, 3)))
                units -= q
                lines.append((d, item, q, 1 if rng.random() < 0.03 else 0))
                cancels += rng.random() < 0.05
            lines += [(d, item, rng.choice((1, 1, 2)), 2) for _ in range(cancels)]
    web: list[Any] = []
    market: list[Any] = []
    for d, item, q, st in lines:
        t = dt.datetime.combine(d, dt.time()) + dt.timedelta(minutes=rng.randint(0, 1439))
        if rng.random() < item["market"]:
            market.append((t, item["sku"], q, round(item["price"] * 1.1, 2), ("Shipped", "Returned", "Cancelled")[st]))
        else:
            web.append((t, item["sku"], q, item["price"], (status[0], status[2], status[1])[st]))
    web.sort(key=lambda r: (r[0], r[1]))
    market.sort(key=lambda r: (r[0], r[1]))
    return web, market


def _data(P: dict[str, Any], b: dict[str, Any], web: list[Any], market: list[Any], stock: dict[str, int],
          pos: list[list[Any]]) -> dict[str, Any]:
    F, Wc, Mc = P["files"], P["columns"]["web"], P["columns"]["market"]
    return {
        F["web"]: lambda p: write_csv(p, [Wc[k] for k in ("id", "date", "sku", "qty", "price", "status")], [
            [f"#{10400 + k}", t.strftime("%Y-%m-%d %H:%M:%S"), s, q, f"{pr:.2f}", st]
            for k, (t, s, q, pr, st) in enumerate(web)]),
        F["market"]: lambda p: write_csv(p, [Mc[k] for k in ("id", "date", "sku", "qty", "price", "status")], [
            [f"{202 + k % 700:03d}-{5100000 + k * 13:07d}-{(k * 7919) % 9999999:07d}", t.strftime("%Y-%m-%dT%H:%M:%S+00:00"),
             s, q, f"{pr:.2f}", st] for k, (t, s, q, pr, st) in enumerate(market)]),
        F["master"]: lambda p: write_xlsx(p, [
            (P["master_sheet"], ["sku", "description", "supplier", "list_price", "unit_cost", "case_pack", "status"],
             [[s["sku"], s["name"], s["supplier"], s["price"], s["cost"], s["pack"], "active"] for s in b["skus"]]),
            (P["bundle_sheet"], ["bundle_sku", "description", "component_sku", "units_per_bundle"],
             [[x["sku"], x["name"], c, q] for x in b["bundles"] for c, q in x["parts"]])]),
        F["stock"]: lambda p: write_csv(p, ["sku", "on_hand", "bin"], [
            [s["sku"], stock.get(s["sku"], 0), f"A{k + 1:02d}"] for k, s in enumerate(b["skus"])]),
        F["stockouts"]: lambda p: write_csv(p, ["sku", "first_day_out", "last_day_out", "note"], [
            [s, iso(a), iso(z), "sold out; back in stock after delivery"] for s, (a, z) in sorted(b["outs"].items())]),
        F["pos"]: lambda p: write_xlsx(p, [("Open POs", ["po_number", "supplier", "sku", "qty", "uom", "status",
                                                         "expected_date"], pos)]),
    }


def _positions(rng: random.Random, b: dict[str, Any], rops: dict[str, float]) -> tuple[dict[str, int], list[Any]]:
    skus = b["skus"]
    n = len(skus)
    low = set(rng.sample([s["sku"] for s in skus], rng.randint(math.ceil(n * 0.35), n // 2 + 1)))
    edge = rng.choice([s["sku"] for s in skus if s["supplier"] == b["suppliers"][0]])
    low.add(edge)  # just under its reorder point: a shorter (superseded) lead time would not reorder it
    inbound = rng.choice([s["sku"] for s in skus if s["sku"] not in low])
    stock, pos = {}, []
    for k, s in enumerate(skus):
        ratio = rng.uniform(0.8, 0.92) if s["sku"] == edge else rng.uniform(0.3, 0.9)
        target = rops[s["sku"]] * (ratio if s["sku"] in low else rng.uniform(1.1, 2.0))
        cases = 0
        if s["sku"] == inbound or rng.random() < 0.4:
            cases = max(1, round(target * rng.uniform(0.3, 0.6) / s["pack"]))
            pos.append([f"PO-{2300 + k}", s["supplier"], s["sku"], cases, "CS", "open",
                        iso(b["snap"] + dt.timedelta(days=rng.randint(3, 20)))])
        stock[s["sku"]] = max(0, round(target - cases * s["pack"]))
    for k, s in enumerate(rng.sample(skus, 2)):  # delivered last week: already in the on-hand count
        pos.append([f"PO-{2200 + k}", s["supplier"], s["sku"], rng.randint(2, 6), "CS", "received",
                    iso(b["snap"] - dt.timedelta(days=rng.randint(2, 6)))])
    pos.sort()
    return stock, pos


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.reorder import analyse

    prof = profession(occupation)
    b = _shop(rng)
    dirs = pick_labels(rng, _DIRS)
    wk = rng.randrange(2)
    status = _WEB_STATUS[rng.randrange(2)]
    market = rng.choice(_MARKETS)
    main = b["suppliers"][0]
    lead_new = rng.randint(21, 35)
    leads = {b["suppliers"][0]: lead_new, **{s: rng.randint(10, 24) for s in b["suppliers"][1:]}}
    levels = {"A": rng.choice((98, 99)), "B": rng.choice((95, 97)), "C": rng.choice((90, 92))}
    win = f"{b['start']:%Y%m%d}_{b['end']:%Y%m%d}"
    P: dict[str, Any] = {
        "files": {"web": f"{dirs['shop']}/orders_{win}.csv", "market": f"{dirs['market']}/{market.lower()}_orders_{win}.csv",
                  "master": "catalog/sku_master.xlsx", "stock": f"{dirs['inv']}/stock_on_hand_{iso(b['snap'])}.csv",
                  "stockouts": f"{dirs['inv']}/stockout_log.csv", "pos": f"{dirs['buy']}/open_purchase_orders.xlsx"},
        "columns": {"web": _WEB[wk], "market": _MARKET}, "master_sheet": "SKUs", "bundle_sheet": "Bundles",
        "exclude_status": [status[1], status[2], "Cancelled", "Returned"], "window": [iso(b["start"]), iso(b["end"])],
        "lead_times": leads, "old_lead_times": {main: lead_new - rng.randint(7, 12)}, "main_supplier": main,
        "abc_cuts": rng.choice(((80, 95), (70, 90))), "service_levels": levels, "z_table": _Z,
        "order_cost": float(rng.randint(30, 75)), "holding_rate": float(rng.choice((18, 20, 22, 24, 25, 28))),
        "named_sku": b["skus"][0]["sku"], "budget": 0.0, "labels": {}, "sheet": rng.choice(("Reorder", "SKUs", "Plan")),
        "out_columns": pick_labels(rng, _OUT), "ops_dir": dirs["ops"],
        "deliverables": {"workbook": rng.choice(("reorder_points.xlsx", "peak_replenishment.xlsx", "reorder_plan.xlsx")),
                         "memo": rng.choice(("po_recommendation.md", "purchase_order_memo.docx", "peak_po_memo.md"))}}
    web, mkt = _orders(rng, b, status)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)

        def write(stock: dict[str, int], pos: list[Any]) -> None:
            write_files(root, _data(P, b, web, mkt, stock, pos))

        write({}, [])
        first = analyse(tmp, P)
        stock, pos = _positions(rng, b, {r["sku"]: r["rop_raw"] for r in first["rows"]})
        write(stock, pos)
        truth = analyse(tmp, P)
        rows = truth["rows"]
        if any(abs(r["position"] - r["rop_raw"]) < 0.5 for r in rows):
            raise DegenerateTask("an inventory position sits on its reorder point")
        if any(abs(r["eoq"] / r["pack"] - round(r["eoq"] / r["pack"])) < 0.002 for r in rows):
            raise DegenerateTask("an EOQ sits on a whole number of case packs")
        price = {s["sku"]: s["price"] for s in b["skus"]}
        rev = sorted((-sum(v for v in truth["daily"][r["sku"]] if v) * price[r["sku"]], r["sku"]) for r in rows)
        cum = [sum(v for v, _ in rev[: k + 1]) / sum(v for v, _ in rev) * 100 for k in range(len(rev))]
        if any(abs(c - cut) < 0.1 for c in cum for cut in P["abc_cuts"]):
            raise DegenerateTask("a cumulative revenue share sits on an ABC cut")
        side = [r["sku"] for r in rows if (r["flag"] == "no") == targets["premise"]]
        if min(truth["reorder_count"], len(rows) - truth["reorder_count"]) < 2 or not side:
            raise DegenerateTask("too few SKUs on one side of the reorder point")
        P["named_sku"] = rng.choice(side)
        truth = analyse(tmp, P)
        tot = truth["po_total"]
        P["budget"] = (nice_between(tot * 1.03, tot * 1.3, 2) if targets["decision"]
                       else nice_between(tot * 0.7, tot * 0.97, 2))
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
    keys = ("mean", "sd", "ss", "rop", "qty", "position", "flag")
    if [r["flag"] for r in singles["old_lead_time"]["rows"]] == [r["flag"] for r in rows]:
        raise DegenerateTask("the superseded lead time changes no reorder flag")
    where = {"web_only": ("email", f"the {market} orders are in a second export"),
             "cancelled": ("memo", "cancelled and returned order lines are not demand"),
             "bundles": ("data", "bundle SKUs consume their components (SKU master, Bundles sheet)"),
             "stockouts": ("data", "stock-out days understate demand and are left out"),
             "old_lead_time": ("memo", f"{main}'s newer lead-time notice supersedes the older one"),
             "po_cases": ("footnote", "open purchase-order quantities are in cases"),
             "no_pack": ("memo", "order quantities round up to whole case packs")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k} for k, nf in singles.items()
             if any(a[x] != t[x] for a, t in zip(nf["rows"], truth["rows"], strict=True) for x in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    named = next(s for s in b["skus"] if s["sku"] == P["named_sku"])
    labels = pick_labels(rng, _LABELS)
    labels["lead"] = labels["lead"].format(sup=main)
    for k in ("named_rop", "premise"):
        labels[k] = labels[k].format(sku=P["named_sku"])
    P["labels"] = labels
    writers, roles = _workspace(rng, P, b, market, _data(P, b, web, mkt, stock, pos))
    L, D, C = labels, P["deliverables"], P["out_columns"]
    memo_labels = [(L["reorder_count"], "whole number"), (L["po_total"], "US dollars, 2 decimal places"),
                   (L["decision"], "yes or no"), (L["a_count"], "whole number"), (L["lead"], "whole number of days"),
                   (L["named_rop"], "units, 2 decimal places"), (L["premise"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role=rng.choice(prof.requesters), org=rng.choice(prof.orgs),
        subject="Reorder points and purchase orders before peak",
        purpose=rng.choice(("I need reorder points and order quantities for every SKU before peak season.",
                            "please work out which SKUs we must reorder before peak and how much to buy.",
                            "can you set the reorder points for peak and tell me what to put on the POs?")),
        about="the order exports, the SKU master, the stock snapshot and the purchase orders",
        belief=f"I'm fairly sure we have enough {P['named_sku']} ({named['name']}) to get through peak without "
               "reordering - please check.",
        table={"file": D["workbook"], "headers": list(C.values()), "unit": "stocked SKU of the SKU master"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"In {D['workbook']} the table is a sheet named {P['sheet']}; {C['flag']} is yes or no "
                            f"and {C['value']} is 0 for an SKU not reordered. {C['ss']}, {C['rop']}, {C['eoq']}, "
                            f"{C['qty']}, {C['position']}, {C['flag']} and {C['value']} are live formulas; demand "
                            "in units a day, lead time in days, quantities in units.",
                            f"In {D['memo']}, after its opening lines, list the purchase orders: each SKU to order "
                            "with its supplier, quantity in units and cases, and value."),
        policy=f"the replenishment policy in {dirs['ops']}/", files=sorted(writers))
    return Draft(subject="Reorder points and purchase orders before peak season", instructions=prompt, files=writers,
                 roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="10-14 SKUs, 3 suppliers, 2 bundles; 91 days; daily units Poisson-gamma (shape 3), "
                               "mean log-normal median 3.5 (sigma 0.8); marketplace share 15-45 %; returns 3 %, "
                               "cancellations 5 %; 3-4 stock-out runs of 4-9 days; lead time 21-35 days (old notice "
                               "7-12 shorter), others 10-24; order cost 30-75; holding 18-28 %")


def _policy(P: dict[str, Any], current: bool) -> list[str]:
    S, cuts = P["service_levels"], P["abc_cuts"]
    if not current:
        return ["Reorder policy (2023, withdrawn)", "- Reorder point = average daily web-shop sales x 14 days.",
                "- Safety stock: two weeks of average sales for every SKU.", "- Order one month of sales at a time."]
    return [
        "Replenishment policy - reorder points and order quantities (current)",
        f"- Demand window: the 91 days from {P['window'][0]} to {P['window'][1]} inclusive, all sales channels "
        "(the web shop and the marketplace, exported separately).",
        "- Demand is units shipped to customers: leave out order lines that were cancelled (voided) or returned "
        "(refunded).",
        "- Bundles are not stocked: each bundle sold consumes its components (units per bundle in the SKU master's "
        "Bundles sheet); count those units as demand for the components.",
        "- A day on which an SKU was out of stock (the stock-out log) understates its demand: leave that day out of "
        "the SKU's mean and standard deviation. Every other day of the window counts, a day without orders as zero.",
        "- sigma_d is the sample standard deviation (n - 1) of those daily units.",
        "- Lead time L: calendar days from the supplier's current lead-time notice; a later notice supersedes an "
        "earlier one.",
        f"- ABC class by share of revenue (demand units in the window x list price), ranked from the highest: A while "
        f"the cumulative share including the SKU is at most {cuts[0]} %, B while at most {cuts[1]} %, C after.",
        f"- Cycle service level: class A {S['A']} %, class B {S['B']} %, class C {S['C']} %; z from the table below.",
        "- Safety stock = z x sigma_d x sqrt(L). Reorder point = mean daily demand x L + safety stock (units).",
        f"- Order quantity: the EOQ = sqrt(2 x D x S / H), with D = mean daily demand x 365, S = {P['order_cost']:.2f} "
        f"USD per order and H = {P['holding_rate']:g} % of the unit cost a year, rounded up to whole case packs.",
        "- Reorder an SKU when its inventory position (on hand + open purchase orders, in units) is at or below its "
        "reorder point. PO value = order quantity x unit cost.",
        "- Rounding: half up; daily demand, standard deviation, safety stock, reorder points and EOQ to 2 decimal "
        "places, money to the cent.",
        "z for a cycle service level (standard normal, one-sided): " + "; ".join(f"{k} %: {v:.2f}" for k, v in _Z.items())]


def _workspace(rng: random.Random, P: dict[str, Any], b: dict[str, Any], market: str,
               data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    main, snap = P["main_supplier"], b["snap"]
    inv, buy = P["files"]["stock"].rsplit("/", 1)[0], P["files"]["pos"].rsplit("/", 1)[0]
    new_day, old_day = snap - dt.timedelta(days=rng.randint(5, 20)), snap - dt.timedelta(days=rng.randint(120, 300))
    slug = lambda s: s.split()[0].lower()  # noqa: E731
    add(f"{P['ops_dir']}/replenishment_policy.docx", "policy",
        lambda p: write_docx(p, "Replenishment policy", _policy(P, True)))
    add(f"{P['ops_dir']}/archive/reorder_policy_2023.pdf", "stale",
        lambda p: write_pdf(p, "Reorder policy 2023", _policy(P, False)))
    add(f"suppliers/{slug(main)}/lead_time_notice_{iso(new_day)}.pdf", "policy", lambda p: write_pdf(
        p, f"{main} - lead-time notice", [f"Date: {iso(new_day)}", f"With effect from today our standard lead time "
        f"from purchase order to delivery at your warehouse is {P['lead_times'][main]} calendar days.",
        f"This notice supersedes our notice of {iso(old_day)}."]))
    add(f"suppliers/{slug(main)}/lead_times_{iso(old_day)}.docx", "stale", lambda p: write_docx(
        p, f"{main} - lead times", [f"Date: {iso(old_day)}", f"Standard lead time: {P['old_lead_times'][main]} "
                                                             "calendar days from purchase order to delivery."]))
    for s in b["suppliers"][1:]:
        day = snap - dt.timedelta(days=rng.randint(30, 200))
        add(f"suppliers/{slug(s)}/lead_time_notice_{iso(day)}.pdf", "policy", lambda p, s=s, day=day: write_pdf(
            p, f"{s} - lead-time notice", [f"Date: {iso(day)}", f"Standard lead time: {P['lead_times'][s]} calendar "
                                                                 "days from purchase order to delivery."]))
    add(f"{buy}/po_conventions.txt", "reference", lambda p: write_text(p, (
        "Purchase-order conventions\n\nQuantities on our POs are in the supplier's unit of measure: CS = case (the "
        "case_pack in the SKU master gives the units per case). Status open = not yet delivered; received = already "
        "booked into on-hand stock.\n")))
    sent = iso(snap + dt.timedelta(days=1))
    add(f"mail/{sent}_owner_stock_budget.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Founder", to="merchandising", date=sent, subject="Cash for peak stock",
        body=f"I can release {P['budget']:,.2f} USD for stock before peak; anything above that waits for the "
             "October payout. Tell me if the POs fit.")))
    add(f"mail/{iso(snap)}_{market.lower()}_export.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Operations Assistant", to="merchandising", date=iso(snap),
        subject="Order exports", body=f"The shop export only has web orders. I pulled the {market} orders separately "
        f"- they are in {P['files']['market'].rsplit('/', 1)[0]}/. Bundles show under their BND codes in both.")))
    old_snap = snap - dt.timedelta(days=rng.randint(28, 60))
    add(f"{inv}/archive/stock_on_hand_{iso(old_snap)}.csv", "stale", lambda p: write_csv(
        p, ["sku", "on_hand", "bin"], [[s["sku"], rng.randint(0, 400), f"A{k + 1:02d}"] for k, s in enumerate(b["skus"])]))
    add("marketing/peak_campaign_plan.docx", "distractor", lambda p: write_docx(p, "Peak campaign plan", [
        "Early-access sale for subscribers in the first week of November.", "Gift guide goes live mid-October.",
        "Free shipping threshold stays unchanged."]))
    add(f"reports/returns_reasons_{iso(snap)}.csv", "distractor", lambda p: write_csv(p, ["reason", "share_pct"], [
        ["damaged in transit", 31], ["not as described", 22], ["changed mind", 38], ["wrong item", 9]]))
    add(f"meetings/{iso(snap)}_weekly.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="peak season buying", people=[person(rng) for _ in range(3)], date=iso(snap))))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, C = P["deliverables"], P["labels"], P["out_columns"]
    book, memo, sheet = D["workbook"], D["memo"], P["sheet"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    rows = facts["rows"]

    def cells(key: str, places: int | None) -> list[tuple[str, Any]]:
        out = []
        for r in rows:
            v = r[key]
            text = f"{v:.{places}f}" if places is not None else (f"{v:g}" if isinstance(v, float) else str(v))
            out.append((f"{book} {sheet}: {r['sku']} {C[key]} = {text}",
                        CellCheck(file=book, sheet=sheet, match={C["sku"]: r["sku"]}, column=C[key],
                                  value=float(v) if not isinstance(v, str) else v,
                                  tolerance=tol(places) if places else 0.0)))
        return out

    def whole(key: str, v: float) -> tuple[str, Any]:
        return f"{L[key]} = {v:g}", FieldCheck(file=memo, label=L[key], number=float(v), tolerance=0.0)

    named = (f"{L['named_rop']} = {facts['named_rop']:.2f}", fld_num(memo, L["named_rop"], facts["named_rop"], 2))
    out = [
        rubric("Builds daily demand from both channels, without cancelled or returned lines, bundles exploded", 10, [
            (f"{book} {sheet} has {len(rows)} SKU rows", RowCountCheck(file=book, sheet=sheet, key=C["sku"],
                                                                       count=len(rows))), *cells("mean", 2)]),
        rubric("Measures demand variability on in-stock days only", 8, cells("sd", 2)),
        rubric("Classes SKUs A/B/C by share of revenue", 8, [*cells("class", None), whole("a_count", facts["a_count"])]),
        rubric("Uses each supplier's current lead time for the safety stock", 10, [
            *cells("lead", None), *cells("ss", 2), whole("lead", facts["lead_main"])]),
        rubric("Sets the reorder points", 10, [*cells("rop", 2), named]),
        rubric("Sizes each order at the EOQ rounded up to whole case packs", 8, cells("qty", None)),
        rubric("Counts open purchase orders in units and flags SKUs at or below the reorder point", 10,
               [*cells("position", None), *cells("flag", None)]),
        rubric("Totals the purchase order and answers the budget question", 8, [
            whole("reorder_count", facts["reorder_count"]),
            (f"{L['po_total']} = {facts['po_total']:.2f}", fld_num(memo, L["po_total"], facts["po_total"], 2)),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Answers the owner's belief about the named SKU", 6, [
            named, (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]),
                                                                    ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Writes a purchase-order recommendation the owner can act on", 6, [
            ("Lists each SKU to order with its quantity in units and whole cases and its value", llm("content")),
            ("Says how stock-outs, bundles, the marketplace export and the newer lead-time notice were handled",
             llm("explanation")),
            ("Answers whether the POs fit the budget and what to cut or defer if not", llm("writing"))]))
    return out


REORDER_POINTS = Workflow(
    key="reorder_points", family="inventory_replenishment",
    method="reorder points with ABC service levels (safety stock z x sigma_d x sqrt(L)) and EOQ in case packs",
    professions=("online_merchants",), solver="reorder", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated online shop order history (stated distributions)")
