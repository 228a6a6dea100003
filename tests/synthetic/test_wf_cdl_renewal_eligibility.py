"""CDL renewal eligibility: the three-year window on offence dates, one incident per citation, the longest
disqualification, the latest medical card to its printed expiry, DNST within five years, worked by hand; the solver
and the independent recheck on a cycle built by hand; each shortcut moving the figure it should; and the reward a
drawn task pays for a correct answer written by hand in another layout, a wrong, a hedged and a blind one, and the
superseded 2016 manual."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import cdl as solver
from jobenv.synthetic.workflows.cdl import CDL_RENEWAL as WF
from jobenv.synthetic.workflows.cdl import recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines

D = dt.date


def test_calendar_windows_end_on_the_same_date_and_february_29_falls_back():
    assert solver.years_before(D(2026, 3, 1), 3) == D(2023, 3, 1)
    assert solver.years_before(D(2028, 2, 29), 1) == D(2027, 2, 28)
    assert solver.add_months(D(2024, 1, 31), 1) == D(2024, 2, 29) and solver.add_months(D(2024, 10, 1), 24) == D(2026, 10, 1)


def _c(cat: str, off: D, conv: D, cite: str = "", seq: str = "1") -> dict:
    return {"category": cat, "offence_date": off, "conviction_date": conv, "citation_no": cite or f"{off}", "charge_seq": seq}


def test_serious_violations_count_by_incident_on_offence_dates():
    R = D(2026, 3, 1)
    late = _c("SERIOUS", D(2023, 2, 20), D(2023, 4, 1))  # offence a week before the window, ruled inside it
    edge = _c("SERIOUS", D(2023, 3, 1), D(2023, 5, 1))  # offence on the window's first day counts
    pair = [_c("SERIOUS", D(2025, 6, 1), D(2025, 7, 1), "OH1", "1"), _c("SERIOUS", D(2025, 6, 1), D(2025, 7, 1), "OH1", "2")]
    assert solver.serious_incidents([late, edge], R) == 1
    assert solver.serious_incidents([late, edge], R, ("conviction_date",)) == 2
    assert solver.serious_incidents(pair, R) == 1 and solver.serious_incidents(pair, R, ("same_incident",)) == 2
    assert solver.disqualification([edge, *pair], R) == "dq60"
    three = [edge, *pair, _c("SERIOUS", D(2024, 1, 5), D(2024, 2, 1))]
    assert solver.disqualification(three, R) == "dq120"
    # a major offence convicted inside the year outranks three serious incidents; one convicted a day too early does not
    assert solver.disqualification([*three, _c("MAJOR", D(2025, 1, 1), D(2025, 3, 1))], R) == "dq1y"
    assert solver.disqualification([edge, _c("MAJOR", D(2025, 1, 1), D(2025, 2, 28))], R) is None


def test_the_latest_card_governs_to_its_printed_expiry():
    R = D(2026, 3, 1)
    one_year = {"exam_date": D(2024, 10, 1), "expiration_date": D(2025, 10, 1)}
    assert not solver.medical_current([one_year], R) and solver.medical_current([one_year], R, ("exam_plus_24",))
    old = {"exam_date": D(2025, 1, 15), "expiration_date": D(2027, 1, 15)}
    new = {"exam_date": D(2025, 6, 10), "expiration_date": D(2025, 9, 10)}
    assert not solver.medical_current([old, new], R) and solver.medical_current([old, new], R, ("superseded_cert",))
    assert solver.medical_current([{"exam_date": D(2024, 3, 1), "expiration_date": R}], R)  # expiring that day: current
    assert not solver.medical_current([], R)


def test_hazmat_needs_a_dnst_within_five_years():
    R = D(2026, 3, 1)
    rec = lambda st, app, dec: {"status": st, "application_date": app, "determination_date": dec}  # noqa: E731
    assert solver.tsa_current([rec("DNST", "2021-01-10", "2021-03-01")], R)  # five years to the day
    assert not solver.tsa_current([rec("DNST", "2020-12-01", "2021-02-28")], R)
    pending = [rec("DNST", "2020-04-01", "2020-05-01"), rec("PENDING", "2026-01-10", "")]
    assert not solver.tsa_current(pending, R) and solver.tsa_current(pending, R, ("tsa_status",))
    assert solver.is_hazmat("XT") and not solver.is_hazmat("XT", ("x_endorsement",)) and not solver.is_hazmat("NPT")


_LIC = ["licence_no", "last_name", "first_name", "date_of_birth", "class", "endorsements", "restrictions", "self_cert",
        "issue_date", "expiration_date", "status"]
_CONV = ["licence_no", "citation_no", "charge_seq", "court_state", "court", "offence_date", "conviction_date", "code",
         "description"]


def _tiny(folder: Path) -> dict:
    """Review 2026-03-01, cycle April 2026, home state OH, 2 hearing slots. D1: one serious in the window and one
    committed before it but ruled inside (renews; the carrier's licence). D2: two charges on one citation (renews). D3:
    an OH and an Indiana serious (IN 9-21-512 = S15): 60 days. D4: an Indiana DUI (9-21-300 = A20) convicted in the
    year and three OH serious incidents: one year. D5: two serious (60 days) and a lapsed 1-year card. D6 (NA): a
    3-month card replaced a 2-year one and lapsed. D7: EI, no card (renews). D8 (HT): DNST of 2020 and a pending
    renewal. D9 (X): DNST of 2020. D10 (HN): DNST on 2021-03-01 exactly (renews). D11: surrendered. D12: expires
    2026-05-01 (outside). D13: expires 2026-04-30, card expiring on the review date, a DUI convicted 2025-02-28.
    In the cycle 11; renew D1, D2, D7, D10, D13 (5); disqualified D3, D4, D5 (3: two 60-day, one 1-year); medical D5,
    D6; hazmat D8, D9; 3 orders > 2 slots."""
    lic = lambda n, cert="NI", end="", exp="2026-04-10", st="VALID": [  # noqa: E731
        f"D{n:08d}", f"DRIVER{n}", "PAT", "1980-05-05", "A", end, "", cert, "2021-04-10", exp, st]
    write_csv(folder / "holders.csv", _LIC, [
        lic(1), lic(2), lic(3), lic(4), lic(5), lic(6, "NA"), lic(7, "EI"), lic(8, end="HT"), lic(9, end="X"),
        lic(10, end="HN"), lic(11, st="SURRENDERED", exp="2026-04-15"), lic(12, exp="2026-05-01"),
        lic(13, exp="2026-04-30")])
    cv = lambda n, cite, seq, st, off, conv, code: [f"D{n:08d}", cite, seq, st, "Court", off, conv, code, ""]  # noqa: E731
    write_csv(folder / "convictions.csv", _CONV, [
        cv(1, "OH11", 1, "OH", "2024-05-01", "2024-06-10", "S15"), cv(1, "OH12", 1, "OH", "2022-12-20", "2023-04-01", "M42"),
        cv(2, "OH21", 1, "OH", "2025-06-01", "2025-07-01", "S15"), cv(2, "OH21", 2, "OH", "2025-06-01", "2025-07-01", "M42"),
        cv(3, "OH31", 1, "OH", "2024-02-01", "2024-03-10", "S15"), cv(3, "IN32", 1, "IN", "2025-01-10", "2025-03-01", "9-21-512"),
        cv(4, "IN41", 1, "IN", "2025-06-01", "2025-08-01", "9-21-300"), cv(4, "OH42", 1, "OH", "2023-06-01", "2023-07-01", "M44"),
        cv(4, "OH43", 1, "OH", "2024-01-01", "2024-02-01", "M42"), cv(4, "OH44", 1, "OH", "2025-02-01", "2025-03-01", "S15"),
        cv(5, "OH51", 1, "OH", "2023-09-01", "2023-10-15", "M84"), cv(5, "OH52", 1, "OH", "2025-03-03", "2025-04-20", "M44"),
        cv(7, "OH71", 1, "OH", "2025-05-01", "2025-06-01", "E03"), cv(11, "OH91", 1, "OH", "2025-05-01", "2025-06-01", "S05"),
        cv(13, "OH131", 1, "OH", "2025-01-02", "2025-02-28", "A20")])
    cards = [[f"D{n:08d}", e, x, "1234567890", "", e] for n, e, x in [
        (1, "2025-01-05", "2027-01-05"), (2, "2025-01-05", "2027-01-05"), (3, "2025-01-05", "2027-01-05"),
        (4, "2025-01-05", "2027-01-05"), (5, "2024-10-01", "2025-10-01"), (6, "2025-01-15", "2027-01-15"),
        (6, "2025-06-10", "2025-09-10"), (8, "2025-01-05", "2027-01-05"), (9, "2025-01-05", "2027-01-05"),
        (10, "2025-01-05", "2027-01-05"), (11, "2025-01-05", "2027-01-05"), (13, "2024-03-01", "2026-03-01")]]
    write_csv(folder / "cards.csv", ["licence_no", "exam_date", "expiration_date", "examiner_nrn", "restrictions",
                                     "posted_date"], cards)
    write_csv(folder / "sta.csv", ["licence_no", "application_id", "application_date", "status", "determination_date"], [
        ["D00000008", "T1", "2020-04-01", "DNST", "2020-05-01"], ["D00000008", "T2", "2026-01-10", "PENDING", ""],
        ["D00000009", "T3", "2020-10-01", "DNST", "2020-11-01"], ["D00000010", "T4", "2021-01-10", "DNST", "2021-03-01"]])
    codes = [["A20", "DUI", "MAJOR"], ["S15", "Speeding 15+", "SERIOUS"], ["M42", "Lane change", "SERIOUS"],
             ["M44", "Following too closely", "SERIOUS"], ["M84", "Reckless driving", "SERIOUS"],
             ["E03", "Equipment", "OTHER"], ["S05", "Speeding 1-14", "OTHER"]]
    write_csv(folder / "acd.csv", ["acd_code", "description", "category"], codes)
    write_csv(folder / "crosswalk.csv", ["state", "state_code", "state_description", "acd_code"], [
        ["IN", "9-21-512", "SPEED 15+", "S15"], ["IN", "9-21-300", "OWI", "A20"]])
    return {"files": {"licences": "holders.csv", "convictions": "convictions.csv", "medical": "cards.csv",
                      "tsa": "sta.csv", "codes": "acd.csv", "crosswalk": "crosswalk.csv"},
            "review_date": "2026-03-01", "cycle_start": "2026-04-01", "cycle_end": "2026-04-30", "home_state": "OH",
            "hearing_slots": 2, "premise_licence": "D00000001"}


def test_the_solver_and_the_recheck_on_a_cycle_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    for f in (solver.analyse(str(tmp_path), P), recheck(tmp_path, P)):
        assert (f["cycle_n"], f["renew_n"], f["dq_n"], f["med_n"], f["hazmat_n"]) == (11, 5, 3, 2, 2)
        assert (f["dq60_n"], f["dq120_n"], f["dq1y_n"]) == (2, 0, 1)
        assert f["dq_list"] == ["D00000003", "D00000004", "D00000005"]
        A = f["actions"]
        assert A["D00000005"] == ["dq60", "med"] and A["D00000004"] == ["dq1y"] and A["D00000013"] == ["renew"]
        assert "D00000011" not in A and "D00000012" not in A
        assert (f["decision"], f["premise"]) == (True, True)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert (n["surrendered"]["cycle_n"], n["surrendered"]["renew_n"]) == (12, 6)
    c = n["conviction_date"]  # D1's old offence counted: the carrier's licence disqualified
    assert (c["dq_n"], "D00000001" in c["dq_list"], c["premise"]) == (4, True, False)
    assert n["same_incident"]["dq_list"] == ["D00000002", "D00000003", "D00000004", "D00000005"]
    o = n["out_of_state"]  # D3 keeps one serious, D4's Indiana DUI is missed: three OH incidents make it 120 days
    assert (o["dq_n"], o["dq60_n"], o["dq120_n"], o["dq1y_n"]) == (2, 1, 1, 0)
    assert (n["excepted"]["med_n"], n["exam_plus_24"]["med_n"], n["superseded_cert"]["med_n"]) == (3, 0, 1)
    assert (n["tsa_status"]["hazmat_list"], n["x_endorsement"]["hazmat_list"]) == (["D00000009"], ["D00000008"])


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, renew_delta: int = 0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """An examiner's own answer: the upload with its columns in another order, a date column, the codes in lower
    case and the rows grouped by action; the summary as bold labels with words after the numbers, licences comma
    separated."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D, codes = P["upload_columns"], P["labels"], P["deliverables"], P["codes"]
    rows = sorted(([codes[a].lower(), lic, P["review_date"], "see summary"] for lic, acts in f["actions"].items()
                   for a in acts), key=lambda r: (r[0], r[1]))
    if not blind:
        with (out / D["upload"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C[1], C[0], "reviewed_on", C[2]])
            w.writerows(rows)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["cycle_n"], f"{f['cycle_n']} licences"), (L["renew_n"], f"{f['renew_n'] + renew_delta} licences"),
             (L["dq_n"], f"{f['dq_n']} orders"), (L["dq_list"], ", ".join(reversed(f["dq_list"]))),
             (L["med_n"], str(f["med_n"])), (L["hazmat_n"], f"{f['hazmat_n']} drivers"),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = [f"# {P['cycle_start'][:7]} renewal cycle", "", *[f"**{k}:** {v}" for k, v in pairs], *(extra or []), "",
             "Serious violations were read on offence dates per the footnote; out-of-state codes went through the "
             "crosswalk; only NI/NA drivers need a card."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, renew_delta=2)
    assert score_output(task, tmp_path / "wrong") < 1.0
    _hand(tmp_path / "hedged", P, f, extra=[f"**{P['labels']['med_n']}:** {f['med_n'] + 2}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_missing_the_out_of_state_codes_or_the_footnote_loses(task, tmp_path):
    f, P = _load(task)
    for s in ("out_of_state", "conviction_date", "same_incident"):
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert g["dq_list"] != f["dq_list"]
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0


def test_the_superseded_2016_manual_loses(task, tmp_path):
    f, P = _load(task)
    # rev. 2016: conviction dates, every conviction counted, cards good 24 months from the exam, hazmat only by H
    old = solver.analyse(str(task / "task_folder"), P, ("conviction_date", "same_incident", "exam_plus_24",
                                                         "x_endorsement"))
    assert old["dq_n"] > f["dq_n"] and old["med_n"] < f["med_n"] and old["hazmat_n"] < f["hazmat_n"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
