"""The PRISMA review's database exports (works, their copies per database in each export's layout) and its workspace
documents (protocols, search log, correspondence, draft, distractors) and request.

Failure behaviour: ``exports`` raises DegenerateTask when it cannot draw enough distinct titles; the writers it
returns raise OSError for an unwritable path.
"""

from __future__ import annotations

import datetime as dt
import random
import unicodedata
from typing import Any

from ..common import DegenerateTask
from ..compose import email_text, meeting_notes, person
from ..professions import FIRST_NAMES, SURNAMES
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx

__all__ = ["REVIEWS", "exports", "workspace", "prompt"]

REVIEWS: tuple[dict[str, Any], ...] = (
    {"title": "remote work and employee wellbeing", "slug": "remote_work", "years": (2010, 2025),
     "exposure": ("Remote work", "Telework", "Working from home", "Hybrid work", "Flexible working arrangements",
                  "Home-based telework"),
     "outcome": ("wellbeing", "burnout", "job satisfaction", "work-life conflict", "psychological distress",
                 "loneliness", "emotional exhaustion"),
     "population": ("knowledge workers", "public sector employees", "nurses", "teachers", "call-centre staff",
                    "middle managers", "working parents", "software developers"),
     "journals": ("Work, Employment and Society", "Journal of Occupational Health Psychology", "New Technology, Work "
                  "and Employment", "Human Relations", "Social Science and Medicine", "Journal of Vocational Behavior"),
     "reasons": ("not primary research", "ineligible population", "ineligible exposure", "no eligible outcome",
                 "ineligible design")},
    {"title": "neighbourhood deprivation and adolescent mental health", "slug": "neighbourhood_mh",
     "years": (2005, 2025),
     "exposure": ("Neighbourhood deprivation", "Area-level poverty", "Neighbourhood disadvantage",
                  "Residential segregation", "Neighbourhood social cohesion", "Concentrated disadvantage"),
     "outcome": ("depressive symptoms", "anxiety", "self-harm", "psychological wellbeing", "conduct problems",
                 "internalising problems", "suicidal ideation"),
     "population": ("adolescents", "secondary school pupils", "young people aged 11-16", "urban youth",
                    "adolescent girls", "rural adolescents", "young people in care"),
     "journals": ("Social Science and Medicine", "Health and Place", "Journal of Youth and Adolescence", "Child "
                  "Development", "Journal of Epidemiology and Community Health", "Urban Studies"),
     "reasons": ("not primary research", "ineligible age group", "no area-level exposure", "no mental health outcome",
                 "ineligible design")},
    {"title": "conditional cash transfers and school enrolment", "slug": "cct_schooling", "years": (2000, 2025),
     "exposure": ("Conditional cash transfers", "Cash transfer programmes", "Conditional transfers",
                  "School stipends", "Bolsa Familia", "Means-tested child grants"),
     "outcome": ("school enrolment", "attendance", "grade progression", "dropout", "child labour", "learning outcomes",
                 "secondary school completion"),
     "population": ("poor households", "rural children", "adolescent girls", "primary school children",
                    "indigenous communities", "female-headed households", "urban slum households"),
     "journals": ("World Development", "Journal of Development Economics", "Economics of Education Review", "Comparative "
                  "Education Review", "Journal of Human Resources", "Population and Development Review"),
     "reasons": ("not primary research", "no cash transfer", "no education outcome", "ineligible comparison",
                 "ineligible design")},
)
_SETTINGS = ("in Germany", "in the United Kingdom", "in Brazil", "in Japan", "across Europe", "in Canada",
             "in South Africa", "in Mexico", "in Sweden", "in São Paulo", "in Montréal", "in Zürich", "in Chile",
             "in Ghana", "in Australia", "in the Netherlands", "in Colombia", "in India", "in Kenya", "in Spain")
_DESIGNS = ("a longitudinal study", "evidence from panel data", "a cross-sectional survey", "a natural experiment",
            "a mixed-methods study", "a difference-in-differences analysis", "a multilevel analysis",
            "a qualitative study", "a cohort study", "a regression discontinuity design", "a randomised evaluation")
_FORMS = ("{E} and {o} among {p} {s}: {d}", "Does {e} affect {o}? {D} of {p} {s}", "{E} and {o}: {d} of {p} {s}",
          "The association between {e} and {o} among {p} {s}", "{E}, {o} and {p} {s}: {d}",
          "Revisiting {e} and {o} among {p} {s}", "{O} and {e} among {p} {s}: {d}")
# name, file stem, extension, title, year, doi columns; share of works it holds; share of copies without a DOI
_SOURCES = (("Scopus", "scopus", "csv", "Title", "Year", "DOI", 0.70, 0.03),
            ("Web of Science Core Collection", "wos_core_collection", "txt", "TI", "PY", "DI", 0.55, 0.05),
            ("APA PsycInfo", "psycinfo_ebsco", "csv", "Title", "Publication Year", "DOI", 0.40, 0.10),
            ("Sociological Abstracts", "socabs_proquest", "xlsx", "Title", "year", "digitalObjectIdentifier", 0.30, 0.25),
            ("SocArXiv", "socarxiv_osf", "csv", "title", "date_published", "doi", 0.0, 0.0))
_HEADS = (["Authors", "Title", "Year", "Source title", "DOI", "EID", "Document Type"],
          ["PT", "AU", "TI", "SO", "PY", "DI", "UT"],
          ["Title", "Author", "Publication Year", "Source", "DOI", "Accession Number", "Publication Type"],
          ["Title", "Authors", "pubtitle", "year", "digitalObjectIdentifier", "StoreId", "documentType"],
          ["title", "contributors", "date_published", "doi", "osf_id"])


def _plain(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _titles(rng: random.Random, review: dict[str, Any], n: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for _ in range(n * 20):
        e, o = rng.choice(review["exposure"]), rng.choice(review["outcome"])
        t = rng.choice(_FORMS).format(E=e, e=e.lower() if e[1].islower() else e, o=o, O=o.capitalize(),
                                      p=rng.choice(review["population"]), s=rng.choice(_SETTINGS),
                                      d=rng.choice(_DESIGNS), D=rng.choice(_DESIGNS).capitalize())
        key = " ".join("".join(c if c.isalnum() else " " for c in _plain(t).lower()).split())
        if key not in seen:
            seen.add(key)
            out.append(t)
            if len(out) == n:
                return out
    raise DegenerateTask("not enough distinct titles")


def exports(rng: random.Random, review: dict[str, Any], search_dir: str) -> dict[str, Any]:
    """Works and their copies per database: in-range journal works, preprint-only works, preprint/journal and
    companion pairs, out-of-range records in the ProQuest export; kept records (first copy in source order) get
    record ids."""
    lo, hi = review["years"]
    n_works, n_pre, n_old = rng.randint(1700, 2700), rng.randint(10, 25), rng.randint(20, 60)
    n_pairs = rng.randint(2, 4)
    titles = _titles(rng, review, n_works + n_pre + n_old + n_pairs)
    years = list(range(lo, hi + 1))
    weights = [1 + 0.25 * k for k in range(len(years))]
    works: list[dict[str, Any]] = []
    serial = iter(rng.sample(range(100000, 999999), len(titles) + 10))
    for k in range(n_works):
        year = rng.choices(years, weights=weights)[0]
        j = rng.choice(review["journals"])
        code = "".join(w[0] for w in j.split() if w[0].isalpha()).lower()
        srcs = {s[0] for s in _SOURCES[:4] if rng.random() < s[6]} or {rng.choice(_SOURCES[:4])[0]}
        works.append({"title": titles[k], "year": year, "journal": j, "sources": srcs, "kind": "article",
                      "doi": f"10.{rng.choice((1177, 1016, 1080, 1111, 1093, 1007))}/{code}.{year}.{next(serial)}"
                      if rng.random() < 0.9 else ""})
    for k in range(n_pre):
        works.append({"title": titles[n_works + k], "year": rng.randint(max(lo, hi - 6), hi), "journal": "SocArXiv",
                      "sources": {"SocArXiv"}, "kind": "preprint", "doi": f"10.31235/osf.io/{next(serial):x}"[:26]})
    for k in range(n_old):
        year, j = rng.randint(lo - 2, lo - 1), rng.choice(review["journals"])
        code = "".join(w[0] for w in j.split() if w[0].isalpha()).lower()
        works.append({"title": titles[n_works + n_pre + k], "year": year, "kind": "old", "journal": j,
                      "sources": {"Sociological Abstracts"},
                      "doi": f"10.1177/{code}.{year}.{next(serial)}" if rng.random() < 0.6 else ""})
    pairs: list[tuple[int, int, str]] = []
    arts = [k for k in range(n_works) if works[k]["year"] >= lo + 2]
    for k, idx in enumerate(rng.sample(arts, n_pairs)):
        w = works[idx]
        w["sources"].add("Scopus")
        w["doi"] = w["doi"] or f"10.1016/{w['journal'][:4].lower()}.{w['year']}.{next(serial)}"
        w["scopus_doi"] = True
        if k == n_pairs - 1 and k >= 2 and rng.random() < 0.5:  # a companion paper of the same study
            comp = {"title": titles[n_works + n_pre + n_old + k], "year": min(hi, w["year"] + 1), "journal": w["journal"],
                    "sources": {"Scopus", "Web of Science Core Collection"}, "kind": "companion",
                    "doi": f"10.1080/comp.{w['year'] + 1}.{next(serial)}", "scopus_doi": True}
            works.append(comp)
            pairs.append((idx, len(works) - 1, "companion"))
            continue
        same = k == 0
        pre = {"title": w["title"] if same else titles[n_works + n_pre + n_old + k],
               "year": w["year"] if same else w["year"] - 1, "journal": "SocArXiv", "sources": {"SocArXiv"},
               "kind": "preprint", "doi": f"10.31235/osf.io/{next(serial):x}"}
        works.append(pre)
        pairs.append((len(works) - 1, idx, "preprint"))
    return _layout(rng, review, search_dir, works, pairs)


def _copy(rng: random.Random, w: dict[str, Any], src: tuple[Any, ...], authors: str) -> list[Any]:
    name, t, doi = src[0], w["title"], w["doi"]
    if doi and rng.random() < src[7] and not (name == "Scopus" and w.get("scopus_doi")):
        doi = ""
    year = w["year"]
    if name == "Web of Science Core Collection":
        t = t.upper() if rng.random() < 0.25 else t
        if doi and rng.random() < 0.3:
            doi = doi.upper()
        if doi and "Scopus" in w["sources"] and w.get("doi_in_scopus") and rng.random() < 0.05:
            year += 1  # indexed a year later (online first): the DOI still matches
        return ["J", authors, t, w["journal"].upper(), year, doi, f"WOS:{rng.randint(10**14, 10**15 - 1):015d}"]
    if name == "APA PsycInfo":
        doi = f"https://doi.org/{doi}" if doi and rng.random() < 0.7 else doi
        return [_plain(t) + ".", authors, year, w["journal"], doi, f"{year}-{rng.randint(10000, 99999)}-001",
                "Journal Article"]
    if name == "Sociological Abstracts":
        doi = f"doi:{doi}" if doi and rng.random() < 0.5 else doi
        return [t.replace(": ", " - "), authors, w["journal"], year, doi, rng.randint(10**9, 10**10 - 1),
                "Scholarly Journals"]
    if name == "SocArXiv":
        return [t, authors, f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", doi,
                doi.rsplit("/", 1)[-1] if doi else ""]
    return [authors, t, year, w["journal"], doi, f"2-s2.0-{rng.randint(10**10, 10**11 - 1)}", "Article"]


def _layout(rng: random.Random, review: dict[str, Any], search_dir: str, works: list[dict[str, Any]],
            pairs: list[tuple[int, int, str]]) -> dict[str, Any]:
    search = dt.date(review["years"][1], rng.randint(2, 5), rng.randint(1, 28))
    rows: dict[str, list[list[Any]]] = {s[0]: [] for s in _SOURCES}
    order = list(range(len(works)))
    rng.shuffle(order)
    first: dict[int, tuple[int, int]] = {}  # work -> (source position, row position) of its first copy
    for si, src in enumerate(_SOURCES):
        for idx in order:
            w = works[idx]
            if src[0] not in w["sources"]:
                continue
            w.setdefault("authors", "; ".join(f"{rng.choice(SURNAMES)}, {rng.choice(FIRST_NAMES)[0]}."
                                               for _ in range(rng.randint(1, 4))))
            row = _copy(rng, w, src, w["authors"])
            if src[0] == "Scopus":
                w["doi_in_scopus"] = bool(row[4])
            first.setdefault(idx, (si, len(rows[src[0]])))
            rows[src[0]].append(row)
    kept = sorted(first, key=lambda i: first[i])
    lo = review["years"][0]
    for k, idx in enumerate(i for i in kept if works[i]["year"] >= lo):
        works[idx]["rid"] = f"R{10001 + k}"
    stamp = search.strftime("%Y%m%d")
    sources, data = [], {}
    for src, head in zip(_SOURCES, _HEADS):
        rel = f"{search_dir}/exports/{src[1]}_{stamp}.{src[2]}"
        sources.append({"name": src[0], "file": rel, "title": src[3], "year": src[4], "doi": src[5]})
        body = rows[src[0]]
        if src[2] == "txt":
            text = "\n".join("\t".join(str(v) for v in r) for r in [head, *body]) + "\n"
            data[rel] = (lambda tx: lambda p: write_text(p, tx))(text)
        elif src[2] == "xlsx":
            data[rel] = (lambda h, b: lambda p: write_xlsx(p, [("Results", h, b)]))(head, body)
        else:
            data[rel] = (lambda h, b: lambda p: write_csv(p, h, b))(head, body)
    rid_pairs = [(str(works[a]["rid"]), str(works[b]["rid"])) for a, b, _ in pairs]
    return {"works": works, "pairs": rid_pairs, "pair_kinds": [k for _, _, k in pairs],
            "companions": [], "sources": sources, "data": data, "search": search,
            "screen_start": dt.datetime.combine(search + dt.timedelta(days=rng.randint(10, 25)), dt.time(9)),
            "counts": {s[0]: len(rows[s[0]]) for s in _SOURCES},
            "old": sum(1 for w in works if w["kind"] == "old")}


def _protocol(P: dict[str, Any], review: dict[str, Any], names: list[str], amended: str) -> list[str]:
    R, (lo, hi) = P["reviewers"], P["years"]
    order = ", ".join(s["name"] for s in P["sources"])
    reasons = "; ".join(f"({k}) {r}" for k, r in enumerate(P["reasons"], 1))
    return [
        f"Systematic review of {review['title']}: protocol, as amended (amendment 1, {amended}; replaces the "
        "registered version wherever they differ).",
        f"- Eligibility: primary empirical studies published {lo} to {hi} inclusive. Records outside those "
        "publication years are removed before screening and reported as removed for other reasons.",
        f"- Sources, in this order for de-duplication: {order}.",
        "- De-duplication: a record is a duplicate of a record met earlier when (a) both carry a DOI and the DOIs are "
        "equal after normalisation (spaces trimmed, a leading https://doi.org/, http://dx.doi.org/ or doi: removed, "
        "lower case), or (b) at least one of the two lacks a DOI and their normalised titles (lower case, accents "
        "removed, every character other than a letter or digit read as a space, spaces collapsed) and publication "
        "years are equal. Two records with different DOIs are never duplicates: a preprint and its journal article "
        "are two reports of one study and are linked at full text.",
        f"- Title/abstract screening (Rayyan): reviewers {R['a']} ({names[0]}) and {R['b']} ({names[1]}). A "
        "calibration round on the first records, screened by both and discussed, trains the team; then a random "
        "sample of about 20 % is screened independently by both; the remaining records are screened by one of them.",
        f"- Disagreements (calibration round or independent sample) are resolved by the third reviewer, {R['third']} "
        f"({names[2]}), whose decision is final. (Amendment 1: this replaces the registered rule that carried "
        "disagreements forward to full-text review.)",
        f"- Agreement: Cohen's kappa between {R['a']} and {R['b']} on the independent sample (include/exclude); the "
        f"calibration round is not part of it. When kappa is at least {P['kappa_threshold']}, single screening of "
        "the remaining records stands; below it, the remaining records are screened a second time before submission.",
        "- Full text: reports sought = records included at title/abstract. A report not obtained through the "
        "library, interlibrary loan or the authors is not retrieved. Reports assessed = sought - not retrieved.",
        f"- Reasons for exclusion at full text, in this order: {reasons}. Each excluded report is counted once (a).",
        "- Studies and reports: the study is the unit of synthesis. Reports of one study carry the same study id in "
        "the full-text log; the flow diagram gives studies included and reports of included studies.",
        "- Reporting: PRISMA 2020 flow diagram for new reviews (databases only). Kappa to 3 decimal places, half up; "
        "counts are whole numbers. A count already written in a draft stands only when it equals the recomputed one.",
        "(a) Where the reviewers wrote more than one reason, the report counts under the reason that comes first in "
        "the order above, whatever order they wrote them in."]


def workspace(rng: random.Random, P: dict[str, Any], review: dict[str, Any], built: dict[str, Any],
              data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    D, names, R = P["dirs"], P["reviewer_names"], P["reviewers"]
    search = built["search"]
    registered = search - dt.timedelta(days=rng.randint(90, 200))
    amended = built["screen_start"].date() - dt.timedelta(days=rng.randint(2, 8))
    slug = review["slug"]
    add(f"{D['proto']}/{slug}_protocol_amendment1.docx", "policy", lambda p: write_docx(
        p, f"Protocol (amended {amended.isoformat()})", _protocol(P, review, names, amended.isoformat())))
    lo, hi = P["years"]
    add(f"{D['proto']}/archive/{slug}_protocol_registered_{registered.isoformat()}.pdf", "stale", lambda p: write_pdf(
        p, f"Systematic review of {review['title']}: registered protocol ({registered.isoformat()})", [
            f"Eligibility: primary empirical studies published {lo} to {hi}.",
            "Title/abstract screening: two reviewers; a sample screened by both. Records on which the two reviewers "
            "disagree are carried forward to full-text review (included at this stage).",
            "Agreement: Cohen's kappa on all records screened by both reviewers.",
            "Full-text exclusions are reported with reasons.", "Registered on OSF; amendments will be dated."]))
    add(f"{D['proto']}/osf_registration_receipt.txt", "distractor", lambda p: write_text(p, (
        f"OSF Registries - registration received {registered.isoformat()}\nTitle: Systematic review of "
        f"{review['title']}\nType: OSF Preregistration\nEmbargo: none\n")))
    counts = built["counts"]
    log = [[s["name"], {"Scopus": "Elsevier", "Web of Science Core Collection": "Clarivate",
                        "APA PsycInfo": "EBSCOhost", "Sociological Abstracts": "ProQuest",
                        "SocArXiv": "OSF Preprints"}[s["name"]], search.isoformat(), f"{lo}-{hi}",
            counts[s["name"]] - (built["old"] if s["name"] == "Sociological Abstracts" else 0), s["file"]]
           for s in P["sources"]]
    add(f"{D['search']}/search_log.xlsx", "reference", lambda p: write_xlsx(p, [(
        "Searches", ["database", "platform", "date_run", "year_limits", "hits_in_interface", "export_file"], log)]))
    add(f"{D['search']}/search_strategies.docx", "reference", lambda p: write_docx(p, "Search strategies", [
        f"Concept 1 (exposure): {' OR '.join(repr(e.lower()) for e in review['exposure'])}.",
        f"Concept 2 (outcome): {' OR '.join(repr(o) for o in review['outcome'])}.",
        "Combined with AND; title, abstract and keywords; English; journal articles and preprints.",
        f"Years {lo}-{hi} set with each platform's limiter."]))
    lib = person(rng)
    add(f"{D['mail']}/{(search + dt.timedelta(days=2)).isoformat()}_exports.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{lib}, Subject Librarian", to="review team", date=(search + dt.timedelta(days=2)).isoformat(),
                      subject="Database exports for the review", body="All five exports are in the searches folder. "
                      "One caution: ProQuest's Excel export does not carry over the publication-year limiter, so the "
                      "Sociological Abstracts file has more rows than the interface showed; the other platforms "
                      "applied the limits in the export.")))
    add(f"{D['mail']}/{(built['screen_start'] + dt.timedelta(days=24)).date().isoformat()}_resolutions.txt", "email",
        lambda p: write_text(p, email_text(
            sender=f"{names[2]}", to="review team", date=(built["screen_start"] + dt.timedelta(days=24)).date().isoformat(),
            subject="Conflicts resolved", body="I've resolved every title/abstract conflict in Rayyan; my decisions are "
            "in the log as round 'resolution'. The calibration-round conflicts are done too.")))
    kinds = dict(zip(built["pairs"], built["pair_kinds"]))
    linked = "; ".join(f"{a} and {b}" for (a, b), k in kinds.items())
    add(f"{D['mail']}/{(built['screen_start'] + dt.timedelta(days=60)).date().isoformat()}_linked_reports.txt",
        "email", lambda p: write_text(p, email_text(
            sender=f"{names[0]}", to="review team", date=(built["screen_start"] + dt.timedelta(days=60)).date().isoformat(),
            subject="Linked reports at full text", body=f"At full text we linked reports of the same study under one "
            f"study id ({linked}): preprints with their journal versions and a companion paper where there was one.")))
    inc: dict[str, list[str]] = {}
    ft = P["files"]["ft_log"]
    for r in built.get("ft_rows", []):
        if r[3] == "include":
            inc.setdefault(r[5], []).append(r[0])
    extraction = [[s, "; ".join(rs), rng.choice(("longitudinal", "cross-sectional", "quasi-experimental",
                                                    "mixed methods")), rng.randint(120, 9000)]
                  for s, rs in sorted(inc.items())]
    add("analysis/data_extraction.xlsx", "reference", lambda p: write_xlsx(p, [(
        "Extraction", ["study_id", "record_ids", "design", "sample_size"], extraction)]))
    claim = P["claim"]
    add(f"{D['draft']}/manuscript_draft_v3.docx", "conflict", lambda p: write_docx(p, "Draft manuscript v3", [
        f"Abstract. Background: ... Methods: we searched five databases for studies of {review['title']} published "
        f"{lo}-{hi}. Results: we included {claim} studies. ...",
        f"Methods - study selection: [PRISMA counts and kappa to be inserted from {ft} and the exports]."]))
    add(f"{D['screen']}/rayyan/README.txt", "reference", lambda p: write_text(p, (
        "Rayyan export of title/abstract decisions: one row per decision. round = calibration, independent (both "
        f"reviewers, blind), single (one reviewer) or resolution (the third reviewer, {R['third']}). Record ids are "
        "Rayyan's, assigned on import after de-duplication in the protocol's source order.\n")))
    add(f"meetings/{(built['screen_start'] + dt.timedelta(days=70)).date().isoformat()}_review_team.md", "distractor",
        lambda p: write_text(p, meeting_notes(rng, topic=f"{review['title']} review", people=names,
                                              date=(built["screen_start"] + dt.timedelta(days=70)).date().isoformat())))
    add(f"{D['search']}/grey_literature_plan.md", "distractor", lambda p: write_text(p, (
        "# Grey literature\n\nA search of government reports was planned but dropped at the protocol amendment; no "
        "records from it enter the flow diagram.\n")))
    return w, roles


_OPEN = ("From: {who}, {role}\nSubject: {subject}\n\nHi,\n", "Hi -\n\n", "Subject: {subject}\nFrom: {who} ({role})\n\n",
         "Ticket: {subject}\nRequester: {who}, {role}\n\n")
_ASK = ("I need the PRISMA counts and the screener agreement for the {t} review.",
        "Can you work out the PRISMA 2020 flow for the {t} review, and the kappa between our screeners?",
        "Please put together the flow-diagram numbers for the {t} review, with Cohen's kappa for the screening.")


def prompt(rng: random.Random, P: dict[str, Any], review: dict[str, Any], prof: Any, writers: dict[str, Any]) -> str:
    L, D = P["labels"], P["deliverables"]
    who = person(rng)
    fill = {"who": who, "role": rng.choice(("Senior Research Fellow", "Principal Investigator")),
            "subject": f"PRISMA counts, {review['title']}", "t": review["title"]}
    whole = "whole number"
    hints = [(L["identified"].format(source=s["name"]), whole) for s in P["sources"]]
    hints += [(L[k], whole) for k in ("identified_total", "duplicates", "outside", "screened", "excluded_ta", "sought",
                                      "not_retrieved", "assessed", "excluded_ft")]
    hints += [(L["reason"].format(reason=r), whole) for r in P["reasons"]]
    hints += [(L["reports"], whole), (L["studies"], whole), (L["double_n"], whole), (L["kappa"], "3 decimal places"),
              (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    body = [rng.choice(_ASK).format(**fill), f"Some context: {rng.choice(prof.occasions)}.",
            "The database exports, the Rayyan log and the full-text log are in the folder with the protocol."]
    rng.shuffle(body)
    parts = [rng.choice(_OPEN).format(**fill), " ".join(body),
             f"The draft already says we included {P['claim']} studies; tell me whether that stands.",
             "Please put in the output folder:\n"
             f"1. {D['memo']}: the flow-diagram counts, one line (or table row) per box with its label and value as "
             "below, then a short note on how you got them:\n" + "\n".join(f"   {k}: <{h}>" for k, h in hints) +
             f"\n2. {D['methods']}: the study-selection paragraph for the methods and results, in prose, with the "
             "counts of the flow diagram and kappa as in the table.",
             rng.choice(("The amended protocol in the folder sets the rules; it wins over anything said in passing.",
                         "Follow the protocol as amended; the registered version is archived.")) + " " +
             rng.choice(("Say briefly how you handled anything odd in the exports.",
                         "If the files disagree, tell me which one you relied on.")),
             rng.choice(("Thanks,\n{f}", "Cheers,\n{f}", "Much appreciated.\n- {f}")).format(f=who.split()[0]),
             "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers))]
    return "\n\n".join(p.strip("\n") for p in parts) + "\n"
