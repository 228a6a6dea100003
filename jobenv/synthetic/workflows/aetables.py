"""Adverse-event tables for a DSMB closed session from ADSL/ADAE-style exports, with the SAE imbalance flag
(biostatisticians).

A two-arm, 1:1 randomised, double-blind trial (active vs placebo, 24 weeks' treatment) is generated at an interim
data cut: 230-330 randomised subjects, 3-8 randomised but never dosed (SAFFL = N), first doses spread over the 40-420
days before the cut, 20 % discontinuing early (gamma duration), the rest completing 168 days or ongoing at the cut.
Each dosed subject reports no adverse event with probability 0.12-0.25 and otherwise a Poisson number (mean 4.8 on
active, 4.0 on placebo) with MedDRA preferred
terms drawn from weighted SOC dictionaries (gastro-intestinal terms 1.8-2.2 times as frequent on active), onset
uniform within the subject's treatment-emergent window. SAE subjects: placebo 4-10 %, active 10-17 points above
(an imbalance to flag) or -3 to +4 points (none). Planted at 1-5 % of rows: screening (pre-dose) events, one of them
serious; events 15-30 days after last dose (one serious, on active) and 31-60 days after; partial onset dates
(YYYY-MM) in the first-dose month (one serious, on active), later months and the month before; events entered after
the data cut with onset after it (1-3 serious). The previous DSMB's SAE listing (data cut 91-120 days earlier) holds
the SAEs known then. The current SAP (v2.0) states every rule; the archived v1.0 used last dose + 14 days,
1st-of-month imputation and the randomised set.

Failure behaviour: ``draw`` raises DegenerateTask when a target is missed, the CI bound sits within 0.5 points of 0,
the top preferred term ties, or a planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or
ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import math
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_list, fld_num, llm, rnd, rubric, tol
from ..compose import instructions, person
from ..professions import profession
from ..writers import write_csv, write_xlsx
from .aetables_docs import ADAE, ADSL, LISTING, workspace
from .base import Draft, Facts, Workflow, iso, pick_labels

__all__ = ["DSMB_ADVERSE_EVENTS"]

SHORTCUTS = ("predose", "partial", "window14", "post_cut", "all_randomised", "events", "old_listing")
_DICT = {  # SOC -> (preferred term, weight, active multiplier)
    "Gastrointestinal disorders": (("Nausea", 9, 2.2), ("Diarrhoea", 7, 1.8), ("Vomiting", 4, 1.9),
                                   ("Constipation", 4, 1.0), ("Abdominal pain", 4, 1.3), ("Dyspepsia", 3, 1.2)),
    "Nervous system disorders": (("Headache", 10, 1.3), ("Dizziness", 5, 1.2), ("Somnolence", 2, 1.0),
                                 ("Paraesthesia", 1, 1.0)),
    "Infections and infestations": (("Nasopharyngitis", 8, 1.0), ("Upper respiratory tract infection", 6, 1.0),
                                    ("Urinary tract infection", 3, 1.0), ("Influenza", 2, 1.0)),
    "General disorders and administration site conditions": (("Fatigue", 7, 1.3), ("Pyrexia", 2, 1.0),
                                                             ("Oedema peripheral", 2, 1.1), ("Asthenia", 1, 1.0)),
    "Musculoskeletal and connective tissue disorders": (("Arthralgia", 4, 1.0), ("Back pain", 4, 1.0),
                                                        ("Myalgia", 2, 1.0)),
    "Skin and subcutaneous tissue disorders": (("Rash", 3, 1.4), ("Pruritus", 2, 1.2)),
    "Respiratory, thoracic and mediastinal disorders": (("Cough", 4, 1.0), ("Dyspnoea", 1, 1.0)),
    "Investigations": (("Alanine aminotransferase increased", 2, 1.5), ("Weight decreased", 1, 1.3)),
    "Metabolism and nutrition disorders": (("Decreased appetite", 2, 1.8), ("Hypokalaemia", 1, 1.0)),
    "Psychiatric disorders": (("Insomnia", 3, 1.0), ("Anxiety", 1, 1.0)),
    "Vascular disorders": (("Hypertension", 2, 1.0),),
    "Cardiac disorders": (("Palpitations", 1, 1.0),),
    "Injury, poisoning and procedural complications": (("Contusion", 1, 1.0),),
}
_SERIOUS = (("Pneumonia", "Infections and infestations"), ("Atrial fibrillation", "Cardiac disorders"),
            ("Acute kidney injury", "Renal and urinary disorders"), ("Cholecystitis", "Hepatobiliary disorders"),
            ("Fall", "Injury, poisoning and procedural complications"), ("Syncope", "Nervous system disorders"),
            ("Vomiting", "Gastrointestinal disorders"), ("Dyspnoea", "Respiratory, thoracic and mediastinal disorders"))
PT_NAMES = sorted({pt for v in _DICT.values() for pt, _, _ in v} | {pt for pt, _ in _SERIOUS})
_DRUGS = ("Velutrexin 40 mg", "Orvepitant 10 mg", "Cardozimab 300 mg", "Tepravir 25 mg", "Lunabrutinib 160 mg")
_LABELS = {
    "n0": ("Safety set, {a0}", "Subjects in the safety set, {a0}", "Safety population N, {a0}"),
    "n1": ("Safety set, {a1}", "Subjects in the safety set, {a1}", "Safety population N, {a1}"),
    "any0": ("Subjects with any TEAE, {a0}", "Subjects with at least one TEAE, {a0}", "Any TEAE (subjects), {a0}"),
    "any1": ("Subjects with any TEAE, {a1}", "Subjects with at least one TEAE, {a1}", "Any TEAE (subjects), {a1}"),
    "sae0": ("Subjects with a treatment-emergent SAE, {a0}", "Subjects with any serious TEAE, {a0}", "SAE subjects, {a0}"),
    "sae1": ("Subjects with a treatment-emergent SAE, {a1}", "Subjects with any serious TEAE, {a1}", "SAE subjects, {a1}"),
    "rd": ("SAE risk difference in percentage points", "Difference in SAE proportions (points)", "SAE risk difference (points)"),
    "lower": ("Newcombe 95% CI lower bound (points)", "Lower limit of the 95% CI for the SAE difference",
              "SAE difference, 95% CI lower limit"),
    "upper": ("Newcombe 95% CI upper bound (points)", "Upper limit of the 95% CI for the SAE difference",
              "SAE difference, 95% CI upper limit"),
    "fisher_p": ("Fisher exact p for SAEs (two-sided)", "Two-sided Fisher exact p, SAE proportions", "SAE Fisher p-value"),
    "top_pt": ("Most frequent preferred term, {a0}", "Most common TEAE preferred term on {a0}", "Top TEAE preferred term, {a0}"),
    "top_n": ("Subjects with the most frequent preferred term, {a0}", "Subjects with that preferred term, {a0}",
              "Top preferred term subject count, {a0}"),
    "post_cut": ("SAEs with onset after the data cut (subjects)", "Subjects with SAEs starting after the cut",
                 "Post-cut SAE subjects (listed, not tabulated)"),
    "decision": ("SAE imbalance flagged for the closed session", "Flag SAE imbalance to the DSMB",
                 "SAE imbalance signal per the charter"),
    "premise": ("{pt} is the most frequent TEAE on {a0}", "Medical monitor's top-TEAE statement ({pt}) holds",
                "{pt} leads the TEAEs on {a0}"),
}
_OUT = {"soc": ("System organ class", "SOC", "MedDRA SOC"), "n": (" n", " (n)", " subjects"), "pct": (" %", " (%)", " pct")}
_DIRS = {"data": ("data/adam", "datasets/adam", "stats/adam"), "sap": ("sap", "statistics/sap", "documents/sap"),
         "dsmb": ("dsmb", "dsmb_meetings", "committee/dsmb"), "mail": ("correspondence", "email", "mail")}

# ---- the independent computation: csv only -----------------------------------------------------------------------

def _onset(text: str, first: dt.date) -> dt.date:
    y, *rest = (int(x) for x in text.strip().split("-"))
    if len(rest) == 2:
        return dt.date(y, rest[0], rest[1])
    if len(rest) == 1:
        return first if (y, rest[0]) == (first.year, first.month) else dt.date(y, rest[0], 1)
    return first if y == first.year else dt.date(y, 1, 1)


def _wilson(x: int, n: int, z: float) -> tuple[float, float]:
    # roots of (n + z^2) q^2 - (2x + z^2) q + x^2 / n = 0
    a, b, c = n + z * z, -(2 * x + z * z), x * x / n
    disc = math.sqrt(max(b * b - 4 * a * c, 0.0))
    return (-b - disc) / (2 * a), (-b + disc) / (2 * a)


def _fisher(x1: int, n1: int, x2: int, n2: int) -> float:
    m, n = x1 + x2, n1 + n2

    def logp(k: int) -> float:
        return (math.lgamma(n1 + 1) - math.lgamma(k + 1) - math.lgamma(n1 - k + 1) + math.lgamma(n2 + 1)
                - math.lgamma(m - k + 1) - math.lgamma(n2 - m + k + 1) - math.lgamma(n + 1) + math.lgamma(m + 1)
                + math.lgamma(n - m + 1))

    obs = logp(x1)
    ks = range(max(0, m - n2), min(m, n1) + 1)
    return min(1.0, sum(math.exp(logp(k)) for k in ks if logp(k) <= obs + math.log1p(1e-7)))


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: both exports read with csv, the SAP's window
    and imputation applied row by row, Wilson limits as the roots of the score quadratic, Fisher from log-gamma."""
    folder, F, arms = Path(folder), P["files"], P["arms"]
    with (folder / F["adsl"]).open(newline="", encoding="utf-8") as f:
        sl = {r["USUBJID"]: r for r in csv.DictReader(f) if r["SAFFL"].strip() == "Y"}
    cut = dt.date.fromisoformat(P["cut"])
    n = [sum(r["TRT01A"] == a for r in sl.values()) for a in arms]
    seen: dict[str, set[tuple[str, str]]] = {}
    late: set[str] = set()
    with (folder / F["adae"]).open(newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            s = sl.get(r["USUBJID"])
            if s is None or not r["AESTDTC"].strip():
                continue
            first = dt.date.fromisoformat(s["TRTSDT"])
            on = _onset(r["AESTDTC"], first)
            end = dt.date.fromisoformat(s["TRTEDT"]) + dt.timedelta(days=P["window_days"]) if s["TRTEDT"] else None
            if on > cut:
                if r["AESER"] == "Y":
                    late.add(r["USUBJID"])
                continue
            if on >= first and (end is None or on <= end):
                seen.setdefault(r["USUBJID"], set()).add((r["AEBODSYS"], r["AEDECOD"]) if r["AESER"] != "Y" else
                                                        (r["AEBODSYS"], "*" + r["AEDECOD"]))
    arm_of = {u: s["TRT01A"] for u, s in sl.items()}
    socs: dict[str, list[int]] = {}
    pts: dict[str, int] = {}
    anyte, sae = [0, 0], [0, 0]
    for u, items in seen.items():
        i = arms.index(arm_of[u])
        anyte[i] += 1
        sae[i] += any(p.startswith("*") for _, p in items)
        for soc in {s for s, _ in items}:
            socs.setdefault(soc, [0, 0])[i] += 1
        if i == 0:
            for p in {p.lstrip("*") for _, p in items}:
                pts[p] = pts.get(p, 0) + 1
    z = 1.959963984540054
    p1, p2 = sae[0] / n[0], sae[1] / n[1]
    (l1, u1), (l2, u2) = _wilson(sae[0], n[0], z), _wilson(sae[1], n[1], z)
    lo = p1 - p2 - math.hypot(p1 - l1, u2 - p2)
    hi = p1 - p2 + math.hypot(u1 - p1, p2 - l2)
    top = min(pts.items(), key=lambda kv: (-kv[1], kv[0]))
    table = [{"soc": k, "n0": v[0], "n1": v[1], "pct0": rnd(100 * v[0] / n[0], 1), "pct1": rnd(100 * v[1] / n[1], 1)}
             for k, v in sorted(socs.items(), key=lambda kv: (-sum(kv[1]), kv[0]))]
    return {"n": n, "any": anyte, "sae": sae, "rd": rnd(100 * (p1 - p2), 1), "lower": rnd(100 * lo, 1),
            "upper": rnd(100 * hi, 1), "fisher_p": rnd(_fisher(sae[0], n[0], sae[1], n[1]), 4), "table": table,
            "top_pt": top[0], "top_n": top[1], "post_cut": sorted(late), "decision": lo > 0,
            "premise": top[0] == P["claimed_pt"]}


# ---- drawing a task ---------------------------------------------------------------------------------------------

def _poisson(rng: random.Random, mean: float) -> int:
    k, p, limit = 0, 1.0, math.exp(-mean)
    while True:
        p *= rng.random()
        if p < limit:
            return k
        k += 1


def _subjects(rng: random.Random, P: dict[str, Any], cut: dt.date) -> list[dict[str, Any]]:
    arms, n = P["arms"], rng.randint(230, 330)
    alloc = [arms[i % 2] for i in range(n)]
    rng.shuffle(alloc)
    never = set(rng.sample(range(n), rng.randint(3, 8)))
    sites = [f"{rng.randint(1, 4)}{rng.randint(0, 9)}{rng.randint(1, 9)}" for _ in range(rng.randint(12, 22))]
    out = []
    for i, arm in enumerate(alloc):
        site = rng.choice(sites)
        rand = cut - dt.timedelta(days=rng.randint(40, 420))
        s: dict[str, Any] = {"id": f"{P['study']}-{site}-{1000 + i:04d}", "site": site, "arm": arm, "rand": rand,
                             "first": None, "last": None, "status": "NOT TREATED"}
        if i not in never:
            s["first"] = rand + dt.timedelta(days=rng.randint(0, 3))
            dur = min(168, int(rng.gammavariate(2.0, 35)) + 1) if rng.random() < 0.2 else 168
            end = s["first"] + dt.timedelta(days=dur - 1)
            if end <= cut:
                s["last"], s["status"] = end, "COMPLETED" if dur == 168 else "DISCONTINUED"
            else:
                s["status"] = "ONGOING"
        out.append(s)
    return out


def _window_end(s: dict[str, Any], cut: dt.date, days: int = 30) -> dt.date:
    return min(cut, s["last"] + dt.timedelta(days=days)) if s["last"] else cut


def _events(rng: random.Random, P: dict[str, Any], subs: list[dict[str, Any]], cut: dt.date,
            decision: bool) -> list[dict[str, Any]]:
    arms = P["arms"]
    terms = [(soc, pt, w, m) for soc, v in _DICT.items() for pt, w, m in v]
    ev: list[dict[str, Any]] = []

    def add(s: dict[str, Any], soc: str, pt: str, start: str, ser: bool = False) -> None:
        ev.append({"s": s, "soc": soc, "pt": pt, "start": start, "ser": ser})

    def inside(s: dict[str, Any]) -> str:
        span = (_window_end(s, cut) - s["first"]).days
        return iso(s["first"] + dt.timedelta(days=rng.randint(0, max(span, 0))))

    dosed = [s for s in subs if s["first"]]
    quiet = rng.uniform(0.12, 0.25)  # subjects who report no adverse event at all
    for s in dosed:
        if rng.random() < quiet:
            continue
        active = s["arm"] == arms[0]
        weights = [w * (m if active else 1.0) for _, _, w, m in terms]
        for _ in range(_poisson(rng, 4.8 if active else 4.0)):
            soc, pt, _, _ = rng.choices(terms, weights)[0]
            add(s, soc, pt, inside(s))
    # SAE subjects per arm, planted: on active one 15-30 days after the last dose and one with a partial onset date
    r0 = rng.uniform(0.04, 0.10)
    r1 = r0 + (rng.uniform(0.10, 0.17) if decision else rng.uniform(-0.03, 0.04))
    pool = {a: [s for s in dosed if s["arm"] == a] for a in arms}
    late_ok = [s for s in pool[arms[0]] if s["last"] and s["last"] + dt.timedelta(days=31) <= cut]
    part_ok = [s for s in pool[arms[0]] if s["first"].day >= 3 and s not in late_ok
               and (s["last"] is None or s["last"] > s["first"] + dt.timedelta(days=40))]
    if not late_ok or not part_ok:
        raise DegenerateTask("no subject for a planted SAE")
    w14, part = rng.choice(late_ok), rng.choice(part_ok)
    chosen: set[str] = {w14["id"], part["id"]}
    sae_pt = lambda: rng.choice(_SERIOUS)  # noqa: E731
    pt, soc = sae_pt()
    add(w14, soc, pt, iso(w14["last"] + dt.timedelta(days=rng.randint(15, 30))), True)
    pt, soc = sae_pt()
    add(part, soc, pt, f"{part['first'].year}-{part['first'].month:02d}", True)
    for a, rate in zip(arms, (r1, r0), strict=True):
        k = max(2, round(rate * len(pool[a]))) - (2 if a == arms[0] else 0)
        for s in rng.sample([s for s in pool[a] if s["id"] not in chosen], max(k, 0)):
            chosen.add(s["id"])
            for _ in range(2 if rng.random() < 0.15 else 1):
                pt, soc = sae_pt()
                add(s, soc, pt, inside(s), True)
    n_common = len(ev)
    free = [s for s in dosed if s["id"] not in chosen]
    # traps: screening events (one serious), after-window events, partial dates, events after the data cut
    for s in rng.sample(dosed, max(3, round(n_common * rng.uniform(0.01, 0.03)))):
        soc, pt, _, _ = rng.choice(terms)
        add(s, soc, pt, iso(s["first"] - dt.timedelta(days=rng.randint(1, 28))))
    s = rng.choice(free)
    pt, soc = sae_pt()
    add(s, soc, pt, iso(s["first"] - dt.timedelta(days=rng.randint(1, 20))), True)
    for s in [x for x in subs if not x["first"]]:
        for _ in range(rng.randint(0, 2)):
            soc, pt, _, _ = rng.choice(terms)
            add(s, soc, pt, iso(s["rand"] - dt.timedelta(days=rng.randint(0, 14))))
    ended = [s for s in dosed if s["last"] and s["last"] + dt.timedelta(days=61) <= cut]
    for s in rng.sample(ended, min(len(ended), rng.randint(2, 5))):
        soc, pt, _, _ = rng.choice(terms)
        add(s, soc, pt, iso(s["last"] + dt.timedelta(days=rng.randint(15, 30))))
    for s in rng.sample(ended, min(len(ended), rng.randint(2, 4))):
        soc, pt, _, _ = rng.choice(terms)
        add(s, soc, pt, iso(s["last"] + dt.timedelta(days=rng.randint(31, 60))))
    for s in rng.sample([x for x in dosed if x["first"].day >= 3], rng.randint(4, 10)):
        soc, pt, _, _ = rng.choice(terms)
        kind = rng.random()
        if kind < 0.5:
            add(s, soc, pt, f"{s['first'].year}-{s['first'].month:02d}")
        elif kind < 0.8:
            before = s["first"].replace(day=1) - dt.timedelta(days=1)
            add(s, soc, pt, f"{before.year}-{before.month:02d}")
        else:
            nxt = (s["first"].replace(day=1) + dt.timedelta(days=32)).replace(day=1)
            if nxt <= _window_end(s, cut) and (nxt.year, nxt.month) != (cut.year, cut.month):
                add(s, soc, pt, f"{nxt.year}-{nxt.month:02d}")
    open_ = [s for s in free if s["last"] is None]
    for s in rng.sample(open_, rng.randint(1, 3)):
        pt, soc = sae_pt()
        add(s, soc, pt, iso(cut + dt.timedelta(days=rng.randint(1, 20))), True)
    for s in rng.sample([x for x in dosed if x["last"] is None], rng.randint(3, 8)):
        soc, pt, _, _ = rng.choice(terms)
        add(s, soc, pt, iso(cut + dt.timedelta(days=rng.randint(1, 20))))
    return ev


def _adae(rng: random.Random, P: dict[str, Any], ev: list[dict[str, Any]]) -> list[list[Any]]:
    rows: list[list[Any]] = []
    by: dict[str, list[dict[str, Any]]] = {}
    for e in ev:
        by.setdefault(e["s"]["id"], []).append(e)
    for sid in sorted(by):
        for k, e in enumerate(sorted(by[sid], key=lambda e: e["start"]), 1):
            start = e["start"]
            end = ""
            if len(start) == 10 and rng.random() < 0.8:
                end = iso(dt.date.fromisoformat(start) + dt.timedelta(days=rng.randint(1, 30)))
            verb = e["pt"].lower() if rng.random() < 0.6 else rng.choice(("worsening ", "intermittent ", "mild ", "")) + e["pt"].lower()
            sev = "SEVERE" if e["ser"] and rng.random() < 0.6 else rng.choice(("MILD", "MILD", "MODERATE"))
            rows.append([P["study"], sid, k, verb, e["pt"], e["soc"], start, end, "Y" if e["ser"] else "N", sev,
                         rng.choice(("NOT RELATED", "UNLIKELY RELATED", "POSSIBLY RELATED", "RELATED")),
                         "RECOVERED/RESOLVED" if end else "NOT RECOVERED/NOT RESOLVED"])
    return rows


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.aetables import analyse, teae_rows

    prof = dataclasses.replace(profession(occupation), occasions=(
        "the DSMB's closed session is on Thursday", "the closed report has to reach the DSMB coordinator two days "
        "before the meeting", "the board asked for SAE risk differences at this meeting"),
        orgs=("a contract research organisation", "an academic clinical trials unit", "a biotech sponsor's "
              "unblinded statistics group"))
    D = pick_labels(rng, _DIRS)
    study = f"{rng.choice(('VLT', 'ORX', 'CDZ', 'TPV', 'LNB'))}-{rng.randint(2, 3)}{rng.randint(0, 1)}{rng.randint(1, 9)}"
    cut = dt.date(2026, rng.randint(4, 10), rng.choice((15, 28, 30)))
    old = cut - dt.timedelta(days=rng.randint(91, 120))
    arms = [rng.choice(_DRUGS), "Placebo"]
    P: dict[str, Any] = {
        "study": study, "arms": arms, "cut": iso(cut), "old_cut": iso(old), "window_days": 30, "claimed_pt": "",
        "files": {"adsl": f"{D['data']}/{iso(cut)}/adsl.csv", "adae": f"{D['data']}/{iso(cut)}/adae.csv",
                  "old_listing": f"{D['dsmb']}/{iso(old)}_meeting/sae_listing_{iso(old)}.xlsx"},
        "adsl_columns": {"usubjid": "USUBJID", "saffl": "SAFFL", "actual": "TRT01A", "planned": "ARM",
                         "first": "TRTSDT", "last": "TRTEDT"},
        "adae_columns": {"usubjid": "USUBJID", "soc": "AEBODSYS", "pt": "AEDECOD", "start": "AESTDTC", "ser": "AESER"},
        "listing_columns": {"usubjid": LISTING[0], "arm": LISTING[1]},
        "labels": {}, "out_columns": pick_labels(rng, _OUT),
        "deliverables": {"table": rng.choice((f"teae_by_soc_{iso(cut)}.csv", "t_teae_soc.csv", "teae_soc_by_arm.csv")),
                         "memo": rng.choice((f"dsmb_safety_memo_{iso(cut)}.docx", "closed_session_memo.docx",
                                             "dsmb_memo.docx"))}}
    subs = _subjects(rng, P, cut)
    adae = _adae(rng, P, _events(rng, P, subs, cut, targets["decision"]))
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_csv(Path(tmp) / P["files"]["adsl"], ADSL, [[P["study"], s["id"], s["site"], 40, "F", "WHITE", s["arm"],
                                                          s["arm"] if s["first"] else "", iso(s["rand"]),
                                                          iso(s["first"]) if s["first"] else "",
                                                          iso(s["last"]) if s["last"] else "",
                                                          "Y" if s["first"] else "N", "Y", s["status"]] for s in subs])
        write_csv(Path(tmp) / P["files"]["adae"], ADAE, adae)
        old_rows, _ = teae_rows(tmp, dict(P, cut=iso(old)))
        listing = [[r["usubjid"], r["arm"], r["pt"], r["soc"], iso(r["onset"]), rng.choice(("Recovered", "Recovering"))]
                   for r in sorted(old_rows, key=lambda r: (r["onset"], r["usubjid"])) if r["ser"]]
        write_xlsx(Path(tmp) / P["files"]["old_listing"], [("SAE listing", LISTING, listing)])
        truth = analyse(tmp, P)
        P["claimed_pt"] = truth["top_pt"] if targets["premise"] else truth["second_pt"]
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    if truth["decision"] != targets["decision"] or truth["premise"] != targets["premise"]:
        raise DegenerateTask("the targets are missed")
    if abs(truth["raw_lower"]) < 0.5 or truth["top_gap"] < 1 or not truth["post_cut"]:
        raise DegenerateTask("a CI bound at 0, a tie for the top preferred term or no post-cut SAE")
    keys = ("n", "any", "sae", "rd", "lower", "upper", "fisher_p", "table", "top_pt", "top_n", "post_cut")
    where = {"predose": ("data", "screening events before the first dose are in ADAE"),
             "partial": ("footnote", "partial onset dates in the first-dose month are TEAEs under SAP v2.0 section 9.4"),
             "window14": ("memo", "the archived SAP v1.0 ended the window at last dose + 14 days"),
             "post_cut": ("data", "the extract holds events that began after the data cut"),
             "all_randomised": ("data", "randomised subjects never dosed (SAFFL = N) are not in the safety set"),
             "events": ("memo", "subjects are counted once per SOC and preferred term"),
             "old_listing": ("data", "the previous DSMB's SAE listing is of an older data cut")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s} for s, f in singles.items()
             if any(f[k] != truth[k] for k in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    mm = person(rng)
    labels = {k: v.format(a0=arms[0], a1=arms[1], pt=P["claimed_pt"]) for k, v in pick_labels(rng, _LABELS).items()}
    P["labels"] = labels
    writers, roles = workspace(rng, P, subs, adae, listing, D, mm)
    L, C, OC = labels, P["deliverables"], P["out_columns"]
    memo_labels = [(L[k], h) for k, h in (
        ("n0", "whole number"), ("n1", "whole number"), ("any0", "whole number"), ("any1", "whole number"),
        ("sae0", "whole number"), ("sae1", "whole number"), ("rd", f"{arms[0]} minus {arms[1]}, 1 decimal place"),
        ("lower", "1 decimal place"), ("upper", "1 decimal place"), ("fisher_p", "4 decimal places"),
        ("top_pt", "MedDRA preferred term"), ("top_n", "whole number"),
        ("post_cut", "USUBJIDs separated by semicolons, or none"), ("decision", "yes or no"), ("premise", "yes or no"))]
    head = [OC["soc"], f"{arms[0]}{OC['n']}", f"{arms[0]}{OC['pct']}", f"{arms[1]}{OC['n']}", f"{arms[1]}{OC['pct']}"]
    purpose = rng.choice((
        f"I need the closed-session AE tables for {study} at the {iso(cut)} data cut: derive the treatment-emergent "
        "events per the SAP, tabulate subjects by arm and SOC on the safety set, count the SAEs per arm with the risk "
        "difference, its Newcombe interval and Fisher's p, and tell me whether the charter's SAE imbalance flag is "
        "raised.",
        f"please prepare the DSMB safety tables for {study} (data cut {iso(cut)}): TEAEs per the SAP window and "
        "date rules, subjects by arm and SOC, SAE counts and the SAE risk difference with the Newcombe 95% CI and "
        "Fisher's exact p, then the charter's imbalance call."))
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role="Director of Clinical Analytics", org=rng.choice(prof.orgs),
        subject=f"{study} DSMB closed report, data cut {iso(cut)}", purpose=purpose,
        about=f"the ADSL and ADAE exports of the {iso(cut)} interim cut",
        belief=f"The medical monitor says {P['claimed_pt']} is the most frequent TEAE on {arms[0]}; check that against "
               "the data.",
        table={"file": C["table"], "headers": head,
               "unit": "system organ class with a TEAE in either arm (subjects, % of the arm's safety set)"},
        memo_file=C["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"In {C['table']}, the{OC['n']} columns are the numbers of subjects with at least one "
                            f"TEAE in the SOC and the{OC['pct']} columns their percentages of the arm's safety set, "
                            "as plain numbers with 1 decimal (no % sign).",
                            f"{C['memo']} is the memo to the DSMB; after its labelled lines, say how the window, the "
                            "partial dates, the data cut and the denominators were handled.",),
        policy=f"the SAP in {D['sap']}/ and the DSMB charter in {D['dsmb']}/charter/", files=sorted(writers))
    return Draft(subject=f"DSMB AE tables {study}", instructions=prompt, files=writers, roles=roles, params=P,
                 traps=traps, targets=dict(targets),
                 distributions="230-330 randomised 1:1, 3-8 never dosed; 12-25 % of subjects without AEs, the others "
                               "Poisson (4.8 active, 4.0 placebo) over 34 MedDRA terms in 13 SOCs; SAE subjects placebo 4-10 %, active +10-17 "
                               "or -3 to +4 points; 1-3 % screening events, 2-5 events 15-30 days and 2-4 31-60 days "
                               "after last dose, 4-10 partial dates, 4-11 events after the cut (1-3 serious)")


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, RowCountCheck

    D, L, OC, arms = P["deliverables"], P["labels"], P["out_columns"], P["arms"]
    memo, table = D["memo"], D["table"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def whole(key: str, v: int) -> tuple[str, Any]:
        return f"{L[key]} = {v}", fld_num(memo, L[key], v, 0)

    def num(key: str, v: float, d: int) -> tuple[str, Any]:
        return f"{L[key]} = {v:.{d}f}", fld_num(memo, L[key], v, d)

    def cell(t: dict[str, Any], i: int, what: str) -> tuple[str, Any]:
        col = f"{arms[i]}{OC['n' if what == 'n' else 'pct']}"
        v = t[f"{what}{i}"]
        return (f"{table}: {t['soc']} {col} = {v}", CellCheck(file=table, match={OC["soc"]: t["soc"]}, column=col,
                                                             value=float(v), tolerance=0.0 if what == "n" else tol(1)))

    tab = facts["table"]
    post = facts["post_cut"]
    out = [
        rubric("Uses the safety set (SAFFL = Y) as denominators", 8, [
            whole("n0", facts["n"][0]), whole("n1", facts["n"][1]), *[cell(t, i, "pct") for t in tab[:2] for i in (0, 1)]]),
        rubric("Derives the treatment-emergent events with the SAP's window and partial-date rule", 10, [
            whole("any0", facts["any"][0]), whole("any1", facts["any"][1]),
            (f"{table} has {len(tab)} SOC rows", RowCountCheck(file=table, key=OC["soc"], count=len(tab)))]),
        rubric("Counts each subject once per SOC in the TEAE table", 10, [cell(t, i, "n") for t in tab for i in (0, 1)]),
        rubric("Counts treatment-emergent SAE subjects per arm from the current cut", 10, [
            whole("sae0", facts["sae"][0]), whole("sae1", facts["sae"][1])]),
        rubric("Gives the SAE risk difference with the Newcombe 95% CI and Fisher's exact p", 10, [
            num("rd", facts["rd"], 1), num("lower", facts["lower"], 1), num("upper", facts["upper"], 1),
            num("fisher_p", facts["fisher_p"], 4)]),
        rubric("Lists the SAEs that began after the data cut instead of tabulating them", 6, [
            (f"{L['post_cut']}: {'; '.join(post)}", fld_list(memo, L["post_cut"], post))]),
        rubric("Names the most frequent preferred term and checks the medical monitor's statement", 6, [
            (f"{L['top_pt']}: {facts['top_pt']}", fld(memo, L["top_pt"], facts["top_pt"], PT_NAMES)),
            whole("top_n", facts["top_n"]),
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
        rubric("Applies the charter's SAE imbalance rule", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            num("lower", facts["lower"], 1)]),
    ]
    if judgement:
        out.append(rubric("Writes a memo the DSMB can read in closed session", 6, [
            ("States the TEAE window, the partial-date imputation and the data cut used", llm("explanation")),
            ("Explains the denominators and that subjects count once per SOC and term", llm("explanation")),
            ("Reads the SAE difference and its interval plainly against the charter's rule", llm("reasoning"))]))
    return out


DSMB_ADVERSE_EVENTS = Workflow(
    key="dsmb_adverse_events", family="clinical_safety",
    method="TEAE derivation (first dose to last dose + 30 days, SAP partial-date imputation, data cut); subjects once "
           "per SOC and preferred term on the safety set; SAE risk difference with Newcombe hybrid score CI and "
           "Fisher's exact test; charter imbalance rule",
    professions=("biostatisticians",), solver="aetables", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated ADSL/ADAE-style interim extract (stated distributions)")
