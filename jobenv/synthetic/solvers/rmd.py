# ---- jobenv workflow ground truth: a client household's required minimum distributions for the coming year ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the exports, the
# distribution year, the firm's current RMD procedure (starting age by birth year, the 5 % owner limit) and the
# deliverables; the IRS tables are read from the Publication 590-B excerpt in the folder. ``naive`` names the
# shortcuts a hurried advisor takes:
#   latest     the latest statement balance instead of the prior 31 December one
#   transit    a rollover distributed in December and deposited in January left out of the receiving IRA
#   working    an RMD worked for the current employer's 401(k) of a participant who is still working
#   uniform    the Uniform Lifetime table even where the sole beneficiary is a spouse more than 10 years younger
#   inherited  the inherited IRA treated as the beneficiary's own (no RMD before her own starting age)
#   age72      the archived memo's starting age of 72 for everyone
#   aggregate  the planned withdrawals compared with the RMDs in one household total
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass

IRA_TYPES = ("traditional ira", "rollover ira", "sep ira")


def _money(v):
    text = str(v).replace(",", "").replace("$", "").strip()
    return float(text) if text else 0.0


def _year(v):
    return int(str(v).strip()[:4])


def start_age(birth_year, P, naive=()):
    """The age in whose year RMDs begin: the archived memo's 72 with the age72 shortcut, else the current memo's
    table by birth year."""
    if "age72" in naive:
        return int(P["old_start_age"])
    for rule in P["start_ages"]:
        if rule["born_from"] <= birth_year <= rule["born_to"]:
            return int(rule["age"])
    raise ValueError(f"no starting age for birth year {birth_year}")


def tables(folder, P):
    """Tables I, II and III of the excerpt: single life by age, joint by (owner age, spouse age), uniform by age."""
    F, S = P["files"], P["table_sheets"]
    single = {int(r["Age"]): _money(r["Life expectancy"]) for r in read_frame(folder, F["tables"], S["single"]).to_dict("records")}
    joint = {}
    for r in read_frame(folder, F["tables"], S["joint"]).to_dict("records"):
        for k, v in r.items():
            if str(k) != "Ages" and str(v).strip():
                joint[(int(r["Ages"]), int(str(k)))] = _money(v)
    uniform = {int(r["Age"]): _money(r["Distribution period"]) for r in read_frame(folder, F["tables"], S["uniform"]).to_dict("records")}
    return single, joint, uniform


def analyse(folder, P, naive=()):
    """The graded facts. A missing file, sheet, member or table age raises (OSError, KeyError, ValueError)."""
    F, Y = P["files"], int(P["year"])
    single, joint, uniform = tables(folder, P)
    people = {r["name"]: r for r in read_frame(folder, F["members"]).to_dict("records")}
    accounts = read_frame(folder, F["register"], P["register_sheet"]).to_dict("records")
    bens = read_frame(folder, F["register"], P["beneficiary_sheet"]).to_dict("records")
    values = read_frame(folder, F["values"]).to_dict("records")
    activity = read_frame(folder, F["activity"]).to_dict("records")
    rows = []
    for a in accounts:
        acct, kind = a["account_id"], str(a["registration"]).strip().lower()
        owner = people[a["owner"]]
        born = _year(owner["date_of_birth"])
        age = Y - born
        mine = sorted((str(v["as_of"]), _money(v["market_value"])) for v in values if v["account_id"] == acct)
        dec31 = mine[-1][1] if "latest" in naive else dict(mine)[f"{Y - 1}-12-31"]
        transit = 0.0 if "transit" in naive else sum(
            _money(x["amount"]) for x in activity if x["account_id"] == acct and "rollover" in str(x["activity"]).lower()
            and _year(x["posted"]) == Y and str(x["distribution_date"]).strip() and _year(x["distribution_date"]) == Y - 1)
        used = rnd(dec31 + transit, 2)
        table, period, bucket = "none", 0.0, ""
        if kind == "inherited ira" and "inherited" not in naive:
            first = _year(a["decedent_date_of_death"]) + 1  # the year after the owner's death
            table, period, bucket = "Single Life (Table I), reduced by 1 a year", single[first - born] - (Y - first), f"INH:{acct}"
        elif kind in IRA_TYPES or kind == "401(k)" or kind == "inherited ira":
            still = (kind == "401(k)" and "working" not in naive and str(owner["employment_status"]).lower() == "active"
                     and owner["employer"] == a["plan_sponsor"] and _money(owner["ownership_pct"]) < P["owner_limit"])
            bucket = f"PLAN:{acct}" if kind == "401(k)" else f"IRA:{a['owner']}"
            if age >= start_age(born, P, naive) and not still:
                mine_b = [b for b in bens if b["account_id"] == acct]
                spouse_age = next((Y - _year(p["date_of_birth"]) for p in people.values()
                                   if p["relationship"] == "spouse" and p["name"] != a["owner"]), age)
                sole = (len(mine_b) == 1 and str(mine_b[0]["relationship"]).lower() == "spouse"
                        and _money(mine_b[0]["share_pct"]) == 100)
                if sole and "uniform" not in naive and age - spouse_age > 10:
                    table, period = "Joint and Last Survivor (Table II)", joint[(age, spouse_age)]
                else:
                    table, period = "Uniform Lifetime (Table III)", uniform[age]
            elif still:
                table = "deferred: still working, not a 5% owner"
        rmd = rnd(used / period, 2) if period > 0 else 0.0
        rows.append({"account": acct, "owner": a["owner"], "type": a["registration"], "dec31": rnd(dec31, 2),
                     "transit": rnd(transit, 2), "balance": used, "age": age, "table": table,
                     "period": rnd(period, 1), "rmd": rmd, "bucket": bucket})
    need: dict = {}
    for r in rows:
        if r["bucket"]:
            need[r["bucket"]] = rnd(need.get(r["bucket"], 0.0) + r["rmd"], 2)
    bucket_of = {r["account"]: r["bucket"] for r in rows}
    planned: dict = {}
    for p in read_frame(folder, F["plan"], P["plan_sheet"]).to_dict("records"):
        b = bucket_of.get(p["account_id"], "")
        planned[b] = planned.get(b, 0.0) + _money(p["amount"])
    total = rnd(sum(r["rmd"] for r in rows), 2)
    if "aggregate" in naive:
        shortfall = rnd(max(0.0, total - sum(planned.values())), 2)
    else:
        shortfall = rnd(sum(max(0.0, v - planned.get(b, 0.0)) for b, v in need.items()), 2)
    owner = P["owner"]
    born = _year(people[owner]["date_of_birth"])
    first_year = born + start_age(born, P, naive)
    by = {r["account"]: r for r in rows}
    return {"rows": rows, "total": total, "owner_ira": need.get(f"IRA:{owner}", 0.0),
            "inherited": by[P["inherited_account"]]["rmd"], "joint_period": by[P["joint_account"]]["period"],
            "first_year": first_year, "deadline": f"{Y + 1}-04-01" if first_year == Y else f"{Y}-12-31",
            "shortfall": shortfall, "decision": bool(shortfall <= 0.004), "premise": bool(total <= P["cpa_estimate"])}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['total']}: {facts['total']:.2f}", f"{L['owner_ira']}: {facts['owner_ira']:.2f}",
            f"{L['inherited']}: {facts['inherited']:.2f}", f"{L['joint_period']}: {facts['joint_period']:.1f}",
            f"{L['first_year']}: {facts['first_year']}", f"{L['deadline']}: {facts['deadline']}",
            f"{L['shortfall']}: {facts['shortfall']:.2f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def _where(r):
    if r["bucket"].startswith("IRA:"):
        return f"any of {r['owner']}'s traditional IRAs (aggregated)"
    if r["bucket"]:
        return "this account only"
    return "nothing due"


def write_outputs(output_dir, P, facts):
    """The workbook (sheet RMD, one row per account: balance used and RMD as live formulas; sheet Summary with
    SUM/SUMIF totals) and the client letter."""
    from openpyxl import Workbook

    os.makedirs(output_dir, exist_ok=True)
    D, C, L = P["deliverables"], P["columns"], P["labels"]
    wb = Workbook()
    ws = wb.active
    ws.title = "RMD"
    ws.append(["Account", "Owner", "Type", "31 Dec balance", "Rollover in transit", C["balance"], "Age", "Table",
               "Distribution period", C["rmd"], "Bucket", "Where to take it"])
    for k, r in enumerate(facts["rows"], 2):
        ws.append([r["account"], r["owner"], r["type"], r["dec31"], r["transit"], f"=D{k}+E{k}", r["age"], r["table"],
                   r["period"], f"=IF(I{k}>0,ROUND(F{k}/I{k},2),0)", r["bucket"], _where(r)])
    end = len(facts["rows"]) + 1
    s = wb.create_sheet("Summary")
    s.append(["Line", "Value"])
    s.append([L["total"], f"=SUM(RMD!J2:J{end})"])
    s.append([L["owner_ira"], f'=SUMIF(RMD!K2:K{end},"IRA:{P["owner"]}",RMD!J2:J{end})'])
    s.append([L["inherited"], f'=SUMIF(RMD!A2:A{end},"{P["inherited_account"]}",RMD!J2:J{end})'])
    path = os.path.join(output_dir, D["workbook"])
    wb.save(path)
    _fixed_dates(path)
    where = [f"- {r['account']} ({r['type']}, {r['owner']}): {r['rmd']:,.2f} USD - take from {_where(r)}"
             for r in facts["rows"] if r["rmd"] > 0]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"Distributions for {P['year']}:"] + where + [
        "", "Method - each account's prior 31 December balance (plus any rollover distributed in December and "
        "deposited in January) divided by the Publication 590-B distribution period for the owner's age on the "
        "birthday in the year; Joint and Last Survivor table where the sole beneficiary is a spouse more than 10 "
        "years younger; the current employer's 401(k) of a participant still working (not a 5 % owner) deferred; "
        "the inherited IRA on the beneficiary's single life expectancy reduced by one each year, taken from that "
        "account; IRA RMDs aggregated per owner, each 401(k) separately; Roth IRAs have none."])
