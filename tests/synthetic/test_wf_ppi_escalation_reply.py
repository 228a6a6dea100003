"""PPI escalation reply: final versus first-released index values, the clause's price formula on hand-worked cases,
the solver and the independent recheck on a contract worked by hand (amended base month, lag, trigger, cap, escalable
share, firm-fixed items), each shortcut moving the figure it should, and the reward a drawn task pays for a correct
answer written by hand in another layout, a wrong, a hedged and a blind one, and the superseded 2022 procedure."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import escalation as solver
from jobenv.synthetic.workflows.escalation import PPI_ESCALATION as WF
from jobenv.synthetic.workflows.escalation import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines


def test_a_month_counts_from_year_and_month():
    assert solver.month_index("2025-04") == 2025 * 12 + 3
    assert solver.month_text(solver.month_index("2024-12-01")) == "2024-12"


def test_the_final_value_wins_over_the_first_release():
    m = solver.month_index("2025-04")
    pulls = [{("WPU0712", m): (267.5, True)}, {("WPU0712", m): (267.5, True)}, {("WPU0712", m): (265.0, False)}]
    assert solver.index_value(pulls, "WPU0712", m) == 265.0
    assert solver.index_value(pulls, "WPU0712", m, ("preliminary",)) == 267.5  # as first released
    with pytest.raises(KeyError):  # not final yet: the clause waits for the final value
        solver.index_value(pulls[:2], "WPU0712", m)


def test_only_the_escalable_share_moves_and_prices_round_half_up_to_the_cent():
    assert solver.new_price(400.00, 0.70, 5.0) == 414.00  # 400 x 1.035
    assert solver.new_price(199.99, 0.70, 5.0) == 206.99  # 206.98965
    assert solver.new_price(60.00, 0.20, 5.0) == 60.60
    assert solver.new_price(10.10, 0.5, 1.0) == 10.15  # 10.1505 rounds up
    assert solver.new_price(40.00, 0.0, 5.0) == 40.00  # firm-fixed


_PULL = ["series_id", "year", "period", "value", "footnote_codes"]


def _tiny(folder: Path, trigger: float = 2.0) -> dict:
    """Contract series WPU0712, effective 2025-07-01, lag 3 (adjustment month April 2025), base month April 2024 as
    amended (the bid month was April 2023). Final values: Apr 2023 200, Apr 2024 250, Apr 2025 265 (first released
    at 267.5 P); Jun 2025 270 (still P). Related series WPU071201: 140, 150, 165. Index change 6.00 %, capped at
    5.00 %. Items: A-1 new tyre 400.00 x 100 -> 414.00; A-2 new tyre 199.99 x 10 -> 206.99; A-3 mount and balance,
    firm-fixed, 40.00 x 200 -> 40.00; A-4 service 60.00 x 50 -> 60.60 (share 0.20). Annual cost 1,400 + 70 + 0 + 30
    = 1,500.00. The supplier claims 10.00 % on every price: 440.00, 219.99, 44.00, 66.00, overclaim 2,600 + 130 +
    800 + 270 = 3,800.00."""
    def rows(data: dict[str, dict[str, tuple[float, str]]]) -> list[list[str]]:
        out = []
        for sid, months in data.items():
            for ym, (v, f) in months.items():
                out.append([sid.ljust(17), ym[:4], f"M{ym[5:]}", f"{v:.3f}", f])
        return out

    first = {"WPU0712": {"2023-04": (200.0, ""), "2024-04": (250.0, ""), "2025-04": (267.5, "P")},
             "WPU071201": {"2023-04": (140.0, ""), "2024-04": (150.0, ""), "2025-04": (166.0, "P")}}
    later = {"WPU0712": {"2023-04": (200.0, ""), "2023-13": (199.0, ""), "2024-04": (250.0, ""),
                         "2025-04": (265.0, ""), "2025-06": (270.0, "P")},
             "WPU071201": {"2023-04": (140.0, ""), "2024-04": (150.0, ""), "2025-04": (165.0, "")}}
    write_csv(folder / "pulls" / "ppi_2025-05-14.csv", _PULL, rows(first))
    write_csv(folder / "pulls" / "ppi_2025-09-12.csv", _PULL, rows(later))
    sched = [["A-1", "11R22.5 drive tyre", "New tyres", "each", 380.0],
             ["A-2", "LT245/75R16 tyre", "New tyres", "each", 190.0],
             ["A-3", "Mount and balance \u2020", "Tyre services", "per tyre", 38.0],
             ["A-4", "TPMS sensor", "Tyre services", "each", 58.0],
             ["", "\u2020 Firm-fixed price for the term; not subject to clause 7.", "", "", ""]]
    write_xlsx(folder / "schedule.xlsx", [("Schedule A", ["item_no", "description", "category", "uom", "bid"], sched)])
    items = [("A-1", "11R22.5 drive tyre", "400.00", 100, "440.00"), ("A-2", "LT245/75R16 tyre", "199.99", 10, "219.99"),
             ("A-3", "Mount and balance", "40.00", 200, "44.00"), ("A-4", "TPMS sensor", "60.00", 50, "66.00")]
    write_csv(folder / "prices.csv", ["item_no", "description", "uom", "unit_price", "annual_qty", "price_effective"],
              [[k, d, "each", p, q, "2024-07-01"] for k, d, p, q, _ in items])
    write_csv(folder / "proposal.csv", ["item_no", "description", "current_price", "proposed_price"],
              [[k, d, p, x] for k, d, p, _, x in items])
    return {"files": {"pulls": [{"file": "pulls/ppi_2025-05-14.csv", "date": "2025-05-14"},
                                {"file": "pulls/ppi_2025-09-12.csv", "date": "2025-09-12"}],
                      "schedule": "schedule.xlsx", "prices": "prices.csv", "proposal": "proposal.csv"},
            "series": "WPU0712", "decoy_series": "WPU071201", "base_month": "2024-04", "original_base_month": "2023-04",
            "effective": "2025-07-01", "lag": 3, "shares": {"New tyres": 0.7, "Tyre services": 0.2},
            "ffp_mark": "\u2020", "trigger": trigger, "cap": 5.0, "floor": 5.0, "claim": 10.0}


def test_the_solver_and_the_recheck_on_a_contract_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert (f["base_index"], f["adj_index"], f["change"], f["applied"], f["decision"]) == (250.0, 265.0, 6.0, 5.0, True)
    assert [i["new"] for i in f["items"]] == [414.00, 206.99, 40.00, 60.60]
    assert (f["repriced"], f["annual_cost"], f["overclaim"], f["premise"]) == (3, 1500.00, 3800.00, False)
    g = recheck(tmp_path, P)
    assert (g["base_index"], g["adj_index"], g["change"], g["applied"], g["decision"]) == (250.0, 265.0, 6.0, 5.0, True)
    assert [i["new"] for i in g["items"]] == [414.00, 206.99, 40.00, 60.60]
    assert (g["repriced"], g["annual_cost"], g["overclaim"], g["premise"]) == (3, 1500.00, 3800.00, False)


def test_below_the_trigger_no_price_moves(tmp_path):
    P = _tiny(tmp_path, trigger=7.0)
    for f in (solver.analyse(str(tmp_path), P), recheck(tmp_path, P)):
        assert (f["change"], f["applied"], f["decision"], f["repriced"], f["annual_cost"]) == (6.0, 0.0, False, 0, 0.0)
        assert f["overclaim"] == 5300.00  # 4,000 + 200 + 800 + 300: every proposed increase is over
    n = solver.analyse(str(tmp_path), P, ("trigger",))
    assert (n["decision"], n["applied"], n["repriced"]) == (True, 5.0, 3)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert (n["series"]["base_index"], n["series"]["adj_index"], n["series"]["change"]) == (150.0, 165.0, 10.0)
    assert (n["lag"]["adj_index"], n["lag"]["change"]) == (270.0, 8.0)  # June, still preliminary
    assert (n["base"]["base_index"], n["base"]["change"]) == (200.0, 32.5)  # the bid month, before Amendment 2
    assert (n["preliminary"]["adj_index"], n["preliminary"]["change"]) == (267.5, 7.0)
    assert [i["new"] for i in n["share"]["items"]] == [420.00, 209.99, 40.00, 63.00]
    assert ([i["new"] for i in n["footnote"]["items"]], n["footnote"]["repriced"]) == ([414.00, 206.99, 40.40, 60.60], 4)
    assert (n["cap"]["applied"], n["cap"]["items"][0]["new"]) == (6.0, 416.80)
    assert n["trigger"]["annual_cost"] == 1500.00  # the trigger is met anyway: nothing moves here


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, price_delta: float = 0.0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A buyer's own answer: the upload with its columns in another order, a description column and dollar signs;
    the letter's facts as bold labels with units and thousands separators, the item prices in a sentence each."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["out_columns"], P["labels"], P["deliverables"]
    if not blind:
        with (out / D["table"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C["effective"], C["new"], "description", C["item"], C["current"]])
            for i in reversed(f["items"]):
                w.writerow([P["effective"], f"${i['new'] + price_delta:,.2f}", i["description"], i["item"],
                            f"${i['current']:,.2f}"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["series"], f"{f['series']} (not seasonally adjusted)"), (L["base_index"], f"{f['base_index']:.3f}"),
             (L["adj_index"], f"{f['adj_index']:.3f}"), (L["change"], f"{f['change']:.2f}%"),
             (L["applied"], f"{f['applied']:.2f} %"), (L["decision"], yes(f["decision"])),
             (L["repriced"], f"{f['repriced']} items"), (L["annual_cost"], f"${f['annual_cost']:,.2f}"),
             (L["overclaim"], f"USD {f['overclaim']:,.2f}"), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    body = [f"The allowed price of {i['item']} is {i['new'] + price_delta:.2f} dollars." for i in f["items"]]
    write_memo_lines(out / D["memo"], [f"Dear {P['vendor']},", "", *[f"**{k}:** {v}" for k, v in pairs],
                                       *(extra or []), "", *body, "", "Regards, Purchasing"])


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, price_delta=0.37)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['adj_index']}:** {f['adj_index'] + 2.5:.3f}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_escalating_a_firm_fixed_item_or_the_whole_price_loses(task, tmp_path):
    f, P = _load(task)
    assert any(i["fixed"] for i in f["items"]) and f["decision"]
    for s in ("footnote", "share"):
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert g["annual_cost"] > f["annual_cost"]
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0


def test_the_supplier_letter_s_reading_loses(task, tmp_path):
    f, P = _load(task)
    for s in ("series", "lag", "preliminary"):
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert g["adj_index"] != f["adj_index"]
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0


def test_the_superseded_2022_procedure_loses(task, tmp_path):
    f, P = _load(task)
    # the 2022 procedure: the latest release of the index, the whole price escalated, the original contract's base
    old = solver.analyse(str(task / "task_folder"), P, ("base", "preliminary", "share"))
    assert old["base_index"] != f["base_index"] and old["annual_cost"] != f["annual_cost"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
