"""``jobenv judge`` on the command line (a real subprocess and the in-process entry point)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jobenv.cli import main
from tests.judge.conftest import n_criteria, verdict
from tests.support.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parents[2]

RUBRICS = {"rubrics": [
    {"rubric": "States the total", "weight": 10, "criterion": ["Total is 41,250"],
     "jobenv_checks": [{"kind": "number", "file": "memo.md", "value": 41250}]},
    {"rubric": "Signs off", "weight": 5, "criterion": ["Signed by Ana"],
     "jobenv_checks": [{"kind": "text", "file": "memo.md", "pattern": "signed: ana"}]},
]}


@pytest.fixture
def case(tmp_path: Path) -> tuple[Path, Path]:
    rub = tmp_path / "RUBRICS.json"
    rub.write_text(json.dumps(RUBRICS))
    out = tmp_path / "output"
    out.mkdir()
    (out / "memo.md").write_text("Total: $41,250\n")
    return rub, out


def test_subprocess_checks_report_and_official(case, tmp_path) -> None:
    rub, out = case
    report, official, card = tmp_path / "r.json", tmp_path / "o.json", tmp_path / "s.json"
    proc = subprocess.run(
        [sys.executable, "-m", "jobenv.cli", "judge", "--rubrics", str(rub), "--output-dir", str(out),
         "--report", str(report), "--details", str(official), "--scorecard", str(card), "--judge", "checks",
         "--evaluated-model", "model-x"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(report.read_text())
    assert data["status"] == "ok" and data["normalized_score"] == 0.6667 and data["total_score"] == 10.0
    assert data["schema_version"] == 1 and data["judge_kind"] == "checks"
    off = json.loads(official.read_text())
    assert [r["result"]["passed"] for r in off["rubrics"]] == [True, False]
    assert off["evaluated_model"] == "model-x" and off["pass_rate"] == "50%" and off["total_score"] == 10
    sc = json.loads(card.read_text())
    assert sc["normalized_score"] == 0.6667 and sc["rubric_0_passed"] == 1 and sc["rubric_1_score"] == 0
    assert "score 0.6667 (strict; official 0.6667)" in proc.stderr


def test_auto_without_llm_falls_to_checks_and_error_exit(case, tmp_path, capsys) -> None:
    rub, out = case
    assert main(["judge", "--rubrics", str(rub), "--output-dir", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["normalized_score"] == 0.6667
    free = tmp_path / "FREE.json"
    free.write_text(json.dumps({"rubrics": [{"rubric": "Prose", "weight": 1, "criterion": ["Clear"]}]}))
    assert main(["judge", "--rubrics", str(free), "--output-dir", str(out), "--report", str(tmp_path / "x.json")]) == 1
    err = capsys.readouterr().err
    assert "JOBENV_JUDGE_MODEL" in err and "status error" in err


def test_llm_judge_via_cli(case, tmp_path, monkeypatch, capsys) -> None:
    rub, out = case
    with OpenAIServer(lambda req: json.dumps(verdict(n_criteria(req)))) as srv:
        monkeypatch.setenv("JOBENV_JUDGE_BASE_URL", srv.base_url)
        monkeypatch.setenv("JOBENV_JUDGE_API_KEY", "k")
        monkeypatch.setenv("JOBENV_JUDGE_MODEL", "cli-model")
        assert main(["judge", "--rubrics", str(rub), "--output-dir", str(out), "--judge", "llm"]) == 0
        assert len(srv.requests) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["normalized_score"] == 1.0 and data["judge_model"] == "cli-model"


def test_total_chars_flag_cuts_and_reports(case, tmp_path, monkeypatch, capsys) -> None:
    """--total-chars sets the LLM request's total; the report names the files it cut; 0 sends everything."""
    rub, out = case
    (out / "appendix.md").write_text("appendix line\n" * 3_000)
    with OpenAIServer(lambda req: json.dumps(verdict(n_criteria(req)))) as srv:
        monkeypatch.setenv("JOBENV_JUDGE_BASE_URL", srv.base_url)
        monkeypatch.setenv("JOBENV_JUDGE_API_KEY", "k")
        monkeypatch.setenv("JOBENV_JUDGE_MODEL", "cli-model")
        base = ["judge", "--rubrics", str(rub), "--output-dir", str(out), "--judge", "llm"]
        assert main([*base, "--total-chars", "5000"]) == 0
        assert json.loads(capsys.readouterr().out)["budget_cut_files"] == ["appendix.md"]
        assert main([*base, "--total-chars", "0"]) == 0
        assert json.loads(capsys.readouterr().out)["budget_cut_files"] == []
    with pytest.raises(SystemExit) as exc:
        main([*base, "--total-chars", "-1"])
    assert exc.value.code == 2 and "--total-chars: must be 0 or more" in capsys.readouterr().err


def test_extract_only_and_bad_rubrics(case, tmp_path, capsys) -> None:
    rub, out = case
    assert main(["judge", "--rubrics", str(rub), "--output-dir", str(out), "--extract-only"]) == 0
    assert capsys.readouterr().out == "===== FILE: memo.md =====\nTotal: $41,250\n"
    bad = tmp_path / "BAD.json"
    bad.write_text(json.dumps({"rubrics": [{"rubric": "x", "weight": -1, "criterion": ["c"]}]}))
    assert main(["judge", "--rubrics", str(bad), "--output-dir", str(out)]) == 2
    assert "weight" in capsys.readouterr().err
    assert main(["judge", "--rubrics", str(rub), "--output-dir", str(tmp_path / "typo")]) == 2
    assert "typo: not a directory" in capsys.readouterr().err


def test_task_id_from_registry(sample_tasks, tmp_path, capsys) -> None:
    task = sample_tasks[0]
    out = tmp_path / "out"
    out.mkdir()
    hub_style = task.id.replace("/", "__")
    assert main(["judge", "--task", f"jobenv/sample:{hub_style}", "--output-dir", str(out), "--judge", "checks"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "ok" and data["empty_output"] and data["normalized_score"] == 0.0
    assert data["max_score"] == task.max_score and data["task_id"] == task.uid
    assert main(["judge", "--task", "jobenv/sample:no_such/task9", "--output-dir", str(out)]) == 2


def test_scoring_flag_picks_the_reward_and_bad_values_exit_2(case, tmp_path, monkeypatch, capsys) -> None:
    rub, out = case

    def overclaims(req):  # every criterion failed, yet the judge says the rubric passed
        n = n_criteria(req)
        return json.dumps(verdict(n, [False] * n, rubric_passed=True))

    with OpenAIServer(overclaims) as srv:
        monkeypatch.setenv("JOBENV_JUDGE_BASE_URL", srv.base_url)
        monkeypatch.setenv("JOBENV_JUDGE_API_KEY", "k")
        monkeypatch.setenv("JOBENV_JUDGE_MODEL", "cli-model")
        card = tmp_path / "card.json"
        args = ["judge", "--rubrics", str(rub), "--output-dir", str(out), "--judge", "llm",
                "--report", str(tmp_path / "r.json"), "--scorecard", str(card), "--max-completion-tokens", "512"]
        assert main([*args, "--scoring", "official"]) == 0
        assert "score 1.0000 (official; strict 0.0000)" in capsys.readouterr().err
        assert json.loads(card.read_text())["normalized_score"] == 1.0
        assert main(args) == 0
        assert "score 0.0000 (strict; official 1.0000)" in capsys.readouterr().err
        assert json.loads(card.read_text())["normalized_score"] == 0.0
        assert {r["max_completion_tokens"] for r in srv.requests} == {512}
    with pytest.raises(SystemExit) as exc:
        main(["judge", "--rubrics", str(rub), "--output-dir", str(out), "--scoring", "lenient"])
    assert exc.value.code == 2 and "invalid choice" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["judge", "--rubrics", str(rub), "--output-dir", str(out), "--max-completion-tokens", "-5"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--max-completion-tokens: must be 0 or more" in err and "Traceback" not in err
