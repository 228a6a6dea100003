"""18-week referral-to-treatment (RTT) breach list at a census date, in booking order (medical secretaries; the
Clinic Director's reply to waiting-time complaints).

The waiting list is generated: 220-340 referrals received over the 40 weeks before the census date across three
or four specialties (urgent 15 %, soon 25 %, routine 60 %); the first outpatient appointment log-normal after
receipt (median 16 days urgent, 35 soon, 70 routine, sigma 0.5); outcomes attended 80 %, DNA 8 %, cancelled by
the patient 7 %, by the hospital 5 % (each rebooked 14-60 days later); definitive treatment log-normal after the
first attendance (median 50 days, sigma 0.6). 2-4 referrals are re-sent by the GP 5-40 days after the original
(duplicates). Clock rules and the threshold are the folder's current access policy; the archived policy restarted
the clock on any cancellation.

Failure behaviour: ``draw`` raises DegenerateTask when a draw cannot meet its targets or a planted item changes no
graded fact; ``recheck`` raises OSError/KeyError/ValueError on an unreadable folder.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, llm, rubric
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, write_files

__all__ = ["RTT_BREACH_LIST"]

_SPECIALTIES = ("Dermatology", "ENT", "Gastroenterology", "Trauma and Orthopaedics", "Urology", "Ophthalmology")
_URGENCY = ("Urgent", "Soon", "Routine")
_LABELS = {
    "count": ("Referrals in breach of 18 weeks", "RTT breaches at census", "Pathways over 18 weeks"),
    "longest_days": ("Longest wait (days)", "Longest open RTT wait (days)", "Days waited, longest pathway"),
    "longest_ref": ("Longest-waiting referral", "Referral with the longest wait", "Longest wait, referral ID"),
    "first": ("First to book", "Referral booked first", "Top of the booking list"),
    "decision": ("Extra clinics cover every breach", "Weekend clinic capacity covers all breaches",
                 "All breaches can be booked into the extra slots"),
    "premise": ("Referral {ref} in breach", "Referral {ref} over 18 weeks", "{ref} breaching at census"),
}
_COLUMNS = ({"seq": "BOOK_SEQ", "referral_id": "REFERRAL_ID", "nhs_number": "NHS_NUMBER", "specialty": "SPECIALTY",
             "urgency": "PRIORITY", "clock_start": "RTT_CLOCK_START", "days": "WAIT_DAYS", "weeks": "WAIT_WEEKS"},
            {"seq": "booking_order", "referral_id": "referral_ref", "nhs_number": "nhs_no", "specialty": "specialty",
             "urgency": "clinical_priority", "clock_start": "clock_start_date", "days": "days_waited",
             "weeks": "weeks_waited"})
_DIRS = {"pas": ("pas_extracts", "waiting_list/extracts", "data/pas"),
         "policy": ("policies", "access_policy", "governance/policies"),
         "mail": ("correspondence", "complaints", "inbox")}


def _ln(rng: random.Random, median: float, sigma: float) -> int:
    return max(1, int(round(math.exp(rng.gauss(math.log(median), sigma)))))


def _list(rng: random.Random, census: dt.date) -> dict[str, Any]:
    specs = rng.sample(_SPECIALTIES, rng.randint(3, 4))
    refs: list[dict[str, Any]] = []
    appts: list[list[Any]] = []
    first_wait = {"Urgent": 16, "Soon": 35, "Routine": 70}
    for k in range(rng.randint(220, 340)):
        urgency = rng.choices(_URGENCY, (15, 25, 60))[0]
        received = census - dt.timedelta(days=rng.randint(5, 280))
        ref = {"id": f"R{rng.randint(10, 99)}{k:04d}", "nhs": f"{rng.randint(400, 499)} {rng.randint(100, 999)} "
               f"{rng.randint(1000, 9999)}", "spec": rng.choice(specs), "urgency": urgency, "received": received,
               "gp": f"Dr {person(rng).split()[1]}"}
        refs.append(ref)
        when, attended, n = received + dt.timedelta(days=_ln(rng, first_wait[urgency], 0.5)), False, 0
        while not attended and n < 3:
            n += 1
            outcome = "booked" if when > census else rng.choices(
                ("attended", "dna", "cancelled_patient", "cancelled_hospital"), (80, 8, 7, 5))[0]
            appts.append([ref["id"], iso(when), "OPFA", outcome])
            if outcome in ("attended", "booked"):
                attended = outcome == "attended"
                break
            when += dt.timedelta(days=rng.randint(14, 60))
        if attended:
            treat = when + dt.timedelta(days=_ln(rng, 50, 0.6))
            if rng.random() < 0.3:
                fu = when + dt.timedelta(days=rng.randint(7, 30))
                appts.append([ref["id"], iso(fu), "OPFU", "booked" if fu > census else rng.choice(
                    ("attended", "attended", "cancelled_patient"))])
            appts.append([ref["id"], iso(treat), "TREAT", "booked" if treat > census else "attended"])
    treated = {a[0] for a in appts if a[2] == "TREAT" and a[3] == "attended"}
    for orig in rng.sample([r for r in refs if (census - r["received"]).days > 160 and r["id"] not in treated],
                           rng.randint(2, 4)):
        dup = dict(orig, id=f"R{rng.randint(10, 99)}{len(refs):04d}",
                   received=orig["received"] + dt.timedelta(days=rng.randint(5, 40)), duplicate=True)
        refs.append(dup)
    refs.sort(key=lambda r: r["id"])
    return {"refs": refs, "appts": sorted(appts, key=lambda a: (a[1], a[0])), "specs": specs, "census": census}


# ---- the independent computation: csv only, each pathway's appointments replayed ------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the two extracts, walking each patient's pathway (both referrals of a duplicate
    pair together) without the solver's code."""
    folder, F = Path(folder), P["files"]
    census = dt.date.fromisoformat(P["census"])
    with (folder / F["referrals"]).open(newline="", encoding="utf-8") as f:
        refs = sorted(csv.DictReader(f), key=lambda r: (r["received_date"], r["referral_id"]))
    with (folder / F["appointments"]).open(newline="", encoding="utf-8") as f:
        appts = list(csv.DictReader(f))
    visits: dict[str, list[tuple[str, str, str]]] = {}
    for a in appts:
        if a["appt_date"] <= P["census"]:
            visits.setdefault(a["referral_id"], []).append((a["appt_date"], a["appt_type"], a["outcome"].lower()))
    open_paths: dict[tuple[str, str], str] = {}  # patient and specialty -> date the current pathway stopped ("" open)
    waiting = []
    for r in refs:
        if r["received_date"] > P["census"]:
            continue
        key = (r["nhs_number"], r["specialty"])
        if key in open_paths and (open_paths[key] == "" or open_paths[key] > r["received_date"]):
            continue
        start, first_seen, stop = r["received_date"], False, ""
        for when, kind, outcome in sorted(visits.get(r["referral_id"], [])):
            if kind == "TREAT" and outcome == "attended":
                stop = when
                break
            if kind == "OPFA" and not first_seen:
                first_seen = outcome == "attended"
                start = when if outcome == "dna" else start
        open_paths[key] = stop
        if not stop:
            days = (census - dt.date.fromisoformat(start)).days
            waiting.append((days, r["referral_id"], r["urgency"]))
    over = [w for w in waiting if w[0] > int(P["breach_days"])]
    over.sort(key=lambda w: (P["urgency_order"].index(w[2]), -w[0], w[1]))
    top = min(waiting, key=lambda w: (-w[0], w[1]))
    return {"breaches": [{"referral_id": ref, "days": days, "seq": k} for k, (days, ref, _) in enumerate(over, 1)],
            "breach_count": len(over), "longest_ref": top[1], "longest_days": top[0],
            "first_ref": over[0][1] if over else "", "decision": len(over) <= int(P["capacity"]),
            "premise": any(ref == P["premise_ref"] for _, ref, _ in over)}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _policy(version: int, current: bool, breach_days: int) -> list[str]:
    rules = [f"Patient access policy (elective care), version {version}.",
             "The referral-to-treatment (RTT) clock starts on the date the hospital receives the referral and stops "
             "at the start of first definitive treatment (an attended appointment of type TREAT).",
             f"A pathway breaches the 18-week standard when more than {breach_days} days have passed between the clock "
             "start and the census date while the clock is still running."]
    if current:
        rules += [
            "If a patient does not attend (DNA) their first outpatient appointment (type OPFA) and has not yet "
            "attended one, the clock is nullified and restarts on the date of that DNA. A DNA at any later "
            "appointment does not restart the clock.",
            "Cancellations do not stop or restart the clock, whether the patient or the hospital cancels.",
            "A referral received for a patient (NHS number) and specialty whose pathway is still open is a "
            "duplicate: it is merged into the open pathway and the original clock applies. A referral after "
            "treatment has stopped the clock starts a new pathway.",
            "Booking order for breaches: clinical priority first (Urgent, then Soon, then Routine), then the longest "
            "wait; equal waits by referral ID, lowest first. Wait is reported in days and in completed weeks (days "
            "divided by 7, rounded down). The longest wait is over all open pathways (a tie goes to the lowest "
            "referral ID).",
            f"This version replaces version {version - 1} in full."]
    else:
        rules += ["Any cancelled appointment (patient or hospital) restarts the clock from the cancellation date.",
                  "Patients are booked in order of referral date."]
    return rules


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.rtt import analyse

    prof = profession(occupation)
    census = dt.date(rng.choice((2024, 2025)), rng.randint(1, 12), 1) - dt.timedelta(days=1)
    dirs = pick_labels(rng, _DIRS)
    tag = f"{census:%Y%m%d}"
    P: dict[str, Any] = {
        "files": {"referrals": f"{dirs['pas']}/rtt_referrals_{tag}.csv",
                  "appointments": f"{dirs['pas']}/outpatient_appointments_{tag}.csv"},
        "dirs": dirs, "census": iso(census), "breach_days": 126, "urgency_order": list(_URGENCY), "capacity": 0,
        "premise_ref": "", "labels": {}, "columns": dict(rng.choice(_COLUMNS)),
        "deliverables": {"list": rng.choice((f"rtt_breach_booking_{tag}.csv", "booking_upload.csv")),
                         "memo": rng.choice(("rtt_breach_note.docx", f"waiting_list_note_{tag}.md"))}}
    w = _list(rng, census)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, _data_writers(P, w))
        truth = analyse(str(root), P)
        shortcuts = ("dna_no_reset", "cancel_reset", "duplicates", "order_by_wait")
        singles = {k: analyse(str(root), P, (k,)) for k in shortcuts}
        loose = analyse(str(root), P, ("dna_no_reset",))
    n = truth["breach_count"]
    if n < 6:
        raise DegenerateTask("too few breaches to book")
    P["capacity"] = n + rng.randint(2, 6) if targets["decision"] else n - rng.randint(2, min(6, n - 2))
    breaching = {x["referral_id"] for x in truth["breaches"]}
    reset = sorted({x["referral_id"] for x in loose["breaches"]} - breaching)
    pool = sorted(breaching) if targets["premise"] else reset
    if not pool:
        raise DegenerateTask("no referral fits the premise target")
    P["premise_ref"] = rng.choice(pool)
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(ref=P["premise_ref"])
    P["labels"] = labels
    truth = analyse_again(P, w)
    where = {"dna_no_reset": ("memo", "a DNA at the first appointment restarts the clock"),
             "cancel_reset": ("memo", "the archived policy restarted the clock on cancellations; the current one "
                                      "does not"),
             "duplicates": ("data", "GP re-referrals duplicate open pathways"),
             "order_by_wait": ("memo", "booking order is clinical priority first, then wait")}

    def graded(f: Facts) -> Any:
        return ([(x["referral_id"], x["days"], x["seq"]) for x in f["breaches"]], f["longest_days"], f["first_ref"])

    right = {x["referral_id"]: x["days"] for x in truth["breaches"]}
    # referrals a shortcut wrongly lists, and listed ones whose wait a shortcut changes: graded by name
    P["wrong_ids"] = sorted({x["referral_id"] for f in singles.values() for x in f["breaches"]} - set(right))[:8]
    P["probe_ids"] = sorted({x["referral_id"] for f in singles.values() for x in f["breaches"]
                             if x["referral_id"] in right and x["days"] != right[x["referral_id"]]})[:3]
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 4:
        raise DegenerateTask("a planted item changes no graded answer")
    writers, roles = _workspace(rng, P, w, prof.title)
    return Draft(subject=f"RTT 18-week breach list at {iso(census)}", instructions=_prompt(rng, P, writers),
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="220-340 referrals over 40 weeks (urgent 15 %, soon 25 %, routine 60 %); first "
                               "appointment log-normal median 16/35/70 d; outcomes attended 80 %, DNA 8 %, patient "
                               "cancellation 7 %, hospital 5 %; treatment log-normal median 50 d after first "
                               "attendance; 2-4 duplicate re-referrals")


def analyse_again(P: dict[str, Any], w: dict[str, Any]) -> Facts:
    """The truth with the final parameters (the premise and capacity are chosen after a first look)."""
    import tempfile

    from ..solvers.rtt import analyse

    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), _data_writers(P, w))
        return analyse(tmp, P)


def _data_writers(P: dict[str, Any], w: dict[str, Any]) -> dict[str, Any]:
    F = P["files"]
    refs = [[r["id"], r["nhs"], r["spec"], r["urgency"], iso(r["received"]), r["gp"],
             "GP re-referral" if r.get("duplicate") else "e-RS"] for r in w["refs"]]
    return {
        F["referrals"]: lambda p: write_csv(p, ["referral_id", "nhs_number", "specialty", "urgency", "received_date",
                                                "referrer", "source"], refs),
        F["appointments"]: lambda p: write_csv(p, ["referral_id", "appt_date", "appt_type", "outcome"], w["appts"]),
    }


def _workspace(rng: random.Random, P: dict[str, Any], w: dict[str, Any],
               title: str) -> tuple[dict[str, Any], dict[str, str]]:
    out: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        out[name], roles[name] = writer, role

    for rel, write in _data_writers(P, w).items():
        add(rel, "data", write)
    D, census = P["dirs"], dt.date.fromisoformat(P["census"])
    version = rng.randint(4, 8)
    add(f"{D['policy']}/patient_access_policy_v{version}.pdf", "policy", lambda p: write_pdf(
        p, f"Patient access policy v{version}", _policy(version, True, P["breach_days"])))
    add(f"{D['policy']}/archive/patient_access_policy_v{version - 1}.pdf", "stale", lambda p: write_pdf(
        p, f"Patient access policy v{version - 1}", _policy(version - 1, False, P["breach_days"])))
    add(f"{D['policy']}/rtt_rules_summary.docx", "policy", lambda p: write_docx(p, "RTT rules - quick guide for "
        "secretaries", ["Appointment types: OPFA first outpatient, OPFU follow-up, TREAT first definitive treatment.",
                        "Outcomes: attended, dna, cancelled_patient, cancelled_hospital, booked (not yet happened).",
                        "Only a DNA at the first outpatient appointment nullifies the clock; see the access policy."]))
    C = P["columns"]
    add(f"{D['pas']}/booking_upload_template.csv", "reference", lambda p: write_csv(
        p, [C[k] for k in ("seq", "referral_id", "nhs_number", "specialty", "urgency", "clock_start", "days",
                           "weeks")], []))
    comp = P["premise_ref"]
    add(f"{D['mail']}/{iso(census - dt.timedelta(days=3))}_complaint_{comp}.txt", "email", lambda p: write_text(
        p, email_text(sender="Patient Advice and Liaison Service", to="Clinic Director",
                      date=iso(census - dt.timedelta(days=3)), subject=f"Complaint - waiting time, referral {comp}",
                      body=f"The patient on referral {comp} says they have waited more than 18 weeks since their GP "
                           "referred them and asks to be seen at once. Please confirm whether the pathway is in "
                           "breach at the month-end census.")))
    add(f"{D['mail']}/{iso(census - dt.timedelta(days=6))}_extra_clinics.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}, Service Manager", to="Clinic Director",
                      date=iso(census - dt.timedelta(days=6)), subject="Weekend clinics",
                      body=f"We can staff weekend clinics with {P['capacity']} extra first-treatment slots next "
                           "month, reserved for 18-week breaches.")))
    add(f"{D['mail']}/{iso(census - dt.timedelta(days=20))}_old_habits.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}, Booking Clerk", to="Secretaries",
                      date=iso(census - dt.timedelta(days=20)), subject="Cancellations",
                      body="Reminder: when a patient cancels, restart their clock from the cancellation - that is "
                           "how we always did it.")))
    add(f"reports/rtt_position_{census.year}_prev.xlsx", "stale", lambda p: write_xlsx(p, [
        ("Position", ["specialty", "open_pathways", "over_18_weeks"],
         [[s, rng.randint(40, 120), rng.randint(2, 15)] for s in w["specs"]])]))
    add(f"rota/clinic_rota_{census:%Y%m}.csv", "distractor", lambda p: write_csv(
        p, ["date", "clinic", "consultant", "slots"],
        [[iso(census + dt.timedelta(days=k)), rng.choice(w["specs"]), f"Dr {person(rng).split()[1]}",
          rng.randint(8, 14)] for k in range(1, 9)]))
    add(f"meetings/{iso(census - dt.timedelta(days=10))}_clinic_meeting.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="waiting list validation", people=[person(rng) for _ in range(3)],
                         date=iso(census - dt.timedelta(days=10)))))
    add("procedures/letter_templates.md", "distractor", lambda p: write_text(p, (
        f"# Letter templates ({title}s)\n\n- Appointment confirmation\n- DNA letter to patient and GP\n"
        "- Discharge after two DNAs\n")))
    return out, roles


def _prompt(rng: random.Random, P: dict[str, Any], writers: dict[str, Any]) -> str:
    D, L, C = P["dirs"], P["labels"], P["columns"]
    boss = person(rng)
    cols = ", ".join(C[k] for k in ("seq", "referral_id", "nhs_number", "specialty", "urgency", "clock_start", "days",
                                    "weeks"))
    steps = [f"Take the referral and appointment extracts in {D['pas']}/ as at the census date {P['census']}.",
             f"Work out each open pathway's RTT clock under the current access policy in {D['policy']}/ (DNAs, "
             "cancellations and duplicate referrals as it says).",
             "List every pathway in breach of 18 weeks at the census date, in booking order.",
             f"Answer PALS about the complaint and say whether the extra clinics cover the breaches ({D['mail']}/)."]
    lines = [f"{L['count']}: <number>", f"{L['longest_days']}: <days>", f"{L['longest_ref']}: <referral ID>",
             f"{L['first']}: <referral ID>", f"{L['decision']}: <yes or no>", f"{L['premise']}: <yes or no>"]
    deliverables = [f"{P['deliverables']['list']}: the breach list for the booking system, columns {cols} (the "
                    "template's layout), one row per breaching pathway in booking order, BOOK_SEQ-style numbering "
                    "from 1, dates YYYY-MM-DD.",
                    f"{P['deliverables']['memo']}: a note to me opening with these lines (label: value), then a short "
                    "explanation I can adapt for the reply to PALS:\n" + "\n".join(f"   {x}" for x in lines)]
    return "\n\n".join([
        rng.choice((f"From: {boss}, Clinic Director\nSubject: 18-week breaches\n\n", f"Hi - {boss} here.\n\n"))
        + rng.choice(("Patients have complained about waiting times, so I need the 18-week breach list and the "
                      "booking order.", "Which referrals are over 18 weeks, and who do we book first?")),
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Please leave in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliverables, 1)),
        "Thanks.\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers)),
    ]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, IdsCheck, RowCountCheck

    D, L, C = P["deliverables"], P["labels"], P["columns"]
    lst, memo = D["list"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    B = facts["breaches"]

    def cell(x: dict[str, Any], key: str) -> tuple[str, Any]:
        v = x["seq"] if key == "seq" else x["days"]
        return (f"{lst}: {x['referral_id']} {C[key]} = {v}",
                CellCheck(file=lst, match={C["referral_id"]: x["referral_id"]}, column=C[key], value=float(v)))

    def count(label: str, v: int) -> tuple[str, Any]:
        return f"{label} = {v}", FieldCheck(file=memo, label=label, number=float(v), tolerance=0.0)

    oldest = sorted(B, key=lambda x: (-x["days"], x["referral_id"]))[:2]
    probes = [x for x in B if x["referral_id"] in P.get("probe_ids", []) and x not in oldest]
    absent = [(f"{lst} does not list {', '.join(P['wrong_ids'])}", IdsCheck(file=lst, ids=P["wrong_ids"], present="none"))
              for _ in P.get("wrong_ids", [])[:1]]
    out = [
        rubric("Lists exactly the pathways in breach", 10, [
            (f"{lst} has {len(B)} rows", RowCountCheck(file=lst, key=C["referral_id"], count=len(B))),
            (f"{lst} lists every breaching referral",
             IdsCheck(file=lst, ids=[x["referral_id"] for x in B] or ["none"], present="all")),
            *absent, count(L["count"], facts["breach_count"])]),
        rubric("Computes the waits with the clock rules (DNA restart, cancellations and duplicates)", 10,
               [cell(x, "days") for x in oldest + probes] + [cell(x, "days") for x in B[:2] if x not in oldest + probes]),
        rubric("Puts the list in booking order: priority, then wait", 8, [cell(x, "seq") for x in B[:3]] + [
            (f"{L['first']}: {facts['first_ref']}", fld(memo, L["first"], facts["first_ref"]))]),
        rubric("Reports the longest wait", 6, [
            count(L["longest_days"], facts["longest_days"]),
            (f"{L['longest_ref']}: {facts['longest_ref']}", fld(memo, L["longest_ref"], facts["longest_ref"]))]),
        rubric("Answers the capacity question", 6, [
            count(L["count"], facts["breach_count"]), *[cell(x, "days") for x in B[:1]],
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Answers the complaint from the record", 8, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            count(L["count"], facts["breach_count"])]),
    ]
    if judgement:
        out.append(rubric("Explains the clock for the reply to PALS", 6, [
            ("Explains how a first-appointment DNA restarts the clock and that cancellations do not",
             llm("explanation")),
            ("Notes the duplicate referrals and the superseded cancellation rule", llm("explanation"))]))
    return out


RTT_BREACH_LIST = Workflow(
    key="rtt_breach_list", family="rtt_breach_list",
    method="18-week RTT clock (first-appointment DNA restarts; cancellations and duplicates do not), booking order",
    professions=("medical_secretaries",), solver="rtt",
    shortcuts=("dna_no_reset", "cancel_reset", "duplicates", "order_by_wait"), draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated outpatient waiting list (stated distributions)")
