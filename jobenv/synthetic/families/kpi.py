"""Family ``kpi_review``: a per-group summary, an exception list above a threshold and a decision memo.

Real records (professor salaries, corporate investment, journal prices, school spending, hospital
stays) are scoped by a house rule, grouped, totalled and averaged; records above a threshold are listed;
groups whose average exceeds a limit are escalated. Traps: duplicated rows, one workbook sheet in
another unit, a stale extract next to the current one, a request premise the data contradicts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from ..common import (
    DegenerateTask, Draft, c_cell, c_columns, c_field, c_file, c_not, c_number, c_regex, c_rows, id_regex, money,
    near_rounding_boundary, rnd, rubric, tol,
)
from . import base

__all__ = ["FAMILY", "TRAPS", "SCENARIOS", "build"]

FAMILY = "kpi_review"
TRAPS = frozenset({"duplicates", "unit_scale", "stale_file", "false_premise"})


@dataclass(frozen=True)
class KpiScenario:
    key: str
    occupation: str
    source: tuple[str, str]
    prep: Callable[[Any], Any]
    id_col: str
    group_col: str
    group_noun: str
    value_col: str
    value_noun: str
    unit: str
    alt_unit: tuple[str, float]  # (header suffix, factor: sheet value = value * factor)
    value_decimals: int
    entity: str
    requester: str
    subject: str
    context: str
    row_rule: str  # what an exception means, e.g. "salary strictly above {X} USD"
    group_rule: str
    filters: tuple[tuple[str, str, Any, str], ...]
    stem: str


def _salaries(df):
    out = df.rename(columns={"yrs.since.phd": "years_since_phd", "yrs.service": "years_of_service"}).copy()
    out["employee_id"] = out["rownames"].map(lambda r: f"EMP-{int(r):04d}")
    out["rank"] = out["rank"].map({"Prof": "Professor", "AssocProf": "Associate Professor",
                                   "AsstProf": "Assistant Professor"})
    out["salary"] = out["salary"].astype(int)
    return out[["employee_id", "rank", "discipline", "sex", "years_since_phd", "years_of_service", "salary"]]


def _grunfeld(df):
    out = df.copy()
    out["project_id"] = out["rownames"].map(lambda r: f"CX-{int(r):04d}")
    out["invest"] = out["invest"].round(1)
    out = out.rename(columns={"invest": "capex", "value": "market_value", "capital": "capital_stock"})
    return out[["project_id", "firm", "year", "capex", "market_value", "capital_stock"]]


def _journals(df):
    out = df.copy()
    keep = out["publisher"].value_counts()
    out = out[out["publisher"].isin(keep[keep >= 5].index)]
    out = out.rename(columns={"rownames": "journal_code", "price": "annual_price"})
    out["annual_price"] = out["annual_price"].astype(int)
    return out[["journal_code", "title", "publisher", "society", "field", "subs", "citations", "annual_price"]]


def _caschools(df):
    out = df.copy()
    keep = out["county"].value_counts()
    out = out[out["county"].isin(keep[keep >= 9].index)]
    out["district_id"] = out["district"].map(lambda d: f"D{int(d)}")
    out["expenditure"] = out["expenditure"].round(2)
    return out[["district_id", "school", "county", "grades", "students", "teachers", "expenditure"]]


def _medpar(df):
    out = df.copy()
    keep = out["provnum"].value_counts()
    out = out[out["provnum"].isin(keep[keep >= 45].index)]
    out["stay_id"] = out["rownames"].map(lambda r: f"ADM-{int(r):05d}")
    out["provider"] = out["provnum"].map(lambda p: f"P{int(p):06d}")
    out["admission_type"] = out["type"].map({1: "elective", 2: "urgent", 3: "emergency"})
    out["length_of_stay"] = out["los"].astype(int)
    return out[["stay_id", "provider", "admission_type", "hmo", "age80", "died", "length_of_stay"]]


SCENARIOS: tuple[KpiScenario, ...] = (
    KpiScenario(
        key="pay_band_review", occupation="human_resources_specialists", source=("carData", "Salaries"),
        prep=_salaries, id_col="employee_id", group_col="rank", group_noun="rank", value_col="salary",
        value_noun="salary", unit="USD", alt_unit=("salary_usd_thousands", 0.001), value_decimals=0,
        entity="faculty member", requester="Dana, Director of Total Rewards",
        subject="Nine-month salary review by academic rank",
        context="Ahead of the compensation committee we need a clean view of nine-month salaries by rank, "
                "a list of salaries above the band ceiling, and a recommendation on whether any rank needs "
                "a band review.",
        row_rule="salary strictly above {X} USD (the band ceiling)",
        group_rule="a rank whose average salary is above {L} USD needs a band review",
        filters=(("discipline", "==", "B", "only faculty in discipline B (applied departments) are in scope"),
                 ("discipline", "==", "A", "only faculty in discipline A (theoretical departments) are in scope"),
                 ("years_of_service", ">=", 1, "faculty with less than one year of service are out of scope")),
        stem="faculty_salaries"),
    KpiScenario(
        key="capex_review", occupation="financial_managers", source=("AER", "Grunfeld"),
        prep=_grunfeld, id_col="project_id", group_col="firm", group_noun="firm", value_col="capex",
        value_noun="gross investment", unit="USD millions", alt_unit=("capex_usd_thousands", 1000.0),
        value_decimals=1, entity="annual investment record", requester="Priya, VP Corporate Finance",
        subject="Capital expenditure review by firm",
        context="For the portfolio capital-allocation review I need gross investment (capex) by firm over the "
                "review window, the years where a firm's capex exceeded our large-outlay threshold, and a "
                "recommendation on which firms go to the investment committee.",
        row_rule="capex strictly above {X} USD millions in a year (a large outlay)",
        group_rule="a firm whose average annual capex is above {L} USD millions goes to the investment committee",
        filters=(("year", ">=", 1940, "the review window is 1940 onwards (earlier years are out of scope)"),
                 ("year", ">=", 1945, "the review window is 1945 onwards (earlier years are out of scope)"),
                 ("year", "<=", 1949, "the review window is 1949 and earlier (later years are out of scope)")),
        stem="capex_history"),
    KpiScenario(
        key="subscription_spend", occupation="purchasing_agents", source=("AER", "Journals"),
        prep=_journals, id_col="journal_code", group_col="publisher", group_noun="publisher",
        value_col="annual_price", value_noun="annual subscription price", unit="USD",
        alt_unit=("annual_price_usd_thousands", 0.001), value_decimals=0, entity="journal",
        requester="Marcus, Head of Library Procurement",
        subject="Journal subscription spend by publisher before renewals",
        context="Renewal negotiations start next month. Please summarise our subscription prices by publisher, "
                "list the titles priced above our review threshold, and tell me which publishers we should "
                "open renegotiation with.",
        row_rule="annual price strictly above {X} USD",
        group_rule="a publisher whose average price is above {L} USD is opened for renegotiation",
        filters=(("society", "==", "no", "only commercial (non-society) journals are in scope"),
                 ("field", "!=", "General", "journals in the 'General' field are out of scope (separate consortium deal)")),
        stem="journal_subscriptions"),
    KpiScenario(
        key="district_spending", occupation="management_analysts", source=("AER", "CASchools"),
        prep=_caschools, id_col="district_id", group_col="county", group_noun="county",
        value_col="expenditure", value_noun="expenditure per student", unit="USD per student",
        alt_unit=("expenditure_usd_thousands_per_student", 0.001), value_decimals=2, entity="school district",
        requester="Elena, Engagement Manager",
        subject="Per-student spending benchmark by county",
        context="The client wants a benchmark of per-student expenditure by county for its operating review: a "
                "county summary, the districts spending above the benchmark ceiling, and which counties merit "
                "a cost deep-dive.",
        row_rule="expenditure strictly above {X} USD per student",
        group_rule="a county whose average expenditure per student is above {L} USD gets a cost deep-dive",
        filters=(("grades", "==", "KK-08", "only KK-08 districts are in scope"),
                 ("students", ">=", 200, "districts with fewer than 200 students are out of scope")),
        stem="district_spending"),
    KpiScenario(
        key="length_of_stay", occupation="medical_and_health_services_managers", source=("COUNT", "medpar"),
        prep=_medpar, id_col="stay_id", group_col="provider", group_noun="provider",
        value_col="length_of_stay", value_noun="length of stay", unit="days", alt_unit=("length_of_stay_hours", 24.0),
        value_decimals=0, entity="inpatient stay", requester="Dr. Okafor, Chief Operating Officer",
        subject="Length-of-stay review by provider",
        context="For the utilisation committee, please summarise inpatient length of stay by provider, list the "
                "long stays for case review, and say which providers go on the utilisation watch list.",
        row_rule="length of stay strictly above {X} days (a long stay)",
        group_rule="a provider whose average length of stay is above {L} days goes on the watch list",
        filters=(("hmo", "==", 0, "stays managed by an HMO (hmo = 1) are out of scope"),
                 ("age80", "==", 0, "patients aged 80 or over (age80 = 1) are out of scope"),
                 ("died", "==", 0, "stays that ended in death (died = 1) are reviewed separately and are out of scope")),
        stem="inpatient_stays"),
)


def _nice(x: float, rng: random.Random) -> float:
    """A round-looking limit near ``x`` (two significant figures)."""
    import math

    if x <= 0:
        return 1.0
    step = 10 ** max(0, math.floor(math.log10(x)) - 1)
    return float(round(x / step) * step)


def _apply(df, flt):
    col, op, val, _ = flt
    s = df[col]
    return df[{"==": s == val, "!=": s != val, ">=": s >= val, "<=": s <= val}[op]]


def build(rng: random.Random, sc: KpiScenario, trap_kind: str | None, raw) -> Draft:
    """Draw one task of this family; raises DegenerateTask when the drawn parameters are ill-posed."""
    data = sc.prep(raw).reset_index(drop=True)
    if len(data) > 420:  # keep tasks small: a seeded sample of the records
        data = data.sample(n=420, random_state=rng.randrange(2**31)).reset_index(drop=True)
    flt = rng.choice(sc.filters)
    scoped = _apply(data, flt)
    v, g, idc = sc.value_col, sc.group_col, sc.id_col
    groups = scoped.groupby(g)[v].agg(["count", "sum", "mean"])
    if len(groups) < 3:
        raise DegenerateTask("fewer than 3 groups in scope")
    if (groups["count"] < 3).any():
        raise DegenerateTask("a group with fewer than 3 records in scope")
    means = groups["mean"].sort_values(ascending=False)
    if (means.iloc[0] - means.iloc[1]) < 0.005 * abs(means.iloc[0]):
        raise DegenerateTask("tie for the highest average")

    # Row threshold: a round number near a high percentile, never equal to a record's value.
    q = rng.uniform(0.82, 0.95)
    X = base.threshold(float(scoped[v].quantile(q)), [float(x) for x in data[v]])
    exc = scoped[scoped[v] > X].sort_values([v, idc], ascending=[False, True])
    if not 2 <= len(exc) <= 30:
        raise DegenerateTask(f"{len(exc)} exceptions (want 2..30)")

    # Group limit: between two adjacent averages (sometimes above all of them: nothing to escalate).
    ordered = list(means.items())
    if rng.random() < 0.2:
        L = _nice(ordered[0][1] * 1.08, rng)
    else:
        k = rng.randrange(1, min(len(ordered), 4))
        L = _nice((ordered[k - 1][1] + ordered[k][1]) / 2, rng)
    if any(abs(m - L) < max(0.01, 0.002 * abs(L)) for m in means):
        raise DegenerateTask("a group average ties the limit")
    above = sorted(str(n) for n, m in means.items() if m > L)
    top = str(means.index[0])

    trap: dict[str, Any] | None = None
    premise_group = top
    if trap_kind == "false_premise":
        premise_group = str(means.index[1])
        trap = {"kind": "false_premise", "claimed": premise_group, "actual": top,
                "detail": f"the request says {premise_group} has the highest average {sc.value_noun}; it is {top}"}

    layout = "xlsx" if trap_kind == "unit_scale" else rng.choice(["csv", "xlsx", "sqlite"])
    current_date, stale_date = "2024-05-31", "2024-02-29"
    ext = {"csv": "csv", "xlsx": "xlsx", "sqlite": "db"}[layout]
    data_file = f"{sc.stem}_extract_{current_date}.{ext}"

    records, dup_count, dup_trap = base.shuffle_records(rng, data, scoped, idc, trap_kind)
    trap = dup_trap or trap

    scaled_group = None
    alt_header, factor = sc.alt_unit
    if trap_kind == "unit_scale":
        cands = [str(n) for n, c in groups["count"].items() if c >= 3]
        scaled_group = rng.choice(sorted(cands))
        trap = {"kind": "unit_scale", "sheet": scaled_group, "header": alt_header, "factor": factor,
                "detail": f"sheet {scaled_group!r} reports {sc.value_col} as {alt_header} (x{factor:g})"}

    files = []
    spec: dict[str, Any] = {"layout": layout, "file": data_file, "value_col": v, "id_col": idc,
                            "alt_units": {alt_header: factor}, "skip_sheets": ["Notes"], "table": sc.stem}
    files.append(base.data_file(data_file, layout, records, group_col=g, value_col=v, scaled_group=scaled_group,
                                alt_header=alt_header, factor=factor, table=sc.stem,
                                notes=f"Extract of {sc.entity} records, one sheet per {sc.group_noun}. "
                                      f"Amounts in {sc.unit} unless the column header says otherwise."))
    stale_total = None
    if trap_kind == "stale_file":
        stale = records.copy()
        idx = stale.sample(frac=0.25, random_state=rng.randrange(2**31)).index
        bumps = [rng.choice([-1, 1]) * rng.uniform(0.03, 0.12) for _ in idx]
        new_vals = [rnd(val * (1 + b), sc.value_decimals) for val, b in zip(stale.loc[idx, v], bumps)]
        stale.loc[idx, v] = [int(x) for x in new_vals] if sc.value_decimals == 0 else new_vals
        stale_file = f"{sc.stem}_extract_{stale_date}.{ext}"
        files.append(base.data_file(stale_file, layout, stale, group_col=g, value_col=v, scaled_group=None,
                                    alt_header=alt_header, factor=factor, table=sc.stem,
                                    notes=f"Extract of {sc.entity} records. Amounts in {sc.unit}.", role="stale"))
        stale_total = float(_apply(stale, flt)[v].sum())
        trap = {"kind": "stale_file", "stale": stale_file, "current": data_file,
                "detail": f"{stale_file} is an older extract superseded by {data_file}"}
        if abs(stale_total - float(scoped[v].sum())) < 1:
            raise DegenerateTask("stale extract total too close to the current one")

    X_txt = base.num_text(X)
    L_txt = base.num_text(L)
    rules = [
        f"Scope: {flt[3]}.",
        f"Each {idc} is one record: if the same record appears more than once in an extract, count it once "
        f"(report how many duplicate rows you dropped from the extract, before applying the scope rule).",
        f"Report every amount in {sc.unit}; convert any figures supplied in another unit first.",
        "When several versions of a data extract exist, use the most recent one (by the date in its file name).",
        "Round totals and averages to 2 decimal places; counts are whole numbers.",
        f"Exception: a record with {sc.row_rule.format(X=X_txt)}. 'Above' always means strictly greater than.",
        f"Escalation: {sc.group_rule.format(L=L_txt)}; the decision is ESCALATE when at least one "
        f"{sc.group_noun} is above the limit, otherwise NO ESCALATION.",
    ]
    policy = base.policy_file(rng, f"{sc.stem}_house_rules", f"House rules: {sc.subject}", rules)
    files.append(policy)
    files.extend(base.irrelevant_files(rng, sc.stem, [idc, g, v]))

    memo_title = sc.subject
    premise = (f"{sc.requester.split(',')[0]}'s working assumption is that {premise_group} has the highest "
               f"average {sc.value_noun}; please confirm or correct that in the memo.")
    deliverables = [
        f"1. summary.csv - one row per {sc.group_noun} in scope, with exactly these columns: {g}, record_count, "
        f"total_{v}, average_{v}.",
        f"2. exceptions.csv - every in-scope {sc.entity} with {sc.row_rule.format(X=X_txt)}, with columns "
        f"{idc}, {g}, {v}, sorted by {v} from highest to lowest.",
        "3. memo.md - a short decision memo that starts with these lines (label, colon, value), followed by "
        "two to four sentences of rationale:",
        "   Records analysed: <number of in-scope records after removing duplicates>",
        "   Duplicates removed: <number of duplicate rows dropped>",
        f"   Total {v}: <sum over in-scope records, in {sc.unit}>",
        f"   Highest average {v}: <{sc.group_noun}>",
        f"   Groups above limit: <the {sc.group_noun}s above the escalation limit, separated by semicolons, or none>",
        "   Premise confirmed: <yes or no>",
        "   Decision: <ESCALATE or NO ESCALATION>",
        "   Source file: <the data file you used>",
    ]
    instructions = base.instructions(
        requester=sc.requester, subject=sc.subject, context=sc.context, premise=premise,
        deliverables=deliverables, rules=rules, policy_name=policy.name, files=files)

    # ---- expected values and rubrics ----------------------------------------------------------------
    t2 = tol(2)
    gsorted = sorted(groups.index.astype(str))
    probe = base.pick_groups(rng, gsorted, must=[top] + above[:1] + ([scaled_group] if scaled_group else []))
    gstats0 = {str(n): (float(r["sum"]), float(r["mean"])) for n, r in groups.iterrows()}
    # Graded values must not sit on a rounding boundary (x.xx5): redraw instead.
    if any(near_rounding_boundary(x, 2) for p in probe for x in gstats0[p]) or near_rounding_boundary(
            float(scoped[v].sum()), 2):
        raise DegenerateTask("a graded total or average sits on a rounding boundary")
    S = "summary.csv"
    tot_col, avg_col = f"total_{v}", f"average_{v}"
    gstats = {str(n): (int(r["count"]), float(r["sum"]), float(r["mean"])) for n, r in groups.iterrows()}
    R = []
    R.append(rubric("Delivers the summary table with the required columns", 6, [
        ("summary.csv exists in the output folder", c_file(S)),
        (f"summary.csv has the columns {g}, record_count, {tot_col}, {avg_col}",
         c_columns(S, [g, "record_count", tot_col, avg_col])),
        (f"summary.csv has one row per in-scope {sc.group_noun} ({len(groups)} rows)", c_rows(S, len(groups))),
    ]))
    R.append(rubric(f"Record counts per {sc.group_noun} respect the scope rule and count duplicates once", 8, [
        (f"{p}: record_count is {gstats[p][0]}", c_cell(S, {g: p}, "record_count", gstats[p][0])) for p in probe]))
    R.append(rubric(f"Totals per {sc.group_noun} are correct in {sc.unit} (2 decimal places)", 10, [
        (f"{p}: {tot_col} is {money(rnd(gstats[p][1], 2))}", c_cell(S, {g: p}, tot_col, rnd(gstats[p][1], 2), t2))
        for p in probe]))
    R.append(rubric(f"Averages per {sc.group_noun} are correct (2 decimal places)", 10, [
        (f"{p}: {avg_col} is {money(rnd(gstats[p][2], 2))}", c_cell(S, {g: p}, avg_col, rnd(gstats[p][2], 2), t2))
        for p in probe]))
    E = "exceptions.csv"
    R.append(rubric("The exception list is complete", 8, [
        (f"exceptions.csv has the columns {idc}, {g}, {v}", c_columns(E, [idc, g, v])),
        (f"exceptions.csv lists exactly {len(exc)} records", c_rows(E, len(exc))),
    ]))
    ex_items = []
    for _, r in exc.head(3).iterrows():
        val = rnd(float(r[v]), sc.value_decimals)
        ex_items.append((f"{r[idc]} is listed with {v} {base.num_text(val)}",
                         c_cell(E, {idc: str(r[idc])}, v, val, tol(sc.value_decimals))))
    below = scoped[scoped[v] <= X].sort_values(v, ascending=False)
    if len(below):
        nm = str(below.iloc[0][idc])
        ex_items.append((f"{nm} (at or below the threshold) is not listed", c_regex(id_regex(nm), E, absent=True)))
    out_scope = data.drop(scoped.index)
    out_scope = out_scope[out_scope[v] > X]
    if len(out_scope):
        nm = str(out_scope.sort_values(idc).iloc[0][idc])
        ex_items.append((f"{nm} (out of scope) is not listed", c_regex(id_regex(nm), E, absent=True)))
    R.append(rubric("The exception list holds the right records and values", 8, ex_items))
    total = float(scoped[v].sum())
    M = "memo.md"
    R.append(rubric("The memo states the in-scope record count and total", 8, [
        (f"memo states Records analysed: {len(scoped)}",
         c_field(M, "Records analysed", number=len(scoped))),
        (f"memo states the total {v} of {money(rnd(total, 2))} {sc.unit}",
         c_field(M, f"Total {v}", number=rnd(total, 2), tolerance=t2)),
    ]))
    all_groups = sorted(str(n) for n in means.index)
    R.append(rubric(f"The memo identifies the {sc.group_noun} with the highest average", 8, [
        (f"memo names {top} as the highest average {v}", base.choice(M, f"Highest average {v}", top, all_groups)),
    ]))
    flag_items = []
    for a in above:
        flag_items.append((f"memo lists {a} among the groups above the limit of {L_txt}",
                           base.listed(M, "Groups above limit", all_groups, contains=[a])))
    not_above = [str(n) for n in means.index if str(n) not in above]
    if not_above:
        na = not_above[0]
        flag_items.append((f"memo does not list {na} (below the limit) among the groups above the limit",
                           base.listed(M, "Groups above limit", all_groups, excludes=[na])))
    if not above:
        flag_items.append(("memo says no group is above the limit", c_field(M, "Groups above limit", options=all_groups, items=[])))
    decision = "ESCALATE" if above else "NO ESCALATION"
    flag_items.append((f"memo's decision is {decision}", base.choice(M, "Decision", decision, ["ESCALATE", "NO ESCALATION"])))
    R.append(rubric("The memo flags the right groups and reaches the right decision", 10, flag_items))

    premise_ok = "yes" if premise_group == top else "no"
    R.append(base.premise_rubric(premise_ok, trap_kind, M))

    src_items = [(f"memo names {data_file} as the source file", base.choice(M, "Source file", data_file, [f.name for f in files]))]
    if trap_kind == "stale_file":
        src_items.append((f"memo does not report the stale extract's total ({money(rnd(stale_total, 2))})",
                          c_not(c_number(rnd(stale_total, 2), M, t2))))
    src_items.append(base.duplicates_item(dup_count, M))
    R.append(rubric("The memo works from the current extract and accounts for duplicates",
                    10 if trap_kind in ("stale_file", "duplicates") else 6, src_items))
    if trap_kind == "unit_scale":
        sg = scaled_group
        R.append(rubric(f"Converts the {sg} sheet from {alt_header} to {sc.unit} before aggregating", 10, [
            (f"{sg}: {tot_col} is {money(rnd(gstats[sg][1], 2))} {sc.unit}",
             c_cell(S, {g: sg}, tot_col, rnd(gstats[sg][1], 2), t2)),
            (f"{sg}: {avg_col} is {money(rnd(gstats[sg][2], 2))} {sc.unit}",
             c_cell(S, {g: sg}, avg_col, rnd(gstats[sg][2], 2), t2)),
        ]))

    params = {
        "data": spec, "group_col": g, "filter": {"column": flt[0], "op": flt[1], "value": flt[2]},
        "row_threshold": X, "group_limit": L, "premise_group": premise_group, "value_decimals": sc.value_decimals,
        "memo_title": memo_title,
    }
    card = base.card(sc.subject, sc.occupation, FAMILY, sc.source, trap, [
        f"In scope: {len(scoped)} records in {len(groups)} {sc.group_noun}s; total {v} {money(rnd(total, 2))} {sc.unit}.",
        f"Highest average: {top}; above the limit {L_txt}: {', '.join(above) or 'none'}; decision {decision}.",
        f"Exceptions above {X_txt}: {len(exc)}.",
    ])
    return Draft(family=FAMILY, occupation=sc.occupation, scenario=sc.key, instructions=instructions, files=files,
                 rubrics=R, solver="kpi", params=params, source=base.source_meta(sc.source), trap=trap, card=card,
                 expected={"total": rnd(total, 2), "top": top, "above": above, "exceptions": len(exc),
                           "records": len(scoped), "duplicates": dup_count})
