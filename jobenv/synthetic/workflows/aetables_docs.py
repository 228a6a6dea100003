"""The documents of a DSMB adverse-event task: the current and archived SAP, the DSMB charter and the workspace
around the ADSL/ADAE exports (see ``aetables``).

Failure behaviour: the writers raise whatever the file writers raise.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from ..compose import email_text, meeting_notes, person
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import iso

__all__ = ["workspace", "ADSL", "ADAE", "LISTING"]

ADSL = ["STUDYID", "USUBJID", "SITEID", "AGE", "SEX", "RACE", "ARM", "TRT01A", "RANDDT", "TRTSDT", "TRTEDT", "SAFFL",
        "ITTFL", "EOTSTT"]
ADAE = ["STUDYID", "USUBJID", "AESEQ", "AETERM", "AEDECOD", "AEBODSYS", "AESTDTC", "AEENDTC", "AESER", "AESEV",
        "AEREL", "AEOUT"]
LISTING = ["Subject", "Treatment", "Preferred term", "System organ class", "Onset", "Outcome"]


def _sap(P: dict[str, Any], current: bool) -> list[str]:
    a0, a1 = P["arms"]
    if not current:
        return [f"Statistical analysis plan {P['study']}, version 1.0 (superseded by version 2.0)",
                "Section 9.1 Analysis sets: safety tables are presented for the randomised set, by randomised arm.",
                "Section 9.3 Treatment-emergent adverse events: onset on or after the first dose and no later than the "
                "last dose + 14 days.",
                "Section 9.4 Partial dates: a missing day is imputed as the 1st of the month; a missing month and day "
                "as 1 January.",
                "Section 9.5 Frequencies are numbers of events by system organ class and preferred term."]
    return [
        f"Statistical analysis plan {P['study']}, version 2.0 (current; supersedes version 1.0 in full)",
        "Section 9.1 Analysis sets: safety analyses use the safety set, all randomised subjects who received at least "
        "one dose of study drug (ADSL SAFFL = Y), analysed by actual treatment (TRT01A). Percentages use the number "
        "of subjects in the safety set of the arm as denominator.",
        f"Section 9.3 Treatment-emergent adverse events (TEAE): an adverse event whose onset date is on or after the "
        f"date of first dose (TRTSDT) and on or before the date of last dose (TRTEDT) + {P['window_days']} days, both "
        "limits inclusive. For a subject still on treatment at the data cut (TRTEDT blank) the window has no upper "
        "limit. Events that began before the first dose are medical history / pre-treatment events, not TEAEs.",
        "Section 9.4 Partial onset dates (AESTDTC in ISO 8601, possibly YYYY-MM or YYYY): if the day is missing, "
        "impute the date of first dose when the year and month equal those of the first dose, otherwise the 1st of "
        "the month. If month and day are missing, impute the date of first dose when the year equals the year of "
        "first dose, otherwise 1 January. Imputed dates are used only to classify the event.",
        "Section 9.5 Interim data cuts: only events with onset (after imputation) on or before the data cut date are "
        "tabulated. Serious adverse events in the export with onset after the cut are listed separately for the "
        "DSMB (subject identifiers) and not tabulated.",
        "Section 9.6 Frequencies: a subject is counted once per system organ class and once per preferred term "
        "(MedDRA), however many events they had. The TEAE table has one row per SOC in which at least one subject "
        "of either arm had a TEAE. Percentages, differences and p-values are rounded half up (half away from zero) to the stated places.",
        f"Section 9.7 Serious adverse events: a treatment-emergent SAE is a TEAE with AESER = Y. The SAE risk "
        f"difference is the proportion of subjects with at least one treatment-emergent SAE on {a0} minus the "
        f"proportion on {a1}, in percentage points to 1 decimal place, with the Newcombe hybrid score (Wilson) 95% "
        "confidence interval (method 10, no continuity correction) to 1 decimal place, and Fisher's exact test, "
        "two-sided, p to 4 decimal places.",
        f"Section 9.8 The most frequent preferred term on {a0} is the term with the most subjects with a TEAE; "
        "ties are broken alphabetically."]


def _charter(P: dict[str, Any]) -> list[str]:
    return [f"DSMB charter {P['study']}, version 1.1",
            "The closed-session report includes TEAE frequencies by arm and SOC, serious adverse events by arm and "
            "the SAE risk difference with its 95% confidence interval, prepared by the unblinded statistician as the "
            "SAP specifies.",
            f"Safety signal rule: an SAE imbalance is flagged for the closed session when the lower limit of the 95% "
            f"confidence interval of the SAE risk difference ({P['arms'][0]} minus {P['arms'][1]}) is above 0.",
            "Listings and tables prepared for an earlier meeting are not re-used: each meeting's report is derived "
            "from the datasets of its own data cut."]


def workspace(rng: random.Random, P: dict[str, Any], subs: list[dict[str, Any]], adae: list[list[Any]],
               listing: list[list[Any]], D: dict[str, str], mm: str) -> tuple[dict[str, Any], dict[str, str]]:
    out: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        out[name], roles[name] = writer, role

    F, cut = P["files"], dt.date.fromisoformat(P["cut"])
    adsl = [[P["study"], s["id"], s["site"], rng.randint(19, 78), rng.choice("MF"),
             rng.choice(("WHITE", "WHITE", "BLACK OR AFRICAN AMERICAN", "ASIAN", "OTHER")), s["arm"],
             s["arm"] if s["first"] else "", iso(s["rand"]), iso(s["first"]) if s["first"] else "",
             iso(s["last"]) if s["last"] else "", "Y" if s["first"] else "N", "Y", s["status"]] for s in subs]
    add(F["adsl"], "data", lambda p: write_csv(p, ADSL, adsl))
    add(F["adae"], "data", lambda p: write_csv(p, ADAE, adae))
    add(F["old_listing"], "stale", lambda p: write_xlsx(p, [("SAE listing", LISTING, listing)]))
    add(f"{D['data']}/{P['cut']}/define_notes.txt", "reference", lambda p: write_text(p, (
        f"{P['study']} interim extract, data cut {P['cut']} (extracted {iso(cut + dt.timedelta(days=12))})\n"
        "ADSL: one row per randomised subject. TRTSDT/TRTEDT first and last dose dates; TRTEDT is blank for subjects "
        "still on treatment. SAFFL = Y when at least one dose was taken. ARM is the randomised arm, TRT01A the actual "
        "treatment (blank when never dosed).\n"
        "ADAE: one row per reported adverse event as coded (MedDRA 27.0). AESTDTC is ISO 8601 and may be partial "
        "(YYYY-MM or YYYY). The extract was taken after the cut and holds events entered up to extraction, including "
        "events that began after the cut. TRTEMFL is not derived in this interim extract; derive it per the SAP.\n")))
    add(f"{D['data']}/{P['cut']}/exposure_summary.xlsx", "distractor", lambda p: write_xlsx(p, [(
        "Exposure", ["arm", "dosed", "median days on treatment", "completed 24 weeks"],
        [[a, sum(1 for s in subs if s["arm"] == a and s["first"]), rng.randint(120, 168),
          sum(1 for s in subs if s["arm"] == a and s["status"] == "COMPLETED")] for a in P["arms"]])]))
    add(f"{D['sap']}/{P['study']}_SAP_v2.0.docx", "policy", lambda p: write_docx(p, "Statistical analysis plan v2.0",
                                                                                _sap(P, True)))
    add(f"{D['sap']}/archive/{P['study']}_SAP_v1.0.pdf", "stale", lambda p: write_pdf(
        p, "Statistical analysis plan v1.0 (superseded)", _sap(P, False)))
    add(f"{D['dsmb']}/charter/DSMB_charter_v1.1.pdf", "policy", lambda p: write_pdf(p, "DSMB charter v1.1", _charter(P)))
    add(f"{D['dsmb']}/{P['old_cut']}_meeting/closed_session_minutes.docx", "distractor", lambda p: write_docx(
        p, f"DSMB closed session minutes (data cut {P['old_cut']})", [
            "The board reviewed enrolment, exposure and the SAE listing of the data cut.",
            "No action was recommended. The board asked for SAE risk differences with confidence intervals at the "
            "next meeting.", f"Next meeting planned after the data cut of {P['cut']}."]))
    M = D["mail"]
    d1, d2, d3 = (iso(cut + dt.timedelta(days=k)) for k in (13, 15, 16))
    add(f"{M}/{d1}_data_management_extract.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Clinical Data Manager", to="unblinded statistics", date=d1,
        subject=f"{P['study']} DSMB extract, cut {P['cut']}",
        body=f"The ADSL and ADAE exports for the {P['cut']} cut are in the usual folder. We extracted after the cut, so "
             "sites' late entries are in, including a few events that started after the cut date. Partial onset dates "
             "are as entered. Last meeting's SAE listing is still in the DSMB folder if you want to compare.")))
    add(f"{M}/{d2}_medical_monitor_summary.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{mm}, Medical Monitor", to="clinical analytics", date=d2, subject="Blinded AE review",
        body=f"From my blinded review of the listings, {P['claimed_pt']} looks like the most frequent adverse event on "
             f"{P['arms'][0]}. I have told the sponsor's safety physician as much.")))
    add(f"{M}/{d3}_dsmb_coordinator.txt", "distractor", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, DSMB Coordinator", to="clinical analytics", date=d3, subject="Closed session logistics",
        body="The closed session starts at 14:00 on Thursday by video. Please send the closed report to me only; the "
             "open report goes to the sponsor as usual.")))
    add(f"meetings/{iso(cut + dt.timedelta(days=9))}_study_team.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{P['study']} DSMB preparation", people=[person(rng) for _ in range(3)],
        date=iso(cut + dt.timedelta(days=9)))))
    sites = sorted({s["site"] for s in subs})
    add(f"{D['data']}/{P['cut']}/site_enrolment.csv", "distractor", lambda p: write_csv(
        p, ["SITEID", "randomised", "screen_failures"],
        [[x, sum(1 for s in subs if s["site"] == x), rng.randint(0, 9)] for x in sites]))
    add(f"protocol/{P['study']}_protocol_synopsis_v3.pdf", "distractor", lambda p: write_pdf(
        p, f"{P['study']} protocol synopsis v3", [
            f"Randomised 1:1, double-blind, {P['arms'][0]} versus {P['arms'][1]}, 24 weeks of treatment and a 30-day "
            "safety follow-up.", "Primary endpoint: change from baseline at week 24.",
            "An independent DSMB reviews unblinded safety data at interim data cuts."]))
    return out, roles

