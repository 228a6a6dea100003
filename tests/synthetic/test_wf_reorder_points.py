"""Reorder points before peak: safety stock, reorder point, EOQ in case packs and ABC classes on hand-computed cases,
the solver and the independent recheck on a five-day shop worked by hand, and the reward a drawn task pays for a
correct answer written by hand in another layout, a wrong, a hedged and a blind one, and the superseded lead time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import reorder as solver
from jobenv.synthetic.workflows.reorder import REORDER_POINTS as WF
from jobenv.synthetic.workflows.reorder import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines


def test_safety_stock_reorder_point_and_eoq_by_hand():
    # z 1.65, sigma_d 2 units a day, L 25 days: 1.65 x 2 x 5 = 16.5; ROP = 4 x 25 + 16.5 = 116.5
    assert solver.safety_stock(1.65, 2.0, 25) == pytest.approx(16.5)
    # D = 4 x 365 = 1460, S = 50, H = 25 % of 8 = 2: sqrt(2 x 1460 x 50 / 2) = sqrt(73000) = 270.19 units
    q = solver.eoq(1460, 50, 0.25, 8.0)
    assert round(q, 2) == 270.19
    assert solver.round_up(q, 24) == 288  # 11.26 cases -> 12 cases of 24
    assert solver.round_up(q, 1) == 271
    assert solver.round_up(48.0, 24) == 48  # an exact number of cases is not rounded up again


def test_abc_classes_by_cumulative_revenue_share():
    # shares 70, 20, 6, 4 %: cumulative 70 (A), 90 (B), 96 (C), 100 (C) at cuts 80/95
    assert solver.abc_classes({"a": 700, "b": 200, "c": 60, "d": 40}, 80, 95) == {"a": "A", "b": "B", "c": "C", "d": "C"}
    # a cumulative share exactly on the cut stays in the class (at most 80 %)
    assert solver.abc_classes({"a": 800, "b": 150, "c": 50}, 80, 95)["a"] == "A"
    assert solver.abc_classes({"a": 800, "b": 150, "c": 50}, 80, 95)["b"] == "B"


def _tiny(folder: Path) -> dict:
    """Two SKUs over 1-5 August 2025. Bundle B-1 = 2 x K-1 + 1 x K-2. Web: K-1 3 (day 1), 2 (day 2), 5 cancelled
    (day 2), B-1 1 (day 3), K-2 2 (day 4), K-1 1 refunded (day 5); marketplace: K-2 1 (day 1), K-1 4 (day 5), K-1 3
    cancelled (day 4). K-2 was out of stock on day 5.
    K-1 daily [3, 2, 2, 0, 4]: mean 2.2, sd sqrt(8.8 / 4) = 1.4832; K-2 [1, 0, 1, 2]: mean 1, sd sqrt(2 / 3) = 0.8165.
    Revenue K-1 11 x 10 = 110, K-2 4 x 20 = 80: cumulative 57.9 % (A, z 2.05) and 100 % (C, z 1.28).
    K-1 (L 25): SS 2.05 x 1.4832 x 5 = 15.20, ROP 55 + 15.20 = 70.20; EOQ sqrt(2 x 803 x 50 / 1) = 283.37 -> 24 cases
    of 12 = 288; position 40 + 2 cases = 64 <= 70.20: reorder, 288 x 4.00 = 1,152.00.
    K-2 (L 16): SS 1.28 x 0.8165 x 4 = 4.18, ROP 16 + 4.18 = 20.18; EOQ sqrt(2 x 365 x 50 / 2.5) = 120.83 -> 21 cases
    of 6 = 126; position 15 + 1 case = 21 > 20.18 (the received PO is already on hand): no reorder."""
    web = [["1", "2025-08-01 10:00:00", "K-1", 3, "fulfilled"], ["2", "2025-08-02 10:00:00", "K-1", 2, "fulfilled"],
           ["3", "2025-08-02 11:00:00", "K-1", 5, "cancelled"], ["4", "2025-08-03 09:00:00", "B-1", 1, "fulfilled"],
           ["5", "2025-08-04 09:00:00", "K-2", 2, "fulfilled"], ["6", "2025-08-05 09:00:00", "K-1", 1, "refunded"],
           ["7", "2025-08-06 09:00:00", "K-1", 9, "fulfilled"]]  # after the window
    write_csv(folder / "web.csv", ["order_id", "created_at", "sku", "quantity", "status"], web)
    write_csv(folder / "mkt.csv", ["order-id", "purchase-date", "sku", "quantity-purchased", "order-status"],
              [["a", "2025-08-01T08:00:00+00:00", "K-2", 1, "Shipped"], ["b", "2025-08-05T08:00:00+00:00", "K-1", 4, "Shipped"],
               ["c", "2025-08-04T08:00:00+00:00", "K-1", 3, "Cancelled"]])
    write_xlsx(folder / "master.xlsx", [
        ("SKUs", ["sku", "description", "supplier", "list_price", "unit_cost", "case_pack"],
         [["K-1", "Mug", "S1", 10.0, 4.0, 12], ["K-2", "Bowl", "S2", 20.0, 10.0, 6]]),
        ("Bundles", ["bundle_sku", "description", "component_sku", "units_per_bundle"],
         [["B-1", "Set", "K-1", 2], ["B-1", "Set", "K-2", 1]])])
    write_csv(folder / "stock.csv", ["sku", "on_hand"], [["K-1", 40], ["K-2", 15]])
    write_csv(folder / "outs.csv", ["sku", "first_day_out", "last_day_out"], [["K-2", "2025-08-05", "2025-08-05"]])
    write_xlsx(folder / "pos.xlsx", [("POs", ["po_number", "supplier", "sku", "qty", "uom", "status"], [
        ["P1", "S1", "K-1", 2, "CS", "open"], ["P2", "S2", "K-2", 1, "CS", "open"], ["P0", "S2", "K-2", 5, "CS", "received"]])])
    web_cols = {"id": "order_id", "date": "created_at", "sku": "sku", "qty": "quantity", "status": "status"}
    mkt_cols = {"id": "order-id", "date": "purchase-date", "sku": "sku", "qty": "quantity-purchased",
                "status": "order-status"}
    return {"files": {"web": "web.csv", "market": "mkt.csv", "master": "master.xlsx", "stock": "stock.csv",
                      "stockouts": "outs.csv", "pos": "pos.xlsx"},
            "columns": {"web": web_cols, "market": mkt_cols}, "master_sheet": "SKUs", "bundle_sheet": "Bundles",
            "exclude_status": ["cancelled", "refunded", "Cancelled", "Returned"], "window": ["2025-08-01", "2025-08-05"],
            "lead_times": {"S1": 25, "S2": 16}, "old_lead_times": {"S1": 16}, "main_supplier": "S1",
            "abc_cuts": [80, 95], "service_levels": {"A": 98, "B": 95, "C": 90}, "z_table": {"90": 1.28, "95": 1.65, "98": 2.05},
            "order_cost": 50.0, "holding_rate": 25.0, "named_sku": "K-2", "budget": 1000.0}


def test_the_solver_and_the_recheck_on_a_shop_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    k1, k2 = f["rows"]
    assert (k1["mean"], k1["sd"], k1["class"], k1["ss"], k1["rop"]) == (2.2, 1.48, "A", 15.2, 70.2)
    assert (k1["eoq"], k1["qty"], k1["position"], k1["flag"], k1["value"]) == (283.37, 288, 64.0, "yes", 1152.0)
    assert (k2["mean"], k2["sd"], k2["class"], k2["ss"], k2["rop"]) == (1.0, 0.82, "C", 4.18, 20.18)
    assert (k2["qty"], k2["position"], k2["flag"], k2["value"]) == (126, 21.0, "no", 0.0)
    assert (f["reorder_count"], f["po_total"], f["decision"], f["premise"], f["a_count"]) == (1, 1152.0, False, True, 1)
    again = recheck(tmp_path, P)
    assert [(r["mean"], r["sd"], r["rop"], r["qty"], r["flag"]) for r in again["rows"]] == [
        (r["mean"], r["sd"], r["rop"], r["qty"], r["flag"]) for r in f["rows"]]
    assert (again["po_total"], again["decision"], again["premise"]) == (1152.0, False, True)
    naive = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert naive["web_only"]["rows"][0]["mean"] == 1.4  # [3, 2, 2, 0, 0]
    assert naive["cancelled"]["rows"][0]["mean"] == 4.0  # [3, 7, 2, 3, 5]
    assert naive["bundles"]["rows"][0]["mean"] == 1.8  # [3, 2, 0, 0, 4]
    assert naive["stockouts"]["rows"][1]["mean"] == 0.8  # [1, 0, 1, 2, 0]
    assert naive["old_lead_time"]["rows"][0]["rop"] == 47.36  # 2.2 x 16 + 2.05 x 1.4832 x 4: no reorder
    assert naive["old_lead_time"]["reorder_count"] == 0
    assert naive["po_cases"]["rows"][0]["position"] == 42.0  # 40 + 2 "units"
    assert naive["no_pack"]["rows"][0]["qty"] == 284


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, rop_delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A merchant's own answer: the plan sheet typed in (no formulas) with the columns in reverse order, flags in
    capitals and a notes column; the memo's facts as a Markdown table with bold labels and units."""
    from openpyxl import Workbook

    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["out_columns"], P["labels"], P["deliverables"]
    keys = list(C)[::-1]
    if not blind:
        wb = Workbook()
        ws = wb.active
        ws.title = P["sheet"]
        ws.append([C[k] for k in keys] + ["notes"])
        for r in f["rows"]:
            vals = dict(r, flag=r["flag"].upper(), rop=r["rop"] + rop_delta)
            ws.append([vals[k] for k in keys] + ["checked"])
        wb.save(out / D["workbook"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["reorder_count"], f"{f['reorder_count']} SKUs"), (L["po_total"], f"${f['po_total']:,.2f}"),
             (L["decision"], yes(f["decision"])), (L["a_count"], str(f["a_count"])),
             (L["lead"], f"{f['lead_main']:g} days"), (L["named_rop"], f"{f['named_rop'] + rop_delta:.2f} units"),
             (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "0") if k not in (L["decision"], L["premise"]) else (k, "No") for k, _ in pairs]
    lines = ["# PO recommendation", "", "| Item | Value |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
             *(extra or []), "", "Stock-out days were left out, bundles exploded, both channels used."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, rop_delta=3.0)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['po_total']} | {f['po_total'] + 250:.2f} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_the_superseded_lead_time_notice_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("old_lead_time",))
    assert old["lead_main"] < f["lead_main"] and [r["flag"] for r in old["rows"]] != [r["flag"] for r in f["rows"]]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
