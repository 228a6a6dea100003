"""The PRISMA 2020 flow-diagram counts of a systematic review from its database exports and screening logs, with
Cohen's kappa of the two title/abstract screeners, as an md table of the boxes and a docx methods paragraph (social
science research assistants).

A review's search is generated: 1,700-2,700 distinct works published in the review's years, each in Scopus (70 %),
Web of Science (55 %), APA PsycInfo (40 %) and Sociological Abstracts (30 %) (at least one), plus 10-25 preprint-only
works on SocArXiv; each database exports in its own layout (csv, tab-delimited, xlsx) with its own DOI form (bare,
resolver URL, 'doi:' prefix, upper case), missing DOIs (3-25 % by source), upper-case or punctuated titles and, for
some copies with a DOI, the year one off. The ProQuest export ignored the year limiter: 20-60 records from the two
years before the start year. The title/abstract log has a calibration round (40-60 records, kappa about 0.2-0.45),
an independent double-screening sample (18-22 % of the rest; kappa drawn 0.05-0.2 above the protocol threshold of
0.6 or 0.7 when agreement is to clear it, 0.05-0.25 below otherwise) and single screening of the rest; the third
reviewer settles every disagreement. 5-8 % of records go to full text; 1-5 reports are not retrieved, 12-30 are
included (2-4 studies reported twice: a SocArXiv preprint and its journal article, at least one under the same title
and year, or a companion paper), the rest excluded with one reason (4-10 with two, some written out of the
protocol's order). The draft quotes the studies (premise holds) or, mistakenly, the reports.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed, kappa sits within 0.03 of the
threshold, or a planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or ValueError on a folder
that is not this workflow's.
"""

from __future__ import annotations

import csv
import random
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric
from ..professions import FIRST_NAMES, SURNAMES, profession
from .base import Draft, Facts, Workflow, pick_labels, place_away, read_rows, write_files
from .prisma_docs import REVIEWS, exports, prompt, workspace

__all__ = ["PRISMA_FLOW_COUNTS"]

_LABELS = {
    "identified": ("Records identified, {source}", "Records from {source}", "{source} records identified"),
    "identified_total": ("Records identified, all databases", "Total records identified", "Records identified in total"),
    "duplicates": ("Duplicate records removed", "Duplicates removed", "Records removed as duplicates"),
    "outside": ("Records removed for other reasons, outside the publication years",
                "Records removed as outside the date range", "Removed before screening, outside the publication years"),
    "screened": ("Records screened", "Records screened on title and abstract", "Title/abstract records screened"),
    "excluded_ta": ("Records excluded at title/abstract", "Records excluded on title and abstract",
                    "Excluded on title and abstract"),
    "sought": ("Reports sought for retrieval", "Full-text reports sought", "Reports sought"),
    "not_retrieved": ("Reports not retrieved", "Full texts not retrieved", "Reports that could not be retrieved"),
    "assessed": ("Reports assessed for eligibility", "Full-text reports assessed", "Reports assessed"),
    "excluded_ft": ("Reports excluded at full text", "Full-text reports excluded", "Reports excluded after full text"),
    "reason": ("Reports excluded, {reason}", "Full-text exclusions for {reason}", "Excluded at full text for {reason}"),
    "reports": ("Reports of included studies", "Reports included", "Included reports"),
    "studies": ("Studies included in review", "Studies included", "Included studies"),
    "double_n": ("Records double-screened independently", "Independent double-screening sample",
                 "Records in the agreement sample"),
    "kappa": ("Cohen's kappa, title/abstract screening", "Screening agreement, Cohen's kappa",
              "Cohen's kappa between the screeners"),
    "decision": ("Single screening of the remaining records justified", "Kappa meets the protocol threshold",
                 "Agreement threshold for single screening met"),
    "premise": ("Draft's count of {claim} included studies stands", "The draft's {claim} included studies confirmed",
                "Included studies as drafted, {claim}, holds"),
}
_DIRS = {"search": ("searches", "search"), "screen": ("screening", "selection"), "proto": ("protocol", "registration"),
         "mail": ("mail", "correspondence", "email"), "draft": ("drafts", "manuscript")}
SHORTCUTS = ("raw_doi", "title_only", "date_limit", "old_protocol", "calibration", "reports_as_studies",
             "reason_order")


# ---- the independent computation: csv and openpyxl only ----------------------------------------------------

def _doi(text: str) -> str:
    t = text.strip().lower()
    for pre in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"):
        if t.startswith(pre):
            t = t[len(pre):].strip()
    return t


def _title(text: str) -> str:
    t = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return " ".join("".join(ch if ch.isalnum() else " " for ch in t).split())


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the folder without the solver's code: exports read with csv and openpyxl, the
    duplicate rule applied pairwise against the records kept so far, the logs tallied in one pass each."""
    folder = Path(folder)
    counts: list[int] = []
    years: list[int] = []
    by_doi: set[str] = set()
    by_title: dict[tuple[str, int], list[str]] = {}  # (title key, year) -> DOIs of the records kept under it
    dups = 0
    for s in P["sources"]:
        if s["file"].endswith(".txt"):
            with (folder / s["file"]).open(encoding="utf-8", newline="") as fh:
                rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
        else:
            rows = read_rows(folder / s["file"], s.get("sheet"))
        counts.append(len(rows))
        for r in rows:
            doi, key, year = _doi(r[s["doi"]]), _title(r[s["title"]]), int(str(r[s["year"]]).strip()[:4])
            same = by_title.get((key, year), [])
            if (doi and doi in by_doi) or any(not doi or not d for d in same):
                dups += 1
                continue
            years.append(year)
            by_title.setdefault((key, year), []).append(doi)
            if doi:
                by_doi.add(doi)
    outside = sum(1 for y in years if not P["years"][0] <= y <= P["years"][1])
    R = P["reviewers"]
    ab: dict[str, dict[str, str]] = {}
    third: dict[str, str] = {}
    sample: set[str] = set()
    for r in read_rows(folder / P["files"]["ta_log"]):
        rid = r["record_id"].strip()
        if r["reviewer"].strip() == R["third"]:
            third[rid] = r["decision"].strip().lower()
        else:
            ab.setdefault(rid, {})[r["reviewer"].strip()] = r["decision"].strip().lower()
            if r["round"].strip().lower() == "independent":
                sample.add(rid)
    final = {rid: (next(iter(set(v.values()))) if len(set(v.values())) == 1 else third[rid]) for rid, v in ab.items()}
    tab = {(x, y): 0 for x in ("include", "exclude") for y in ("include", "exclude")}
    for rid in sample:
        tab[(ab[rid][R["a"]], ab[rid][R["b"]])] += 1
    n = sum(tab.values())
    po = (tab[("include", "include")] + tab[("exclude", "exclude")]) / n
    pa = (tab[("include", "include")] + tab[("include", "exclude")]) / n
    pb = (tab[("include", "include")] + tab[("exclude", "include")]) / n
    pe = pa * pb + (1 - pa) * (1 - pb)
    kappa = (po - pe) / (1 - pe)
    ft = read_rows(folder / P["files"]["ft_log"])
    got = [r for r in ft if r["retrieved"].strip().lower() == "yes"]
    inc = [r for r in got if r["decision"].strip().lower() == "include"]
    reasons = [0] * len(P["reasons"])
    for r in got:
        if r["decision"].strip().lower() == "exclude":
            written = {t.strip().lower() for t in r["exclusion_reasons"].split(";")}
            reasons[min(i for i, o in enumerate(P["reasons"]) if o.lower() in written)] += 1
    sought = sum(v == "include" for v in final.values())
    studies = len({r["study_id"].strip() for r in inc})
    return {"identified": counts, "identified_total": sum(counts), "duplicates": dups, "outside": outside,
            "screened": len(years) - outside, "excluded_ta": sum(v == "exclude" for v in final.values()),
            "sought": sought, "not_retrieved": len(ft) - len(got), "assessed": sought - (len(ft) - len(got)),
            "excluded_ft": sum(reasons), "reasons": reasons, "reports": len(inc), "studies": studies,
            "double_n": n, "kappa": rnd(kappa, 3), "decision": kappa >= P["kappa_threshold"],
            "premise": studies == P["claim"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _cells(rng: random.Random, n: int, inc: int, target: float) -> tuple[int, int, int, int, int]:
    """(a, b, c, d, third_includes) of an A x B table on ``n`` records of which ``inc`` end up included, with the
    number of disagreements chosen so that kappa comes nearest ``target``."""
    share = rng.uniform(0.3, 0.5)
    best: tuple[float, tuple[int, int, int, int, int]] | None = None
    for m in range(1, n):
        t_inc = min(round(m * share), inc - 1)
        t_exc = m - t_inc
        if t_exc > n - inc or t_exc < 1:
            break
        b = round(m * 0.5)
        a, d = inc - t_inc, n - inc - t_exc
        pa, pb = (a + b) / n, (a + m - b) / n
        pe = pa * pb + (1 - pa) * (1 - pb)
        k = ((a + d) / n - pe) / (1 - pe)
        if best is None or abs(k - target) < best[0]:
            best = (abs(k - target), (a, b, m - b, d, t_inc))
    if best is None:
        raise DegenerateTask("no agreement table fits")
    return best[1]


def _screening(rng: random.Random, ids: list[str], include: set[str], R: dict[str, str], thr: float,
               targets: dict[str, bool], start: Any) -> tuple[list[list[Any]], int]:
    """The title/abstract decision log: calibration round, independent sample, single screening, resolutions."""
    import datetime as dt

    order = list(ids)
    rng.shuffle(order)
    n_cal = rng.randint(40, 60)  # the calibration round: the first records, with a handful of includes to discuss
    cal = [r for r in order if r in include][:rng.randint(5, 8)]
    cal += [r for r in order if r not in include][:n_cal - len(cal)]
    rest = [r for r in order if r not in set(cal)]
    ind = rest[:round(len(rest) * rng.uniform(0.18, 0.22))]
    single = rest[len(ind):]
    rows: list[list[Any]] = []
    titles_day = {"calibration": 0, "independent": 2, "single": 2}
    kappa = rng.uniform(thr + 0.05, min(thr + 0.2, 0.9)) if targets["decision"] else rng.uniform(thr - 0.25, thr - 0.05)

    def stamp(day: int) -> str:
        return (start + dt.timedelta(days=day, hours=rng.randint(8, 18), minutes=rng.randint(0, 59))).strftime(
            "%Y-%m-%d %H:%M")

    for name, group, target in (("calibration", cal, rng.uniform(0.2, 0.45)), ("independent", ind, kappa)):
        inc = [r for r in group if r in include]
        exc = [r for r in group if r not in include]
        if len(inc) < 3:
            raise DegenerateTask("too few includes in a double-screened group")
        a, b, c, d, t_inc = _cells(rng, len(group), len(inc), target)
        rng.shuffle(inc)
        rng.shuffle(exc)
        conflicts = inc[:t_inc] + exc[:b + c - t_inc]
        rng.shuffle(conflicts)
        votes = {r: ("include", "include") for r in inc[t_inc:]} | {r: ("exclude", "exclude") for r in exc[b + c - t_inc:]}
        votes |= {r: ("include", "exclude") if k < b else ("exclude", "include") for k, r in enumerate(conflicts)}
        for r in group:
            day = titles_day[name] + rng.randint(0, 1 if name == "calibration" else 18)
            rows += [[r, R["a"], votes[r][0], name, stamp(day)], [r, R["b"], votes[r][1], name, stamp(day)]]
            if votes[r][0] != votes[r][1]:
                rows.append([r, R["third"], "include" if r in include else "exclude", "resolution", stamp(22)])
    for k, r in enumerate(single):
        rows.append([r, R["a"] if k % 2 else R["b"], "include" if r in include else "exclude", "single",
                     stamp(2 + rng.randint(0, 18))])
    rows.sort(key=lambda x: (x[4], x[0]))
    return rows, len(ind)


def _fulltext(rng: random.Random, works: list[dict[str, Any]], include: list[str], reasons: list[str],
              pairs: list[tuple[str, str]], kinds: list[str]) -> list[list[Any]]:
    """One row per report sought: retrieved or not, the decision, the reasons as written, the study id."""
    paired = {x for p in pairs for x in p}
    rest = [r for r in include if r not in paired]
    rng.shuffle(rest)
    nr = rest[:rng.randint(1, 5)]
    inc = rest[len(nr):len(nr) + rng.randint(12, 30) - 2 * len(pairs)]
    out = rest[len(nr) + len(inc):]
    title = {w["rid"]: w["title"] for w in works if w.get("rid")}
    rows = []
    sid = iter(range(1, 200))
    study = {}
    for a, b in pairs:
        study[a] = study[b] = f"S{next(sid):02d}"
    for r in inc:
        study[r] = f"S{next(sid):02d}"
    weights = [rng.uniform(0.5, 2.0) for _ in reasons]
    picks = {r: rng.choices(range(len(reasons)), weights=weights)[0] for r in out}
    for k, r in enumerate(rng.sample(out, len(reasons))):  # every reason used at least once
        picks[r] = k
    double = rng.sample([r for r in out if picks[r] < len(reasons) - 1], rng.randint(4, 10))
    for r in sorted(include):
        if r in nr:
            rows.append([r, title[r], "no", "", "", "", "not obtained (library, interlibrary loan, author contacted)"])
        elif r in study:
            note = next((f"preprint of {b}" if kind == "preprint" else f"companion paper of {b}"
                         for (a, b), kind in zip(pairs, kinds) if r == a), "")
            rows.append([r, title[r], "yes", "include", "", study[r], note])
        else:
            first = reasons[picks[r]]
            if r in double:
                other = reasons[rng.randint(picks[r] + 1, len(reasons) - 1)]
                text = f"{other}; {first}" if double.index(r) % 2 == 0 else f"{first}; {other}"
            else:
                text = first
            rows.append([r, title[r], "yes", "exclude", text, "", ""])
    return rows


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.prisma import analyse

    prof = profession(occupation)
    review = dict(rng.choice(REVIEWS))
    dirs = pick_labels(rng, _DIRS)
    thr = rng.choice((0.6, 0.7))
    names = [f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)}" for _ in range(3)]
    R = {"a": "".join(w[0] for w in names[0].split()), "b": "".join(w[0] for w in names[1].split()),
         "third": "".join(w[0] for w in names[2].split())}
    if len(set(R.values())) < 3:
        raise DegenerateTask("two reviewers share initials")
    built = exports(rng, review, dirs["search"])
    works, pairs, P_src, data = built["works"], built["pairs"], built["sources"], built["data"]
    kept = [w for w in works if w.get("rid")]
    in_range = [w["rid"] for w in kept if review["years"][0] <= w["year"] <= review["years"][1]]
    must = {x for p in pairs for x in p}
    pool = [r for r in in_range if r not in must]
    include = sorted(must | set(rng.sample(pool, round(len(in_range) * rng.uniform(0.05, 0.08)))))
    ta, _ = _screening(rng, in_range, set(include), R, thr, targets, built["screen_start"])
    title = {w["rid"]: w["title"] for w in kept}
    ta = [[r[0], title[r[0]], *r[1:]] for r in ta]
    ft = _fulltext(rng, kept, include, list(review["reasons"]), pairs, built["pair_kinds"])
    built["ft_rows"] = ft
    P: dict[str, Any] = {
        "review": review["title"], "sources": P_src, "years": list(review["years"]), "reviewers": R,
        "reviewer_names": names, "reasons": list(review["reasons"]), "kappa_threshold": thr, "claim": 0,
        "dirs": dirs, "files": {"ta_log": f"{dirs['screen']}/rayyan/title_abstract_decisions.csv",
                                "ft_log": f"{dirs['screen']}/full_text_screening.csv"},
        "deliverables": {"memo": rng.choice(("prisma_flow_counts.md", "prisma_counts.md", "flow_diagram_counts.md")),
                         "methods": rng.choice(("prisma_methods_section.docx", "study_selection_paragraph.docx",
                                                "methods_study_selection.docx"))}}
    from ..writers import write_csv

    data[P["files"]["ta_log"]] = lambda p: write_csv(p, ["record_id", "title", "reviewer", "decision", "round",
                                                         "decided_at"], ta)
    data[P["files"]["ft_log"]] = lambda p: write_csv(p, ["record_id", "title", "retrieved", "decision",
                                                         "exclusion_reasons", "study_id", "notes"], ft)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), data)
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
    if truth["sought"] != len(include) or truth["screened"] != len(in_range) or truth["log_records"] != len(in_range):
        raise DegenerateTask("the flow does not add up")
    P["claim"] = truth["studies"] if targets["premise"] else truth["reports"]
    truth["premise"] = truth["studies"] == P["claim"]
    if (truth["decision"], truth["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the drawn review misses a targeted answer")
    if abs(truth["kappa_raw"] - thr) < 0.03:
        raise DegenerateTask("kappa sits near the threshold")
    keys = ("duplicates", "outside", "screened", "excluded_ta", "sought", "assessed", "reasons", "studies", "kappa")
    where = {"raw_doi": ("data", "DOIs come with resolver prefixes and in upper case; they match once normalised"),
             "title_only": ("memo", "a preprint and its journal article have different DOIs: two reports, not "
                                    "duplicates"),
             "date_limit": ("email", "the ProQuest export ignored the year limiter"),
             "old_protocol": ("memo", "amendment 1 has the third reviewer settle disagreements (the registered "
                                      "protocol carried them to full text)"),
             "calibration": ("memo", "kappa is on the independent sample; the calibration round is out"),
             "reports_as_studies": ("data", "reports of one study share a study id"),
             "reason_order": ("footnote", "a report with several reasons counts under the first in the protocol's "
                                          "order")}

    def moved(nf: Facts, x: str) -> bool:
        return place_away(nf[x], [truth[x]], 3) if x == "kappa" else bool(nf[x] != truth[x])

    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k} for k, nf in singles.items()
             if any(moved(nf, x) for x in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(claim=P["claim"])
    P["labels"] = labels
    writers, roles = workspace(rng, P, review, built, data)
    text = prompt(rng, P, review, prof, writers)
    return Draft(subject=f"PRISMA counts: {review['title']}", instructions=text, files=writers, roles=roles, params=P,
                 traps=traps, targets=dict(targets),
                 distributions="1,700-2,700 works in the review's years, each in Scopus 70 %, WoS 55 %, PsycInfo 40 %, "
                               "SocAbs 30 % (at least one) + 10-25 SocArXiv preprints; DOIs missing 3-25 % by source, "
                               "source-specific DOI and title forms; 20-60 out-of-range ProQuest records; calibration "
                               "40-60 records, independent sample 18-22 %; 5-8 % to full text; 1-5 not retrieved, "
                               "12-30 included, 2-4 studies with two reports; 4-10 exclusions with two reasons")


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import FieldCheck, NumberCheck

    D, L = P["deliverables"], P["labels"]
    memo, methods = D["memo"], D["methods"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def count(label: str, v: int) -> tuple[str, Any]:
        return f"{memo}: {label} = {v}", FieldCheck(file=memo, label=label, number=float(v), tolerance=0.0)

    def key(k: str) -> tuple[str, Any]:
        return count(L[k], facts[k])

    def flag(k: str) -> tuple[str, Any]:
        return f"{memo}: {L[k]}: {yes(facts[k])}", fld(memo, L[k], yes(facts[k]), ["yes", "no"])

    def said(v: float, tol: float, what: str) -> tuple[str, Any]:
        return f"{methods} reports {what} ({v:g})", NumberCheck(file=methods, value=float(v), tolerance=tol)

    kappa = (f"{memo}: {L['kappa']} = {facts['kappa']:.3f}", fld_num(memo, L["kappa"], facts["kappa"], 3))
    out = [
        rubric("Counts the records identified in each database export", 6, [
            *[count(L["identified"].format(source=s["name"]), n) for s, n in zip(P["sources"], facts["identified"])],
            key("identified_total")]),
        rubric("Removes duplicates by normalised DOI, then by normalised title and year", 10, [
            key("duplicates"), key("screened")]),
        rubric("Removes the records outside the review's publication years before screening", 6, [
            key("outside"), key("screened")]),
        rubric("Settles title/abstract disagreements by the third reviewer, as amended", 10, [
            key("excluded_ta"), key("sought")]),
        rubric("Counts the reports not retrieved and the reports assessed", 8, [
            key("not_retrieved"), key("assessed"), key("excluded_ft")]),
        rubric("Counts each full-text exclusion once, under the protocol's order of reasons", 8, [
            count(L["reason"].format(reason=o), n) for o, n in zip(P["reasons"], facts["reasons"])]),
        rubric("Distinguishes the studies included from the reports of included studies", 10, [
            key("studies"), key("reports"), said(facts["studies"], 0.0, "the studies included")]),
        rubric("Computes Cohen's kappa on the independent double-screening sample", 10, [
            key("double_n"), kappa, said(facts["kappa"], 0.001, "kappa")]),
        rubric("Decides whether agreement justified single screening of the rest", 8, [flag("decision"), kappa]),
        rubric("Answers whether the draft's count of included studies stands", 8, [flag("premise"), key("studies")]),
    ]
    if judgement:
        out.append(rubric("Writes a methods paragraph a journal reviewer can check against the flow diagram", 6, [
            ("Reports every box of the PRISMA 2020 flow in order, with studies and reports kept apart",
             llm("content")),
            ("States how duplicates were found and how disagreements were resolved", llm("explanation")),
            ("Reports kappa with the sample it was computed on", llm("writing"))]))
    return out


PRISMA_FLOW_COUNTS = Workflow(
    key="prisma_flow_counts", family="evidence_synthesis",
    method="PRISMA 2020 flow counts: records per database, duplicates by normalised DOI then normalised title and "
           "year, records outside the years removed, title/abstract decisions with third-reviewer resolution, reports "
           "sought, not retrieved, assessed, excluded by the first reason in the protocol's order, studies vs reports; "
           "Cohen's kappa on the independent double-screening sample",
    professions=("social_science_research_assistants",), solver="prisma", shortcuts=SHORTCUTS, draw=draw,
    recheck=recheck, rubrics=rubrics, data="generated bibliographic database exports and screening logs")
