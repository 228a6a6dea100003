# ---- jobenv workflow ground truth: capital project appraisal (NPV, IRR, discounted payback, MACRS shield) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the files and the
# finance policy's rules (tax rate, the governing WACC, the MACRS table, end-year discounting); ``naive`` names the
# shortcuts a careless analyst takes (each proves that a planted trap changes the graded answer).
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _num(x):
    return float(str(x).replace(",", "").replace("$", "").strip() or 0)


def irr(flows):
    """The rate (a fraction) at which the flows' present value is zero, by bisection between -90 % and 200 %;
    None when the present value does not change sign there."""
    def pv(r):
        return sum(f / (1 + r) ** t for t, f in enumerate(flows))

    lo, hi = -0.9, 2.0
    if pv(lo) * pv(hi) > 0:
        return None
    for _ in range(200):
        mid = (lo + hi) / 2
        if pv(lo) * pv(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def discounted_payback(flows, rate):
    """Years until the cumulative discounted cash flow turns non-negative, interpolated within the year; None
    when it never does within the life."""
    cum = 0.0
    for t, f in enumerate(flows):
        d = f / (1 + rate) ** t
        if t and cum < 0 <= cum + d:
            return t - 1 + (-cum) / d
        cum += d
    return None


def inputs(folder, P, naive=()):
    F = P["files"]
    lines = read_frame(folder, F["capex"], P["capex_sheet"])
    keep = {P["selected_status"].lower()} | ({P["sunk_status"].lower()} if "sunk" in naive else set())
    capex = sum(_num(r["amount"]) for _, r in lines.iterrows() if r["status"].strip().lower() in keep)
    fc = read_frame(folder, F["forecast"])
    years = [(int(r["year"]), _num(r["units"]), _num(r["price_per_unit"])) for _, r in fc.iterrows()]
    years.sort()
    costs = read_frame(folder, F["costs"], P["costs_sheet"])
    vc = sum(_num(r["amount"]) for _, r in costs.iterrows() if r["basis"].strip().lower() == "per unit")
    fixed = sum(_num(r["amount"]) for _, r in costs.iterrows() if r["basis"].strip().lower() == "per year")
    launch = read_frame(folder, F["costs"], P["launch_sheet"])
    other = {r["item"]: _num(r["amount"]) for _, r in launch.iterrows()}
    return {"capex": capex, "years": years, "vc": vc, "fixed": fixed, "nwc": other[P["nwc_item"]],
            "salvage": other[P["salvage_item"]]}


def analyse(folder, P, naive=()):
    """The graded facts from the task folder (IRR and payback None when they do not exist). A missing file, sheet
    or launch item raises (OSError, KeyError, ValueError)."""
    x = inputs(folder, P, naive)
    t, macrs = P["tax_rate"], P["macrs"]
    wacc = (P["old_wacc"] if "wacc" in naive else P["wacc"]) / 100
    life = len(x["years"])
    rows = [{"year": 0, "ebitda": 0.0, "depreciation": 0.0, "fcf": -x["capex"] - x["nwc"]}]
    book = x["capex"] * (1 - sum(macrs[:life]))
    salvage_after_tax = x["salvage"] - t * (x["salvage"] - book)
    for y, units, price in x["years"]:
        ebitda = units * price - units * x["vc"] - x["fixed"]
        dep = x["capex"] * macrs[y - 1] if y <= len(macrs) else 0.0
        fcf = ebitda * (1 - t) + t * dep
        if y == life:
            fcf += salvage_after_tax + (0.0 if "nwc" in naive else x["nwc"])
        rows.append({"year": y, "ebitda": ebitda, "depreciation": dep, "fcf": fcf})
    flows = [r["fcf"] for r in rows]
    npv = sum(f / (1 + wacc) ** k for k, f in enumerate(flows))
    rate = irr(flows)
    pb = discounted_payback(flows, wacc)
    for r in rows:
        r["fcf"] = rnd(r["fcf"], 2)
    return {"rows": rows, "capex": rnd(x["capex"], 2), "nwc": x["nwc"], "salvage": x["salvage"],
            "salvage_after_tax": rnd(salvage_after_tax, 2), "vc": x["vc"], "fixed": x["fixed"],
            "years": x["years"], "wacc_used": wacc * 100, "npv": rnd(npv, 2),
            "irr": None if rate is None else rnd(rate * 100, 2), "payback": None if pb is None else rnd(pb, 2),
            "nwc_release": 0.0 if "nwc" in naive else rnd(x["nwc"], 2), "decision": bool(npv > 0),
            "premise": bool(rate is not None and rate * 100 > P["claimed_irr"])}


def _memo_lines(P, facts):
    L = P["labels"]
    pb = "not within the project life" if facts["payback"] is None else f"{facts['payback']:.2f}"
    irr_text = "none" if facts["irr"] is None else f"{facts['irr']:.2f}"
    return [f"{L['capex']}: {facts['capex']:.2f}", f"{L['npv']}: {facts['npv']:.2f}", f"{L['irr']}: {irr_text}",
            f"{L['payback']}: {pb}", f"{L['nwc']}: {facts['nwc_release']:.2f}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def _workbook(path, P, facts):
    """Inputs, FCF (one row a year, every derived cell a formula) and Valuation (=NPV, =IRR)."""
    from openpyxl import Workbook

    L = P["labels"]
    wb = Workbook()
    inp = wb.active
    inp.title = "Inputs"
    for row in (("Parameter", "Value"), ("Tax rate", P["tax_rate"]), ("WACC", facts["wacc_used"] / 100),
                ("Depreciable capex", facts["capex"]), ("Variable cost per unit", facts["vc"]),
                ("Fixed cost per year", facts["fixed"]), ("Net working capital", facts["nwc"]),
                ("Salvage value", facts["salvage"])):
        inp.append(list(row))
    ws = wb.create_sheet("FCF")
    ws.append(["Year", "Units", "Price", "Revenue", "Operating costs", "EBITDA", "MACRS rate", "Depreciation",
               "Tax shield", "Capex", "NWC", "Salvage after tax", "FCF"])
    life = len(facts["years"])
    ws.append([0, 0, 0, 0, 0, 0, 0, 0, 0, "=-Inputs!B4", "=-Inputs!B7", 0, "=F2*(1-Inputs!B2)+I2+J2+K2+L2"])
    book = 1 - sum(P["macrs"][:life])
    for (y, units, price) in facts["years"]:
        r = y + 2
        rate = P["macrs"][y - 1] if y <= len(P["macrs"]) else 0
        last = y == life
        ws.append([y, units, price, f"=B{r}*C{r}", f"=B{r}*Inputs!B5+Inputs!B6", f"=D{r}-E{r}", rate,
                   f"=G{r}*Inputs!B4", f"=H{r}*Inputs!B2", 0, "=Inputs!B7" if last and facts["nwc_release"] else 0,
                   f"=Inputs!B8-Inputs!B2*(Inputs!B8-Inputs!B4*{book!r})" if last else 0,
                   f"=F{r}*(1-Inputs!B2)+I{r}+J{r}+K{r}+L{r}"])
    end = life + 2
    v = wb.create_sheet("Valuation")
    v.append(["Line", "Value"])
    v.append([L["npv"], f"=ROUND(FCF!M2+NPV(Inputs!B3,FCF!M3:M{end}),2)"])
    v.append([L["irr"], f"=ROUND(IRR(FCF!M2:M{end})*100,2)"])
    v.append([L["payback"], facts["payback"] if facts["payback"] is not None else "not within the project life"])
    v.append([L["nwc"], f"=FCF!K{end}"])
    v.append([L["capex"], "=Inputs!B4"])
    wb.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: free cash flow = EBITDA x (1 - tax) + MACRS 7-year tax shield - capex - net working capital "
        "(recovered in the final year) + after-tax salvage; end-of-year discounting at the governing WACC; sunk "
        "development spend excluded."])
