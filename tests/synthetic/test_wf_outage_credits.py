"""Outage credits: the tariff's arithmetic on hand-computed cases, and the reward a drawn task pays for a correct
upload and reply written by hand in another layout, a wrong, a hedged and a blind answer, and the 2019 policy."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from jobenv.synthetic.solvers import outage as solver
from jobenv.synthetic.workflows import WORKFLOWS

from .conftest import score_output

WF = next(w for w in WORKFLOWS if w.key == "outage_credits")


def test_overlapping_tickets_are_one_outage():
    a = [("2025-02-03T08:00", "2025-02-03T22:00"), ("2025-02-03T11:00", "2025-02-04T00:30")]
    assert solver.merged_hours(a) == 16.5  # 08:00 to 00:30 next day
    assert solver.merged_hours(a, ("duplicates",)) == 14 + 13.5
    assert solver.merged_hours([("2025-02-01T00:00", "2025-02-01T10:00"), ("2025-02-02T00:00", "2025-02-02T05:00")]) == 15


def test_the_daily_pro_rata_credit():
    # 54.99 / 28 x 3 days (49.5 h is two full days and part of a third) = 5.8918 -> 5.89
    assert solver.outage_credit(54.99, 49.5, 28) == (3, 5.89)
    assert solver.outage_credit(54.99, 49.5, 30) == (3, 5.50)  # the 30-day shortcut
    assert solver.outage_credit(54.99, 23.9, 31) == (0, 0.0)  # under 24 hours: nothing
    assert solver.outage_credit(39.99, 24.0, 31) == (1, 1.29)  # exactly 24 h is one day
    assert solver.outage_credit(79.99, 40 * 24, 31) == (40, 79.99)  # never more than one MRC


@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path):
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, total_delta: float = 0.0, extra: list[str] | None = None) -> None:
    """An agent's own upload (columns reordered, amounts with a dollar sign, an extra column) and a reply with
    the labelled facts in a Markdown table."""
    out.mkdir(parents=True, exist_ok=True)
    c = P["upload_columns"]
    rows = [{c[2]: f"${amount:.2f}", c[0]: a, c[4]: flag, c[1]: code, c[3]: cyc, "agent": "desk"}
            for a, code, amount, cyc, flag, _ in f["lines"]]
    pd.DataFrame(rows).to_csv(out / P["deliverables"]["upload"], index=False)
    L = P["labels"]
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["total"], f"${f['total'] + total_delta:,.2f}"), (L["named"], f"${f['named_credit']:.2f}"),
             (L["ineligible"], f"{f['ineligible_n']} accounts"), (L["fees"], f"{f['fees_reversed']:.2f} USD"),
             (L["flagged"], str(f["flagged_n"])), (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    body = ["| Item | Value |", "|---|---|", *[f"| {k} | {v} |" for k, v in pairs], *(extra or []), "",
            "Dear customer, we have applied your credit; it will show on your next bill."]
    (out / P["deliverables"]["memo"]).write_text("\n".join(body) + "\n")


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, total_delta=5.0)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"| {L['fees']} | {f['fees_reversed'] + 10:.2f} |"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    blind = tmp_path / "blind"
    blind.mkdir()
    (blind / P["deliverables"]["memo"]).write_text("\n".join(
        f"{L[k]}: {v}" for k, v in [("total", "250.00"), ("named", "20.00"), ("ineligible", "3"), ("fees", "20.00"),
                                    ("flagged", "1"), ("decision", "yes"), ("premise", "no")]) + "\n")
    assert score_output(task, blind) <= 0.1


def test_the_2019_policy_loses(task, tmp_path):
    f, P = _load(task)
    out = tmp_path / "old"
    solver.write_outputs(str(out), P, solver.analyse(str(task / "task_folder"), P, ("thirty_day", "tax", "goodwill")))
    assert score_output(task, out) <= 0.5
