# ---- jobenv workflow ground truth: spans and layers benchmark and delayering savings (management analysts) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the HRIS extract and
# its columns, the finance list of open requisitions, the org-design principles' thresholds (narrow below a span of
# ``narrow_below``, target span ``target_span``), the acting reporting lines the HR memo states, the reporting-line
# correction HR e-mailed, the sponsor's savings hurdle, the benchmark's layers and the deliverables; ``naive`` names
# the shortcuts a hurried analyst takes:
#   unfunded    every vacancy counted as a position, frozen (unfunded) requisitions too
#   contractors contractors in the extract counted as positions (and their supervisors as managers)
#   acting      acting managers left on their substantive line (the extract's manager_id)
#   circular    the extract's circular reporting line kept (no HR correction): the loop's people reach no layer
#   prior_deck  last year's review thresholds (its narrow-span cut and target span) instead of the current ones
import math
import os
import statistics

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _num(v):
    text = str(v).replace(",", "").replace("$", "").strip()
    return float(text) if text else 0.0


def layers_from(parent, root):
    """Position -> layer, the root (CEO) layer 1 and each position one below its manager; a position whose chain
    never reaches the root (a loop, or a manager outside the positions) gets no layer."""
    layer: dict = {root: 1}
    for start in parent:
        chain, node = [], start
        while node not in layer and node in parent and node not in chain:
            chain.append(node)
            node = parent[node]
        base = layer.get(node)
        for k, x in enumerate(reversed(chain), 1):
            layer[x] = None if base is None else base + k
    return layer


def removable(spans, target):
    """Managers a group of sibling narrow managers can lose: their number less the managers needed to lead their
    combined direct reports at the target span (rounded up), never below zero."""
    return max(0, len(spans) - math.ceil(sum(spans) / target))


def analyse(folder, P, naive=()):
    """The graded facts from the task folder. A missing file, sheet or column raises (OSError, KeyError)."""
    F, C = P["files"], P["columns"]
    reqs = read_frame(folder, F["requisitions"], P["req_sheet"]).to_dict("records")
    funded = {str(r["requisition_id"]).strip() for r in reqs if str(r["funding_status"]).strip().lower() == "funded"}
    rows = {}
    for r in read_frame(folder, F["hris"]).to_dict("records"):
        pid = str(r[C["id"]]).strip()
        contractor = str(r[C["type"]]).strip().lower() == "contractor"
        vacant = str(r[C["vacancy"]]).strip().upper() == "Y"
        if contractor and "contractors" not in naive:
            continue
        if vacant and "unfunded" not in naive and str(r[C["req"]]).strip() not in funded:
            continue
        rows[pid] = {"id": pid, "manager": str(r[C["manager"]]).strip(), "title": str(r[C["title"]]).strip(),
                     "cost": _num(r[C["cost"]]), "vacant": vacant, "acting": str(r[C["acting"]]).strip().upper() == "Y"}
    if "circular" not in naive:
        for pid, mgr in P["corrections"].items():
            rows[pid]["manager"] = mgr
    if "acting" not in naive:
        for pid, mgr in P["acting_lines"].items():
            rows[pid]["manager"] = mgr
    root = next(p for p, r in rows.items() if not r["manager"])
    parent = {p: r["manager"] for p, r in rows.items() if r["manager"]}
    layer = layers_from(parent, root)
    span: dict = {}
    for m in parent.values():
        if m in rows:
            span[m] = span.get(m, 0) + 1
    cut, target = (P["old_narrow_below"], P["old_target_span"]) if "prior_deck" in naive else (
        P["narrow_below"], P["target_span"])
    managers = []
    for m in sorted(span):
        r = rows[m]
        managers.append({"id": m, "title": r["title"], "parent": r["manager"], "layer": layer.get(m),
                         "span": span[m], "narrow": yes_no(span[m] < cut), "cost": r["cost"]})
    groups: dict = {}
    for x in managers:
        if x["narrow"] == "yes" and x["parent"]:
            groups.setdefault(x["parent"], []).append(x)
    savings_rows, removed = [], set()
    for g in sorted(groups):
        kids = groups[g]
        if len(kids) < 2:
            continue
        n = removable([k["span"] for k in kids], target)
        cut_ids = [k["id"] for k in sorted(kids, key=lambda k: (k["cost"], k["id"]))[:n]]
        removed |= set(cut_ids)
        savings_rows.append({"parent": g, "narrow": len(kids), "reports": sum(k["span"] for k in kids),
                             "needed": math.ceil(sum(k["span"] for k in kids) / target), "removable": n,
                             "savings": sum(rows[i]["cost"] for i in cut_ids)})
    for x in managers:
        x["removed"] = yes_no(x["id"] in removed)
    depth = max(v for v in layer.values() if v is not None)
    per_layer = [{"layer": k, "positions": sum(1 for p in rows if layer.get(p) == k),
                  "managers": sum(1 for x in managers if x["layer"] == k)} for k in range(1, depth + 1)]
    savings = rnd(sum(s["savings"] for s in savings_rows), 2)
    return {"positions": [{"id": p, "manager": r["manager"], "vacant": r["vacant"], "cost": r["cost"],
                           "layer": layer.get(p)} for p, r in sorted(rows.items())],
            "managers": managers, "layers": per_layer, "groups": savings_rows, "cut": cut, "target": target,
            "position_count": len(rows), "manager_count": len(managers),
            "median_span": rnd(statistics.median(x["span"] for x in managers), 1),
            "narrow_count": sum(x["narrow"] == "yes" for x in managers), "layer_count": depth,
            "removed_count": len(removed), "savings": savings, "decision": bool(savings >= P["hurdle"]),
            "premise": bool(depth <= P["bench_layers"])}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['positions']}: {facts['position_count']}", f"{L['median']}: {facts['median_span']:.1f}",
            f"{L['narrow']}: {facts['narrow_count']}", f"{L['layers']}: {facts['layer_count']}",
            f"{L['removed']}: {facts['removed_count']}", f"{L['savings']}: {facts['savings']:.2f}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def _workbook(path, P, facts):
    """Roster (positions in scope, layer a formula on the manager's layer), Spans (span, narrow flag, cost rank and
    removal flag as formulas), Layers, Savings (the consolidation rule per group of sibling narrow managers),
    Inputs and Summary."""
    from openpyxl import Workbook

    C, S = P["out_columns"], P["sheets"]
    wb = Workbook()
    inp = wb.active
    inp.title = "Inputs"
    inp.append(["Parameter", "Value"])
    inp.append(["Narrow span: fewer direct reports than", facts["cut"]])
    inp.append(["Target span", facts["target"]])
    ros = wb.create_sheet("Roster")
    ros.append(["position_id", "manager_id", "vacant", "loaded_cost", "layer"])
    n = len(facts["positions"]) + 1
    for i, p in enumerate(facts["positions"], 2):
        lay = None if p["layer"] is None else (
            1 if not p["manager"] else f"=INDEX($E$2:$E${n},MATCH(B{i},$A$2:$A${n},0))+1")
        ros.append([p["id"], p["manager"] or None, yes_no(p["vacant"]), p["cost"], lay])
    sp = wb.create_sheet(S["spans"])
    sp.append([C[k] for k in ("id", "title", "parent", "layer", "span", "narrow", "cost", "rank", "removed")])
    m = len(facts["managers"]) + 1
    g = len(facts["groups"]) + 1
    sv = f"'{S['savings']}'"
    for i, x in enumerate(facts["managers"], 2):
        lay = None if x["layer"] is None else f"=INDEX(Roster!$E$2:$E${n},MATCH(A{i},Roster!$A$2:$A${n},0))"
        rank = (f'=IF(F{i}="yes",COUNTIFS($C$2:$C${m},C{i},$F$2:$F${m},"yes",$G$2:$G${m},"<"&G{i})+1,"")'
                if x["parent"] else "")
        gone = (f'=IF(F{i}="yes",IF(H{i}<=IFERROR(INDEX({sv}!$E$2:$E${max(g, 2)},MATCH(C{i},{sv}!$A$2:$A${max(g, 2)},0)),0),'
                f'"yes","no"),"no")' if x["parent"] else "no")
        sp.append([x["id"], x["title"], x["parent"] or None, lay, f"=COUNTIF(Roster!$B$2:$B${n},A{i})",
                   f'=IF(E{i}<Inputs!$B$2,"yes","no")', x["cost"], rank, gone])
    ly = wb.create_sheet(S["layers"])
    ly.append(["layer", "positions", "managers"])
    for i, r in enumerate(facts["layers"], 2):
        ly.append([r["layer"], f"=COUNTIF(Roster!$E$2:$E${n},A{i})", f"=COUNTIF('{S['spans']}'!$D$2:$D${m},A{i})"])
    sa = wb.create_sheet(S["savings"])
    sa.append(["parent_id", "narrow_managers", "their_direct_reports", "managers_needed", "managers_removed",
               "savings"])
    q = f"'{S['spans']}'!"
    for i, r in enumerate(facts["groups"], 2):
        sa.append([r["parent"], f'=COUNTIFS({q}$C$2:$C${m},A{i},{q}$F$2:$F${m},"yes")',
                   f'=SUMIFS({q}$E$2:$E${m},{q}$C$2:$C${m},A{i},{q}$F$2:$F${m},"yes")',
                   f"=ROUNDUP(C{i}/Inputs!$B$3,0)", f"=MAX(0,B{i}-D{i})",
                   f'=SUMIFS({q}$G$2:$G${m},{q}$C$2:$C${m},A{i},{q}$I$2:$I${m},"yes")'])
    sa.append(["Total", None, None, None, f"=SUM(E2:E{max(g, 2)})", f"=SUM(F2:F{max(g, 2)})"])
    su = wb.create_sheet("Summary")
    L = P["labels"]
    su.append(["Line", "Value"])
    su.append([L["positions"], f"=COUNTA(Roster!$A$2:$A${n})"])
    su.append([L["median"], f"=MEDIAN({q}$E$2:$E${m})"])
    su.append([L["narrow"], f'=COUNTIF({q}$F$2:$F${m},"yes")'])
    su.append([L["layers"], f"=MAX(Roster!$E$2:$E${n})"])
    su.append([L["removed"], f'=COUNTIF({q}$I$2:$I${m},"yes")'])
    su.append([L["savings"], f'=SUMIFS({q}$G$2:$G${m},{q}$I$2:$I${m},"yes")'])
    wb.move_sheet(S["spans"], offset=-wb.index(wb[S["spans"]]))
    wb.active = 0
    wb.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    cuts = [f"- Under {g['parent']}: {g['narrow']} narrow managers leading {g['reports']} people; {g['removable']} "
            f"role(s) removed, {g['savings']:,.2f} USD a year" for g in facts["groups"] if g["removable"]]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + ["", "## Consolidations", ""] + cuts + [
        "", f"Method: positions are employees and funded vacancies (contractors and frozen requisitions left out); "
        f"acting managers placed on the reporting line the HR memo gives, the looped reporting line corrected as HR "
        f"advised; span = direct reports per manager, layers counted from the CEO as layer 1; a manager is narrow "
        f"below a span of {facts['cut']}; sibling narrow managers consolidate to a target span of {facts['target']}, "
        "the lowest-cost roles removed first, savings at their annual loaded cost."])
