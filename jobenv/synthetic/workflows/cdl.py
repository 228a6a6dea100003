"""CDL renewal eligibility review of one renewal cycle: disqualifications, medical certification and hazmat threat
assessments, as a status upload for the licensing system and a summary (licensing examiners and inspectors).

A state licensing authority's CDLIS extract holds 2,400-3,600 commercial driver's licences; the cycle is the
90-150 VALID licences expiring in the month after the review date (the first of a month in 2025-2026), plus 2-4
licences in the window that were surrendered to another state or cancelled. Self-certification is NI 72 %, NA 8 %,
EI 14 %, EA 6 %; endorsements H 9 % and X 5 % (X is tank plus hazmat), N, T, P and S for colour. Medical
certificates of NI/NA drivers: 86 % a current 2-year card, 6 % a current 1-year card, 5 % an expired card, 3 %
none; about half also have older cards. Excepted drivers: half have no card, the rest an old or current one. Of
the hazmat drivers 90 % have a DNST within five years, the rest an older one. Each driver has 0-4 minor
convictions (the floor of an exponential of mean 0.6) and one serious violation (p 0.15) or two (p 0.03) somewhere
in the last seven years; court lag 20-150 days. Planted on drivers of their own: two or three with two serious
incidents in the three-year window, one with three, one major offence convicted inside the year and one outside it, one or two whose second serious violation
came from another state's court under its statute code, one out-of-state major offence, one or two late
adjudications (offence before the window, conviction inside it), one or two with two charges on one citation,
one or two 1-year cards expired though the exam was under 24 months ago, one re-examined driver whose new short
card has lapsed while the old one has not, excepted drivers without a card, one H driver whose renewal STA is
pending after a lapsed DNST and one X driver whose DNST lapsed. The carrier letter's licence is clean but for a
late adjudication (premise holds) or disqualified through an out-of-state conviction (it fails).

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed or a planted trap moves no graded
figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, llm, rubric
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, write_files
from .cdl_records import ACD, STATES, Book, back, book, months

__all__ = ["CDL_RENEWAL"]

SHORTCUTS = ("surrendered", "conviction_date", "same_incident", "out_of_state", "excepted", "exam_plus_24",
             "superseded_cert", "tsa_status", "x_endorsement")
_LABELS = {
    "cycle_n": ("Licences in the renewal cycle", "CDLs reviewed this cycle", "Cycle licences reviewed"),
    "renew_n": ("Clear to renew", "Licences renewable with no action", "Eligible to renew without action"),
    "dq_n": ("Disqualifications to issue", "Drivers to disqualify", "Disqualification orders"),
    "dq_list": ("Licences to disqualify", "Disqualified licences", "Licence numbers for disqualification"),
    "med_n": ("Medical certificate required", "Drivers needing a current medical card", "Medical certification holds"),
    "hazmat_n": ("Hazmat endorsements without a current TSA determination", "Hazmat TSA holds",
                 "HME holds (no current STA)"),
    "decision": ("Second hearing officer needed", "Request a second hearing officer", "Hearing capacity exceeded"),
    "premise": ("Licence {lic} clear to renew", "{lic} eligible to renew as the carrier says",
                "Carrier's claim for {lic} holds"),
}
_CODES = ({"renew": "RNW", "dq60": "DQ60", "dq120": "DQ120", "dq1y": "DQ1Y", "med": "MEDREQ", "hazmat": "HMTSA"},
          {"renew": "RENEW", "dq60": "SD060", "dq120": "SD120", "dq1y": "SD365", "med": "MEC", "hazmat": "HZHOLD"},
          {"renew": "ELIG", "dq60": "DS60", "dq120": "DS120", "dq1y": "DS365", "med": "MEDHOLD", "hazmat": "STA"})
_COLS = (["licence_no", "action_code", "remarks"], ["dl_number", "status_code", "comment"], ["cdl_no", "action", "note"])
_DIRS = {"cdlis": ("cdlis", "driver_records", "dl_extracts"), "medical": ("medical", "med_certs", "mec_uploads"),
         "tsa": ("tsa", "hazmat", "sta_results"), "ref": ("reference", "code_tables", "tables"),
         "manual": ("manual", "procedures", "program_manual"), "mail": ("mail", "correspondence", "inbox")}
_LIC = ["licence_no", "last_name", "first_name", "date_of_birth", "class", "endorsements", "restrictions",
        "self_cert", "issue_date", "expiration_date", "status"]
_CONV = ["licence_no", "citation_no", "charge_seq", "court_state", "court", "offence_date", "conviction_date", "code",
         "description"]


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------------

def _d(text: str) -> dt.date:
    return dt.date.fromisoformat(text.strip()[:10])


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: one pass over the extracts per licence."""
    folder, F = Path(folder), P["files"]

    def rows(rel: str) -> list[dict[str, str]]:
        with (folder / rel).open(newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    R, home = _d(P["review_date"]), P["home_state"].upper()
    kind = {r["acd_code"].upper(): r["category"].upper() for r in rows(F["codes"])}
    cross = {(r["state"].upper(), r["state_code"].strip().upper()): r["acd_code"].upper()
             for r in rows(F["crosswalk"])}
    lo, hi = _d(P["cycle_start"]), _d(P["cycle_end"])
    cycle = {r["licence_no"]: r for r in rows(F["licences"])
             if lo <= _d(r["expiration_date"]) <= hi and r["status"].strip().upper() == "VALID"}
    incidents: dict[str, set[str]] = {}
    major: set[str] = set()
    for c in rows(F["convictions"]):
        if c["licence_no"] not in cycle:
            continue
        code = c["code"].strip().upper()
        if c["court_state"].upper() != home:
            code = cross.get((c["court_state"].upper(), code), code)
        if kind.get(code) == "SERIOUS" and back(R, 3) <= _d(c["offence_date"]) <= R:
            incidents.setdefault(c["licence_no"], set()).add(c["citation_no"])
        if kind.get(code) == "MAJOR" and back(R, 1) <= _d(c["conviction_date"]) <= R:
            major.add(c["licence_no"])
    latest: dict[str, tuple[dt.date, dt.date]] = {}
    for m in rows(F["medical"]):
        exam = _d(m["exam_date"])
        if m["licence_no"] in cycle and (m["licence_no"] not in latest or exam > latest[m["licence_no"]][0]):
            latest[m["licence_no"]] = (exam, _d(m["expiration_date"]))
    cleared = {t["licence_no"] for t in rows(F["tsa"]) if t["status"].strip().upper() == "DNST"
               and t["determination_date"].strip() and back(R, 5) <= _d(t["determination_date"]) <= R}
    acts: dict[str, list[str]] = {}
    for lic, r in cycle.items():
        got = []
        n = len(incidents.get(lic, ()))
        if lic in major or n >= 2:
            got.append("dq1y" if lic in major else "dq120" if n >= 3 else "dq60")
        if r["self_cert"].upper() in ("NI", "NA") and not (lic in latest and latest[lic][1] >= R):
            got.append("med")
        if ("H" in r["endorsements"].upper() or "X" in r["endorsements"].upper()) and lic not in cleared:
            got.append("hazmat")
        acts[lic] = got or ["renew"]
    dq = sorted(k for k, v in acts.items() if v[0].startswith("dq"))
    count = {k: sum(k in v for v in acts.values()) for k in ("renew", "dq60", "dq120", "dq1y", "med", "hazmat")}
    return {"actions": {k: acts[k] for k in sorted(acts)}, "cycle_n": len(acts), "renew_n": count["renew"],
            "dq_list": dq, "dq_n": len(dq), **{f"{k}_n": v for k, v in count.items() if k != "renew"},
            "decision": len(dq) > int(P["hearing_slots"]), "premise": acts.get(P["premise_licence"]) == ["renew"]}


# ---- drawing a task -----------------------------------------------------------------------------------------

def _manual(P: dict[str, Any], current: bool) -> list[str]:
    C = P["codes"]
    if not current:
        return ["Chapter 6 - CDL renewal review (rev. 2016, superseded)",
                "6.1 Review every CDL expiring in the cycle month.",
                "6.2 Serious traffic violations: count the driver's convictions for serious violations with a conviction "
                "date in the three years before the review. Two convictions: 60-day disqualification; three: 120 days.",
                "6.3 Major offences: a major-offence conviction within one year before the review: one-year "
                "disqualification.",
                "6.4 Medical certification: a medical examiner's certificate is valid for 24 months from the date of the "
                "examination.",
                "6.5 Hazmat: an H endorsement needs a TSA threat assessment within five years."]
    return [
        f"Chapter 6 - CDL renewal eligibility review (rev. {P['manual_rev']}; replaces rev. 2016)",
        "6.1 Scope. A renewal cycle covers every CDL whose status is VALID and whose expiration date falls in the "
        "cycle window, first and last day included. Licences surrendered to another state or cancelled are not "
        "renewed and are left out of the review and the upload.",
        "6.2 Review date. Every test below is made as of the cycle's review date.",
        "6.3 Serious traffic violations (49 CFR 383.51(c), Table 2). Count the driver's convictions for serious "
        "traffic violations (ACD category SERIOUS in the code table) arising from separate incidents committed within "
        "the three years ending on the review date (on or after the same calendar date three years earlier).[1] "
        "Convictions on the same citation number arise from one incident and count once. Two incidents: 60-day "
        f"disqualification ({C['dq60']}); three or more: 120 days ({C['dq120']}).",
        "6.4 Major offences (49 CFR 383.51(b), Table 1). A conviction for a major offence (category MAJOR) whose "
        "conviction date is within the year ending on the review date (on or after the same calendar date one year "
        f"earlier): one-year disqualification ({C['dq1y']}). A driver gets one disqualification, the longest: "
        f"{C['dq1y']}, then {C['dq120']}, then {C['dq60']}.",
        "6.5 Out-of-state convictions. Convictions from other states' courts are reported under that state's statute "
        "code (court_state is not our state). Map each through the CDLIS crosswalk (state and state code to ACD code) "
        "before classifying it; in-state convictions carry ACD codes.",
        "6.6 Medical certification (49 CFR 383.71(h), 391.45). A driver self-certified NI or NA must have a current "
        "medical examiner's certificate; EI and EA drivers need none. The most recent certificate on file (latest "
        "examination date) supersedes every earlier one. It is current when the expiration date printed on it is on or "
        "after the review date; examiners issue certificates shorter than 24 months, so never extend a certificate "
        f"to 24 months from the examination. No current certificate: {C['med']}.",
        "6.7 Hazardous materials. An H endorsement, or X (tank vehicle and hazardous materials combined), requires a "
        "TSA security threat assessment: a Determination of No Security Threat (status DNST) whose determination date "
        "is on or after the same calendar date five years before the review date. A pending application, an IDTA or "
        f"a withdrawn application is not a determination. Without one: {C['hazmat']} (the licence renews without "
        "the endorsement until TSA clears the driver).",
        f"6.8 Status upload. One row per licence per action ({C['dq1y']}/{C['dq120']}/{C['dq60']}, {C['med']}, "
        f"{C['hazmat']}); a licence with no action gets one {C['renew']} row. The tests are independent: a disqualified "
        f"driver still gets a {C['med']} or {C['hazmat']} row where one applies. Counts in the summary are numbers "
        "of licences.",
        "6.9 Hearings. Every disqualification order carries the right to an administrative hearing.",
        "[1] The three-year period runs on offence (violation) dates, not conviction dates: a conviction entered inside "
        "the period for an offence committed before it does not count, however late the court ruled."]


def _data(P: dict[str, Any], b: Book) -> dict[str, Any]:
    F = P["files"]
    lics = [[r[h] for h in _LIC] for r in b.lics]
    cross = [[s, code, f"{ACD[acd][0].upper()} ({s})", acd] for s, m in sorted(P["native"].items())
             for acd, code in sorted(m.items())]
    return {
        F["licences"]: lambda p: write_csv(p, _LIC, lics),
        F["convictions"]: lambda p: write_csv(p, _CONV, b.convs),
        F["medical"]: lambda p: write_csv(p, ["licence_no", "exam_date", "expiration_date", "examiner_nrn",
                                              "restrictions", "posted_date"], sorted(b.certs)),
        F["tsa"]: lambda p: write_csv(p, ["licence_no", "application_id", "application_date", "status",
                                          "determination_date"], sorted(b.sta)),
        F["codes"]: lambda p: write_csv(p, ["acd_code", "description", "category"],
                                        [[k, v[0], v[1]] for k, v in sorted(ACD.items())]),
        F["crosswalk"]: lambda p: write_csv(p, ["state", "state_code", "state_description", "acd_code"], cross)}


def _workspace(rng: random.Random, P: dict[str, Any], b: Book, boss: str) -> tuple[dict[str, Any], dict[str, str]]:
    out: dict[str, Any] = {}
    kinds: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        out[name], kinds[name] = writer, role

    D, C = P["dirs"], P["codes"]
    R, cyc = _d(P["review_date"]), P["cycle_start"][:7]
    for rel, write in _data(P, b).items():
        add(rel, "data", write)
    add(f"{D['manual']}/cdl_manual_ch6_renewal_rev{P['manual_rev']}.pdf", "policy",
        lambda p: write_pdf(p, "CDL Program Manual, chapter 6", _manual(P, True)))
    add(f"{D['manual']}/archive/cdl_manual_ch6_renewal_rev2016.docx", "stale",
        lambda p: write_docx(p, "CDL Program Manual, chapter 6 (rev. 2016)", _manual(P, False)))
    add(f"{D['ref']}/endorsement_codes.docx", "reference", lambda p: write_docx(p, "CDL endorsement and self-"
        "certification codes", ["- H: hazardous materials (requires a TSA security threat assessment)",
                                "- N: tank vehicle", "- P: passenger", "- S: school bus", "- T: double/triple trailers",
                                "- X: tank vehicle and hazardous materials combined (H and N on one code)",
                                "Self-certification: NI non-excepted interstate, NA non-excepted intrastate, EI "
                                "excepted interstate, EA excepted intrastate."]))
    add(f"{D['ref']}/status_upload_layout.txt", "reference", lambda p: write_text(p, (
        "Licensing system batch import - CDL renewal status\nColumns, in order: " + ", ".join(P["upload_columns"])
        + f"\nAction codes: {C['renew']} clear to renew; {C['dq60']} 60-day disqualification; {C['dq120']} 120-day "
        f"disqualification; {C['dq1y']} one-year disqualification; {C['med']} medical certificate required; "
        f"{C['hazmat']} hazmat endorsement held pending TSA.\nOne row per licence and action code; licences outside the "
        "cycle are not uploaded. The last column is free text (the reason for the action).\n")))
    lic = P["premise_licence"]
    who = next(r for r in b.lics if r["licence_no"] == lic)
    mail = D["mail"]
    d1, d2, d3 = (R - dt.timedelta(days=k) for k in (3, 6, 9))
    add(f"{mail}/{d1.isoformat()}_carrier_letter.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Safety Director, {rng.choice(('Buckeye', 'Lakeshore', 'Tri-County', 'Heartland'))} "
               "Freight Lines", to="CDL Renewals", date=d1.isoformat(), subject=f"Renewal of CDL {lic}",
        body=f"Our driver {who['first_name'].title()} {who['last_name'].title()} (CDL {lic}) is up for renewal "
             "this cycle. The driver has no disqualifying convictions and a current medical card, so is clear to "
             "renew. Please make sure the renewal is not held up; we need the driver on the road.")))
    add(f"{mail}/{d2.isoformat()}_hearings_unit.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Administrative Hearings Unit", to=f"{boss}; CDL Renewals", date=d2.isoformat(),
        subject=f"Hearing slots for the {cyc} cycle",
        body=f"We can schedule {P['hearing_slots']} disqualification hearings from the {cyc} renewal cycle. Every "
             "disqualification order you issue may ask for one; if the cycle produces more orders than that, a second "
             "hearing officer has to be requested now.")))
    add(f"{mail}/{d3.isoformat()}_cdlis_interface.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, CDLIS Coordinator", to="CDL Renewals", date=d3.isoformat(),
        subject="Out-of-state convictions in the extract",
        body="Convictions forwarded by other states' courts still come through with the reporting state's own "
             "statute code in the code column. The crosswalk in the reference folder was refreshed last month and "
             "covers every state we receive from.")))
    add(f"{mail}/{(d3 - dt.timedelta(days=4)).isoformat()}_medical_program.txt", "email",
        lambda p: write_text(p, email_text(
            sender=f"{person(rng)}, Medical Program Coordinator", to="CDL Renewals",
            date=(d3 - dt.timedelta(days=4)).isoformat(), subject="Medical certificates in the extract",
            body="Reminder: examiners on the National Registry issue 1-year and shorter certificates for monitored "
                 "conditions, and drivers re-examined early get a new certificate that replaces the old one. The "
                 "certificate file keeps every card we have received.")))
    prev = months(R, -1)
    add(f"reports/renewal_cycle_{prev.strftime('%Y-%m')}_summary.md", "distractor", lambda p: write_text(p, (
        f"# Renewal cycle {prev.strftime('%Y-%m')} - summary\n\nLicences reviewed: {rng.randint(90, 150)}\n"
        f"Clear to renew: {rng.randint(70, 120)}\nDisqualifications: {rng.randint(2, 9)}\n"
        f"Medical holds: {rng.randint(5, 20)}\nHazmat holds: {rng.randint(1, 5)}\n")))
    olds = [[f"{P['prefix']}{rng.randint(10**7, 10**8 - 1)}", rng.choice([C['renew']] * 8 + [C['med'], C['dq60']]), ""]
            for _ in range(rng.randint(60, 120))]
    add(f"reports/renewal_cycle_{prev.strftime('%Y-%m')}_upload.csv", "distractor",
        lambda p: write_csv(p, P["upload_columns"], olds))
    add(f"meetings/{(R - dt.timedelta(days=12)).isoformat()}_licensing_team.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic=f"{cyc} renewal cycle", people=[person(rng) for _ in range(3)],
                         date=(R - dt.timedelta(days=12)).isoformat())))
    sites = [[f"Site {k}", rng.choice(("Columbus", "Dayton", "Toledo", "Akron", "Lima", "Zanesville")),
              rng.randint(4, 30)] for k in range(1, 7)]
    add("operations/skills_test_capacity.xlsx", "distractor",
        lambda p: write_xlsx(p, [("Sites", ["site", "city", "tests_per_week"], sites)]))
    return out, kinds


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.cdl import analyse

    prof = dataclasses.replace(profession(occupation), orgs=("a state Bureau of Motor Vehicles", "a state DMV's "
                               "commercial licensing section", "a transport licensing authority"))
    dirs = pick_labels(rng, _DIRS)
    R = dt.date(rng.choice((2025, 2026)), rng.randint(1, 11), 1)
    lo = months(R, 1)
    hi = months(lo, 1) - dt.timedelta(days=1)
    home = rng.choice(("OH", "PA", "IN", "MI", "WI", "KY"))
    stamp = R.isoformat()
    native: dict[str, dict[str, str]] = {}
    for s, pre in STATES.items():
        if s != home:
            nums = rng.sample(range(100, 999), len(ACD))
            native[s] = {acd: f"{pre}{n}" for acd, n in zip(sorted(ACD), nums)}
    P: dict[str, Any] = {
        "files": {"licences": f"{dirs['cdlis']}/cdl_holders_{stamp}.csv",
                  "convictions": f"{dirs['cdlis']}/conviction_history_{stamp}.csv",
                  "medical": f"{dirs['medical']}/medical_certificates_{stamp}.csv",
                  "tsa": f"{dirs['tsa']}/sta_results_{stamp}.csv", "codes": f"{dirs['ref']}/acd_code_table.csv",
                  "crosswalk": f"{dirs['ref']}/cdlis_state_code_crosswalk.csv"},
        "dirs": dirs, "review_date": stamp, "cycle_start": lo.isoformat(), "cycle_end": hi.isoformat(),
        "home_state": home, "native": native, "prefix": rng.choice(("D", "S", "C", "W")),
        "manual_rev": R.year - rng.randint(0, 1), "codes": dict(rng.choice(_CODES)),
        "upload_columns": list(rng.choice(_COLS)), "hearing_slots": 0, "premise_licence": "", "probe": {},
        "labels": {}, "deliverables": {
            "upload": rng.choice((f"renewal_status_upload_{lo.strftime('%Y%m')}.csv", "cdl_status_upload.csv",
                                  f"cycle_{lo.strftime('%Y_%m')}_actions.csv")),
            "memo": rng.choice(("renewal_cycle_summary.md", f"cycle_{lo.strftime('%Y_%m')}_summary.md",
                                "eligibility_review.md"))}}
    b, roles = book(rng, P, targets["premise"])
    P["premise_licence"] = roles["premise"][0]
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), _data(P, b))
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    n = truth["dq_n"]
    if targets["decision"]:
        P["hearing_slots"] = max(1, n - rng.randint(1, 2))
    else:
        P["hearing_slots"] = n + rng.randint(0, 2)
    truth["decision"] = n > P["hearing_slots"]
    if truth["decision"] != targets["decision"] or truth["premise"] != targets["premise"]:
        raise DegenerateTask("the targets are missed")
    keys = ("cycle_n", "renew_n", "dq_list", "dq60_n", "dq120_n", "dq1y_n", "med_n", "hazmat_n", "premise")
    where = {"surrendered": ("data", "surrendered and cancelled licences expire in the cycle window"),
             "conviction_date": ("footnote", "the three-year period runs on offence dates, not conviction dates"),
             "same_incident": ("memo", "two charges on one citation are one incident"),
             "out_of_state": ("email", "other states' convictions carry their statute codes, mapped by the crosswalk"),
             "excepted": ("memo", "EI and EA drivers need no medical certificate"),
             "exam_plus_24": ("memo", "a card is good to its printed expiry, which may be under 24 months"),
             "superseded_cert": ("email", "the latest certificate supersedes an earlier one that has not lapsed"),
             "tsa_status": ("data", "a pending or IDTA threat assessment is not a determination of no threat"),
             "x_endorsement": ("data", "an X endorsement includes hazmat")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s} for s, f in singles.items()
             if any(f[k] != truth[k] for k in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    A = truth["actions"]
    P["probe"] = {k: roles[k][0] for k in ("late", "incident", "oos", "oos_major", "excepted", "short", "superseded",
                                            "pending", "x_hold", "surrendered")}
    P["probe_actions"] = {k: A.get(v, []) for k, v in P["probe"].items()}
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(lic=P["premise_licence"])
    P["labels"] = labels
    boss = person(rng)
    writers, kinds = _workspace(rng, P, b, boss)
    return Draft(subject=f"CDL renewal eligibility, {lo.strftime('%Y-%m')} cycle", instructions=_prompt(
        rng, P, prof, boss, writers), files=writers, roles=kinds, params=P, traps=traps, targets=dict(targets),
        distributions="2,400-3,600 CDL holders, 90-150 in the cycle; self-certification NI 72 %, NA 8 %, EI 14 %, "
                      "EA 6 %; H 9 %, X 5 %; minor convictions floor(exponential, mean 0.6) up to 4; one serious "
                      "violation p 0.15, two p 0.03; court lag 20-150 days; medical cards 86 % current 2-year, 6 % "
                      "1-year, 5 % expired, 3 % none")


def _prompt(rng: random.Random, P: dict[str, Any], prof: Any, boss: str, writers: dict[str, Any]) -> str:
    D, L, cyc = P["deliverables"], P["labels"], P["cycle_start"][:7]
    lines = [(L["cycle_n"], "whole number"), (L["renew_n"], "whole number"), (L["dq_n"], "whole number"),
             (L["dq_list"], "licence numbers separated by semicolons"), (L["med_n"], "whole number of licences"),
             (L["hazmat_n"], "whole number of licences"), (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    steps = [f"Take the CDLs in the {cyc} renewal cycle from the CDLIS extract ({P['cycle_start']} to "
             f"{P['cycle_end']}), as of the review date {P['review_date']}.",
             "Review each driver's conviction history for disqualifications: serious violations and major offences, "
             "out-of-state convictions included.",
             "Check medical certification and, for hazmat endorsements, the TSA threat assessment.",
             "Write the status upload and the summary; tell me whether the hearings unit's slots cover the "
             f"disqualification orders, and answer the carrier's letter about CDL {P['premise_licence']}."]
    deliv = [f"{D['upload']}: the licensing system's status upload in the layout of "
             f"{P['dirs']['ref']}/status_upload_layout.txt (columns {', '.join(P['upload_columns'])}).",
             f"{D['memo']}: start with these lines (label: value), then a short note on how you read the records:\n"
             + "\n".join(f"   {k}: <{v}>" for k, v in lines)]
    opener = rng.choice((f"From: {boss}, Licensing Program Manager\nSubject: {cyc} CDL renewal cycle - eligibility "
                         "review\n\nHi,", f"Ticket: CDL renewal eligibility, {cyc} cycle\nRequester: {boss}, Licensing "
                         f"Program Manager, {rng.choice(prof.orgs)}\n\n"))
    why = rng.choice(("The renewal notices go out next week and I need to know who can renew and who needs medical or "
                      "hazmat clearance first.", "Before the renewal notices are printed I need the cycle's "
                      "eligibility: who renews, who is disqualified, who needs a medical card or a TSA clearance."))
    return "\n\n".join([
        opener, why + " The chapter 6 procedure in the program manual applies as written.",
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Deliverables in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliv, 1)),
        "Thanks,\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers))]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, C, cols = P["deliverables"], P["labels"], P["codes"], P["upload_columns"]
    up, memo, lic_col, act = D["upload"], D["memo"], cols[0], cols[1]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    A, pr = facts["actions"], P["probe"]

    def whole(key: str) -> tuple[str, Any]:
        return f"{L[key]} = {facts[key]}", FieldCheck(file=memo, label=L[key], number=float(facts[key]), tolerance=0.0)

    def rows(code: str) -> tuple[str, Any]:
        n = sum(code in v for v in A.values())
        return f"{up} has {n} {C[code]} rows", RowCountCheck(file=up, key=lic_col, where={act: C[code]}, count=n)

    def has(role: str, code: str) -> tuple[str, Any]:
        lic = pr[role]
        n = int(code in A.get(lic, []))
        return (f"{up}: {lic} has {n} {C[code]} row", RowCountCheck(file=up, key=lic_col, where={lic_col: lic, act: C[code]},
                                                                    count=n))

    def dq_of(role: str) -> tuple[str, Any]:
        lic = pr[role]
        code = next((a for a in A.get(lic, []) if a.startswith("dq")), "dq60")
        return has(role, code)

    prem = P["premise_licence"]
    prem_rows = A.get(prem, [])
    prem_check = (CellCheck(file=up, match={lic_col: prem}, column=act, value=C["renew"]) if prem_rows == ["renew"] else
                  RowCountCheck(file=up, key=lic_col, where={lic_col: prem, act: C[prem_rows[0]]}, count=1))
    out = [
        rubric("Reviews the VALID licences expiring in the cycle window, surrendered and cancelled ones left out", 8, [
            whole("cycle_n"), whole("renew_n"), rows("renew"),
            (f"{up} has no row for {pr['surrendered']}", RowCountCheck(file=up, key=lic_col,
                                                                       where={lic_col: pr["surrendered"]}, count=0))]),
        rubric("Counts serious violations by separate incident on offence dates, as the manual's footnote says", 10, [
            (f"{L['dq_list']}: {'; '.join(facts['dq_list'])}", FieldCheck(file=memo, label=L["dq_list"],
                                                                         items=list(facts["dq_list"]))),
            rows("dq60"), has("late", "dq60"), has("incident", "dq60")]),
        rubric("Maps other states' statute codes through the crosswalk before classifying convictions", 8, [
            whole("dq_n"), dq_of("oos"), has("oos_major", "dq1y")]),
        rubric("Issues one disqualification per driver, the longest: major offences one year, three serious 120 days",
               8, [rows("dq1y"), rows("dq120")]),
        rubric("Requires a current medical certificate of NI and NA drivers only, by the latest card's printed expiry",
               10, [whole("med_n"), rows("med"), has("short", "med"), has("superseded", "med"), has("excepted", "med")]),
        rubric("Holds H and X endorsements without a Determination of No Security Threat within five years", 8, [
            whole("hazmat_n"), rows("hazmat"), has("pending", "hazmat"), has("x_hold", "hazmat")]),
        rubric("Compares the disqualification orders with the hearings unit's slots", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            whole("dq_n")]),
        rubric(f"Settles the carrier's claim about CDL {prem} from the record", 8, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            (f"{up}: {prem} is {', '.join(C[a] for a in prem_rows)}", prem_check), whole("dq_n")]),
    ]
    if judgement:
        out.append(rubric("Writes a summary the program manager can act on", 6, [
            ("Explains the offence-date rule, the out-of-state mapping and the superseded medical cards", llm("content")),
            ("Answers the carrier's claim and the hearing capacity plainly", llm("writing"))]))
    return out


CDL_RENEWAL = Workflow(
    key="cdl_renewal_eligibility", family="licence_renewal_review",
    method="CDL renewal eligibility: 49 CFR 383.51 serious-violation count by separate incident on offence dates, "
           "major-offence disqualification, out-of-state code crosswalk, medical certificate currency by self-"
           "certification, hazmat TSA threat assessment",
    professions=("licensing_examiners_and_inspectors",), solver="cdl", shortcuts=SHORTCUTS, draw=draw,
    recheck=recheck, rubrics=rubrics, data="generated CDLIS extract, conviction history, medical certificates and TSA "
                                           "results (stated distributions)")
