"""The documents of a jury summons planning workspace: the current jury management plan and the superseded one, the
orders continuing trial, the export notes, the e-mails and the distractors (text only; ``jury.py`` draws the data).

Failure behaviour: pure text builders; a missing key in the parameters raises KeyError.
"""

from __future__ import annotations

import random
from typing import Any

from ..compose import email_text

__all__ = ["TYPE_NAMES", "plan_lines", "order_text", "export_notes", "emails", "fee_schedule"]

TYPE_NAMES = {"FEL": "Felony (12-person jury)", "LIFE": "Felony punishable by life imprisonment (12-person jury, "
                                                       "extended voir dire)",
              "MISD": "Misdemeanor (6-person jury)", "CIV": "Civil (8-person jury)"}
_SOURCE_NAMES = {"VOTER": "the voter registration list (VOTER)",
                 "DMV": "the Department of Motor Vehicles list of licensed drivers and ID card holders (DMV)",
                 "STATEID": "the Department of Revenue list of state income tax filers (STATEID)"}


def plan_lines(P: dict[str, Any], current: bool) -> list[str]:
    """The jury management plan's sections on source lists, yield and summons planning; the superseded plan keeps
    its own panel sizes, margin and yield on delivered summonses."""
    srcs = P["source_priority"]
    order = ", ".join(srcs)
    if not current:
        plan = P["old_plan"]
        return [
            f"Jury Management Plan of the {P['court']} (adopted {P['old_adopted']}) - SUPERSEDED by the plan of "
            f"{P['plan_adopted']}",
            "Part 4. Summons planning.",
            "4.1 Yield is the jurors who appeared divided by the summonses delivered (summonses returned undeliverable "
            "are left out of the count).",
            "4.2 Panel sizes: " + "; ".join(f"{TYPE_NAMES[t]}: {n} jurors" for t, n in sorted(plan["panels"].items()))
            + ".",
            f"4.3 The jury office adds a safety margin of {plan['margin_pct']} % to each week's panels.",
            "4.4 Postponed jurors are summoned again with the next regular draw."]
    plan = P["plan"]
    shares = ", ".join(f"{s} {P['shares'][s]} %" for s in srcs)
    return [
        f"Jury Management Plan of the {P['court']} (adopted by general order {P['plan_adopted']}; replaces the plan of "
        f"{P['old_adopted']} in full)",
        "Part 2. Source lists.",
        "2.1 The master jury list merges " + ", ".join(_SOURCE_NAMES[s] for s in srcs) + ". A person on more than one "
        f"list is kept once, under the first of the lists in this order: {order}. The jury system's history export "
        "shows such a summons once per list (same summons number); it is one summons, counted under that source.",
        "2.2 A person summoned within the last 24 months is not summoned again. The names available on a source list "
        "are its names less those summoned in the last 24 months (pool status report).",
        "Part 3. Qualification, excusal and yield.",
        "3.1 Disqualification is the failure of a statutory qualification (citizenship, residence in the county, age "
        "18, no disqualifying felony conviction, proficiency in English). Excusal is a release for undue hardship, "
        "medical reasons, caregiving, full-time study, or the exemption of persons aged 70 or over who ask for it "
        "(reason code AGE70). Each summons is classified by its reason code's category in the status reason code "
        "table; the reason code governs where the status column disagrees.",
        "3.2 The summons yield of a source is the number of its summonses whose juror appeared (status APPEARED) "
        "divided by the number of its summonses mailed, delivered or not. Undeliverable, disqualified, excused, "
        "postponed and failure-to-appear (FTA) summonses are not yield.",
        f"3.3 Yields and the undeliverable, disqualification and excusal rates are measured on the summonses whose "
        f"report date falls from {P['window_start']} through the day before the planning date {P['plan_date']} "
        "(twelve months), each as a percentage of the summonses mailed, rounded half up to two decimals. The yield "
        "used to plan is that rounded percentage.",
        "Part 4. Summons planning.",
        "4.1 Panel sizes by case type: " + "; ".join(f"{TYPE_NAMES[t]} ({t}): {n} jurors"
                                                     for t, n in sorted(plan["panels"].items())) + ".",
        "4.2 A trial counts in the trial week (Monday to Friday) of its trial date as it stands after every order "
        "continuing trial entered on the docket (event code ORCT, with the new trial date; the latest order governs). "
        "A motion to continue (MTCT) or an order denying one (ODEN) leaves the trial where it is set.",
        f"4.3 Jurors needed for a week = the sum of the panel sizes of its trials x (1 + {plan['margin_pct']} % safety "
        "margin), rounded up to a whole juror.",
        "4.4 Postponed jurors rescheduled to report in a week have already qualified: each counts as one juror and is "
        "subtracted from that week's jurors needed (not below zero) to give the net need.",
        f"4.5 The net need is drawn from the source lists in fixed shares ({shares}). A source's need is its share of "
        "the net need rounded up to a whole juror; the summonses to mail from a source are its need divided by its "
        "yield, rounded up to a whole summons."]


def order_text(P: dict[str, Any], case: str, title: str, judge: str, old: str, new: str, date: str,
               granted: bool) -> str:
    head = [f"IN THE {P['court'].upper()}", "", title, f"Case No. {case}", ""]
    if granted:
        body = ["ORDER CONTINUING TRIAL", "",
                f"On the motion of the parties and for good cause shown, the jury trial set for {old} is VACATED and "
                f"CONTINUED to {new}. All pretrial deadlines run from the new trial date.", ""]
    else:
        body = ["ORDER DENYING MOTION TO CONTINUE TRIAL", "",
                f"The motion to continue the jury trial set for {old} is DENIED. The trial remains set for {old}.", ""]
    return "\n".join(head + body + [f"Dated {date}.", "", judge, "Judge of the Superior Court"]) + "\n"


def export_notes(P: dict[str, Any]) -> str:
    return "\n".join([
        "JMS summons history export - field notes", "",
        "summons_no      summons number (one per summons mailed)",
        "juror_id        juror record id",
        "source          source list the juror was matched on",
        "mailed_date     date the summons was mailed",
        "report_date     the Monday (or first court day) the juror was summoned to report",
        "status          UNDELIVERABLE, DISQUALIFIED, EXCUSED, POSTPONED, FTA (failure to appear), APPEARED",
        "reason_code     reason for a disqualification or excusal (see status_reason_codes.xlsx)", "",
        "Note: a juror matched on more than one source list is written on one row per list, with the same summons_no "
        "and outcome.",
        f"Extract run {P['plan_date']} for report dates {P['export_start']} onward."]) + "\n"


def emails(rng: random.Random, P: dict[str, Any], people: dict[str, str]) -> dict[str, str]:
    """Name -> text of the workspace's correspondence (the claim, the system upgrade, the address update, noise)."""
    up, ncoa, T = P["upgrade_date"], P["ncoa_date"], P["plan_date"]
    return {
        "claim": email_text(
            sender=f"{people['claimant']}, Jury Commissioner", to="Chief Deputy Clerk", date=P["claim_date"],
            subject=f"{P['month_name']} trial weeks",
            body=f"Looking at the trial calendar, the week of {P['claim_week']} will be our heaviest {P['month_name']} "
                 "week: it will need more summonses than any other week of the month. Can the planning memo confirm "
                 "before the calendar meeting?"),
        "upgrade": email_text(
            sender=f"{people['admin']}, Jury System Administrator", to="Jury Office", date=up,
            subject="JMS upgrade - status mapping",
            body=f"Since the JMS upgrade on {up}, an age-70 exemption request (reason code AGE70) posts with status "
                 "DISQUALIFIED instead of EXCUSED. The vendor will correct the mapping in the next release; the "
                 "reason code on each record is right, so classify by the reason code until then."),
        "ncoa": email_text(
            sender=f"{people['admin']}, Jury System Administrator", to="Jury Office", date=ncoa,
            subject="Master list address update",
            body=f"Starting with the draws mailed after {ncoa} the master list is run through the postal change-of-"
                 "address service before each draw. Expect far fewer summonses returned undeliverable from now on."),
        "vendor": email_text(
            sender="Print and mail vendor", to="Jury Office", date=T,
            subject="Mail-merge file for the next order",
            body="Please send the order as a csv with one row per report week and source list and the number of "
                 "summonses to print. Postage is billed per piece at the presort rate; the questionnaire insert is "
                 "unchanged."),
        "parking": email_text(
            sender=f"{people['facilities']}, Facilities", to="All court staff", date=P["claim_date"],
            subject="Juror parking",
            body="The north garage will be resurfaced over two weekends; jurors keep parking in the surface lot on "
                 "weekdays. Validation stickers are at the jury assembly room desk."),
    }


def fee_schedule() -> tuple[list[str], list[list[Any]]]:
    return (["item", "amount_usd", "note"],
            [["Juror fee, first day", 15.00, "per day of attendance"], ["Juror fee, later days", 40.00, "per day"],
             ["Mileage", 0.34, "per mile, one way"], ["Parking validation", 0.00, "surface lot"]])
