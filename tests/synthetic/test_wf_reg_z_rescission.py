"""Reg Z refinance review: the actuarial APR and the finance-charge classification on hand-checked cases, and the
reward a drawn task pays for answers written by hand (right in another layout, one fact wrong, hedged, blind)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from jobenv.synthetic.solvers import regz as solver
from jobenv.synthetic.workflows import regz

from .conftest import score_output

WF = regz.REG_Z_RESCISSION


# ---- the method on hand-computed cases ---------------------------------------------------------------------

def test_the_payment_and_apr_of_a_textbook_loan():
    # 200,000 over 360 months at 6 %: payment 1,199.10; 4,000 of prepaid finance charges -> amount financed
    # 196,000 and an APR of about 6.19 % (RATE(360, -1199.10, 196000) * 12 = 6.1893 %)
    assert regz._payment(200_000, 6.0, 360) == 1199.10
    assert round(solver.apr_pct(196_000, 1199.10, 360), 3) == 6.189
    assert round(regz._apr_newton(196_000, 1199.10, 360), 3) == 6.189
    # no prepaid finance charge: the APR is the note rate (the payment is rounded to the cent)
    assert round(solver.apr_pct(200_000, 1199.10, 360), 2) == 6.00
    # a 15-year loan: 300,000 at 5.5 % pays 2,451.25; 6,000 prepaid -> 5.812 %
    assert regz._payment(300_000, 5.5, 180) == 2451.25
    assert round(solver.apr_pct(294_000, 2451.25, 180), 3) == round(regz._apr_newton(294_000, 2451.25, 180), 3) == 5.812


def test_the_apr_solver_refuses_payments_that_cannot_repay():
    with pytest.raises(ValueError):
        solver.apr_pct(200_000, 500.0, 360)


def test_fees_are_classified_by_description_and_payer():
    P = {"finance_charges": list(regz._IN), "borrower_payers": list(regz._PAYERS), "prepaid_interest": "Prepaid Interest"}
    fees = pd.DataFrame([
        ["A", "Origination Fee", "Borrower", "1000.00"], ["A", "Processing Fee", "Lender credit", "500.00"],
        ["B", "Appraisal Fee", "Borrower (before closing)", "600.00"], ["C", "Title - Settlement Agent Fee", "Borrower", "450.00"],
        ["C", "Title - Courier Fee", "Borrower", "30.00"], ["C", "Title - Lender's Title Insurance", "Borrower", "900.00"],
        ["F", "Prepaid Interest (32.88 per day from 2024-05-01, 3 days)", "Borrower", "98.64"]],
        columns=["section", "description", "paid_by", "amount"])

    def total(naive=()):
        return round(sum(f["amount"] for f in solver.classify(fees, P, naive) if f["fc"]), 2)

    assert total() == 1000 + 450 + 30 + 98.64  # settlement agent and courier in; lender-paid, appraisal, title out
    assert total(("section",)) == 1000 + 98.64  # the archived note: section A and prepaid interest only
    assert total(("others",)) == 1000 + 500 + 450 + 30 + 98.64
    assert solver.fee_type("Title - Courier Fee") == "courier fee"


# ---- a drawn task and hand-written answers ---------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task):
    path = workflow_task(WF, True, False)
    params = json.loads((path / "ground_truth" / "params.json").read_text())
    return path, params, solver.analyse(str(path / "task_folder"), params)


_KEYS = ("prepaid", "amount_financed", "finance_charge", "apr", "understatement")


def _answer(out: Path, P: dict, facts: dict, *, apr: float | None = None, second_apr: float | None = None,
            blind: bool = False) -> None:
    """An answer by hand: a workbook of formulas laid out differently from the solver's (inputs in a side column,
    rows in another order) and a memo whose facts sit only in a Word table, money with dollar signs."""
    import docx
    from openpyxl import Workbook

    out.mkdir(parents=True)
    L, D = P["labels"], P["deliverables"]
    f = dict(facts, apr=facts["apr"] if apr is None else apr)
    if blind:
        f.update({k: 1000.0 for k in _KEYS}, apr=6.5, tolerance=1000.0, apr_ok=True, decision=False, premise=True)
    wb = Workbook()
    ws = wb.active
    ws.title = "Recompute"
    ws.append(["Source", "Line", "Amount"])
    prepaid = sum(x["amount"] for x in f["fees"] if x["fc"]) if not blind else f["prepaid"]
    ws.append(["note", "Face amount", f["loan"]])
    ws.append(["cd", L["prepaid"], round(prepaid, 2)])
    ws.append(["calc", L["amount_financed"], "=C2-C3" if not blind else f["amount_financed"]])
    ws.append(["calc", L["finance_charge"], f"=ROUND({f['payment']}*{f['n']},2)-C4" if not blind else f["finance_charge"]])
    ws.append(["calc", L["apr"], f"=ROUND(RATE({f['n']},-{f['payment']},C4)*1200,3)" if apr is None and not blind
               else f["apr"]])
    ws.append(["calc", L["understatement"], f"=C5-{f['disclosed_fc']}" if not blind else f["understatement"]])
    if second_apr is not None:
        ws.append(["alt", L["apr"], second_apr])
    ws2 = wb.create_sheet("Fees")
    ws2.append(["description", "amount", "counted"])
    for x in f["fees"]:
        ws2.append([x["description"], x["amount"], "yes" if x["fc"] else "no"])
    wb.save(out / D["workbook"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    doc = docx.Document()
    doc.add_paragraph("Privileged and confidential - attorney work product")
    tab = doc.add_table(rows=1, cols=2)
    tab.rows[0].cells[0].text, tab.rows[0].cells[1].text = "Item", "Result"
    rows = [(L["prepaid"], f"${f['prepaid']:,.2f}"), (L["amount_financed"], f"${f['amount_financed']:,.2f}"),
            (L["finance_charge"], f"${f['finance_charge']:,.2f}"), (L["apr"], f"{f['apr']:.3f} %"),
            (L["understatement"], f"${f['understatement']:,.2f}"), (L["apr_ok"], yes(f["apr_ok"])),
            (L["tolerance"], f"${f['tolerance']:,.2f}"), (L["decision"], yes(f["decision"])),
            (L["premise"], yes(f["premise"]))]
    if second_apr is not None:
        rows.append((L["apr"], f"{second_apr:.3f} %"))
    for k, v in rows:
        cells = tab.add_row().cells
        cells[0].text, cells[1].text = k, v
    doc.add_paragraph("The lender left finance charges out of its disclosure; fees paid by others are not the "
                      "borrower's; the docket shows no foreclosure action, only a notice of intent to accelerate.")
    doc.save(str(out / D["memo"]))


def test_a_correct_answer_in_another_layout_earns_full_credit(task, tmp_path):
    path, P, facts = task
    _answer(tmp_path / "right", P, facts)
    assert score_output(path, tmp_path / "right") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    path, P, facts = task
    _answer(tmp_path / "wrong", P, facts, apr=round(facts["apr"] + 0.05, 3))
    assert score_output(path, tmp_path / "wrong") < 1.0
    _answer(tmp_path / "hedged", P, facts, second_apr=round(facts["apr"] + 0.25, 3))
    assert score_output(path, tmp_path / "hedged") < 1.0
    _answer(tmp_path / "blind", P, facts, blind=True)
    assert score_output(path, tmp_path / "blind") <= 0.1


def test_the_task_plants_the_traps_it_claims(task):
    path, P, facts = task
    meta = json.loads((path / "meta.json").read_text())
    assert {t["naive"] for t in meta["traps"]} == {"section", "others", "premise"}  # premise false: all three bite
    assert facts["tolerance"] == round(facts["loan"] * 0.005, 2) and facts["decision"] and not facts["premise"]
    assert solver.analyse(str(path / "task_folder"), P, ("premise",))["tolerance"] == 35.0
