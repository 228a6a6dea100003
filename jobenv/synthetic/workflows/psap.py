"""911 call answering against the NENA standard, and call-taker positions (police, fire and ambulance dispatchers).

One week of a PSAP's call detail is generated. 911 calls arrive as a non-homogeneous Poisson process (240-420 a
day, an hourly profile low before dawn and highest in the late afternoon); administrative (ten-digit) lines carry
another 80-160 a day, answered after 5-90 s. 5-9 % of 911 calls are transferred in from another PSAP, their
original call start 15-70 s before they reached this one. 1.5-3.5 % of 911 calls are abandoned before answer and
80 % of those get a callback. An answered 911 call rings 2-10 s for a drawn share of calls and 11 s + exponential
(mean 8 s) otherwise, with a lower quick share in one shift-change hour; talk time is gamma (shape 3, mean
90-160 s). The standard in force (NENA call answering) is in the folder, beside the centre's superseded SOP that
timed every line.

Failure behaviour: ``draw`` raises DegenerateTask when the week's compliance is within 0.4 points of a threshold,
two hours nearly tie for the worst or a planted trap changes no graded figure; ``recheck`` raises OSError or
KeyError on a missing or malformed export (``recheck_task`` reports that as a problem).
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
from .servicedesk import _erlang_c, _poisson

__all__ = ["PSAP_ANSWERING"]

_PROFILE = (0.55, 0.45, 0.38, 0.32, 0.3, 0.33, 0.45, 0.65, 0.8, 0.88, 0.92, 0.95, 0.97, 0.98, 1.0, 1.0, 0.99, 0.98,
            0.96, 0.9, 0.85, 0.78, 0.7, 0.62)
_LABELS = {
    "pct_1": ("911 calls answered within 15 s (%)", "Answered in 15 seconds (%)", "Share answered within 15 s (%)"),
    "pct_2": ("911 calls answered within 20 s (%)", "Answered in 20 seconds (%)", "Share answered within 20 s (%)"),
    "worst": ("Worst hour (hour of day, 0-23)", "Hour with the lowest 15 s compliance (0-23)",
              "Weakest hour of the day (0-23)"),
    "positions": ("Call-taker positions needed at the busiest hour", "Positions required at peak",
                  "Call-takers needed in the busy hour"),
    "abandon": ("911 abandoned-call rate (%)", "Abandoned 911 calls (%)", "Abandon rate, 911 lines (%)"),
    "decision": ("Meets the NENA answering standard", "Compliant with the call answering standard",
                 "Standard met over the week"),
    "premise": ("Minimum staffing covers the busy hour", "Current minimum is enough at peak",
                "Minimum positions cover the peak hour"),
}
_SUMMARY = {"calls": ("911 calls received", "911 calls (week)", "Calls on 911 lines"),
            "pct_1": ("Answered within 15 s (%)", "Percent within 15 seconds", "15-second compliance (%)"),
            "pct_2": ("Answered within 20 s (%)", "Percent within 20 seconds", "20-second compliance (%)"),
            "meets": ("Meets standard", "Standard met", "Compliant"),
            "busy_hour": ("Busiest hour (0-23)", "Busy hour", "Peak hour of day"),
            "per_hour": ("911 calls per busy hour", "Busy-hour calls (per day)", "Calls in the peak hour"),
            "aht": ("Average talk time (s)", "Mean handle time (s)", "Talk time per call (s)"),
            "traffic": ("Traffic (erlangs)", "Offered load (erlangs)", "Erlangs at peak"),
            "positions": ("Positions needed", "Call-takers needed", "Required positions"),
            "p_wait": ("Probability of waiting", "Erlang C P(wait)", "P(wait)"),
            "sl_1": ("Answered within 15 s at peak (model)", "Modelled 15 s share", "Erlang C share within 15 s"),
            "sl_2": ("Answered within 20 s at peak (model)", "Modelled 20 s share", "Erlang C share within 20 s")}
_DIRS = {"cad": ("cad_exports", "call_data/cad", "911/call_detail"), "std": ("standards", "sops", "policy"),
         "mail": ("correspondence", "email", "inbox"), "staff": ("staffing", "scheduling", "roster")}
_MONDAYS = ("2025-01-13", "2025-03-10", "2025-04-07", "2025-06-09", "2025-08-11", "2025-10-20", "2026-02-09",
            "2026-03-16", "2026-05-11", "2026-08-17")


def _ts(t: dt.datetime) -> str:
    return f"{t:%Y-%m-%d %H:%M:%S}"


def _calls(rng: random.Random, first: dt.date, quick: float, bad_hour: int) -> list[list[Any]]:
    """[call_id, line_type, class_of_service, call_start, psap_seized, answered, released, transferred_in,
    callback, position]."""
    daily, admin_daily = rng.uniform(240, 420), rng.uniform(80, 160)
    p_tr, p_ab, talk = rng.uniform(0.05, 0.09), rng.uniform(0.015, 0.035), rng.uniform(90, 160)
    rows: list[tuple[dt.datetime, list[Any]]] = []
    total = sum(_PROFILE)
    for d in range(7):
        day = dt.datetime.combine(first + dt.timedelta(days=d), dt.time(0))
        for h, level in enumerate(_PROFILE):
            q = quick - 0.16 if h == bad_hour else quick
            for _ in range(_poisson(rng, daily * level / total)):
                seized = day + dt.timedelta(hours=h, seconds=rng.randint(0, 3599))
                start = seized - dt.timedelta(seconds=rng.randint(15, 70)) if rng.random() < p_tr else seized
                cos = rng.choices(("WRLS", "VOIP", "RESD", "BUSN"), (75, 15, 6, 4))[0]
                pos = f"CT{rng.randint(1, 6):02d}"
                if rng.random() < p_ab:
                    back = _ts(seized + dt.timedelta(seconds=rng.randint(30, 180))) if rng.random() < 0.8 else ""
                    rows.append((seized, ["911", cos, _ts(start), _ts(seized), "", "", "Y" if start < seized else "N",
                                          back, ""]))
                    continue
                ring = rng.randint(2, 10) if rng.random() < q else 11 + int(rng.expovariate(1 / 8))
                ans = seized + dt.timedelta(seconds=ring)
                rel = ans + dt.timedelta(seconds=max(15, int(rng.gammavariate(3, talk / 3))))
                rows.append((seized, ["911", cos, _ts(start), _ts(seized), _ts(ans), _ts(rel),
                                      "Y" if start < seized else "N", "", pos]))
            for _ in range(_poisson(rng, admin_daily * level / total)):
                seized = day + dt.timedelta(hours=h, seconds=rng.randint(0, 3599))
                ans = seized + dt.timedelta(seconds=rng.randint(5, 90))
                rel = ans + dt.timedelta(seconds=rng.randint(30, 300))
                rows.append((seized, ["ADMIN", "BUSN", _ts(seized), _ts(seized), _ts(ans), _ts(rel), "N", "",
                                      f"CT{rng.randint(1, 6):02d}"]))
    rows.sort(key=lambda r: r[0])
    base = rng.randint(100_000, 900_000)
    return [[f"{first:%y%m%d}-{base + k}", *r[1]] for k, r in enumerate(rows)]


# ---- the independent computation: csv and datetime, the textbook Erlang C sum -------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the call detail with the csv module."""
    with (Path(folder) / P["files"]["calls"]).open(newline="", encoding="utf-8") as f:
        calls = [r for r in csv.DictReader(f) if r["line_type"] == "911"]
    (t1, s1), (t2, s2) = ((float(a), float(b)) for a, b in P["rules"])
    per_hour = [[0, 0] for _ in range(24)]
    in1 = in2 = lost = 0
    talk: list[float] = []
    for r in calls:
        seized = dt.datetime.fromisoformat(r["psap_seized"])
        per_hour[seized.hour][0] += 1
        if not r["answered"]:
            lost += 1
            continue
        answered = dt.datetime.fromisoformat(r["answered"])
        wait = (answered - seized).total_seconds()
        talk.append((dt.datetime.fromisoformat(r["released"]) - answered).total_seconds())
        in1 += wait <= t1
        in2 += wait <= t2
        per_hour[seized.hour][1] += wait <= t1
    n = len(calls)
    pct = [100 * k / c if c else 100.0 for c, k in per_hour]
    worst = pct.index(min(pct))
    busy = max(range(24), key=lambda h: (per_hour[h][0], -h))
    aht = sum(talk) / len(talk)
    a = per_hour[busy][0] / P["days"] * aht / 3600
    m = math.floor(a) + 1
    while any(1 - _erlang_c(a, m) * math.exp(-(m - a) * t / aht) < s - 1e-12 for t, s in ((t1, s1), (t2, s2))):
        m += 1
    p1, p2 = 100 * in1 / n, 100 * in2 / n
    return {"pct_1": p1, "pct_2": p2, "calls": n, "worst": {"hour": worst, "pct_1": pct[worst]},
            "busy": {"hour": busy, "traffic": a}, "positions": m, "abandon_pct": 100 * lost / n,
            "decision": p1 >= 100 * s1 and p2 >= 100 * s2, "premise": m <= P["minimum_positions"]}


# ---- drawing a task -------------------------------------------------------------------------------------------

def _standard(P: dict[str, Any]) -> list[str]:
    (t1, s1), (t2, s2) = P["rules"]
    return [
        f"Call answering (adopted from NENA): {s1 * 100:g} % of 911 calls answered within {t1} seconds and "
        f"{s2 * 100:g} % within {t2} seconds, both measured over the reporting period.",
        "Answer time runs from the moment the call arrives at this PSAP (psap_seized: the call is presented to our "
        "equipment) to the moment a call-taker answers. For a call transferred in from another PSAP the clock starts "
        "when it reaches us, not at its original call start.",
        "Scope: 911 lines only. Administrative (ten-digit) lines are excluded from every answering figure.",
        "Abandoned calls (no answer time) stay in the count of 911 calls and count as not answered within either "
        "threshold; a callback by a call-taker does not turn an abandoned call into an answered one. The abandoned-"
        "call rate is abandoned 911 calls over all 911 calls.",
        "Hourly figures group calls by the hour of day (0-23) in which they arrived at this PSAP, over every day of "
        "the period.",
        f"Positions: for the hour of day with the most 911 calls, the offered load A = (911 calls in that hour / "
        f"{P['days']} days) x average talk time (answered to released, answered 911 calls) / 3600. Using Erlang C, "
        f"the positions needed are the fewest whole N greater than A for which 1 - P(wait) x exp(-(N - A) x t / "
        f"talk time) reaches {s1 * 100:g} % at t = {t1} s and {s2 * 100:g} % at t = {t2} s.",
        "Reporting: percentages to 1 decimal place (rounded half up); hours and positions as whole numbers.",
    ]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.psap import analyse

    prof = profession(occupation)
    first = dt.date.fromisoformat(rng.choice(_MONDAYS))
    last = first + dt.timedelta(days=6)
    dirs = pick_labels(rng, _DIRS)
    P: dict[str, Any] = {
        "files": {"calls": f"{dirs['cad']}/call_detail_{first:%Y%m%d}_{last:%Y%m%d}.csv"}, "dirs": dirs,
        "rules": [[15, 0.9], [20, 0.95]], "days": 7, "minimum_positions": 0, "labels": pick_labels(rng, _LABELS),
        "summary_labels": pick_labels(rng, _SUMMARY),
        "deliverables": {"workbook": rng.choice(("answering_compliance.xlsx", f"nena_answer_times_{first:%Y%m%d}.xlsx")),
                         "memo": rng.choice(("board_memo.docx", "answering_review.docx", "peak_load_memo.docx"))},
    }
    quick = rng.uniform(0.955, 0.975) if targets["decision"] else rng.uniform(0.78, 0.86)
    bad_hour = rng.choice((6, 7, 14, 15, 18, 19))
    calls = _calls(rng, first, quick, bad_hour)
    header = ["call_id", "line_type", "class_of_service", "call_start", "psap_seized", "answered", "released",
              "transferred_in", "callback", "position"]
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_csv(Path(tmp) / P["files"]["calls"], header, calls)
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in ("admin", "transfer_origin", "callback")}
    if truth["decision"] != targets["decision"] or min(abs(truth["pct_1"] - 90), abs(truth["pct_2"] - 95)) < 0.4:
        raise DegenerateTask("the week's answering is not clearly on the targeted side of the standard")
    ranked = sorted(r["pct_1"] for r in truth["hours"])
    if ranked[1] - ranked[0] < 0.3:
        raise DegenerateTask("two hours are nearly tied for the worst")
    n = truth["positions"]
    P["minimum_positions"] = n + rng.randint(0, 1) if targets["premise"] else n - 1
    where = {"admin": ("data", "administrative lines are in the export; the standard measures 911 lines only"),
             "transfer_origin": ("data", "transferred-in calls carry their original call start; the clock starts "
                                         "at arrival here"),
             "callback": ("memo", "abandoned calls that were called back are still abandoned")}

    def graded(f: Facts) -> Any:
        return (rnd(f["pct_1"], 1), rnd(f["pct_2"], 1), f["worst"]["hour"], f["positions"], rnd(f["abandon_pct"], 1))

    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 3:
        raise DegenerateTask("a planted trap changes no graded answer")
    P["deputy"] = person(rng)
    writers, roles = _workspace(rng, P, header, calls, first, last)
    boss = person(rng)
    L, D, S = P["labels"], P["dirs"], P["summary_labels"]
    memo_lines = [(L["pct_1"], "percent, 1 decimal"), (L["pct_2"], "percent, 1 decimal"), (L["worst"], "0-23"),
                  (L["positions"], "whole number"), (L["abandon"], "percent, 1 decimal"),
                  (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    week = f"{iso(first)} to {iso(last)}"
    opener = rng.choice((f"From: {boss}, Communications Centre Manager\nTo: Shift supervisors\nSubject: Answering times "
                         f"for the board\n\n", f"{boss} (Communications Centre Manager) - {rng.choice(prof.occasions)}.\n\n",
                         f"Subject: 911 answering, week of {iso(first)}\nFrom: {boss}\n\n"))
    ask = rng.choice((f"The board asked how our 911 answering compares with the standard, hour by hour, for the week "
                      f"{week}, and how many call-takers we need at the peak.", f"Before the board meets I need our "
                      f"answering times against the standard for {week}, the weak hours, and positions for the busy hour."))
    belief = rng.choice((f"{P['deputy']} (Deputy Chief) says our minimum of {P['minimum_positions']} call-takers covers "
                         "the busy hour - is that right?", f"{P['deputy']} thinks {P['minimum_positions']} positions at "
                         "peak is enough. Check it."))
    steps = [f"From the call detail in {D['cad']}/, measure answer times as the standard in {D['std']}/ defines them.",
             "Work out the share answered within each threshold for the week and for each hour of the day; find the "
             "worst hour.", "Report the abandoned-call rate.",
             "Size call-taker positions for the busiest hour with Erlang C as the standard sets out."]
    deliverables = [
        f"{P['deliverables']['workbook']}: sheet Hourly (hour, calls_911, answered_within_15s, answered_within_20s, "
        "pct_within_15s, pct_within_20s; one row per hour 0-23), sheet Summary (columns Line, Value; rows "
        f"{S['calls']}, {S['pct_1']}, {S['pct_2']}, {S['meets']}) and sheet Positions (columns Line, Value; rows "
        f"{S['busy_hour']}, {S['per_hour']}, {S['aht']}, {S['traffic']}, {S['positions']}, {S['p_wait']}, "
        f"{S['sl_1']}, {S['sl_2']}). Percentages, totals, traffic and the modelled shares as live formulas.",
        f"{P['deliverables']['memo']}: " + rng.choice(("a memo for the board starting with these lines (label: value), "
                                                      "then what drives the weak hour:", "a short memo opening with "
                                                      "these labelled lines, then your reasoning:"))
        + "\n" + "\n".join(f"   {lbl}: <{hint}>" for lbl, hint in memo_lines)]
    prompt = "\n\n".join([
        opener + ask + " " + belief,
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        rng.choice(("Please leave in the output folder:", "Outputs:")) + "\n"
        + "\n".join(f"{k}. {t}" for k, t in enumerate(deliverables, 1)),
        rng.choice(("Thanks.", "Thank you.")) + "\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers)),
    ]) + "\n"
    return Draft(subject=f"911 answering against the standard, week of {iso(first)}", instructions=prompt,
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="NHPP 911 arrivals 240-420/day with an hourly profile; admin lines 80-160/day answered "
                               "in 5-90 s; transfers in 5-9 % (original start 15-70 s earlier); abandons 1.5-3.5 % "
                               "(80 % called back); ring 2-10 s for the quick share else 11 s + exp(mean 8 s); talk "
                               "gamma mean 90-160 s")


def _workspace(rng: random.Random, P: dict[str, Any], header: list[str], calls: list[list[Any]], first: dt.date,
               last: dt.date) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    D = P["dirs"]
    add(P["files"]["calls"], "data", lambda p: write_csv(p, header, calls))
    add(f"{D['cad']}/export_fields.txt", "reference", lambda p: write_text(p, (
        "Call detail export (telephony/CAD)\nline_type: 911 or ADMIN (ten-digit lines)\nclass_of_service: WRLS "
        "wireless, VOIP, RESD/BUSN wireline\ncall_start: when the call was first presented to any PSAP (carried with a "
        "transfer)\npsap_seized: when the call reached this PSAP\nanswered / released: call-taker answer and release "
        "(blank if abandoned)\ntransferred_in: Y if another PSAP transferred the call to us\ncallback: time a call-taker "
        "called an abandoned caller back\nposition: answering position\n")))
    add(f"{D['std']}/call_answering_standard.docx", "policy", lambda p: write_docx(
        p, "Call answering standard (in force)", [f"- {r}" for r in _standard(P)]))
    add(f"{D['std']}/archive/call_handling_sop_2019.pdf", "stale", lambda p: write_pdf(p, "Call handling SOP (2019)", [
        "Superseded by the call answering standard.", "All incoming lines, 911 and administrative, are reported together.",
        "Answer time is measured from the call start time on the ALI record.",
        "Abandoned calls that are called back are treated as handled and left out of the answering statistics."]))
    add(f"{D['std']}/radio_channel_plan.pdf", "distractor", lambda p: write_pdf(p, "Radio channel plan", [
        "Fire dispatch: channel 1; Fire tactical: channels 3-5", "Police dispatch: channel 2; car-to-car: channel 6",
        "EMS: channel 7"]))
    sched = [[f"CT{k:02d}", person(rng), rng.choice(("A", "B", "C", "D")), rng.choice(("06:00-18:00", "18:00-06:00"))]
             for k in range(1, rng.randint(14, 22))]
    add(f"{D['staff']}/shift_roster_{first:%Y%m}.xlsx", "distractor", lambda p: write_xlsx(
        p, [("Roster", ["position_id", "name", "team", "shift"], sched)]))
    add(f"{D['staff']}/overtime_{first:%Y%m}.csv", "distractor", lambda p: write_csv(
        p, ["team", "overtime_hours"], [[t, rng.randint(10, 90)] for t in "ABCD"]))
    add(f"{D['mail']}/{iso(last + dt.timedelta(days=2))}_deputy_chief_staffing.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{P['deputy']}, Deputy Chief of Operations", to="Communications Centre Manager",
                      date=iso(last + dt.timedelta(days=2)), subject="Busy-hour staffing",
                      body=f"Our minimum staffing of {P['minimum_positions']} call-taker positions covers the busy hour "
                           "comfortably. I'd rather not add overtime for the peak.")))
    add(f"{D['mail']}/{iso(last + dt.timedelta(days=1))}_board_request.txt", "email", lambda p: write_text(
        p, email_text(sender="Board secretary", to="Communications Centre Manager",
                      date=iso(last + dt.timedelta(days=1)), subject="Peak loads",
                      body=f"The board would like to see 911 answering against the standard for {iso(first)} to "
                           f"{iso(last)}, by hour, and what staffing the peak needs.")))
    add(f"{D['cad']}/incident_types_{first:%Y%m%d}.csv", "distractor", lambda p: write_csv(
        p, ["incident_type", "count"], [[t, rng.randint(20, 400)] for t in ("Medical", "Traffic collision",
                                                                            "Alarm", "Disturbance", "Fire")]))
    add(f"meetings/{iso(first - dt.timedelta(days=4))}_supervisors.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="CAD upgrade", people=[person(rng) for _ in range(3)],
                         date=iso(first - dt.timedelta(days=4)))))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck

    D, L, S = P["deliverables"], P["labels"], P["summary_labels"]
    book, memo = D["workbook"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def memo_num(key: str, value: float, decimals: int) -> tuple[str, Any]:
        v = rnd(value, decimals)
        return f"{L[key]} = {v:.{decimals}f}", fld_num(memo, L[key], v, decimals)

    def cell(sheet: str, match: dict[str, Any], column: str, value: float, decimals: int) -> tuple[str, Any]:
        v = rnd(value, decimals)
        what = ", ".join(str(x) for x in match.values())
        return (f"{book} {sheet}: {what} {column} = {v:.{decimals}f}",
                CellCheck(file=book, sheet=sheet, match=dict(match), column=column, value=v, tolerance=tol(decimals)))

    w = facts["worst"]
    out = [
        rubric("Times 911 calls from arrival at this PSAP, administrative lines left out", 10, [
            memo_num("pct_1", facts["pct_1"], 1), cell("Summary", {"Line": S["pct_1"]}, "Value", facts["pct_1"], 1),
            cell("Summary", {"Line": S["calls"]}, "Value", facts["calls"], 0)]),
        rubric("Reports the 20-second measure", 8, [
            memo_num("pct_2", facts["pct_2"], 1), cell("Summary", {"Line": S["pct_2"]}, "Value", facts["pct_2"], 1)]),
        rubric("Finds the weakest hour of the day", 8, [
            memo_num("worst", w["hour"], 0), cell("Hourly", {"hour": w["hour"]}, "pct_within_15s", w["pct_1"], 1)]),
        rubric("Sizes busy-hour positions with Erlang C", 10, [
            memo_num("positions", facts["positions"], 0),
            cell("Positions", {"Line": S["positions"]}, "Value", facts["positions"], 0),
            cell("Positions", {"Line": S["traffic"]}, "Value", facts["busy"]["traffic"], 2)]),
        rubric("Keeps abandoned calls in the count", 6, [memo_num("abandon", facts["abandon_pct"], 1)]),
        rubric("Answers the board on compliance", 8, [
            memo_num("pct_1", facts["pct_1"], 1),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Tests the Deputy Chief's staffing claim", 8, [
            memo_num("positions", facts["positions"], 0),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Explains the measurement rules", 6, [
            ("Says admin lines were excluded and transferred calls timed from arrival here", llm("explanation")),
            ("Says abandoned calls count against compliance even when called back", llm("explanation")),
            ("Explains what drives the weakest hour and the busy-hour positions", llm("reasoning"))]))
    return out


PSAP_ANSWERING = Workflow(
    key="psap_answering", family="psap_answering", method="NENA call answering compliance and Erlang C positions",
    professions=("police_fire_and_ambulance_dispatchers",), solver="psap",
    shortcuts=("admin", "transfer_origin", "callback"), draw=draw, recheck=recheck, rubrics=rubrics,
    data="generated PSAP call detail week (stated distributions)", helpers=("_erlang.py",))
