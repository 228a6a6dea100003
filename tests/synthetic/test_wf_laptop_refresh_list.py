"""Laptop refresh list: calendar-month ages on the fiscal year's cut-off date, migrated records aged from the warranty
end, battery health and the 12-month incident window on hand-worked cases, the solver and the independent recheck on
a register built by hand, each shortcut moving the figure it should, and the reward a drawn task pays for a correct
answer written by hand in another layout, a wrong, a hedged and a blind one, and the superseded 2022 standard."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import refresh as solver
from jobenv.synthetic.workflows.refresh import LAPTOP_REFRESH as WF
from jobenv.synthetic.workflows.refresh import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines

D = dt.date


def test_months_count_back_on_the_calendar_and_clamp_to_the_month_end():
    assert solver.add_months(D(2027, 6, 30), -48) == D(2023, 6, 30)
    assert solver.add_months(D(2027, 2, 28), -36) == D(2024, 2, 28)
    assert solver.add_months(D(2026, 5, 31), -3) == D(2026, 2, 28)
    assert solver.add_months(D(2023, 1, 31), 13) == D(2024, 2, 29)


def test_a_migrated_record_is_aged_from_its_warranty_end_less_the_term():
    row = {"purchase_date": "", "warranty_end": "2026-05-31"}
    assert solver.purchase_date(row, 48) == D(2022, 5, 31)
    assert solver.purchase_date(row, 48, ("warranty",)) is None
    assert solver.purchase_date({"purchase_date": "2023-06-30", "warranty_end": ""}, 36) == D(2023, 6, 30)


def test_battery_health_and_the_incident_window():
    assert solver.battery_health(50000, 27500) == 55.0
    t = [{"category": "Hardware", "asset_tag": "A", "resolution": "Fixed", "opened": "2025-04-15 09:00"},  # first day
         {"category": "Hardware", "asset_tag": "A", "resolution": "Fixed", "opened": "2025-04-14 17:00"},  # a day early
         {"category": "Hardware", "asset_tag": "A", "resolution": "Duplicate", "opened": "2026-01-02 10:00"},
         {"category": "Software", "asset_tag": "A", "resolution": "Fixed", "opened": "2026-01-03 10:00"},
         {"category": "Hardware", "asset_tag": "A", "resolution": "Part replaced", "opened": "2026-04-15 16:00"}]
    export = D(2026, 4, 15)
    assert solver.incident_counts(t, export) == {"A": 2}
    assert solver.incident_counts(t, export, ("window",)) == {"A": 3}
    assert solver.incident_counts(t, export, ("duplicates",)) == {"A": 3}


_REG = ["asset_tag", "asset_type", "manufacturer", "model", "serial_number", "status", "employee_id", "assigned_to",
        "department", "cost_centre", "purchase_date", "warranty_end"]


def _tiny(folder: Path) -> dict:
    """FY2027 ends 2027-06-30 (the cut-off); tickets exported 2026-04-15. Due: L1 bought 2023-06-30 (48 months on the
    cut-off, to the day: AGE), L2 battery at 55 % (BATTERY), L3 migrated, warranty end 2026-05-31 less 48 months
    (AGE), L4 three hardware incidents in the window, the first on its first day (INCIDENTS), L9 (its user leaves
    after the cut-off), L10 (a pending leaver), L12: 7 laptops, 5 on age. Off: L5 (its third incident is a day before
    the window), L6 (its third is a Duplicate), L7 (leased, by serial), L8 (confirmed leaver), L11 (a loaner), a
    desktop. Standard 1,000 + 50 service, Performance 2,000 + 50: 5 x 1,050 + 2 x 2,050 = 9,350, inside a 10,000
    budget; two laptops are due on battery or faults alone."""
    def lap(tag, model, serial, emp, bought, w_end="", status="Deployed", kind="Laptop"):
        return [tag, kind, "Dell", model, serial, status, emp, f"User {tag}", "Sales", "CC-210", bought, w_end]

    reg = [lap("L1", "Lat", "S1", "E1", "2023-06-30"), lap("L2", "Lat", "S2", "E2", "2023-07-01"),
           lap("L3", "Prec", "S3", "E3", "", "2026-05-31"), lap("L4", "Lat", "S4", "E4", "2024-01-10"),
           lap("L5", "Lat", "S5", "E5", "2024-02-01"), lap("L6", "Lat", "S6", "E6", "2024-03-01"),
           lap("L7", "Lat", "S7", "E7", "2021-01-01"), lap("L8", "Prec", "S8", "E8", "2022-01-01"),
           lap("L9", "Lat", "S9", "E9", "2022-06-01"), lap("L10", "Lat", "S10", "E10", "2022-07-01"),
           lap("L11", "Lat", "S11", "", "2020-01-01", status="Loaner"),
           lap("DT1", "OptiPlex", "S13", "E13", "2019-01-01", kind="Desktop"), lap("L12", "Prec", "S12", "E12", "2021-03-01")]
    write_csv(folder / "register.csv", _REG, reg)
    write_csv(folder / "builds.csv", ["model", "manufacturer", "build_profile", "warranty_months"],
              [["Lat", "Dell", "Standard", 36], ["Prec", "Dell", "Performance", 48], ["OptiPlex", "Dell", "Desktop", 36]])
    write_csv(folder / "battery.csv", ["serial_number", "device_name", "design_capacity_mwh", "full_charge_capacity_mwh",
                                       "last_report"], [["S1", "d1", 50000, 45000, "2026-04-10"],
                                                        ["S2", "d2", 50000, 27500, "2026-04-11"],
                                                        ["S11", "d11", 50000, 20000, "2026-04-11"]])
    hw = lambda tag, day, res="Fixed": ["T", day, "Hardware", "Display", tag, "E", "Closed", res]  # noqa: E731
    write_csv(folder / "tickets.csv", ["ticket_id", "opened", "category", "subcategory", "asset_tag", "requester",
                                       "state", "resolution"], [
        hw("L4", "2025-04-15 09:00"), hw("L4", "2025-09-01 10:00"), hw("L4", "2026-04-15 16:00"),
        hw("L5", "2025-06-01 10:00"), hw("L5", "2025-12-01 10:00"), hw("L5", "2025-04-14 17:00"),
        ["T", "2025-08-01 10:00", "Software", "VPN", "L5", "E5", "Closed", "Fixed"],
        hw("L6", "2025-06-01 10:00"), hw("L6", "2025-10-01 10:00"), hw("L6", "2025-10-01 10:07", "Duplicate")])
    write_csv(folder / "lessor.csv", ["schedule", "serial_number", "model", "lease_start", "lease_end", "monthly_rent"],
              [["NBL-1", "S7", "Lat", "2021-01-01", "2025-01-01", "40.00"], ["NBL-1", "S99", "Lat", "2024-02-01",
                                                                             "2028-02-01", "41.00"]])
    write_xlsx(folder / "leavers.xlsx", [("Leavers", ["employee_id", "name", "department", "leaving_date", "status"], [
        ["E8", "a", "Sales", "2027-01-31", "Confirmed"], ["E9", "b", "Sales", "2027-08-01", "Confirmed"],
        ["E10", "c", "Sales", "2026-06-01", "Pending"]])])
    return {"files": {"register": "register.csv", "catalogue": "builds.csv", "battery": "battery.csv",
                      "tickets": "tickets.csv", "lessor": "lessor.csv", "leavers": "leavers.xlsx"},
            "cutoff": "2027-06-30", "export": "2026-04-15", "limits": {"age_months": 48, "battery_pct": 60.0, "incidents": 3},
            "old_limits": {"age_months": 60, "battery_pct": 50.0, "incidents": 4}, "service": 50.0, "budget": 10000.0,
            "quote": {"Standard": {"sku": "STD", "price": 1000.0}, "Performance": {"sku": "PRF", "price": 2000.0}}}


def _short(f: dict) -> tuple:
    return f["count"], f["age"], f["battery"], f["incidents"], f["leased"], f["leavers"], f["cost"]


def test_the_solver_and_the_recheck_on_a_register_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    for f in (solver.analyse(str(tmp_path), P), recheck(tmp_path, P)):
        assert _short(f) == (7, 5, 1, 1, 1, 1, 9350.0)
        assert [(d["tag"], d["reason"], d["sku"], d["unit_cost"]) for d in f["due"]] == [
            ("L1", "age", "STD", 1050.0), ("L10", "age", "STD", 1050.0), ("L12", "age", "PRF", 2050.0),
            ("L2", "battery", "STD", 1050.0), ("L3", "age", "PRF", 2050.0), ("L4", "incidents", "STD", 1050.0),
            ("L9", "age", "STD", 1050.0)]
        assert (f["decision"], f["premise"]) == (True, False)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert _short(n["old_policy"]) == (3, 3, 0, 0, 1, 1, 5150.0)  # 60 months, battery < 50 %, 4 incidents
    assert n["old_policy"]["premise"] is True  # the superseded standard would bear the director out
    assert _short(n["cutoff"]) == (3, 1, 1, 1, 1, 1, 4150.0)  # aged on the export date
    assert _short(n["warranty"]) == (6, 4, 1, 1, 1, 1, 7300.0)  # L3 loses its age
    assert _short(n["window"])[:4] == (8, 5, 1, 2) and n["window"]["decision"] is False  # L5's old ticket
    assert _short(n["duplicates"])[:4] == (8, 5, 1, 2)  # L6's duplicate
    assert _short(n["leased"]) == (8, 6, 1, 1, 0, 1, 10400.0)
    assert _short(n["leavers"]) == (8, 6, 1, 1, 1, 0, 11400.0)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, count_delta: int = 0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A specialist's own answer: the upload with its columns in another order, a model column, the reason codes in
    lower case and costs with a dollar sign, grouped by reason; the note's facts as bold labels with words after the
    numbers and the cost with separators."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, Dl, codes = P["out_columns"], P["labels"], P["deliverables"], P["codes"]
    if not blind:
        with (out / Dl["table"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C["reason"], C["tag"], C["sku"], C["cost"], C["cost_centre"], "current_model"])
            for d in sorted(f["due"], key=lambda d: (d["reason"], d["tag"])):
                w.writerow([codes[d["reason"]].lower(), d["tag"], d["sku"], f"${d['unit_cost']:,.2f}", d["cost_centre"],
                            d["model"]])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["count"], f"{f['count'] + count_delta} laptops"), (L["age"], str(f["age"])),
             (L["battery"], f"{f['battery']} laptops"), (L["incidents"], str(f["incidents"])),
             (L["leased"], f"{f['leased']} (lessor's schedule)"), (L["leavers"], str(f["leavers"])),
             (L["cost"], f"${f['cost']:,.2f}"), (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = [f"# {P['fy']} refresh", "", *[f"**{k}:** {v}" for k, v in pairs], *(extra or []), "",
             "Aged on the cut-off date under the v3 standard; leased units and confirmed leavers left off."]
    write_memo_lines(out / Dl["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, count_delta=3)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['cost']}:** {f['cost'] + 2150:.2f}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_leased_leavers_and_the_ticket_window_each_lose(task, tmp_path):
    f, P = _load(task)
    for s in ("leased", "leavers", "window", "duplicates", "warranty", "cutoff"):
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert g["count"] != f["count"]
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0


def test_the_superseded_2022_policy_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("old_policy",))
    assert old["count"] < f["count"] and old["cost"] < f["cost"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
