"""Spans and layers benchmark with delayering savings for a client organisation (management analysts).

A client organisation of 260-420 positions (employees and funded vacancies) is generated as a reporting tree: a
CEO (layer 1) with 5-7 executives, each executive leading 3-7 people, and below them positions that manage with
probability 0.45 (layer 3), 0.25 (layer 4), 0.12 (layer 5) and 0.08 (layer 6), to a depth of 6 or 7 layers; a
manager's span is drawn from 1-12 (weights 3, 8, 12, 12, 13, 12, 10, 9, 7, 6, 4, 4 %, so about a quarter of managers
are narrow). Annual loaded cost is log-normal (sigma 0.12) around a grade median (CEO 450k, executives 260k, then
175k, 140k, 115k and 98k for managers by layer, 56-82k for staff), whole dollars. The HRIS extract adds 4-6 vacancies
on frozen (unfunded) requisitions beside 3-6 funded ones, 5-15 contractors (1-2 employees supervise only
contractors), one acting manager still shown on their substantive line and one circular reporting line that HR
corrected by e-mail. The sponsor's savings hurdle is 3-30 % above or below the savings; the benchmark's layers are the
organisation's depth plus 0-1 (premise holds) or less 1.

Failure behaviour: ``draw`` raises DegenerateTask when the organisation falls outside its size, fewer than two
manager roles can be removed, loaded costs tie within a group of narrow managers, last year's thresholds give the
same savings, or a planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or ValueError on a
folder that is not this workflow's (ValueError too for a reporting loop the corrections leave).
"""

from __future__ import annotations

import datetime as dt
import math
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, read_rows, write_files

__all__ = ["SPANS_AND_LAYERS"]

_CLIENTS = ("Brindlewood Mutual", "Tallowmere Logistics", "Quenby Health Services", "Ashcombe Water Authority",
            "Corrivale Insurance Group", "Penmarric Building Society")
_DEPTS = ("Claims", "Underwriting", "Finance", "Technology", "Customer Service", "People", "Operations",
          "Risk and Compliance", "Sales", "Procurement")
_SPAN_W = (3, 8, 12, 12, 13, 12, 10, 9, 7, 6, 4, 4)
_P_MANAGE = {3: 0.45, 4: 0.25, 5: 0.12, 6: 0.08}
_GRADE = {"EX1": 450000, "EX2": 260000, "M4": 175000, "M3": 140000, "M2": 115000, "M1": 98000, "S3": 82000,
          "S2": 68000, "S1": 56000}
_LABELS = {
    "positions": ("Positions in scope", "Positions counted", "Headcount in scope (positions)"),
    "median": ("Median span of control", "Median span", "Median direct reports per manager"),
    "narrow": ("Narrow-span managers", "Managers with a narrow span", "Number of narrow-span managers"),
    "layers": ("Number of layers", "Layers (CEO counted as 1)", "Organisational layers"),
    "removed": ("Manager roles removed", "Roles removed by delayering", "Managers removed"),
    "savings": ("Annual delayering savings (USD)", "Delayering savings (USD a year)", "Savings from delayering (USD)"),
    "decision": ("Recommend delayering", "Delayering programme recommended", "Proceed with delayering"),
    "premise": ("Within the peer benchmark on layers", "Layers at or below the benchmark", "No deeper than peers"),
}
_OUT = {"id": ("manager_id", "position_id"), "title": ("job_title", "role"), "parent": ("reports_to", "manager_of"),
        "layer": ("layer", "org_layer"), "span": ("span", "direct_reports"), "narrow": ("narrow", "narrow_span"),
        "cost": ("loaded_cost", "annual_loaded_cost"), "rank": ("cost_rank", "rank_in_group"),
        "removed": ("removed", "role_removed")}
_HRIS = ({"id": "employee_id", "manager": "manager_id", "title": "job_title", "dept": "department", "grade": "grade",
          "type": "worker_type", "vacancy": "vacancy_flag", "req": "requisition_id", "acting": "acting_flag",
          "cost": "annual_loaded_cost"},
         {"id": "EMPLID", "manager": "SUPERVISOR_ID", "title": "JOBTITLE", "dept": "DEPTNAME", "grade": "GRADE",
          "type": "EMPL_CLASS", "vacancy": "VACANT_IND", "req": "REQ_NBR", "acting": "ACTING_IND",
          "cost": "LOADED_COST_USD"})
_DIRS = {"hris": ("hris", "hr_systems/hris", "data/hris"), "fin": ("finance", "finance/workforce", "fp_and_a"),
         "hr": ("hr", "hr/memos", "people_team"), "design": ("org_design", "engagement/org_design", "design")}
SHORTCUTS = ("unfunded", "contractors", "acting", "circular", "prior_deck")


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: positions filtered, lines corrected, each
    layer found by walking up to the CEO, spans by tally, the consolidation rule group by group."""
    folder, F, C = Path(folder), P["files"], P["columns"]
    funded = {r["requisition_id"] for r in read_rows(folder / F["requisitions"], P["req_sheet"])
              if r["funding_status"].lower() == "funded"}
    boss: dict[str, str] = {}
    info: dict[str, tuple[str, float]] = {}
    for r in read_rows(folder / F["hris"]):
        if r[C["type"]].lower() == "contractor" or (r[C["vacancy"]] == "Y" and r[C["req"]] not in funded):
            continue
        boss[r[C["id"]]] = r[C["manager"]]
        info[r[C["id"]]] = (r[C["title"]], float(r[C["cost"]]))
    boss.update(P["corrections"])
    boss.update(P["acting_lines"])

    def depth(p: str) -> int:
        k = 1
        while boss[p]:
            p, k = boss[p], k + 1
            if k > len(boss):
                raise ValueError("a reporting loop remains")
        return k

    layer = {p: depth(p) for p in boss}
    tally: dict[str, int] = {}
    for m in boss.values():
        if m:
            tally[m] = tally.get(m, 0) + 1
    managers: list[dict[str, Any]] = [{"id": m, "span": tally[m], "narrow": "yes" if tally[m] < P["narrow_below"] else "no",
                 "layer": layer[m]} for m in sorted(tally)]
    groups, removed = [], 0
    savings = 0.0
    for g in sorted({boss[x["id"]] for x in managers if x["narrow"] == "yes" and boss[x["id"]]}):
        kids = sorted((info[x["id"]][1], x["id"], x["span"]) for x in managers
                      if x["narrow"] == "yes" and boss[x["id"]] == g)
        if len(kids) < 2:
            continue
        n = len(kids) - math.ceil(sum(k[2] for k in kids) / P["target_span"])
        n = max(n, 0)
        groups.append({"parent": g, "removable": n})
        removed += n
        savings += sum(k[0] for k in kids[:n])
    deepest = max(layer.values())
    savings = rnd(savings, 2)
    return {"position_count": len(boss), "manager_count": len(managers), "managers": managers,
            "median_span": rnd(statistics.median(x["span"] for x in managers), 1),
            "narrow_count": sum(x["narrow"] == "yes" for x in managers), "layer_count": deepest,
            "layers": [{"layer": k, "positions": sum(v == k for v in layer.values())} for k in range(1, deepest + 1)],
            "groups": groups, "removed_count": removed, "savings": savings,
            "decision": savings >= P["hurdle"], "premise": deepest <= P["bench_layers"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _tree(rng: random.Random) -> list[dict[str, Any]]:
    """The true organisation: nodes with id, parent, layer, dept, manager flag; sized 260-420."""
    for _ in range(60):
        depth = rng.choice((6, 7))
        nodes: list[dict[str, Any]] = [{"id": "", "parent": "", "layer": 1, "dept": "Executive Office", "kids": []}]
        nodes[0]["kids"] = [None] * rng.randint(5, 7)
        frontier = [0]
        while frontier:
            nxt = []
            for i in frontier:
                node = nodes[i]
                if node["layer"] == 1:
                    size = len(node["kids"])
                elif node["layer"] == 2:
                    size = rng.randint(3, 7)
                elif node["layer"] < depth and rng.random() < _P_MANAGE[node["layer"]]:
                    size = rng.choices(range(1, 13), _SPAN_W)[0]
                else:
                    size = 0
                node["kids"] = []
                depts = rng.sample(_DEPTS, size) if node["layer"] == 1 else [node["dept"]] * size
                for k in range(size):
                    nodes.append({"id": "", "parent": i, "layer": node["layer"] + 1, "dept": depts[k], "kids": []})
                    node["kids"].append(len(nodes) - 1)
                    nxt.append(len(nodes) - 1)
            frontier = nxt
        if 260 <= len(nodes) <= 420 and max(n["layer"] for n in nodes) == depth:
            ids = rng.sample(range(10001, 99999), len(nodes))
            for n, k in zip(nodes, ids, strict=True):
                n["id"] = f"E{k}"
            for n in nodes:
                n["parent"] = "" if n["parent"] == "" else nodes[n["parent"]]["id"]
                n["kids"] = [nodes[k]["id"] for k in n["kids"]]
            return nodes
    raise DegenerateTask("no organisation of the stated size")


def _grade(rng: random.Random, n: dict[str, Any]) -> str:
    if n["layer"] <= 2:
        return "EX1" if n["layer"] == 1 else "EX2"
    if n["kids"]:
        return {3: "M4", 4: "M3", 5: "M2"}.get(n["layer"], "M1")
    return rng.choice(("S3", "S2", "S2", "S1", "S1"))


def _title(n: dict[str, Any], acting: bool) -> str:
    d = n["dept"]
    if n["layer"] == 1:
        return "Chief Executive Officer"
    t = {"EX2": f"Director, {d}", "M4": f"Head of {d}", "M3": f"Senior Manager, {d}", "M2": f"Manager, {d}",
         "M1": f"Team Leader, {d}", "S3": f"Senior {d} Specialist", "S2": f"{d} Analyst", "S1": f"{d} Associate"}
    return ("Acting " if acting else "") + t[n["grade"]]


def _subtree_depth(by: dict[str, dict[str, Any]], i: str) -> int:
    return max([by[i]["layer"]] + [_subtree_depth(by, k) for k in by[i]["kids"]])


def _inside(by: dict[str, dict[str, Any]], i: str, top: str) -> bool:
    while i:
        if i == top:
            return True
        i = by[i]["parent"]
    return False


def _extract(rng: random.Random, nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """The HRIS extract's rows from the true tree, with the planted vacancies, contractors, acting and loop."""
    by = {n["id"]: n for n in nodes}
    for n in nodes:
        n["grade"] = _grade(rng, n)
        n["cost"] = round(_GRADE[n["grade"]] * math.exp(rng.gauss(0, 0.12)))
    deepest = max(n["layer"] for n in nodes)
    mgrs = [n for n in nodes if n["kids"] and n["layer"] >= 3]
    acting_pool = [n for n in mgrs if n["layer"] <= deepest - 2 and _subtree_depth(by, n["id"]) == deepest]
    if not acting_pool:
        raise DegenerateTask("no manager post deep enough for the acting appointment")
    act = rng.choice(acting_pool)
    sibs = [n for n in nodes if n["layer"] == act["layer"] and n["kids"] and n["id"] != act["id"]]
    loop_pool = [n for n in mgrs if any(by[k]["kids"] for k in n["kids"]) and not _inside(by, n["id"], act["id"])
                 and not _inside(by, act["id"], n["id"])]
    if not sibs or not loop_pool:
        raise DegenerateTask("no post for the acting line or the loop")
    sub = rng.choice(sibs)
    loop = rng.choice(loop_pool)
    loop_to = rng.choice([k for k in loop["kids"] if by[k]["kids"]])
    if _inside(by, sub["id"], loop["id"]):
        raise DegenerateTask("the acting manager's substantive line runs through the loop")
    leaves = [n for n in nodes if not n["kids"] and n["layer"] >= 3]
    funded = rng.sample(leaves, rng.randint(3, 6))
    for n in funded:
        n["vacant"] = True
        n["cost"] = round(_GRADE[n["grade"]], -2)
    narrowish = [n for n in mgrs if len(n["kids"]) in (2, 3)] or mgrs
    frozen = [{"parent": rng.choice(narrowish if k < 2 else mgrs)["id"]} for k in range(rng.randint(4, 6))]
    solo = rng.sample([n for n in leaves if not n.get("vacant")], rng.randint(1, 2))
    contractors = [{"parent": s["id"]} for s in solo for _ in range(rng.randint(1, 3))]
    contractors += [{"parent": rng.choice(narrowish if k < 2 else mgrs)["id"]} for k in range(rng.randint(4, 9))]
    return {"by": by, "acting": act, "sub": sub, "loop": loop, "loop_to": loop_to, "frozen": frozen,
            "contractors": contractors, "solo": solo}


def _rows(rng: random.Random, nodes: list[dict[str, Any]], x: dict[str, Any],
          reqs: list[list[Any]]) -> list[list[Any]]:
    out = []
    used = {n["id"] for n in nodes}
    numbers = iter(rng.sample(range(4100, 4999), 30))  # requisition numbers, in no telling order
    for n in nodes:
        vac = bool(n.get("vacant"))
        mgr = n["parent"]
        if n["id"] == x["acting"]["id"]:
            mgr = x["sub"]["id"]
        elif n["id"] == x["loop"]["id"]:
            mgr = x["loop_to"]
        req = ""
        pid = n["id"]
        if vac:
            req = f"REQ-{next(numbers)}"
            reqs.append([req, _title(n, False), n["dept"], n["cost"], "Funded"])
        out.append([pid, mgr, _title(n, n["id"] == x["acting"]["id"]) if not vac else _title(n, False), n["dept"],
                    n["grade"], "Employee", "Y" if vac else "N", req, "Y" if n["id"] == x["acting"]["id"] else "N",
                    n["cost"]])
    by = x["by"]
    for f in x["frozen"]:
        pid = f"E{rng.randint(10001, 99999)}"
        while pid in used:
            pid = f"E{rng.randint(10001, 99999)}"
        used.add(pid)
        dept, req = by[f["parent"]]["dept"], f"REQ-{next(numbers)}"
        grade = rng.choice(("S2", "S1"))
        cost = round(_GRADE[grade], -2)
        reqs.append([req, f"{dept} Analyst", dept, cost, "Frozen"])
        out.append([pid, f["parent"], f"{dept} Analyst", dept, grade, "Employee", "Y", req, "N", cost])
    for c in x["contractors"]:
        pid = f"C{rng.randint(50000, 59999)}"
        while pid in used:
            pid = f"C{rng.randint(50000, 59999)}"
        used.add(pid)
        dept = by[c["parent"]]["dept"]
        out.append([pid, c["parent"], f"Contract {rng.choice(('Developer', 'Analyst', 'Consultant'))}", dept, "CTR",
                    "Contractor", "N", "", "N", rng.randint(90, 160) * 1000])
    out.sort(key=lambda r: r[0])
    for _ in range(2):  # a couple of frozen requisitions never attached to a position in the extract
        reqs.append([f"REQ-{next(numbers)}", "Business Analyst", rng.choice(_DEPTS), 68000, "Frozen"])
    reqs.sort()
    return out


def _signature(f: Facts, P: dict[str, Any]) -> tuple[Any, ...]:
    spans = {m["id"]: (m["span"], m["narrow"]) for m in f["managers"]}
    return (f["position_count"], f["median_span"], f["narrow_count"], f["layer_count"], f["removed_count"],
            f["savings"], tuple(spans.get(g) for g in P["graded"]), tuple(r["positions"] for r in f["layers"]))


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.spans import analyse

    prof = profession(occupation)
    nodes = _tree(rng)
    x = _extract(rng, nodes)
    dirs = pick_labels(rng, _DIRS)
    wk = rng.randrange(2)
    C = _HRIS[wk]
    client = rng.choice(_CLIENTS)
    asof = dt.date(rng.choice((2025, 2026)), rng.randint(1, 11), rng.randint(1, 28))
    reqs: list[list[Any]] = []
    rows = _rows(rng, nodes, x, reqs)
    fy = asof.year + (1 if asof.month >= 7 else 0)
    P: dict[str, Any] = {
        "files": {"hris": f"{dirs['hris']}/extracts/hris_positions_{asof:%Y%m%d}.csv",
                  "requisitions": f"{dirs['fin']}/open_requisitions_FY{fy}.xlsx"},
        "columns": C, "req_sheet": "Requisitions", "narrow_below": 4, "target_span": 8,
        "old_narrow_below": rng.choice((3, 5)), "old_target_span": rng.choice((6, 10)),
        "corrections": {x["loop"]["id"]: x["loop"]["parent"]}, "acting_lines": {x["acting"]["id"]: x["acting"]["parent"]},
        "hurdle": 0.0, "bench_layers": 0, "design_dir": dirs["design"], "hr_dir": dirs["hr"], "graded": [], "labels": pick_labels(rng, _LABELS),
        "out_columns": pick_labels(rng, _OUT),
        "sheets": {"spans": rng.choice(("Spans", "Span of control")), "layers": "Layers", "savings": "Savings"},
        "deliverables": {"workbook": rng.choice(("spans_and_layers.xlsx", "org_benchmark.xlsx", "delayering_model.xlsx")),
                         "memo": rng.choice(("sponsor_memo.docx", "spans_layers_recommendation.docx",
                                             "delayering_memo.docx"))}}
    header = [C[k] for k in ("id", "manager", "title", "dept", "grade", "type", "vacancy", "req", "acting", "cost")]
    data = {P["files"]["hris"]: lambda p: write_csv(p, header, rows),
            P["files"]["requisitions"]: lambda p: write_xlsx(p, [(P["req_sheet"], [
                "requisition_id", "position_title", "department", "budgeted_loaded_cost", "funding_status"], reqs)])}
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), data)
        truth = analyse(tmp, P)
        mg = {m["id"]: m for m in truth["managers"]}
        if truth["removed_count"] < 2:
            raise DegenerateTask("fewer than two manager roles can be removed")
        for g in truth["groups"]:
            costs = [m["cost"] for m in truth["managers"] if m["parent"] == g["parent"] and m["narrow"] == "yes"]
            if len(set(costs)) < len(costs):
                raise DegenerateTask("loaded costs tie within a group of narrow managers")
        touched = [x["acting"]["id"], x["sub"]["id"], x["acting"]["parent"], x["loop"]["parent"], x["loop_to"],
                   *[f["parent"] for f in x["frozen"][:2]], *[c["parent"] for c in x["contractors"][-2:]]]
        others = [m for m in sorted(mg) if m not in touched]
        P["graded"] = list(dict.fromkeys([t for t in touched if t in mg] + rng.sample(others, min(3, len(others)))))
        sav = truth["savings"]
        P["hurdle"] = (nice_between(sav * 0.7, sav * 0.97, 2) if targets["decision"]
                       else nice_between(sav * 1.03, sav * 1.3, 2))
        depth = truth["layer_count"]
        P["bench_layers"] = depth + rng.choice((0, 1)) if targets["premise"] else depth - 1
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
    if singles["prior_deck"]["savings"] == truth["savings"]:
        raise DegenerateTask("last year's thresholds give the same savings")
    sig = _signature(truth, P)
    where = {"unfunded": ("memo", "only vacancies on a funded requisition count as positions"),
             "contractors": ("data", "contractors in the extract are not positions and do not make a manager"),
             "acting": ("memo", "the acting manager reports where the acting-appointments memo says"),
             "circular": ("email", "HR corrected a circular reporting line after the extract was taken"),
             "prior_deck": ("memo", "last year's review used superseded thresholds")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, f in singles.items() if _signature(f, P) != sig]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    writers, roles = _workspace(rng, P, x, client, asof, fy, data)
    L, D, Oc = P["labels"], P["deliverables"], P["out_columns"]
    S = P["sheets"]
    memo_labels = [(L["positions"], "whole number"), (L["median"], "1 decimal place"), (L["narrow"], "whole number"),
                   (L["layers"], "whole number"), (L["removed"], "whole number"),
                   (L["savings"], "US dollars a year, 2 decimal places"), (L["decision"], "yes or no"),
                   (L["premise"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=person(rng), role=rng.choice(("Engagement Partner", "Partner", "Engagement Manager")),
        org=rng.choice(("a management consultancy", "an organisation design practice")),
        subject=f"{client}: spans and layers",
        purpose=rng.choice((f"please benchmark {client}'s spans and layers and size the delayering savings.",
                            f"I need {client}'s spans of control and layers against the peer benchmark, and what "
                            "delayering would save.",
                            f"can you build the spans and layers view of {client} and tell me what a delayering "
                            "programme is worth?")),
        about=f"{client}'s HRIS position extract and Finance's open-requisitions list",
        belief=f"The CEO tells me {client} is no deeper than its peers on layers - please check that too.",
        table={"file": f"{D['workbook']} (sheet {S['spans']})", "headers": [Oc[k] for k in Oc],
               "unit": "manager (a position with at least one direct report)"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(
            f"In {D['workbook']}, {Oc['span']}, {Oc['narrow']} (yes or no), {Oc['rank']} and {Oc['removed']} (yes or no) "
            f"are live formulas; {Oc['parent']} is the manager's own manager (blank for the CEO) and {Oc['layer']} its "
            "layer. Also a sheet Roster (every position in scope, columns position_id, manager_id, vacant, "
            "loaded_cost, layer), a sheet Layers (columns layer, positions, managers; one row per layer) and a sheet "
            "Savings (columns parent_id, narrow_managers, their_direct_reports, managers_needed, managers_removed, "
            "savings; one row per manager with two or more narrow-span managers reporting to them), with counts and "
            "sums as formulas.",
            f"In {D['memo']}, after its opening lines, list the consolidations (under whom, how many roles, the "
            "savings) and say how vacancies, contractors, acting managers and the corrected reporting line were "
            "treated."),
        policy=f"the org-design principles in {dirs['design']}/", files=sorted(writers))
    return Draft(subject=f"Spans and layers for {client}", instructions=prompt, files=writers, roles=roles, params=P,
                 traps=traps, targets=dict(targets),
                 distributions="260-420 positions, 6-7 layers; spans 1-12 (a quarter narrow); loaded cost log-normal "
                               "(sigma 0.12) by grade; 3-6 funded and 4-6 frozen vacancies; 5-15 contractors; one "
                               "acting manager; one circular line; hurdle 3-30 % off the savings")


def _principles(P: dict[str, Any], current: bool) -> list[str]:
    if not current:
        return [f"Definitions used in this review: a narrow span is fewer than {P['old_narrow_below']} direct "
                f"reports; delayering sized at a target span of {P['old_target_span']}.",
                "Every open vacancy in the HRIS extract was counted as a position.",
                "This review is superseded by the org-design principles issued this year; its figures are kept for "
                "reference only."]
    return [
        "Org-design principles (version 3, current; supersedes the definitions used in earlier reviews)",
        "- Positions: every employee in the HRIS extract (filled, including acting appointments) and every vacancy "
        "whose requisition Finance lists as Funded. Contractors (contingent workers) are not positions: they are not "
        "counted as anyone's direct reports and do not make their supervisor a manager.",
        "- Reporting lines: the HRIS manager id, except where HR has corrected a line in writing after the extract "
        "was taken, and except acting managers, who report where HR's acting-appointments memo says.",
        "- A manager is a position with at least one direct report (a position); the CEO is a manager. Span of "
        "control = the number of the manager's direct reports, funded vacancies included.",
        "- Layers: the CEO is layer 1 and every position is one layer below its manager; the number of layers is the "
        "deepest layer of any position (funded vacancies included).",
        "- Median span: the median over every manager, the CEO included (for an even number of managers the mean of "
        "the two middle spans), stated to 1 decimal place.",
        f"- Narrow span: fewer than {P['narrow_below']} direct reports (a span of exactly {P['narrow_below']} is not "
        "narrow).",
        f"- Delayering savings rule: for each manager with two or more narrow-span managers reporting directly to them, "
        f"those narrow managers' teams are consolidated at the target span of {P['target_span']}: managers needed = "
        f"their combined direct reports / {P['target_span']}, rounded up; roles removed = the number of those narrow "
        "managers less the managers needed (never below zero). The roles removed are those with the lowest annual "
        "loaded cost (ties: the lower position id). A narrow manager with no narrow-span sibling is not consolidated; "
        "the CEO is never removed.",
        "- Savings = the sum of the annual loaded cost (HRIS, USD a year) of the roles removed, to the cent.",
        "- Rounding: half up; the median span to 1 decimal place, money to the cent; counts are whole numbers."]


def _workspace(rng: random.Random, P: dict[str, Any], x: dict[str, Any], client: str, asof: dt.date, fy: int,
               data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    hris = P["files"]["hris"].split("/extracts/")[0]
    fin = P["files"]["requisitions"].rsplit("/", 1)[0]
    C, act, loop, by = P["columns"], x["acting"], x["loop"], x["by"]
    later = lambda d: iso(asof + dt.timedelta(days=d))  # noqa: E731
    dsgn = P["design_dir"]
    add(f"{dsgn}/org_design_principles_v3.docx", "policy",
        lambda p: write_docx(p, "Org-design principles", _principles(P, True)))
    add(f"{dsgn}/archive/spans_layers_review_FY{fy - 1}.pdf", "stale",
        lambda p: write_pdf(p, f"{client} - spans and layers review FY{fy - 1} (superseded)", _principles(P, False) + [
            f"Findings last year: median span {rng.choice((3.5, 4.0, 4.5))}; {rng.randint(18, 40)} narrow-span "
            f"managers; {rng.randint(6, 9)} layers; savings of {rng.randint(9, 30) * 100000:,} USD."]))
    add(f"{P['hr_dir']}/vacancy_counting_memo.docx", "policy", lambda p: write_docx(p, "Vacancies in workforce analyses", [
        f"Date: {iso(asof)}", "The HRIS extract lists every open vacancy with its requisition number.",
        f"Only vacancies whose requisition Finance lists as Funded on the FY{fy} open-requisitions list "
        f"({P['files']['requisitions']}) count as positions in spans, layers and headcount. Requisitions marked "
        "Frozen are unfunded under the hiring freeze and are not positions."]))
    add(f"{P['hr_dir']}/acting_appointments.docx", "policy", lambda p: write_docx(p, "Acting appointments", [
        f"Date: {iso(asof)}",
        f"{act['id']} is acting {_title(act, False)} until the post is filled substantively. While acting, {act['id']} reports to "
        f"{act['parent']} ({_title(by[act['parent']], False)}) and leads the post's team.",
        f"The HRIS record still shows the substantive manager ({x['sub']['id']}) until the appointment is "
        f"confirmed; workforce analyses place acting managers on the reporting line given here."]))
    add(f"mail/{later(2)}_hris_line_correction.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, HRIS Analyst", to="engagement team", date=later(2),
        subject="Correction to the position extract", body=(
            f"In the extract of {iso(asof)}, {loop['id']} shows {C['manager']} {x['loop_to']}, who in turn reports to "
            f"{loop['id']} - a keying error from the last reorganisation. {loop['id']}'s line manager is "
            f"{loop['parent']}. HRIS is corrected as of today; please use {loop['parent']} in your analysis."))))
    add(f"mail/{later(1)}_extract_notes.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, HR Systems", to="engagement team", date=later(1), subject="Position extract", body=(
            f"The extract is in {hris}/extracts/. It is the supervisory hierarchy, so it includes contingent workers "
            f"({C['type']} = Contractor) for access approvals, and every open vacancy ({C['vacancy']} = Y) whatever its "
            f"funding. {C['cost']} is the annual fully loaded cost (salary, bonus, employer on-costs) in USD; for a "
            "vacancy, the budgeted cost."))))
    add(f"mail/{later(3)}_sponsor_hurdle.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Chief Operating Officer, {client}", to="engagement partner", date=later(3),
        subject="Delayering - what it must be worth", body=(
            f"The executive committee will back a delayering programme only if it saves at least {P['hurdle']:,.2f} "
            "USD a year in loaded cost. Below that, the disruption is not worth it."))))
    add("benchmark/peer_benchmark_excerpt.pdf", "reference", lambda p: write_pdf(
        p, "Organisation benchmark - excerpt", [
            "Peer group: organisations of 250-500 positions in regulated services.",
            f"Median number of layers (CEO = layer 1): {P['bench_layers']}.",
            f"Median span of control: {rng.choice((5.5, 6.0, 6.5, 7.0))}; interquartile range 4.5-8.0.",
            "Share of managers with fewer than 4 direct reports: 18 %."]))
    add(f"{fin}/headcount_budget_FY{fy}.xlsx", "distractor", lambda p: write_xlsx(p, [("Budget", [
        "department", "budgeted_fte", "budget_usd"], [[d, rng.randint(12, 80), rng.randint(10, 90) * 100000]
                                                      for d in rng.sample(_DEPTS, 6)])]))
    add(f"{hris}/data_dictionary.txt", "reference", lambda p: write_text(p, "\n".join(
        [f"{C[k]}: {v}" for k, v in (("id", "position / employee id (E... employee or vacancy, C... contractor)"),
                                     ("manager", "id of the supervisor in HRIS (blank for the CEO)"), ("vacancy", "Y = open vacancy"),
                                     ("req", "requisition of a vacancy"), ("acting", "Y = acting appointment"),
                                     ("cost", "annual loaded cost, USD"))]) + "\n"))
    add(f"{hris}/archive/engagement_survey_{asof.year - 1}.csv", "distractor", lambda p: write_csv(
        p, ["department", "responses", "engagement_pct"], [[d, rng.randint(10, 60), rng.randint(55, 85)]
                                                           for d in rng.sample(_DEPTS, 6)]))
    add("engagement/workplan.docx", "distractor", lambda p: write_docx(p, "Engagement workplan", [
        "Week 1: data request and interviews.", "Week 2: spans and layers baseline.",
        "Week 3: design options and savings.", "Week 4: steering committee."]))
    add(f"meetings/{iso(asof)}_kickoff.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="spans and layers baseline", people=[person(rng) for _ in range(3)], date=iso(asof))))
    return w, roles


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, Oc, S = P["deliverables"], P["labels"], P["out_columns"], P["sheets"]
    book, memo = D["workbook"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    mg = {m["id"]: m for m in facts["managers"]}

    def cells(key: str) -> list[tuple[str, Any]]:
        return [(f"{book} {S['spans']}: {g} {Oc[key]} = {mg[g][key]}",
                 CellCheck(file=book, sheet=S["spans"], match={Oc["id"]: g}, column=Oc[key],
                           value=float(mg[g][key]) if key == "span" else mg[g][key])) for g in P["graded"]]

    def whole(key: str, v: float) -> tuple[str, Any]:
        return f"{L[key]} = {v:g}", FieldCheck(file=memo, label=L[key], number=float(v), tolerance=0.0)

    layers = [(f"{book} Layers: layer {r['layer']} has {r['positions']} positions",
               CellCheck(file=book, sheet="Layers", match={"layer": float(r["layer"])}, column="positions",
                         value=float(r["positions"]))) for r in facts["layers"]]
    groups = [(f"{book} Savings: {g['parent']} managers_removed = {g['removable']}",
               CellCheck(file=book, sheet="Savings", match={"parent_id": g["parent"]}, column="managers_removed",
                         value=float(g["removable"]))) for g in facts["groups"]]
    savings = (f"{L['savings']} = {facts['savings']:.2f}", fld_num(memo, L["savings"], facts["savings"], 2))
    depth = whole("layers", facts["layer_count"])
    out = [
        rubric("Counts employees and funded vacancies only as positions", 8, [
            whole("positions", facts["position_count"])]),
        rubric("Measures span of control per manager on the corrected reporting lines", 10, [
            (f"{book} {S['spans']} has {facts['manager_count']} manager rows",
             RowCountCheck(file=book, sheet=S["spans"], key=Oc["id"], count=facts["manager_count"])), *cells("span")]),
        rubric("Reports the median span", 8, [
            (f"{L['median']} = {facts['median_span']:.1f}", fld_num(memo, L["median"], facts["median_span"], 1))]),
        rubric("Flags narrow-span managers at the current threshold", 10, [
            whole("narrow", facts["narrow_count"]), *cells("narrow")]),
        rubric("Counts layers from the CEO as layer 1", 10, [depth, *layers]),
        rubric("Sizes the delayering savings by the stated consolidation rule", 10, [
            whole("removed", facts["removed_count"]), savings, *groups]),
        rubric("Answers the sponsor's question against the savings hurdle", 8, [
            savings, (f"{L['decision']}: {yes(facts['decision'])}",
                      fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Answers the CEO's belief about layers against the benchmark", 6, [
            depth, (f"{L['premise']}: {yes(facts['premise'])}",
                    fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Writes a recommendation the sponsor can take to the executive committee", 6, [
            ("Lists the consolidations with the roles removed and the savings of each", llm("content")),
            ("Says how frozen vacancies, contractors, the acting manager and the looped reporting line were treated",
             llm("explanation")),
            ("Recommends for or against a delayering programme against the hurdle, with the benchmark in view",
             llm("writing"))]))
    return out


SPANS_AND_LAYERS = Workflow(
    key="spans_and_layers", family="organisation_design",
    method="spans of control and layers from the reporting tree, delayering by consolidating narrow-span managers "
           "at a target span",
    professions=("management_analysts",), solver="spans", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated HRIS position extract (stated distributions)")
