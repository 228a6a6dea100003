"""The HTML report opens in a real headless browser without script errors; the terminal report works."""

from __future__ import annotations

import html.parser
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jobenv.rollout import Trajectory, read_trajectories
from jobenv.rollout.report import render_html, write_html

HOSTILE = '</script><script>window.PWNED=1</script><img src=x onerror="window.PWNED=2">'


def _trajs() -> list[Trajectory]:
    out = []
    for i, (task, r, status) in enumerate([("acc/task1", 1.0, "ok"), ("acc/task1", 0.5, "ok"), ("law/task2", 0.0, "truncated"),
                                            ("law/task2", None, "error"), ("law/task3", 0.93, "ok")]):
        out.append(Trajectory(
            env_id="jobenv/sample", task_id=task, occupation=task.split("/")[0], attempt=i % 2, reward=r,
            strict_pass=r == 1.0, status=status, finish_reason="submitted" if status == "ok" else ("max_steps" if status == "truncated" else "grading_error"),
            error=HOSTILE if status == "error" else None, error_kind="grading" if status == "error" else None,
            started_at="2026-01-01T00:00:00", finished_at="2026-01-01T00:00:01", duration_s=1.0, model=HOSTILE,
        ))
    # a real conversation and a grading report for the first episode (tool call text is hostile too)
    out[0].messages = [
        {"role": "user", "content": "Do the task. " + HOSTILE},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": HOSTILE})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "RESULT-OF-C1 " + HOSTILE},
    ]
    out[0].report = {"status": "ok", "normalized_score": 1.0, "passed_count": 1, "total_count": 1, "judge_kind": "checks",
                     "rubrics": [{"rubric": "States the Q3 total", "weight": 10, "passed": True,
                                  "criteria_results": [{"criterion": "Q3 total is 41,250", "passed": True,
                                                        "reasoning": "REASON-" + HOSTILE}]}]}
    return out


def _two_models() -> list[Trajectory]:
    trajs = _trajs()
    other = [t.model_copy(update={"model": "model-b", "policy_id": "b", "episode_id": f"b{i}", "reward": 0.0 if t.reward is not None else None})
             for i, t in enumerate(trajs)]
    return trajs + other


class _StrictParser(html.parser.HTMLParser):
    VOID = {"meta", "br", "img", "input", "hr", "link", "line", "rect"}  # svg leaf elements may close themselves

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)
        self._in_script = tag == "script"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        assert self.stack and self.stack[-1] == tag, f"unbalanced </{tag}>; open: {self.stack[-3:]}"
        self.stack.pop()
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def test_html_is_well_formed_self_contained_and_escaped(tmp_path: Path) -> None:
    page = render_html(_trajs())
    p = _StrictParser()
    p.feed(page)
    p.close()
    assert p.stack == []
    names = [t for t, _ in p.tags]
    assert names.count("script") == 2 and "img" not in names and "svg" in names  # the hostile markup stayed text
    assert not any(k == "src" or (k or "").startswith("on") for _, attrs in p.tags for k in attrs)
    assert all((v or "").startswith("#") for _, attrs in p.tags for k, v in attrs.items() if k == "href")  # in-page only
    assert "@import" not in page and "url(" not in page
    data = json.loads(p.scripts[0])  # the embedded summary is valid JSON and round-trips the hostile text
    assert data["errors"] == 1 and data["included"] == 4 and HOSTILE in data["models"]
    bars = [int(a["data-count"]) for t, a in p.tags if t == "rect"]
    assert sum(bars) == 4 and bars[0] == 1 and bars[5] == 1 and bars[9] == 2
    assert "law/task3" in page and "0.930" in page


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _dump_dom(browser: str, url: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--enable-logging=stderr",
         "--v=0", "--user-data-dir=" + str(tmp_path / "profile"), "--dump-dom", url],
        capture_output=True, text=True, timeout=120,
    )


@pytest.mark.browser
def test_html_report_runs_in_a_headless_browser(tmp_path: Path) -> None:
    path = write_html(_two_models(), tmp_path / "report.html")
    browser = _browser()
    assert browser is not None, "no headless browser: `./setup.sh --dev` installs Debian's chromium"
    proc = _dump_dom(browser, path.as_uri(), tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    # the page's script sets these only when it ran to the end without an exception
    assert 'data-report-ready="1"' in dom, (dom[-500:], proc.stderr[-2000:])
    assert 'data-episodes-plotted="8"' in dom
    assert "Uncaught" not in proc.stderr, proc.stderr[-2000:]
    # the hostile text stayed text: the DOM holds only the page's own two scripts and no injected image
    assert dom.count("<script") == 2 and "<img" not in dom
    assert dom.count('class="bar"') == 10
    # per-model comparison, rewards coloured by value, conversations and tool calls collapsed by default
    assert 'id="models"' in dom and "model-b [b]" in dom
    assert "hsl(120,70%,80%)" in dom and "hsl(0,70%,80%)" in dom and "hsl(60,70%,80%)" in dom
    assert 'class="tool-call"' in dom and "RESULT-OF-C1" in dom and 'class="conversation" id="conv-' in dom
    assert "<details open" not in dom


@pytest.mark.browser
def test_the_grading_report_is_one_click_from_the_episode_row(tmp_path: Path) -> None:
    trajs = _two_models()
    path = write_html(trajs, tmp_path / "report.html")
    browser = _browser()
    assert browser is not None, "no headless browser: `./setup.sh --dev` installs Debian's chromium"
    anchor = trajs[0].episode_id
    page = path.read_text()
    assert f'href="#grade-{anchor}"' in page  # the row's reward links to the report
    proc = _dump_dom(browser, path.as_uri() + f"#grade-{anchor}", tmp_path)  # following that link
    dom = proc.stdout
    assert proc.returncode == 0 and f'data-opened="grade-{anchor}"' in dom, proc.stderr[-2000:]
    tag = re.search(rf'<details[^>]*id="grade-{anchor}"[^>]*>', dom)
    assert tag and " open" in tag.group(0)  # the grading report's details element is open...
    section = dom.split(f'id="grade-{anchor}"')[1].split("</section>")[0]
    assert "Q3 total is 41,250" in section and "REASON-" in section and "✓" in section  # ...and shows the verdicts


def test_report_cli_prints_a_table_and_writes_html(tmp_path: Path) -> None:
    traj = tmp_path / "t.jsonl"
    traj.write_text("".join(t.model_dump_json() + "\n" for t in _trajs()))
    html_out = tmp_path / "r.html"
    proc = subprocess.run([sys.executable, "-m", "jobenv.cli", "report", str(traj), "--html", str(html_out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "mean reward" in proc.stdout and "0.608" in proc.stdout  # (1 + .5 + 0 + .93) / 4 = 0.6075
    assert "acc" in proc.stdout and "law" in proc.stdout
    assert html_out.read_text().startswith("<!DOCTYPE html>")
    proc = subprocess.run([sys.executable, "-m", "jobenv.cli", "report", str(tmp_path / "missing.jsonl")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "not found" in proc.stderr
    assert len(read_trajectories(traj)) == 5
