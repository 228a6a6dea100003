"""The documents of a retention campaign's workspace: the current and the superseded campaign rules, the e-mails,
the CRM notes and the distractors (the data tables themselves are drawn in ``retention.py``).

Failure behaviour: pure text and writer builders; they raise only KeyError on a parameter set that is not this
workflow's.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from ..compose import email_text, meeting_notes, person
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import iso

__all__ = ["rules_text", "workspace", "NOTE_TEXTS"]

NOTE_TEXTS = ("Billing query about a late-payment fee; explained and resolved.", "Updated the billing address.",
              "Asked about faster speeds; sent the upgrade brochure.", "Reported an outage; credit applied per tariff.",
              "Moved the direct debit date to the 15th.", "Asked for a paper bill; set up.",
              "Complained about hold times; apologised.", "Asked when the contract ends; told them the date.",
              "Changed the account holder's phone number.", "Router replaced under warranty.")


def rules_text(P: dict[str, Any], version: int, current: bool, effective: dt.date) -> list[str]:
    """The campaign rules: version ``version`` in force from ``effective`` (current), or its predecessor."""
    b = P["bands"] if current else P["old_bands"]
    head = [f"Retention campaign rules, version {version} (effective {iso(effective)})"
            + (f"; replaces version {version - 1} in full." if current else
               f"; superseded by version {version + 1}."),
            "1. Eligibility. An account is eligible for a proactive retention call when, on the campaign date: (a) "
            "its tenure is at least 12 months, i.e. its start date is on or before the same calendar date one year "
            "earlier; (b) its contract end date falls from the campaign date to 60 days after it, both days "
            "included; (c) no retention offer was accepted in the 12 months before the campaign date (an acceptance "
            "dated on or after the same calendar date one year earlier). Offers declined or not answered do not "
            "count, nor do acceptances older than 12 months."]
    if not current:
        return head + [
            f"2. Offer tiers by monthly ARPU: Tier A from {b['A']:.2f}, Tier B from {b['B']:.2f} up to Tier A, "
            "Tier C below Tier B.",
            "3. Do not call accounts flagged do-not-contact in the CRM.",
            "4. Order the dialler list by contract end date."]
    return head + [
        "2. Merged accounts. When accounts have been merged, tenure runs from the start date of the earliest account "
        "merged into the surviving account (the CRM account-merge log), not from the surviving account's own CRM "
        "start date.",
        "3. Do-not-contact. Leave off any account flagged do-not-contact in the CRM or listed in the compliance "
        "suppression file. The suppression file overrides the CRM flag: an account listed there is never called, "
        "whatever the CRM shows.",
        f"4. Offer tiers by monthly ARPU (the CRM's arpu field): Tier A from {b['A']:.2f} upwards; Tier B from "
        f"{b['B']:.2f} up to but not including {b['A']:.2f}; Tier C below {b['B']:.2f}. Each tier gets the active "
        "offer of that tier in the offer catalogue. Offers are set by the band only: an offer an agent promised a "
        "customer outside these rules is not put on the list (refer it to the team lead).",
        "5. Cost. The 12-month cost of an offer is its monthly discount times its discount months, counting no more "
        "than 12 months, plus any one-off cost. Expected figures use each tier's take rate in the offer catalogue: "
        "expected saves = take rate summed over the accounts on the list; expected offer cost = take rate x 12-month "
        "cost, summed; expected saved revenue = take rate x 12 x monthly ARPU, summed. Report saves to one decimal "
        "and money to two decimals, rounded half up.",
        "6. Dialler priority. Number the list from 1: the soonest contract end date first; on the same date the "
        "higher ARPU first; then the lower account number."]


def workspace(rng: random.Random, P: dict[str, Any], W: dict[str, Any], dirs: dict[str, str],
              T: dt.date) -> tuple[dict[str, Any], dict[str, str]]:
    """Every file of the task folder but the data tables: (relative path -> writer, relative path -> role)."""
    out: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        out[name], roles[name] = writer, role

    v = W["version"]
    eff = T - dt.timedelta(days=rng.randint(20, 120))
    old_eff = eff - dt.timedelta(days=rng.randint(300, 500))
    add(f"{dirs['policy']}/retention_campaign_rules_v{v}.docx", "policy", lambda p: write_docx(
        p, f"Retention campaign rules v{v}", rules_text(P, v, True, eff)))
    add(f"{dirs['policy']}/archive/retention_campaign_rules_v{v - 1}.pdf", "stale", lambda p: write_pdf(
        p, f"Retention campaign rules v{v - 1}", rules_text(P, v - 1, False, old_eff)))
    agent, fin, lead = W["agent"], person(rng), person(rng)
    focus, code = P["focus"], W["promised_code"]
    add(f"{dirs['mail']}/{iso(T - dt.timedelta(days=3))}_re_account_{focus}.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{agent}, Customer Service Representative", to="Retention Team Lead",
                      date=iso(T - dt.timedelta(days=3)), subject=f"Account {focus} - renewal call",
                      body=f"Account {focus} rang last week about their renewal and was ready to leave. I told them "
                           f"they are on this month's retention campaign and promised them {code} - please make sure "
                           "they are on the dialler list with that offer.")))
    add(f"{dirs['mail']}/{iso(T - dt.timedelta(days=6))}_offer_budget.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{fin}, Finance Business Partner", to="Retention Team Lead",
                      date=iso(T - dt.timedelta(days=6)), subject="Retention offer budget",
                      body=f"The offer budget for the {iso(T)} campaign is {P['budget']:,.2f} of expected 12-month "
                           "offer cost (take-rate weighted, as in the rules). Anything above needs a variation.")))
    add(f"{dirs['mail']}/{iso(T - dt.timedelta(days=15))}_dialler_format.txt", "email", lambda p: write_text(
        p, email_text(sender="Dialler administrator", to="Retention Team", date=iso(T - dt.timedelta(days=15)),
                      subject="Upload format", body="The dialler takes a csv with one row per account: account, "
                      "offer code and priority (1 dials first). No blank rows, no totals.")))
    prev = W["previous"]
    add(f"{dirs['campaign']}/dialler_list_{iso(prev[0])}.csv", "stale", lambda p: write_csv(
        p, ["account_id", "offer_code", "priority"], prev[1]))
    add(f"{dirs['campaign']}/campaign_results_{prev[0].year}.xlsx", "distractor", lambda p: write_xlsx(p, [(
        "Results", ["campaign", "called", "saves", "take_rate"], W["results"])]))
    add(f"{dirs['policy']}/call_script_retention.docx", "distractor", lambda p: write_docx(
        p, "Retention call script", ["Introduce yourself and confirm the account holder.",
                                     "Acknowledge the renewal date and ask how the service has been.",
                                     "Present the offer on the dialler screen; do not improvise other discounts.",
                                     "Record the outcome as accepted, declined or no response."]))
    add(f"meetings/{iso(T - dt.timedelta(days=10))}_retention_team.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="retention campaign", people=[lead, agent, person(rng)],
                         date=iso(T - dt.timedelta(days=10)))))
    add(f"{dirs['crm']}/plans.csv", "reference", lambda p: write_csv(p, ["plan", "speed_mbps", "list_price"], [
        ["Essential", 100, 32.00], ["Plus", 300, 48.00], ["Pro", 900, 68.00], ["Ultra", 2000, 95.00],
        ["Plus TV", 300, 84.00], ["Ultra TV", 2000, 129.00]]))
    return out, roles
