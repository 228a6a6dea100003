"""Conference travel claims checked against the per diem rates (administrative assistants).

One conference of 2-3 days in a destination with two lodging seasons is generated. 3-6 staff travel: each
leaves the day before the conference or its first morning and returns on its last day or the day after; 1-2 of
them drive (round trip 90-420 miles), the rest fly (airfare 240-620); registration 350-900. Hotel room rates are
the conference block rate, 85-125 % of the lodging rate of the season in force (so some nights exceed the cap);
lodging tax is 10-16 % of the room rate. The agenda provides lunch on 1-3 conference days. Each traveller's M&IE
claim is either right, the full rate for every day, or ignores the provided lunches; mileage is claimed at the
policy rate or the superseded one. The per diem table lists the destination's off-season row first.

Failure behaviour: ``draw`` raises DegenerateTask when nobody over-claims, two travellers tie for the largest
over-claim, no traveller lies on the targeted side of the policy or fewer than three planted items move a graded
figure; the solver raises ValueError when the destination or a night's season is missing from the rate table.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, read_rows, write_files

__all__ = ["TRAVEL_PER_DIEM"]

# destination, state, county, (peak months), off-season lodging, peak lodging, M&IE
_PLACES = (("Orlando", "FL", "Orange", (1, 2, 3), 132, 161, 69), ("Denver", "CO", "Denver", (6, 7, 8), 178, 209, 79),
           ("San Antonio", "TX", "Bexar", (2, 3, 4), 128, 151, 69), ("Nashville", "TN", "Davidson", (4, 5, 6), 191, 236, 79),
           ("Minneapolis", "MN", "Hennepin", (6, 7, 8, 9), 154, 187, 74), ("Phoenix", "AZ", "Maricopa", (1, 2, 3), 146, 203, 74))
_BREAKDOWN = {59: (13, 15, 26, 5), 64: (14, 16, 29, 5), 69: (16, 17, 31, 5), 74: (18, 18, 33, 5), 79: (20, 20, 34, 5)}
_LABELS = {
    "total": ("Total allowable", "Total reimbursable", "Allowable total, all travellers"),
    "over": ("Total over-claimed", "Amount over-claimed", "Over-claims in total"),
    "worst": ("Traveller with the largest over-claim", "Largest over-claimant", "Most over-claimed traveller"),
    "worst_over": ("Largest over-claim amount", "Their over-claim", "Largest over-claim"),
    "decision": ("Within the travel budget", "Covered by the remaining budget", "Fits the conference budget"),
    "named_mie": ("M&IE allowed for {name}", "{name} M&IE allowable", "Allowable M&IE for {name}"),
    "premise": ("{name} claim within policy", "{name} claimed no more than allowed", "{name} claim is allowable"),
}
_DIRS = {"claims": ("claims", "travel_claims", "expenses"), "receipts": ("receipts", "hotel_folios", "receipts/hotel"),
         "policy": ("policy", "travel_policy", "admin/policies"), "mail": ("correspondence", "email", "inbox"),
         "conf": ("conference", "event", "conference_materials")}
_FIRST = ("Ana", "Ben", "Chloe", "Dev", "Elena", "Farid", "Grace", "Hugo", "Imani", "Jonas", "Keiko", "Luis")
_LAST = ("Okafor", "Lindqvist", "Moreau", "Patel", "Reyes", "Sato", "Novak", "Hughes", "Brennan", "Adeyemi")


def _trip(rng: random.Random) -> dict[str, Any]:
    place = rng.choice(_PLACES)
    name, state, county, peak, off_rate, peak_rate, mie = place
    year = rng.choice((2024, 2025))
    month = rng.choice(peak)
    start = dt.date(year, month, rng.randint(3, 24))
    start += dt.timedelta(days=(1 - start.weekday()) % 7)  # conferences open on a Tuesday
    n_conf = rng.randint(2, 3)
    conf_days = [start + dt.timedelta(days=k) for k in range(n_conf)]
    lunches = sorted(rng.sample(conf_days, rng.randint(1, min(3, n_conf))))
    used: set[str] = set()
    people = []
    for _ in range(rng.randint(3, 6)):
        while (who := f"{rng.choice(_FIRST)} {rng.choice(_LAST)}") in used:
            pass
        used.add(who)
        depart = start - dt.timedelta(days=rng.choice((1, 1, 0)))
        back = conf_days[-1] + dt.timedelta(days=rng.choice((0, 1, 1)))
        if back <= depart:
            back = depart + dt.timedelta(days=1)
        people.append({"name": who, "depart": depart, "back": back, "drives": False,
                       "style": rng.choice(("right", "full", "no_meals", "right")),
                       "old_mileage": rng.random() < 0.5, "registration": float(rng.randrange(350, 900, 25))})
    for p in rng.sample(people, rng.randint(1, 2)):
        p["drives"] = True
        p["miles"] = float(rng.randint(90, 420))
    for p in people:
        if not p["drives"]:
            p["airfare"] = round(rng.uniform(240, 620), 2)
    return {"place": place, "start": start, "conf_days": conf_days, "lunches": lunches, "people": people,
            "year": year, "peak": peak, "mie": mie, "off_rate": off_rate, "peak_rate": peak_rate}


def _seasons(t: dict[str, Any]) -> list[list[Any]]:
    """The destination's two rows (off-season first, as the published table lists them) and other places."""
    y, peak = t["year"], t["peak"]
    p_begin = dt.date(y, peak[0], 1)
    p_end = dt.date(y, peak[-1] + 1, 1) - dt.timedelta(days=1) if peak[-1] < 12 else dt.date(y, 12, 31)
    name, state, county = t["place"][:3]
    rows = [[state, name, county, iso(dt.date(y, 1, 1) if p_begin.month > 1 else p_end + dt.timedelta(days=1)),
             iso(p_begin - dt.timedelta(days=1) if p_begin.month > 1 else dt.date(y, 12, 31)), t["off_rate"], t["mie"]],
            [state, name, county, iso(p_begin), iso(p_end), t["peak_rate"], t["mie"]]]
    if p_begin.month > 1 and p_end.month < 12:
        rows.append([state, name, county, iso(p_end + dt.timedelta(days=1)), iso(dt.date(y, 12, 31)), t["off_rate"],
                     t["mie"]])
    for other in _PLACES:
        if other[0] != name:
            rows.append([other[1], other[0], other[2], iso(dt.date(y, 1, 1)), iso(dt.date(y, 12, 31)), other[4],
                         other[6]])
    rows.append(["", "Standard CONUS", "", iso(dt.date(y, 1, 1)), iso(dt.date(y, 12, 31)), 110, 59])
    return rows


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: a daily M&IE ledger per traveller and a
    nightly lodging ledger. Raises StopIteration or KeyError when a traveller or a season is missing."""
    folder, F = Path(folder), P["files"]
    seasons = [r for r in read_rows(folder / F["per_diem"]) if r["destination"] == P["destination"]]

    def season(d: str) -> dict[str, str]:
        return next(r for r in seasons if r["season_begin"][:10] <= d <= r["season_end"][:10])

    claims = read_rows(folder / F["claims"], P["claims_sheet"])
    folios = read_rows(folder / F["receipts"])
    meal_value = {m: float(v) for m, v in P["breakdown"].items()}
    pct = float(P["travel_day_pct"]) / 100
    rows = []
    for name in P["travellers"]:
        mine = [c for c in claims if c["traveller"] == name]
        d0, d1 = dt.date.fromisoformat(mine[0]["depart_date"][:10]), dt.date.fromisoformat(mine[0]["return_date"][:10])
        rate = float(season(iso(d0))["mie"])
        mie = 0.0
        for k in range((d1 - d0).days + 1):
            d = d0 + dt.timedelta(days=k)
            base = rate * (pct if d in (d0, d1) else 1.0)
            mie += max(0.0, base - sum(meal_value[m] for m in P["provided_meals"].get(iso(d), [])))
        lodging = sum(min(float(f["room_rate"]), float(season(f["night_of"][:10])["lodging"])) + float(f["tax"])
                      for f in folios if f["traveller"] == name)
        miles = sum(float(c["miles"] or 0) for c in mine if c["expense_type"] == "Mileage")
        other = sum(float(c["amount"]) for c in mine if c["expense_type"] in P["as_claimed"])
        allow = rnd(rnd(mie, 2) + rnd(lodging, 2) + rnd(miles * float(P["mileage_rate"]), 2) + other, 2)
        claimed = sum(float(c["amount"]) for c in mine)
        rows.append({"traveller": name, "mie_allowed": rnd(mie, 2), "lodging_allowed": rnd(lodging, 2),
                     "mileage_allowed": rnd(miles * float(P["mileage_rate"]), 2), "allowable": allow,
                     "over_claim": rnd(claimed - allow, 2) + 0.0})
    worst = max(rows, key=lambda r: r["over_claim"])
    named = next(r for r in rows if r["traveller"] == P["premise_traveller"])
    total = rnd(sum(r["allowable"] for r in rows), 2)
    return {"travellers": rows, "total_allowable": total, "total_over": rnd(sum(max(r["over_claim"], 0) for r in rows), 2),
            "worst": worst["traveller"], "worst_over": worst["over_claim"], "named_mie": named["mie_allowed"],
            "decision": total <= float(P["budget"]), "premise": named["over_claim"] <= 0}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _policy(version: int, rate: float, current: bool) -> list[str]:
    rules = [f"Travel policy, version {version}",
             "- Meals and incidental expenses (M&IE) are paid at the per diem rate of the destination for the travel "
             "dates, from the per diem table in force (the row whose season covers the date).",
             "- First and last day of travel: 75 % of the M&IE rate." if current else
             "- M&IE is paid at the full rate for each day of travel.",
             "- A meal provided by the conference (as shown on the agenda) is deducted at the full amount of that meal "
             "in the M&IE breakdown below, also on a first or last day; a day's M&IE never goes below zero. Coffee "
             "breaks and light refreshments are not meals." if current else
             "- Meals provided at conferences should be noted on the claim.",
             "- Lodging: the room rate is reimbursed up to the lodging rate for each night (the season of the night); "
             "lodging taxes are reimbursed in full as shown on the folio, separately from the cap.",
             f"- Personal vehicle mileage: {rate:.3f} per mile; airfare and registration as receipted.",
             "- Amounts in US dollars, rounded half up to the cent.",
             "M&IE breakdown (M&IE total: breakfast / lunch / dinner / incidentals):"]
    rules += [f"- {k}: {b} / {lu} / {d} / {i}" for k, (b, lu, d, i) in _BREAKDOWN.items()]
    return rules


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.perdiem import analyse, mie_allowed

    profession(occupation)  # raises for an unknown occupation
    t = _trip(rng)
    rate = 0.67 if t["year"] == 2024 else 0.70
    old_rate = round(rate - rng.choice((0.015, 0.025, 0.04)), 3)
    dirs = pick_labels(rng, _DIRS)
    b, lu, dn, inc = _BREAKDOWN[t["mie"]]
    tag = f"{t['start']:%Y%m}"
    P: dict[str, Any] = {
        "files": {"per_diem": f"{dirs['policy']}/per_diem_rates_FY{t['year']}.csv",
                  "claims": f"{dirs['claims']}/conference_claims_{tag}.xlsx", "receipts": f"{dirs['receipts']}/folios_{tag}.csv"},
        "dirs": dirs, "claims_sheet": "Claim lines", "destination": t["place"][0], "travel_day_pct": 75,
        "breakdown": {"breakfast": b, "lunch": lu, "dinner": dn}, "mileage_rate": rate,
        "provided_meals": {iso(d): ["lunch"] for d in t["lunches"]}, "as_claimed": ["Airfare", "Registration"],
        "travellers": [p["name"] for p in t["people"]], "budget": 0.0, "premise_traveller": t["people"][0]["name"],
        "labels": {}, "deliverables": {"workbook": rng.choice((f"travel_audit_{tag}.xlsx", "per_diem_check.xlsx")),
                                       "memo": rng.choice(("travel_claims_summary.docx", f"claims_onepager_{tag}.docx"))}}
    seasons = _seasons(t)
    lines, folios = [], []
    for p in t["people"]:
        nights = [p["depart"] + dt.timedelta(days=k) for k in range((p["back"] - p["depart"]).days)]
        block = round(t["peak_rate"] * rng.uniform(0.85, 1.25))
        tax_pct = rng.uniform(0.10, 0.16)
        for n in nights:
            folios.append([p["name"], "Conference hotel", iso(n), float(block), round(block * tax_pct, 2)])
        partial = 1.0 if p["style"] == "full" else 0.75
        provided = {} if p["style"] in ("full", "no_meals") else {d: ("lunch",) for d in t["lunches"]}
        mie, _ = mie_allowed(p["depart"], p["back"], float(t["mie"]), provided, P["breakdown"], partial)
        base = [p["name"], iso(p["depart"]), iso(p["back"])]
        lines.append(base + ["M&IE", rnd(mie, 2), ""])
        lines.append(base + ["Lodging", rnd(sum(f[3] + f[4] for f in folios if f[0] == p["name"]), 2), ""])
        lines.append(base + ["Registration", p["registration"], ""])
        if p["drives"]:
            lines.append(base + ["Mileage", rnd(p["miles"] * (old_rate if p["old_mileage"] else rate), 2), p["miles"]])
        else:
            lines.append(base + ["Airfare", p["airfare"], ""])
    data = {P["files"]["per_diem"]: lambda path: write_csv(path, ["state", "destination", "county", "season_begin",
                                                                  "season_end", "lodging", "mie"], seasons),
            P["files"]["claims"]: lambda path: write_xlsx(path, [(P["claims_sheet"], [
                "traveller", "depart_date", "return_date", "expense_type", "amount", "miles"], lines)]),
            P["files"]["receipts"]: lambda path: write_csv(path, ["traveller", "hotel", "night_of", "room_rate", "tax"],
                                                           folios)}
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, data)
        truth = analyse(str(root), P)
        shortcuts = ("full_days", "meals", "season", "lodging_tax")
        singles = {k: analyse(str(root), P, (k,)) for k in shortcuts}
    if truth["total_over"] < 5 or truth["worst_over"] <= 0:
        raise DegenerateTask("nobody over-claimed")
    overs = sorted((r["over_claim"] for r in truth["travellers"]), reverse=True)
    if len(overs) > 1 and overs[0] - overs[1] < 0.05:
        raise DegenerateTask("two travellers tie for the largest over-claim")
    total = truth["total_allowable"]
    P["budget"] = nice_between(total * 1.02, total * 1.2, 2) if targets["decision"] else nice_between(
        total * 0.8, total * 0.98, 2)
    fits = [r for r in truth["travellers"] if (r["over_claim"] <= 0 if targets["premise"] else r["over_claim"] > 0.05)]
    if not fits:
        raise DegenerateTask("no traveller on the targeted side of the policy")
    pick = rng.choice(fits)
    P["premise_traveller"] = pick["traveller"]
    labels = pick_labels(rng, _LABELS)
    for k in ("named_mie", "premise"):
        labels[k] = labels[k].format(name=pick["traveller"])
    P["labels"] = labels
    where = {"full_days": ("memo", "the first and last travel days earn 75 % of the M&IE rate"),
             "meals": ("data", "the agenda shows lunches provided, deducted at the breakdown"),
             "season": ("data", "the per diem table lists the destination's off-season row first"),
             "lodging_tax": ("memo", "lodging taxes are reimbursed outside the lodging cap")}

    def graded(f: Facts) -> Any:
        return [(r["mie_allowed"], r["lodging_allowed"], r["allowable"]) for r in f["travellers"]]

    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 3:
        raise DegenerateTask("fewer than three planted items change a graded answer")
    writers, roles = _workspace(rng, P, t, data, old_rate)
    return Draft(subject=f"Conference travel claims, {t['place'][0]}, {t['start']:%B %Y}",
                 instructions=_prompt(rng, P, t, pick["traveller"], sorted(writers)), files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="3-6 travellers; 2-3 conference days; room 85-125 % of the peak lodging rate, tax "
                               "10-16 %; 1-2 drivers 90-420 miles, airfare 240-620; registration 350-900; 1-3 "
                               "provided lunches; claims right, full-rate or ignoring provided meals")


def _prompt(rng: random.Random, P: dict[str, Any], t: dict[str, Any], who: str, files: list[str]) -> str:
    boss, L, D, dirs = person(rng), P["labels"], P["deliverables"], P["dirs"]
    conf = f"the {t['place'][0]} conference ({iso(t['conf_days'][0])} to {iso(t['conf_days'][-1])})"
    opener = rng.choice((f"From: {boss}, Department Administrator\nSubject: Travel claims, {conf}\n\n",
                         f"{boss} (Department Administrator)\n\n", f"Hi - {boss} here.\n\n"))
    ask = rng.choice((f"Before the director signs off, please check the travel claims for {conf} against per diem.",
                      f"The director wants a summary of what we owe each traveller for {conf}."))
    belief = rng.choice((f"{who} says their claim follows the policy to the letter - please confirm.",
                         f"I assume {who}'s claim is fine; they usually get it right."))
    cols = ", ".join(["traveller", "travel_days", "mie_rate", "meals_deducted", "mie_allowed", "nights", "lodging_cap",
                      "room_allowed", "lodging_tax", "lodging_allowed", "miles", "mileage_rate", "mileage_allowed",
                      "other_allowed (airfare and registration)", "allowable", "claimed", "over_claim (claimed - "
                      "allowable; negative if under)"])
    memo_lines = [(L["total"], "US dollars, 2 decimal places"), (L["over"], "US dollars, 2 decimal places, sum of the positive over-claims"),
                  (L["worst"], "name"), (L["worst_over"], "US dollars, 2 decimal places"), (L["decision"], "yes or no"),
                  (L["named_mie"], "US dollars, 2 decimal places"), (L["premise"], "yes or no")]
    steps = [f"Work out each traveller's allowable M&IE, lodging and mileage under the current travel policy in "
             f"{dirs['policy']}/, using the per diem table there and the agenda in {dirs['conf']}/.",
             f"Compare with the claim lines in {dirs['claims']}/ and the hotel folios in {dirs['receipts']}/.",
             f"Tell me whether the total allowable fits the budget left for this conference (see {dirs['mail']}/)."]
    deliverables = [
        f"{D['workbook']}: a sheet Claims, one row per traveller, columns {cols}; mie_allowed, lodging_allowed, "
        "mileage_allowed, allowable and over_claim as live formulas.",
        f"{D['memo']}: a one-page summary for the director that opens with these lines (label: value), then notes "
        "on each over-claim:\n" + "\n".join(f"   {lbl}: <{hint}>" for lbl, hint in memo_lines)]
    return "\n\n".join([
        opener + ask + " " + belief,
        "Steps:\n" + "\n".join(f"{k}. {s}" for k, s in enumerate(steps, 1)),
        "Please leave in the output folder:\n" + "\n".join(f"{k}. {s}" for k, s in enumerate(deliverables, 1)),
        rng.choice(("Thanks!", "Thanks - shout if a receipt is missing.")) + "\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in files)]) + "\n"


def _workspace(rng: random.Random, P: dict[str, Any], t: dict[str, Any], data: dict[str, Any],
               old_rate: float) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    D, v = P["dirs"], rng.randint(3, 7)
    add(f"{D['policy']}/travel_policy_v{v}.pdf", "policy", lambda p: write_pdf(
        p, f"Travel policy v{v}", _policy(v, P["mileage_rate"], True)
        + [f"Version {v} replaces all earlier versions."]))
    add(f"{D['policy']}/archive/travel_policy_v{v - 1}.docx", "stale", lambda p: write_docx(
        p, f"Travel policy v{v - 1}", _policy(v - 1, old_rate, False)))
    agenda = []
    for k, d in enumerate(t["conf_days"], 1):
        agenda += [f"Day {k} - {d:%A} {iso(d)}", "- 08:30 Registration, coffee and light refreshments",
                   "- 09:00 Plenary session", "- 12:00 " + ("Lunch provided in the exhibit hall" if d in t["lunches"]
                                                          else "Lunch on your own"),
                   "- 13:30 Breakout sessions", "- 17:00 Close"]
    add(f"{D['conf']}/agenda_{t['place'][0].lower().replace(' ', '_')}.pdf", "data", lambda p: write_pdf(
        p, f"{t['place'][0]} regional conference - agenda", agenda))
    add(f"{D['conf']}/hotel_block_confirmation.txt", "reference", lambda p: write_text(p, (
        "Group block confirmed at the conference hotel. Rates are per night plus applicable taxes; the block closes "
        "three weeks before the opening session.\n")))
    sent = t["start"] + dt.timedelta(days=10)
    add(f"{D['mail']}/{iso(sent)}_travel_budget.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Budget Officer", to="Department Administrator", date=iso(sent),
        subject="Conference travel budget", body=f"We have {P['budget']:,.2f} left in the travel line for this "
                                                 "conference. Anything above that needs the director's approval.")))
    add(f"{D['mail']}/{iso(sent - dt.timedelta(days=2))}_mileage_question.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}", to="Department Administrator", date=iso(sent - dt.timedelta(days=2)),
                      subject="Mileage rate?", body=f"Is mileage still {old_rate:.3f}? That's what the old form says.")))
    add(f"{D['claims']}/claim_form_template.docx", "distractor", lambda p: write_docx(
        p, "Travel claim form", ["Traveller:", "Purpose:", "Dates:", "Attach itemised receipts."]))
    add(f"meetings/{iso(t['start'] - dt.timedelta(days=20))}_office_meeting.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="conference logistics", people=[person(rng) for _ in range(3)],
                         date=iso(t["start"] - dt.timedelta(days=20)))))
    add(f"{D['receipts']}/parking_and_taxis.csv", "distractor", lambda p: write_csv(
        p, ["traveller", "item", "amount", "status"], [[n, "Airport parking", f"{rng.uniform(20, 80):.2f}",
                                                         "not claimed"] for n in P["travellers"][:2]]))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, RowCountCheck

    D, L = P["deliverables"], P["labels"]
    book, memo = D["workbook"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    T = facts["travellers"]

    def cell(r: dict[str, Any], column: str) -> tuple[str, Any]:
        return (f"{book} Claims: {r['traveller']} {column} = {r[column]:.2f}",
                CellCheck(file=book, sheet="Claims", match={"traveller": r["traveller"]}, column=column,
                          value=float(r[column]), tolerance=tol(2)))

    def money(key: str, value: float) -> tuple[str, Any]:
        return f"{L[key]} = {value:.2f}", fld_num(memo, L[key], value, 2)

    return [
        rubric("Allows M&IE at the locality rate with 75 % travel days and provided meals deducted", 10,
               [cell(r, "mie_allowed") for r in T]),
        rubric("Caps the room rate at the season's lodging rate with taxes separate", 8,
               [cell(r, "lodging_allowed") for r in T]),
        rubric("Pays mileage at the current rate", 6, [cell(r, "mileage_allowed") for r in T if r["mileage_allowed"]]),
        rubric("Totals what each traveller is owed", 10, [
            (f"{book} Claims has {len(T)} travellers", RowCountCheck(file=book, sheet="Claims", key="traveller",
                                                                     count=len(T))),
            *[cell(r, "allowable") for r in T]]),
        rubric("Finds the over-claims", 8, [*[cell(r, "over_claim") for r in T], money("over", facts["total_over"])]),
        rubric("Names the largest over-claim", 6, [(f"{L['worst']}: {facts['worst']}", fld(memo, L["worst"], facts["worst"])),
                                                   money("worst_over", facts["worst_over"])]),
        rubric("Answers the budget question from the allowable total", 8, [
            money("total", facts["total_allowable"]),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Checks the traveller's claim the administrator asked about", 6, [
            money("named_mie", facts["named_mie"]),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ] + ([rubric("Explains the adjustments so the director can sign", 6, [
        ("Cites the provided lunches on the agenda and the 75 % travel days", llm("explanation")),
        ("Uses the lodging rate of the season in force and keeps taxes outside the cap", llm("explanation")),
        ("Fits on one page and answers the budget question", llm("writing"))])] if judgement else [])


TRAVEL_PER_DIEM = Workflow(
    key="travel_per_diem_audit", family="travel_claims", method="per diem audit (locality M&IE, 75 % travel days, "
    "provided meals, lodging cap with taxes separate, mileage)",
    professions=("secretaries_and_administrative_assistants_except_legal_medical_and_executive",), solver="perdiem",
    shortcuts=("full_days", "meals", "season", "lodging_tax"), draw=draw, recheck=recheck, rubrics=rubrics,
    data="generated conference trip (stated distributions)")
