"""Realised gain/loss with wash sales: lot relief, the split, the transferred lot and a wash sale across the year end
on a hand-computed account, and the reward a drawn task pays for answers written by hand (right in another layout,
one fact wrong, hedged, blind, the superseded procedure)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import washsale as solver
from jobenv.synthetic.workflows import washsale
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output

WF = washsale.WASH_SALE_8949


# ---- the method on a hand-computed account -----------------------------------------------------------------

def _account(folder: Path) -> dict:
    """Three positions, worked by hand:
    X: bought 100 at 50.00 + 10.00 commission (basis 5,010.00) on 2024-01-10, sold 100 at 40.00 - 10.00
       (proceeds 3,990.00) on 2024-12-20: a loss of 1,020.00; 60 bought back on 2025-01-10 (21 days later) at 41.00
       + 5.00 (2,465.00). Disallowed 1,020.00 x 60 / 100 = 612.00; gain -1,020.00 + 612.00 = -408.00, short;
       the January lot's basis 2,465.00 + 612.00 = 3,077.00.
    Y: 100 at 90.00 + 10.00 (9,010.00) on 2023-03-01 and 50 at 100.00 + 10.00 (5,010.00) on 2024-02-01; 2-for-1
       from 2024-05-01, so 200 and 100 shares; 250 sold at 60.00 - 10.00 (14,990.00) on 2024-09-03. First lot: 200
       shares, proceeds 14,990 x 200/250 = 11,992.00, basis 9,010.00, gain 2,982.00, long; second: 50 of 100 shares,
       proceeds 2,998.00, basis 5,010 / 2 = 2,505.00, gain 493.00, short.
    Z: 10 received by ACATS on 2023-12-01 at a market value of 200.00, bought 2019-05-05 for 1,000.00 at the
       delivering firm; sold at 210.00 - 10.00 (2,090.00) on 2024-06-03: gain 1,090.00, long.
    Short-term -408.00 + 493.00 = 85.00; long-term 2,982.00 + 1,090.00 = 4,072.00; net 4,157.00."""
    head = ["trade_id", "trade_date", "settle_date", "symbol", "action", "quantity", "price", "commission", "net_amount",
            "note"]
    trades = [("C1", "2023-03-01", "Y", "BUY", 100, 90, 10), ("A1", "2023-12-01", "Z", "RECEIVE", 10, 200, 0),
              ("C2", "2024-01-10", "X", "BUY", 100, 50, 10), ("C3", "2024-02-01", "Y", "BUY", 50, 100, 10),
              ("C4", "2024-06-03", "Z", "SELL", 10, 210, 10), ("C5", "2024-09-03", "Y", "SELL", 250, 60, 10),
              ("C6", "2024-12-20", "X", "SELL", 100, 40, 10), ("C7", "2025-01-10", "X", "BUY", 60, 41, 5)]
    write_csv(folder / "confirms.csv", head, [[i, d, d, s, a, n, f"{p:.2f}", f"{c:.2f}", "", ""]
                                              for i, d, s, a, n, p, c in trades])
    write_xlsx(folder / "actions.xlsx", [("Actions", ["symbol", "action", "ex_date", "new_shares", "old_shares"],
                                          [["Y", "FORWARD SPLIT", "2024-05-01", 2, 1]])])
    write_xlsx(folder / "transfer.xlsx", [("Lots", ["transfer_id", "symbol", "quantity", "date_acquired", "cost_basis"],
                                           [["A1", "Z", 10, "2019-05-05", 1000.0]])])
    return {"files": {"confirms": "confirms.csv", "actions": "actions.xlsx", "transfer": "transfer.xlsx"},
            "actions_sheet": "Actions", "transfer_sheet": "Lots", "year": 2024, "method": "FIFO", "old_method": "LIFO",
            "spec_id": {}, "carry_lot": "C7", "target_net": 4000.0, "cpa_lt": 5000.0}


def test_a_hand_computed_account_with_a_split_a_transfer_and_a_january_wash_sale(tmp_path):
    P = _account(tmp_path)
    for facts in (solver.analyse(str(tmp_path), P), washsale.recheck(tmp_path, P)):
        rows = {(r["sale"], r["lot"]): r for r in facts["rows"]}
        assert (rows[("C6", "C2")]["adjustment"], rows[("C6", "C2")]["gain"], rows[("C6", "C2")]["term"]) == \
            (612.0, -408.0, "short")
        assert (rows[("C5", "C1")]["proceeds"], rows[("C5", "C1")]["gain"], rows[("C5", "C1")]["term"]) == \
            (11992.0, 2982.0, "long")
        assert (rows[("C5", "C3")]["basis"], rows[("C5", "C3")]["gain"], rows[("C5", "C3")]["term"]) == \
            (2505.0, 493.0, "short")
        assert (rows[("C4", "A1")]["gain"], rows[("C4", "A1")]["term"]) == (1090.0, "long")
        assert (facts["st"], facts["lt"], facts["net"], facts["disallowed"], facts["carry_basis"]) == \
            (85.0, 4072.0, 4157.0, 612.0, 3077.0)
        assert facts["decision"] is False and facts["premise"] is True  # 4,157 > 4,000; 4,072 <= 5,000


def test_each_shortcut_reproduces_its_mistake_on_the_hand_account(tmp_path):
    P = _account(tmp_path)
    folder = str(tmp_path)
    assert solver.analyse(folder, P, ("january",))["disallowed"] == 0.0  # the replacement came in January
    assert solver.analyse(folder, P, ("wash",))["st"] == 85.0 - 612.0
    # 2,000 market value on receipt, held from 2023-12-01: a short-term gain of 90.00
    moved = solver.analyse(folder, P, ("transfer",))
    assert (moved["st"], moved["lt"]) == (85.0 + 90.0, 2982.0)
    # without the split the 250 shares find only the 150 bought (the other 100 get no row): proceeds 150/250 of 14,990
    assert solver.analyse(folder, P, ("split",))["proceeds"] == round(2090 + 3990 + 14990 * 150 / 250, 2)
    # commissions out: X 4,000 - 5,000 = -1,000, 600 disallowed, -400; Y 15,000 x 200/250 - 9,000 = 3,000 and
    # 3,000 - 2,500 = 500; Z 2,100 - 1,000 = 1,100
    bare = solver.analyse(folder, P, ("commission",))
    assert (bare["st"], bare["lt"]) == (100.0, 4100.0)


def test_the_holding_period_anniversary():
    assert solver.anniversary(dt.date(2023, 6, 10)) == washsale._anniversary(dt.date(2023, 6, 10)) == dt.date(2024, 6, 10)
    assert solver.anniversary(dt.date(2024, 2, 29)) == washsale._anniversary(dt.date(2024, 2, 29)) == dt.date(2025, 3, 1)


# ---- a drawn task and hand-written answers ---------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task):
    path = workflow_task(WF, True, False)
    params = json.loads((path / "ground_truth" / "params.json").read_text())
    return path, params, solver.analyse(str(path / "task_folder"), params)


def _answer(out: Path, P: dict, facts: dict, *, st: float | None = None, hedge: bool = False, blind: bool = False) -> None:
    """An answer by hand: the schedule's columns in another order with a broker column, dollar signs and thousands
    separators, terms capitalised; the memo as a Markdown table (or a Word table) with dollar amounts."""
    import docx
    import pandas as pd

    out.mkdir(parents=True)
    D, C, L = P["deliverables"], P["columns"], P["labels"]
    f = dict(facts)
    if blind:
        f.update(proceeds=100_000.0, disallowed=1_000.0, carry_basis=5_000.0, st=-2_000.0, lt=10_000.0, net=8_000.0,
                 decision=False, premise=True, rows=[dict(r, basis=r["basis"] + 500, adjustment=0.0, code="",
                                                          term="short") for r in facts["rows"]])
    rows = [{C["term"]: r["term"].capitalize(), C["gain"]: f"{r['gain']:,.2f}", C["lot"]: r["lot"],
             C["sale"]: r["sale"], "broker": "desk", C["proceeds"]: f"${r['proceeds']:,.2f}",
             C["basis"]: f"${r['basis']:,.2f}", C["code"]: r["code"], C["adjustment"]: r["adjustment"],
             C["sold"]: r["sold"], C["acquired"]: r["acquired"]} for r in f["rows"]]
    pd.DataFrame(rows).to_csv(out / D["schedule"], index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    st_text = f"${(f['st'] if st is None else st):,.2f}" + (f" or ${f['st'] + 250:,.2f}" if hedge else "")
    pairs = [(L["proceeds"], f"${f['proceeds']:,.2f}"), (L["disallowed"], f"${f['disallowed']:,.2f}"),
             (L["carry"], f"{f['carry_basis']:.2f} USD"), (L["st"], st_text), (L["lt"], f"${f['lt']:,.2f}"),
             (L["net"], f"${f['net']:,.2f}"), (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    note = "The January purchase makes the December loss a wash sale; the revoked LIFO election no longer applies."
    if D["memo"].endswith(".docx"):
        doc = docx.Document()
        tab = doc.add_table(rows=1, cols=2)
        tab.rows[0].cells[0].text, tab.rows[0].cells[1].text = "Item", "Amount"
        for k, v in pairs:
            cells = tab.add_row().cells
            cells[0].text, cells[1].text = k, v
        doc.add_paragraph(note)
        doc.save(str(out / D["memo"]))
    else:
        (out / D["memo"]).write_text("\n".join(["| Item | Amount |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
                                                "", note]) + "\n")


def test_a_correct_answer_in_another_layout_earns_full_credit(task, tmp_path):
    path, P, facts = task
    _answer(tmp_path / "right", P, facts)
    assert score_output(path, tmp_path / "right") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    path, P, facts = task
    _answer(tmp_path / "wrong", P, facts, st=round(facts["st"] + 137.5, 2))
    assert score_output(path, tmp_path / "wrong") < 1.0
    _answer(tmp_path / "hedged", P, facts, hedge=True)
    assert score_output(path, tmp_path / "hedged") < 1.0
    _answer(tmp_path / "blind", P, facts, blind=True)
    assert score_output(path, tmp_path / "blind") <= 0.1


def test_the_superseded_election_and_procedure_loses(task, tmp_path):
    """The archived election (LIFO) and the archived procedure (proceeds as confirmed, wash sales inside the
    tax year only) together."""
    path, P, facts = task
    out = tmp_path / "old"
    solver.write_outputs(str(out), P, solver.analyse(str(path / "task_folder"), P, ("election", "january", "commission")))
    assert score_output(path, out) <= 0.75


def test_every_shortcut_changes_the_drawn_answer(task):
    path, P, facts = task
    folder = str(path / "task_folder")
    assert facts["decision"] is True and facts["premise"] is False
    assert solver.analyse(folder, P, ("wash",))["disallowed"] == 0.0 < facts["disallowed"]
    assert solver.analyse(folder, P, ("january",))["carry_basis"] < facts["carry_basis"]
    for k in WF.shortcuts:
        naive = solver.analyse(folder, P, (k,))
        assert naive["rows"] != facts["rows"] or naive["carry_basis"] != facts["carry_basis"], k
