# ---- jobenv workflow ground truth: access-log error review after user complaints (web administrators) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the rotated logs, the
# unit of the request-time field the server config's log format states, the announced maintenance window (UTC),
# the runbook's rules (scraper threshold, minimum requests for an endpoint to rank, the error-rate SLO), the
# ticket's named endpoint and the deliverables; ``naive`` names the shortcuts a hurried administrator takes:
#   health_checks    the allow-listed monitors' requests counted (and the link checker blocked as a scraper)
#   ipv4_only        a dotted-quad pattern for the client address: every IPv6 line dropped
#   no_gz            the gzipped rotated log left out (only the plain-text files read)
#   maintenance      the 503s of the announced maintenance window counted as errors
#   timezone         the maintenance window's UTC times read as the log's local time
#   time_units       the request-time field read as milliseconds whatever the log format says
#   calendar_minute  requests counted per clock minute instead of in any 60-second window
#   old_blocklist    the expired addresses of the previous blocklist carried into the upload
import calendar
import datetime
import gzip
import math
import os
import re

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

LINE = re.compile(r'^(\S+) \S+ \S+ \[([^\]]+)\] "(\S+) (\S+) [^"]*" (\d{3}) \S+ "[^"]*" "[^"]*" (\S+)$')
IPV4 = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")


def endpoint(target):
    """The runbook's endpoint: the path without its query string, every all-digit segment collapsed to {id}."""
    path = target.split("?", 1)[0]
    return "/".join("{id}" if seg.isdigit() else seg for seg in path.split("/")) or "/"


def nearest_rank(values, pct):
    """The nearest-rank percentile: the value at rank ceil(pct / 100 x n) of the values sorted ascending."""
    s = sorted(values)
    return s[max(1, math.ceil(pct / 100 * len(s) - 1e-9)) - 1]


def peak_window(times, seconds=60):
    """The most requests in any ``seconds``-long window [t, t + seconds - 1] (times in whole seconds)."""
    s, best, lo = sorted(times), 0, 0
    for hi, t in enumerate(s):
        while s[lo] <= t - seconds:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


def peak_clock_minute(times):
    """The most requests in one clock minute (the superseded procedure)."""
    counts: dict = {}
    for t in times:
        counts[t // 60] = counts.get(t // 60, 0) + 1
    return max(counts.values(), default=0)


MONTHS = {m: k for k, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                                      "Dec"), 1)}
_READ: dict = {}  # parsed logs by (path, size, mtime): the gates read one folder many times


def clock(stamp):
    """(UTC epoch second, local wall-clock datetime) of a log time such as ``12/Oct/2026:14:03:11 -0400``."""
    day, mon, rest = stamp[:11].split("/")
    local = datetime.datetime(int(rest), MONTHS[mon], int(day), int(stamp[12:14]), int(stamp[15:17]),
                              int(stamp[18:20]))
    off = stamp[21:]
    shift = (1 if off[0] == "+" else -1) * (int(off[1:3]) * 3600 + int(off[3:5]) * 60)
    return calendar.timegm(local.timetuple()) - shift, local


def read_log(path):
    """Parsed lines of one access log (gzip read by its .gz name): (client, UTC epoch second, local wall-clock
    datetime, method, endpoint, status, request-time text); lines not in the log format are skipped."""
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    if key in _READ:
        return _READ[key]
    opener = gzip.open if path.endswith(".gz") else open
    out, seen = [], {}
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            stamp = m.group(2)
            if stamp not in seen:
                seen[stamp] = clock(stamp)
            epoch, local = seen[stamp]
            out.append((m.group(1), epoch, local, m.group(3), endpoint(m.group(4)), int(m.group(5)), m.group(6)))
    if len(_READ) > 8:
        _READ.clear()
    _READ[key] = out
    return out


def analyse(folder, P, naive=()):
    """The graded facts from the task folder. A missing file or column raises (OSError, KeyError)."""
    F = P["files"]
    logs = [rel for rel in F["logs"] if not ("no_gz" in naive and rel.endswith(".gz"))]
    rows = [r for rel in logs for r in read_log(os.path.join(folder, rel))]
    if "ipv4_only" in naive:
        rows = [r for r in rows if IPV4.match(r[0])]
    allow = read_frame(folder, F["allowlist"], P["allowlist_sheet"])
    monitors = {a.strip().lower() for a in allow[P["allowlist_column"]]}
    if "health_checks" not in naive:
        rows = [r for r in rows if r[0].lower() not in monitors]
    start = datetime.datetime.fromisoformat(P["maintenance"][0])
    end = datetime.datetime.fromisoformat(P["maintenance"][1])
    if "timezone" in naive:  # the UTC wall-clock times compared with the log's local wall clock
        def in_window(r):
            return start <= r[2] < end
    else:
        lo, hi = calendar.timegm(start.timetuple()), calendar.timegm(end.timetuple())

        def in_window(r):
            return lo <= r[1] < hi
    if "maintenance" not in naive:
        rows = [r for r in rows if not (r[5] == 503 and in_window(r))]
    scale = 1.0 if "time_units" in naive else {"us": 0.001, "ms": 1.0, "s": 1000.0}[P["time_unit"]]
    by_ep: dict = {}
    for r in rows:
        by_ep.setdefault(r[4], []).append((r[5] >= 500, float(r[6]) * scale))
    table = []
    for ep, reqs in sorted(by_ep.items()):
        n, bad = len(reqs), sum(e for e, _ in reqs)
        table.append({"endpoint": ep, "requests": n, "errors": bad, "rate": rnd(100 * bad / n, 2), "raw": bad / n,
                      "p95": rnd(nearest_rank([ms for _, ms in reqs], 95), 1)})
    ranked = sorted((t for t in table if t["requests"] >= P["min_requests"]), key=lambda t: (-t["raw"], t["endpoint"]))
    worst = ranked[0]
    total, errors = len(rows), sum(t["errors"] for t in table)
    overall = rnd(100 * errors / total, 2)
    times: dict = {}
    for r in rows:
        times.setdefault(r[0], []).append(r[1])
    peak = peak_clock_minute if "calendar_minute" in naive else peak_window
    block = {ip: peak(ts) for ip, ts in times.items()}
    block = {ip: n for ip, n in block.items() if n > P["threshold"]}
    if "old_blocklist" in naive:
        old = read_frame(folder, F["old_blocklist"])
        for ip in old[P["old_column"]]:
            block.setdefault(ip.strip(), peak(times.get(ip.strip(), [])) if times.get(ip.strip()) else 0)
    blocked = [{"ip": ip, "peak": n} for ip, n in sorted(block.items())]
    return {"requests": total, "errors": errors, "overall_rate": overall, "overall_raw": errors / total,
            "endpoints": table, "worst": worst["endpoint"], "worst_rate": worst["rate"], "worst_p95": worst["p95"],
            "second_raw": ranked[1]["raw"] if len(ranked) > 1 else 0.0, "blocked": blocked, "block_count": len(blocked),
            "decision": bool(overall <= P["slo"]), "premise": worst["endpoint"] == P["named_endpoint"]}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['requests']}: {facts['requests']}", f"{L['overall']}: {facts['overall_rate']:.2f}",
            f"{L['worst']}: {facts['worst']}", f"{L['worst_rate']}: {facts['worst_rate']:.2f}",
            f"{L['p95']}: {facts['worst_p95']:.1f}", f"{L['count']}: {facts['block_count']}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["out_columns"]
    write_table(os.path.join(output_dir, D["blocklist"]), [C["ip"], C["action"], C["peak"], C["reason"]],
                [[b["ip"], P["action"], b["peak"], f"more than {P['threshold']} requests in 60 s"]
                 for b in facts["blocked"]])
    eps = ["| Endpoint | Requests | 5xx | 5xx rate (%) | p95 (ms) |", "|---|---|---|---|---|"] + [
        f"| {t['endpoint']} | {t['requests']} | {t['errors']} | {t['rate']:.2f} | {t['p95']:.1f} |"
        for t in sorted(facts["endpoints"], key=lambda t: -t["raw"])]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "## By endpoint", "", *eps, "", "## Addresses to block", "",
        *[f"- {b['ip']} ({b['peak']} requests in its busiest 60 s)" for b in facts["blocked"]], "",
        "Method: all rotated logs read (including the gzipped one); allow-listed monitors left out; 503s inside the "
        "announced maintenance window (converted from UTC to the log's offset) left out; endpoints are paths without "
        "the query string with numeric segments as {id}; p95 by nearest rank in milliseconds; an address is blocked "
        "when it makes more than the runbook's threshold of requests in any 60-second window; the expired "
        "blocklist is not carried over."])
