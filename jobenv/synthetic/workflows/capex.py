"""Capital project appraisal of a new press line for the investment committee (financial managers).

The project is generated: equipment quoted log-normal around 4.5 million (sigma 0.3) with installation 8-15 % and
freight 1-3 % of it, a rival vendor's quote 5-15 % higher (not selected), development spend already incurred of
250,000-900,000 (sunk), a life of 6-8 years, first-year volume log-normal around 180,000 units growing 0-6 % a
year, prices that rise 0-3 % a year from a base set so the NPV lands on the targeted side of zero (1-5 % away
from break-even), variable costs of 12-22 a unit in three items, fixed costs of 400,000-900,000 a year, net
working capital of 8-15 % of first-year revenue recovered at the end, salvage of 5-12 % of the equipment, a
tax rate of 21-27 %, and two WACC memos (the later one governs; the earlier is 0.4-1.0 points lower).
Failure behaviour: an ill-posed draw raises DegenerateTask.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, write_files

__all__ = ["CAPITAL_APPRAISAL"]

MACRS7 = [0.1429, 0.2449, 0.1749, 0.1249, 0.0893, 0.0892, 0.0893, 0.0446]
_VENDORS = ("Schuler Presstech", "Aida Forming Systems", "Komatsu Industrial", "Minster Machine", "Fagor Arrasate")
_LABELS = {
    "capex": ("Depreciable capital cost", "Capex (depreciable basis)", "Initial investment in equipment"),
    "npv": ("NPV at the governing WACC", "Net present value", "Project NPV"),
    "irr": ("IRR (%)", "Internal rate of return (%)", "Project IRR (%)"),
    "payback": ("Discounted payback (years)", "Discounted payback period (years)", "Payback, discounted (years)"),
    "nwc": ("Working capital released at the end", "NWC recovered in the final year", "Net working capital release"),
    "decision": ("Recommend go", "Go decision", "Approve the project"),
    "premise": ("Plant's IRR claim of {x} % holds", "IRR exceeds the plant's {x} %", "Plant's {x} % return claim confirmed"),
}


def _model(equip: dict[str, float], years: list[tuple[int, float, float]], vc: float, fixed: float, nwc: float,
           salvage: float, tax: float, wacc: float) -> tuple[list[float], float]:
    """Free cash flows and NPV (for setting the price level while drawing, and for the recheck)."""
    capex = equip["capex"]
    life = len(years)
    book = capex * (1 - sum(MACRS7[:life]))
    flows = [-capex - nwc]
    for y, units, price in years:
        f = (units * (price - vc) - fixed) * (1 - tax) + tax * capex * MACRS7[y - 1]
        if y == life:
            f += nwc + salvage - tax * (salvage - book)
        flows.append(f)
    return flows, sum(f / (1 + wacc / 100) ** k for k, f in enumerate(flows))


def _irr_secant(flows: list[float]) -> float | None:
    """IRR by the secant method from 5 % and 15 % (a different route from the solver's bisection)."""
    def pv(r: float) -> float:
        return sum(f / (1 + r) ** t for t, f in enumerate(flows))

    a, b = 0.05, 0.15
    for _ in range(100):
        fa, fb = pv(a), pv(b)
        if fb == fa:
            break
        a, b = b, b - fb * (b - a) / (fb - fa)
        if abs(b - a) < 1e-13:
            return b
    return b if abs(pv(b)) < 1e-6 else None


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact, recomputed from the task folder without the solver's code."""
    from openpyxl import load_workbook

    folder, F = Path(folder), P["files"]
    wb = load_workbook(folder / F["capex"], read_only=True, data_only=True)
    capex = sum(float(r[3]) for r in wb[P["capex_sheet"]].iter_rows(min_row=2, values_only=True)
                if str(r[4]).lower() == P["selected_status"].lower())
    wb.close()
    with (folder / F["forecast"]).open(newline="", encoding="utf-8") as f:
        years = sorted((int(r["year"]), float(r["units"]), float(r["price_per_unit"])) for r in csv.DictReader(f))
    wb = load_workbook(folder / F["costs"], read_only=True, data_only=True)
    cost_rows = list(wb[P["costs_sheet"]].iter_rows(min_row=2, values_only=True))
    launch = {str(r[0]): float(r[1]) for r in wb[P["launch_sheet"]].iter_rows(min_row=2, values_only=True)}
    wb.close()
    vc = sum(float(r[2]) for r in cost_rows if r[1] == "per unit")
    fixed = sum(float(r[2]) for r in cost_rows if r[1] == "per year")
    nwc = launch[P["nwc_item"]]
    flows, npv = _model({"capex": capex}, years, vc, fixed, nwc, launch[P["salvage_item"]], P["tax_rate"], P["wacc"])
    rate = _irr_secant(flows)
    cum, pb = 0.0, None
    for t, f in enumerate(flows):
        d = f / (1 + P["wacc"] / 100) ** t
        if t and pb is None and cum + d >= 0 > cum:
            pb = rnd(t - 1 - cum / d, 2)
        cum += d
    return {"capex": rnd(capex, 2), "npv": rnd(npv, 2), "irr": None if rate is None else rnd(rate * 100, 2),
            "payback": pb, "nwc_release": rnd(nwc, 2), "decision": npv > 0,
            "premise": rate is not None and rate * 100 > P["claimed_irr"],
            "rows": [{"year": k, "fcf": rnd(f, 2)} for k, f in enumerate(flows)]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.capex import analyse

    prof = profession(occupation)
    equipment = round(math.exp(rng.gauss(math.log(4_500_000), 0.3)), -3)
    vendor, rival = rng.sample(_VENDORS, 2)
    lines: list[list[Any]] = [["L1", "Press line equipment", vendor, equipment],
             ["L2", "Installation and commissioning", vendor, round(equipment * rng.uniform(0.08, 0.15), -2)],
             ["L3", "Freight and rigging", "Midwest Heavy Haul", round(equipment * rng.uniform(0.01, 0.03), -2)]]
    capex: float = sum(r[3] for r in lines)
    rival_amount = round(equipment * rng.uniform(1.05, 1.15), -3)
    sunk = round(rng.uniform(250_000, 900_000), -3)
    life = rng.randint(6, 8)
    units1, growth = math.exp(rng.gauss(math.log(180_000), 0.3)), rng.uniform(0, 0.06)
    esc = rng.uniform(0, 0.03)
    costs: list[list[Any]] = [["Steel coil", "per unit", round(rng.uniform(7, 12), 2)], ["Direct labour", "per unit", round(rng.uniform(3, 7), 2)],
             ["Energy", "per unit", round(rng.uniform(1, 3), 2)], ["Maintenance", "per year", round(rng.uniform(150_000, 400_000), -3)],
             ["Supervision", "per year", round(rng.uniform(250_000, 500_000), -3)]]
    vc: float = sum(c[2] for c in costs if c[1] == "per unit")
    fixed: float = sum(c[2] for c in costs if c[1] == "per year")
    tax = rng.choice((0.21, 0.23, 0.25, 0.27))
    wacc = rng.randrange(85, 111) / 10
    old = round(wacc - rng.randrange(4, 11) / 10, 1)
    units = [round(units1 * (1 + growth) ** k) for k in range(life)]

    def plan(base: float) -> tuple[list[tuple[int, float, float]], float, float]:
        years = [(k + 1, float(units[k]), round(base * (1 + esc) ** k, 2)) for k in range(life)]
        nwc = round(years[0][1] * years[0][2] * rng_nwc, -3)
        return years, nwc, _model({"capex": capex}, years, vc, fixed, nwc, salvage, tax, wacc)[1]

    rng_nwc, salvage = rng.uniform(0.08, 0.15), round(equipment * rng.uniform(0.05, 0.12), -3)
    lo, hi = vc, vc * 6
    for _ in range(80):  # break-even base price (NPV rises with price)
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if plan(mid)[2] < 0 else (lo, mid)
    base = lo * (1 + rng.uniform(0.01, 0.05) * (1 if targets["decision"] else -1))
    years, nwc, _ = plan(base)
    claimed = 0.0  # set below from the IRR
    P: dict[str, Any] = {
        "files": {"capex": "capex/capex_request.xlsx", "forecast": "forecast/volume_forecast.csv",
                  "costs": "forecast/cost_sheet.xlsx"},
        "capex_sheet": "Lines", "selected_status": "selected", "sunk_status": "incurred", "costs_sheet": "Unit costs",
        "launch_sheet": "Launch", "nwc_item": "Net working capital at launch", "salvage_item": "Salvage value at end of life",
        "tax_rate": tax, "wacc": wacc, "old_wacc": old, "macrs": MACRS7, "claimed_irr": claimed,
        "labels": {}, "deliverables": {"workbook": rng.choice(("press_line_appraisal.xlsx", "capex_model.xlsx",
                                                                "project_valuation.xlsx")),
                                       "memo": rng.choice(("ic_memo.docx", "investment_memo.docx", "press_line_memo.docx"))},
    }
    capex_rows = [[*r, "selected"] for r in lines] + [["L4", "Press line equipment (alternative quote)", rival,
                                                        rival_amount, "not selected"],
                                                       ["L5", "Prototype tooling development (prior year)",
                                                        "R&D cost centre 4410", sunk, "incurred"]]
    data = {
        P["files"]["capex"]: lambda p: write_xlsx(p, [("Lines", ["line", "description", "vendor", "amount", "status"],
                                                       capex_rows)]),
        P["files"]["forecast"]: lambda p: write_csv(p, ["year", "units", "price_per_unit"],
                                                    [[y, int(u), f"{pr:.2f}"] for y, u, pr in years]),
        P["files"]["costs"]: lambda p: write_xlsx(p, [("Unit costs", ["item", "basis", "amount"], costs),
                                                      ("Launch", ["item", "amount"], [[P["nwc_item"], nwc],
                                                                                      [P["salvage_item"], salvage]])]),
    }
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, data)
        truth = analyse(str(root), P)
        if truth["irr"] is None or truth["irr"] < 1:
            raise DegenerateTask("no meaningful IRR")
        step = rng.choice((0.5, 1.0))
        P["claimed_irr"] = (math.floor((truth["irr"] - 0.1) / step) * step - (step if rng.random() < 0.5 else 0)
                            if targets["premise"] else math.ceil((truth["irr"] + 0.1) / step) * step)
        if abs(P["claimed_irr"] - truth["irr"]) < 0.05:
            raise DegenerateTask("the IRR sits on the claimed figure")
        truth = analyse(str(root), P)
        singles = {k: analyse(str(root), P, (k,)) for k in ("wacc", "sunk", "nwc")}
    keys = ("npv", "irr", "payback", "nwc_release", "capex")
    where = {"wacc": ("memo", "two WACC memos; the later one governs"),
             "sunk": ("data", "development spend already incurred is listed with the capex lines"),
             "nwc": ("data", "working capital is recovered in the final year")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if any(nf[x] != truth[x] for x in keys)]
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(x=f"{P['claimed_irr']:g}")
    P["labels"] = labels
    writers, roles = _workspace(rng, P, data, vendor, rival, rival_amount, sunk, old, prof.title)
    L, D = P["labels"], P["deliverables"]
    memo_labels = [(L["capex"], "US dollars, 2 decimals"), (L["npv"], "US dollars, 2 decimals"),
                   (L["irr"], "percent, 2 decimals"),
                   (L["payback"], "years, 2 decimals, or 'not within the project life'"),
                   (L["nwc"], "US dollars, 2 decimals"), (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role="VP Corporate Finance", org=rng.choice(prof.orgs),
        subject="Press line - NPV, IRR and payback for the investment committee",
        purpose=rng.choice(("I need NPV, IRR and discounted payback for the new press line.",
                            "please appraise the press line project for the investment committee.")),
        about="the capex request, the volume forecast and the plant's cost sheet",
        belief=f"The plant manager tells me the line returns better than {P['claimed_irr']:g} % - please confirm.",
        table={"file": D["workbook"], "headers": ["Year", "FCF"],
               "unit": "year (0 to the last year of the life) in a sheet named FCF"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"In {D['workbook']}, a sheet Valuation with lines labelled {L['npv']}, {L['irr']} "
                            f"and {L['payback']} (Line, Value), NPV and IRR as live formulas (=NPV, =IRR).",),
        policy="the capital budgeting policy in finance/", files=sorted(writers))
    return Draft(subject="Press line capital appraisal", instructions=prompt, files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="equipment log-normal median 4.5m (sigma 0.3); life 6-8 years; volume log-normal "
                               "median 180,000 growing 0-6 %; price 1-5 % from break-even; tax 21-27 %; "
                               "WACC 8.5-11 %")


def _workspace(rng: random.Random, P: dict[str, Any], data: dict[str, Any], vendor: str, rival: str, rival_amount: float,
               sunk: float, old: float, title: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    year = rng.choice((2025, 2026))
    late, early = dt.date(year, rng.randint(4, 9), rng.randint(1, 28)), dt.date(year - 1, rng.randint(2, 11), 1)
    add(f"finance/wacc_memo_{iso(late)}.docx", "policy", lambda p: write_docx(p, "Treasury memo: cost of capital", [
        f"Date: {iso(late)}", f"The group's weighted average cost of capital for capital projects is {P['wacc']:.1f} %. "
        f"This memo replaces the memo of {iso(early)}.", "Use this rate for all investment committee submissions."]))
    add(f"finance/archive/wacc_memo_{iso(early)}.pdf", "stale", lambda p: write_pdf(p, "Treasury memo: cost of capital", [
        f"Date: {iso(early)}", f"The group's WACC for capital projects is {old:.1f} %."]))
    add("finance/capital_budgeting_policy.docx", "policy", lambda p: write_docx(p, "Capital budgeting policy", [
        "- Free cash flow = EBITDA x (1 - tax rate) + tax rate x MACRS depreciation - capital spending - increase in "
        "net working capital. Year 0 carries the capex and the working capital; years 1..N are the forecast years.",
        f"- Tax rate {P['tax_rate']:.0%}. Depreciation: MACRS 7-year property, half-year convention table "
        + ", ".join(f"{m * 100:.2f}" for m in MACRS7) + " % of the depreciable basis (equipment, installation, "
        "freight as selected in the capex request).",
        "- Working capital invested at launch is recovered in full at the end of the final year. Salvage at the end "
        "is taxed on the gain over the remaining tax basis.",
        "- Costs already incurred (development spend) are sunk and excluded. Only the selected quote counts.",
        "- Discount at the WACC in Treasury's latest memo, end-of-year convention. Discounted payback is the year the "
        "cumulative discounted cash flow turns non-negative, interpolated linearly within that year, in years to 2 "
        "decimals. NPV in dollars to the cent; IRR in percent to 2 decimals; all rounding half up. Recommend go when "
        "NPV > 0."]))
    add(f"capex/quotes/{vendor.split()[0].lower()}_quote.pdf", "data", lambda p: write_pdf(p, f"{vendor} quotation", [
        "Servo press line, 4 stations, with coil feed and transfer.", "Price ex works as per the capex request."]))
    add(f"capex/quotes/{rival.split()[0].lower()}_quote.pdf", "distractor", lambda p: write_pdf(p, f"{rival} quotation", [
        f"Servo press line, 4 stations. Price {rival_amount:,.0f} USD ex works."]))
    add("rnd/invoice_RD-2291.pdf", "data", lambda p: write_pdf(p, "Internal recharge: prototype tooling", [
        f"Development of prototype tooling for the press line, charged last year to cost centre 4410: {sunk:,.0f} USD.",
        "Paid in full."]))
    add(f"correspondence/{iso(late + dt.timedelta(days=5))}_plant_manager.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Plant Manager", to="corporate finance", date=iso(late + dt.timedelta(days=5)),
        subject="Press line case", body=f"The line returns better than {P['claimed_irr']:g} % on our numbers, and that "
        "is after we recover the tooling money we already spent. Please make sure the committee sees that.")))
    add("reports/plant_oee_last_year.csv", "distractor", lambda p: write_csv(p, ["month", "oee_pct"], [
        [m, round(rng.uniform(62, 81), 1)] for m in range(1, 13)]))
    add("meetings/capex_committee_prep.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="press line case", people=[person(rng) for _ in range(3)], date=iso(late))))
    add("procedures/close_calendar.txt", "distractor", lambda p: write_text(
        p, f"Quarter-end calendar kept by the {title} team: forecast lock on day 3, board pack on day 8.\n"))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck

    L, D = P["labels"], P["deliverables"]
    memo, book = D["memo"], D["workbook"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def num(key: str, places: int, fact: str = "") -> tuple[str, Any]:
        v = facts[fact or key]
        return f"{L[key]} = {v:.{places}f}", fld_num(memo, L[key], v, places)

    def val(key: str, places: int) -> tuple[str, Any]:
        return (f"{book} Valuation: {L[key]} = {facts[key]:.{places}f}",
                CellCheck(file=book, sheet="Valuation", match={"Line": L[key]}, column="Value",
                          value=float(facts[key]), tolerance=tol(places)))

    def fcf(year: int) -> tuple[str, Any]:
        v = facts["rows"][year]["fcf"]
        return (f"{book} FCF: year {year} FCF = {v:.2f}",
                CellCheck(file=book, sheet="FCF", match={"Year": float(year)}, column="FCF", value=v, tolerance=1.0))

    life = len(facts["rows"]) - 1
    pb = ([num("payback", 2)] if facts["payback"] is not None else
          [(f"{L['payback']}: not within the project life",
            fld(memo, L["payback"], "not within the project life", ["not within the project life", "years"]))])
    out = [
        rubric("Builds the depreciable basis from the selected quote, without sunk spend", 8,
               [num("capex", 2), fcf(0)]),
        rubric("Projects free cash flow with the MACRS shield and the working capital recovery", 10,
               [fcf(1), fcf(life), num("nwc", 2, "nwc_release")]),
        rubric("Values the project at the governing WACC", 10, [num("npv", 2), val("npv", 2)]),
        rubric("Computes the IRR", 8, [num("irr", 2), val("irr", 2)]),
        rubric("Computes the discounted payback", 6, pb),
        rubric("Recommends go or no-go from the NPV", 8,
               [num("npv", 2), (f"{L['decision']}: {yes(facts['decision'])}",
                                fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Tests the plant manager's return claim", 6,
               [num("irr", 2), (f"{L['premise']}: {yes(facts['premise'])}",
                                fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Explains the case for the committee", 6, [
            ("Says the development spend is sunk and left out, and why", llm("explanation")),
            ("Names the WACC memo used and why the earlier one is superseded", llm("explanation")),
            ("Gives the recommendation with NPV, IRR and payback", llm("writing"))]))
    return out


CAPITAL_APPRAISAL = Workflow(
    key="capital_project_appraisal", family="capital_budgeting", method="NPV, IRR, discounted payback with MACRS shield",
    professions=("financial_managers_branch_or_department",), solver="capex", shortcuts=("wacc", "sunk", "nwc"),
    draw=draw, recheck=recheck, rubrics=rubrics, data="generated capital project (stated distributions)")
