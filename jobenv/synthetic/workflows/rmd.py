"""Required minimum distributions for a client household for the coming year (personal financial advisors).

The distribution year is 2026 or 2027, reviewed in its first quarter. The client is 73 (p 0.5), 74 or 75 in that
year (born 1951-1954: starting age 73 under SECURE 2.0); the spouse is 11-15 years younger. Six accounts: the
client's traditional IRA (sole beneficiary the spouse, so the Joint and Last Survivor table), a rollover IRA
(spouse and children as beneficiaries) that received a direct rollover from a former employer's 401(k) paid on
18-30 December and deposited on 3-14 January (30,000-180,000), the 401(k) of the employer where the client still
works (owning 0-4 % of it), a Roth IRA, the spouse's own IRA, and the spouse's IRA inherited from a parent who
died in 2015-2019. Year-end balances are log-normal (medians 650k, 380k, 520k, 160k, 210k, 190k; sigma 0.35);
later month-ends move 2-9 % either way. The planned withdrawals cover each owner's IRA RMDs by 2-12 % and the
inherited IRA's by 2-15 %; for a "no" decision either the inherited amount is planned from the spouse's own IRA or
the IRA amount falls 5-15 % short (a Roth withdrawal then keeps the household total covered). The CPA's estimate
sits 2-10 % on the targeted side of the total.

Failure behaviour: ``draw`` raises DegenerateTask when an age falls outside the table excerpt, account numbers
collide, the plan or the estimate misses its target or fewer than five traps separate; ``recheck`` raises OSError,
KeyError or ValueError on a folder that is not this workflow's (``recheck_task`` reports that as one problem).
"""

from __future__ import annotations

import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import SURNAMES, profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files

__all__ = ["RMD_HOUSEHOLD", "UNIFORM", "SINGLE", "JOINT"]

# Publication 590-B (2022 tables, Treas. Reg. 1.401(a)(9)-9): the ages the excerpt carries
UNIFORM = dict(zip(range(72, 101), (27.4, 26.5, 25.5, 24.6, 23.7, 22.9, 22.0, 21.1, 20.2, 19.4, 18.5, 17.7, 16.8,
                                     16.0, 15.2, 14.4, 13.7, 12.9, 12.2, 11.5, 10.8, 10.1, 9.5, 8.9, 8.4, 7.8, 7.3,
                                     6.8, 6.4), strict=True))
SINGLE = dict(zip(range(40, 81), (45.7, 44.8, 43.8, 42.9, 41.9, 41.0, 40.0, 39.0, 38.1, 37.1, 36.2, 35.3, 34.3, 33.4,
                                   32.5, 31.6, 30.6, 29.8, 28.9, 28.0, 27.1, 26.2, 25.4, 24.5, 23.7, 22.9, 22.0, 21.2,
                                   20.4, 19.6, 18.8, 18.0, 17.2, 16.4, 15.6, 14.8, 14.1, 13.3, 12.6, 11.9, 11.2),
                  strict=True))
_JOINT_ROWS = {  # owner age -> spouse ages 55..70
    72: (32.7, 31.9, 31.1, 30.3, 29.5, 28.8, 28.1, 27.4, 26.7, 26.0, 25.4, 24.8, 24.2, 23.6, 23.1, 22.5),
    73: (32.6, 31.7, 30.9, 30.1, 29.4, 28.6, 27.9, 27.2, 26.5, 25.8, 25.1, 24.5, 23.9, 23.3, 22.7, 22.2),
    74: (32.4, 31.6, 30.8, 30.0, 29.2, 28.4, 27.7, 27.0, 26.2, 25.5, 24.9, 24.2, 23.6, 23.0, 22.4, 21.8),
    75: (32.4, 31.5, 30.7, 29.9, 29.1, 28.3, 27.5, 26.8, 26.1, 25.3, 24.6, 24.0, 23.3, 22.7, 22.1, 21.5),
    76: (32.3, 31.4, 30.6, 29.8, 29.0, 28.2, 27.4, 26.6, 25.9, 25.2, 24.4, 23.7, 23.1, 22.4, 21.8, 21.2),
    77: (32.2, 31.3, 30.5, 29.7, 28.8, 28.0, 27.3, 26.5, 25.7, 25.0, 24.3, 23.5, 22.9, 22.2, 21.5, 20.9),
    78: (32.1, 31.2, 30.4, 29.6, 28.7, 27.9, 27.1, 26.4, 25.6, 24.8, 24.1, 23.4, 22.7, 22.0, 21.3, 20.6)}
JOINT = {(o, s): v for o, row in _JOINT_ROWS.items() for s, v in zip(range(55, 71), row, strict=True)}
START_AGES = [{"born_from": 1949, "born_to": 1950, "age": 72}, {"born_from": 1951, "born_to": 1959, "age": 73},
              {"born_from": 1960, "born_to": 2100, "age": 75}]  # 1949: those born from 1 July (the draws are 1951-54)
_LABELS = {
    "total": ("Household RMD total for {y}", "Total required minimum distributions, {y}", "{y} RMDs, whole household"),
    "owner_ira": ("{who}'s IRA RMD (all traditional IRAs)", "{who}'s aggregated IRA minimum", "RMD across {who}'s IRAs"),
    "inherited": ("Inherited IRA RMD", "Minimum from the inherited IRA", "Beneficiary IRA distribution required"),
    "joint_period": ("Divisor for account {acct}", "Distribution period used, {acct}", "Life expectancy factor, {acct}"),
    "first_year": ("{who}'s first RMD year", "First distribution year for {who}", "Year {who}'s RMDs begin"),
    "deadline": ("Deadline for {who}'s {y} RMD", "{who}'s {y} RMD due by", "Latest date for {who}'s {y} distribution"),
    "shortfall": ("Shortfall in the planned withdrawals", "Planned withdrawals short by", "Uncovered RMD amount"),
    "decision": ("Planned withdrawals satisfy the RMDs", "Distribution plan meets every RMD", "Plan covers the {y} RMDs"),
    "premise": ("CPA's {c} estimate covers the RMDs", "Household RMDs within the CPA's {c}", "{c} projection is enough"),
}
_COLUMNS = {"balance": ("Balance used", "RMD basis", "Prior year-end value (adjusted)"),
            "rmd": ("RMD", "Required distribution", "Minimum distribution")}
_DIRS = {"crm": ("crm", "client_file", "household"), "custodian": ("custodian", "statements", "custodian_exports"),
         "plan": ("planning", "cash_flow", "tax_planning"), "policy": ("compliance", "procedures", "practice_manual")}
_EMPLOYERS = ("Hale & Dorsey LLP", "Brightwater Engineering", "Summit Ridge Medical Group", "Corbel Architects")
_OLD_PLANS = ("Meridian Foods 401(k) Plan", "Allied Freight Retirement Savings Plan", "Norcross Labs 401(k) Plan")


def _f(v: Any) -> float:
    return float(str(v).replace(",", "").replace("$", "").strip() or 0)


# ---- the independent computation: csv and openpyxl rows ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the folder's rows, by account type: year-end value plus December rollovers received
    in January; the table by beneficiary and age gap; RMDs aggregated per IRA owner, per plan and per inheritance."""
    folder, F, Y = Path(folder), P["files"], int(P["year"])
    tabs = {k: read_rows(folder / F["tables"], P["table_sheets"][k]) for k in ("single", "joint", "uniform")}
    single = {int(r["Age"]): _f(r["Life expectancy"]) for r in tabs["single"]}
    uniform = {int(r["Age"]): _f(r["Distribution period"]) for r in tabs["uniform"]}
    joint = {(int(r["Ages"]), int(k)): _f(v) for r in tabs["joint"] for k, v in r.items() if k != "Ages" and v}
    born = {r["name"]: int(r["date_of_birth"][:4]) for r in read_rows(folder / F["members"])}
    member = {r["name"]: r for r in read_rows(folder / F["members"])}
    spouse_of = {a: b for a in born for b in born if a != b and member[b]["relationship"] == "spouse"
                 and member[a]["relationship"] in ("client", "spouse")}
    bens = read_rows(folder / F["register"], P["beneficiary_sheet"])
    year_end = {r["account_id"]: _f(r["market_value"]) for r in read_rows(folder / F["values"]) if r["as_of"] == f"{Y - 1}-12-31"}
    moved: dict[str, float] = {}
    for r in read_rows(folder / F["activity"]):
        if "rollover" in r["activity"].lower() and r["posted"][:4] == str(Y) and r["distribution_date"][:4] == str(Y - 1):
            moved[r["account_id"]] = moved.get(r["account_id"], 0.0) + _f(r["amount"])
    due: dict[str, float] = {}
    rmd_of: dict[str, float] = {}
    period_of: dict[str, float] = {}
    key_of: dict[str, str] = {}  # the account's RMD group: an owner's IRAs together, each plan and inheritance alone
    for a in read_rows(folder / F["register"], P["register_sheet"]):
        acct, kind, who = a["account_id"], a["registration"].lower(), a["owner"]
        age, basis, period, key = Y - born[who], year_end[acct] + moved.get(acct, 0.0), 0.0, ""
        if kind == "inherited ira":
            after = int(a["decedent_date_of_death"][:4]) + 1
            period, key = single[after - born[who]] - (Y - after), "inh" + acct
        elif kind in ("traditional ira", "rollover ira", "sep ira", "401(k)"):
            key = "plan" + acct if kind == "401(k)" else "ira" + who
            working = (kind == "401(k)" and member[who]["employment_status"].lower() == "active"
                       and member[who]["employer"] == a["plan_sponsor"] and _f(member[who]["ownership_pct"]) < P["owner_limit"])
            start = next(r["age"] for r in P["start_ages"] if r["born_from"] <= born[who] <= r["born_to"])
            if age >= start and not working:
                mine = [b for b in bens if b["account_id"] == acct]
                gap = age - (Y - born[spouse_of[who]]) if who in spouse_of else 0
                sole = len(mine) == 1 and mine[0]["relationship"].lower() == "spouse" and _f(mine[0]["share_pct"]) == 100
                period = joint[(age, age - gap)] if sole and gap > 10 else uniform[age]
        rmd_of[acct], period_of[acct], key_of[acct] = rnd(basis / period, 2) if period else 0.0, rnd(period, 1), key
        if key:
            due[key] = rnd(due.get(key, 0.0) + rmd_of[acct], 2)
    planned: dict[str, float] = {}
    for r in read_rows(folder / F["plan"], P["plan_sheet"]):
        planned[key_of[r["account_id"]]] = planned.get(key_of[r["account_id"]], 0.0) + _f(r["amount"])
    short = rnd(sum(max(0.0, v - planned.get(k, 0.0)) for k, v in due.items()), 2)
    total = rnd(sum(rmd_of.values()), 2)
    first = born[P["owner"]] + next(r["age"] for r in P["start_ages"] if r["born_from"] <= born[P["owner"]] <= r["born_to"])
    return {"rows": [{"account": k, "rmd": v, "balance": rnd(year_end[k] + moved.get(k, 0.0), 2)} for k, v in rmd_of.items()],
            "total": total, "owner_ira": due.get("ira" + P["owner"], 0.0), "inherited": rmd_of[P["inherited_account"]],
            "joint_period": period_of[P["joint_account"]], "first_year": first,
            "deadline": f"{Y + 1}-04-01" if first == Y else f"{Y}-12-31", "shortfall": short,
            "decision": short <= 0.004, "premise": total <= P["cpa_estimate"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _book(rng: random.Random) -> dict[str, Any]:
    """The household: people, accounts, year-end and later values, the January activity."""
    from ..professions import FIRST_NAMES

    move = lambda: 1 + rng.choice((-1, 1)) * rng.uniform(0.02, 0.09)  # noqa: E731  (a later month-end's drift)
    Y, age, gap = rng.choice((2026, 2027)), rng.choice((73, 73, 74, 75)), rng.randint(11, 15)
    surname, maiden = rng.sample(SURNAMES, 2)
    fa, fb, k1, k2, parent = rng.sample(FIRST_NAMES, 5)
    a_born, died = Y - age, rng.randint(2015, 2019)
    people: list[dict[str, Any]] = [
        {"name": f"{fa} {surname}", "relationship": "client", "dob": dt.date(a_born, rng.randint(1, 12), rng.randint(1, 28))},
        {"name": f"{fb} {surname}", "relationship": "spouse", "dob": dt.date(a_born + gap, rng.randint(1, 12), rng.randint(1, 28))},
        *({"name": f"{k} {surname}", "relationship": "child", "dob": dt.date(a_born + gap + rng.randint(24, 32),
                                                                             rng.randint(1, 12), rng.randint(1, 28))} for k in (k1, k2))]
    if not 40 <= died + 1 - people[1]["dob"].year <= 80 or not 55 <= Y - people[1]["dob"].year <= 70:
        raise DegenerateTask("a drawn age falls outside the table excerpt")
    A, B = people[0]["name"], people[1]["name"]
    employer, old_plan = rng.choice(_EMPLOYERS), rng.choice(_OLD_PLANS)
    ids = [f"{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}" for _ in range(6)]
    if len(set(ids)) < 6:
        raise DegenerateTask("duplicate account numbers")
    spec = [("joint", A, "Traditional IRA", 650_000), ("rollover", A, "Rollover IRA", 380_000), ("k401", A, "401(k)", 520_000),
            ("roth", A, "Roth IRA", 160_000), ("own", B, "Traditional IRA", 210_000), ("inherited", B, "Inherited IRA", 190_000)]
    accounts: dict[str, dict[str, Any]] = {role: {"id": i, "owner": who, "registration": reg, "dec31": round(
        math.exp(rng.gauss(math.log(med), 0.35)), 2)} for (role, who, reg, med), i in zip(spec, ids, strict=True)}
    transit = round(rng.uniform(30_000, 180_000), 2)
    paid, received = dt.date(Y - 1, 12, rng.randint(18, 30)), dt.date(Y, 1, rng.randint(3, 14))
    own_in, own_dist = round(rng.uniform(15_000, 60_000), 2), dt.date(Y, 1, rng.randint(5, 20))
    own_posted = own_dist + dt.timedelta(days=rng.randint(6, 20))  # distributed in January: not in transit
    feb = dt.date(Y, 3, 1) - dt.timedelta(days=1)
    values: list[list[Any]] = []
    activity: list[list[Any]] = [[accounts["rollover"]["id"], received.isoformat(), "Rollover contribution", f"{transit:.2f}",
                                  paid.isoformat(), f"Direct rollover from {old_plan}, check dated {paid.isoformat()}"],
                                 [accounts["own"]["id"], own_posted.isoformat(), "Rollover contribution", f"{own_in:.2f}",
                                  own_dist.isoformat(), "Direct rollover from a 403(b) plan"]]
    for role, a in accounts.items():
        jan = a["dec31"] * move() + (transit if role == "rollover" else 0) + (own_in if role == "own" and own_posted.month == 1 else 0)
        later = jan * move() + (own_in if role == "own" and own_posted.month == 2 else 0)
        for when, v in ((dt.date(Y - 1, 11, 30), a["dec31"] * move()), (dt.date(Y - 1, 12, 31), a["dec31"]),
                        (dt.date(Y, 1, 31), jan), (feb, later)):
            values.append([a["id"], when.isoformat(), f"{v:.2f}"])
        activity += [[a["id"], dt.date(Y, 1, rng.randint(2, 28)).isoformat(), "Dividend", f"{a['dec31'] * rng.uniform(0.001, 0.004):.2f}",
                      "", "Quarterly dividend"], [a["id"], dt.date(Y, 2, rng.randint(1, 27)).isoformat(), "Advisory fee",
                                                  f"-{a['dec31'] * 0.0025:.2f}", "", "Quarterly fee"]]
    kids, split, ac = [p["name"] for p in people[2:]], rng.choice((50, 60)), {k: a["id"] for k, a in accounts.items()}
    bens = [[ac["joint"], B, "spouse", 100], [ac["rollover"], B, "spouse", split], *([ac["rollover"], k, "child", (100 - split) / 2]
            for k in kids), [ac["k401"], B, "spouse", 100], [ac["roth"], B, "spouse", 100], [ac["own"], A, "spouse", 100],
            *([ac["inherited"], k, "child", 50] for k in kids)]
    return {"Y": Y, "A": A, "B": B, "people": people, "accounts": accounts, "employer": employer, "old_plan": old_plan,
            "ownership": rng.choice((0.0, 0.0, 1.5, 2.0, 3.0, 4.0)), "parent": f"{parent} {maiden}",
            "death": dt.date(died, rng.randint(1, 12), rng.randint(1, 28)), "transit": transit, "paid": paid,
            "received": received, "values": values, "activity": activity, "bens": bens, "latest": feb}


def _data(P: dict[str, Any], b: dict[str, Any], plan: list[list[Any]]) -> dict[str, Any]:
    F, acc = P["files"], b["accounts"]
    members = [[p["name"], p["relationship"], p["dob"].isoformat(), *(("active", b["employer"], b["ownership"])
                if p["name"] == b["A"] else ("retired" if p["relationship"] == "spouse" else "", "", ""))] for p in b["people"]]
    register = [[a["id"], a["owner"], a["registration"], *(("Harbourline Retirement Services", b["employer"], "", "") if a["registration"] == "401(k)"
                 else ("Northgate Custody", "", b["parent"], b["death"].isoformat()) if a["registration"] == "Inherited IRA"
                 else ("Northgate Custody", "", "", ""))] for a in sorted(acc.values(), key=lambda a: a["id"])]
    spouses = range(55, 71)
    return {
        F["members"]: lambda p: write_csv(p, ["name", "relationship", "date_of_birth", "employment_status", "employer",
                                              "ownership_pct"], members),
        F["register"]: lambda p: write_xlsx(p, [
            (P["register_sheet"], ["account_id", "owner", "registration", "custodian", "plan_sponsor", "decedent",
                                   "decedent_date_of_death"], register),
            (P["beneficiary_sheet"], ["account_id", "beneficiary", "relationship", "share_pct"], b["bens"])]),
        F["values"]: lambda p: write_csv(p, ["account_id", "as_of", "market_value"], b["values"]),
        F["activity"]: lambda p: write_csv(p, ["account_id", "posted", "activity", "amount", "distribution_date",
                                               "description"], sorted(b["activity"], key=lambda r: (r[1], r[0]))),
        F["tables"]: lambda p: write_xlsx(p, [
            ("Table I", ["Age", "Life expectancy"], [[k, v] for k, v in SINGLE.items()]),
            ("Table II", ["Ages", *map(str, spouses)], [[o, *(JOINT[(o, s)] for s in spouses)] for o in _JOINT_ROWS]),
            ("Table III", ["Age", "Distribution period"], [[k, v] for k, v in UNIFORM.items()])]),
        F["plan"]: lambda p: write_xlsx(p, [(P["plan_sheet"], ["account_id", "owner", "amount", "timing", "purpose"], plan)]),
    }


def _graded(f: dict[str, Any], P: dict[str, Any]) -> tuple[Any, ...]:
    rows = {r["account"]: (r["rmd"], r["balance"]) for r in f["rows"]}
    return (f["total"], f["owner_ira"], f["inherited"], f["joint_period"], f["first_year"], f["deadline"],
            f["shortfall"], f["decision"], tuple(rows[a] for a in P["probe"].values()))


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.rmd import analyse

    b = _book(rng)
    Y, acc = b["Y"], b["accounts"]
    dirs = pick_labels(rng, _DIRS)
    P: dict[str, Any] = {
        "files": {"members": f"{dirs['crm']}/household_members.csv", "register": f"{dirs['crm']}/account_register.xlsx",
                  "values": f"{dirs['custodian']}/account_values_{Y}-02.csv",
                  "activity": f"{dirs['custodian']}/activity_{Y}-01-01_to_{b['latest'].isoformat()}.csv",
                  "tables": "reference/p590b_life_expectancy_tables.xlsx",
                  "plan": f"{dirs['plan']}/distribution_plan_{Y}.xlsx"},
        "dirs": dirs, "year": Y, "register_sheet": "Accounts", "beneficiary_sheet": "Beneficiaries", "plan_sheet": "Planned",
        "table_sheets": {"single": "Table I", "joint": "Table II", "uniform": "Table III"},
        "start_ages": START_AGES, "old_start_age": 72, "owner_limit": 5.0, "owner": b["A"], "cpa_estimate": 0.0,
        "joint_account": acc["joint"]["id"], "inherited_account": acc["inherited"]["id"],
        "probe": {k: acc[k]["id"] for k in ("joint", "rollover", "k401", "inherited")},
        "columns": pick_labels(rng, _COLUMNS), "labels": {},
        "deliverables": {"workbook": rng.choice((f"rmd_{Y}.xlsx", f"{b['A'].split()[1].lower()}_rmd_worksheet.xlsx",
                                                 "household_rmds.xlsx")),
                         "memo": rng.choice(("client_letter.docx", f"rmd_letter_{Y}.docx", "rmd_summary.md"))}}
    plan: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        def write_all() -> None:
            write_files(Path(tmp), _data(P, b, plan))

        write_all()
        first = analyse(tmp, P)
        need_a, need_i = first["owner_ira"], first["inherited"]
        ira_from = rng.choice((acc["joint"], acc["rollover"]))
        cover_a = math.ceil(need_a * rng.uniform(1.02, 1.12) / 500) * 500
        cover_i = math.ceil(need_i * rng.uniform(1.02, 1.15) / 100) * 100
        roof, inh_from = rng.random() < 0.4, acc["inherited"]
        if not targets["decision"] and rng.random() < 0.5:  # the inherited amount planned from the spouse's own IRA
            inh_from = acc["own"]
        elif not targets["decision"]:  # the IRA amount short; a Roth withdrawal keeps the household total covered
            cover_a, roof = math.floor(need_a * rng.uniform(0.85, 0.95) / 500) * 500, True
        plan += [[ira_from["id"], b["A"], cover_a, "December", "annual RMD"], [inh_from["id"], b["B"], cover_i, "November", "annual RMD"]]
        if roof:
            plan.append([acc["roth"]["id"], b["A"], math.ceil(max(need_a * 0.4, 12_000) / 1000) * 1000, "June", "new roof"])
        tot = first["total"]
        P["cpa_estimate"] = nice_between(tot * 1.02, tot * 1.10, 2) if targets["premise"] else nice_between(tot * 0.90, tot * 0.98, 2)
        write_all()
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in RMD_SHORTCUTS}
    if truth["decision"] != targets["decision"] or truth["premise"] != targets["premise"]:
        raise DegenerateTask("the plan or the CPA's estimate misses its target")
    if not targets["decision"] and truth["shortfall"] < 100:
        raise DegenerateTask("the shortfall is too small to grade")
    where = {"latest": ("data", "the values export runs to the end of February; the procedure uses 31 December"),
             "transit": ("data", f"{b['old_plan']} paid a rollover on {b['paid']} that reached the rollover IRA on {b['received']}"),
             "working": ("email", f"{b['A']} still works for {b['employer']} (the 401(k)'s sponsor) and owns {b['ownership']:g} %"),
             "uniform": ("data", f"the traditional IRA's sole beneficiary is {b['B']}, more than 10 years younger"),
             "inherited": ("data", f"{b['B']}'s inherited IRA has its own RMD whatever the beneficiary's age"),
             "age72": ("memo", "the archived 2021 memo starts RMDs at 72; the current one follows SECURE 2.0"),
             "aggregate": ("data", "IRA RMDs are aggregated per owner only; the inherited IRA's comes from itself")}
    base = _graded(truth, P)
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k in RMD_SHORTCUTS if _graded(singles[k], P) != base]
    if len(traps) < 5:
        raise DegenerateTask("too few traps separate from the truth")
    who, c = b["A"].split()[0], f"{P['cpa_estimate']:,.2f}"
    P["labels"] = {k: v.format(y=Y, who=who, acct=acc["joint"]["id"], c=c) for k, v in pick_labels(rng, _LABELS).items()}
    writers, roles = _workspace(rng, P, b, plan)
    prof = profession(occupation)
    L, D, C = P["labels"], P["deliverables"], P["columns"]
    hints = {"joint_period": "years, 1 decimal", "first_year": "a year", "deadline": "YYYY-MM-DD", "decision": "yes or no",
             "premise": "yes or no", "shortfall": "US dollars, 2 decimals; 0.00 if none"}
    memo_labels = [(L[k], hints.get(k, "US dollars, 2 decimals")) for k in _LABELS]
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role=rng.choice(prof.requesters), org=rng.choice(prof.orgs),
        subject=f"{b['A'].split()[1]} household - {Y} RMDs",
        purpose=rng.choice((f"I need the {b['A'].split()[1]} household's required minimum distributions for {Y}, account by account.",
                            f"please work out every RMD the {b['A'].split()[1]}s must take in {Y} and where to take it from.")),
        about="the account register, the custodian's values and activity exports, and the draft distribution plan",
        belief=f"Their CPA's tax projection assumes {c} USD of RMD income for {Y}; tell me whether that is enough.",
        table={"file": D["workbook"], "headers": ["Account", C["balance"], "Distribution period", C["rmd"]],
               "unit": "account in the register, in a sheet named RMD (0 where nothing is due)"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"In {D['workbook']}, the {C['balance']} and {C['rmd']} columns as live formulas and a sheet "
                            f"Summary (Line, Value) with the line {L['total']}. The letter says which account each RMD "
                            "comes from.",),
        policy=f"the RMD procedure in {dirs['policy']}/", files=sorted(writers))
    return Draft(subject=f"{Y} RMDs for a client household", instructions=prompt, files=writers, roles=roles, params=P,
                 traps=traps, targets=dict(targets),
                 distributions="client 73-75, spouse 11-15 years younger; six accounts with log-normal year-end "
                               "values (sigma 0.35); a 30,000-180,000 rollover in transit; later month-ends 2-9 % "
                               "away; plan 2-15 % over (or 5-15 % short); CPA estimate 2-10 % from the total")


def _procedure(current: bool, old: dt.date) -> list[str]:
    if not current:
        return ["Date: " + old.isoformat(), "- Required minimum distributions begin for the year in which the client "
                "reaches age 72 (SECURE Act); the first may be delayed to 1 April of the following year.", "- Estimate "
                "each year's RMD from the most recent statement on file, divided by the Uniform Lifetime factor for the "
                "client's age. Employer plans follow the plan administrator's notice."]
    return [f"This procedure replaces the memo of {old.isoformat()} (archived), which predates SECURE 2.0.",
            "- Starting age, by date of birth: born 1 July 1949 to 31 December 1950, 72; born 1951 to 1959, 73; born "
            "1960 or later, 75. The first RMD is for the year the owner reaches that age and may be taken as late as "
            "1 April of the following year; every later RMD by 31 December of its year.",
            "- Balance: each account's fair market value at the close of 31 December of the year before the "
            "distribution year (the Form 5498 value), never a later statement. An amount distributed from a plan or "
            "IRA in December and rolled over into an IRA in the following year (in transit at year end) is added to "
            "the receiving IRA's 31 December balance.",
            "- Distribution period: Publication 590-B, Appendix B (excerpt in reference/), at the owner's age on the "
            "birthday in the distribution year. Table III (Uniform Lifetime), except where the owner's spouse is the "
            "sole beneficiary of the account and is more than 10 years younger: Table II (Joint and Last Survivor) "
            "at both ages in the year. RMD = balance / distribution period, to the cent, half up.",
            "- Employer plans: each 401(k) separately, from that plan. A participant still employed by the plan's "
            "sponsor who is not a 5 % owner may defer that plan's RMDs until 1 April after retiring (our clients' "
            "plans allow it); never an IRA's or a former employer's plan's.",
            "- Aggregation: the RMDs of an owner's traditional, rollover and SEP IRAs are added and may be taken from "
            "any one or more of that owner's IRAs - not from a spouse's IRA, a 401(k), an inherited IRA or a Roth IRA.",
            "- Inherited IRAs (owner died before 2020): the beneficiary's single life expectancy (Table I) at the "
            "beneficiary's age on the birthday in the year after the owner's death, reduced by one for each year since; due every year "
            "whatever the beneficiary's own age, and taken from the inherited IRA itself.",
            "- Roth IRAs: no RMD during the owner's lifetime."]


def _workspace(rng: random.Random, P: dict[str, Any], b: dict[str, Any], plan: list[list[Any]]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in _data(P, b, plan).items():
        add(rel, "lookup" if rel.startswith("reference/") else "data", write)
    Y, D, acc = b["Y"], P["dirs"], b["accounts"]
    old = dt.date(2021, rng.randint(2, 11), rng.randint(1, 28))
    cur = dt.date(Y - 1, rng.randint(1, 10), rng.randint(1, 28))
    mail = dt.date(Y, rng.randint(1, 2), rng.randint(1, 28))
    A, B = b["A"], b["B"]
    latest = {r[0]: r[2] for r in b["values"] if r[1] == b["latest"].isoformat()}
    add(f"{D['policy']}/rmd_procedure_{cur.isoformat()}.docx", "policy",
        lambda p: write_docx(p, "Required minimum distributions - advisor procedure", _procedure(True, old)))
    add(f"{D['policy']}/archive/rmd_procedure_{old.isoformat()}.pdf", "stale",
        lambda p: write_pdf(p, "Required minimum distributions - advisor procedure", _procedure(False, old)))
    add("reference/p590b_appendix_b_excerpt.pdf", "lookup", lambda p: write_pdf(p, "Publication 590-B, Appendix B (excerpt)", [
        "Table I (Single Life Expectancy): " + "; ".join(f"{k}: {v}" for k, v in SINGLE.items()),
        "Table II (Joint and Last Survivor Expectancy), rows the older owner's age, columns the spouse's age 55-70: "
        + " | ".join(f"{o}: " + ", ".join(f"{v}" for v in row) for o, row in _JOINT_ROWS.items()),
        "Table III (Uniform Lifetime): " + "; ".join(f"{k}: {v}" for k, v in UNIFORM.items())]))
    add(f"correspondence/{mail.isoformat()}_hr_{b['employer'].split()[0].lower()}.pdf", "email",
        lambda p: write_pdf(p, f"{b['employer']} - employment confirmation", [
            f"This confirms that {A} is an active, full-time employee of {b['employer']} and a participant in its "
            f"401(k) plan (account {acc['k401']['id']}).", f"{A} holds {b['ownership']:g} % of the firm's equity and "
            "is not a 5-percent owner. Under the plan document, distributions to active participants who are not "
            "5-percent owners begin by 1 April following the year of retirement."]))
    add(f"{D['custodian']}/rollover_confirmation_{acc['rollover']['id']}.pdf", "data", lambda p: write_pdf(
        p, "Incoming rollover confirmation", [f"Account {acc['rollover']['id']} ({A}, Rollover IRA).",
                                              f"Received {b['received'].isoformat()}: direct rollover of {b['transit']:,.2f} USD from "
                                              f"{b['old_plan']}, check dated {b['paid'].isoformat()}.", "Any required distribution for the year of "
                                              "payment was paid by the plan separately and is not part of this rollover."]))
    add(f"correspondence/{mail.isoformat()}_cpa.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, CPA", to="advisor", date=mail.isoformat(), subject=f"{Y} projection",
        body=f"My {Y} projection for {A} and {B} assumes {P['cpa_estimate']:,.2f} of RMD income in total.")))
    add(f"correspondence/{(mail + dt.timedelta(days=3)).isoformat()}_{A.split()[0].lower()}.txt", "email", lambda p: write_text(p, email_text(
        sender=A, to="advisor", date=(mail + dt.timedelta(days=3)).isoformat(), subject="RMDs this year",
        body=f"My latest statement shows {float(latest[acc['joint']['id']]):,.2f} in the traditional IRA - please use "
             f"current numbers. {B.split()[0]} thinks nothing is due from the inherited IRA before 73, and I am still "
             f"at {b['employer']}, so I assume the 401(k) can wait. The plan our CPA drafted is in the folder.")))
    add(f"{D['custodian']}/fee_schedule.csv", "distractor", lambda p: write_csv(p, ["tier_from", "tier_to", "annual_fee_pct"], [
        [0, 1_000_000, 1.0], [1_000_000, 3_000_000, 0.8], [3_000_000, "", 0.6]]))
    add(f"{D['plan']}/investment_policy_statement.docx", "distractor", lambda p: write_docx(p, "Investment policy statement", [
        f"Household: {A} and {B}.", "Target allocation 55 % equities, 40 % fixed income, 5 % cash.",
        "Rebalance when an asset class drifts more than 5 points from target."]))
    add("meetings/annual_review_prep.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{A.split()[1]} annual review", people=[person(rng) for _ in range(3)], date=mail.isoformat())))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck

    L, D, C, pr = P["labels"], P["deliverables"], P["columns"], P["probe"]
    memo, book, Y = D["memo"], D["workbook"], int(P["year"])
    rows = {r["account"]: r for r in facts["rows"]}
    yes = lambda x: "yes" if x else "no"  # noqa: E731

    def money(key: str) -> tuple[str, Any]:
        return f"{L[key]} = {facts[key]:.2f}", fld_num(memo, L[key], facts[key], 2)

    def cell(role: str, what: str) -> tuple[str, Any]:
        acct, col = pr[role], C["balance"] if what == "balance" else C["rmd"]
        v = rows[acct][what]
        return (f"{book} RMD: {acct} {col} = {v:.2f}", CellCheck(file=book, sheet="RMD", match={"Account": acct},
                                                                  column=col, value=float(v), tolerance=tol(2)))

    out = [
        rubric("Uses each account's prior 31 December balance, with the rollover in transit", 10,
               [cell("rollover", "balance"), cell("joint", "balance")]),
        rubric("Uses the Joint and Last Survivor table for the IRA left to the younger spouse", 8, [
            (f"{L['joint_period']} = {facts['joint_period']:.1f}", fld_num(memo, L["joint_period"], facts["joint_period"], 1)),
            cell("joint", "rmd")]),
        rubric("Defers the 401(k) of the employer the client still works for", 8, [cell("k401", "rmd"), money("total")]),
        rubric("Works the inherited IRA on the beneficiary's single life expectancy", 8, [money("inherited"), cell("inherited", "rmd")]),
        rubric("Aggregates the client's IRA RMDs", 8, [money("owner_ira"), cell("rollover", "rmd")]),
        rubric("Dates the first RMD from the SECURE 2.0 starting age", 6, [
            (f"{L['first_year']} = {facts['first_year']}", FieldCheck(file=memo, label=L["first_year"], number=float(facts["first_year"]))),
            (f"{L['deadline']}: {facts['deadline']}", fld(memo, L["deadline"], facts["deadline"], [f"{Y + 1}-04-01", f"{Y}-12-31"]))]),
        rubric("Totals the household's RMDs", 10, [money("total"), (
            f"{book} Summary: {L['total']} = {facts['total']:.2f}",
            CellCheck(file=book, sheet="Summary", match={"Line": L["total"]}, column="Value", value=float(facts["total"]), tolerance=tol(2)))]),
        rubric("Checks the planned withdrawals account by account", 8, [
            money("shortfall"), (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Tests the CPA's estimate", 6, [money("total"), (
            f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Writes a letter the clients can act on", 6, [
            ("Says which account each RMD is taken from (any IRA of the owner; the inherited IRA itself)", llm("content")),
            ("Explains the 401(k) deferral and the inherited IRA's own RMD", llm("explanation")),
            ("Is plain and does not hedge the amounts", llm("writing"))]))
    return out


RMD_SHORTCUTS = ("latest", "transit", "working", "uniform", "inherited", "age72", "aggregate")

RMD_HOUSEHOLD = Workflow(
    key="rmd_household", family="retirement_distributions",
    method="Publication 590-B RMDs (Uniform and Joint tables, inherited single life), SECURE 2.0 starting age",
    professions=("personal_financial_advisors",), solver="rmd", shortcuts=RMD_SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated client household (stated distributions)")
