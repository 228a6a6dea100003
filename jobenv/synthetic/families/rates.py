"""Family ``rate_table``: event rates by group with small-cell suppression and a benchmark decision.

Real records (births, hospital stays, flights, survey respondents) carry a 0/1 event; the task asks
for n, events and the rate per 100 by group, suppressing groups below a minimum size, flagging groups
above a benchmark and a memo with the decision. Traps: duplicated rows, a stale extract, a false premise.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from ..common import (
    c_field,
    DegenerateTask, Draft, c_cell, c_columns, c_file, c_not, c_number, c_rows, near_rounding_boundary, rnd, rubric, tol,
)
from . import base

__all__ = ["FAMILY", "TRAPS", "SCENARIOS", "build"]

FAMILY = "rate_table"
TRAPS = frozenset({"duplicates", "stale_file", "false_premise"})


@dataclass(frozen=True)
class RateScenario:
    key: str
    occupation: str
    source: tuple[str, str]
    prep: Callable[[Any, random.Random], Any]
    id_col: str
    group_col: str
    group_noun: str
    event_col: str
    event_noun: str
    entity: str
    requester: str
    subject: str
    context: str
    decision_yes: str
    decision_no: str
    filters: tuple[tuple[str, str, Any, str], ...]
    min_ns: tuple[int, ...]
    stem: str


def _birthwt(df, rng):
    out = df.copy()
    out["infant_id"] = out["rownames"].map(lambda r: f"BW-{int(r):03d}")
    race = out["race"].map({1: "white", 2: "black", 3: "other"})
    smoke = out["smoke"].map({0: "non-smoker", 1: "smoker"})
    out["cohort"] = race + ", " + smoke
    out["low_birth_weight"] = out["low"].astype(int)
    out = out.rename(columns={"age": "mother_age", "lwt": "mother_weight_lb", "ptl": "previous_premature",
                              "ht": "hypertension", "bwt": "birth_weight_g"})
    return out[["infant_id", "cohort", "mother_age", "mother_weight_lb", "previous_premature", "hypertension",
                "birth_weight_g", "low_birth_weight"]]


def _medpar(df, rng):
    out = df.copy()
    out["stay_id"] = out["rownames"].map(lambda r: f"ADM-{int(r):05d}")
    out["provider"] = out["provnum"].map(lambda p: f"P{int(p):06d}")
    keep = out["provider"].value_counts()
    out = out[out["provider"].isin(keep.index[:12])]
    out["admission_type"] = out["type"].map({1: "elective", 2: "urgent", 3: "emergency"})
    out["in_hospital_death"] = out["died"].astype(int)
    out["length_of_stay"] = out["los"].astype(int)
    return out[["stay_id", "provider", "admission_type", "hmo", "age80", "length_of_stay", "in_hospital_death"]]


def _flights(df, rng):
    month = rng.choice([1, 4, 7, 10])
    out = df[(df["month"] == month) & df["arr_delay"].notna()].copy()
    out = out.sample(n=900, random_state=rng.randrange(2**31))
    out["flight_id"] = out["rownames"].map(lambda r: f"FL-{int(r):06d}")
    out["late_arrival"] = (out["arr_delay"] > 15).astype(int)
    out["arr_delay"] = out["arr_delay"].astype(int)
    out["flight_date"] = [f"{int(y):04d}-{int(m):02d}-{int(d):02d}" for y, m, d in zip(out["year"], out["month"], out["day"])]
    return out[["flight_id", "flight_date", "carrier", "flight", "origin", "dest", "distance", "arr_delay", "late_arrival"]]


def _cps(df, rng):
    out = df.copy()
    out["respondent_id"] = out["rownames"].map(lambda r: f"R{int(r):04d}")
    out["union_member"] = (out["union"] == "yes").astype(int)
    return out[["respondent_id", "occupation", "sector", "region", "gender", "age", "education", "wage", "union_member"]]


SCENARIOS: tuple[RateScenario, ...] = (
    RateScenario(
        key="low_birth_weight", occupation="biostatisticians", source=("MASS", "birthwt"), prep=_birthwt,
        id_col="infant_id", group_col="cohort", group_noun="cohort", event_col="low_birth_weight",
        event_noun="low birth weight (under 2,500 g)", entity="birth", requester="Dr. Lindqvist, Principal Investigator",
        subject="Low-birth-weight rates by maternal cohort",
        context="For the grant progress report I need the low-birth-weight rate by maternal race and smoking "
                "cohort from the Baystate births file, with our small-cell rule applied, and a recommendation "
                "on whether any cohort should be prioritised for the smoking-cessation arm.",
        decision_yes="PRIORITISE", decision_no="NO CHANGE",
        filters=(("previous_premature", "==", 0, "mothers with a previous premature labour (previous_premature > 0) are analysed separately and are out of scope"),
                 ("mother_age", ">=", 18, "mothers younger than 18 are out of scope"),
                 ("hypertension", "==", 0, "mothers with a history of hypertension are out of scope")),
        min_ns=(8, 10, 12), stem="birth_cohort"),
    RateScenario(
        key="mortality_by_provider", occupation="medical_and_health_services_managers", source=("COUNT", "medpar"),
        prep=_medpar, id_col="stay_id", group_col="provider", group_noun="provider", event_col="in_hospital_death",
        event_noun="in-hospital death", entity="inpatient stay", requester="Grace, VP Quality and Patient Safety",
        subject="In-hospital mortality by provider",
        context="The quality committee wants in-hospital mortality by provider for the Medicare stays file, "
                "with the minimum-volume rule applied, and which providers need a mortality case review.",
        decision_yes="CASE REVIEW", decision_no="NO REVIEW",
        filters=(("admission_type", "!=", "elective", "elective admissions are out of scope"),
                 ("hmo", "==", 0, "stays managed by an HMO (hmo = 1) are out of scope"),
                 ("age80", "==", 1, "only patients aged 80 or over (age80 = 1) are in scope")),
        min_ns=(20, 25, 30), stem="medicare_stays"),
    RateScenario(
        key="late_arrivals", occupation="supply_chain_managers", source=("nycflights13", "flights"), prep=_flights,
        id_col="flight_id", group_col="carrier", group_noun="carrier", event_col="late_arrival",
        event_noun="late arrival (more than 15 minutes)", entity="flight", requester="Tomas, Logistics Director",
        subject="Air-freight carrier on-time performance",
        context="We ship time-critical parts as belly cargo out of the New York airports. Please give me the "
                "late-arrival rate by carrier for the sampled month, with the minimum-volume rule applied, "
                "and tell me whether any carrier goes on the performance-improvement list.",
        decision_yes="PUT ON IMPROVEMENT PLAN", decision_no="NO ACTION",
        filters=(("origin", "==", "EWR", "only flights departing EWR are in scope"),
                 ("origin", "==", "JFK", "only flights departing JFK are in scope"),
                 ("origin", "==", "LGA", "only flights departing LGA are in scope"),
                 ("distance", ">=", 500, "flights shorter than 500 miles are out of scope")),
        min_ns=(15, 20, 25), stem="carrier_flights"),
    RateScenario(
        key="union_coverage", occupation="statisticians", source=("AER", "CPS1985"), prep=_cps,
        id_col="respondent_id", group_col="occupation", group_noun="occupation", event_col="union_member",
        event_noun="union membership", entity="respondent", requester="Hannah, Survey Methods Lead",
        subject="Union membership rates by occupation (CPS 1985 extract)",
        context="For the methods note on the May 1985 CPS supplement, please tabulate union membership by "
                "occupation with our small-cell rule, and say whether any occupation needs an oversample in the "
                "next wave.",
        decision_yes="OVERSAMPLE", decision_no="NO OVERSAMPLE",
        filters=(("sector", "!=", "construction", "respondents in the construction sector are out of scope"),
                 ("age", ">=", 25, "respondents younger than 25 are out of scope"),
                 ("region", "==", "other", "only respondents outside the South (region = other) are in scope")),
        min_ns=(15, 20, 25), stem="cps_respondents"),
)


def _apply(df, flt):
    col, op, val, _ = flt
    s = df[col]
    return df[{"==": s == val, "!=": s != val, ">=": s >= val, "<=": s <= val}[op]]


def build(rng: random.Random, sc: RateScenario, trap_kind: str | None, raw) -> Draft:
    """Draw one task of this family; raises DegenerateTask when the drawn parameters are ill-posed."""
    data = sc.prep(raw, rng).reset_index(drop=True)
    flt = rng.choice(sc.filters)
    min_n = rng.choice(sc.min_ns)
    scoped = _apply(data, flt)
    g, ev, idc = sc.group_col, sc.event_col, sc.id_col
    grp = scoped.groupby(g)[ev].agg(["count", "sum"])
    if (grp["count"] == min_n).any():
        raise DegenerateTask("a group size ties the suppression threshold")
    rep = grp[grp["count"] >= min_n].copy()
    sup = sorted(str(x) for x in grp.index[grp["count"] < min_n])
    if len(rep) < 3:
        raise DegenerateTask("fewer than 3 reportable groups")
    rep["rate"] = 100.0 * rep["sum"] / rep["count"]
    rates = rep["rate"].sort_values(ascending=False)
    if rnd(rates.iloc[0], 1) - rnd(rates.iloc[1], 1) < 0.1 - 1e-9:
        raise DegenerateTask("tie for the highest rate")
    if rates.iloc[0] <= 0:
        raise DegenerateTask("no events")
    ordered = list(rates.items())
    if rng.random() < 0.2:
        bench = float(int(ordered[0][1] + 2))
    else:
        k = rng.randrange(1, min(len(ordered), 4))
        hi, lo = ordered[k - 1][1], ordered[k][1]
        bench = round((hi + lo) / 2, 0) if hi - lo > 1.2 else round((hi + lo) / 2, 1)
    if any(abs(r - bench) < 0.15 for r in rates):
        raise DegenerateTask("a rate ties the benchmark")
    above = sorted(str(n) for n, r in rates.items() if r > bench)
    top = str(rates.index[0])
    overall = 100.0 * float(scoped[ev].sum()) / len(scoped)
    rep_names = sorted(str(x) for x in rep.index)
    probe = base.pick_groups(rng, rep_names, must=[top] + above[:1])
    if any(near_rounding_boundary(float(rep.loc[p, "rate"]), 1) for p in probe) or near_rounding_boundary(overall, 1):
        raise DegenerateTask("a graded rate sits on a rounding boundary")

    trap: dict[str, Any] | None = None
    premise_group = top
    if trap_kind == "false_premise":
        premise_group = str(rates.index[1])
        trap = {"kind": "false_premise", "claimed": premise_group, "actual": top,
                "detail": f"the request says {premise_group} has the highest rate; it is {top}"}

    layout = rng.choice(["csv", "xlsx", "sqlite"])
    ext = {"csv": "csv", "xlsx": "xlsx", "sqlite": "db"}[layout]
    current_date, stale_date = "2024-05-31", "2024-02-29"
    data_file = f"{sc.stem}_extract_{current_date}.{ext}"
    records, dup_count, dup_trap = base.shuffle_records(rng, data, scoped, idc, trap_kind)
    trap = dup_trap or trap
    spec: dict[str, Any] = {"layout": layout, "file": data_file, "value_col": ev, "id_col": idc, "alt_units": {},
                            "skip_sheets": ["Notes"], "table": sc.stem}
    notes = f"Extract of {sc.entity} records; {ev} = 1 marks {sc.event_noun}."
    files = [base.data_file(data_file, layout, records, group_col=g, value_col=ev, scaled_group=None,
                            alt_header="", factor=1.0, table=sc.stem, notes=notes)]
    stale_overall = None
    if trap_kind == "stale_file":
        stale = records.copy()
        idx = stale.sample(frac=0.2, random_state=rng.randrange(2**31)).index
        stale.loc[idx, ev] = 1 - stale.loc[idx, ev]
        stale_file = f"{sc.stem}_extract_{stale_date}.{ext}"
        files.append(base.data_file(stale_file, layout, stale, group_col=g, value_col=ev, scaled_group=None,
                                    alt_header="", factor=1.0, table=sc.stem, notes=notes, role="stale"))
        s_sc = _apply(stale, flt)
        stale_overall = 100.0 * float(s_sc[ev].sum()) / len(s_sc)
        if abs(rnd(stale_overall, 1) - rnd(overall, 1)) < 0.3:
            raise DegenerateTask("stale extract's overall rate too close to the current one")
        trap = {"kind": "stale_file", "stale": stale_file, "current": data_file,
                "detail": f"{stale_file} is an older extract superseded by {data_file}"}

    bench_txt = base.num_text(bench)
    rules = [
        f"Scope: {flt[3]}.",
        f"Each {idc} is one record: if the same record appears more than once in an extract, count it once "
        "(report how many duplicate rows you dropped from the extract, before applying the scope rule).",
        "When several versions of a data extract exist, use the most recent one (by the date in its file name).",
        f"Rate = events / records x 100 ({ev} = 1 is an event), rounded to 1 decimal place.",
        f"Small-cell rule: a {sc.group_noun} with fewer than {min_n} in-scope records is suppressed: leave its "
        "rate_pct empty, set its status to 'suppressed' and leave it out of every comparison.",
        f"Benchmark: a reportable {sc.group_noun} whose rate is strictly above {bench_txt}% is 'above benchmark', "
        f"otherwise 'within benchmark'. The decision is {sc.decision_yes} when at least one {sc.group_noun} is "
        f"above the benchmark, otherwise {sc.decision_no}.",
    ]
    policy = base.policy_file(rng, f"{sc.stem}_analysis_rules", f"Analysis rules: {sc.subject}", rules)
    files.append(policy)
    files.extend(base.irrelevant_files(rng, sc.stem, [idc, g, ev]))
    premise = (f"{sc.requester.split(',')[0]} expects {premise_group} to have the highest rate of {sc.event_noun}; "
               "please confirm or correct that in the memo.")
    deliverables = [
        f"1. rates.csv - one row per in-scope {sc.group_noun}, with exactly these columns: {g}, n, events, "
        "rate_pct, status (status is 'above benchmark', 'within benchmark' or 'suppressed').",
        "2. memo.md - a short memo that starts with these lines (label, colon, value), followed by two to four "
        "sentences of rationale:",
        "   Records analysed: <number of in-scope records after removing duplicates>",
        "   Duplicates removed: <number of duplicate rows dropped>",
        "   Overall rate: <events per 100 in-scope records, 1 decimal place>%",
        f"   Highest rate: <the reportable {sc.group_noun} with the highest rate>",
        f"   Groups above benchmark: <{sc.group_noun}s above the benchmark, separated by semicolons, or none>",
        f"   Suppressed groups: <suppressed {sc.group_noun}s, separated by semicolons, or none>",
        "   Premise confirmed: <yes or no>",
        f"   Decision: <{sc.decision_yes} or {sc.decision_no}>",
        "   Source file: <the data file you used>",
    ]
    instructions = base.instructions(requester=sc.requester, subject=sc.subject, context=sc.context, premise=premise,
                                     deliverables=deliverables, rules=rules, policy_name=policy.name, files=files)

    F, M, t1 = "rates.csv", "memo.md", tol(1)
    gs = {str(n): (int(r["count"]), int(r["sum"])) for n, r in grp.iterrows()}
    probe_all = sorted(set(probe) | set(sup[:1]))
    R = [
        rubric("Delivers the rate table with the required columns", 6, [
            ("rates.csv exists in the output folder", c_file(F)),
            (f"rates.csv has the columns {g}, n, events, rate_pct, status", c_columns(F, [g, "n", "events", "rate_pct", "status"])),
            (f"rates.csv has one row per in-scope {sc.group_noun} ({len(grp)} rows)", c_rows(F, len(grp))),
        ]),
        rubric(f"Record counts per {sc.group_noun} respect the scope rule and count duplicates once", 8, [
            (f"{p}: n is {gs[p][0]}", c_cell(F, {g: p}, "n", gs[p][0])) for p in probe_all]),
        rubric(f"Event counts per {sc.group_noun} are correct", 8, [
            (f"{p}: events is {gs[p][1]}", c_cell(F, {g: p}, "events", gs[p][1])) for p in probe_all]),
        rubric("Rates are correct to 1 decimal place", 10, [
            (f"{p}: rate_pct is {rnd(float(rep.loc[p, 'rate']), 1):.1f}",
             c_cell(F, {g: p}, "rate_pct", rnd(float(rep.loc[p, "rate"]), 1), t1)) for p in probe]),
    ]
    all_groups = sorted(gs)
    sup_items = [(f"{s} (fewer than {min_n} records) has status 'suppressed'", c_cell(F, {g: s}, "status", "suppressed"))
                 for s in sup[:2]]
    smallest_rep = str(rep["count"].idxmin())
    st = "above benchmark" if smallest_rep in above else "within benchmark"
    sup_items.append((f"{smallest_rep} ({gs[smallest_rep][0]} records, at least {min_n}) is reported, not suppressed",
                      c_cell(F, {g: smallest_rep}, "status", st)))
    if sup:
        sup_items.append((f"memo lists exactly the suppressed groups ({'; '.join(sup)})",
                          c_field(M, "Suppressed groups", options=all_groups, items=sup)))
    else:
        sup_items.append(("memo says no group is suppressed", c_field(M, "Suppressed groups", options=all_groups, items=[])))
    R.append(rubric("Applies the small-cell suppression rule", 10, sup_items))
    flag = [(f"{a} has status 'above benchmark'", c_cell(F, {g: a}, "status", "above benchmark")) for a in above[:3]]
    within = [str(n) for n in rates.index if str(n) not in above]
    flag.append((f"{within[0]} has status 'within benchmark'", c_cell(F, {g: within[0]}, "status", "within benchmark")))
    R.append(rubric("Flags groups against the benchmark correctly", 8, flag))
    R.append(rubric("The memo states the in-scope record count and overall rate", 8, [
        (f"memo states Records analysed: {len(scoped)}",
         c_field(M, "Records analysed", number=len(scoped))),
        (f"memo states the overall rate of {rnd(overall, 1):.1f}%",
         c_field(M, "Overall rate", number=rnd(overall, 1), tolerance=t1)),
    ]))
    R.append(rubric(f"The memo identifies the {sc.group_noun} with the highest rate", 8, [
        (f"memo names {top} as the highest rate", base.choice(M, "Highest rate", top, all_groups))]))
    items = [(f"memo lists {a} among the groups above the benchmark",
              base.listed(M, "Groups above benchmark", all_groups, contains=[a]))
             for a in above]
    if not above:
        items.append(("memo says no group is above the benchmark", c_field(M, "Groups above benchmark", options=all_groups, items=[])))
    items.append((f"memo does not list {within[0]} among the groups above the benchmark",
                  base.listed(M, "Groups above benchmark", all_groups, excludes=[within[0]])))
    decision = sc.decision_yes if above else sc.decision_no
    items.append((f"memo's decision is {decision}", base.choice(M, "Decision", decision, [sc.decision_yes, sc.decision_no])))
    R.append(rubric("The memo reaches the right benchmark decision", 10, items))
    premise_ok = "yes" if premise_group == top else "no"
    R.append(base.premise_rubric(premise_ok, trap_kind, M))
    src = [(f"memo names {data_file} as the source file", base.choice(M, "Source file", data_file, [f.name for f in files])),
           base.duplicates_item(dup_count, M)]
    if stale_overall is not None:
        src.append((f"memo does not report the stale extract's overall rate ({rnd(stale_overall, 1):.1f}%)",
                    c_not(c_number(rnd(stale_overall, 1), M, t1))))
    R.append(rubric("The memo works from the current extract and accounts for duplicates",
                    10 if trap_kind in ("stale_file", "duplicates") else 6, src))

    params = {"data": spec, "group_col": g, "filter": {"column": flt[0], "op": flt[1], "value": flt[2]},
              "min_n": min_n, "benchmark": bench, "premise_group": premise_group, "value_decimals": 0,
              "decision_yes": sc.decision_yes, "decision_no": sc.decision_no, "memo_title": sc.subject}
    card = base.card(sc.subject, sc.occupation, FAMILY, sc.source, trap, [
        f"In scope: {len(scoped)} records; overall rate {rnd(overall, 1):.1f}%.",
        f"Highest reportable rate: {top}; above {bench_txt}%: {', '.join(above) or 'none'}; decision {decision}.",
        f"Suppressed (n < {min_n}): {', '.join(sup) or 'none'}.",
    ])
    return Draft(family=FAMILY, occupation=sc.occupation, scenario=sc.key, instructions=instructions, files=files,
                 rubrics=R, solver="rates", params=params, source=base.source_meta(sc.source), trap=trap, card=card,
                 expected={"overall_rate": rnd(overall, 1), "top": top, "above": above, "suppressed": sup,
                           "records": len(scoped), "duplicates": dup_count})
