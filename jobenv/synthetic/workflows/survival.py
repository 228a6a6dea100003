"""Overall survival by Kaplan-Meier for a data safety monitoring board (biostatisticians, statisticians).

The trial is generated: uniform accrual over 18 months, exponential survival times with a control-arm
median of 8-17 months and a hazard ratio of 0.45-1.1 for the investigational arm, about 8 % withdrawals of
consent at a uniform time, radiological progressions before death for about 40 % of patients, and a few
patients randomised who never received a dose. The analysis follows the plan in the task's own SAP: the
population it names, deaths only, censoring at withdrawal and at the data cut-off, deaths before
censorings at tied times. Which population (modified ITT or ITT) and whether registry deaths after a withdrawal
count vary by task, as the current SAP states; the archived SAP says otherwise.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, near_rounding_boundary, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, place_away, write_files

__all__ = ["KAPLAN_MEIER"]

_ARMS = (("standard of care", "ACT-217"), ("placebo + chemotherapy", "OBX-5 + chemotherapy"),
         ("control", "investigational"), ("docetaxel", "RLM-44"))
_LABELS = {
    "n": ("Patients analysed, {arm}", "Patients in the {arm} analysis set", "Analysis population ({arm})"),
    "deaths": ("Deaths, {arm}", "Deaths counted in the {arm} arm", "Deaths observed ({arm})"),
    "surv": ("12-month overall survival, {arm} (%)", "Survival at 12 months in the {arm} arm (%)", "OS at 12 months ({arm}, %)"),
    "median": ("Median overall survival, {arm} (days)", "Median OS in the {arm} arm (days)", "Median OS ({arm}, days)"),
    "difference": ("Difference at 12 months (percentage points)", "12-month OS difference, points",
                   "Absolute difference in 12-month OS (points)"),
    "decision": ("Refer to the DSMB for unblinded review", "Meets the charter's signal threshold",
                 "Signal threshold met"),
    "premise": ("Control median below the figure in the request", "Expectation for the control median holds",
                "Control-arm median under the requested figure"),
}
_HORIZON = 365
_LANDMARKS = (90, 180, 270, 365)


def _date(rng: random.Random) -> dt.date:
    return dt.date(rng.choice((2021, 2022)), rng.randint(1, 12), 1)


def _trial(rng: random.Random, benefit: bool) -> dict[str, Any]:
    """Patients, events and withdrawals of one generated trial (dates as ISO strings); ``benefit`` draws the
    hazard ratio from the range where the charter's signal is likely (0.45-0.8) rather than 0.75-1.1."""
    start = _date(rng)
    accrual = 540
    cutoff = start + dt.timedelta(days=accrual + 365 + rng.randint(0, 120))
    extract = cutoff + dt.timedelta(days=rng.randint(35, 80))
    median_a = rng.uniform(240, 520)
    hr = rng.uniform(0.45, 0.8) if benefit else rng.uniform(0.75, 1.1)
    n = rng.randint(150, 260)
    sites = [f"S{k:02d}" for k in range(1, rng.randint(5, 9))]
    patients, events, withdrawals = [], [], []
    ev_id = 1
    for i in range(n):
        pid = f"P-{rng.randint(1, 9)}{i:04d}"
        arm = "AB"[i % 2] if rng.random() < 0.9 else rng.choice("AB")
        rand = start + dt.timedelta(days=rng.randint(0, accrual))
        never_dosed = rng.random() < 0.05
        dose = "" if never_dosed else iso(rand + dt.timedelta(days=rng.randint(1, 9)))
        lam = math.log(2) / median_a * (hr if arm == "B" else 1.0)
        death = rand + dt.timedelta(days=max(1, math.ceil(rng.expovariate(lam))))
        wd = None
        if rng.random() < 0.08:
            wd = rand + dt.timedelta(days=rng.randint(20, 500))
            if wd >= min(death, extract):
                wd = None
        if death <= extract and (wd is None or rng.random() < 0.5):  # registry linkage finds some deaths after withdrawal
            if rng.random() < 0.4 and (death - rand).days > 30:
                prog = rand + dt.timedelta(days=rng.randint(15, (death - rand).days - 1))
                events.append([f"E{ev_id:05d}", pid, "P", iso(prog), "site"])
                ev_id += 1
            events.append([f"E{ev_id:05d}", pid, "D", iso(death), "registry" if wd else "site"])
            ev_id += 1
        elif rng.random() < 0.3 and (min(extract, wd or extract) - rand).days > 40:
            prog = rand + dt.timedelta(days=rng.randint(20, (min(extract, wd or extract) - rand).days - 1))
            events.append([f"E{ev_id:05d}", pid, "P", iso(prog), "site"])
            ev_id += 1
        if wd is not None:
            withdrawals.append([pid, iso(wd), rng.choice(("consent withdrawn", "moved abroad", "lost to follow-up"))])
        patients.append([pid, rng.choice(sites), arm, iso(rand), dose, rng.randint(34, 82), rng.choice("FM"),
                         rng.choice((0, 0, 1, 1, 2))])
    rng.shuffle(events)
    return {"start": start, "cutoff": cutoff, "extract": extract, "patients": patients, "events": events,
            "withdrawals": withdrawals, "sites": sites}


# ---- the independent computation: csv and openpyxl, no pandas --------------------------------------------

def _read(folder: Path, rel: str, sheet: str | None = None) -> list[dict[str, str]]:
    path = folder / rel
    if path.suffix == ".xlsx":
        from openpyxl import load_workbook

        wb = load_workbook(path, read_only=True, data_only=True)
        rows = list((wb[sheet] if sheet else wb.worksheets[0]).iter_rows(values_only=True))
        wb.close()
        head = [str(h) for h in rows[0]]
        return [{h: "" if v is None else str(v) for h, v in zip(head, r)} for r in rows[1:]]
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _times(folder: Path, P: dict[str, Any]) -> dict[str, list[tuple[int, bool]]]:
    F = P["files"]
    deaths: dict[str, dt.date] = {}
    for e in _read(folder, F["events"]):
        if e["event_type"] == P["death_code"]:
            d = dt.date.fromisoformat(e["event_date"])
            deaths[e["patient_id"]] = min(d, deaths.get(e["patient_id"], d))
    wd = {w["patient_id"]: dt.date.fromisoformat(w["withdrawal_date"][:10])
          for w in _read(folder, F["withdrawals"], P.get("withdrawal_sheet"))}
    cutoff = dt.date.fromisoformat(P["cutoff"])
    out: dict[str, list[tuple[int, bool]]] = {a: [] for a in P["arms"]}
    for p in _read(folder, F["patients"]):
        if P["population"] and not p[P["population"]].strip():
            continue
        start = dt.date.fromisoformat(p["randomised_on"])
        death = deaths.get(p["patient_id"])
        if death is not None and death > cutoff:
            death = None
        withdrawn = wd.get(p["patient_id"])
        if withdrawn is not None and not (P["registry_deaths"] and death is not None):
            end = min(cutoff, withdrawn)
            death = death if death is not None and death <= end else None
        else:
            end = cutoff
        out[p["arm"]].append((((death or end) - start).days, death is not None))
    return out


def _survival(times: list[tuple[int, bool]], t: int) -> float:
    s = 1.0
    for u in sorted({x for x, died in times if died and x <= t}):
        d = sum(1 for x, died in times if died and x == u)
        s *= 1.0 - d / sum(1 for x, _ in times if x >= u)
    return s


def _median(times: list[tuple[int, bool]]) -> int | None:
    for u in sorted({x for x, died in times if died}):
        if _survival(times, u) <= 0.5 + 1e-12:
            return u
    return None


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact, recomputed from the task folder without the solver's code."""
    by_arm = _times(Path(folder), P)
    d = P["decimals"]
    facts: Facts = {"arms": {}, "life_table": []}
    for arm in P["arms"]:
        ts = by_arm[arm]
        facts["arms"][arm] = {"n": len(ts), "deaths": sum(1 for _, died in ts if died),
                              "surv_pct": rnd(100 * _survival(ts, P["horizon"]), d), "median": _median(ts)}
        for t in P["landmarks"]:
            facts["life_table"].append({"arm": arm, "day": t, "at_risk": sum(1 for x, _ in ts if x >= t),
                                        "surv_pct": rnd(100 * _survival(ts, t), d)})
    a, b = P["arms"]
    facts["difference"] = rnd(facts["arms"][b]["surv_pct"] - facts["arms"][a]["surv_pct"], d)
    facts["decision"] = facts["difference"] >= P["threshold_pp"]
    med = facts["arms"][P["premise"]["arm"]]["median"]
    facts["premise"] = med is not None and med < P["premise"]["days"]
    return facts


# ---- drawing a task ---------------------------------------------------------------------------------------

_MITT = "modified ITT: randomised patients who received at least one dose (a first_dose_date is recorded)"
_ITT = "intention to treat: every randomised patient, in the arm randomised, whether or not a dose was given"
_CENSOR = ("Patients who withdraw consent or are lost to follow-up are censored at the withdrawal date; information "
           "received after withdrawal (including registry linkage) is not used.")
_REGISTRY = ("Deaths ascertained by national death registry linkage up to the data cut-off are overall-survival events "
             "even after a withdrawal of consent (the consent form covers registry follow-up); a withdrawn patient "
             "without a recorded death is censored at the withdrawal date.")


def _sap(version: str, *, cutoff: str, itt: bool, registry: bool, rounding: bool, date: str) -> list[str]:
    population = _ITT if itt else _MITT
    rules = [
        f"Data cut-off: events and follow-up after {cutoff} are not used; patients alive at the cut-off are censored there.",
        f"Analysis population: {population}.",
        "Endpoint: overall survival, time from randomisation to death from any cause. Other event types recorded in "
        "the extract are not overall-survival events.",
        _REGISTRY if registry else _CENSOR,
        "Estimation: Kaplan-Meier product-limit estimate by arm. At a time with both deaths and censorings, deaths "
        "are taken first. Survival at day t is the estimate just after all deaths up to and including day t; the "
        "number at risk at day t counts patients whose follow-up time is t days or more.",
        "Median survival: the smallest follow-up time at which the estimate is 50 % or lower ('not reached' otherwise).",
    ]
    if rounding:
        rules.append("Rounding: percentages to one decimal place, rounded half up, at the end of the calculation; "
                     "differences are taken between the rounded percentages.")
    return [f"Statistical analysis plan, version {version} ({date}).", "Overall survival analysis for the DSMB:"] + [
        f"- {r}" for r in rules]


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.survival import analyse

    prof = profession(occupation)
    arms = rng.choice(_ARMS)
    trial = _trial(rng, targets["decision"])
    study = f"{rng.choice(('ONC', 'LNG', 'GI', 'HN'))}-{rng.randint(101, 389)}"
    extract_dir = f"data/extract_{iso(trial['extract'])}"
    old = trial["extract"] - dt.timedelta(days=rng.randint(90, 160))
    old_dir = f"data/extract_{iso(old)}"
    tfile = rng.choice(("km_life_table.csv", "os_life_table.xlsx", "survival_by_arm.csv"))
    memo = rng.choice(("dsmb_memo.docx", "os_summary.md", "interim_os_note.docx"))
    labels = pick_labels(rng, _LABELS)
    cols = rng.choice(({"arm": "arm", "day": "day", "at_risk": "number_at_risk", "surv": "survival_pct"},
                       {"arm": "Arm", "day": "Day", "at_risk": "At risk", "surv": "OS %"},
                       {"arm": "treatment_arm", "day": "days_from_randomisation", "at_risk": "n_at_risk",
                        "surv": "km_survival_pct"}))
    files = {"patients": f"{extract_dir}/patients.csv", "events": f"{extract_dir}/events.csv",
             "withdrawals": f"{extract_dir}/withdrawals.xlsx"}
    P: dict[str, Any] = {
        "files": files, "withdrawal_sheet": "Withdrawals", "death_code": "D",
        "population": "" if rng.random() < 0.35 else "first_dose_date", "registry_deaths": rng.random() < 0.4,
        "cutoff": iso(trial["cutoff"]), "extract_date": iso(trial["extract"]), "horizon": _HORIZON,
        "landmarks": list(_LANDMARKS), "arms": ["A", "B"], "arm_names": {"A": arms[0], "B": arms[1]},
        "decimals": 1, "threshold_pp": 0.0, "premise": {"arm": "A", "days": 0}, "labels": {},
        "deliverables": {"table": {"file": tfile, "columns": cols}, "memo": memo},
    }
    # write the data once to a scratch folder to measure the truth and each trap with the solver itself
    import tempfile

    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, _data_writers(P, trial))
        truth = analyse(str(root), P)
        singles = {k: analyse(str(root), P, (k,)) for k in ("population", "event_type", "withdrawal", "cutoff")}
    for arm in ("A", "B"):
        f = truth["arms"][arm]
        if f["median_on_boundary"] or near_rounding_boundary(f["surv_raw"], 1):
            raise DegenerateTask("a survival estimate sits on a rounding or median boundary")
    if any(near_rounding_boundary(r["surv_pct"], 1) for r in truth["life_table"]):
        raise DegenerateTask("a life-table estimate sits on a rounding boundary")
    diff = truth["difference"]
    options = [t for t in (1.0, 2.0, 3.0, 5.0, 7.5, 10.0, 12.5, 15.0, 20.0, 25.0) if (diff >= t) == targets["decision"] and place_away(t, [diff], 1)]
    if not options:
        raise DegenerateTask("no charter threshold gives the targeted decision")
    P["threshold_pp"] = rng.choice(options)
    med = truth["arms"]["A"]["median"]
    if med is None:
        if targets["premise"]:
            raise DegenerateTask("the control median is not reached, so a 'below' premise cannot hold")
        days = rng.choice((300, 360, 420))
    else:
        days = int(math.ceil((med + 20) / 30.0) * 30) if targets["premise"] else int(math.floor((med - 1) / 30.0) * 30)
        if days <= 0:
            raise DegenerateTask("no premise figure below a very short median")
    P["premise"] = {"arm": "A", "days": days}
    traps = []
    where = {"population": ("data", "patients with a blank first_dose_date are outside the SAP's modified ITT population"),
             "event_type": ("footnote", "progression rows (event_type P) are not overall-survival events"),
             "withdrawal": ("data", "withdrawals are in a separate workbook; withdrawn patients without a registry "
                                    "death are censored at withdrawal") if P["registry_deaths"] else
                           ("footnote", "withdrawals are in a separate workbook; registry deaths after a withdrawal "
                                        "are kept in the extract but not used"),
             "cutoff": ("memo", "the extract runs past the data cut-off set in the SAP amendment")}
    for kind, nf in singles.items():
        if _graded(nf) != _graded(truth):
            traps.append({"kind": kind, "where": where[kind][0], "description": where[kind][1], "naive": kind})
    if len(traps) < 2:
        raise DegenerateTask("fewer than two planted traps change a graded answer")
    P["labels"] = {k: v for k, v in labels.items()}
    writers, roles = _workspace(rng, P, trial, prof.title, old_dir, old, study)
    requester = person(rng)
    fill_role = rng.choice(prof.requesters)
    memo_labels = []
    for arm in ("A", "B"):
        name = P["arm_names"][arm]
        memo_labels += [(labels["n"].format(arm=name), "whole number"),
                        (labels["deaths"].format(arm=name), "whole number"),
                        (labels["surv"].format(arm=name), "percent, 1 decimal place"),
                        (labels["median"].format(arm=name), "days, whole number, or 'not reached'")]
    memo_labels += [(labels["difference"], f"{arms[1]} minus {arms[0]}, percentage points, 1 decimal place"),
                    (labels["decision"], "yes or no, per the DSMB charter"),
                    (labels["premise"], f"yes or no: is the {arms[0]} median below {days} days?")]
    prompt = instructions(
        rng, prof=prof, requester=requester, role=fill_role, org=rng.choice(prof.orgs),
        subject=f"{study} interim overall survival for the DSMB",
        purpose=rng.choice((f"I need the interim overall-survival analysis of {study} by arm.",
                            f"please run the Kaplan-Meier overall-survival analysis for {study}.",
                            f"the DSMB wants the {study} survival curves summarised by arm.")),
        about=f"the {study} trial database (patients, events and withdrawals)",
        belief=rng.choice((f"My expectation is that the {arms[0]} arm's median survival is under {days} days.",
                           f"Going by the earlier extract I think the {arms[0]} median is below {days} days - please confirm.")),
        table={"file": tfile, "headers": list(cols.values()), "unit": "arm and landmark day (90, 180, 270 and 365)"},
        memo_file=memo, memo_labels=memo_labels, extra_deliverables=(),
        policy="the current statistical analysis plan in protocol/", files=sorted(writers))
    return Draft(subject=f"{study} Kaplan-Meier overall survival", instructions=prompt, files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="uniform accrual over 540 days; exponential survival (control median 240-520 days, "
                               "hazard ratio 0.45-1.1); 8 % withdrawals; 5 % never dosed; 40 % progressions")


def _graded(facts: Facts) -> tuple[Any, ...]:
    arms = tuple((a["n"], a["deaths"], a["surv_pct"], a["median"]) for a in facts["arms"].values())
    return arms + tuple((r["at_risk"], r["surv_pct"]) for r in facts["life_table"])


_HEADERS = {"patients": ["patient_id", "site", "arm", "randomised_on", "first_dose_date", "age", "sex", "ecog"],
            "events": ["event_id", "patient_id", "event_type", "event_date", "source"]}


def _data_writers(P: dict[str, Any], trial: dict[str, Any]) -> dict[str, Any]:
    F = P["files"]
    return {F["patients"]: lambda p: write_csv(p, _HEADERS["patients"], trial["patients"]),
            F["events"]: lambda p: write_csv(p, _HEADERS["events"], trial["events"]),
            F["withdrawals"]: lambda p: write_xlsx(p, [
                ("Withdrawals", ["patient_id", "withdrawal_date", "reason"], trial["withdrawals"]),
                ("Notes", ["note"], [["Withdrawal dates are as recorded by the site."]])])}


def _text(text: str) -> Any:
    return lambda p: write_text(p, text)


def _workspace(rng: random.Random, P: dict[str, Any], trial: dict[str, Any], title: str, old_dir: str,
               old: dt.date, study: str) -> tuple[dict[str, Any], dict[str, str]]:
    F = P["files"]
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name] = writer
        roles[name] = role

    for rel, write in _data_writers(P, trial).items():
        add(rel, "data", write)
    extract_dir = F["patients"].rsplit("/", 1)[0]
    add(f"{extract_dir}/README.txt", "data", _text(
        f"{study} database extract of {P['extract_date']}\n\npatients.csv: one row per randomised patient.\n"
        "events.csv: one row per clinical event.\n  event_type: D = death (any cause)*; P = radiological progression\n"
        "  source: site = eCRF; registry = national death registry linkage\nwithdrawals.xlsx: withdrawals of consent "
        "and losses to follow-up.\n\n* Deaths found by registry linkage after a withdrawal are kept in the extract for "
        "safety reporting.\n"))
    stale = [r for r in trial["patients"] if r[3] <= iso(old)]
    stale_ids = {r[0] for r in stale}
    add(f"{old_dir}/patients.csv", "stale", lambda p: write_csv(p, _HEADERS["patients"], stale))
    add(f"{old_dir}/events.csv", "stale", lambda p: write_csv(
        p, _HEADERS["events"],
        [e for e in trial["events"] if e[1] in stale_ids and e[3] <= iso(old)]))
    cut = P["cutoff"]
    old_cut = iso(old - dt.timedelta(days=30))
    sap_old_date = iso(trial["start"] - dt.timedelta(days=40))
    sap_new_date = iso(trial["cutoff"] - dt.timedelta(days=rng.randint(20, 60)))
    add("protocol/archive/SAP_v1.0.pdf", "stale", lambda p: write_pdf(
        p, f"{study} SAP v1.0", _sap("1.0", cutoff=old_cut, itt=bool(P["population"]), registry=not P["registry_deaths"],
                                     rounding=False, date=sap_old_date)))
    add("protocol/SAP_v1.1.docx", "policy", lambda p: write_docx(
        p, f"{study} SAP v1.1", _sap("1.1", cutoff=cut, itt=not P["population"], registry=P["registry_deaths"],
                                     rounding=True, date=sap_new_date)
        + ["Version 1.1 supersedes version 1.0 in full."]))
    add("protocol/amendment_log.md", "policy", _text(
        f"# {study} document log\n\n| document | version | date | status |\n|---|---|---|---|\n"
        f"| SAP | 1.0 | {sap_old_date} | superseded |\n| SAP | 1.1 | {sap_new_date} | current |\n"))
    charter = [f"{study} data safety monitoring board charter (excerpt)",
               f"- The board reviews unblinded overall survival when the investigational arm's 12-month Kaplan-Meier "
               f"survival exceeds the control arm's by {P['threshold_pp']:g} percentage points or more.",
               "- Meetings are closed; minutes are kept by the independent statistician.",
               "- Safety listings are reviewed at every meeting regardless of efficacy data."]
    add("dsmb/charter_excerpt.md", "policy", _text("\n".join(charter) + "\n"))
    dm = person(rng)
    add(f"correspondence/{iso(trial['extract'])}_data_management.txt", "email", _text(email_text(
        sender=f"{dm}, Clinical Data Management", to="biostatistics", date=iso(trial["extract"]),
        subject=f"{study} extract for the DSMB",
        body=f"The DSMB extract is in {extract_dir}/. The folder {old_dir}/ is the previous snapshot, kept for "
             f"reconciliation only. Note the extract was pulled after the cut-off, so it contains follow-up past "
             f"{cut}.")))
    for site in rng.sample(trial["sites"], min(3, len(trial["sites"]))):
        add(f"sites/{site}_monitoring_visit.md", "distractor", _text(
            f"# Monitoring visit, site {site}\n\nSource data verification completed for "
            f"{rng.randint(60, 100)} % of eCRF pages. {rng.randint(0, 4)} open queries. "
            f"Next visit planned in {rng.randint(6, 12)} weeks.\n"))
    people = [person(rng) for _ in range(3)]
    add(f"meetings/{iso(old)}_study_team.md", "distractor", _text(
        meeting_notes(rng, topic=f"{study} DSMB package", people=people, date=iso(old))))
    add("dsmb/previous_closed_report_summary.txt", "distractor", _text(
        f"Closed report summary from the previous DSMB meeting ({iso(old)}): enrolment on track; no new safety "
        f"signal; the board asked for {title} review of the withdrawals before the next meeting.\n"))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    L, names, memo = P["labels"], P["arm_names"], P["deliverables"]["memo"]
    T = P["deliverables"]["table"]
    from ...check_models import CellCheck, FieldCheck

    def count(label: str, v: int) -> Any:
        return FieldCheck(file=memo, label=label, number=float(v), tolerance=0.0)

    out = []
    pop_items, surv_items, med_items = [], [], []
    for arm in P["arms"]:
        f, name = facts["arms"][arm], names[arm]
        pop_items += [(f"{L['n'].format(arm=name)} = {f['n']}", count(L["n"].format(arm=name), f["n"])),
                      (f"{L['deaths'].format(arm=name)} = {f['deaths']}", count(L["deaths"].format(arm=name), f["deaths"]))]
        surv_items.append((f"{L['surv'].format(arm=name)} = {f['surv_pct']:.1f}",
                           fld_num(memo, L["surv"].format(arm=name), f["surv_pct"], 1)))
        lab = L["median"].format(arm=name)
        med_items.append((f"{lab} = {'not reached' if f['median'] is None else f['median']}",
                          fld(memo, lab, "not reached") if f["median"] is None else count(lab, f["median"])))
    out.append(rubric("Analyses the SAP's population", 8, pop_items[0::2]))
    out.append(rubric("Counts only overall-survival deaths within follow-up", 10, pop_items[1::2]))
    out.append(rubric("Reports 12-month Kaplan-Meier overall survival by arm", 10, surv_items))
    out.append(rubric("Reports median overall survival by arm", 8, med_items))
    cols = T["columns"]
    for landmark in (180, 365):
        items: list[tuple[str, Any]] = []
        for r in facts["life_table"]:
            if r["day"] != landmark:
                continue
            match = {cols["arm"]: names[r["arm"]], cols["day"]: float(r["day"])}
            where = f"{T['file']}: {names[r['arm']]}, day {r['day']}"
            items.append((f"{where}, {cols['at_risk']} = {r['at_risk']}",
                          CellCheck(file=T["file"], match=match, column=cols["at_risk"], value=float(r["at_risk"]))))
            items.append((f"{where}, {cols['surv']} = {r['surv_pct']:.1f}",
                          CellCheck(file=T["file"], match=match, column=cols["surv"], value=r["surv_pct"],
                                    tolerance=tol(1))))
        out.append(rubric(f"Delivers the life table at day {landmark}", 6, items))
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    out.append(rubric("Applies the DSMB charter's threshold to the 12-month difference", 10, [
        (f"{L['difference']} = {facts['difference']:.1f}", fld_num(memo, L["difference"], facts["difference"], 1)),
        (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
    ]))
    out.append(rubric("Checks the PI's expectation against the data", 6, [
        (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
    ]))
    if judgement:
        out.append(rubric("Explains the analysis choices", 6, [
            ("Says that follow-up after the data cut-off was not used and which extract was analysed", llm("explanation")),
            ("States how withdrawals were handled, as the current SAP sets out", llm("explanation")),
            ("Says which patients the analysis population includes and why", llm("explanation"))]))
        out.append(rubric("Writes a memo a DSMB can act on", 6, [
            ("The recommendation follows from the charter threshold and the figures reported", llm("reasoning")),
            ("Answers the requester's expectation about the control median directly", llm("tone and content")),
            ("Is concise and states the method in terms a board member can follow", llm("writing"))]))
    return out


KAPLAN_MEIER = Workflow(
    key="km_overall_survival", family="time_to_event", method="Kaplan-Meier product-limit estimate",
    professions=("biostatisticians", "statisticians"), solver="survival", shortcuts=("population", "event_type", "withdrawal", "cutoff"), draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated trial (stated distributions)")
