"""Concentration and suitability exceptions of a branch's households before the monthly supervisory review, as an
exceptions file and a note (securities sales agents at a broker-dealer branch).

A branch of one broker-dealer: 150-225 households of one to three accounts (45/40/15 %), household value lognormal
(median about 350,000 USD, sigma 0.8, 50,000-4,000,000), each account 1-6 % cash or sweep, 0-40 % in one or two
funds (70 %), 5-20 % bonds for conservative and moderate households (60 %) and 8-16 equities of distinct issuers
weighted uniform 0.6-1.4; about 4,500-6,500 month-end positions. Profiles: Conservative 20 %, Moderate 40 %, Growth
30 %, Aggressive 10 %; a quarter changed profile before the account master's last quarter-end refresh. The month's
trades: 120-220 accounts with one to three trades (two thirds buys, 60 % solicited, solicited buys within the
profile's product risk). Planted on households of their own: two share classes (or an ADR and its ordinary, or a
stock and its bond or preferred) each under the Growth limit and together over it (the named household); one issuer
at 31-44 % of an Aggressive household; a Growth household whose profile was lowered to Moderate mid-month (after the
master's refresh), holding one issuer at 16.6-19 % and buying a 4-rated stock on solicitation before and after the
update; a household whose small IRA is half one stock; a Moderate household with 25-35 % cash and one issuer at
12-14.4 % of the total; a household with 38-50 % in a broad index ETF; an unsolicited buy of a 3x leveraged ETF; two
or three solicited buys above the profile's product risk; a Conservative household with five IT stocks at 5.8-6.6 %
each. One profile update is effective after the month-end. The rep's household is the IRA household (premise holds)
or the lowered-profile household (it fails).

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed or a planted trap moves no graded
figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import random
import tempfile
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, llm, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, write_files
from .concentration_book import LIMITS, SEC, SECURITIES, TOLERANCES, Book, book, month_end

__all__ = ["CONCENTRATION_EXCEPTIONS"]

SHORTCUTS = ("share_class", "per_account", "stale_profile", "cash_out", "funds", "unsolicited", "flat_limits")
_EXEMPT = {"ETF", "MUTUAL FUND", "MONEY MARKET", "CASH", "US TREASURY"}
_LABELS = {
    "households_n": ("Households reviewed", "Households in the review", "Households tested"),
    "issuer_n": ("Issuer concentration exceptions", "Single-issuer exceptions", "Issuer exceptions"),
    "sector_n": ("Sector concentration exceptions", "Sector exceptions", "Sector limit breaches"),
    "risk_n": ("Product risk exceptions", "Risk-profile mismatches", "Solicited trades above risk tolerance"),
    "flagged_n": ("Households with an exception", "Households flagged", "Households on the exception list"),
    "named_top": ("Top issuer share, household {hh} (%)", "Household {hh} single-issuer exposure (%)",
                  "{hh} top issuer weight (%)"),
    "escalate": ("Households for the concentration committee", "Referrals to the concentration committee",
                 "Households over the committee's hard limit"),
    "decision": ("Committee referral required", "Refer to the concentration committee", "Escalation to the CCO needed"),
    "premise": ("Household {hh} within guidelines", "{hh} within the concentration and risk guidelines",
                "Rep's statement on {hh} holds"),
}
_TYPES = ({"issuer": "ISSUER", "sector": "SECTOR", "risk": "RISK"},
          {"issuer": "SINGLE_ISSUER", "sector": "SECTOR_CONC", "risk": "RISK_MISMATCH"},
          {"issuer": "CONC-ISS", "sector": "CONC-SEC", "risk": "SUIT-RISK"})
_COLS = ({"household": "household_id", "type": "exception_type", "item": "item", "value": "value", "limit": "limit"},
         {"household": "household", "type": "type", "item": "subject", "value": "measured", "limit": "threshold"},
         {"household": "hh_id", "type": "exception", "item": "key", "value": "pct_or_rating", "limit": "limit"})
_DIRS = {"bo": ("backoffice", "ops_exports", "books_records"), "ref": ("reference", "master_data", "securities"),
         "crm": ("crm", "client_profiles", "regbi"), "trading": ("trading", "blotter", "trades"),
         "policy": ("compliance", "wsp", "supervision"), "mail": ("mail", "correspondence", "inbox")}


def _r1(x: float) -> float:
    return float(Decimal(repr(x)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


# ---- the independent computation: csv only ----------------------------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: plain dictionaries per household."""
    folder, F = Path(folder), P["files"]

    def rows(rel: str) -> list[dict[str, str]]:
        with (folder / rel).open(newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    sec = {r["symbol"]: r for r in rows(F["securities"])}
    hh_of = {r["account_no"]: r["household_id"] for r in rows(F["accounts"])}
    log: dict[str, list[tuple[str, str]]] = {}
    for r in rows(F["profiles"]):
        log.setdefault(r["household_id"], []).append((r["effective_date"], r["risk_tolerance"]))

    def in_force(hh: str, when: str) -> dict[str, int]:
        return {k: int(v) for k, v in P["limits"][sorted(x for x in log[hh] if x[0] <= when)[-1][1]].items()}

    total: dict[str, float] = {}
    by: dict[tuple[str, str, str], float] = {}
    for r in rows(F["positions"]):
        hh, s, mv = hh_of[r["account_no"]], sec[r["symbol"]], float(r["market_value"])
        total[hh] = total.get(hh, 0.0) + mv
        if s["asset_type"].upper() not in _EXEMPT:
            by[(hh, "issuer", s["issuer_id"])] = by.get((hh, "issuer", s["issuer_id"]), 0.0) + mv
            by[(hh, "sector", s["sector"])] = by.get((hh, "sector", s["sector"]), 0.0) + mv
    out: list[dict[str, Any]] = []
    tops = {h: 0.0 for h, v in total.items() if v > 0}
    for (hh, kind, item), mv in by.items():
        pct = 100 * mv / total[hh]
        if kind == "issuer":
            tops[hh] = max(tops[hh], pct)
        limit = in_force(hh, P["month_end"])[kind]
        if pct > limit:
            out.append({"household": hh, "kind": kind, "item": item, "value": _r1(pct), "limit": limit})
    for t in rows(F["trades"]):
        if t["side"].upper() == "BUY" and t["solicited"].upper() == "S":
            hh = hh_of[t["account_no"]]
            cap = in_force(hh, t["trade_date"])["risk"]
            if int(sec[t["symbol"]]["product_risk"]) > cap:
                out.append({"household": hh, "kind": "risk", "item": t["trade_id"],
                            "value": int(sec[t["symbol"]]["product_risk"]), "limit": cap})
    order = {"issuer": 0, "sector": 1, "risk": 2}
    out.sort(key=lambda e: (e["household"], order[e["kind"]], e["item"]))
    flagged = sorted({e["household"] for e in out})
    escalate = sorted(h for h, v in tops.items() if v > P["hard_limit"])
    return {"exceptions": out, "households_n": len(tops), "flagged_n": len(flagged), "flagged": flagged,
            **{f"{k}_n": sum(e["kind"] == k for e in out) for k in order},
            "named_top": _r1(tops.get(P["named_household"], 0.0)), "escalate": escalate, "decision": bool(escalate),
            "premise": P["premise_household"] not in flagged}


# ---- drawing a task -----------------------------------------------------------------------------------------

def _shares(b: Book, h: dict[str, Any]) -> list[tuple[str, float]]:
    """(kind, percent) of one drawn household's issuers and sectors, as the procedures measure them."""
    accts = set(h["accounts"])
    total = 0.0
    by: dict[tuple[str, str], float] = {}
    for no, sym, _q, mv in b.positions:
        if no in accts:
            total += mv
            s = SEC[sym]
            if s[4].upper() not in _EXEMPT:
                by[("issuer", s[1])] = by.get(("issuer", s[1]), 0.0) + mv
                by[("sector", s[5])] = by.get(("sector", s[5]), 0.0) + mv
    return [(k[0], 100 * v / total) for k, v in by.items()]


def _ok(b: Book, h: dict[str, Any]) -> bool:
    """No share within 0.15 points of the household's limit (a careful reader and the grader agree on the side)."""
    lim = LIMITS[h["tol"]]
    return all(abs(p - lim[k]) >= 0.15 for k, p in _shares(b, h))


def _policy(P: dict[str, Any], current: bool) -> list[str]:
    T = P["types"]
    if not current:
        return ["Concentration guideline (2022; superseded by WSP 7.4)",
                "- Flag any account in which a single position exceeds 20 % or a sector 40 % of the account's value.",
                "- Suitability: the risk tolerance on the account master governs.",
                "- Review monthly; send exceptions to the branch manager."]
    L = P["limits"]
    table = [f"- {t}: issuer {L[t]['issuer']} %, sector {L[t]['sector']} %, product risk rating at most {L[t]['risk']}"
             for t in TOLERANCES]
    return [
        f"Written Supervisory Procedures 7.4 - Concentration and suitability review (rev. {P['wsp_rev']}; replaces the "
        "2022 concentration guideline)",
        "7.4.1 Unit of review. The household: every account sharing a household_id in the account master (individual, "
        "joint, retirement and trust accounts alike). Concentration is measured on the household's combined month-end "
        "market value, cash and the money-market sweep included.",
        "7.4.2 Investment profile. The household's Reg BI investment profile is the latest entry in the CRM "
        "investment-profile log whose effective date is on or before the date tested: the month-end for "
        "concentration, the trade date for a purchase. An update supersedes the earlier profile from its effective "
        "date. The risk_tolerance in the account master is a copy refreshed at quarter-end and is not the record.",
        "7.4.3 Issuer concentration. Add together every security of one issuer (issuer_id in the security master): "
        "all share classes, ADRs and ordinary shares, preferred stock and bonds. ETFs, mutual funds, money-market "
        "funds, cash and US Treasuries are exempt. Exception when an issuer's share is greater than the limit.",
        "7.4.4 Sector concentration. The GICS sector of each holding that is not exempt; exempt holdings have no "
        "sector but stay in the denominator. Exception when a sector's share is greater than the limit.",
        "7.4.5 Limits by risk tolerance:", *table,
        "7.4.6 Product risk (Reg BI care obligation). A solicited purchase (solicited = S on the blotter) during the "
        "month of a security whose product risk rating (security master, 1-5) is above the maximum for the profile in "
        "force on the trade date is an exception, one per trade. Unsolicited purchases are documented on the order "
        "ticket under the unsolicited-order procedure and are not exceptions of this review.",
        "7.4.7 Figures. A share is the holding's market value over the household total, times 100, compared with the "
        "limit unrounded; report it to one decimal place, rounded half up.",
        f"7.4.8 Committee referral. A household whose largest single-issuer share is greater than {P['hard_limit']:g} "
        "% is referred to the Chief Compliance Officer's concentration committee, whatever its profile.",
        f"7.4.9 Exceptions file. One row per exception, types {T['issuer']}, {T['sector']} and {T['risk']}; a "
        "household without an exception has no row."]


def _data(P: dict[str, Any], b: Book) -> dict[str, Any]:
    F, ids = P["files"], P["issuer_ids"]
    secs = [[s[0], P["cusips"][s[0]], s[3], ids[s[1]], s[2], s[4], s[5], s[6]] for s in SECURITIES]
    pos = [[no, sym, P["cusips"][sym], SEC[sym][3], q, f"{SEC[sym][7]:.2f}", f"{mv:.2f}", P["month_end"]]
           for no, sym, q, mv in sorted(b.positions)]
    acc = [r[:6] + [P["master_as_of"], r[6]] for r in b.accounts]
    return {
        F["positions"]: lambda p: write_csv(p, ["account_no", "symbol", "cusip", "description", "quantity", "price",
                                                "market_value", "as_of"], pos),
        F["accounts"]: lambda p: write_csv(p, ["account_no", "household_id", "registration", "primary_owner",
                                               "rep_code", "risk_tolerance", "profile_as_of", "opened"], acc),
        F["securities"]: lambda p: write_csv(p, ["symbol", "cusip", "description", "issuer_id", "issuer_name",
                                                 "asset_type", "sector", "product_risk"], secs),
        F["profiles"]: lambda p: write_csv(p, ["household_id", "effective_date", "risk_tolerance", "source"],
                                           sorted(b.profiles)),
        F["trades"]: lambda p: write_csv(p, ["trade_id", "trade_date", "account_no", "symbol", "side", "quantity",
                                             "price", "solicited", "rep_code"], b.trades)}


def _workspace(rng: random.Random, P: dict[str, Any], b: Book, boss: str) -> tuple[dict[str, Any], dict[str, str]]:
    out: dict[str, Any] = {}
    kinds: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        out[name], kinds[name] = writer, role

    for rel, write in _data(P, b).items():
        add(rel, "data", write)
    D, T, C = P["dirs"], P["types"], P["out_columns"]
    end = dt.date.fromisoformat(P["month_end"])
    add(f"{D['policy']}/wsp_7-4_concentration_suitability_rev{P['wsp_rev']}.pdf", "policy",
        lambda p: write_pdf(p, "WSP 7.4 Concentration and suitability", _policy(P, True)))
    add(f"{D['policy']}/archive/concentration_guideline_2022.docx", "stale",
        lambda p: write_docx(p, "Concentration guideline (2022)", _policy(P, False)))
    add(f"{D['ref']}/product_risk_ratings.docx", "reference", lambda p: write_docx(p, "Product risk ratings", [
        "- 1: cash, money market, US Treasuries", "- 2: investment-grade bonds, bond funds, defensive equities",
        "- 3: large-cap equities, broad equity funds, preferred stock",
        "- 4: volatile equities, high-yield bonds, thematic funds", "- 5: micro-caps, leveraged and inverse ETFs",
        "Ratings are set by the product committee and carried in the security master."]))
    add(f"{D['policy']}/exceptions_file_layout.txt", "reference", lambda p: write_text(p, (
        "Supervisory exceptions file (compliance workflow import)\nColumns, in order: "
        + ", ".join(C[k] for k in ("household", "type", "item", "value", "limit"))
        + f"\n{C['type']}: {T['issuer']} issuer concentration; {T['sector']} sector concentration; {T['risk']} "
        f"product risk above the profile.\n{C['item']}: the issuer_id ({T['issuer']}), the GICS sector name "
        f"({T['sector']}) or the trade_id ({T['risk']}).\n{C['value']}: the share in percent to one decimal, or the "
        f"product risk rating for {T['risk']}.\n{C['limit']}: the profile's limit in percent, or its maximum rating.\n")))
    mail, hh = D["mail"], P["premise_household"]
    d1, d2 = end + dt.timedelta(days=1), end - dt.timedelta(days=rng.randint(8, 20))
    rep = person(rng)
    add(f"{mail}/{d1.isoformat()}_rep_note_{hh}.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{rep}, Financial Advisor (rep {P['premise_rep']})", to=f"{boss}; Branch Compliance", date=d1.isoformat(),
        subject=f"{hh} - concentration alert",
        body=f"We trimmed the position this month, so the {hh} household is within the concentration and risk "
             "guidelines now. Please close last month's alert in this review.")))
    add(f"{mail}/{d2.isoformat()}_account_master_refresh.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Operations", to="Branch Compliance", date=d2.isoformat(),
        subject="Profile fields in the account master",
        body=f"Reminder: the account master's profile fields are refreshed from the CRM profile log at each quarter-"
             f"end; the last refresh was {P['master_as_of']}. Profile updates entered since then are only in the "
             "CRM log.")))
    prev = (end.replace(day=1) - dt.timedelta(days=1))
    olds = [[f"HH-{rng.randint(100000, 999999)}", rng.choice(list(T.values())), rng.choice(("ISS" + str(
        rng.randint(10000, 99999)), "Information Technology", f"T{rng.randint(1000000, 9999999)}")),
        f"{rng.uniform(11, 40):.1f}", rng.choice((10, 15, 20, 25))] for _ in range(rng.randint(15, 40))]
    add(f"reports/exceptions_{prev.strftime('%Y-%m')}.csv", "distractor", lambda p: write_csv(
        p, [C[k] for k in ("household", "type", "item", "value", "limit")], olds))
    prod = [[person(rng), rng.randint(20, 140), round(rng.uniform(8e4, 9e5), 2)] for _ in range(6)]
    add(f"reports/branch_production_{end.strftime('%Y-%m')}.xlsx", "distractor", lambda p: write_xlsx(
        p, [("Production", ["rep", "trades", "gross_commission"], prod)]))
    add(f"meetings/{d2.isoformat()}_branch_meeting.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="monthly supervisory review", people=[person(rng) for _ in range(3)], date=d2.isoformat())))
    return out, kinds


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.concentration import analyse

    prof = dataclasses.replace(profession(occupation), orgs=("a regional broker-dealer's branch", "a wirehouse "
                               "branch office", "an independent broker-dealer's office of supervisory jurisdiction"))
    dirs = pick_labels(rng, _DIRS)
    year, month = rng.choice((2025, 2026)), rng.randint(1, 12)
    end = month_end(year, month)
    q = (month - 1) // 3 * 3
    refresh = month_end(year, q) if q else month_end(year - 1, 12)
    stamp = end.isoformat()
    keys = sorted({s[1] for s in SECURITIES})
    iss = rng.sample(range(10000, 99999), len(keys))
    alnum = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"
    P: dict[str, Any] = {
        "files": {"positions": f"{dirs['bo']}/positions_{stamp}.csv", "accounts": f"{dirs['bo']}/account_master.csv",
                  "securities": f"{dirs['ref']}/security_master.csv",
                  "profiles": f"{dirs['crm']}/investment_profile_log.csv",
                  "trades": f"{dirs['trading']}/trades_{end.strftime('%Y-%m')}.csv"},
        "dirs": dirs, "month_end": stamp, "master_as_of": refresh.isoformat(), "limits": LIMITS,
        "old_limits": {"issuer": 20, "sector": 40}, "hard_limit": 100.0, "wsp_rev": year - rng.randint(0, 1),
        "issuer_ids": {k: f"ISS{n}" for k, n in zip(keys, iss)},
        "cusips": {s[0]: "" if s[4] == "Cash" else "".join(rng.choice(alnum) for _ in range(8)) + str(rng.randint(0, 9))
                   for s in SECURITIES},
        "branch": rng.choice(("4RB", "7KM", "2LW", "9TC")), "reps": [f"R{x}" for x in rng.sample(range(100, 999), 4)],
        "types": dict(rng.choice(_TYPES)), "out_columns": dict(rng.choice(_COLS)), "labels": {}, "probe": {},
        "named_household": "", "premise_household": "",
        "deliverables": {"exceptions": rng.choice((f"supervisory_exceptions_{end.strftime('%Y%m')}.csv",
                                                   "concentration_exceptions.csv", f"exceptions_{stamp}.csv")),
                         "memo": rng.choice(("supervisory_review_note.md", f"review_note_{end.strftime('%Y%m')}.md",
                                             "concentration_note.md"))}}
    b, roles = book(rng, P, _ok)
    P["named_household"] = roles["share"]["id"]
    prem = roles["acct"] if targets["premise"] else roles["down"]
    P["premise_household"], P["premise_rep"] = prem["id"], prem["rep"]
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), _data(P, b))
        tops = sorted(analyse(tmp, P)["tops"].values(), reverse=True)
        ladder = [x for x in (27.5, 30.0, 32.5, 35.0, 40.0, 45.0, 50.0, 55.0, 60.0)
                  if all(abs(t - x) >= 0.5 for t in tops) and (x < tops[0]) == targets["decision"]]
        if not ladder:
            raise DegenerateTask("no committee limit on the wanted side of the top issuer share")
        P["hard_limit"] = rng.choice(ladder[-2:] if targets["decision"] else ladder[:2])
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    if truth["decision"] != targets["decision"] or truth["premise"] != targets["premise"]:
        raise DegenerateTask("the targets are missed")
    graded = ("issuer_n", "sector_n", "risk_n", "flagged_n", "named_top", "escalate", "premise")
    where = {"share_class": ("data", "share classes, an ADR and its ordinary, a stock and its bond are one issuer"),
             "per_account": ("memo", "concentration is tested on the household's combined value"),
             "stale_profile": ("email", "a profile update after the master's quarter-end refresh supersedes it"),
             "cash_out": ("memo", "cash and the sweep stay in the denominator"),
             "funds": ("memo", "ETFs and mutual funds are exempt from the issuer and sector tests"),
             "unsolicited": ("memo", "unsolicited purchases are not exceptions of the review"),
             "flat_limits": ("memo", "the 2022 guideline's flat 20 %/40 % limits are superseded by limits by profile")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s} for s, f in singles.items()
             if any(f[k] != truth[k] for k in graded)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    ids = P["issuer_ids"]
    big = max(((e["value"], e["item"]) for e in truth["exceptions"] if e["household"] == roles["big"]["id"]
               and e["kind"] == "issuer"), default=None)
    named = [e for e in truth["exceptions"] if e["household"] == P["named_household"] and e["kind"] == "issuer"]
    sector = [e for e in truth["exceptions"] if e["household"] == roles["sector"]["id"] and e["kind"] == "sector"]
    if big is None or not named or not sector:
        raise DegenerateTask("a planted exception is missing")
    P["probe"] = {"named_issuer": ids[SEC[roles["share_pair"][0]][1]], "big": roles["big"]["id"], "big_issuer": big[1],
                  "acct": roles["acct"]["id"], "cash": roles["cash"]["id"], "fund": roles["fund"]["id"],
                  "down": roles["down"]["id"], "down_trade": roles["down_trade"], "down_early": roles["down_early"],
                  "unsol_trade": roles["unsol_trade"], "risk_trade": roles["risk_trades"][0],
                  "sector": roles["sector"]["id"], "sector_name": roles["sector_name"]}
    labels = pick_labels(rng, _LABELS)
    labels["named_top"] = labels["named_top"].format(hh=P["named_household"])
    labels["premise"] = labels["premise"].format(hh=P["premise_household"])
    P["labels"] = labels
    boss = person(rng)
    writers, kinds = _workspace(rng, P, b, boss)
    return Draft(subject=f"Concentration and suitability exceptions, {end.strftime('%Y-%m')}", instructions=_prompt(
        rng, P, prof, boss, writers), files=writers, roles=kinds, params=P, traps=traps, targets=dict(targets),
        distributions="150-225 households of 1-3 accounts; household value lognormal(median 350k, sigma 0.8) in "
                      "50k-4M; cash 1-6 %, funds 0-40 % (p 0.7), bonds 5-20 % (p 0.6, conservative/moderate), 8-16 "
                      "equities weighted uniform 0.6-1.4; profiles C 20 %, M 40 %, G 30 %, A 10 %; 120-220 trading "
                      "accounts, 1-3 trades each, 60 % solicited")


def _prompt(rng: random.Random, P: dict[str, Any], prof: Any, boss: str, writers: dict[str, Any]) -> str:
    D, L, end = P["deliverables"], P["labels"], P["month_end"]
    lines = [(L["households_n"], "whole number"), (L["issuer_n"], "whole number"), (L["sector_n"], "whole number"),
             (L["risk_n"], "whole number"), (L["flagged_n"], "whole number"),
             (L["named_top"], "percent, 1 decimal place"),
             (L["escalate"], "household ids separated by semicolons, or none"), (L["decision"], "yes or no"),
             (L["premise"], "yes or no")]
    steps = [f"Value each household at the month-end ({end}) from the positions export, all of its accounts together.",
             "Test issuer and sector concentration against the limits of the household's current Reg BI investment "
             "profile.", "Test this month's purchases against the profile's product risk.",
             "Write the exceptions file and the review note; tell me whether anything goes to the concentration "
             f"committee, and whether the rep's note about {P['premise_household']} holds."]
    deliv = [f"{D['exceptions']}: the exceptions file in the layout of {P['dirs']['policy']}/exceptions_file_layout.txt.",
             f"{D['memo']}: start with these lines (label: value), then a short note for the review file:\n"
             + "\n".join(f"   {k}: <{v}>" for k, v in lines)]
    opener = rng.choice((f"From: {boss}, {rng.choice(('Compliance Officer', 'Branch Manager'))}\nSubject: Monthly "
                         f"concentration and suitability review - {end[:7]}\n\nHi,",
                         f"Ticket: supervisory review {end[:7]}\nRequester: {boss}, Branch Compliance Officer, "
                         f"{rng.choice(prof.orgs)}\n\n"))
    why = rng.choice(("The monthly supervisory review is on Friday. I need the accounts that breach the concentration "
                      "and risk-profile guidelines after this month's trades.", "Before the supervisory review I need "
                      "this month's concentration and suitability exceptions for the branch."))
    return "\n\n".join([
        opener, why + " WSP 7.4 applies as written.",
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Deliverables in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliv, 1)),
        "Thanks,\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers))]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, T, C = P["deliverables"], P["labels"], P["types"], P["out_columns"]
    f, memo, ex, pr = D["exceptions"], D["memo"], facts["exceptions"], P["probe"]
    hcol, tcol, icol, vcol = C["household"], C["type"], C["item"], C["value"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def whole(key: str) -> tuple[str, Any]:
        return f"{L[key]} = {facts[key]}", FieldCheck(file=memo, label=L[key], number=float(facts[key]), tolerance=0.0)

    def count(kind: str) -> tuple[str, Any]:
        n = sum(e["kind"] == kind for e in ex)
        return f"{f} has {n} {T[kind]} rows", RowCountCheck(file=f, key=hcol, where={tcol: T[kind]}, count=n)

    def rows_of(hh: str, kind: str = "") -> tuple[str, Any]:
        n = sum(e["household"] == hh and (not kind or e["kind"] == kind) for e in ex)
        where = {hcol: hh, **({tcol: T[kind]} if kind else {})}
        return (f"{f} has {n} {T[kind] + ' ' if kind else ''}rows for {hh}",
                RowCountCheck(file=f, key=hcol, where=where, count=n))

    def trade(tid: str) -> tuple[str, Any]:
        n = sum(e["item"] == tid for e in ex)
        return f"{f} has {n} rows for trade {tid}", RowCountCheck(file=f, key=hcol, where={icol: tid}, count=n)

    def cell(hh: str, kind: str, item: str) -> tuple[str, Any]:
        v = next(e["value"] for e in ex if (e["household"], e["kind"], e["item"]) == (hh, kind, item))
        return (f"{f}: {hh} {T[kind]} {item} = {v:.1f}", CellCheck(
            file=f, match={hcol: hh, tcol: T[kind], icol: item}, column=vcol, value=float(v), tolerance=tol(1)))

    named = P["named_household"]
    out = [
        rubric("Adds every share class, ADR, ordinary share, preferred and bond of an issuer together", 10, [
            whole("issuer_n"), cell(named, "issuer", pr["named_issuer"]),
            (f"{L['named_top']} = {facts['named_top']:.1f}", FieldCheck(file=memo, label=L["named_top"],
                                                                      number=facts["named_top"], tolerance=tol(1)))]),
        rubric("Tests each household on its accounts' combined value, not account by account", 8, [
            whole("households_n"), whole("flagged_n"), rows_of(pr["acct"])]),
        rubric("Keeps cash and the sweep in the denominator and exempts funds and Treasuries", 8, [
            whole("sector_n"), rows_of(pr["cash"], "issuer"), rows_of(pr["fund"])]),
        rubric("Applies the household's current Reg BI profile: the update supersedes the account master", 10, [
            whole("issuer_n"), rows_of(pr["down"], "issuer"), trade(pr["down_trade"]), trade(pr["down_early"])]),
        rubric("Flags solicited purchases above the product risk of the profile in force on the trade date", 8, [
            whole("risk_n"), count("risk"), trade(pr["unsol_trade"]), trade(pr["risk_trade"])]),
        rubric("Lists the issuer and sector exceptions with their shares against the profile's limits", 8, [
            count("issuer"), count("sector"), cell(pr["sector"], "sector", pr["sector_name"]),
            cell(pr["big"], "issuer", pr["big_issuer"])]),
        rubric(f"Refers households over the committee's {P['hard_limit']:g} % single-issuer limit", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            (f"{L['escalate']}: {'; '.join(facts['escalate']) or 'none'}",
             FieldCheck(file=memo, label=L["escalate"], items=list(facts["escalate"]))),
            cell(pr["big"], "issuer", pr["big_issuer"])]),
        rubric(f"Settles the rep's statement about {P['premise_household']} from the record", 8, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            rows_of(P["premise_household"]), whole("flagged_n")]),
    ]
    if judgement:
        out.append(rubric("Writes a review note a supervising principal can file", 6, [
            ("Explains the household aggregation, the issuer roll-up and the profile update that superseded the "
             "master", llm("content")),
            ("Answers the rep's statement and the committee referral plainly", llm("writing"))]))
    return out


CONCENTRATION_EXCEPTIONS = Workflow(
    key="concentration_exceptions", family="supervisory_exceptions",
    method="household concentration by issuer (share classes, ADRs, bonds rolled up) and GICS sector against limits "
           "of the current Reg BI profile, cash in the denominator, funds exempt; product risk of solicited purchases "
           "against the profile in force on the trade date; committee hard limit",
    professions=("sales_agents_securities_and_commodities",), solver="concentration", shortcuts=SHORTCUTS, draw=draw,
    recheck=recheck, rubrics=rubrics, data="generated branch positions, account master, Reg BI profile log and trade "
                                           "blotter (stated distributions)")
