"""A feature film's budget top sheet at budget lock: ATL/BTL roll-up, union fringes, payroll taxes to the wage
base, contingency and the production incentive (producers).

An independent feature shooting 5-8 weeks in a fictional jurisdiction is generated as a budget detail of about
130-180 lines under a chart of 26 accounts (5 above the line, 21 below). About 45 people are budgeted. Above the
line: the writer (flat deal), producer, co-producer, director and lead actor (flat deal) at fees uniform in their
role's range (120,000-1,200,000), 3-5 supporting cast at 6,000-40,000 a week for 1 week to the whole shoot and 3-6
day players at 1,100-1,500 a day for 1-4 days. Below it: 29 crew and staff at weekly rates uniform in their role's
range (1,800-11,000) for prep (1-3 weeks, heads of department 4-8), the shoot and wrap (0-1, heads 1-2), editors
for the shoot and 10-16 weeks of post, production assistants by the day, the composer on a flat deal. Each person
is a resident with a probability by role of 0.3-0.9 (0.1-0.3 for the lead actor). Goods and services lines
(rentals, purchases, site fees, post) are 1-3 items per account, log-uniform 4,000-250,000 each, a weekly rental
often split into prep and shoot lines, from a resident vendor with probability 0.75 (0.3 for rights and ATL travel).
Pension & health: three guilds at 14.5-22 % of wages, two locals at 8.50-12.50 an hour; the payroll service's
e-mail raises one union's rate by 0.25-1.5. Payroll taxes: 6.2 % to a wage base of 150,000-180,000, 1.45 % without
base and 2.4-3.8 % to a base of 9,000-15,000. The incentive pays 20, 25 or 30 % of qualified spend with a
per-person salary cap of 250,000-400,000; contingency is 10 % of the below-the-line total with or without its
fringes. The draft v3 top sheet differs from the detail on 5-8 accounts by 3-12 %; the financiers' ceiling on net
cost is 1-6 % above or below the net cost after the credit.

Failure behaviour: ``draw`` raises DegenerateTask when no resident is over the salary cap, no person fits the
targeted premise, or a planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or ValueError on
a folder that is not this workflow's.
"""

from __future__ import annotations

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
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files

__all__ = ["BUDGET_TOP_SHEET"]

SHORTCUTS = ("nonresident", "no_cap", "flat_fringed", "no_wage_base", "old_rate", "draft_v3")
_ACCOUNTS = (("1100", "Story & Rights", "ATL"), ("1200", "Producers Unit", "ATL"), ("1300", "Director", "ATL"),
             ("1400", "Cast", "ATL"), ("1500", "ATL Travel & Living", "ATL"), ("2000", "Production Staff", "BTL"),
             ("2200", "Art Department", "BTL"), ("2300", "Set Construction", "BTL"), ("2500", "Grip", "BTL"),
             ("2700", "Set Dressing", "BTL"), ("2800", "Property", "BTL"), ("2900", "Wardrobe", "BTL"),
             ("3100", "Make-up & Hair", "BTL"), ("3200", "Electrical", "BTL"), ("3300", "Camera", "BTL"),
             ("3400", "Production Sound", "BTL"), ("3500", "Transportation", "BTL"), ("3600", "Locations", "BTL"),
             ("3700", "Production Film & Lab", "BTL"), ("3800", "Catering", "BTL"), ("4500", "Editorial", "BTL"),
             ("4600", "Music", "BTL"), ("4700", "Post-production Sound", "BTL"), ("4800", "Visual Effects", "BTL"),
             ("4900", "Titles & Deliverables", "BTL"), ("6500", "Insurance & Legal", "BTL"))
# (account, role, union, deal, unit, low, high, resident probability, staffing: atl/head/crew/post/day)
_ROLES = (("1100", "Screenwriter", "SWG", "flat", "allow", 120e3, 350e3, 0.6, "atl"),
          ("1200", "Producer", "NU", "payroll", "allow", 180e3, 420e3, 0.7, "atl"),
          ("1200", "Co-producer", "NU", "payroll", "week", 3500, 6000, 0.8, "head"),
          ("1300", "Director", "SDG", "payroll", "allow", 250e3, 850e3, 0.5, "atl"),
          ("1400", "Lead actor", "SAU", "flat", "allow", 400e3, 1200e3, 0.2, "atl"),
          ("2000", "Unit production manager", "SDG", "payroll", "week", 5200, 6800, 0.7, "head"),
          ("2000", "First assistant director", "SDG", "payroll", "week", 5000, 6500, 0.6, "head"),
          ("2000", "Second assistant director", "SDG", "payroll", "week", 3300, 4200, 0.8, "crew"),
          ("2000", "Production coordinator", "NU", "payroll", "week", 1800, 2600, 0.8, "crew"),
          ("2000", "Production assistant", "NU", "payroll", "day", 220, 280, 0.8, "day"),
          ("2000", "Production assistant", "NU", "payroll", "day", 220, 280, 0.8, "day"),
          ("2200", "Production designer", "L72", "payroll", "week", 4200, 6500, 0.5, "head"),
          ("2200", "Art director", "L72", "payroll", "week", 3200, 4200, 0.7, "crew"),
          ("2300", "Construction coordinator", "L72", "payroll", "week", 3000, 3800, 0.8, "head"),
          ("2500", "Key grip", "L72", "payroll", "week", 2800, 3400, 0.7, "crew"),
          ("2500", "Dolly grip", "L72", "payroll", "week", 2500, 3100, 0.8, "crew"),
          ("2800", "Property master", "L72", "payroll", "week", 2800, 3400, 0.7, "crew"),
          ("2900", "Costume designer", "L72", "payroll", "week", 3500, 5000, 0.6, "head"),
          ("2900", "Costumer", "L72", "payroll", "week", 2200, 2700, 0.8, "crew"),
          ("3100", "Make-up department head", "L72", "payroll", "week", 2900, 3500, 0.7, "crew"),
          ("3100", "Key hair stylist", "L72", "payroll", "week", 2600, 3200, 0.8, "crew"),
          ("3200", "Gaffer", "L72", "payroll", "week", 2900, 3500, 0.7, "crew"),
          ("3200", "Best boy electric", "L72", "payroll", "week", 2500, 3000, 0.8, "crew"),
          ("3300", "Director of photography", "L72", "payroll", "week", 7000, 11000, 0.3, "head"),
          ("3300", "First assistant camera", "L72", "payroll", "week", 2800, 3400, 0.7, "crew"),
          ("3300", "Digital imaging technician", "L72", "payroll", "week", 2700, 3300, 0.7, "crew"),
          ("3400", "Production sound mixer", "L72", "payroll", "week", 3200, 4000, 0.6, "crew"),
          ("3400", "Boom operator", "L72", "payroll", "week", 2500, 3000, 0.8, "crew"),
          ("3500", "Transportation coordinator", "DRV", "payroll", "week", 2600, 3200, 0.8, "crew"),
          ("3500", "Driver", "DRV", "payroll", "week", 1900, 2400, 0.9, "crew"),
          ("3500", "Driver", "DRV", "payroll", "week", 1900, 2400, 0.9, "crew"),
          ("3600", "Location manager", "NU", "payroll", "week", 2800, 3600, 0.8, "head"),
          ("4500", "Editor", "L72", "payroll", "week", 4000, 5500, 0.6, "post"),
          ("4500", "Assistant editor", "L72", "payroll", "week", 2300, 2900, 0.8, "post"),
          ("4600", "Composer", "NU", "flat", "allow", 60e3, 180e3, 0.5, "atl"))
_GOODS = {"1100": ("Underlying rights purchase", "Script clearance report"),
          "1500": ("Airfare - cast and director", "Hotel - cast", "Per diem - ATL"),
          "2000": ("Production office rental", "Office equipment and supplies", "Walkie-talkie rental"),
          "2200": ("Art department supplies", "Graphics and signage"), "2300": ("Lumber and hardware", "Paint and sundries"),
          "2500": ("Grip package rental", "Grip expendables"), "2700": ("Set dressing purchases", "Set dressing rentals"),
          "2800": ("Props purchases", "Props rentals"), "2900": ("Wardrobe purchases", "Wardrobe rentals", "Cleaning and dyeing"),
          "3100": ("Make-up and hair supplies", "Wigs"), "3200": ("Lighting package rental", "Generator rental", "Electrical expendables"),
          "3300": ("Camera package rental", "Lens rental", "Camera expendables"), "3400": ("Sound package rental", "Sound expendables"),
          "3500": ("Production trucks rental", "Fuel", "Passenger vans"), "3600": ("Location site fees", "Permits", "Security"),
          "3700": ("Hard drives and media", "Dailies processing"), "3800": ("Catering", "Craft service"),
          "4500": ("Edit suite rental", "Editing software licences"), "4600": ("Score recording session", "Music licensing"),
          "4700": ("Mix stage", "Sound editorial package", "ADR stage"), "4800": ("VFX vendor package", "VFX supervision"),
          "4900": ("Main and end titles", "Deliverables and QC"), "6500": ("Production package insurance", "Production legal")}
_UNIONS = {"SDG": ("Screen Directors Guild", "pct_of_wages", 14.5, 16.5), "SAU": ("Screen Actors Union", "pct_of_wages", 19.0, 22.0),
           "SWG": ("Screenwriters Guild", "pct_of_wages", 17.0, 18.5), "L72": ("Studio Crafts Local 72", "per_hour", 8.5, 11.5),
           "DRV": ("Studio Drivers Local 9", "per_hour", 9.0, 12.5)}
_PLACES = (("Calloway", "Calloway Screen Production Incentive"), ("Eastmere", "Eastmere Film Production Rebate"),
           ("North Varra", "North Varra Screen Investment Credit"), ("Solway", "Solway Production Incentive Program"))
_TITLES = ("The Lantern Keeper", "Salt Road", "Harrow Bay", "The Quiet Ledger", "Winter Orchard", "Low Tide Motel")
_LABELS = {
    "atl": ("Total above-the-line", "ATL total incl. fringes", "Above-the-line total"),
    "btl": ("Total below-the-line", "BTL total incl. fringes", "Below-the-line total"),
    "fringes": ("Total fringes", "Fringes total (P&H and payroll taxes)", "All fringes"),
    "contingency": ("Contingency", "BTL contingency", "Contingency amount"),
    "qualified": ("Qualified spend", "Qualified production expenditure", "Spend qualifying for the incentive"),
    "credit": ("Estimated incentive credit", "Estimated tax credit", "Incentive credit (estimate)"),
    "net": ("Net cost after credit", "Net budget after incentive", "Net cost after the incentive"),
    "decision": ("Within the financiers' ceiling", "Net cost within the approved ceiling", "Fits the greenlight ceiling"),
    "named": ("Qualified wages of {who}", "{who} - qualified wages", "{who}'s wages counted as qualified"),
    "premise": ("All of {who}'s wages qualify", "{who}'s full fee qualifies", "Whole {who} fee counts as qualified"),
}
_OUT = {"person": ("person", "name"), "ph": ("pension_health", "p_and_h"), "tax": ("payroll_tax", "employer_taxes"),
        "fringe": ("fringe_total", "total_fringes"), "qualified": ("qualified_wages", "qualifying_wages"),
        "account": ("account", "acct"), "amount": ("amount", "total")}
_TOP = {"atl_fringes": "ATL fringes", "atl": "Total above-the-line", "btl_fringes": "BTL fringes",
        "btl": "Total below-the-line", "contingency": "Contingency", "grand": "Grand total",
        "credit": "Incentive credit", "net": "Net cost after credit"}
_DIRS = {"budget": ("budget", "accounting/budget", "finance/budget"), "mail": ("mail", "correspondence", "inbox"),
         "incentive": ("incentive", "tax_credit", "state_incentive"), "prod": ("production", "prod_office", "office")}
_DETAIL_HEAD = ["account", "description", "person", "cost_type", "deal", "union", "resident", "units", "unit", "rate",
                "total"]


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: wages and hours gathered per person, fringes
    per person, then the roll-up, the contingency and the credit."""
    folder, F = Path(folder), P["files"]
    sec = {r["account"]: r["section"] for r in read_rows(folder / F["detail"], P["accounts_sheet"])}
    per_unit = P["hours_per_unit"]
    acct: dict[str, float] = dict.fromkeys(sec, 0.0)
    who: dict[str, dict[str, Any]] = {}
    goods = 0.0
    for r in read_rows(folder / F["detail"], P["detail_sheet"]):
        amount = rnd(float(r["units"]) * float(r["rate"]), 2)
        acct[r["account"]] += amount
        if r["cost_type"] == "labor":
            w = who.setdefault(r["person"], {"acct": r["account"], "sec": sec[r["account"]], "union": r["union"], "flat": r["deal"] == "flat",
                                             "res": r["resident"] == "Y", "wages": 0.0, "hours": 0.0})
            w["wages"] += amount
            w["hours"] += float(r["units"]) * per_unit.get(r["unit"], 0)
        elif sec[r["account"]] == "BTL" and r["resident"] == "Y":
            goods += amount
    ph: dict[str, tuple[str, float]] = {}
    taxes: list[tuple[float, float]] = []
    for r in read_rows(folder / F["fringes"]):
        if r["type"] == "payroll_tax":
            taxes.append((float(r["rate"]), float(r["wage_base"]) if r["wage_base"] else math.inf))
        else:
            ph[r["applies_to"]] = (r["basis"], float(r["rate"]))
    up = P["rate_update"]
    ph[up["union"]] = (ph[up["union"]][0], float(up["rate"]))
    cap = float(P["incentive"]["cap"])
    fringe = {"ATL": 0.0, "BTL": 0.0}
    people: list[dict[str, Any]] = []
    for name, w in sorted(who.items(), key=lambda kv: (kv[1]["acct"], kv[0])):
        wages = rnd(w["wages"], 2)
        basis, rate = ph.get(w["union"], ("pct_of_wages", 0.0))
        p_h = rnd(w["hours"] * rate if basis == "per_hour" else wages * rate / 100, 2)
        f = 0.0 if w["flat"] else rnd(p_h + rnd(sum(min(wages, b) * r / 100 for r, b in taxes), 2), 2)
        fringe[w["sec"]] += f
        people.append({"person": name, "fringe": f, "qualified": rnd(min(wages, cap), 2) if w["res"] else 0.0})
    sub = {s: sum(v for a, v in acct.items() if sec[a] == s) for s in fringe}
    atl, btl = rnd(sub["ATL"] + fringe["ATL"], 2), rnd(sub["BTL"] + fringe["BTL"], 2)
    cont = rnd(P["contingency"]["pct"] / 100 * (btl if P["contingency"]["with_fringes"] else rnd(sub["BTL"], 2)), 2)
    qualified = rnd(sum(p["qualified"] for p in people) + goods, 2)
    credit = rnd(P["incentive"]["rate"] / 100 * qualified, 2)
    net = rnd(atl + btl + cont - credit, 2)
    named = who[P["named_person"]]
    return {"accounts": [{"account": a, "total": rnd(v, 2)} for a, v in sorted(acct.items())], "people": people,
            "atl": atl, "btl": btl, "fringes": rnd(fringe["ATL"] + fringe["BTL"], 2), "contingency": cont,
            "qualified": qualified, "credit": credit, "net": net,
            "named_qualified": next(p["qualified"] for p in people if p["person"] == P["named_person"]),
            "decision": net <= P["ceiling"], "premise": named["res"] and rnd(named["wages"], 2) <= cap}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _budget(rng: random.Random) -> tuple[list[list[Any]], int]:
    """The budget detail lines (``_DETAIL_HEAD`` without the total) and the shoot weeks."""
    shoot = rng.randint(5, 8)
    names: set[str] = set()
    lines: list[list[Any]] = []
    for acct, role, union, deal, unit, lo, hi, p_res, kind in _ROLES:
        name = person(rng)
        while name in names:
            name = person(rng)
        names.add(name)
        if role == "Lead actor":
            p_res = rng.uniform(0.1, 0.3)
        res = "Y" if rng.random() < p_res else "N"
        if kind == "atl":
            fee = round(rng.uniform(lo, hi), -3)
            lines.append([acct, f"{role} - fee", name, "labor", deal, union, res, 1, unit, fee])
            continue
        rate = round(rng.uniform(lo, hi), -1)
        if kind == "day":
            lines.append([acct, f"{role} - prep and shoot", name, "labor", deal, union, res, 5 * shoot + rng.randint(5, 15), unit, rate])
            continue
        if kind == "post":
            lines.append([acct, f"{role} - shoot and post", name, "labor", deal, union, res, shoot + rng.randint(10, 16), unit, rate])
            continue
        prep = rng.randint(4, 8) if kind == "head" else rng.randint(1, 3)
        wrap = rng.randint(1, 2) if kind == "head" else rng.randint(0, 1)
        for phase, weeks in (("prep", prep), ("shoot", shoot), ("wrap", wrap)):
            if weeks:
                lines.append([acct, f"{role} - {phase}", name, "labor", deal, union, res, weeks, unit, rate])
    cast = rng.randint(4, 6) - 1
    for k in range(cast):
        name = person(rng)
        while name in names:
            name = person(rng)
        names.add(name)
        weeks = rng.randint(1, shoot)
        lines.append(["1400", f"Supporting cast {k + 1} - {weeks} week{'s' if weeks > 1 else ''}", name, "labor", "payroll", "SAU",
                      "Y" if rng.random() < 0.5 else "N", weeks, "week", round(rng.uniform(6000, 40000), -2)])
    for k in range(rng.randint(3, 6)):  # day players: SAG-style daily rates, a few days each
        name = person(rng)
        while name in names:
            name = person(rng)
        names.add(name)
        lines.append(["1400", f"Day player {k + 1}", name, "labor", "payroll", "SAU", "Y" if rng.random() < 0.7 else "N",
                      rng.randint(1, 4), "day", round(rng.uniform(1100, 1500), -1)])
    for acct, items in _GOODS.items():
        for item in rng.sample(items, rng.randint(max(1, len(items) - 1), len(items))):
            unit, units = rng.choice((("week", shoot + rng.randint(0, 4)), ("allow", 1), ("day", 5 * shoot)))
            total = math.exp(rng.uniform(math.log(4000), math.log(250000)))
            rate = round(total / units, 2)
            local = "N" if acct in ("1100", "1500") and rng.random() < 0.7 else ("Y" if rng.random() < 0.75 else "N")
            if unit == "week" and rng.random() < 0.6:  # rented for prep as well as the shoot: a line each
                lines.append([acct, f"{item} - prep", "", "goods", "", "", local, rng.randint(1, 3), unit, rate])
                item = f"{item} - shoot"
            lines.append([acct, item, "", "goods", "", "", local, units, unit, rate])
    lines.sort(key=lambda r: r[0])
    return lines, shoot


def _scenario(rng: random.Random) -> dict[str, Any]:
    ph = {u: round(rng.uniform(lo, hi) * 4) / 4 if b == "pct_of_wages" else round(rng.uniform(lo, hi) * 20) / 20
          for u, (_, b, lo, hi) in _UNIONS.items()}
    changed = rng.choice(("L72", "SAU", "SDG", "DRV"))
    step = rng.choice((0.25, 0.5, 0.75, 1.0, 1.5))
    day = rng.choice((10, 12))
    return {"ph": ph, "rate_update": {"union": changed, "old": ph[changed], "rate": round(ph[changed] + step, 2)},
            "taxes": [("SOC", 6.2, float(rng.randint(150, 180) * 1000)), ("MED", 1.45, None),
                      ("SUI", rng.choice((2.4, 2.7, 3.1, 3.4, 3.8)), float(rng.randint(18, 30) * 500))],
            "hours": {"week": 5 * day, "day": day, "allow": 0},
            "incentive": {"rate": float(rng.choice((20, 25, 30))), "cap": float(rng.choice((250, 300, 350, 400)) * 1000)},
            "contingency": {"pct": 10.0, "with_fringes": rng.random() < 0.5}}


def _fringe_rows(S: dict[str, Any]) -> list[list[Any]]:
    rows: list[list[Any]] = [[u, f"{n} pension & health", "pension_health", u, b, S["ph"][u], ""]
                             for u, (n, b, _, _) in _UNIONS.items()]
    desc = {"SOC": "Employer social insurance", "MED": "Employer medical levy", "SUI": "State unemployment insurance"}
    rows += [[c, desc[c], "payroll_tax", "all payroll deals", "pct_of_wages", r, "" if b is None else int(b)]
             for c, r, b in S["taxes"]]
    return rows


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.topsheet import analyse

    prof = profession(occupation)
    place, program = rng.choice(_PLACES)
    title = rng.choice(_TITLES)
    dirs = pick_labels(rng, _DIRS)
    S = _scenario(rng)
    lines, shoot = _budget(rng)
    P: dict[str, Any] = {
        "files": {"detail": f"{dirs['budget']}/budget_detail_v4.xlsx", "fringes": f"{dirs['budget']}/fringe_rates.csv",
                  "v3": f"{dirs['budget']}/drafts/top_sheet_v3_DRAFT.xlsx"},
        "detail_sheet": "Detail", "accounts_sheet": "Accounts", "rate_update": S["rate_update"],
        "hours_per_unit": S["hours"], "incentive": S["incentive"], "contingency": S["contingency"],
        "named_person": lines[0][2], "ceiling": 0.0, "labels": {}, "out_columns": pick_labels(rng, _OUT),
        "top_rows": dict(_TOP),
        "deliverables": {"workbook": rng.choice(("top_sheet_v4.xlsx", "budget_top_sheet.xlsx", "topsheet_lock.xlsx")),
                         "memo": rng.choice(("note_to_ep.md", "ep_budget_note.docx", "top_sheet_note.md"))}}
    v3: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)

        def write() -> None:
            write_files(root, _data(P, S, lines, v3))

        write()
        truth = analyse(tmp, P)
        cap = S["incentive"]["cap"]
        people = [p for p in truth["people"] if p["wages"] >= 40000]
        if not any(p["resident"] and p["wages"] > cap for p in people):
            raise DegenerateTask("no resident is over the salary cap")
        fits = [p for p in people if (p["resident"] and p["wages"] <= cap) == targets["premise"]]
        over = [p for p in fits if p["resident"]] if not targets["premise"] else fits
        if not fits:
            raise DegenerateTask("no person fits the targeted premise")
        named = rng.choice(over if over and rng.random() < 0.7 else fits)  # False: over the cap, or not local
        P["named_person"] = named["person"]
        changed = rng.sample([a["account"] for a in truth["accounts"]], rng.randint(5, 8))
        v3.extend([a["account"], a["name"], round(a["total"] * (1 + rng.choice((-1, 1)) * rng.uniform(0.03, 0.12)))
                   if a["account"] in changed else a["total"]] for a in truth["accounts"])
        write()
        truth = analyse(tmp, P)
        net = truth["net"]
        P["ceiling"] = (nice_between(net * 1.01, net * 1.06, 2) if targets["decision"]
                        else nice_between(net * 0.94, net * 0.99, 2))
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
    graded = ("atl", "btl", "fringes", "contingency", "qualified", "credit", "net")
    where = {"nonresident": ("data", "non-resident people's wages do not qualify (resident flag, incentive guide)"),
             "no_cap": ("memo", "qualified wages stop at the guide's per-person salary cap"),
             "flat_fringed": ("memo", "flat deals are all-in: no pension & health, no payroll taxes"),
             "no_wage_base": ("data", "payroll taxes stop at each tax's wage base per person"),
             "old_rate": ("email", f"the payroll service's e-mail raises the {S['rate_update']['union']} P&H rate"),
             "draft_v3": ("email", "the draft v3 top sheet is superseded by the v4 detail")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k} for k, nf in singles.items()
             if any(abs(nf[g] - truth[g]) > 0.02 for g in graded)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    for k in ("named", "premise"):
        labels[k] = labels[k].format(who=P["named_person"])
    P["labels"] = labels
    writers, roles = _workspace(rng, P, S, (place, program, title), dirs, _data(P, S, lines, v3))
    L, D = labels, P["deliverables"]
    role_of = {ln[2]: ln[1].split(" - ")[0] for ln in lines if ln[2]}
    money = "amount in dollars, 2 decimal places"
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role="Executive Producer", org=rng.choice(prof.orgs),
        subject=f"{title}: budget top sheet for lock",
        purpose=rng.choice((f"I need the top sheet for {title} locked: fringes, contingency and the {place} credit.",
                            f"please build the v4 top sheet for {title} from the current detail, with fringes, "
                            "contingency and the incentive.",
                            f"can you roll the {title} budget up into a top sheet with fringes, contingency and the "
                            "tax credit before lock?")),
        about="the budget detail, the fringe table, the incentive guide and the correspondence",
        belief=f"{P['named_person']} ({role_of[P['named_person']].lower()}) is local, so I'm counting the "
               "whole fee toward qualified spend - please confirm.",
        table={"file": D["workbook"], "headers": [P["out_columns"]["account"], "description", "section",
                                                   P["out_columns"]["amount"]],
               "unit": "account of the chart of accounts, followed by the total lines " + ", ".join(_TOP.values())},
        memo_file=D["memo"],
        memo_labels=[(L[k], money) for k in ("atl", "btl", "fringes", "contingency", "qualified", "credit", "net")]
        + [(L["decision"], "yes or no"), (L["named"], money), (L["premise"], "yes or no")],
        extra_deliverables=(
            f"That table is the sheet TopSheet of {D['workbook']}; account amounts are SUMIFS of the Detail sheet "
            "(the budget lines with total = units x rate as a formula) and the total lines are formulas too.",
            f"Sheet Fringes: one row per person budgeted (columns {P['out_columns']['person']}, wages, "
            f"{P['out_columns']['ph']}, {P['out_columns']['tax']}, {P['out_columns']['fringe']}, live formulas); sheet "
            f"Incentive: one row per person ({P['out_columns']['person']}, resident, wages, "
            f"{P['out_columns']['qualified']}) with the qualified spend and the credit as formulas.",
            f"In {D['memo']}, after its opening lines, a short note to the executive producer on what changed since "
            "the draft v3 and what qualifies for the credit."),
        policy=f"the budget conventions in {dirs['budget']}/ and the incentive guide in {dirs['incentive']}/",
        files=sorted(writers))
    return Draft(subject=f"Budget top sheet for {title}", instructions=prompt, files=writers, roles=roles, params=P,
                 traps=traps, targets=dict(targets),
                 distributions="26 accounts, ~45 people, 130-180 lines; fees 120k-1.2M ATL, weekly rates 1.8k-11k; "
                               "residents p 0.3-0.9 by role (lead 0.1-0.3), local vendors p 0.75; P&H 14.5-22 % or 8.50-12.50/h; "
                               "payroll taxes to wage bases; credit 20-30 % with a 250k-400k salary cap")


def _data(P: dict[str, Any], S: dict[str, Any], lines: list[list[Any]], v3: list[list[Any]]) -> dict[str, Any]:
    F = P["files"]
    rows = [r + [rnd(r[7] * r[9], 2)] for r in lines]
    return {
        F["detail"]: lambda p: write_xlsx(p, [(P["detail_sheet"], _DETAIL_HEAD, rows),
                                              (P["accounts_sheet"], ["account", "name", "section"], [list(a) for a in _ACCOUNTS])]),
        F["fringes"]: lambda p: write_csv(p, ["code", "description", "type", "applies_to", "basis", "rate", "wage_base"],
                                          _fringe_rows(S)),
        F["v3"]: lambda p: write_xlsx(p, [("Top sheet v3", ["account", "description", "total"], v3)]),
    }


def _conventions(P: dict[str, Any], S: dict[str, Any]) -> list[str]:
    h, c = S["hours"], S["contingency"]
    base = "the below-the-line total including its fringes" if c["with_fringes"] else \
        "the below-the-line account totals before fringes (BTL fringes are not part of the base)"
    return [
        "Budget conventions for the top sheet (current; applies to v4 and later)",
        "- Sections: the Accounts sheet of the budget detail says whether an account is above the line (ATL) or "
        "below the line (BTL). A line's total is units x rate, to the cent; an account's total is the sum of its lines.",
        "- Labour lines (cost_type labor) name the person. A person's wages are the sum of all their lines, whatever "
        "the deal.",
        "- Deal 'flat': an all-in flat deal. No pension & health and no payroll taxes are budgeted on it.",
        "- Deal 'payroll': pension & health from the fringe table for the person's union (NU = non-union: none), "
        f"either a % of wages or an amount per hour on budgeted hours: a budgeted week is {h['week']} hours, a day "
        f"{h['day']} hours, an allowance carries no hours. Then the employer payroll taxes of the fringe table on "
        "the person's wages, each only up to its wage base per person (a blank wage base means no limit).",
        "- Rounding: each person's pension & health and each person's payroll taxes (all taxes together) to the "
        "cent, half up; a person's fringes are the sum of the two. Fringes belong to the section of the person's "
        "account.",
        "- Total above-the-line = ATL account totals + ATL fringes; total below-the-line = BTL account totals + BTL "
        "fringes; total fringes = ATL fringes + BTL fringes.",
        f"- Contingency: {c['pct']:g} % of {base}, to the cent. No contingency on above-the-line costs.",
        "- Grand total = total above-the-line + total below-the-line + contingency. Net cost after credit = grand "
        "total - the estimated incentive credit.",
        "- The budget detail of record is the latest version issued by production accounting; earlier top sheets are "
        "drafts and are not carried forward."]


def _guide(P: dict[str, Any], S: dict[str, Any], place: str, program: str, current: bool) -> list[str]:
    inc = S["incentive"]
    if not current:
        return [f"{program} - guidelines 2023 edition (superseded)", f"Credit rate: {inc['rate'] - 5:g} % of qualified "
                "spend.", "Qualified spend includes all wages paid for services performed in the jurisdiction.",
                "There is no per-person salary cap in this edition."]
    return [
        f"{program} - program guidelines, current edition (excerpt)",
        "This edition supersedes all earlier editions of the guidelines.",
        f"3.1 The credit equals {inc['rate']:g} % of the production's qualified spend, rounded to the cent.",
        f"3.2 Qualified spend is (a) wages paid to individuals who are residents of {place}, above or below the line, "
        "and (b) below-the-line goods and services purchased or rented from vendors based in "
        f"{place}. In the production's budget both are shown by the resident flag (Y) of the line.",
        "3.3 Wages paid to non-residents do not qualify, whatever the services. Above-the-line costs other than "
        "resident wages (rights, travel and living) do not qualify.",
        "3.4 Fringe benefits, payroll taxes and contingency are not qualified spend.",
        f"3.5 Salary cap: the qualified wages of any one individual are limited to {inc['cap']:,.0f} for the "
        "production, counting all of that individual's fees and wages (payroll or flat deal) together.",
        "3.6 The estimate in the application uses the budget of record; the final credit follows the audited cost "
        "report."]


def _workspace(rng: random.Random, P: dict[str, Any], S: dict[str, Any], names: tuple[str, str, str],
               dirs: dict[str, str], data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data" if "drafts" not in rel else "stale", write)
    budget = P["files"]["detail"].rsplit("/", 1)[0]
    mail, inc, prod = dirs["mail"], dirs["incentive"], dirs["prod"]
    place, program, title = names
    up = S["rate_update"]
    lock = f"2026-{rng.randint(2, 10):02d}-{rng.randint(10, 26):02d}"
    earlier = f"{lock[:8]}{int(lock[8:]) - rng.randint(3, 9):02d}"
    add(f"{budget}/budget_conventions.docx", "policy", lambda p: write_docx(p, "Budget conventions", _conventions(P, S)))
    add(f"{inc}/guidelines_current_excerpt.pdf", "policy", lambda p: write_pdf(p, program, _guide(P, S, place, program, True)))
    add(f"{inc}/archive/guidelines_2023.pdf", "stale", lambda p: write_pdf(p, program, _guide(P, S, place, program, False)))
    add(f"{inc}/application_checklist.docx", "distractor", lambda p: write_docx(p, "Application checklist", [
        "Certificate of good standing", "Budget top sheet and detail", "Crew residency declarations",
        "Shooting schedule", "Signed attestation by the production's authorised officer"]))
    unions = _UNIONS[up["union"]][0]
    per = "per hour" if _UNIONS[up["union"]][1] == "per_hour" else "% of wages"
    add(f"{mail}/{earlier}_payroll_rate_change.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Client Services, Reelpay Payroll Services", to="production accounting", date=earlier,
        subject=f"{up['union']} pension & health rate", body=f"The new {unions} agreement is ratified: the pension "
        f"& health contribution goes from {up['old']:g} to {up['rate']:g} {per} for all work from the start of "
        "prep. Our fringe_rates.csv still shows the old figure until the next quarterly refresh - please budget "
        "at the new rate.")))
    add(f"{mail}/{lock}_v4_detail_issued.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Production Accountant", to="line producer", date=lock,
        subject=f"{title} - budget detail v4", body="v4 of the budget detail is issued and is the budget of record: "
        "it picks up the tech scout changes and the final deal memos. The v3 top sheet in drafts/ is superseded - "
        "please do not reuse its numbers.")))
    add(f"{mail}/{lock}_financing_ceiling.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Head of Production Finance", to="executive producer; line producer", date=lock,
        subject="Greenlight ceiling", body=f"The financiers will greenlight at a net cost after the {place} "
        f"incentive of at most {P['ceiling']:,.2f}. Anything above that goes back to the committee.")))
    add(f"{prod}/stripboard_summary.csv", "distractor", lambda p: write_csv(p, ["day", "set", "scenes", "int_ext"], [
        [d + 1, rng.choice(("Lighthouse", "Harbour road", "Motel room 6", "Diner", "Ferry deck")), rng.randint(2, 7),
         rng.choice(("INT", "EXT"))] for d in range(20)]))
    add(f"{prod}/location_scout_notes.docx", "distractor", lambda p: write_docx(p, "Tech scout notes", [
        "Harbour road needs two days of traffic control.", "Diner owner asks for a cleaning day after the shoot.",
        "Generator placement at the lighthouse agreed with the parks office."]))
    add(f"{prod}/insurance_quote.pdf", "distractor", lambda p: write_pdf(p, "Production package - quote", [
        "Quote valid 30 days.", "Deductibles per claim as scheduled.", "Cast insurance subject to medical exams."]))
    add(f"meetings/{lock}_production_meeting.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="budget lock", people=[person(rng) for _ in range(3)], date=lock)))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck

    D, L, C = P["deliverables"], P["labels"], P["out_columns"]
    book, memo = D["workbook"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def cell(sheet: str, key: str, kv: str, col: str, v: float) -> tuple[str, Any]:
        return (f"{book} {sheet}: {kv} {col} = {v:.2f}",
                CellCheck(file=book, sheet=sheet, match={key: kv}, column=col, value=float(v), tolerance=tol(2)))

    def money(k: str, fact: str) -> tuple[str, Any]:
        return f"{L[k]} = {facts[fact]:.2f}", fld_num(memo, L[k], facts[fact], 2)

    accts = [cell("TopSheet", C["account"], a["account"], C["amount"], a["total"]) for a in facts["accounts"]]
    fringes = [cell("Fringes", C["person"], p["person"], C["fringe"], p["fringe"]) for p in facts["people"]]
    quals = [cell("Incentive", C["person"], p["person"], C["qualified"], p["qualified"]) for p in facts["people"]]
    out = [
        rubric("Rolls the current budget detail up by account", 8, accts),
        rubric("Fringes each person: union P&H, payroll taxes to the wage base, none on flat deals", 10, fringes),
        rubric("Totals above and below the line with their fringes", 10,
               [money("atl", "atl"), money("btl", "btl"), money("fringes", "fringes")]),
        rubric("Takes the contingency on the stated base", 6, [money("contingency", "contingency")]),
        rubric("Counts qualified wages: residents only, capped per person", 10, [*quals, money("qualified", "qualified")]),
        rubric("Estimates the credit and the net cost against the financiers' ceiling", 8, [
            money("credit", "credit"), money("net", "net"),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Answers the executive producer's belief about the named person's fee", 6, [
            money("named", "named_qualified"),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Writes a note the executive producer can take to the greenlight meeting", 6, [
            ("Explains what qualifies for the credit: residents only, the salary cap, no fringes or contingency",
             llm("content")),
            ("Says the v4 detail and the new union rate replace the draft v3 figures", llm("explanation")),
            ("Corrects the executive producer's belief about the named person's fee plainly", llm("writing"))]))
    return out


BUDGET_TOP_SHEET = Workflow(
    key="budget_top_sheet", family="production_budgeting",
    method="ATL/BTL top sheet roll-up with union fringes, payroll taxes to the wage base, BTL contingency and a "
           "production incentive on capped resident wages",
    professions=("producers",), solver="topsheet", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated film budget detail (stated distributions)")
