"""Access-log error review: endpoint normalisation, the nearest-rank p95, the sliding 60-second window and the log's
time zone on hand-computed cases, the solver and the independent recheck on three days of logs worked by hand, and
the reward a drawn task pays for a correct answer written by hand in another layout, a wrong, a hedged and a blind
one, and the superseded 2024 procedure."""

from __future__ import annotations

import calendar
import gzip
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import accesslog as solver
from jobenv.synthetic.workflows.accesslog import ACCESS_LOG_REVIEW as WF
from jobenv.synthetic.workflows.accesslog import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output


def test_endpoints_are_paths_without_query_with_numeric_segments_collapsed():
    assert solver.endpoint("/products/4471/reviews?sort=new") == "/products/{id}/reviews"
    assert solver.endpoint("/search?q=oak+table") == "/search"
    assert solver.endpoint("/api/v2/orders/0012") == "/api/v2/orders/{id}"  # leading zeros are still digits
    assert solver.endpoint("/static/js/app.3f9c2b.js") == "/static/js/app.3f9c2b.js"  # a hash is not an id
    assert solver.endpoint("/") == "/"


def test_nearest_rank_percentile_by_hand():
    # n = 20: rank ceil(0.95 x 20) = 19 -> the 19th smallest; n = 10: ceil(9.5) = 10 -> the largest
    assert solver.nearest_rank(list(range(1, 21)), 95) == 19
    assert solver.nearest_rank(list(range(10, 0, -1)), 95) == 10
    # n = 7 (100, 200, 210, 220, 300, 400, 900 ms): ceil(6.65) = 7 -> 900, not an interpolated 650
    assert solver.nearest_rank([300, 100, 900, 200, 400, 210, 220], 95) == 900


def test_sliding_window_against_clock_minutes_and_the_log_offset():
    # [0, 59] holds 0, 10, 59 (3); [10, 69] holds 10, 59, 60, 61 (4); clock minutes hold 3 and 2
    assert solver.peak_window([0, 10, 59, 60, 61]) == 4
    assert solver.peak_clock_minute([0, 10, 59, 60, 61]) == 3
    assert solver.peak_window([0, 60, 120]) == 1  # t and t + 60 s are different windows
    epoch, local = solver.clock("12/Oct/2026:14:03:11 -0400")
    assert epoch == calendar.timegm((2026, 10, 12, 18, 3, 11, 0, 0, 0))  # 14:03 at UTC-4 is 18:03 UTC
    assert (local.hour, local.minute) == (14, 3)
    assert solver.clock("12/Oct/2026:23:30:00 +0530")[0] == calendar.timegm((2026, 10, 12, 18, 0, 0, 0, 0, 0))


def _line(ip: str, day: int, clock: str, method: str, target: str, status: int, us: int) -> str:
    return f'{ip} - - [{day}/Oct/2026:{clock} -0400] "{method} {target} HTTP/1.1" {status} 512 "-" "agent/1.0" {us}'


def _tiny(folder: Path) -> dict:
    """Three days at UTC-4 (Apache %D, microseconds); threshold 3 requests in 60 s; endpoints rank from 2 requests;
    maintenance 06:00-06:30 UTC on 13 Oct = 02:00-02:30 local.
    12 Oct (gz): 192.0.2.10 /search 200 (100 ms) and 502 (300 ms); scraper 192.0.2.50 four /products/N in 30 s;
    monitor 203.0.113.5 five /healthz in 40 s (allow-listed).
    13 Oct: /api/v2/orders/N 503 at 02:10 and 02:15 local (maintenance: out), 200 at 02:20 (counts), 200 at 05:00,
    503 at 06:15 local (10:15 UTC: counts); IPv6 2001:db8:aa::1 four /search in 45 s (200, 200, 504 at 900 ms, 200);
    192.0.2.77 four /products/N at 12:30:40-12:31:10 (4 in 60 s, 2 per clock minute); partner 192.0.2.88 exactly three
    POST /api/v2/cart in 10 s. 14 Oct: /search 500 (400 ms), / and /products/12/reviews once each.
    Counted: /search 7 (3 errors: 42.86 %), /products/{id} 8 (0), /api/v2/orders/{id} 3 (1: 33.33 %), cart 3, / 1,
    reviews 1 (below the minimum): 23 requests, 4 errors = 17.39 %. Worst /search, p95 of 100, 200, 210, 220, 300, 400,
    900 ms at rank 7 = 900.0 ms. Blocked 192.0.2.50, 192.0.2.77, 2001:db8:aa::1 (4 each); SLO 20 %: met."""
    d = "logs"
    gz = [_line("192.0.2.10", 12, "10:00:00", "GET", "/search?q=a", 200, 100000),
          _line("192.0.2.10", 12, "10:00:20", "GET", "/search?q=b", 502, 300000)]
    gz += [_line("192.0.2.50", 12, f"10:00:{s:02d}", "GET", f"/products/{12 + k}", 200, 50000 + 10000 * k)
           for k, s in enumerate((0, 10, 20, 30))]
    gz += [_line("203.0.113.5", 12, f"10:00:{s:02d}", "GET", "/healthz", 200, 3000) for s in (0, 10, 20, 30, 40)]
    one = [_line("198.51.100.7", 13, "02:10:00", "GET", "/api/v2/orders/100", 503, 1000),
           _line("198.51.100.7", 13, "02:15:00", "GET", "/api/v2/orders/104", 503, 1000),
           _line("198.51.100.7", 13, "02:20:00", "GET", "/api/v2/orders/101", 200, 120000),
           _line("198.51.100.8", 13, "05:00:00", "GET", "/api/v2/orders/102", 200, 130000),
           _line("198.51.100.8", 13, "06:15:00", "GET", "/api/v2/orders/103", 503, 2000)]
    one += [_line("2001:db8:aa::1", 13, f"12:00:{s:02d}", "GET", f"/search?q={s}", st, us)
            for s, st, us in ((0, 200, 200000), (15, 200, 210000), (30, 504, 900000), (45, 200, 220000))]
    one += [_line("192.0.2.77", 13, c, "GET", f"/products/{20 + k}", 200, 40000)
            for k, c in enumerate(("12:30:40", "12:30:50", "12:31:00", "12:31:10"))]
    one += [_line("192.0.2.88", 13, f"13:00:{s:02d}", "POST", "/api/v2/cart", 200, 90000) for s in (0, 5, 10)]
    new = [_line("192.0.2.10", 14, "09:00:00", "GET", "/search?q=d", 500, 400000),
           _line("192.0.2.11", 14, "09:05:00", "GET", "/", 200, 20000),
           _line("192.0.2.11", 14, "09:06:00", "GET", "/products/12/reviews", 200, 150000)]
    (folder / d).mkdir(parents=True)
    (folder / d / "access.log.2.gz").write_bytes(gzip.compress(("\n".join(gz) + "\n").encode(), mtime=0))
    (folder / d / "access.log.1").write_text("\n".join(one) + "\n")
    (folder / d / "access.log").write_text("\n".join(new) + "\n")
    write_xlsx(folder / "allow.xlsx", [("Monitors", ["monitor", "source_address"], [["Uptime", "203.0.113.5"]])])
    write_csv(folder / "old.csv", ["address", "action"], [["192.0.2.200", "block"]])
    return {"files": {"logs": [f"{d}/access.log.2.gz", f"{d}/access.log.1", f"{d}/access.log"],
                      "allowlist": "allow.xlsx", "old_blocklist": "old.csv"},
            "allowlist_sheet": "Monitors", "allowlist_column": "source_address", "old_column": "address",
            "time_unit": "us", "threshold": 3, "min_requests": 2, "maintenance": ["2026-10-13T06:00", "2026-10-13T06:30"],
            "slo": 20.0, "named_endpoint": "/api/v2/orders/{id}"}


def test_the_solver_and_the_recheck_on_logs_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert (f["requests"], f["errors"], f["overall_rate"]) == (23, 4, 17.39)
    assert (f["worst"], f["worst_rate"], f["worst_p95"]) == ("/search", 42.86, 900.0)
    blocked = [("192.0.2.50", 4), ("192.0.2.77", 4), ("2001:db8:aa::1", 4)]
    assert [(b["ip"], b["peak"]) for b in f["blocked"]] == blocked
    assert (f["block_count"], f["decision"], f["premise"]) == (3, True, False)
    g = recheck(tmp_path, P)
    assert (g["requests"], g["overall_rate"], g["worst"], g["worst_rate"], g["worst_p95"]) == (23, 17.39, "/search",
                                                                                            42.86, 900.0)
    assert [(b["ip"], b["peak"]) for b in g["blocked"]] == blocked and (g["decision"], g["premise"]) == (True, False)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    ips = lambda f: [b["ip"] for b in f["blocked"]]  # noqa: E731
    # monitors counted: 28 requests, 4 errors = 14.29 %, and the monitor (5 in 40 s) blocked
    assert (n["health_checks"]["requests"], n["health_checks"]["overall_rate"]) == (28, 14.29)
    assert "203.0.113.5" in ips(n["health_checks"])
    # IPv6 dropped: /search 3 requests, 2 errors = 66.67 %; 19 requests, 3 errors = 15.79 %; the IPv6 scraper missed
    assert (n["ipv4_only"]["worst_rate"], n["ipv4_only"]["overall_rate"]) == (66.67, 15.79)
    assert "2001:db8:aa::1" not in ips(n["ipv4_only"])
    # the gzipped day missed: 17 requests, 3 errors = 17.65 %; /search 2 of 5 = 40 %; 192.0.2.50 missed
    assert (n["no_gz"]["requests"], n["no_gz"]["overall_rate"], n["no_gz"]["worst_rate"]) == (17, 17.65, 40.0)
    assert "192.0.2.50" not in ips(n["no_gz"])
    # maintenance 503s counted: orders 3 of 5 = 60 % outranks /search; 6 of 25 = 24 % breaks the 20 % SLO
    m = n["maintenance"]
    assert (m["worst"], m["worst_rate"], m["overall_rate"], m["decision"], m["premise"]) == (
        "/api/v2/orders/{id}", 60.0, 24.0, False, True)
    # the UTC window read as local time: 02:10 and 02:15 counted, 06:15 left out: orders 2 of 4 = 50 %
    assert (n["timezone"]["worst"], n["timezone"]["worst_rate"], n["timezone"]["overall_rate"]) == (
        "/api/v2/orders/{id}", 50.0, 20.83)
    assert n["time_units"]["worst_p95"] == 900000.0  # microseconds read as milliseconds
    assert ips(n["calendar_minute"]) == ["192.0.2.50", "2001:db8:aa::1"]  # 2 + 2 across the minute boundary
    assert ips(n["old_blocklist"]) == ["192.0.2.200", "192.0.2.50", "192.0.2.77", "2001:db8:aa::1"]


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, p95_delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """An administrator's own answer: the upload with its columns in another order, an extra column and addresses in
    capitals; the note's facts as a Markdown table with bold labels, percent signs and units."""
    import csv

    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["out_columns"], P["labels"], P["deliverables"]
    if not blind:
        with (out / D["blocklist"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C["peak"], C["ip"], "first_seen", C["action"], C["reason"]])
            for b in reversed(f["blocked"]):
                w.writerow([b["peak"], b["ip"].upper(), "see note", P["action"].upper(), "rate limit exceeded"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["requests"], f"{f['requests']:,}"), (L["overall"], f"{f['overall_rate']:.2f}%"),
             (L["worst"], f"`{f['worst']}`"), (L["worst_rate"], f"{f['worst_rate']:.2f} %"),
             (L["p95"], f"{f['worst_p95'] + p95_delta:.1f} ms"), (L["count"], f"{f['block_count']} addresses"),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = ["# Incident note", "", "| Item | Value |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
             *(extra or []), "", "Monitors left out, maintenance 503s excluded, all three rotated logs read."]
    (out / D["memo"]).write_text("\n".join(lines) + "\n")


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, p95_delta=25.0)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['overall']} | {f['overall_rate'] + 0.4:.2f}% |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_a_blocklist_with_a_monitor_or_an_expired_address_loses(task, tmp_path):
    f, P = _load(task)
    for extra in P["decoys"][:2]:
        g = dict(f, blocked=f["blocked"] + [{"ip": extra, "peak": P["threshold"]}])
        solver.write_outputs(str(tmp_path / extra.replace(":", "_")), P, g)
        assert score_output(task, tmp_path / extra.replace(":", "_")) < 1.0


def test_the_superseded_2024_procedure_loses(task, tmp_path):
    f, P = _load(task)
    # the 2024 procedure: milliseconds, every 5xx counted, per clock minute above threshold + 30, old list kept
    old = solver.analyse(str(task / "task_folder"), dict(P, threshold=P["threshold"] + 30),
                         ("time_units", "maintenance", "calendar_minute", "old_blocklist"))
    assert old["worst_p95"] != f["worst_p95"] and old["blocked"] != f["blocked"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
