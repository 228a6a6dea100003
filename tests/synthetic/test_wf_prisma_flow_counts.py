"""PRISMA flow counts: DOI and title normalisation, the duplicate rule, Cohen's kappa and the reason order on
hand-computed cases, the solver and the independent recheck on four exports and two logs worked by hand, each
shortcut moving the figure it should, and the reward a drawn task pays for a correct answer written by hand in
another layout, a wrong, a hedged and a blind one, for counting reports as studies, and for the registered (archived)
protocol's screening rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import prisma as solver
from jobenv.synthetic.workflows.prisma import PRISMA_FLOW_COUNTS as WF
from jobenv.synthetic.workflows.prisma import recheck
from jobenv.synthetic.writers import write_csv, write_text, write_xlsx

from .conftest import score_output, write_memo_lines

REASONS = ["not primary research", "ineligible population", "ineligible exposure", "no eligible outcome",
           "ineligible design"]


def test_doi_and_title_normalisation():
    assert solver.norm_doi(" https://doi.org/10.1177/ABC.2021.1 ") == "10.1177/abc.2021.1"
    assert solver.norm_doi("doi:10.1016/J.X") == solver.norm_doi("http://dx.doi.org/10.1016/j.x") == "10.1016/j.x"
    assert solver.norm_doi("https://doi.org/10.1/A", raw=True) == "https://doi.org/10.1/A"
    assert solver.norm_title("Telework in Zürich: a PANEL study.") == solver.norm_title("telework in zurich - a panel study")
    assert solver.norm_title("Does X affect Y?  Evidence") == "does x affect y evidence"


def test_the_duplicate_rule_by_hand():
    recs = [("S", "Remote work", 2021, "10.1/a"), ("W", "REMOTE WORK.", 2021, "10.1/A"),  # same DOI: duplicate
            ("S", "Telework", 2020, ""), ("W", "Telework", 2020, "10.1/t"),  # one lacks a DOI, same title: duplicate
            ("S", "Hybrid work", 2022, "10.1/h"), ("X", "Hybrid work", 2022, "10.31235/p"),  # two DOIs: two reports
            ("X", "Telework", 2021, "")]  # another year: not a duplicate
    kept, dups = solver.deduplicate(recs)
    assert dups == 2 and [r[3] for r in kept] == ["10.1/a", "", "10.1/h", "10.31235/p", ""]
    assert solver.deduplicate(recs, ("title_only",))[1] == 3  # the preprint merged into its article
    assert solver.deduplicate(recs, ("raw_doi",))[1] == 1  # 10.1/A no longer matches 10.1/a


def test_cohen_kappa_and_the_reason_order_by_hand():
    # a = 20 both include, b = c = 5, d = 70: po = 0.90, pe = 0.25 x 0.25 + 0.75 x 0.75 = 0.625, kappa = 0.7333
    pairs = [("i", "i")] * 20 + [("i", "e")] * 5 + [("e", "i")] * 5 + [("e", "e")] * 70
    assert solver.cohen_kappa(pairs) == pytest.approx(0.275 / 0.375)
    assert solver.reason_of("ineligible design; Ineligible population", REASONS) == "ineligible population"
    assert solver.reason_of("ineligible design; ineligible population", REASONS, ("reason_order",)) == "ineligible design"


def _tiny(folder: Path) -> dict:
    """Years 2010-2025. Scopus: #1 remote work/burnout 2021 10.1/abc, #2 telework/loneliness 2020 (no DOI), #3 hybrid
    work 2022 10.1/def, #4 Zürich 2019 10.1/ghi. WoS: #5 #1 in capitals with 10.1/ABC (DOI dup), #6 #2 with a
    period and 10.1/jkl (title dup: #2 has no DOI), #7 #4 unaccented, 2020, 10.1/ghi (DOI dup, year off).
    ProQuest: #8 #1 with 'doi:' (DOI dup), #9 a 2008 record (outside the years), #10 #2 without DOI (title dup).
    SocArXiv: #11 #3's preprint, same title and year, its own DOI (not a dup), #12 a preprint.
    Identified 4 + 3 + 3 + 2 = 12; duplicates 5; outside 1; screened 6 (R1 #1, R2 #2, R3 #3, R4 #4, R5 #11, R6 #12).
    Title/abstract: R1 calibration both include; R2 calibration conflict, PL excludes; R3 independent both include;
    R4 independent both exclude; R5 independent conflict, PL includes; R6 single, AK includes. Excluded 2, sought 4.
    Kappa on R3-R5: po 2/3, pe 2/3 x 1/3 + 1/3 x 2/3 = 4/9, kappa 0.4 (below 0.6). With calibration: 0.286.
    Full text: R6 not retrieved; R1 excluded 'ineligible design; ineligible population' (counts as population);
    R3 and R5 included, one study S01. Assessed 3, excluded 1, reports 2, studies 1; the draft's 2 does not stand."""
    write_csv(folder / "scopus.csv", ["Authors", "Title", "Year", "DOI"], [
        ["A", "Remote work and burnout: a panel study", 2021, "10.1/abc"],
        ["B", "Telework and loneliness among nurses", 2020, ""],
        ["C", "Hybrid work and job satisfaction", 2022, "10.1/def"],
        ["D", "Flexible work in Zürich", 2019, "10.1/ghi"]])
    write_text(folder / "wos.txt", "\n".join("\t".join(r) for r in [
        ["AU", "TI", "PY", "DI"], ["A", "REMOTE WORK AND BURNOUT: A PANEL STUDY", "2021", "10.1/ABC"],
        ["B", "Telework and loneliness among nurses.", "2020", "10.1/jkl"],
        ["D", "Flexible work in Zurich", "2020", "10.1/ghi"]]) + "\n")
    write_xlsx(folder / "socabs.xlsx", [("Results", ["Title", "year", "digitalObjectIdentifier"], [
        ["Remote work and burnout - a panel study", 2021, "doi:10.1/abc"], ["Commuting and wellbeing", 2008, ""],
        ["Telework and loneliness among nurses", 2020, ""]])])
    write_csv(folder / "socarxiv.csv", ["title", "date_published", "doi"], [
        ["Hybrid work and job satisfaction", "2022-02-03", "10.31235/osf.io/x1"],
        ["Remote work and sleep", "2023-05-06", "10.31235/osf.io/x2"]])
    votes = [["R1", "AK", "include", "calibration"], ["R1", "JM", "include", "calibration"],
             ["R2", "AK", "include", "calibration"], ["R2", "JM", "exclude", "calibration"],
             ["R2", "PL", "exclude", "resolution"], ["R3", "AK", "include", "independent"],
             ["R3", "JM", "include", "independent"], ["R4", "AK", "exclude", "independent"],
             ["R4", "JM", "exclude", "independent"], ["R5", "AK", "include", "independent"],
             ["R5", "JM", "exclude", "independent"], ["R5", "PL", "include", "resolution"],
             ["R6", "AK", "include", "single"]]
    write_csv(folder / "ta.csv", ["record_id", "reviewer", "decision", "round", "decided_at"],
              [[*v, "2025-04-01 10:00"] for v in votes])
    write_csv(folder / "ft.csv", ["record_id", "title", "retrieved", "decision", "exclusion_reasons", "study_id",
                                  "notes"], [
        ["R1", "t1", "yes", "exclude", "ineligible design; ineligible population", "", ""],
        ["R3", "t3", "yes", "include", "", "S01", ""], ["R5", "t5", "yes", "include", "", "S01", "preprint of R3"],
        ["R6", "t6", "no", "", "", "", "not obtained"]])
    src = [("Scopus", "scopus.csv", "Title", "Year", "DOI"), ("Web of Science", "wos.txt", "TI", "PY", "DI"),
           ("Sociological Abstracts", "socabs.xlsx", "Title", "year", "digitalObjectIdentifier"),
           ("SocArXiv", "socarxiv.csv", "title", "date_published", "doi")]
    return {"sources": [{"name": n, "file": f, "title": t, "year": y, "doi": d} for n, f, t, y, d in src],
            "years": [2010, 2025], "reviewers": {"a": "AK", "b": "JM", "third": "PL"}, "reasons": REASONS,
            "kappa_threshold": 0.6, "claim": 2, "files": {"ta_log": "ta.csv", "ft_log": "ft.csv"}}


_KEYS = ("identified", "identified_total", "duplicates", "outside", "screened", "excluded_ta", "sought",
         "not_retrieved", "assessed", "excluded_ft", "reasons", "reports", "studies", "double_n", "kappa", "decision",
         "premise")


def test_the_solver_and_the_recheck_on_exports_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    f = solver.analyse(str(tmp_path), P)
    assert (f["identified"], f["identified_total"], f["duplicates"], f["outside"], f["screened"]) == (
        [4, 3, 3, 2], 12, 5, 1, 6)
    assert (f["excluded_ta"], f["sought"], f["not_retrieved"], f["assessed"], f["excluded_ft"]) == (2, 4, 1, 3, 1)
    assert (f["reasons"], f["reports"], f["studies"], f["double_n"], f["kappa"]) == ([0, 1, 0, 0, 0], 2, 1, 3, 0.4)
    assert (f["decision"], f["premise"]) == (False, False)
    g = recheck(tmp_path, P)
    for k in _KEYS:
        assert g[k] == f[k], k
    P["claim"] = 1
    assert solver.analyse(str(tmp_path), P)["premise"] and recheck(tmp_path, P)["premise"]


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    assert (n["raw_doi"]["duplicates"], n["raw_doi"]["screened"]) == (3, 8)  # #5 and #8 kept as new records
    assert (n["title_only"]["duplicates"], n["title_only"]["screened"]) == (6, 5)  # the preprint merged
    assert (n["date_limit"]["outside"], n["date_limit"]["screened"]) == (0, 7)
    assert (n["old_protocol"]["excluded_ta"], n["old_protocol"]["sought"], n["old_protocol"]["assessed"]) == (1, 5, 4)
    assert (n["calibration"]["double_n"], n["calibration"]["kappa"]) == (5, 0.286)  # po 3/5, pe 0.44
    assert (n["reports_as_studies"]["studies"], n["reports_as_studies"]["premise"]) == (2, True)
    assert n["reason_order"]["reasons"] == [0, 0, 0, 0, 1]


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, delta: int = 0, extra: list[str] | None = None, blind: bool = False) -> None:
    """An assistant's own answer: the counts as '**label** = n records' lines in another order (agreement first),
    the kappa at three decimals, Yes/No; the methods paragraph in its own words, as a Word document."""
    import docx

    out.mkdir(parents=True, exist_ok=True)
    L, D = P["labels"], P["deliverables"]
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["kappa"], f"{f['kappa']:.3f}"), (L["double_n"], f"{f['double_n']} records"),
             (L["decision"], yes(f["decision"])), (L["premise"], yes(f["premise"]))]
    pairs += [(L["identified"].format(source=s["name"]), f"{n:,}") for s, n in zip(P["sources"], f["identified"])]
    pairs += [(L[k], f"{f[k] + (delta if k == 'duplicates' else 0):,} records") for k in (
        "identified_total", "duplicates", "outside", "screened", "excluded_ta")]
    pairs += [(L[k], f"{f[k]} reports") for k in ("sought", "not_retrieved", "assessed", "excluded_ft", "reports")]
    pairs += [(L["reason"].format(reason=o), str(c)) for o, c in zip(P["reasons"], f["reasons"])]
    pairs += [(L["studies"], f"{f['studies']} studies")]
    if blind:
        pairs = [(k, "No" if v in ("Yes", "No") else "0") for k, v in pairs]
    write_memo_lines(out / D["memo"], ["# Flow diagram", "", *[f"**{k}** = {v}" for k, v in pairs], *(extra or []),
                                       "", "Counts follow the amended protocol."])
    if blind:
        return
    doc = docx.Document()
    doc.add_paragraph(f"After de-duplication and the date limits, {f['screened']:,} titles and abstracts were screened. "
                      f"Two reviewers screened a random sample independently (Cohen's kappa {f['kappa']:.3f}), and a "
                      f"third settled disagreements. In total {f['studies']} studies met the criteria.")
    doc.save(str(out / D["methods"]))


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, delta=4)
    assert score_output(task, tmp_path / "wrong") <= 0.9
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"{L['studies']}: {f['reports']}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_counting_reports_as_studies_loses(task, tmp_path):
    f, P = _load(task)
    naive = solver.analyse(str(task / "task_folder"), P, ("reports_as_studies",))
    assert naive["studies"] == f["reports"] > f["studies"] and naive["premise"] != f["premise"]
    solver.write_outputs(str(tmp_path / "naive"), P, naive)
    assert score_output(task, tmp_path / "naive") <= 0.85


def test_the_archived_registered_protocol_loses(task, tmp_path):
    f, P = _load(task)
    # the registered protocol: disagreements carried forward to full text, kappa on every double-screened record
    old = solver.analyse(str(task / "task_folder"), P, ("old_protocol", "calibration"))
    assert old["sought"] > f["sought"] and old["double_n"] > f["double_n"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
