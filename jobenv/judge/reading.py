"""Reading deliverables the way a careful grader does: numbers in professional formats, labelled facts, tables.

Used by :mod:`jobenv.judge.checks`; every rule here decides scores, so each is stated once:

* Numbers: ``1,234.5``, ``$1,234``, ``USD 1,234``, ``(1,234)`` (= -1234), ``-3``/``−3``, ``12.5%`` (= 12.5,
  marked as a percentage), ``1.2 million``/``1.2m``/``41.25k``/``2bn``, decimal commas (``26,9 %``,
  ``1.234,56``: one or two digits after the comma and no further group; three digits group thousands), and
  numbers spelled out at any size (``twenty-one``, ``one hundred and twelve``, ``two thousand, four hundred``,
  ``four point two five``). Dates (``2026-07-01``, ``7/1/2026``) and footnote markers (``7.1%[^1]``, ``¹``,
  ``[2]``) are not numbers.
* Labelled facts: a ``Label: value`` (or ``Label = value``) line, with list markers, headings and Markdown
  emphasis removed, or a table row (Markdown ``| a | b |``, slide ``a | b``, csv, sheet or Word table), whose
  first non-empty cell is the label and next non-empty cell the value; further cells follow the value as
  asides named by their column header, and a Markdown footnote on the value joins it as an aside. Labels compare case-insensitively,
  with whitespace collapsed and a trailing parenthetical ("Total (USD)") optional.
* Tables: csv/tsv files and workbook sheets as rows of cells. Workbook cells are read with their number
  format: a percent-formatted cell holding 0.153 reads as 15.3. A formula cell reads through the same
  recalculation the LLM judge's extraction uses (LibreOffice or the ``formulas`` package), else its cached
  value; one no engine computed reads as an uncomputed formula (never as a blank).

Failure behaviour: nothing here raises on a bad deliverable; an unreadable table is returned as an error
string.
"""

from __future__ import annotations

import csv
import functools
import math
import re
from dataclasses import dataclass
from typing import Any

from ..extract.tables import Uncomputed

__all__ = [
    "Num",
    "SCALE_FACTORS",
    "stated_scales",
    "Uncomputed",
    "find_numbers",
    "parse_numbers",
    "to_number",
    "norm",
    "norm_label",
    "label_keys",
    "strip_markup",
    "facts_from_lines",
    "table_lines",
    "sheet_lines",
]

# a scale word and the unit it names ("41.25k" is 41.25 thousand); the units' factors
_SCALE_UNITS = {"k": "thousand", "thousand": "thousand", "m": "million", "mn": "million", "mm": "million",
                "million": "million", "bn": "billion", "billion": "billion"}
SCALE_FACTORS = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_LENGTH_UNITS = frozenset({"m", "mm"})  # millimetres and metres share their abbreviations with millions
_NUM_RE = re.compile(
    r"(?<![\w.])(?P<open>\()?[ \t]?(?P<sign>[-+\u2212])?[ \t]?(?P<cur>US\$|[$\u20ac\u00a3\u00a5]|(?:USD|EUR|GBP)[ \t]?)?"
    r"[ \t]?(?P<sign2>[-\u2212])?"
    # a decimal comma: "1.234,56" and "31,1" (one or two digits after the comma, no further group)
    r"(?:(?P<eu>\d{1,3}(?:\.\d{3})+,\d+(?![\d,]))|(?<!\d,)(?P<dc>\d+,\d{1,2})(?![\d,]|\.\d)|"
    r"(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)?(?P<frac>\.\d+)?)(?P<exp>[eE][-+]?\d+)?"
    r"(?:[ \t]?(?P<scale>thousand|million|billion|mn|mm|bn|[kKmM])(?![A-Za-z]))?"
    r"(?![\d])(?:[ \t]?(?P<pct>%|percent\b|per cent\b))?[ \t]?(?P<close>\))?"
)
# a footnote or citation marker after a figure ("7.1%[^1]", "7.1%\u00b9", "7.1%[2]") is no number
FOOTNOTE_MARK_RE = re.compile(r"(?<=[\w%)\]])(?:\[\^[^\]\s]{1,12}\]| ?\[\d{1,2}\]|\^\d{1,2}\b|[\u00b9\u00b2\u00b3\u2070-\u2079]+)")


def stated_scales(instructions: str) -> frozenset[str]:
    """The scale units ("thousand", "million", "billion") a task's instructions name ("in $ millions", "'000",
    "USD m", "$bn")."""
    text = instructions.lower()
    found = {w for w in SCALE_FACTORS if w in text}
    for unit, pattern in _SCALE_ABBREVIATIONS.items():
        if re.search(pattern, text):
            found.add(unit)
    return frozenset(found)


# a unit written short in a request ("in $m", "USD mn", "EUR bn", "$k", "'000")
_CUR = r"(?:\$|usd|us\$|eur|gbp|\u20ac|\u00a3)\s?"
_SCALE_ABBREVIATIONS = {"thousand": rf"'000|\b000s\b|{_CUR}k\b|\bk{_CUR}",
                        "million": rf"{_CUR}(?:m|mn|mm)\b|\b(?:m|mn|mm){_CUR}",
                        "billion": rf"{_CUR}(?:bn|b)\b|\bbn\b"}


_DATE_RE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")
_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_WORD_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_NUMBER_WORD_RE = re.compile(r"[A-Za-z]+|,|-", re.IGNORECASE)


def _word_numbers(text: str) -> list[tuple[float, int, int]]:
    """Spelled-out numbers of any size: (value, start, end) for "seven", "twenty-one", "one hundred and twelve",
    "two thousand, four hundred", "a hundred", "three point five". A run of words that cannot continue a number
    ("five six") starts a new one; "and", a comma or a hyphen only join words inside a number."""
    toks = [(m.group(0).lower(), m.start(), m.end()) for m in _NUMBER_WORD_RE.finditer(text)]
    out: list[tuple[float, int, int]] = []
    i = 0
    while i < len(toks):
        w, start, _ = toks[i]
        lead_a = w == "a" and i + 1 < len(toks) and toks[i + 1][0] in ("hundred", *_WORD_SCALES)
        if w not in _WORDS and w not in _TENS and not lead_a:
            i += 1
            continue
        total, group, stage, top, end = 0.0, 0.0, 0, float("inf"), toks[i][2]
        # stage within a group below 1000: 0 empty, 1 units/teens, 2 tens, 3 hundred
        j, pending = i, False  # pending: a joiner ("and", ",", "-") waits for a number word
        while j < len(toks):
            w = toks[j][0]
            if w in ("and", ",", "-"):
                if pending or j == i or (w == "," and stage != 0):
                    break
                pending = True
                j += 1
                continue
            if lead_a and j == i:
                group, stage = 1.0, 1
            elif w in _WORDS and w != "zero" and (stage == 0 or stage in (2, 3) and group % 100 == 0
                                                  or stage == 2 and _WORDS[w] < 10):
                if stage == 2 and _WORDS[w] >= 10:
                    break
                group += _WORDS[w]
                stage = 1
            elif w == "zero" and j == i and not (j + 1 < len(toks) and toks[j + 1][0] == "point"):
                end = toks[j][2]
                j += 1
                break
            elif w == "zero" and j == i:
                stage = 1
            elif w in _TENS and (stage == 0 or stage == 3 and group % 100 == 0):
                group += _TENS[w]
                stage = 2
            elif w == "hundred" and stage == 1 and 0 < group < 100:
                group *= 100
                stage = 3
            elif w == "point" and j + 1 < len(toks) and toks[j + 1][0] in _WORDS and _WORDS[toks[j + 1][0]] < 10:
                digits = ""
                while j + 1 < len(toks) and toks[j + 1][0] in _WORDS and _WORDS[toks[j + 1][0]] < 10:
                    j += 1
                    digits += str(_WORDS[toks[j][0]])
                group += float("0." + digits)
                end = toks[j][2]
                j += 1
                break
            elif w in _WORD_SCALES and stage != 0 and _WORD_SCALES[w] < top:
                top = _WORD_SCALES[w]
                total += group * top
                group, stage = 0.0, 0
            else:
                break
            pending = False
            end = toks[j][2]
            j += 1
        if total + group > 0 or toks[i][0] == "zero":
            out.append((total + group, start, end))
        i = max(j, i + 1)
    return out


@dataclass(frozen=True)
class Num:
    """One number found in text: its value, where it was, and whether it was written as a percentage."""

    value: float
    start: int
    end: int
    pct: bool = False
    scale: str = ""  # the scale unit it was written with ("thousand" for "41.25k"), already applied to ``value``
    # "m"/"mm" after a figure with no currency sign is also a length unit ("19.05 mm", "12.5 m"): read both ways
    length_unit: bool = False


_PCT_AFTER_RE = re.compile(r"[ \t]?(?:%|percent\b|per cent\b)", re.IGNORECASE)


def find_numbers(text: str, *, words: bool = True) -> list[Num]:
    """Every number in ``text`` in order of appearance (see the module docstring for the formats)."""
    masked = _DATE_RE.sub(lambda m: " " * len(m.group(0)), text)
    masked = FOOTNOTE_MARK_RE.sub(lambda m: " " * len(m.group(0)), masked)
    out: list[Num] = []
    for m in _NUM_RE.finditer(masked):
        ip, frac = m.group("int"), m.group("frac")
        if m.group("eu"):  # "1.234,56": dots group thousands, the comma is the decimal point
            ip, _, rest = m.group("eu").partition(",")
            ip, frac = ip.replace(".", ""), "." + rest
        elif m.group("dc"):  # "31,1"
            ip, _, rest = m.group("dc").partition(",")
            frac = "." + rest
        if not ip and not frac:
            continue
        neg = (m.group("sign") in ("-", "\u2212")) or (m.group("sign2") in ("-", "\u2212"))
        if m.group("open") and m.group("close"):
            neg = True
        body = (ip or "0").replace(",", "") + (frac or "") + (m.group("exp") or "")
        try:
            val = float(body)
        except ValueError:
            continue
        unit = _SCALE_UNITS[m.group("scale").lower()] if m.group("scale") else ""
        if unit:
            val *= SCALE_FACTORS[unit]
        length = bool(unit) and m.group("scale").lower() in _LENGTH_UNITS and not m.group("cur")
        out.append(Num(-val if neg else val, m.start(), m.end(), bool(m.group("pct")), unit, length))
    if words:
        for val, a, b in _word_numbers(masked):
            pct = _PCT_AFTER_RE.match(masked, b)
            out.append(Num(val, a, pct.end() if pct else b, bool(pct)))
        out.sort(key=lambda n: n.start)
    return out


def parse_numbers(text: str) -> list[float]:
    """The values of :func:`find_numbers` (digits only, no number words)."""
    return [n.value for n in find_numbers(text, words=False)]


def to_number(value: Any) -> float | None:
    """A cell or expected value as a number (``"$1,234"``, ``"15.3%"``, ``"(12)"``), or None for text."""
    if value is None or isinstance(value, bool) or isinstance(value, Uncomputed):
        return None
    if isinstance(value, (int, float)):
        return None if isinstance(value, float) and math.isnan(value) else float(value)
    s = str(value)
    return _text_number(s) if len(s) <= _MEMO_LEN else _read_text_number(s)


_MEMO_LEN = 200  # short strings (cells, labels) recur across a grading's checks: their readings are memoised


def _read_text_number(value: str) -> float | None:
    s = value.strip()
    if not s:
        return None
    nums = find_numbers(s, words=False)
    if len(nums) != 1 or s[: nums[0].start].strip() or s[nums[0].end :].strip():
        return None
    return nums[0].value


_MD_ESCAPE_RE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])")
_EMPH_RE = re.compile(r"(\*\*|__|\*|`|~~)")


def strip_markup(text: str) -> str:
    """Markdown escapes and emphasis markers removed (docx arrives as escaped Markdown)."""
    return _EMPH_RE.sub("", _MD_ESCAPE_RE.sub(r"\1", text))


_text_number = functools.lru_cache(maxsize=1 << 16)(_read_text_number)


def norm(s: Any) -> str:
    """Text for comparison: markup removed, whitespace collapsed, case folded, outer quotes and a final period gone."""
    text = str(s)
    return _norm_short(text) if len(text) <= _MEMO_LEN else _norm_text(text)


def _norm_text(s: str) -> str:
    t = " ".join(strip_markup(s).split()).casefold()
    t = t.strip("\"'\u201c\u201d\u2018\u2019 ")
    return t[:-1].rstrip() if t.endswith(".") and not t.endswith("..") else t


_norm_short = functools.lru_cache(maxsize=1 << 16)(_norm_text)


_PAREN_TAIL_RE = re.compile(r"\s*\([^()]*\)\s*$")


def norm_label(s: str) -> str:
    """A label for comparison: :func:`norm`, trailing colon removed."""
    return norm(s).rstrip(":").strip()


def label_keys(s: str) -> set[str]:
    """The forms a written label matches under: as written, and without a trailing parenthetical."""
    k = norm_label(s)
    return {k, norm_label(_PAREN_TAIL_RE.sub("", k))}


_MARKER_RE = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*\u2022+\u2013]\s+|\(?\d{1,2}[.)]\s+|\[[ xX]\]\s+)+")
_FACT_RE = re.compile(r"^(?P<label>[^:=|]{1,80}?)\s*(?::|=|\s[\u2013\u2014]\s)\s*(?P<value>.+?)\s*$")
_RULE_ROW_RE = re.compile(r"^[\s|:\-+=]+$")


_FOOTNOTE_DEF_RE = re.compile(r"^\s*\[\^(?P<id>[^\]\s]{1,12})\]:\s*(?P<text>.+?)\s*$")
_FOOTNOTE_REF_RE = re.compile(r"\[\^(?P<id>[^\]\s]{1,12})\]")


def _aside(text: str, head: str = "") -> str:
    """Text as one parenthetical aside (inner parentheses become brackets), named by its column header if any."""
    body = text.strip().replace("(", "[").replace(")", "]")
    return f"({head.strip()}: {body})" if head.strip() else f"({body})"


def _row_fact(cells: list[str], header: list[str] | None = None) -> tuple[str, str] | None:
    """A table row's fact: its first filled cell labels the next one; further filled cells follow the value as
    asides named by their column header ("7.1% (Alternative: 7.4%)"), so a row cannot offer a second value
    unread."""
    cells = [c.strip() for c in cells]
    filled = [(j, c) for j, c in enumerate(cells) if c]
    if len(filled) < 2:
        return None
    extra = [_aside(c, header[j] if header and j < len(header) else "") for j, c in filled[2:]]
    return filled[0][1], " ".join([filled[1][1], *extra])


def facts_from_lines(lines: list[str]) -> dict[str, list[str]]:
    """Labelled facts of a document given as lines: {label key: [values in order]} (see the module docstring).
    A Markdown footnote marker on a value ("7.1%[^1]") brings its footnote into the value as an aside."""
    out: dict[str, list[str]] = {}
    notes = {m.group("id"): m.group("text") for m in map(_FOOTNOTE_DEF_RE.match, lines) if m}

    def add(label: str, value: str) -> None:
        value = _FOOTNOTE_REF_RE.sub(lambda m: " " + _aside(notes[m.group("id")]) if m.group("id") in notes else "",
                                     value).strip()
        if not value:
            return
        for key in label_keys(_FOOTNOTE_REF_RE.sub("", label)):
            if key:
                out.setdefault(key, []).append(value)

    header: list[str] | None = None
    prev: list[str] | None = None
    for raw in lines:
        line = raw.strip()
        if not line:
            header = prev = None
            continue
        if _RULE_ROW_RE.match(line):
            if "|" in line and prev is not None:
                header = prev  # the row above a Markdown rule row names the columns
            continue
        if _FOOTNOTE_DEF_RE.match(line):
            continue
        if "|" in line or "\t" in line:
            cells = line.strip("|").split("|") if "|" in line else line.split("\t")
            fact = _row_fact(cells, header)
            if fact:
                add(*fact)
            prev = [c.strip() for c in cells]
            continue
        header = prev = None
        m = _FACT_RE.match(strip_markup(_MARKER_RE.sub("", line)))
        if m:
            add(m.group("label"), m.group("value"))
    return out


def _cell_text(v: Any) -> str:
    if v is None or isinstance(v, Uncomputed):
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).replace("|", "/").replace("\n", " ")


def sheet_lines(sheets: list[tuple[str, list[list[Any]]]]) -> list[str]:
    """Parsed sheets (name, rows of cells) as ``a | b`` lines for :func:`facts_from_lines`, each sheet's first row
    of two filled cells marked as its header."""
    out: list[str] = []
    for _, rows in sheets:
        out.append("")
        header = False
        for row in rows:
            cells = [_cell_text(v) for v in row]
            out.append(" | ".join(cells))
            if not header and sum(1 for c in cells if c.strip()) >= 2:
                out.append("|---|")
                header = True
    return out


def table_lines(text: str) -> list[str]:
    """CSV text (a csv file or an extracted workbook) as ``a | b`` lines for :func:`facts_from_lines`."""
    out: list[str] = []
    first = True
    for line in text.splitlines():
        if line.startswith("--- sheet:"):
            out.append("")  # a new sheet starts a new table
            first = True
            continue
        try:
            cells = next(csv.reader([line]))
        except (csv.Error, StopIteration):
            continue
        out.append(" | ".join(c.replace("|", "/") for c in cells))
        if first and sum(1 for c in cells if c.strip()) >= 2:  # a sheet's first row names its columns
            out.append("|---|")
            first = False
    return out
