"""Composing a request from varied parts (who asks, why now, what they believe, what they need back), the people
in it, and the e-mails and meeting notes of a workspace."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .professions import FIRST_NAMES, SURNAMES, Profession

__all__ = ["person", "instructions", "email_text", "meeting_notes"]


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)}"


_OPENERS = (
    "From: {who}, {role} ({org})\nTo: {me}\nSubject: {subject}\n\nHi {me_first},\n",
    "Request logged by {who} ({role}, {org})\nRe: {subject}\n\n",
    "Hi {me_first} -\n\n",
    "Subject: {subject}\nFrom: {who} ({role})\n\nHello,\n",
    "Message from {who}, {role}\n\n{subject}. ",
    "Ticket: {subject}\nRequester: {who}, {role}, {org}\nAssigned to: {me}\n\n",
)

_WHY = (
    "{occasion}, so I need this turned around quickly.",
    "Some context: {occasion}.",
    "The reason for the rush is that {occasion}.",
    "{occasion}; this analysis is what I'll be presenting.",
    "As you know, {occasion}.",
    "Timing matters here because {occasion}.",
)

_DATA = (
    "The data is {about}; the extract is in the folder.",
    "You'll find the records in the folder: {about}.",
    "We're working from {about} (extract attached).",
    "The numbers come from {about}.",
    "I've put the extract in the shared folder. It covers {about}.",
    "Source data: {about}. Files are in the folder.",
)

_RULES = (
    "The standing rules for this kind of work are in {policy}; they take precedence over anything said in passing.",
    "Please follow {policy} for the thresholds, the scope and how to handle the data.",
    "{policy} has the house rules (thresholds, rounding, scope). Apply them as written.",
    "House rules are in {policy}. Where my note and the memo differ, the memo wins.",
    "Thresholds and data-handling rules are set out in {policy}.",
)

_CLOSE = (
    "Thanks,\n{who_first}",
    "Much appreciated.\n- {who_first}",
    "Shout if anything is unclear, but I'd rather you make a reasonable call and tell me how you made it.\n{who_first}",
    "Thanks in advance.\n{who}",
    "Cheers,\n{who_first}",
    "Please keep it tight; I'll be reading it on my phone.\n{who_first}",
)

_EXPLAIN = (
    "In the memo, say briefly how you handled anything odd in the files.",
    "If the files disagree with each other, tell me which one you relied on and why.",
    "Note any data problems you ran into and what you did about them.",
    "Spell out any judgement calls you made about the data.",
    "Explain in a few sentences how you resolved conflicting or ambiguous information.",
)

_DELIV_INTRO = (
    "What I need back (save these in the output folder):",
    "Please deliver the following to the output folder:",
    "Deliverables, in the output folder:",
    "{count} things, saved to the output folder:",
    "Output needed:",
)

_MEMO_INTRO = (
    "{memo} - start it with these lines exactly as labelled (label, colon, value), then a short rationale:",
    "{memo}: open with the lines below (one per line, label then colon then value), followed by your reasoning:",
    "{memo}, beginning with these labelled lines, then two or three paragraphs for the reader:",
    "A memo, {memo}, whose first lines are the following labels with your values, and then your explanation:",
)

_TABLE_INTRO = (
    "{table} with exactly these columns: {cols}.",
    "{table}: one row per {unit}, columns {cols}.",
    "A table, {table}, with the columns {cols} (one row per {unit}).",
    "{table} (columns: {cols}; one row per {unit}).",
)


def instructions(rng: random.Random, *, prof: Profession, requester: str, role: str, org: str, subject: str,
                 purpose: str, about: str, belief: str, table: dict[str, Any], memo_file: str,
                 memo_labels: Sequence[tuple[str, str]], extra_deliverables: Sequence[str], policy: str,
                 files: Sequence[str]) -> str:
    """The task prompt: a request in the requester's voice, the deliverables and the reference file list."""
    me = prof.title
    fill = {"who": requester, "who_first": requester.split()[0], "role": role, "org": org, "subject": subject,
            "me": f"the {me}", "me_first": rng.choice(("team", "there", "all")), "occasion": rng.choice(prof.occasions),
            "about": about, "policy": policy}
    parts = [rng.choice(_OPENERS).format(**fill)]
    body = [purpose, rng.choice(_WHY).format(**fill), rng.choice(_DATA).format(**fill)]
    rng.shuffle(body)
    parts.append(" ".join(s[0].upper() + s[1:] for s in body))
    parts.append(belief)
    cols = ", ".join(c for c in table["headers"])
    tline = rng.choice(_TABLE_INTRO).format(table=table["file"], cols=cols, unit=table["unit"])
    mline = rng.choice(_MEMO_INTRO).format(memo=memo_file)
    items = [tline, *extra_deliverables, mline + "\n" + "\n".join(f"   {lbl}: <{hint}>" for lbl, hint in memo_labels)]
    count = {2: "Two", 3: "Three", 4: "Four", 5: "Five"}.get(len(items), str(len(items)))  # table and memo at least
    deliv = [rng.choice(_DELIV_INTRO).format(count=count)] + [f"{i}. {t}" for i, t in enumerate(items, 1)]
    parts.append("\n".join(deliv))
    tail = [rng.choice(_RULES).format(**fill), rng.choice(_EXPLAIN)]
    rng.shuffle(tail)
    parts.append(" ".join(t[0].upper() + t[1:] for t in tail))
    parts.append(rng.choice(_CLOSE).format(**fill))
    parts.append("Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(files)))
    return "\n\n".join(p.strip("\n") for p in parts if p) + "\n"


def email_text(*, sender: str, to: str, subject: str, date: str, body: str) -> str:
    return f"From: {sender}\nTo: {to}\nDate: {date}\nSubject: {subject}\n\n{body.strip()}\n"


_NOTES = (
    "Agreed to revisit the dashboard colours next quarter.",
    "Room bookings for the offsite close on the 15th.",
    "New starters' onboarding checklist moved to the wiki.",
    "The shared drive migration happens over the weekend; save work before Friday.",
    "Reminder that the staff survey closes on Friday.",
    "Printer on the third floor is still out of toner.",
    "IT will rotate passwords for the reporting accounts next month.",
    "Catering budget for the summer event is approved.",
    "Someone asked whether last year's deck can be reused; answer was no, the figures changed.",
    "Next meeting moved to Thursday because of the public holiday.",
)


def meeting_notes(rng: random.Random, *, topic: str, people: Sequence[str], date: str) -> str:
    """Plausible but irrelevant meeting notes that mention the project in passing (different every task)."""
    picks = rng.sample(_NOTES, rng.randint(3, 5))
    lines = [f"Team meeting - {date}", f"Present: {', '.join(people)}", "",
             f"- Status of the {topic}: in progress, owner to circulate when done."] + [f"- {p}" for p in picks]
    return "\n".join(lines) + "\n"
