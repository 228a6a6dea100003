"""Reports over a trajectories file: a rich table in the terminal and a self-contained HTML page.

The HTML page has no external resources (no CDN, no fonts, no images from elsewhere): styles, the
reward-distribution plot (inline SVG) and a small script (sortable tables) are all inline, so the file can be
mailed or archived as is. Every value taken from a trajectory is HTML-escaped, and the embedded JSON is
escaped so no text from a model can close the script element.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Sequence

from .errors import JobenvError
from .rollout import GroupSummary, Summary, Trajectory, summarize

__all__ = ["print_summary", "render_html", "write_html"]


def _fmt(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _pak(g: GroupSummary) -> str:
    return "  ".join(f"@{k} {v:.3f}" for k, v in sorted(g.pass_at_k.items())) or "-"


def print_summary(summary: Summary, *, console: Any = None) -> None:
    """Print the overall metrics, the per-occupation table and error counts with rich."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    o = summary.overall
    head = Table(title="rollout summary", show_header=False, title_justify="left")
    head.add_column("metric", style="bold")
    head.add_column("value")
    head.add_row("episodes", f"{summary.episodes} ({summary.included} in rewards)")
    head.add_row("tasks", str(o.tasks))
    head.add_row("mean reward", _fmt(o.mean_reward))
    head.add_row("strict pass rate", _fmt(o.strict_pass_rate))
    head.add_row("pass@k (strict)", _pak(o))
    head.add_row("statuses", ", ".join(f"{k} {v}" for k, v in sorted(summary.statuses.items())) or "-")
    head.add_row("errors", f"{summary.errors}" + (f" ({', '.join(f'{k} {v}' for k, v in sorted(summary.error_kinds.items()))})" if summary.errors else "")
                 + ("" if summary.include_errors or not summary.errors else " — excluded from rewards"))
    head.add_row("model(s)", ", ".join(summary.models) or "-")
    head.add_row("tokens", f"{summary.tokens.prompt_tokens} prompt / {summary.tokens.completion_tokens} completion in {summary.tokens.model_calls} calls")
    console.print(head)
    occ = Table(title="per occupation (reward = mean reward, strict = strict pass rate)", title_justify="left")
    for col in ("occupation", "tasks", "eps", "reward", "strict", "pass@k", "trunc", "err"):
        occ.add_column(col, justify="left" if col in ("occupation", "pass@k") else "right", no_wrap=col != "occupation")
    for name, g in summary.per_occupation.items():
        occ.add_row(name, str(g.tasks), str(g.episodes), _fmt(g.mean_reward), _fmt(g.strict_pass_rate), _pak(g), str(g.truncated), str(g.errors))
    console.print(occ)


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
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}
th{background:#f0f3f7;cursor:pointer} td.l,th.l{text-align:left}
.err{color:#a33}.ok{color:#2a7}.trunc{color:#a70}
.cards{display:flex;gap:1em;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;padding:.6em 1em}
.card b{display:block;font-size:1.4em}
"""

# sorts a table by the clicked column; marks the page ready so a headless check can see the script ran
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
  var bars=document.querySelectorAll('#reward-hist rect.bar'), total=0;
  bars.forEach(function(b){total+=parseInt(b.getAttribute('data-count'),10);});
  document.body.setAttribute('data-episodes-plotted', String(total));
  document.body.setAttribute('data-report-ready', data.included === total ? '1' : 'mismatch');
})();
"""


def _row(cells: list[tuple[str, Any]], cls: str = "") -> str:
    out = []
    for text, sort_value in cells:
        left = isinstance(sort_value, str) and sort_value == "l"
        attr = ' class="l"' if left else (f' data-v="{html.escape(str(sort_value))}"' if sort_value is not None and not left else "")
        out.append(f"<td{attr}>{html.escape(str(text))}</td>")
    return f'<tr class="{cls}">' + "".join(out) + "</tr>"


def render_html(trajectories: Sequence[Trajectory], *, include_errors: bool = False, title: str = "jobenv rollout report") -> str:
    """The report page as one string (no external resources). Never raises for odd trajectory content."""
    trajs = list(trajectories)
    s = summarize(trajs, include_errors=include_errors)
    o = s.overall
    e = html.escape
    cards = [
        ("episodes", f"{s.episodes}"), ("in rewards", f"{s.included}"), ("mean reward", _fmt(o.mean_reward)),
        ("strict pass", _fmt(o.strict_pass_rate)), ("errors", f"{s.errors}"), ("tasks", f"{o.tasks}"),
    ]
    body = [f"<h1>{e(title)}</h1>"]
    body.append(f"<p>env: {e(', '.join(s.env_ids) or '-')} &middot; model: {e(', '.join(s.models) or '-')} &middot; "
                f"pass@k: {e(_pak(o))}" + ("" if include_errors else " &middot; errored episodes excluded from rewards") + "</p>")
    body.append('<div class="cards">' + "".join(f'<div class="card"><b>{e(v)}</b>{e(k)}</div>' for k, v in cards) + "</div>")
    body.append("<h2>Reward distribution</h2>")
    body.append(_histogram_svg(o.rewards))
    body.append("<h2>Per occupation</h2>")
    body.append('<table class="sortable" id="occupations"><thead><tr><th class="l">occupation</th><th>tasks</th><th>episodes</th>'
                "<th>mean reward</th><th>strict pass</th><th>truncated</th><th>errors</th></tr></thead><tbody>")
    for name, g in s.per_occupation.items():
        body.append(_row([(name, "l"), (g.tasks, g.tasks), (g.episodes, g.episodes), (_fmt(g.mean_reward), g.mean_reward if g.mean_reward is not None else -1),
                          (_fmt(g.strict_pass_rate), g.strict_pass_rate if g.strict_pass_rate is not None else -1), (g.truncated, g.truncated), (g.errors, g.errors)]))
    body.append("</tbody></table>")
    body.append("<h2>Per task</h2>")
    ks = sorted({k for g in s.per_task.values() for k in g.pass_at_k})
    body.append('<table class="sortable" id="tasks"><thead><tr><th class="l">task</th><th>episodes</th><th>mean reward</th><th>rewards</th>'
                "<th>strict pass</th>" + "".join(f"<th>pass@{k}</th>" for k in ks) + "<th>errors</th></tr></thead><tbody>")
    for tid, g in s.per_task.items():
        cells: list[tuple[str, Any]] = [(tid, "l"), (g.episodes, g.episodes), (_fmt(g.mean_reward), g.mean_reward if g.mean_reward is not None else -1),
                                        (" ".join(f"{r:.2f}" for r in g.rewards) or "-", "l"),
                                        (_fmt(g.strict_pass_rate), g.strict_pass_rate if g.strict_pass_rate is not None else -1)]
        cells += [(_fmt(g.pass_at_k.get(k)), g.pass_at_k.get(k, -1)) for k in ks]
        cells.append((g.errors, g.errors))
        body.append(_row(cells, "err" if g.errors else ""))
    body.append("</tbody></table>")
    body.append("<h2>Episodes</h2>")
    body.append('<table class="sortable" id="episodes"><thead><tr><th class="l">task</th><th>attempt</th><th class="l">status</th>'
                '<th class="l">finish</th><th>reward</th><th>tool calls</th><th>tokens</th><th>seconds</th><th class="l">error</th></tr></thead><tbody>')
    for t in trajs[:5000]:  # the page stays usable on huge runs; the JSONL has everything
        cls = {"error": "err", "truncated": "trunc"}.get(t.status, "ok")
        body.append(_row([(t.task_id, "l"), (t.attempt, t.attempt), (t.status, "l"), (t.finish_reason, "l"),
                          (_fmt(t.reward), t.reward if t.reward is not None else -1), (t.num_tool_calls, t.num_tool_calls),
                          (t.usage.total_tokens, t.usage.total_tokens), (f"{t.duration_s:.1f}", t.duration_s), ((t.error or "")[:300], "l")], cls))
    body.append("</tbody></table>")
    if len(trajs) > 5000:
        body.append(f"<p>{len(trajs) - 5000} more episodes are in the trajectories file.</p>")
    data = s.model_dump(mode="json")
    data["overall"].pop("rewards", None)
    for g in list(data["per_occupation"].values()) + list(data["per_task"].values()):
        g.pop("rewards", None)
    # "<" escaped so nothing in the data can end the script element early
    blob = json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{e(title)}</title><style>{_CSS}</style></head><body>"
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
