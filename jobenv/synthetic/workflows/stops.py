"""Police-stop disparity check before publication: stop and search rates by perceived race per 1,000 residents,
ratios to the reference group, the outcome test on discretionary searches with Wilson intervals and small-group
suppression, against a draft story's claim (reporters).

One calendar year of a fictional city police department's person-level stop export is generated: a city of
120,000-260,000 residents (census shares not Hispanic: White 40-60 %, Black 12-25 %, Asian 4-8 %, two or more races
2.5-4.5 %, American Indian 0.3-0.8 %, Pacific Islander 0.1-0.3 %; Hispanic of any race 12-25 %), 3,500-6,500
persons stopped, each stop holding one person (82 %), two (12 %), three (4 %) or four (2 %), a passenger sharing the
driver's perceived race four times in five. Drivers are drawn in proportion to residents times a stop multiple
(White 1, Black 1.6-3.6, Hispanic 1.1-1.7, Asian 0.45-0.8, the others 0.7-1.6); 2-4 % of persons are coded unknown.
Search probability: White 4-7 %, Black 1.8-3.0 times, Hispanic 1.3-2.0 times, others 0.7-1.3 times; bases consent
25 %, probable cause 35 %, incident to arrest 25 %, inventory 10 %, warrant 5 %. Hit probability in discretionary
searches: White 30-42 %, Black 18-25 points lower when the outcome test is to show a disparity, within 4 points
otherwise; Hispanic 0-8 points lower; incident to arrest 50 %, inventory 15 %, warrant 40 % for everyone. The export
query starts on 1 December of the previous year (about one month of extra rows) and 2-4 % of person records are
re-sent as record_version 2 (a race coded after review, a lab result). The census table carries both the "alone"
rows (Hispanic residents included) and the "not Hispanic or Latino" rows; the 2021 guidelines (superseded) counted
stops, used the "alone" rows and tested all searches.

Failure behaviour: ``draw`` raises DegenerateTask when no draw in 40 hits the targeted answers with the outcome
test at least 1.5 points from overlap, the stop ratio sits within 0.1 of the draft's multiple, or a planted trap
moves no graded figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
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

__all__ = ["STOP_DISPARITY"]

_CITIES = ("Harlow Falls", "Port Ellery", "Marston", "Cedar Bluff", "Wexbridge", "Ashcombe", "Lake Orvin")
# group, export code, the census row the standards use, the "alone" row that also holds Hispanic residents
_GROUPS = (("Asian", "A", "Asian alone, not Hispanic or Latino", "Asian alone"),
           ("Black", "B", "Black or African American alone, not Hispanic or Latino", "Black or African American alone"),
           ("Hispanic", "H", "Hispanic or Latino (of any race)", "Hispanic or Latino (of any race)"),
           ("Native American", "I", "American Indian and Alaska Native alone, not Hispanic or Latino",
            "American Indian and Alaska Native alone"),
           ("Pacific Islander", "P", "Native Hawaiian and Other Pacific Islander alone, not Hispanic or Latino",
            "Native Hawaiian and Other Pacific Islander alone"),
           ("White", "W", "White alone, not Hispanic or Latino", "White alone"),
           ("Two or more races", "M", "Two or more races, not Hispanic or Latino", "Two or more races"))
_BASES = (("Consent", 25, 0.0), ("Probable cause", 35, 0.0), ("Incident to arrest", 25, 0.50),
          ("Inventory", 10, 0.15), ("Warrant", 5, 0.40))
_LABELS = {
    "persons": ("Persons stopped", "Persons stopped (all races)", "Total persons stopped"),
    "stops": ("Stops (incidents)", "Number of stops", "Stop incidents"),
    "cmp_stop_rate": ("Black stop rate per 1,000 residents", "Black residents stopped per 1,000",
                      "Stop rate, Black (per 1,000)"),
    "ref_stop_rate": ("White stop rate per 1,000 residents", "White residents stopped per 1,000",
                      "Stop rate, White (per 1,000)"),
    "stop_ratio": ("Black-to-White stop rate ratio", "Stop disparity ratio (Black / White)", "Stop rate ratio, B/W"),
    "cmp_search_rate": ("Black search rate per 1,000 residents", "Black residents searched per 1,000",
                        "Search rate, Black (per 1,000)"),
    "ref_search_rate": ("White search rate per 1,000 residents", "White residents searched per 1,000",
                        "Search rate, White (per 1,000)"),
    "search_ratio": ("Black-to-White search rate ratio", "Search disparity ratio (Black / White)",
                     "Search rate ratio, B/W"),
    "cmp_hit": ("Black hit rate (%)", "Contraband hit rate, Black (%)", "Black searches finding contraband (%)"),
    "cmp_low": ("Black hit rate 95% CI lower (%)", "Black hit rate, Wilson lower bound (%)", "Black CI low (%)"),
    "cmp_high": ("Black hit rate 95% CI upper (%)", "Black hit rate, Wilson upper bound (%)", "Black CI high (%)"),
    "ref_hit": ("White hit rate (%)", "Contraband hit rate, White (%)", "White searches finding contraband (%)"),
    "ref_low": ("White hit rate 95% CI lower (%)", "White hit rate, Wilson lower bound (%)", "White CI low (%)"),
    "ref_high": ("White hit rate 95% CI upper (%)", "White hit rate, Wilson upper bound (%)", "White CI high (%)"),
    "suppressed": ("Suppressed rates", "Rates suppressed", "Number of suppressed rates"),
    "decision": ("Outcome test shows a lower Black hit rate", "Black hit rate significantly below White",
                 "Outcome-test disparity (Black vs White)"),
    "premise": ("Draft's stop-rate claim holds", "Draft story's stop claim supported", "Stop claim in draft is right"),
}
_SHEET = {"group": ("group", "race_group"), "population": ("population", "residents"),
          "stopped": ("persons_stopped", "stopped_n"), "stop_rate": ("stop_rate_per_1000", "stops_per_1k"),
          "stop_ratio": ("stop_ratio_vs_ref", "stop_disparity"), "searched": ("persons_searched", "searched_n"),
          "search_rate": ("search_rate_per_1000", "searches_per_1k"),
          "search_ratio": ("search_ratio_vs_ref", "search_disparity"),
          "tested": ("discretionary_searches", "disc_searches_n"), "hits": ("hits", "contraband_found_n"),
          "hit_rate": ("hit_rate_pct", "hit_pct"), "ci_low": ("ci95_low_pct", "wilson_low_pct"),
          "ci_high": ("ci95_high_pct", "wilson_high_pct")}
_EXPORT = ({"stop": "STOP_ID", "person": "PERSON_NO", "version": "RECORD_VERSION", "date": "STOP_DATE",
            "time": "STOP_TIME", "beat": "BEAT", "reason": "STOP_REASON", "race": "PERCEIVED_RACE",
            "gender": "PERCEIVED_GENDER", "searched": "SEARCH_CONDUCTED", "basis": "SEARCH_BASIS",
            "found": "CONTRABAND_FOUND", "result": "RESULT"},
           {"stop": "stop_id", "person": "person_seq", "version": "record_version", "date": "date", "time": "time",
            "beat": "beat", "reason": "reason_for_stop", "race": "race_code", "gender": "gender",
            "searched": "searched", "basis": "search_basis", "found": "contraband_or_evidence", "result": "outcome"})
_DIRS = {"pd": ("police_records", "pd_records_request", "records_unit"), "census": ("census", "acs", "demographics"),
         "desk": ("data_desk", "newsroom_data", "desk"), "mail": ("mail", "correspondence", "email")}
SHORTCUTS = ("stops", "amended", "out_of_year", "race_alone", "all_searches")
_MULTIPLES = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
_WORDS = {1.5: "one and a half times", 2.0: "twice", 2.5: "two and a half times", 3.0: "three times",
          3.5: "three and a half times", 4.0: "four times"}


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: persons keyed by (stop, person) holding
    the highest record_version, counts per group, rates on the standards' census rows, Wilson bounds by hand."""
    folder, F, C = Path(folder), P["files"], P["columns"]
    codes = {r["code"]: r["group"] for r in read_rows(folder / F["codebook"])}
    pop = {r["census_row"]: float(r["estimate"].replace(",", "")) for r in read_rows(folder / F["population"])}
    best: dict[tuple[str, str], tuple[int, dict[str, str]]] = {}
    for r in read_rows(folder / F["stops"]):
        if r[C["date"]][:4] != str(P["year"]):
            continue
        key, v = (r[C["stop"]], r[C["person"]]), int(r[C["version"]] or 1)
        if key not in best or v >= best[key][0]:
            best[key] = (v, r)
    cut, disc, z = int(P["min_events"]), set(P["discretionary"]), 1.96
    yes = ("Y", "YES", "TRUE", "1")
    out: dict[str, dict[str, Any]] = {}
    for g in P["groups"]:
        rows = [r for _, r in best.values() if codes.get(r[C["race"]], "Unknown") == g["group"]]
        srch = [r for r in rows if r[C["searched"]].upper() in yes]
        test = [r for r in srch if r[C["basis"]] in disc]
        k = sum(r[C["found"]].upper() in yes for r in test)
        n, p = len(test), (k / len(test) if test else 0.0)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) if n else 0.0
        mid, den = (p + z * z / (2 * n), 1 + z * z / n) if n else (0.0, 1.0)
        out[g["group"]] = {"group": g["group"], "stopped": len(rows), "searched": len(srch), "tested": n,
                           "s": 1000 * len(rows) / pop[g["census_row"]], "q": 1000 * len(srch) / pop[g["census_row"]],
                           "h": 100 * p, "lo": 100 * (mid - half) / den, "hi": 100 * (mid + half) / den}
    ref, cmp_ = out[P["reference"]], out[P["comparison"]]
    groups = []
    for g in out.values():
        groups.append(dict(g, stop_rate=rnd(g["s"], 1) if g["stopped"] >= cut else None,
                           search_rate=rnd(g["q"], 1) if g["searched"] >= cut else None,
                           stop_ratio=rnd(g["s"] / ref["s"], 2) if g["stopped"] >= cut else None,
                           search_ratio=rnd(g["q"] / ref["q"], 2) if g["searched"] >= cut else None,
                           hit_rate=rnd(g["h"], 1) if g["tested"] >= cut else None,
                           ci_low=rnd(g["lo"], 1) if g["tested"] >= cut else None,
                           ci_high=rnd(g["hi"], 1) if g["tested"] >= cut else None))
    return {"groups": groups, "persons": len(best), "stops": len({k[0] for k in best}),
            "cmp_stop_rate": rnd(cmp_["s"], 1), "ref_stop_rate": rnd(ref["s"], 1),
            "stop_ratio": rnd(cmp_["s"] / ref["s"], 2), "cmp_search_rate": rnd(cmp_["q"], 1),
            "ref_search_rate": rnd(ref["q"], 1), "search_ratio": rnd(cmp_["q"] / ref["q"], 2),
            "cmp_hit": rnd(cmp_["h"], 1), "cmp_low": rnd(cmp_["lo"], 1), "cmp_high": rnd(cmp_["hi"], 1),
            "ref_hit": rnd(ref["h"], 1), "ref_low": rnd(ref["lo"], 1), "ref_high": rnd(ref["hi"], 1),
            "suppressed": sum((g["stopped"] < cut) + (g["searched"] < cut) + (g["tested"] < cut) for g in groups),
            "decision": cmp_["hi"] < ref["lo"], "premise": cmp_["s"] / ref["s"] > float(P["claim_multiple"])}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _city(rng: random.Random) -> dict[str, Any]:
    """The census table: each group's not-Hispanic row and its 'alone' row (Hispanic residents added)."""
    total = rng.randint(120_000, 260_000)
    share = {"W": rng.uniform(0.40, 0.60), "B": rng.uniform(0.12, 0.25), "H": rng.uniform(0.12, 0.25),
             "A": rng.uniform(0.04, 0.08), "I": rng.uniform(0.003, 0.008), "P": rng.uniform(0.001, 0.003),
             "M": rng.uniform(0.025, 0.045)}
    scale = 0.995 / sum(share.values())
    nh = {c: round(total * s * scale) for c, s in share.items()}
    his = nh["H"]
    extra = {"W": rng.uniform(0.30, 0.50), "B": rng.uniform(0.02, 0.04), "A": rng.uniform(0.003, 0.008),
             "I": rng.uniform(0.01, 0.02), "P": rng.uniform(0.001, 0.003), "M": rng.uniform(0.25, 0.35), "H": 0.0}
    rows = [["Total population", total, round(total * 0.002)]]
    for _name, code, row, alone in _GROUPS:
        moe = lambda n: max(12, round(n * rng.uniform(0.03, 0.09)))  # noqa: E731
        if code == "H":
            rows.append([row, nh[code], moe(nh[code])])
            continue
        rows.append([alone, nh[code] + round(his * extra[code]), moe(nh[code])])
        rows.append([row, nh[code], moe(nh[code])])
    rows.append(["Some other race alone, not Hispanic or Latino", total - sum(nh.values()), 90])
    return {"total": total, "nh": nh, "rows": rows}


def _year_rows(rng: random.Random, city: dict[str, Any], year: int, targets: dict[str, bool]) -> list[list[Any]]:
    """Person rows: stop_id, person_no, version, date, time, beat, reason, race, gender, searched, basis, found,
    result. December of the previous year is in the export; some records are re-sent as version 2."""
    nh = city["nh"]
    mult = {"W": 1.0, "B": rng.uniform(1.6, 3.6), "H": rng.uniform(1.1, 1.7), "A": rng.uniform(0.45, 0.8),
            "I": rng.uniform(0.8, 1.6), "P": rng.uniform(0.7, 1.5), "M": rng.uniform(0.7, 1.2)}
    persons = rng.randint(3500, 6500)
    weight = {c: nh[c] * mult[c] for c in mult}
    codes, wts = list(weight), list(weight.values())
    s_w = rng.uniform(0.04, 0.07)
    search = {"W": s_w, "B": s_w * rng.uniform(1.8, 3.0), "H": s_w * rng.uniform(1.3, 2.0)}
    h_w = rng.uniform(0.30, 0.42)
    hit = {"W": h_w, "B": h_w - rng.uniform(0.18, 0.25) if targets["decision"] else h_w + rng.uniform(-0.04, 0.04),
           "H": h_w - rng.uniform(0.0, 0.08)}
    unknown = rng.uniform(0.02, 0.04)
    out: list[list[Any]] = []
    start = dt.date(year - 1, 12, 1)
    days = (dt.date(year, 12, 31) - start).days
    beats = [f"{d}{n}" for d in "NESW" for n in range(1, 5)]
    k = 0
    while len(out) < persons * 13 / 12:
        k += 1
        sid = f"{year % 100:02d}-{100000 + k * 7 + rng.randint(0, 6)}"
        when = start + dt.timedelta(days=rng.randint(0, days))
        hhmm = f"{rng.choices(range(24), weights=[3, 2, 2, 1, 1, 1, 2, 4, 5, 5, 5, 5, 5, 5, 6, 6, 6, 5, 5, 5, 5, 4, 4, 3])[0]:02d}:{rng.randint(0, 59):02d}"
        beat, reason = rng.choice(beats), rng.choices(("Moving violation", "Equipment violation", "Reasonable suspicion",
                                                       "Investigative stop", "Warrant"), weights=(50, 20, 15, 12, 3))[0]
        occupants = rng.choices((1, 2, 3, 4), weights=(82, 12, 4, 2))[0]
        driver = rng.choices(codes, weights=wts)[0]
        for n in range(1, occupants + 1):
            race = driver if n == 1 or rng.random() < 0.8 else rng.choices(codes, weights=wts)[0]
            searched = rng.random() < search.get(race, s_w * rng.uniform(0.7, 1.3))
            basis, found = "", ""
            if searched:
                basis = rng.choices([b[0] for b in _BASES], weights=[b[1] for b in _BASES])[0]
                p = next(b[2] for b in _BASES if b[0] == basis) or hit.get(race, h_w)
                found = "Y" if rng.random() < max(0.02, p) else "N"
            result = rng.choices(("Citation", "Warning", "Arrest", "No action"), weights=(45, 35, 8, 12))[0]
            code = "U" if rng.random() < unknown else race
            out.append([sid, n, 1, iso(when), hhmm, beat, reason, code, rng.choice("MF"), "Y" if searched else "N",
                        basis, found, result])
    resent = []
    for r in rng.sample([r for r in out if r[3].startswith(str(year))], round(len(out) * rng.uniform(0.02, 0.04))):
        first, again = list(r), list(r)
        again[2] = 2
        if r[9] == "Y" and rng.random() < 0.6:  # lab result came back after the first report
            first[11] = "N"
        else:  # the first submission left race uncoded
            first[7] = "U"
        r[:] = first
        resent.append(again)
    return out + resent


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.stops import analyse

    prof = profession(occupation)
    dirs = pick_labels(rng, _DIRS)
    cols = _EXPORT[rng.randrange(2)]
    city_name = rng.choice(_CITIES)
    year = rng.choice((2024, 2025))
    pop_ext = rng.choice(("csv", "xlsx"))
    P: dict[str, Any] = {
        "files": {"stops": f"{dirs['pd']}/exports/stop_data_person_level_{year}.csv",
                  "codebook": f"{dirs['pd']}/exports/race_codes.csv",
                  "population": f"{dirs['census']}/acs5_{year - 2}_race_hispanic_origin.{pop_ext}"},
        "columns": cols, "year": year, "min_events": rng.choice((20, 25, 30)), "reference": "White",
        "comparison": "Black", "discretionary": ["Consent", "Probable cause"],
        "groups": [{"group": g, "code": c, "census_row": row, "alone_row": alone} for g, c, row, alone in _GROUPS],
        "subject": f"{city_name} police stops, {year}", "labels": {}, "desk_dir": dirs["desk"],
        "mail_dir": dirs["mail"], "sheet": rng.choice(("Rates", "Rates by race", "Disparity")),
        "sheet_labels": pick_labels(rng, _SHEET),
        "deliverables": {"workbook": rng.choice(("stop_rates.xlsx", "stops_by_race.xlsx", "stop_disparity.xlsx")),
                         "memo": rng.choice(("fact_check_memo.docx", "stops_fact_check.docx"))}}
    for _ in range(40):
        city = _city(rng)
        rows = _year_rows(rng, city, year, targets)
        data = _data(P, city, rows)
        with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
            write_files(Path(tmp), data)
            P["claim_multiple"] = 0.0
            truth = analyse(tmp, P)
            ratio = truth["stop_ratio_raw"]
            below = [m for m in _MULTIPLES if m < ratio - 0.1]
            above = [m for m in _MULTIPLES if m > ratio + 0.1]
            pick = (below[-1] if below else None) if targets["premise"] else (above[0] if above else None)
            if pick is None or truth["decision"] != targets["decision"] or abs(truth["gap_raw"] or 0) < 1.5:
                continue
            P["claim_multiple"] = pick
            truth = analyse(tmp, P)
            singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
        break
    else:
        raise DegenerateTask("no draw in 40 hit the targeted answers away from the boundaries")
    keys = ("persons", "ref_stop_rate", "cmp_hit", "ref_hit")
    where = {"stops": ("data", "multi-person stops: the unit is the person stopped, not the stop"),
             "amended": ("data", "re-sent records: only the latest record_version counts"),
             "out_of_year": ("email", f"the export starts on 1 December {year - 1}; only {year} stops count"),
             "race_alone": ("memo", "denominators are the census 'not Hispanic or Latino' rows, not the 'alone' rows"),
             "all_searches": ("memo", "the outcome test uses discretionary searches (consent, probable cause) only")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k} for k, nf in singles.items()
             if any(nf[x] is not None and truth[x] is not None and abs(nf[x] - truth[x]) > 0.25 for x in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    labels["suppressed"] += f" (fewer than {P['min_events']} events)"
    P["labels"] = labels
    writers, roles = _workspace(rng, P, city_name, data, truth)
    prompt = _prompt(rng, P, prof, city_name, writers)
    return Draft(subject=f"Police-stop disparity check, {city_name} {year}", instructions=prompt, files=writers,
                 roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="city 120k-260k; 3,500-6,500 persons stopped, 1-4 per stop (82/12/4/2 %); stop rate "
                               "multiples B 1.6-3.6, H 1.1-1.7 of W; search W 4-7 %, B x1.8-3.0; discretionary hit "
                               "W 30-42 %, B 18-25 pts lower or within 4; one month of prior-year rows; 2-4 % re-sent "
                               "records")


def _data(P: dict[str, Any], city: dict[str, Any], rows: list[list[Any]]) -> dict[str, Any]:
    F, C = P["files"], P["columns"]
    head = [C[k] for k in ("stop", "person", "version", "date", "time", "beat", "reason", "race", "gender",
                           "searched", "basis", "found", "result")]
    book = [[c, g, desc] for g, c, desc in [(g, c, "officer-perceived race or ethnicity") for g, c, _, _ in _GROUPS]]
    book.append(["U", "Unknown", "not recorded or could not be determined"])
    pop_head = ["census_row", "estimate", "margin_of_error"]
    out: dict[str, Any] = {F["stops"]: lambda p: write_csv(p, head, rows),
                           F["codebook"]: lambda p: write_csv(p, ["code", "group", "description"], book)}
    if F["population"].endswith(".xlsx"):
        out[F["population"]] = lambda p: write_xlsx(p, [("ACS 5-year", pop_head, city["rows"])])
    else:
        out[F["population"]] = lambda p: write_csv(p, pop_head, city["rows"])
    return out


def _standards(P: dict[str, Any]) -> list[str]:
    return [
        "Data desk standards for police stop analyses (current; replaces the 2021 stop-data guidelines)",
        "- Unit: the person stopped. The department reports one row per person per stop; a stop with a driver and two "
        "passengers is three persons stopped. Count persons, not stop incidents, in every rate.",
        "- Records: a record re-sent by the records unit carries a higher record_version for the same stop and "
        "person; only the latest version counts.",
        f"- Period: stops dated in calendar {P['year']} (1 January to 31 December).",
        "- Groups: the officer-perceived race or ethnicity code in the export, mapped by the department's codebook. "
        "Unknown race stays in the totals of persons and stops but gets no row and no rate (no population); every "
        "group named below gets a row.",
        "- Denominators: residents from the census table in the folder, one row per group: "
        + "; ".join(f"{g['group']} = '{g['census_row']}'" for g in P["groups"])
        + ". The stop data code Hispanic as its own group, so every other group uses its 'not Hispanic or Latino' "
        "row; the 'alone' rows include Hispanic residents and are not used.",
        "- Stop rate = persons stopped / residents x 1,000; search rate = persons searched / residents x 1,000. "
        f"Ratios are a group's unrounded rate divided by the unrounded {P['reference']} rate (the reference group).",
        "- Outcome test: the hit rate is the share of discretionary searches (search basis "
        + " or ".join(P["discretionary"]) + ") that found contraband or evidence. Incident-to-arrest, inventory "
        "and warrant searches are not the officer's choice and stay out of the hit rate (they count as searches).",
        "- Intervals: Wilson score 95 % interval for each hit rate (z = 1.96). A group's hit rate is "
        f"significantly below the {P['reference']} rate only when its upper bound is below the "
        f"{P['reference']} lower bound (the intervals do not overlap).",
        f"- Suppression: a rate resting on fewer than {P['min_events']} events is not published (stop rate and its "
        "ratio: persons stopped; search rate and its ratio: persons searched; hit rate and interval: discretionary "
        "searches). Count each suppressed rate once (a group can have up to three).",
        "- Rounding: half up; rates per 1,000 to 1 decimal place, ratios to 2, hit rates and bounds in per cent to 1.",
        "- Claims: a 'more than N times' claim holds when the unrounded ratio is above N."]


def _workspace(rng: random.Random, P: dict[str, Any], city: str, data: dict[str, Any],
               truth: Facts) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    y, pd_dir = P["year"], P["files"]["stops"].split("/")[0]
    desk, mail, census = P["desk_dir"], P["mail_dir"], P["files"]["population"].split("/")[0]
    sent = iso(dt.date(y + 1, 2, rng.randint(3, 20)))
    editor, reporter = person(rng), person(rng)
    add(f"{desk}/standards/stop_analysis_standards.docx", "policy",
        lambda p: write_docx(p, "Data desk - standards for police stop analyses", _standards(P)))
    add(f"{desk}/standards/archive/stop_data_guidelines_2021.pdf", "stale", lambda p: write_pdf(
        p, "Stop-data guidelines (2021, superseded)", [
            "Count stop incidents (one per stop id) by the driver's recorded race.",
            "Use the census 'alone' race rows as denominators.",
            "Hit rate: contraband found in all searches.",
            "Superseded by the current data desk standards; kept for the record of earlier stories."]))
    add(f"{pd_dir}/annual_report_{y}_excerpt.pdf", "reference", lambda p: write_pdf(
        p, f"{city} Police Department - Annual Report {y} (excerpt)", [
            f"In {y} officers conducted {truth['stops']:,} traffic and pedestrian stops involving "
            f"{truth['persons']:,} persons. Every person stopped is reported, drivers and passengers alike.",
            "The department reports perceived race under the state's stop-data law and publishes the person-level "
            "file on request.",
            "Searches found contraband or evidence in a substantial share of cases; the department reviews "
            "search practices annually."]))
    k = P["claim_multiple"]
    add(f"{desk}/drafts/stops_story_draft_v3.docx", "reference", lambda p: write_docx(p, "DRAFT - not for publication", [
        f"{city} police made {truth['stops']:,} stops in {y}, according to department records obtained by the "
        "newsroom.",
        f"Black residents were stopped at more than {_WORDS[k]} the rate of white residents ({k:g} times), the "
        "analysis found.",
        "Searches of Black residents turned up contraband less often than searches of white residents, a pattern "
        "researchers call the outcome test.",
        f"Reporter: {reporter}. Numbers to be checked by the data desk before publication."]))
    add(f"{mail}/{iso(dt.date(y + 1, 1, rng.randint(8, 25)))}_records_unit.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}, Records Unit", to=reporter, date=iso(dt.date(y + 1, 1, 28)),
                      subject=f"Public records request: stop data {y}",
                      body=f"Attached is the person-level stop file. The query ran from 1 December {y - 1} because "
                           "our fiscal reporting starts there, so the first month is last year. Each row is a person "
                           "(person 1 is the driver). Records corrected after review are re-sent with a higher "
                           "record_version; the codebook for the race codes is with the file.")))
    add(f"{mail}/{sent}_managing_editor.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{editor}, Managing Editor", to="data desk", date=sent, subject="Stops story - check before Sunday",
        body="Before this runs I want the stop and search rates by race per 1,000 residents, the ratios to white "
             "residents and the hit rates with intervals, done to our standards. The draft says Black residents were "
             f"stopped at more than {_WORDS[k]} the rate of white residents - does that stand?")))
    add(f"{census}/archive/census_2010_race.csv", "distractor", lambda p: write_csv(p, ["census_row", "count"], [
        ["Total population", rng.randint(90_000, 200_000)],
        ["White alone", rng.randint(60_000, 120_000)], ["Black or African American alone", rng.randint(15_000, 40_000)]]))
    beats = [[f"{d}{n}", {"N": "North", "E": "East", "S": "South", "W": "West"}[d], round(rng.uniform(1.2, 6.5), 1)]
             for d in "NESW" for n in range(1, 5)]
    add(f"{pd_dir}/beats_and_districts.xlsx", "distractor",
        lambda p: write_xlsx(p, [("Beats", ["beat", "district", "sq_miles"], beats)]))
    add(f"{pd_dir}/calls_for_service_{y}_monthly.csv", "distractor", lambda p: write_csv(
        p, ["month", "calls", "priority_1"], [[f"{y}-{m:02d}", rng.randint(4000, 7000), rng.randint(300, 700)]
                                               for m in range(1, 13)]))
    add(f"{desk}/style/numbers_style_note.pdf", "distractor", lambda p: write_pdf(p, "Style note - numbers", [
        "Spell out one to nine; use figures for 10 and above.", "Use 'per cent' in body text, % in tables.",
        "Avoid 'disproportionate' without a stated comparison group."]))
    add(f"{desk}/meetings/{sent}_desk_meeting.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="stops story", people=[editor, reporter, person(rng)], date=sent)))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], prof: Any, city: str, writers: dict[str, Any]) -> str:
    L, D, W = P["labels"], P["deliverables"], P["sheet_labels"]
    r1, r2, pc = "per 1,000 residents, 1 decimal place", "2 decimal places", "per cent, 1 decimal place"
    memo_labels = [(L["persons"], "whole number"), (L["stops"], "whole number"), (L["cmp_stop_rate"], r1),
                   (L["ref_stop_rate"], r1), (L["stop_ratio"], r2), (L["cmp_search_rate"], r1),
                   (L["ref_search_rate"], r1), (L["search_ratio"], r2), (L["cmp_hit"], pc), (L["cmp_low"], pc),
                   (L["cmp_high"], pc), (L["ref_hit"], pc), (L["ref_low"], pc), (L["ref_high"], pc),
                   (L["suppressed"], "whole number"), (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    return instructions(
        rng, prof=prof, requester=person(rng), role="Managing Editor", org=f"{city} newsroom",
        subject=f"Stops story fact-check, {P['year']}",
        purpose=rng.choice(("I need stop and search rates by race per 1,000 residents, the ratios and the hit rates "
                            "checked before the stops story runs.",
                            "please fact-check the stops story's numbers against the department's own file.",
                            "run the disparity numbers for the stops story to our standards before it goes out.")),
        about=f"the police department's person-level stop file for {P['year']}, its race codebook and the census "
              "population table",
        belief=f"The draft says Black residents were stopped at more than {_WORDS[P['claim_multiple']]} the rate of "
               "white residents; I want to know whether that stands before we print it.",
        table={"file": D["workbook"], "headers": [W[k] for k in _SHEET], "unit": "group in the standards"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(
            f"In {D['workbook']} that table is a sheet named {P['sheet']}; rates, ratios, hit rates and interval "
            "bounds are live formulas, and a suppressed rate says suppressed.",),
        policy=f"the data desk standards in {P['desk_dir']}/standards/", files=sorted(writers))


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck

    D, L, W = P["deliverables"], P["labels"], P["sheet_labels"]
    book, memo, sheet = D["workbook"], D["memo"], P["sheet"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def cells(key: str, places: int | None, groups: Any = None) -> list[tuple[str, Any]]:
        out = []
        for g in groups if groups is not None else facts["groups"]:
            v = g[key]
            if v is None:
                continue
            text = f"{v:.{places}f}" if places else f"{v}"
            out.append((f"{book} {sheet}: {g['group']} {W[key]} = {text}",
                        CellCheck(file=book, sheet=sheet, match={W["group"]: g["group"]}, column=W[key],
                                  value=float(v), tolerance=tol(places) if places else 0.0)))
        return out

    def num(key: str, places: int) -> tuple[str, Any]:
        return f"{memo}: {L[key]} = {facts[key]:.{places}f}", fld_num(memo, L[key], facts[key], places)

    def count(key: str) -> tuple[str, Any]:
        return f"{memo}: {L[key]} = {facts[key]}", FieldCheck(file=memo, label=L[key], number=float(facts[key]),
                                                               tolerance=0.0)

    def flag(key: str) -> tuple[str, Any]:
        return f"{L[key]}: {yes(facts[key])}", fld(memo, L[key], yes(facts[key]), ["yes", "no"])

    pair = [g for g in facts["groups"] if g["group"] in (P["reference"], P["comparison"])]
    out = [
        rubric("Counts persons stopped in the year (each person in a multi-person stop, latest record version)", 10, [
            count("persons"), count("stops"), *cells("stopped", None)]),
        rubric("Gives stop rates per 1,000 residents on the census rows the standards name", 10, [
            num("cmp_stop_rate", 1), num("ref_stop_rate", 1), *cells("stop_rate", 1)]),
        rubric("Gives the ratios to the reference group", 8, [
            num("stop_ratio", 2), num("search_ratio", 2), *cells("stop_ratio", 2)]),
        rubric("Gives search counts and search rates per 1,000 residents", 8, [
            num("cmp_search_rate", 1), num("ref_search_rate", 1), *cells("searched", None),
            *cells("search_rate", 1)]),
        rubric("Runs the outcome test on discretionary searches with Wilson 95 % intervals", 10, [
            num("cmp_hit", 1), num("cmp_low", 1), num("cmp_high", 1), num("ref_hit", 1), num("ref_low", 1),
            num("ref_high", 1), *cells("hit_rate", 1), *cells("ci_low", 1, pair), *cells("ci_high", 1, pair)]),
        rubric("Suppresses rates resting on too few events and counts them", 6, [
            count("suppressed"), *cells("tested", None)]),
        rubric("Says whether the outcome test shows a disparity", 8, [flag("decision"), num("cmp_high", 1),
                                                                       num("ref_low", 1)]),
        rubric("Settles the draft story's stop-rate claim", 8, [flag("premise"), num("stop_ratio", 2)]),
    ]
    if judgement:
        out.append(rubric("Explains the counting choices an editor needs to trust the figures", 6, [
            ("Says that persons, not stops, are counted, and how that differs from the draft", llm("explanation")),
            ("Says how re-sent records, the prior-year rows and the census rows were handled", llm("explanation")),
            ("States why only discretionary searches enter the hit rate and the suppression rule", llm("content"))]))
        out.append(rubric("Advises the desk on what can be printed", 6, [
            ("Says whether the draft's claim stands and what wording the numbers support", llm("reasoning")),
            ("Keeps to what stop data can show (benchmarking limits, no claims about intent)", llm("tone")),
            ("Is short and usable by an editor before publication", llm("writing"))]))
    return out


STOP_DISPARITY = Workflow(
    key="stop_disparity_check", family="stop_disparity",
    method="stop and search rates per 1,000 residents on census denominators, ratios to the reference group, the "
           "outcome test on discretionary searches with Wilson 95 % intervals and small-count suppression",
    professions=("reporters_and_correspondents",), solver="stops", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated police person-level stop export and census table (stated distributions)")
