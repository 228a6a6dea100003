"""Many deliverables, each under the per-file cap, share one total budget in the judge's request, so an agent
cannot make the request too large for the judge (an error a trainer would drop) by writing many files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jobenv.extract import extract_output
from jobenv.judge import LLMJudge
from tests.judge.conftest import make_task, n_criteria, prompt_text, verdict
from tests.support import hostile_files as H
from tests.support.openai_server import OpenAIServer, Reply

CONTEXT_CHARS = 1_000_000  # the stand-in judge refuses larger prompts, as a real model's context limit does


def _judge(req: dict[str, Any]) -> Reply | str:
    if len(prompt_text(req)) > CONTEXT_CHARS:
        return Reply(status=400)
    return json.dumps(verdict(n_criteria(req)))


def test_forty_large_files_make_a_plain_graded_report_not_an_error(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    H.many_text_files(out, count=40, size=190_000)
    (out / "a_memo.md").write_text("The honest memo: total 600.")
    task = make_task(tmp_path, [{"rubric": "Memo", "weight": 1, "criterion": ["Says the total"]}])
    with OpenAIServer(_judge) as srv:
        rep = LLMJudge(base_url=srv.base_url, api_key="k", model="m", cache_dir=False).grade_sync(task, out)
        text = prompt_text(srv.requests[-1])
    assert rep.status == "ok" and rep.normalized_score == 1.0
    assert len(text) < 600_000 + 10_000  # the total budget, and the small prompt around the deliverables
    assert "over the total budget of 600,000" in text and "40 file(s) cut" in text
    assert "The honest memo: total 600." in text  # small files are shown whole


def test_total_budget_keeps_small_files_whole_and_shares_the_rest() -> None:
    import tempfile

    out = Path(tempfile.mkdtemp()) / "out"
    out.mkdir()
    (out / "small.md").write_text("s" * 1000)
    (out / "big1.md").write_text("a" * 190_000)
    (out / "big2.md").write_text("b" * 190_000)
    under = extract_output(out, total_cap=500_000)
    assert "total budget" not in under.text and not any(f.truncated for f in under.files)
    over = extract_output(out, total_cap=101_000)
    by = over.file_map()
    assert by["small.md"].text == "s" * 1000 and not by["small.md"].truncated
    assert by["big1.md"].text.startswith("a" * 36_000) and "characters left out" in by["big1.md"].text
    assert by["big2.md"].text.startswith("b" * 36_000) and by["big2.md"].text.endswith("b" * 12_000)
    assert len(over.text) < 101_000 + 1_000
    assert over.text.startswith("[jobenv: the deliverables hold 381,000 characters of text, over the total budget")


def test_thousands_of_files_are_left_out_with_one_note() -> None:
    import tempfile

    from jobenv.extract import TOTAL_CAP

    out = Path(tempfile.mkdtemp()) / "out"
    out.mkdir()
    for i in range(1500):
        (out / f"f{i:04d}.txt").write_text("x" * 2000)
    ex = extract_output(out)
    assert len(ex.text) < TOTAL_CAP + 10_000
    assert "480 file(s) cut" in ex.text and "1020 file(s) left out" in ex.text  # 600,000 // (1,000 + 250) shown
    assert "[1,020 more file(s) not shown" in ex.text
    assert ex.file_map()["f1499.txt"].truncated


def test_the_total_is_configurable_and_reported(tmp_path: Path) -> None:
    """Four near-cap files with a fact at each end: the default total cuts them and the report names them;
    ``total_chars=None`` sends every character, as the official judge does, and names none."""
    from jobenv.judge import make_judge

    out = tmp_path / "out"
    out.mkdir()
    for i in range(4):
        before, after = "north,1\n" * 16_000, "south,2\n" * 7_700  # the middle fact at two thirds of the file
        (out / f"ledger_{i}.csv").write_text(f"first,FACT-HEAD-{i}\nregion,amount\n{before}middle,FACT-MID-{i}\n"
                                             f"{after}last,FACT-TAIL-{i}\n")
    task = make_task(tmp_path, [{"rubric": "Ledgers", "weight": 1, "criterion": ["Holds the facts"]}])
    with OpenAIServer(_judge) as srv:
        opts = {"base_url": srv.base_url, "api_key": "k", "model": "m", "cache_dir": False}
        cut = make_judge("llm", **opts).grade_sync(task, out)
        cut_text = prompt_text(srv.requests[-1])
        whole = make_judge("llm", total_chars=None, **opts).grade_sync(task, out)
        whole_text = prompt_text(srv.requests[-1])
    assert cut.status == "ok" and sorted(cut.budget_cut_files) == [f"ledger_{i}.csv" for i in range(4)]
    assert all(f"FACT-HEAD-{i}" in cut_text and f"FACT-TAIL-{i}" in cut_text for i in range(4))  # ends kept
    assert sum(f"FACT-MID-{i}" in cut_text for i in range(4)) < 4
    assert whole.status == "ok" and whole.budget_cut_files == []
    assert all(f"FACT-{at}-{i}" in whole_text for at in ("HEAD", "MID", "TAIL") for i in range(4))
    assert "total budget" not in whole_text
