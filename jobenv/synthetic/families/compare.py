"""Family ``period_comparison``: a two-period comparison workbook and a Word briefing.

Real panel data (state traffic fatalities, state cigarette prices, firm investment) is compared
between a base and a current period per entity; entities whose metric rose by more than a threshold
are flagged. Deliverables are Office files (an xlsx with two sheets and a docx briefing), so agents
practise writing them. Traps: one period in another unit, duplicated rows, a stale extract, a false
premise about the largest increase.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any, Callable

from ..common import (
    c_field,
    DegenerateTask, Draft, RefFile, c_cell, c_columns, c_file, c_rows, label_regex,
    near_rounding_boundary, rnd, rubric, tol,
)
from .. import writers
from . import base

__all__ = ["FAMILY", "TRAPS", "SCENARIOS", "build"]

FAMILY = "period_comparison"
TRAPS = frozenset({"duplicates", "unit_scale", "stale_file", "false_premise"})


@dataclass(frozen=True)
class CompareScenario:
    key: str
    occupation: str
    source: tuple[str, str]
    prep: Callable[[Any], Any]  # -> DataFrame with entity, period, num (and den) columns
    entity_col: str
    entity_noun: str
    period_col: str
    num_col: str
    den_col: str | None
    scale: float
    metric_col: str
    metric_noun: str
    alt_col: str  # the column that one period may report in another unit
    alt_header: str
    alt_factor: float
    alt_decimals: int
    period_pairs: tuple[tuple[int, int], ...]
    requester: str
    subject: str
    context: str
    decision_yes: str
    decision_no: str
    stem: str


def _fatalities(df):
    out = df.copy()
    out["state"] = out["state"].str.upper()
    out["fatalities"] = out["fatal"].astype(int)
    out["population"] = out["pop"].round(0).astype(int)
    out["unemployment_rate"] = out["unemp"].round(1)
    return out[["state", "year", "fatalities", "population", "unemployment_rate"]]


def _cigarettes(df):
    out = df.copy()
    out["state"] = out["state"].astype(str)
    out["price_cents"] = out["price"].round(2)
    out["tax_cents"] = out["tax"].round(2)
    out["packs_per_capita"] = out["packs"].round(2)
    return out[["state", "year", "price_cents", "tax_cents", "packs_per_capita"]]


def _grunfeld(df):
    out = df.copy()
    out["capex"] = out["invest"].round(1)
    out["market_value"] = out["value"].round(1)
    return out[["firm", "year", "capex", "market_value"]]


SCENARIOS: tuple[CompareScenario, ...] = (
    CompareScenario(
        key="fatality_trend", occupation="civil_engineers", source=("AER", "Fatalities"), prep=_fatalities,
        entity_col="state", entity_noun="state", period_col="year", num_col="fatalities", den_col="population",
        scale=100000.0, metric_col="fatality_rate", metric_noun="traffic fatality rate per 100,000 residents",
        alt_col="population", alt_header="population_thousands", alt_factor=0.001, alt_decimals=3,
        period_pairs=((1982, 1988), (1982, 1985), (1984, 1988), (1983, 1987)),
        requester="Renee, Highway Safety Program Manager", subject="Traffic fatality rate trend by state",
        context="For the safety-improvement funding round I need each state's traffic fatality rate per 100,000 "
                "residents in the base and current years, the change, and the states whose rate rose by more than "
                "our threshold, so we can decide whether to fund new road-safety audits.",
        decision_yes="FUND SAFETY AUDITS", decision_no="NO NEW AUDITS", stem="state_fatalities"),
    CompareScenario(
        key="cigarette_prices", occupation="purchasing_agents", source=("AER", "CigarettesSW"), prep=_cigarettes,
        entity_col="state", entity_noun="state", period_col="year", num_col="price_cents", den_col=None, scale=1.0,
        metric_col="price_cents", metric_noun="average retail price per pack (cents, taxes included)",
        alt_col="price_cents", alt_header="price_usd", alt_factor=0.01, alt_decimals=4,
        period_pairs=((1985, 1995),),
        requester="Ahmed, Category Buyer (Tobacco)", subject="Pack price change by state before contract renewal",
        context="Our convenience-store supply contracts are priced by state. Compare the average pack price per "
                "state between the two survey years, flag the states where it rose by more than our threshold, "
                "and tell me whether we renegotiate.",
        decision_yes="RENEGOTIATE", decision_no="KEEP CONTRACTS", stem="pack_prices"),
    CompareScenario(
        key="capex_trend", occupation="financial_managers", source=("AER", "Grunfeld"), prep=_grunfeld,
        entity_col="firm", entity_noun="firm", period_col="year", num_col="capex", den_col=None, scale=1.0,
        metric_col="capex", metric_noun="gross investment (USD millions)",
        alt_col="capex", alt_header="capex_usd_thousands", alt_factor=1000.0, alt_decimals=1,
        period_pairs=((1935, 1954), (1940, 1950), (1945, 1954), (1950, 1954), (1946, 1953)),
        requester="Priya, VP Corporate Finance", subject="Capex growth by firm between two years",
        context="For the capital-planning review, compare each firm's gross investment between the base and the "
                "current year, flag firms whose investment grew by more than our threshold, and tell me whether "
                "their capital plans go to review.",
        decision_yes="REVIEW CAPITAL PLANS", decision_no="NO REVIEW", stem="firm_capex"),
)


# between a label and its value in docx text (mammoth escapes some punctuation with a backslash)
_DOCX_SEP = r"[\s:*_|\\\-=]*"


def _md(value: str) -> str:
    """A regex for ``value`` that also matches Markdown-escaped text (docx is extracted via mammoth)."""
    return "".join(("\\\\?" + re.escape(ch)) if not ch.isalnum() and not ch.isspace() else re.escape(ch)
                   for ch in value)


def _line(label: str, value: str) -> str:
    return rf"{label_regex(label)}[\s:*_|\\\-=]*{_md(value)}(?![\w])"


def build(rng: random.Random, sc: CompareScenario, trap_kind: str | None, raw) -> Draft:
    """Draw one task of this family; raises DegenerateTask when the drawn parameters are ill-posed."""
    import pandas as pd

    data = sc.prep(raw)
    b_per, c_per = rng.choice(sc.period_pairs)
    ent, num, den = sc.entity_col, sc.num_col, sc.den_col
    frames = {p: data[data[sc.period_col] == p].sort_values(ent).reset_index(drop=True) for p in (b_per, c_per)}

    def metric(df):
        g = df.groupby(ent)
        m = g[num].sum()
        return m / g[den].sum() * sc.scale if den else m

    mb, mc = metric(frames[b_per]), metric(frames[c_per])
    ents = sorted(set(mb.index) & set(mc.index))
    if len(ents) < 5 or (mb[ents] <= 0).any():
        raise DegenerateTask("too few comparable entities or a zero base")
    pct = {e: (float(mc[e]) - float(mb[e])) / float(mb[e]) * 100.0 for e in ents}
    ranked = sorted(ents, key=lambda e: -pct[e])
    if pct[ranked[0]] - pct[ranked[1]] < 0.1:
        raise DegenerateTask("tie for the largest increase")
    q = rng.uniform(0.55, 0.85)
    target = sorted(pct.values())[int(q * (len(ents) - 1))]
    thr = float(round(target)) if abs(target) >= 2 else round(target, 1)
    if any(abs(p - thr) < 0.1 for p in pct.values()):
        raise DegenerateTask("a change ties the threshold")
    flagged = sorted(e for e in ents if pct[e] > thr)
    if rng.random() < 0.15:  # sometimes nothing crosses the line
        thr = float(int(pct[ranked[0]] + 3))
        flagged = []
    top = ranked[0]
    probe = base.pick_groups(rng, ents, must=[top] + flagged[:1])
    for e in probe:
        if near_rounding_boundary(float(mb[e]), 2) or near_rounding_boundary(float(mc[e]), 2) or \
                near_rounding_boundary(pct[e], 1) or near_rounding_boundary(float(mc[e]) - float(mb[e]), 2):
            raise DegenerateTask("a graded value sits on a rounding boundary")

    trap: dict[str, Any] | None = None
    premise_entity = top
    if trap_kind == "false_premise":
        premise_entity = ranked[1]
        trap = {"kind": "false_premise", "claimed": premise_entity, "actual": top,
                "detail": f"the request says {premise_entity} had the largest increase; it was {top}"}

    layout = rng.choice(["xlsx", "csv"])
    cur_date, stale_date = "2024-05-31", "2024-02-29"
    per_frames = {p: frames[p].sample(frac=1.0, random_state=rng.randrange(2**31)).reset_index(drop=True)
                  for p in (b_per, c_per)}
    dup_count = 0
    if trap_kind == "duplicates":
        dup_count = rng.randint(2, 4)
        extra = per_frames[c_per].sample(n=dup_count, random_state=rng.randrange(2**31))
        per_frames[c_per] = pd.concat([per_frames[c_per], extra], ignore_index=True).sample(
            frac=1.0, random_state=rng.randrange(2**31)).reset_index(drop=True)
        trap = {"kind": "duplicates", "count": dup_count, "ids": sorted(str(x) for x in extra[ent]),
                "period": c_per, "detail": f"{dup_count} rows of {c_per} appear twice"}
    scaled_period = None
    if trap_kind == "unit_scale":
        scaled_period = rng.choice([b_per, c_per])
        trap = {"kind": "unit_scale", "period": scaled_period, "header": sc.alt_header, "factor": sc.alt_factor,
                "detail": f"the {scaled_period} data reports {sc.alt_col} as {sc.alt_header}"}

    def period_table(p, df):
        df = df.copy()
        header = [str(c) for c in df.columns]
        if p == scaled_period:
            df[sc.alt_col] = [round(float(x) * sc.alt_factor, sc.alt_decimals) for x in df[sc.alt_col]]
            header[header.index(sc.alt_col)] = sc.alt_header
        return header, [[base._py(v) for v in r] for r in df.itertuples(index=False, name=None)]

    def stale_of(df):
        s = df.copy()
        idx = s.sample(frac=0.3, random_state=rng.randrange(2**31)).index
        col = num
        newv = [float(v) * (1 + rng.choice([-1, 1]) * rng.uniform(0.05, 0.2)) for v in s.loc[idx, col]]
        s.loc[idx, col] = [int(round(v)) for v in newv] if s[col].dtype.kind in "iu" else [round(v, 2) for v in newv]
        return s

    files: list[RefFile] = []
    alt = {sc.alt_col: {sc.alt_header: sc.alt_factor}}
    notes = f"One sheet per {sc.period_col}; amounts as labelled in each header."
    if layout == "xlsx":
        wb_name = f"{sc.stem}_extract_{cur_date}.xlsx"
        tables = {p: period_table(p, per_frames[p]) for p in (b_per, c_per)}

        def write_wb(path, tables=tables):
            writers.write_xlsx(path, [(str(p), h, r) for p, (h, r) in sorted(tables.items())] + [("Notes", ["note"], [[notes]])])

        files.append(RefFile(wb_name, "data", write_wb, "workbook, one sheet per period"))
        spec = {"layout": "xlsx", "file": wb_name, "cite": wb_name}
        cite = wb_name
        if trap_kind == "stale_file":
            st_name = f"{sc.stem}_extract_{stale_date}.xlsx"
            st_tables = {b_per: tables[b_per], c_per: period_table(c_per, stale_of(per_frames[c_per]))}
            files.append(RefFile(st_name, "stale", lambda path, t=st_tables: writers.write_xlsx(
                path, [(str(p), h, r) for p, (h, r) in sorted(t.items())] + [("Notes", ["note"], [[notes]])]),
                "older workbook"))
            trap = {"kind": "stale_file", "stale": st_name, "current": wb_name,
                    "detail": f"{st_name} is an older extract superseded by {wb_name}"}
    else:
        names = {p: f"{sc.stem}_{p}_extract_{cur_date}.csv" for p in (b_per, c_per)}
        for p in (b_per, c_per):
            h, r = period_table(p, per_frames[p])
            files.append(RefFile(names[p], "data", lambda path, h=h, r=r: writers.write_csv(path, h, r), f"{p} extract"))
        spec = {"layout": "csv", "files": {str(p): names[p] for p in (b_per, c_per)}, "cite": names[c_per]}
        cite = names[c_per]
        if trap_kind == "stale_file":
            st_name = f"{sc.stem}_{c_per}_extract_{stale_date}.csv"
            h, r = period_table(c_per, stale_of(per_frames[c_per]))
            files.append(RefFile(st_name, "stale", lambda path, h=h, r=r: writers.write_csv(path, h, r), "older extract"))
            trap = {"kind": "stale_file", "stale": st_name, "current": names[c_per],
                    "detail": f"{st_name} is an older extract superseded by {names[c_per]}"}

    thr_txt = base.num_text(thr)
    if den:
        mdef = f"{sc.metric_col} = sum of {num} / sum of {den} x {base.num_text(sc.scale)} for the {sc.entity_noun} and year"
    else:
        mdef = f"{sc.metric_col} = the {sc.entity_noun}'s {num} for the year"
    rules = [
        f"Metric: {mdef}; report it to 2 decimal places.",
        "change = current minus base (2 decimal places); change_pct = change / base x 100, rounded to 1 decimal place.",
        f"Flag a {sc.entity_noun} when change_pct (unrounded) is strictly above {thr_txt}%.",
        f"The decision is {sc.decision_yes} when at least one {sc.entity_noun} is flagged, otherwise {sc.decision_no}.",
        f"Report {sc.alt_col} in its standard unit; convert any period supplied in another unit (see the column header).",
        "An exact duplicate row counts once (report how many duplicate rows you dropped).",
        "When several versions of a data extract exist, use the most recent one (by the date in its file name).",
    ]
    policy = base.policy_file(rng, f"{sc.stem}_method_note", f"Method note: {sc.subject}", rules)
    files.append(policy)
    files.extend(base.irrelevant_files(rng, sc.stem, [ent, sc.period_col, num]))
    bcol, ccol = f"{sc.metric_col}_{b_per}", f"{sc.metric_col}_{c_per}"
    premise = (f"{sc.requester.split(',')[0]} believes {premise_entity} had the largest increase; please confirm or "
               "correct that in the briefing.")
    deliverables = [
        f"1. comparison.xlsx with two sheets. Sheet 'Comparison': one row per {sc.entity_noun} present in both "
        f"years, columns {ent}, {bcol}, {ccol}, change, change_pct, flag (flag is yes or no). Sheet 'Summary': "
        "columns measure, value, with the rows entities_compared, entities_flagged and largest_increase.",
        "2. briefing.docx - a short Word briefing with these lines (label, colon, value), then one or two sentences "
        "of rationale:",
        f"   Entities compared: <number of {sc.entity_noun}s>",
        "   Duplicates removed: <number of duplicate rows dropped>",
        f"   Largest increase: <the {sc.entity_noun} with the highest change_pct>",
        f"   Flagged: <flagged {sc.entity_noun}s separated by semicolons, or none>",
        "   Premise confirmed: <yes or no>",
        f"   Decision: <{sc.decision_yes} or {sc.decision_no}>",
        "   Source file: <the data file you used for the current year>",
    ]
    context = sc.context + f" Base year: {b_per}. Current year: {c_per}. Metric: {sc.metric_noun}."
    instructions = base.instructions(requester=sc.requester, subject=sc.subject, context=context, premise=premise,
                                     deliverables=deliverables, rules=rules, policy_name=policy.name, files=files)

    X, D, t2, t1 = "comparison.xlsx", "briefing.docx", tol(2), tol(1)
    S = "Comparison"

    def cell(e, col, val, t):
        return c_cell(X, {ent: e}, col, val, t, sheet=S)

    def rows_check(count, where=None):
        return c_rows(X, count, where, key=ent, sheet=S)

    cols = c_columns(X, [ent, bcol, ccol, "change", "change_pct", "flag"], sheet=S)
    R = [
        rubric("Delivers the comparison workbook with the required layout", 6, [
            ("comparison.xlsx exists in the output folder", c_file(X)),
            (f"sheet Comparison has the columns {ent}, {bcol}, {ccol}, change, change_pct, flag", cols),
            (f"sheet Comparison has one row per {sc.entity_noun} ({len(ents)} rows)", rows_check(len(ents))),
        ]),
        rubric(f"Base-year {sc.metric_col} is correct (2 decimal places)", 10, [
            (f"{e}: {bcol} is {rnd(float(mb[e]), 2):.2f}", cell(e, bcol, rnd(float(mb[e]), 2), t2)) for e in probe]),
        rubric(f"Current-year {sc.metric_col} is correct (2 decimal places)", 10, [
            (f"{e}: {ccol} is {rnd(float(mc[e]), 2):.2f}", cell(e, ccol, rnd(float(mc[e]), 2), t2)) for e in probe]),
        rubric("Percentage changes are correct (1 decimal place)", 8, [
            (f"{e}: change_pct is {rnd(pct[e], 1):.1f}", cell(e, "change_pct", rnd(pct[e], 1), t1)) for e in probe]),
    ]
    notf = [e for e in ranked if e not in flagged]
    flag_items = [(f"exactly {len(flagged)} {sc.entity_noun}s are flagged yes", rows_check(len(flagged), {"flag": "yes"}))]
    flag_items += [(f"{e} is flagged yes", cell(e, "flag", "yes", 0.0)) for e in flagged[:2]]
    flag_items.append((f"{notf[0]} (change at or below {thr_txt}%) is flagged no", cell(notf[0], "flag", "no", 0.0)))
    R.append(rubric(f"Flags exactly the {sc.entity_noun}s above the {thr_txt}% threshold", 10, flag_items))
    summ = []
    for measure, val in (("entities_compared", len(ents)), ("entities_flagged", len(flagged))):
        c = c_cell(X, {"measure": measure}, "value", val, sheet="Summary")
        summ.append((f"Summary sheet: {measure} is {val}", c))
    R.append(rubric("The Summary sheet states the counts", 6, summ))
    R.append(rubric(f"The briefing names the {sc.entity_noun} with the largest increase", 8, [
        ("briefing.docx exists in the output folder", c_file(D)),
        (f"briefing names {top} as the largest increase", base.choice(D, "Largest increase", top, ents)),
    ]))
    dec = sc.decision_yes if flagged else sc.decision_no
    items = [(f"briefing's decision is {dec}", base.choice(D, "Decision", dec, [sc.decision_yes, sc.decision_no]))]
    if flagged:
        items.append((f"briefing lists {flagged[0]} as flagged",
                      base.listed(D, "Flagged", ents, contains=[flagged[0]])))
    else:
        items.append(("briefing says nothing is flagged", c_field(D, "Flagged", options=[str(e) for e in ents], items=[])))
    items.append((f"briefing does not list {notf[0]} as flagged",
                  base.listed(D, "Flagged", ents, excludes=[notf[0]])))
    R.append(rubric("The briefing reaches the right decision", 10, items))
    premise_ok = "yes" if premise_entity == top else "no"
    R.append(base.premise_rubric(premise_ok, trap_kind, D, noun="briefing"))
    src = [(f"briefing names {cite} as the source file", base.choice(D, "Source file", cite, [f.name for f in files])),
           base.duplicates_item(dup_count, D, noun="briefing"),
           (f"briefing states Entities compared: {len(ents)}",
            c_field(D, "Entities compared", number=len(ents)))]
    R.append(rubric("Works from the current extract and counts duplicates once",
                    10 if trap_kind in ("stale_file", "duplicates") else 6, src))
    if scaled_period is not None:
        e = probe[0]
        col = bcol if scaled_period == b_per else ccol
        val = rnd(float(mb[e] if scaled_period == b_per else mc[e]), 2)
        R.append(rubric(f"Converts the {scaled_period} data from {sc.alt_header} before computing the metric", 10, [
            (f"{e}: {col} is {val:.2f} (not off by a factor of {base.num_text(1 / sc.alt_factor if sc.alt_factor < 1 else sc.alt_factor)})",
             cell(e, col, val, t2))]))

    params = {"data": spec, "entity_col": ent, "num_col": num, "den_col": den, "scale": sc.scale,
              "metric_col": sc.metric_col, "base": b_per, "current": c_per, "threshold_pct": thr,
              "alt_units": alt, "premise_entity": premise_entity, "decision_yes": sc.decision_yes,
              "decision_no": sc.decision_no, "memo_title": sc.subject, "value_decimals": 2}
    card = base.card(sc.subject, sc.occupation, FAMILY, sc.source, trap, [
        f"{len(ents)} {sc.entity_noun}s compared, {b_per} -> {c_per}; largest increase {top} ({rnd(pct[top], 1):.1f}%).",
        f"Flagged above {thr_txt}%: {', '.join(flagged) or 'none'}; decision {dec}.",
    ])
    return Draft(family=FAMILY, occupation=sc.occupation, scenario=sc.key, instructions=instructions, files=files,
                 rubrics=R, solver="compare", params=params, source=base.source_meta(sc.source), trap=trap, card=card,
                 expected={"entities": len(ents), "flagged": flagged, "top": top, "duplicates": dup_count,
                           "decision": dec})
