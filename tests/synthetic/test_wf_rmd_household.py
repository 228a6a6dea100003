"""Household RMDs: the method on a household worked by hand (tables, rollover in transit, still-working deferral,
inherited IRA, aggregation), and the reward a drawn task pays for a correct answer written by hand in another
layout, a wrong, a hedged and a blind answer, and the superseded 2021 procedure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import rmd as solver
from jobenv.synthetic.workflows import WORKFLOWS
from jobenv.synthetic.workflows import rmd as wfmod
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output

WF = next(w for w in WORKFLOWS if w.key == "rmd_household")

_TINY_P = {
    "files": {"members": "m.csv", "register": "r.xlsx", "values": "v.csv", "activity": "a.csv", "tables": "t.xlsx",
              "plan": "p.xlsx"},
    "year": 2026, "register_sheet": "Accounts", "beneficiary_sheet": "Beneficiaries", "plan_sheet": "Planned",
    "table_sheets": {"single": "Table I", "joint": "Table II", "uniform": "Table III"}, "start_ages": wfmod.START_AGES,
    "old_start_age": 72, "owner_limit": 5.0, "owner": "Al Test", "cpa_estimate": 45_000.0, "joint_account": "I1",
    "inherited_account": "H1", "probe": {"joint": "I1", "rollover": "I2", "k401": "K1", "inherited": "H1"},
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """2026. Al (born 1952: 74; still at Acme, 2 %) and Bo (born 1964: 62), twelve years apart.
    By hand: I1 (sole beneficiary Bo) 540,000 / Table II (74, 62) 27.0 = 20,000.00; I2 (Bo and a child)
    204,000 + 51,000 paid on 28 Dec and deposited on 9 Jan = 255,000 / Table III (74) 25.5 = 10,000.00; K1 deferred
    (Al works for its sponsor, under 5 %); R1 Roth and O1 (Bo is 62) nothing; H1 inherited from a parent who died in
    2017: Bo is 54 in 2018, Table I 32.5 less 8 years = 24.5, 245,000 / 24.5 = 10,000.00. Total 40,000.00; Al's
    IRAs 30,000.00. The plan takes 31,000 from I2 and 10,000 from Bo's own IRA: the inherited 10,000 is uncovered.
    First RMD year 1952 + 73 = 2025, so 2026's is due by 31 December."""
    f = tmp_path_factory.mktemp("tiny")
    write_csv(f / "m.csv", ["name", "relationship", "date_of_birth", "employment_status", "employer", "ownership_pct"],
              [["Al Test", "client", "1952-06-01", "active", "Acme", 2], ["Bo Test", "spouse", "1964-02-01", "retired", "", ""]])
    accts = [["I1", "Al Test", "Traditional IRA", "", "", ""], ["I2", "Al Test", "Rollover IRA", "", "", ""],
             ["K1", "Al Test", "401(k)", "Acme", "", ""], ["R1", "Al Test", "Roth IRA", "", "", ""],
             ["O1", "Bo Test", "Traditional IRA", "", "", ""], ["H1", "Bo Test", "Inherited IRA", "", "Cy Old", "2017-05-01"]]
    write_xlsx(f / "r.xlsx", [("Accounts", ["account_id", "owner", "registration", "plan_sponsor", "decedent",
                                            "decedent_date_of_death"], accts),
                              ("Beneficiaries", ["account_id", "beneficiary", "relationship", "share_pct"],
                               [["I1", "Bo Test", "spouse", 100], ["I2", "Bo Test", "spouse", 50], ["I2", "Di Test", "child", 50],
                                ["K1", "Bo Test", "spouse", 100], ["H1", "Di Test", "child", 100]])])
    dec = {"I1": 540_000, "I2": 204_000, "K1": 270_000, "R1": 90_000, "O1": 100_000, "H1": 245_000}
    write_csv(f / "v.csv", ["account_id", "as_of", "market_value"],
              [[a, d, v * k] for a, v in dec.items() for d, k in (("2025-12-31", 1.0), ("2026-02-28", 1.1))])
    write_csv(f / "a.csv", ["account_id", "posted", "activity", "amount", "distribution_date"],
              [["I2", "2026-01-09", "Rollover contribution", 51_000, "2025-12-28"],
               ["O1", "2026-02-10", "Rollover contribution", 20_000, "2026-01-25"], ["I1", "2026-01-15", "Dividend", 900, ""]])
    spouses = range(55, 71)
    write_xlsx(f / "t.xlsx", [("Table I", ["Age", "Life expectancy"], [[k, v] for k, v in wfmod.SINGLE.items()]),
                              ("Table II", ["Ages", *map(str, spouses)],
                               [[o, *(wfmod.JOINT[(o, s)] for s in spouses)] for o in range(72, 79)]),
                              ("Table III", ["Age", "Distribution period"], [[k, v] for k, v in wfmod.UNIFORM.items()])])
    write_xlsx(f / "p.xlsx", [("Planned", ["account_id", "amount"], [["I2", 31_000], ["O1", 10_000]])])
    return f


def test_the_household_matches_the_hand_computation(tiny):
    f = solver.analyse(str(tiny), _TINY_P)
    rmd = {r["account"]: r["rmd"] for r in f["rows"]}
    assert rmd == {"I1": 20_000.0, "I2": 10_000.0, "K1": 0.0, "R1": 0.0, "O1": 0.0, "H1": 10_000.0}
    assert (f["total"], f["owner_ira"], f["inherited"], f["joint_period"]) == (40_000.0, 30_000.0, 10_000.0, 27.0)
    assert (f["first_year"], f["deadline"], f["shortfall"], f["decision"], f["premise"]) == (2025, "2026-12-31", 10_000.0, False, True)
    again = wfmod.recheck(tiny, _TINY_P)
    for k in ("total", "owner_ira", "inherited", "joint_period", "first_year", "deadline", "shortfall", "decision", "premise"):
        assert again[k] == f[k], k


def test_each_shortcut_changes_the_hand_computed_answer(tiny):
    def rmd(naive: str) -> dict:
        return {r["account"]: r["rmd"] for r in solver.analyse(str(tiny), _TINY_P, (naive,))["rows"]}

    assert rmd("latest")["I1"] == 22_000.0  # 594,000 / 27.0
    assert rmd("transit")["I2"] == 8_000.0  # 204,000 / 25.5
    assert rmd("uniform")["I1"] == 21_176.47  # 540,000 / 25.5
    assert rmd("working")["K1"] == 10_000.0  # 270,000 / 27.0 (sole beneficiary Bo)
    assert rmd("inherited")["H1"] == 0.0
    assert solver.analyse(str(tiny), _TINY_P, ("age72",))["first_year"] == 2024
    assert solver.analyse(str(tiny), _TINY_P, ("aggregate",))["shortfall"] == 0.0  # 41,000 planned >= 40,000


def test_the_starting_age_and_the_tables():
    assert [solver.start_age(y, _TINY_P) for y in (1950, 1951, 1959, 1960)] == [72, 73, 73, 75]
    assert solver.start_age(1955, _TINY_P, ("age72",)) == 72
    # the Uniform table is the joint table with a beneficiary ten years younger
    assert all(wfmod.JOINT[(o, o - 10)] == wfmod.UNIFORM[o] for o in range(72, 79))


# ---- a drawn task and the answers it pays for ------------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path):
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, total_delta: float = 0.0, extra: tuple[str, str] | None = None,
          blind: bool = False) -> None:
    """An advisor's own workbook (columns reordered, a notes column, RMD as a formula over typed balances and
    periods) and a letter whose facts sit in a table (Word) or as **bold** = lines (Markdown)."""
    import docx
    from openpyxl import Workbook

    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["columns"], P["labels"], P["deliverables"]
    if not blind:
        wb = Workbook()
        ws = wb.active
        ws.title = "RMD"
        ws.append([C["rmd"], "Notes", "Account", "Distribution period", C["balance"]])
        for k, r in enumerate(f["rows"], 2):
            ws.append([f"=IF(D{k}>0,ROUND(E{k}/D{k},2),0)", r["table"], r["account"], r["period"], r["balance"]])
        s = wb.create_sheet("Summary")
        s.append(["Line", "Value"])
        s.append([L["total"], round(f["total"] + total_delta, 2)])
        wb.save(out / D["workbook"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["total"], f"${f['total'] + total_delta:,.2f}"), (L["owner_ira"], f"{f['owner_ira']:,.2f} USD"),
             (L["inherited"], f"${f['inherited']:,.2f}"), (L["joint_period"], f"{f['joint_period']:.1f} years"),
             (L["first_year"], str(f["first_year"])), (L["deadline"], f["deadline"]),
             (L["shortfall"], f"${f['shortfall']:,.2f}"), (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "0.00" if v[0] in "$0123456789" else "No") for k, v in pairs]
    if extra:
        pairs.append(extra)
    if D["memo"].endswith(".docx"):
        doc = docx.Document()
        doc.add_paragraph("Dear clients, here are this year's required distributions.")
        tab = doc.add_table(rows=1, cols=2)
        tab.rows[0].cells[0].text, tab.rows[0].cells[1].text = "Item", "Amount"
        for k, v in pairs:
            cells = tab.add_row().cells
            cells[0].text, cells[1].text = k, v
        doc.save(str(out / D["memo"]))
    else:
        (out / D["memo"]).write_text("\n".join(f"**{k}** = {v}" for k, v in pairs) + "\n\nTake the IRA amount from any IRA.\n")


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, total_delta=500.0)
    assert score_output(task, tmp_path / "wrong") < 1.0
    _hand(tmp_path / "hedged", P, f, extra=(P["labels"]["inherited"], f"{f['inherited'] * 1.2:.2f}"))
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_the_superseded_2021_procedure_loses(task, tmp_path):
    f, P = _load(task)
    out = tmp_path / "old"
    # the archived memo: RMDs from 72, on the most recent statement
    solver.write_outputs(str(out), P, solver.analyse(str(task / "task_folder"), P, ("age72", "latest")))
    assert score_output(task, out) <= 0.5


def test_every_trap_of_the_drawn_task_changes_a_graded_fact(task):
    f, P = _load(task)
    meta = json.loads((task / "meta.json").read_text())
    assert len(meta["traps"]) >= 5 and all(t["loses"] for t in meta["traps"])
    folder = str(task / "task_folder")
    by = {r["account"]: r for r in f["rows"]}
    assert by[P["probe"]["k401"]]["rmd"] == 0.0 < by[P["probe"]["inherited"]]["rmd"]
    assert solver.analyse(folder, P, ("transit",))["owner_ira"] < f["owner_ira"]
    assert solver.analyse(folder, P, ("uniform",))["joint_period"] < f["joint_period"]
    assert solver.analyse(folder, P, ("working",))["total"] > f["total"]
