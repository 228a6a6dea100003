"""Survey weights for a PI's report: design weights, raking to population margins, trimming, Kish design effect,
effective sample size and a design-adjusted margin of error (social science research assistants).

An address-based community survey in four sampling strata (urban core, inner suburbs, outer suburbs, rural) with
population shares near 35/30/22/13 % and the rural stratum sampled at 3.0-4.5 times the urban rate; 900-1,300
interviews returned by the fieldwork vendor. Respondents over-represent older people (response propensity 0.3-1.7
by age group) and women (1.3-1.5 times men), and each stratum leans to one of four regions. 5-8 % of the interviews
are partials, 3-5 % speeders (0.1-0.25 of the median duration; the rest above 0.55 of it) and 3-5 % straight-liners
on a six-item grid. The yes/no item has 4-7 % "don't know" (8) and 1-3 % "refused" (9); the 0-10 rating 2-4 % 98
and 1-3 % 99. The population table is the current year's; an archived table two years older differs by up to 3.5
points a category. The revised weighting memo caps weights at 3.0 or 3.5 times the mean; the superseded one at 5.0
or 6.0.

Failure behaviour: ``draw`` raises DegenerateTask when the cap does not bind, a shortcut leaves the answer unchanged
or the hypothesis cannot be placed on its targeted side; ``recheck`` raises OSError, KeyError or ValueError on a
folder that is not this workflow's (``recheck_task`` reports that as one problem).
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import Profession, profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files

__all__ = ["SURVEY_RAKING"]

_AGES = ("18-34", "35-49", "50-64", "65+")
_SEXES = ("Female", "Male")
_REGIONS = (("North", "South", "East", "West"), ("Riverside", "Hillcrest", "Lakeview", "Old Town"),
            ("District 1", "District 2", "District 3", "District 4"))
_STRATA = (("S1", "Urban core"), ("S2", "Inner suburbs"), ("S3", "Outer suburbs"), ("S4", "Rural"))
_MEASURES = ("transit levy", "library bond", "parks renewal levy", "school facilities bond")
_LABELS = {
    "n": ("Interviews retained after cleaning", "Retained interviews (n)", "Analytic sample size"),
    "deff": ("Kish design effect", "Design effect of the final weights", "Weighting design effect"),
    "neff": ("Effective sample size", "Effective n (Kish)", "Kish effective n"),
    "prop": ("Weighted support for the {m} (%)", "Support for the {m}, weighted (%)", "Share supporting the {m} (%)"),
    "moe": ("Margin of error at 95 % (points)", "95 % margin of error (percentage points)", "MOE, 95 % (pp)"),
    "mean": ("Weighted mean service rating (0-10)", "Mean satisfaction, weighted", "Average service score (weighted)"),
    "max_w": ("Maximum final weight", "Final weight ceiling reached", "Weight maximum after trimming"),
    "decision": ("Meets the funder's minimum", "Grant's effective-n floor met", "Adequate for the award terms"),
    "premise": ("PI's {x} % within the margin of error", "Support consistent with the PI's {x} %",
                "{x} % expectation not contradicted"),
}
_COLUMNS = ({"id": "resp_id", "status": "disposition", "duration": "duration_sec", "stratum": "stratum",
             "age": "age_group", "sex": "sex", "region": "region", "binary": "q7", "scale": "q12"},
            {"id": "caseid", "status": "final_status", "duration": "int_length_s", "stratum": "strat",
             "age": "agecat", "sex": "gender", "region": "area", "binary": "Q7_SUPPORT", "scale": "Q12_SAT"})
_WEIGHT_COLUMNS = (["resp_id", "base_weight", "final_weight"], ["case_id", "design_wt", "raked_wt"],
                   ["respondent", "w_base", "w_final"])
_STATUS = (("complete", "partial"), ("1.1", "1.2"), ("I", "P"))


# ---- the independent computation: csv, openpyxl and numpy on weighting cells -------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact, recomputed on weighting cells (stratum x raking variables: everyone in a cell has one
    weight), with numpy indicator matrices instead of the solver's per-respondent loops."""
    folder, F, C, Q = Path(folder), P["files"], P["columns"], P["items"]
    done = [r for r in read_rows(folder / F["export"]) if r[C["status"]].strip().lower() == P["complete_status"]]
    cut = P["speeder_share"] * float(np.median([float(r[C["duration"]]) for r in done]))
    kept = [r for r in done if float(r[C["duration"]]) >= cut and len({r[g].strip() for g in P["grid"]}) > 1]
    FC = P["frame_columns"]
    prob = {r[FC["stratum"]].strip(): float(r[FC["prob"]]) for r in read_rows(folder / F["frame"], P["frame_sheet"])}
    M = P["margins"]
    pop: dict[str, dict[str, float]] = {}
    for r in read_rows(folder / F["margins"], M["sheet"]):
        pop.setdefault(r[M["variable"]].strip(), {})[r[M["category"]].strip()] = float(r[M["population"]])
    keys = [(r[C["stratum"]].strip(), *[r[col].strip() for _, col in P["rake"]]) for r in kept]
    cells = sorted(set(keys))
    where = {k: i for i, k in enumerate(cells)}
    member = np.array([where[k] for k in keys])
    count = np.bincount(member, minlength=len(cells)).astype(float)
    w = np.array([1 / prob[k[0]] for k in cells])
    n = len(kept)
    mats, goals = [], []
    for j, (var, _) in enumerate(P["rake"]):
        cats = list(pop[var])
        mats.append(np.array([[float(k[j + 1] == c) for k in cells] for c in cats]))
        goals.append(np.array([pop[var][c] for c in cats]) * n / sum(pop[var].values()))

    def rake(w: np.ndarray) -> np.ndarray:
        for _ in range(2000):
            for A, g in zip(mats, goals):
                w = w * (A.T @ (g / (A @ (count * w))))
            if max(float(np.max(np.abs(A @ (count * w) / g - 1))) for A, g in zip(mats, goals)) <= P["tolerance"]:
                return w
        raise ValueError("no convergence")

    w = rake(w)
    for _ in range(2000):
        if w.max() <= P["cap"] * (1 + P["tolerance"]):
            break
        w = rake(np.minimum(w, P["cap"]))
    person_w = w[member]
    deff = n * float(np.sum(person_w ** 2)) / float(np.sum(person_w)) ** 2
    codes = np.array([int(r[C["binary"]]) for r in kept])
    ok = np.isin(codes, Q["yes_codes"] + Q["no_codes"])
    p = float(np.sum(person_w[ok] * np.isin(codes[ok], Q["yes_codes"])) / np.sum(person_w[ok]))
    moe = 1.96 * math.sqrt(deff * p * (1 - p) / int(ok.sum())) * 100
    rating = np.array([float(r[C["scale"]]) for r in kept])
    good = (rating >= Q["scale_min"]) & (rating <= Q["scale_max"])
    mean = float(np.sum(person_w[good] * rating[good]) / np.sum(person_w[good]))
    return {"n_retained": n, "deff": rnd(deff, 3), "n_eff": rnd(n / deff, 1), "prop": rnd(p * 100, 2),
            "moe": rnd(moe, 2), "mean": rnd(mean, 2), "max_weight": rnd(float(w.max()), 3),
            "weights": [[r[C["id"]], rnd(1 / prob[k[0]], 6), rnd(float(x), 6)] for r, k, x in zip(kept, keys, person_w)],
            "decision": n / deff >= P["min_neff"], "premise": abs(p * 100 - P["hypothesis"]) <= moe}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _shares(rng: random.Random, base: tuple[float, ...], jitter: float) -> list[float]:
    raw = [max(0.02, b + rng.uniform(-jitter, jitter)) for b in base]
    return [x / sum(raw) for x in raw]


def _counts(total: int, shares: list[float]) -> list[int]:
    """Whole-person counts that add up to ``total`` (the last category takes the rounding)."""
    out = [round(total * s, -1) for s in shares[:-1]]
    return [int(x) for x in out] + [total - int(sum(out))]


def _sample(rng: random.Random, P: dict[str, Any], regions: tuple[str, ...]) -> dict[str, Any]:
    """The population tables, the frame and the vendor's export (one dict of rows per interview)."""
    total = round(rng.uniform(250_000, 1_500_000), -2)
    age_sh, sex_sh = _shares(rng, (0.29, 0.25, 0.25, 0.21), 0.04), _shares(rng, (0.51, 0.49), 0.015)
    reg_sh = _shares(rng, (0.25, 0.25, 0.25, 0.25), 0.08)
    strat_sh = _shares(rng, (0.35, 0.30, 0.22, 0.13), 0.03)
    old = [_shares(rng, tuple(s), 0.035) for s in (age_sh, sex_sh, reg_sh)]
    rate = [1.0, rng.uniform(1.2, 1.6), rng.uniform(1.8, 2.5), rng.uniform(3.0, 4.5)]
    n_rows = rng.randint(900, 1300)
    alloc = [s * r for s, r in zip(strat_sh, rate)]
    prop_age = [a * f for a, f in zip(age_sh, (rng.uniform(0.3, 0.45), rng.uniform(0.7, 0.9), 1.1, rng.uniform(1.4, 1.7)))]
    women = rng.uniform(1.3, 1.5)
    lean = rng.sample(range(4), 4)
    shares = {"age": age_sh, "sex": sex_sh, "region": reg_sh}
    frame = []
    for k, (code, desc) in enumerate(_STRATA):
        units = round(total * strat_sh[k] * rng.uniform(0.42, 0.48))
        sampled = round(n_rows * alloc[k] / sum(alloc) / rng.uniform(0.18, 0.3))
        frame.append([code, desc, units, sampled, round(sampled / units, 8)])
    n_partial, n_speed, n_flat = (round(n_rows * rng.uniform(a, b)) for a, b in ((0.05, 0.08), (0.03, 0.05), (0.03, 0.05)))
    flags = ["partial"] * n_partial + ["speeder"] * n_speed + ["flat"] * n_flat
    flags += [""] * (n_rows - len(flags))
    rng.shuffle(flags)
    median_s = rng.uniform(780, 1320)
    C, S = P["columns"], P["status_codes"]
    rows = []
    for i, flag in enumerate(flags):
        s = rng.choices(range(4), alloc)[0]
        a = rng.choices(range(4), prop_age)[0]
        x = rng.choices(range(2), [sex_sh[0] * women, sex_sh[1]])[0]
        g = rng.choices(range(4), [r * (3 if j == lean[s] else 1) for j, r in enumerate(reg_sh)])[0]
        logit = 0.55 - 0.45 * a + 0.35 * (3 - s) * 0.5 - 0.2 * x + 0.15 * (g - 1.5)
        yes = rng.random() < 1 / (1 + math.exp(-logit))
        binary = rng.choices((1 if yes else 2, 8, 9), (0.92, rng.uniform(0.04, 0.07), rng.uniform(0.01, 0.03)))[0]
        rating = min(10, max(0, round(rng.gauss(5.2 + 0.6 * a - 0.4 * s + 0.3 * x, 2.0))))
        scale = rng.choices((rating, 98, 99), (0.95, rng.uniform(0.02, 0.04), rng.uniform(0.01, 0.03)))[0]
        grid = [rng.randint(1, 5) for _ in P["grid"]]
        if len(set(grid)) == 1:
            grid[0] = grid[0] % 5 + 1
        dur = median_s * min(3.0, max(0.56, math.exp(rng.gauss(0, 0.3))))
        if flag == "speeder":
            dur, binary, scale = median_s * rng.uniform(0.1, 0.25), 1, 10
        if flag == "flat":
            grid, binary = [rng.choice((1, 5))] * len(grid), 1
        rows.append({C["id"]: f"R{100000 + 7 * i + rng.randint(0, 6)}", C["status"]: S[1] if flag == "partial" else S[0],
                     C["duration"]: round(dur * (0.45 if flag == "partial" else 1)), C["stratum"]: _STRATA[s][0],
                     C["age"]: _AGES[a], C["sex"]: _SEXES[x], C["region"]: regions[g], **dict(zip(P["grid"], grid)),
                     C["binary"]: binary, C["scale"]: "" if flag == "partial" and rng.random() < 0.5 else scale})
    return {"total": total, "shares": shares, "old": old, "frame": frame, "rows": rows, "regions": regions,
            "flags": flags}


def _population_table(total: float, shares: list[list[float]], regions: tuple[str, ...]) -> list[list[Any]]:
    rows: list[list[Any]] = [["Total population 18+", "All", int(total), round(total * 0.004)]]
    for name, cats, sh in zip(("Age group", "Sex", "Region"), (_AGES, _SEXES, regions), shares):
        for c, v in zip(cats, _counts(int(total), sh)):
            rows.append([name, c, v, round(v * 0.02 + 150)])
    return rows


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.survey_raking import analyse

    prof = profession(occupation)
    year = rng.choice((2024, 2025, 2026))
    cols = dict(rng.choice(_COLUMNS))
    grid_prefix = rng.choice(("q9", "Q9_", "grid"))
    regions = rng.choice(_REGIONS)
    cap = rng.choice((3.0, 3.5))
    P: dict[str, Any] = {
        "files": {"export": f"data/{rng.choice(('vendor_export', 'cati_final', 'fieldwork_delivery'))}_{year}.csv",
                  "frame": "sampling/frame_selection_probabilities.xlsx",
                  "margins": f"census/population_estimates_{year - 1}.xlsx",
                  "archived_margins": f"census/archive/population_estimates_{year - 3}.xlsx"},
        "columns": cols, "grid": [f"{grid_prefix}{c}" for c in "abcdef"], "status_codes": list(rng.choice(_STATUS)),
        "frame_sheet": "Strata", "frame_columns": {"stratum": "stratum", "prob": "selection_probability"},
        "margins": {"sheet": "Table", "variable": "Characteristic", "category": "Category", "population": "Estimate"},
        "rake": [["Age group", cols["age"]], ["Sex", cols["sex"]], ["Region", cols["region"]]],
        "items": {"yes_codes": [1], "no_codes": [2], "scale_min": 0, "scale_max": 10},
        "speeder_share": rng.choice((0.33, 0.4, 0.45)), "tolerance": 1e-6, "cap": cap,
        "old_cap": rng.choice((5.0, 6.0)), "min_neff": 0.0, "hypothesis": 0.0, "year": year, "labels": {},
        "deliverables": {"weights": rng.choice(("final_weights.csv", f"weights_{year}.csv", "raked_weights.csv")),
                         "memo": rng.choice(("weighting_methods_memo.docx", "methods_note.md", "weighting_report.docx"))},
        "weight_columns": list(rng.choice(_WEIGHT_COLUMNS))}
    P["complete_status"] = P["status_codes"][0].lower()
    s = _sample(rng, P, regions)
    data = _data(P, s)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), data)
        try:
            truth = analyse(tmp, P)
            loose = analyse(tmp, dict(P, cap=1e9))
            naive = {k: analyse(tmp, P, (k,)) for k in ("cleaning", "unit_base", "old_margins", "old_cap", "dk_codes")}
        except ValueError as exc:
            raise DegenerateTask(f"the weights cannot be fitted: {exc}") from exc
    if loose["max_weight"] <= cap * 1.15 or abs(naive["old_cap"]["deff"] - truth["deff"]) < 0.01:
        raise DegenerateTask("the revised cap does not bind")
    n_eff, p, moe = truth["n_eff"], truth["prop"], truth["moe"]
    P["min_neff"] = (nice_between(n_eff * 0.8, n_eff * 0.95, 0) if targets["decision"]
                     else nice_between(n_eff * 1.05, n_eff * 1.25, 0))
    inside = [h for h in range(1, 100) if abs(h - p) <= moe - 0.25]
    outside = [h for h in range(1, 100) if moe + 0.25 <= abs(h - p) <= moe + 4]
    if not (inside if targets["premise"] else outside):
        raise DegenerateTask("no whole-percent hypothesis on the targeted side")
    P["hypothesis"] = float(rng.choice(inside if targets["premise"] else outside))
    measure = rng.choice(_MEASURES)
    labels = pick_labels(rng, _LABELS)
    labels["prop"] = labels["prop"].format(m=measure)
    labels["premise"] = labels["premise"].format(x=f"{P['hypothesis']:g}")
    P["labels"], P["measure"] = labels, measure
    ranked = sorted(truth["weights"], key=lambda r: (r[2], r[0]))
    retained = {r[0] for r in ranked}
    P["probe"] = {"low": ranked[0][0], "mid": ranked[len(ranked) // 2][0], "top": ranked[-1][0],
                  "speeder": next(r[cols["id"]] for r, f in zip(s["rows"], s["flags"])
                                  if f == "speeder" and r[cols["id"]] not in retained)}
    traps = [{"kind": "exclusions", "where": "memo", "naive": "cleaning",
              "description": "partials, speeders and straight-liners are excluded before weighting"},
             {"kind": "design_weights", "where": "data", "naive": "unit_base",
              "description": "base weights are 1 / selection probability from the frame (rural oversampled)"},
             {"kind": "superseded_margins", "where": "memo", "naive": "old_margins",
              "description": f"the {year - 1} population estimates replace the archived {year - 3} table"},
             {"kind": "superseded_cap", "where": "memo", "naive": "old_cap",
              "description": f"the revised memo trims at {cap:g}, not the earlier {P['old_cap']:g}"},
             {"kind": "missing_codes", "where": "footnote", "naive": "dk_codes",
              "description": "8/9 and 98/99 are don't know/refused, missing rather than values"}]
    writers, roles = _workspace(rng, P, s, data, prof.title)
    prompt = _prompt(rng, P, prof, writers)
    return Draft(subject=f"Weighting the {year} community survey", instructions=prompt, files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="900-1,300 interviews in 4 strata, rural sampled at 3.0-4.5x; age response propensity "
                               "0.3-1.7; women 1.3-1.5x; partials 5-8 %, speeders 3-5 %, straight-liners 3-5 %; "
                               "DK/refused 3-10 % per item; cap 3.0 or 3.5 (superseded 5.0 or 6.0); archived "
                               "margins up to 3.5 points a category off")


def _data(P: dict[str, Any], s: dict[str, Any]) -> dict[str, Any]:
    F, C = P["files"], P["columns"]
    header = [C["id"], C["status"], C["duration"], C["stratum"], C["age"], C["sex"], C["region"], *P["grid"],
              C["binary"], C["scale"]]
    table_head = ["Characteristic", "Category", "Estimate", "Margin of error"]
    current = [s["shares"][k] for k in ("age", "sex", "region")]
    return {
        F["export"]: lambda p: write_csv(p, header, [[r[h] for h in header] for r in s["rows"]]),
        F["frame"]: lambda p: write_xlsx(p, [("Strata", ["stratum", "description", "frame_addresses",
                                                         "sampled_addresses", "selection_probability"], s["frame"])]),
        F["margins"]: lambda p: write_xlsx(p, [("Table", table_head,
                                                _population_table(s["total"], current, s["regions"]))]),
        F["archived_margins"]: lambda p: write_xlsx(p, [("Table", table_head, _population_table(
            round(s["total"] * 0.97, -2), s["old"], s["regions"]))]),
    }


def _workspace(rng: random.Random, P: dict[str, Any], s: dict[str, Any], data: dict[str, Any],
               title: str) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "stale" if "archive" in rel else "data", write)
    y, C, S = P["year"], P["columns"], P["status_codes"]
    new_d, old_d = f"{y}-0{rng.randint(4, 9)}-{rng.randint(10, 28)}", f"{y - 1}-1{rng.randint(0, 2)}-{rng.randint(10, 28)}"
    pi = person(rng)
    P["pi"] = pi
    grid = f"{P['grid'][0]}-{P['grid'][-1]}"
    add("protocol/data_cleaning_protocol.docx", "policy", lambda p: write_docx(p, "Data-cleaning protocol", [
        "Applies to every interview file before weighting or analysis.",
        f"- Disposition: only complete interviews ({C['status']} = {S[0]}) are analysed; partial interviews "
        f"({S[1]}) are excluded.",
        f"- Speeders: a complete interview shorter than {P['speeder_share']:g} times the median duration of all complete "
        f"interviews ({C['duration']}, seconds) is excluded.",
        f"- Straight-lining: an interview giving the same answer to every item of the grid {grid} is excluded.",
        "- Item non-response (don't know, refused) is not a reason to exclude an interview; it is missing for that "
        "item only.", "- Exclusions are made before the weights are computed."]))
    add(f"protocol/weighting_memo_{new_d}.docx", "policy", lambda p: write_docx(p, "Weighting memo (revised)", [
        f"From: {pi}, Principal Investigator. Date: {new_d}. This memo replaces my memo of {old_d}.",
        f"- Design weights: 1 / selection_probability of the address's stratum in {P['files']['frame']}.",
        f"- Raking: to the {y - 1} population estimates in census/ (age group, sex, region, raked in that order), "
        "targets = population share x number of retained interviews (the weights average 1). Iterate until every "
        f"weighted margin is within a relative tolerance of {P['tolerance']:g} of its target.",
        f"- Trimming: cap the weights at {P['cap']:g} times the mean weight, re-rake, and repeat until no weight exceeds "
        "the cap by more than the tolerance.",
        "- Design effect: Kish, 1 + CV^2 of the final weights = n x sum(w^2) / (sum w)^2; effective n = n / deff.",
        "- Proportions are among valid answers; the 95 % margin of error is 1.96 x sqrt(deff x p(1 - p) / n), n the "
        "number of retained interviews with a valid answer to the item, reported in percentage points.",
        "- Figures in the report are rounded half up to the decimals the request asks for."]))
    add(f"protocol/weighting_memo_{old_d}.pdf", "stale", lambda p: write_pdf(p, "Weighting memo", [
        f"From: {pi}. Date: {old_d}.", f"Rake the design weights to the {y - 3} population estimates (age group, sex, "
        f"region) to a relative tolerance of {P['tolerance']:g}; cap the weights at {P['old_cap']:g} times the mean and "
        "re-rake. Report the Kish design effect and the design-adjusted margin of error."]))
    add("docs/codebook.pdf", "reference", lambda p: write_pdf(p, "Codebook (extract)", [
        f"{C['binary']}: Would you vote for the {P['measure']}? 1 = yes, 2 = no, 8 = don't know, 9 = refused.",
        f"{C['scale']}: Overall, how satisfied are you with local public services? 0 (not at all) to 10 (completely); "
        "98 = don't know, 99 = refused.", f"{grid}: agreement grid, 1 (strongly disagree) to 5 (strongly agree).",
        f"{C['stratum']}: sampling stratum (see the frame file). {C['duration']}: interview length in seconds."]))
    add("grant/award_letter.pdf", "policy", lambda p: write_pdf(p, "Notice of award (extract)", [
        "Special condition 4: survey estimates reported to the funder must rest on an effective sample size (Kish, "
        f"from the final weights) of at least {P['min_neff']:g} completed interviews.",
        "Progress reports are due annually."]))
    add(f"correspondence/{new_d}_from_pi.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{pi}, Principal Investigator", to="research assistants", date=new_d, subject="Weights for the report",
        body=f"The vendor's file is in data/. My guess from the pilot is that about {P['hypothesis']:g} % support the "
        f"{P['measure']}; I'd like to know whether the weighted survey is consistent with that. I've revised the "
        "weighting memo since the proposal.")))
    add(f"meetings/{y}_team_meeting.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="community survey weights", people=[person(rng) for _ in range(3)], date=new_d)))
    add("fieldwork/interviewer_hours.csv", "distractor", lambda p: write_csv(p, ["interviewer", "hours", "completes"], [
        [f"INT{k:02d}", round(rng.uniform(20, 90), 1), rng.randint(20, 120)] for k in range(1, 13)]))
    add("fieldwork/fieldwork_report.docx", "distractor", lambda p: write_docx(p, "Fieldwork report", [
        f"Interviews delivered: {len(s['rows'])}, including partial interviews.",
        f"Median interview length {sorted(r[C['duration']] for r in s['rows'])[len(s['rows']) // 2] / 60:.1f} minutes.",
        f"Work done by the {title} team and the vendor's call centre."]))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], prof: Profession, writers: dict[str, Any]) -> str:
    L, D = P["labels"], P["deliverables"]
    hints = [(L["n"], "whole number"), (L["deff"], "3 decimals"), (L["neff"], "1 decimal"),
             (L["prop"], "percent, 2 decimals"), (L["moe"], "percentage points, 2 decimals"),
             (L["mean"], "2 decimals"), (L["max_w"], "3 decimals"), (L["decision"], "yes or no"),
             (L["premise"], "yes or no")]
    return instructions(
        rng, prof=prof, requester=P["pi"], role="Principal Investigator", org=rng.choice(prof.orgs),
        subject=f"Weights and headline estimates, {P['year']} community survey",
        purpose=rng.choice(("I need final weights and the headline estimates for the report.",
                            "please weight the community survey and give me the two headline numbers.")),
        about="the vendor's interview file, the sampling frame and the population estimates",
        belief=f"I expect about {P['hypothesis']:g} % support for the {P['measure']}; tell me if the data say otherwise.",
        table={"file": D["weights"], "headers": P["weight_columns"],
               "unit": "retained interview (identifier, design weight, final weight averaging 1)"},
        memo_file=D["memo"], memo_labels=hints, extra_deliverables=(),
        policy="the weighting memo and the data-cleaning protocol in protocol/", files=sorted(writers))


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    L, D, W, pr = P["labels"], P["deliverables"], P["weight_columns"], P["probe"]
    memo, book = D["memo"], D["weights"]
    final = {r[0]: r[2] for r in facts["weights"]}
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def num(key: str, fact: str, places: int) -> tuple[str, Any]:
        return f"{L[key]} = {facts[fact]:.{places}f}", fld_num(memo, L[key], facts[fact], places)

    def weight(probe: str) -> tuple[str, Any]:
        rid = pr[probe]
        return (f"{book}: {rid} final weight = {final[rid]:.3f}",
                CellCheck(file=book, match={W[0]: rid}, column=W[2], value=float(final[rid]), tolerance=tol(3)))

    n = facts["n_retained"]
    out = [
        rubric("Applies the cleaning protocol before weighting", 8, [
            (f"{L['n']} = {n}", FieldCheck(file=memo, label=L["n"], number=float(n), tolerance=0.0)),
            (f"{book} has {n} rows", RowCountCheck(file=book, key=W[0], count=n))]),
        rubric("Rakes design weights to the current population estimates", 10,
               [weight("low"), weight("mid"), num("prop", "prop", 2)]),
        rubric("Trims at the revised cap and re-rakes", 8, [weight("top"), num("max_w", "max_weight", 3)]),
        rubric("Reports the Kish design effect and the effective sample size", 8,
               [num("deff", "deff", 3), num("neff", "n_eff", 1)]),
        rubric("Treats don't know and refused as missing in the estimates", 10,
               [num("prop", "prop", 2), num("mean", "mean", 2)]),
        rubric("Adjusts the margin of error for the design effect", 8, [num("moe", "moe", 2), num("deff", "deff", 3)]),
        rubric("Answers the funder's effective-n condition", 6, [
            num("neff", "n_eff", 1),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Tests the PI's expectation against the margin of error", 6, [
            num("prop", "prop", 2), num("moe", "moe", 2),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Writes a methods note the PI can put in the report", 6, [
            ("States the exclusions, the margins used and the trimming cap, and why the earlier memo and table are "
             "superseded", llm("explanation")),
            ("Explains that don't know and refused are item-missing and how the design effect widens the interval",
             llm("writing"))]))
    return out


SURVEY_RAKING = Workflow(
    key="survey_raking", family="survey_weighting",
    method="raking (iterative proportional fitting) with trimming; Kish design effect and effective n",
    professions=("social_science_research_assistants",), solver="survey_raking",
    shortcuts=("cleaning", "unit_base", "old_margins", "old_cap", "dk_codes"), draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated address-based community survey (stated distributions)")
