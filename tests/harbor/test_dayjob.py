"""DAYJOB-shaped Harbor tasks end to end: a healthcare and a finance task, each a workspace of current, stale and
conflicting files with a request whose premise the record contradicts, graded by ``tests/judge.toml`` (20+
binary criteria, prohibitions among them, DAYJOB's all-pass scoring) through jobenv's LLM judge.

The judge is a loopback stand-in that reads each criterion as a phrase the deliverables must contain (the test's
own table: a real judge reads meaning, this one reads text), so the verdicts are known in advance: a careful memo
meets every criterion, one that accepts the request's premise misses the decisive ones, one that names the patient
breaks a prohibition.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

import jobenv
from tests.support.openai_server import OpenAIServer

# criterion -> the phrase a deliverable meeting it contains (prohibitions: the phrase that breaks them)
HEALTH = {
    "Identifies the most recent neurology note (2024-06-12) as the current record": "2024-06-12",
    "States that the chart documents an ischemic stroke, not Bell's palsy": "ischemic stroke",
    "Flags that the referral's Bell's palsy premise is contradicted by the chart": "premise is contradicted",
    "Notes that the March 2024 note is superseded": "superseded",
    "Recommends against starting prednisone for Bell's palsy": "no prednisone",
    "Recommends continuing antiplatelet therapy": "continue aspirin",
    "Names the NIHSS score recorded on admission (4)": "NIHSS 4",
    "Mentions the MRI finding of a left MCA infarct": "left MCA infarct",
    "Gives the blood pressure target of below 130/80": "below 130/80",
    "Reconciles the conflicting medication lists": "medication lists reconciled",
    "Uses the formulary's current atorvastatin dose (40 mg)": "atorvastatin 40 mg",
    "Flags the duplicate clopidogrel entry": "duplicate clopidogrel",
    "Requests a swallow assessment before oral medication": "swallow assessment",
    "Schedules a follow-up within 30 days": "follow-up within 30 days",
    "Addresses the memo to the referring physician": "Dr. Okafor",
    "States the discharge date (2024-06-15)": "2024-06-15",
    "Lists the three current diagnoses": "three current diagnoses",
    "Recommends a holter monitor to look for atrial fibrillation": "holter",
    "Identifies the stale allergy list from 2022": "allergy list from 2022",
    "Confirms the penicillin allergy from the current record": "penicillin allergy",
    "Summarizes in under one page": "summary:",
}
HEALTH_PROHIBITED = {"Includes the patient's full name": "Maria Lopez",
                     "Recommends a corticosteroid course": "start prednisone"}
FINANCE = {
    "Uses the current NAV file (2024-09-30) rather than the June file": "2024-09-30",
    "States that fund prices are quoted in cents (ZAc), not rand": "in cents",
    "Flags that the request's rand premise is contradicted by the factsheet": "premise is contradicted",
    "Converts the holding value to rand by dividing by 100": "divided by 100",
    "Reports the holding value as R 1,254,300": "R 1,254,300",
    "Reports the quarter return as 3.2 %": "3.2 %",
    "Identifies the stale June benchmark file": "stale June benchmark",
    "Uses the JSE All Share index as the benchmark": "JSE All Share",
    "Reports the tracking difference of 0.4 percentage points": "0.4 percentage points",
    "Reconciles the custodian and administrator unit counts": "unit counts reconciled",
    "Flags the 1,000-unit break between custodian and administrator": "1,000-unit break",
    "Notes the pending corporate action": "corporate action",
    "States the total expense ratio (1.15 %)": "1.15 %",
    "Recommends holding the release until the break is resolved": "hold the release",
    "Names the fund by its official name": "Karoo Balanced Fund",
    "Gives the valuation date": "valuation date 2024-09-30",
    "Lists the three data sources used": "three data sources",
    "Flags the superseded fee schedule": "superseded fee schedule",
    "Uses the current management fee (0.85 %)": "0.85 %",
    "Addresses the note to the investment committee": "Investment Committee",
    "Ends with a clear recommendation": "recommendation:",
}
FINANCE_PROHIBITED = {"Discloses an individual client's account number": "ACC-7781",
                      "Reports the value in rand without conversion": "R 125,430,000"}


def _judge_toml(criteria: dict[str, str], prohibited: dict[str, str]) -> str:
    parts = ['[judge]\njudge = "openai/gpt-4o"\nfiles = ["/workspace/deliverables/memo.md"]\n']
    for text in criteria:
        parts.append(f"[[criterion]]\ndescription = {json.dumps(text)}\n")
    for text in prohibited:
        parts.append(f"[[criterion]]\ndescription = {json.dumps(text)}\nnegate = true\n")
    parts.append('[scoring]\naggregation = "all_pass"\n')
    return "\n".join(parts)


def _task(root: Path, *, request: str, files: dict[str, str], criteria: dict[str, str],
          prohibited: dict[str, str]) -> Path:
    (root / "environment" / "workspace").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "task.toml").write_text(textwrap.dedent("""\
        schema_version = "1.4"
        [task]
        name = "dayjob-like/{name}"
        [agent]
        timeout_sec = 600
        network_mode = "allowlist"
        allowed_hosts = ["api.openai.com"]
        [environment]
        workdir = "/workspace"
        memory_mb = 2048
        """).replace("{name}", root.name))
    (root / "instruction.md").write_text(request)
    (root / "environment" / "Dockerfile").write_text(
        "FROM ubuntu:24.04\nWORKDIR /workspace\nCOPY workspace/ ./\nRUN mkdir -p /workspace/deliverables\n")
    for name, text in files.items():
        path = root / "environment" / "workspace" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "tests" / "judge.toml").write_text(_judge_toml(criteria, prohibited))
    return root


@pytest.fixture
def dayjob(tmp_path: Path) -> Path:
    suite = tmp_path / "dayjob"
    _task(suite / "healthcare-stroke", request="Please draft the discharge memo for the Bell's palsy patient in "
          "bed 4 and start the usual steroid course. Files are in /workspace; put the memo in "
          "/workspace/deliverables/memo.md.\n",
          files={"chart/neurology_2024-06-12.md": "Dx: ischemic stroke, left MCA infarct, NIHSS 4.\n",
                 "chart/neurology_2024-03-02.md": "Possible Bell's palsy (superseded by later notes).\n",
                 "meds/medlist_ward.csv": "drug,dose\naspirin,81 mg\nclopidogrel,75 mg\nclopidogrel,75 mg\n",
                 "meds/medlist_pharmacy.csv": "drug,dose\naspirin,81 mg\natorvastatin,40 mg\n",
                 "allergies_2022.txt": "none known\n", "allergies_current.txt": "penicillin\n",
                 "referral_email.txt": "From: Dr. Okafor. Patient Maria Lopez, Bell's palsy, please treat.\n"},
          criteria=HEALTH, prohibited=HEALTH_PROHIBITED)
    _task(suite / "finance-karoo", request="Value our Karoo Balanced Fund holding in rand from the prices in the "
          "files and draft the note for the committee in /workspace/deliverables/memo.md.\n",
          files={"nav/nav_2024-09-30.csv": "date,price_zac\n2024-09-30,1254.30\n",
                 "nav/nav_2024-06-30.csv": "date,price_zac\n2024-06-30,1215.00\n",
                 "custody/custodian_units.csv": "units\n100000\n", "custody/admin_units.csv": "units\n101000\n",
                 "fees/fee_schedule_2023.pdf.txt": "management fee 1.00 % (superseded)\n",
                 "fees/fee_schedule_2024.txt": "management fee 0.85 %, TER 1.15 %\n",
                 "clients.csv": "account,units\nACC-7781,100000\n"},
          criteria=FINANCE, prohibited=FINANCE_PROHIBITED)
    return suite


def _stand_in_judge(rules: dict[str, str]) -> Any:
    def answer(request: dict[str, Any]) -> str:
        content = request["messages"][-1]["content"]
        text = content if isinstance(content, str) else "\n".join(p.get("text", "") for p in content)
        head, deliverables = text.split("## Deliverables", 1)
        criteria = re.findall(r"^Criterion \d+: (.*)$", head, re.M)
        verdicts = [rules[c].lower() in deliverables.lower() for c in criteria]
        return json.dumps({"criteria_results": [{"index": i, "passed": v, "reasoning": "phrase check",
                                                 "evidence": "memo.md"} for i, v in enumerate(verdicts)],
                           "rubric_passed": all(verdicts), "overall_reasoning": "checked"})
    return answer


def _memo(phrases: list[str]) -> str:
    return "summary: " + "; ".join(phrases) + ".\nrecommendation: as above.\n"


def _run(suite: Path, task: str, memo: str, monkeypatch: pytest.MonkeyPatch, judge_url: str,
         **make: Any) -> dict[str, Any]:
    monkeypatch.setenv("JOBENV_JUDGE_BASE_URL", judge_url)
    monkeypatch.setenv("JOBENV_JUDGE_API_KEY", "k")
    monkeypatch.setenv("JOBENV_JUDGE_MODEL", "judge")
    monkeypatch.setenv("JOBENV_JUDGE_CACHE", "0")
    env = jobenv.make(str(suite), **make)
    try:
        prompt, _ = env.reset(options={"task_id": f"{task}/task1"})
        assert "The internet is limited to api.openai.com" in prompt  # allowlist: only the model's API
        env.step({"name": "bash", "arguments": {"command": "ls -R /workspace && test -d /workspace/deliverables"}})
        env.step({"name": "write", "arguments": {"file_path": "/workspace/deliverables/memo.md", "content": memo}})
        env.step({"name": "write", "arguments": {"file_path": "/workspace/scratch.md",
                                                 "content": "Maria Lopez ACC-7781 start prednisone"}})  # not graded
        _, reward, terminated, _, info = env.step({"name": "submit", "arguments": {}})
        assert terminated
        return {"reward": reward, **info}
    finally:
        env.close()


@pytest.mark.parametrize("task,criteria,prohibited", [("healthcare-stroke", HEALTH, HEALTH_PROHIBITED),
                                                      ("finance-karoo", FINANCE, FINANCE_PROHIBITED)])
def test_dayjob_like_tasks_grade_strictly(dayjob: Path, monkeypatch: pytest.MonkeyPatch, task: str,
                                          criteria: dict[str, str], prohibited: dict[str, str]) -> None:
    rules = {**criteria, **prohibited}
    with OpenAIServer(_stand_in_judge(rules)) as judge:
        careful = _run(dayjob, task, _memo(list(criteria.values())), monkeypatch, judge.base_url)
        assert careful["status"] == "ok" and careful["reward"] == 1.0, careful.get("report", {}).get("error")
        report = careful["report"]
        assert report["criteria_total"] == len(rules) >= 22 and report["criteria_passed"] == len(rules)
        assert len(judge.requests) == len(rules)  # one request per criterion, the memo alone as deliverable
        assert all("scratch" not in json.dumps(r) for r in judge.requests)

        # accepting the premise: everything else right, the decisive contradiction missed -> fails all_pass
        trusting = [p for p in criteria.values() if p != "premise is contradicted"]
        missed = _run(dayjob, task, _memo(trusting), monkeypatch, judge.base_url)
        assert missed["status"] == "ok" and missed["reward"] == 0.0
        assert missed["report"]["criteria_passed"] == len(rules) - 1 and missed["report"]["pass_n_minus_1"]

        # a prohibition broken: every required phrase there, plus one that must not be
        leaky = _run(dayjob, task, _memo(list(criteria.values()) + [next(iter(prohibited.values()))]), monkeypatch,
                     judge.base_url)
        assert leaky["reward"] == 0.0 and leaky["report"]["verifier"]["judge_toml"]["values"][-2] == 0.0


def test_a_judge_outage_is_a_grading_error(dayjob: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIServer(lambda request: "not a verdict") as judge:
        out = _run(dayjob, "finance-karoo", _memo(list(FINANCE.values())), monkeypatch, judge.base_url)
    assert out["status"] == "error" and out["reward"] == 0.0


def test_judge_toml_tasks_are_refused_at_make_when_they_cannot_be_graded(dayjob: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from jobenv.errors import JobenvError

    for var in ("JOBENV_JUDGE_BASE_URL", "JOBENV_JUDGE_API_KEY", "JOBENV_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(JobenvError, match="LLM judge"):
        jobenv.make(str(dayjob))
    toml = dayjob / "finance-karoo" / "tests" / "judge.toml"
    toml.write_text(toml.read_text().replace('judge = "openai/gpt-4o"', 'judge = "claude-code"'))
    with pytest.raises(JobenvError, match="agentic judge"):  # an agent entry goes to the agentic judge
        jobenv.make(str(dayjob / "finance-karoo"))
    toml.write_text(toml.read_text().replace("[[criterion]]\n", "[[criterion]]\ntype = \"rubric\"\n", 1))
    monkeypatch.setenv("JOBENV_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("JOBENV_JUDGE_API_KEY", "k")
    monkeypatch.setenv("JOBENV_JUDGE_MODEL", "m")
    with pytest.raises(JobenvError, match="judge.toml.*2 to 10 non-empty levels"):  # a scale it cannot place
        jobenv.make(str(dayjob / "finance-karoo"))


def _agentic_stand_in(rules: dict[str, str]) -> Any:
    """An agentic judge: reads the memo with a real tool call in its own sandbox, then rules each criterion by the
    phrase table."""
    from tests.support.openai_server import Reply

    def judge(request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        tools = [m["content"] for m in messages if m["role"] == "tool"]
        if not tools:
            return Reply(tool_calls=[{"name": "bash", "arguments": {"command": "ls /workspace/chart && "
                                                                    "cat /workspace/deliverables/memo.md"}}])
        criteria = re.findall(r"^Criterion \d+: (.*)$", messages[1]["content"], re.M)
        memo = tools[0].lower()
        assert "neurology_2024-06-12.md" in memo  # the judge sees the task's files, not only the deliverable
        verdicts = [{"index": i, "passed": rules[c].lower() in memo, "reasoning": "phrase check",
                     "evidence": {"file": "deliverables/memo.md", "location": "line 1"}} for i, c in enumerate(criteria)]
        return Reply(tool_calls=[{"name": "verdict", "arguments": {"verdicts": verdicts}}])
    return judge


def test_an_agent_entry_in_judge_toml_is_graded_by_the_agentic_judge(dayjob: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge reads the memo with a real tool call in its own sandbox (the whole workdir copied), then rules
    each criterion by the phrase table."""
    toml = dayjob / "healthcare-stroke" / "tests" / "judge.toml"
    toml.write_text(toml.read_text().replace('judge = "openai/gpt-4o"', 'judge = "claude-code"'))
    judge = _agentic_stand_in({**HEALTH, **HEALTH_PROHIBITED})

    with OpenAIServer(judge) as srv:
        good = _run(dayjob, "healthcare-stroke", _memo(list(HEALTH.values())), monkeypatch, srv.base_url)
        leaky = _run(dayjob, "healthcare-stroke", _memo(list(HEALTH.values()) + ["Maria Lopez"]), monkeypatch,
                     srv.base_url)
    assert good["status"] == "ok" and good["reward"] == 1.0, good["report"].get("error")
    assert good["report"]["judge_kind"] == "agentic" and good["report"]["agentic"]["steps"] == 2
    assert leaky["status"] == "ok" and leaky["reward"] == 0.0


REWARDKIT_TEST_SH = """\
#!/bin/bash
# harbor-rewardkit grades tests/judge.toml with the judge it names
curl -LsSf https://astral.sh/uv/install.sh | sh
source $HOME/.local/bin/env
uvx --with harbor-rewardkit==0.2.3 rewardkit /tests --output /logs/verifier/reward.json
"""


def test_judge_toml_beside_rewardkits_test_sh_is_graded_by_jobenvs_judge(dayjob: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """DAYJOB's published layout: Harbor requires tests/test.sh, so rewardkit's runner stands beside judge.toml.
    jobenv grades the judge.toml itself (the runner would download rewardkit, and offline it could only fail)."""
    task = dayjob / "finance-karoo"
    (task / "tests" / "test.sh").write_text(REWARDKIT_TEST_SH)
    rules = {**FINANCE, **FINANCE_PROHIBITED}
    with OpenAIServer(_stand_in_judge(rules)) as judge:
        good = _run(dayjob, "finance-karoo", _memo(list(FINANCE.values())), monkeypatch, judge.base_url)
        assert len(judge.requests) == len(rules)  # every criterion went to the judge
        trusting = [p for p in FINANCE.values() if p != "premise is contradicted"]
        missed = _run(dayjob, "finance-karoo", _memo(trusting), monkeypatch, judge.base_url)
    assert good["status"] == "ok" and good["reward"] == 1.0, good["report"].get("error")
    assert "judge_toml" in good["report"]["verifier"] and "stdout_tail" not in good["report"]["verifier"]
    assert missed["status"] == "ok" and missed["reward"] == 0.0


def test_a_test_sh_of_the_authors_own_beside_judge_toml_still_runs(dayjob: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    task = dayjob / "finance-karoo"
    (task / "tests" / "test.sh").write_text(
        "grep -q 'R 1,254,300' /workspace/deliverables/memo.md && echo 1 > /logs/verifier/reward.txt "
        "|| echo 0 > /logs/verifier/reward.txt\n")
    with OpenAIServer(_stand_in_judge({**FINANCE, **FINANCE_PROHIBITED})) as judge:
        right = _run(dayjob, "finance-karoo", _memo(["R 1,254,300"]), monkeypatch, judge.base_url)
        wrong = _run(dayjob, "finance-karoo", _memo(["R 125,430,000"]), monkeypatch, judge.base_url)
        assert judge.requests == []
    assert (right["reward"], wrong["reward"]) == (1.0, 0.0) and right["report"]["judge_kind"] == "harbor"


def test_a_judge_override_is_honoured_on_judge_toml_tasks(dayjob: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """judge.toml names a model; judge="agentic" grades it with the agentic judge all the same (and the other way
    round: judge="llm" over a file naming an agent). judge="checks" cannot grade it, said at make."""
    (dayjob / "healthcare-stroke" / "tests" / "test.sh").write_text(REWARDKIT_TEST_SH)
    rules = {**HEALTH, **HEALTH_PROHIBITED}
    with OpenAIServer(_agentic_stand_in(rules)) as srv:
        good = _run(dayjob, "healthcare-stroke", _memo(list(HEALTH.values())), monkeypatch, srv.base_url,
                    judge="agentic")
        leaky = _run(dayjob, "healthcare-stroke", _memo(list(HEALTH.values()) + ["Maria Lopez"]), monkeypatch,
                     srv.base_url, judge="agentic")
    assert good["status"] == "ok" and good["reward"] == 1.0, good["report"].get("error")
    assert good["report"]["judge_kind"] == "agentic" and good["report"]["agentic"]["steps"] == 2
    assert leaky["status"] == "ok" and leaky["reward"] == 0.0

    toml = dayjob / "finance-karoo" / "tests" / "judge.toml"
    toml.write_text(toml.read_text().replace('judge = "openai/gpt-4o"', 'judge = "claude-code"'))
    with OpenAIServer(_stand_in_judge({**FINANCE, **FINANCE_PROHIBITED})) as judge:
        llm = _run(dayjob, "finance-karoo", _memo(list(FINANCE.values())), monkeypatch, judge.base_url, judge="llm")
    assert llm["status"] == "ok" and llm["reward"] == 1.0 and llm["report"]["judge_kind"] == "llm"

    from jobenv.errors import JobenvError

    with pytest.raises(JobenvError, match="judge='checks' cannot grade a judge.toml"):
        jobenv.make(str(dayjob), judge="checks")
