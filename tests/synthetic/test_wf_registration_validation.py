"""Registration validation: the NPI check digit, the CMS MBI format and Excel date serials on hand-computed cases, the
solver and the independent recheck on an eight-registration batch worked by hand, each shortcut moving the figure it
should, and the reward a drawn task pays for a correct answer written by hand in another layout, a wrong, a hedged and
a blind one, and for the superseded v1 rules."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import registration as solver
from jobenv.synthetic.workflows.registration import REGISTRATION_VALIDATION as WF
from jobenv.synthetic.workflows.registration import recheck
from jobenv.synthetic.writers import write_csv, write_xlsx

from .conftest import score_output, write_memo_lines


def test_npi_check_digit_by_hand():
    # 1234567893 (the CMS example): the first 9 digits from the right, every other one doubled starting with the 9th:
    # 9->18->9, 7->14->5, 5->10->1, 3->6, 1->2 = 23; the others 8+6+4+2 = 20; 43 + 24 (prefix 80840) = 67 -> 3
    assert solver.npi_valid("1234567893")
    assert not solver.npi_valid("1234567890")
    assert not solver.npi_valid("1234567893", prefix=False)  # plain Luhn: 43 + 3 = 46, not a multiple of 10
    assert not solver.npi_valid("123456789")  # 9 digits
    # 1090000005: doubled 0, 0, 0, 9->9, 1->2 = 11, + 24 = 35 -> 5. The 0/9 transposition 1900000005: doubled
    # 1->2, plus 9 undoubled = 11, + 24 = 35 -> 5 as well: Luhn cannot see a 09/90 swap
    assert solver.npi_valid("1090000005") and solver.npi_valid("1900000005")
    assert not solver.npi_valid("1090000006")


def test_mbi_format_v2_and_the_superseded_v1_rule():
    assert solver.mbi_valid("1EG4TE5MK73")  # CMS's published example, 1EG4-TE5-MK73 without the dashes
    assert not solver.mbi_valid("1EG4TE5MK7")  # 10 characters
    assert not solver.mbi_valid("0EG4TE5MK73")  # position 1 is 1-9
    assert not solver.mbi_valid("1SG4TE5MK73")  # S is never used
    assert not solver.mbi_valid("1EG4TO5MK73")
    assert not solver.mbi_valid("123456789A")  # a legacy HICN
    assert solver.mbi_valid("1SG4TE5MK73", v1=True) and solver.mbi_valid("123456789A", v1=True)
    assert not solver.mbi_valid("1EG4TE5MK7", v1=True)


def test_excel_date_serials_and_age():
    # 25569 days after 1899-12-30 is 1970-01-01 (the Unix epoch, a well-known serial); 45000 is 2023-03-15
    assert solver.parse_dob("25569") == (dt.date(1970, 1, 1), True)
    assert solver.parse_dob("45000") == (dt.date(2023, 3, 15), True)
    assert solver.parse_dob("25569", serials=False) == (None, False)
    assert solver.parse_dob("1950-01-01") == (dt.date(1950, 1, 1), False)
    assert solver.age_on(dt.date(2000, 3, 1), dt.date(2025, 2, 28)) == 24  # the birthday not yet reached
    assert solver.age_on(dt.date(2000, 3, 1), dt.date(2025, 3, 1)) == 25


_COLS = ["reg_id", "registered_at", "source", "last_name", "first_name", "dob", "sex", "ssn_last4", "street", "city",
         "state", "zip", "payer_code", "mbi", "attending_npi"]
_CODES = {"npi": "R1", "npi_dir": "R2", "mbi": "R3", "dob": "R4", "zip_state": "R5", "dob_fix": "F1", "zip_fix": "F2",
          "dup": "F3"}


def _tiny(folder: Path) -> dict:
    """Eight registrations of 2 June 2025. R-1 Robert Smith and R-2 Bob Smith (same DOB, SSN 1234, an hour later):
    one patient, R-2 merged. R-3's DOB is the serial 25569 (1970-01-01) and its ZIP 7001 (07001, NJ): fixed,
    released. R-4's NPI 1234567890 fails the check digit; R-5's 1900000005 passes it but is not in the directory;
    R-6 (Medicare) carries the HICN 123456789A; R-7 was born in 2030; R-8 lives in NY with the MA ZIP 02134: all held.
    After the merge 7 registrations, 5 held, 2 released (R-1, R-3); held share 5 / 7 = 71.43 %."""
    def reg(i, first, last, dob, state, z, payer, mbi, npi, at="2025-06-02 08:00", ssn="1234"):
        return [f"R-{i}", at, "front desk", last, first, dob, "F", ssn, "1 Elm St", "Riverton", state, z, payer, mbi, npi]

    write_csv(folder / "export.csv", _COLS, [
        reg(1, "Robert", "Smith", "1950-01-01", "MA", "02134", "MCR", "1EG4TE5MK73", "1234567893"),
        reg(2, "Bob", "Smith", "1950-01-01", "MA", "02134", "MCR", "1EG4TE5MK73", "1234567893", at="2025-06-02 09:00"),
        reg(3, "Ann", "Jones", "25569", "NJ", "7001", "BLU", "", "1234567893", ssn="0042"),
        reg(4, "Kim", "Lee", "1980-05-05", "NY", "10001", "BLU", "", "1234567890"),
        reg(5, "Jo", "Park", "1980-05-05", "NY", "10001", "BLU", "", "1900000005"),
        reg(6, "Eva", "Diaz", "1945-02-02", "MA", "02110", "MCR", "123456789A", "1090000005"),
        reg(7, "Al", "Cruz", "2030-01-01", "NJ", "07001", "BLU", "", "1090000005"),
        reg(8, "Mei", "Ng", "1990-01-01", "NY", "02134", "BLU", "", "1090000005")])
    write_xlsx(folder / "dir.xlsx", [("Providers", ["npi", "provider_name"], [["1234567893", "Dr A"],
                                                                             ["1090000005", "Dr B"]])])
    write_csv(folder / "zips.csv", ["zip3", "state"], [["021", "MA"], ["070", "NJ"], ["100", "NY"]])
    write_csv(folder / "nick.csv", ["nickname", "formal_name"], [["Bob", "Robert"]])
    write_csv(folder / "payers.csv", ["payer_code", "payer_name", "financial_class"],
              [["MCR", "Medicare", "Medicare"], ["BLU", "Blue", "Commercial"]])
    return {"files": {"export": "export.csv", "directory": "dir.xlsx", "zips": "zips.csv", "nicknames": "nick.csv",
                      "payers": "payers.csv"}, "codes": _CODES, "max_age": 115, "held_limit": 50.0,
            "named_reg": "R-3", "premise_reg": "R-6", "exception_columns": ["reg_id", "rule", "fix"]}


def test_the_solver_and_the_recheck_on_a_batch_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert [r[0] for r in f["clean"]] == ["R-1", "R-3"]
    assert f["clean"][1][5] == "1970-01-01" and f["clean"][1][11] == "07001"
    assert (f["npi_fail"], f["npi_dir"], f["mbi_invalid"], f["dob_invalid"], f["zip_state"]) == (1, 1, 1, 1, 1)
    assert (f["merged"], f["after_merge"], f["held"], f["released"], f["held_pct"]) == (1, 7, 5, 2, 71.43)
    assert (f["named_dob"], f["decision"], f["premise"]) == ("1970-01-01", False, False)
    assert f["exceptions"] == [["R-2", "F3", "merged into R-1"], ["R-3", "F1", "1970-01-01"], ["R-3", "F2", "07001"],
                               ["R-4", "R1", "held"],
                               ["R-5", "R2", "held"],
                               ["R-6", "R3", "held"],
                               ["R-7", "R4", "held"],
                               ["R-8", "R5", "held"]]
    again = recheck(tmp_path, P)
    assert again["counts"] == f["counts"]
    assert {k: again[k] for k in ("released", "held", "held_pct", "merged", "named_dob", "decision", "premise")} == {
        k: f[k] for k in ("released", "held", "held_pct", "merged", "named_dob", "decision", "premise")}
    naive = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert naive["no_prefix"]["npi_fail"] == 7 and naive["no_prefix"]["released"] == 0  # plain Luhn fails them all
    assert (naive["v1_rules"]["mbi_invalid"], naive["v1_rules"]["released"], naive["v1_rules"]["premise"]) == (0, 3, True)
    assert (naive["serial_dob"]["named_dob"], naive["serial_dob"]["released"]) == ("25569", 1)
    assert (naive["nicknames"]["merged"], naive["nicknames"]["released"]) == (0, 3)
    assert naive["zip_zeros"]["released"] == 1 and naive["zip_zeros"]["zip_state"] == 2
    assert naive["no_directory"]["released"] == 3 and naive["no_directory"]["npi_dir"] == 0


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, drop: int = 0, extra: list[str] | None = None, blind: bool = False) -> None:
    """A keyer's own answer: the clean batch with its columns reversed and a status column, the exceptions sorted by
    rule with their own wording of the fix, the note's facts as a Markdown table with bold labels and units."""
    import csv

    out.mkdir(parents=True, exist_ok=True)
    D, L, E = P["deliverables"], P["labels"], P["exception_columns"]
    if not blind:
        with (out / D["clean"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["status"] + f["columns"][::-1])
            for r in f["clean"][drop:]:
                w.writerow(["released"] + r[::-1])
        with (out / D["exceptions"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([E[1], E[0], E[2]])
            for reg, rule, fix in sorted(f["exceptions"], key=lambda e: (e[1], e[0])):
                w.writerow([rule, reg, fix.upper() if fix == "held" else fix])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["npi_fail"], f"{f['npi_fail']} registrations"), (L["mbi_invalid"], str(f["mbi_invalid"])),
             (L["merged"], f"{f['merged']} records"), (L["released"], str(f["released"] - drop)),
             (L["held"], str(f["held"])), (L["held_pct"], f"{f['held_pct']:.2f}%"), (L["named_dob"], f["named_dob"]),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No" if v in ("Yes", "No") else "0") for k, v in pairs]
    lines = ["# Release note", "", "| Item | Value |", "|---|---|", *[f"| **{k}** | {v} |" for k, v in pairs],
             *(extra or []), "", "Rules v2 applied; kiosk DOB serials converted, ZIP zeros restored."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, drop=1)  # one clean registration left out of the release
    assert score_output(task, tmp_path / "wrong") <= 0.9
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['merged']} | {f['merged'] + 2} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.05


def test_following_the_superseded_v1_rules_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("v1_rules",))
    assert old["mbi_invalid"] < f["mbi_invalid"] and old["premise"] and not f["premise"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75


@pytest.mark.parametrize("shortcut", WF.shortcuts)
def test_each_shortcut_loses_credit_on_the_drawn_task(task, tmp_path, shortcut):
    f, P = _load(task)
    solver.write_outputs(str(tmp_path / shortcut), P, solver.analyse(str(task / "task_folder"), P, (shortcut,)))
    assert score_output(task, tmp_path / shortcut) < 1.0
