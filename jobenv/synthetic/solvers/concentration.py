# ---- jobenv workflow ground truth: concentration and suitability exceptions of a branch's households before the
# monthly supervisory review (securities sales agents) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the month-end positions,
# the account master, the security master, the Reg BI investment-profile log, the month's trades, the month-end, the
# limits of the supervisory procedures by risk tolerance, the committee's hard limit and the deliverables; ``naive``
# names the shortcuts a hurried reviewer takes:
#   share_class   issuer concentration by symbol: share classes, ADRs and ordinaries, bonds of one issuer apart
#   per_account   concentration tested account by account instead of on the household's combined value
#   stale_profile the back-office account master's risk tolerance used, not the latest profile in the CRM log
#   cash_out      cash and the money-market sweep left out of the denominator
#   funds         ETFs and mutual funds tested as issuers (and their "Diversified" sector as a sector)
#   unsolicited   every purchase above the profile's product risk flagged, unsolicited orders too
#   flat_limits   the superseded 2022 guideline's flat 20 % issuer and 40 % sector limits for every profile
import datetime as dt
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

EXEMPT = ("ETF", "MUTUAL FUND", "MONEY MARKET", "CASH", "US TREASURY")  # no issuer or sector test
CASHLIKE = ("MONEY MARKET", "CASH")
KINDS = ("issuer", "sector", "risk")


def day(text):
    return dt.date.fromisoformat(str(text).strip()[:10])


def profile_on(log, household, when):
    """The risk tolerance of the latest profile entry effective on or before ``when`` (None without one)."""
    rows = [r for r in log.get(household, []) if r[0] <= when]
    return max(rows)[1] if rows else None


def limits_for(P, tolerance, naive=()):
    if "flat_limits" in naive:
        return {"issuer": P["old_limits"]["issuer"], "sector": P["old_limits"]["sector"],
                "risk": P["limits"][tolerance]["risk"]}
    return P["limits"][tolerance]


def concentration(pos, unit, key, naive=()):
    """Percent of each unit's total month-end value per key (issuer or sector), exempt holdings left out of the
    numerators; the denominator takes every holding, cash and the sweep included (not with ``cash_out``)."""
    base = pos if "cash_out" not in naive else pos[~pos["asset_type"].isin(CASHLIKE)]
    total = base.groupby(unit)["mv"].sum()
    exempt = EXEMPT if "funds" not in naive else ("MONEY MARKET", "CASH", "US TREASURY")
    held = pos[~pos["asset_type"].isin(exempt) & (pos[key] != "")]
    num = held.groupby([unit, key])["mv"].sum().reset_index()
    num["pct"] = 100.0 * num["mv"] / num[unit].map(total)
    return num


def analyse(folder, P, naive=()):
    F = P["files"]
    end = day(P["month_end"])
    sec = read_frame(folder, F["securities"])
    sec["asset_type"] = sec["asset_type"].str.strip().str.upper()
    acc = read_frame(folder, F["accounts"])
    pos = read_frame(folder, F["positions"])
    pos = pos.merge(acc[["account_no", "household_id"]], on="account_no", how="left")
    pos = pos.merge(sec[["symbol", "issuer_id", "asset_type", "sector"]], on="symbol", how="left").fillna("")
    pos["mv"] = pos["market_value"].astype(float)
    pos["issuer"] = pos["symbol"] if "share_class" in naive else pos["issuer_id"]
    log: dict = {}
    for r in read_frame(folder, F["profiles"]).to_dict("records"):
        log.setdefault(r["household_id"].strip(), []).append((day(r["effective_date"]), r["risk_tolerance"].strip()))
    master = {r["household_id"].strip(): r["risk_tolerance"].strip() for r in acc.to_dict("records")}

    def tolerance(hh, when):
        return master[hh] if "stale_profile" in naive else profile_on(log, hh, when)

    unit = "account_no" if "per_account" in naive else "household_id"
    hh_of = dict(zip(acc["account_no"], acc["household_id"]))
    households = sorted(set(pos.loc[pos["mv"] > 0, "household_id"]))
    found: dict = {}
    tops: dict = {h: 0.0 for h in households}
    at_end = {h: limits_for(P, tolerance(h, end), naive) for h in households}
    for kind, key in (("issuer", "issuer"), ("sector", "sector")):
        for r in concentration(pos, unit, key, naive).to_dict("records"):
            hh = r[unit] if unit == "household_id" else hh_of[r[unit]]
            if kind == "issuer":
                tops[hh] = max(tops[hh], r["pct"])
            limit = at_end[hh][kind]
            if r["pct"] > limit:
                k = (hh, kind, r[key])
                found[k] = {"household": hh, "kind": kind, "item": r[key], "value": max(
                    r["pct"], found.get(k, {}).get("value", 0.0)), "limit": limit}
    risk = dict(zip(sec["symbol"], sec["product_risk"]))
    for t in read_frame(folder, F["trades"]).to_dict("records"):
        if t["side"].strip().upper() != "BUY":
            continue
        if t["solicited"].strip().upper() != "S" and "unsolicited" not in naive:
            continue
        hh = hh_of[t["account_no"]]
        cap = limits_for(P, tolerance(hh, day(t["trade_date"])), naive)["risk"]
        if int(risk[t["symbol"]]) > cap:
            found[(hh, "risk", t["trade_id"])] = {"household": hh, "kind": "risk", "item": t["trade_id"],
                                                 "value": int(risk[t["symbol"]]), "limit": cap}
    rows = sorted(found.values(), key=lambda e: (e["household"], KINDS.index(e["kind"]), e["item"]))
    for e in rows:
        if e["kind"] != "risk":
            e["value"] = rnd(e["value"], 1)
    flagged = sorted({e["household"] for e in rows})
    escalate = sorted(h for h, v in tops.items() if v > P["hard_limit"])
    facts = {"exceptions": rows, "households_n": len(households), "flagged_n": len(flagged), "flagged": flagged,
             **{f"{k}_n": sum(e["kind"] == k for e in rows) for k in KINDS},
             "named_top": rnd(tops.get(P["named_household"], 0.0), 1), "escalate": escalate,
             "decision": bool(escalate), "premise": P["premise_household"] not in flagged, "tops": tops}
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['households_n']}: {facts['households_n']}", f"{L['issuer_n']}: {facts['issuer_n']}",
            f"{L['sector_n']}: {facts['sector_n']}", f"{L['risk_n']}: {facts['risk_n']}",
            f"{L['flagged_n']}: {facts['flagged_n']}", f"{L['named_top']}: {facts['named_top']:.1f}",
            f"{L['escalate']}: {'; '.join(facts['escalate']) or 'none'}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C, T = P["deliverables"], P["out_columns"], P["types"]
    rows = [[e["household"], T[e["kind"]], e["item"], f"{e['value']:.1f}" if e["kind"] != "risk" else e["value"],
             e["limit"]] for e in facts["exceptions"]]
    write_table(os.path.join(output_dir, D["exceptions"]), [C["household"], C["type"], C["item"], C["value"],
                                                             C["limit"]], rows)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"# Concentration and suitability exceptions, month ending {P['month_end']}", "",
        "Method: households (all accounts sharing a household id) on their combined month-end market value, cash and "
        "the sweep included; every share class, ADR, ordinary share, preferred and bond of one issuer together; "
        "ETFs, mutual funds, money market, cash and Treasuries exempt; limits of the household's current Reg BI "
        "profile (the latest CRM profile entry in force, not the account master); solicited purchases above the "
        "profile's product risk on the trade date; percentages compared unrounded and shown to one decimal."])
