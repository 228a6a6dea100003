"""The HTML report over a trajectories file: one self-contained page people want to read.

The page shows the summary cards, the reward distribution, a per-model comparison when the file holds several
models (or sampling configurations), per-occupation and per-task tables, and every episode: a table whose
rewards are coloured by value, and for each episode its conversation (assistant turns, each tool call with its
result, collapsible) and its grading report (rubrics and criterion verdicts), one click away from its row.

It has no external resources (no CDN, no fonts, no images from elsewhere): styles, the plot (inline SVG) and a
small script (sortable tables, opening the episode a link points to) are inline, so the file can be mailed or
archived as is. Every value taken from a trajectory is HTML-escaped, and the embedded JSON is escaped so no
text from a model can close the script element. Rendering never raises for odd trajectory content.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..episode.outcome import Status
from ..errors import JobenvError
from .summary import CRITERIA_THRESHOLDS, GroupSummary, fmt, pass_at_k_text, summarize
from .trajectory import Trajectory

__all__ = ["render_html", "write_html", "MAX_EPISODES_SHOWN", "MAX_TEXT_SHOWN"]

MAX_EPISODES_SHOWN = 500  # conversations rendered in the page; the table lists up to 5000 episodes
MAX_TEXT_SHOWN = 4000  # characters of one message or tool result shown; the JSONL has everything
_e = html.escape


def _histogram_svg(rewards: Sequence[float], bins: int = 10, width: int = 560, height: int = 220) -> str:
    counts = [0] * bins
    for r in rewards:
        counts[min(bins - 1, max(0, int(r * bins)))] += 1
    top = max(counts) or 1
    pad_l, pad_b, pad_t = 40, 30, 10
    plot_w, plot_h = width - pad_l - 10, height - pad_b - pad_t
    bw = plot_w / bins
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="reward-hist" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="reward distribution">',
        f'<line x1="{pad_l}" y1="{pad_t + plot_h}" x2="{pad_l + plot_w}" y2="{pad_t + plot_h}" stroke="#444"/>',
        f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{pad_t + plot_h}" stroke="#444"/>',
        f'<text x="{pad_l - 6}" y="{pad_t + 10}" text-anchor="end" font-size="11">{top}</text>',
        f'<text x="{pad_l - 6}" y="{pad_t + plot_h}" text-anchor="end" font-size="11">0</text>',
    ]
    for i, c in enumerate(counts):
        h = plot_h * c / top
        x = pad_l + i * bw
        lo, hi = i / bins, (i + 1) / bins
        parts.append(
            f'<rect class="bar" x="{x + 1:.1f}" y="{pad_t + plot_h - h:.1f}" width="{bw - 2:.1f}" height="{h:.1f}" '
            f'fill="#3b6ea8" data-count="{c}"><title>reward {lo:.1f}–{hi:.1f}{"]" if i == bins - 1 else ")"}: {c}</title></rect>'
        )
        if i % 2 == 0 or bins <= 10:
            parts.append(f'<text x="{x:.1f}" y="{pad_t + plot_h + 16}" text-anchor="middle" font-size="11">{lo:.1f}</text>')
    parts.append(f'<text x="{pad_l + plot_w:.1f}" y="{pad_t + plot_h + 16}" text-anchor="middle" font-size="11">1.0</text>')
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:right;vertical-align:top}
th{background:#f0f3f7;cursor:pointer} td.l,th.l{text-align:left}
.err{color:#a33}.trunc{color:#a70}
td.reward{font-weight:600;color:#111}
.cards{display:flex;gap:1em;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;padding:.6em 1em}
.card b{display:block;font-size:1.4em}
section.episode{border-top:2px solid #dde;margin-top:1.5em;padding-top:.5em}
details{margin:.3em 0}summary{cursor:pointer}
.msg{border-left:4px solid #ccc;padding:.2em .8em;margin:.4em 0}
.msg.user,.msg.system{border-color:#8aa}.msg.assistant{border-color:#58c}.msg.tool{border-color:#aaa;background:#fafafa}
details.tool-call{border-left:4px solid #c95;padding-left:.6em}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f7f9;padding:.5em;margin:.3em 0;font-size:13px}
.pass{color:#2a7}.fail{color:#a33}
"""

# sorts a table by the clicked column; opens the episode or grading report a link points to; marks the page
# ready so a headless check can see the script ran to the end
_JS = """
(function(){
  var data = JSON.parse(document.getElementById('summary-data').textContent);
  function key(td){var v=td.getAttribute('data-v'); if(v===null){v=td.textContent;} var n=parseFloat(v); return isNaN(n)?v:n;}
  document.querySelectorAll('table.sortable').forEach(function(t){
    t.querySelectorAll('th').forEach(function(th,i){
      th.addEventListener('click',function(){
        var body=t.tBodies[0], rows=Array.prototype.slice.call(body.rows), asc=th.getAttribute('data-asc')!=='1';
        rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]); return (x<y?-1:x>y?1:0)*(asc?1:-1);});
        rows.forEach(function(r){body.appendChild(r);}); th.setAttribute('data-asc',asc?'1':'0');
      });
    });
  });
  function openTarget(){
    var id=decodeURIComponent((location.hash||'').slice(1)); if(!id){return;}
    var el=document.getElementById(id); if(!el){return;}
    for(var n=el; n; n=n.parentElement){ if(n.tagName==='DETAILS'){ n.open=true; } }
    document.body.setAttribute('data-opened', id);
    el.scrollIntoView();
  }
  window.addEventListener('hashchange', openTarget); openTarget();
  var bars=document.querySelectorAll('#reward-hist rect.bar'), total=0;
  bars.forEach(function(b){total+=parseInt(b.getAttribute('data-count'),10);});
  document.body.setAttribute('data-episodes-plotted', String(total));
  document.body.setAttribute('data-report-ready', data.included === total ? '1' : 'mismatch');
})();
"""


def _reward_style(r: float | None) -> str:
    """Red (0) through amber to green (1); grey for no reward (an errored episode)."""
    if r is None:
        return "background:#ddd"
    hue = round(max(0.0, min(1.0, r)) * 120)
    return f"background:hsl({hue},70%,80%)"


def _cell(text: Any, sort: Any = None, *, left: bool = False, cls: str = "", style: str = "", inner: str | None = None) -> str:
    attrs = ""
    classes = " ".join(c for c in ("l" if left else "", cls) if c)
    if classes:
        attrs += f' class="{classes}"'
    if sort is not None:
        attrs += f' data-v="{_e(str(sort))}"'
    if style:
        attrs += f' style="{style}"'
    return f"<td{attrs}>{inner if inner is not None else _e(str(text))}</td>"


def _num(x: float | None) -> float:
    return -1.0 if x is None else x


def _group_table(table_id: str, label: str, groups: dict[str, GroupSummary], ks: list[int]) -> str:
    head = (f'<table class="sortable" id="{table_id}"><thead><tr><th class="l">{_e(label)}</th><th>tasks</th>'
            "<th>episodes</th><th>mean reward</th><th>task-weighted</th><th>strict pass</th>"
            + "".join(f"<th>pass@{k}</th>" for k in ks)
            + "<th>criteria met</th>" + "".join(f"<th>meets {_e(k)}</th>" for k in CRITERIA_THRESHOLDS)
            + "<th>truncated</th><th>errors</th></tr></thead><tbody>")
    rows = []
    for name, g in groups.items():
        cells = [_cell(name, left=True), _cell(g.tasks, g.tasks), _cell(g.episodes, g.episodes),
                 _cell(fmt(g.mean_reward), _num(g.mean_reward), cls="reward", style=_reward_style(g.mean_reward)),
                 _cell(fmt(g.task_mean_reward), _num(g.task_mean_reward)),
                 _cell(fmt(g.strict_pass_rate), _num(g.strict_pass_rate))]
        cells += [_cell(fmt(g.pass_at_k.get(k)), _num(g.pass_at_k.get(k))) for k in ks]
        cells += [_cell(fmt(g.criteria_rate), _num(g.criteria_rate))]
        cells += [_cell(fmt(g.criteria_pass.get(k)), _num(g.criteria_pass.get(k))) for k in CRITERIA_THRESHOLDS]
        cells += [_cell(g.truncated, g.truncated), _cell(g.errors, g.errors)]
        rows.append(f'<tr class="{"err" if g.errors else ""}">' + "".join(cells) + "</tr>")
    return head + "".join(rows) + "</tbody></table>"


def _clip(text: Any) -> str:
    s = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    if len(s) > MAX_TEXT_SHOWN:
        return s[:MAX_TEXT_SHOWN] + f"\n… ({len(s) - MAX_TEXT_SHOWN} more characters in the trajectories file)"
    return s


def _conversation(t: Trajectory) -> str:
    results = {m.get("tool_call_id"): m for m in t.messages if m.get("role") == "tool"}
    out: list[str] = []
    for i, m in enumerate(t.messages):
        role = str(m.get("role"))
        if role == "tool":
            continue  # shown under its call
        content = m.get("content")
        if role in ("user", "system") and i <= 1:
            out.append(f'<details class="msg {role}"><summary>{_e(role)} prompt ({len(str(content or ""))} characters)'
                       f"</summary><pre>{_e(_clip(content or ''))}</pre></details>")
            continue
        body = f'<div class="msg {_e(role)}"><b>{_e(role)}</b>'
        if m.get("reasoning_content"):
            body += f"<details><summary>reasoning</summary><pre>{_e(_clip(m['reasoning_content']))}</pre></details>"
        if content:
            body += f"<pre>{_e(_clip(content))}</pre>"
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            res = results.get(call.get("id"))
            args = str(fn.get("arguments") or "")
            body += (f'<details class="tool-call"><summary>{_e(str(fn.get("name")))}({_e(args[:80])}'
                     f'{"…" if len(args) > 80 else ""})</summary><pre>{_e(_clip(args))}</pre>'
                     f'<div class="msg tool"><b>result</b><pre>{_e(_clip(res.get("content") if res else "(no result)"))}'
                     "</pre></div></details>")
        out.append(body + "</div>")
    return "".join(out)


def _grading(t: Trajectory) -> str:
    r = t.report
    if not r:
        why = "errored before grading" if t.status is Status.ERROR else "not graded (ran out before submit; on_truncate=zero)"
        return f"<p>No grading report: {_e(why)}.</p>"
    parts = [f"<p>status {_e(str(r.get('status')))} &middot; score {_e(fmt(r.get('normalized_score')))} &middot; "
             f"{_e(str(r.get('passed_count')))}/{_e(str(r.get('total_count')))} rubrics passed &middot; judge "
             f"{_e(str(r.get('judge_kind') or '-'))} {_e(str(r.get('judge_model') or ''))}</p>"]
    if r.get("error"):
        parts.append(f'<p class="err">{_e(str(r["error"]))}</p>')
    rubrics = r.get("rubrics")
    if not rubrics:
        parts.append("<p>(per-rubric detail is in the object store next to the trajectories file)</p>")
        return "".join(parts)
    parts.append('<table class="rubrics"><thead><tr><th class="l">rubric</th><th>weight</th><th>passed</th>'
                 '<th class="l">criteria</th></tr></thead><tbody>')
    for rb in rubrics:
        crit = "".join(
            f'<div class="{"pass" if c.get("passed") else "fail"}">{"✓" if c.get("passed") else "✗"} '
            f'{_e(str(c.get("criterion")))}<br><small>{_e(str(c.get("reasoning") or ""))}</small></div>'
            for c in rb.get("criteria_results") or [])
        parts.append(f'<tr><td class="l">{_e(str(rb.get("rubric")))}</td><td>{_e(str(rb.get("weight")))}</td>'
                     f'<td class="{"pass" if rb.get("passed") else "fail"}">{"yes" if rb.get("passed") else "no"}</td>'
                     f'<td class="l">{crit}</td></tr>')
    parts.append("</tbody></table>")
    return "".join(parts)


def _anchor(t: Trajectory) -> str:
    return "".join(ch for ch in t.episode_id if ch.isalnum() or ch in "-_")[:64] or "x"


def render_html(trajectories: Sequence[Trajectory], *, include_errors: bool = False, title: str = "jobenv rollout report") -> str:
    """The report page as one string (no external resources). Never raises for odd trajectory content."""
    trajs = list(trajectories)
    s = summarize(trajs, include_errors=include_errors)
    o = s.overall
    cards = [("episodes", f"{s.episodes}"), ("in rewards", f"{s.included}"), ("mean reward", fmt(o.mean_reward)),
             ("task-weighted reward", fmt(o.task_mean_reward)), ("strict pass", fmt(o.strict_pass_rate)),
             ("criteria met", fmt(o.criteria_rate)), ("errors", f"{s.errors}"), ("tasks", f"{o.tasks}")]
    body = [f"<h1>{_e(title)}</h1>"]
    body.append(f"<p>env: {_e(', '.join(s.env_ids) or '-')} &middot; model: {_e(', '.join(s.models) or '-')} &middot; "
                f"pass@k: {_e(pass_at_k_text(o))}" + ("" if include_errors else " &middot; errored episodes excluded from rewards") + "</p>")
    body.append('<div class="cards">' + "".join(f'<div class="card"><b>{_e(v)}</b>{_e(k)}</div>' for k, v in cards) + "</div>")
    body.append("<h2>Reward distribution</h2>")
    body.append(_histogram_svg(o.rewards))
    ks = sorted({k for g in s.per_model.values() for k in g.pass_at_k})
    if len(s.per_model) > 1:
        body.append("<h2>Per model</h2>")
        body.append(_group_table("models", "model", s.per_model, ks))
    body.append("<h2>Per occupation</h2><p>task-weighted: each task's mean over its attempts, averaged over tasks "
                "(tasks weigh equally, as in DAYJOB's per-domain table); criteria met: the unweighted share of "
                "criteria; meets X: the share of attempts meeting X of their criteria (N-1: all but one).</p>")
    body.append(_group_table("occupations", "occupation", s.per_occupation, []))
    body.append("<h2>Per task</h2>")
    body.append(_group_table("tasks", "task", s.per_task, sorted({k for g in s.per_task.values() for k in g.pass_at_k})))
    body.append("<h2>Episodes</h2><p>Click a task to read the conversation, a reward to read its grading report.</p>")
    body.append('<table class="sortable" id="episodes"><thead><tr><th class="l">task</th><th class="l">model</th>'
                '<th>attempt</th><th class="l">status</th><th class="l">finish</th><th>reward</th><th>tool calls</th>'
                '<th>tokens</th><th>seconds</th><th class="l">error</th></tr></thead><tbody>')
    shown = {id(t) for t in trajs[:MAX_EPISODES_SHOWN]}
    for t in trajs[:5000]:  # the page stays usable on huge runs; the JSONL has everything
        a = _anchor(t)
        linked = id(t) in shown
        cls = {Status.ERROR: "err", Status.TRUNCATED: "trunc"}.get(t.status, "")
        task = f'<a href="#ep-{a}">{_e(t.task_id)}</a>' if linked else None
        reward = f'<a href="#grade-{a}">{_e(fmt(t.reward))}</a>' if linked else None
        body.append(f'<tr class="{cls}">' + "".join([
            _cell(t.task_id, left=True, inner=task), _cell(t.run_label, left=True), _cell(t.attempt, t.attempt),
            _cell(t.status, left=True), _cell(t.finish_reason, left=True),
            _cell(fmt(t.reward), _num(t.reward), cls="reward", style=_reward_style(t.reward), inner=reward),
            _cell(t.num_tool_calls, t.num_tool_calls), _cell(t.usage.total_tokens, t.usage.total_tokens),
            _cell(f"{t.duration_s:.1f}", t.duration_s), _cell((t.error or "")[:300], left=True)]) + "</tr>")
    body.append("</tbody></table>")
    if len(trajs) > 5000:
        body.append(f"<p>{len(trajs) - 5000} more episodes are in the trajectories file.</p>")
    for t in trajs[:MAX_EPISODES_SHOWN]:
        a = _anchor(t)
        body.append(
            f'<section class="episode" id="ep-{a}"><h3>{_e(t.task_id)} &middot; attempt {t.attempt} &middot; '
            f"{_e(t.run_label)}</h3><p>{_e(t.status)} ({_e(t.finish_reason)}), reward "
            f'<span class="reward" style="{_reward_style(t.reward)}">{_e(fmt(t.reward))}</span>, '
            f"{t.num_tool_calls} tool calls in {t.num_turns} turns</p>"
            f'<details class="conversation" id="conv-{a}"><summary>conversation</summary>{_conversation(t)}</details>'
            f'<details class="grading" id="grade-{a}"><summary>grading report</summary>{_grading(t)}</details></section>')
    if len(trajs) > MAX_EPISODES_SHOWN:
        body.append(f"<p>Conversations of the first {MAX_EPISODES_SHOWN} episodes are shown; the rest are in the file.</p>")
    data = s.model_dump(mode="json")
    for g in [data["overall"], *data["per_model"].values(), *data["per_occupation"].values(), *data["per_task"].values()]:
        g.pop("rewards", None)
    # "<" escaped so nothing in the data can end the script element early
    blob = json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
        + "\n".join(body)
        + f'\n<script type="application/json" id="summary-data">{blob}</script>\n<script>{_JS}</script>\n</body></html>\n'
    )


def write_html(trajectories: Sequence[Trajectory], path: str | Path, *, include_errors: bool = False) -> Path:
    """Write :func:`render_html` to ``path``; raises JobenvError when the file cannot be written."""
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(render_html(trajectories, include_errors=include_errors), encoding="utf-8")
    except OSError as exc:
        raise JobenvError(f"cannot write the HTML report to {p}: {exc}") from exc
    return p
