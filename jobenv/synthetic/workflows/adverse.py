"""Adverse-impact analysis of a pre-employment screening test under the four-fifths rule (HR specialists).

The applicant flow is generated: four self-identified race/ethnicity groups (the largest 130-220 test-takers, the
others 45-110), a highest pass rate of 0.52-0.72 in a group that is not the largest, the lowest group's impact ratio
drawn from 0.55-0.74 (adverse impact) or 0.84-0.95 (none) and the other groups between; 8-18 test-takers who did not
disclose their ethnicity pass at a rate 0.12-0.22 above the highest group. Each group has 3-10 applicants who
withdrew before the test (6-14 in the lowest group, 1-3 undisclosed); 6-12 failing candidates of the lowest group
and 2-4 others applied to a second or third requisition (one extra row each, the test result carried over); a few
test-takers withdrew after sitting the test. Scores are uniform above (pass) or below (fail) the cut score.
The analysis follows the folder's current procedure (UGESP: ratio against the highest rate); the archived one
compared each group with the largest group and counted every application.

Failure behaviour: ``draw`` raises DegenerateTask when a drawn flow leaves the graded facts ambiguous (ties,
a ratio near 0.80, fewer than three planted items that change a graded fact).
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
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels

__all__ = ["ADVERSE_IMPACT"]

_GROUPS = ("White", "Black", "Hispanic", "Asian")
_LONG = {"White": "White", "Black": "Black or African American", "Hispanic": "Hispanic or Latino", "Asian": "Asian"}
_LABELS = {
    "lowest_ratio": ("Lowest impact ratio", "Impact ratio of the lowest group", "Lowest adverse impact ratio"),
    "lowest": ("Group with the lowest impact ratio", "Lowest-ratio group", "Group most affected"),
    "highest": ("Highest selection rate group", "Group with the highest pass rate", "Comparison group (highest rate)"),
    "decision": ("Adverse impact indicated (four-fifths rule)", "Four-fifths rule breached",
                 "Adverse impact under the 4/5ths rule"),
    "fisher_p": ("Fisher exact p (two-sided)", "Fisher's exact test p-value, two-sided", "Two-sided Fisher p"),
    "z": ("Two-proportion z (lowest minus highest)", "Z statistic, lowest vs highest group",
          "Pooled two-proportion z, lowest minus highest"),
    "shortfall": ("Shortfall of passes (lowest group)", "Pass shortfall for the lowest group",
                  "Shortfall in selections, lowest group"),
    "undisclosed": ("Test-takers with undisclosed ethnicity", "Candidates tested without disclosed ethnicity",
                    "Undisclosed ethnicity, tested"),
    "premise": ("{g} had the highest pass rate", "{g} candidates passed at the highest rate",
                "Highest pass rate belongs to {g}"),
}
_FLAGS = (("below 4/5", "meets 4/5"), ("Adverse impact", "No adverse impact"), ("Fails 80% rule", "Passes 80% rule"))
_SHEET = {"group": ("Group", "Ethnic group", "Race/ethnicity"), "tested": ("Tested", "Candidates tested", "Sat the test"),
          "passed": ("Passed", "Candidates passed", "Passed the test"), "rate": ("Selection rate", "Pass rate"),
          "ratio": ("Impact ratio", "Adverse impact ratio"), "four_fifths": ("Four-fifths result", "4/5ths rule"),
          "shortfall": ("Shortfall", "Shortfall vs highest rate")}
_DIRS = {"ats": ("ats_exports", "recruiting/ats", "talent_acquisition/exports"),
         "policy": ("policies", "hr_policies/selection", "people_policies"),
         "mail": ("correspondence", "email", "inbox"), "vendor": ("vendor", "assessment_vendor", "test_provider")}
_UNDISCLOSED = ("Not disclosed", "Declined to self-identify", "Prefer not to say")
_COLUMNS = {"requisition": "requisition_id", "application": "application_id", "candidate": "candidate_id",
            "applied": "applied_date", "sex": "sex", "ethnicity": "ethnicity", "test_date": "test_date",
            "taken": "test_taken", "score": "test_score", "passed": "passed", "hired": "hired",
            "withdrew": "withdrew_dt"}
_JOBS = ("Customer Service Associate", "Patient Access Representative", "Operations Clerk", "Warehouse Associate",
         "Administrative Assistant", "Contact Centre Agent", "Claims Processor")


def _counts(rng: random.Random, decision: bool) -> dict[str, Any]:
    """Tested and passed per group with the planted ordering (highest group not the largest)."""
    sizes = {g: rng.randint(45, 110) for g in _GROUPS}
    sizes["White"] = rng.randint(130, 220)
    top = rng.choice(_GROUPS[1:])
    low = rng.choice([g for g in _GROUPS if g != top])
    r_top = rng.uniform(0.52, 0.72)
    low_ratio = rng.uniform(0.55, 0.74) if decision else rng.uniform(0.84, 0.95)
    ratios = {g: rng.uniform(low_ratio + 0.05, 0.97) for g in _GROUPS}
    ratios[top], ratios[low] = 1.0, low_ratio
    passed = {g: round(ratios[g] * r_top * sizes[g]) for g in _GROUPS}
    rates = {g: passed[g] / sizes[g] for g in _GROUPS}
    order = sorted(rates.values())
    if max(rates, key=lambda g: rates[g]) != top or min(rates, key=lambda g: rates[g]) != low:
        raise DegenerateTask("the drawn rates lost their planted order")
    if order[-1] - order[-2] < 0.01 or order[1] - order[0] < 0.01 or abs(order[0] / order[-1] - 0.8) < 0.02:
        raise DegenerateTask("a tie or a ratio at the four-fifths boundary")
    n_u = rng.randint(8, 18)
    return {"sizes": sizes, "passed": passed, "top": top, "low": low, "n_u": n_u,
            "passed_u": min(n_u - 1, round(min(0.95, r_top + rng.uniform(0.12, 0.22)) * n_u))}


def _flow(rng: random.Random, c: dict[str, Any], undisclosed: str, reqs: list[str], start: dt.date,
          cut: int) -> list[list[Any]]:
    """Applicant-flow rows in the ATS export's column order (see ``_COLUMNS``)."""
    people: list[dict[str, Any]] = []
    groups = list(_GROUPS) + [undisclosed]
    for g in groups:
        n = c["n_u"] if g == undisclosed else c["sizes"][g]
        k = c["passed_u"] if g == undisclosed else c["passed"][g]
        flags = [True] * k + [False] * (n - k)
        rng.shuffle(flags)
        people += [{"group": g, "taken": True, "passed": f} for f in flags]
        w = rng.randint(1, 3) if g == undisclosed else rng.randint(6, 14) if g == c["low"] else rng.randint(3, 10)
        people += [{"group": g, "taken": False, "passed": False} for _ in range(w)]
    rng.shuffle(people)
    ids = rng.sample(range(100_000, 999_999), len(people))
    rows: list[list[Any]] = []
    app = rng.randint(40_000, 90_000)
    for p, cid in zip(people, ids, strict=True):
        applied = start + dt.timedelta(days=rng.randint(0, 80))
        test = applied + dt.timedelta(days=rng.randint(3, 10))
        p.update(cid=f"C{cid}", applied=applied, test=test, req=rng.choice(reqs),
                 sex=rng.choice(("F", "M", "F", "M", "")))
        if p["taken"]:
            p["score"] = rng.randint(cut, 100) if p["passed"] else rng.randint(30, cut - 1)
            late = rng.random() < 0.03
            p["withdrew"] = iso(test + dt.timedelta(days=rng.randint(2, 12))) if late else ""
        else:
            p["score"], p["withdrew"] = "", iso(applied + dt.timedelta(days=rng.randint(1, (test - applied).days - 1)))
    fails = [p for p in people if p["taken"] and not p["passed"] and p["group"] == c["low"]]
    rest = [p for p in people if p["taken"] and p["group"] != c["low"]]
    again = rng.sample(fails, min(len(fails), rng.randint(6, 12))) + rng.sample(rest, rng.randint(2, 4))
    extra = [dict(p, req=rng.choice([r for r in reqs if r != p["req"]]),
                  applied=p["applied"] + dt.timedelta(days=rng.randint(0, 2))) for p in again]
    for p in sorted(people + extra, key=lambda p: (p["applied"], p["cid"], p["req"])):
        app += 1
        hired = "Y" if p["passed"] and not p["withdrew"] and rng.random() < 0.25 else "N"
        rows.append([p["req"], f"A{app}", p["cid"], iso(p["applied"]), p["sex"], p["group"], iso(p["test"]),
                     "Y" if p["taken"] else "N", p["score"], "Y" if p["passed"] else "N", hired, p["withdrew"]])
    return rows


# ---- the independent computation: csv, math and scipy ----------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact recomputed from the export with the csv module: one test result per candidate_id among
    rows with a test taken, then rates, ratios, scipy's Fisher exact test and the pooled z."""
    from scipy.stats import fisher_exact

    C = P["columns"]
    with (Path(folder) / P["files"]["flow"]).open(newline="", encoding="utf-8") as f:
        flow = list(csv.DictReader(f))
    person: dict[str, tuple[str, bool]] = {}
    for r in flow:
        if r[C["taken"]] == "Y":
            person.setdefault(r[C["candidate"]], (r[C["ethnicity"]], r[C["passed"]] == "Y"))
    tally = {g: [0, 0] for g in P["groups"]}
    hidden = 0
    for g, ok in person.values():
        if g in tally:
            tally[g][0] += 1
            tally[g][1] += ok
        elif g == P["undisclosed"]:
            hidden += 1
    rate = {g: k / n for g, (n, k) in tally.items()}
    top = max(rate, key=lambda g: (rate[g], g))
    ratio = {g: rate[g] / rate[top] for g in rate}
    low = min((g for g in rate if g != top), key=lambda g: (ratio[g], g))
    (n1, k1), (n2, k2) = tally[low], tally[top]
    p = float(fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="two-sided")[1])
    pool = (k1 + k2) / (n1 + n2)
    z = (k1 / n1 - k2 / n2) / math.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
    L = P["labels"]
    groups = [{"group": g, "tested": n, "passed": k, "rate": rnd(rate[g], 4), "ratio": rnd(ratio[g], 4),
               "shortfall": rnd(rate[top] * n - k, 1),
               "four_fifths": L["below"] if ratio[g] < P["threshold"] else L["meets"]} for g, (n, k) in tally.items()]
    return {"groups": groups, "highest": top, "lowest": low, "lowest_ratio": rnd(ratio[low], 3),
            "fisher_p": rnd(p, 4), "z": rnd(z, 2), "shortfall": rnd(rate[top] * n1 - k1, 1),
            "undisclosed_tested": hidden, "decision": min(ratio.values()) < P["threshold"],
            "premise": top == P["premise_group"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _procedure(version: int, P: dict[str, Any], *, current: bool) -> list[str]:
    if current:
        rules = [
            "Scope: every selection procedure is monitored stage by stage; a stage's analysis covers the candidates "
            "who reached that stage in the review window.",
            "Population at the test stage: the candidates who sat the test (test_taken = Y). A candidate who withdrew "
            "before the test (test_taken = N, withdrew_dt before the test date) is not an applicant for this stage and "
            "is excluded; a candidate who withdrew after sitting the test stays in with the result obtained.",
            "Counting: each person is counted once per stage, by candidate_id, however many requisitions they applied "
            "to (the test is taken once and its result is carried to every application).",
            "Groups: the race/ethnicity categories of voluntary self-identification. Candidates who did not disclose "
            f"(recorded as '{P['undisclosed']}') are left out of the rates and ratios and reported as a count.",
            "Selection rate = candidates who passed / candidates who sat the test. Impact ratio = the group's rate / "
            "the highest group rate (the group with the highest rate is the comparison group, UGESP 29 CFR 1607.4D). "
            f"An impact ratio below {P['threshold']:.2f} indicates adverse impact (the four-fifths rule). Rates and "
            "ratios are reported as decimals (not percentages), ratios to three decimal places.",
            "Statistical significance: Fisher's exact test, two-sided, on the 2x2 table (passed, failed) of the group "
            "with the lowest impact ratio against the highest-rate group, p to four decimal places, significant below "
            f"{P['alpha']}; also report the pooled two-proportion z (lowest group's rate minus the highest), two "
            "decimals.",
            "Shortfall = highest rate x the lowest group's test-takers - the lowest group's passes, one decimal place.",
            "Rounding: reported figures are rounded half up at the stated number of places, from unrounded "
            "intermediate values.",
        ]
    else:
        rules = [
            "Population: every applicant on the requisition counts at every stage, withdrawals included.",
            "Counting: each application is one applicant.",
            "Impact ratio = the group's rate / the rate of the largest group (the majority group); below 0.80 "
            "indicates adverse impact.",
        ]
    return [f"Adverse impact monitoring procedure, version {version}"] + [f"- {r}" for r in rules]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.adverse import analyse

    prof = profession(occupation)
    c = _counts(rng, targets["decision"])
    year = rng.choice((2024, 2025))
    start = dt.date(year, rng.choice((1, 4, 7)), 1)
    end = start + dt.timedelta(days=90)
    tag = f"{year}q{(start.month - 1) // 3 + 1}"
    dirs = pick_labels(rng, _DIRS)
    undisclosed = rng.choice(_UNDISCLOSED)
    reqs = [f"REQ-{year % 100}-{rng.randint(1000, 9999)}" for _ in range(rng.randint(4, 7))]
    if len(set(reqs)) < len(reqs):
        raise DegenerateTask("two requisitions drew the same number")
    cut = rng.choice((60, 65, 70, 72, 75))
    flags = rng.choice(_FLAGS)
    labels = pick_labels(rng, _LABELS)
    labels.update(below=flags[0], meets=flags[1])
    P: dict[str, Any] = {
        "files": {"flow": f"{dirs['ats']}/applicant_flow_{tag}.csv"}, "dirs": dirs, "columns": dict(_COLUMNS),
        "groups": list(_GROUPS), "undisclosed": undisclosed, "threshold": 0.8, "alpha": 0.05, "premise_group": "",
        "labels": labels, "sheet_columns": pick_labels(rng, _SHEET),
        "deliverables": {"workbook": rng.choice((f"adverse_impact_{tag}.xlsx", "screening_test_impact.xlsx")),
                         "memo": rng.choice((f"adverse_impact_memo_{tag}.docx", "works_council_memo.docx"))}}
    rows = _flow(rng, c, undisclosed, reqs, start, cut)
    header = list(_COLUMNS.values())
    shortcuts = ("withdrawn", "duplicates", "undisclosed", "majority_ref")
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_csv(Path(tmp) / P["files"]["flow"], header, rows)
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in shortcuts}
    premise = truth["highest"] if targets["premise"] else rng.choice([g for g in _GROUPS if g != truth["highest"]])
    P["premise_group"] = premise
    labels["premise"] = labels["premise"].format(g=premise)

    def graded(f: Facts) -> Any:
        return (f["lowest_ratio"], f["fisher_p"], f["shortfall"], f["undisclosed_tested"], f["highest"],
                [(g["group"], g["rate"], g["ratio"]) for g in f["groups"]])

    where = {"withdrawn": ("data", "applicants who withdrew before the test are in the export with test_taken = N"),
             "duplicates": ("data", "candidates who applied to several requisitions appear once per application"),
             "undisclosed": ("memo", "candidates who did not disclose ethnicity are reported, not compared"),
             "majority_ref": ("memo", "the archived procedure compared each group with the largest group")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 3:
        raise DegenerateTask("fewer than three planted items change a graded answer")
    boss = person(rng)
    requester = rng.choice(prof.requesters)
    writers, roles = _workspace(rng, P, rows, header, reqs, start, end, tag, boss, cut)
    L = labels
    memo_lines = [(L["lowest_ratio"], "decimal, 3 places"), (L["lowest"], "group name"),
                  (L["highest"], "group name"), (L["decision"], "yes or no"), (L["fisher_p"], "4 decimal places"),
                  (L["z"], "2 decimal places, negative when the lowest group's rate is lower"),
                  (L["shortfall"], "number of passes, 1 decimal place"), (L["undisclosed"], "whole number"),
                  (L["premise"], "yes or no")]
    W = P["sheet_columns"]
    D = P["dirs"]
    period = f"{iso(start)} to {iso(end)}"
    ask = rng.choice((
        f"The works council has asked whether the new screening test shows adverse impact. Please run the adverse "
        f"impact analysis at the test stage for candidates tested {period}.",
        f"Before I answer the works council: does the online screening test (cut score {cut}) show adverse impact? "
        f"Please analyse the test stage for {period}.",
        f"I need the adverse impact review of the screening test for {period}; the works council asked for figures."))
    belief = rng.choice((f"Talent acquisition tells me {premise} candidates had the highest pass rate - check that "
                         "against the record.", f"TA's summary says {premise} applicants passed at the highest rate; "
                         "please confirm or correct it.", f"The recruiting lead believes the {premise} group had the "
                         "highest pass rate. Is that right?"))
    steps = [
        rng.choice(("Build the test-stage population from the ATS applicant-flow export as the current adverse impact "
                    f"procedure in {D['policy']}/ says (withdrawals, people on several requisitions, self-ID).",
                    f"Work out who counts at the test stage under our procedure ({D['policy']}/): who withdrew, who "
                    "applied more than once, who did not self-identify.")),
        "Compute the selection (pass) rate per race/ethnicity group and each group's impact ratio against the "
        "highest-rate group, and apply the four-fifths rule.",
        "Test the lowest-ratio group against the highest-rate group (Fisher's exact test, two-sided, and the pooled "
        "two-proportion z) and give the shortfall in passes.",
        rng.choice(("Tell me in the memo whether adverse impact is indicated and whether TA's statement holds.",
                    "Answer the works council's question and TA's claim in the memo.")),
    ]
    deliverables = [
        f"{P['deliverables']['workbook']}: a sheet Candidates with one row per counted candidate (candidate_id, "
        "ethnicity, passed Y/N) and a sheet Rates with one row per group and the columns "
        f"{W['group']}, {W['tested']}, {W['passed']}, {W['rate']}, {W['ratio']}, {W['four_fifths']} "
        f"('{L['below']}' or '{L['meets']}'), {W['shortfall']}; "
        + rng.choice(("the counts as COUNTIFS over Candidates and the rates and ratios as live formulas.",
                      "counts, rates and ratios as formulas (COUNTIFS on Candidates), not typed values.")),
        f"{P['deliverables']['memo']}: " + rng.choice((
            "a memo to me opening with these lines (label: value), then the method and your reading of the result:",
            "a memo for the works council pack starting with these labelled lines, then a short explanation:"))
        + "\n" + "\n".join(f"   {lbl}: <{hint}>" for lbl, hint in memo_lines)]
    prompt = "\n\n".join([
        f"From: {boss}, {requester}\nSubject: Screening test - adverse impact review {tag.upper()}\n\n"
        + ask + " " + belief,
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        rng.choice(("Deliverables in the output folder:", "Please leave in the output folder:")) + "\n"
        + "\n".join(f"{k}. {t}" for k, t in enumerate(deliverables, 1)),
        rng.choice(("Thanks.", "Flag anything in the export that looks wrong.")) + "\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers)),
    ]) + "\n"
    return Draft(subject=f"Adverse impact of the screening test, {tag}", instructions=prompt, files=writers,
                 roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="4 groups, largest 130-220 test-takers, others 45-110; highest pass rate 0.52-0.72 "
                               "(not the largest group); lowest impact ratio 0.55-0.74 or 0.84-0.95; 8-18 undisclosed "
                               "passing 0.12-0.22 above the highest; 3-14 withdrawals before the test per group; "
                               "8-16 candidates on a second requisition; ~3% withdraw after the test")


def _workspace(rng: random.Random, P: dict[str, Any], rows: list[list[Any]], header: list[str], reqs: list[str],
               start: dt.date, end: dt.date, tag: str, boss: str, cut: int) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    D = P["dirs"]
    add(P["files"]["flow"], "data", lambda p: write_csv(p, header, rows))
    jobs = rng.sample(_JOBS, len(reqs))
    add(f"{D['ats']}/requisitions_{tag}.xlsx", "data", lambda p: write_xlsx(p, [(
        "Requisitions", ["requisition_id", "title", "openings", "opened", "status"],
        [[r, j, rng.randint(2, 12), iso(start - dt.timedelta(days=rng.randint(5, 40))), rng.choice(("Open", "Filled"))]
         for r, j in zip(reqs, jobs, strict=True)])]))
    add(f"{D['ats']}/export_readme.txt", "reference", lambda p: write_text(p, (
        "ATS applicant-flow export - field notes\n"
        "application_id: one per application (a candidate applying to two requisitions has two)\n"
        "candidate_id: one per person across all requisitions\n"
        "ethnicity: voluntary self-identification at application\n"
        "test_taken: Y when the candidate sat the online screening test; N when the candidate withdrew first\n"
        f"passed: Y when test_score >= the cut score ({cut}); N otherwise, and N when the test was not taken\n"
        "withdrew_dt: date the candidate withdrew, blank if still active\n")))
    version = rng.randint(3, 6)
    add(f"{D['policy']}/adverse_impact_procedure_v{version}.docx", "policy", lambda p: write_docx(
        p, f"Adverse impact monitoring procedure v{version}", _procedure(version, P, current=True)
        + [f"Version {version} replaces all earlier versions from {iso(start - dt.timedelta(days=300))}."]))
    add(f"{D['policy']}/archive/adverse_impact_procedure_v{version - 1}.pdf", "stale", lambda p: write_pdf(
        p, f"Adverse impact monitoring procedure v{version - 1} (superseded)",
        _procedure(version - 1, P, current=False)))
    add(f"{D['policy']}/eeo_self_identification_categories.txt", "reference", lambda p: write_text(p, (
        "Self-identification categories used on the application form (ATS code = form wording)\n"
        + "\n".join(f"{g} = {_LONG[g]}" for g in P["groups"])
        + f"\n{P['undisclosed']} (the candidate chose not to answer)\n")))
    M = D["mail"]
    add(f"{M}/{iso(end + dt.timedelta(days=3))}_works_council_request.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}, Works Council", to=boss, date=iso(end + dt.timedelta(days=3)),
                      subject="Screening test - request for figures",
                      body="The council asks for the pass rates of the new online screening test by ethnic group and "
                           "whether the test has an adverse impact on any group, with the statistical test you use.")))
    add(f"{M}/{iso(end + dt.timedelta(days=5))}_ta_summary.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}, Talent Acquisition", to=boss, date=iso(end + dt.timedelta(days=5)),
                      subject="Re: screening test numbers",
                      body=f"Quick read from the dashboard: {P['premise_group']} candidates had the highest pass rate. "
                           "The dashboard counts applications and includes everyone invited to the test.")))
    add(f"{D['vendor']}/technical_manual_excerpt.pdf", "distractor", lambda p: write_pdf(
        p, "Screening test technical manual (excerpt)", [
            "Norm sample: 4,812 job incumbents in customer-facing roles.",
            f"Recommended cut score band: {cut - 5} to {cut + 5}. Internal consistency 0.86.",
            "Subgroup differences in the norm sample are reported in appendix C (not included)."]))
    add(f"{D['vendor']}/{iso(start - dt.timedelta(days=20))}_vendor_note.txt", "distractor", lambda p: write_text(
        p, email_text(sender="Client Services, assessment vendor", to=boss, date=iso(start - dt.timedelta(days=20)),
                      subject="Go-live", body="Your screening test is live; results are pushed to the ATS nightly.")))
    add(f"meetings/{iso(end - dt.timedelta(days=10))}_hr_team.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="screening test review", people=[person(rng) for _ in range(3)],
                         date=iso(end - dt.timedelta(days=10)))))
    add(f"reports/headcount_{tag}.csv", "distractor", lambda p: write_csv(
        p, ["department", "headcount", "open_roles"],
        [[d, rng.randint(20, 300), rng.randint(0, 15)] for d in ("Operations", "Customer Care", "Finance", "IT")]))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck

    D, L, W = P["deliverables"], P["labels"], P["sheet_columns"]
    book, memo = D["workbook"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    by = {g["group"]: g for g in facts["groups"]}
    names = list(P["groups"])

    def cell(group: str, key: str, decimals: int) -> tuple[str, Any]:
        v = by[group][key]
        return (f"{book} Rates: {group} {W[key]} = {v:.{decimals}f}",
                CellCheck(file=book, sheet="Rates", match={W["group"]: group}, column=W[key], value=float(v),
                          tolerance=tol(decimals)))

    low = facts["lowest"]
    out = [
        rubric("Computes the pass rate of each group at the test stage", 10,
               [cell(g, "rate", 3) for g in names] + [cell(low, "tested", 0)]),
        rubric("Computes impact ratios against the highest-rate group", 10,
               [cell(g, "ratio", 3) for g in names if g != facts["highest"]]
               + [(f"{L['lowest_ratio']} = {facts['lowest_ratio']:.3f}", fld_num(memo, L["lowest_ratio"],
                                                                                  facts["lowest_ratio"], 3))]),
        rubric("Applies the four-fifths rule", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            (f"{L['lowest']}: {low}", fld(memo, L["lowest"], low, names)),
            (f"{book} Rates: {low} {W['four_fifths']} = {by[low]['four_fifths']}",
             CellCheck(file=book, sheet="Rates", match={W["group"]: low}, column=W["four_fifths"],
                       value=by[low]["four_fifths"]))]),
        rubric("Tests the difference for statistical significance", 8, [
            (f"{L['fisher_p']} = {facts['fisher_p']:.4f}", fld_num(memo, L["fisher_p"], facts["fisher_p"], 4)),
            (f"{L['z']} = {facts['z']:.2f}", fld_num(memo, L["z"], facts["z"], 2))]),
        rubric("States the shortfall in passes for the lowest group", 6, [
            (f"{L['shortfall']} = {facts['shortfall']:.1f}", fld_num(memo, L["shortfall"], facts["shortfall"], 1))]),
        rubric("Reports undisclosed candidates without comparing them", 6, [
            (f"{L['undisclosed']} = {facts['undisclosed_tested']}", fld_num(memo, L["undisclosed"],
                                                                             facts["undisclosed_tested"], 0))]),
        rubric("Checks Talent Acquisition's statement against the record", 6, [
            (f"{L['highest']}: {facts['highest']}", fld(memo, L["highest"], facts["highest"], names)),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Explains the population and the method", 6, [
            ("Says who was excluded (withdrawals before the test, undisclosed ethnicity) and that people on several "
             "requisitions count once", llm("explanation")),
            ("Names the comparison group as the highest-rate group and not the largest group", llm("explanation")),
            ("States the test used and its sidedness, and reads the p-value next to the four-fifths result",
             llm("reasoning"))]))
    return out


ADVERSE_IMPACT = Workflow(
    key="adverse_impact", family="adverse_impact", method="four-fifths rule (UGESP) with Fisher's exact test",
    professions=("human_resources_specialists",), solver="adverse",
    shortcuts=("withdrawn", "duplicates", "undisclosed", "majority_ref"), draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated applicant flow at a screening-test stage (stated distributions)")
