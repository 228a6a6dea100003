"""DFW rates by section, modality and Pell status for the curriculum committee, with the Pell gap tested and small
cells suppressed (sociology lecturers).

One fall or spring term of an introductory sociology course at a fictional institution is generated: 16-22
sections (about 55 % in person, 30 % online, 15 % hybrid; at least three in person, three online and two hybrid),
each with 26-58 registrations and a Pell-eligible share of 25-45 % per section. Students drop before the census
date at 12-18 % in online sections, 4-8 % in person and 6-10 % hybrid (about one drop in ten dated on the census
date itself). A census-enrolled student's DFW probability is a base of 14-22 % plus a section effect (normal, sd 3
points), a modality effect (online 5-8 points above in person when the committee's belief is to hold, 1-4 points
below otherwise; hybrid 0-2 points above) and a Pell effect (9-13 points when the gap is to be significant, -1 to 2
points otherwise). DFW outcomes split W 45 %, F 35 %, D 20 %; the others A 30 %, B 35 %, C 35 %; 2-4 % of students
get an incomplete (I), of which 55-70 % are resolved in the grade-change file (to F 40 %, to B or C 60 %), and
2-6 grade appeals (D or F to C) are there too; in 60 % of terms one change is corrected by a later one. 1-2 % of
export rows are repeated verbatim. Last year's report counted pre-census drops as W and incompletes as DFW
(superseded).

Failure behaviour: ``draw`` raises DegenerateTask when the drawn term misses a targeted answer, the p-value sits
near the significance level, the online and in-person rates are within half a point, the worst section leads the
next by less than 0.3 points, a section has fewer than 15 census students, or a planted trap moves no graded
figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, read_rows, write_files

__all__ = ["DFW_RATES"]

_SCHOOLS = ("Calder Valley State University", "Northgate Community College", "Harrow Bay College",
            "Eastmere State University", "Linden Ridge Community College")
_MODES = ("In person", "Online", "Hybrid")
_LABELS = {
    "n": ("Census-date enrolment", "Students enrolled at census", "Census enrolment (all sections)"),
    "rate": ("Overall DFW rate (%)", "DFW rate, all sections (%)", "Course DFW rate (%)"),
    "worst": ("Worst section", "Section with the top DFW rate", "Section of greatest concern (DFW)"),
    "worst_rate": ("DFW rate of the worst section (%)", "Worst section's DFW rate (%)", "That section's DFW rate (%)"),
    "pell_rate": ("Pell DFW rate (%)", "DFW rate, Pell-eligible (%)", "Pell-eligible students' DFW rate (%)"),
    "non_rate": ("Non-Pell DFW rate (%)", "DFW rate, not Pell-eligible (%)", "Non-Pell students' DFW rate (%)"),
    "gap": ("Pell gap (percentage points)", "Pell minus non-Pell DFW gap (pp)", "Equity gap, Pell vs non-Pell (pp)"),
    "z": ("Two-proportion z", "z statistic, Pell vs non-Pell", "Pooled z for the Pell gap"),
    "p": ("p-value (two-sided)", "Two-sided p for the Pell gap", "p, two-proportion test"),
    "decision": ("Pell gap significant at the 5 % level", "Pell gap statistically significant (alpha 0.05)",
                 "Significant Pell gap at 0.05"),
    "suppressed": ("Suppressed cells", "Cells suppressed (small n)", "Number of suppressed cells"),
    "online_rate": ("Online DFW rate (%)", "DFW rate, online sections (%)", "Online sections' DFW rate (%)"),
    "inperson_rate": ("In-person DFW rate (%)", "DFW rate, in-person sections (%)", "In-person sections' DFW rate (%)"),
    "premise": ("Online sections have the higher DFW rate", "Online DFW rate above in-person",
                "Online sections do worse than in-person"),
}
_SHEET = {"section": ("section", "section_id"), "modality": ("modality", "instruction_mode"),
          "instructor": ("instructor", "instructor_name"), "n": ("census_n", "census_enrolment"),
          "dfw": ("dfw_n", "dfw_count"), "rate": ("dfw_rate_pct", "dfw_pct"), "pell_n": ("pell_n", "pell_census_n"),
          "pell_rate": ("pell_dfw_rate_pct", "pell_dfw_pct"), "non_n": ("non_pell_n", "nonpell_census_n"),
          "non_rate": ("non_pell_dfw_rate_pct", "nonpell_dfw_pct")}
_EXPORT = ({"term": "TERM_DESC", "section": "SECTION", "modality": "INSTR_METHOD", "instructor": "INSTRUCTOR",
            "student": "STUDENT_ID", "pell": "PELL_ELIGIBLE", "grade": "FINAL_GRADE", "drop": "DROP_DATE"},
           {"term": "term", "section": "course_section", "modality": "modality", "instructor": "instructor",
            "student": "emplid", "pell": "pell_flag", "grade": "grade", "drop": "drop_dt"})
_DIRS = {"reg": ("registrar", "registrar_exports", "records/registrar"), "ir": ("institutional_research", "ir", "oir"),
         "dept": ("department", "sociology_dept", "dept_files"), "mail": ("mail", "correspondence", "email")}
SHORTCUTS = ("duplicates", "precensus", "incomplete", "grade_changes")


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: the census roster as a dict keyed by
    (section, student), grade changes replayed in date order, then counts and the pooled z test by hand."""
    folder, F, C = Path(folder), P["files"], P["columns"]
    census = next(r["census_date"][:10] for r in read_rows(folder / F["census"]) if r["term"] == P["term"])
    final: dict[tuple[str, str], str] = {}
    for r in sorted(read_rows(folder / F["changes"]), key=lambda r: r["effective_date"]):
        final[(r["section"], r["student_id"])] = r["new_grade"].upper()
    roster: dict[tuple[str, str], dict[str, str]] = {}
    for r in read_rows(folder / F["enrol"]):
        if r[C["term"]] != P["term"] or (r[C["drop"]] and r[C["drop"]][:10] <= census):
            continue
        key = (r[C["section"]], r[C["student"]])
        roster[key] = {"section": key[0], "mode": r[C["modality"]], "pell": r[C["pell"]].upper()[:1],
                       "grade": final.get(key, r[C["grade"]].upper())}
    bad = set(P["dfw_grades"])
    cut = int(P["min_cell"])

    def count(keep: Any) -> tuple[int, int]:
        rows = [v for v in roster.values() if keep(v)]
        return len(rows), sum(v["grade"] in bad for v in rows)

    secs = sorted({v["section"] for v in roster.values()})
    sections: list[dict[str, Any]] = []
    for s in secs:
        n, d = count(lambda v, s=s: v["section"] == s)
        pn, _ = count(lambda v, s=s: v["section"] == s and v["pell"] == "Y")
        sections.append({"section": s, "n": n, "dfw": d, "rate": rnd(100 * d / n, 1), "raw": 100 * d / n,
                         "pell_n": pn, "non_n": n - pn})
    modes: list[dict[str, Any]] = []
    for m in P["modalities"]:
        n, d = count(lambda v, m=m: v["mode"] == m)
        modes.append({"modality": m, "n": n, "rate": rnd(100 * d / n, 1), "raw": 100 * d / n})
    n, d = count(lambda v: True)
    pn, pd_ = count(lambda v: v["pell"] == "Y")
    nn, nd = n - pn, d - pd_
    pool = d / n
    z = (pd_ / pn - nd / nn) / math.sqrt(pool * (1 - pool) * (1 / pn + 1 / nn))
    p = 2 * (1 - 0.5 * (1 + math.erf(abs(z) / math.sqrt(2))))
    top = sorted(sections, key=lambda s: (-s["raw"], s["section"]))[0]
    mode = {m["modality"]: m for m in modes}
    return {"sections": sections, "modes": modes, "n": n, "rate": rnd(100 * d / n, 1),
            "pell_rate": rnd(100 * pd_ / pn, 1), "non_rate": rnd(100 * nd / nn, 1),
            "gap": rnd(100 * pd_ / pn - 100 * nd / nn, 1), "z": rnd(z, 2), "p": rnd(p, 3), "worst": top["section"],
            "worst_rate": top["rate"], "suppressed": sum((s["pell_n"] < cut) + (s["non_n"] < cut) for s in sections),
            "online_rate": mode[P["online"]]["rate"], "inperson_rate": mode[P["inperson"]]["rate"],
            "decision": p < float(P["alpha"]), "premise": mode[P["online"]]["raw"] > mode[P["inperson"]]["raw"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _term(rng: random.Random, targets: dict[str, bool]) -> dict[str, Any]:
    """The term's sections and registrations: (section, modality, instructor, student, pell, grade, drop date)."""
    fall = rng.random() < 0.5
    year = rng.choice((2024, 2025))
    start = dt.date(year, 8, 24) if fall else dt.date(year + 1, 1, 18)
    start += dt.timedelta(days=rng.randint(0, 6))
    census = start + dt.timedelta(days=rng.randint(18, 25))
    last_w = start + dt.timedelta(days=rng.randint(65, 80))
    n_sec = rng.randint(16, 22)
    modes = ["In person"] * 3 + ["Online"] * 3 + ["Hybrid"] * 2
    modes += rng.choices(_MODES, weights=(55, 30, 15), k=n_sec - len(modes))
    rng.shuffle(modes)
    staff = [person(rng) for _ in range(rng.randint(6, 9))]
    base = rng.uniform(0.14, 0.22)
    online = rng.uniform(0.05, 0.08) if targets["premise"] else -rng.uniform(0.01, 0.04)
    effect = {"In person": 0.0, "Online": online, "Hybrid": rng.uniform(0.0, 0.02)}
    pell_fx = rng.uniform(0.09, 0.13) if targets["decision"] else rng.uniform(-0.01, 0.02)
    drop_p = {"In person": rng.uniform(0.04, 0.08), "Online": rng.uniform(0.12, 0.18), "Hybrid": rng.uniform(0.06, 0.10)}
    inc_p = rng.uniform(0.02, 0.04)
    ids = iter(rng.sample(range(100000, 999999), 2000))
    rows: list[list[Any]] = []
    changes: list[list[Any]] = []
    end = start + dt.timedelta(days=110)
    for k, mode in enumerate(modes):
        sec = f"SOC1010-{k + 1:03d}" if mode != "Online" else f"SOC1010-W{k + 1:02d}"
        teacher = rng.choice(staff)
        share = rng.uniform(0.25, 0.45)
        sec_fx = rng.gauss(0, 0.03)
        for _ in range(rng.randint(26, 58)):
            sid, pell = f"S{next(ids)}", rng.random() < share
            if rng.random() < drop_p[mode]:
                when = census if rng.random() < 0.1 else census - dt.timedelta(days=rng.randint(1, 30))
                rows.append([sec, mode, teacher, sid, "Y" if pell else "N", "", iso(when)])
                continue
            p = min(0.9, max(0.02, base + effect[mode] + sec_fx + (pell_fx if pell else 0.0)))
            drop = ""
            if rng.random() < inc_p:
                grade = "I"
                if rng.random() < rng.uniform(0.55, 0.70):
                    changes.append([sec, sid, "I", rng.choice(("F", "F", "B", "C", "C")),
                                    iso(end + dt.timedelta(days=rng.randint(20, 120)))])
            elif rng.random() < p:
                grade = rng.choices(("W", "F", "D"), weights=(45, 35, 20))[0]
                if grade == "W":
                    drop = iso(census + dt.timedelta(days=rng.randint(1, (last_w - census).days)))
            else:
                grade = rng.choices(("A", "B", "C"), weights=(30, 35, 35))[0]
            rows.append([sec, mode, teacher, sid, "Y" if pell else "N", grade, drop])
    graded = [r for r in rows if r[5] in ("D", "F")]
    for r in rng.sample(graded, min(len(graded), rng.randint(2, 6))):
        changes.append([r[0], r[3], r[5], "C", iso(end + dt.timedelta(days=rng.randint(10, 60)))])
    if changes and rng.random() < 0.6:  # a resolution keyed in wrongly and corrected later: the later one stands
        first = rng.choice([c for c in changes if c[2] == "I"] or changes)
        when = dt.date.fromisoformat(first[4]) + dt.timedelta(days=rng.randint(3, 20))
        changes.append([first[0], first[1], first[3], "F" if first[3] != "F" else "C", iso(when)])
    for r in rng.sample(rows, max(2, round(len(rows) * rng.uniform(0.01, 0.02)))):
        rows.append(list(r))
    rows.sort(key=lambda r: (r[0], r[3]))
    changes.sort(key=lambda r: r[4])
    name = f"{'Fall' if fall else 'Spring'} {start.year}"
    return {"rows": rows, "changes": changes, "term": name, "start": start, "census": census, "last_w": last_w,
            "end": end, "fall": fall, "staff": staff}


def _census_rows(t: dict[str, Any], rng: random.Random) -> list[list[Any]]:
    out = []
    for shift in (-2, -1, 0, 1):
        for name, month, first in (("Spring", 1, 18), ("Summer", 6, 2), ("Fall", 8, 24)):
            y = t["start"].year + shift
            term = f"{name} {y}"
            if term == t["term"]:
                out.append([term, iso(t["start"]), iso(t["census"]), iso(t["last_w"])])
            else:
                s = dt.date(y, month, first) + dt.timedelta(days=rng.randint(0, 6))
                out.append([term, iso(s), iso(s + dt.timedelta(days=21 if name != "Summer" else 8)),
                            iso(s + dt.timedelta(days=70 if name != "Summer" else 30))])
    return sorted(out, key=lambda r: r[1])


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.dfw import analyse

    prof = profession(occupation)
    t = _term(rng, targets)
    dirs = pick_labels(rng, _DIRS)
    cols = _EXPORT[rng.randrange(2)]
    school = rng.choice(_SCHOOLS)
    slug = t["term"].lower().replace(" ", "_")
    P: dict[str, Any] = {
        "files": {"enrol": f"{dirs['reg']}/exports/soc1010_enrolments_{slug}.csv",
                  "census": f"{dirs['reg']}/census_dates.csv",
                  "changes": f"{dirs['reg']}/grade_changes_{slug}.xlsx" if rng.random() < 0.5
                  else f"{dirs['reg']}/exports/grade_changes_{slug}.csv"},
        "columns": cols, "term": t["term"], "dfw_grades": ["D", "F", "W"], "min_cell": 10, "alpha": 0.05,
        "modalities": list(_MODES), "online": "Online", "inperson": "In person", "labels": {},
        "ir_dir": dirs["ir"], "dept_dir": dirs["dept"], "mail_dir": dirs["mail"],
        "sheet": rng.choice(("Sections", "By section", "DFW by section")), "sheet_labels": pick_labels(rng, _SHEET),
        "slide_titles": [f"SOC 1010 {t['term']}: DFW rate by section",
                         f"SOC 1010 {t['term']}: modality and the Pell gap"],
        "deliverables": {"workbook": rng.choice(("dfw_soc1010.xlsx", "dfw_rates.xlsx", "soc1010_dfw_workbook.xlsx")),
                         "slides": rng.choice(("dfw_committee.pptx", "soc1010_dfw_slides.pptx")),
                         "memo": rng.choice(("dfw_summary.md", "note_to_chair.docx", "dfw_cover_note.md"))}}
    data = _data(P, t, rng)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, data)
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
    if (truth["decision"], truth["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the drawn term misses a targeted answer")
    if abs(truth["p_raw"] - P["alpha"]) < 0.015:
        raise DegenerateTask("the p-value sits near the significance level")
    if abs(truth["online_rate"] - truth["inperson_rate"]) < 0.5:
        raise DegenerateTask("online and in-person rates within half a point")
    ranked = sorted((s["rate_raw"] for s in truth["sections"]), reverse=True)
    if ranked[0] - ranked[1] < 0.3:
        raise DegenerateTask("the worst section leads the next by less than 0.3 points")
    if min(s["n"] for s in truth["sections"]) < 15:
        raise DegenerateTask("a section with fewer than 15 census students")
    keys = ("n", "dfw", "rate", "pell_n", "non_n")
    where = {"duplicates": ("data", "the export repeats some enrolment rows; a student counts once per section"),
             "precensus": ("memo", "drops on or before the census date are not census enrolment (last year's "
                                   "report counted them as W)"),
             "incomplete": ("memo", "an unresolved incomplete is in the denominator only"),
             "grade_changes": ("data", "the grade-change file resolves incompletes and appeals")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k} for k, nf in singles.items()
             if len(nf["sections"]) == len(truth["sections"])
             and any(a[x] != b[x] for a, b in zip(nf["sections"], truth["sections"], strict=True) for x in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    labels["suppressed"] += f" (n < {P['min_cell']})"
    P["labels"] = labels
    writers, roles = _workspace(rng, P, t, school, data)
    prompt = _prompt(rng, P, t, prof, school, writers)
    return Draft(subject=f"SOC 1010 DFW rates and the Pell gap, {t['term']}", instructions=prompt, files=writers,
                 roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="16-22 sections (55/30/15 % in person/online/hybrid), 26-58 registrations each, Pell "
                               "share 25-45 %; pre-census drops 12-18 % online, 4-8 % in person, 6-10 % hybrid; "
                               "DFW base 14-22 % + section sd 3 pts + modality and Pell effects; W/F/D 45/35/20; "
                               "incompletes 2-4 %, 55-70 % resolved; 2-6 appeals; 1-2 % repeated rows")


def _data(P: dict[str, Any], t: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    F, C = P["files"], P["columns"]
    head = [C[k] for k in ("term", "section", "modality", "instructor", "student", "pell", "grade", "drop")]
    census = _census_rows(t, rng)
    change_head = ["section", "student_id", "old_grade", "new_grade", "effective_date"]
    changes = [list(r) for r in t["changes"]]
    out: dict[str, Any] = {
        F["enrol"]: lambda p: write_csv(p, head, [[t["term"], *r[:6], r[6]] for r in t["rows"]]),
        F["census"]: lambda p: write_csv(p, ["term", "first_day", "census_date", "last_day_to_withdraw"], census)}
    if F["changes"].endswith(".xlsx"):
        out[F["changes"]] = lambda p: write_xlsx(p, [("Grade changes", change_head, changes)])
    else:
        out[F["changes"]] = lambda p: write_csv(p, change_head, changes)
    return out


def _rules(P: dict[str, Any], t: dict[str, Any]) -> list[str]:
    return [
        "Institutional Research - reporting rules for course success and DFW rates (current; supersedes the rules "
        "used in earlier DFW reports)",
        "- Denominator: census-date enrolment. A registration counts when the student is still enrolled at the end "
        "of the term's census date (registrar census calendar). A drop dated on or before the census date is not "
        "enrolment and is left out entirely; a withdrawal after it is graded W and counts.",
        "- Each student counts once per section: if an export lists the same student in the same section more than "
        "once, count the registration once.",
        "- Numerator: final grades D, F and W. A, B and C are successful completions.",
        "- Final grade: the grade after every change in the registrar's grade-change file for the term (a later "
        "change replaces an earlier one), whether it resolves an incomplete or an appeal.",
        "- An incomplete (I) still open after the grade-change file stays in the denominator and is not a DFW grade.",
        "- DFW rate = DFW grades / census enrolment x 100, in per cent.",
        "- Gaps: the Pell gap is the Pell-eligible DFW rate minus the non-Pell DFW rate, in percentage points, from "
        "the unrounded rates. Test it with the pooled two-proportion z test (z = (p1 - p2) / sqrt(p(1 - p)(1/n1 + "
        f"1/n2)), p the pooled DFW proportion), two-sided, at a significance level of {P['alpha']}: the gap is "
        f"significant when p < {P['alpha']}.",
        f"- Small cells: in any table by section and Pell status, a cell (one section's Pell-eligible or non-Pell "
        f"students) with fewer than {P['min_cell']} census students is suppressed (its rate not shown); report "
        "how many cells were suppressed.",
        "- The worst section is the one with the highest DFW rate; a tie goes to the lower section number.",
        "- Modality is the section's instruction method in the registrar export (In person, Online, Hybrid).",
        "- Rounding: half up; rates and gaps to 1 decimal place, z to 2 decimal places, p-values to 3 decimal "
        "places.",
        "- Data handling: student ids stay on the institutional drive; slides show rates and counts only."]


def _workspace(rng: random.Random, P: dict[str, Any], t: dict[str, Any], school: str,
               data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    reg = P["files"]["census"].rsplit("/", 1)[0]
    ir, dept, mail = P["ir_dir"], P["dept_dir"], P["mail_dir"]
    prev = f"{t['term'].split()[0]} {t['start'].year - 1}"
    sent = iso(t["end"] + dt.timedelta(days=rng.randint(130, 160)))
    add(f"{ir}/policies/dfw_reporting_rules.docx", "policy",
        lambda p: write_docx(p, f"{school} - DFW reporting rules", _rules(P, t)))
    add(f"{ir}/archive/dfw_report_soc1010_{prev.lower().replace(' ', '_')}.pdf", "stale", lambda p: write_pdf(
        p, f"SOC 1010 DFW report, {prev} (superseded method)", [
            f"Prepared for the curriculum committee, {prev}.",
            "Method used in this report: DFW = (D + F + W) / all registrations in the export, counting every drop "
            "(including drops before the census date) as W and every incomplete (I) as a non-success.",
            f"Overall DFW rate {rng.uniform(24, 33):.1f} %; online sections {rng.uniform(30, 40):.1f} %, in person "
            f"{rng.uniform(20, 27):.1f} %.",
            "Note added by Institutional Research: this method was replaced by the current reporting rules; figures "
            "in this report are not comparable with later reports."]))
    add(f"{reg}/grade_codes.pdf", "reference", lambda p: write_pdf(p, "Registrar - grade and status codes", [
        "A, B, C: passing grades. D: passing, below the C required for the major. F: failing.",
        "W: withdrawal after the census date (drop date shown). I: incomplete; resolved by a later grade change.",
        "Blank grade with a drop date: dropped before grades were assigned.",
        "Pell eligible: Y when the student's aid record shows a Pell award for the term, N otherwise.",
        "The census calendar (census_dates.csv) gives each term's census date."]))
    add(f"{mail}/{iso(t['end'] + dt.timedelta(days=125))}_registrar_export.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}, Associate Registrar", to="sociology department", date=iso(
            t["end"] + dt.timedelta(days=125)), subject=f"SOC 1010 export for {t['term']}",
            body=f"Attached is the enrolment export for all SOC 1010 sections in {t['term']}, drops included, and the "
                 "grade changes we processed after the term (incompletes and appeals). The export tool repeats a "
                 "row now and then when a student has two holds on the account - the rows are identical.")))
    add(f"{mail}/{sent}_committee_request.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Curriculum Committee", to="Department Chair", date=sent,
        subject="SOC 1010 DFW before we vote on the online cap",
        body="Before we vote on capping online sections of SOC 1010, can we see DFW by section, by modality and by "
             "Pell status, with the gaps? Several of us think the online sections are clearly worse - last year's "
             "report showed it.")))
    add(f"{dept}/schedule_soc1010_{t['term'].lower().replace(' ', '_')}.xlsx", "reference", lambda p: write_xlsx(p, [
        ("Schedule", ["section", "modality", "instructor", "meeting", "cap"],
         sorted({(r[0], r[1], r[2], "asynchronous" if r[1] == "Online" else rng.choice(("MWF 09:00", "TR 11:00",
                                                                                         "MW 14:00")), 55)
                 for r in t["rows"]}))]))
    add(f"{dept}/soc1010_syllabus_template.docx", "distractor", lambda p: write_docx(p, "SOC 1010 syllabus template", [
        "Course description: an introduction to the sociological imagination, culture, stratification and institutions.",
        "Grading: exams 45 %, response papers 30 %, participation 25 %.", "Late work loses 5 % a day."]))
    add(f"{ir}/peer_dfw_benchmarks.csv", "distractor", lambda p: write_csv(p, ["course", "term", "dfw_rate_pct"], [
        [c, prev, f"{rng.uniform(12, 30):.1f}"] for c in ("PSY 1010", "ECO 2010", "HIS 1110", "MAT 1050")]))
    add(f"{dept}/meetings/{sent}_department_meeting.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="SOC 1010 DFW review", people=[person(rng) for _ in range(3)], date=sent)))
    add(f"{ir}/advising/early_alert_summary_{t['term'].lower().replace(' ', '_')}.csv", "distractor",
        lambda p: write_csv(p, ["week", "alerts_raised", "alerts_closed"],
                            [[k, rng.randint(5, 40), rng.randint(3, 35)] for k in range(2, 9)]))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], t: dict[str, Any], prof: Any, school: str,
            writers: dict[str, Any]) -> str:
    L, D, W = P["labels"], P["deliverables"], P["sheet_labels"]
    pct = "per cent, 1 decimal place"
    memo_labels = [(L["n"], "whole number"), (L["rate"], pct), (L["worst"], "section id as in the export"),
                   (L["worst_rate"], pct), (L["pell_rate"], pct), (L["non_rate"], pct),
                   (L["gap"], "percentage points, 1 decimal place, Pell minus non-Pell"),
                   (L["z"], "2 decimal places"), (L["p"], "3 decimal places"), (L["decision"], "yes or no"),
                   (L["suppressed"], "whole number"), (L["online_rate"], pct), (L["inperson_rate"], pct),
                   (L["premise"], "yes or no")]
    return instructions(
        rng, prof=prof, requester=person(rng), role="Department Chair", org=school,
        subject=f"SOC 1010 DFW rates, {t['term']}",
        purpose=rng.choice(("the curriculum committee wants DFW by section, modality and Pell status, with the gaps.",
                            "I need the SOC 1010 DFW rates by section, modality and Pell status, with the Pell gap "
                            "tested.",
                            "please put together the DFW analysis for SOC 1010 the committee asked for.")),
        about=f"the registrar's SOC 1010 enrolment export for {t['term']}, the census calendar and the grade changes",
        belief="Committee members keep saying the online sections are worse; I'd like to know whether that holds "
               "on this term's record.",
        table={"file": D["workbook"], "headers": [W[k] for k in ("section", "modality", "instructor", "n", "dfw",
                                                                  "rate", "pell_n", "pell_rate", "non_n",
                                                                  "non_rate")],
               "unit": "section"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(
            f"In {D['workbook']} that table is a sheet named {P['sheet']} (rates in per cent; a suppressed cell says "
            f"suppressed); add a sheet Modality (columns {W['modality']}, {W['n']}, {W['dfw']}, {W['rate']}; one row "
            f"per modality) and a sheet Summary (columns Item, Value) whose rows include {L['rate']}, {L['gap']}, "
            f"{L['z']} and {L['p']}. Counts, rates, the gap, z and p are live formulas.",
            f"{D['slides']}: two slides for the committee - DFW by section (with {L['rate']}, {L['worst']} and "
            f"{L['worst_rate']}) and modality with the Pell gap (with {L['gap']}, {L['z']}, {L['p']}, "
            f"{L['decision']} and {L['suppressed']}), each as 'label: value' lines; state the test and the "
            "suppression rule on the slide."),
        policy=f"the institutional research reporting rules in {P['ir_dir']}/policies/", files=sorted(writers))


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck

    D, L, W = P["deliverables"], P["labels"], P["sheet_labels"]
    book, memo, slides, sheet = D["workbook"], D["memo"], D["slides"], P["sheet"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    secs = facts["sections"]

    def cells(key: str, places: int | None) -> list[tuple[str, Any]]:
        out = []
        for s in secs:
            v = s[key]
            text = f"{v:.{places}f}" if places else f"{v}"
            out.append((f"{book} {sheet}: {s['section']} {W[key]} = {text}",
                        CellCheck(file=book, sheet=sheet, match={W["section"]: s["section"]}, column=W[key],
                                  value=float(v), tolerance=tol(places) if places else 0.0)))
        return out

    def num(key: str, places: int, file: str = memo) -> tuple[str, Any]:
        return f"{file}: {L[key]} = {facts[key]:.{places}f}", fld_num(file, L[key], facts[key], places)

    def count(key: str, file: str = memo) -> tuple[str, Any]:
        return f"{file}: {L[key]} = {facts[key]}", FieldCheck(file=file, label=L[key], number=float(facts[key]),
                                                               tolerance=0.0)

    def summary(key: str, places: int) -> tuple[str, Any]:
        return (f"{book} Summary: {L[key]} = {facts[key]:.{places}f}",
                CellCheck(file=book, sheet="Summary", match={"Item": L[key]}, column="Value", value=float(facts[key]),
                          tolerance=tol(places)))

    def mode(m: str, key: str) -> tuple[str, Any]:
        row = next(r for r in facts["modes"] if r["modality"] == m)
        text = f"{row[key]:.1f}" if key == "rate" else f"{row[key]}"
        return (f"{book} Modality: {m} {W[key]} = {text}",
                CellCheck(file=book, sheet="Modality", match={W["modality"]: m}, column=W[key], value=float(row[key]),
                          tolerance=tol(1) if key == "rate" else 0.0))

    worst = (f"{L['worst']}: {facts['worst']}", fld(memo, L["worst"], facts["worst"]))
    out = [
        rubric("Builds census enrolment: pre-census drops out, each student once per section", 10, [
            count("n"), *cells("n", None)]),
        rubric("Counts D, F and W final grades after the grade changes, an open incomplete in the denominator only", 10,
               cells("dfw", None)),
        rubric("Reports the DFW rate by section and names the worst section", 10, [
            *cells("rate", 1), worst, num("worst_rate", 1)]),
        rubric("Gives the overall DFW rate", 8, [num("rate", 1), summary("rate", 1), num("rate", 1, slides)]),
        rubric("Measures the Pell gap with a pooled two-proportion z test", 10, [
            num("pell_rate", 1), num("non_rate", 1), num("gap", 1), num("z", 2), num("p", 3), summary("gap", 1),
            summary("z", 2)]),
        rubric("Decides whether the Pell gap is significant at the stated level", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]),
                                                               ["yes", "no"])),
            (f"{slides}: {L['decision']}: {yes(facts['decision'])}",
             fld(slides, L["decision"], yes(facts["decision"]), ["yes", "no"])), num("gap", 1, slides)]),
        rubric("Suppresses section-by-Pell cells under the minimum n and counts them", 6, [
            count("suppressed"), count("suppressed", slides), *cells("pell_n", None), *cells("non_n", None)]),
        rubric("Answers the committee's belief that online sections are worse", 8, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            num("online_rate", 1), num("inperson_rate", 1), mode(P["online"], "rate"), mode(P["inperson"], "rate"),
            mode(P["online"], "n")]),
        rubric("Hands over the committee slides", 6, [
            (f"{slides}: {L['worst']}: {facts['worst']}", fld(slides, L["worst"], facts["worst"])),
            num("worst_rate", 1, slides), num("z", 2, slides)]),
    ]
    if judgement:
        out.append(rubric("Explains the counting rules the committee needs to trust the figures", 6, [
            ("Says that drops before the census date were left out, unlike last year's report", llm("explanation")),
            ("Says how incompletes, grade changes and repeated export rows were handled", llm("explanation")),
            ("States the test, its significance level and the small-cell suppression rule", llm("content"))]))
        out.append(rubric("Answers the committee's question about online sections with the evidence", 6, [
            ("Compares online and in-person DFW on census enrolment and says whether the belief holds",
             llm("reasoning")),
            ("Keeps to what the data can show (no causal claims about modality or Pell status)", llm("tone")),
            ("Is short enough for a committee slide deck and cover note", llm("writing"))]))
    return out


DFW_RATES = Workflow(
    key="dfw_rates", family="course_outcomes",
    method="DFW rates on census-date enrolment with a pooled two-proportion z test of the Pell gap and small-cell "
           "suppression",
    professions=("sociology_teachers_postsecondary",), solver="dfw", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated registrar enrolment export (stated distributions)")
