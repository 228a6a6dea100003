# ---- jobenv workflow ground truth: a film's budget top sheet with fringes, contingency and the production incentive (producers) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the budget detail
# workbook, the fringe-rate table, the archived draft v3 top sheet, the payroll service's rate change, the hours a
# budgeted week or day stands for, the contingency rule, the incentive's rate and per-person salary cap, the
# financiers' ceiling and the deliverables; ``naive`` names the shortcuts a hurried line producer takes:
#   nonresident   non-resident people's wages counted as qualified spend
#   no_cap        qualified wages not capped at the incentive's per-person salary cap
#   flat_fringed  flat deals (all-in, no fringes) fringed like payroll deals
#   no_wage_base  payroll taxes charged on all wages, past each tax's per-person wage base
#   old_rate      the fringe table's superseded pension & health rate for the union whose agreement changed
#   draft_v3      the account totals copied from the superseded draft v3 top sheet
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _num(v):
    text = str(v).replace(",", "").replace("$", "").strip()
    return float(text) if text else 0.0


def pension_health(wages, hours, basis, rate):
    """Pension & health for one person: ``rate`` % of wages, or ``rate`` per hour, to the cent."""
    return rnd(hours * rate if basis == "per_hour" else wages * rate / 100, 2)


def payroll_tax(wages, taxes):
    """Employer payroll taxes for one person: each tax's rate (%) on wages up to its wage base (None: no base),
    summed and rounded to the cent."""
    return rnd(sum(min(wages, base if base is not None else wages) * rate / 100 for rate, base in taxes), 2)


def qualified_wages(wages, resident, cap):
    """A person's wages that qualify for the incentive: a resident's, up to the per-person cap (None: uncapped)."""
    if not resident:
        return 0.0
    return min(wages, cap) if cap is not None else wages


def _fringe_table(folder, P, naive):
    ph, taxes = {}, []
    for r in read_frame(folder, P["files"]["fringes"]).to_dict("records"):
        kind, base = str(r["type"]).strip().lower(), str(r["wage_base"]).strip()
        if kind == "payroll_tax":
            taxes.append((str(r["code"]).strip(), _num(r["rate"]), _num(base) if base else None))
        else:
            ph[str(r["applies_to"]).strip()] = (str(r["basis"]).strip(), _num(r["rate"]))
    up = P["rate_update"]
    if "old_rate" not in naive:
        ph[up["union"]] = (ph[up["union"]][0], float(up["rate"]))
    if "no_wage_base" in naive:
        taxes = [(c, r, None) for c, r, _ in taxes]
    return ph, taxes


def analyse(folder, P, naive=()):
    """The graded facts from the task folder. A missing file, sheet or column raises (OSError, KeyError)."""
    F = P["files"]
    section, names = {}, {}
    for a in read_frame(folder, F["detail"], P["accounts_sheet"]).to_dict("records"):
        acct = str(a["account"]).strip()
        section[acct], names[acct] = str(a["section"]).strip().upper(), str(a["name"]).strip()
    hours_per = P["hours_per_unit"]
    people: dict = {}
    lines, totals, goods = [], {a: 0.0 for a in section}, 0.0
    for r in read_frame(folder, F["detail"], P["detail_sheet"]).to_dict("records"):
        acct = str(r["account"]).strip()
        units, rate = _num(r["units"]), _num(r["rate"])
        amount = rnd(units * rate, 2)
        line = {k: str(r[k]).strip() for k in ("description", "person", "cost_type", "deal", "union", "resident", "unit")}
        line.update(account=acct, section=section[acct], units=units, rate=rate, amount=amount)
        lines.append(line)
        totals[acct] += amount
        if line["cost_type"].lower() == "labor":
            p = people.setdefault(line["person"], {"person": line["person"], "account": acct, "section": section[acct],
                                                   "union": line["union"], "deal": line["deal"].lower(),
                                                   "resident": line["resident"].upper() == "Y", "wages": 0.0, "hours": 0.0})
            p["wages"] += amount
            p["hours"] += units * hours_per.get(line["unit"].lower(), 0)
        elif section[acct] == "BTL" and line["resident"].upper() == "Y":
            goods += amount
    if "draft_v3" in naive:
        for r in read_frame(folder, F["v3"]).to_dict("records"):
            acct = str(r["account"]).strip()
            if acct in totals:
                totals[acct] = _num(r["total"])
    ph_rates, taxes = _fringe_table(folder, P, naive)
    cap = None if "no_cap" in naive else float(P["incentive"]["cap"])
    for p in people.values():
        p["wages"] = rnd(p["wages"], 2)
        p["fringed"] = p["deal"] == "payroll" or "flat_fringed" in naive
        basis, rate = ph_rates.get(p["union"], ("pct_of_wages", 0.0))
        p["ph_basis"], p["ph_rate"] = basis, rate
        p["ph"] = pension_health(p["wages"], p["hours"], basis, rate) if p["fringed"] else 0.0
        p["tax"] = payroll_tax(p["wages"], [(r, b) for _, r, b in taxes]) if p["fringed"] else 0.0
        p["fringe"] = rnd(p["ph"] + p["tax"], 2)
        p["qualified"] = rnd(qualified_wages(p["wages"], p["resident"] or "nonresident" in naive, cap), 2)
    sub = {s: rnd(sum(v for a, v in totals.items() if section[a] == s), 2) for s in ("ATL", "BTL")}
    fr = {s: rnd(sum(p["fringe"] for p in people.values() if p["section"] == s), 2) for s in ("ATL", "BTL")}
    atl, btl = rnd(sub["ATL"] + fr["ATL"], 2), rnd(sub["BTL"] + fr["BTL"], 2)
    c = P["contingency"]
    contingency = rnd(c["pct"] / 100 * (btl if c["with_fringes"] else sub["BTL"]), 2)
    grand = rnd(atl + btl + contingency, 2)
    q_wages = rnd(sum(p["qualified"] for p in people.values()), 2)
    qualified = rnd(q_wages + goods, 2)
    credit = rnd(P["incentive"]["rate"] / 100 * qualified, 2)
    net = rnd(grand - credit, 2)
    named = people[P["named_person"]]
    return {"lines": lines, "people": sorted(people.values(), key=lambda p: (p["account"], p["person"])),
            "accounts": [{"account": a, "name": names[a], "section": section[a], "total": rnd(totals[a], 2)}
                         for a in sorted(section)],
            "taxes": taxes, "draft_v3": "draft_v3" in naive, "cap": cap, "nonresident": "nonresident" in naive,
            "atl_sub": sub["ATL"], "btl_sub": sub["BTL"], "atl_fringes": fr["ATL"], "btl_fringes": fr["BTL"],
            "atl": atl, "btl": btl, "fringes": rnd(fr["ATL"] + fr["BTL"], 2), "contingency": contingency,
            "grand": grand, "qualified_wages": q_wages, "qualified_goods": rnd(goods, 2), "qualified": qualified,
            "credit": credit, "net": net, "named_qualified": named["qualified"],
            "decision": bool(net <= P["ceiling"]),
            "premise": bool(named["resident"] and named["wages"] <= float(P["incentive"]["cap"]))}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['atl']}: {facts['atl']:.2f}", f"{L['btl']}: {facts['btl']:.2f}",
            f"{L['fringes']}: {facts['fringes']:.2f}", f"{L['contingency']}: {facts['contingency']:.2f}",
            f"{L['qualified']}: {facts['qualified']:.2f}", f"{L['credit']}: {facts['credit']:.2f}",
            f"{L['net']}: {facts['net']:.2f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['named']}: {facts['named_qualified']:.2f}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def _workbook(path, P, facts):
    """Detail (line totals as formulas), Rates, Fringes (per person: SUMIFS of wages and hours, P&H and payroll
    tax formulas), Incentive (qualified wages per person, the credit) and TopSheet (SUMIFS by account, the totals)."""
    from openpyxl import Workbook

    C, T = P["out_columns"], P["top_rows"]
    hw, hd = P["hours_per_unit"]["week"], P["hours_per_unit"]["day"]
    wb = Workbook()
    top = wb.active
    top.title = "TopSheet"
    det = wb.create_sheet("Detail")
    det.append(["account", "section", "description", "person", "cost_type", "deal", "union", "resident", "units",
                "unit", "rate", "total"])
    for i, ln in enumerate(facts["lines"], 2):
        det.append([int(ln["account"]), ln["section"], ln["description"], ln["person"], ln["cost_type"], ln["deal"],
                    ln["union"], ln["resident"], ln["units"], ln["unit"], ln["rate"], f"=ROUND(I{i}*K{i},2)"])
    n = len(facts["lines"]) + 1
    rng = lambda col: f"Detail!${col}$2:${col}${n}"  # noqa: E731
    rates = wb.create_sheet("Rates")
    rates.append(["item", "value"])
    rates.append(["Hours per budgeted week", hw])
    rates.append(["Hours per budgeted day", hd])
    rates.append(["Contingency %", P["contingency"]["pct"]])
    rates.append(["Incentive rate %", P["incentive"]["rate"]])
    rates.append(["Salary cap per person", facts["cap"] if facts["cap"] is not None else "none"])
    tax_terms = []
    for code, rate, base in facts["taxes"]:
        rates.append([f"{code} rate %", rate])
        r = rates.max_row
        if base is None:
            tax_terms.append(f"{{w}}*Rates!$B${r}/100")
        else:
            rates.append([f"{code} wage base", base])
            tax_terms.append(f"MIN({{w}},Rates!$B${r + 1})*Rates!$B${r}/100")
    fr = wb.create_sheet("Fringes")
    fr.append([C["person"], "account", "section", "union", "deal", "resident", "wages", "hours", "fringed",
               "ph_basis", "ph_rate", C["ph"], C["tax"], C["fringe"]])
    for i, p in enumerate(facts["people"], 2):
        tax = "+".join(t.format(w=f"G{i}") for t in tax_terms)
        fr.append([p["person"], int(p["account"]), p["section"], p["union"], p["deal"], "Y" if p["resident"] else "N",
                   f"=SUMIFS({rng('L')},{rng('D')},A{i})",
                   f"=SUMIFS({rng('I')},{rng('D')},A{i},{rng('J')},\"week\")*Rates!$B$2"
                   f"+SUMIFS({rng('I')},{rng('D')},A{i},{rng('J')},\"day\")*Rates!$B$3",
                   yes_no(p["fringed"]), p["ph_basis"], p["ph_rate"],
                   f"=IF(I{i}=\"yes\",ROUND(IF(J{i}=\"per_hour\",H{i}*K{i},G{i}*K{i}/100),2),0)",
                   f"=IF(I{i}=\"yes\",ROUND({tax},2),0)", f"=L{i}+M{i}"])
    m = len(facts["people"]) + 1
    inc = wb.create_sheet("Incentive")
    inc.append([C["person"], "resident", "wages", C["qualified"], "", "item", "amount"])
    for i, p in enumerate(facts["people"], 2):
        capped = f"MIN(C{i},Rates!$B$6)" if facts["cap"] is not None else f"C{i}"
        q = f"={capped}" if facts["nonresident"] else f"=IF(B{i}=\"Y\",{capped},0)"
        inc.append([p["person"], "Y" if p["resident"] else "N", f"=Fringes!G{i}", q])
    for r, (label, formula) in enumerate([
            ("Qualified wages", f"=SUM(D2:D{m})"),
            ("Qualified BTL goods and services",
             f"=SUMIFS({rng('L')},{rng('B')},\"BTL\",{rng('E')},\"goods\",{rng('H')},\"Y\")"),
            ("Qualified spend", "=G2+G3"), ("Estimated credit", "=ROUND(Rates!$B$5/100*G4,2)")], 2):
        inc.cell(row=r, column=6, value=label)
        inc.cell(row=r, column=7, value=formula)
    top.append([C["account"], "description", "section", C["amount"]])
    for i, a in enumerate(facts["accounts"], 2):
        amount = a["total"] if facts["draft_v3"] else f"=SUMIFS({rng('L')},{rng('A')},A{i})"
        top.append([int(a["account"]), a["name"], a["section"], amount])
    k = len(facts["accounts"]) + 1
    base = "D{btl}" if P["contingency"]["with_fringes"] else f"SUMIFS(D2:D{k},C2:C{k},\"BTL\")"
    rows = [(T["atl_fringes"], f"=SUMIFS(Fringes!$N$2:$N${m},Fringes!$C$2:$C${m},\"ATL\")"),
            (T["atl"], f"=SUMIFS(D2:D{k},C2:C{k},\"ATL\")+D{k + 1}"),
            (T["btl_fringes"], f"=SUMIFS(Fringes!$N$2:$N${m},Fringes!$C$2:$C${m},\"BTL\")"),
            (T["btl"], f"=SUMIFS(D2:D{k},C2:C{k},\"BTL\")+D{k + 3}"),
            (T["contingency"], "=ROUND(Rates!$B$4/100*" + base.format(btl=k + 4) + ",2)"),
            (T["grand"], f"=D{k + 2}+D{k + 4}+D{k + 5}"), (T["credit"], "=Incentive!G5"),
            (T["net"], f"=D{k + 6}-D{k + 7}")]
    for label, formula in rows:  # no section on a total line: a reader takes the first value beside a label
        top.append([label, "", "", formula])
    wb.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    named = next(p for p in facts["people"] if p["person"] == P["named_person"])
    why = ("not a resident, so none of it qualifies" if not named["resident"] else
           f"a resident, but qualified wages stop at the {P['incentive']['cap']:.0f} cap per person"
           if named["wages"] > P["incentive"]["cap"] else "a resident under the per-person cap, so all of it qualifies")
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "## Notes for the executive producer", "",
        f"- {P['named_person']}: budgeted wages {named['wages']:.2f}; {why}.",
        f"- Qualified spend = resident wages capped per person ({facts['qualified_wages']:.2f}) + below-the-line goods "
        f"and services from resident vendors ({facts['qualified_goods']:.2f}); non-resident wages, fringes and the "
        "contingency do not qualify.",
        f"- Net cost after the credit is {facts['net']:.2f} against the financiers' ceiling of {P['ceiling']:.2f}.",
        "", "Method: account totals rolled up from the current budget detail (the draft v3 top sheet is superseded); "
        "pension & health per the fringe table with the payroll service's updated rate; payroll taxes on each "
        "person's wages up to each tax's wage base; flat deals carry no fringes; contingency on the base the budget "
        "conventions state; credit = incentive rate x qualified spend."])
