# ---- jobenv workflow ground truth: nursing hours per patient day (HPPD) against target, and the FTE gap ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the files, the pay
# period, the pay-code table of the staffing standard and the deliverables; ``naive`` names the shortcuts a
# careless analyst takes (each proves that a planted item changes the graded answer).
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass

HOURS_PER_FTE = 2080.0


def _num(v):
    text = str(v).replace(",", "").strip()
    return float(text) if text else 0.0


def fte_needed(target_hppd, adc, nonproductive_pct):
    """FTE to staff ``target_hppd`` at an average daily census ``adc`` all year, grossed up for the share of paid
    hours that is non-productive (a percentage, e.g. 11.5)."""
    return target_hppd * adc * 365.0 / HOURS_PER_FTE / (1.0 - nonproductive_pct / 100.0)


def analyse(folder, P, naive=()):
    F = P["files"]
    start, end = P["period_start"], P["period_end"]
    sheet = P["old_targets_sheet"] if "old_targets" in naive else P["targets_sheet"]
    targets = read_frame(folder, F["targets"], sheet)
    units = [(str(r["cost_center"]), str(r["unit"]), _num(r["target_hppd"]), _num(r["nonproductive_pct"]))
             for r in targets.to_dict("records") if str(r["cost_center"]).strip()]
    ccs = {u[0] for u in units}
    # patient days: the midnight census summed over the pay period's days
    days = {cc: 0.0 for cc in ccs}
    census = read_frame(folder, F["census"])
    column = "admissions" if "admissions" in naive else "midnight_census"
    for r in census.to_dict("records"):
        cc, d = str(r["cost_center"]), str(r["census_date"])[:10]
        if cc in days and start <= d <= end:
            days[cc] += _num(r[column])
    # productive hours: productive pay codes, charged to the cost centre worked (float staff included) plus agency
    productive = set(P["productive_codes"]) | (set(P["nonproductive_codes"]) if "nonproductive" in naive else set())
    hours = {cc: 0.0 for cc in ccs}
    where = "home_cost_center" if "float_home" in naive else "worked_cost_center"
    for r in read_frame(folder, F["timeclock"]).to_dict("records"):
        cc = str(r[where])
        if cc in hours and str(r["pay_code"]).strip().upper() in productive:
            hours[cc] += _num(r["hours"])
    if "agency" not in naive:
        for r in read_frame(folder, F["agency"], P["agency_sheet"]).to_dict("records"):
            cc = str(r["cost_center"])
            if cc in hours:
                hours[cc] += _num(r["hours"])
    budget = {cc: 0.0 for cc in ccs}
    for r in read_frame(folder, F["budget"]).to_dict("records"):
        if str(r["cost_center"]) in budget:
            budget[str(r["cost_center"])] += _num(r["budgeted_fte"])
    n_days = int(P["days"])
    rows = []
    for cc, name, target, np_pct in units:
        pd_, hrs = days[cc], hours[cc]
        if pd_ <= 0:
            raise ValueError(f"no patient days for cost centre {cc}")
        adc = pd_ / n_days
        need = fte_needed(target, adc, np_pct)
        rows.append({"cost_center": cc, "unit": name, "patient_days": int(round(pd_)), "adc": rnd(adc, 2),
                     "productive_hours": rnd(hrs, 2), "hppd": rnd(hrs / pd_, 2), "target_hppd": target,
                     "hppd_variance": rnd(hrs / pd_ - target, 2), "nonproductive_pct": np_pct,
                     "fte_needed": rnd(need, 2), "budgeted_fte": rnd(budget[cc], 2),
                     "fte_gap": rnd(need - budget[cc], 2), "_gap": need - budget[cc]})
    total_pd = sum(r["patient_days"] for r in rows)
    total_hours = sum(hours[r["cost_center"]] for r in rows)
    short = [r for r in rows if r["_gap"] > 0]
    worst = max(rows, key=lambda r: r["_gap"])
    pick = next((r for r in rows if r["cost_center"] == P["premise_unit"]), rows[0])
    facts = {"units": [{k: v for k, v in r.items() if k != "_gap"} for r in rows],
             "overall_hppd": rnd(total_hours / total_pd, 2), "shortfall": rnd(sum(r["_gap"] for r in short), 1),
             "worst_unit": worst["unit"], "worst_gap": worst["fte_gap"], "premise_hppd": pick["hppd"]}
    facts["decision"] = bool(facts["shortfall"] <= float(P["requisitions"]))
    facts["premise"] = bool(pick["hppd"] >= pick["target_hppd"])
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['shortfall']}: {facts['shortfall']:.1f}", f"{L['overall']}: {facts['overall_hppd']:.2f}",
            f"{L['worst']}: {facts['worst_unit']}", f"{L['worst_gap']}: {facts['worst_gap']:.2f}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise_hppd']}: {facts['premise_hppd']:.2f}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


COLUMNS = ["unit", "cost_center", "patient_days", "adc", "productive_hours", "hppd", "target_hppd", "hppd_variance",
           "nonproductive_pct", "fte_needed", "budgeted_fte", "fte_gap"]


def write_outputs(output_dir, P, facts):
    """The workbook (sheet Units; ADC, HPPD, variance, FTE need and gap are live formulas) and the memo."""
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Units"
    ws.append(COLUMNS)
    days = int(P["days"])
    for k, r in enumerate(facts["units"], 2):
        ws.append([r["unit"], r["cost_center"], r["patient_days"], f"=C{k}/{days}", r["productive_hours"],
                   f"=ROUND(E{k}/C{k},2)", r["target_hppd"], f"=ROUND(E{k}/C{k}-G{k},2)", r["nonproductive_pct"],
                   f"=ROUND(G{k}*D{k}*365/{HOURS_PER_FTE:.0f}/(1-I{k}/100),2)", r["budgeted_fte"],
                   f"=ROUND(G{k}*D{k}*365/{HOURS_PER_FTE:.0f}/(1-I{k}/100)-K{k},2)"])
    last = len(facts["units"]) + 1
    t = last + 1
    ws.append(["Total", "", f"=SUM(C2:C{last})", f"=C{t}/{days}", f"=SUM(E2:E{last})", f"=ROUND(E{t}/C{t},2)", "", "",
               "", f"=SUM(J2:J{last})", f"=SUM(K2:K{last})", f"=SUM(L2:L{last})"])
    ws = wb.create_sheet("Notes")
    ws.append(["note"])
    ws.append([f"HPPD = productive nursing hours / patient days (midnight census, {P['period_start']} to "
               f"{P['period_end']}); FTE needed = target HPPD x ADC x 365 / 2080 / (1 - non-productive %)."])
    path = os.path.join(output_dir, D["workbook"])
    wb.save(path)
    _fixed_dates(path)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: productive hours are the productive pay codes of the staffing standard charged to the cost centre "
        "worked, float pool included, plus agency hours; orientation, education and PTO are non-productive. Patient "
        "days are the midnight census. FTE need uses the approved targets sheet; the gap is need less budgeted FTE."])
