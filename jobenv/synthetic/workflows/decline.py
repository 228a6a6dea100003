"""Exponential decline-curve analysis of a well group for a tie-in decision (petroleum engineers).

The wells are generated: first production 18-42 months before the statement month, an initial rate of
120-900 bbl/d, a steep flush decline (8-15 % a month) for the first 6-9 months and then a steady one (1.5-6 %
a month), 4 % multiplicative noise, a day or two of downtime a month and one to three shut-in months per well
(2-11 producing days). Partner-operated wells come in the partner's statement in cubic metres. The analysis is
the task's own reserves procedure: producing-day rates, shut-in months left out, ln(rate) fitted by least
squares over the latest producing months, effective annual decline, remaining reserves to the economic limit.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_list, fld_num, llm, near_rounding_boundary, nice_between, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files

__all__ = ["DECLINE_CURVE"]

M3_TO_BBL = 6.289811
_DAYS = 30.4375
_LABELS = {
    "total": ("Group remaining reserves (Mbbl)", "Remaining reserves, all wells (Mbbl)", "Total remaining oil (Mbbl)"),
    "decision": ("Group supports the tie-in", "Tie-in threshold met", "Proceed with the tie-in on reserves"),
    "abandon": ("Wells reaching the economic limit within 12 months", "Abandonment candidates (12 months)",
                "Wells to plan for plugging"),
    "steepest": ("Steepest-declining well", "Well with the highest decline", "Fastest-declining well"),
    "premise": ("Asset manager's view of the steepest decline confirmed", "Premise about the steepest well holds",
                "The asset manager's well is the steepest"),
}
_COLUMNS = (
    {"well": "well", "shut_in": "shut_in_months", "decline": "annual_decline_pct", "rate": "current_rate_bopd",
     "reserves": "remaining_mbbl"},
    {"well": "Well", "shut_in": "Shut-in months", "decline": "Effective decline (%/yr)", "rate": "Rate (bbl/d)",
     "reserves": "Remaining (Mbbl)"},
    {"well": "well_name", "shut_in": "months_excluded_shut_in", "decline": "decline_eff_annual_pct",
     "rate": "fitted_rate_bbl_per_day", "reserves": "eur_remaining_mbbl"},
)
_PADS = ("BRK", "HALO", "CROW", "TEAL", "MAV", "ORCA", "SABLE", "WREN")
_PARTNERS = ("Kestrel Energy", "Bluestem Operating", "Redrock Resources", "Northgate Petroleum")


def _months(end: dt.date, n: int) -> list[str]:
    out = []
    y, m = end.year, end.month
    for _ in range(n):
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y, m - 1) if m > 1 else (y - 1, 12)
    return out[::-1]


def _well(rng: random.Random, name: str, months: list[str], low: bool) -> tuple[list[list[Any]], list[str]]:
    """Monthly rows [well, month, oil_bbl, gas_mcf, water_bbl, days_on] and the shut-in months."""
    qi = rng.uniform(40, 140) if low else rng.uniform(200, 900)
    flush, d1, d2 = rng.randint(6, 9), rng.uniform(0.08, 0.15), rng.uniform(0.015, 0.06)
    shut = set(rng.sample(months[-14:-1], rng.randint(1, 3)))
    rows, q = [], qi
    for k, month in enumerate(months):
        y, m = map(int, month.split("-"))
        cal = calendar.monthrange(y, m)[1]
        days = rng.randint(2, 11) if month in shut else cal - rng.choice((0, 0, 0, 1, 2))
        rate = q * math.exp(rng.gauss(0, 0.04))
        rows.append([name, month, round(rate * days, 1), round(rate * days * rng.uniform(0.8, 2.5), 1),
                     round(rate * days * rng.uniform(0.3, 1.2), 1), days])
        q *= math.exp(-(d1 if k < flush else d2))
    return rows, sorted(shut)


def _field(rng: random.Random, end: dt.date) -> dict[str, Any]:
    pad = rng.choice(_PADS)
    n_op, n_partner = rng.randint(4, 6), rng.randint(1, 2)
    names = [f"{pad} {rng.randint(2, 36)}-{k}H" for k in range(1, n_op + 1)]
    partner = rng.choice(_PARTNERS)
    pnames = [f"{partner.split()[0].upper()} {rng.randint(2, 36)}-{k}" for k in range(1, n_partner + 1)]
    op, nonop, shutins = [], [], {}
    for i, name in enumerate(names + pnames):
        rows, shut = _well(rng, name, _months(end, rng.randint(18, 42)), low=rng.random() < 0.35 or i == 0)
        shutins[name] = shut
        if name in pnames:
            nonop += [[r[0], r[1], round(r[2] / M3_TO_BBL, 2), r[5]] for r in rows]
        else:
            op += rows
    return {"op": op, "nonop": nonop, "names": names, "pnames": pnames, "partner": partner, "shutins": shutins}


# ---- the independent computation: csv and openpyxl, plain least squares ------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact, recomputed from the task folder without the solver's code."""
    from ..common import rnd

    F, d = P["files"], P["decimals"]
    series: dict[str, list[tuple[int, float, float]]] = {}
    for r in read_rows(Path(folder) / F["operated"]):
        y, m = r["month"][:7].split("-")
        series.setdefault(r["well_id"], []).append((int(y) * 12 + int(m), float(r["oil_bbl"]), float(r["days_on"])))
    for r in read_rows(Path(folder) / F["partner"], P["partner_sheet"]):
        y, m = r["Month"][:7].split("-")
        series.setdefault(r["Well"], []).append(
            (int(y) * 12 + int(m), float(r[P["partner_volume"]]) * M3_TO_BBL, float(r["Producing days"])))
    wells: list[dict[str, Any]] = []
    for well in sorted(series):
        shut_in = sum(1 for _, _, days in series[well] if days < P["min_days"])
        pts = [(t, math.log(oil / days)) for t, oil, days in sorted(series[well]) if days >= P["min_days"]]
        pts = pts[-P["window"]:] if P["window"] else pts
        n = len(pts)
        tm, ym = sum(t for t, _ in pts) / n, sum(y for _, y in pts) / n
        b = sum((t - tm) * (y - ym) for t, y in pts) / sum((t - tm) ** 2 for t, _ in pts)
        q = math.exp(ym + b * (pts[-1][0] - tm))
        el = P["economic_limit"]
        left = None if b >= 0 and q > el else (0.0 if q <= el else math.log(el / q) / b)
        reserves = 0.0 if b >= 0 or q <= el else (q - el) * _DAYS / -b / 1000
        wells.append({"well": well, "shut_in": shut_in, "decline_pct": rnd(100 * (1 - math.exp(12 * b)), d["decline"]),
                      "rate": rnd(q, d["rate"]), "reserves_mbbl": rnd(reserves, d["reserves"]), "left": left})
    total = rnd(sum(w["reserves_mbbl"] for w in wells), d["reserves"])
    steepest = max(wells, key=lambda w: w["decline_pct"])["well"]
    return {"wells": wells, "total_mbbl": total, "decision": total >= P["threshold_mbbl"], "steepest": steepest,
            "abandon": sorted(w["well"] for w in wells if w["left"] is not None and w["left"] <= P["horizon_months"]),
            "premise": steepest == P["premise_well"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _procedure(rev: int, *, min_days: int, window: int | None, limit: float, horizon: int, rounding: bool) -> list[str]:
    rules = [
        f"Rates: a month's rate is its oil volume divided by its producing days (bbl/d). Months with fewer than "
        f"{min_days} producing days are shut-in months and are left out of the fit.",
        (f"Fitting window: the latest {window} producing months of each well." if window else
         "Fitting window: every producing month since first production."),
        "Model: exponential decline; fit ln(rate) against the month by ordinary least squares. The current rate is "
        "the fitted rate at the latest producing month. Effective annual decline = 1 - exp(12 b), where b is the "
        "fitted slope per month, as a percentage.",
        f"Economic limit: {limit:g} bbl/d for every well in the group. A well whose fitted rate reaches the limit within "
        f"{horizon} months of the latest producing month (ln(limit / current rate) / b months) is an abandonment "
        "candidate; a well already at or below the limit has no remaining reserves.",
        f"Remaining reserves to the limit (bbl) = (current rate - limit) x {_DAYS} / (-b); report in thousand barrels "
        "(Mbbl). The group total is the sum of the reported per-well figures.",
        f"Volumes a partner reports in cubic metres are converted at {M3_TO_BBL} bbl per m3 before any rate is taken.",
    ]
    if rounding:
        rules.append("Rounding: declines and rates to one decimal place, reserves in Mbbl to one decimal place, "
                     "rounded half up.")
    return [f"Reserves estimation procedure, revision {rev}", "Decline-curve analysis of producing wells:"] + [
        f"- {r}" for r in rules]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.decline import analyse

    prof = profession(occupation)
    end = dt.date(rng.choice((2023, 2024)), rng.randint(1, 12), 1)
    field = _field(rng, end)
    asset = rng.choice(("north_block", "east_unit", "lease_7", "ridge_pad"))
    tag = f"{end.year:04d}-{end.month:02d}"
    partner_key = field["partner"].split()[0].lower()
    volume = rng.choice(("Oil (m3)", "Oil volume", "Oil"))
    P: dict[str, Any] = {
        "files": {"operated": f"data/production/{asset}_monthly_{tag}.csv",
                  "partner": f"data/partner/{partner_key}_nonop_statement_{tag}.xlsx"},
        "partner_sheet": "Volumes", "partner_volume": volume, "min_days": rng.choice((10, 12, 15)),
        "window": rng.choice((9, 12)), "economic_limit": float(rng.choice((6, 8, 10, 12))), "horizon_months": 12,
        "decimals": {"decline": 1, "rate": 1, "reserves": 1}, "threshold_mbbl": 0.0, "premise_well": "",
        "partner_wells": sorted(field["pnames"]),
        "labels": pick_labels(rng, _LABELS),
        "deliverables": {"table": {"file": rng.choice(("decline_summary.xlsx", "well_declines.csv", "dca_results.xlsx")),
                                   "columns": rng.choice(_COLUMNS)},
                         "memo": rng.choice(("tie_in_memo.docx", "reserves_note.md", "dca_memo.docx"))},
    }
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, _data_writers(P, field))
        truth = analyse(str(root), P)
        shortcuts = ("rate", "shutin", "units", "window")
        singles = {k: analyse(str(root), P, (k,)) for k in shortcuts}
    for w in truth["wells"]:
        raw = w["raw"]
        if any(near_rounding_boundary(v, 1) for v in (raw["decline_pct"], raw["rate"], raw["reserves_mbbl"])):
            raise DegenerateTask("a well's figure sits on a rounding boundary")
        if raw["months_left"] is not None and abs(raw["months_left"] - P["horizon_months"]) < 1.0:
            raise DegenerateTask("a well reaches the economic limit within a month of the horizon")
        if abs(raw["rate"] - P["economic_limit"]) < 0.5:
            raise DegenerateTask("a well's rate is at the economic limit")
    if not truth["abandon"]:
        raise DegenerateTask("no well reaches the economic limit within the horizon (a blind 'none' would be right)")
    if truth["steepest_gap"] is None or truth["steepest_gap"] < 0.3:
        raise DegenerateTask("the steepest decline leads the next by less than two units")
    total = truth["total_mbbl"]
    P["threshold_mbbl"] = (nice_between(total + 0.3, total * 1.5 + 1, 1) if not targets["decision"]
                           else nice_between(total * 0.6, total - 0.3, 1))
    ranked = sorted(truth["wells"], key=lambda w: -w["decline_pct"])
    P["premise_well"] = ranked[0]["well"] if targets["premise"] else ranked[rng.randint(1, min(2, len(ranked) - 1))]["well"]
    where = {"rate": ("data", "volumes are monthly; rates need producing days, not calendar days"),
             "shutin": ("data", "shut-in months (few producing days) are left out of the fit"),
             "units": ("header", f"the partner statement reports oil in cubic metres ({volume!r} column, Notes sheet)"),
             "window": ("memo", f"the current procedure fits the latest {P['window']} producing months; the archived "
                                "revision fitted the whole history")}
    graded = lambda f: (tuple((w["shut_in"], w["decline_pct"], w["rate"], w["reserves_mbbl"]) for w in f["wells"]),  # noqa: E731
                        f["abandon"], f["steepest"])
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 2:
        raise DegenerateTask("fewer than two planted traps change a graded answer")
    writers, roles = _workspace(rng, P, field, end, prof.title)
    L, cols = P["labels"], P["deliverables"]["table"]["columns"]
    memo_labels = [(L["total"], "thousand barrels, 1 decimal place"), (L["decision"], "yes or no"),
                   (L["abandon"], "well names separated by semicolons, or 'none'"), (L["steepest"], "well name"),
                   (L["premise"], f"yes or no: is {P['premise_well']} the steepest-declining well?")]
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role=rng.choice(prof.requesters), org=rng.choice(prof.orgs),
        subject=f"{asset.replace('_', ' ').title()} decline curves for the tie-in decision",
        purpose=rng.choice(("I need decline curves and remaining reserves for every well in the group.",
                            "please run the decline-curve analysis for the group, operated and partner wells.",
                            "the facilities team needs our remaining-reserves estimate by well.")),
        about=f"our monthly production for the operated wells and the statement from {field['partner']} for theirs",
        belief=rng.choice((f"My read of the charts is that {P['premise_well']} is declining fastest.",
                           f"I'd expect {P['premise_well']} to show the steepest decline of the group - confirm or correct.")),
        table={"file": P["deliverables"]["table"]["file"], "headers": list(cols.values()),
               "unit": "well (shut-in months: those the procedure leaves out), plus a Total row for the remaining reserves"},
        memo_file=P["deliverables"]["memo"], memo_labels=memo_labels, extra_deliverables=(),
        policy="the current reserves procedure in procedures/", files=sorted(writers))
    return Draft(subject=f"{asset} decline-curve analysis", instructions=prompt, files=writers, roles=roles, params=P,
                 traps=traps, targets=dict(targets),
                 distributions="initial rate 120-900 bbl/d; flush decline 8-15 %/month for 6-9 months, then 1.5-6 "
                               "%/month; 4 % noise; 1-3 shut-in months per well; partner volumes in m3")


def _data_writers(P: dict[str, Any], field: dict[str, Any]) -> dict[str, Any]:
    F = P["files"]
    header = ["well_id", "month", "oil_bbl", "gas_mcf", "water_bbl", "days_on"]
    notes = ([["Volumes are reported in cubic metres at standard conditions (15 C, 101.325 kPa)."]]
             if P["partner_volume"] != "Oil (m3)" else [["Statement prepared by the operator's revenue accounting."]])
    return {F["operated"]: lambda p: write_csv(p, header, field["op"]),
            F["partner"]: lambda p: write_xlsx(p, [
                ("Volumes", ["Well", "Month", P["partner_volume"], "Producing days"], field["nonop"]),
                ("Notes", ["Note"], notes)])}


def _workspace(rng: random.Random, P: dict[str, Any], field: dict[str, Any], end: dt.date,
               title: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in _data_writers(P, field).items():
        add(rel, "data", write)
    tag = f"{end.year:04d}-{end.month:02d}"
    cut = _months(end, 5)[0]
    stale = [r for r in field["op"] if r[1] < cut]
    old = P["files"]["operated"].replace("/production/", "/production/archive/").replace(tag, cut)
    add(old, "stale", lambda p: write_csv(p, ["well_id", "month", "oil_bbl", "gas_mcf", "water_bbl", "days_on"], stale))
    rev = rng.randint(3, 6)
    limit = P["economic_limit"]
    add(f"procedures/reserves_procedure_rev{rev}.docx", "policy", lambda p: write_docx(
        p, f"Reserves procedure rev {rev}", _procedure(rev, min_days=P["min_days"], window=P["window"], limit=limit,
                                                       horizon=P["horizon_months"], rounding=True)
        + [f"Revision {rev} replaces revision {rev - 1} in full."]))
    add(f"procedures/archive/reserves_procedure_rev{rev - 1}.pdf", "stale", lambda p: write_pdf(
        p, f"Reserves procedure rev {rev - 1}", _procedure(rev - 1, min_days=5, window=None, limit=limit + 2,
                                                           horizon=P["horizon_months"], rounding=False)))
    facilities = person(rng)
    add(f"correspondence/{tag}-20_facilities_tie_in.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{facilities}, Facilities Engineering", to="reservoir engineering", date=f"{tag}-20",
        subject="Tie-in sizing", body=f"For the tie-in to go ahead the group needs at least {P['threshold_mbbl']:g} Mbbl "
        "of remaining oil on the current reserves procedure, operated and partner wells together. Anything less and "
        "we truck.")))
    add(f"correspondence/{tag}-05_partner_statement.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, {field['partner']}", to="non-operated ventures", date=f"{tag}-05",
        subject="Monthly statement", body="Attached is this month's statement for our wells in the joint area, in "
        "our standard format.")))
    add("wells/well_header.csv", "distractor", lambda p: write_csv(
        p, ["well_id", "operator", "spud_date", "lateral_ft", "status"],
        [[n, "us" if n in field["names"] else field["partner"], f"{rng.randint(2018, 2021)}-0{rng.randint(1, 9)}-15",
          rng.randint(4500, 10500), "producing"] for n in field["names"] + field["pnames"]]))
    log = ["# Field operations log (operated wells)", ""] + [
        f"- {m}: {n} shut in for {rng.choice(('pump change', 'rod part', 'facility outage', 'offset frac protection'))}"
        for n in field["names"] for m in field["shutins"][n]]
    add("operations/workover_log.md", "data", lambda p: write_text(p, "\n".join(log) + "\n"))
    add(f"meetings/{tag}-12_asset_team.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="tie-in reserves estimate", people=[person(rng) for _ in range(3)], date=f"{tag}-12")))
    add("regulatory/state_filing_note.txt", "distractor", lambda p: write_text(
        p, f"Monthly production report to the state commission for {tag} filed on time by the {title} team.\n"))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck

    T, L, memo = P["deliverables"]["table"], P["labels"], P["deliverables"]["memo"]
    c = T["columns"]
    partner = set(P["partner_wells"])

    def cell(w: dict[str, Any], key: str, value: float, places: int | None) -> tuple[str, Any]:
        text = f"{T['file']}: {w['well']}, {c[key]} = {value if places is None else f'{value:.{places}f}'}"
        return text, CellCheck(file=T["file"], match={c["well"]: w["well"]}, column=c[key], value=float(value),
                               tolerance=0.0 if places is None else tol(places))

    ws = facts["wells"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    out = [
        rubric("Leaves each well's shut-in months out of the fit", 6, [cell(w, "shut_in", w["shut_in"], None) for w in ws]),
        rubric("Fits each well's effective annual decline", 10, [cell(w, "decline", w["decline_pct"], 1) for w in ws]),
        rubric("Reports current producing-day rates of the operated wells", 8,
               [cell(w, "rate", w["rate"], 1) for w in ws if w["well"] not in partner]),
        rubric("Reports the partner wells' rates in barrels per day", 8,
               [cell(w, "rate", w["rate"], 1) for w in ws if w["well"] in partner]),
        rubric("Estimates remaining reserves per well", 8, [cell(w, "reserves", w["reserves_mbbl"], 1) for w in ws]),
        rubric("Totals the group's remaining reserves against the tie-in threshold", 10, [
            (f"{L['total']} = {facts['total_mbbl']:.1f}", fld_num(memo, L["total"], facts["total_mbbl"], 1)),
            cell({"well": "Total"}, "reserves", facts["total_mbbl"], 1),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Names the wells reaching the economic limit within the horizon", 8, [
            (f"{L['abandon']}: {'; '.join(facts['abandon']) or 'none'}",
             fld_list(memo, L["abandon"], facts["abandon"]) if facts["abandon"] else fld(memo, L["abandon"], "none"))]),
        rubric("Identifies the steepest decline and checks the asset manager's view", 6, [
            (f"{L['steepest']}: {facts['steepest']}", fld(memo, L["steepest"], facts["steepest"])),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Explains the data handling", 6, [
            ("Says which months were left out of the fits as shut-in months and why", llm("explanation")),
            ("Says that the partner's volumes were converted from cubic metres", llm("explanation")),
            ("Says which procedure revision and fitting window were used", llm("explanation"))]))
        out.append(rubric("Writes a recommendation the facilities team can act on", 6, [
            ("The tie-in recommendation follows from the total and the threshold in the facilities e-mail", llm("reasoning")),
            ("Answers the asset manager's view of the steepest decline directly", llm("tone and content")),
            ("Is concise and flags the abandonment candidates for planning", llm("writing"))]))
    return out


DECLINE_CURVE = Workflow(
    key="decline_curve_tie_in", family="decline_curve", method="exponential decline-curve analysis (Arps, b = 0)",
    professions=("petroleum_engineers",), solver="decline", shortcuts=("rate", "shutin", "units", "window"),
    draw=draw, recheck=recheck, rubrics=rubrics, data="generated wells (stated distributions)")
