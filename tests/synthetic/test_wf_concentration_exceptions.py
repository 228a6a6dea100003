"""Concentration and suitability exceptions: the profile in force on a date, the limits by profile against the 2022
flat limits, worked by hand; the solver and the independent recheck on a branch built by hand (share classes and a
bond rolled up, a household with a concentrated IRA, a profile lowered mid-month, cash in the denominator, an index
ETF, an unsolicited buy); each shortcut moving the figure it should; and the reward a drawn task pays for a correct
answer written by hand in another layout, a wrong, a hedged and a blind one, and the superseded 2022 guideline."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import concentration as solver
from jobenv.synthetic.workflows.concentration import CONCENTRATION_EXCEPTIONS as WF
from jobenv.synthetic.workflows.concentration import recheck
from jobenv.synthetic.workflows.concentration_book import LIMITS
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines

D = dt.date


def test_the_profile_in_force_is_the_latest_entry_effective_by_the_date():
    log = {"H": [(D(2015, 3, 1), "Growth"), (D(2025, 6, 10), "Moderate"), (D(2025, 7, 3), "Conservative")]}
    assert solver.profile_on(log, "H", D(2025, 6, 9)) == "Growth"
    assert solver.profile_on(log, "H", D(2025, 6, 10)) == "Moderate"  # effective that day
    assert solver.profile_on(log, "H", D(2025, 6, 30)) == "Moderate"  # the July update is not yet in force
    assert solver.profile_on(log, "H", D(2014, 1, 1)) is None


def test_limits_by_profile_and_the_superseded_flat_limits():
    P = {"limits": LIMITS, "old_limits": {"issuer": 20, "sector": 40}}
    assert solver.limits_for(P, "Moderate") == {"issuer": 15, "sector": 35, "risk": 3}
    assert solver.limits_for(P, "Conservative", ("flat_limits",)) == {"issuer": 20, "sector": 40, "risk": 2}


_SEC = [("GOOGL", "ISSA", "Common Stock", "Communication Services", 3), ("GOOG", "ISSA", "Common Stock",
        "Communication Services", 3), ("MSFT", "ISSM", "Common Stock", "Information Technology", 3),
        ("AAPL", "ISSP", "Common Stock", "Information Technology", 3), ("AAPL 4.375 45", "ISSP", "Corporate Bond",
        "Information Technology", 2), ("NVDA", "ISSN", "Common Stock", "Information Technology", 4),
        ("XOM", "ISSX", "Common Stock", "Energy", 3), ("KO", "ISSK", "Common Stock", "Consumer Staples", 2),
        ("SPY", "ISSS", "ETF", "Diversified", 3), ("TQQQ", "ISSQ", "ETF", "Diversified", 5),
        ("UST 4.25 34", "ISSU", "US Treasury", "", 1), ("SPAXX", "ISSC", "Money Market", "", 1)]


def _tiny(folder: Path) -> dict:
    """Month-end 2025-06-30, committee limit 30 %. H1 (Growth): GOOGL 15 % + GOOG 12 % = Alphabet 27.0 % > 20, 40 %
    sweep. H2 (master Growth, lowered to Moderate on 2025-06-10): MSFT 17.0 % and Apple 16.0 % (stock 10 + bond 6) over
    15, IT 33 % under 35, SPY 30 %; NVDA (4) bought on solicitation on 06-05 (Growth: fine) and 06-20 (Moderate: an
    exception). H3 (Conservative): a 90k taxable account and a 10k IRA 60 % AAPL (6 % of the household), SPY 30 %, an
    unsolicited TQQQ buy; clean (the rep's household). H4 (Aggressive): XOM 40.0 % > 25 and over the committee limit.
    H5 (Moderate): MSFT 12 % with 30 % sweep, SPY 38 %, a solicited NVDA buy. H6 (Conservative): MSFT, AAPL, NVDA 9 %
    each (IT 27.0 % > 25), KO 9 %. Issuer exceptions 4, sector 1, risk 2, households flagged 5 of 6."""
    write_csv(folder / "securities.csv", ["symbol", "cusip", "description", "issuer_id", "issuer_name", "asset_type",
                                          "sector", "product_risk"],
              [[s, f"C{k:08d}", s, i, i, t, sec, r] for k, (s, i, t, sec, r) in enumerate(_SEC)])
    acct = [("A1", "H1", "Growth"), ("A2", "H2", "Growth"), ("A3", "H3", "Conservative"), ("A4", "H3", "Conservative"),
            ("A5", "H4", "Aggressive"), ("A6", "H5", "Moderate"), ("A7", "H6", "Conservative")]
    write_csv(folder / "accounts.csv", ["account_no", "household_id", "registration", "primary_owner", "rep_code",
                                        "risk_tolerance", "profile_as_of", "opened"],
              [[a, h, "Individual", "Owner", "R1", t, "2025-03-31", "2015-01-01"] for a, h, t in acct])
    holdings = {"A1": [("GOOGL", 15), ("GOOG", 12), ("MSFT", 10), ("XOM", 10), ("KO", 13), ("SPAXX", 40)],
                "A2": [("MSFT", 17), ("XOM", 8), ("KO", 9), ("SPY", 30), ("AAPL", 10), ("AAPL 4.375 45", 6),
                       ("SPAXX", 20)],
                "A3": [("KO", 8), ("XOM", 8), ("MSFT", 8), ("UST 4.25 34", 30), ("SPY", 30), ("SPAXX", 6)],
                "A4": [("AAPL", 6), ("SPAXX", 4)], "A5": [("XOM", 40), ("KO", 20), ("SPAXX", 40)],
                "A6": [("MSFT", 12), ("SPAXX", 30), ("KO", 10), ("XOM", 10), ("SPY", 38)],
                "A7": [("MSFT", 9), ("AAPL", 9), ("NVDA", 9), ("KO", 9), ("SPAXX", 64)]}
    write_csv(folder / "positions.csv", ["account_no", "symbol", "cusip", "description", "quantity", "price",
                                         "market_value", "as_of"],
              [[a, s, "", s, v * 10, "100.00", f"{v * 1000:.2f}", "2025-06-30"] for a, hs in holdings.items()
               for s, v in hs])
    write_csv(folder / "profiles.csv", ["household_id", "effective_date", "risk_tolerance", "source"], [
        ["H1", "2018-01-01", "Growth", "NAF"], ["H2", "2015-03-01", "Growth", "NAF"],
        ["H2", "2025-06-10", "Moderate", "UPDATE"], ["H3", "2012-01-01", "Moderate", "NAF"],
        ["H3", "2022-05-01", "Conservative", "UPDATE"], ["H4", "2019-01-01", "Aggressive", "NAF"],
        ["H5", "2020-01-01", "Moderate", "NAF"], ["H5", "2025-07-03", "Conservative", "UPDATE"],
        ["H6", "2016-01-01", "Conservative", "NAF"]])
    write_csv(folder / "trades.csv", ["trade_id", "trade_date", "account_no", "symbol", "side", "quantity", "price",
                                      "solicited", "rep_code"], [
        ["T1", "2025-06-05", "A2", "NVDA", "BUY", 10, "120.00", "S", "R1"],
        ["T2", "2025-06-20", "A2", "NVDA", "BUY", 10, "120.00", "S", "R1"],
        ["T3", "2025-06-12", "A4", "TQQQ", "BUY", 50, "60.00", "U", "R1"],
        ["T4", "2025-06-15", "A6", "NVDA", "BUY", 10, "120.00", "S", "R1"],
        ["T5", "2025-06-16", "A7", "NVDA", "SELL", 10, "120.00", "S", "R1"]])
    return {"files": {"positions": "positions.csv", "accounts": "accounts.csv", "securities": "securities.csv",
                      "profiles": "profiles.csv", "trades": "trades.csv"},
            "month_end": "2025-06-30", "limits": LIMITS, "old_limits": {"issuer": 20, "sector": 40}, "hard_limit": 30.0,
            "named_household": "H1", "premise_household": "H3"}


def test_the_solver_and_the_recheck_on_a_branch_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    for f in (solver.analyse(str(tmp_path), P), recheck(tmp_path, P)):
        rows = [(e["household"], e["kind"], e["item"], e["value"], e["limit"]) for e in f["exceptions"]]
        assert rows == [("H1", "issuer", "ISSA", 27.0, 20), ("H2", "issuer", "ISSM", 17.0, 15),
                        ("H2", "issuer", "ISSP", 16.0, 15), ("H2", "risk", "T2", 4, 3), ("H4", "issuer", "ISSX", 40.0, 25),
                        ("H5", "risk", "T4", 4, 3), ("H6", "sector", "Information Technology", 27.0, 25)]
        assert (f["households_n"], f["issuer_n"], f["sector_n"], f["risk_n"], f["flagged_n"]) == (6, 4, 1, 2, 5)
        assert (f["named_top"], f["escalate"], f["decision"], f["premise"]) == (27.0, ["H4"], True, True)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    s = n["share_class"]  # Alphabet's classes and Apple's stock and bond apart: all under their limits
    assert (s["issuer_n"], s["named_top"]) == (2, 15.0)
    a = n["per_account"]  # the IRA alone is 60 % Apple and 60 % IT: the rep's household flagged
    assert (a["issuer_n"], a["sector_n"], a["premise"]) == (5, 2, False)
    st = n["stale_profile"]  # H2 read as Growth: no issuer exception, and the NVDA buy of 06-20 passes
    assert (st["issuer_n"], st["risk_n"]) == (2, 1)
    c = n["cash_out"]  # without the sweep: H1 KO 21.7 %, H2 IT 41.3 %, H4 KO and Energy, H5 MSFT, H6 every stock
    assert (c["issuer_n"], c["sector_n"]) == (11, 4)
    fu = n["funds"]  # SPY tested: an issuer in H2, H3, H5, and the Diversified "sector" in H3 and H5
    assert (fu["issuer_n"], fu["sector_n"], fu["premise"]) == (7, 3, False)
    u = n["unsolicited"]  # the unsolicited TQQQ buy flagged
    assert (u["risk_n"], u["premise"]) == (3, False)
    fl = n["flat_limits"]  # 20 % and 40 % for everyone
    assert (fl["issuer_n"], fl["sector_n"]) == (2, 0)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, issuer_delta: int = 0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A reviewer's own answer: the exceptions file with its columns in another order, a percent sign on the shares,
    the types in lower case, a notes column and the rows sorted by type; the note as bold labels with words after the
    numbers and the committee list comma separated."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D, T = P["out_columns"], P["labels"], P["deliverables"], P["types"]
    rows = sorted(([T[e["kind"]].lower(), e["item"], e["household"], e["limit"],
                    f"{e['value']:.1f}%" if e["kind"] != "risk" else str(e["value"]), "review with rep"]
                   for e in f["exceptions"]), key=lambda r: (r[0], r[2], r[1]))
    if not blind:
        with (out / D["exceptions"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C["type"], C["item"], C["household"], C["limit"], C["value"], "notes"])
            w.writerows(rows)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["households_n"], f"{f['households_n']} households"), (L["issuer_n"], str(f["issuer_n"] + issuer_delta)),
             (L["sector_n"], f"{f['sector_n']} exceptions"), (L["risk_n"], str(f["risk_n"])),
             (L["flagged_n"], f"{f['flagged_n']} households"), (L["named_top"], f"{f['named_top']:.1f}%"),
             (L["escalate"], ", ".join(f["escalate"]) or "None"), (L["decision"], yes(f["decision"])),
             (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = [f"# Supervisory review {P['month_end'][:7]}", "", *[f"**{k}:** {v}" for k, v in pairs], *(extra or []), "",
             "Households were tested on their combined value under the current CRM profile; share classes, ADRs and "
             "bonds were rolled up by issuer; unsolicited buys were left out."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, issuer_delta=3)
    assert score_output(task, tmp_path / "wrong") < 1.0
    _hand(tmp_path / "hedged", P, f, extra=[f"**{P['labels']['named_top']}:** {f['named_top'] - 6:.1f}%"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_reading_the_account_master_or_testing_accounts_alone_loses(task, tmp_path):
    f, P = _load(task)
    for s in ("stale_profile", "per_account", "share_class"):
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert g["exceptions"] != f["exceptions"]
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0


def test_the_superseded_2022_guideline_loses(task, tmp_path):
    f, P = _load(task)
    # the 2022 guideline: flat 20 %/40 % limits account by account, the account master's risk tolerance
    old = solver.analyse(str(task / "task_folder"), P, ("flat_limits", "per_account", "stale_profile"))
    assert old["exceptions"] != f["exceptions"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
