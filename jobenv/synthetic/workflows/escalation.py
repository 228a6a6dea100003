"""A supplier's request for a price increase under the contract's PPI escalation clause, checked and answered
(purchasing agents).

A supply contract (fleet tyres, steel stock or paper and tissue) is generated with an economic price adjustment
clause on a named BLS Producer Price Index series, not seasonally adjusted: base index month, adjustment index
month a lag of 2-4 months before the effective date, final values only (BLS marks a value P for four months),
a trigger of 1.5-3.0 %, a cap of 5-7.5 % and a floor of 5-7.5 %, and the escalable share of each Schedule A
category (a product share of 0.40-0.85, a service share of 0.10-0.25). Schedule A marks 1-3 items firm-fixed price
in a footnote. Amendment 2 (the renewal, 12 months before the effective date) replaced the prices and moved the base
month from the bid month (12 or 24 months earlier) to the month a lag before the renewal. Monthly index values are a
log random walk from a level of 140-320 (drift 0.1-0.4 % a month, volatility 0.3-0.7 %), bridged so that the index
change between the base and the adjustment month is the drawn one (0.3 points to the trigger less 0.4 when no
adjustment is due; the trigger plus 0.4 to the cap plus 2.5 when one is) and the original base month sits 3-7 %
lower; a related series of the same family rises 1-3 % more over each span; a seasonally adjusted twin and a parent series
fill the download. Three BLS pulls (1, 3 and 5 months after the adjustment month) carry the last four months as
preliminary, first released 0.4-1.2 % above the final value for the adjustment month and within 0.3 % otherwise.
Items: 8-17 lines, prices log-normal by category, annual quantities uniform by category. The supplier's stated
index change is the right one, or one read with one to three of: the related series, the original base month, the
month before the effective date, the first-released value; it asks for that change on every price.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed, a figure sits near a trigger or cap
edge, or a planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that
is not this workflow's.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import random
import tempfile
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, place_away, read_rows, write_files

__all__ = ["PPI_ESCALATION"]

SHORTCUTS = ("series", "lag", "base", "preliminary", "share", "footnote", "cap", "trigger")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
# family: org, contract series, related series (the decoy), parent, categories (name, share range, items as
# "description | uom | median price | annual qty range", a trailing * marking an item the contract may hold firm)
_FAMILIES: dict[str, dict[str, Any]] = {
    "tyres": {
        "org": "a municipal fleet department", "what": "fleet tyres, retreads and tyre services",
        "series": ("WPU0712", "Tires, tubes, tread, and repair materials"),
        "decoy": ("WPU071201", "Tires, tubes, tread: truck and bus tires, new"), "parent": ("WPU071", "Rubber products"),
        "cats": (("New tyres", (0.60, 0.80), "11R22.5 drive tyre, 16-ply|each|520|40-160; 11R22.5 trailer tyre, 14-ply|"
                  "each|430|30-120; 295/75R22.5 steer tyre|each|470|30-110; 225/70R19.5 regional tyre|each|310|20-80; "
                  "LT245/75R16 all-terrain tyre|each|210|40-160; P235/65R17 police pursuit tyre|each|190|80-300*; "
                  "315/80R22.5 refuse truck steer tyre|each|560|20-70"),
                 ("Retreads", (0.40, 0.55), "11R22.5 drive retread on customer casing|each|190|40-160; 295/75R22.5 "
                  "trailer retread|each|165|30-120; Refuse truck drive retread|each|240|20-80"),
                 ("Tyre services", (0.10, 0.25), "Mount and balance, heavy truck|per tyre|38|100-400*; Road service "
                  "call, business hours|per call|145|20-90*; Scrap tyre disposal fee|per tyre|6.5|150-600*; TPMS "
                  "sensor replacement|each|62|20-120"))},
    "steel": {
        "org": "a university procurement office", "what": "steel stock and processing for campus facilities",
        "series": ("WPU101", "Iron and steel"), "decoy": ("WPU1017", "Steel mill products"),
        "parent": ("WPU10", "Metals and metal products"),
        "cats": (("Mill shapes", (0.70, 0.85), "Angle A36 2 x 2 x 1/4 in, 20 ft|length|62|30-150; Flat bar A36 3 x "
                  "1/4 in, 20 ft|length|48|30-150; Plate A36 1/4 in, 4 x 8 ft|sheet|395|10-60; HSS tube 2 x 2 x 3/16 "
                  "in, 24 ft|length|118|20-90; Rebar #4 grade 60, 20 ft|length|14.5|100-600; Channel C6 x 8.2, 20 "
                  "ft|length|205|10-50"),
                 ("Fabricated stock", (0.45, 0.60), "Expanded metal 3/4-9, 4 x 8 ft|sheet|88|10-60; Bar grating "
                  "1-1/4 x 3/16 in, 3 x 20 ft|panel|640|4-20; Diamond plate 3/16 in, 4 x 8 ft|sheet|310|8-40"),
                 ("Processing and delivery", (0.10, 0.20), "Saw cut to length|per cut|4.75|200-900*; Flatbed delivery "
                  "to campus|per trip|165|20-80*; Plasma cutting|per hour|120|10-60"))},
    "paper": {
        "org": "a hospital supply chain group", "what": "paper towels, tissue and exam-table paper",
        "series": ("WPU0913", "Paper"), "decoy": ("WPU0915", "Converted paper and paperboard products"),
        "parent": ("WPU09", "Pulp, paper, and allied products"),
        "cats": (("Towels and tissue", (0.55, 0.70), "Hardwound roll towel 8 in x 800 ft, case of 6|case|42|300-1500; "
                  "Multifold towel, case of 4,000|case|36|200-1200; Bath tissue 2-ply, case of 96|case|58|300-1400; "
                  "Jumbo roll tissue 9 in, case of 12|case|47|100-600; Facial tissue, case of 30 boxes|case|39|100-500"),
                 ("Exam-table paper", (0.50, 0.65), "Smooth exam table paper 18 in x 225 ft, case of 12|case|44|"
                  "100-600; Crepe exam table paper 21 in x 125 ft, case of 12|case|61|50-300"),
                 ("Dispenser service", (0.10, 0.20), "Dispenser installation|each|28|20-120*; Dispenser maintenance "
                  "visit|per visit|95|12-48*; Delivery to satellite clinic|per drop|75|24-104"))},
}
_VENDORS = ("Ridgeway Supply Co.", "Calder & Finch Distribution", "Northgate Industrial Supply", "Brookmere Trading",
            "Harlan Commercial Products", "Westcott Supply Partners")
_LABELS = {
    "series": ("Index series applied", "PPI series used", "Contract index series"),
    "base_index": ("Base index value", "Base index", "Base-month index value"),
    "adj_index": ("Adjustment index value", "Adjustment-month index", "Adjustment index"),
    "change": ("Index change (%)", "Index movement (%)", "Change in the index (%)"),
    "applied": ("Index change applied after cap and floor (%)", "Adjustment applied (%)", "Allowed index change (%)"),
    "decision": ("Adjustment due under the clause", "Price adjustment allowed this year", "Clause 7 trigger met"),
    "repriced": ("Items repriced", "Lines with a new price", "Items adjusted"),
    "annual_cost": ("Annual cost of the allowed adjustment (USD)", "Allowed adjustment, annual value (USD)",
                    "Annual effect of the new prices (USD)"),
    "overclaim": ("Overclaim against the supplier's proposal (USD)", "Supplier overclaim, annual (USD)",
                  "Requested above the allowed adjustment, annual (USD)"),
    "premise": ("Supplier's stated index change of {claim}% confirmed", "{vendor}'s {claim}% index figure holds",
                "Index change of {claim}% confirmed"),
}
_OUT = {"item": ("item_no", "item", "sku"), "current": ("current_price", "old_unit_price", "price_before"),
        "new": ("new_price", "new_unit_price", "price_after"), "effective": ("effective_date", "valid_from")}
_DIRS = {"contract": ("contract", "contracts/active"), "index": ("index", "bls"),
         "mail": ("correspondence", "mail"), "proc": ("procedures", "policies/procurement")}


def _mtext(k: int) -> str:
    return f"{k // 12:04d}-{k % 12 + 1:02d}"


def _mname(k: int) -> str:
    return f"{_MONTHS[k % 12]} {k // 12}"


def _mday(k: int, day: int) -> str:
    return dt.date(k // 12, k % 12 + 1, day).isoformat()


def _cents(x: float) -> Decimal:
    return Decimal(repr(float(x))).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: each pull read with csv, the final value
    of a month being the one no later pull contradicts; the items priced in whole cents with Decimal."""
    folder, F = Path(folder), P["files"]
    finals: dict[int, float] = {}
    want = P["series"].strip().upper()
    for pull in F["pulls"]:  # oldest first: a later final value replaces an earlier one
        for r in read_rows(folder / pull["file"]):
            if r["series_id"].strip().upper() != want or r["period"].strip().upper() in ("M13", ""):
                continue
            if "P" not in r["footnote_codes"].upper():
                finals[int(r["year"]) * 12 + int(r["period"].strip()[1:]) - 1] = float(r["value"])
    y, m = P["effective"][:7].split("-")
    eff = int(y) * 12 + int(m) - 1
    yb, mb = P["base_month"].split("-")
    base, adj = finals[int(yb) * 12 + int(mb) - 1], finals[eff - int(P["lag"])]
    change = (adj / base - 1) * 100
    due = abs(rnd(change, 2)) >= P["trigger"]
    applied = max(-P["floor"], min(P["cap"], change)) if due else 0.0
    fixed, cat = set(), {}
    for r in read_rows(folder / F["schedule"]):
        if r["item_no"].strip():
            cat[r["item_no"].strip()] = r["category"].strip().lower()
            if P["ffp_mark"] in r["description"]:
                fixed.add(r["item_no"].strip())
    shares = {k.lower(): v for k, v in P["shares"].items()}
    proposed = {r["item_no"].strip(): _cents(float(r["proposed_price"])) for r in read_rows(folder / F["proposal"])}
    items, cost, over = [], Decimal(0), Decimal(0)
    for r in read_rows(folder / F["prices"]):
        k = r["item_no"].strip()
        price, qty = _cents(float(r["unit_price"])), Decimal(r["annual_qty"].strip())
        s = 0.0 if k in fixed else shares[cat[k]]
        new = _cents(float(price) * (1 + s * applied / 100))
        items.append({"item": k, "new": float(new), "moved": new != price})
        cost += (new - price) * qty
        over += (proposed[k] - new) * qty
    return {"series": P["series"], "base_index": base, "adj_index": adj, "change": rnd(change, 2),
            "applied": rnd(applied, 2), "decision": due, "items": items,
            "repriced": sum(1 for i in items if i["moved"]),
            "annual_cost": float(cost), "overclaim": float(over),
            "premise": abs(rnd(change, 2) - float(P["claim"])) < 0.005}


# ---- drawing a task ----------------------------------------------------------------------------------------

def _bridge(rng: random.Random, n: int, mu: float, sigma: float, total: float | None) -> list[float]:
    """n monthly log increments; when ``total`` is given they are shifted to sum to it (a random-walk bridge)."""
    d = [rng.gauss(mu, sigma) for _ in range(n)]
    if total is not None:
        shift = (total - sum(d)) / n
        d = [x + shift for x in d]
    return d


def _series(rng: random.Random, T: dict[str, int], change: float, lift: float, gap: float) -> dict[int, float]:
    """Final monthly values from T['start'] to T['end']: the base-to-adjustment change and the original-base gap
    as drawn (``lift`` added to both for a related series)."""
    mu, sigma = rng.uniform(0.001, 0.004), rng.uniform(0.003, 0.007)
    seg = [(T["start"], T["b0"], None), (T["b0"], T["b1"], gap + lift), (T["b1"], T["a"], math.log(1 + change / 100)
                                                                        + lift), (T["a"], T["end"], None)]
    level, out = math.log(rng.uniform(140, 320)), {}
    out[T["start"]] = level
    for lo, hi, total in seg:
        steps = _bridge(rng, hi - lo, mu if total is None else 0.0, sigma, total)
        for k, d in zip(range(lo + 1, hi + 1), steps, strict=True):
            out[k] = out[k - 1] + d
    return {k: round(math.exp(v), 3) for k, v in out.items()}


def _pull_rows(values: dict[str, dict[int, float]], prelim: dict[tuple[str, int], float], last: int,
               pad: bool) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for sid, vals in values.items():
        name = sid.ljust(17) if pad else sid
        years: dict[int, list[float]] = {}
        for k in sorted(v for v in vals if v <= last):
            p = k > last - 4
            v = prelim[(sid, k)] if p else vals[k]
            rows.append([name, k // 12, f"M{k % 12 + 1:02d}", f"{v:.3f}", "P" if p else ""])
            years.setdefault(k // 12, []).append(vals[k])
        for y, vs in years.items():
            if len(vs) == 12 and y * 12 + 11 <= last - 4:
                rows.append([name, y, "M13", f"{sum(vs) / 12:.3f}", ""])
    return rows


def _simulate(rng: random.Random, targets: dict[str, bool]) -> dict[str, Any]:
    fam_key = rng.choice(tuple(_FAMILIES))
    fam = _FAMILIES[fam_key]
    lag, trigger = rng.choice((2, 3, 4)), rng.choice((1.5, 2.0, 2.5, 3.0))
    cap = rng.choice((5.0, 6.0, 7.5))
    floor = rng.choice((cap, 5.0))
    eff = rng.randint(2025 * 12 + 2, 2026 * 12 + 3)
    a, years = eff - lag, rng.choice((1, 2))
    T = {"a": a, "b1": a - 12, "b0": a - 12 - 12 * years, "end": a + 4}
    T["start"] = T["b0"] - 14
    if targets["decision"]:
        change = rng.uniform(trigger + 0.4, cap + 2.5)
        if abs(change - cap) < 0.25:
            raise DegenerateTask("the index change sits on the cap")
    else:
        change = rng.uniform(0.3, trigger - 0.4)
    gap = rng.uniform(0.03, 0.07)
    sa_title = f"{fam['series'][1]}, seasonally adjusted"
    cs, ds = fam["series"][0], fam["decoy"][0]
    values = {cs: _series(rng, T, change, 0.0, gap), ds: _series(rng, T, change, rng.uniform(0.01, 0.03), gap + 0.01)}
    seasonal = [1 + 0.008 * math.sin(2 * math.pi * (m + rng.random()) / 12) for m in range(12)]
    values["WPS" + cs[3:]] = {k: round(v / seasonal[k % 12], 3) for k, v in values[cs].items()}
    ratio = rng.uniform(0.7, 1.3)
    values[fam["parent"][0]] = {k: round(v * ratio * (1 + rng.gauss(0, 0.002)), 3) for k, v in values[cs].items()}
    prelim = {(s, k): round(v * (1 + rng.gauss(0, 0.0015)), 3) for s, vals in values.items() for k, v in vals.items()}
    prelim[(cs, a)] = round(values[cs][a] * (1 + rng.uniform(0.004, 0.012)), 3)
    titles = {cs: fam["series"][1], ds: fam["decoy"][1], "WPS" + cs[3:]: sa_title, fam["parent"][0]: fam["parent"][1]}
    return {"fam_key": fam_key, "fam": fam, "lag": lag, "trigger": trigger, "cap": cap, "floor": floor, "eff": eff,
            "T": T, "values": values, "prelim": prelim, "titles": titles, "change": change}


def _items(rng: random.Random, fam: dict[str, Any], prefix: str) -> tuple[list[dict[str, Any]], dict[str, float]]:
    shares, items = {}, []
    nums = rng.sample(range(10100, 98900, 37), 40)
    for name, (lo, hi), text in fam["cats"]:
        shares[name] = round(rng.uniform(lo, hi) * 20) / 20
        rows = [r.strip().split("|") for r in text.split(";")]
        for desc, uom, med, qty in rows:
            if rng.random() < 0.15 and len(rows) > 2:
                continue
            qlo, qhi = (int(q) for q in qty.rstrip("*").split("-"))
            items.append({"item": f"{prefix}-{nums.pop()}", "description": desc, "category": name, "uom": uom,
                          "price": round(float(med) * math.exp(rng.gauss(0, 0.12)), 2), "qty": rng.randint(qlo, qhi),
                          "may_fix": qty.endswith("*"), "fixed": False})
    fixable = [i for i in items if i["may_fix"]]
    for i in rng.sample(fixable, min(len(fixable), rng.randint(1, 3))):
        i["fixed"] = True
    return items, shares


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.escalation import analyse

    S = _simulate(rng, targets)
    fam, T, eff, lag = S["fam"], S["T"], S["eff"], S["lag"]
    dirs = pick_labels(rng, _DIRS)
    vendor = rng.choice(_VENDORS)
    contract = f"{rng.choice(('PC', 'C', 'SA'))}-{T['b0'] // 12 % 100:02d}-{rng.randint(100, 989)}"
    items, shares = _items(rng, fam, rng.choice(("IT", "SKU", "MAT")))
    pull_months = (T["a"] + 1, T["a"] + 3, T["a"] + 5)
    pulls = [{"file": f"{dirs['index']}/pulls/ppi_{_mday(m, d)}.csv", "date": _mday(m, d)}
             for m, d in zip(pull_months, rng.sample(range(10, 19), 3), strict=True)]
    C = dirs["contract"]
    P: dict[str, Any] = {
        "files": {"pulls": pulls, "schedule": f"{C}/{contract}_schedule_A.xlsx",
                  "prices": f"erp/exports/price_list_{contract}_{_mday(T['a'] + 5, 3)}.csv",
                  "proposal": f"{dirs['mail']}/incoming/{vendor.split()[0].lower()}_proposed_prices.csv"},
        "series": fam["series"][0], "decoy_series": fam["decoy"][0], "base_month": _mtext(T["b1"]),
        "original_base_month": _mtext(T["b0"]), "effective": _mday(eff, 1), "lag": lag, "shares": shares,
        "ffp_mark": "\u2020", "trigger": S["trigger"], "cap": S["cap"], "floor": S["floor"], "claim": 0.0,
        "vendor": vendor, "contract": contract, "dirs": dirs,
        "labels": {}, "out_columns": pick_labels(rng, _OUT),
        "deliverables": {"memo": rng.choice((f"reply_{vendor.split()[0].lower()}_{contract}.docx",
                                             "price_adjustment_reply.docx", f"escalation_reply_{contract}.docx")),
                         "table": rng.choice(("erp_price_update.csv", f"price_changes_{contract}.csv",
                                              "price_file_upload.csv"))}}
    pad = rng.random() < 0.6
    data: dict[str, Any] = {}
    for pull, m in zip(pulls, pull_months, strict=True):
        rows = _pull_rows(S["values"], S["prelim"], m - 1, pad)
        data[pull["file"]] = (lambda rr: lambda p: write_csv(p, ["series_id", "year", "period", "value",
                                                                  "footnote_codes"], rr))(rows)
    mark = P["ffp_mark"]
    sched = [[i["item"], i["description"] + (f" {mark}" if i["fixed"] else ""), i["category"], i["uom"],
              round(i["price"] / math.exp(S["change"] / 100 + rng.uniform(0.02, 0.08)), 2)] for i in items]
    sched += [["", "", "", "", ""], ["", f"{mark} Firm-fixed price for the term of the contract, renewals included; "
                                         "not subject to adjustment under clause 7.", "", "", ""]]
    data[P["files"]["schedule"]] = lambda p: write_xlsx(p, [("Schedule A", [
        "item_no", "description", "category", "uom", f"bid_unit_price_{T['b0'] // 12}"], sched)])
    renewal = _mday(T["b1"] + lag, 1)
    data[P["files"]["prices"]] = lambda p: write_csv(p, [
        "item_no", "description", "uom", "unit_price", "annual_qty", "price_effective", "vendor_no"],
        [[i["item"], i["description"], i["uom"], f"{i['price']:.2f}", i["qty"], renewal, "V0" + contract[-3:]]
         for i in items])
    def proposal(claim: float) -> Any:
        rows = [[i["item"], i["description"], f"{i['price']:.2f}", f"{float(_cents(i['price'] * (1 + claim / 100))):.2f}"]
                for i in items]
        return lambda p: write_csv(p, ["item_no", "description", "current_price", "proposed_price"], rows)

    data[P["files"]["proposal"]] = proposal(0.0)
    errors: tuple[str, ...] = ()
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), data)
        claim = analyse(tmp, P)["change"]
        if not targets["premise"]:
            for _ in range(12):
                errors = tuple(rng.sample(("series", "base", "lag", "preliminary"), rng.randint(1, 3)))
                sup = analyse(tmp, P, errors)["change"]
                if sup - claim >= 0.2 and sup >= S["trigger"] + 0.2:
                    claim = sup
                    break
            else:
                raise DegenerateTask("no misreading of the supplier's inflates the index change")
    P["claim"] = claim
    data[P["files"]["proposal"]] = proposal(claim)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), data)
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    if (truth["decision"], truth["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the targets are missed")
    if abs(abs(truth["change"]) - S["trigger"]) < 0.3:
        raise DegenerateTask("the index change sits near the trigger")
    where = {"series": ("data", "the download holds a related series of the same family beside the contract's"),
             "lag": ("memo", "the adjustment index is the month a lag before the effective date"),
             "base": ("memo", "Amendment 2 moved the base month from the bid month to the renewal"),
             "preliminary": ("data", "the older pulls carry the adjustment month as first released (P)"),
             "share": ("memo", "only the escalable share of each price moves with the index"),
             "footnote": ("footnote", "Schedule A's footnote holds the marked items at a firm-fixed price"),
             "cap": ("memo", "the index change applied is capped"),
             "trigger": ("memo", "no adjustment is made below the trigger")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s} for s, f in singles.items()
             if _moved(f, truth)]
    core = {"series", "lag", "base", "preliminary"} | ({"share", "footnote"} if targets["decision"] else {"trigger"})
    if not core <= {t["naive"] for t in traps}:
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(claim=f"{claim:.2f}", vendor=vendor)
    P["labels"] = labels
    writers, roles = _workspace(rng, P, S, data, items, errors, renewal)
    prompt = _prompt(rng, P, S, occupation, writers)
    return Draft(subject=f"PPI escalation request, contract {contract}", instructions=prompt, files=writers,
                 roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="index: log random walk, level 140-320, drift 0.1-0.4 %/month, volatility 0.3-0.7 %, "
                               "bridged to the drawn change; preliminary values 0.4-1.2 % above final for the "
                               "adjustment month; 8-17 items, prices log-normal (sigma 0.12) around the category "
                               "median, annual quantities uniform; 1-3 firm-fixed items")


def _moved(f: Facts, t: Facts) -> bool:
    if f["decision"] != t["decision"] or f["repriced"] != t["repriced"]:
        return True
    if any(place_away(f[k], [t[k]], 3) for k in ("base_index", "adj_index")):
        return True
    if any(place_away(f[k], [t[k]], 2) for k in ("change", "applied", "annual_cost", "overclaim")):
        return True
    return any(place_away(a["new"], [b["new"]], 2) for a, b in zip(f["items"], t["items"], strict=True))


def _clause(P: dict[str, Any], S: dict[str, Any], base: int) -> list[str]:
    fam, lag = S["fam"], S["lag"]
    eff = S["eff"]
    shares = "; ".join(f"{k} {v * 100:g} %" for k, v in P["shares"].items())
    return [
        "7. Economic price adjustment",
        f"7.1 Index. The index is the Producer Price Index published by the U.S. Bureau of Labor Statistics (BLS) "
        f"for {fam['series'][1]}, series {fam['series'][0]}, not seasonally adjusted. No other series is used, "
        "whether seasonally adjusted, a sub-index or an aggregate of it.",
        f"7.2 Base index. The base index is the index for {_mname(base)}.",
        f"7.3 Adjustment index. The adjustment index is the index for the month falling {lag} months before the "
        f"month in which adjusted prices take effect (for prices effective 1 {_MONTHS[eff % 12]}, the index for "
        f"{_MONTHS[(eff - lag) % 12]}).",
        "7.4 Final values. Index values are the final values published by BLS. BLS marks a value P (preliminary) "
        "until it is revised four months after first release; a preliminary value is not used. The adjustment is "
        "calculated once the final value of the adjustment month is published and applies from the effective date.",
        "7.5 Index change. Index change = (adjustment index / base index - 1) x 100, in per cent.",
        f"7.6 Trigger. No adjustment is made unless the index change, rounded to two decimals, is at least "
        f"{P['trigger']:g} % up or down.",
        f"7.7 Cap and floor. The index change applied is limited to +{P['cap']:g} % and -{P['floor']:g} %.",
        "7.8 Escalable share. Only the share of each unit price subject to escalation moves with the index: new "
        "unit price = current unit price x (1 + share x index change applied / 100), computed with the unrounded "
        f"index change and rounded to the cent (half up). Shares by Schedule A category: {shares}. Exceptions are "
        "noted in Schedule A.",
        "7.9 Frequency. Prices may be adjusted once per contract year, on the anniversary of the price effective "
        "date, on the Supplier's written request."]


def _workspace(rng: random.Random, P: dict[str, Any], S: dict[str, Any], data: dict[str, Any],
               items: list[dict[str, Any]], errors: tuple[str, ...], renewal: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    roles[P["files"]["schedule"]] = "footnote"
    d, T, fam, vendor, contract = P["dirs"], S["T"], S["fam"], P["vendor"], P["contract"]
    C, X, M = d["contract"], d["index"], d["mail"]
    start = T["b0"] + S["lag"]
    add(f"{C}/{contract}_supply_agreement.pdf", "policy", lambda p: write_pdf(p, f"Supply Agreement {contract}", [
        f"Between the Buyer and {vendor} (the Supplier) for {fam['what']}. Term: 12 months from {_mday(start, 1)}, "
        "renewable by amendment. Prices: Schedule A.", *_clause(P, S, T["b0"]),
        "8. Delivery. Within five business days of the purchase order, to the delivery points in the order.",
        "9. Payment. Net 30 days from a correct invoice.",
        "10. Insurance. The Supplier keeps general liability cover of at least 2,000,000 USD per occurrence."]))
    add(f"{C}/amendments/{contract}_amendment_01.pdf", "distractor", lambda p: write_pdf(
        p, f"Amendment No. 1 to Supply Agreement {contract}", [
            f"Effective {_mday(start + 4, 1)}.", "1. Clause 9 is amended: payment is due net 45 days.",
            "2. The Supplier's notice address changes to its new head office.", "All other terms are unchanged."]))
    add(f"{C}/amendments/{contract}_amendment_02_renewal.docx", "policy", lambda p: write_docx(
        p, f"Amendment No. 2 to Supply Agreement {contract} (renewal)", [
            f"Effective {renewal}.",
            f"1. The term is renewed for 12 months from {renewal}.",
            f"2. The unit prices of Schedule A are replaced by the renewal prices effective {renewal}, as loaded in "
            "the Buyer's ERP price list.",
            f"3. Clause 7.2 is deleted and replaced by: 'The base index is the index for {_mname(T['b1'])}.'",
            "4. Items Schedule A marks as firm-fixed price remain firm.", "All other terms are unchanged."]))
    add(f"{C}/renewal/{contract}_renewal_pricing_note.md", "reference", lambda p: write_text(p, (
        f"# Renewal pricing, {contract}\n\nThe renewal prices effective {renewal} were agreed on the "
        f"{fam['series'][0]} index for {_mname(T['b1'])}, which becomes the base month of clause 7 (Amendment 2). "
        f"Average change against the bid prices: {rng.uniform(4, 11):.1f} %. Signed off by the category manager.\n")))
    add(f"{C}/insurance/{vendor.split()[0].lower()}_certificate_of_insurance.pdf", "distractor", lambda p: write_pdf(
        p, "Certificate of liability insurance", [f"Insured: {vendor}.", "General liability: 2,000,000 USD each "
                                                  "occurrence, 4,000,000 USD aggregate.",
                                                  f"Policy period: {_mday(T['a'] - 2, 1)} to {_mday(T['a'] + 10, 1)}."]))
    cat_rows = [[s, S["titles"][s], "S" if s.startswith("WPS") else "U", "201112" if s == P["decoy_series"] else
                 "198200"] for s in S["values"]]
    rng.shuffle(cat_rows)
    add(f"{X}/series_catalog.csv", "reference", lambda p: write_csv(p, ["series_id", "title", "seasonal", "base_date"],
                                                                     cat_rows))
    po = [[f"PO{rng.randint(400000, 499999)}", _mday(T["a"] - rng.randint(0, 10), rng.randint(1, 28)), i["item"],
           rng.randint(1, max(2, i["qty"] // 8)), f"{i['price']:.2f}"] for i in rng.sample(items, len(items) // 2)
          for _ in range(2)]
    add(f"erp/exports/po_lines_{T['a'] // 12}.csv", "distractor", lambda p: write_csv(
        p, ["po_no", "po_date", "item_no", "qty", "unit_price"], sorted(po, key=lambda r: r[1])))
    used = P["decoy_series"] if "series" in errors else P["series"]
    b_used = T["b0"] if "base" in errors else T["b1"]
    a_used = S["eff"] - 1 if "lag" in errors else T["a"]
    first = P["files"]["pulls"][0]["date"]
    sent = P["files"]["pulls"][-1]["date"]
    below = P["claim"] < P["trigger"]
    add(f"{M}/incoming/{sent}_{vendor.split()[0].lower()}_price_adjustment_request.pdf", "conflict", lambda p: write_pdf(
        p, f"{vendor} - request for price adjustment, contract {contract}", [
            f"Date: {sent}", "Dear Buyer,",
            f"Under clause 7 of contract {contract} we request an adjustment of all Schedule A prices effective "
            f"{P['effective']}. The BLS Producer Price Index {used} ({S['titles'][used]}) moved from "
            f"{_mname(b_used)} to {_mname(a_used)} by {P['claim']:.2f} %"
            + (" now that the final index is published" if "preliminary" not in errors else "")
            + (f" (values as retrieved from BLS on {first})." if "preliminary" in errors else "."),
            (f"We recognise that this is below the {P['trigger']:g} % threshold, but given our cost increases we ask "
             "you to agree the adjustment in this instance." if below else
             "This exceeds the clause's threshold, so the adjustment is due."),
            f"We therefore propose to raise every unit price by {P['claim']:.2f} % (proposed prices attached).",
            "Yours faithfully,", f"{person(rng)}, Key Account Manager"]))
    ap = person(rng)
    add(f"{M}/internal/{sent}_re_{vendor.split()[0].lower()}_increase.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{ap}, Accounts Payable", to="procurement", date=sent, subject=f"{vendor} invoices",
        body=f"{vendor} have started invoicing at their proposed prices. We are holding those invoices until "
             "procurement loads the agreed prices. Please send the price file in the usual upload layout.")))
    add(f"{d['proc']}/PR-14_price_adjustment_requests_rev3.docx", "policy", lambda p: write_docx(
        p, "PR-14 Price adjustment requests, rev 3 (current)", _procedure(P)))
    add(f"{d['proc']}/archive/PR-14_price_adjustment_requests_2022.pdf", "stale", lambda p: write_pdf(
        p, "PR-14 Price adjustment requests (2022, superseded by rev 3)", [
            "- Use the index value most recently published by BLS for the month the contract names.",
            "- Apply the index change to the contract unit price of every Schedule A item.",
            "- Base month: as stated in the original contract.", "- Reply within 30 days."]))
    add(f"meetings/{_mday(T['a'] + 4, rng.randint(2, 26))}_category_review.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic=f"{vendor} price request", people=[person(rng) for _ in range(3)],
                         date=_mday(T["a"] + 4, 12))))
    return w, roles


def _procedure(P: dict[str, Any]) -> list[str]:
    X = P["dirs"]["index"]
    return [
        "Purpose: answer a supplier's request for a price adjustment under a contract's index clause, in writing, "
        "within 30 days. Check the request against the contract and every amendment; a later amendment replaces "
        "the clause it amends.",
        f"- Index values: from the BLS download pulls kept in {X}/pulls/ (series_id as BLS pads it; periods M01-M12 "
        "are months; M13 is the annual average and is never used). A value whose footnote code is P is "
        "preliminary; use the final value of the month, as the clause requires.",
        "- Report the base and adjustment index values as published (three decimals), the index change and the "
        "index change applied (after the clause's cap and floor; 0.00 when the trigger is not met) in per cent to "
        "two decimals.",
        "- New unit prices follow the clause to the cent, from the unrounded index change. Items Schedule A holds "
        "at a firm-fixed price keep their price. Items repriced: price-list lines whose new price differs from "
        "the current price.",
        "- Annual cost of the allowed adjustment: the sum over the ERP price list of (new unit price - current unit "
        "price) x annual quantity, to the cent.",
        "- Overclaim: the sum over every line of the price list of (supplier's proposed price - allowed new price) x "
        "annual quantity, to the cent.",
        "- The supplier's index figure is confirmed when its stated index change equals the recomputed index change "
        "rounded to two decimals.",
        "- ERP upload: a csv with one row per line of the current price list; the new price equals the current "
        "price where no adjustment is allowed; effective date as YYYY-MM-DD (the adjustment's effective date).",
        "- Reply letter: the summary lines first, then the allowed new unit price of every item, the index values "
        "and months used, and the reasons for any difference from the supplier's figures."]


def _prompt(rng: random.Random, P: dict[str, Any], S: dict[str, Any], occupation: str, writers: dict[str, Any]) -> str:
    prof = dataclasses.replace(profession(occupation), occasions=(
        "the supplier expects an answer within 30 days", "accounts payable is holding the supplier's invoices",
        f"the new prices would run from {P['effective']}"))
    L, D, C = P["labels"], P["deliverables"], P["out_columns"]
    memo_labels = [(L["series"], "series id"), (L["base_index"], "index value, 3 decimals"),
                   (L["adj_index"], "index value, 3 decimals"), (L["change"], "per cent, 2 decimals"),
                   (L["applied"], "per cent, 2 decimals"), (L["decision"], "yes or no"),
                   (L["repriced"], "whole number"), (L["annual_cost"], "USD, 2 decimals"),
                   (L["overclaim"], "USD, 2 decimals"), (L["premise"], "yes or no")]
    vendor = P["vendor"]
    return instructions(
        rng, prof=prof, requester=person(rng), role=rng.choice(prof.requesters), org=S["fam"]["org"],
        subject=f"{vendor} price increase request, contract {P['contract']}",
        purpose=rng.choice((f"{vendor} has asked for a price increase under the index clause of {P['contract']}; "
                            "what does the clause actually allow?",
                            f"please check {vendor}'s escalation request against the contract and draft our reply.",
                            f"I need our answer to {vendor}'s PPI increase request and a price file for the ERP.")),
        about="the contract and its amendments, the BLS index downloads, the ERP price list and the supplier's letter",
        belief=f"{vendor} says the index is up {P['claim']:.2f} % and wants that on every line from {P['effective']}. "
               "I'd assume their index figure is right, since it comes straight from BLS - please confirm it.",
        table={"file": D["table"], "headers": [C["item"], C["current"], C["new"], C["effective"]],
               "unit": "line of the current price list (the ERP upload)"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"{D['memo']} (below) is the reply letter to {vendor}: after its opening lines, the allowed new "
                            "unit price of every item, the index values and months used, and why any figure differs "
                            "from the supplier's.",),
        policy=f"PR-14 in {P['dirs']['proc']}/ and the contract with its amendments", files=sorted(writers))


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, C = P["deliverables"], P["labels"], P["out_columns"]
    memo, table = D["memo"], D["table"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def num(key: str, decimals: int) -> tuple[str, Any]:
        return f"{memo}: {L[key]} = {facts[key]:.{decimals}f}", fld_num(memo, L[key], facts[key], decimals)

    def flag(key: str) -> tuple[str, Any]:
        return f"{memo}: {L[key]}: {yes(facts[key])}", fld(memo, L[key], yes(facts[key]), ["yes", "no"])

    cells = [(f"{table}: {i['item']} {C['new']} = {i['new']:.2f}",
              CellCheck(file=table, match={C["item"]: i["item"]}, column=C["new"], value=i["new"], tolerance=tol(2)))
             for i in facts["items"]]
    out = [
        rubric("Reads the contract's series for the amended base month and the lagged adjustment month, final values",
               10, [(f"{memo}: {L['series']}: {facts['series']}", fld(memo, L["series"], facts["series"])),
                    num("base_index", 3), num("adj_index", 3)]),
        rubric("Computes the index change and applies the trigger, cap and floor", 10, [
            num("change", 2), num("applied", 2), flag("decision")]),
        rubric("Reprices each line on its escalable share, holding the firm-fixed-price items", 10, [
            *cells, (f"{table} has {len(facts['items'])} rows", RowCountCheck(file=table, key=C["item"],
                                                                             count=len(facts["items"]))),
            (f"{memo}: {L['repriced']} = {facts['repriced']}",
             FieldCheck(file=memo, label=L["repriced"], number=float(facts["repriced"]), tolerance=0.0))]),
        rubric("Costs the allowed adjustment and the supplier's overclaim", 8, [num("annual_cost", 2),
                                                                                num("overclaim", 2)]),
        rubric("Settles whether the supplier's index figure holds", 8, [flag("premise"), num("change", 2)]),
    ]
    if judgement:
        out.append(rubric("Writes a reply the supplier can act on", 6, [
            ("States the allowed new unit price of every item and that firm-fixed items stay", llm("content")),
            ("Explains where the supplier's series, months or values differ from the clause", llm("explanation")),
            ("Is firm and courteous, as a buyer's letter to a supplier", llm("tone"))]))
    return out


PPI_ESCALATION = Workflow(
    key="ppi_escalation_reply", family="contract_pricing",
    method="economic price adjustment clause: named PPI series (NSA), amended base month, lagged adjustment month, "
           "final values, trigger, cap and floor, escalable share by category, firm-fixed items per Schedule A",
    professions=("purchasing_agents_except_wholesale_retail_and_farm_products",), solver="escalation",
    shortcuts=SHORTCUTS, draw=draw, recheck=recheck, rubrics=rubrics,
    data="generated BLS PPI download pulls, contract documents and ERP price list (stated distributions)")
