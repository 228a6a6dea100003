"""Judging one labelled value or cell: numbers within a tolerance and sign convention, named options, lists.

The rules (stated once, used by :mod:`jobenv.judge.checks` and :mod:`jobenv.judge.tables`):

* Numbers compare within ``allowed`` (absolute); ``sign="either"`` compares magnitudes. Cells and expected
  values are read by :func:`jobenv.judge.reading.to_number` (``$1,234``, ``15.3%``, ``(12)``); text compares
  normalised (case, whitespace, markup, a final period).
* A field value's numbers come from its first clause ("-5.47 mmHg, 95% CI ..." reads -5.47), with asides
  ("(after removing 4 duplicates)") dropped unless they offer an alternative ("(or 41,300)"), and bases
  ("seven of the 12", "7/12", "312 out of 316", "53.7 per 100") and file names' digits ignored; words of a fall
  ("a decrease of 28", "down 28", "4,874 below budget") give a bare figure the minus an expected negative has;
  a worked value gives its result ("10/26 = 38.5%") and a comparison's figure is context ("38.5 vs 34.6"). One must be
  within the tolerance and none of the same magnitude (a tenth to ten times) outside it. A figure also reads in
  each unit the instructions name; for a percentage label, a proportion or a fraction of counts reads as its
  percentage. An aside's figure near the expected one (two thirds to one and a half times it) is a second answer
  unless it restates it rounded, is part of a breakdown summing to it, or is framed as context without a
  condition (``_aside_rivals``).
* A value is one answer: its first clause (asides included) must not offer another through "or" (the comparative
  "or more", "or below"... aside), "and/or", "either", "possibly", "perhaps", "maybe", "alternatively",
  "otherwise", "unless", "depending", "arguably", an alternative result ("on the rerun", "recount",
  "recalculated", "another reading"), a conditional "if" or a spaced slash ("a.xlsx / b.xlsx"); such a value fails
  whatever it names, for numbers, choices, identifiers, file names and lists alike.
* Options (yes/no, group names, decisions) are recognised as whole words, longer ones first, outside asides
  ("Professor (Associate Professor is next)" names Professor); a value naming two of them answers both ways,
  and so does an aside naming another option without comparing or ruling it out ("July (August on a stricter
  reading)", unlike "July (August next)") or a later clause offering one as possible ("July, though August is
  possible"). Lists are read by naming options, else split on ``;``, ``,``, ``and``, ``/``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..check_models import FieldCheck
from .reading import SCALE_FACTORS, Num, Uncomputed, find_numbers, norm, to_number

__all__ = ["Verdict", "close", "allowed", "equal", "show", "mentions", "judge_field_value"]

Verdict = tuple[bool, str]

def close(x: float, want: float, allowed: float, sign: str) -> bool:
    if sign == "either":
        x, want = abs(x), abs(want)
    return abs(x - want) <= allowed + 1e-9 * max(1.0, abs(want))


def allowed(c: Any, value: float) -> float:
    return max(c.tolerance, c.rel_tolerance * abs(value))


def equal(actual: Any, expected: Any, tol: float, sign: str = "exact", scales: frozenset[str] = frozenset()) -> bool:
    """Numbers within ``tol`` (when both read as numbers; a figure also in each unit of ``scales``, the units the
    instructions name: "$42.853 million" is 42.853 in millions), else normalised text equality."""
    if isinstance(actual, Uncomputed):
        return False
    a, e = to_number(actual), to_number(expected)
    if a is not None and e is not None:
        return any(close(x, e, tol, sign) for x in [a, *(a / SCALE_FACTORS[u] for u in scales
                                                        if abs(a) >= SCALE_FACTORS[u])])
    if actual is None or (isinstance(actual, str) and not actual.strip()):
        return expected is None or (isinstance(expected, str) and not expected.strip())
    if isinstance(actual, float) and actual.is_integer():
        actual = int(actual)
    return norm(actual) == norm(expected)


def show(v: Any) -> str:
    return str(v) if isinstance(v, Uncomputed) else repr(v)


def mentions(value: str, options: Sequence[str]) -> list[str]:
    """The options named in ``value`` (whole words, case-insensitive; longer options first)."""
    text = " " + norm(value) + " "
    found = []
    for opt in sorted({norm(o) for o in options if norm(o)}, key=len, reverse=True):
        pat = re.compile(r"(?<![^\W_])(?<!-)" + re.escape(opt) + r"(?![^\W_])(?!-)")
        if pat.search(text):
            found.append(opt)
            text = pat.sub(" \u2588 ", text)
    return found


_ASIDE_RE = re.compile(r"(?<=\S)\s*\(([^()]*[A-Za-z][^()]*)\)")
_HEDGE_RE = re.compile(r"\b(or|alternatively|possibly|maybe|either)\b", re.IGNORECASE)


def _drop_asides(value: str) -> str:
    """Parenthetical asides with words removed, unless they offer an alternative ("(or 41,300)")."""
    return _ASIDE_RE.sub(lambda m: m.group(0) if _HEDGE_RE.search(m.group(1)) else " ", value)


# a clause that starts with one of these continues the answer (it offers another): it is not an explanation
_HEDGE_STARTS = r"or|and/or|alternatively|possibly|perhaps|maybe|either|unless|otherwise|depending|if"
_CLAUSE_RE = re.compile(r"(?:[,;:]|\s[-\u2013\u2014]|\.)\s+(?=[A-Za-z]|\d+%?\s*[A-Za-z])"
                        rf"(?!(?:{_HEDGE_STARTS})\b)",
                        re.IGNORECASE)
# a list's items are separated by "," and ";": its explanation starts only at a dash, a colon or a full stop
_LIST_CLAUSE_RE = re.compile(r"(?::|\s[-\u2013\u2014]|\.)\s+(?=[A-Za-z]|\d+%?\s*[A-Za-z])"
                             rf"(?!(?:{_HEDGE_STARTS})\b)",
                             re.IGNORECASE)


_BASE_RE = re.compile(r"(?:\b(?:of|out of|from|per)(?:\s+the)?\s*|/\s*)$", re.IGNORECASE)
_BASE_GAP_RE = re.compile(r"[\s%]*(?:[A-Za-z]+\s+){0,3}?(?:of|out of|from|per)(?:\s+the)?\s*|\s*/\s*", re.IGNORECASE)
# a file name's digits ("records_2024-06-30.xlsx") are part of a name, not candidates
_FILE_NAME_RE = re.compile(r"[\w./-]*\w\.(?:xlsx|xlsm|xls|csv|tsv|docx|doc|pdf|pptx|md|txt|json|db|sqlite|ipynb|png|"
                           r"jpe?g)\b", re.IGNORECASE)
# words that give a positive figure the sign of a fall ("a decrease of 28", "down 28" for -28)
_DECREASE_RE = re.compile(r"\b(?:decrease[sd]?|decline[sd]?|down|fell|fall(?:en|s)?|drop(?:ped|s)?|lower|"
                          r"reduc(?:ed|tion)|shortfall|deficit|under|below|favou?rable|savings?)\b", re.IGNORECASE)
# a comparison's figure is context: "38.5 vs 34.6 last year", "38.5, up from 34.6"
_COMPARED_RE = re.compile(r"\b(?:vs\.?|versus|compared (?:with|to)|against|(?:up|down) from|than)\s", re.IGNORECASE)


def _value_numbers(value: str) -> list[tuple[Num, float | None]]:
    """The numbers of a field value's first clause ("-5.47 mmHg, 95% CI ..." reads -5.47), asides dropped, each with
    the base it is taken from ("103 of 617", "103/617"), if any."""
    v = strip = value.strip()
    if strip.startswith("(") and strip.endswith(")") and len(find_numbers(strip[1:-1], words=False)) > 1:
        v = strip[1:-1]
    v = _FILE_NAME_RE.sub(" ", _drop_asides(v))
    m = _CLAUSE_RE.search(v)
    if m and find_numbers(v[: m.start()]):
        v = v[: m.start()]
    if "=" in v and find_numbers(v.rsplit("=", 1)[1]):  # a worked value ("10/26 = 38.5%") gives its result
        v = v.rsplit("=", 1)[1]
    m = _COMPARED_RE.search(v)
    if m and find_numbers(v[: m.start()]):
        v = v[: m.start()]
    # a base the answer is taken from ("seven of the 12", "7/12", "312 out of 316", "53.7 per 100") is context, not
    # a candidate: a number right after another number and "of", "out of", "from", "per" or "/"
    found = find_numbers(v)
    out: list[tuple[Num, float | None]] = []
    for i, n in enumerate(found):
        if i and _BASE_RE.search(v[: n.start]) and _BASE_GAP_RE.fullmatch(v[found[i - 1].end: n.start]):
            if out and out[-1][0] is found[i - 1] and not re.search(r"\bper\b", v[found[i - 1].end: n.start]):
                out[-1] = (found[i - 1], n.value)
            continue
        out.append((n, None))
    return out


def _same_quantity(x: float, want: float) -> bool:
    if want == 0:
        return abs(x) <= 10
    return 0.1 <= abs(x) / abs(want) <= 10


_PERCENT_LABEL_RE = re.compile(r"%|\bper\s?cent|\bpercentage\b|\brate\b|\bshare\b|\bproportion\b", re.IGNORECASE)


def _readings(n: Num, base: float | None, scales: frozenset[str], percent: bool) -> list[float]:
    """A number's values: as written, and in every unit the instructions name ("$42.853 million" and "$42,853,000"
    are 42.853 where the figure is asked for in millions); for a field that asks for a percentage, a proportion
    (0.167) or a fraction of counts (103/617, 103 of 617) also as its percentage; a figure with "m" or "mm" and no
    currency sign also as metres or millimetres (the unscaled figure)."""
    out = [n.value] + [n.value / SCALE_FACTORS[u] for u in scales if abs(n.value) >= SCALE_FACTORS[u]]
    if n.length_unit:  # "19.05 mm" with no currency: millimetres as likely as millions
        out.append(n.value / SCALE_FACTORS[n.scale])
    if percent and not n.pct:
        if base:
            out.append(n.value / base * 100)
        elif 0 < abs(n.value) < 1:
            out.append(n.value * 100)
    return out


def _restates(text: str, n: Num, want: float, tol: float) -> bool:
    """Whether a figure written as ``text`` is ``want`` at the precision it is written to ("1.23 million" for
    1,234,567.25; "about 4.9k" for 4,874): an aside restating the answer rounded, not a second answer."""
    m = re.search(r"\d+(?:[.,](\d+))?", text[n.start:n.end])
    if not m:
        return False
    decimals = len(m.group(1) or "") if m.group(1) and not re.fullmatch(r"\d{3}", m.group(1) or "") else 0
    factor = SCALE_FACTORS.get(n.scale, 1.0)
    return abs(abs(n.value) - abs(want)) <= 0.5 * 10 ** -decimals * factor + tol


# an aside or footnote figure that is context, not a second answer: a comparison, a prior or planned figure, a
# statistic around the answer, a superseded value
_NUMBER_CONTEXT_RE = re.compile(
    r"\b(?:vs\.?|versus|compared|than|from|prior|previous(?:ly)?|last|before|after|was|were|original(?:ly)?|"
    r"initial(?:ly)?|budget(?:ed)?|plan(?:ned)?|target|forecast|limit|threshold|cap|baseline|benchmark|stale|"
    r"superseded|old|change|delta|difference|ci|confidence|interval|range|se|sd|iqr|median|base|denominator|"
    r"numerator|of|out of|per|excluded|excluding|removed|less|minus|plus|including|included|gross|net|raw|"
    r"randomi[sz]ed|enrolled|screened|received|delivered|loaded|extracted|input|source|raw|rows?|records?|"
    r"duplicates?|dedup\w*|total|subtotal|rounded|approx(?:imately)?|about|roughly|nearly|around|circa|"
    r"not|no longer|replac\w+|supersed\w+|correct(?:ed|ion)|error|wrong|incorrect|typo|stated|said|says|"
    r"claimed|quoted|proposed|requested|request|draft|assumed|expected|reported|according|"
    r"i\.e\.|ie|\u2248|~|q[1-4]|fy\d{0,4}|h[12]|ytd|quarter|month|year|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*)(?!\w)|(?<![\w-])(?:19|20)\d{2}(?![\w-])",
    re.IGNORECASE)


# a figure offered under a condition is a second answer whatever else the aside says
_CONDITION_RE = re.compile(r"\b(?:if|when|whenever|assuming|counting|treating|under|on (?:a|an|the)|using|with(?:out)? the|"
                           r"instead|alternatively|or)\b", re.IGNORECASE)


def _aside_rivals(value: str, wants: list[float], c: Any, scales: frozenset[str], percent: bool) -> list[float]:
    """Figures an aside or footnote of the value's first clause offers for the same fact: near an expected value
    (two thirds to one and a half times it; under a condition, also within three of it), not a breakdown summing to it, not within its tolerance, not a restatement of it and not framed as context (see
    ``_NUMBER_CONTEXT_RE``). "7.1% (7.4% on a stricter count)" offers 7.4; "(95% CI 4.1 to 6.8)" offers none."""
    out = []
    for aside in _ASIDE_RE.findall(_first_clause(value)):
        aside = _FILE_NAME_RE.sub(" ", aside)
        conditional = bool(_CONDITION_RE.search(aside))
        if _NUMBER_CONTEXT_RE.search(aside) and not conditional:
            continue
        found = find_numbers(aside)
        if len(found) > 1 and any(close(sum(n.value for n in found), w, allowed(c, w), c.sign) for w in wants):
            continue  # a breakdown of the answer ("96 (Placebo 49, Active 47)")
        for n in found:
            for w in wants:
                tol = allowed(c, w)
                xs = _readings(n, None, scales, percent)
                if any(close(x, w, tol, c.sign) for x in xs) or _restates(aside, n, w, tol):
                    continue
                # a small count offered under a condition is a rival however far in ratio ("1 (2 if ...)")
                if any((2 / 3 <= abs(x) / abs(w) <= 1.5 or conditional and abs(x - w) <= 3) if w else abs(x) <= 10
                       for x in xs):
                    out.append(n.value)
    return out


def _judge_numbers(value: str, wants: list[float], c: Any, scales: frozenset[str] = frozenset()) -> Verdict:
    found = _value_numbers(value)
    percent = bool(_PERCENT_LABEL_RE.search(" ".join(c.labels)))
    sign = -1.0 if (c.sign == "exact" and any(w < 0 for w in wants)
                    and _DECREASE_RE.search(_first_clause(value))) else 1.0
    # the words of a fall carry the sign the figure leaves out
    readings = [[sign * x if x > 0 else x for x in _readings(n, base, scales, percent)] for n, base in found]
    nums = [r[0] for r in readings]
    used: set[int] = set()
    for w in wants:
        tol = allowed(c, w)
        hit = next((i for i, xs in enumerate(readings) if i not in used
                    and any(close(x, w, tol, c.sign) for x in xs)), None)
        if hit is None:
            return False, f"{value!r} does not give {w:g} (+/- {tol:g})"
        used.add(hit)
    rivals = [nums[i] for i, xs in enumerate(readings)
              if i not in used and any(_same_quantity(x, w) for x in xs for w in wants)]
    rivals += _aside_rivals(value, wants, c, scales, percent)
    if rivals:
        return False, f"{value!r} gives competing values {', '.join(f'{x:g}' for x in rivals)}"
    return True, f"{value!r}"


_LIST_SPLIT_RE = re.compile(r"\s*(?:;|,|\band\b|&|/|\n)\s*", re.IGNORECASE)
_NONE_WORDS = {"none", "nil", "n/a", "na", "-", "\u2014", "no groups", "nothing", "0"}


_NONE_RE = re.compile(r"^(none|nil|n/?a|nothing|no\b|zero|0\b|-|\u2014|\u2013)", re.IGNORECASE)


def _says_none(value: str) -> bool:
    """An empty list stated as such ("none", "n/a", "no group ..."), not a placeholder."""
    return bool(_NONE_RE.match(norm(value)))


def _items(value: str, options: Sequence[str] | None) -> list[str]:
    """The items a list value names, before any explanation ("A; B - both above the limit")."""
    value = _first_clause(value, listing=True)
    if options:
        return mentions(_drop_asides(value), options)
    v = norm(_drop_asides(value))
    if v in _NONE_WORDS:
        return []
    return [i for i in (norm(p) for p in _LIST_SPLIT_RE.split(v)) if i]


_FOLDER_PREFIX_RE = re.compile(r"^(?:/workspace/)?(?:\./)?(?:task_folder/|output/)")


# A labelled value is one answer. In its first clause (asides included) these offer a second one: "or" (not the
# comparative "or more", "or below"...), "and/or", hedging adverbs, a conditional, or a spaced slash between two.
_COMPARATIVE = r"more|less|fewer|greater|higher|lower|above|below|over|under|later|earlier|equal|so|longer|shorter"
_ALTERNATIVE_RE = re.compile(
    rf"\band\s*/\s*or\b|\bor\b(?!\s+(?:{_COMPARATIVE})\b)|\b(?:either|possibly|perhaps|maybe|alternatively|"
    r"otherwise|unless|depending|arguably|alternate|alternative(?!\s+to\b)|re-?run|second run|recount|"
    r"to be (?:confirmed|determined|decided)|tb[cd]|not (?:yet )?(?:determined|confirmed)|undetermined|"
    r"provisional(?:ly)?|tentative(?:ly)?|"
    r"recalculat\w*|(?:an)?other (?:reading|interpretation)|(?:under|on) (?:a|an|the) [\w-]+ (?:reading|basis|"
    r"interpretation|assumption|method|definition|view))\b|(?<!\beven )(?<!\bas )\bif\b|\S\s+/\s+\S",
    re.IGNORECASE)


def _first_clause(value: str, *, listing: bool = False) -> str:
    """The value up to its first clause break outside parentheses (an aside belongs to the clause it opens in);
    with ``listing``, the whole list of items before any explanation."""
    depth, masked = 0, []
    for ch in value:
        depth += ch == "("
        masked.append("_" if depth > 0 and ch not in "()" else ch)
        depth -= ch == ")" and depth > 0
    m = (_LIST_CLAUSE_RE if listing else _CLAUSE_RE).search("".join(masked))
    return value[: m.start()] if m else value


def _alternative(value: str, *, listing: bool = False) -> str | None:
    """The wording by which ``value`` offers more than one answer, or None (see ``_ALTERNATIVE_RE``)."""
    m = _ALTERNATIVE_RE.search(_first_clause(value, listing=listing))
    return m.group(0).strip() if m else None


# an aside naming another allowed answer only compares or rules it out when it says so
_CONTRAST_RE = re.compile(
    r"\b(?:next|nearest|second|third|runner-up|behind|ahead|below|above|lower|higher|than|not|no|excluded|"
    r"ruled out|rejected|vs\.?|versus|compared|from|previous(?:ly)?|prior|last|earlier|later|after|before|"
    r"also reviewed|other side|closest|trails?|follow(?:s|ed)?|only|supersed(?:es|ed|ing)|replac(?:es|ed|ing)|instead|"
    r"rather than|overrid(?:es|den|ing)|stale|outdated|obsolete|old|out of date|discarded|ignored|retired|withdrawn|"
    r"wrong|incorrect|invalid|dated)\b", re.IGNORECASE)


_POSSIBLE_RE = re.compile(r"\b(?:possible|possibly|could|might|may|maybe|perhaps|alternatively|either|or|if|"
                          r"arguably|also (?:valid|acceptable|defensible|correct))\b", re.IGNORECASE)


def _without(text: str, options: Sequence[str]) -> str:
    """``text`` with the allowed answers it names blanked out."""
    out = " " + norm(text) + " "
    for opt in sorted({norm(o) for o in options if norm(o)}, key=len, reverse=True):
        out = re.sub(r"(?<![^\W_])(?<!-)" + re.escape(opt) + r"(?![^\W_])(?!-)", " ", out)
    return out


def _aside_alternative(value: str, options: Sequence[str], single: bool) -> str | None:
    """An aside that names an allowed answer the value does not give, without comparing or ruling it out
    ("July (August on a stricter reading)"), or a later clause (after a ``single`` answer, or after a list's
    items) that offers one as possible or names it without a comparison ("July, though August is possible",
    "Professor. Assistant Professor."), or None."""
    first = _first_clause(value, listing=not single)
    main = set(mentions(_drop_asides(first), options)) or set(mentions(_drop_asides(_appositive(value)), options))
    for aside in _ASIDE_RE.findall(value):
        others = [o for o in mentions(aside, options) if o not in main]
        if others and not _CONTRAST_RE.search(_without(aside, options)):  # the answer "no" is no contrast
            return others[0]
    later = value[len(first):]
    others = [o for o in mentions(_drop_asides(later), options) if o not in main]
    if others and (_POSSIBLE_RE.search(later) or not _CONTRAST_RE.search(later)):
        return others[0]
    return None


def _appositive(value: str) -> str:
    """The first sentence of a value, asides dropped, without its later clauses that contrast or rule out (see
    ``_CONTRAST_RE``)."""
    sentence = re.split(r"(?<=\w)[.;]\s|[.;]$", _drop_asides(value), maxsplit=1)[0]
    parts = re.split(r",\s+|\s[-\u2013\u2014]\s", sentence)
    return " ".join([parts[0], *(p for p in parts[1:] if not _CONTRAST_RE.search(p))])


_ID_MARK_RE = re.compile(r"(?:#|\bno\.\s*|\b(?:no|number|nr\.?|ref\.?)\s*(?=\d))(?=\w)", re.IGNORECASE)
_TOKEN_RE = re.compile(r"[\w][\w.\-/]*\w|\w")


def _shape(token: str) -> str:
    """A token's form: letters as one "a" per run, every digit as "9" ("JE-2026-10670" -> "a-9999-99999")."""
    return re.sub(r"a+", "a", re.sub(r"[A-Za-z]", "a", re.sub(r"\d", "9", token)))


def _judge_token(value: str, expected: str) -> Verdict:
    """A text answer without options (an identifier, a file name, a name): the value's first sentence gives it as a
    whole token ("#10452", "check no. 10452", "the Strategic Sourcing PDF, supplier_schedule.pdf", a file named
    with its folder) and gives no other token of its kind (another file name, another id of the same shape)."""
    want = norm(expected)
    v = norm(value)
    if "/" not in want:  # a file named with the folder it is in is the same file
        v = _FOLDER_PREFIX_RE.sub("", v)
        v = re.sub(r"(?<![\w.])(?:/workspace/)?(?:\./)?(?:task_folder|output)/", "", v)
    if v == want:
        return True, repr(value)
    head = norm(_drop_asides(_appositive(_ID_MARK_RE.sub("", v))))
    pat = re.compile(r"(?<![\w-])" + re.escape(want) + r"(?![\w-]|\.\w)")
    if not pat.search(head):
        return False, f"{value!r} is not {expected!r}"
    # the rest of the first sentence, and its asides (a further table cell, a footnote) that do not contrast
    rest = [pat.sub(" ", head), *(norm(a) for a in _ASIDE_RE.findall(_first_clause(v)) if not _CONTRAST_RE.search(a))]
    for text in rest:
        if _FILE_NAME_RE.fullmatch(want):
            other = _FILE_NAME_RE.search(pat.sub(" ", text))
        else:
            other = next((m for m in _TOKEN_RE.finditer(pat.sub(" ", text)) if _shape(m.group(0)) == _shape(want)
                          and any(ch.isdigit() for ch in want)), None)
        if other:
            return False, f"{value!r} gives {other.group(0)!r} beside {expected!r}"
    return True, repr(value)


def _aside_list(value: str, got: set[str], expected: Sequence[str]) -> str | None:
    """An aside of a list value (a further table cell) that is itself a competing list, or None: it splits into
    items and names one the value lists beside others, or one shaped like an expected item ("JE-2026-10671") that
    the value does not list, without contrasting or ruling it out ("(JE-2026-10670; all others)")."""
    shapes = {_shape(norm(i)) for i in expected}
    for aside in _ASIDE_RE.findall(_first_clause(value, listing=True)):
        if _CONTRAST_RE.search(aside) and not _CONDITION_RE.search(aside):
            continue
        items = {i for i in (norm(p) for p in _LIST_SPLIT_RE.split(norm(aside))) if i}
        if items == got:
            continue
        if (len(items) > 1 and items & got) or any(_shape(i) in shapes and i not in got for i in items):
            return aside
    return None


def judge_field_value(c: FieldCheck, value: str, scales: frozenset[str] = frozenset()) -> Verdict:
    """Whether one labelled value passes ``c`` (see the module docstring); ``scales`` are the units the task's
    instructions name (:func:`jobenv.judge.reading.stated_scales`)."""
    listing = c.items is not None or c.contains is not None or c.excludes is not None
    hedge = (_alternative(value, listing=listing)
             or (_aside_alternative(value, c.options, c.equals is not None) if c.options else None))
    if hedge is not None:
        return False, f"{value!r} offers more than one answer ({hedge!r}): a labelled value is one answer"
    if c.equals is not None:
        want = norm(c.equals)
        if c.options:
            # the answer is in the first clause (or, when that names none, in the clauses of the first sentence
            # that name the same thing: "the Strategic Sourcing PDF, supplier_schedule.pdf"); later clauses explain
            # (a second answer there failed above)
            named = mentions(_drop_asides(_first_clause(value)), [*c.options, c.equals])
            if not named:
                named = mentions(_drop_asides(_appositive(value)), [*c.options, c.equals])
            if named == [want]:
                return True, repr(value)
            return False, f"{value!r} names {named or 'none'} of the allowed answers (expected {c.equals!r})"
        return _judge_token(value, c.equals)
    if c.number is not None:
        return _judge_numbers(value, [c.number], c, scales)
    if c.numbers is not None:
        return _judge_numbers(value, list(c.numbers), c, scales)
    if c.mentions is not None:
        named = mentions(value, c.mentions)
        return (True, repr(value)) if named else (False, f"{value!r} names none of {c.mentions}")
    got = set(_items(value, c.options))
    rival = None if c.options else _aside_list(value, got, [*(c.items or []), *(c.contains or [])])
    if rival is not None:
        return False, f"{value!r} offers a second list in an aside ({rival!r}): a labelled value is one answer"
    if c.items is not None:
        want_set = {norm(i) for i in c.items}
        if not want_set:  # "none", whatever explanation follows (a second answer failed above), naming no option
            if _says_none(value) and not (c.options and got):
                return True, repr(value)
            return False, f"{value!r} does not say none"
        if got == want_set:
            return True, repr(value)
        return False, f"{value!r} lists {sorted(got)} (expected {sorted(want_set)})"
    missing = [i for i in (c.contains or []) if norm(i) not in got]
    extra = [i for i in (c.excludes or []) if norm(i) in got]
    if missing or extra:
        return False, f"{value!r}" + (f" lacks {missing}" if missing else "") + (f" lists {extra}" if extra else "")
    return True, repr(value)
