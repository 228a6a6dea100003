"""Access-log error review after user complaints: 5xx rate and p95 latency by endpoint, and the scrapers to block at
the WAF (web administrators).

Three calendar days of one web server's access log in the combined format with a request-time field (Apache ``%D``
in microseconds or nginx ``$request_time`` in seconds, as the server config's log format says) are generated in
the server's local offset (UTC-7 to UTC+10), rotated daily: ``access.log.2.gz`` (day 1), ``access.log.1`` and
``access.log``. Ordinary traffic is 5,000-6,500 requests a day from 500 IPv4 and 90 IPv6 documentation addresses
(client weights Pareto, shape 1.2), hours weighted by a diurnal profile (night 0.25, business hours 1.6), over 11
endpoints with fixed traffic shares (0.8-25 %); response times are log-normal per endpoint (median 25-900 ms, sigma
0.55, three times slower for a 5xx). 5xx responses (500/502/503/504 alike) come at 0.2-1.2 % of an endpoint's
requests, at 2.5-4.5 % on one endpoint and at 9 % on a rare admin endpoint (below the runbook's 200-request minimum).
Two uptime monitors (one IPv6) poll /healthz every 5 minutes and an allow-listed link checker makes 1.3-1.8 x the
threshold in 55 seconds each night. Scrapers: one IPv4 active on day 1 only (the gzipped log), one IPv6, 0-2 more
IPv4 (1-2 bursts of 2-5 minutes at 1.25-2.0 x the threshold a minute) and one that spreads threshold + 4-15 requests
evenly over 60 seconds across a minute boundary; an API partner makes exactly the threshold in 40 seconds once. One
announced maintenance window (30-75 minutes between 01:00 and 04:00 local, stated in UTC) adds 503s on one service's
endpoint, enough to lift it 1.2-3 points above the truly worst endpoint if counted. The scraper threshold is 60, 90
or 120 requests in any 60 s; the SLO is a round figure 5-50 % above or 5-40 % below the overall 5xx rate; the old
blocklist holds 3-5 IPv4 addresses and one IPv6 that never appear in the logs.

Failure behaviour: ``draw`` raises DegenerateTask when the planted worst endpoint is not the worst, the addresses
above the threshold are not exactly the planted scrapers, the top two endpoints' 5xx rates are within 0.1 point or
a planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not this
workflow's.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
import gzip
import math
import random
import tempfile
import zlib
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files

__all__ = ["ACCESS_LOG_REVIEW"]

# path template, method, share of ordinary traffic, median ms; "#" is a numeric id
_ENDPOINTS = (("/", "GET", 14, 60), ("/search?q=@", "GET", 12, 240), ("/products/#", "GET", 25, 90),
              ("/products/#/reviews", "GET", 6, 150), ("/api/v2/cart", "POST", 8, 110), ("/api/v2/orders/#", "GET", 4, 130),
              ("/checkout", "POST", 4, 380), ("/account/login", "POST", 5, 200), ("/static/js/app.3f9c2b.js", "GET", 12, 25),
              ("/api/v2/recommendations", "GET", 9, 420), ("/admin/reports/export", "GET", 0.8, 900))
_WORST = ("/search", "/api/v2/recommendations", "/products/{id}/reviews")
_MAINT = ("/api/v2/orders/{id}", "/checkout", "/api/v2/cart")
_AGENTS = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
           "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
           "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
           "ShopApp/4.12 (Android 14)", "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0")
_BOTS = ("python-requests/2.32.3", "Mozilla/5.0 (compatible; PriceHarvest/2.1; +https://priceharvest.example/bot)",
         "Scrapy/2.11 (+https://scrapy.example)", "Go-http-client/1.1", "curl/8.5.0")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_LABELS = {
    "requests": ("Requests analysed", "Requests in scope", "Requests counted"),
    "overall": ("Overall 5xx rate (%)", "Site-wide 5xx rate (%)", "5xx rate, all endpoints (%)"),
    "worst": ("Worst endpoint", "Endpoint with the highest 5xx rate", "Top error endpoint"),
    "worst_rate": ("Worst endpoint 5xx rate (%)", "5xx rate of that endpoint (%)", "Highest endpoint 5xx rate (%)"),
    "p95": ("Worst endpoint p95 latency (ms)", "p95 response time of that endpoint (ms)", "p95 latency, worst endpoint (ms)"),
    "count": ("Addresses to block", "IPs on the blocklist", "Scraper addresses blocked"),
    "decision": ("Within the error-rate SLO", "5xx rate within SLO", "Error-rate objective met"),
    "premise": ("{ep} is the worst endpoint", "The ticket's endpoint {ep} is the worst", "Errors concentrated on {ep}"),
}
_OUT = {"ip": ("ip", "address", "client_ip"), "action": ("action", "waf_action"),
        "peak": ("peak_requests_60s", "max_requests_per_60s"), "reason": ("reason", "comment")}
_DIRS = {"logs": ("logs/web01", "var/log/web01", "servers/web01/logs"), "ops": ("ops", "operations", "webops"),
         "mon": ("monitoring", "observability"), "sec": ("security/waf", "waf", "edge/waf")}
SHORTCUTS = ("health_checks", "ipv4_only", "no_gz", "maintenance", "timezone", "time_units", "calendar_minute",
             "old_blocklist")


# ---- the independent computation: plain string handling, csv and openpyxl -------------------------------------

def _parse(text: str) -> tuple[str, int, str, int, float] | None:
    """(client, UTC epoch second, target, status, request time) of one combined-format line, split on its quotes."""
    q = text.split('"')
    if len(q) != 7:
        return None
    head, tail = q[0].split(), q[2].split()
    stamp, off = head[3].lstrip("["), head[4].rstrip("]")
    d, mon, rest = stamp.split("/")
    y, hh, mm, ss = rest.split(":")
    local = dt.datetime(int(y), _MONTHS.index(mon) + 1, int(d), int(hh), int(mm), int(ss))
    sign = -1 if off[0] == "-" else 1
    utc = local - sign * dt.timedelta(hours=int(off[1:3]), minutes=int(off[3:5]))
    epoch = int((utc - dt.datetime(1970, 1, 1)).total_seconds())
    return head[0], epoch, q[1].split()[1], int(tail[0]), float(q[6])


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: lines split on their quotes, offsets
    applied by hand, a two-pointer count per address, the nearest rank by integer arithmetic."""
    folder, F = Path(folder), P["files"]
    rows = []
    for rel in F["logs"]:
        raw = gzip.decompress((folder / rel).read_bytes()) if rel.endswith(".gz") else (folder / rel).read_bytes()
        rows += [r for ln in raw.decode("utf-8").splitlines() if (r := _parse(ln))]
    skip = {r[P["allowlist_column"]].strip().lower() for r in read_rows(folder / F["allowlist"], P["allowlist_sheet"])}
    epoch = dt.datetime(1970, 1, 1)
    lo, hi = (int((dt.datetime.fromisoformat(t) - epoch).total_seconds()) for t in P["maintenance"])
    rows = [r for r in rows if r[0].lower() not in skip and not (r[3] == 503 and lo <= r[1] < hi)]
    factor = {"us": 1e-3, "ms": 1.0, "s": 1e3}[P["time_unit"]]
    eps: dict[str, list[tuple[int, float]]] = {}
    for r in rows:
        path = r[2].partition("?")[0]
        key = "/".join("{id}" if p and p.strip("0123456789") == "" else p for p in path.split("/"))
        eps.setdefault(key, []).append((r[3], r[4] * factor))
    best: tuple[float, str, int] = (-1.0, "", 0)
    for key, reqs in eps.items():
        bad = sum(s >= 500 for s, _ in reqs)
        if len(reqs) >= P["min_requests"] and (bad / len(reqs) > best[0] or (bad / len(reqs) == best[0] and key < best[1])):
            best = (bad / len(reqs), key, bad)
    worst = eps[best[1]]
    times = sorted(ms for _, ms in worst)
    p95 = times[-(-95 * len(times) // 100) - 1]
    errors = sum(s >= 500 for reqs in eps.values() for s, _ in reqs)
    by_ip: dict[str, list[int]] = {}
    for r in rows:
        by_ip.setdefault(r[0], []).append(r[1])
    blocked = []
    for ip, ts in sorted(by_ip.items()):
        ts.sort()
        peak = max(bisect.bisect_right(ts, t + 59) - k for k, t in enumerate(ts))
        if peak > P["threshold"]:
            blocked.append({"ip": ip, "peak": peak})
    overall = rnd(100 * errors / len(rows), 2)
    return {"requests": len(rows), "overall_rate": overall, "worst": best[1], "worst_rate": rnd(100 * best[2] / len(worst), 2),
            "worst_p95": rnd(p95, 1), "blocked": blocked, "block_count": len(blocked),
            "decision": overall <= P["slo"], "premise": best[1] == P["named_endpoint"]}


# ---- drawing a task ----------------------------------------------------------------------------------------

def _target(rng: random.Random, template: str) -> str:
    words = ("oak table", "linen", "espresso", "lamp", "rug", "kettle", "vase", "desk chair")
    return template.replace("#", str(rng.randint(1000, 99999))).replace("@", rng.choice(words).replace(" ", "+"))


def _world(rng: random.Random) -> dict[str, Any]:
    v4 = [f"{net}.{h}" for net in ("192.0.2", "198.51.100", "203.0.113") for h in range(1, 255)]
    rng.shuffle(v4)
    v6 = sorted({f"2001:db8:{rng.randint(0x1000, 0xffff):x}:{rng.randint(0x1000, 0xffff):x}::{rng.randint(0x10, 0xff):x}"
                 for _ in range(110)})
    rng.shuffle(v6)
    special = {"gz": v4.pop(), "cal": v4.pop(), "partner": v4.pop(), "linkcheck": v4.pop(), "mon4": v4.pop(),
               "v6": v6.pop(), "mon6": v6.pop(), "extra": [v4.pop() for _ in range(rng.randint(0, 2))],
               "old": [v4.pop() for _ in range(rng.randint(3, 5))] + [v6.pop()]}
    return {"clients": v4[:500] + v6[:90], "special": special,
            "offset": rng.choice((-420, -300, -240, 60, 120, 330, 600)),
            "day0": dt.date(2026, rng.randint(2, 11), rng.randint(1, 25))}


_HOURS = [0.25] * 6 + [0.6, 1.0] + [1.6] * 10 + [1.2, 1.0, 0.8, 0.6, 0.4, 0.3]


def _ordinary(rng: random.Random, w: dict[str, Any], worst: str, slow: float) -> list[tuple[Any, ...]]:
    """Requests as (local second from the window start, client, method, target, status, ms, agent)."""
    eps = list(_ENDPOINTS)
    base = {e[0]: rng.uniform(0.002, 0.012) for e in eps}
    weights = [rng.paretovariate(1.2) for _ in w["clients"]]
    out = []
    for day in range(3):
        n = rng.randint(5000, 6500)
        hours = rng.choices(range(24), _HOURS, k=n)
        picks = rng.choices(eps, [e[2] for e in eps], k=n)
        who = rng.choices(w["clients"], weights, k=n)
        for h, (tpl, method, _, med), ip in zip(hours, picks, who, strict=True):
            key = tpl.split("?")[0].replace("#", "{id}")
            p5 = 0.09 if key == "/admin/reports/export" else slow if key == worst else base[tpl]
            status = rng.choice((500, 502, 503, 504)) if rng.random() < p5 else rng.choice((200,) * 12 + (304, 301, 404))
            ms = med * math.exp(rng.gauss(0, 0.55)) * (3 if status >= 500 else 1)
            out.append((day * 86400 + h * 3600 + rng.randrange(3600), ip, method, _target(rng, tpl), status, ms,
                        rng.choice(_AGENTS)))
    return out


def _burst(rng: random.Random, ip: str, start: int, n: int, span: int, agent: str) -> list[tuple[Any, ...]]:
    return [(start + (k * span) // n, ip, "GET", _target(rng, rng.choice(("/products/#", "/search?q=@"))), 200,
             rng.uniform(40, 160), agent) for k in range(n)]


def _planted(rng: random.Random, w: dict[str, Any], N: int) -> list[tuple[Any, ...]]:
    S, out = w["special"], []

    def bursts(ip: str, days: tuple[int, ...]) -> None:
        agent = rng.choice(_BOTS)
        for _ in range(rng.randint(1, 2)):
            minutes = rng.randint(2, 5)
            start = rng.choice(days) * 86400 + rng.randint(3600, 80000)
            out.extend(_burst(rng, ip, start, int(minutes * N * rng.uniform(1.25, 2.0)), minutes * 60, agent))

    bursts(S["gz"], (0,))
    bursts(S["v6"], (1, 2))
    for ip in S["extra"]:
        bursts(ip, (1, 2))
    minute = rng.choice((1, 2)) * 1440 + rng.randint(60, 1380)
    out += _burst(rng, S["cal"], minute * 60 + 30, N + rng.randint(4, 15), 60, rng.choice(_BOTS))
    out += _burst(rng, S["partner"], rng.randint(0, 2) * 86400 + rng.randint(3600, 80000), N, 40,
                  "PartnerSync/3.0 (+https://partner.example/sync)")
    for day in range(3):
        out += _burst(rng, S["linkcheck"], day * 86400 + 3 * 3600 + rng.randint(0, 1800), int(N * rng.uniform(1.3, 1.8)),
                      55, "LinkCheck/1.4 (internal)")
        for k in range(288):
            for ip, ua in ((S["mon4"], "UptimeWatch/2.0"), (S["mon6"], "PingSentinel/5.3")):
                out.append((day * 86400 + k * 300 + (7 if ip == S["mon6"] else 0), ip, "GET", "/healthz", 200,
                            rng.uniform(2, 6), ua))
    return out


def _logs(P: dict[str, Any], w: dict[str, Any], reqs: list[tuple[Any, ...]]) -> dict[str, Any]:
    """Writers of the three rotated logs (the oldest day gzipped), lines in time order."""
    o, base, stamps = w["offset"], dt.datetime.combine(w["day0"], dt.time()), {}
    zone = f"{'-' if o < 0 else '+'}{abs(o) // 60:02d}{abs(o) % 60:02d}"
    days: list[list[str]] = [[], [], []]
    for sec, ip, method, target, status, ms, agent in sorted(reqs, key=lambda r: (r[0], r[1])):
        if sec not in stamps:
            t = base + dt.timedelta(seconds=sec)
            stamps[sec] = f"{t.day:02d}/{_MONTHS[t.month - 1]}/{t.year}:{t:%H:%M:%S} {zone}"
        rt = str(round(ms * 1000)) if P["time_unit"] == "us" else f"{ms / 1000:.3f}"
        ref = "-" if target.startswith(("/api", "/healthz")) else f"https://{P['host']}/"
        size = 0 if status in (304, 301) else 2 if target == "/healthz" else 180 + zlib.crc32(target.encode()) % 40000
        days[sec // 86400].append(f'{ip} - - [{stamps[sec]}] "{method} {target} HTTP/1.1" {status} {size} '
                                  f'"{ref}" "{agent}" {rt}')
    text = ["\n".join(d) + "\n" for d in days]
    packed = gzip.compress(text[0].encode(), mtime=0)
    F = P["files"]["logs"]
    return {F[0]: lambda p: p.write_bytes(packed), F[1]: lambda p: write_text(p, text[1]),
            F[2]: lambda p: write_text(p, text[2])}


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.accesslog import analyse

    prof = dataclasses.replace(profession(occupation), occasions=(
        "customers have been complaining about errors and slow pages since the weekend",
        "the incident review is on Thursday", "the WAF change window closes tomorrow"),
        orgs=("an online retailer", "a home-goods web shop", "a ticketing marketplace"))  # the logs are a store's
    w, dirs = _world(rng), pick_labels(rng, _DIRS)
    N = rng.choice((60, 90, 120))
    apache = rng.random() < 0.5
    worst, maint = rng.choice(_WORST), rng.choice(_MAINT)
    reqs = _ordinary(rng, w, worst, rng.uniform(0.025, 0.045)) + _planted(rng, w, N)
    # the maintenance window: local 01:00-04:00 on day 2 or 3, stated in UTC
    m_start = rng.randint(1, 2) * 86400 + rng.randint(3600, 4 * 3600) // 300 * 300
    m_len = rng.choice((30, 45, 60, 75)) * 60
    local0 = dt.datetime.combine(w["day0"], dt.time())
    utc = [local0 + dt.timedelta(seconds=s, minutes=-w["offset"]) for s in (m_start, m_start + m_len)]
    logs = [f"{dirs['logs']}/access.log.2.gz", f"{dirs['logs']}/access.log.1", f"{dirs['logs']}/access.log"]
    P: dict[str, Any] = {
        "files": {"logs": logs, "allowlist": f"{dirs['mon']}/healthcheck_allowlist.xlsx",
                  "old_blocklist": f"{dirs['sec']}/blocklist_{(w['day0'] - dt.timedelta(days=rng.randint(70, 150))).isoformat()}.csv"},
        "allowlist_sheet": "Monitors", "allowlist_column": "source_address", "old_column": "address",
        "time_unit": "us" if apache else "s", "server": "apache" if apache else "nginx", "threshold": N,
        "min_requests": 200, "maintenance": [t.isoformat(timespec="minutes") for t in utc], "slo": 0.0,
        "named_endpoint": worst, "host": rng.choice(("shop.example.com", "store.example.net", "www.example.org")),
        "action": rng.choice(("block", "deny")), "ops_dir": dirs["ops"],
        "maint_service": {"/api/v2/orders/{id}": "orders-api", "/checkout": "checkout", "/api/v2/cart": "cart-api"}[maint], "labels": {}, "out_columns": pick_labels(rng, _OUT), "decoys": [],
        "deliverables": {"memo": rng.choice(("incident_note.md", "access_log_review.md", "error_review_note.md")),
                         "blocklist": rng.choice(("waf_blocklist.csv", "blocklist_upload.csv", "waf_deny_list.csv"))}}
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)

        def write(files: dict[str, Any]) -> None:
            write_files(root, files)

        write({**_logs(P, w, reqs), **_lists(P, w)})
        first = analyse(tmp, P)
        by = {t["endpoint"]: t for t in first["endpoints"]}
        if first["worst"] != worst or maint not in by:
            raise DegenerateTask("the planted worst endpoint is not the worst")
        e = by[maint]
        goal = first["worst_rate"] / 100 + rng.uniform(0.012, 0.03)
        k = max(25, math.ceil((goal * e["requests"] - e["errors"]) / (1 - goal)))
        tpl = next(t for t in _ENDPOINTS if t[0].split("?")[0].replace("#", "{id}") == maint)
        clients = w["clients"]
        reqs += [(m_start + rng.randrange(m_len), rng.choice(clients), tpl[1], _target(rng, tpl[0]), 503,
                  rng.uniform(1, 4), rng.choice(_AGENTS)) for _ in range(k)]
        data = {**_logs(P, w, reqs), **_lists(P, w)}
        write(data)
        truth = analyse(tmp, P)
        S = w["special"]
        planted = sorted([S["gz"], S["v6"], S["cal"], *S["extra"]])
        if [b["ip"] for b in truth["blocked"]] != planted:
            raise DegenerateTask("the addresses above the threshold are not the planted scrapers")
        top = next(t for t in truth["endpoints"] if t["endpoint"] == worst)
        if truth["worst"] != worst or 100 * (top["raw"] - truth["second_raw"]) < 0.1:
            raise DegenerateTask("the top two endpoints' 5xx rates are too close")
        ov = truth["overall_rate"]
        P["slo"] = nice_between(ov * 1.05, ov * 1.5, 2) if targets["decision"] else nice_between(ov * 0.6, ov * 0.95, 2)
        P["named_endpoint"] = worst if targets["premise"] else maint
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    P["decoys"] = sorted({S["linkcheck"], S["partner"], *S["old"]} - set(planted))
    keys = ("requests", "overall_rate", "worst", "worst_rate", "worst_p95", "blocked")
    where = {"health_checks": ("data", "allow-listed monitors are left out and never blocked"),
             "ipv4_only": ("data", "IPv6 clients are in the same logs"),
             "no_gz": ("data", "the oldest day of the window is in the gzipped rotated log"),
             "maintenance": ("memo", "503s of the announced maintenance window are excluded"),
             "timezone": ("footnote", "the maintenance window is stated in UTC, the log in local time"),
             "time_units": ("header", "the log format's request-time field is not in milliseconds"),
             "calendar_minute": ("memo", "the threshold applies to any 60-second window, not per clock minute"),
             "old_blocklist": ("memo", "the previous blocklist has expired and is not carried over")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s} for s, f in singles.items()
             if any(f[x] != truth[x] for x in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(ep=P["named_endpoint"])
    P["labels"] = labels
    writers, roles = _workspace(rng, P, w, data)
    L, D, C = labels, P["deliverables"], P["out_columns"]
    memo_labels = [(L["requests"], "whole number"), (L["overall"], "percent, 2 decimal places"),
                   (L["worst"], "endpoint as the runbook normalises it"), (L["worst_rate"], "percent, 2 decimal places"),
                   (L["p95"], "milliseconds, 1 decimal place"), (L["count"], "whole number"),
                   (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role="Web Operations Manager", org=rng.choice(prof.orgs),
        subject="5xx errors, latency and scrapers on " + P["host"],
        purpose=rng.choice(("I need the 5xx rate and p95 latency by endpoint, and who's scraping us.",
                            "please review the access logs: error rate and p95 by endpoint, and the scrapers to block.",
                            "can you go through the access logs for the incident note and give me a WAF blocklist?")),
        about="the web server's access logs for the last three days (rotated), its config, the maintenance calendar "
              "and the monitor allow-list",
        belief=f"On-call thinks it's all {P['named_endpoint']} - that's where the errors are. Please confirm.",
        table={"file": D["blocklist"], "headers": [C["ip"], C["action"], C["peak"], C["reason"]],
               "unit": "address to block"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"In {D['blocklist']}, {C['action']} is {P['action']} on every row and {C['peak']} is the "
                            "most requests the address made in any 60-second window; it is the WAF upload, so list "
                            "only the addresses this review finds.",
                            f"In {D['memo']}, after its opening lines, add the 5xx rate and p95 by endpoint and say "
                            "how monitors, the maintenance window and the rotated logs were handled."),
        policy=f"the access-log review runbook in {dirs['ops']}/", files=sorted(writers))
    return Draft(subject="Access-log error review and WAF blocklist", instructions=prompt, files=writers, roles=roles,
                 params=P, traps=traps, targets=dict(targets),
                 distributions="3 days, 5,000-6,500 requests a day over 11 endpoints; 500 IPv4 + 90 IPv6 clients "
                               "(Pareto 1.2); log-normal latency (median 25-420 ms, sigma 0.55); 5xx 0.2-1.2 %, one "
                               "endpoint 2.5-4.5 %; 2 monitors every 5 min + a nightly link checker; 3-5 scrapers at "
                               "1.25-2 x the threshold; a 30-75 min maintenance window of 503s")


def _lists(P: dict[str, Any], w: dict[str, Any]) -> dict[str, Any]:
    S, F = w["special"], P["files"]
    old_day = F["old_blocklist"].rsplit("_", 1)[1][:10]
    return {
        F["allowlist"]: lambda p: write_xlsx(p, [(P["allowlist_sheet"], ["monitor", "source_address", "owner", "purpose"], [
            ["UptimeWatch", S["mon4"], "platform team", "/healthz every 5 minutes"],
            ["PingSentinel", S["mon6"], "platform team", "/healthz every 5 minutes (IPv6 path)"],
            ["LinkCheck", S["linkcheck"], "web content team", "nightly broken-link crawl"]])]),
        F["old_blocklist"]: lambda p: write_csv(p, ["address", "action", "added", "expires", "reason"], [
            [ip, "block", old_day, (dt.date.fromisoformat(old_day) + dt.timedelta(days=30)).isoformat(),
             "scraping (review of " + old_day + ")"] for ip in S["old"]])}


def _runbook(P: dict[str, Any], current: bool) -> list[str]:
    if not current:
        return ["Log review procedure (2024, superseded)",
                "- The request time at the end of each log line is in milliseconds.",
                "- Count every 5xx response in the error rate.",
                f"- A scraper is an address with more than {P['threshold'] + 30} requests in one clock minute (hh:mm).",
                "- Add new scrapers to the existing blocklist and re-upload the whole list."]
    N, m = P["threshold"], P["min_requests"]
    return [
        "Access-log review runbook (current)",
        "- Scope: every request in the three rotated logs of the review days (access.log.2.gz, access.log.1, "
        "access.log); logrotate compresses the older files.",
        "- Monitors: requests from an address on the health-check allow-list are left out of every figure and are "
        "never blocked.",
        "- Maintenance: a 503 response logged inside an announced maintenance window (maintenance.md; start "
        "inclusive, end exclusive) is left out of numerator and denominator. Other responses in the window count.",
        "- Endpoint: the request path without its query string, every path segment made only of digits replaced by "
        "{id} (/products/4471/reviews -> /products/{id}/reviews); the method is not part of the endpoint.",
        "- 5xx rate = responses with status 500-599 / requests counted, in percent; the overall rate over all "
        "endpoints likewise. Round half up to 2 decimal places.",
        f"- Worst endpoint: the highest 5xx rate among endpoints with at least {m} requests counted.",
        "- Latency: the log format's request-time field (see the server config for its unit), converted to "
        "milliseconds. p95 by nearest rank: sort ascending, take the value at rank ceil(0.95 x n); 1 decimal place.",
        f"- Scrapers: an address (IPv4 or IPv6) with more than {N} requests inside any 60-second window (a request's "
        f"time t to t + 59 s inclusive) goes on the blocklist; exactly {N} does not.",
        "- Blocklist upload: one row per address found in this review. Entries of earlier blocklists expire after 30 "
        "days and are not carried over.",
        f"- Error-rate objective (SLO): the overall 5xx rate of the review period at most {P['slo']:.2f} %."]


def _config(P: dict[str, Any], logdir: str) -> str:
    if P["server"] == "apache":
        return ("# apache2.conf (excerpt)\nServerName " + P["host"] + "\nTimeout 60\nKeepAlive On\n\n"
                "# %D = time taken to serve the request, in microseconds\n"
                'LogFormat "%h %l %u %t \\"%r\\" %>s %b \\"%{Referer}i\\" \\"%{User-Agent}i\\" %D" combined_timed\n'
                f"CustomLog {logdir}/access.log combined_timed\nErrorLog {logdir}/error.log\n")
    return ("# nginx.conf (excerpt)\nhttp {\n    # $request_time: request processing time in seconds with a "
            "milliseconds resolution\n    log_format timed '$remote_addr - $remote_user [$time_local] \"$request\" '\n"
            "                     '$status $body_bytes_sent \"$http_referer\" \"$http_user_agent\" $request_time';\n"
            f"    access_log {logdir}/access.log timed;\n    error_log {logdir}/error.log warn;\n"
            f"    server {{ listen 443 ssl; server_name {P['host']}; }}\n}}\n")


def _workspace(rng: random.Random, P: dict[str, Any], w: dict[str, Any],
               data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    out: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        out[name], roles[name] = writer, role

    for rel, writer in data.items():
        add(rel, "data", writer)
    logdir = P["files"]["logs"][0].rsplit("/", 1)[0]
    ops, sec, mon = P["ops_dir"], *(P["files"][k].rsplit("/", 1)[0] for k in ("old_blocklist", "allowlist"))
    day0, off = w["day0"], w["offset"]
    start, end = (dt.datetime.fromisoformat(t) for t in P["maintenance"])
    conf = "apache2/apache2.conf" if P["server"] == "apache" else "nginx/nginx.conf"
    add(f"config/{conf}", "reference", lambda p: write_text(p, _config(P, "/var/log/web01")))
    add("config/logrotate.d/web01", "reference", lambda p: write_text(p, (
        f"/var/log/web01/*.log {{\n    daily\n    rotate 14\n    compress\n    delaycompress\n    missingok\n}}\n"
        f"# rotation at local midnight (server offset UTC{'+' if off >= 0 else '-'}{abs(off) // 60:02d}:{abs(off) % 60:02d})\n")))
    add(f"{ops}/runbooks/access_log_review_runbook.docx", "policy",
        lambda p: write_docx(p, "Access-log review runbook", _runbook(P, True)))
    add(f"{ops}/runbooks/archive/log_review_procedure_2024.pdf", "stale",
        lambda p: write_pdf(p, "Log review procedure 2024", _runbook(P, False)))
    past = start - dt.timedelta(days=rng.randint(20, 40))
    nxt = start + dt.timedelta(days=rng.randint(10, 25))
    add(f"{ops}/maintenance.md", "policy", lambda p: write_text(p, (
        "# Maintenance calendar\n\nAll times are UTC. During a window the named service answers 503.\n\n"
        "| Date (UTC) | Start | End | Service | Change |\n|---|---|---|---|---|\n"
        f"| {past:%Y-%m-%d} | 02:00 | 02:30 | cdn | certificate rotation |\n"
        f"| {start:%Y-%m-%d} | {start:%H:%M} | {end:%H:%M} | {P['maint_service']} | database failover test |\n"
        f"| {nxt:%Y-%m-%d} | 03:00 | 04:00 | search | index rebuild (planned) |\n")))
    add(f"{mon}/uptime_summary_{day0:%Y-%m}.pdf", "distractor", lambda p: write_pdf(
        p, "Uptime summary", ["Monthly availability of /healthz as seen by the external monitors: 99.96 %.",
                              "No monitor-detected outage longer than 5 minutes this month."]))
    inc = rng.randint(4100, 4999)
    sent = day0 + dt.timedelta(days=3)
    add(f"tickets/INC-{inc}.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Customer Support Lead", to="web-ops", date=sent.isoformat(),
        subject=f"INC-{inc}: customers seeing errors and slow pages",
        body=f"Since {day0:%A} we have had 40+ complaints about error pages and slow search/checkout. On-call's view is "
             f"that it's all {P['named_endpoint']} - that's where the errors are coming from. Someone also seems to be "
             "hammering the product pages.")))
    add(f"{sec}/mail_waf_upload_format.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, IT Security Lead", to="web-ops", date=sent.isoformat(), subject="WAF blocklist upload",
        body=f"The WAF import takes a csv with one row per address (IPv4 or IPv6 as logged) and the action "
             f"'{P['action']}'. Send only what this review finds - the old list expired, the WAF drops expired entries "
             "itself.")))
    add(f"{logdir}/error.log", "distractor", lambda p: write_text(p, "".join(
        f"[{day0 + dt.timedelta(days=k % 3):%a %b %d} 0{k % 9}:1{k % 6}:0{k % 10} 2026] [proxy:error] upstream timed "
        f"out (110: Connection timed out) while reading response header\n" for k in range(12))))
    add(f"reports/cdn_bandwidth_{day0:%Y-%m}.csv", "distractor", lambda p: write_csv(
        p, ["date", "edge_gb", "origin_gb", "cache_hit_pct"],
        [[(day0 + dt.timedelta(days=k)).isoformat(), rng.randint(300, 480), rng.randint(20, 60), rng.randint(88, 96)]
         for k in range(3)]))
    add(f"meetings/{sent.isoformat()}_platform_sync.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="access-log review", people=[person(rng) for _ in range(3)], date=sent.isoformat())))
    return out, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, IdsCheck, RowCountCheck

    D, L, C = P["deliverables"], P["labels"], P["out_columns"]
    memo, up = D["memo"], D["blocklist"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    eps = sorted({facts["worst"], P["named_endpoint"], *_WORST, *_MAINT})

    def pct(key: str, v: float) -> tuple[str, Any]:
        return f"{L[key]} = {v:.2f}", fld_num(memo, L[key], v, 2)

    def whole(key: str, v: int) -> tuple[str, Any]:
        return f"{L[key]} = {v}", FieldCheck(file=memo, label=L[key], number=float(v), tolerance=0.0)

    worst = (f"{L['worst']}: {facts['worst']}", fld(memo, L["worst"], facts["worst"], eps))
    peaks = [(f"{up}: {b['ip']} {C['peak']} = {b['peak']}",
              CellCheck(file=up, match={C["ip"]: b["ip"]}, column=C["peak"], value=float(b["peak"]))) for b in facts["blocked"]]
    out = [
        rubric("Reads every rotated log, the gzipped one too, and leaves out the allow-listed monitors", 10, [
            whole("requests", facts["requests"]), pct("overall", facts["overall_rate"])]),
        rubric("Leaves out the 503s of the maintenance window, converted from UTC to the log's offset", 10, [
            worst, pct("worst_rate", facts["worst_rate"])]),
        rubric("Gives the worst endpoint's p95 by nearest rank in milliseconds", 8, [
            (f"{L['p95']} = {facts['worst_p95']:.1f}", fld_num(memo, L["p95"], facts["worst_p95"], 1))]),
        rubric("Blocks exactly the addresses above the threshold in any 60-second window, IPv6 included", 10, [
            (f"{up} has {len(facts['blocked'])} rows", RowCountCheck(file=up, key=C["ip"], count=len(facts["blocked"]))),
            *peaks, whole("count", facts["block_count"]),
            *([(f"{up} lists none of the monitors, the expired or the at-threshold addresses",
                IdsCheck(file=up, ids=list(P["decoys"]), present="none"))] if P["decoys"] else [])]),
        rubric("Answers the SLO question from the overall 5xx rate", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            pct("overall", facts["overall_rate"])]),
        rubric("Checks on-call's belief against the record", 6, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            worst, pct("worst_rate", facts["worst_rate"])]),
    ]
    if judgement:
        out.append(rubric("Writes an incident note the manager can forward", 6, [
            ("Tabulates the 5xx rate and p95 by endpoint", llm("content")),
            ("Says how monitors, the maintenance window, the time unit and the rotated logs were handled", llm("explanation")),
            ("Answers on-call's belief and the SLO question plainly", llm("writing"))]))
    return out


ACCESS_LOG_REVIEW = Workflow(
    key="access_log_review", family="web_operations",
    method="combined-log parse; 5xx rate by normalised endpoint net of maintenance 503s; nearest-rank p95; "
           "sliding 60-second request-rate threshold for scrapers",
    professions=("web_administrators",), solver="accesslog", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated web server access logs (stated distributions)")
