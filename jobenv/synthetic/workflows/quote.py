"""A three-site quote for laboratory instruments with volume tiers, a bundle discount, a service contract, freight
per site, the margin floor and the approval matrix (technical sales representatives).

A fictional instrument maker's price book carries 5-7 instruments (list 12,000-90,000 USD, uniform within each
model's range, to 100 USD) and 3-5 accessories (600-5,800 USD, to 100 USD) at two effective dates: the older list is
the current one divided by 1.03-1.08 (rounded to 10 USD). A customer's RFQ asks for 3-4 instruments and 2-3
accessories at three sites: 0-3 units of an instrument and 0-10 of an accessory per site (each site orders something,
each requested instrument reaches a combined 2-8 units). Volume tiers per family: instruments 1-2 units 0 %, 3-5
units 3-5 %, 6 or more 7-10 %; accessories 1-9 0 %, 10-24 5-6 %, 25 or more 10-12 %. Bundle discount 2-4 %, service
6-9 % of list a year for a 3- or 5-year term, freight by zone 180-650 USD a shipment plus 90-380 USD an instrument.
Standard costs are 55-68 % (instruments) and 35-50 % (accessories) of list, then scaled by one factor (0.8-1.25) so
the quote's margin lands 0.6-4.5 points above a 30-35 % floor (decision yes) or 0.6-7.5 points below it (no);
service costs 50-70 % of its price. The customer cites an expired promotion price 2-8 % above (premise yes) or below
(no) the correct unit net of one instrument.

Failure behaviour: ``draw`` raises DegenerateTask when the cost scaling leaves a plausible range, the margin or
the discount sits within 0.05-0.3 points of an approval boundary, or a planted trap moves no graded figure;
``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import datetime as dt
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

__all__ = ["MULTI_SITE_QUOTE"]

_INSTRUMENTS = (("FT-IR spectrometer", 38000, 62000), ("UV-Vis spectrophotometer", 14000, 24000),
                ("HPLC system", 48000, 85000), ("Particle size analyser", 55000, 90000), ("Rotational rheometer",
                                                                                          42000, 70000),
                ("Thermogravimetric analyser", 36000, 58000), ("Automatic titrator", 12000, 20000),
                ("Karl Fischer coulometer", 13000, 21000))
_ACCESSORIES = (("ATR sampling accessory", 2800, 4500), ("Autosampler tray kit", 1500, 2600),
                ("Calibration standard set", 600, 1100), ("Eight-cell cuvette changer", 900, 1600),
                ("Column oven", 3500, 5800), ("Data system seat licence", 1200, 2400), ("IQ/OQ qualification kit",
                                                                                         1800, 3000))
_MAKERS = ("Corvane Instruments", "Lumetra Scientific", "Halden Analytical", "Brisk Meridian Labware")
_CUSTOMERS = ("Brightwater Biologics", "Northfield Materials Testing", "Kestrel Polymers", "Alder Creek Foods",
              "Solvane Pharma Services")
_STATES = {"A": ("NJ", "NY", "PA"), "B": ("OH", "IL", "MI"), "C": ("TX", "GA", "NC"), "D": ("CA", "WA", "OR")}
_CITIES = {"NJ": "Edison", "NY": "Rochester", "PA": "Allentown", "OH": "Dayton", "IL": "Naperville", "MI": "Ann Arbor",
           "TX": "Round Rock", "GA": "Marietta", "NC": "Durham", "CA": "Fremont", "WA": "Bothell", "OR": "Hillsboro"}
_SITE_KIND = ("QC laboratory", "R&D centre", "Pilot plant", "Analytical services lab", "Plant laboratory")
_LADDERS = (("Account manager", "Regional Sales Director", "VP Sales", "CFO"),
            ("Sales representative", "Sales Director", "Commercial Director", "Chief Financial Officer"))
_LABELS = {
    "total": ("Quote total (USD)", "Total quoted price (USD)", "Quotation total, three sites (USD)"),
    "discount": ("Discount off list (%)", "Equipment discount vs list (%)", "Effective equipment discount (%)"),
    "service": ("Service contract (USD)", "Service agreement price (USD)", "Service contract, full term (USD)"),
    "freight": ("Freight (USD)", "Freight, all sites (USD)", "Delivery charges (USD)"),
    "margin": ("Gross margin (%)", "Quote margin (%)", "Margin on the quote (%)"),
    "decision": ("Margin floor met", "Margin at or above the floor", "Clears the margin floor"),
    "approval": ("Approval required", "Approval level", "Approver per the matrix"),
    "named": ("Extended price, {sku} at {site} (USD)", "{sku} line at {site}, extended (USD)",
              "Line total {sku}, {site} (USD)"),
    "premise": ("{sku} unit net at or below the customer's cited price", "Customer's cited {sku} price met",
                "{sku} quoted at or under the promotion price the customer cites"),
}
_OUT = {"site": ("site", "ship_to"), "sku": ("sku", "part_number"), "description": ("description", "item"),
        "eligible": ("service_covered", "in_service_contract"), "qty": ("qty", "quantity"),
        "combined": ("combined_qty", "order_qty_all_sites"), "list": ("list_price", "unit_list"),
        "tier": ("tier_discount_pct", "volume_discount_pct"), "bundle": ("bundle_discount_pct", "bundle_pct"),
        "net": ("unit_net", "net_unit_price"), "ext": ("extended_net", "line_total"),
        "list_ext": ("extended_list", "line_list"), "cost": ("unit_cost", "standard_cost"),
        "svc_cost": ("service_cost_per_year", "svc_cost_yr"), "freight": ("freight", "freight_usd")}
SHORTCUTS = ("per_site", "old_price_book", "service_net", "no_freight", "promo")


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: the price row in force on the quote
    date, tiers on the SKU's combined quantity, the bundle, service on list, freight per site, cost and margin."""
    folder, F = Path(folder), P["files"]
    dated: dict[str, tuple[str, dict[str, str]]] = {}
    for r in read_rows(folder / F["price_book"], P["price_sheet"]):
        d = r["effective_from"][:10]
        if d <= P["quote_date"] and (r["sku"] not in dated or d > dated[r["sku"]][0]):
            dated[r["sku"]] = (d, r)
    tiers = read_rows(folder / F["price_book"], P["tier_sheet"])
    costs = {r["sku"]: r for r in read_rows(folder / F["costs"])}
    lines = [r for r in read_rows(folder / F["rfq"], P["lines_sheet"]) if float(r["qty"] or 0) > 0]
    total_qty: dict[str, float] = {}
    for r in lines:
        total_qty[r["sku"]] = total_qty.get(r["sku"], 0.0) + float(r["qty"])
    eq_list = eq_net = cover = eq_cost = svc_cost = 0.0
    units: dict[str, float] = {}
    ext: dict[tuple[str, str], float] = {}
    net: dict[tuple[str, str], float] = {}
    rows: list[dict[str, Any]] = []
    years = float(P["service_years"])
    for r in lines:
        p, q = dated[r["sku"]][1], float(r["qty"])
        n = total_qty[r["sku"]]
        pct = next((float(t["discount_pct"]) for t in tiers if t["family"] == p["family"] and float(t["min_qty"]) <= n
                    and (not t["max_qty"] or n <= float(t["max_qty"]))), 0.0)
        lst = float(p["list_price"])
        u = rnd(lst * (100 - pct) * (100 - P["bundle_pct"]) / 10000, 2)
        key = (r["site"], r["sku"])
        net[key], ext[key] = u, rnd(u * q, 2)
        eq_list += rnd(lst * q, 2)
        eq_net += ext[key]
        eq_cost += float(costs[r["sku"]]["standard_cost"]) * q
        if p["service_eligible"] == "yes":
            cover += lst * q
            svc_cost += float(costs[r["sku"]]["service_cost_per_year"]) * q * years
        if p["family"] == P["instrument_family"]:
            units[r["site"]] = units.get(r["site"], 0.0) + q
        rows.append({"site": r["site"], "sku": r["sku"], "list": lst, "tier": pct, "ext": ext[key]})
    zone = {r["state"]: r["zone"] for r in read_rows(folder / F["freight"], "Zones")}
    rate = {r["zone"]: r for r in read_rows(folder / F["freight"], "Rates")}
    freight: list[dict[str, Any]] = []
    for s in read_rows(folder / F["rfq"], P["sites_sheet"]):
        z = rate[zone[s["state"]]]
        freight.append({"site": s["site"], "freight": rnd(float(z["per_shipment"]) + float(z["per_instrument"])
                                                          * units.get(s["site"], 0.0), 2)})
    service = rnd(cover * P["service_rate"] / 100 * years, 2)
    fr = rnd(sum(f["freight"] for f in freight), 2)
    total = rnd(rnd(eq_net, 2) + service + fr, 2)
    cost = rnd(eq_cost + svc_cost + fr, 2)
    margin = rnd((total - cost) / total * 100, 2)
    discount = rnd(100 - rnd(eq_net, 2) / rnd(eq_list, 2) * 100, 2)
    levels, A = P["approval_levels"], P["approval"]
    level = 3 if margin < P["floor"] - A["cfo_gap"] else 2 if margin < P["floor"] or discount > A["director_max"] \
        else 1 if discount > A["owner_max"] else 0
    key = (P["named_site"], P["promo_sku"])
    return {"rows": rows, "freight": freight, "service": service, "freight_total": fr, "total": total,
            "margin": margin, "discount": discount, "approval": levels[level], "named": ext[key],
            "decision": margin >= P["floor"], "premise": net[key] <= P["promo_price"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _catalogue(rng: random.Random) -> dict[str, Any]:
    """The price book's SKUs (current and older list), the tiers, the customer's sites and the RFQ lines."""
    prefix = rng.choice(("CV", "LM", "HA", "BM"))
    inst: list[dict[str, Any]] = [{"name": n, "family": "Instrument", "eligible": "yes", "list": round(rng.uniform(lo, hi), -2)}
            for n, lo, hi in rng.sample(_INSTRUMENTS, rng.randint(5, 7))]
    acc: list[dict[str, Any]] = [{"name": n, "family": "Accessory", "eligible": "no", "list": round(rng.uniform(lo, hi), -2)}
           for n, lo, hi in rng.sample(_ACCESSORIES, rng.randint(3, 5))]
    for k, s in enumerate(inst + acc):
        s["sku"] = f"{prefix}-{(1 if s['family'] == 'Instrument' else 5)}{100 + 7 * k:03d}"
        s["old"] = round(s["list"] / rng.uniform(1.03, 1.08), -1)
        ratio = rng.uniform(0.55, 0.68) if s["family"] == "Instrument" else rng.uniform(0.35, 0.5)
        s["cost"], s["svc"] = s["list"] * ratio, 0.0
    states = [rng.choice(_STATES[z]) for z in rng.sample(sorted(_STATES), 3)]
    sites = [{"site": f"{_CITIES[st]} {kind}", "city": _CITIES[st], "state": st, "contact": person(rng)}
             for st, kind in zip(states, rng.sample(_SITE_KIND, 3))]
    asked = rng.sample(inst, rng.randint(3, 4)) + rng.sample(acc, rng.randint(2, 3))
    lines: list[list[Any]] = []
    for s in asked:
        while True:
            q = [rng.choice((0, 1, 1, 2, 2, 3)) if s["family"] == "Instrument" else rng.choice((0, 2, 4, 5, 6, 8, 10))
                 for _ in sites]
            if (2 <= sum(q) <= 8) if s["family"] == "Instrument" else sum(q) >= 4:
                break
        lines += [[site["site"], s["sku"], s["name"], qty] for site, qty in zip(sites, q)]
    lines.sort(key=lambda r: ([x["site"] for x in sites].index(r[0]), r[1]))
    if any(all(r[3] == 0 for r in lines if r[0] == site["site"]) for site in sites):
        raise DegenerateTask("a site orders nothing")
    tiers = [["Instrument", 1, 2, 0], ["Instrument", 3, 5, rng.choice((3, 4, 5))], ["Instrument", 6, "", rng.choice((7, 8, 10))],
             ["Accessory", 1, 9, 0], ["Accessory", 10, 24, rng.choice((5, 6))], ["Accessory", 25, "", rng.choice((10, 12))]]
    rates = [[z, float(rng.randrange(180, 650, 5)), float(rng.randrange(90, 380, 5))] for z in sorted(_STATES)]
    return {"prefix": prefix, "skus": inst + acc, "sites": sites, "lines": lines, "tiers": tiers, "rates": rates,
            "asked": asked}


def _data(P: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    F = P["files"]
    book = [[s["sku"], s["name"], s["family"], s["eligible"], s[k], d]
            for s in b["skus"] for k, d in (("old", P["old_effective"]), ("list", P["effective"]))]
    return {
        F["price_book"]: lambda p: write_xlsx(p, [
            (P["price_sheet"], ["sku", "description", "family", "service_eligible", "list_price", "effective_from"], book),
            (P["tier_sheet"], ["family", "min_qty", "max_qty", "discount_pct"], b["tiers"])]),
        F["costs"]: lambda p: write_csv(p, ["sku", "description", "standard_cost", "service_cost_per_year", "currency"], [
            [s["sku"], s["name"], f"{s['cost']:.2f}", f"{s['svc']:.2f}", "USD"] for s in b["skus"]]),
        F["rfq"]: lambda p: write_xlsx(p, [
            (P["sites_sheet"], ["site", "city", "state", "receiving_contact"],
             [[s["site"], s["city"], s["state"], s["contact"]]
              for s in b["sites"]]),
            (P["lines_sheet"], ["site", "sku", "description", "qty"], b["lines"])]),
        F["freight"]: lambda p: write_xlsx(p, [
            ("Zones", ["state", "zone"], sorted([st, z] for z, sts in _STATES.items() for st in sts)),
            ("Rates", ["zone", "per_shipment", "per_instrument"], b["rates"])]),
    }


def _graded(f: Facts) -> tuple[Any, ...]:
    return (tuple((r["list"], r["tier"], r["ext"]) for r in f["rows"]), f["service"], f["freight_total"], f["total"],
            f["named"])


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.quote import analyse

    prof = profession(occupation)
    b = _catalogue(rng)
    maker, customer = rng.choice(_MAKERS), rng.choice(_CUSTOMERS)
    qdate = dt.date(rng.choice((2025, 2026)), rng.randint(3, 11), rng.randint(1, 28))
    eff = (qdate - dt.timedelta(days=rng.randint(20, 150))).replace(day=1)
    old_eff = eff.replace(year=eff.year - 1)
    slug = customer.split()[0].lower()
    rfq_id = f"RFQ-{rng.randint(2000, 9999)}"
    rate = float(rng.choice((6, 7, 8, 9)))
    for s in b["skus"]:
        if s["eligible"] == "yes":
            s["svc"] = s["list"] * rate / 100 * rng.uniform(0.5, 0.7)
    inst = [s for s in b["asked"] if s["family"] == "Instrument"]
    floor = float(rng.choice((30, 32, 33, 35)))
    P: dict[str, Any] = {
        "files": {"price_book": f"pricing/price_book_{eff.year}.xlsx", "costs": f"finance/standard_costs_FY{eff.year % 100}.csv",
                  "rfq": f"customers/{slug}/{rfq_id}_schedule.xlsx", "freight": "logistics/freight_rate_card.xlsx"},
        "price_sheet": "Prices", "tier_sheet": "Volume tiers", "sites_sheet": "Sites", "lines_sheet": "Lines",
        "quote_date": iso(qdate), "effective": iso(eff), "old_effective": iso(old_eff), "instrument_family": "Instrument",
        "bundle_pct": float(rng.choice((2, 3, 4))), "service_rate": rate, "service_years": rng.choice((3, 5)),
        "floor": floor, "approval": {"owner_max": float(rng.choice((5, 6, 8))), "director_max": float(rng.choice((10, 12, 15))),
                                     "cfo_gap": float(rng.choice((4, 5)))},
        "approval_levels": list(rng.choice(_LADDERS)), "promo_sku": inst[0]["sku"], "promo_price": 0.0,
        "named_site": next(r[0] for r in b["lines"] if r[1] == inst[0]["sku"] and r[3] > 0), "rfq_id": rfq_id,
        "customer": customer, "customer_contact": person(rng), "sender": person(rng), "maker": maker,
        "sheet": rng.choice(("Quote", "Quote lines", "Lines")), "out_columns": pick_labels(rng, _OUT), "labels": {},
        "deliverables": {"workbook": rng.choice(("quote.xlsx", f"{rfq_id.lower()}_quote.xlsx", "three_site_quote.xlsx")),
                         "letter": rng.choice(("cover_letter.docx", f"{slug}_cover_letter.docx")),
                         "memo": rng.choice(("deal_desk_request.md", "approval_request.docx", "quote_approval.md"))}}
    target = floor + rng.uniform(0.6, 4.5) if targets["decision"] else floor - rng.uniform(0.6, 7.5)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)

        def write() -> None:
            write_files(root, _data(P, b))

        write()
        first = analyse(tmp, P)
        eq_cost = sum(r["cost"] * r["qty"] for r in first["rows"])
        svc = sum(r["svc_cost"] * r["qty"] for r in first["rows"] if r["eligible"]) * P["service_years"]
        k = (first["total"] * (1 - target / 100) - svc - first["freight_total"]) / eq_cost
        if not 0.8 <= k <= 1.25:
            raise DegenerateTask("the margin target needs implausible standard costs")
        for s in b["skus"]:
            s["cost"] *= k
        write()
        truth = analyse(tmp, P)
        side = [(r["site"], r["sku"]) for r in truth["rows"] if r["family"] == "Instrument"]
        P["named_site"], P["promo_sku"] = rng.choice(side)
        u = next(r["net"] for r in truth["rows"] if (r["site"], r["sku"]) == (P["named_site"], P["promo_sku"]))
        P["promo_price"] = (nice_between(u * 1.02, u * 1.08, 0) if targets["premise"]
                            else nice_between(u * 0.92, u * 0.98, 0))
        truth = analyse(tmp, P)
        singles = {n: analyse(tmp, P, (n,)) for n in SHORTCUTS}
    A, m, d = P["approval"], truth["margin"], truth["discount"]
    if abs(m - floor) < 0.3 or abs(m - floor + A["cfo_gap"]) < 0.1 or min(abs(d - A["owner_max"]),
                                                                        abs(d - A["director_max"])) < 0.05:
        raise DegenerateTask("the margin or the discount sits on an approval boundary")
    where = {"per_site": ("footnote", "volume tiers apply to the quantity combined across the ship-to sites"),
             "old_price_book": ("data", "the price book's later effective date governs on the quote date"),
             "service_net": ("memo", "service is priced on the list price of the covered instruments"),
             "no_freight": ("memo", "freight is charged per site from the rate card"),
             "promo": ("email", "the promotion the customer cites ended before the quote date")}
    traps = [{"kind": n, "where": where[n][0], "description": where[n][1], "naive": n} for n, f in singles.items()
             if _graded(f) != _graded(truth)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    promo = next(s for s in b["skus"] if s["sku"] == P["promo_sku"])
    labels = pick_labels(rng, _LABELS)
    for key in ("named", "premise"):
        labels[key] = labels[key].format(sku=P["promo_sku"], site=P["named_site"])
    P["labels"] = labels
    writers, roles = _workspace(rng, P, b, promo, qdate)
    L, D, C = labels, P["deliverables"], P["out_columns"]
    memo_labels = [(L["total"], "USD, 2 decimal places"), (L["discount"], "percent, 2 decimal places"),
                   (L["service"], "USD, 2 decimal places"), (L["freight"], "USD, 2 decimal places"),
                   (L["margin"], "percent, 2 decimal places"), (L["decision"], "yes or no"),
                   (L["approval"], " or ".join(P["approval_levels"])), (L["named"], "USD, 2 decimal places"),
                   (L["premise"], "yes or no")]
    cols = [C[k] for k in ("site", "sku", "description", "eligible", "qty", "combined", "list", "tier", "bundle",
                           "net", "ext", "list_ext", "cost", "svc_cost")]
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role=rng.choice(prof.requesters), org=f"{maker}, {rng.choice(prof.orgs)}",
        subject=f"{customer} {rfq_id}: three-site quote",
        purpose=rng.choice((f"please quote the three-site order from {customer} ({rfq_id}) with the volume tiers, the "
                            f"service contract and freight, and check it against our {floor:g} % margin floor.",
                            f"I need the quote for {rfq_id} from {customer} (three sites) priced, margin-checked against "
                            f"the {floor:g} % floor and routed to the right approver.",
                            f"can you build the {rfq_id} quote for {customer} - tiers, service, freight - and tell me "
                            f"whether it clears the {floor:g} % floor and who has to sign it off?")),
        about=f"the price book, our standard costs, the RFQ schedule and the freight rate card (quote date {iso(qdate)})",
        belief=f"The buyer at {customer} says we promised {P['promo_sku']} at {P['promo_price']:,.2f} each - I assume we can "
               "honour that, but check it.",
        table={"file": D["workbook"], "headers": cols, "unit": "site and SKU ordered (quantity above 0) in the RFQ schedule"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(
            f"In {D['workbook']} the line table is a sheet named {P['sheet']} ({C['eligible']} yes or no, percentages "
            f"as numbers such as 4 for 4 %); {C['combined']}, {C['net']}, {C['ext']} and {C['list_ext']} are live "
            f"formulas. A sheet Freight with one row per site (columns Site, State, Zone, Instrument units, Per "
            f"shipment, Per instrument, {C['freight']}) and a sheet Summary with columns Line and Value whose lines "
            f"include {L['discount']}, {L['service']}, {L['freight']}, {L['total']} and {L['margin']}, as live "
            "formulas.",
            f"{D['letter']}: the cover letter to {P['customer_contact']} at {customer}, ready to send, with a line "
            f"'{L['total']}: <amount>' and each site's lines, the service contract and freight; no cost or margin."),
        policy="the discount policy and the approval matrix in policies/", files=sorted(writers))
    return Draft(subject=f"Three-site instrument quote for {customer}", instructions=prompt, files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="5-7 instruments (list 12k-90k USD) and 3-5 accessories; older list 3-8 % lower; 3 "
                               "sites, 0-3 instruments and 0-10 accessories a site; tiers 3-5 % / 7-10 % "
                               "(instruments), 5-6 % / 10-12 % (accessories); bundle 2-4 %; service 6-9 % of list "
                               "a year for 3 or 5 years; freight 180-650 a shipment + 90-380 an instrument; margin "
                               "0.6-4.5 points above or 0.6-7.5 below a 30-35 % floor")


def _policy(P: dict[str, Any], current: bool) -> list[str]:
    if not current:
        return ["Quotation discount policy (superseded)", "- Volume tiers are looked up on each ship-to site's "
                "quantity, as each site receives its own delivery.", "- Service agreements: 8 % of the net "
                "(discounted) equipment price a year.", "- Freight is quoted separately on request.",
                "This policy was withdrawn when the current discount policy took effect."]
    b, r = P["bundle_pct"], P["service_rate"]
    return [
        f"Quotation discount policy (current, in force from {P['effective']})",
        "- List prices: the price book row in force on the quote date, i.e. the latest effective_from on or before "
        "it. Earlier rows are history and are never quoted.",
        "- Volume tiers: the discount % of the price book's Volume tiers sheet for the SKU's family; min_qty and "
        "max_qty are inclusive and a blank max_qty has no upper limit.(1)",
        f"- Instrument and service bundle: a quote whose service contract covers every instrument on it earns a "
        f"further {b:g} % off every equipment line, after the volume tier: unit net = list x (1 - tier %) x (1 - "
        f"{b:g} %), rounded to the cent; extended = unit net x quantity.",
        f"- Service contract: {r:g} % a year of the list price (before any discount) of each service-eligible "
        "instrument on the quote, times the term in years. The service price is not discounted.",
        "- Freight: one shipment to each ship-to site, at the freight rate card: the zone's per-shipment charge "
        "plus its per-instrument charge for each instrument unit delivered to the site (accessories travel with "
        "them). Freight is charged to the customer at cost.",
        "- Quote total = equipment net (sum of the extended lines) + service contract + freight.",
        "- Discount off list % = (1 - equipment net / equipment at list) x 100; service and freight are excluded.",
        "- Cost = standard cost x quantity + service cost per year x quantity x years (service-eligible "
        "instruments) + freight.",
        f"- Gross margin % = (quote total - cost) / quote total x 100. The margin floor is {P['floor']:g} %; a "
        "margin at or above the floor meets it.",
        "- Promotions apply only to orders placed within their stated dates; an expired promotion is not quoted.",
        "- Rounding: half up; money to the cent, percentages to 2 decimal places.",
        "(1) For tier purposes the quantity of a SKU is its quantity on the whole order, combined across all "
        "ship-to sites of one RFQ, not each site's quantity."]


def _workspace(rng: random.Random, P: dict[str, Any], b: dict[str, Any], promo: dict[str, Any],
               qdate: dt.date) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in _data(P, b).items():
        add(rel, "data", write)
    A, lv, fl = P["approval"], P["approval_levels"], P["floor"]
    cust, slug, maker = P["customer"], P["customer"].split()[0].lower(), P["maker"]
    eff = dt.date.fromisoformat(P["effective"])
    add(f"policies/discount_policy_{P['effective']}.pdf", "policy",
        lambda p: write_pdf(p, "Quotation discount policy", _policy(P, True)))
    add(f"policies/archive/discount_policy_{P['old_effective']}.pdf", "stale",
        lambda p: write_pdf(p, "Quotation discount policy (superseded)", _policy(P, False)))
    add("policies/approval_matrix.docx", "policy", lambda p: write_docx(p, "Quote approval matrix", [
        "Who must approve a quote before it is sent. The highest level that any row requires signs off.",
        f"- {lv[0]}: discount off list at most {A['owner_max']:g} % and margin at or above the {fl:g} % floor.",
        f"- {lv[1]}: discount off list above {A['owner_max']:g} % and at most {A['director_max']:g} %, margin at or "
        "above the floor.",
        f"- {lv[2]}: discount off list above {A['director_max']:g} %, or margin below the floor by at most "
        f"{A['cfo_gap']:g} points (at least {fl - A['cfo_gap']:g} %).",
        f"- {lv[3]}: margin more than {A['cfo_gap']:g} points below the floor (under {fl - A['cfo_gap']:g} %).",
        "Discount and margin as the discount policy defines them."]))
    end = eff - dt.timedelta(days=rng.randint(10, 40))
    start = end - dt.timedelta(days=rng.randint(45, 75))
    add(f"marketing/promotions/promotion_{promo['sku'].lower()}_{iso(end)}.pdf", "reference", lambda p: write_pdf(
        p, f"{maker} instrument promotion", [
            f"{promo['sku']} {promo['name']}: {P['promo_price']:,.2f} USD each (list {promo['old']:,.2f}).",
            f"For orders placed from {iso(start)} to {iso(end)} inclusive. Not combinable with volume tiers or "
            "bundle discounts.", "Ask your regional sales director for the promotion code."]))
    site_lines = [f"- {s['site']}, {s['city']}, {s['state']} (receiving: {s['contact']})" for s in b["sites"]]
    add(f"customers/{slug}/{P['rfq_id']}.pdf", "data", lambda p: write_pdf(p, f"{cust} - request for quotation "
        f"{P['rfq_id']}", [f"Issued to {maker}. Please date your quotation {P['quote_date']}; prices valid 60 days.",
                           "Ship-to sites:", *site_lines,
                           f"Quantities per site: see {P['rfq_id']}_schedule.xlsx (sheet Lines).",
                           f"Include a service contract of {P['service_years']} years covering every instrument.",
                           "Quote freight to each site separately; delivery DAP."]))
    sent = iso(qdate - dt.timedelta(days=rng.randint(1, 3)))
    add(f"mail/{sent}_{slug}_pricing.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{P['customer_contact']}, Procurement, {cust}", to="key accounts", date=sent,
        subject=f"{P['rfq_id']} pricing", body=f"Your representative confirmed the promotion price of "
        f"{P['promo_price']:,.2f} USD each for the {promo['name']} ({promo['sku']}). We expect the quotation at or "
        "below that for every site.")))
    lg = iso(qdate - dt.timedelta(days=rng.randint(4, 12)))
    add(f"mail/{lg}_logistics_freight.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Logistics", to="key accounts", date=lg, subject="Freight on multi-site quotes",
        body="Reminder: multi-site orders ship as one delivery per site. Price the freight from the current rate "
             "card (logistics/) per site - the last quote we lost money on had none.")))
    old = qdate - dt.timedelta(days=rng.randint(200, 300))
    two = b["sites"][:2]
    prior = [[r[0], r[1], r[2], r[3], next(s["old"] for s in b["skus"] if s["sku"] == r[1])]
             for r in b["lines"] if r[0] in {s["site"] for s in two} and r[3] > 0]
    add(f"quotes/archive/Q-{rng.randint(10000, 99999)}_v1_{iso(old)}.xlsx", "stale", lambda p: write_xlsx(p, [
        ("Quote", ["site", "sku", "description", "qty", "unit_price"], prior),
        ("Status", ["note"], [["Superseded: the customer added a third site and re-issued the RFQ."]])]))
    add(f"crm/{slug}_activity.csv", "distractor", lambda p: write_csv(p, ["date", "type", "owner", "note"], [
        [iso(qdate - dt.timedelta(days=d)), t, person(rng), n] for d, t, n in (
            (40, "visit", "Demo at the QC laboratory"), (21, "call", "Budget approved for the three sites"),
            (9, "email", "RFQ received"), (2, "call", "Buyer asked about the promotion"))]))
    add("marketing/competitor_brief.docx", "distractor", lambda p: write_docx(p, "Competitor brief", [
        "Two competitors bid on multi-site orders with extended warranties instead of service contracts.",
        "Their published list prices rose about 5 % this year.", "Lead times: 6-10 weeks for spectrometers."]))
    add(f"meetings/{iso(qdate)}_pipeline_review.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{cust} quote", people=[person(rng) for _ in range(3)], date=iso(qdate))))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck

    D, L, C = P["deliverables"], P["labels"], P["out_columns"]
    book, memo, sheet = D["workbook"], D["memo"], P["sheet"]
    yes = lambda x: "yes" if x else "no"  # noqa: E731

    def cells(key: str, places: int) -> list[tuple[str, Any]]:
        return [(f"{book} {sheet}: {r['site']} / {r['sku']} {C[key]} = {r[key]:.{places}f}",
                 CellCheck(file=book, sheet=sheet, match={C["site"]: r["site"], C["sku"]: r["sku"]}, column=C[key],
                           value=float(r[key]), tolerance=tol(places) if places else 0.0)) for r in facts["rows"]]

    def money(key: str, fact: str, file: str = "") -> tuple[str, Any]:
        return f"{L[key]} = {facts[fact]:.2f}", fld_num(file or memo, L[key], facts[fact], 2)

    def summary(key: str, fact: str) -> tuple[str, Any]:
        return (f"{book} Summary: {L[key]} = {facts[fact]:.2f}", CellCheck(
            file=book, sheet="Summary", match={"Line": L[key]}, column="Value", value=float(facts[fact]), tolerance=tol(2)))

    freight = [(f"{book} Freight: {f['site']} {C['freight']} = {f['freight']:.2f}", CellCheck(
        file=book, sheet="Freight", match={"Site": f["site"]}, column=C["freight"], value=float(f["freight"]),
        tolerance=tol(2))) for f in facts["freight"]]
    out = [
        rubric("Prices every line from the price book in force on the quote date", 10, cells("list", 2)),
        rubric("Looks up the volume tiers on the quantities combined across the sites", 10, cells("tier", 2)),
        rubric("Extends each line net of the tier and the bundle discount", 8, [*cells("ext", 2),
                                                                               money("named", "named")]),
        rubric("Prices the service contract on the covered instruments' list price over the term", 8, [
            money("service", "service"), summary("service", "service")]),
        rubric("Charges freight to each site from the rate card", 8, [*freight, money("freight", "freight_total")]),
        rubric("Totals the quote (equipment, service, freight)", 10, [
            money("total", "total"), summary("total", "total"), money("total", "total", D["letter"])]),
        rubric("Tests the margin against the floor", 10, [
            money("margin", "margin"), summary("margin", "margin"),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Routes the quote through the approval matrix", 8, [
            money("discount", "discount"),
            (f"{L['approval']}: {facts['approval']}", fld(memo, L["approval"], facts["approval"], P["approval_levels"]))]),
        rubric("Answers the buyer's cited promotion price", 6, [
            money("named", "named"),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Writes a cover letter the customer can act on", 6, [
            ("Lists each site's lines, the service contract and the freight, and gives the total", llm("content")),
            ("Says the volume pricing is on the combined order and that the expired promotion is not applied",
             llm("explanation")),
            ("Is addressed to the buyer, professional, and discloses no cost, margin or approval", llm("writing"))]))
    return out


MULTI_SITE_QUOTE = Workflow(
    key="multi_site_quote", family="sales_quotation",
    method="multi-site quote: combined-order volume tiers, bundle discount, service on list x years, freight per "
           "site, gross margin vs the floor and the approval matrix",
    professions=("sales_representatives_wholesale_and_manufacturing_technical_and_scientific_products",),
    solver="quote", shortcuts=SHORTCUTS, draw=draw, recheck=recheck, rubrics=rubrics,
    data="generated instrument price book, costs and RFQ (stated distributions)")
