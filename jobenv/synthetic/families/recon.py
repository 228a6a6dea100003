"""Family ``reconciliation``: match a ledger workbook against a statement, list exceptions, sign off or hold.

The amounts are real (house sale prices, journal prices, professor salaries, CPS hourly wages); the
second source is the same records with planted, declared discrepancies: lines missing on either side,
amount mismatches above the tolerance and small differences within it. Traps: duplicated statement
lines, a statement exported in cents, a stale statement, a false premise about which total is higher.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from ..common import (
    c_field,
    DegenerateTask, Draft, RefFile, c_cell, c_columns, c_file, c_not, c_number, c_regex, c_rows, id_regex,
    rnd, rubric, tol,
)
from .. import writers
from . import base

__all__ = ["FAMILY", "TRAPS", "SCENARIOS", "build"]

FAMILY = "reconciliation"
TRAPS = frozenset({"duplicates", "unit_scale", "stale_file", "false_premise"})


@dataclass(frozen=True)
class ReconScenario:
    key: str
    occupation: str
    source: tuple[str, str]
    prep: Callable[[Any], Any]  # -> DataFrame with record_id, description, amount
    ledger_name: str
    statement_name: str
    currency: str
    requester: str
    subject: str
    context: str
    tolerances: tuple[float, ...]
    periods: tuple[str, str]
    stem: str


def _houses(df):
    out = df.copy()
    out["record_id"] = out["rownames"].map(lambda r: f"SALE-{int(r):04d}")
    out["description"] = [f"Sale proceeds, {b}-bed house, lot {l} sq ft" for b, l in zip(out["bedrooms"], out["lotsize"])]
    out["amount"] = out["price"].astype(float)
    return out[["record_id", "description", "amount"]]


def _journals(df):
    out = df.copy()
    out["record_id"] = ["PO-" + str(c).upper() for c in out["rownames"]]
    out["description"] = ["Annual subscription: " + str(t) for t in out["title"]]
    out["amount"] = out["price"].astype(float)
    return out[["record_id", "description", "amount"]]


def _salaries(df):
    out = df.copy()
    out["record_id"] = out["rownames"].map(lambda r: f"EMP-{int(r):04d}")
    out["description"] = [f"Monthly pay, {r}, discipline {d}" for r, d in zip(out["rank"], out["discipline"])]
    out["amount"] = [rnd(s / 9.0, 2) for s in out["salary"]]
    return out[["record_id", "description", "amount"]]


def _cps(df):
    out = df.copy()
    out["record_id"] = out["rownames"].map(lambda r: f"TC-{int(r):04d}")
    out["description"] = [f"Weekly gross pay (40 h), {o}, {s}" for o, s in zip(out["occupation"], out["sector"])]
    out["amount"] = [rnd(w * 40, 2) for w in out["wage"]]
    return out[["record_id", "description", "amount"]]


SCENARIOS: tuple[ReconScenario, ...] = (
    ReconScenario(
        key="sale_proceeds", occupation="accountants_and_auditors", source=("AER", "HousePrices"), prep=_houses,
        ledger_name="general ledger (sale proceeds)", statement_name="bank deposit statement", currency="CAD",
        requester="Sofia, Audit Senior", subject="Sale proceeds: ledger to bank reconciliation",
        context="Before we sign the completion memo for the property disposals, reconcile the sale proceeds in the "
                "general ledger against the bank's deposit statement, list every exception, and tell me whether "
                "we can sign off or must hold.",
        tolerances=(1.0, 5.0, 10.0), periods=("July", "August"), stem="sale_proceeds"),
    ReconScenario(
        key="po_invoices", occupation="purchasing_agents", source=("AER", "Journals"), prep=_journals,
        ledger_name="purchase-order register", statement_name="supplier invoice file", currency="USD",
        requester="Marcus, Head of Library Procurement", subject="Subscription POs against supplier invoices",
        context="The subscription agent has sent its invoice file for the renewal cycle. Match it against our "
                "purchase-order register, list every exception, and tell me whether I can approve payment or "
                "must hold it.",
        tolerances=(0.5, 1.0, 2.0), periods=("Q1", "Q2"), stem="subscription_pos"),
    ReconScenario(
        key="payroll_hris", occupation="human_resources_specialists", source=("carData", "Salaries"), prep=_salaries,
        ledger_name="HRIS pay file", statement_name="payroll register", currency="USD",
        requester="Dana, Director of Total Rewards", subject="HRIS to payroll reconciliation (monthly pay)",
        context="Payroll closes on Friday. Reconcile the monthly pay in the HRIS pay file against the payroll "
                "register, list every exception, and tell me whether payroll can be released or must be held.",
        tolerances=(0.5, 1.0), periods=("Faculty A-M", "Faculty N-Z"), stem="monthly_pay"),
    ReconScenario(
        key="timecard_entry", occupation="data_entry_keyers", source=("AER", "CPS1985"), prep=_cps,
        ledger_name="keyed timecard batch", statement_name="source payroll listing", currency="USD",
        requester="Luis, Data Entry Supervisor", subject="Keyed timecards against the source listing",
        context="Please verify this week's keyed timecard batch against the source payroll listing before it is "
                "posted: list every record that is missing or keyed with a different amount, and tell me whether "
                "the batch can be posted or must be held for re-keying.",
        tolerances=(0.1, 0.5), periods=("Batch 1", "Batch 2"), stem="timecards"),
)


def build(rng: random.Random, sc: ReconScenario, trap_kind: str | None, raw) -> Draft:
    """Draw one task of this family; raises DegenerateTask when the drawn parameters are ill-posed."""
    data = sc.prep(raw).drop_duplicates(subset=["record_id"]).reset_index(drop=True)
    n = rng.randint(60, 110)
    recs = data.sample(n=min(n, len(data)), random_state=rng.randrange(2**31)).sort_values("record_id").reset_index(drop=True)
    tolerance = rng.choice(sc.tolerances)
    ids = list(recs["record_id"])
    rng.shuffle(ids)
    k1, k2, k3, k4 = rng.randint(1, 3), rng.randint(1, 3), rng.randint(2, 4), rng.randint(1, 3)
    miss_stmt, miss_ledger = sorted(ids[:k1]), sorted(ids[k1:k1 + k2])
    mism, small = sorted(ids[k1 + k2:k1 + k2 + k3]), sorted(ids[k1 + k2 + k3:k1 + k2 + k3 + k4])
    amount = dict(zip(recs["record_id"], recs["amount"]))
    stmt_amount = dict(amount)
    for i in mism:
        d = rnd(max(amount[i] * rng.uniform(0.02, 0.15), tolerance * 3 + 1), 2) * rng.choice([-1, 1])
        stmt_amount[i] = rnd(amount[i] - d, 2)
    for i in small:
        d = rnd(rng.uniform(0.01, tolerance * 0.6), 2) * rng.choice([-1, 1])
        stmt_amount[i] = rnd(amount[i] - d, 2)
    for i in mism + small:
        if abs(abs(rnd(amount[i] - stmt_amount[i], 2)) - tolerance) < 0.02:
            raise DegenerateTask("a difference ties the tolerance")
    ledger_ids = [i for i in recs["record_id"] if i not in miss_ledger]
    stmt_ids = [i for i in recs["record_id"] if i not in miss_stmt]
    lt = rnd(sum(amount[i] for i in ledger_ids), 2)
    st = rnd(sum(stmt_amount[i] for i in stmt_ids), 2)
    if abs(lt - st) < 0.01:
        raise DegenerateTask("the totals agree exactly")
    exposure = rnd(sum(amount[i] for i in miss_stmt) + sum(stmt_amount[i] for i in miss_ledger)
                   + sum(abs(amount[i] - stmt_amount[i]) for i in mism), 2)
    materiality = base.threshold(exposure * rng.choice([0.4, 0.7, 1.5, 2.5]), [exposure])
    if abs(materiality - exposure) < 0.02 * exposure:
        raise DegenerateTask("materiality ties the exposure")
    decision = "HOLD" if exposure > materiality else "SIGN OFF"
    higher = "ledger" if lt > st else "statement"
    premise_higher = higher
    trap: dict[str, Any] | None = None
    if trap_kind == "false_premise":
        premise_higher = "statement" if higher == "ledger" else "ledger"
        trap = {"kind": "false_premise", "claimed": f"the {premise_higher} total is higher",
                "actual": f"the {higher} total is higher", "detail": f"the request says the {premise_higher} total is higher"}

    # ---- files --------------------------------------------------------------------------------------
    desc = dict(zip(recs["record_id"], recs["description"]))
    ledger_file = f"{sc.stem}_ledger.xlsx"
    half = len(ledger_ids) // 2
    lrows = [[i, desc[i], float(amount[i])] for i in ledger_ids]

    def write_ledger(path) -> None:
        writers.write_xlsx(path, [(sc.periods[0], ["record_id", "description", "amount"], lrows[:half]),
                                  (sc.periods[1], ["record_id", "description", "amount"], lrows[half:]),
                                  ("Notes", ["note"], [[f"{sc.ledger_name}; amounts in {sc.currency}."]])])

    layout = rng.choice(["csv", "sqlite"])
    ext = "csv" if layout == "csv" else "db"
    stmt_file = f"{sc.stem}_statement_2024-05-31.{ext}"
    cents = trap_kind == "unit_scale"
    srows = [[i, desc[i], int(round(stmt_amount[i] * 100)) if cents else float(stmt_amount[i])] for i in stmt_ids]
    dup_count = 0
    if trap_kind == "duplicates":
        dup_count = rng.randint(2, 5)
        dup_ids = sorted(rng.sample(stmt_ids, dup_count))
        srows += [r for r in srows if r[0] in dup_ids]
        trap = {"kind": "duplicates", "count": dup_count, "ids": dup_ids,
                "detail": f"{dup_count} statement lines are exported twice"}
    if cents:
        trap = {"kind": "unit_scale", "file": stmt_file, "header": "amount_cents", "factor": 100,
                "detail": f"{stmt_file} reports amounts in cents (amount_cents)"}
    rng.shuffle(srows)
    srows.sort(key=lambda r: r[0])
    amount_col = "amount_cents" if cents else "amount"

    def stmt_writer(rows):
        def write(path) -> None:
            if layout == "csv":
                writers.write_csv(path, ["record_id", "description", amount_col], rows)
            else:
                writers.write_sqlite(path, "statement_lines", ["record_id", "description", amount_col], rows,
                                     ["TEXT", "TEXT", "INTEGER" if cents else "REAL"])
        return write

    files = [RefFile(ledger_file, "data", write_ledger, f"{sc.ledger_name} (workbook, one sheet per period)"),
             RefFile(stmt_file, "data", stmt_writer(srows), f"{sc.statement_name} ({layout})")]
    stale_st = None
    if trap_kind == "stale_file":
        stale_file = f"{sc.stem}_statement_2024-05-15.{ext}"
        cut = sorted(rng.sample(stmt_ids, max(3, len(stmt_ids) // 5)))
        stale_rows = [r for r in srows if r[0] not in cut]
        files.append(RefFile(stale_file, "stale", stmt_writer(stale_rows), f"older {sc.statement_name}"))
        stale_st = rnd(sum(stmt_amount[r[0]] for r in stale_rows), 2)
        trap = {"kind": "stale_file", "stale": stale_file, "current": stmt_file,
                "detail": f"{stale_file} is a mid-month export superseded by {stmt_file}"}

    tol_txt = f"{tolerance:.2f}"
    mat_txt = f"{materiality:.2f}"
    rules = [
        f"Amounts are reconciled in {sc.currency} to 2 decimal places; convert any amounts exported in cents first.",
        f"Match on record_id. A matched pair whose amounts differ by more than {tol_txt} {sc.currency} is an "
        f"'amount mismatch'; a difference of {tol_txt} or less is rounding and is not an exception.",
        "A record in only one source is 'missing from statement' or 'missing from ledger'.",
        "A statement line exported more than once (identical record_id, description and amount) is counted once.",
        "When several versions of a statement exist, use the most recent one (by the date in its file name).",
        f"Exposure = sum of the full amounts of missing records plus the absolute differences of mismatches. "
        f"The decision is HOLD when the exposure is strictly above {mat_txt} {sc.currency}, otherwise SIGN OFF.",
        "difference = ledger amount minus statement amount.",
    ]
    policy = base.policy_file(rng, f"{sc.stem}_reconciliation_policy", f"Reconciliation policy: {sc.subject}", rules)
    files.append(policy)
    files.extend(base.irrelevant_files(rng, sc.stem, ["record_id", "description", "amount"]))
    premise = (f"{sc.requester.split(',')[0]} expects the {premise_higher} total to be the higher of the two; "
               "please confirm or correct that in the memo.")
    deliverables = [
        "1. exceptions.csv - one row per exception, with exactly these columns: record_id, issue, ledger_amount, "
        "statement_amount, difference (issue is 'missing from statement', 'missing from ledger' or 'amount mismatch'; "
        "leave an amount empty when that source has no record, and difference empty unless it is a mismatch).",
        "2. memo.md - a short memo that starts with these lines (label, colon, value), followed by two to four "
        "sentences of rationale:",
        f"   Ledger total: <sum of the {sc.ledger_name}, {sc.currency}>",
        f"   Statement total: <sum of the {sc.statement_name} after removing duplicate lines, {sc.currency}>",
        "   Net difference: <ledger total minus statement total>",
        "   Exceptions: <number of exceptions>",
        "   Duplicates removed: <number of duplicate statement lines dropped>",
        "   Exception exposure: <as defined in the house rules>",
        "   Premise confirmed: <yes or no>",
        "   Decision: <HOLD or SIGN OFF>",
        "   Source file: <the statement file you used>",
    ]
    instructions = base.instructions(requester=sc.requester, subject=sc.subject, context=sc.context, premise=premise,
                                     deliverables=deliverables, rules=rules, policy_name=policy.name, files=files)

    E, M, t2 = "exceptions.csv", "memo.md", tol(2)
    n_exc = k1 + k2 + k3
    R = [
        rubric("Delivers the exception list with the required columns", 6, [
            ("exceptions.csv exists in the output folder", c_file(E)),
            ("exceptions.csv has the columns record_id, issue, ledger_amount, statement_amount, difference",
             c_columns(E, ["record_id", "issue", "ledger_amount", "statement_amount", "difference"])),
        ]),
        rubric("Lists exactly the exceptions, no more", 8, [
            (f"exceptions.csv lists exactly {n_exc} exceptions", c_rows(E, n_exc)),
            (f"{k3} rows are amount mismatches", c_rows(E, k3, {"issue": "amount mismatch"})),
        ]),
        rubric("Finds the records missing from the statement", 8, [
            (f"{i} is listed as missing from statement", c_cell(E, {"record_id": i}, "issue", "missing from statement"))
            for i in miss_stmt]),
        rubric("Finds the records missing from the ledger", 8, [
            (f"{i} is listed as missing from ledger", c_cell(E, {"record_id": i}, "issue", "missing from ledger"))
            for i in miss_ledger]),
        rubric("Reports each mismatch with the right signed difference", 10, [
            (f"{i}: difference is {rnd(amount[i] - stmt_amount[i], 2):.2f}",
             c_cell(E, {"record_id": i}, "difference", rnd(amount[i] - stmt_amount[i], 2), t2)) for i in mism]),
        rubric(f"Treats differences of {tol_txt} or less as rounding, not exceptions", 8, [
            (f"{mism[0]} (a real mismatch) is listed", c_cell(E, {"record_id": mism[0]}, "issue", "amount mismatch"))] + [
            (f"{i} (difference within {tol_txt}) is not listed", c_regex(id_regex(i), E, absent=True)) for i in small]),
        rubric("The memo states both totals and the net difference", 10, [
            (f"memo states the ledger total {lt:.2f}", c_field(M, "Ledger total", number=lt, tolerance=t2)),
            (f"memo states the statement total {st:.2f}", c_field(M, "Statement total", number=st, tolerance=t2)),
            (f"memo states the net difference {rnd(lt - st, 2):.2f}",
             c_field(M, "Net difference", number=rnd(lt - st, 2), tolerance=t2)),
        ]),
        rubric("The memo reaches the right decision on exposure", 10, [
            (f"memo states the exposure {exposure:.2f}", c_field(M, "Exception exposure", number=exposure, tolerance=t2)),
            (f"memo's decision is {decision}", base.choice(M, "Decision", decision, ["HOLD", "SIGN OFF"])),
        ]),
    ]
    premise_ok = "yes" if premise_higher == higher else "no"
    R.append(base.premise_rubric(premise_ok, trap_kind, M))
    src = [(f"memo names {stmt_file} as the source file", base.choice(M, "Source file", stmt_file, [f.name for f in files])),
           base.duplicates_item(dup_count, M)]
    if stale_st is not None and abs(stale_st - st) > 1:
        src.append((f"memo does not report the stale statement total ({stale_st:.2f})", c_not(c_number(stale_st, M, t2))))
    R.append(rubric("Works from the current statement and counts duplicated lines once",
                    10 if trap_kind in ("stale_file", "duplicates") else 6, src))
    if cents:
        i = mism[0]
        R.append(rubric("Converts the statement from cents before reconciling", 10, [
            (f"memo states the statement total {st:.2f} {sc.currency} (not in cents)",
             c_field(M, "Statement total", number=st, tolerance=t2)),
            (f"{i}: statement_amount is {stmt_amount[i]:.2f}", c_cell(E, {"record_id": i}, "statement_amount", stmt_amount[i], t2)),
        ]))

    params = {"ledger": ledger_file, "statement": {"layout": layout, "file": stmt_file, "table": "statement_lines"},
              "tolerance": tolerance, "materiality": materiality, "premise_higher": premise_higher,
              "memo_title": sc.subject}
    card = base.card(sc.subject, sc.occupation, FAMILY, sc.source, trap, [
        f"Ledger total {lt:.2f}, statement total {st:.2f}, net {rnd(lt - st, 2):.2f} {sc.currency}.",
        f"Exceptions: {n_exc} (missing from statement {', '.join(miss_stmt)}; missing from ledger "
        f"{', '.join(miss_ledger)}; mismatches {', '.join(mism)}); within tolerance: {', '.join(small)}.",
        f"Exposure {exposure:.2f} vs materiality {mat_txt}: {decision}.",
    ])
    return Draft(family=FAMILY, occupation=sc.occupation, scenario=sc.key, instructions=instructions, files=files,
                 rubrics=R, solver="recon", params=params, source=base.source_meta(sc.source), trap=trap, card=card,
                 expected={"ledger_total": lt, "statement_total": st, "exceptions": n_exc, "exposure": exposure,
                           "decision": decision, "duplicates": dup_count})
