"""A product-page A/B test readout for the catalogue review: the sample-ratio check first, then conversion on the
plan's primary metric, the two-proportion z test, the interval of the difference and the ship call against the
plan's minimum detectable effect, as a Markdown readout and two slides (online merchants).

An online shop's product-page test is generated from its test plan: baseline order conversion per visitor 6-10 %,
a planned split of 50/50 (two tasks in three) or 60/40, and the smallest MDE of 12, 15, 18 or 20 % relative whose
80 %-power sample (alpha 0.05, two-sided) is at most 22,000 visitors; the window holds that sample times 0.97-1.10.
The visitors per arm are the planned shares (normal noise, 0.6 of the binomial sd) or, for a test whose split broke,
the new page short by 3.5-5.5 %; converters are set exactly from a target z: 3.3-4.3 for a winner, -0.8-1.3 for a
flat test, 2.35-2.6 for a significant lift below the MDE. Each visitor has 1-3 sessions (80/15/5 %) on window days
weighted by weekday and hour; one session of a converter carries the order (8 % two orders; revenue lognormal around
60-140); add-to-cart in 10-16 % of other sessions. 8 % of visitors return after the window (5 % of those order).
Planted beside them: ramp-up days (2-3, before the window) at 10 % treatment, 250-700 bot sessions (72-82 % logged as
control, no orders), 50-140 QA visitors on IT's active networks (75-88 % on the new page, test orders at 45 % of
sessions, revenue 0), and 15-40 customers on a network IT retired before the launch. The superseded first plan read
add-to-cart per session from launch day with a smaller MDE. The requester quotes the testing tool's lift: the true
one (rounded to 0.1) when the premise is to hold, else the one with bots and QA traffic in.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed, a p-value sits near its threshold,
the lift sits within a point of the MDE, a false quote is within 0.6 points of the truth, or a planted trap moves
no graded figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import gzip
import io
import itertools
import math
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric
from ..professions import profession
from ..writers import write_csv
from .abtest_docs import prompt, workspace
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files

__all__ = ["AB_TEST_READOUT"]

_LABELS = {
    "n_a": ("Visitors, {c}", "{c} visitors", "Visitors in {c}"),
    "n_b": ("Visitors, {t}", "{t} visitors", "Visitors in {t}"),
    "chi2": ("SRM chi-square", "Sample-ratio chi-square", "Chi-square against the planned split"),
    "srm_p": ("SRM p-value", "Sample-ratio p-value", "p-value of the split check"),
    "srm": ("Sample ratio mismatch", "SRM detected", "Split off plan (SRM)"),
    "x_a": ("Converting visitors, {c}", "{c} converters", "Visitors with an order, {c}"),
    "x_b": ("Converting visitors, {t}", "{t} converters", "Visitors with an order, {t}"),
    "cr_a": ("Conversion rate, {c} (%)", "{c} conversion (%)", "Order conversion, {c} (%)"),
    "cr_b": ("Conversion rate, {t} (%)", "{t} conversion (%)", "Order conversion, {t} (%)"),
    "lift": ("Relative lift (%)", "Lift in conversion, relative (%)", "Relative change in conversion (%)"),
    "z": ("z statistic", "Two-proportion z", "z (pooled)"),
    "p": ("p-value (two-sided)", "Two-sided p-value", "p-value of the z test"),
    "ci_low": ("95% CI of the difference, lower (pp)", "Difference in conversion, 95% CI low (pp)",
               "Lower 95% limit of the difference (pp)"),
    "ci_high": ("95% CI of the difference, upper (pp)", "Difference in conversion, 95% CI high (pp)",
                "Upper 95% limit of the difference (pp)"),
    "decision": ("Ship the new page", "Recommend shipping {t}", "Roll out {t}"),
    "premise": ("Quoted lift of {claim} % stands", "The results page's {claim} % lift holds",
                "Lift of {claim} % confirmed"),
}
_SCHEMAS = (
    {"session": "session_id", "visitor": "visitor_id", "start": "session_start_utc", "variant": "variant",
     "device": "device", "country": "country", "ip": "ip_address", "agent": "user_agent", "pages": "pageviews",
     "atc": "add_to_cart", "orders": "orders", "revenue": "revenue"},
    {"session": "sid", "visitor": "client_id", "start": "started_at_utc", "variant": "experience",
     "device": "device_category", "country": "geo_country", "ip": "ip", "agent": "browser", "pages": "page_views",
     "atc": "atc_events", "orders": "transactions", "revenue": "revenue_usd"})
_ARMS = ({"control": "control", "treatment": "new_pdp", "name": "New page"},
         {"control": "A", "treatment": "B", "name": "Variant B"},
         {"control": "control", "treatment": "redesign", "name": "Redesign"})
_DIRS = {"analytics": ("analytics", "data/analytics", "bi"), "exp": ("experiments", "testing", "cro"),
         "it": ("it", "it_ops"), "mail": ("mail", "correspondence", "email")}
SHORTCUTS = ("bots", "internal", "retired", "sessions", "old_plan")
BOT_SIGNATURES = ["bot", "crawler", "spider", "headlesschrome", "python-requests", "curl/"]
_HUMAN_UA = ("Chrome/126.0 (Windows)", "Safari/17.4 (iPhone)", "Chrome/126.0 (Android)", "Firefox/127.0 (Windows)",
             "Edge/126.0 (Windows)", "Safari/17.4 (Macintosh)", "SamsungBrowser/25.0 (Android)", "Safari/17.4 (iPad)")
_BOT_UA = ("Googlebot/2.1", "bingbot/2.0", "AhrefsBot/7.0", "HeadlessChrome/121.0 (Linux)", "python-requests/2.31",
           "SemrushBot/7", "curl/8.4", "PetalBot")
_NETWORKS = [["203.0.113.0/27", "Head office (egress)", "active", "2021-03-01", ""],
             ["198.51.100.64/27", "Warehouse and QA bench", "active", "2022-09-12", ""],
             ["192.0.2.128/26", "Staff VPN", "active", "2023-01-20", ""],
             ["198.51.100.192/28", "Old studio office", "retired", "2019-05-02", "2025-06-30"]]


# ---- the independent computation: csv only ----------------------------------------------------------------------

def _ip_int(text: str) -> int:
    a, b, c, d = (int(x) for x in text.strip().split("."))
    return (a << 24) | (b << 16) | (c << 8) | d


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the folder without the solver's code: one pass over the export with csv, CIDR blocks
    as integer masks, visitors tallied in dicts, the tests written out."""
    folder, C = Path(folder), P["columns"]
    blocks = []
    for r in read_rows(folder / P["files"]["networks"]):
        if r["status"].strip().lower() == "active":
            base, bits = r["cidr"].strip().split("/")
            mask = (0xFFFFFFFF << (32 - int(bits))) & 0xFFFFFFFF
            blocks.append((_ip_int(base) & mask, mask))
    arm_of = {P["arms"]["control"]: 0, P["arms"]["treatment"]: 1}
    seen: dict[str, tuple[int, int]] = {}
    with gzip.open(folder / P["files"]["sessions"], "rt", encoding="utf-8", newline="") as fh:
        export = list(csv.DictReader(fh))
    for r in export:
        if not P["plan"]["start"] <= r[C["start"]][:10] <= P["plan"]["end"]:
            continue
        if any(s in r[C["agent"]].lower() for s in BOT_SIGNATURES):
            continue
        ip = _ip_int(r[C["ip"]])
        if any(ip & m == b for b, m in blocks) or r[C["variant"]].strip() not in arm_of:
            continue
        v = r[C["visitor"]].strip()
        old = seen.get(v, (arm_of[r[C["variant"]].strip()], 0))
        seen[v] = (old[0], max(old[1], int(float(r[C["orders"]]) > 0)))
    n = [sum(1 for a, _ in seen.values() if a == k) for k in (0, 1)]
    x = [sum(c for a, c in seen.values() if a == k) for k in (0, 1)]
    tot = n[0] + n[1]
    exp = [tot * P["split"]["control"] / 100, tot * P["split"]["treatment"] / 100]
    chi2 = (n[0] - exp[0]) ** 2 / exp[0] + (n[1] - exp[1]) ** 2 / exp[1]
    srm_p = math.erfc(math.sqrt(chi2 / 2))
    pa, pb = x[0] / n[0], x[1] / n[1]
    pool = (x[0] + x[1]) / tot
    z = (pb - pa) / math.sqrt(pool * (1 - pool) * (1 / n[0] + 1 / n[1]))
    p = math.erfc(abs(z) / math.sqrt(2))
    half = 1.96 * math.sqrt(pa * (1 - pa) / n[0] + pb * (1 - pb) / n[1])
    lift = (pb / pa - 1) * 100
    srm = srm_p < P["srm_alpha"]
    return {"n_a": n[0], "n_b": n[1], "x_a": x[0], "x_b": x[1], "chi2": rnd(chi2, 2), "srm_p": rnd(srm_p, 4),
            "srm": srm, "cr_a": rnd(pa * 100, 2), "cr_b": rnd(pb * 100, 2), "lift": rnd(lift, 2), "z": rnd(z, 2),
            "p": rnd(p, 4), "ci_low": rnd((pb - pa) * 100 - half * 100, 2), "ci_high": rnd((pb - pa) * 100 + half * 100, 2),
            "decision": not srm and p < P["alpha"] and lift >= P["plan"]["mde"] and lift > 0,
            "premise": rnd(lift, 1) >= P["claim"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _sample_size(p_a: float, mde: float, split: tuple[int, int]) -> int:
    """Visitors for 80 % power at alpha 0.05 two-sided to detect a relative lift of ``mde`` per cent."""
    p_b = p_a * (1 + mde / 100)
    var = p_a * (1 - p_a) / (split[0] / 100) + p_b * (1 - p_b) / (split[1] / 100)
    return math.ceil((1.959964 + 0.841621) ** 2 * var / (p_b - p_a) ** 2 / 100) * 100


def _design(rng: random.Random, targets: dict[str, bool]) -> dict[str, Any]:
    """Counts of the window's eligible visitors and converters per arm, set from the flavour of result drawn."""
    split = rng.choice(((50, 50), (50, 50), (60, 40)))
    p_a = rng.uniform(0.06, 0.10)
    mde, planned = next(((m, n) for m in (12, 15, 18, 20) if (n := _sample_size(p_a, m, split)) <= 22000),
                        (20, _sample_size(p_a, 20, split)))
    if planned > 22000:
        raise DegenerateTask("the planned sample is too large for the export")
    flavour = "win" if targets["decision"] else rng.choice(("srm", "flat", "small"))
    N = round(planned * rng.uniform(0.97, 1.10))
    e_b = N * split[1] / 100
    if flavour == "srm":
        n_b = round(e_b * (1 - rng.uniform(0.035, 0.055)))
    else:
        n_b = round(e_b + rng.gauss(0, 0.6 * math.sqrt(N * split[0] * split[1]) / 100))
    n_a = N - n_b
    x_a = round(n_a * p_a)
    se_rel = math.sqrt(p_a * (1 - p_a) * (1 / n_a + 1 / n_b)) / p_a
    z = {"win": (3.3, 4.3), "flat": (-0.8, 1.3), "small": (2.35, 2.6), "srm": (-0.5, 4.0)}[flavour]
    x_b = round(n_b * p_a * (1 + rng.uniform(*z) * se_rel))
    return {"split": split, "p_a": p_a, "mde": mde, "old_mde": mde - rng.choice((4, 5, 6)), "planned": planned,
            "n": (n_a, n_b), "x": (x_a, x_b), "flavour": flavour}


def _write_gz_csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    """A gzip-compressed csv as the warehouse unloads it (no timestamp in the gzip header: same rows, same bytes)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    path.write_bytes(gzip.compress(buf.getvalue().encode("utf-8"), compresslevel=6, mtime=0))


def _ip(rng: random.Random) -> str:
    return f"{rng.choice((24, 47, 67, 68, 71, 73, 76, 81, 86, 92, 98, 99, 108, 174))}.{rng.randint(0, 255)}." \
           f"{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def _sessions(rng: random.Random, d: dict[str, Any], cal: dict[str, dt.date], arms: dict[str, str]) -> list[list[Any]]:
    """The export's rows (schema order of _SCHEMAS): window visitors, ramp-up visitors, bots, QA traffic."""
    rows: list[list[Any]] = []
    sids = iter(rng.sample(range(10_000_000, 99_999_999), 60000))
    vids = iter(rng.sample(range(16**7, 16**8), 40000))
    win = [cal["start"] + dt.timedelta(days=k) for k in range((cal["end"] - cal["start"]).days + 1)]
    tail = [cal["end"] + dt.timedelta(days=k) for k in range(1, (cal["export"] - cal["end"]).days + 1)]
    ramp = [cal["launch"] + dt.timedelta(days=k) for k in range((cal["start"] - cal["launch"]).days)]
    every = ramp + win + tail
    median = rng.uniform(60, 140)
    hours = list(itertools.accumulate((1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 5, 5, 6, 6, 5, 5, 5, 6, 7, 8, 8, 7, 4, 2)))
    cum = {id(days): list(itertools.accumulate(1.25 if w.weekday() in (6, 0) else 1.0 for w in days))
           for days in (win, ramp)}
    agents = {dev: [u for u in _HUMAN_UA if (dev == "desktop") == ("Windows" in u or "Macintosh" in u)]
              for dev in ("mobile", "desktop", "tablet")}

    def stamp(day: dt.date) -> str:
        hour = rng.choices(range(24), cum_weights=hours)[0]
        return f"{day.isoformat()} {hour:02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"

    def session(vid: str, arm: str, day: dt.date, ip: str, ua: str, order: int, atc: int, revenue: float,
                pages: int, device: str, country: str) -> None:
        rows.append([f"s{next(sids)}", vid, stamp(day), arms[arm], device, country, ip, ua, pages, atc, order,
                     f"{revenue:.2f}"])

    def customer(arm: str, converts: bool, days: list[dt.date], ip: str | None = None, q_atc: float = 0.13) -> None:
        vid, device = f"{next(vids):08x}", rng.choices(("mobile", "desktop", "tablet"), weights=(62, 33, 5))[0]
        ua = rng.choice(agents[device])
        country, ip = rng.choices(("US", "CA", "GB", "AU"), weights=(80, 9, 7, 4))[0], ip or _ip(rng)
        k = rng.choices((1, 2, 3), weights=(80, 15, 5))[0]
        picked = sorted(rng.choices(days, cum_weights=cum[id(days)], k=k))
        buy = rng.randrange(k) if converts else -1
        for j, day in enumerate(picked):
            if j == buy:
                n = 2 if rng.random() < 0.08 else 1
                session(vid, arm, day, ip, ua, n, 1, sum(rng.lognormvariate(math.log(median), 0.5) for _ in range(n)),
                        rng.randint(3, 14), device, country)
            else:
                session(vid, arm, day, ip, ua, 0, int(rng.random() < q_atc), 0.0, rng.randint(1, 9), device, country)
        if days is win and tail and rng.random() < 0.08:  # a return visit after the window closed
            o = int(rng.random() < 0.05)
            session(vid, arm, rng.choice(tail), ip, ua, o, o, rng.lognormvariate(math.log(median), 0.5) if o else 0.0,
                    rng.randint(1, 9), device, country)

    q = {"control": rng.uniform(0.10, 0.14), "treatment": 0}
    q["treatment"] = q["control"] + rng.uniform(0.005, 0.03)
    retired = rng.randint(15, 40)
    for arm, n, x in (("control", d["n"][0], d["x"][0]), ("treatment", d["n"][1], d["x"][1])):
        conv = set(rng.sample(range(n), x))
        for i in range(n):
            ip = f"198.51.100.{rng.randint(193, 206)}" if rng.random() < retired / sum(d["n"]) else None
            customer(arm, i in conv, win, ip, q[arm])
    for _ in range(round(len(ramp) * sum(d["n"]) / len(win) * rng.uniform(0.9, 1.1))):
        customer("treatment" if rng.random() < 0.10 else "control", rng.random() < d["p_a"], ramp, q_atc=q["control"])
    share = rng.uniform(0.72, 0.82)
    for _ in range(rng.randint(250, 700)):
        ua = rng.choice(_BOT_UA)
        session(f"{next(vids):08x}", "control" if rng.random() < share else "treatment", rng.choice(every),
                f"{rng.choice((34, 35, 40, 52, 66, 157))}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
                ua, 0, int(rng.random() < 0.03), 0.0, rng.randint(15, 80), "desktop", "US")
    nets = ("203.0.113.", 1, 30), ("198.51.100.", 65, 94), ("192.0.2.", 129, 190)
    qa = rng.uniform(0.75, 0.88)
    for _ in range(rng.randint(50, 140)):
        pre, lo, hi = rng.choice(nets)
        vid, arm, ip = f"{next(vids):08x}", "treatment" if rng.random() < qa else "control", f"{pre}{rng.randint(lo, hi)}"
        ua, device = rng.choice(_HUMAN_UA), rng.choice(("desktop", "mobile"))
        for _ in range(rng.randint(1, 5)):
            o = int(rng.random() < 0.45)
            session(vid, arm, rng.choice(every), ip, ua, o, max(o, int(rng.random() < 0.5)), 0.0, rng.randint(2, 20),
                    device, "US")
    rows.sort(key=lambda r: r[2])
    return rows


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.abtest import analyse

    prof = dataclasses.replace(profession(occupation), occasions=(
        "the catalogue review is on Friday and the page is on the agenda",
        "the dev team wants to know this week whether to keep the new template",
        "the agency's retainer renewal depends on this test"))
    d = _design(rng, targets)
    dirs = pick_labels(rng, _DIRS)
    arms, schema = dict(rng.choice(_ARMS)), _SCHEMAS[rng.randrange(2)]
    launch = dt.date(2026, rng.randint(1, 9), rng.randint(1, 25))
    r, dur = rng.choice((2, 3)), rng.choice((14, 21))
    start = launch + dt.timedelta(days=r)
    end = start + dt.timedelta(days=dur - 1)
    cal = {"launch": launch, "start": start, "end": end, "export": end + dt.timedelta(days=rng.randint(3, 6))}
    test_id = f"PDP-{launch.year}-{rng.randint(3, 19):02d}"
    names = {"control": "Control", "treatment": arms["name"]}
    P: dict[str, Any] = {
        "test_id": test_id, "columns": schema, "arms": {"control": arms["control"], "treatment": arms["treatment"]},
        "arm_names": names, "split": {"control": d["split"][0], "treatment": d["split"][1]},
        "plan": {"start": start.isoformat(), "end": end.isoformat(), "mde": float(d["mde"])},
        "old_plan": {"start": launch.isoformat(), "end": (launch + dt.timedelta(days=dur - 1)).isoformat(),
                     "mde": float(d["old_mde"])},
        "launch": launch.isoformat(), "export_end": cal["export"].isoformat(), "planned_n": d["planned"],
        "bot_signatures": list(BOT_SIGNATURES), "srm_alpha": 0.001, "alpha": 0.05, "claim": 0.0, "dirs": dirs,
        "files": {"sessions": f"{dirs['analytics']}/exports/{test_id.lower()}_sessions_{launch:%Y%m%d}-"
                              f"{cal['export']:%Y%m%d}.csv.gz",
                  "networks": f"{dirs['it']}/network/internal_networks.csv"},
        "slide_titles": [f"{test_id}: is the test valid?", f"{test_id}: did {names['treatment'].lower()} win?"],
        "deliverables": {"memo": rng.choice((f"{test_id.lower()}_readout.md", "ab_test_readout.md", "readout.md")),
                         "slides": rng.choice(("catalogue_review_slides.pptx", f"{test_id.lower()}_slides.pptx"))}}
    rows = _sessions(rng, d, cal, P["arms"])
    head = [schema[k] for k in ("session", "visitor", "start", "variant", "device", "country", "ip", "agent", "pages",
                                "atc", "orders", "revenue")]
    data = {P["files"]["sessions"]: lambda p: _write_gz_csv(p, head, rows),
            P["files"]["networks"]: lambda p: write_csv(p, ["cidr", "site", "status", "added_on", "retired_on"],
                                                        _NETWORKS)}
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), data)
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
        tool = analyse(tmp, P, ("bots", "internal"))
    P["claim"] = rnd(truth["lift_raw"], 1) if targets["premise"] else rnd(tool["lift_raw"], 1)
    truth["premise"] = rnd(truth["lift_raw"], 1) >= P["claim"]
    if (truth["decision"], truth["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the drawn test misses a targeted answer")
    if 0.0002 < truth["srm_p_raw"] < 0.01 or 0.025 < truth["p_raw"] < 0.075 or abs(truth["lift_raw"] - d["mde"]) < 1:
        raise DegenerateTask("a p-value or the lift sits near its threshold")
    if not targets["premise"] and P["claim"] - rnd(truth["lift_raw"], 1) < 0.6:
        raise DegenerateTask("the quoted lift sits too near the recomputed one")
    keys = ("n_a", "n_b", "x_a", "x_b")
    where = {"bots": ("memo", "sessions matching the standards' bot signatures are not visitors"),
             "internal": ("data", "QA test orders from IT's active internal networks are excluded"),
             "retired": ("footnote", "a network IT has retired carries customers now and stays in"),
             "sessions": ("memo", "the plan's unit is the visitor, not the session"),
             "old_plan": ("memo", "revision 2 of the plan supersedes the first: window after the ramp-up, order "
                                  "conversion per visitor, the revised MDE")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k} for k, nf in singles.items()
             if any(nf[x] != truth[x] for x in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    claim = f"{P['claim']:+.1f}"
    P["labels"] = {k: v.format(c=names["control"], t=names["treatment"], claim=claim)
                   for k, v in pick_labels(rng, _LABELS).items()}
    writers, roles = workspace(rng, P, d, cal, data)
    text = prompt(rng, P, prof, writers)
    return Draft(subject=f"{test_id} product-page test readout", instructions=text, files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="baseline conversion 6-10 %; split 50/50 or 60/40; MDE 12-20 % with an 80 %-power "
                               "sample up to 22,000 visitors, window sample x0.97-1.10; converters from a target z "
                               "(winner 3.3-4.3, flat -0.8-1.3, below-MDE 2.35-2.6, broken split -3.5-5.5 % on the "
                               "new page); 1-3 sessions per visitor; 2-3 ramp-up days at 10 %; 250-700 bot "
                               "sessions; 50-140 QA visitors; 15-40 customers on a retired network")


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import FieldCheck

    D, L = P["deliverables"], P["labels"]
    memo, slides = D["memo"], D["slides"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def num(key: str, decimals: int, file: str = memo) -> tuple[str, Any]:
        return f"{file}: {L[key]} = {facts[key]:.{decimals}f}", fld_num(file, L[key], facts[key], decimals)

    def count(key: str, file: str = memo) -> tuple[str, Any]:
        return f"{file}: {L[key]} = {facts[key]}", FieldCheck(file=file, label=L[key], number=float(facts[key]),
                                                               tolerance=0.0)

    def flag(key: str, file: str = memo) -> tuple[str, Any]:
        return f"{file}: {L[key]}: {yes(facts[key])}", fld(file, L[key], yes(facts[key]), ["yes", "no"])

    out = [
        rubric("Counts the plan's visitors per arm: window after the ramp-up, bots and active internal networks out",
               10, [count("n_a"), count("n_b"), count("n_a", slides), count("n_b", slides)]),
        rubric("Checks the split against the plan (chi-square) before reading the result", 10, [
            num("chi2", 2), num("srm_p", 4), flag("srm"), flag("srm", slides)]),
        rubric("Measures order conversion per visitor, the plan's primary metric", 10, [
            count("x_a"), count("x_b"), num("cr_a", 2), num("cr_b", 2), num("cr_b", 2, slides)]),
        rubric("Runs the two-proportion z test and the 95 % interval of the difference", 10, [
            num("z", 2), num("p", 4), num("ci_low", 2), num("ci_high", 2), num("lift", 2)]),
        rubric("Makes the ship call by the plan's rule (valid split, significant, at least the MDE)", 8, [
            flag("decision"), flag("decision", slides), num("lift", 2, slides), num("p", 4, slides)]),
        rubric("Answers whether the quoted lift stands", 8, [flag("premise"), num("lift", 2)]),
    ]
    if judgement:
        out.append(rubric("Writes a readout the merchandising lead can act on", 6, [
            ("Says the split was checked first and what a mismatch would mean for the result", llm("explanation")),
            ("Says which traffic was excluded (bots, QA test orders) and which plan revision was used", llm("content")),
            ("States the call plainly with the lift, its interval and the plan's minimum effect", llm("writing"))]))
    return out


AB_TEST_READOUT = Workflow(
    key="ab_test_readout", family="experimentation",
    method="sample-ratio-mismatch chi-square against the planned split first; order conversion per visitor in the "
           "plan's window with bots and internal networks excluded; pooled two-proportion z test, Wald 95 % interval "
           "of the difference; ship call against the plan's minimum detectable effect",
    professions=("online_merchants",), solver="abtest", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated analytics session export (stated distributions)")
