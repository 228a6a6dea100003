"""Jury summons planning for a month's trial weeks: yield by source list, each week's need from the calendar after
continuances, returning postponed jurors netted out, summonses by week and source (court clerks).

The Chief Deputy Clerk needs the summons order for next month's trial weeks before the calendar meeting, as a memo
to the presiding judge and the print vendor's mail-merge csv. Generated: a jury-system summons history of 15-16
months (Monday report dates, 150-260 summonses a week split by the plan's source shares; per source undeliverable
4-14 %, doubled to tripled before the change-of-address update; disqualified 5-12 %, excused 12-17 % with one in five
an age-70 exemption, postponed 7-11 %, FTA 6-14 %, the rest appeared; 2-4 % of voter-list summonses also written under
the DMV list, and of DMV ones under the tax list), a trial calendar of 2-5 trials a week (felony 45 %, misdemeanor
30 %, civil 25 %, life felony 1 week in 10), docket events with four orders continuing trial (two out of the month,
one within it, one into it from the week before) beside motions and a denial, postponed jurors rescheduled 3-14 to
each week, and the master list's pool status. The current plan (docx) states every rule; the superseded plan (pdf)
has other panel sizes and margin and measures yield on delivered summonses.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed, the busiest week is not unique or a
planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not this
workflow's.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, llm, rubric
from ..compose import meeting_notes, person
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, day, iso, pick_labels, read_rows, write_files
from .jury_docs import TYPE_NAMES, emails, export_notes, fee_schedule, order_text, plan_lines

__all__ = ["JURY_SUMMONS_PLAN"]

SHORTCUTS = ("stale_calendar", "status_column", "both_lists", "old_plan", "no_returning", "delivered_base",
             "full_export")
_LABELS = {
    "decision": ("{m} order can be drawn from the names available", "Master list covers the {m} order",
                 "Enough available names on every list for {m}"),
    "premise": ("Week of {w} is the heaviest week", "Claim that {w} is the heaviest week holds",
                "{w} needs the most summonses"),
    "total": ("Total summonses", "Summonses to mail", "Total summonses for the month"),
    "yield": ("Yield", "Summons yield", "Juror yield"),
    "undeliverable": ("Undeliverable rate", "Undeliverable share", "Returned undeliverable"),
    "disqualified": ("Disqualified rate", "Disqualification rate", "Disqualified share"),
    "excused": ("Excused rate", "Excusal rate", "Excused share"),
    "need": ("Jurors needed week of", "Jurors needed", "Panel need week of"),
    "returning": ("Returning postponed week of", "Postponed jurors returning", "Returning deferrals week of"),
    "week_total": ("Summonses week of", "Summonses for week", "Mailing week of"),
    "source_total": ("Month summonses", "Month order from", "Summonses from list"),
}
_COLS = {"week": ("week_of", "report_week", "trial_week"), "source": ("source", "source_list", "list"),
         "summonses": ("summonses", "summons_count", "qty_to_mail")}
_DIRS = {"jms": ("jury_system", "jms_exports", "jury_management"), "cal": ("calendar", "trial_calendar", "calendaring"),
         "pol": ("policies", "general_orders", "jury_plan"), "mail": ("correspondence", "email", "mail")}
_REASONS = {"DISQUALIFIED": (("NONCIT", "Not a citizen of the United States"), ("NONRES", "Not a resident of the county"),
                             ("UNDER18", "Under 18 years of age"), ("FELONY", "Disqualifying felony conviction"),
                             ("NOENG", "Not proficient in English")),
            "EXCUSED": (("HARDSHIP", "Undue financial hardship"), ("MEDICAL", "Medical condition"),
                        ("CAREGIVER", "Sole caregiver"), ("STUDENT", "Full-time student"),
                        ("AGE70", "Age 70 or over, exemption requested"))}
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


# ---- the independent computation: csv and openpyxl only ------------------------------------------------------

def _half_up_bp(f: Fraction) -> int:
    return math.floor(f * 10000 + Fraction(1, 2))


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: exact fractions over csv and xlsx rows."""
    folder, F = Path(folder), P["files"]
    cat = {r["reason_code"].strip().upper(): r["category"].strip().upper() for r in read_rows(folder / F["codes"])}
    lo, hi, prio = day(P["window_start"]), day(P["plan_date"]), list(P["source_priority"])
    one: dict[str, tuple[int, str]] = {}
    for r in read_rows(folder / F["history"]):
        if not lo <= day(r["report_date"].strip()) < hi:
            continue
        st = r["status"].strip().upper()
        if st in ("DISQUALIFIED", "EXCUSED"):
            st = cat.get(r["reason_code"].strip().upper(), st)
        k = prio.index(r["source"].strip().upper())
        if r["summons_no"].strip() not in one or k < one[r["summons_no"].strip()][0]:
            one[r["summons_no"].strip()] = (k, st)
    mailed, appeared = [0] * len(prio), [0] * len(prio)
    outcome = {"UNDELIVERABLE": 0, "DISQUALIFIED": 0, "EXCUSED": 0}
    for k, st in one.values():
        mailed[k] += 1
        appeared[k] += st == "APPEARED"
        if st in outcome:
            outcome[st] += 1
    ybp = {s: _half_up_bp(Fraction(appeared[k], mailed[k])) for k, s in enumerate(prio)}
    total = len(one)
    rates = {k.lower(): _half_up_bp(Fraction(v, total)) for k, v in outcome.items()}
    setting = {r["case_no"].strip(): (r["case_type"].strip().upper(), day(r["trial_date"].strip()))
               for r in read_rows(folder / F["calendar"])}
    for e in sorted(read_rows(folder / F["docket"]), key=lambda e: e["event_date"]):
        if e["event_code"].strip().upper() == "ORCT" and e["case_no"].strip() in setting:
            c = e["case_no"].strip()
            setting[c] = (setting[c][0], day(e["new_trial_date"].strip()))
    returning: dict[dt.date, int] = {}
    for r in read_rows(folder / F["postponed"]):
        d = day(r["new_report_date"].strip())
        wk = d - dt.timedelta(days=d.weekday())
        returning[wk] = returning.get(wk, 0) + 1
    panels, margin = P["plan"]["panels"], Fraction(100 + P["plan"]["margin_pct"], 100)
    weeks, order = [], []
    for w in P["weeks"]:
        wk = day(w)
        seats = sum(panels[t] for t, d in setting.values() if wk <= d < wk + dt.timedelta(days=7))
        need = math.ceil(seats * margin)
        net = max(0, need - returning.get(wk, 0))
        n_week = 0
        for s in prio:
            src_need = math.ceil(Fraction(net * P["shares"][s], 100))
            n = math.ceil(Fraction(src_need * 10000, ybp[s]))
            n_week += n
            order.append({"week": w, "source": s, "summonses": n})
        weeks.append({"week": w, "need": need, "returning": returning.get(wk, 0), "summonses": n_week})
    totals = {s: sum(o["summonses"] for o in order if o["source"] == s) for s in prio}
    pool = {r["source"].strip().upper(): int(r["names_on_list"]) - int(r["summoned_last_24_months"])
            for r in read_rows(folder / F["pool"])}
    best = max(x["summonses"] for x in weeks)
    claim = next(x for x in weeks if x["week"] == P["claim_week"])
    return {"sources": [{"source": s, "yield_bp": ybp[s]} for s in prio], "rates": rates, "weeks": weeks,
            "order": order, "totals": totals, "total": sum(totals.values()),
            "decision": all(pool.get(s, 0) >= n for s, n in totals.items()),
            "premise": claim["summonses"] == best and [x["summonses"] for x in weeks].count(best) == 1}


# ---- drawing a task ----------------------------------------------------------------------------------------

def _mondays(y: int, m: int) -> list[dt.date]:
    d = dt.date(y, m, 1)
    d += dt.timedelta(days=(7 - d.weekday()) % 7)
    out = []
    while d.month == m:
        out.append(d)
        d += dt.timedelta(days=7)
    return out


def _history(rng: random.Random, P: dict[str, Any]) -> list[list[Any]]:
    """Summons rows (summons_no, juror_id, source, mailed, report, status, reason), duplicates across lists."""
    srcs = P["source_priority"]
    base = {"VOTER": (0.06, 0.10, 0.05, 0.08, 0.06, 0.10), "DMV": (0.04, 0.07, 0.08, 0.12, 0.09, 0.14),
            "STATEID": (0.09, 0.14, 0.06, 0.09, 0.10, 0.14)}
    probs = {}
    for s in srcs:
        b = base[s]
        probs[s] = {"UNDELIVERABLE": rng.uniform(b[0], b[1]), "DISQUALIFIED": rng.uniform(b[2], b[3]),
                    "EXCUSED": rng.uniform(0.12, 0.17), "POSTPONED": rng.uniform(0.07, 0.11),
                    "FTA": rng.uniform(b[4], b[5])}
    pre = rng.uniform(2.0, 3.0)
    ncoa, upgrade, T = day(P["ncoa_date"]), day(P["upgrade_date"]), day(P["plan_date"])
    rows: list[list[Any]] = []
    d = day(P["export_start"])
    seq = rng.randint(100000, 400000)
    while d < T:
        n = rng.randint(150, 260)
        mailed = d - dt.timedelta(days=rng.choice((35, 42, 49)))
        for k, s in enumerate(srcs):
            for _ in range(round(n * P["shares"][s] / 100)):
                seq += 1
                p, u = probs[s], rng.random()
                p_und = p["UNDELIVERABLE"] * (pre if mailed <= ncoa else 1.0)
                acc, st = 0.0, "APPEARED"
                for name, q in (("UNDELIVERABLE", p_und), ("DISQUALIFIED", p["DISQUALIFIED"]),
                                ("EXCUSED", p["EXCUSED"]), ("POSTPONED", p["POSTPONED"]), ("FTA", p["FTA"])):
                    acc += q
                    if u < acc:
                        st = name
                        break
                reason = ""
                if st == "DISQUALIFIED":
                    reason = rng.choice(_REASONS[st])[0]
                elif st == "EXCUSED":
                    reason = rng.choices([c for c, _ in _REASONS[st]], (35, 30, 10, 5, 20))[0]
                    if reason == "AGE70" and d >= upgrade:
                        st = "DISQUALIFIED"  # the upgrade's mislabel; the reason code is right
                row = [f"S{d.year % 100:02d}-{seq:07d}", f"J{rng.randint(1000000, 9999999)}", s, iso(mailed), iso(d),
                       st, reason]
                rows.append(row)
                if k + 1 < len(srcs) and rng.random() < P["dup_rate"]:
                    rows.append(row[:2] + [srcs[k + 1]] + row[3:])
        d += dt.timedelta(days=7)
    return rows


def _calendar(rng: random.Random, P: dict[str, Any], weeks: list[dt.date], T: dt.date
              ) -> tuple[list[list[Any]], list[list[Any]], dict[str, Any]]:
    """Trial settings around the month, docket events with four orders continuing trial, the order texts."""
    judges = [f"Hon. {person(rng)}" for _ in range(4)]
    span = [weeks[0] - dt.timedelta(days=14 - 7 * k) for k in range(2)] + weeks + [weeks[-1] + dt.timedelta(days=7 * k)
                                                                                  for k in range(1, 4)]
    cal: list[list[Any]] = []
    for wk in span:
        for _ in range(rng.randint(2, 5)):
            t = "LIFE" if rng.random() < 0.025 else rng.choices(("FEL", "MISD", "CIV"), (45, 30, 25))[0]
            pre = {"FEL": "CR", "LIFE": "CR", "MISD": "MS", "CIV": "CV"}[t]
            case = f"{(T.year - rng.randint(0, 1)) % 100:02d}{pre}{rng.randint(1000, 99999):05d}"
            title = f"State v. {person(rng).split()[1]}" if t != "CIV" else \
                f"{person(rng).split()[1]} v. {rng.choice(('Acme Logistics', 'County Mutual', person(rng).split()[1]))}"
            td = wk + dt.timedelta(days=1 if rng.random() < 0.15 else 0)
            cal.append([case, t, title, iso(td), f"Dept {rng.randint(1, 12)}", rng.randint(2, 9), "SET"])
    inside = [r for r in cal if weeks[0] <= day(r[3]) < weeks[-1] + dt.timedelta(days=5)]
    before = [r for r in cal if day(r[3]) < weeks[0]]
    picks = rng.sample(inside, 3)
    into = rng.choice([r for r in before if day(r[3]) >= weeks[0] - dt.timedelta(days=7)])
    moves = []
    for r in picks[:2]:  # continued past the month
        moves.append((r, day(r[3]) + dt.timedelta(days=7 * rng.randint(6, 10))))
    r = picks[2]
    wk_old = day(r[3]) - dt.timedelta(days=day(r[3]).weekday())
    moves.append((r, rng.choice([w for w in weeks if w != wk_old])))
    moves.append((into, rng.choice(weeks)))
    events: list[list[Any]] = []
    orders: dict[str, str] = {}
    for r, new in moves:
        judge = rng.choice(judges)
        filed = T - dt.timedelta(days=rng.randint(15, 40))
        entered = filed + dt.timedelta(days=rng.randint(3, 10))
        events.append([r[0], iso(filed), "MTCT", "Motion to continue trial", ""])
        events.append([r[0], iso(entered), "ORCT", "Order continuing trial", iso(new)])
        orders[f"{r[0]}_order_continuing_trial.txt"] = order_text(P, r[0], r[2], judge, r[3], iso(new), iso(entered), True)
    others = [r for r in inside if r not in picks]
    for k, r in enumerate(rng.sample(others, min(3, len(others)))):
        filed = T - dt.timedelta(days=rng.randint(10, 30))
        events.append([r[0], iso(filed), "MTCT", "Motion to continue trial", ""])
        if k == 0:  # denied: the trial stays where it is set
            entered = filed + dt.timedelta(days=rng.randint(2, 8))
            events.append([r[0], iso(entered), "ODEN", "Order denying motion to continue", ""])
            orders[f"{r[0]}_order_denying_continuance.txt"] = order_text(P, r[0], r[2], rng.choice(judges), r[3], "",
                                                                         iso(entered), False)
    for r in rng.sample(cal, 8):
        code, text = rng.choice((("PTC", "Pretrial conference held"), ("NOA", "Notice of appearance"),
                                 ("STIP", "Stipulation filed")))
        events.append([r[0], iso(T - dt.timedelta(days=rng.randint(5, 60))), code, text, ""])
    events.sort(key=lambda e: (e[1], e[0]))
    return cal, events, {"orders": orders, "judges": judges}


def _postponed(rng: random.Random, hist: list[list[Any]], weeks: list[dt.date], T: dt.date) -> list[list[Any]]:
    pool = {r[0]: r for r in hist if r[5] == "POSTPONED" and day(r[4]) >= T - dt.timedelta(days=120)}
    chosen = rng.sample(sorted(pool), len(pool))
    rows, k = [], 0
    elsewhere = [weeks[0] - dt.timedelta(days=7)] + [weeks[-1] + dt.timedelta(days=7 * j) for j in range(1, 6)]
    for wk in weeks:
        for _ in range(rng.randint(3, 14)):
            if k < len(chosen):
                rows.append((pool[chosen[k]], wk))
                k += 1
    for c in chosen[k:k + rng.randint(10, 30)]:
        rows.append((pool[c], rng.choice(elsewhere)))
    return [[r[0], r[1], r[4], iso(w), iso(day(r[4]) + dt.timedelta(days=rng.randint(1, 6)))]
            for r, w in sorted(rows, key=lambda x: (x[1], x[0][0]))]


def _graded(f: Facts) -> list[tuple[str, float, float]]:
    out = [(f"y{x['source']}", float(x["yield_bp"]), 1.0) for x in f["sources"]]
    out += [(f"r{k}", float(v), 1.0) for k, v in f["rates"].items()]
    for x in f["weeks"]:
        out += [(f"{k}{x['week']}", float(x[k]), 0.0) for k in ("need", "returning", "summonses")]
    out += [(f"o{o['week']}{o['source']}", float(o["summonses"]), 0.0) for o in f["order"]]
    return out


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.jury import analyse

    dirs = pick_labels(rng, _DIRS)
    month = rng.randint(3, 11)
    weeks = _mondays(2026, month)
    T = weeks[0] - dt.timedelta(days=rng.randint(18, 32))
    srcs = ["VOTER", "DMV"] + (["STATEID"] if rng.random() < 0.4 else [])
    shares = ({"VOTER": (v := rng.choice((50, 55, 60, 65))), "DMV": 100 - v} if len(srcs) == 2 else
              {"VOTER": (v := rng.choice((45, 50, 55))), "DMV": (d := rng.choice((30, 35))), "STATEID": 100 - v - d})
    panels = {"FEL": rng.randint(40, 48), "LIFE": rng.choice((70, 75, 80, 90)), "MISD": rng.randint(20, 26),
              "CIV": rng.randint(26, 34)}
    old = {k: v - rng.randint(4, 8) if k != "LIFE" else v - 10 for k, v in panels.items()}
    margin = rng.choice((10, 15, 20))
    ws = T.replace(year=T.year - 1) if not (T.month == 2 and T.day == 29) else dt.date(T.year - 1, 2, 28)
    export_start = ws - dt.timedelta(days=7 * rng.randint(9, 16))
    export_start -= dt.timedelta(days=export_start.weekday())
    people = {k: person(rng) for k in ("claimant", "admin", "facilities", "boss", "judge")}
    court = rng.choice(("Superior Court of Marion County", "Superior Court of Lake County",
                        "District Court of Franklin County", "Superior Court of Clark County"))
    P: dict[str, Any] = {
        "court": court, "judge": f"Hon. {people['judge']}", "month_name": f"{_MONTHS[month - 1]} {weeks[0].year}",
        "plan_date": iso(T), "window_start": iso(ws), "export_start": iso(export_start),
        "ncoa_date": iso(ws - dt.timedelta(days=rng.randint(10, 40))),
        "upgrade_date": iso(ws + dt.timedelta(days=rng.randint(150, 260))),
        "plan_adopted": iso(dt.date(2025, rng.randint(9, 12), rng.randint(1, 28))),
        "old_adopted": iso(dt.date(2021, rng.randint(1, 12), rng.randint(1, 28))),
        "source_priority": srcs, "shares": shares, "dup_rate": rng.uniform(0.02, 0.04),
        "plan": {"panels": panels, "margin_pct": margin},
        "old_plan": {"panels": old, "margin_pct": rng.choice([m for m in (10, 15, 20, 25) if m != margin])},
        "weeks": [iso(w) for w in weeks], "claim_week": iso(weeks[0]),
        "claim_date": iso(T - dt.timedelta(days=rng.randint(1, 4))), "columns": pick_labels(rng, _COLS),
        "files": {"history": f"{dirs['jms']}/exports/summons_history_{iso(export_start)}_{iso(T)}.csv",
                  "codes": f"{dirs['jms']}/status_reason_codes.xlsx",
                  "postponed": f"{dirs['jms']}/exports/postponements_{iso(T)}.csv",
                  "pool": f"{dirs['jms']}/pool_status_{iso(T)}.csv",
                  "calendar": f"{dirs['cal']}/trial_calendar_{iso(T)}.csv",
                  "docket": f"{dirs['cal']}/docket_events_{iso(T)}.csv"},
        "deliverables": {"memo": rng.choice((f"jury_summons_memo_{_MONTHS[month - 1].lower()}.docx",
                                             "summons_plan_memo.docx")),
                         "csv": rng.choice(("summons_mail_merge.csv", f"summons_order_{weeks[0]:%Y-%m}.csv"))}}
    hist = _history(rng, P)
    cal, events, extra = _calendar(rng, P, weeks, T)
    post = _postponed(rng, hist, weeks, T)
    pool_rows = [[s, 0, 0, iso(T)] for s in srcs]
    files = _files(rng, P, dirs, hist, cal, events, extra, post, pool_rows, people)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), {k: files[k] for k in P["files"].values()})
        pre = analyse(tmp, P)
    totals = [x["summonses"] for x in pre["weeks"]]
    top = max(totals)
    if totals.count(top) != 1:
        raise DegenerateTask("no single busiest week")
    best = pre["weeks"][totals.index(top)]["week"]
    if targets["premise"]:
        P["claim_week"] = best
    else:  # the week that looks busiest on the stale calendar, when it is not the busiest
        stale = {w: sum(1 for r in cal if iso(day(r[3]) - dt.timedelta(days=day(r[3]).weekday())) == w)
                 for w in P["weeks"]}
        rest = sorted((w for w in P["weeks"] if w != best), key=lambda w: -stale[w])
        P["claim_week"] = rest[0]
    short = rng.choice(srcs)
    for row in pool_rows:
        s, need = row[0], pre["totals"][row[0]]
        avail = need - rng.randint(5, 80) if (not targets["decision"] and s == short) else need + rng.randint(10, 600)
        row[1] = rng.randint(avail + 5000, avail + 90000)
        row[2] = row[1] - avail
    files = _files(rng, P, dirs, hist, cal, events, extra, post, pool_rows, people)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), {k: files[k] for k in P["files"].values()})
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    if truth["decision"] != targets["decision"] or truth["premise"] != targets["premise"]:
        raise DegenerateTask("the targets are missed")
    where = {"stale_calendar": ("data", "orders continuing trial on the docket move trials out of, within and into "
                                        "the month"),
             "status_column": ("email", "age-70 exemptions recorded as disqualifications after the upgrade are "
                                        "excusals by reason code"),
             "both_lists": ("footnote", "a summons of a person on two lists is one summons under the first list"),
             "old_plan": ("memo", "the current plan's panel sizes and margin supersede the 2021 plan's"),
             "no_returning": ("data", "postponed jurors rescheduled into a week reduce its need"),
             "delivered_base": ("memo", "yield is on summonses mailed, undeliverable ones included"),
             "full_export": ("memo", "yield is measured on the plan's twelve months, after the address update")}
    truth_g = {k: (v, t) for k, v, t in _graded(truth)}
    traps = []
    for s, g in singles.items():
        if any(abs(v - truth_g[k][0]) > truth_g[k][1] + 1e-9 for k, v, _ in _graded(g)):
            traps.append({"kind": s, "where": where[s][0], "description": where[s][1], "naive": s})
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    labels["decision"] = labels["decision"].format(m=_MONTHS[month - 1])
    labels["premise"] = labels["premise"].format(w=P["claim_week"])
    P["labels"] = labels
    P.pop("dup_rate")
    return Draft(subject=f"Jury summonses for {P['month_name']}", instructions=_prompt(rng, P, files, people),
                 files=files, roles={k: ("data" if k in P["files"].values() else "distractor") for k in files} | {
                     f"{dirs['pol']}/jury_management_plan_{P['plan_adopted'][:4]}.docx": "policy",
                     f"{dirs['pol']}/archive/jury_management_plan_{P['old_adopted'][:4]}.pdf": "stale"},
                 params=P, traps=traps, targets=dict(targets),
                 distributions="weekly summons draws 150-260 split by source shares over 15-16 months; outcome "
                               "shares uniform per source (undeliverable 4-14 %, x2-3 before the address update; "
                               "disqualified 5-12 %, excused 12-17 %, postponed 7-11 %, FTA 6-14 %); 2-4 % cross-list "
                               "duplicates; 2-5 trials a week (felony 45 %, misdemeanor 30 %, civil 25 %, life 2.5 %); "
                               "3-14 returning postponed jurors a week")


def _files(rng: random.Random, P: dict[str, Any], dirs: dict[str, str], hist: list[list[Any]], cal: list[list[Any]],
           events: list[list[Any]], extra: dict[str, Any], post: list[list[Any]], pool_rows: list[list[Any]],
           people: dict[str, str]) -> dict[str, Any]:
    F, T = P["files"], day(P["plan_date"])
    r2 = random.Random(P["plan_date"] + P["court"])  # the same distractor text on a redraw of the files
    mail = emails(r2, P, people)
    codes = [[c, d, cat] for cat, items in _REASONS.items() for c, d in items]
    prior = day(P["weeks"][0]) - dt.timedelta(days=28)
    prior_rows = [[iso(prior + dt.timedelta(days=7 * k)), s, r2.randint(90, 260)] for k in range(4)
                  for s in P["source_priority"]]
    out: dict[str, Any] = {
        F["history"]: lambda p: write_csv(p, ["summons_no", "juror_id", "source", "mailed_date", "report_date",
                                              "status", "reason_code"], hist),
        F["codes"]: lambda p: write_xlsx(p, [("Codes", ["reason_code", "description", "category"], codes)]),
        F["postponed"]: lambda p: write_csv(p, ["summons_no", "juror_id", "original_report_date", "new_report_date",
                                                "requested_on"], post),
        F["pool"]: lambda p: write_csv(p, ["source", "names_on_list", "summoned_last_24_months", "as_of"], pool_rows),
        F["calendar"]: lambda p: write_csv(p, ["case_no", "case_type", "case_title", "trial_date", "department",
                                               "est_trial_days", "status"], cal),
        F["docket"]: lambda p: write_csv(p, ["case_no", "event_date", "event_code", "event_text", "new_trial_date"],
                                         events),
        f"{dirs['jms']}/exports/README_summons_history.txt": lambda p: write_text(p, export_notes(P)),
        f"{dirs['pol']}/jury_management_plan_{P['plan_adopted'][:4]}.docx": lambda p: write_docx(
            p, f"Jury Management Plan ({P['plan_adopted']})", plan_lines(P, True)),
        f"{dirs['pol']}/archive/jury_management_plan_{P['old_adopted'][:4]}.pdf": lambda p: write_pdf(
            p, f"Jury Management Plan ({P['old_adopted']}) - superseded", plan_lines(P, False)),
        f"{dirs['pol']}/case_type_codes.md": lambda p: write_text(p, "# Case type codes\n\n" + "\n".join(
            f"- {k}: {v}" for k, v in TYPE_NAMES.items()) + "\n"),
        f"{dirs['mail']}/{P['claim_date']}_{P['month_name'].split()[0].lower()}_trial_weeks.txt":
            lambda p: write_text(p, mail["claim"]),
        f"{dirs['mail']}/{P['upgrade_date']}_jms_upgrade_status_mapping.txt": lambda p: write_text(p, mail["upgrade"]),
        f"{dirs['mail']}/{P['ncoa_date']}_master_list_address_update.txt": lambda p: write_text(p, mail["ncoa"]),
        f"{dirs['mail']}/{iso(T)}_print_vendor_order_format.txt": lambda p: write_text(p, mail["vendor"]),
        f"{dirs['mail']}/{P['claim_date']}_juror_parking.txt": lambda p: write_text(p, mail["parking"]),
        f"{dirs['jms']}/orders_sent/summons_order_{prior:%Y-%m}.csv": lambda p: write_csv(
            p, ["week_of", "source", "summonses"], prior_rows),
        f"{dirs['jms']}/juror_fees_{T.year}.xlsx": lambda p: write_xlsx(p, [("Fees", *fee_schedule())]),
        f"meetings/{iso(T - dt.timedelta(days=10))}_jury_office.md": lambda p: write_text(p, meeting_notes(
            r2, topic="jury assembly room refit", people=[person(r2) for _ in range(3)],
            date=iso(T - dt.timedelta(days=10)))),
    }
    for name, text in extra["orders"].items():
        out[f"{dirs['cal']}/orders/{name}"] = (lambda t: lambda p: write_text(p, t))(text)
    return out


def _prompt(rng: random.Random, P: dict[str, Any], files: dict[str, Any], people: dict[str, str]) -> str:
    L, D, C, m = P["labels"], P["deliverables"], P["columns"], P["month_name"]
    boss = people["boss"]
    steps = [
        "From the summons history export, work out each source list's summons yield under the current jury plan "
        "(its twelve-month window, summonses mailed as the denominator, each summons once under its master-list "
        "source), and the undeliverable, disqualified and excused rates with each summons classified by its reason "
        "code.",
        f"For each {m} trial week, take the trials still set that week once the orders continuing trial on the docket "
        "are applied, price them at the current plan's panel sizes and safety margin (round up), and net out the "
        "postponed jurors rescheduled to report that week.",
        "Split each week's net need among the source lists by the plan's shares and turn it into summonses with each "
        "source's yield, rounding up as the plan says.",
        f"Tell me whether the whole {m} order can be drawn from the names still available on each source list (pool "
        f"status report), and check {people['claimant']}'s view that the week of {P['claim_week']} will be the "
        "heaviest (the most summonses of any week)."]
    memo = [f"{L['decision']}: <yes or no>", f"{L['premise']}: <yes or no>", f"{L['total']}: <whole number>"]
    memo += [f"{L['yield']} {s}: <per cent, 2 decimals>" for s in P["source_priority"]]
    memo += [f"{L[k]}: <per cent of summonses mailed, 2 decimals>" for k in ("undeliverable", "disqualified", "excused")]
    for w in P["weeks"]:
        memo += [f"{L['need']} {w}: <whole number>", f"{L['returning']} {w}: <whole number>",
                 f"{L['week_total']} {w}: <whole number>"]
    memo += [f"{L['source_total']} {s}: <whole number>" for s in P["source_priority"]]
    deliv = [f"{D['csv']}: the print vendor's mail-merge order, columns {C['week']}, {C['source']}, {C['summonses']}; "
             f"one row per {m} trial week and source list ({', '.join(P['source_priority'])}), the week as its Monday "
             "(YYYY-MM-DD), whole summonses.",
             f"{D['memo']}: a memo to the presiding judge, {P['judge']}, opening with these labelled lines (label: value), "
             "then a short note of the method:\n" + "\n".join(f"   {x}" for x in memo)]
    return "\n\n".join([
        rng.choice((f"From: {boss}, Chief Deputy Clerk\nSubject: Summonses for the {m} trial weeks\n\n",
                    f"Hi - {boss} (Chief Deputy Clerk) here.\n\n"))
        + rng.choice((f"The presiding judge wants the {m} summons numbers before the calendar meeting. How many "
                      "summonses do we mail for each trial week, and from which list?",
                      f"Please plan the jury summonses for the {m} trial weeks so the order can go to the print "
                      "vendor after the calendar meeting.")),
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Please leave in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliv, 1)),
        "Thanks.\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(files)),
    ]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, C = P["deliverables"], P["labels"], P["columns"]
    memo, up = D["memo"], D["csv"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def pct(label: str, bp: int) -> tuple[str, Any]:
        return f"{label}: {bp / 100:.2f}", FieldCheck(file=memo, label=label, number=bp / 100, tolerance=0.01)

    def count(label: str, n: int) -> tuple[str, Any]:
        return f"{label}: {n}", FieldCheck(file=memo, label=label, number=float(n), tolerance=0.0)

    weeks = facts["weeks"]
    most_back = max(weeks, key=lambda x: x["returning"])
    claim = next(x for x in weeks if x["week"] == P["claim_week"])
    cells = [(f"{up}: {o['week']} {o['source']} {C['summonses']} = {o['summonses']}",
              CellCheck(file=up, match={C["week"]: o["week"], C["source"]: o["source"]}, column=C["summonses"],
                        value=float(o["summonses"]), tolerance=0.0)) for o in facts["order"]]
    out = [
        rubric("Measures each list's yield on summonses mailed in the plan's twelve months, each summons once", 10,
               [pct(f"{L['yield']} {x['source']}", x["yield_bp"]) for x in facts["sources"]]),
        rubric("Reports the undeliverable, disqualified and excused rates by reason code (age-70 exemptions excused)",
               8, [pct(L[k], facts["rates"][k]) for k in ("undeliverable", "disqualified", "excused")]),
        rubric("Prices each week's trials after the continuance orders at the current plan's panels and margin", 10,
               [count(f"{L['need']} {x['week']}", x["need"]) for x in weeks]),
        rubric("Nets out the postponed jurors returning in each week", 8,
               [count(f"{L['returning']} {x['week']}", x["returning"]) for x in weeks]
               + [count(f"{L['week_total']} {most_back['week']}", most_back["summonses"])]),
        rubric("Orders summonses by week and source list at each list's yield", 10, [
            (f"{up} has {len(facts['order'])} rows", RowCountCheck(file=up, key=C["week"], count=len(facts["order"]))),
            *cells, count(L["total"], facts["total"])]),
        rubric("Decides whether the order can be drawn from the names available on each list", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            *[count(f"{L['source_total']} {s}", n) for s, n in facts["totals"].items()]]),
        rubric("Tests the jury commissioner's busiest-week claim against the order", 8, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            count(f"{L['week_total']} {claim['week']}", claim["summonses"])]),
    ]
    if judgement:
        out.append(rubric("Writes a memo the presiding judge can act on", 6, [
            ("Names the continued trials and the returning postponed jurors behind each week's figure", llm("content")),
            ("Explains yield on mailed summonses and the age-70 excusals", llm("explanation"))]))
    return out


JURY_SUMMONS_PLAN = Workflow(
    key="jury_summons_plan", family="jury_summons_plan",
    method="summons yield by source (appeared over mailed in a twelve-month window, each summons once under its "
           "master-list source, excusals by reason code), weekly need from trials after continuances x panel size x "
           "(1 + margin) less returning postponed jurors, summonses = source share of need / yield, rounded up",
    professions=("court_clerks",), solver="jury", shortcuts=SHORTCUTS, draw=draw, recheck=recheck, rubrics=rubrics,
    data="generated jury-system summons history, trial calendar, docket events and postponement list (stated "
         "distributions)")
