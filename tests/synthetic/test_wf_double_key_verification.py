"""Double-key verification: the spec's normalisation, Levenshtein distance and the Z1.4 plan on hand-computed cases,
the solver and the independent recheck on a batch worked by hand, each shortcut moving the figure it should, and
the reward a drawn task pays for a correct answer written by hand in another layout, a wrong, a hedged and a blind
one, and the superseded v2 spec."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import doublekey as solver
from jobenv.synthetic.workflows import doublekey_docs as docs
from jobenv.synthetic.workflows.doublekey import DOUBLE_KEY_VERIFICATION as WF
from jobenv.synthetic.workflows.doublekey import recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines

FIELDS = solver.FIELDS


def _tables() -> tuple[list[dict], list[dict]]:
    h1, r1 = docs.table_one()
    h2, r2 = docs.table_two()
    return [dict(zip(h1, r)) for r in r1], [dict(zip(h2, r)) for r in r2]


def test_the_spec_keeps_dates_as_written_zeros_and_o_apart():
    assert solver.norm("last_name", "  o brien ") == "O BRIEN"
    assert solver.norm("dob", "3/7/2024") != solver.norm("dob", "03/07/2024")  # v3: dates as written
    assert solver.norm("dob", "3/7/2024", ("dates_parsed",)) == solver.norm("dob", "03/07/2024", ("dates_parsed",))
    assert solver.norm("zip", "2134") != solver.norm("zip", "02134")
    assert solver.norm("zip", "2134", ("lost_zeros",)) == solver.norm("zip", "02134", ("lost_zeros",)) == "2134"
    assert solver.norm("member_id", "ABC1O0203") != solver.norm("member_id", "ABC100203")
    assert solver.norm("member_id", "abc1O0203", ("o_for_zero",)) == "ABC100203"
    assert solver.norm("phone", "(617) 555-0134") == "6175550134"
    assert solver.norm("premium", "$1,048.5") == "1048.50"
    assert solver.norm("premium", "$1,048.5", ("raw_compare",)) == "$1,048.5"


def test_levenshtein_counts_substitutions_insertions_and_deletions():
    assert solver.levenshtein("02134", "2134") == 1  # one deletion
    assert solver.levenshtein("KITTEN", "SITTING") == 3  # K->S, E->I, +G
    assert solver.levenshtein("3/7/2024", "03/07/2024") == 2
    assert solver.levenshtein("", "ABC") == 3


def test_z14_level_ii_at_aql_one_follows_table_i_and_the_arrows():
    t1, t2 = _tables()
    assert solver.z14_plan(495, t1, t2) == ("H", 50, 1, 2)  # 281-500 -> H, n 50, Ac 1 Re 2
    assert solver.z14_plan(501, t1, t2) == ("J", 80, 2, 3)  # 501-1200 -> J
    assert solver.z14_plan(1200, t1, t2) == ("J", 80, 2, 3)
    assert solver.z14_plan(1201, t1, t2) == ("K", 125, 3, 4)  # 1201-3200 -> K
    assert solver.z14_plan(200, t1, t2) == ("G", 50, 1, 2)  # G is an arrow down at 1.0: H's plan, n 50
    assert solver.z14_plan(120, t1, t2) == ("F", 13, 0, 1)  # F is an arrow up: E's plan, n 13, Ac 0
    assert solver.z14_plan(10, t1, t2) == ("B", 10, 0, 1)  # arrows down to E (n 13), more than the lot: 100 %


def _tiny(folder: Path) -> dict:
    """Four documents (D4 voided), keyed by K1 (pass 1) and K2 (pass 2); D1 and D2 verified in that pull order.
    D1: K2 keyed dob 3/7/1980 (error under v3), zip 2134 for 02134 (error) and last name in lower case (not an
    error); both keyed plan PPO-2 where the form says PPO-5 (agreed but wrong, found by verification).
    D2: K1 keyed member id ABC1O0203 (letter O, error). D3: K1 keyed city WORCESTR, K2 keyed WORSESTER (both wrong,
    adjudicated WORCESTER). D4 (voided) carries one K1 slip.
    Discrepancies: D1 dob, zip; D2 member_id; D3 city = 4 (the case difference normalises away).
    Errors: K1 = D1 plan, D2 member_id, D3 city = 3 of 45; K2 = D1 dob, zip, plan, D3 city = 4 of 45.
    Edits: K1 = 1 (PPO-2) + 1 (O) + 1 (WORCESTR) = 3; K2 = 2 (dob) + 1 (zip) + 1 + 1 (S for C) = 5.
    Lot 3 -> Table I code A at level II -> arrows down to E (n 13) -> 100 %: n 3, Ac 0, Re 1; D1 defective."""
    truth = {"last_name": "OKAFOR", "first_name": "GRACE", "middle_initial": "", "dob": "03/07/1980",
             "member_id": "ABC100203", "street": "12 MAIN ST", "city": "WORCESTER", "state": "MA", "zip": "02134",
             "phone": "6175550134", "plan_code": "PPO-5", "group_number": "004417", "premium": "124.50",
             "effective_date": "01/01/2026", "signature_date": "12/05/2025"}
    rows = {d: dict(truth) for d in ("D1", "D2", "D3", "D4")}
    k1 = {d: dict(r) for d, r in rows.items()}
    k2 = {d: dict(r) for d, r in rows.items()}
    k1["D1"]["plan_code"] = k2["D1"]["plan_code"] = "PPO-2"
    k2["D1"].update(dob="3/7/1980", zip="2134", last_name="okafor")
    k2["D1"]["phone"] = "(617) 555-0134"
    k1["D2"]["member_id"] = "ABC1O0203"
    k1["D3"]["city"], k2["D3"]["city"] = "WORCESTR", "WORSESTER"
    k1["D4"]["street"] = "21 MAIN ST"
    head = ["doc_id", "keyer_id", *FIELDS]
    write_csv(folder / "k1.csv", head, [[d, "K1", *(k1[d][f] for f in FIELDS)] for d in rows])
    write_csv(folder / "k2.csv", head, [[d, "K2", *(k2[d][f] for f in FIELDS)] for d in rows])
    write_csv(folder / "man.csv", ["doc_id", "status"], [["D1", "OK"], ["D2", "OK"], ["D3", "OK"], ["D4", "VOID"]])
    write_csv(folder / "adj.csv", ["doc_id", "field_name", "adjudicated_value"],
              [[d, f, truth[f]] for d in rows for f in FIELDS if k1[d][f] != k2[d][f]])
    write_csv(folder / "ver.csv", ["queue_pos", "doc_id", *FIELDS], [[2, "D2", *truth.values()], [1, "D1", *truth.values()]])
    h1, r1 = docs.table_one()
    h2, r2 = docs.table_two()
    write_csv(folder / "t1.csv", h1, r1)
    write_csv(folder / "t2.csv", h2, r2)
    return {"files": {"manifest": "man.csv", "key1": "k1.csv", "key2": "k2.csv", "adjudicated": "adj.csv",
                      "verification": "ver.csv", "table1": "t1.csv", "table2": "t2.csv"},
            "level": "II", "aql": "1.0", "threshold_pct": 0.5, "claim": "K2"}


def _by(f: dict) -> dict:
    return {x["keyer"]: x for x in f["keyers"]}


def test_the_solver_and_the_recheck_on_a_batch_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    for f in (solver.analyse(str(tmp_path), P), recheck(tmp_path, P)):
        b = _by(f)
        assert (f["lot"], f["discrepancies"], f["letter"], f["n"], f["ac"], f["re"], f["defects"]) == (3, 4, "A", 3, 0, 1, 1)
        assert (b["K1"]["errors"], b["K2"]["errors"], b["K1"]["fields"]) == (3, 4, 45)
        assert (b["K1"]["rate"], b["K2"]["rate"]) == (6.667, 8.889)  # 3/45, 4/45
        assert (b["K1"]["edits"], b["K2"]["edits"]) == (3, 5)
        assert f["batch_rate"] == 7.778  # 7/90
        assert (f["decision"], f["premise"]) == (False, True)
        d1 = f["corrected"][0]
        assert d1[1 + FIELDS.index("plan_code")] == "PPO-5" and d1[1 + FIELDS.index("dob")] == "03/07/1980"


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert n["dates_parsed"]["discrepancies"] == 3 and _by(n["dates_parsed"])["K2"]["errors"] == 3
    assert n["lost_zeros"]["discrepancies"] == 3 and n["lost_zeros"]["corrected"][0][1 + FIELDS.index("zip")] == "2134"
    assert n["o_for_zero"]["discrepancies"] == 3 and _by(n["o_for_zero"])["K1"]["errors"] == 2
    assert n["raw_compare"]["discrepancies"] == 6  # the lower-case name and the phone punctuation count
    assert _by(n["agree_is_right"])["K1"]["errors"] == 2 and n["agree_is_right"]["defects"] == f["defects"]
    assert (n["voids_in"]["lot"], n["voids_in"]["discrepancies"], _by(n["voids_in"])["K1"]["errors"]) == (4, 5, 4)
    assert (_by(n["blame_second"])["K1"]["errors"], _by(n["blame_second"])["K2"]["errors"]) == (1, 5)


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, disc_delta: int = 0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """A QC lead's own answer: the upload with the fields in reverse order and the documents last first; the memo as
    bold labels with words after the numbers and the keyers in reverse order."""
    out.mkdir(parents=True, exist_ok=True)
    L, D = P["labels"], P["deliverables"]
    if not blind:
        with (out / D["csv"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([*reversed(FIELDS), P["doc_col"]])
            w.writerows([*reversed(r[1:]), r[0]] for r in reversed(f["corrected"]))
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    lines = [f"# Batch {P['batch']} double-key audit", "", f"**{L['lot']}:** {f['lot']} documents",
             f"**{L['letter']}:** {f['letter']}", f"**{L['n']}:** {f['n']} documents", f"**{L['ac']}:** {f['ac']}",
             f"**{L['re']}:** {f['re']}", f"**{L['defects']}:** {f['defects']} documents",
             f"**{L['decision']}:** {yes(f['decision'])}", f"**{L['disc']}:** {f['discrepancies'] + disc_delta} fields",
             f"**{L['batch_rate']}:** {f['batch_rate']:.3f} %", f"**{L['premise']}:** {yes(f['premise'])}", ""]
    for x in reversed(f["keyers"]):
        k = x["keyer"]
        lines += [f"**{k} {L['keyed']}:** {x['fields']:,}", f"**{k} {L['errors']}:** {x['errors']}",
                  f"**{k} {L['rate']}:** {x['rate']:.3f} %", f"**{k} {L['cer']}:** {x['cer']:.3f} %", ""]
    if blind:
        lines = [ln.split(":**")[0] + ":** 0" if ":**" in ln else ln for ln in lines]
    lines += [*(extra or []), "Dates compared as written; ZIPs kept as text; agreed fields checked against the images."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, disc_delta=7)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['defects']}:** {f['defects'] + 2}",
                                            f"**{L['decision']}:** {'No' if f['decision'] else 'Yes'}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_each_trap_of_the_drawn_task_loses(task, tmp_path):
    _, P = _load(task)
    assert score_output(task, task / "ground_truth" / "outputs") == 1.0
    for s in WF.shortcuts:
        solver.write_outputs(str(tmp_path / s), P, solver.analyse(str(task / "task_folder"), P, (s,)))
        assert score_output(task, tmp_path / s) < 1.0, s


def test_the_superseded_v2_spec_loses(task, tmp_path):
    f, P = _load(task)
    # the v2 spec: dates compared as calendar dates and the letter O read as zero
    old = solver.analyse(str(task / "task_folder"), P, ("dates_parsed", "o_for_zero"))
    assert old["discrepancies"] < f["discrepancies"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
