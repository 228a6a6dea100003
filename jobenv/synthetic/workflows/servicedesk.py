"""Erlang C staffing of a service desk's phone queue for next quarter (computer user support specialists).

The sample is two weeks of call-level ACD records, Monday to Friday 08:00-18:00. Arrivals are a non-homogeneous
Poisson process: a peak of 12-28 calls per half-hour on Monday mid-morning, a half-hourly profile with a lunch dip
and an afternoon bump (jittered 0.9-1.1 per slot), and weekday factors falling from Monday (1.0) to Friday
(about 0.75); arrival instants are uniform within the half-hour. 3-6 % of callers hang up within 0-4 seconds
(short abandons), 3-7 % abandon after 5 s or more (wait 5 s + exponential, mean 40 s); the rest are answered after
a wait that is 0-20 s for a drawn share and 21 s + exponential (mean 45 s) otherwise. Talk time is gamma (shape
2.2, mean 240-420 s) and after-call work gamma (shape 3, mean 45-120 s). A few calls of another queue ride along.
Planning growth is 4-9 % (the revised memo) against 10-15 % in the memo it supersedes; shrinkage 28-35 %.

Failure behaviour: ``draw`` raises DegenerateTask when the sample's service level lands within 1.5 points of the
target, two intervals tie for the peak, a planted trap changes no graded figure or no round budget fits; ``recheck``
raises OSError or KeyError on a missing or malformed export (``recheck_task`` reports that as a problem).
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels

__all__ = ["ERLANG_C_STAFFING"]

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri")
# half-hour profile 08:00-17:30 relative to the 10:00 peak
_PROFILE = (0.45, 0.62, 0.80, 0.92, 1.0, 0.97, 0.9, 0.8, 0.66, 0.62, 0.7, 0.82, 0.86, 0.8, 0.74, 0.68, 0.6, 0.52,
            0.42, 0.35)
_WEEKDAY = (1.0, 0.9, 0.86, 0.84, 0.75)
_LABELS = {
    "peak": ("Peak half-hour forecast (calls)", "Forecast calls in the peak half-hour", "Peak interval volume"),
    "aht": ("Average handle time (s)", "AHT used (seconds)", "Handle time per call (s)"),
    "agents": ("Agents needed at the peak", "Peak-interval agents required", "Agents on the phones at peak"),
    "fte": ("Weekly FTE required", "FTE needed per week", "Required FTE (after shrinkage)"),
    "current_sl": ("Service level in the sample (%)", "Current 20-second service level (%)",
                   "Sample fortnight service level (%)"),
    "decision": ("Within the approved FTE budget", "Budget covers the requirement", "Requirement fits the FTE budget"),
    "premise": ("Sample fortnight met the target", "Target already met in the sample", "80/20 achieved in the sample"),
}
_INPUTS = {"growth": ("Growth applied", "Volume growth (fraction)", "Planning growth"),
           "aht": ("AHT (s)", "Average handle time (s)", "Handle time (s)"),
           "interval_s": ("Interval length (s)", "Seconds per interval", "Interval (s)"),
           "threshold_s": ("Answer threshold (s)", "Service level threshold (s)", "Seconds to answer"),
           "target": ("Service level target", "Target service level", "SL target"),
           "shrinkage": ("Shrinkage", "Shrinkage (fraction)", "Planned shrinkage"),
           "fte_hours": ("Paid hours per FTE week", "Hours per FTE", "Weekly hours per FTE")}
_FTE = {"hours": ("Weekly agent-hours", "Agent-hours per week", "Scheduled agent-hours (week)"),
        "shrinkage": ("Shrinkage", "Shrinkage applied", "Shrinkage allowance"),
        "fte": ("Weekly FTE required", "FTE required", "Required FTE"),
        "budget": ("Approved FTE budget", "FTE budget", "Budgeted FTE"),
        "gap": ("Budget less requirement", "Headroom (budget - required)", "FTE headroom")}
_DIRS = {"acd": ("acd/exports", "telephony/acd", "contact_centre/acd_exports"),
         "plan": ("planning", "workforce_planning", "wfm/planning"),
         "std": ("standards", "policies", "operations/standards"),
         "mail": ("correspondence", "email", "inbox"),
         "wfm": ("workforce", "roster", "wfm/roster")}


def _poisson(rng: random.Random, lam: float) -> int:
    limit, k, p = math.exp(-lam), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def _calls(rng: random.Random, first: dt.date, weeks: int, queue: str, peak: float, quick: float) -> list[list[Any]]:
    """Call records [call_id, queue_entry, queue, disposition, wait_s, talk_s, acw_s, agent_id]."""
    talk_mean, acw_mean = rng.uniform(240, 420), rng.uniform(45, 120)
    p_short, p_long = rng.uniform(0.03, 0.06), rng.uniform(0.03, 0.07)
    jitter = [rng.uniform(0.9, 1.1) for _ in _PROFILE]
    agents = [f"A{rng.randint(100, 999)}" for _ in range(24)]
    rows: list[tuple[dt.datetime, str, str, int, int, int, str]] = []
    for w in range(weeks):
        for d, factor in enumerate(_WEEKDAY):
            day = first + dt.timedelta(days=7 * w + d)
            for s, level in enumerate(_PROFILE):
                start = dt.datetime.combine(day, dt.time(8)) + dt.timedelta(minutes=30 * s)
                for _ in range(_poisson(rng, peak * level * jitter[s] * factor * rng.uniform(0.95, 1.05))):
                    at = start + dt.timedelta(seconds=rng.randint(0, 1799))
                    u = rng.random()
                    if u < p_short:
                        rows.append((at, queue, "ABANDONED", rng.randint(0, 4), 0, 0, ""))
                    elif u < p_short + p_long:
                        rows.append((at, queue, "ABANDONED", 5 + int(rng.expovariate(1 / 40)), 0, 0, ""))
                    else:
                        wait = rng.randint(0, 20) if rng.random() < quick else 21 + int(rng.expovariate(1 / 45))
                        rows.append((at, queue, "ANSWERED", wait, max(20, int(rng.gammavariate(2.2, talk_mean / 2.2))),
                                     max(10, int(rng.gammavariate(3, acw_mean / 3))), rng.choice(agents)))
            for _ in range(rng.randint(1, 4)):  # the payroll helpline shares the ACD
                at = dt.datetime.combine(day, dt.time(rng.randint(9, 16), rng.randint(0, 59), rng.randint(0, 59)))
                rows.append((at, "HR_PAYROLL", "ANSWERED", rng.randint(0, 90), rng.randint(60, 500),
                             rng.randint(10, 90), f"H{rng.randint(10, 99)}"))
    rows.sort(key=lambda r: r[0])
    base = rng.randint(4_000_000, 9_000_000)
    return [[str(base + k), f"{r[0]:%Y-%m-%d %H:%M:%S}", *r[1:]] for k, r in enumerate(rows)]


# ---- the independent computation: csv and the Erlang formula written out, not the solver's recursion ---------

def _erlang_c(a: float, n: int) -> float:
    top = a**n / math.factorial(n) * n / (n - a)
    return top / (sum(a**k / math.factorial(k) for k in range(n)) + top)


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the ACD export with the csv module and the textbook Erlang C sum."""
    with (Path(folder) / P["files"]["acd"]).open(newline="", encoding="utf-8") as f:
        calls = [r for r in csv.DictReader(f) if r["queue"] == P["queue"]]
    offered = [r for r in calls if not (r["disposition"] == "ABANDONED" and float(r["wait_s"]) < P["short_abandon_s"])]
    step = int(P["interval_min"])
    counts: dict[tuple[str, str], int] = {}
    for r in offered:
        t = dt.datetime.strptime(r["queue_entry"], "%Y-%m-%d %H:%M:%S")
        m = (t.hour * 60 + t.minute) // step * step
        key = (t.strftime("%a"), f"{m // 60:02d}:{m % 60:02d}")
        counts[key] = counts.get(key, 0) + 1
    answered = [r for r in calls if r["disposition"] == "ANSWERED"]
    aht = sum(float(r["talk_s"]) + float(r["acw_s"]) for r in answered) / len(answered)
    T, target = float(P["threshold_s"]), float(P["target"])
    peak: dict[str, Any] = {"forecast": -1.0}
    hours = 0.0
    minutes = [int(P[k][:2]) * 60 + int(P[k][3:]) for k in ("open", "close")]
    for day in P["open_days"]:
        for m in range(minutes[0], minutes[1], step):
            slot = f"{m // 60:02d}:{m % 60:02d}"
            forecast = counts.get((day, slot), 0) / P["weeks"] * (1 + P["growth"])
            a = forecast * aht / (step * 60)
            n = math.floor(a) + 1
            while a > 0 and 1 - _erlang_c(a, n) * math.exp(-(n - a) * T / aht) < target - 1e-12:
                n += 1
            n = n if a > 0 else 0
            hours += n * step / 60
            if forecast > peak["forecast"]:
                peak = {"day": day, "interval": slot, "forecast": forecast, "traffic": a, "agents": n}
    fte = hours / (1 - P["shrinkage"]) / P["fte_hours"]
    quick = sum(1 for r in offered if r["disposition"] == "ANSWERED" and float(r["wait_s"]) <= T)
    current = 100 * quick / len(offered)
    return {"peak": peak, "aht": aht, "agent_hours": hours, "fte": fte, "current_sl": current,
            "decision": rnd(fte, 1) <= P["budget_fte"], "premise": current >= 100 * target}


# ---- drawing a task -------------------------------------------------------------------------------------------

_MONDAYS = ("2025-02-03", "2025-03-03", "2025-03-10", "2025-04-07", "2025-04-28", "2025-06-02", "2025-08-04",
            "2025-09-15", "2026-03-02", "2026-04-13", "2026-05-04", "2026-06-08", "2026-08-10", "2026-09-14")


def _quarter(d: dt.date) -> str:
    q = (d.month - 1) // 3 + 2
    return f"Q{q} {d.year}" if q <= 4 else f"Q1 {d.year + 1}"


def _standard(P: dict[str, Any]) -> list[str]:
    t, pct = P["threshold_s"], round(P["target"] * 100)
    return [
        f"Scope: the {P['queue']} queue only; other queues on the ACD (such as HR_PAYROLL) are staffed by their own "
        "teams and are left out of every figure.",
        f"Hours: {', '.join(P['open_days'])}, {P['open']}-{P['close']}, in {P['interval_min']}-minute intervals labelled "
        "by their start time (10:00 means 10:00:00-10:29:59). A call belongs to the interval of its queue_entry time.",
        f"Offered calls: every call that entered the queue, except abandons with wait_s under {P['short_abandon_s']} "
        f"seconds (misdials and hang-ups before the greeting ends), which are excluded from offered calls and from "
        "every figure below.",
        f"Service level: calls answered with wait_s of {t} seconds or less, divided by offered calls; longer "
        f"abandons count as offered and not answered in time. The desk's target is {pct}/{t}: {pct} % within {t} s.",
        "Average handle time (AHT): the mean over answered calls of talk_s plus acw_s (after-call work is part of "
        "the handle time).",
        f"Forecast: for each interval of the week, the mean offered calls over the {P['weeks']} sample weeks, times "
        "(1 + the planning growth in force for the quarter). Keep full precision; round only what is reported.",
        f"Agents: traffic A = forecast calls x AHT / {P['interval_min'] * 60} s. Use Erlang C: P(wait) for N agents, "
        f"service level = 1 - P(wait) x exp(-(N - A) x {t} / AHT). The requirement is the smallest whole N greater "
        "than A whose service level reaches the target.",
        f"FTE: weekly agent-hours (agents x {P['interval_min']} minutes, summed over the week's intervals), divided by "
        f"(1 - shrinkage), divided by {P['fte_hours']:g} paid hours per FTE. Planned shrinkage is "
        f"{round(P['shrinkage'] * 100)} %.",
        "Reporting: calls and AHT to 1 decimal place, agents as whole numbers, FTE to 1 decimal place, percentages "
        "to 1 decimal place, rounded half up.",
    ]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.servicedesk import analyse

    prof = profession(occupation)
    first = dt.date.fromisoformat(rng.choice(_MONDAYS))
    last = first + dt.timedelta(days=11)
    tag = f"{first:%Y%m%d}_{last:%Y%m%d}"
    dirs = pick_labels(rng, _DIRS)
    growth, old_growth = rng.randint(4, 9) / 100, rng.randint(10, 15) / 100
    P: dict[str, Any] = {
        "files": {"acd": f"{dirs['acd']}/acd_calls_{tag}.csv"}, "dirs": dirs,
        "queue": rng.choice(("SERVICE_DESK", "IT_HELPDESK", "SD_MAIN")), "open_days": list(_DAYS),
        "open": "08:00", "close": "18:00", "interval_min": 30, "weeks": 2, "threshold_s": 20, "target": 0.8,
        "short_abandon_s": 5, "shrinkage": rng.randint(28, 35) / 100, "fte_hours": rng.choice((37.5, 40.0)),
        "growth": growth, "old_growth": old_growth, "budget_fte": 0.0, "labels": pick_labels(rng, _LABELS),
        "input_labels": pick_labels(rng, _INPUTS), "fte_labels": pick_labels(rng, _FTE),
        "deliverables": {"workbook": rng.choice(("staffing_plan.xlsx", f"erlang_staffing_{_quarter(first)[:2]}.xlsx",
                                                 "service_desk_staffing.xlsx")),
                         "memo": rng.choice(("staffing_memo.docx", "staffing_case.docx", "headcount_memo.docx"))},
    }
    sl_goal = rng.uniform(0.835, 0.9) if targets["premise"] else rng.uniform(0.66, 0.76)
    calls = _calls(rng, first, 2, P["queue"], rng.uniform(12, 28), sl_goal)
    header = ["call_id", "queue_entry", "queue", "disposition", "wait_s", "talk_s", "acw_s", "agent_id"]
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_csv(Path(tmp) / P["files"]["acd"], header, calls)
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in ("short_abandons", "no_acw", "old_growth")}
    if truth["premise"] != targets["premise"] or abs(truth["current_sl"] - 80) < 1.5:
        raise DegenerateTask("the sample's service level is not clearly on the targeted side of 80 %")
    ranked = sorted(r["forecast"] for r in truth["intervals"])
    if ranked[-1] - ranked[-2] < 1e-9:
        raise DegenerateTask("two intervals tie for the peak")
    fte = truth["fte"]
    P["budget_fte"] = (nice_between(fte * 1.03, fte * 1.2, 1) if targets["decision"]
                       else nice_between(fte * 0.82, fte * 0.97, 1))
    where = {"short_abandons": ("data", f"callers hanging up within {P['short_abandon_s']} s are in the export; the "
                                        "standard leaves them out of offered calls"),
             "no_acw": ("data", "after-call work is a separate column; AHT is talk plus ACW"),
             "old_growth": ("memo", f"the {old_growth * 100:g} % growth memo is superseded by the revised "
                                    f"{growth * 100:g} %")}

    def graded(f: Facts) -> Any:
        return (rnd(f["peak"]["forecast"], 1), rnd(f["aht"], 1), f["peak"]["agents"], rnd(f["fte"], 1),
                rnd(f["current_sl"], 1))

    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if graded(nf) != graded(truth)]
    if len(traps) < 3:
        raise DegenerateTask("a planted trap changes no graded answer")
    P["lead"] = person(rng)
    writers, roles = _workspace(rng, P, header, calls, first, last)
    boss = person(rng)
    L, D = P["labels"], P["dirs"]
    quarter = _quarter(first)
    lead = P["lead"]
    memo_lines = [(L["peak"], "calls per half-hour, 1 decimal"), (L["aht"], "seconds, 1 decimal"),
                  (L["agents"], "whole number"), (L["fte"], "1 decimal"), (L["current_sl"], "percent, 1 decimal"),
                  (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    IN, FL = P["input_labels"], P["fte_labels"]
    opener = rng.choice((f"From: {boss}, Service Desk Manager\nTo: Support team\nSubject: Staffing for {quarter}\n\n",
                         f"{boss} (Service Desk Manager) - {rng.choice(prof.occasions)}.\n\n",
                         f"Subject: Phone staffing case, {quarter}\nFrom: {boss}\n\n"))
    ask = rng.choice((f"I need the number of agents per half-hour to hit {round(P['target'] * 100)}/"
                      f"{P['threshold_s']} on the {P['queue']} queue next quarter ({quarter}), and what that means in FTE.",
                      f"Leadership wants a staffing argument for {quarter}: agents per half-hour for "
                      f"{round(P['target'] * 100)}/{P['threshold_s']} on {P['queue']}, and the FTE behind it.",
                      f"Can you size the {P['queue']} phone queue for {quarter}? Agents per interval to reach "
                      f"{round(P['target'] * 100)}/{P['threshold_s']}, then FTE."))
    belief = rng.choice((f"{lead} says we already hit 80/20 over the sample fortnight, so we may not need anyone - check "
                         "that against the ACD data.", f"{lead} reckons the sample fortnight already met the target; "
                         "please confirm from the export.", f"I've been told ({lead}) the desk made 80/20 in those two "
                         "weeks. Is that right?"))
    steps = [f"From the ACD export in {D['acd']}/, count offered calls per half-hour of the week as the staffing "
             f"standard in {D['std']}/ defines them, and average the two sample weeks.",
             f"Grow the volumes by the planning growth in force for {quarter} (see {D['plan']}/).",
             "Work out AHT as the standard defines it, then Erlang C for each interval: the fewest agents that reach "
             "the target.",
             "Convert the week's agent-hours to FTE with the standard's shrinkage and compare with the FTE budget "
             f"finance approved (see {D['mail']}/).",
             f"Check {lead.split()[0]}'s claim about the sample fortnight's service level."]
    deliverables = [
        f"{P['deliverables']['workbook']}: sheet Inputs (columns Parameter, Value) with rows " + ", ".join(
            IN[k] for k in _INPUTS) + "; sheet Intervals with columns day (Mon-Fri), interval (HH:MM start), "
        "sample_offered_avg, forecast_calls, traffic_erlangs, agents, p_wait, service_level, agent_hours, one row per "
        "half-hour of the week; sheet FTE (columns Line, Value) with rows " + ", ".join(FL[k] for k in _FTE) + ". "
        + rng.choice(("Forecast, traffic, service level, agent-hours and the FTE lines as live formulas.",
                      "Keep forecast_calls, traffic_erlangs, service_level, agent_hours and the FTE sheet as formulas "
                      "so I can change the growth or AHT.", "Formulas, not pasted values, for the forecast, traffic, "
                      "service level, agent-hours and FTE.")),
        f"{P['deliverables']['memo']}: " + rng.choice(("a memo I can forward, starting with these lines (label: value), "
                                                      "then your reasoning:", "a short staffing memo opening with "
                                                      "these labelled lines, then the method and judgement calls:"))
        + "\n" + "\n".join(f"   {lbl}: <{hint}>" for lbl, hint in memo_lines)]
    prompt = "\n\n".join([
        opener + ask + " " + belief,
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        rng.choice(("Please leave in the output folder:", "Deliverables in the output folder:", "Outputs:")) + "\n"
        + "\n".join(f"{k}. {t}" for k, t in enumerate(deliverables, 1)),
        rng.choice(("Thanks.", "Shout if the data looks off.", "Cheers.")) + "\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers)),
    ]) + "\n"
    return Draft(subject=f"Erlang C staffing of the {P['queue']} queue for {quarter}", instructions=prompt,
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="NHPP arrivals, peak 12-28 calls/half-hour Monday mid-morning, half-hourly profile and "
                               "weekday factors 1.0-0.75; short abandons 3-6 % (0-4 s); other abandons 3-7 %; talk "
                               "gamma mean 240-420 s; ACW gamma mean 45-120 s; growth 4-9 % (revised) vs 10-15 % "
                               "(superseded); shrinkage 28-35 %")


def _workspace(rng: random.Random, P: dict[str, Any], header: list[str], calls: list[list[Any]], first: dt.date,
               last: dt.date) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    D, F = P["dirs"], P["files"]
    quarter = _quarter(first)
    add(F["acd"], "data", lambda p: write_csv(p, header, calls))
    add(f"{D['acd']}/field_dictionary.txt", "reference", lambda p: write_text(p, (
        "ACD call detail export - fields\ncall_id: unique per call\nqueue_entry: time the call entered the queue "
        "(local time)\nqueue: ACD queue\ndisposition: ANSWERED or ABANDONED\nwait_s: seconds from queue entry to "
        "answer or hang-up\ntalk_s: seconds connected to an agent (0 if abandoned)\nacw_s: after-call work (wrap-up) "
        "seconds logged by the agent after the call (0 if abandoned)\nagent_id: answering agent\n")))
    add(f"{D['acd']}/queue_list.csv", "reference", lambda p: write_csv(p, ["queue", "description", "staffed_by"], [
        [P["queue"], "IT service desk - all callers", "Service desk"],
        ["HR_PAYROLL", "Payroll and benefits helpline", "HR shared services"],
        ["VIP_SUPPORT", "Executive support line (callback only)", "Desk-side team"]]))
    ivr = [[o, rng.randint(200, 1500)] for o in ("Password reset (self-service)", "Report an outage", "New request",
                                                 "Speak to an agent")]
    add(f"{D['acd']}/ivr_menu_summary_{first:%Y%m%d}.csv", "distractor", lambda p: write_csv(
        p, ["ivr_option", "selections"], ivr))
    plan = P["dirs"]["plan"]
    old_day = first - dt.timedelta(days=rng.randint(60, 90))
    new_day = first + dt.timedelta(days=rng.randint(16, 25))
    add(f"{plan}/growth/volume_growth_{old_day:%Y%m%d}.pdf", "stale", lambda p: write_pdf(
        p, f"Contact volume growth assumption for {quarter}", [
            f"Date: {iso(old_day)}", "From: Business planning",
            f"For capacity planning in {quarter}, assume call volumes {P['old_growth'] * 100:g} % above the recent "
            "run rate, reflecting the rollout of the new ERP to all sites.",
            "This assumption will be reviewed once the rollout schedule is confirmed."]))
    add(f"{plan}/growth/volume_growth_revised_{new_day:%Y%m%d}.docx", "policy", lambda p: write_docx(
        p, f"Revised contact volume growth for {quarter}", [
            f"Date: {iso(new_day)}", "From: Business planning",
            f"This memo supersedes the growth assumption of {iso(old_day)}.",
            f"The ERP rollout is now phased over two quarters, so plan {quarter} call volumes at "
            f"{P['growth'] * 100:g} % above the recent run rate (the sample weeks), for every interval alike.",
            "Email volumes are planned separately."]))
    add(f"{D['std']}/service_desk_staffing_standard.docx", "policy", lambda p: write_docx(
        p, "Service desk staffing standard", [f"- {r}" for r in _standard(P)]))
    add(f"{D['std']}/ticket_priority_matrix.pdf", "distractor", lambda p: write_pdf(p, "Ticket priority matrix", [
        "P1: service down for many users - response 15 minutes", "P2: service degraded - response 1 hour",
        "P3: single user, workaround exists - response 1 business day", "P4: request - response 3 business days"]))
    parts = [("Breaks", 0.08), ("Training and coaching", 0.05), ("Team meetings", 0.04), ("Absence (sick/leave)", 0.0)]
    rest = round(P["shrinkage"] - sum(v for _, v in parts), 2)
    shrink = [[k, f"{v * 100:.0f}"] for k, v in parts[:3]] + [[parts[3][0], f"{rest * 100:.0f}"],
                                                               ["Total", f"{P['shrinkage'] * 100:.0f}"]]
    add(f"{D['wfm']}/shrinkage_components_{first.year}.csv", "reference", lambda p: write_csv(
        p, ["component", "percent_of_paid_time"], shrink))
    roster = [[f"A{rng.randint(100, 999)}", person(rng), rng.choice(("Tier 1", "Tier 1", "Tier 2")),
               rng.choice((P["fte_hours"], P["fte_hours"], P["fte_hours"] / 2)), rng.choice(("phones", "phones", "email"))]
              for _ in range(rng.randint(10, 16))]
    add(f"{D['wfm']}/agent_roster.xlsx", "distractor", lambda p: write_xlsx(
        p, [("Roster", ["agent_id", "name", "tier", "contract_hours", "primary_channel"], roster)]))
    boss_day = last + dt.timedelta(days=rng.randint(3, 8))
    add(f"{D['mail']}/{iso(boss_day)}_finance_fte_budget.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Finance business partner", to="Service Desk Manager", date=iso(boss_day),
        subject=f"{quarter} headcount", body=f"The approved budget for the service desk phone team in {quarter} is "
        f"{P['budget_fte']:.1f} FTE (paid FTE, before shrinkage is taken out). Anything above that needs a business case.")))
    add(f"{D['mail']}/{iso(last + dt.timedelta(days=2))}_service_level_claim.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{P['lead']}, Support Team Lead", to="Service Desk Manager",
                      date=iso(last + dt.timedelta(days=2)), subject="Phones over the last two weeks",
                      body=f"Good news - by my count we hit 80/20 over the fortnight {iso(first)} to {iso(last)}, so "
                           "the team is coping and I don't think we need extra heads next quarter.")))
    tickets = [[c, rng.randint(40, 400), rng.randint(1, 30)] for c in ("Password / access", "Email", "Laptop hardware",
                                                                        "VPN", "Printing", "Software install")]
    add(f"reports/ticket_volume_by_category_{first:%Y%m}.csv", "distractor", lambda p: write_csv(
        p, ["category", "tickets", "breached_sla"], tickets))
    add(f"meetings/{iso(first - dt.timedelta(days=3))}_ops_review.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="knowledge base refresh", people=[person(rng) for _ in range(3)],
                         date=iso(first - dt.timedelta(days=3)))))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck

    D, L, IN, FL = P["deliverables"], P["labels"], P["input_labels"], P["fte_labels"]
    book, memo = D["workbook"], D["memo"]
    pk = facts["peak"]
    at_peak = {"day": pk["day"], "interval": pk["interval"]}
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def memo_num(key: str, value: float, decimals: int) -> tuple[str, Any]:
        v = rnd(value, decimals)
        return f"{L[key]} = {v:.{decimals}f}", fld_num(memo, L[key], v, decimals)

    def cell(sheet: str, match: dict[str, str], column: str, value: float, decimals: int) -> tuple[str, Any]:
        v = rnd(value, decimals)
        what = ", ".join(match.values())
        return (f"{book} {sheet}: {what} {column} = {v:.{decimals}f}",
                CellCheck(file=book, sheet=sheet, match=dict(match), column=column, value=v, tolerance=tol(decimals)))

    out = [
        rubric("Forecasts the peak half-hour from offered calls and the growth in force", 10, [
            memo_num("peak", pk["forecast"], 1), cell("Intervals", at_peak, "forecast_calls", pk["forecast"], 1)]),
        rubric("Uses a handle time that includes after-call work", 8, [
            memo_num("aht", facts["aht"], 1), cell("Inputs", {"Parameter": IN["aht"]}, "Value", facts["aht"], 1)]),
        rubric("Sizes the peak interval with Erlang C", 10, [
            memo_num("agents", pk["agents"], 0), cell("Intervals", at_peak, "agents", pk["agents"], 0),
            cell("Intervals", at_peak, "traffic_erlangs", pk["traffic"], 2)]),
        rubric("Grosses the week's agent-hours up to FTE for shrinkage", 10, [
            memo_num("fte", facts["fte"], 1), cell("FTE", {"Line": FL["fte"]}, "Value", facts["fte"], 1),
            cell("FTE", {"Line": FL["hours"]}, "Value", facts["agent_hours"], 1)]),
        rubric("Answers the budget question against finance's approved FTE", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            cell("FTE", {"Line": FL["budget"]}, "Value", P["budget_fte"], 1)]),
        rubric("Tests the team lead's service-level claim against the ACD record", 8, [
            memo_num("current_sl", facts["current_sl"], 1),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Explains the method and the judgement calls", 6, [
            ("Says short abandons were excluded from offered calls and why", llm("explanation")),
            ("Uses the revised growth memo and says it supersedes the earlier one", llm("explanation")),
            ("Explains that AHT includes after-call work and how Erlang C sets the agents", llm("explanation"))]))
        out.append(rubric("Writes a staffing case the manager can forward", 6, [
            ("States the peak interval, its agents and the weekly FTE against the budget", llm("reasoning")),
            ("Answers the team lead's claim directly with the measured service level", llm("tone and content")),
            ("Is concise and free of unexplained jargon", llm("writing"))]))
    return out


ERLANG_C_STAFFING = Workflow(
    key="erlang_c_staffing", family="erlang_c_staffing", method="Erlang C interval staffing with shrinkage",
    professions=("computer_user_support_specialists",), solver="servicedesk",
    shortcuts=("short_abandons", "no_acw", "old_growth"), draw=draw, recheck=recheck, rubrics=rubrics,
    data="generated ACD call sample (stated distributions)", helpers=("_erlang.py",))
