"""A retention campaign's dialler list (who is eligible for which save offer) and what the offers are expected to
cost and save, for the Retention Team Lead (customer service representatives).

A telecom provider's CRM export is generated: 1,200-1,800 active accounts, start dates uniform 30-3,000 days before
the campaign date, contract end dates uniform from 150 days before to 700 days after it, monthly ARPU log-normal
(median 55, sigma 0.45, 15-250), the CRM do-not-contact flag on 3 %. The compliance suppression file lists 2 % of
the accounts (and some closed ones); 3 % of the accounts were merged from an older account (merge log); 12 % have
1-2 retention offers in the history (offered uniform 5-900 days before, accepted 35 %, declined 45 %, no response
20 %). Planted on top: 1-2 contracts ending exactly on the 60th day (one on the 61st); 2-3 merged accounts whose own
start is 2-10 months back but whose original account is 2-7 years old; 2-3 accounts on the suppression file only;
2 accounts whose only acceptance is 13-23 months old and 1-2 with a recent declined offer; an agent's promised top
offer in the CRM notes for two accounts (one of them the account of the agent's e-mail, which is eligible or has an
acceptance 2-8 months old); accounts between the current and the superseded ARPU floors. The planted boundary,
merged and history accounts are Tier A under both band tables (ARPU from the higher A floor + 5 to 160). The current
rules (docx) state every convention; the superseded version (pdf) has other ARPU bands.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed or a planted trap moves no graded
figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_list, fld_num, llm, rubric
from ..compose import person
from ..writers import write_csv, write_text
from .base import Draft, Facts, Workflow, day, iso, pick_labels, read_rows, write_files
from .retention_docs import NOTE_TEXTS, workspace

__all__ = ["RETENTION_OFFER_LIST"]

SHORTCUTS = ("boundary_exclusive", "merge_start", "crm_dnc_only", "history_any", "old_bands", "honour_promise",
             "full_term_cost")
_LABELS = {
    "count": ("Accounts on the dialler list", "Eligible accounts", "Accounts to call"),
    "tier": ("Tier {t} accounts", "Accounts offered tier {t}", "Tier {t} eligible accounts"),
    "offer_cost": ("{code} 12-month cost", "12-month cost of {code}", "{code} cost per acceptance (12 months)"),
    "saves": ("Expected saves", "Expected saved accounts", "Saves expected"),
    "cost": ("Expected offer cost (12 months)", "Expected 12-month offer cost", "Expected cost of accepted offers"),
    "revenue": ("Expected saved revenue (12 months)", "Expected 12-month saved revenue", "Saved revenue expected"),
    "dnc": ("Excluded as do-not-contact", "Do-not-contact exclusions", "Left off for do-not-contact"),
    "decision": ("Expected cost within the offer budget", "Campaign fits the offer budget",
                 "Offer budget covers the expected cost"),
    "premise": ("{acct} on the dialler list", "{acct} eligible for the campaign", "Account {acct} qualifies"),
}
_COLS = {"account": ("account_id", "acct_no", "account_number"), "offer": ("offer_code", "offer", "save_offer"),
         "priority": ("priority", "call_priority", "dial_priority")}
_DIRS = {"crm": ("crm_exports", "crm", "data/crm"), "policy": ("policies", "retention_rules", "playbooks"),
         "comp": ("compliance", "dnc", "compliance/suppression"), "mail": ("correspondence", "email", "inbox"),
         "campaign": ("campaigns", "campaign_history", "dialler")}
_PLANS = ("Essential", "Plus", "Pro", "Ultra", "Plus TV", "Ultra TV")


# ---- the independent computation: csv only ----------------------------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: one pass over the csv rows per test."""
    folder, F = Path(folder), P["files"]
    T = day(P["campaign"])
    a_year = dt.date(T.year - 1, T.month, 28 if (T.month, T.day) == (2, 29) else T.day)
    last = T + dt.timedelta(days=int(P["window_days"]))
    origin: dict[str, dt.date] = {}
    for m in read_rows(folder / F["merges"]):
        k = m["surviving_account"].strip()
        origin[k] = min([day(m["merged_account_start"].strip())] + ([origin[k]] if k in origin else []))
    quiet = {r["account_id"].strip() for r in read_rows(folder / F["suppression"])}
    took = {h["account_id"].strip() for h in read_rows(folder / F["history"])
            if h["outcome"].strip().lower() == "accepted" and a_year <= day(h["outcome_date"].strip()) <= T}
    cat = {o["tier"].strip(): o for o in read_rows(folder / F["offers"]) if o["status"].strip().lower() == "active"}
    rate = {t: float(o["take_rate"]) for t, o in cat.items()}
    c12 = {t: round(float(o["monthly_discount"]) * min(12, int(o["discount_months"])) + float(o["one_off_cost"]) + 1e-9, 2)
           for t, o in cat.items()}
    listed: list[tuple[str, float, str, str]] = []
    dnc: list[str] = []
    for c in read_rows(folder / F["customers"]):
        acct = c["account_id"].strip()
        began = min(day(c["start_date"].strip()), origin.get(acct, dt.date.max))
        ends = day(c["contract_end"].strip())
        if began > a_year or not T <= ends <= last or acct in took:
            continue
        if c["dnc_flag"].strip().upper() in ("Y", "YES", "TRUE", "1") or acct in quiet:
            dnc.append(acct)
            continue
        arpu = float(c["arpu"])
        tier = "A" if arpu >= P["bands"]["A"] else "B" if arpu >= P["bands"]["B"] else "C"
        listed.append((iso(ends), arpu, acct, tier))
    listed.sort(key=lambda x: (x[0], -x[1], x[2]))
    rows: list[dict[str, Any]] = [{"account": a, "tier": t, "offer": cat[t]["offer_code"].strip(), "arpu": arpu, "contract_end": e,
             "priority": k} for k, (e, arpu, a, t) in enumerate(listed, 1)]
    n = {t: sum(1 for x in rows if x["tier"] == t) for t in "ABC"}
    cost = sum(n[t] * rate[t] * c12[t] for t in "ABC")
    return {"rows": rows, "count": len(rows), "tiers": n,
            "offer_cost": {cat[t]["offer_code"].strip(): c12[t] for t in "ABC"},
            "saves": _half_up(sum(n[t] * rate[t] for t in "ABC"), 1), "cost": _half_up(cost, 2),
            "revenue": _half_up(sum(rate[str(x["tier"])] * 12 * float(x["arpu"]) for x in rows), 2), "dnc": sorted(dnc),
            "decision": _half_up(cost, 2) <= float(P["budget"]), "premise": P["focus"] in {x["account"] for x in rows}}


def _half_up(x: float, places: int) -> float:
    scale = 10 ** places
    return math.floor(abs(x) * scale + 0.5 + 1e-7) / scale * (1 if x >= 0 else -1)


# ---- drawing a task ----------------------------------------------------------------------------------------

def _base(rng: random.Random, T: dt.date) -> dict[str, Any]:
    """The background CRM population, suppression file, merge log and offer history."""
    n = rng.randint(1200, 1800)
    ids = [f"AC{x:07d}" for x in rng.sample(range(1_000_000, 9_999_999), n + 40)]
    spare = ids[n:]
    cust: dict[str, dict[str, Any]] = {}
    for a in ids[:n]:
        start = T - dt.timedelta(days=rng.randint(30, 3000))
        end = max(T + dt.timedelta(days=rng.randint(-150, 700)), start + dt.timedelta(days=365))
        arpu = min(250.0, max(15.0, math.exp(rng.gauss(math.log(55), 0.45))))
        cust[a] = {"start": start, "end": end, "arpu": round(arpu, 2), "dnc": rng.random() < 0.03,
                   "plan": rng.choice(_PLANS)}
    supp = [a for a in ids[:n] if rng.random() < 0.02] + spare[:rng.randint(5, 15)]
    merges = []
    for a in ids[:n]:
        if rng.random() < 0.03:
            old = cust[a]["start"] - dt.timedelta(days=rng.randint(30, 1500))
            merges.append([a, f"AC{rng.randint(1_000_000, 9_999_999)}", iso(old), iso(cust[a]["start"])])
    hist = []
    for a in ids[:n]:
        if rng.random() < 0.12:
            for _ in range(rng.randint(1, 2)):
                off = T - dt.timedelta(days=rng.randint(5, 900))
                out = rng.choices(("accepted", "declined", "no_response"), (35, 45, 20))[0]
                hist.append([a, off, out, min(T, off + dt.timedelta(days=rng.randint(0, 14)))])
    return {"cust": cust, "supp": supp, "merges": merges, "hist": hist, "spare": spare[20:]}


def _plant(rng: random.Random, W: dict[str, Any], T: dt.date, P: dict[str, Any], targets: dict[str, bool]) -> None:
    """The planted accounts of the traps, each on fresh account numbers."""
    cust, spare = W["cust"], W["spare"]
    b, ob = P["bands"], P["old_bands"]

    def far() -> float:  # Tier A under both the current and the archived bands (A is never the commonest offer)
        return round(rng.uniform(max(b["A"], ob["A"]) + 5, 160), 2)

    def new(role: str, *, start_days: int | None = None, end_days: int | None = None,
            arpu: float | None = None) -> str:
        a = spare.pop()
        s = T - dt.timedelta(days=start_days if start_days is not None else rng.randint(500, 2800))
        e = T + dt.timedelta(days=end_days if end_days is not None else rng.randint(3, 57))
        v = arpu if arpu is not None else round(math.exp(rng.gauss(math.log(55), 0.4)), 2)
        cust[a] = {"start": s, "end": e, "arpu": v, "dnc": False, "plan": rng.choice(_PLANS), "role": role}
        return a

    for _ in range(rng.randint(1, 2)):
        new("boundary", end_days=60, arpu=far())
    new("beyond", end_days=61)
    for _ in range(rng.randint(2, 3)):
        a = new("merged", start_days=rng.randint(60, 300), arpu=far())
        W["merges"].append([a, f"AC{rng.randint(1_000_000, 9_999_999)}",
                            iso(T - dt.timedelta(days=rng.randint(730, 2500))), iso(cust[a]["start"])])
    for _ in range(rng.randint(2, 3)):
        W["supp"].append(new("suppressed"))
    for _ in range(2):
        a = new("old_accept", arpu=far())
        off = T - dt.timedelta(days=rng.randint(400, 700))
        W["hist"].append([a, off, "accepted", off + dt.timedelta(days=rng.randint(0, 7))])
    for _ in range(rng.randint(1, 2)):
        a = new("declined", arpu=far())
        off = T - dt.timedelta(days=rng.randint(30, 300))
        W["hist"].append([a, off, "declined", off + dt.timedelta(days=rng.randint(0, 7))])
    for lo, hi in ((b["B"], P["old_bands"]["B"]), (b["A"], P["old_bands"]["A"])):
        new("band", arpu=round(rng.uniform(min(lo, hi) + 0.5, max(lo, hi) - 0.5), 2))
    low = round(rng.uniform(20, b["B"] - 2), 2)
    W["promised"] = [new("promise", arpu=low), new("focus", arpu=round(rng.uniform(b["B"] + 1, b["A"] - 1), 2))]
    if not targets["premise"]:
        off = T - dt.timedelta(days=rng.randint(60, 240))
        W["hist"].append([W["promised"][1], off, "accepted", off + dt.timedelta(days=rng.randint(0, 7))])


def _offers(rng: random.Random) -> tuple[list[list[Any]], str]:
    """The offer catalogue: one active offer per tier (Tier A's discount runs past 12 months) and two retired."""
    prefix = rng.choice(("RET", "SAVE", "LOY"))
    a_m, c_m = rng.choice((18, 24)), rng.choice((3, 6))
    a_d, b_d, c_d = rng.choice((10, 12, 15)), rng.choice((6, 8, 10)), rng.choice((3, 4, 5))
    rows: list[list[Any]] = [
        [f"{prefix}-A{a_m}", "A", f"{a_d} off for {a_m} months", a_d, a_m, 0.0, round(rng.uniform(0.30, 0.45), 2),
         "active"],
        [f"{prefix}-B12", "B", f"{b_d} off for 12 months", b_d, 12, rng.choice((0.0, 25.0)),
         round(rng.uniform(0.22, 0.35), 2), "active"],
        [f"{prefix}-C{c_m}", "C", f"{c_d} off for {c_m} months", c_d, c_m, rng.choice((0.0, 10.0)),
         round(rng.uniform(0.15, 0.25), 2), "active"],
        [f"WB-A{rng.choice((6, 12))}", "A", "winback credit (retired)", 20, 12, 0.0, 0.5, "retired"],
        [f"{prefix}-C12", "C", "5 off for 12 months (retired with the old bands)", 5, 12, 0.0, 0.3, "retired"]]
    return rows, rows[0][0]


def _data(P: dict[str, Any], W: dict[str, Any]) -> dict[str, Any]:
    F, r2 = P["files"], random.Random(P["campaign"] + P["focus"])
    cust = [[a, c["plan"], iso(c["start"]), iso(c["end"]), f"{c['arpu']:.2f}", "Y" if c["dnc"] else "N"]
            for a, c in sorted(W["cust"].items())]
    supp = [[a, iso(day(P["campaign"]) - dt.timedelta(days=r2.randint(3, 700))),
             r2.choice(("customer request", "complaint", "regulator TPS match", "vulnerable customer"))]
            for a in sorted(set(W["supp"]))]
    hist = [[a, f"{r2.choice(('RET', 'WB', 'SAVE'))}-{r2.choice('ABC')}{r2.choice((6, 12, 24))}", iso(o), out, iso(d)]
            for a, o, out, d in sorted(W["hist"], key=lambda h: (h[1], h[0]))]
    accts = sorted(W["cust"])
    notes = [[a, iso(day(P["campaign"]) - dt.timedelta(days=r2.randint(2, 400))), person(r2), r2.choice(NOTE_TEXTS)]
             for a in r2.sample(accts, 120)]
    for a in W["promised"]:
        notes.append([a, iso(day(P["campaign"]) - dt.timedelta(days=r2.randint(4, 12))), W["agent"],
                      f"Customer threatening to leave at renewal. Promised {W['promised_code']} on the retention "
                      "campaign."])
    notes.sort(key=lambda x: (x[1], x[0]))
    return {
        F["customers"]: lambda p: write_csv(p, ["account_id", "plan", "start_date", "contract_end", "arpu",
                                                "dnc_flag"], cust),
        F["merges"]: lambda p: write_csv(p, ["surviving_account", "merged_account", "merged_account_start",
                                             "merge_date"], sorted(W["merges"])),
        F["suppression"]: lambda p: write_csv(p, ["account_id", "added_date", "reason"], supp),
        F["history"]: lambda p: write_csv(p, ["account_id", "offer_code", "offered_date", "outcome", "outcome_date"],
                                          hist),
        F["offers"]: lambda p: write_csv(p, ["offer_code", "tier", "description", "monthly_discount",
                                             "discount_months", "one_off_cost", "take_rate", "status"], W["offers"]),
        F["notes"]: lambda p: write_csv(p, ["account_id", "note_date", "agent", "note"], notes),
    }


def _solve(P: dict[str, Any], W: dict[str, Any], naive: tuple[str, ...] = ()) -> Facts:
    from ..solvers.retention import analyse

    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), _data(P, W))
        return analyse(tmp, P, naive)


def _graded(f: Facts) -> Any:
    return ([(x["account"], x["offer"], x["priority"]) for x in f["rows"]], f["tiers"], f["offer_cost"], f["saves"],
            f["cost"], f["revenue"], f["dnc"])


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    dirs = pick_labels(rng, _DIRS)
    T = dt.date(2026, rng.randint(2, 10), rng.randint(1, 28))
    lo, hi = rng.choice(((40, 75), (45, 80), (45, 85), (50, 90)))
    old = rng.choice(((lo + 10, hi + 15), (lo - 5, hi + 20)))
    tag = f"{T:%Y%m%d}"
    P: dict[str, Any] = {
        "campaign": iso(T), "window_days": 60, "bands": {"B": float(lo), "A": float(hi)},
        "old_bands": {"B": float(old[0]), "A": float(old[1])}, "budget": 0.0, "focus": "",
        "files": {"customers": f"{dirs['crm']}/customer_export_{tag}.csv",
                  "merges": f"{dirs['crm']}/account_merge_log.csv",
                  "suppression": f"{dirs['comp']}/dnc_suppression_{tag}.csv",
                  "history": f"{dirs['crm']}/retention_offer_history.csv",
                  "offers": f"{dirs['policy']}/offer_catalogue.csv", "notes": f"{dirs['crm']}/crm_notes_export.csv"},
        "columns": pick_labels(rng, _COLS),
        "deliverables": {"list": rng.choice((f"dialler_list_{tag}.csv", "retention_dialler_upload.csv")),
                         "memo": rng.choice(("retention_campaign_note.md", f"campaign_cost_note_{tag}.docx"))}}
    W = _base(rng, T)
    W["offers"], W["promised_code"] = _offers(rng)
    W["agent"], W["version"] = person(rng), rng.randint(3, 7)
    _plant(rng, W, T, P, targets)
    P["focus"] = W["promised"][1]
    P["offer_codes"] = sorted(o[0] for o in W["offers"] if o[7] == "active")
    first = _solve(P, W)
    g = rng.uniform(0.04, 0.12)
    P["budget"] = float(round(first["cost"] * (1 + g if targets["decision"] else 1 - g) / 50) * 50)
    truth = _solve(P, W)
    if (truth["decision"], truth["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the targets are missed")
    role = {a: c.get("role", "") for a, c in W["cust"].items()}
    on = {x["account"]: x for x in truth["rows"]}
    want_on = {"boundary": True, "beyond": False, "merged": True, "suppressed": False, "old_accept": True,
               "declined": True, "band": True, "promise": True, "focus": targets["premise"]}
    if any((a in on) != want_on[r] for a, r in role.items() if r):
        raise DegenerateTask("a planted account missed its determination")
    offers = [x["offer"] for x in truth["rows"]]
    if max(set(offers), key=offers.count) == W["promised_code"]:
        raise DegenerateTask("the top tier's offer is the commonest (a guessed offer column would match it)")
    singles = {s: _solve(P, W, (s,)) for s in SHORTCUTS}
    where = {"boundary_exclusive": ("data", "contracts ending on the 60th day are inside the window"),
             "merge_start": ("data", "a merged account's tenure runs from the original account's start (merge log)"),
             "crm_dnc_only": ("data", "the compliance suppression file overrides the CRM do-not-contact flag"),
             "history_any": ("data", "only offers accepted in the 12 months before the campaign date exclude"),
             "old_bands": ("memo", "the current rules' ARPU bands supersede the archived version's"),
             "honour_promise": ("email", "an offer an agent promised outside the bands is not put on the list"),
             "full_term_cost": ("footnote", "an offer's cost counts at most 12 months of its discount")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s} for s, f in singles.items()
             if _graded(f) != _graded(truth)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask(f"a planted trap moves no graded figure: {sorted(set(SHORTCUTS) - {t['naive'] for t in traps})}")
    old_tier = {x["account"]: x["tier"] for x in singles["old_bands"]["rows"]}
    P["probe"] = {r: sorted(a for a, x in role.items() if x == r) for r in want_on}
    P["probe"]["band"] = sorted(a for a in on if old_tier.get(a) != on[a]["tier"])[:3]
    P["probe"]["mid"] = [truth["rows"][len(truth["rows"]) // 2]["account"]]
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(acct=P["focus"])
    P["labels"] = labels
    prev = T - dt.timedelta(days=rng.randint(28, 35))
    W["previous"] = (prev, [[a, rng.choice([o[0] for o in W["offers"]]), k + 1]
                            for k, a in enumerate(rng.sample(sorted(W["cust"]), 60))])
    W["results"] = [[iso(prev - dt.timedelta(days=30 * k)), rng.randint(60, 140), rng.randint(10, 40),
                     round(rng.uniform(0.18, 0.34), 2)] for k in range(6)]
    files = _data(P, W)
    extra, roles = workspace(rng, P, W, dirs, T)
    files.update(extra)
    files[f"{dirs['comp']}/README.txt"] = lambda p: write_text(p, (
        "The suppression file is refreshed weekly from the compliance system (customer requests, complaints, TPS "
        "matches, vulnerable-customer flags). The CRM dnc_flag is synced monthly and can lag behind it.\n"))
    roles |= {k: "data" for k in P["files"].values()} | {f"{dirs['comp']}/README.txt": "reference"}
    return Draft(subject=f"Retention campaign dialler list {iso(T)}", instructions=_prompt(rng, P, files),
                 files=files, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="1,200-1,800 accounts: start uniform 30-3,000 d back, contract end uniform -150..+700 "
                               "d, ARPU log-normal median 55 sigma 0.45 (15-250), CRM DNC 3 %, suppression 2 %, "
                               "merges 3 %, offer history on 12 % (accepted 35 %, declined 45 %, no response 20 %); "
                               "planted boundary, merged, suppressed, old-acceptance, declined, band and promise "
                               "accounts")


def _prompt(rng: random.Random, P: dict[str, Any], files: dict[str, Any]) -> str:
    L, D, C = P["labels"], P["deliverables"], P["columns"]
    boss = person(rng)
    T = day(P["campaign"])
    steps = [
        f"Build the eligible base from the CRM export as at the campaign date {P['campaign']}: at least 12 months' "
        "tenure on the campaign date (a merged account counts from the start of the earliest account merged into "
        "it, per the merge log), a contract ending from the campaign date to 60 days after it with both days "
        "included, and no retention offer accepted in the 12 months before the campaign date (declined or "
        "unanswered offers, and acceptances older than that, do not exclude).",
        "Leave off every do-not-contact account: the CRM flag or the compliance suppression file, whichever lists "
        "it (the suppression file overrides the CRM).",
        "Give each account the active offer of its ARPU tier under the current campaign rules (the band table of "
        "the current version; offers follow the band only).",
        "Cost each active offer over the first 12 months after acceptance (monthly discount for at most 12 months, "
        "plus any one-off cost) and work out, at each tier's take rate in the offer catalogue, the expected saves "
        "(one decimal), the expected offer cost and the expected saved revenue (take rate x 12 x monthly ARPU, "
        "summed over the list); money to two decimals, rounded half up.",
        f"Tell me whether the expected offer cost fits the budget finance gave us, and whether the agent who wrote "
        f"about account {P['focus']} is right that it belongs on the list."]
    memo = [f"{L['count']}: <whole number>", *[f"{L['tier'].format(t=t)}: <whole number>" for t in "ABC"],
            *[f"{L['offer_cost'].format(code=c)}: <amount, 2 decimals>" for c in P["offer_codes"]],
            f"{L['saves']}: <number, 1 decimal>", f"{L['cost']}: <amount, 2 decimals>", f"{L['revenue']}: <amount, 2 decimals>",
            f"{L['dnc']}: <account numbers separated by semicolons, or none>",
            f"{L['decision']}: <yes or no>", f"{L['premise']}: <yes or no>"]
    deliv = [f"{D['list']}: the dialler upload, columns {C['account']}, {C['offer']}, {C['priority']}; one row per "
             "eligible account; priority numbered from 1 (soonest contract end first, then the higher ARPU, then the "
             "lower account number).",
             f"{D['memo']}: a note to me opening with these labelled lines (label: value), then a short explanation "
             f"of the exclusions and the cost. {L['dnc']} means the accounts that pass every other test but are "
             "do-not-contact.\n" + "\n".join(f"   {x}" for x in memo)]
    return "\n\n".join([
        rng.choice((f"From: {boss}, Retention Team Lead\nSubject: Retention campaign {iso(T)}\n\n",
                    f"Hi - {boss} here.\n\n"))
        + rng.choice(("The retention campaign is being planned. Who is eligible for which save offer, and what "
                      "will the offers cost us?", "Please put together this month's retention dialler list and what "
                      "the save offers are expected to cost and bring back.")),
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Please leave in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliv, 1)),
        "Thanks.\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(files)),
    ]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, IdsCheck, RowCountCheck

    D, L, C, R = P["deliverables"], P["labels"], P["columns"], P["probe"]
    lst, memo = D["list"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    on = {x["account"]: x for x in facts["rows"]}

    def count(label: str, v: int) -> tuple[str, Any]:
        return f"{memo}: {label} = {v}", FieldCheck(file=memo, label=label, number=float(v), tolerance=0.0)

    def ids(accts: list[str], present: bool, what: str = "") -> tuple[str, Any]:
        return (f"{lst} {'lists' if present else 'does not list'} {what or '; '.join(accts)}",
                IdsCheck(file=lst, ids=list(accts), present="all" if present else "none"))

    def cell(a: str, key: str) -> tuple[str, Any]:
        v: Any = on[a][key] if key == "offer" else float(on[a][key])
        return (f"{lst}: {a} {C[key]} = {on[a][key]}",
                CellCheck(file=lst, match={C["account"]: a}, column=C[key], value=v))

    def money(key: str, label: str, v: float, places: int = 2) -> tuple[str, Any]:
        return f"{memo}: {label} = {v:.{places}f}", fld_num(memo, label, v, places)

    n = count(L["count"], facts["count"])
    tiers = [count(L["tier"].format(t=t), facts["tiers"][t]) for t in "ABC"]
    costs = [money("c", L["offer_cost"].format(code=c), v) for c, v in sorted(facts["offer_cost"].items())]
    cost = money("cost", L["cost"], facts["cost"])
    dnc = (f"{memo}: {L['dnc']}: {'; '.join(facts['dnc']) or 'none'}", fld_list(memo, L["dnc"], facts["dnc"])
           if facts["dnc"] else fld(memo, L["dnc"], "none"))
    focus = P["focus"]
    pr = [x for x in (facts["rows"][0]["account"], *R["boundary"][:1], *R["mid"]) if x in on]
    out = [
        rubric("Builds the eligible base: tenure, the renewal window and acceptances in the last 12 months", 10, [
            (f"{lst} has {facts['count']} rows", RowCountCheck(file=lst, key=C["account"], count=facts["count"])),
            ids(sorted(on), True, f"all {len(on)} eligible accounts"), n, *tiers]),
        rubric("Counts contracts ending on the 60th day as inside the window", 8, [
            ids(R["boundary"], True), ids(R["beyond"], False), cell(R["boundary"][0], "offer")]),
        rubric("Measures a merged account's tenure from the original account's start", 8, [
            ids(R["merged"], True), cell(R["merged"][0], "offer")]),
        rubric("Keeps do-not-contact accounts off the list, the suppression file overriding the CRM flag", 10, [
            *([ids(facts["dnc"], False)] if facts["dnc"] else []), dnc]),
        rubric("Excludes only offers accepted in the 12 months before the campaign date", 8, [
            ids(R["old_accept"] + R["declined"], True), cell(R["old_accept"][0], "offer"),
            cell(R["declined"][0], "offer")]),
        rubric("Assigns each account the offer of its current ARPU band, not an agent's promise", 10, [
            cell(a, "offer") for a in R["band"] + R["promise"]]),
        rubric("Costs each offer over its first 12 months", 8, costs),
        rubric("Works out expected saves, offer cost and saved revenue at the catalogue take rates", 8, [
            money("saves", L["saves"], facts["saves"], 1), cost, money("revenue", L["revenue"], facts["revenue"])]),
        rubric("Numbers the dialler list by contract end, then ARPU, then account", 6, [cell(a, "priority") for a in pr]),
        rubric("Decides whether the expected cost fits the offer budget", 8, [
            (f"{memo}: {L['decision']}: {yes(facts['decision'])}",
             fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])), cost]),
        rubric(f"Checks the agent's claim about account {focus} against the rules", 8, [
            (f"{memo}: {L['premise']}: {yes(facts['premise'])}",
             fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])), ids([focus], facts["premise"]), n]),
    ]
    if judgement:
        out.append(rubric("Writes a note the team lead can act on", 6, [
            ("Names the exclusions (do-not-contact, recent acceptances) and why the promised offer is not on the list",
             llm("content")),
            ("Explains the 60-day window, merged-account tenure and the 12-month cost", llm("explanation"))]))
    return out


RETENTION_OFFER_LIST = Workflow(
    key="retention_offer_list", family="retention_offer_list",
    method="retention eligibility (12 months' tenure from the original account's start, contract end within 60 days "
           "inclusive, no offer accepted in 12 months, do-not-contact from the CRM or the suppression file), ARPU band "
           "to offer tier, 12-month offer cost, expected saves, cost and saved revenue at the stated take rates",
    professions=("customer_service_representatives",), solver="retention", shortcuts=SHORTCUTS, draw=draw,
    recheck=recheck, rubrics=rubrics,
    data="generated CRM export, merge log, suppression file, offer history and catalogue (stated distributions)")
