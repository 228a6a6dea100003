# ---- jobenv workflow ground truth: DMR desk review of an NPDES permittee (licensing examiners and inspectors) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the DMR export, the
# permit's limits before and after the modification, the technical review criteria and the deliverables; ``naive``
# names the shortcuts a hurried reviewer takes (each proves a planted item changes a graded answer):
#   old_limits  the original permit's limits for all 24 periods (the modification read as not yet in force)
#   detection   a "<ML" result taken at the ML instead of zero (the permit's footnote ignored)
#   units       the value read as mg/L whatever the units column says (one lab reported in ug/L)
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass

LB_PER_MG_L_MGD = 8.34
BASES = ("avg", "max", "load")


def concentration(value, units, naive=()):
    """A DMR value in mg/L: "<ML" results count as zero (the permit footnote), ug/L divided by 1,000."""
    text = str(value).strip().replace(",", "")
    if text.startswith("<"):
        return float(text[1:]) if "detection" in naive else 0.0
    number = float(text)
    if "units" not in naive and str(units).strip().lower() in ("ug/l", "\u00b5g/l", "ppb"):
        number /= 1000.0
    return number


def limits_for(P, month, naive=()):
    """The limits in force for a monitoring period: the modification's from its effective month on."""
    if "old_limits" in naive or month < P["effective_month"]:
        return P["limits"]["original"]
    return P["limits"]["modified"]


def snc_windows(over, trc, factor_share=0.66, window=6, trc_needed=2):
    """(worst TRC months in any window, worst months over in any window, SNC) for one parameter's monthly flags.
    SNC: at least ``trc_needed`` TRC months in ``window`` consecutive periods, or ``factor_share`` or more of them
    over the limit at all. Fewer periods than ``window``: no window, no SNC."""
    n = len(over)
    if n < window:
        return 0, 0, False
    best_trc = max(sum(trc[i:i + window]) for i in range(n - window + 1))
    best_over = max(sum(over[i:i + window]) for i in range(n - window + 1))
    return best_trc, best_over, bool(best_trc >= trc_needed or best_over / window >= factor_share)


def analyse(folder, P, naive=()):
    dmr = read_frame(folder, P["files"]["dmr"])
    dmr = dmr[dmr["outfall"].astype(str).str.strip() == str(P["outfall"])]
    names = {p["code"]: p["name"] for p in P["parameters"]}
    found = {}
    flows = {}
    for _, r in dmr.iterrows():
        month = str(r["monitoring_period_end"])[:7]
        code = str(r["parameter_code"]).strip()
        if code not in names:
            continue
        stat = "avg" if str(r["statistical_base"]).strip().upper().startswith("MO") else "max"
        found[(month, code, stat)] = (str(r["value"]).strip(), str(r["units"]).strip(),
                                      concentration(r["value"], r["units"], naive))
        flows[month] = float(r["flow_mgd"])
    months = sorted(flows)
    review = []
    order = {p["code"]: k for k, p in enumerate(P["parameters"])}
    for (month, code, stat), (text, units, conc) in found.items():
        lim = limits_for(P, month, naive)[code]
        for basis in ((stat, "load") if stat == "avg" and lim.get("load") else (stat,)):
            if not lim.get(basis):
                continue
            value = conc * flows[month] * LB_PER_MG_L_MGD if basis == "load" else conc
            review.append({"month": month, "code": code, "parameter": names[code], "basis": basis, "reported": text,
                           "units": units, "conc": conc, "flow": flows[month], "value": value,
                           "limit": float(lim[basis])})
    review.sort(key=lambda x: (order[x["code"]], BASES.index(x["basis"]), x["month"]))
    factor = {p["code"]: float(P["trc"][p["group"]]) for p in P["parameters"]}
    for x in review:
        x["ratio"] = x["value"] / x["limit"]
        x["exceed"] = x["value"] > x["limit"]
        x["trc"] = x["value"] >= factor[x["code"]] * x["limit"]
    params = []
    for p in P["parameters"]:
        rows = [x for x in review if x["code"] == p["code"]]
        over = [any(x["exceed"] for x in rows if x["month"] == m) for m in months]
        trc = [any(x["trc"] for x in rows if x["month"] == m) for m in months]
        worst_trc, worst_over, snc = snc_windows(over, trc, P["chronic_share"], P["window"], P["trc_months"])
        params.append({"code": p["code"], "parameter": p["name"], "group": p["group"], "trc_factor": factor[p["code"]],
                       "exceedances": sum(x["exceed"] for x in rows), "months_over": sum(over),
                       "trc_months": sum(trc), "worst_trc": worst_trc, "worst_over": worst_over, "snc": snc})
    loads = [x for x in review if x["basis"] == "load"]
    worst = max(loads, key=lambda x: x["ratio"]) if loads else None
    facts = {
        "months": months, "review": review, "parameters": params,
        "exceed_total": sum(x["exceed"] for x in review),
        "load_exceed": sum(x["exceed"] for x in loads),
        "worst_load_month": worst["month"] if worst else "",
        "worst_load_parameter": worst["parameter"] if worst else "",
        "worst_load": rnd(worst["value"], 1) if worst else 0.0,
        "snc": [p["parameter"] for p in params if p["snc"]],
    }
    facts["decision"] = bool(facts["snc"])
    pm, pc = P["premise_month"], P["premise_code"]
    facts["premise"] = any(x["exceed"] for x in review if x["month"] == pm and x["code"] == pc)
    return facts


def row_of(facts, month, code, basis):
    """The review line for one period, parameter and basis (None when the permit sets no such limit)."""
    return next((x for x in facts["review"] if x["month"] == month and x["code"] == code and x["basis"] == basis), None)


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['exceed_total']}: {facts['exceed_total']}", f"{L['load_exceed']}: {facts['load_exceed']}",
            f"{L['worst_load']}: {facts['worst_load_month']}",
            f"{L['snc']}: " + ("; ".join(facts["snc"]) if facts["snc"] else "None"),
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, B = P["deliverables"], P["basis_labels"]
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Review"
    ws.append(["month", "parameter", "basis", "reported", "units", "conc_mg_l", "flow_mgd", "value", "limit",
               "ratio", "exceed", "trc"])
    factor = {p["code"]: p["trc_factor"] for p in facts["parameters"]}
    spans: dict = {}
    for k, x in enumerate(facts["review"], 2):
        value = f"=F{k}*G{k}*{LB_PER_MG_L_MGD}" if x["basis"] == "load" else f"=F{k}"
        ws.append([x["month"], x["parameter"], B[x["basis"]], x["reported"], x["units"], x["conc"], x["flow"], value,
                   x["limit"], f"=H{k}/I{k}", f"=IF(H{k}>I{k},1,0)", f"=IF(H{k}>={factor[x['code']]}*I{k},1,0)"])
        lo, hi = spans.get(x["parameter"], (k, k))
        spans[x["parameter"]] = (min(lo, k), max(hi, k))
    sn = wb.create_sheet("SNC")
    sn.append(["parameter", "group", "trc_factor", "exceedances", "months_over", "worst_6_trc_months",
               "worst_6_months_over", "snc"])
    for p in facts["parameters"]:
        lo, hi = spans.get(p["parameter"], (0, 0))
        count = f"=SUM(Review!K{lo}:K{hi})" if lo else 0
        sn.append([p["parameter"], p["group"], p["trc_factor"], count, p["months_over"], p["worst_trc"],
                   p["worst_over"], yes_no(p["snc"])])
    n = len(facts["parameters"]) + 1
    sn.append(["Total", "", "", f"=SUM(D2:D{n})", "", "", "", ""])
    book = os.path.join(output_dir, D["workbook"])
    wb.save(book)
    _fixed_dates(book)
    L = P["labels"]
    over = [x for x in facts["review"] if x["exceed"]]
    lines = _memo_lines(P, facts) + [
        "", f"{P['facility']} (NPDES permit {P['permit_id']}), outfall {P['outfall']}: notice of violation (draft)",
        f"Review period: {facts['months'][0]} to {facts['months'][-1]}; limits of permit modification "
        f"{P['mod_no']} applied from {P['effective_month']}.", "Violations:"]
    lines += [f"- {x['month']} {x['parameter']} {B[x['basis']]}: {rnd(x['value'], 4 if x['basis'] != 'load' else 1)} "
              f"vs limit {x['limit']} ({'lb/d' if x['basis'] == 'load' else 'mg/L'})" for x in over]
    lines += ["", f"{L['snc']} was decided by the enforcement response guide's rule; results below the minimum level "
              "count as zero per the permit footnote; ug/L results were converted to mg/L; loadings are mg/L x MGD x "
              "8.34. The workbook's loadings, ratios and counts are formulas."]
    write_memo(os.path.join(output_dir, D["memo"]), lines)
