"""Pre/post evaluation of a course with item analysis (training and development specialists).

The cohort is generated: 60-110 learners sit a 20-item, four-option test before and after the course; ability
before is normal(0, 1) and after it rises by 1.0-1.6 (a course that works) or 0.15-0.45 (one that barely does) plus
normal(0, 0.3) noise; items follow a three-parameter logistic model (difficulty uniform -1.2 to 1.8, discrimination
0.7-1.8, guessing 0.25) with one flawed item (discrimination -0.4 to 0.1). 4-9 learners took only the pre-test
(weaker, ability -0.5) and 3-7 only the post-test. Item 17's published key was wrong and was revised; 60 % of the
wrong answers to it pick the old key's option.

Failure behaviour: ``draw`` raises DegenerateTask when a drawn cohort leaves a graded fact ambiguous (gain near
the standard, tied hardest or worst items, a planted item that changes nothing graded).
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

__all__ = ["COURSE_EVALUATION"]

_ITEMS = tuple(f"Q{k:02d}" for k in range(1, 21))
_REVISED = "Q17"
_LABELS = {
    "n_paired": ("Matched learners", "Learners with both tests", "Paired learners (n)"),
    "mean_gain": ("Mean gain (percentage points)", "Mean pre-to-post gain", "Average score gain (points)"),
    "t": ("Paired t", "t statistic (paired)", "Paired-samples t"),
    "p": ("p-value (two-sided)", "Two-sided p", "Paired t-test p-value"),
    "dz": ("Cohen's d_z", "Effect size d_z", "Standardised effect (d_z)"),
    "hake": ("Normalised gain (Hake g)", "Hake's g", "Class normalised gain"),
    "kr20": ("KR-20 (post-test)", "Post-test reliability KR-20", "KR-20 reliability"),
    "worst": ("Weakest item (lowest point-biserial)", "Item to revise first", "Lowest point-biserial item"),
    "decision": ("Meets the programme standard", "Course retained under the review standard",
                 "Programme standard met"),
    "premise": ("{q} was the hardest post-test item", "{q} had the lowest post-test difficulty index",
                "Hardest item on the post-test was {q}"),
}
_DIRS = {"lms": ("lms_exports", "lms/reports", "learning_platform/exports"),
         "assess": ("assessment", "test_bank", "exam_admin"),
         "policy": ("standards", "programme_review", "l_and_d_policies"),
         "mail": ("correspondence", "email", "inbox")}
_COURSES = ("Medication Safety Essentials", "Data Protection for Managers", "Lean Fundamentals",
            "Safeguarding Level 2", "Effective Feedback Conversations")


def _p3(theta: float, a: float, b: float) -> float:
    return 0.25 + 0.75 / (1 + math.exp(-a * (theta - b)))


def _cohort(rng: random.Random, works: bool) -> dict[str, Any]:
    key = {q: rng.choice("ABCD") for q in _ITEMS}
    old = rng.choice([x for x in "ABCD" if x != key[_REVISED]])
    a = {q: rng.uniform(0.7, 1.8) for q in _ITEMS}
    b = {q: rng.uniform(-1.2, 1.8) for q in _ITEMS}
    flawed = rng.choice([q for q in _ITEMS if q != _REVISED])
    a[flawed] = rng.uniform(-0.4, 0.1)
    shift = rng.uniform(1.0, 1.6) if works else rng.uniform(0.15, 0.45)

    def answers(theta: float) -> list[str]:
        out = []
        for q in _ITEMS:
            if rng.random() < _p3(theta, a[q], b[q]):
                out.append(key[q])
            elif q == _REVISED and rng.random() < 0.6:
                out.append(old)
            else:
                out.append(rng.choice([x for x in "ABCD" if x != key[q] and (q != _REVISED or x != old)]))
        return out

    n = rng.randint(60, 110)
    ids = [f"L{x}" for x in rng.sample(range(10_000, 99_999), n + 20)]
    rows: list[tuple[str, str, list[str]]] = []
    for lid in ids[:n]:
        theta = rng.gauss(0, 1)
        rows.append((lid, "pre", answers(theta)))
        rows.append((lid, "post", answers(theta + shift + rng.gauss(0, 0.3))))
    extra = ids[n:]
    for lid in extra[:rng.randint(4, 9)]:
        rows.append((lid, "pre", answers(rng.gauss(-0.5, 1))))
    for lid in extra[10:10 + rng.randint(3, 7)]:
        rows.append((lid, "post", answers(rng.gauss(shift, 1))))
    rng.shuffle(rows)
    return {"key": key, "old": old, "rows": rows, "flawed": flawed}


# ---- the independent computation: csv, numpy and scipy ----------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact recomputed with csv, numpy and scipy's ttest_rel from the export and the keys."""
    import numpy as np
    from scipy.stats import ttest_rel

    folder, F = Path(folder), P["files"]

    def table(rel: str) -> list[dict[str, str]]:
        with (folder / rel).open(newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    key = {r["item"]: r["key"] for r in table(F["key"])}
    key.update({r["item"]: r["revised_key"] for r in table(F["revision"])})
    items = P["items"]
    by: dict[str, dict[str, np.ndarray]] = {"pre": {}, "post": {}}
    for r in table(F["responses"]):
        by[r["phase"]][r["learner_id"]] = np.array([r[q] == key[q] for q in items], dtype=float)
    ids = sorted(set(by["pre"]) & set(by["post"]))
    pre = np.array([by["pre"][x].mean() * 100 for x in ids])
    post = np.array([by["post"][x].mean() * 100 for x in ids])
    res = ttest_rel(post, pre)
    diff = post - pre
    m = np.array([by["post"][x] for x in ids])
    totals = m.sum(axis=1)
    pv = m.mean(axis=0)
    kr = len(items) / (len(items) - 1) * (1 - float((pv * (1 - pv)).sum()) / float(totals.var()))
    rpb = [float(np.corrcoef(m[:, j], totals)[0, 1]) if m[:, j].std() else 0.0 for j in range(len(items))]
    stats = [{"item": q, "key": key[q], "p": rnd(float(pv[j]), 4), "rpb": rnd(rpb[j], 4)} for j, q in enumerate(items)]
    g = (post.mean() - pre.mean()) / (100 - pre.mean())
    hardest = min(stats, key=lambda s: (s["p"], s["item"]))["item"]
    return {"n_paired": len(ids), "mean_gain": rnd(float(diff.mean()), 2), "t": rnd(float(res.statistic), 2),
            "p": rnd(float(res.pvalue), 4), "dz": rnd(float(diff.mean() / diff.std(ddof=1)), 2),
            "hake": rnd(float(g), 3), "kr20": rnd(kr, 3), "items": stats,
            "worst": min(stats, key=lambda s: (s["rpb"], s["item"]))["item"], "hardest": hardest,
            "decision": bool(g >= P["min_gain"] and res.pvalue < P["alpha"]), "premise": hardest == P["premise_item"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _standard(version: int, P: dict[str, Any], *, current: bool) -> list[str]:
    if current:
        rules = [
            "Population: only matched learners (a pre-test and a post-test under the same learner_id) enter any "
            "statistic; learners with one test are reported as a count and excluded.",
            "Scoring: percent correct (0-100) under the answer key in force, i.e. the published key as amended by "
            "every key revision notice.",
            "Change: the paired t-test on post minus pre (two-sided), Cohen's d_z = mean difference / standard "
            "deviation of the differences (n - 1), and Hake's normalised gain g = (mean post - mean pre) / "
            "(100 - mean pre) from the class means.",
            f"Standard: a course is retained when g >= {P['min_gain']:.2f} and the paired t-test is significant at "
            f"{P['alpha']} (two-sided).",
            "Item analysis on the post-test of matched learners: difficulty p = proportion correct; point-biserial = "
            "correlation of the item (0/1) with the total score (item included); KR-20 = k/(k-1) x (1 - sum of pq / "
            "population variance of totals).",
            "Reporting: gain, t and d_z to 2 decimals, p to 4, g and KR-20 to 3; rounded half up from unrounded "
            "values.",
        ]
    else:
        rules = ["Population: every test submitted counts; compare the mean of all pre-tests with all post-tests.",
                 "Standard: a course is retained when the mean score rises by 10 percentage points or more."]
    return [f"Programme evaluation standard, version {version}"] + [f"- {r}" for r in rules]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.coursegain import analyse

    prof = profession(occupation)
    c = _cohort(rng, targets["decision"])
    course = rng.choice(_COURSES)
    code = "".join(w[0] for w in course.split() if w[0].isupper()) + str(rng.randint(100, 400))
    year = rng.choice((2024, 2025))
    ran = dt.date(year, rng.randint(1, 10), rng.randint(1, 28))
    dirs = pick_labels(rng, _DIRS)
    labels = pick_labels(rng, _LABELS)
    P: dict[str, Any] = {
        "files": {"responses": f"{dirs['lms']}/{code}_pre_post_responses.csv",
                  "key": f"{dirs['assess']}/{code}_answer_key.csv",
                  "revision": f"{dirs['assess']}/{code}_key_revision_{iso(ran)}.csv"},
        "dirs": dirs, "items": list(_ITEMS), "min_gain": 0.3, "alpha": 0.05, "premise_item": "", "labels": labels,
        "deliverables": {"workbook": rng.choice((f"{code}_item_analysis.xlsx", "item_statistics.xlsx")),
                         "memo": rng.choice((f"{code}_evaluation_report.docx", "course_evaluation.docx"))}}
    header = ["learner_id", "phase", *_ITEMS]
    body = [[lid, ph, *ans] for lid, ph, ans in c["rows"]]
    key_rows = [[q, c["old"] if q == _REVISED else c["key"][q]] for q in _ITEMS]
    revision = [[_REVISED, c["old"], c["key"][_REVISED], "Published key marked a distractor; SME review"]]
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_csv(root / P["files"]["responses"], header, body)
        write_csv(root / P["files"]["key"], ["item", "key"], key_rows)
        write_csv(root / P["files"]["revision"], ["item", "original_key", "revised_key", "reason"], revision)
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in ("old_key", "unpaired")}
    if truth["decision"] != targets["decision"] or abs(truth["hake"] - 0.3) < 0.03 or (
            targets["decision"] and truth["p"] >= 0.04):
        raise DegenerateTask("the drawn gain sits near the standard or off its target")
    ps = sorted(s["p"] for s in truth["items"])
    rs = sorted(s["rpb"] for s in truth["items"])
    if ps[1] - ps[0] < 0.005 or rs[1] - rs[0] < 0.01:
        raise DegenerateTask("tied hardest or weakest items")
    premise = truth["hardest"] if targets["premise"] else rng.choice([q for q in _ITEMS if q != truth["hardest"]])
    P["premise_item"] = premise
    labels["premise"] = labels["premise"].format(q=premise)

    def graded(f: Facts) -> Any:
        return (f["n_paired"], f["mean_gain"], f["t"], f["hake"], f["kr20"], f["worst"],
                [(s["p"], s["rpb"]) for s in f["items"]])

    where = {"old_key": ("data", f"the key revision notice changes the key of {_REVISED}"),
             "unpaired": ("memo", "learners with only one test are excluded under the standard")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 2:
        raise DegenerateTask("a planted item changes no graded answer")
    boss = person(rng)
    requester = rng.choice(prof.requesters)
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    D = dirs
    add(P["files"]["responses"], "data", lambda p: write_csv(p, header, body))
    add(P["files"]["key"], "data", lambda p: write_csv(p, ["item", "key"], key_rows))
    add(P["files"]["revision"], "data", lambda p: write_csv(
        p, ["item", "original_key", "revised_key", "reason"], revision))
    learners = sorted({r[0] for r in c["rows"]})
    add(f"{D['lms']}/{code}_enrolments.xlsx", "distractor", lambda p: write_xlsx(p, [(
        "Enrolments", ["learner_id", "department", "status"],
        [[x, rng.choice(("Ward A", "Ward B", "Finance", "Operations", "IT")), rng.choice(("Completed", "In progress"))]
         for x in learners])]))
    version = rng.randint(2, 5)
    add(f"{D['policy']}/programme_evaluation_standard_v{version}.docx", "policy", lambda p: write_docx(
        p, f"Programme evaluation standard v{version}", _standard(version, P, current=True)))
    add(f"{D['policy']}/archive/programme_evaluation_standard_v{version - 1}.pdf", "stale", lambda p: write_pdf(
        p, f"Programme evaluation standard v{version - 1} (superseded)", _standard(version - 1, P, current=False)))
    add(f"{D['mail']}/{iso(ran)}_sme_key_error.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, subject matter expert", to=boss, date=iso(ran), subject=f"{code} item {_REVISED}",
        body=f"The published key for {_REVISED} marks option {c['old']}, which is a distractor; the correct answer is "
             f"{c['key'][_REVISED]}. The revision notice is in {D['assess']}/.")))
    add(f"{D['mail']}/{iso(ran + dt.timedelta(days=4))}_facilitator.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, facilitator", to=boss, date=iso(ran + dt.timedelta(days=4)), subject="Post-test",
        body=f"From the room it felt like {premise} was the hardest question on the post-test. A few people missed "
             "one of the two sittings, so the LMS shows more pre-tests than post-tests.")))
    add(f"{D['lms']}/{code}_satisfaction_survey.csv", "distractor", lambda p: write_csv(
        p, ["question", "mean_rating"], [["Relevance", f"{rng.uniform(3.6, 4.7):.2f}"],
                                         ["Facilitator", f"{rng.uniform(3.8, 4.9):.2f}"],
                                         ["Materials", f"{rng.uniform(3.2, 4.5):.2f}"]]))
    add(f"meetings/{iso(ran + dt.timedelta(days=9))}_l_and_d.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="programme review", people=[person(rng) for _ in range(3)],
                         date=iso(ran + dt.timedelta(days=9)))))
    add(f"{D['assess']}/item_writing_guide.md", "distractor", lambda p: write_text(
        p, "# Item writing guide\n\n- One best answer, three plausible distractors.\n- Avoid 'all of the above'.\n"))
    L = labels
    memo_lines = [(L["n_paired"], "whole number"), (L["mean_gain"], "percentage points, 2 decimals"),
                  (L["t"], "2 decimals"), (L["p"], "4 decimals"), (L["dz"], "2 decimals"), (L["hake"], "3 decimals"),
                  (L["kr20"], "3 decimals"), (L["worst"], "item id, e.g. Q05"), (L["decision"], "yes or no"),
                  (L["premise"], "yes or no")]
    steps = [f"Score the pre- and post-tests of {course} ({code}) against the answer key in force ({D['assess']}/).",
             f"Apply the programme evaluation standard in {D['policy']}/ (who counts, the paired t-test, d_z and "
             "Hake's normalised gain) and say whether the course meets it.",
             "Run the item analysis on the post-test: difficulty, point-biserial and KR-20.",
             "Check the facilitator's impression about the hardest item."]
    deliverables = [
        f"{P['deliverables']['workbook']}: sheet Scored (learner_id, one 0/1 column per item Q01-Q20, total) for "
        "the learners analysed, and sheet Items (item, key, difficulty_p, point_biserial) with the statistics as "
        "live formulas over Scored, plus KR-20 in a labelled cell.",
        f"{P['deliverables']['memo']}: a report opening with these lines (label: value), then the method:\n"
        + "\n".join(f"   {lbl}: <{hint}>" for lbl, hint in memo_lines)]
    prompt = "\n\n".join([
        f"From: {boss}, {requester}\nSubject: {code} programme review\n\nThe programme review needs the pre/post "
        f"evaluation of {course}: did the course move knowledge, and how did the test items behave?",
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Please leave in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliverables, 1)),
        "Thanks.\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(w)),
    ]) + "\n"
    return Draft(subject=f"Pre/post evaluation of {code}", instructions=prompt, files=w, roles=roles, params=P,
                 traps=traps, targets=dict(targets),
                 distributions="60-110 matched learners; ability normal(0,1), gain 1.0-1.6 or 0.15-0.45 plus "
                               "normal(0,0.3); 3PL items b U(-1.2,1.8) a U(0.7,1.8) c 0.25, one flawed item; 4-9 "
                               "pre-only and 3-7 post-only learners; item 17 key revised")


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck

    D, L = P["deliverables"], P["labels"]
    book, memo = D["workbook"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    by = {s["item"]: s for s in facts["items"]}

    def num(key: str, d: int) -> tuple[str, Any]:
        return f"{L[key]} = {facts[key]:.{d}f}", fld_num(memo, L[key], facts[key], d)

    def item(q: str, col: str, key: str) -> tuple[str, Any]:
        return (f"{book} Items: {q} {col} = {by[q][key]:.3f}", CellCheck(
            file=book, sheet="Items", match={"item": q}, column=col, value=float(by[q][key]), tolerance=tol(3)))

    out = [
        rubric("Analyses matched learners only", 8, [num("n_paired", 0), num("mean_gain", 2)]),
        rubric("Runs the paired t-test with its effect size", 10, [num("t", 2), num("p", 4), num("dz", 2)]),
        rubric("Judges the course against the standard with Hake's gain", 10, [
            num("hake", 3), (f"{L['decision']}: {yes(facts['decision'])}",
                             fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Scores item 17 with the revised key", 8, [item(_REVISED, "difficulty_p", "p"),
                                                         item(_REVISED, "point_biserial", "rpb")]),
        rubric("Runs the item analysis and reliability", 8, [
            num("kr20", 3), (f"{L['worst']}: {facts['worst']}", fld(memo, L["worst"], facts["worst"], list(P["items"]))),
            item(facts["worst"], "point_biserial", "rpb")]),
        rubric("Checks the facilitator's impression", 6, [
            item(facts["hardest"], "difficulty_p", "p"),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Explains the evaluation", 6, [
            ("Says which learners were excluded and why", llm("explanation")),
            ("Explains the key revision for item 17 and its effect", llm("explanation")),
            ("Recommends what to do with the weakest item", llm("reasoning"))]))
    return out


COURSE_EVALUATION = Workflow(
    key="course_evaluation", family="course_evaluation", method="paired t, d_z, Hake gain, item analysis, KR-20",
    professions=("training_and_development_specialists",), solver="coursegain", shortcuts=("old_key", "unpaired"),
    draw=draw, recheck=recheck, rubrics=rubrics, data="generated pre/post test responses (stated distributions)")
