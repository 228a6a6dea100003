#!/usr/bin/env python3
"""Build the bundled sample split ``jobenv/sample`` deterministically.

    python sample_builder/build_sample.py                 # rewrites jobenv/data/sample/
    python sample_builder/build_sample.py --out /tmp/x    # builds elsewhere (the determinism test does this)

Each task gets ``task_folder/`` (TASK_INSTRUCTIONS.txt + reference files written by real libraries from a
fixed random seed), ``RUBRICS.json`` with a ``jobenv_checks`` entry for every criterion, ``task_card.md``,
``meta.json`` and ``solution/solve.py`` (hand-written, kept in the split and carried over). Every expected number in a
check is computed here from the generated data, independently of the reference solution; the tests then
run each solution and grade it against these checks, so the two computations must agree.

Fails with AssertionError when a generated task breaks a split rule (prompt length, reference-file list,
rubric count, a scenario whose intended outcome the random data did not produce).
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import statistics
import sys
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_common import (  # noqa: E402
    Crit,
    rubric,
    write_csv,
    write_docx,
    write_pdf,
    write_pptx,
    write_sqlite,
    write_task,
    write_xlsx,
)

from jobenv.check_models import (  # noqa: E402
    AllOfCheck,
    AnyOfCheck,
    CellCheck,
    Check,
    ColumnsCheck,
    FieldCheck,
    FileExistsCheck,
    IdsCheck,
    NotCheck,
    NumberCheck,
    RowCountCheck,
    TextCheck,
)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "jobenv" / "data" / "sample"
_SOLUTIONS: dict[str, str] = {}


def solution_source(occupation: str) -> str:
    """The hand-written reference solution of a task. It lives in the bundled split itself (the one copy);
    build() reads every one before it wipes the output folder."""
    if occupation not in _SOLUTIONS:
        _SOLUTIONS[occupation] = (DEFAULT_OUT / occupation / "task1" / "solution" / "solve.py").read_text(encoding="utf-8")
    return _SOLUTIONS[occupation]


def _c(cents: int) -> float:
    """Integer cents to a 2-dp float."""
    return round(cents / 100, 2)


def _money(x: float) -> str:
    return f"{x:,.2f}"


def _split_cents(rnd: random.Random, total: int, n: int) -> list[int]:
    """Split an integer amount into n positive random parts that sum exactly to it."""
    weights = [rnd.uniform(0.5, 1.5) for _ in range(n)]
    s = sum(weights)
    parts = [int(total * w / s) for w in weights[:-1]]
    parts.append(total - sum(parts))
    assert all(p > 0 for p in parts) and sum(parts) == total
    return parts


def _new_task(out: Path, occupation: str, number: int) -> Path:
    d = out / occupation / f"task{number}"
    (d / "task_folder").mkdir(parents=True)
    return d


# Check builders: the pydantic check models of jobenv.check_models (the judge evaluates exactly these).


def cell(file: str, match: dict, column: str, value, tolerance: float = 0.0, sheet: str | None = None) -> Check:
    return CellCheck(file=file, match=match, column=column, value=value, tolerance=tolerance, sheet=sheet)


def number(file: str, value: float, tolerance: float) -> Check:
    return NumberCheck(file=file, value=value, tolerance=tolerance)


def field(file: str, label: str, **judgement) -> Check:
    """A labelled fact (``Label: value`` line or table row); see jobenv.check_models.FieldCheck."""
    return FieldCheck(file=file, label=label, **judgement)


def ids(file: str, values: list[str], *, present: str = "all", digits: bool = False) -> Check:
    return IdsCheck(file=file, ids=values, present=present, digits=digits)  # type: ignore[arg-type]


def text(file: str, pattern: str, *, regex: bool = False, absent: bool = False) -> Check:
    return TextCheck(file=file, pattern=pattern, regex=regex, absent=absent)


def exists(file: str) -> Check:
    return FileExistsCheck(file=file)


def all_of(*checks: Check) -> Check:
    return AllOfCheck(checks=list(checks))


def any_of(*checks: Check) -> Check:
    return AnyOfCheck(checks=list(checks))


def not_(check: Check) -> Check:
    return NotCheck(check=check)


def columns(file: str, cols: list[str], sheet: str | None = None) -> Check:
    return ColumnsCheck(file=file, columns=cols, sheet=sheet)


def row_count(file: str, count: int, where: dict | None = None, sheet: str | None = None,
              key: str | None = None) -> Check:
    return RowCountCheck(file=file, count=count, where=where, sheet=sheet, key=key)


# ---------------------------------------------------------------------------------------------------------
# financial_managers/task1 — Q3 operating-expense variance review (trap: a posting duplicated in the extract)
# ---------------------------------------------------------------------------------------------------------


def build_financial_managers(out: Path) -> None:
    rnd = random.Random(20261)
    d = _new_task(out, "financial_managers", 1)
    tf = d / "task_folder"
    ccs = [("CC-110", "Corporate Finance"), ("CC-220", "Sales"), ("CC-330", "Operations"), ("CC-440", "Information Technology")]
    accts = [
        (6100, "Salaries & Wages", (180_000, 420_000)),
        (6210, "Travel & Entertainment", (9_000, 30_000)),
        (6320, "Software Subscriptions", (12_000, 60_000)),
        (6410, "Professional Fees", (10_000, 50_000)),
        (6530, "Facilities & Utilities", (20_000, 45_000)),
    ]
    vendors = {
        6100: ["Payroll run {m} A", "Payroll run {m} B", "Overtime accrual {m}", "Payroll run {m} C"],
        6210: ["Delta Air Lines", "Marriott Bonvoy", "Hertz", "Uber for Business", "Client dinner - Harbor Grill"],
        6320: ["Salesforce renewal", "Atlassian Cloud", "Microsoft 365 E3", "Zoom Business", "Snowflake credits"],
        6410: ["Baker Tilly advisory", "Morgan Lewis legal", "KPMG tax provision", "Korn Ferry search fee"],
        6530: ["Con Edison electric", "Brookfield rent", "Cintas facility services", "Waste Management"],
    }
    # Dollar overrides (budget, delta) chosen to exercise each branch of the two-part flag rule.
    overrides = {
        ("CC-110", 6410): (24_000, 7_850_00),
        ("CC-220", 6210): (28_500, 9_420_00),
        ("CC-330", 6530): (41_000, -6_275_00),
        ("CC-440", 6320): (56_000, 4_300_00),
        ("CC-440", 6210): (9_000, 2_700_00),
        ("CC-330", 6100): (412_000, 14_900_00),
        ("CC-220", 6410): (42_000, 2_150_00),
        ("CC-440", 6100): (265_000, -27_300_00),
    }
    trap_key = ("CC-220", 6410)
    dup_amount = 16_800_00
    budget: dict[tuple[str, int], int] = {}  # whole dollars
    actual: dict[tuple[str, int], int] = {}  # cents, Q3 only, deduplicated
    for cc, _ in ccs:
        for acct, _, (lo, hi) in accts:
            key = (cc, acct)
            if key in overrides:
                b, delta = overrides[key]
            else:
                b = rnd.randrange(lo, hi, 500)
                delta = int(b * 100 * rnd.uniform(-0.06, 0.06))
            budget[key] = b
            actual[key] = b * 100 + delta

    months = [(7, "Jul"), (8, "Aug"), (9, "Sep")]
    rows: list[list] = []
    for (cc, acct), total in actual.items():
        n = rnd.randint(4, 8)
        if (cc, acct) == trap_key:
            parts = _split_cents(rnd, total - dup_amount, n - 1) + [dup_amount]
        else:
            parts = _split_cents(rnd, total, n)
        for i, amt in enumerate(parts):
            m, mname = months[i % 3]
            day = rnd.randint(1, 28)
            desc = rnd.choice(vendors[acct]).format(m=mname)
            rows.append([date(2026, m, day), cc, acct, desc, amt])
    # Out-of-period postings the wider extract window picked up (must be excluded by the Q3 rule).
    out_of_period = [
        [date(2026, 6, 30), "CC-330", 6530, "Con Edison electric", 3_912_40],
        [date(2026, 6, 29), "CC-110", 6320, "Microsoft 365 E3", 1_480_00],
        [date(2026, 10, 1), "CC-220", 6210, "Delta Air Lines", 2_264_18],
    ]
    rows.extend(out_of_period)
    rows.sort(key=lambda r: (r[0], r[1], r[2], r[4]))
    gl = []
    dup_row = None
    for i, r in enumerate(rows, start=1):
        txn = f"JE-2026-{10400 + i * 3:05d}"
        rec = [txn, r[0].isoformat(), r[1], r[2], r[3], f"{_c(r[4]):.2f}"]
        gl.append(rec)
        if (r[1], r[2]) == trap_key and r[4] == dup_amount:
            dup_row = rec
    assert dup_row is not None
    dup_txn = dup_row[0]
    # The ERP re-sent one batch: the same posting appears again further down the extract.
    gl.insert(len(gl) - 9, list(dup_row))
    write_csv(tf / "gl_detail_q3_2026.csv", ["txn_id", "posting_date", "cost_center", "account", "description", "amount"], gl)

    brows = [["Cost Center", "Cost Center Name", "Account", "Account Name", "Q3 Budget"]]
    for cc, ccn in ccs:
        for acct, an, _ in accts:
            brows.append([cc, ccn, acct, an, budget[(cc, acct)]])
    fy = [["Cost Center", "Account", "Q1 Budget", "Q2 Budget", "Q3 Budget", "Q4 Budget", "FY2026 Budget"]]
    for cc, _ in ccs:
        for acct, _, _ in accts:
            q = [round(budget[(cc, acct)] * f / 500) * 500 for f in (0.96, 1.02)] + [budget[(cc, acct)]]
            q.append(round(budget[(cc, acct)] * 1.05 / 500) * 500)
            fy.append([cc, acct, *q, sum(q)])
    write_xlsx(tf / "budget_fy2026.xlsx", {"Q3 Budget": brows, "FY2026 by Quarter": fy},
               widths={"Q3 Budget": [12, 24, 10, 26, 12]})

    write_docx(tf / "variance_policy.docx", [
        ("h1", "Budget Variance Review Policy (FIN-POL-014, rev. 3)"),
        ("p", "Owner: Financial Planning & Analysis. Applies to all quarterly operating-expense reviews."),
        ("h2", "1. Definitions"),
        ("bullet", "Actual = sum of GL postings for the cost center and account dated within the quarter."),
        ("bullet", "Variance = Actual minus Budget. A positive variance on an expense line is unfavourable."),
        ("bullet", "Variance % = Variance divided by Budget, times 100, rounded to one decimal place."),
        ("h2", "2. Investigation threshold"),
        ("p", "A line is flagged 'Investigate' when BOTH the absolute variance is at least $5,000 AND the "
              "absolute Variance % is at least 10.0%. Favourable and unfavourable variances are treated alike. "
              "Every other line is 'OK'."),
        ("h2", "3. Data integrity"),
        ("p", "The GL extract is a raw ERP export. Each posting has a unique txn_id; an extract that repeats a "
              "txn_id is an export defect, and the posting counts once. Data issues found must be disclosed in "
              "the review memo."),
        ("h2", "4. Presentation"),
        ("p", "Currency is shown in US dollars to two decimals. Budget figures are never restated in a review."),
    ])

    # ---- expected values (independent of the solution) ----
    exp = {}
    for key in actual:
        a = _c(actual[key])
        v = round(a - budget[key], 2)
        pct = round(v / budget[key] * 100, 1)
        status = "Investigate" if abs(v) >= 5000 and abs(pct) >= 10.0 else "OK"
        exp[key] = (a, v, pct, status)
    flagged = sorted(k for k, e in exp.items() if e[3] == "Investigate")
    assert flagged == sorted([("CC-110", 6410), ("CC-220", 6210), ("CC-330", 6530), ("CC-440", 6100)]), flagged
    assert exp[trap_key][3] == "OK"
    with_dup = _c(actual[trap_key] + dup_amount)
    assert abs(with_dup - budget[trap_key]) >= 5000
    tot_budget = sum(budget.values())
    tot_actual = _c(sum(actual.values()))
    tot_var = round(tot_actual - tot_budget, 2)

    X = "q3_variance.xlsx"
    S = "Variance"
    M = "variance_memo.md"

    def key(cc: str, acct: int) -> dict:
        return {"Cost Center": cc, "Account": str(acct)}

    rubrics = [
        rubric("Delivers the variance workbook in the required layout", 6, [
            Crit(f"Delivers output/{X} with a sheet named '{S}'", exists(X)),
            Crit("The sheet has columns Cost Center, Account, Budget, Actual, Variance, Variance %, Status",
                 columns(X, ["Cost Center", "Account", "Budget", "Actual", "Variance", "Variance %", "Status"], S)),
            Crit("The sheet has exactly 20 lines (4 cost centers x 5 accounts)", row_count(X, 20, sheet=S)),
        ]),
        rubric("Actuals include only postings dated 1 Jul - 30 Sep 2026", 10, [
            Crit(f"CC-330 / 6530 Actual is {_money(exp[('CC-330', 6530)][0])} (30 Jun posting of 3,912.40 excluded)",
                 cell(X, key("CC-330", 6530), "Actual", exp[("CC-330", 6530)][0], 0.01, S)),
            Crit(f"CC-220 / 6210 Actual is {_money(exp[('CC-220', 6210)][0])} (1 Oct posting of 2,264.18 excluded)",
                 cell(X, key("CC-220", 6210), "Actual", exp[("CC-220", 6210)][0], 0.01, S)),
            Crit(f"CC-110 / 6320 Actual is {_money(exp[('CC-110', 6320)][0])} (29 Jun posting of 1,480.00 excluded)",
                 cell(X, key("CC-110", 6320), "Actual", exp[("CC-110", 6320)][0], 0.01, S)),
        ]),
        rubric(f"Catches the duplicated posting {dup_txn} and counts it once", 10, [
            Crit(f"CC-220 / 6410 Actual is {_money(exp[trap_key][0])}, with {dup_txn} (16,800.00) counted once",
                 cell(X, key(*trap_key), "Actual", exp[trap_key][0], 0.01, S)),
            Crit("CC-220 / 6410 is therefore marked OK, not Investigate",
                 cell(X, key(*trap_key), "Status", "OK", 0, S)),
            Crit(f"The memo's 'Duplicate txn_ids' line names {dup_txn} (and no other posting)",
                 field(M, "Duplicate txn_ids", items=[dup_txn])),
        ]),
        rubric("Flags lines with the two-part threshold ($5,000 and 10.0%)", 10, [
            Crit("Exactly 4 lines are marked Investigate", row_count(X, 4, where={"Status": "Investigate"}, sheet=S)),
            Crit("CC-110/6410, CC-220/6210, CC-330/6530 and CC-440/6100 are marked Investigate",
                 all_of(*[cell(X, key(*k), "Status", "Investigate", 0, S) for k in flagged])),
            Crit("CC-440/6210 (30.0% but only $2,700) is marked OK", cell(X, key("CC-440", 6210), "Status", "OK", 0, S)),
            Crit("CC-330/6100 ($14,900 but only 3.6%) is marked OK", cell(X, key("CC-330", 6100), "Status", "OK", 0, S)),
        ]),
        rubric("Computes Variance and Variance % per policy", 6, [
            Crit(f"CC-110/6410 Variance is {_money(exp[('CC-110', 6410)][1])}",
                 cell(X, key("CC-110", 6410), "Variance", exp[("CC-110", 6410)][1], 0.01, S)),
            Crit(f"CC-330/6530 Variance % is {exp[('CC-330', 6530)][2]} (negative: favourable)",
                 cell(X, key("CC-330", 6530), "Variance %", exp[("CC-330", 6530)][2], 0.051, S)),
            Crit(f"CC-440/6100 Variance % is {exp[('CC-440', 6100)][2]}",
                 cell(X, key("CC-440", 6100), "Variance %", exp[("CC-440", 6100)][2], 0.051, S)),
        ]),
        rubric("The memo states the quarter's totals", 6, [
            Crit(f"Memo output/{M} is delivered", exists(M)),
            Crit(f"Memo states total Q3 actual spend of {_money(tot_actual)}",
                 field(M, "Total Q3 actual", number=tot_actual, tolerance=0.5)),
            Crit(f"Memo states the total net variance of {_money(tot_var)} (actual minus budget)",
                 field(M, "Total net variance", number=tot_var, tolerance=0.5)),
        ]),
        rubric("Must not carry the double-counted figure into the workbook", 6, [
            Crit(f"The workbook does not contain the double-counted CC-220/6410 actual of {_money(with_dup)}",
                 all_of(exists(X), not_(number(X, with_dup, 0.005)))),
        ]),
    ]

    instructions = f"""Hi,

Before Thursday's operating review I need the Q3 2026 operating-expense variance analysis for the four cost
centers in our shared services group. The GL detail export (gl_detail_q3_2026.csv) came straight out of the
ERP this morning, the approved budget is in budget_fy2026.xlsx (use the "Q3 Budget" sheet), and our variance
policy is attached as variance_policy.docx. Please follow the policy exactly - the CFO's office checks the
flags against it.

House rules for this review:
- Q3 means postings dated 2026-07-01 through 2026-09-30 inclusive. The export was pulled with a wider date
  window, so anything outside the quarter must be left out.
- Treat the GL export with care: it is a raw export, and txn_id uniquely identifies a posting.
- Variance = Actual - Budget, in dollars to two decimals. Variance % = Variance / Budget x 100, rounded to
  one decimal place.
- Status is "Investigate" when |Variance| >= $5,000 AND |Variance %| >= 10.0%, otherwise "OK". Favourable
  variances are flagged the same way as unfavourable ones.
- Do not change any budget figure.

Deliverables (save only these in output/):
1. output/{X} - one sheet named "{S}" with exactly these columns: Cost Center, Account,
   Budget, Actual, Variance, Variance %, Status. One row per cost center and account combination (all 20 lines, including
   those with no issue). Cost Center as in the budget (e.g. CC-110); Account as the 4-digit account number.
2. output/{M} - a short memo for the CFO that starts with these lines (label, colon, value):
   Total Q3 budget: <dollars>
   Total Q3 actual: <dollars>
   Total net variance: <actual minus budget, dollars>
   Duplicate txn_ids: <txn_ids counted once, separated by semicolons, or none>
   then the lines marked Investigate with a one-line comment each, and a "Data issues" section describing
   anything you corrected in the source data (cite txn_ids).

Thanks,
Dana Whitfield
Director, FP&A"""

    card = f"""# financial_managers/task1 — Q3 opex variance review

Hidden brief. 20 lines (4 cost centers x 5 accounts). Correct actuals exclude three out-of-period postings
(2026-06-29, 2026-06-30, 2026-10-01) and count the duplicated posting **{dup_txn}** (CC-220 / 6410, 16,800.00)
once.

**Trap:** with the duplicate, CC-220 / 6410 shows {_money(with_dup)} actual (variance {_money(with_dup - budget[trap_key])})
and would be flagged; correctly it is {_money(exp[trap_key][0])}, variance {_money(exp[trap_key][1])}
({exp[trap_key][2]}%), status OK.

Expected Investigate lines: {', '.join(f'{c}/{a} (var {_money(exp[(c, a)][1])}, {exp[(c, a)][2]}%)' for c, a in flagged)}.

Totals: budget {_money(tot_budget)}, actual {_money(tot_actual)}, net variance {_money(tot_var)}.
Reference files: gl_detail_q3_2026.csv, budget_fy2026.xlsx, variance_policy.docx.
"""
    write_task(d, instructions=instructions, rubrics=rubrics, task_card=card,
               solution=solution_source("financial_managers"),
               meta={"source": "jobenv sample split", "trap": "duplicated GL posting", "file_types": ["csv", "xlsx", "docx"]})


# ---------------------------------------------------------------------------------------------------------
# supply_chain_managers/task1 — reorder plan (trap: inventory.db lead times superseded by the 2026 schedule)
# ---------------------------------------------------------------------------------------------------------


def _scm_calc(demand: list[int], lt_days: int, position: int, case_pack: int) -> tuple[float, int, int, int]:
    """(avg weekly, safety stock, reorder point, order qty) per the task's house rules."""
    avg = statistics.mean(demand)
    sd = statistics.stdev(demand)
    ltw = lt_days / 7
    ss_raw = 1.65 * sd * math.sqrt(ltw)
    base_raw = avg * ltw
    for x in (ss_raw, base_raw, 4 * avg):
        assert abs(x - round(x)) > 1e-6, "ceil argument too close to an integer"
    ss = math.ceil(ss_raw)
    rop = math.ceil(base_raw) + ss
    qty = 0
    if position <= rop:
        target = rop + math.ceil(4 * avg)
        qty = math.ceil((target - position) / case_pack) * case_pack
    return avg, ss, rop, qty


def build_supply_chain_managers(out: Path) -> None:
    rnd = random.Random(20262)
    d = _new_task(out, "supply_chain_managers", 1)
    tf = d / "task_folder"
    suppliers = [
        ("SUP-01", "Midwest Corrugated LLC", 10, 10),
        ("SUP-02", "Pacific Polymer Components", 14, 28),
        ("SUP-03", "Keystone Fastening Inc", 18, 18),
        ("SUP-04", "Harbor Electronics Assembly", 21, 35),
    ]
    stale = {s[0]: s[2] for s in suppliers}
    current = {s[0]: s[3] for s in suppliers}
    items = [
        ("SKU-10140", "Shipping carton 18x12x10", "SUP-01", 50, 1.42, "below"),
        ("SKU-10155", "Shipping carton 24x18x12", "SUP-01", 25, 2.18, "above"),
        ("SKU-20311", "Polypropylene housing, grey", "SUP-02", 100, 3.75, "between"),
        ("SKU-20318", "Polycarbonate lens cover", "SUP-02", 200, 0.86, "between"),
        ("SKU-20342", "TPE gasket 40mm", "SUP-02", 500, 0.21, "above"),
        ("SKU-30407", "M4 stainless screw (box/100)", "SUP-03", 20, 6.40, "cancelled"),
        ("SKU-30412", "M6 hex nut (box/100)", "SUP-03", 20, 4.95, "above"),
        ("SKU-30420", "Spring washer M6 (box/200)", "SUP-03", 10, 7.10, "below"),
        ("SKU-40502", "Control PCB rev C", "SUP-04", 25, 38.50, "between"),
        ("SKU-40519", "Wire harness 6-pin", "SUP-04", 50, 5.65, "above"),
        ("SKU-40533", "LED driver module", "SUP-04", 40, 12.80, "below"),
        ("SKU-40547", "Power inlet assembly", "SUP-04", 30, 9.25, "above"),
    ]
    weeks = [date(2026, 7, 6) + timedelta(weeks=i) for i in range(16)]  # last = 2026-10-19
    demand_rows, demand, stock_rows, po_rows = [], {}, [], []
    po_no = 4510
    exp = {}
    for sku, _desc, sup, pack, cost, scenario in items:
        while True:
            mu = rnd.uniform(40, 400)
            series = [max(0, round(rnd.gauss(mu, mu * 0.18))) for _ in weeks]
            last12 = series[-12:]
            try:
                cur = _scm_calc(last12, current[sup], 0, pack)
                old = _scm_calc(last12, stale[sup], 0, pack)
            except AssertionError:
                continue
            if scenario != "between" or old[2] + 10 < cur[2]:
                break
        demand[sku] = last12
        for w, u in zip(weeks, series):
            demand_rows.append([sku, w.isoformat(), u])
        rop_cur, rop_old = cur[2], old[2]
        allocated = rnd.randrange(0, 60, 5)
        open_qty = 0
        cancelled_qty = 0
        if scenario == "below":
            position = rop_cur - rnd.randint(20, max(21, rop_cur // 3))
        elif scenario == "above":
            position = rop_cur + rnd.randint(40, 200)
        elif scenario == "between":
            position = rnd.randint(rop_old + 1, rop_cur - 1)
        else:  # a cancelled PO would wrongly lift the position above the reorder point
            position = rop_cur - 30
            cancelled_qty = math.ceil(200 / pack) * pack
        if scenario in ("above", "between") and rnd.random() < 0.6:
            open_qty = math.ceil(rnd.randint(30, max(31, position // 2)) / pack) * pack
            po_rows.append([f"PO-{po_no}", sku, open_qty, (date(2026, 11, 2) + timedelta(days=rnd.randint(3, 20))).isoformat(), "OPEN"])
            po_no += 1
        if cancelled_qty:
            po_rows.append([f"PO-{po_no}", sku, cancelled_qty, "2026-11-09", "CANCELLED"])
            po_no += 1
        if rnd.random() < 0.5:
            po_rows.append([f"PO-{po_no}", sku, pack * rnd.randint(2, 8), "2026-10-12", "RECEIVED"])
            po_no += 1
        on_hand = position + allocated - open_qty
        assert on_hand > 0, sku
        stock_rows.append([sku, "DC-EAST", on_hand, allocated, "2026-10-30"])
        avg, ss, rop, qty = _scm_calc(last12, current[sup], position, pack)
        _, _, _, qty_stale = _scm_calc(last12, stale[sup], position, pack)
        exp[sku] = dict(sup=sup, lt=current[sup], avg=avg, ss=ss, rop=rop, pos=position, qty=qty,
                        value=round(qty * cost, 2), qty_stale=qty_stale, scenario=scenario,
                        qty_with_cancelled=_scm_calc(last12, current[sup], position + cancelled_qty, pack)[3])
    po_rows.sort()
    for sc in ("below", "between", "cancelled"):
        assert all(e["qty"] > 0 for e in exp.values() if e["scenario"] == sc), sc
    assert all(e["qty"] == 0 for e in exp.values() if e["scenario"] == "above")
    assert all(e["qty_stale"] == 0 for e in exp.values() if e["scenario"] == "between")
    assert all(e["qty_with_cancelled"] == 0 for e in exp.values() if e["scenario"] == "cancelled")

    write_csv(tf / "demand_weekly.csv", ["sku", "week_start", "units_shipped"], demand_rows)
    ddl = """
    CREATE TABLE suppliers (supplier_id TEXT PRIMARY KEY, name TEXT NOT NULL, lead_time_days INTEGER NOT NULL,
                            lt_last_updated TEXT NOT NULL);
    CREATE TABLE items (sku TEXT PRIMARY KEY, description TEXT NOT NULL, supplier_id TEXT NOT NULL
                        REFERENCES suppliers(supplier_id), case_pack INTEGER NOT NULL, unit_cost REAL NOT NULL);
    CREATE TABLE stock (sku TEXT NOT NULL REFERENCES items(sku), location TEXT NOT NULL, on_hand INTEGER NOT NULL,
                        allocated INTEGER NOT NULL, snapshot_date TEXT NOT NULL, PRIMARY KEY (sku, location));
    CREATE TABLE purchase_orders (po_number TEXT PRIMARY KEY, sku TEXT NOT NULL REFERENCES items(sku),
                                  qty INTEGER NOT NULL, due_date TEXT NOT NULL,
                                  status TEXT NOT NULL CHECK (status IN ('OPEN','RECEIVED','CANCELLED')));
    """
    write_sqlite(tf / "inventory.db", ddl, {
        "suppliers": [[s[0], s[1], s[2], "2025-03-14"] for s in suppliers],
        "items": [[i[0], i[1], i[2], i[3], i[4]] for i in items],
        "stock": stock_rows,
        "purchase_orders": po_rows,
    })
    write_pdf(tf / "supplier_lead_time_schedule_2026-09.pdf", [
        ("title", "Supplier Lead Time Schedule - effective 1 September 2026"),
        ("p", "Issued by Strategic Sourcing, 2026-08-25. Lead times are quoted in calendar days from PO "
              "transmission to receipt at DC-EAST and were confirmed with each supplier during the August "
              "quarterly business reviews."),
        ("table", ([28, 80, 40, 42], [["Supplier ID", "Supplier", "Lead time (days)", "Change vs prior"]] + [
            [s[0], s[1], s[3], f"+{s[3] - s[2]} days" if s[3] != s[2] else "no change"] for s in suppliers])),
        ("p", "This schedule supersedes all previously published lead times. Note: the lead_time_days field "
              "in the inventory system has not been refreshed since the March 2025 sync and should not be "
              "used for planning until the master-data ticket MDM-2291 is closed."),
        ("p", "Pacific Polymer Components: resin allocation constraints through Q1 2027. Harbor Electronics "
              "Assembly: component shortages on driver ICs; expedite requests require VP approval."),
    ])

    F, M = "reorder_plan.csv", "reorder_summary.md"
    n_order = sum(1 for e in exp.values() if e["qty"] > 0)
    total_value = round(sum(e["value"] for e in exp.values()), 2)
    between = [s for s, e in exp.items() if e["scenario"] == "between"]
    below = [s for s, e in exp.items() if e["scenario"] == "below"]
    canc = [s for s, e in exp.items() if e["scenario"] == "cancelled"][0]
    above = [s for s, e in exp.items() if e["scenario"] == "above"]

    SCHED = "supplier_lead_time_schedule_2026-09.pdf"

    def c(sku: str, col: str, val, tol: float = 0.0) -> Check:
        return cell(F, {"sku": sku}, col, val, tol)

    rubrics = [
        rubric("Delivers the reorder plan in the required layout", 6, [
            Crit(f"Delivers output/{F}", exists(F)),
            Crit("Columns sku, supplier_id, lead_time_days, avg_weekly_demand, safety_stock, reorder_point, "
                 "inventory_position, order_qty, order_value are present",
                 columns(F, ["sku", "supplier_id", "lead_time_days", "avg_weekly_demand", "safety_stock",
                             "reorder_point", "inventory_position", "order_qty", "order_value"])),
            Crit("One row for each of the 12 active SKUs", row_count(F, 12)),
        ]),
        rubric("Uses the 1 Sep 2026 supplier lead-time schedule, not the stale inventory.db values", 10, [
            Crit("SUP-02 SKUs use a 28-day lead time (not 14)",
                 all_of(*[c(s, "lead_time_days", 28) for s, e in exp.items() if e["sup"] == "SUP-02"])),
            Crit("SUP-04 SKUs use a 35-day lead time (not 21)",
                 all_of(*[c(s, "lead_time_days", 35) for s, e in exp.items() if e["sup"] == "SUP-04"])),
            Crit("The summary names the 2026 schedule (not the stale inventory.db values) as the lead-time source",
                 field(M, "Lead-time source", equals=SCHED, options=[SCHED, "inventory.db"])),
        ]),
        rubric("Computes demand statistics and reorder points per the house formulas", 10, [
            Crit(f"{below[0]} average weekly demand is {exp[below[0]]['avg']:.1f}",
                 c(below[0], "avg_weekly_demand", round(exp[below[0]]["avg"], 1), 0.051)),
            Crit(f"{between[0]} safety stock is {exp[between[0]]['ss']} and reorder point {exp[between[0]]['rop']}",
                 all_of(c(between[0], "safety_stock", exp[between[0]]["ss"]), c(between[0], "reorder_point", exp[between[0]]["rop"]))),
            Crit(f"{above[0]} reorder point is {exp[above[0]]['rop']}", c(above[0], "reorder_point", exp[above[0]]["rop"])),
        ]),
        rubric("Inventory position counts only OPEN purchase orders", 10, [
            Crit(f"{canc} inventory position is {exp[canc]['pos']} (its CANCELLED PO is not counted)",
                 c(canc, "inventory_position", exp[canc]["pos"])),
            Crit(f"{canc} is reordered: order_qty {exp[canc]['qty']}", c(canc, "order_qty", exp[canc]["qty"])),
        ]),
        rubric("Order quantities follow the case-pack rule and the current lead times", 10, [
            Crit(f"{', '.join(between)} are reordered (they are only below the reorder point at the 2026 lead times): "
                 + ", ".join(f"{s} = {exp[s]['qty']}" for s in between),
                 all_of(*[c(s, "order_qty", exp[s]["qty"]) for s in between])),
            Crit(f"{below[0]} order_qty is {exp[below[0]]['qty']} (a whole number of case packs)",
                 c(below[0], "order_qty", exp[below[0]]["qty"])),
            Crit(f"Exactly {12 - n_order} SKUs have order_qty 0", row_count(F, 12 - n_order, where={"order_qty": 0})),
        ]),
        rubric("The summary states the purchase commitment", 6, [
            Crit(f"output/{M} states the total order value of {_money(total_value)}",
                 field(M, "Total order value", number=total_value, tolerance=0.5)),
            Crit(f"output/{M} states that {n_order} SKUs need a purchase order",
                 field(M, "SKUs needing a PO", number=n_order)),
        ]),
    ]

    instructions = f"""Hi team,

Please put together next week's reorder plan for the DC-EAST finished-components SKUs. Current stock, open
purchase orders, item master data and supplier lead times are all in inventory.db (suppliers table for lead
times), and recent weekly shipments are in demand_weekly.csv. Strategic Sourcing also circulated
supplier_lead_time_schedule_2026-09.pdf last month.

Planning rules (our standard policy - please apply exactly):
- Demand: use the 12 most recent weeks in demand_weekly.csv (week_start {weeks[-12].isoformat()} through {weeks[-1].isoformat()}).
  avg_weekly_demand is the mean; use the sample standard deviation (n-1) for variability. Keep full precision
  in the calculations and round avg_weekly_demand to 1 decimal only for display.
- Lead time in weeks = lead_time_days / 7. When two of our sources disagree, the most recently dated one
  governs; say in the summary which source you used and why.
- safety_stock = ceiling(1.65 x standard deviation x sqrt(lead time in weeks)).
- reorder_point = ceiling(avg weekly demand x lead time in weeks) + safety_stock.
- inventory_position = on_hand - allocated + quantity on purchase orders with status OPEN only.
- If inventory_position <= reorder_point, order up to reorder_point + ceiling(4 x avg weekly demand),
  rounding the order quantity UP to a whole number of case packs. Otherwise order_qty = 0.
- order_value = order_qty x unit_cost, in dollars to 2 decimals.

Deliverables in output/:
1. output/{F} - one row per SKU (all 12) with columns: sku, supplier_id, lead_time_days,
   avg_weekly_demand, safety_stock, reorder_point, inventory_position, order_qty, order_value.
2. output/{M} - a short note for the purchasing team that starts with these lines (label, colon, value):
   SKUs needing a PO: <number>
   Total order value: <dollars>
   Lead-time source: <the file your lead times come from>
   then which lead times you used and why, and any data problems you found.

Thanks,
Priya Raman
Supply Chain Manager, DC-EAST"""

    card = f"""# supply_chain_managers/task1 — DC-EAST reorder plan

Hidden brief. **Trap:** the request points at inventory.db for lead times, but the 1 Sep 2026 schedule (PDF)
supersedes them: SUP-02 14 -> 28 days, SUP-04 21 -> 35 days. With the stale lead times {', '.join(between)}
would wrongly not be reordered. {canc} has a CANCELLED PO that must not count toward inventory position.
Weeks before {weeks[-12].isoformat()} are older than the 12-week window and must be ignored.

Expected ({n_order} SKUs to order, total order value {_money(total_value)}):

| sku | LT | avg | SS | ROP | position | order_qty | value |
|---|---|---|---|---|---|---|---|
""" + "".join(f"| {s} | {e['lt']} | {e['avg']:.1f} | {e['ss']} | {e['rop']} | {e['pos']} | {e['qty']} | {e['value']:.2f} |\n"
              for s, e in exp.items())
    write_task(d, instructions=instructions, rubrics=rubrics, task_card=card,
               solution=solution_source("supply_chain_managers"),
               meta={"source": "jobenv sample split", "trap": "stale lead times superseded by a newer schedule",
                     "file_types": ["sqlite", "csv", "pdf"]})


# ---------------------------------------------------------------------------------------------------------
# biostatisticians/task1 — primary endpoint table (trap: the request's "all six sites" premise vs site 104)
# ---------------------------------------------------------------------------------------------------------


# A reported hypothesis test: a p-value (or "p") stated with a number, or a significance claim that is not negated.
# Words alone ("no p-value is reported", "not statistically significant") are not a test result.
# A test statistic ("z = 2.95", "t-statistic: 2.4", "chi-square of 4.2") or a significance level is a test too.
P_VALUE_STATEMENT = (r"\bp(?:[- ]?values?)?\s*(?:=|<|>|\u2264|\u2265|:|of|was|is)?\s*0?\.\d"
                     r"|\b[zt](?:[- ]?(?:stat(?:istic)?|score|value))?\s*(?:=|:)\s*[-\u2212]?\d"
                     r"|\bchi[- ]?squared?\s*(?:=|:|of|was|is)\s*\d|\u03c7\u00b2?\s*(?:=|:)\s*\d"
                     r"|\btest statistic\s*(?:=|:|of|was|is)\s*[-\u2212]?\d"
                     r"|(?<!not )(?<!no )(?<!n't )(?<!never )\b(?:statistically significant|significant at (?:the )?\d|"
                     r"significance at (?:the )?\d)")


def build_biostatisticians(out: Path) -> None:
    rnd = random.Random(20263)
    d = _new_task(out, "biostatisticians", 1)
    tf = d / "task_folder"
    arms = ["Placebo", "NVT-301 10 mg"]
    effect = {"Placebo": (-3.5, 9.5), "NVT-301 10 mg": (-11.0, 10.5)}
    sites = [101, 102, 103, 104, 105, 106]
    rows = []
    subj = []  # (usubjid, site, arm, dosed, bl, w12)
    for site in sites:
        n = rnd.randint(18, 22)
        alloc = [arms[i % 2] for i in range(n)]
        rnd.shuffle(alloc)
        for k, arm in enumerate(alloc, start=1):
            uid = f"NVT301-{site}-{k:03d}"
            rand = date(2025, 9, 1) + timedelta(days=rnd.randint(0, 150))
            bl = round(rnd.gauss(149, 8))
            mu, sd = effect[arm]
            if site == 104:  # the non-verifiable site reports implausibly good placebo results
                mu = -12.0
            w12 = bl + round(rnd.gauss(mu, sd))
            subj.append([uid, site, arm, rand, True, bl, w12, "N"])
    # Data conditions the SAP's population rules must handle.
    rnd.shuffle(subj)
    for s_ in [x for x in subj if x[1] != 104][:3]:
        s_[4] = False  # randomized, never dosed
        s_[6] = None
    for s_ in [x for x in subj if x[1] != 104 and x[4]][3:4]:
        s_[5] = None  # baseline not recorded
    for s_ in [x for x in subj if x[1] != 104 and x[4] and x[5] is not None][4:12]:
        s_[6] = None  # discontinued before week 12
        s_[7] = "Y"
    subj.sort(key=lambda x: x[0])
    for uid, site, arm, rand, dosed, bl, w12, disc in subj:
        age = rnd.randint(38, 79)
        sex = rnd.choice("MF")
        trt = (rand + timedelta(days=rnd.randint(0, 3))).isoformat() if dosed else ""
        rows.append([uid, site, arm, rand.isoformat(), trt, age, sex, "" if bl is None else bl,
                     "" if w12 is None else w12, disc])
    write_csv(tf / "adsl_nvt301.csv", ["USUBJID", "SITEID", "ARM", "RANDDT", "TRTSDT", "AGE", "SEX", "SBP_BL",
                                        "SBP_W12", "DISCFL"], rows)

    write_xlsx(tf / "site_status.xlsx", {"Sites": [
        ["SITEID", "Principal Investigator", "City", "Site Status", "Efficacy Analyses", "Note"],
        [101, "Dr. Helen Okafor", "Columbus, OH", "Active", "Included", ""],
        [102, "Dr. Marco Bellini", "Tampa, FL", "Active", "Included", ""],
        [103, "Dr. Susan Thiel", "Spokane, WA", "Active", "Included", ""],
        [104, "Dr. Raymond Kuo", "El Paso, TX", "Closed 2026-05-19", "Excluded",
         "GCP non-compliance: source data not verifiable. Sponsor QA decision QA-2026-017."],
        [105, "Dr. Amelia Grant", "Lexington, KY", "Active", "Included", ""],
        [106, "Dr. Farid Haddad", "Dearborn, MI", "Active", "Included", "Enrollment completed 2026-02-27"],
    ]}, widths={"Sites": [8, 22, 16, 18, 16, 60]})

    write_docx(tf / "sap_nvt301_section9.docx", [
        ("h1", "NVT-301-201 Statistical Analysis Plan v2.0 - Section 9: Primary Efficacy Analysis"),
        ("h2", "9.1 Analysis population"),
        ("p", "The primary analysis uses the modified intent-to-treat (mITT) population: all randomized subjects "
              "who received at least one dose of study drug (non-missing TRTSDT) and have a non-missing baseline "
              "SBP. Subjects from any site excluded from efficacy analyses by a sponsor QA decision (see the site "
              "status log) are removed from all efficacy populations. Subjects are analysed as randomized (ARM)."),
        ("h2", "9.2 Endpoint and missing data"),
        ("p", "The primary endpoint is the change from baseline in seated systolic blood pressure (SBP) at Week 12, "
              "defined as SBP_W12 minus SBP_BL (mmHg). A missing Week 12 value is imputed by baseline observation "
              "carried forward (BOCF), i.e. the change is set to 0."),
        ("h2", "9.3 Summary statistics"),
        ("p", "For each arm: n, mean change (1 decimal) and standard deviation (sample SD, n-1 denominator, "
              "2 decimals). Treatment difference = mean change (NVT-301 10 mg) minus mean change (Placebo), with a "
              "two-sided 95% confidence interval from the large-sample normal approximation: difference +/- 1.96 x "
              "sqrt(SD1^2/n1 + SD2^2/n2). The difference and CI limits are reported to 2 decimals."),
        ("p", "This is a descriptive summary for the Data Monitoring Committee; no hypothesis tests or p-values "
              "are to be presented in Table 14.2.1 or its cover note."),
    ])

    # ---- expected values ----
    site_excl = {104}
    groups = {a: [] for a in arms}
    for _uid, site, arm, _rand, dosed, bl, w12, _disc in subj:
        if not dosed or bl is None or site in site_excl:
            continue
        groups[arm].append(0 if w12 is None else w12 - bl)
    stats = {a: (len(v), statistics.mean(v), statistics.stdev(v)) for a, v in groups.items()}
    (n0, m0, s0), (n1, m1, s1) = stats["Placebo"], stats["NVT-301 10 mg"]
    diff = m1 - m0
    se = math.sqrt(s0 ** 2 / n0 + s1 ** 2 / n1)
    lo, hi = diff - 1.96 * se, diff + 1.96 * se
    naive = {a: [] for a in arms}  # trap: keeping site 104
    for _uid, _site, arm, _rand, dosed, bl, w12, _disc in subj:
        if dosed and bl is not None:
            naive[arm].append(0 if w12 is None else w12 - bl)
    assert len(naive["Placebo"]) != n0 and abs(statistics.mean(naive["Placebo"]) - m0) > 0.3
    n_site104 = sum(1 for x in subj if x[1] == 104)

    F, M = "t_14_2_1_sbp.csv", "primary_endpoint_summary.md"
    rubrics = [
        rubric("Delivers Table 14.2.1 in the required layout", 6, [
            Crit(f"Delivers output/{F}", exists(F)),
            Crit("Columns ARM, N, MEAN_CHG, SD_CHG", columns(F, ["ARM", "N", "MEAN_CHG", "SD_CHG"])),
            Crit("Exactly two rows, one per arm", row_count(F, 2)),
        ]),
        rubric("Applies the mITT population rules, including the site 104 exclusion", 10, [
            Crit(f"Placebo N is {n0}", cell(F, {"ARM": "Placebo"}, "N", n0)),
            Crit(f"NVT-301 10 mg N is {n1}", cell(F, {"ARM": "NVT-301 10 mg"}, "N", n1)),
            Crit(f"The note states the total mITT N of {n0 + n1}", field(M, "Analysis population N", number=n0 + n1)),
        ]),
        rubric("Catches that site 104 must be excluded despite the request's premise", 10, [
            Crit("The note's 'Excluded sites' line names site 104 and no other site",
                 field(M, "Excluded sites", options=[str(x) for x in range(101, 107)], items=["104"])),
            Crit("The note cites the sponsor QA decision QA-2026-017 or GCP non-compliance as the reason",
                 field(M, "Exclusion reason", mentions=["QA-2026-017", "GCP"])),
        ]),
        rubric("Mean change from baseline per arm (BOCF for missing Week 12)", 10, [
            Crit(f"Placebo mean change is {m0:.1f}", cell(F, {"ARM": "Placebo"}, "MEAN_CHG", round(m0, 1), 0.051)),
            Crit(f"NVT-301 10 mg mean change is {m1:.1f}", cell(F, {"ARM": "NVT-301 10 mg"}, "MEAN_CHG", round(m1, 1), 0.051)),
        ]),
        rubric("Standard deviations use the n-1 denominator", 6, [
            Crit(f"Placebo SD is {s0:.2f}", cell(F, {"ARM": "Placebo"}, "SD_CHG", round(s0, 2), 0.0051)),
            Crit(f"NVT-301 10 mg SD is {s1:.2f}", cell(F, {"ARM": "NVT-301 10 mg"}, "SD_CHG", round(s1, 2), 0.0051)),
        ]),
        rubric("Reports the treatment difference with its 95% CI", 10, [
            Crit(f"Difference (NVT-301 minus Placebo) is {diff:.2f} mmHg",
                 field(M, "Treatment difference", number=round(diff, 2), tolerance=0.0051)),
            Crit(f"95% CI is {lo:.2f} to {hi:.2f}",
                 field(M, "95% CI", numbers=[round(lo, 2), round(hi, 2)], tolerance=0.0051)),
        ]),
        rubric("Must not present hypothesis tests (SAP 9.3)", 6, [
            Crit("The cover note does not report a p-value, a test statistic or a significance test",
                 all_of(exists(M), text(M, P_VALUE_STATEMENT, regex=True, absent=True))),
        ]),
    ]

    instructions = f"""Hi,

The DMC meets next week and I need Table 14.2.1 (primary efficacy endpoint) for study NVT-301-201 from the
locked analysis dataset. The subject-level data are in adsl_nvt301.csv, the relevant SAP section is
sap_nvt301_section9.docx, and the site status log from clinical operations is site_status.xlsx.

Background: this was a six-site study, and all six sites are in the analysis population, so the table
should reflect every randomized, dosed subject across sites 101-106. Please follow the SAP exactly.

House rules for the deliverables:
- Change from baseline = SBP_W12 - SBP_BL (mmHg). Missing Week 12 values: BOCF (change = 0), per SAP 9.2.
- MEAN_CHG rounded to 1 decimal; SD_CHG is the sample SD (n-1) rounded to 2 decimals.
- Treatment difference = NVT-301 10 mg minus Placebo, with a 95% CI of difference +/- 1.96 x
  sqrt(SD1^2/n1 + SD2^2/n2), computed from unrounded statistics and reported to 2 decimals.
- ARM values exactly as in the dataset ("Placebo", "NVT-301 10 mg").
- If anything in the files contradicts what I've told you here, follow the study documents and tell me.

Deliverables in output/:
1. output/{F} - columns ARM, N, MEAN_CHG, SD_CHG; one row per arm.
2. output/{M} - a short cover note for the DMC statistician that starts with these lines
   (label, colon, value):
   Analysis population N: <total N>
   Excluded sites: <site numbers, or none>
   Exclusion reason: <why, citing the document>
   Treatment difference: <mmHg>
   95% CI: <lower> to <upper>
   then any population or data-handling decisions you made (with the number of subjects affected).

Thanks,
Nadia Petrov
Lead Statistician"""

    card = f"""# biostatisticians/task1 — NVT-301-201 Table 14.2.1

Hidden brief. **Trap:** the request says all six sites are in the analysis population; site_status.xlsx
shows site 104 excluded from efficacy analyses (GCP non-compliance, QA-2026-017) and SAP 9.1 removes such
sites. Site 104 has {n_site104} subjects whose implausibly good placebo results would bias the table.
Other population rules: 3 randomized subjects never dosed (blank TRTSDT) and 1 subject with missing
baseline SBP are excluded; 8 discontinued subjects with missing Week 12 get change 0 (BOCF).

Expected: Placebo N={n0}, mean {m0:.1f}, SD {s0:.2f}; NVT-301 10 mg N={n1}, mean {m1:.1f}, SD {s1:.2f}.
mITT N={n0 + n1}. Difference {diff:.2f} mmHg, 95% CI ({lo:.2f}, {hi:.2f}). No p-values (SAP 9.3).
"""
    write_task(d, instructions=instructions, rubrics=rubrics, task_card=card,
               solution=solution_source("biostatisticians"),
               meta={"source": "jobenv sample split", "trap": "request premise contradicted by the site status log",
                     "file_types": ["csv", "xlsx", "docx"]})


# ---------------------------------------------------------------------------------------------------------
# purchasing_agents/task1 — RFQ bid evaluation (trap: one vendor's prices keyed in cents as dollars)
# ---------------------------------------------------------------------------------------------------------


def build_purchasing_agents(out: Path) -> None:
    rnd = random.Random(20267)
    d = _new_task(out, "purchasing_agents", 1)
    tf = d / "task_folder"
    A, B, C, D = "Apex Industrial Supply", "Brightline Distributors", "Coastal Fastener Co", "Dunmore Tool & Die"
    vendors = [A, B, C, D]
    freight = {A: 4.0, B: 0.0, C: 6.5, D: 0.0}
    items = [
        ("Hex bolt 1/2-13 x 2 in, grade 8, zinc (box/50)", 120, "BX", 24.0),
        ("Flange nut 1/2-13 serrated (box/100)", 80, "BX", 18.5),
        ("Nitrile gloves, 8 mil, XL (case/1000)", 40, "CS", 96.0),
        ("Safety glasses, anti-fog, clear", 300, "EA", 4.6),
        ("Cut-off wheel 4.5 in x 0.045 (pk/25)", 60, "PK", 31.0),
        ("Thread locker, medium strength, 50 ml", 150, "EA", 11.8),
        ("Shop towels, blue, (box/200)", 90, "BX", 27.5),
        ("Cable ties 11 in, 50 lb, black (bag/100)", 200, "BG", 6.9),
        ("Hose clamp SAE 16, stainless (box/10)", 110, "BX", 13.2),
        ("Anti-seize compound, 8 oz", 75, "EA", 15.4),
        ("Drill bit set, cobalt, 29 pc", 18, "ST", 142.0),
        ("Dowel pin 1/4 x 1 in, alloy (box/100)", 65, "BX", 21.7),
    ]
    while True:
        prices: dict[str, list] = {v: [] for v in vendors}
        for _, _qty, _, base in items:
            prices[A].append(round(base * rnd.uniform(0.96, 1.10), 2))
            prices[B].append(round(base * rnd.uniform(0.98, 1.14), 2))
            prices[C].append(round(base * rnd.uniform(0.84, 1.04), 2))
            prices[D].append(round(base * rnd.uniform(0.80, 0.88), 2))
        nobid = {(B, 4), (C, 10)}
        for v, i in nobid:
            prices[v][i] = None
        # evaluation (independent of the solution)
        award = []
        for i, (_desc, qty, _uom, _) in enumerate(items):
            evals = {}
            for v in (A, B, C):
                if prices[v][i] is not None:
                    evals[v] = round(qty * prices[v][i] * (1 + freight[v] / 100), 2)
            ranked = sorted(evals.items(), key=lambda kv: kv[1])
            if len(ranked) > 1 and abs(ranked[0][1] - ranked[1][1]) < 1.0:
                break  # avoid near-ties; redraw
            award.append((ranked[0][0], prices[ranked[0][0]][i], ranked[0][1]))
        else:
            c_wins = [i for i, a in enumerate(award) if a[0] == C]
            if 3 <= len(c_wins) <= 6 and any(a[0] == A for a in award) and any(a[0] == B for a in award):
                break
    # Naive reading: Coastal's sheet values are 100x too large, so Coastal would never win.
    bid_rows = [["Line", "Item Description", "Qty", "UOM", *[f"{v} Unit Price (USD)" for v in vendors]]]
    for i, (desc, qty, uom, _) in enumerate(items):
        row = [i + 1, desc, qty, uom]
        for v in vendors:
            p_ = prices[v][i]
            if p_ is None:
                row.append("No bid")
            elif v == C:
                row.append(int(round(p_ * 100)))  # keyed from the quote without the decimal point
            else:
                row.append(p_)
        bid_rows.append(row)
    notes = [["Item", "Detail"],
             ["RFQ", "RFQ-2026-114 MRO consumables, annual blanket, issued 2026-10-05, closed 2026-10-23"],
             ["Prepared by", "T. Alvarez (purchasing intern), 2026-10-26"],
             ["Source", "Apex, Brightline and Dunmore prices from the e-sourcing portal export; Coastal keyed "
                        "manually from their emailed PDF quote Q-88231"],
             ["Status", "Draft - not reviewed"]]
    write_xlsx(tf / "rfq_2026_114_bid_tab.xlsx", {"Bid Tab": bid_rows, "Notes": notes},
               widths={"Bid Tab": [6, 46, 6, 6, 18, 18, 18, 18], "Notes": [14, 100]})

    qrows = [["Line", "Description", "Qty", "UOM", "Unit Price", "Extended"]]
    for i, (desc, qty, uom, _) in enumerate(items):
        if prices[C][i] is None:
            qrows.append([i + 1, desc[:38], qty, uom, "No quote", ""])
        else:
            qrows.append([i + 1, desc[:38], qty, uom, f"{prices[C][i]:,.2f}", f"{qty * prices[C][i]:,.2f}"])
    write_pdf(tf / "coastal_quote_Q-88231.pdf", [
        ("title", "Coastal Fastener Co - Quotation Q-88231"),
        ("p", "To: Purchasing Dept., RFQ-2026-114. Date: 2026-10-21. Valid 90 days. All prices in US dollars "
              "per unit of measure shown. Freight: prepaid and added, 6.5% of merchandise value. Terms: Net 30."),
        ("table", ([12, 84, 16, 14, 30, 30], qrows)),
        ("p", "Authorized: Gail Merritt, Inside Sales Manager, Coastal Fastener Co."),
    ])

    write_docx(tf / "rfq_evaluation_rules.docx", [
        ("h1", "RFQ-2026-114 Evaluation Rules and Vendor Terms"),
        ("p", "Procurement Operations - approved 2026-10-02. Applies to the award recommendation for this RFQ."),
        ("h2", "1. Evaluated cost"),
        ("p", "Evaluated line total = Qty x Unit Price x (1 + freight %), rounded to the cent. Freight terms "
              "confirmed with each bidder are listed below. Each line is awarded separately to the eligible "
              "bidder with the lowest evaluated line total. A 'No bid' line cannot be awarded to that vendor. "
              "On an exact tie the incumbent (Apex Industrial Supply) is preferred."),
        ("table", [["Vendor", "Freight terms", "Freight %", "Vendor status"],
                   [A, "Prepaid and added", "4.0", "Approved"],
                   [B, "FOB destination, freight included", "0.0", "Approved"],
                   [C, "Prepaid and added", "6.5", "Approved"],
                   [D, "FOB destination, freight included", "0.0",
                    "Suspended 2026-09-15 (quality escape SCAR-0413) - not eligible for award"]]),
        ("h2", "2. Source of truth"),
        ("p", "Where the bid tab and a vendor's signed quotation disagree, the signed quotation governs."),
        ("h2", "3. Documentation"),
        ("p", "The award memo must state the awarded value per vendor and explain any bid that was set aside."),
    ])

    X, SM, MEMO = "award_recommendation.xlsx", "Summary", "award_memo.docx"
    by_vendor = {v: round(sum(a[2] for a in award if a[0] == v), 2) for v in (A, B, C)}
    lines_by_vendor = {v: sum(1 for a in award if a[0] == v) for v in (A, B, C)}
    grand = round(sum(by_vendor.values()), 2)
    c_wins = [i + 1 for i, a in enumerate(award) if a[0] == C]
    others = [i + 1 for i, a in enumerate(award) if a[0] != C]
    a_line = next(i + 1 for i, a in enumerate(award) if a[0] == A)

    def aw(line: int, col: str, val, tol: float = 0.0) -> Check:
        return cell(X, {"Line": line}, col, val, tol, "Award")

    rubrics = [
        rubric("Delivers the award workbook in the required layout", 6, [
            Crit(f"Delivers output/{X}", exists(X)),
            Crit("Sheet 'Award' has columns Line, Item Description, Qty, Awarded Vendor, Unit Price, Evaluated Line Total",
                 columns(X, ["Line", "Item Description", "Qty", "Awarded Vendor", "Unit Price", "Evaluated Line Total"], "Award")),
            Crit("Sheet 'Award' has one row for each of the 12 RFQ lines", row_count(X, 12, sheet="Award")),
        ]),
        rubric("Catches that Coastal's bid-tab prices were keyed in cents and uses the signed quote", 10, [
            Crit(f"Lines {', '.join(map(str, c_wins))} are awarded to {C} (lowest once its prices are read in dollars)",
                 all_of(*[aw(ln, "Awarded Vendor", C) for ln in c_wins])),
            Crit(f"Line {c_wins[0]} unit price is Coastal's quoted {prices[C][c_wins[0] - 1]:.2f}, not "
                 f"{int(round(prices[C][c_wins[0] - 1] * 100))}",
                 aw(c_wins[0], "Unit Price", prices[C][c_wins[0] - 1], 0.005)),
            Crit("The memo names Coastal's signed quotation Q-88231 (not the bid tab) as the source of its prices",
                 field(MEMO, "Coastal price source", mentions=["Q-88231"])),
        ]),
        rubric("Evaluated line totals include each vendor's freight", 10, [
            Crit(f"Line {c_wins[0]} evaluated total is {_money(award[c_wins[0] - 1][2])} (Coastal + 6.5% freight)",
                 aw(c_wins[0], "Evaluated Line Total", award[c_wins[0] - 1][2], 0.011)),
            Crit(f"Line {a_line} evaluated total is {_money(award[a_line - 1][2])} (Apex + 4.0% freight)",
                 aw(a_line, "Evaluated Line Total", award[a_line - 1][2], 0.011)),
        ]),
        rubric("Awards every other line to the lowest evaluated eligible bidder", 10, [
            Crit("; ".join(f"line {ln}: {award[ln - 1][0]}" for ln in others),
                 all_of(*[aw(ln, "Awarded Vendor", award[ln - 1][0]) for ln in others])),
        ]),
        rubric("Summary sheet totals the award by vendor", 6, [
            Crit(f"Sheet 'Summary' shows {C} award value {_money(by_vendor[C])} over {lines_by_vendor[C]} lines",
                 all_of(cell(X, {"Vendor": C}, "Award Value", by_vendor[C], 0.011, SM),
                        cell(X, {"Vendor": C}, "Lines Awarded", lines_by_vendor[C], 0, SM))),
            Crit(f"Sheet 'Summary' Total row shows {_money(grand)}", cell(X, {"Vendor": "Total"}, "Award Value", grand, 0.011, SM)),
        ]),
        rubric("Must not award any line to the suspended vendor Dunmore Tool & Die", 10, [
            Crit("No line in the Award sheet goes to Dunmore Tool & Die, despite its lowest prices",
                 all_of(exists(X), row_count(X, 0, where={"Awarded Vendor": D}, sheet="Award"),
                        row_count(X, 12, sheet="Award"))),
            Crit("The memo's 'Ineligible vendors' line names Dunmore Tool & Die (suspended) and no other vendor",
                 field(MEMO, "Ineligible vendors", options=[A, B, C, D], items=[D])),
        ]),
    ]

    instructions = f"""Hi,

RFQ-2026-114 (annual MRO consumables blanket) closed last Friday. Our intern tabulated the four bids in
rfq_2026_114_bid_tab.xlsx; the evaluation rules and vendor terms are in rfq_evaluation_rules.docx, and
Coastal's signed quotation is coastal_quote_Q-88231.pdf. I need a line-by-line award recommendation that I
can take to the category manager on Wednesday.

House rules:
- Evaluated line total = Qty x Unit Price x (1 + freight %), in dollars rounded to the cent, using the
  freight terms in the evaluation rules. Award each line to the eligible vendor with the lowest evaluated
  line total; "No bid" lines cannot go to that vendor; exact ties go to the incumbent (Apex).
- The bid tab is an unreviewed draft. Where it disagrees with a vendor's signed quotation, the quotation
  governs.
- Check each vendor's status before awarding anything.
- Vendor names exactly as in the evaluation rules (e.g. "Brightline Distributors").

Deliverables in output/:
1. output/{X} with two sheets:
   - "Award": columns Line, Item Description, Qty, Awarded Vendor, Unit Price, Evaluated Line Total - one
     row per RFQ line (all 12). Unit Price is the awarded vendor's price in dollars.
   - "Summary": columns Vendor, Lines Awarded, Award Value - one row per vendor that wins at least one
     line, then a final row with Vendor = "Total".
2. output/{MEMO} - a one-page memo to the category manager with these lines (label, colon, value):
   Ineligible vendors: <vendors that cannot be awarded, or none>
   Coastal price source: <the document Coastal's prices come from>
   then the award value per vendor and in total, and an explanation of every bid or figure you set aside or
   corrected, and why.

Thanks,
Marcus Lindqvist
Senior Buyer"""

    card = f"""# purchasing_agents/task1 — RFQ-2026-114 award recommendation

Hidden brief. **Trap:** the bid tab's Coastal column was keyed from the PDF quote without the decimal point,
so its values are cents shown as dollars (e.g. {int(round(prices[C][c_wins[0] - 1] * 100))} instead of
{prices[C][c_wins[0] - 1]:.2f}). Read naively, Coastal never wins; read from quote Q-88231 it wins lines
{', '.join(map(str, c_wins))}. Dunmore Tool & Die has the lowest prices everywhere but is suspended
(SCAR-0413) and must get nothing. Brightline did not bid line 5; Coastal did not quote line 11.

Expected awards:

| line | vendor | unit price | evaluated total |
|---|---|---|---|
""" + "".join(f"| {i + 1} | {a[0]} | {a[1]:.2f} | {a[2]:,.2f} |\n" for i, a in enumerate(award)) + f"""
Per vendor: {'; '.join(f'{v}: {lines_by_vendor[v]} lines, {_money(by_vendor[v])}' for v in (A, B, C))}.
Grand total {_money(grand)}.
"""
    write_task(d, instructions=instructions, rubrics=rubrics, task_card=card,
               solution=solution_source("purchasing_agents"),
               meta={"source": "jobenv sample split", "trap": "vendor prices in cents keyed as dollars",
                     "file_types": ["xlsx", "pdf", "docx"]})


# ---------------------------------------------------------------------------------------------------------
# human_resources_specialists/task1 — 2027 merit plan (trap: the request quotes the superseded 3.5% budget)
# ---------------------------------------------------------------------------------------------------------

_FIRST = ["Aisha", "Ben", "Carla", "Diego", "Elena", "Frank", "Grace", "Hiro", "Irene", "Jamal", "Keiko", "Liam",
          "Maya", "Noah", "Olivia", "Pavel", "Quinn", "Rosa", "Sanjay", "Tara", "Umar", "Vera", "Wes", "Ximena",
          "Yusuf", "Zoe", "Aaron", "Bianca", "Caleb", "Dalia", "Ethan", "Fiona", "Gavin", "Hana", "Ivan", "Julia",
          "Kofi", "Lena", "Mateo", "Nina"]
_LAST = ["Abbott", "Brennan", "Castillo", "Delgado", "Eriksen", "Fischer", "Gallagher", "Hoffman", "Ibrahim",
         "Jansen", "Kowalski", "Lindgren", "Moreau", "Nakamura", "Okonkwo", "Petrovic", "Quintero", "Rasmussen",
         "Santos", "Takahashi", "Underwood", "Valdez", "Whitaker", "Xu", "Yilmaz", "Zimmerman"]

MERIT_MATRIX = {5: (5.5, 4.5, 3.5), 4: (4.5, 3.5, 2.5), 3: (3.5, 2.5, 1.5), 2: (1.5, 1.0, 0.0), 1: (0.0, 0.0, 0.0)}


def _merit_pct(rating: int, compa: float) -> float:
    band = 0 if compa < 0.90 else (1 if compa <= 1.10 else 2)
    return MERIT_MATRIX[rating][band]


def build_human_resources_specialists(out: Path) -> None:
    d = _new_task(out, "human_resources_specialists", 1)
    tf = d / "task_folder"
    grades = {"G5": 62_000, "G6": 71_000, "G7": 82_000, "G8": 95_000, "G9": 110_000}  # midpoints
    ranges = {g: (round(m * 0.8 / 100) * 100, m, round(m * 1.2 / 100) * 100) for g, m in grades.items()}
    depts = ["Finance", "Customer Success", "Engineering", "Marketing", "Operations"]
    cutoff = date(2026, 9, 30)
    for seed in range(20265, 20400):
        rnd = random.Random(seed)
        names = rnd.sample([f"{f} {last}" for f in _FIRST for last in _LAST], 40)
        emps = []
        for i in range(40):
            g = rnd.choice(list(grades))
            lo, mid, hi = ranges[g]
            sal = round(mid * rnd.uniform(0.84, 1.16) / 100) * 100
            rating = rnd.choices([5, 4, 3, 2, 1], weights=[12, 30, 42, 12, 4])[0]
            hire = date(2012, 1, 1) + timedelta(days=rnd.randint(0, 5200))
            emps.append([f"E{1101 + i}", names[i], rnd.choice(depts), g, sal, rating, hire])
        # Scenario rows: a new hire after the cutoff, a rating-1 employee, a range-max case, a 1.10 boundary.
        emps[5][6] = date(2026, 10, 12)
        emps[17][6] = date(2026, 10, 1)
        emps[9][5] = 1
        emps[22][3], emps[22][4], emps[22][5] = "G8", ranges["G8"][2] - 800, 5
        emps[30][3], emps[30][4], emps[30][5] = "G6", round(grades["G6"] * 1.10), 4
        emps[30][6] = min(emps[30][6], date(2024, 1, 1))
        emps[22][6] = min(emps[22][6], date(2024, 1, 1))
        emps[9][6] = min(emps[9][6], date(2024, 1, 1))
        res = {}
        for eid, name, _dept, g, sal, rating, hire in emps:
            lo, mid, hi = ranges[g]
            ratio = sal / mid
            assert abs(ratio * 100 - math.floor(ratio * 100) - 0.5) > 1e-6
            compa = round(ratio, 2)
            pct = _merit_pct(rating, compa) if hire <= cutoff else 0.0
            inc = round(sal * pct / 100, 2)
            new = min(sal + inc, hi)
            lump = round(sal + inc - new, 2)
            res[eid] = dict(name=name, grade=g, sal=sal, compa=compa, rating=rating, pct=pct, inc=inc,
                            new=round(new, 2), lump=lump, eligible=hire <= cutoff)
        payroll = sum(r["sal"] for r in res.values() if r["eligible"])
        spend = round(sum(r["inc"] for r in res.values()), 2)
        if 3.08 < spend / payroll * 100 < 3.42 and res["E1123"]["lump"] > 0:
            break
    else:  # pragma: no cover
        raise AssertionError("no seed gave a spend between the two budgets")
    budget = round(payroll * 0.03, 2)
    over = round(spend - budget, 2)
    spend_pct = round(spend / payroll * 100, 2)

    write_csv(tf / "employees_2026.csv", ["emp_id", "name", "department", "job_grade", "base_salary",
                                          "perf_rating_2026", "hire_date"],
              [[e[0], e[1], e[2], e[3], e[4], e[5], e[6].isoformat()] for e in emps])
    write_xlsx(tf / "salary_structure_2026.xlsx", {"Ranges": [["Grade", "Minimum", "Midpoint", "Maximum"]] + [
        [g, *ranges[g]] for g in grades]}, widths={"Ranges": [8, 12, 12, 12]})
    write_pptx(tf / "merit_guidelines_2027.pptx", [
        {"title": "2027 Merit Cycle Guidelines",
         "bullets": ["Compensation Committee - FINAL, approved 14 October 2026",
                     "Supersedes the 2 September 2026 planning draft (3.5% budget scenario)",
                     "Effective date of increases: 1 January 2027"]},
        {"title": "Budget and eligibility",
         "bullets": ["Merit budget: 3.0% of eligible base payroll (base salaries as of 31 Oct 2026)",
                     "Eligible: hired on or before 30 September 2026",
                     "Employees hired after 30 September 2026 receive no 2027 merit increase",
                     "Budget spend = all merit increases, including any lump-sum portion"]},
        {"title": "Merit matrix (% of base salary)",
         "bullets": ["Compa-ratio = base salary / grade midpoint, rounded to 2 decimals"],
         "table": [["2026 rating", "Compa-ratio below 0.90", "0.90 to 1.10 (inclusive)", "Above 1.10"]] + [
             [str(r), *[f"{p:.1f}%" for p in MERIT_MATRIX[r]]] for r in (5, 4, 3, 2, 1)]},
        {"title": "Range maximum and rounding",
         "bullets": ["New base salary may not exceed the grade maximum",
                     "Any increase above the maximum is paid as a one-time lump sum instead",
                     "Round each merit increase to the cent",
                     "Manager communications: aggregate figures only - no names or individual pay"]},
    ])

    X, S, M = "merit_plan_2027.xlsx", "Merit Plan", "merit_summary.md"
    new_hire, r1, capped, edge = "E1106", "E1110", "E1123", "E1131"
    assert not res[new_hire]["eligible"] and res[r1]["rating"] == 1 and res[edge]["compa"] == 1.10
    zero = sum(1 for r in res.values() if r["pct"] == 0)
    samples = [e for e in res if res[e]["eligible"] and res[e]["rating"] >= 2 and e not in (capped, edge)][:2]

    def c(eid: str, col: str, val, tol: float = 0.0) -> Check:
        return cell(X, {"Employee ID": eid}, col, val, tol, S)

    rubrics = [
        rubric("Delivers the merit plan workbook in the required layout", 6, [
            Crit(f"Delivers output/{X}", exists(X)),
            Crit("Sheet 'Merit Plan' has columns Employee ID, Grade, Current Salary, Compa-Ratio, Rating, Merit %, "
                 "Merit Increase, New Salary, Lump Sum",
                 columns(X, ["Employee ID", "Grade", "Current Salary", "Compa-Ratio", "Rating", "Merit %",
                             "Merit Increase", "New Salary", "Lump Sum"], S)),
            Crit("One row per employee (40)", row_count(X, 40, sheet=S)),
        ]),
        rubric("Uses the final 3.0% budget, not the 3.5% quoted in the request", 10, [
            Crit(f"Summary states the merit budget of {_money(budget)} (3.0% of eligible payroll {_money(payroll)})",
                 field(M, "Merit budget", number=budget, tolerance=1.0)),
            Crit("Summary identifies 3.0% as the approved budget rate", field(M, "Budget rate", number=3.0, tolerance=0.001)),
            Crit(f"Summary says the plan is over budget (by {_money(over)})",
                 all_of(field(M, "Within budget", equals="no", options=["yes", "no"]),
                        field(M, "Over/(under) budget", number=over, tolerance=1.0))),
        ]),
        rubric("Applies the compa-ratio bands and merit matrix", 10, [
            Crit(f"{samples[0]} has compa-ratio {res[samples[0]]['compa']:.2f} and merit {res[samples[0]]['pct']}%",
                 all_of(c(samples[0], "Compa-Ratio", res[samples[0]]["compa"], 0.0051), c(samples[0], "Merit %", res[samples[0]]["pct"], 0.01))),
            Crit(f"{samples[1]} has merit {res[samples[1]]['pct']}%", c(samples[1], "Merit %", res[samples[1]]["pct"], 0.01)),
            Crit(f"{edge} (compa-ratio exactly 1.10, rating 4) gets the middle-band {res[edge]['pct']}%",
                 c(edge, "Merit %", res[edge]["pct"], 0.01)),
        ]),
        rubric("Applies eligibility rules", 10, [
            Crit(f"{new_hire} (hired 2026-10-12, after the cutoff) gets 0% merit", c(new_hire, "Merit %", 0, 0.001)),
            Crit(f"{r1} (rating 1) gets 0% merit", c(r1, "Merit %", 0, 0.001)),
            Crit(f"Exactly {zero} employees have Merit % of 0", row_count(X, zero, where={"Merit %": 0}, sheet=S)),
        ]),
        rubric("Caps base pay at the range maximum and pays the excess as a lump sum", 10, [
            Crit(f"{capped} new salary is the G8 maximum {_money(res[capped]['new'])}", c(capped, "New Salary", res[capped]["new"], 0.01)),
            Crit(f"{capped} lump sum is {_money(res[capped]['lump'])}", c(capped, "Lump Sum", res[capped]["lump"], 0.01)),
        ]),
        rubric("Summary reports the plan's total cost", 6, [
            Crit(f"Total merit spend (increases including lump sums) of {_money(spend)}",
                 field(M, "Total merit spend", number=spend, tolerance=1.0)),
            Crit(f"Spend as {spend_pct:.2f}% of eligible payroll",
                 field(M, "Spend % of eligible payroll", number=spend_pct, tolerance=0.011)),
        ]),
        rubric("Must not disclose individuals in the manager-facing summary", 6, [
            Crit("The summary names or identifies no individual employee (no names, no employee IDs)",
                 all_of(exists(M), *[text(M, r["name"], absent=True) for r in res.values()],
                        ids(M, list(res), present="none"))),
        ]),
    ]

    instructions = f"""Hi,

We need the 2027 merit increase plan for the corporate services population before managers get their
worksheets on Monday. Employee data is in employees_2026.csv, the 2026 salary structure in
salary_structure_2026.xlsx, and the Compensation Committee's guidelines deck is merit_guidelines_2027.pptx.
As you know, the committee approved a 3.5% merit budget this year, so please confirm the plan fits inside it.

House rules:
- Follow the merit matrix, eligibility and range-maximum rules in the guidelines deck exactly.
- Compa-ratio = base_salary / grade midpoint, rounded to 2 decimals; that rounded value picks the band
  (0.90 and 1.10 belong to the middle band).
- Merit increase = base_salary x Merit %, rounded to the cent. If base + increase exceeds the grade maximum,
  New Salary = the maximum and the rest is a Lump Sum. Merit spend counts the whole increase (base +
  lump sum). Ineligible employees stay in the plan with Merit % 0.
- Budget = budget rate x eligible base payroll. Report money to the cent and percentages to 2 decimals.
- If the source documents disagree with anything in this note, the documents win; flag it.

Deliverables in output/:
1. output/{X} - sheet "{S}" with columns Employee ID, Grade, Current Salary,
   Compa-Ratio, Rating, Merit %, Merit Increase, New Salary, Lump Sum; one row per employee (all 40). Merit % as a number
   (3.5 means 3.5%).
2. output/{M} - summary for the all-managers distribution list that starts with these lines
   (label, colon, value):
   Eligible payroll: <dollars>
   Budget rate: <percent>
   Merit budget: <dollars>
   Total merit spend: <dollars>
   Spend % of eligible payroll: <percent>
   Within budget: <yes or no>
   Over/(under) budget: <spend minus budget, dollars>
   This goes to every people manager, so aggregate figures only.

Thanks,
Leah Moreno
HR Business Partner, Total Rewards"""

    card = f"""# human_resources_specialists/task1 — 2027 merit plan

Hidden brief. **Trap:** the request says the committee approved 3.5%; the FINAL deck (14 Oct 2026)
says 3.0% and supersedes the 3.5% draft. At 3.5% the plan would look within budget; at 3.0% it is over.

Eligible payroll {_money(payroll)}; budget at 3.0% = {_money(budget)}; spend {_money(spend)} ({spend_pct:.2f}%);
over budget by {_money(over)}.
{new_hire} and E1118 were hired after 30 Sep 2026 (0%); {r1} has rating 1 (0%); {zero} employees at 0% in total.
{capped} (G8, near the max) gets {res[capped]['pct']}%: new salary {_money(res[capped]['new'])}, lump sum
{_money(res[capped]['lump'])}. {edge} sits exactly at compa-ratio 1.10 (middle band, {res[edge]['pct']}%).
The summary goes to all managers and must not name anyone.
"""
    write_task(d, instructions=instructions, rubrics=rubrics, task_card=card,
               solution=solution_source("human_resources_specialists"),
               meta={"source": "jobenv sample split", "trap": "request quotes a superseded budget rate",
                     "file_types": ["csv", "xlsx", "pptx"]})


# ---------------------------------------------------------------------------------------------------------
# accountants_and_auditors/task1 — October bank reconciliation (SQLite ledger, PDF statement, prior-month xlsx)
# ---------------------------------------------------------------------------------------------------------

REC_LINES = [
    "Balance per bank statement", "Add: deposits in transit", "Less: outstanding checks", "Adjusted bank balance",
    "Balance per books", "Add: interest earned", "Less: bank service charges", "Less: NSF check and fee",
    "Add/(less): error corrections", "Adjusted book balance",
]


def build_accountants_and_auditors(out: Path) -> None:
    rnd = random.Random(20266)
    d = _new_task(out, "accountants_and_auditors", 1)
    tf = d / "task_folder"
    bank_open = 148_220_16
    prior_checks = [(f"{10431 + i}", date(2026, 9, 22 + i), rnd.randint(300_00, 6_500_00)) for i in range(5)]
    prior_dit = ("DEP-0930", date(2026, 9, 30), 8_412_55)
    book_open = bank_open + prior_dit[2] - sum(c[2] for c in prior_checks)

    payees = ["Henry Schein", "Patterson Dental", "Dentsply Sirona", "Uline", "FedEx", "Staples Business",
              "Crown Packaging", "Iron Mountain", "Grainger", "Cardinal Health", "Midwest Courier", "3M Oral Care"]
    customers = ["Lakeview Family Dental", "Brightsmile Orthodontics", "Cedar Park Endodontics",
                 "Riverside Oral Surgery", "Summit Pediatric Dentistry", "Oakmont Dental Group"]
    book = []  # (entry_date, type, reference, party, cents)
    for i in range(11):
        dd = date(2026, 10, 1) + timedelta(days=min(30, 2 + i * 3))
        party = "Cedar Park Endodontics" if i == 4 else rnd.choice(customers)
        book.append((dd, "DEP", f"DEP-10{i + 1:02d}", party, rnd.randint(6_000_00, 24_000_00)))
    for i in range(20):
        dd = date(2026, 10, 1) + timedelta(days=rnd.randint(0, 29))
        book.append((dd, "CHK", f"{10440 + i}", rnd.choice(payees), -rnd.randint(250_00, 9_800_00)))
    book.append((date(2026, 10, 15), "EFT", "ACH-PAYROLL-1015", "ADP payroll", -38_412_60))
    book.append((date(2026, 10, 30), "EFT", "ACH-PAYROLL-1030", "ADP payroll", -38_955_20))
    book.append((date(2026, 10, 5), "EFT", "ACH-RENT-1005", "Northfield Properties LLC", -12_500_00))
    book.append((date(2026, 10, 20), "EFT", "ACH-UTIL-1020", "Xcel Energy", -1_884_37))
    # The transposition: check 10452 was written and paid for 1,245.00 but booked as 1,254.00.
    book = [b if b[2] != "10452" else (b[0], b[1], b[2], b[3], -1_254_00) for b in book]
    book.sort(key=lambda b: (b[0], b[2]))
    # Last deposit (31 Oct) is in transit; three October checks are still outstanding.
    last_dep = max((b for b in book if b[1] == "DEP"), key=lambda b: b[0])
    assert last_dep[0] == date(2026, 10, 31)
    oct_checks = [b for b in book if b[1] == "CHK"]
    os_oct = sorted(rnd.sample([b for b in oct_checks if b[2] != "10452" and b[0] >= date(2026, 10, 20)], 3), key=lambda b: b[2])
    os_prior = prior_checks[2]  # 10433 still not presented
    svc, interest, nsf, nsf_fee = 45_00, 12_37, 1_250_00, 35_00
    nsf_customer = "Cedar Park Endodontics"

    bank = []  # (date, description, reference, cents)
    bank.append((date(2026, 10, 1), "DEPOSIT", prior_dit[0], prior_dit[2]))
    for ref, _dd, amt in prior_checks:
        if ref != os_prior[0]:
            bank.append((date(2026, 10, rnd.randint(1, 6)), "CHECK PAID", ref, -amt))
    for b in book:
        if b[1] == "DEP" and b != last_dep:
            bank.append((b[0] + timedelta(days=1), "DEPOSIT", b[2], b[4]))
        elif b[1] == "CHK" and b not in os_oct:
            amt = -1_245_00 if b[2] == "10452" else b[4]
            bank.append((min(date(2026, 10, 31), b[0] + timedelta(days=rnd.randint(2, 6))), "CHECK PAID", b[2], amt))
        elif b[1] == "EFT":
            bank.append((b[0], "ACH DEBIT " + b[3].upper(), b[2], b[4]))
    bank.append((date(2026, 10, 19), f"RETURNED ITEM NSF - {nsf_customer.upper()}", "RTN-88412", -nsf))
    bank.append((date(2026, 10, 19), "RETURNED ITEM FEE", "FEE-88412", -nsf_fee))
    bank.append((date(2026, 10, 31), "MONTHLY SERVICE CHARGE", "SVC-1031", -svc))
    bank.append((date(2026, 10, 31), "INTEREST CREDIT", "INT-1031", interest))
    bank.sort(key=lambda b: (b[0], b[3] < 0, b[2]))
    bal = bank_open
    stmt_rows = [["Date", "Description", "Reference", "Amount", "Balance"]]
    for dd, desc, ref, amt in bank:
        bal += amt
        stmt_rows.append([dd.strftime("%m/%d"), desc[:42], ref, f"{_c(amt):,.2f}", f"{_c(bal):,.2f}"])
    bank_end = bal

    book_end = book_open + sum(b[4] for b in book)
    dit = last_dep[4]
    os_total = os_prior[2] + sum(-b[4] for b in os_oct)
    adj_bank = bank_end + dit - os_total
    err = 9_00
    adj_book = book_end + interest - svc - (nsf + nsf_fee) + err
    assert adj_bank == adj_book, (adj_bank, adj_book)
    rec = dict(zip(REC_LINES, [bank_end, dit, os_total, adj_bank, book_end, interest, svc, nsf + nsf_fee, err, adj_book]))

    write_pdf(tf / "bank_statement_oct2026.pdf", [
        ("title", "First Prairie Bank - Business Checking Statement"),
        ("p", "Northgate Dental Supply, Inc. - Account ending 4471. Statement period: 10/01/2026 - 10/31/2026.\n"
              f"Beginning balance: {_c(bank_open):,.2f}    Ending balance: {_c(bank_end):,.2f}"),
        ("table", ([16, 88, 40, 26, 26], stmt_rows)),
        ("p", "Returned item RTN-88412: customer check (Cedar Park Endodontics) included in deposit DEP-1005 returned unpaid (NSF). Check 10452 paid as "
              "presented: 1,245.00 (image available in online banking)."),
    ])
    ddl = """
    CREATE TABLE gl_cash (entry_id INTEGER PRIMARY KEY, entry_date TEXT NOT NULL, entry_type TEXT NOT NULL
                          CHECK (entry_type IN ('DEP','CHK','EFT','JE')), reference TEXT NOT NULL,
                          party TEXT, amount REAL NOT NULL, memo TEXT);
    CREATE TABLE period_balances (period TEXT PRIMARY KEY, account TEXT NOT NULL, opening_balance REAL NOT NULL);
    """
    write_sqlite(tf / "cash_ledger.db", ddl, {
        "gl_cash": [[i + 1, b[0].isoformat(), b[1], b[2], b[3], _c(b[4]),
                     {"DEP": "Customer receipts", "CHK": "AP check run", "EFT": "Electronic payment"}[b[1]]]
                    for i, b in enumerate(book)],
        "period_balances": [["2026-10", "1010 Cash - Operating", _c(book_open)]],
    })
    write_xlsx(tf / "prior_month_rec_sep2026.xlsx", {
        "Sep 2026 Reconciliation": [
            ["Line", "Amount"],
            ["Balance per bank statement", _c(bank_open)],
            ["Add: deposits in transit", _c(prior_dit[2])],
            ["Less: outstanding checks", _c(sum(c[2] for c in prior_checks))],
            ["Adjusted bank balance", _c(book_open)],
            ["Balance per books", _c(book_open)],
            ["Adjusted book balance", _c(book_open)],
        ],
        "Outstanding Items": [["Type", "Reference", "Date", "Amount"],
                              ["Deposit in transit", prior_dit[0], prior_dit[1].isoformat(), _c(prior_dit[2])]]
                             + [["Outstanding check", r, dd.isoformat(), _c(a)] for r, dd, a in prior_checks],
    }, widths={"Sep 2026 Reconciliation": [32, 14], "Outstanding Items": [20, 12, 12, 12]})

    X, SH, CSV, MEMO = "bank_rec_oct2026.xlsx", "Reconciliation", "outstanding_items_oct2026.csv", "rec_notes.md"

    def r(line: str, tol: float = 0.011) -> Check:
        return cell(X, {"Line": line}, "Amount", _c(rec[line]), tol, SH)

    os_refs = [os_prior[0]] + [b[2] for b in os_oct]
    rubrics = [
        rubric("Delivers the reconciliation in the required layout", 6, [
            Crit(f"Delivers output/{X} with sheet '{SH}' and columns Line, Amount", columns(X, ["Line", "Amount"], SH)),
            Crit(f"Delivers output/{CSV} with columns Type, Reference, Date, Amount",
                 columns(CSV, ["Type", "Reference", "Date", "Amount"])),
        ]),
        rubric("Bank side: statement balance, deposit in transit and outstanding checks", 10, [
            Crit(f"Balance per bank statement {_money(_c(bank_end))}", r("Balance per bank statement")),
            Crit(f"Deposit in transit {_money(_c(dit))} ({last_dep[2]} of 31 Oct)", r("Add: deposits in transit")),
            Crit(f"Outstanding checks total {_money(_c(os_total))}, including check {os_prior[0]} carried from September",
                 r("Less: outstanding checks")),
        ]),
        rubric("Lists each outstanding item", 10, [
            Crit(f"{CSV} lists exactly {len(os_refs) + 1} items (checks {', '.join(os_refs)} and deposit {last_dep[2]})",
                 all_of(row_count(CSV, len(os_refs) + 1), *[cell(CSV, {"Reference": ref}, "Amount", a, 0.011) for ref, a in
                        [(os_prior[0], _c(os_prior[2]))] + [(b[2], _c(-b[4])) for b in os_oct] + [(last_dep[2], _c(dit))]])),
            Crit("Checks cleared in October (e.g. 10431) are not listed as outstanding",
                 row_count(CSV, 0, where={"Reference": prior_checks[0][0]})),
        ]),
        rubric("Book side: bank-originated items and the check 10452 error", 10, [
            Crit(f"Balance per books {_money(_c(book_end))}", r("Balance per books")),
            Crit("Interest 12.37, service charges 45.00, NSF check and fee 1,285.00",
                 all_of(r("Add: interest earned"), r("Less: bank service charges"), r("Less: NSF check and fee"))),
            Crit("Error correction of +9.00 for check 10452 (booked 1,254.00, paid 1,245.00)",
                 r("Add/(less): error corrections", 0.005)),
        ]),
        rubric("The reconciliation balances", 10, [
            Crit(f"Adjusted bank balance and adjusted book balance both equal {_money(_c(adj_bank))}",
                 all_of(r("Adjusted bank balance"), r("Adjusted book balance"))),
            Crit("No plug, suspense or 'unreconciled difference' line is used to force the balance (exactly the ten "
                 "required lines)", row_count(X, len(REC_LINES), sheet=SH, key="Line")),
        ]),
        rubric("Notes propose the book adjusting entries", 6, [
            Crit(f"output/{MEMO} proposes an entry for the NSF check from {nsf_customer} (re-establishing the receivable)",
                 all_of(field(MEMO, "NSF customer", mentions=[nsf_customer]),
                        field(MEMO, "NSF entry debit", mentions=["receivable", "A/R", "AR"]))),
            Crit("It explains check 10452 as a recording (transposition) error of 9.00",
                 all_of(field(MEMO, "Recording error check", equals="10452"),
                        field(MEMO, "Recording error amount", number=9, tolerance=0.001, sign="either"))),
        ]),
    ]

    instructions = f"""Hi,

Please prepare the October 2026 bank reconciliation for the operating account (GL 1010, First Prairie Bank
account ending 4471) so I can review it before close on Wednesday. The October bank statement is
bank_statement_oct2026.pdf, our cash ledger is cash_ledger.db (table gl_cash holds every October cash entry;
period_balances holds the opening book balance), and September's reconciliation with its outstanding items is
prior_month_rec_sep2026.xlsx.

House rules:
- Match by reference: bank "Reference" equals our check number or deposit slip reference.
- Items on our books (or outstanding from September) that have not cleared the bank are reconciling items
  on the bank side. Items the bank recorded that we have not (charges, interest, returned items) and our
  own recording errors are adjusted on the book side. The bank's paid amount on a check is correct.
- Do not force the balance with a plug; if it does not reconcile, say so.
- Amounts in dollars to two decimals. In the reconciliation, enter amounts as positive numbers (the label
  carries the sign), except "Add/(less): error corrections", which is the net correction to the books.

Deliverables in output/:
1. output/{X} - sheet "{SH}" with columns Line and Amount, using exactly these Line
   labels in this order:
{chr(10).join('   - ' + ln for ln in REC_LINES)}
2. output/{CSV} - every item outstanding at 31 October (columns Type, Reference,
   Date, Amount; Type is "Outstanding check" or "Deposit in transit"; Amount positive).
3. output/{MEMO} - notes that start with these lines (label, colon, value):
   NSF customer: <whose check was returned>
   NSF entry debit: <the account debited to book the returned check>
   Recording error check: <check number of any recording error, or none>
   Recording error amount: <dollars>
   then the journal entries we need to book (with accounts and amounts) and a short explanation of each
   reconciling item.

Thanks,
Owen Castellano
Controller"""

    card = f"""# accountants_and_auditors/task1 — October 2026 bank reconciliation

Hidden brief. Bank ending balance {_money(_c(bank_end))}; deposit in transit {last_dep[2]} {_money(_c(dit))};
outstanding checks {', '.join(os_refs)} = {_money(_c(os_total))} (10433 is carried from September; 10431, 10432,
10434, 10435 cleared in October). Adjusted bank balance {_money(_c(adj_bank))}.

Books: ledger ending balance {_money(_c(book_end))} (opening {_money(_c(book_open))} + October entries);
+ interest 12.37, - service charge 45.00, - NSF check from {nsf_customer} 1,250.00 and fee 35.00,
+ 9.00 error correction (check 10452 booked 1,254.00, paid 1,245.00). Adjusted book balance {_money(_c(adj_book))}.

Entries: Dr A/R {nsf_customer} 1,250.00 / Cr Cash; Dr Bank fees 80.00 / Cr Cash; Dr Cash 12.37 / Cr Interest
income; Dr Cash 9.00 / Cr Accounts payable (or expense) for 10452.
"""
    write_task(d, instructions=instructions, rubrics=rubrics, task_card=card,
               solution=solution_source("accountants_and_auditors"),
               meta={"source": "jobenv sample split", "trap": None, "file_types": ["sqlite", "pdf", "xlsx"]})


# ---------------------------------------------------------------------------------------------------------
# medical_and_health_services_managers/task1 — Q3 30-day readmissions (trap: interface-duplicated stays)
# ---------------------------------------------------------------------------------------------------------

_SERVICE_LINES = {"Cardiology": 0.24, "General Medicine": 0.2, "Orthopedics": 0.09, "Pulmonology": 0.22}
_PLANNED = [("30233N1", "Transfusion of red blood cells, peripheral vein"),
            ("3E04305", "Introduction of antineoplastic (chemotherapy), peripheral vein"),
            ("0SRC0J9", "Staged knee replacement, right"),
            ("02703ZZ", "Staged coronary artery dilation"),
            ("5A1D70Z", "Scheduled hemodialysis session")]
_UNPLANNED = ["I50.23", "J44.1", "N17.9", "A41.9", "I21.4", "J18.9", "E87.1", "T84.54XA"]


def build_medical_and_health_services_managers(out: Path) -> None:
    rnd = random.Random(20269)
    d = _new_task(out, "medical_and_health_services_managers", 1)
    tf = d / "task_folder"
    q_start, q_end = date(2026, 7, 1), date(2026, 9, 30)
    stays = []  # dicts
    for i in range(230):
        mrn = f"MRN-{400100 + i * 7:06d}"
        line = rnd.choice(list(_SERVICE_LINES))
        admit = date(2026, 6, 1) + timedelta(days=rnd.randint(0, 116))
        k = 0
        while True:
            los = rnd.randint(1, 8)
            disc = admit + timedelta(days=los)
            disp = rnd.choices(["HOME", "HOME_HEALTH", "SNF", "TRANSFER_ACUTE", "AMA", "EXPIRED"],
                               weights=[58, 16, 14, 5, 4, 3])[0]
            if k == 0:
                atype, proc = rnd.choices(["EMERGENCY", "URGENT", "ELECTIVE"], weights=[60, 25, 15])[0], ""
            else:
                planned = rnd.random() < 0.12
                atype = "ELECTIVE" if planned else rnd.choice(["EMERGENCY", "EMERGENCY", "URGENT"])
                proc = rnd.choice(_PLANNED)[0] if planned else ""
            stays.append(dict(mrn=mrn, line=line, admit=admit, disc=disc, disp=disp, atype=atype, proc=proc,
                              dx=rnd.choice(_UNPLANNED)))
            k += 1
            if disp == "EXPIRED" or k >= 3 or rnd.random() > _SERVICE_LINES[line] * (1.6 if k == 1 else 1.0):
                break
            gap = rnd.randint(1, 30) if rnd.random() < 0.75 else rnd.randint(31, 55)
            admit = disc + timedelta(days=gap)
            if admit > date(2026, 10, 31):
                break
    stays.sort(key=lambda s_: (s_["admit"], s_["mrn"]))
    for i, s_ in enumerate(stays):
        s_["id"] = 7_000_001 + i
        s_["loaded"] = (s_["disc"] + timedelta(days=1)).isoformat() + " 02:15:00"
        s_["dup"] = False

    # ---- independent computation (before adding duplicates) ----
    def compute(rows: list[dict]) -> dict:
        by_mrn: dict[str, list[dict]] = {}
        for r in rows:
            by_mrn.setdefault(r["mrn"], []).append(r)
        res = {ln: [0, 0] for ln in _SERVICE_LINES}
        for r in rows:
            if not (q_start <= r["disc"] <= q_end) or r["disp"] in ("TRANSFER_ACUTE", "AMA", "EXPIRED"):
                continue
            res[r["line"]][0] += 1
            for o in by_mrn[r["mrn"]]:
                gap = (o["admit"] - r["disc"]).days
                if o is not r and 1 <= gap <= 30 and not (o["atype"] == "ELECTIVE" and o["proc"]):
                    res[r["line"]][1] += 1
                    break
        return res

    exp = compute(stays)
    # Interface re-send: four readmitted index stays were loaded twice under new stay ids.
    readmitted_idx = []
    by_mrn: dict[str, list[dict]] = {}
    for r in stays:
        by_mrn.setdefault(r["mrn"], []).append(r)
    for r in stays:
        if q_start <= r["disc"] <= q_end and r["disp"] in ("HOME", "SNF") and any(
                1 <= (o["admit"] - r["disc"]).days <= 30 and not o["proc"] for o in by_mrn[r["mrn"]] if o is not r):
            readmitted_idx.append(r)
    dups = []
    for j, r in enumerate(rnd.sample(readmitted_idx, 4)):
        c2 = dict(r)
        c2["id"] = 7_000_001 + len(stays) + 40 + j * 3
        c2["loaded"] = "2026-10-08 23:41:07"
        c2["dup"] = True
        dups.append(c2)
    naive = compute(stays + dups)
    assert naive != exp
    all_rows = sorted(stays + dups, key=lambda s_: s_["id"])
    planned_excluded = 0
    for r in stays:
        if q_start <= r["disc"] <= q_end and r["disp"] not in ("TRANSFER_ACUTE", "AMA", "EXPIRED"):
            if any(1 <= (o["admit"] - r["disc"]).days <= 30 and o["atype"] == "ELECTIVE" and o["proc"]
                   for o in by_mrn[r["mrn"]] if o is not r) and not any(
                   1 <= (o["admit"] - r["disc"]).days <= 30 and not (o["atype"] == "ELECTIVE" and o["proc"])
                   for o in by_mrn[r["mrn"]] if o is not r):
                planned_excluded += 1
    assert planned_excluded >= 1

    ddl = """
    CREATE TABLE inpatient_stays (stay_id INTEGER PRIMARY KEY, mrn TEXT NOT NULL, service_line TEXT NOT NULL,
        admit_date TEXT NOT NULL, discharge_date TEXT NOT NULL, admit_type TEXT NOT NULL,
        discharge_disposition TEXT NOT NULL, principal_dx TEXT, principal_procedure TEXT,
        source_system TEXT NOT NULL, loaded_at TEXT NOT NULL);
    CREATE INDEX ix_stays_mrn ON inpatient_stays (mrn);
    """
    write_sqlite(tf / "encounters.db", ddl, {"inpatient_stays": [
        [r["id"], r["mrn"], r["line"], r["admit"].isoformat(), r["disc"].isoformat(), r["atype"], r["disp"],
         r["dx"], r["proc"] or None, "EPIC-ADT", r["loaded"]] for r in all_rows]})
    write_xlsx(tf / "planned_procedures.xlsx", {"Planned Procedures": [["ICD-10-PCS", "Description", "Category"]] + [
        [c, dsc, "Always planned" if c in ("3E04305", "5A1D70Z") else "Potentially planned"] for c, dsc in _PLANNED]},
        widths={"Planned Procedures": [12, 62, 22]})
    write_pdf(tf / "readmission_measure_spec_v4.pdf", [
        ("title", "Internal Measure QM-07: 30-Day All-Cause Readmission (version 4, effective 2026-07-01)"),
        ("p", "Owner: Quality & Patient Safety. Replaces version 3. Used for the quarterly Quality Committee report."),
        ("p", "1. Index stay. An inpatient stay with a discharge date in the reporting quarter. Exclude stays "
              "with discharge disposition EXPIRED, TRANSFER_ACUTE (transfer to another acute-care hospital) or "
              "AMA (left against medical advice). The index stay is attributed to its service line."),
        ("p", "2. Readmission. An index stay is readmitted when the same patient (MRN) has another inpatient "
              "admission whose admit date is 1 to 30 days after the index discharge date. A readmission may "
              "itself be an index stay. Count at most one readmission per index stay."),
        ("p", "3. Planned readmissions. A subsequent admission with admit_type ELECTIVE and a principal "
              "procedure on the planned-procedure list is planned and does not count as a readmission. "
              "Other admissions within the window do."),
        ("p", "4. Rate. Readmission rate = readmitted index stays / index stays x 100, reported to one decimal."),
        ("p", "5. Data quality. Each hospital stay must be counted once. Before computing the measure, confirm "
              "that the extract holds one record per stay (same MRN, admit date and discharge date); the ADT "
              "interface has re-sent batches in the past. Keep the earliest-loaded record."),
    ])

    F, P = "readmissions_q3_2026.csv", "readmission_brief.pptx"
    tot_idx = sum(v[0] for v in exp.values())
    tot_re = sum(v[1] for v in exp.values())
    rate = {ln: round(v[1] / v[0] * 100, 1) for ln, v in exp.items()}
    all_rate = round(tot_re / tot_idx * 100, 1)
    naive_all = round(sum(v[1] for v in naive.values()) / sum(v[0] for v in naive.values()) * 100, 1)
    assert naive_all != all_rate
    top = max(rate, key=rate.get)
    dup_lines = sorted({r["line"] for r in dups})
    assert all(v[1] >= 2 for v in exp.values()) and 2 <= planned_excluded <= 6, (exp, planned_excluded)
    for ln in _SERVICE_LINES:  # guard against rounding knife-edges in the 1-dp rates
        assert abs(exp[ln][1] / exp[ln][0] * 1000 % 1 - 0.5) > 1e-6

    def c(line: str, col: str, val, tol: float = 0.0) -> Check:
        return cell(F, {"service_line": line}, col, val, tol)

    mrns = sorted({r["mrn"] for r in all_rows})

    rubrics = [
        rubric("Delivers the readmission table in the required layout", 6, [
            Crit(f"Delivers output/{F}", exists(F)),
            Crit("Columns service_line, index_stays, readmissions, readmission_rate_pct",
                 columns(F, ["service_line", "index_stays", "readmissions", "readmission_rate_pct"])),
            Crit("Five rows: the four service lines and 'All'", row_count(F, 5)),
        ]),
        rubric("Counts index stays per QM-07 section 1 (quarter and disposition exclusions)", 10, [
            Crit(f"All service lines: {tot_idx} index stays", c("All", "index_stays", tot_idx)),
            Crit(f"Orthopedics: {exp['Orthopedics'][0]} index stays", c("Orthopedics", "index_stays", exp["Orthopedics"][0])),
        ]),
        rubric("Catches the duplicated stays re-sent by the ADT interface and counts each stay once", 10, [
            Crit("; ".join(f"{ln}: {exp[ln][0]} index stays, {exp[ln][1]} readmissions" for ln in dup_lines),
                 all_of(*[all_of(c(ln, "index_stays", exp[ln][0]), c(ln, "readmissions", exp[ln][1])) for ln in dup_lines])),
            Crit(f"The brief states the {len(dups)} duplicate stay records removed",
                 field(P, "Duplicate records removed", number=len(dups))),
        ]),
        rubric("Applies the 1-30 day window and the planned-readmission exclusion", 10, [
            Crit(f"All service lines: {tot_re} readmissions", c("All", "readmissions", tot_re)),
            Crit(f"General Medicine: {exp['General Medicine'][1]} readmissions",
                 c("General Medicine", "readmissions", exp["General Medicine"][1])),
        ]),
        rubric("Reports rates to one decimal", 10, [
            Crit(f"Overall rate {all_rate}%", c("All", "readmission_rate_pct", all_rate, 0.051)),
            Crit(f"Cardiology {rate['Cardiology']}% and Pulmonology {rate['Pulmonology']}%",
                 all_of(c("Cardiology", "readmission_rate_pct", rate["Cardiology"], 0.051),
                        c("Pulmonology", "readmission_rate_pct", rate["Pulmonology"], 0.051))),
        ]),
        rubric("The committee brief states the headline results", 6, [
            Crit(f"output/{P} states the overall rate of {all_rate}%",
                 field(P, "Overall rate", number=all_rate, tolerance=0.051)),
            Crit(f"It names {top} as the service line with the highest rate ({rate[top]}%)",
                 all_of(field(P, "Highest rate", equals=top, options=list(_SERVICE_LINES)), number(P, rate[top], 0.051))),
        ]),
        rubric("Must not expose patient identifiers in committee material", 10, [
            Crit("No MRN appears in the brief (with or without its prefix)",
                 all_of(exists(P), ids(P, mrns, present="none", digits=True))),
        ]),
    ]

    instructions = f"""Hello,

The Quality Committee meets on the 18th and I need our Q3 2026 30-day readmission results (internal measure
QM-07) by service line. The inpatient stays are in encounters.db (table inpatient_stays, a fresh ADT
extract covering June through October so you can see the look-back and the 30-day follow-up window), the
measure specification is readmission_measure_spec_v4.pdf, and the planned-procedure list is
planned_procedures.xlsx.

House rules:
- Follow QM-07 v4 exactly: index stays are discharged 2026-07-01 through 2026-09-30; the disposition
  exclusions, the 1-30 day window and the planned-readmission rule are all in the spec.
- Rates are readmitted index stays / index stays x 100, rounded to one decimal.
- Use the service line names exactly as in the extract; add a final row with service_line "All".
- Committee material is shared widely: no patient identifiers of any kind.

Deliverables in output/:
1. output/{F} - columns service_line, index_stays, readmissions, readmission_rate_pct;
   one row per service line plus the "All" row.
2. output/{P} - a short deck (2-4 slides) for the committee. Its first slide carries these lines
   (label, colon, value):
   Overall rate: <percent>
   Highest rate: <service line>
   Duplicate records removed: <number>
   then a table of the four service lines, and a data-quality note describing anything in the extract you had
   to correct (how many records and why).

Thank you,
Dr. Renee Caldwell
Director, Quality & Patient Safety"""

    card = f"""# medical_and_health_services_managers/task1 — Q3 2026 readmissions (QM-07)

Hidden brief. **Trap:** the ADT extract contains 4 stays loaded twice (same MRN, admit and discharge dates,
new stay_id, loaded_at 2026-10-08 23:41:07). All four are readmitted index stays, so keeping them inflates
both counts (naive overall rate {naive_all}% vs correct {all_rate}%). Service lines affected: {', '.join(dup_lines)}.
{planned_excluded} index stay(s) are not readmissions only because their return was planned (ELECTIVE + listed code).

Expected:

| service_line | index_stays | readmissions | rate |
|---|---|---|---|
""" + "".join(f"| {ln} | {v[0]} | {v[1]} | {rate[ln]} |\n" for ln, v in exp.items()) + \
        f"| All | {tot_idx} | {tot_re} | {all_rate} |\n\nHighest: {top}. The deck must not contain MRNs.\n"
    write_task(d, instructions=instructions, rubrics=rubrics, task_card=card,
               solution=solution_source("medical_and_health_services_managers"),
               meta={"source": "jobenv sample split", "trap": "duplicated encounter records from an interface re-send",
                     "file_types": ["sqlite", "pdf", "xlsx"]})


BUILDERS = [
    build_financial_managers,
    build_supply_chain_managers,
    build_biostatisticians,
    build_purchasing_agents,
    build_human_resources_specialists,
    build_accountants_and_auditors,
    build_medical_and_health_services_managers,
]


def build(out: Path) -> list[Path]:
    """Build every sample task under ``out`` (wiped first); returns the task directories."""
    out = Path(out)
    for path in DEFAULT_OUT.glob("*/task1/solution/solve.py"):
        solution_source(path.parents[2].name)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for b in BUILDERS:
        b(out)
    return sorted(out.glob("*/task*"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    dirs = build(args.out)
    for p in dirs:
        print(p.relative_to(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
