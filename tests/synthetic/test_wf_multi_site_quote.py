"""Multi-site quote: tiers, unit net, margin and the approval matrix on hand-computed cases, the solver and the
independent recheck on a three-site order worked by hand, and the reward a drawn task pays for a correct answer
written by hand in another layout, a wrong, a hedged and a blind one, and the superseded discount policy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import quote as solver
from jobenv.synthetic.workflows.quote import MULTI_SITE_QUOTE as WF
from jobenv.synthetic.workflows.quote import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines

_TIERS = [{"family": "Instrument", "min": 1.0, "max": 2.0, "pct": 0.0},
          {"family": "Instrument", "min": 3.0, "max": 5.0, "pct": 5.0},
          {"family": "Instrument", "min": 6.0, "max": None, "pct": 10.0}]


def test_tiers_unit_net_margin_and_approval_by_hand():
    # tier bounds are inclusive; a blank max is open-ended
    assert [solver.tier_pct(_TIERS, "Instrument", q) for q in (2, 3, 5, 6, 40)] == [0.0, 5.0, 5.0, 10.0, 10.0]
    # 10,000 x 0.95 x 0.98 = 9,310.00; 500 x 0.95 x 0.98 = 465.50; 1,230 x 0.97 x 0.97 = 1,157.307 -> 1,157.31
    assert solver.unit_net(10000, 5, 2) == 9310.0
    assert solver.unit_net(500, 5, 2) == 465.5
    assert solver.unit_net(1230, 3, 3) == 1157.31
    # 10 x 0.95 x 0.97 = 9.215 exactly: half up to 9.22, whatever the float product's last bit
    assert solver.unit_net(10, 5, 3) == 9.22
    # (53,645 - 33,450) / 53,645 = 37.6456 % -> 37.65
    assert solver.margin_pct(53645, 33450) == 37.65
    P = {"floor": 35.0, "approval": {"owner_max": 5.0, "director_max": 12.0, "cfo_gap": 5.0},
         "approval_levels": ["Rep", "Director", "VP", "CFO"]}
    assert solver.approval(5.0, 35.0, P) == "Rep"  # at most 5 % and at the floor: own authority
    assert solver.approval(6.9, 37.65, P) == "Director"
    assert solver.approval(12.5, 40.0, P) == "VP"  # discount above 12 %
    assert solver.approval(3.0, 30.0, P) == "VP"  # 5 points under the floor is still the VP's
    assert solver.approval(3.0, 29.99, P) == "CFO"


def _tiny(folder: Path) -> dict:
    """Instrument I-1 (list 10,000; 9,500 in the older book) and accessory A-1 (500; 480) to three sites. S1 (NJ,
    zone A: 300 + 200 an instrument) 2 x I-1 + 4 x A-1; S2 (TX, zone C: 400 + 250) 1 + 3; S3 (CA, zone D: 500 +
    300) 1 + 3. Combined I-1 = 4 units (5 %), A-1 = 10 (5 %); per site no tier. Bundle 2 %: I-1 9,310.00, A-1 465.50.
    Lines: S1 18,620.00 + 1,862.00; S2 9,310.00 + 1,396.50; S3 the same. Equipment net 41,895.00 of 45,000.00 list:
    discount 6.90 %. Service 8 % x 40,000 x 3 years = 9,600.00. Freight 700 + 650 + 800 = 2,150.00. Total 53,645.00.
    Cost 6,000 x 4 + 250 x 10 + 400 x 4 x 3 + 2,150 = 33,450.00: margin 37.65 % (floor 35: met). Discount above 5 %
    and at most 12 %: the director approves. The promotion price 9,000 is below the I-1 unit net (premise no)."""
    write_xlsx(folder / "book.xlsx", [
        ("Prices", ["sku", "description", "family", "service_eligible", "list_price", "effective_from"], [
            ["I-1", "Analyser", "Instrument", "yes", 9500, "2025-01-01"], ["I-1", "Analyser", "Instrument", "yes", 10000, "2026-01-01"],
            ["A-1", "Kit", "Accessory", "no", 480, "2025-01-01"], ["A-1", "Kit", "Accessory", "no", 500, "2026-01-01"],
            ["I-1", "Analyser", "Instrument", "yes", 11000, "2026-09-01"]]),  # not yet in force on the quote date
        ("Volume tiers", ["family", "min_qty", "max_qty", "discount_pct"], [
            ["Instrument", 1, 2, 0], ["Instrument", 3, 5, 5], ["Instrument", 6, "", 10],
            ["Accessory", 1, 9, 0], ["Accessory", 10, "", 5]])])
    write_csv(folder / "costs.csv", ["sku", "standard_cost", "service_cost_per_year"],
              [["I-1", "6000.00", "400.00"], ["A-1", "250.00", "0.00"]])
    write_xlsx(folder / "rfq.xlsx", [
        ("Sites", ["site", "state"], [["S1", "NJ"], ["S2", "TX"], ["S3", "CA"]]),
        ("Lines", ["site", "sku", "qty"], [["S1", "I-1", 2], ["S1", "A-1", 4], ["S2", "I-1", 1], ["S2", "A-1", 3],
                                           ["S3", "I-1", 1], ["S3", "A-1", 3], ["S3", "B-9", 0]])])
    write_xlsx(folder / "freight.xlsx", [("Zones", ["state", "zone"], [["NJ", "A"], ["TX", "C"], ["CA", "D"]]),
                                         ("Rates", ["zone", "per_shipment", "per_instrument"],
                                          [["A", 300, 200], ["C", 400, 250], ["D", 500, 300]])])
    return {"files": {"price_book": "book.xlsx", "costs": "costs.csv", "rfq": "rfq.xlsx", "freight": "freight.xlsx"},
            "price_sheet": "Prices", "tier_sheet": "Volume tiers", "sites_sheet": "Sites", "lines_sheet": "Lines",
            "quote_date": "2026-04-01", "instrument_family": "Instrument", "bundle_pct": 2.0, "service_rate": 8.0,
            "service_years": 3, "floor": 35.0, "approval": {"owner_max": 5.0, "director_max": 12.0, "cfo_gap": 5.0},
            "approval_levels": ["Rep", "Director", "VP", "CFO"], "promo_sku": "I-1", "promo_price": 9000.0,
            "named_site": "S1"}


def test_the_solver_and_the_recheck_on_an_order_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert [(r["site"], r["sku"], r["list"], r["tier"], r["net"], r["ext"]) for r in f["rows"]] == [
        ("S1", "I-1", 10000.0, 5.0, 9310.0, 18620.0), ("S1", "A-1", 500.0, 5.0, 465.5, 1862.0),
        ("S2", "I-1", 10000.0, 5.0, 9310.0, 9310.0), ("S2", "A-1", 500.0, 5.0, 465.5, 1396.5),
        ("S3", "I-1", 10000.0, 5.0, 9310.0, 9310.0), ("S3", "A-1", 500.0, 5.0, 465.5, 1396.5)]
    assert [x["freight"] for x in f["freight"]] == [700.0, 650.0, 800.0]
    assert (f["eq_list"], f["eq_net"], f["discount"], f["service"], f["freight_total"]) == (
        45000.0, 41895.0, 6.9, 9600.0, 2150.0)
    assert (f["total"], f["cost"], f["margin"], f["approval"], f["named"]) == (53645.0, 33450.0, 37.65, "Director", 18620.0)
    assert (f["decision"], f["premise"]) == (True, False)
    g = recheck(tmp_path, P)
    assert [(r["list"], r["tier"], r["ext"]) for r in g["rows"]] == [(r["list"], r["tier"], r["ext"]) for r in f["rows"]]
    assert {k: g[k] for k in ("total", "margin", "discount", "approval", "named", "service", "decision", "premise")} == {
        k: f[k] for k in ("total", "margin", "discount", "approval", "named", "service", "decision", "premise")}
    naive = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    # per site no line reaches a tier: 9,800.00 and 490.00; net 44,100 of 45,000 = 2.00 % off list
    assert (naive["per_site"]["named"], naive["per_site"]["discount"]) == (19600.0, 2.0)
    # the older book: 9,500 x 0.931 = 8,844.50 a unit; service 8 % x 38,000 x 3 = 9,120.00
    assert (naive["old_price_book"]["named"], naive["old_price_book"]["service"]) == (17689.0, 9120.0)
    assert naive["service_net"]["service"] == 8937.6  # 8 % x 37,240 x 3
    assert naive["no_freight"]["total"] == 51495.0
    assert naive["promo"]["named"] == 18000.0 and naive["promo"]["total"] < f["total"]


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, total_delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A rep's own answer: the line sheet typed in (no formulas) with the columns in another order and a notes
    column, percentages with a % sign; Freight and Summary sheets typed; the approval request as a Markdown table
    with bold labels and units; the letter as plain Word paragraphs."""
    import docx
    from openpyxl import Workbook

    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["out_columns"], P["labels"], P["deliverables"]
    total = f["total"] + total_delta
    if not blind:
        wb = Workbook()
        ws = wb.active
        ws.title = P["sheet"]
        ws.append(["notes", C["ext"], C["tier"], C["list"], C["sku"], C["site"], C["qty"]])
        for r in f["rows"]:
            ws.append(["ok", round(r["ext"], 2), f"{r['tier']:g}", r["list"], r["sku"], r["site"], r["qty"]])
        fr = wb.create_sheet("Freight")
        fr.append([C["freight"], "Site"])
        for x in f["freight"]:
            fr.append([x["freight"], x["site"]])
        s = wb.create_sheet("Summary")
        s.append(["Value", "Line"])
        for k, v in (("total", total), ("service", f["service"]), ("margin", f["margin"]), ("discount", f["discount"])):
            s.append([v, L[k]])
        wb.save(out / D["workbook"])
        letter = docx.Document()
        for ln in (f"Dear {P['customer_contact']},", f"{L['total']}: ${total:,.2f}", "Kind regards"):
            letter.add_paragraph(ln)
        letter.save(str(out / D["letter"]))
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["total"], f"${total:,.2f}"), (L["discount"], f"{f['discount']:.2f} %"),
             (L["service"], f"{f['service']:,.2f} USD"), (L["freight"], f"${f['freight_total']:,.2f}"),
             (L["margin"], f"{f['margin']:.2f}%"), (L["decision"], yes(f["decision"])), (L["approval"], f["approval"]),
             (L["named"], f"${f['named']:,.2f}"), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = ["# Deal desk request", "", "| Item | Value |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
             *(extra or []), "", "Current price book, tiers on the combined order, service on list, freight per site."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_quote_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, total_delta=-f["freight_total"])
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['margin']} | {f['margin'] + 3:.2f} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.05


def test_each_shortcut_moves_a_graded_figure_on_the_drawn_task(task):
    f, P = _load(task)
    for k in WF.shortcuts:
        g = solver.analyse(str(task / "task_folder"), P, (k,))
        assert (g["total"], g["named"]) != (f["total"], f["named"]), k


def test_the_superseded_discount_policy_loses(task, tmp_path):
    # the archived policy: tiers per ship-to site and service on the net price (and the older price book rows)
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("per_site", "service_net", "old_price_book"))
    assert old["total"] != f["total"] and old["service"] < f["service"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
