"""Sectors below their pre-recession peak: a data desk's employment recovery check for a weekend story, each
sector's peak in a stated pre-recession window, its later trough, the drawdown in thousands and per cent, the month
it regained its peak, and which sectors are still below it in the story month, against a draft's claims (reporters).

A fictional region's monthly payroll employment is generated (labelled generated), January 2006 to two months past
the story month (December 2015): fourteen supersectors whose sizes follow a regional mix (total 1.6-2.6 million
jobs; construction 4-6 %, manufacturing 7-11 %, education and health 13-17 %, local government 9-11 %...). Each
sector grows 0.05-0.25 % a month to a peak drawn inside the window, falls by a sector-typical depth (construction
18-35 %, manufacturing 10-20 %, mining 5-20 %, education and health 1.5-3 %, government 1.5-6 %) to a trough 12-36
months later, then climbs linearly to a drawn gap to its peak in the story month (recovered +0.5 to +8 %, still
below -0.5 to -15 %; three in four sectors recover when total nonfarm is to be back at its peak, three in ten
otherwise), with 0.1 % monthly noise. The bureau's benchmark revision (the vintage of record) moves the last twelve
months of every sector by -0.6 to +0.6 % against the first release and carries one sector across its peak; the
not seasonally adjusted table multiplies the levels by sector seasonal factors (construction and leisure 6-12 %
swings); government comes in a second export counted in persons; the main export carries a derived 1-month net
change column; in half the draws one recovered sector stands exactly at its peak (the method counts it recovered).
The draft's count of sectors below peak is right when the premise is to hold, else off.

Failure behaviour: ``draw`` raises DegenerateTask when no draw in 40 puts total nonfarm at least 0.3 % from its
peak on the targeted side or a planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or
ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, read_rows, write_files

__all__ = ["SECTOR_RECOVERY"]

_REGIONS = ("Calder Valley", "North Tamsin", "the Orvin Basin", "Westmarch County", "the Harlow Coast", "Lake Ennis")
# sector, share of jobs (low, high), depth % (low, high), seasonal swing %
_SECTORS = (("Mining and logging", (0.4, 0.8), (5, 20), 3), ("Construction", (4, 6), (18, 35), 9),
            ("Manufacturing", (7, 11), (10, 20), 1), ("Wholesale and retail trade", (12, 15), (4, 9), 3),
            ("Transportation and utilities", (3, 5), (4, 10), 2), ("Information", (1.5, 2.5), (5, 12), 1),
            ("Financial activities", (5, 7), (4, 10), 1), ("Professional and business services", (11, 14), (5, 11), 2),
            ("Education and health services", (13, 17), (1.5, 3), 2), ("Leisure and hospitality", (9, 11), (3, 7), 10),
            ("Other services", (3.5, 4.5), (3, 7), 1))
_GOV = (("Federal government", (1.5, 2.5), (1.5, 4), 1), ("State government", (3.5, 4.5), (2, 5), 2),
        ("Local government", (9, 11), (2.5, 6), 3))
_WINDOWS = (("2007-01", "2008-12"), ("2007-01", "2008-06"), ("2006-07", "2008-09"))
_STORY = "2015-12"
_LABELS = {
    "jobs_lost": ("Total nonfarm jobs lost, peak to trough (thousands)", "Nonfarm job loss peak to trough (thousands)",
                  "Jobs lost in the downturn, total nonfarm (thousands)"),
    "nf_drop_pct": ("Total nonfarm drawdown (%)", "Nonfarm peak-to-trough decline (%)", "Total nonfarm drop (%)"),
    "nf_peak": ("Total nonfarm pre-recession peak month", "Nonfarm peak month", "Month total nonfarm peaked"),
    "nf_trough": ("Total nonfarm trough month", "Nonfarm trough month", "Month total nonfarm bottomed out"),
    "nf_gap": ("Total nonfarm vs its peak in the story month (%)", "Nonfarm gap to peak, story month (%)",
               "Total nonfarm relative to peak now (%)"),
    "below_count": ("Sectors still below their pre-recession peak (count)", "Number of sectors below peak",
                    "Count of sectors not yet recovered"),
    "below_list": ("List of sectors below peak", "Sectors not yet recovered, by name",
                   "Which sectors remain short of their peak"),
    "steepest": ("Sector with the steepest percentage drop", "Largest % decline, sector", "Hardest-hit sector (by % drop)"),
    "biggest": ("Sector with the largest job loss (thousands)", "Largest job loss, sector", "Most jobs lost, sector"),
    "decision": ("Total nonfarm back at or above its pre-recession peak", "Region has regained its peak jobs level",
                 "Nonfarm employment recovered"),
    "premise": ("Draft's below-peak count holds", "Draft claim on sectors below peak is right",
                "Draft's sector count supported"),
}
_CHART = {"sector": ("sector", "series"), "peak_month": ("peak_month", "pre_recession_peak"),
          "peak_level": ("peak_k", "peak_level_thousands"), "trough_month": ("trough_month", "trough"),
          "trough_level": ("trough_k", "trough_level_thousands"), "drawdown_level": ("drop_k", "drawdown_thousands"),
          "drawdown_pct": ("drop_pct", "drawdown_pct"), "latest_level": ("latest_k", "story_month_level_thousands"),
          "gap_pct": ("vs_peak_pct", "gap_to_peak_pct"), "regained_month": ("regained_month", "month_peak_regained"),
          "below_peak": ("below_peak", "still_below")}
_DIRS = {"bureau": ("bureau_exports", "state_labor_stats", "lmi_downloads"),
         "desk": ("data_desk", "newsroom_data", "desk"), "mail": ("mail", "correspondence", "email")}
SHORTCUTS = ("persons", "change_column", "first_vintage", "nsa", "latest_row")


def _months(first: str, last: str) -> list[str]:
    y, m = int(first[:4]), int(first[5:])
    out = []
    while f"{y}-{m:02d}" <= last:
        out.append(f"{y}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the folder without the solver's code: the revised seasonally adjusted export and the
    government export (persons / 1,000), rows through the story month, peaks in the window, troughs after them."""
    folder, F, C = Path(folder), P["files"], P["columns"]
    data: dict[str, list[tuple[str, float]]] = {}
    main = [r for r in read_rows(folder / F["sa"]) if r[C["month"]][:7] <= P["story_month"]]
    for name in [P["total"], *P["sectors"]]:
        data[name] = [(r[C["month"]][:7], float(r[name].replace(",", ""))) for r in main]
    gov = [r for r in read_rows(folder / F["gov"]) if r[C["gov_month"]][:7] <= P["story_month"]]
    for name in P["gov_sectors"]:
        data[name] = [(r[C["gov_month"]][:7], float(r[name].replace(",", "")) / 1000) for r in gov]
    rows: list[dict[str, Any]] = []
    for name, s in data.items():
        inside = [v for m, v in s if P["window"][0] <= m <= P["window"][1]]
        top = max(inside)
        k = next(i for i, (m, v) in enumerate(s) if P["window"][0] <= m and v == top)
        low = min(v for _, v in s[k:])
        j = next(i for i in range(k, len(s)) if s[i][1] == low)
        back = next((m for m, v in s[j + 1:] if v >= top), None) if low < top else None
        last = s[-1][1]
        rows.append({"sector": name, "peak_month": s[k][0], "trough_month": s[j][0], "loss": top - low,
                     "pct": 100 * (top - low) / top, "drawdown_level": rnd(top - low, 1),
                     "drawdown_pct": rnd(100 * (top - low) / top, 1), "latest_level": rnd(last, 1),
                     "gap_pct": rnd(100 * (last - top) / top, 1), "regained_month": back, "below": last < top})
    nf, sec = rows[0], rows[1:]
    below = [r["sector"] for r in sec if r["below"]]
    steep = sorted(sec, key=lambda r: -r["pct"])[0]["sector"]
    big = sorted(sec, key=lambda r: -r["loss"])[0]["sector"]
    return {"rows": rows, "jobs_lost": nf["drawdown_level"], "nf_drop_pct": nf["drawdown_pct"],
            "nf_peak": nf["peak_month"], "nf_trough": nf["trough_month"], "nf_gap": nf["gap_pct"],
            "below_count": len(below), "below_list": below, "steepest": steep, "biggest": big,
            "decision": not nf["below"], "premise": len(below) == int(P["claim_below"])}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _smooth(x: float) -> float:
    return x * x * (3 - 2 * x)


def _series(rng: random.Random, months: list[str], window: tuple[str, str], share: float, depth: float,
            gap: float, gov: bool, total: float) -> list[float]:
    """One sector's seasonally adjusted level (thousands): growth to a peak in the window, a smooth fall to a trough,
    a straight climb to ``gap`` (fraction of the peak) in the story month, 0.1 % noise."""
    w0, w1 = months.index(window[0]), months.index(window[1])
    p = rng.randint(w0 + 3, w1 - 4) if not gov else rng.randint((w0 + w1) // 2, w1 - 4)
    t = p + (rng.randint(24, 36) if gov else rng.randint(12, 28))
    s = months.index(_STORY)
    peak, grow, d = total * share, rng.uniform(0.0005, 0.0025), depth / 100
    climb = (d + gap) / (s - t)
    out = []
    for i in range(len(months)):
        if i <= p:
            f = 1 - grow * (p - i)
        elif i <= t:
            f = 1 - d * _smooth((i - p) / (t - p))
        else:
            f = 1 - d + climb * (i - t)
        noise = rng.gauss(0, 0.001) if i != p else 0.002  # the peak month stands clear of its neighbours
        out.append(peak * (f + noise))
    return out


def _region(rng: random.Random, P: dict[str, Any], targets: dict[str, bool]) -> dict[str, Any]:
    months = _months("2006-01", P["last_month"])
    total = rng.uniform(1600, 2600)
    share_draw = {n: rng.uniform(*sh) for n, sh, _, _ in _SECTORS + _GOV}
    scale = 100 / sum(share_draw.values())
    recover = 0.75 if targets["decision"] else 0.3
    names = [n for n, _, _, _ in _SECTORS + _GOV]
    swing = rng.choice([n for n, _, _, _ in _SECTORS])  # the revision moves the main export only
    levels: dict[str, list[float]] = {}
    for n, _, dep, _ in _SECTORS + _GOV:
        if n == swing:
            gap = rng.choice((-1, 1)) * rng.uniform(0.003, 0.008)
        else:
            gap = rng.uniform(0.005, 0.08) if rng.random() < recover else -rng.uniform(0.005, 0.15)
        levels[n] = _series(rng, months, P["window"], share_draw[n] * scale / 100, rng.uniform(*dep), gap,
                            n in P["gov_sectors"], total)
    s = months.index(_STORY)
    tie = rng.random() < 0.5
    if tie:  # one recovered sector stands exactly at its peak in the story month
        w0, w1 = months.index(P["window"][0]), months.index(P["window"][1])
        ok = [n for n in names if n != swing and levels[n][s] > max(levels[n][w0:w1 + 1]) * 1.003]
        if ok:
            n = rng.choice(ok)
            levels[n][s] = max(levels[n][w0:w1 + 1])
    # rounded as published: thousands to 1 decimal, government in whole persons
    pub = {n: [round(v, 1) for v in levels[n]] for n, _, _, _ in _SECTORS}
    gov = {n: [round(v * 1000) for v in levels[n]] for n, _, _, _ in _GOV}
    tot = [round(sum(pub[n][i] for n in pub) + sum(gov[n][i] for n in gov) / 1000, 1) for i in range(len(months))]
    first_end = s + 1
    ramp = {n: (rng.uniform(-0.006, 0.006) if n != swing else None) for n in names}
    w0, w1 = months.index(P["window"][0]), months.index(P["window"][1])
    first: dict[str, list[float]] = {}
    for n in names:
        e = ramp[n]
        if e is None:  # the revision carries the swing sector across its peak
            top = max(levels[n][w0:w1 + 1])
            e = -2 * (levels[n][s] - top) / levels[n][s]
        base = levels[n]
        first[n] = [base[i] * (1 + e * max(0, i - (s - 12)) / 12) for i in range(first_end)]
    first_pub = {n: [round(v, 1) for v in first[n]] for n in pub}
    first_tot = [round(sum(first_pub[n][i] for n in pub) + sum(gov[n][i] for n in gov) / 1000, 1)
                 for i in range(first_end)]
    seas = {n: sw for n, _, _, sw in _SECTORS}
    phase = {n: rng.choice((6, 7, 11)) for n in pub}
    nsa = {n: [round(pub[n][i] * (1 + seas[n] / 100 * math.cos(2 * math.pi * ((i % 12) - phase[n]) / 12)), 1)
               for i in range(len(months))] for n in pub}
    nsa_tot = [round(sum(nsa[n][i] for n in nsa) + sum(gov[n][i] for n in gov) / 1000, 1) for i in range(len(months))]
    return {"months": months, "pub": pub, "gov": gov, "tot": tot, "first": first_pub, "first_tot": first_tot,
            "nsa": nsa, "nsa_tot": nsa_tot, "swing": swing, "tie": tie}


def _data(P: dict[str, Any], R: dict[str, Any]) -> dict[str, Any]:
    F, C = P["files"], P["columns"]
    months = R["months"]
    sectors = list(P["sectors"])

    def table(tot: list[float], vals: dict[str, list[float]], n: int) -> tuple[list[str], list[list[Any]]]:
        head = [C["month"], P["total"], C["change"], *sectors]
        rows = []
        for i in range(n):
            chg = "" if i == 0 else round(tot[i] - tot[i - 1], 1)
            rows.append([months[i], tot[i], chg, *[vals[s][i] for s in sectors]])
        return head, rows

    sa_head, sa_rows = table(R["tot"], R["pub"], len(months))
    fr_head, fr_rows = table(R["first_tot"], R["first"], len(R["first_tot"]))
    ns_head, ns_rows = table(R["nsa_tot"], R["nsa"], len(months))
    gov_rows = [[months[i], *[R["gov"][g][i] for g in P["gov_sectors"]]] for i in range(len(months))]
    return {F["sa"]: lambda p: write_csv(p, sa_head, sa_rows), F["first"]: lambda p: write_csv(p, fr_head, fr_rows),
            F["nsa"]: lambda p: write_csv(p, ns_head, ns_rows),
            F["gov"]: lambda p: write_xlsx(p, [("Government SA (persons)", [C["gov_month"], *P["gov_sectors"]],
                                                gov_rows)])}


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.recovery import analyse

    prof = profession(occupation)
    dirs = pick_labels(rng, _DIRS)
    region = rng.choice(_REGIONS)
    b = dirs["bureau"]
    P: dict[str, Any] = {
        "files": {"sa": f"{b}/ces_sa/employment_by_sector_sa_thousands_vintage_2016-03_benchmark.csv",
                  "first": f"{b}/ces_sa/employment_by_sector_sa_thousands_vintage_2016-01.csv",
                  "nsa": f"{b}/ces_nsa/employment_by_sector_nsa_thousands_vintage_2016-03.csv",
                  "gov": f"{b}/government/government_employment_sa_persons_vintage_2016-03.xlsx"},
        "columns": {"month": rng.choice(("month", "period", "ref_month")), "gov_month": rng.choice(("month", "period")),
                    "change": rng.choice(("Total nonfarm 1-month net change", "Nonfarm over-the-month change",
                                          "Total nonfarm change from prior month"))},
        "total": "Total nonfarm", "sectors": [n for n, _, _, _ in _SECTORS], "gov_sectors": [n for n, _, _, _ in _GOV],
        "window": list(rng.choice(_WINDOWS)), "story_month": _STORY, "last_month": "2016-02", "claim_below": 0,
        "subject": f"{region} jobs recovery, {_STORY}", "desk_dir": dirs["desk"], "mail_dir": dirs["mail"],
        "chart_labels": pick_labels(rng, _CHART), "labels": pick_labels(rng, _LABELS),
        "deliverables": {"memo": rng.choice(("fact_check.md", "recovery_fact_check.md")),
                         "chart": rng.choice(("chart_data.csv", "sector_recovery_chart.csv"))}}
    for _ in range(40):
        R = _region(rng, P, targets)
        data = _data(P, R)
        with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
            write_files(Path(tmp), data)
            truth = analyse(tmp, P)
            gap = truth["rows"][0]["gap_pct_raw"]
            if truth["decision"] != targets["decision"] or abs(gap) < 0.3:
                continue
            c = truth["below_count"]
            if c == 0:  # a blind "0" would settle the count
                continue
            P["claim_below"] = c if targets["premise"] else (0 if c > 0 else 2) if rng.random() < 0.6 else \
                max(0, c + rng.choice((-2, -1, 1, 2)) if c > 2 else c + rng.choice((1, 2)))
            if (c == P["claim_below"]) != targets["premise"]:
                continue
            truth = analyse(tmp, P)
            singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
        break
    else:
        raise DegenerateTask("no draw in 40 put total nonfarm clearly on the targeted side of its peak")

    def moved(nf: Facts) -> bool:
        if any(nf[k] != truth[k] for k in ("below_count", "nf_peak", "nf_trough", "steepest", "biggest")):
            return True
        if abs(nf["jobs_lost"] - truth["jobs_lost"]) > 0.25 or abs(nf["nf_gap"] - truth["nf_gap"]) > 0.25:
            return True
        mine = {r["sector"]: r for r in truth["rows"]}

        def off(a: float, b: float) -> bool:  # the judge reads a figure 1,000 times too big as persons, not wrong
            return abs(a - b) > 0.25 and not (b and abs(a / b - 1000) < 1)

        return any(r["sector"] in mine and off(r["latest_level"], mine[r["sector"]]["latest_level"])
                   for r in nf["rows"])

    where = {"persons": ("header", "the government export counts persons; levels are reported in thousands"),
             "change_column": ("data", "the 1-month net change column is a derived change, not a sector's level"),
             "first_vintage": ("email", "the benchmark-revised vintage supersedes the first release"),
             "nsa": ("memo", "the method uses seasonally adjusted levels, not the unadjusted table"),
             "latest_row": ("memo", f"the story is as of {_STORY}; the revised file runs two months further")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, nf in singles.items() if moved(nf)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    writers, roles = _workspace(rng, P, region, data, truth)
    prompt = _prompt(rng, P, prof, region, writers)
    return Draft(subject=f"Sectors below pre-recession peak, {region} {_STORY}", instructions=prompt, files=writers,
                 roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="14 supersectors, total 1.6-2.6M jobs; peak in window, depth by sector (construction "
                               "18-35 %, health 1.5-3 %), trough 12-36 months later, linear climb to a story-month gap "
                               "of +0.5..+8 % or -0.5..-15 %; 0.1 % noise; benchmark revision +-0.6 % over 12 months")


def _standards(P: dict[str, Any]) -> list[str]:
    w0, w1 = P["window"]
    return [
        "Data desk method: recession and recovery tracker, payroll employment (current; replaces the 2012 note)",
        "- Source: the bureau's seasonally adjusted payroll series, from the latest vintage. A benchmark-revised "
        "vintage supersedes every earlier release of the same months. The not seasonally adjusted table is never "
        "used for peaks, troughs or recovery status (its seasonal swings are not the business cycle).",
        "- Units: thousands of jobs. The government export is counted in persons: divide by 1,000 before comparing "
        "or adding it to anything else.",
        f"- Series: {P['total']} and the fourteen supersectors: " + "; ".join(P["sectors"] + P["gov_sectors"])
        + f". {P['total']} gets a row in the chart data but is not a sector: it is not counted or ranked with them. "
        "The export's net-change column is a derived month-over-month difference, not a level: it gets no row.",
        f"- Story month: {P['story_month']}. Levels are as of that month; rows for later months in a file are "
        "ignored.",
        f"- Peak: the highest level from {w0} to {w1} inclusive (the pre-recession window); if the highest level "
        "occurs more than once, the earliest of those months.",
        "- Trough: the lowest level from the peak month through the story month (the earliest such month if tied). "
        "A series that never fell below its peak has its trough at the peak and no regained month.",
        "- Drawdown: peak level minus trough level in thousands, and that difference as a per cent of the peak.",
        "- Regained: the first month after the trough whose level is at or above the peak level (a level equal to "
        "the peak has regained it). Blank when the series has not regained its peak by the story month.",
        "- Status: a series is below its peak when its story-month level is lower than its peak level; a series "
        "exactly at its peak has recovered. Gap to peak = (story-month level - peak) / peak x 100.",
        "- Rankings: steepest drop = largest drawdown per cent; largest job loss = largest drawdown in thousands; "
        "among the sectors only, ties going to the sector listed first above.",
        "- Rounding: half up, from the published levels; levels in thousands to 1 decimal, per cents to 1 decimal; "
        "months as YYYY-MM."]


def _workspace(rng: random.Random, P: dict[str, Any], region: str, data: dict[str, Any],
               truth: Facts) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    desk, mail, bureau = P["desk_dir"], P["mail_dir"], P["files"]["sa"].split("/")[0]
    editor, reporter, analyst = person(rng), person(rng), person(rng)
    sent = iso(dt.date(2016, 3, rng.randint(14, 24)))
    k = int(P["claim_below"])
    add(f"{desk}/standards/recovery_tracker_method.docx", "policy",
        lambda p: write_docx(p, "Data desk - recession and recovery tracker method", _standards(P)))
    add(f"{desk}/standards/archive/jobs_tracker_note_2012.pdf", "stale", lambda p: write_pdf(
        p, "Jobs tracker note (2012, superseded)", [
            "Use the bureau's not seasonally adjusted table: these are the original estimates, not modelled.",
            "The last row of the downloaded file is the current month.",
            "The first published release is final for our purposes; do not wait for revisions.",
            "Superseded by the current recovery tracker method; kept for the record of earlier stories."]))
    cap = region[0].upper() + region[1:]  # "the Orvin Basin" opens a sentence
    count_claim = ("Every one of the region's sectors has now climbed back above its pre-recession high." if k == 0
                   else f"Only {k} of the region's 14 sectors remain below their pre-recession peaks.")
    add(f"{desk}/drafts/weekend_jobs_story_draft.md", "reference", lambda p: write_text(p, "\n".join([
        f"# DRAFT - {cap} jobs: the long way back", "",
        f"{cap} has regained all the jobs it lost in the recession, according to the state's payroll figures.",
        "", count_claim, "",
        f"{truth['steepest']} was hit hardest of all the sectors, in percentage terms.", "",
        f"Reporter: {reporter}. Figures to be checked by the data desk."]) + "\n"))
    add(f"{mail}/2016-03-11_bureau_benchmark_notice.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{analyst}, Labor Market Information", to=reporter, date="2016-03-11",
        subject="Annual benchmark revision - March release",
        body="The March release carries the annual benchmark revision. It replaces the January vintage for every "
             "month from 2014-10 onward; please use the revised figures. The seasonally adjusted and unadjusted "
             "tables are both posted; the revised file runs through February 2016.")))
    add(f"{mail}/2016-03-12_government_series.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{analyst}, Labor Market Information", to=reporter, date="2016-03-12",
        subject="Re: government series",
        body="Government employment comes from our public-sector unit in a separate workbook. Note that it is "
             "counted in persons, not thousands like the main table; the totals in the main table already include "
             "it.")))
    add(f"{mail}/{sent}_data_editor.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{editor}, Data Editor", to="data desk", date=sent, subject="Jobs story - check before the weekend",
        body=f"The weekend piece says the region is all the way back. As of {P['story_month']}, which sectors are "
             "still below their pre-recession peak, how deep were the troughs, and when did the others get back? "
             "I need a fact-check of the draft's claims and the numbers for the chart.")))
    add(f"{bureau}/laus/county_unemployment_rates_2015.csv", "distractor", lambda p: write_csv(
        p, ["county", "labor_force", "unemployment_rate_pct"],
        [[f"{c} County", rng.randint(20_000, 300_000), round(rng.uniform(3.5, 9.5), 1)]
         for c in ("Ash", "Birch", "Cedar", "Dale", "Elm", "Fern")]))
    add(f"{bureau}/reference/national_recession_dates.pdf", "distractor", lambda p: write_pdf(
        p, "Business cycle reference dates (national)", [
            "The national recession began in December 2007 (peak) and ended in June 2009 (trough).",
            "Regional cycles differ from the national one; sector peaks are dated from each series."]))
    add(f"{desk}/reference/county_population_2015.xlsx", "distractor", lambda p: write_xlsx(
        p, [("Population", ["county", "population"], [[f"{c} County", rng.randint(40_000, 600_000)]
                                                       for c in ("Ash", "Birch", "Cedar", "Dale", "Elm", "Fern")])]))
    add(f"{desk}/style/charts_style_note.pdf", "distractor", lambda p: write_pdf(p, "Style note - charts", [
        "Line charts of employment start the y-axis where the data start and say so.",
        "Label the peak and trough months on the chart; use thousands with one decimal."]))
    add(f"{desk}/meetings/{sent}_desk_meeting.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="weekend jobs story", people=[editor, reporter, person(rng)], date=sent)))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], prof: Any, region: str, writers: dict[str, Any]) -> str:
    L, D, W = P["labels"], P["deliverables"], P["chart_labels"]
    k, one, pc = "thousands, 1 decimal place", "YYYY-MM", "per cent, 1 decimal place"
    memo_labels = [(L["jobs_lost"], k), (L["nf_drop_pct"], pc), (L["nf_peak"], one), (L["nf_trough"], one),
                   (L["nf_gap"], pc + ", negative when below"), (L["below_count"], "whole number"),
                   (L["below_list"], "sector names separated by semicolons, or none"), (L["steepest"], "sector"),
                   (L["biggest"], "sector"), (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    claim = int(P["claim_below"])
    said = "every sector has regained its pre-recession peak" if claim == 0 else \
        f"only {claim} of the 14 sectors remain below their pre-recession peaks"
    return instructions(
        rng, prof=prof, requester=person(rng), role="Data Editor", org=f"{region} newsroom",
        subject=f"Jobs recovery fact-check, as of {P['story_month']}",
        purpose=rng.choice(("I need to know which sectors are still below their pre-recession peak and how deep "
                            "the troughs were, for the weekend jobs story.",
                            "please check the weekend jobs story against the bureau's payroll series.",
                            "run the recovery numbers by sector for the weekend piece and check the draft.")),
        about=f"the bureau's monthly payroll employment by sector for {region} (seasonally adjusted and unadjusted "
              "tables, two vintages) and its government workbook",
        belief=f"The draft says the region has regained all the jobs it lost and that {said}; I want to know "
               "whether that stands before it runs.",
        table={"file": D["chart"], "headers": [W[x] for x in _CHART], "unit": f"series ({P['total']} and each sector)"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(
            f"In {D['chart']} months are YYYY-MM, levels in thousands and per cents to 1 decimal place, the below-peak "
            "column says yes or no, and the regained month is blank for a series that has not regained its peak.",),
        policy=f"the data desk method in {P['desk_dir']}/standards/", files=sorted(writers))


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck

    D, L, W = P["deliverables"], P["labels"], P["chart_labels"]
    chart, memo = D["chart"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    names = [*P["sectors"], *P["gov_sectors"]]

    def cells(key: str, places: int | None) -> list[tuple[str, Any]]:
        out = []
        for r in facts["rows"]:
            v = yes(r["below"]) if key == "below_peak" else r[key]
            if v is None:
                continue
            text = f"{v:.{places}f}" if places is not None else str(v)
            value = float(v) if places is not None else str(v)
            out.append((f"{chart}: {r['sector']} {W[key]} = {text}",
                        CellCheck(file=chart, match={W["sector"]: r["sector"]}, column=W[key], value=value,
                                  tolerance=tol(places) if places is not None else 0.0)))
        return out

    def num(key: str) -> tuple[str, Any]:
        return f"{memo}: {L[key]} = {facts[key]:.1f}", fld_num(memo, L[key], facts[key], 1)

    def text(key: str, options: list[str] | None = None) -> tuple[str, Any]:
        return f"{memo}: {L[key]} = {facts[key]}", fld(memo, L[key], str(facts[key]), options)

    def flag(key: str) -> tuple[str, Any]:
        return f"{L[key]}: {yes(facts[key])}", fld(memo, L[key], yes(facts[key]), ["yes", "no"])

    count = (f"{memo}: {L['below_count']} = {facts['below_count']}",
             FieldCheck(file=memo, label=L["below_count"], number=float(facts["below_count"]), tolerance=0.0))
    out = [
        rubric(f"Dates {P['total']}'s pre-recession peak and trough and the jobs lost", 10, [
            num("jobs_lost"), num("nf_drop_pct"), text("nf_peak"), text("nf_trough")]),
        rubric("Finds each sector's peak in the window and its later trough on the revised seasonally adjusted "
               "series", 10, [*cells("peak_month", None), *cells("trough_month", None)]),
        rubric("Gives each series' drawdown in thousands (government converted from persons) and per cent", 10, [
            *cells("drawdown_level", 1), *cells("drawdown_pct", 1)]),
        rubric("Ranks the sectors by the depth of the drop", 6, [text("steepest", names), text("biggest", names)]),
        rubric(f"States each series' level and status in {P['story_month']} (at the peak counts as recovered)", 10, [
            *cells("latest_level", 1), *cells("below_peak", None), count,
            (f"{memo}: {L['below_list']} = {'; '.join(facts['below_list'])}",
             # the names hold "and": the list is read by the sector names it mentions, not split on "and"
             FieldCheck(file=memo, label=L["below_list"], items=list(facts["below_list"]), options=names))]),
        rubric("Dates the month each recovered series regained its peak", 6, [*cells("regained_month", None)]),
        rubric(f"Says whether {P['total']} is back at its pre-recession peak", 8, [flag("decision"), num("nf_gap")]),
        rubric("Settles the draft's count of sectors still below their peak", 8, [flag("premise"), count]),
    ]
    if judgement:
        out.append(rubric("Explains the data choices an editor needs to trust the figures", 6, [
            ("Says which vintage and which table were used and why (revised, seasonally adjusted)", llm("explanation")),
            ("Says that government was converted from persons and the change column was left out", llm("explanation")),
            ("States the peak window, the trough rule and that a sector at its peak counts as recovered",
             llm("content"))]))
        out.append(rubric("Advises the desk on what the story can say", 6, [
            ("Says which draft claims stand and gives wording the numbers support", llm("reasoning")),
            ("Is short and usable by an editor before publication", llm("writing"))]))
    return out

SECTOR_RECOVERY = Workflow(
    key="sector_recovery_check", family="sector_recovery",
    method="per sector: the highest seasonally adjusted level in the pre-recession window, the lowest level after it, "
           "drawdown in thousands and per cent, the first month back at or above the peak, status in the story month",
    professions=("reporters_and_correspondents",), solver="recovery", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated regional payroll employment by supersector (stated distributions)")
