"""Profession workflows end to end: a drawn task's nested workspace, its re-executable ground truth, the independent
recheck, the gates, and the reward it pays: full credit for correct answers written differently, nothing for a
procedure that skips the task's own plan, for hedges or for blind guesses."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jobenv.judge import make_judge
from jobenv.synthetic.gates import MAX_NAIVE_SCORE, TaskMeta, grade_checks
from jobenv.synthetic.workflows import WORKFLOWS, workflows_for
from jobenv.synthetic.workflows.base import write_files
from jobenv.synthetic.workflows.write import recheck_task, rubric_json, solver_module
from jobenv.tasks import load_task_dir

from .conftest import score_output, write_drawn

# One gated task per workflow, the one its own module grades too (decision yes, premise no, unless listed here): a
# gated draw costs 10-60 s of workbook recalculation, so the other answers are shown by draws solved without the gates.
OWN_DRAW = {"capital_project_appraisal": (True, True), "caseload_report": (False, True),
            "course_evaluation": (False, True), "dmr_desk_review": (False, True), "erlang_c_staffing": (False, True),
            "psap_answering": (False, False), "tolerance_stackup": (False, True), "travel_per_diem_audit": (False, True)}


def _drawn(wf) -> list[tuple[bool, bool]]:
    return [OWN_DRAW.get(wf.key, (True, False))]


@pytest.fixture(scope="module", params=[wf.key for wf in WORKFLOWS])
def tasks(request, workflow_task):
    wf = next(w for w in WORKFLOWS if w.key == request.param)
    made = [workflow_task(wf, d, p) for d, p in _drawn(wf)]
    return wf, made


@pytest.mark.parametrize("key", [wf.key for wf in WORKFLOWS])
def test_every_answer_pair_can_be_drawn_and_the_solver_reaches_it(key, tmp_path):
    """Each workflow draws cases whose ground truth is (decision no, premise yes) and (no, no) too, not only the
    gated (yes, no): the solver's own reading of the files reaches the targets, and the recheck agrees with it."""
    import random

    from jobenv.synthetic.common import DegenerateTask

    wf = next(w for w in WORKFLOWS if w.key == key)
    solver = solver_module(wf)
    for decision, premise in [(False, True), (False, False)]:
        for attempt in range(30):
            try:
                draft = wf.draw(random.Random(f"pairs:{attempt}"), wf.professions[0],
                                {"decision": decision, "premise": premise})
                break
            except DegenerateTask:
                continue
        else:
            raise AssertionError(f"{key}: no draw reached decision={decision}, premise={premise} in 30 attempts")
        folder = tmp_path / f"{decision}-{premise}"
        write_files(folder, draft.files)
        params = json.loads(json.dumps(draft.params))  # as solve.py holds them
        facts = solver.analyse(str(folder), params)
        assert (facts["decision"], facts["premise"]) == (decision, premise)
        assert rubric_json(wf.rubrics(facts, params, False)) == rubric_json(wf.rubrics(wf.recheck(folder, params),
                                                                                        params, False))


def _facts_and_params(wf, task: Path):
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver_module(wf).analyse(str(task / "task_folder"), params), params


def test_every_workflow_names_real_professions_and_a_method():
    from jobenv.synthetic.professions import PROFESSIONS

    keys = {p.key for p in PROFESSIONS}
    assert len({wf.key for wf in WORKFLOWS}) == len(WORKFLOWS)
    for wf in WORKFLOWS:
        assert wf.professions and set(wf.professions) <= keys and wf.method and len(wf.shortcuts) >= 2
        assert all(wf in workflows_for(p) for p in wf.professions)


def test_a_task_is_a_nested_workspace_with_its_answers_on_target(tasks):
    wf, made = tasks
    for task, (decision, premise) in zip(made, _drawn(wf), strict=True):
        meta = TaskMeta.model_validate_json((task / "meta.json").read_text())
        assert meta.workflow and meta.workflow["key"] == wf.key and meta.scenario == wf.key
        assert meta.answers["decision"] is decision and meta.answers["premise_holds"] is premise
        assert meta.naive_score is not None and meta.naive_score <= MAX_NAIVE_SCORE
        assert "generated" in meta.licence and meta.data_source["provider"].startswith("generated")
        assert len(meta.traps) >= 2 and all(t["loses"] for t in meta.traps)
        folder = task / "task_folder"
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                       if p.is_file() and p.name != "TASK_INSTRUCTIONS.txt")
        assert 10 <= len(files) <= 40 and len({f.split("/")[0] for f in files if "/" in f}) >= 3
        instructions = (folder / "TASK_INSTRUCTIONS.txt").read_text()
        listed = [ln[2:] for ln in instructions.split("Local Reference Files:")[1].splitlines() if ln.startswith("- ")]
        assert listed == files
        assert {".docx", ".pdf", ".xlsx", ".csv"} <= {Path(f).suffix for f in files}


def test_the_ground_truth_script_reexecutes_to_the_same_outputs(tasks, tmp_path):
    from jobenv.extract import extract_file

    _, made = tasks
    for task in made:
        out = tmp_path / task.parent.parent.name
        proc = subprocess.run([sys.executable, str(task / "ground_truth" / "solve.py"), str(task / "task_folder"),
                               str(out)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        gt = task / "ground_truth" / "outputs"
        assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in gt.iterdir())
        for p in gt.iterdir():
            assert extract_file(out / p.name) == extract_file(p)


def test_the_independent_recheck_agrees_and_catches_a_changed_fact(tasks, tmp_path):
    import shutil

    _, made = tasks
    assert all(recheck_task(t) == [] for t in made)
    bad = tmp_path / "bad"
    shutil.copytree(made[0], bad)
    data = json.loads((bad / "RUBRICS.json").read_text())
    check = next(c for r in data["rubrics"] for c in r["jobenv_checks"] if c["kind"] == "field" and c.get("number"))
    check["number"] += 1
    (bad / "RUBRICS.json").write_text(json.dumps(data))
    assert recheck_task(bad) and recheck_task(bad)[0].startswith("recheck:")


def test_the_checks_judge_pays_the_ground_truth_in_full_and_nothing_for_nothing(tasks, tmp_path):
    _, made = tasks
    judge = make_judge("checks")
    empty = tmp_path / "empty"
    empty.mkdir()
    for task in made:
        t = load_task_dir(task, "synthetic")
        rep = judge.grade_sync(t, task / "ground_truth" / "outputs")
        assert rep.status == "ok" and rep.normalized_score == 1.0, rep.error
        assert judge.grade_sync(t, empty).normalized_score == 0.0


def _km_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct Kaplan-Meier answer written by hand, not by the solver: reordered and extra table columns, the
    memo's labelled lines in Markdown bold, with '=' or as a table, numbers with a unit or at two decimals."""
    import pandas as pd

    out.mkdir(parents=True)
    L, names, d = params["labels"], params["arm_names"], params["deliverables"]
    cols = d["table"]["columns"]
    rows = [{cols["surv"]: f"{r['surv_pct']:.2f}", "note": "KM", cols["at_risk"]: r["at_risk"],
             cols["day"]: r["day"], cols["arm"]: names[r["arm"]].upper()} for r in facts["life_table"]]
    frame = pd.DataFrame(rows)
    if d["table"]["file"].endswith(".xlsx"):
        frame.to_excel(out / d["table"]["file"], index=False, sheet_name="KM")
    else:
        frame.to_csv(out / d["table"]["file"], index=False)
    pairs = []
    for arm in params["arms"]:
        f, name = facts["arms"][arm], names[arm]
        pairs += [(L["n"].format(arm=name), f"{f['n']} patients"), (L["deaths"].format(arm=name), str(f["deaths"])),
                  (L["surv"].format(arm=name), f"{f['surv_pct']:.1f}%"),
                  (L["median"].format(arm=name), "Not reached" if f["median"] is None else f"{f['median']} days")]
    pairs += [(L["difference"], f"{facts['difference']:+.1f}"), (L["decision"], "Yes" if facts["decision"] else "No"),
              (L["premise"], "Yes" if facts["premise"] else "No")]
    _memo(out / d["memo"], pairs, style, "I used the current SAP, censored at the cut-off and at withdrawal as it "
          "says, and left the archived plan and the older extract aside.")


def _decline_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct decline-curve answer by hand: the table with the columns in another order and a units row, rates
    at two decimals, the total as a plain row; the memo's lines styled, the well list comma-separated."""
    import pandas as pd

    out.mkdir(parents=True)
    L, d = params["labels"], params["deliverables"]
    c = d["table"]["columns"]
    rows = [{c["reserves"]: w["reserves_mbbl"], c["well"]: w["well"], c["rate"]: f"{w['raw']['rate']:.2f}",
             c["decline"]: w["decline_pct"], c["shut_in"]: w["shut_in"]} for w in facts["wells"]]
    rows.append({c["well"]: "Total", c["reserves"]: facts["total_mbbl"]})
    frame = pd.DataFrame(rows)
    if d["table"]["file"].endswith(".xlsx"):
        frame.to_excel(out / d["table"]["file"], index=False)
    else:
        frame.to_csv(out / d["table"]["file"], index=False)
    pairs = [(L["total"], f"{facts['total_mbbl']:.1f} Mbbl"), (L["decision"], "Yes" if facts["decision"] else "No"),
             (L["abandon"], ", ".join(facts["abandon"]) or "None"), (L["steepest"], facts["steepest"]),
             (L["premise"], "Yes" if facts["premise"] else "No")]
    _memo(out / d["memo"], pairs, style, "Shut-in months were left out; the partner's cubic metres were converted.")


def _memo(path: Path, pairs: list[tuple[str, str]], style: str, reasoning: str) -> None:
    if style == "bold":
        lines = [f"**{k}:** {v}" for k, v in pairs]
    elif style == "equals":
        lines = [f"- {k} = {v}" for k, v in pairs]
    else:
        lines = ["| Item | Value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in pairs]
    body = ["# Summary", "", *lines, "", reasoning]
    if path.suffix == ".docx":
        import docx

        doc = docx.Document()
        for line in body:
            doc.add_paragraph(line)
        doc.save(str(path))
    else:
        path.write_text("\n".join(body) + "\n")


def _match_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct three-way match by hand: statuses capitalised, amounts with a dollar sign and thousands
    separators, an extra reason column, invoices sorted by vendor; the memo's counts and totals styled."""
    import pandas as pd

    out.mkdir(parents=True)
    L, d = params["labels"], params["deliverables"]
    c = d["table"]["columns"]
    rows = sorted(({c["status"]: r["status"].capitalize(), c["vendor"]: r["vendor"], c["invoice"]: r["invoice"],
                    c["amount"]: f"${r['amount']:,.2f}", "reason": "see memo" if r["status"] == "hold" else ""}
                   for r in facts["invoices"]), key=lambda r: (r[c["vendor"]], r[c["invoice"]]))
    frame = pd.DataFrame(rows)
    if d["table"]["file"].endswith(".xlsx"):
        frame.to_excel(out / d["table"]["file"], index=False)
    else:
        frame.to_csv(out / d["table"]["file"], index=False)
    pairs = [(L["approved_total"], f"${facts['approved_total']:,.2f}"), (L["approved_count"], str(facts["approved_count"])),
             (L["held_total"], f"${facts['held_total']:,.2f}"), (L["held_count"], f"{facts['held_count']} invoices"),
             (L["decision"], "Yes" if facts["decision"] else "No"), (L["premise"], "Yes" if facts["premise"] else "No")]
    _memo(out / d["memo"], pairs, style, "Held invoices bill more than was received net of returns, or a price "
          "outside the tolerance of the price in force after change orders; the re-sent invoice is paid once.")


def _bankrec_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct reconciliation by hand: the workbook with values typed in (no formulas), an extra notes column and
    the list sheets' columns in another order; the entries file with its columns reordered and whole-cent amounts;
    the memo styled."""
    import pandas as pd

    out.mkdir(parents=True)
    d, L, R = params["deliverables"], params["labels"], params["rec_labels"]
    values = {"bank": facts["closing_bank"], "dit": facts["dit_total"], "os": facts["os_total"],
              "adjusted_bank": facts["adjusted_bank"], "book": facts["book"], "interest": facts["interest"],
              "fees": facts["fees"], "nsf": facts["nsf"], "stale": facts["stale_total"],
              "correction": facts["correction"], "unmatched": 0.0, "adjusted_book": facts["adjusted_book"],
              "difference": 0.0}
    with pd.ExcelWriter(out / d["workbook"]) as xw:
        pd.DataFrame([{"Line": R[k], "Amount": round(v, 2), "Notes": ""} for k, v in values.items()]).to_excel(
            xw, sheet_name="Rec", index=False)
        pd.DataFrame([{"amount": r["amount"], "payee": r["payee"], "cheque_no": int(r["cheque_no"]), "date": r["date"]}
                      for r in facts["outstanding"]]).to_excel(xw, sheet_name="Outstanding", index=False)
        pd.DataFrame(facts["dit"]).to_excel(xw, sheet_name="DIT", index=False)
        pd.DataFrame(facts["stale"] or [{"cheque_no": "", "amount": ""}]).to_excel(xw, sheet_name="Stale", index=False)
    lines = [{"description": text, "credit": f"{cr:.2f}", "debit": f"{dr:.2f}", "account": int(acct), "entry": k}
             for k, entry in enumerate(facts["entries"], 1) for acct, dr, cr, text in entry]
    pd.DataFrame(lines).to_csv(out / d["upload"], index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["adjusted"], f"${facts['adjusted_book']:,.2f}"), (L["os_count"], f"{facts['os_count']} cheques"),
             (L["os_total"], f"{facts['os_total']:,.2f}"), (L["dit_total"], f"{facts['dit_total']:.2f} USD"),
             (L["stale_total"], f"{facts['stale_total']:.2f}"), (L["correction"], f"{facts['correction']:+.2f}"),
             (L["decision"], yes(facts["decision"])), (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "The stale cheque goes to unclaimed property under the current policy; the "
          "transposed posting is corrected to the amount the bank paid, which the cheque register confirms.")


def _erlang_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct Erlang C staffing answer by hand: typed values instead of formulas, the interval columns in another
    order with a notes column, the AHT in the inputs with a unit; the memo's lines styled, the FTE with a unit."""
    import pandas as pd

    out.mkdir(parents=True)
    d, L, IN, FL = params["deliverables"], params["labels"], params["input_labels"], params["fte_labels"]
    inputs = {"growth": facts["growth"], "aht": round(facts["aht"], 2), "interval_s": 1800, "threshold_s": 20,
              "target": "80%", "shrinkage": params["shrinkage"], "fte_hours": params["fte_hours"]}
    fte = facts["fte"]
    with pd.ExcelWriter(out / d["workbook"]) as xw:
        pd.DataFrame([{"Parameter": IN[k], "Value": v} for k, v in inputs.items()]).to_excel(
            xw, sheet_name="Inputs", index=False)
        pd.DataFrame([{"agents": r["agents"], "day": r["day"], "interval": r["interval"],
                       "forecast_calls": round(r["forecast"], 3), "traffic_erlangs": round(r["traffic"], 3),
                       "note": "peak" if r["interval"] == facts["peak"]["interval"] else ""}
                      for r in facts["intervals"]]).to_excel(xw, sheet_name="Intervals", index=False)
        pd.DataFrame([{"Line": FL["hours"], "Value": facts["agent_hours"]}, {"Line": FL["fte"], "Value": round(fte, 2)},
                      {"Line": FL["budget"], "Value": params["budget_fte"]}]).to_excel(xw, sheet_name="FTE", index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["peak"], f"{facts['peak']['forecast']:.1f} calls"), (L["aht"], f"{facts['aht']:.1f} seconds"),
             (L["agents"], f"{facts['peak']['agents']} agents"), (L["fte"], f"{fte:.1f} FTE"),
             (L["current_sl"], f"{facts['current_sl']:.1f}%"), (L["decision"], yes(facts["decision"])),
             (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "Short abandons were left out of offered calls, AHT includes after-call "
          "work, and the revised growth memo replaces the earlier one.")


def _psap_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct 911 answering review by hand: typed values, the hourly columns reordered with the percentages at
    two decimals, an extra column; the memo's lines styled with percent signs and units."""
    import pandas as pd

    out.mkdir(parents=True)
    d, L, S = params["deliverables"], params["labels"], params["summary_labels"]
    with pd.ExcelWriter(out / d["workbook"]) as xw:
        pd.DataFrame([{"pct_within_15s": round(r["pct_1"], 2), "hour": r["hour"], "calls_911": r["calls"],
                       "shift": "day" if 6 <= r["hour"] < 18 else "night"} for r in facts["hours"]]).to_excel(
            xw, sheet_name="Hourly", index=False)
        pd.DataFrame([{"Line": S["calls"], "Value": facts["calls"]}, {"Line": S["pct_1"], "Value": round(facts["pct_1"], 2)},
                      {"Line": S["pct_2"], "Value": round(facts["pct_2"], 2)}]).to_excel(
            xw, sheet_name="Summary", index=False)
        pd.DataFrame([{"Line": S["traffic"], "Value": round(facts["busy"]["traffic"], 3)},
                      {"Line": S["positions"], "Value": facts["positions"]}]).to_excel(
            xw, sheet_name="Positions", index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["pct_1"], f"{facts['pct_1']:.1f}%"), (L["pct_2"], f"{facts['pct_2']:.1f} %"),
             (L["worst"], f"{facts['worst']['hour']}"), (L["positions"], f"{facts['positions']} positions"),
             (L["abandon"], f"{facts['abandon_pct']:.1f}%"), (L["decision"], yes(facts["decision"])),
             (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "Admin lines are out, transfers are timed from arrival here, and abandoned "
          "calls count against the standard even when called back.")


def _regz_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct Reg Z recomputation by hand: the workbook with typed values, its columns swapped and a notes
    column; money with dollar signs and separators in the memo, the APR with a percent sign."""
    import pandas as pd

    out.mkdir(parents=True)
    L, d = params["labels"], params["deliverables"]
    keys = ("prepaid", "amount_financed", "finance_charge", "apr", "understatement")
    with pd.ExcelWriter(out / d["workbook"]) as xw:
        pd.DataFrame([{"Amount": facts[k], "Line": L[k], "Note": "recomputed"} for k in keys]).to_excel(
            xw, sheet_name="Recompute", index=False)
        pd.DataFrame(facts["fees"]).to_excel(xw, sheet_name="Fees", index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["prepaid"], f"${facts['prepaid']:,.2f}"), (L["amount_financed"], f"${facts['amount_financed']:,.2f}"),
             (L["finance_charge"], f"${facts['finance_charge']:,.2f}"), (L["apr"], f"{facts['apr']:.3f}%"),
             (L["understatement"], f"${facts['understatement']:,.2f}"), (L["apr_ok"], yes(facts["apr_ok"])),
             (L["tolerance"], f"${facts['tolerance']:,.2f}"), (L["decision"], yes(facts["decision"])),
             (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "Fees were classified by description under the current research note; "
          "fees paid by the lender or others were left out; the docket decides the foreclosure question.")


def _capex_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct appraisal by hand: typed values, the FCF sheet with a discount-factor column first, the memo's
    money with dollar signs and the IRR with a percent sign."""
    import pandas as pd

    out.mkdir(parents=True)
    L, d = params["labels"], params["deliverables"]
    w = params["wacc"] / 100
    with pd.ExcelWriter(out / d["workbook"]) as xw:
        pd.DataFrame([{"Discount factor": round((1 + w) ** -r["year"], 6), "Year": r["year"], "FCF": r["fcf"]}
                      for r in facts["rows"]]).to_excel(xw, sheet_name="FCF", index=False)
        pd.DataFrame([{"Line": L["npv"], "Value": facts["npv"]}, {"Line": L["irr"], "Value": facts["irr"]}]).to_excel(
            xw, sheet_name="Valuation", index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pb = "not within the project life" if facts["payback"] is None else f"{facts['payback']:.2f} years"
    pairs = [(L["capex"], f"${facts['capex']:,.2f}"), (L["npv"], f"${facts['npv']:,.2f}"), (L["irr"], f"{facts['irr']:.2f}%"),
             (L["payback"], pb), (L["nwc"], f"${facts['nwc_release']:,.2f}"), (L["decision"], yes(facts["decision"])),
             (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "The development spend is sunk and left out; the later Treasury memo's WACC "
          "governs; working capital comes back in the final year.")


def _capability_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct capability study by hand: the workbook with values typed in (no formulas), the Limits and
    Capability rows in another order with a notes column, the subgroup sheet's columns reordered; the slide's lines
    with '=' in a table-free text box; the memo styled, the out-of-control list comma-separated."""
    import pandas as pd
    from pptx import Presentation
    from pptx.util import Inches

    out.mkdir(parents=True)
    d, L, W = params["deliverables"], params["labels"], params["sheet_labels"]
    rows = [{"mean": round(sum(g["readings"]) / 5, 5), "range": round(max(g["readings"]) - min(g["readings"]), 4),
             "subgroup": g["subgroup"], "timestamp": g["timestamp"],
             **{f"x{k + 1}": v for k, v in enumerate(g["readings"])}} for g in facts["subgroups"]]
    limits = {W["ucl_r"]: facts["ucl_r"], W["ucl_x"]: facts["ucl_x"], W["lcl_x"]: facts["lcl_x"],
              W["grand_mean"]: facts["grand_mean"], W["rbar"]: facts["rbar"], W["n_subgroups"]: facts["n_subgroups"]}
    cap = {W["ppk"]: facts["ppk"], W["cpk"]: facts["cpk"], W["sigma_within"]: facts["sigma_within"]}
    with pd.ExcelWriter(out / d["workbook"]) as xw:
        pd.DataFrame(rows).to_excel(xw, sheet_name="Subgroups", index=False)
        pd.DataFrame([{"Item": k, "Value": v, "Note": "typed"} for k, v in limits.items()]).to_excel(
            xw, sheet_name="Limits", index=False)
        pd.DataFrame([{"Item": k, "Value": v, "Note": ""} for k, v in cap.items()]).to_excel(
            xw, sheet_name="Capability", index=False)
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    box = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(6), Inches(4)).text_frame
    box.text = f"{L['ppk']} = {facts['ppk']:.2f}"
    for line in (f"{L['cpk']} = {facts['cpk']:.2f}", f"{L['ooc_count']} = {facts['ooc_count']} subgroups"):
        box.add_paragraph().text = line
    prs.save(str(out / d["slide"]))
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["n_subgroups"], f"{facts['n_subgroups']} subgroups"), (L["grand_mean"], f"{facts['grand_mean']:.4f}"),
             (L["rbar"], f"{facts['rbar']:.4f}"), (L["ucl_x"], f"{facts['ucl_x']:.4f}"),
             (L["lcl_x"], f"{facts['lcl_x']:.4f}"), (L["ucl_r"], f"{facts['ucl_r']:.4f}"),
             (L["ooc"], ", ".join(facts["ooc"]) or "None"), (L["ooc_count"], str(facts["ooc_count"])),
             (L["cpk"], f"{facts['cpk']:.2f}"), (L["ppk"], f"{facts['ppk']:.2f}"),
             (L["decision"], yes(facts["decision"])), (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "The subgroups cut before the insert change and the gauge-fault subgroup "
          "were left out; limits are from the released drawing revision.")


def _stackup_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct stack-up by hand: the workbook with typed values and the Summary rows in another order with a unit
    column, the Stack sheet's columns reordered; the memo styled, the share with a percent sign."""
    import pandas as pd

    out.mkdir(parents=True)
    d, L, W = params["deliverables"], params["labels"], params["sheet_labels"]
    summary = {W["rss_min"]: facts["rss_min"], W["wc_min"]: facts["wc_min"], W["mean_gap"]: facts["mean_gap"],
               W["nominal_gap"]: facts["nominal_gap"], W["rss_tol"]: facts["rss_tol"], W["wc_tol"]: facts["wc_tol"]}
    with pd.ExcelWriter(out / d["workbook"]) as xw:
        pd.DataFrame([{"Unit": "mm", "Item": k, "Value": v} for k, v in summary.items()]).to_excel(
            xw, sheet_name="Summary", index=False)
        pd.DataFrame([{"description": r["description"], "tol_mm": facts["tols"][r["ref"]], "ref": r["ref"],
                       "nominal_mm": r["nominal"]} for r in facts["rows"]]).to_excel(xw, sheet_name="Stack", index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["nominal_gap"], f"{facts['nominal_gap']:.3f}"), (L["mean_gap"], f"{facts['mean_gap']:.3f}"),
             (L["wc_min"], f"{facts['wc_min']:.3f}"), (L["rss_min"], f"{facts['rss_min']:.3f}"),
             (L["top"], facts["top"]), (L["top_share"], f"{facts['top_share']:.1f}%"),
             (L["decision"], yes(facts["decision"])), (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "Means and half-band tolerances, the pin as a radius, the current note.")


def _staffing_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct HPPD answer by hand: typed values (no formulas) in another column order with a units column, the
    non-productive allowance as a fraction, unit names in capitals; the memo styled, FTE with a unit."""
    import pandas as pd

    out.mkdir(parents=True)
    d, L = params["deliverables"], params["labels"]
    rows = [{"fte_gap": u["fte_gap"], "unit": u["unit"].upper(), "hppd": f"{u['hppd']:.2f}",
             "patient_days": u["patient_days"], "productive_hours": f"{u['productive_hours']:,.2f}",
             "fte_needed": u["fte_needed"], "budgeted_fte": u["budgeted_fte"], "target_hppd": u["target_hppd"],
             "nonproductive_pct": u["nonproductive_pct"] / 100, "measure": "per 14-day pay period"}
            for u in facts["units"]]
    pd.DataFrame(rows).to_excel(out / d["workbook"], sheet_name="Units", index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["shortfall"], f"{facts['shortfall']:.1f} FTE"), (L["overall"], f"{facts['overall_hppd']:.2f}"),
             (L["worst"], facts["worst_unit"]), (L["worst_gap"], f"{facts['worst_gap']:.2f} FTE"),
             (L["decision"], yes(facts["decision"])), (L["premise_hppd"], f"{facts['premise_hppd']:.2f} hours"),
             (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "Orientation, education and PTO were left out of productive hours; agency "
          "shifts were added; float shifts count on the unit worked; the approved targets revision was used.")


def _perdiem_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct per diem audit by hand: typed values with dollar signs in another column order, a notes column;
    the memo styled with amounts in dollars."""
    import pandas as pd

    out.mkdir(parents=True)
    d, L = params["deliverables"], params["labels"]
    rows = [{"over_claim": f"{r['over_claim']:.2f}", "traveller": r["traveller"], "allowable": f"${r['allowable']:,.2f}",
             "mie_allowed": r["mie_allowed"], "lodging_allowed": f"${r['lodging_allowed']:,.2f}",
             "mileage_allowed": r["mileage_allowed"], "notes": "checked against folio"} for r in facts["travellers"]]
    pd.DataFrame(rows).to_excel(out / d["workbook"], sheet_name="Claims", index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["total"], f"${facts['total_allowable']:,.2f}"), (L["over"], f"{facts['total_over']:.2f} USD"),
             (L["worst"], facts["worst"]), (L["worst_over"], f"${facts['worst_over']:,.2f}"),
             (L["decision"], yes(facts["decision"])), (L["named_mie"], f"${facts['named_mie']:.2f}"),
             (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "Travel days at 75 %, provided lunches deducted, rooms capped at the "
          "season's rate with taxes on top.")


def _adverse_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct adverse-impact review by hand: the Rates sheet with typed values in another column order and an
    extra column, no Candidates sheet; the memo's figures with words and capitals."""
    from openpyxl import Workbook

    out.mkdir(parents=True)
    d, L, W = params["deliverables"], params["labels"], params["sheet_columns"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Rates"
    ws.append([W["ratio"], W["group"], W["rate"], W["four_fifths"], W["tested"], W["passed"], "Comment"])
    for g in facts["groups"]:
        ws.append([round(g["ratio"], 3), g["group"], round(g["rate"], 3), g["four_fifths"], g["tested"], g["passed"], ""])
    wb.save(out / d["workbook"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["lowest_ratio"], f"{facts['lowest_ratio']:.3f}"), (L["lowest"], facts["lowest"]),
             (L["highest"], facts["highest"]), (L["decision"], yes(facts["decision"])),
             (L["fisher_p"], f"{facts['fisher_p']:.4f}"), (L["z"], f"{facts['z']:.2f}"),
             (L["shortfall"], f"{facts['shortfall']:.1f} passes"), (L["undisclosed"], f"{facts['undisclosed_tested']} people"),
             (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "Withdrawals before the test are out, each person counts once and the "
          "comparison group is the highest-rate group.")


def _course_answer(out: Path, params: dict, facts: dict, style: str) -> None:
    """A correct course evaluation by hand: the Items sheet with typed values, columns reordered and a flag column,
    no Scored sheet; the report's figures with units and capitals."""
    from openpyxl import Workbook

    out.mkdir(parents=True)
    d, L = params["deliverables"], params["labels"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Items"
    ws.append(["point_biserial", "difficulty_p", "item", "key", "flag"])
    for s in facts["items"]:
        ws.append([round(s["rpb"], 3), round(s["p"], 3), s["item"], s["key"], "review" if s["rpb"] < 0.1 else ""])
    wb.save(out / d["workbook"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["n_paired"], f"{facts['n_paired']} learners"), (L["mean_gain"], f"{facts['mean_gain']:.2f} points"),
             (L["t"], f"{facts['t']:.2f}"), (L["p"], f"{facts['p']:.4f}"), (L["dz"], f"{facts['dz']:.2f}"),
             (L["hake"], f"{facts['hake']:.3f}"), (L["kr20"], f"{facts['kr20']:.3f}"), (L["worst"], facts["worst"]),
             (L["decision"], yes(facts["decision"])), (L["premise"], yes(facts["premise"]))]
    _memo(out / d["memo"], pairs, style, "Only matched learners count; item 17 is scored with the revised key.")


_ANSWERS = {"km_overall_survival": _km_answer, "decline_curve_tie_in": _decline_answer,
            "three_way_match": _match_answer, "bank_reconciliation": _bankrec_answer,
            "erlang_c_staffing": _erlang_answer, "psap_answering": _psap_answer,
            "reg_z_rescission": _regz_answer, "capital_project_appraisal": _capex_answer,
            "ppap_capability": _capability_answer, "tolerance_stackup": _stackup_answer,
            "nurse_staffing_hppd": _staffing_answer, "travel_per_diem_audit": _perdiem_answer,
            "adverse_impact": _adverse_answer, "course_evaluation": _course_answer}


def _own_test(key: str, pattern: str) -> None:
    """The workflow's own module (tests/synthetic/test_wf_<key>.py) has the test ``pattern`` names."""
    own = Path(__file__).with_name(f"test_wf_{key}.py").read_text(encoding="utf-8")
    assert re.search(pattern, own), f"{key}: no test matching {pattern!r} in its own module"


@pytest.mark.parametrize("style", ["bold", "equals", "table"])
def test_correct_answers_written_differently_earn_full_credit(tasks, tmp_path, style):
    wf, made = tasks
    if wf.key not in _ANSWERS:  # its hand-written answers are graded in its own module, on its own task
        _own_test(wf.key, r"def test_\w*correct\w*earns_full_credit\(")
        return
    for task in made:
        facts, params = _facts_and_params(wf, task)
        out = tmp_path / task.parent.parent.name
        _ANSWERS[wf.key](out, params, facts, style)
        assert score_output(task, out) == 1.0


_ARCHIVED = {  # each workflow's superseded procedure, as its archived document states it: (params, shortcuts)
    "km_overall_survival": lambda P: (dict(P, population="" if P["population"] else "first_dose_date",
                                           registry_deaths=not P["registry_deaths"]), ()),
    "decline_curve_tie_in": lambda P: (dict(P, window=0, min_days=5, economic_limit=P["economic_limit"] + 2), ()),
    "three_way_match": lambda P: (dict(P, price_tolerance_pct=P["price_tolerance_pct"] + 5),
                                  ("change_order", "receipts")),
    "bank_reconciliation": lambda P: (P, ("archived_policy",)),
    "erlang_c_staffing": lambda P: (P, ("old_growth",)),
    "psap_answering": lambda P: (P, ("admin", "transfer_origin", "callback")),
    "reg_z_rescission": lambda P: (P, ("section",)),
    "capital_project_appraisal": lambda P: (dict(P, wacc=P["old_wacc"]), ()),
    "ppap_capability": lambda P: (P, ("superseded_rev",)),
    "tolerance_stackup": lambda P: (P, ("no_mean_shift", "superseded_note")),
    "nurse_staffing_hppd": lambda P: (P, ("old_targets", "nonproductive")),
    "travel_per_diem_audit": lambda P: (P, ("full_days", "meals")),
    "caseload_report": lambda P: (P, ("archived_standards",)),
    "rtt_breach_list": lambda P: (P, ("cancel_reset", "order_by_wait")),
    "adverse_impact": lambda P: (P, ("majority_ref", "withdrawn", "duplicates")),
    "course_evaluation": lambda P: (P, ("unpaired",)),
}


def test_a_procedure_that_follows_the_archived_plan_loses(tasks, tmp_path):
    wf, made = tasks
    if wf.key not in _ARCHIVED:  # its superseded procedure is tested in its own module
        _own_test(wf.key, r"def test_\w*(?:superseded|archived|\d{4}_policy)\w*_loses\(")
        return
    solver = solver_module(wf)
    for task in made:
        params = json.loads((task / "ground_truth" / "params.json").read_text())
        out = tmp_path / task.parent.parent.name
        archived, shortcuts = _ARCHIVED[wf.key](params)
        solver.write_outputs(str(out), params, solver.analyse(str(task / "task_folder"), archived, shortcuts))
        assert score_output(task, out) <= 0.75


def _labelled(lines: list[str]) -> list[tuple[str, str]]:
    return [(ln.split(":", 1)[0], ln.split(":", 1)[1].strip()) for ln in lines if ":" in ln and not ln.startswith("Method")]


def test_hedged_and_blind_answers_earn_nothing_for_what_they_hedge(tasks, tmp_path):
    from jobenv.check_models import FieldCheck, check_leaves
    from jobenv.synthetic.solvers._deliver import write_memo

    wf, made = tasks
    solver = solver_module(wf)
    for task in made:
        facts, params = _facts_and_params(wf, task)
        memo = params["deliverables"]["memo"]
        t = load_task_dir(task, "synthetic")
        pairs = _labelled(solver._memo_lines(params, facts))
        number = next(k for k, v in pairs if v.replace(".", "", 1).isdigit())
        decision = params["labels"]["decision"]
        alternative = {"yes": "yes or no", "no": "no (yes if the limit is read as inclusive)"}
        hedged = tmp_path / "hedged" / task.parent.parent.name
        solver.write_outputs(str(hedged), params, facts)
        write_memo(str(hedged / memo), [f"{k}: {v} or {float(v) + 4.2:.1f}" if k == number else
                                        f"{k}: {alternative[v]}" if k == decision else f"{k}: {v}" for k, v in pairs])
        verdicts = grade_checks(t.rubrics, hedged, t.instructions)
        for r, row in zip(t.rubrics, verdicts, strict=True):
            labels = {leaf.label for c in r.checks or [] for leaf in check_leaves(c) if isinstance(leaf, FieldCheck)}
            if labels & {number, decision}:
                assert False in row, r.text
            else:
                assert False not in row, r.text  # the rest of the memo still counts
        blind = tmp_path / "blind" / task.parent.parent.name
        write_memo(str(blind / memo), [f"{k}: " + ("0.0" if v[0].isdigit() else "no" if v in ("yes", "no") else "none")
                                       for k, v in pairs])
        assert score_output(task, blind) <= 0.1


def test_same_stream_same_task_bytes(tmp_path):
    import hashlib

    wf = next(w for w in WORKFLOWS if w.key == "three_way_match")  # any workflow shows it; this one draws fastest

    def digest(root: Path) -> dict[str, str]:
        task = write_drawn(wf, root, "determinism", {"decision": True, "premise": True})
        # the ground truth's own outputs are left out: python-docx stamps a creation time into a .docx memo
        return {p.relative_to(task).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(task.rglob("*")) if p.is_file() and "outputs" not in p.parts}

    assert digest(tmp_path / "a") == digest(tmp_path / "b")
