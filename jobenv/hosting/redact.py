"""What a hosted client may see of a task and of its grading: public specs and reports without rubric wording.

Rubric texts and criteria never leave the server. Reports keep scores, counts and flags; any string that could
carry private wording (errors name failed rubrics) is checked against every rubric text and criterion after
undoing the escapes that ``repr``/JSON apply and folding case, spacing and punctuation away, so a quoted,
escaped or re-spaced copy is caught as surely as a verbatim one. A string that carries one is replaced whole.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["public_task_spec", "private_texts", "PrivateText", "redact_report", "WITHHELD"]

WITHHELD = "[withheld: this message quoted private rubric text]"
_MAX_TEXT_CHARS = 1000
# the shortest folded private text that is looked for (shorter ones are words any message may contain)
_MIN_FOLDED = 6
# long texts are matched by any window of this many folded characters (a partial quote still leaks)
_WINDOW = 24

# per-rubric fields that carry no wording; rubric text, criteria, reasoning and evidence never leave the server
_RUBRIC_KEEP = frozenset({"index", "weight", "passed", "score", "status", "attempts", "cached", "parse_step"})
# top-level fields kept; strings among them are checked for private text (the error names failed rubrics)
_REPORT_KEEP = frozenset(
    {"schema_version", "task_id", "status", "error", "failure_cause", "normalized_score", "total_score", "max_score", "pass_rate",
     "passed_count", "total_count", "judge_score", "criteria_passed", "criteria_total", "strict_pass", "pass_at_95",
     "pass_at_90", "pass_n_minus_1", "empty_output", "rejected_files", "judge_kind", "judge_model",
     "extraction_mode", "extraction_version", "grader_hash", "dataset_revision", "usage", "latency_s",
     "official_normalized_score", "official_total_score"}
)

_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|[ntrfvab0'\"\\/])")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "b": "\b", "0": "\0"}


def _unescape_one(m: re.Match[str]) -> str:
    code = m.group(1)
    if code[0] in "xuU":
        try:
            return chr(int(code[1:], 16))
        except ValueError:
            return m.group(0)
    if code[0] == "N":
        try:
            return unicodedata.lookup(code[2:-1])
        except KeyError:
            return m.group(0)
    return _SIMPLE.get(code, code)


def _fold(text: str) -> str:
    """Letters and digits only, case-folded and NFKC-normalised: what survives quoting and re-spacing."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in text if ch.isalnum())


def public_task_spec(task: Task, split: str, index: int) -> dict[str, Any]:
    """The JSON a client may see for one task: id, occupation, split and index. Nothing private."""
    return {"id": task.id, "occupation": task.occupation, "split": split, "index": index}


def private_texts(task: Task) -> list[str]:
    """Every rubric text and criterion of ``task``: strings that must never appear in a response."""
    out: list[str] = []
    for r in task.rubrics:
        out.append(r.text)
        out.extend(r.criteria)
    return [t for t in out if t and t.strip()]


class PrivateText:
    """The private strings of one task, folded once; :meth:`leaks` tells whether a string carries any of them."""

    def __init__(self, texts: list[str]) -> None:
        self.windows: set[str] = set()
        self.whole: list[str] = []
        for t in texts:
            f = _fold(t)
            if len(f) < _MIN_FOLDED:
                continue
            if len(f) <= _WINDOW:
                self.whole.append(f)
            else:
                self.windows.update(f[i:i + _WINDOW] for i in range(len(f) - _WINDOW + 1))

    def leaks(self, text: str) -> bool:
        if not text or (not self.windows and not self.whole):
            return False
        for candidate in {_fold(text), _fold(_ESCAPE.sub(_unescape_one, text))}:
            if any(w in candidate for w in self.whole):
                return True
            # any window of a long private text: slide over the candidate with the same width
            if self.windows and any(candidate[i:i + _WINDOW] in self.windows
                                    for i in range(0, max(len(candidate) - _WINDOW + 1, 0))):
                return True
        return False

    def clean(self, text: str) -> str:
        """``text`` itself when it carries nothing private (cut to a bounded length), else :data:`WITHHELD`."""
        if self.leaks(text):
            return WITHHELD
        return text if len(text) <= _MAX_TEXT_CHARS else text[:_MAX_TEXT_CHARS] + " [...]"


def redact_report(report: dict[str, Any], private: list[str] | PrivateText | None = None) -> dict[str, Any]:
    """A grading report safe to send to a client: scores, counts and flags, with all rubric wording removed.

    Per-rubric entries keep only scalar score fields, their criterion pass counts and their error (checked as
    described in the module docstring); kept top-level strings are checked the same way. Unknown fields are
    dropped. Never raises.
    """
    guard = private if isinstance(private, PrivateText) else PrivateText(list(private or []))

    def scalar(v: Any) -> bool:
        return v is None or isinstance(v, (int, float, bool, str))

    def clean(v: Any) -> Any:
        if isinstance(v, str):
            return guard.clean(v)
        if isinstance(v, dict):
            return {guard.clean(str(k)): clean(x) for k, x in v.items() if scalar(x)}
        if isinstance(v, list):
            return [clean(x) for x in v if scalar(x)]
        return v

    out: dict[str, Any] = {}
    for key, value in report.items():
        if key == "rubrics" and isinstance(value, list):
            kept = []
            for i, item in enumerate(value):
                if not isinstance(item, dict):
                    continue
                entry: dict[str, Any] = {"index": i}
                for k in _RUBRIC_KEEP:
                    if k in item and scalar(item[k]):
                        entry[k] = clean(item[k])
                crits = item.get("criteria_results")
                if isinstance(crits, list):
                    entry["criteria_total"] = len(crits)
                    entry["criteria_passed"] = sum(1 for c in crits if isinstance(c, dict) and c.get("passed") is True)
                if isinstance(item.get("error"), str):
                    entry["error"] = guard.clean(item["error"])
                kept.append(entry)
            out[key] = kept
        elif key in _REPORT_KEEP:
            out[key] = clean(value)
    return out
