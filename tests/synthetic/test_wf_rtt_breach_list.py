"""The 18-week RTT breach list workflow: the clock rules on hand-computed pathways, and the reward a drawn task
pays for a correct answer written by hand in another style, a wrong one, a hedged one and a blind one."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import rtt as solver
from jobenv.synthetic.workflows.rtt import RTT_BREACH_LIST, recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output

D = dt.date
CENSUS = D(2024, 6, 30)


def test_a_first_appointment_dna_restarts_the_clock_and_cancellations_do_not():
    received = D(2024, 1, 2)
    dna = [(D(2024, 2, 1), "OPFA", "dna"), (D(2024, 3, 1), "OPFA", "attended")]
    assert solver.clock_start(received, dna, CENSUS) == (D(2024, 2, 1), False)
    assert solver.clock_start(received, dna, CENSUS, reset_on_dna=False) == (received, False)
    later = [(D(2024, 2, 1), "OPFA", "attended"), (D(2024, 3, 1), "OPFU", "dna")]
    assert solver.clock_start(received, later, CENSUS) == (received, False)  # only the first appointment resets
    cancelled = [(D(2024, 2, 1), "OPFA", "cancelled_patient"), (D(2024, 2, 20), "OPFA", "cancelled_hospital")]
    assert solver.clock_start(received, cancelled, CENSUS) == (received, False)
    assert solver.clock_start(received, cancelled, CENSUS, reset_on_cancel=True) == (D(2024, 2, 20), False)
    treated = [(D(2024, 2, 1), "OPFA", "attended"), (D(2024, 5, 1), "TREAT", "attended")]
    assert solver.clock_start(received, treated, CENSUS)[1] is True
    assert solver.clock_start(received, treated, D(2024, 4, 30))[1] is False


_REFS = [  # id, nhs, specialty, urgency, received
    ("R1", "401", "ENT", "Routine", "2024-01-02"),   # 180 days, no appointment yet: breach
    ("R2", "402", "ENT", "Routine", "2024-01-02"),   # DNA 2024-03-01 restarts: 121 days, no breach
    ("R3", "403", "ENT", "Urgent", "2024-02-20"),    # cancelled by the patient: still 131 days, breach
    ("R4", "404", "ENT", "Routine", "2023-12-01"),   # treated 2024-04-01: off the list
    ("R5", "401", "ENT", "Routine", "2024-02-10"),   # duplicate of R1 (open): merged
    ("R6", "406", "ENT", "Soon", "2024-02-25"),      # exactly 126 days: not over 126, no breach
]
_APPTS = [("R2", "2024-03-01", "OPFA", "dna"), ("R3", "2024-04-01", "OPFA", "cancelled_patient"),
          ("R4", "2024-01-15", "OPFA", "attended"), ("R4", "2024-04-01", "TREAT", "attended")]


@pytest.fixture()
def tiny(tmp_path):
    write_csv(tmp_path / "refs.csv", ["referral_id", "nhs_number", "specialty", "urgency", "received_date"],
              [list(r) for r in _REFS])
    write_csv(tmp_path / "appts.csv", ["referral_id", "appt_date", "appt_type", "outcome"], [list(a) for a in _APPTS])
    P = {"files": {"referrals": "refs.csv", "appointments": "appts.csv"}, "census": CENSUS.isoformat(),
         "breach_days": 126, "urgency_order": ["Urgent", "Soon", "Routine"], "capacity": 2, "premise_ref": "R2"}
    return tmp_path, P


def test_the_hand_computed_list(tiny):
    folder, P = tiny
    for facts in (solver.analyse(str(folder), P), recheck(folder, P)):
        assert [(x["referral_id"], x["days"], x["seq"]) for x in facts["breaches"]] == [("R3", 131, 1), ("R1", 180, 2)]
        assert (facts["longest_ref"], facts["longest_days"], facts["first_ref"]) == ("R1", 180, "R3")
        assert facts["decision"] is True and facts["premise"] is False
    assert [x["referral_id"] for x in solver.analyse(str(folder), P, ("dna_no_reset",))["breaches"]] == ["R3", "R1", "R2"]
    assert [x["referral_id"] for x in solver.analyse(str(folder), P, ("duplicates",))["breaches"]] == ["R3", "R1", "R5"]
    assert [x["referral_id"] for x in solver.analyse(str(folder), P, ("cancel_reset",))["breaches"]] == ["R1"]
    assert [x["referral_id"] for x in solver.analyse(str(folder), P, ("order_by_wait",))["breaches"]] == ["R1", "R3"]


@pytest.fixture(scope="module")
def task(workflow_task):
    return workflow_task(RTT_BREACH_LIST, True, False)


def _answer(task: Path, out: Path, *, nudge: int = 0, hedge: bool = False, blind: bool = False) -> None:
    """A correct answer by hand: the list with its columns reordered, a reason column and dates in another order;
    the note's lines in a Markdown table (or Word paragraphs with bold labels)."""
    import pandas as pd

    P = json.loads((task / "ground_truth" / "params.json").read_text())
    f = solver.analyse(str(task / "task_folder"), P)
    if blind:
        f["breaches"] = [{"referral_id": f"R{k:06d}", "nhs_number": "", "specialty": "ENT", "urgency": "Routine",
                          "clock_start": "2024-01-01", "days": 130 + k, "weeks": 19, "seq": k} for k in range(1, 26)]
        f.update(breach_count=25, longest_days=200, longest_ref="R000025", first_ref="R000001", decision=True,
                 premise=True)
    C, L, dl = P["columns"], P["labels"], P["deliverables"]
    out.mkdir(parents=True)
    pd.DataFrame([{C["days"]: x["days"], "reason": "over 18 weeks", C["referral_id"]: x["referral_id"],
                   C["seq"]: x["seq"], C["urgency"]: x["urgency"].upper(), C["specialty"]: x["specialty"],
                   C["nhs_number"]: x["nhs_number"], C["weeks"]: x["weeks"],
                   C["clock_start"]: x["clock_start"]} for x in f["breaches"]]).to_csv(out / dl["list"], index=False)
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    count = f"{f['breach_count'] + nudge} pathways" + (f" (or {f['breach_count'] + 2})" if hedge else "")
    rows = [(L["count"], count), (L["longest_days"], f"{f['longest_days']} days"), (L["longest_ref"], f["longest_ref"]),
            (L["first"], f["first_ref"]), (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    reason = "A first-appointment DNA restarts the clock; cancellations do not; duplicate referrals are merged."
    if dl["memo"].endswith(".docx"):
        import docx

        doc = docx.Document()
        for k, v in rows:
            p = doc.add_paragraph()
            p.add_run(f"{k}:").bold = True
            p.add_run(f" {v}")
        doc.add_paragraph(reason)
        doc.save(str(out / dl["memo"]))
    else:
        (out / dl["memo"]).write_text("| Item | Value |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows)
                                      + "\n" + reason + "\n")


def test_a_correct_answer_in_another_style_earns_full_credit(task, tmp_path):
    _answer(task, tmp_path / "right")
    assert score_output(task, tmp_path / "right") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    _answer(task, tmp_path / "wrong", nudge=1)
    _answer(task, tmp_path / "hedged", hedge=True)
    _answer(task, tmp_path / "blind", blind=True)
    assert score_output(task, tmp_path / "wrong") < 1.0
    assert score_output(task, tmp_path / "hedged") < 1.0
    assert score_output(task, tmp_path / "blind") <= 0.1
