"""How a spreadsheet shows a number: the display text of a value under its cell's number format (``12.5%``,
``$82,500.00``, ``($3,000.00)``), as a judge reading the workbook in Excel or LibreOffice would see it.

Covers the formats workbooks use for figures: sections (positive;negative;zero), digit placeholders ``0 # ?``,
decimals, thousands separators and trailing-comma scaling, percent, scientific notation, quoted and escaped
literals, ``_x`` padding, ``*x`` fills, colours and ``[$€-407]`` currency tags. Anything else (dates and times,
fractions, conditions, text sections) gives None: the caller then shows the value alone. Never raises.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

__all__ = ["display_text"]

_COLOUR_RE = re.compile(r"^(black|blue|cyan|green|magenta|red|white|yellow|color\s*\d+)$", re.IGNORECASE)
_DATE_CHARS = frozenset("dmyhsDMYHSAaPp")  # outside quotes: a date or time format
_FRACTION_RE = re.compile(r"[#0?]\s*/\s*[#0?\d]")


def display_text(value: object, number_format: str | None) -> str | None:
    """The text ``value`` shows under ``number_format``, or None (General, a non-number, an unsupported format)."""
    if number_format is None or not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    fmt = number_format.strip()
    if not fmt or fmt.lower() == "general":
        return None
    try:
        sections = _split_sections(fmt)
        if sections is None or len(sections) > 4:
            return None
        if value > 0 or len(sections) == 1:
            section, sign = sections[0], "-" if value < 0 else ""
        elif value < 0:
            section, sign = sections[1], ""
        else:
            section, sign = (sections[2] if len(sections) > 2 else sections[0]), ""
        tokens = _tokens(section)
        if tokens is None:
            return None
        return _render(abs(Decimal(repr(float(value)))), tokens, sign).strip()
    except (InvalidOperation, ValueError, OverflowError):
        return None


def _split_sections(fmt: str) -> list[str] | None:
    sections, current, i = [], "", 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == '"':
            end = fmt.find('"', i + 1)
            if end < 0:
                return None
            current += fmt[i:end + 1]
            i = end + 1
            continue
        if ch == "\\" and i + 1 < len(fmt):
            current += fmt[i:i + 2]
            i += 2
            continue
        if ch == ";":
            sections.append(current)
            current = ""
        else:
            current += ch
        i += 1
    sections.append(current)
    return sections


def _tokens(section: str) -> list[tuple[str, str]] | None:
    """(kind, text) pieces: ``lit`` literal text, ``num`` a placeholder character (0 # ? . , E+ E- %)."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(section):
        ch = section[i]
        if ch == '"':
            end = section.index('"', i + 1)
            out.append(("lit", section[i + 1:end]))
            i = end + 1
        elif ch == "\\" and i + 1 < len(section):
            out.append(("lit", section[i + 1]))
            i += 2
        elif ch == "_" and i + 1 < len(section):
            out.append(("lit", " "))
            i += 2
        elif ch == "*" and i + 1 < len(section):
            i += 2  # a fill: its width depends on the column, not the value
        elif ch == "[":
            end = section.index("]", i)
            tag = section[i + 1:end]
            if tag.startswith("$"):
                out.append(("lit", tag[1:].split("-", 1)[0]))
            elif not _COLOUR_RE.match(tag):
                return None  # a condition or an elapsed-time field
            i = end + 1
        elif ch in "Ee" and i + 1 < len(section) and section[i + 1] in "+-":
            out.append(("num", "E" + section[i + 1]))
            i += 2
        elif ch in "0#?.,%":
            out.append(("num" if ch != "%" else "pct", ch))
            i += 1
        elif ch in _DATE_CHARS or ch == "@":
            return None
        else:
            out.append(("lit", ch))
            i += 1
    if _FRACTION_RE.search(section):
        return None
    return out  # a section without placeholders (a zero shown as "-") is its literal text


def _render(value: Decimal, tokens: list[tuple[str, str]], sign: str) -> str:
    placeholders = [t for k, t in tokens if k == "num"]
    value *= Decimal(100) ** sum(1 for k, _ in tokens if k == "pct")
    if "E+" in placeholders or "E-" in placeholders:
        number = _scientific(value, placeholders)
    else:
        number = _fixed(value, placeholders)
    if sign and not any(ch in "123456789" for ch in number):
        sign = ""  # a negative that displays as zero shows no minus
    text, placed = sign, False
    for kind, piece in tokens:
        if kind == "num":
            if not placed:
                text += number
                placed = True
        elif kind == "pct":
            text += "%"
        else:
            text += piece
    return text


def _fixed(value: Decimal, placeholders: list[str]) -> str:
    # trailing commas after the last digit placeholder scale by 1000 each
    while placeholders and placeholders[-1] == ",":
        placeholders = placeholders[:-1]
        value /= 1000
    if "." in placeholders:
        cut = placeholders.index(".")
        whole, frac = placeholders[:cut], [p for p in placeholders[cut + 1:] if p in "0#?"]
    else:
        whole, frac = placeholders, []
    grouped = "," in whole
    rounded = value.quantize(Decimal(1).scaleb(-len(frac)), rounding=ROUND_HALF_UP)
    int_part, _, frac_part = f"{rounded:f}".partition(".")
    min_int = sum(1 for p in whole if p == "0")
    int_part = int_part.lstrip("0") or ""
    int_part = int_part.rjust(min_int, "0")
    if grouped and int_part:
        int_part = f"{int(int_part):,}".rjust(min_int, "0")
    if frac:
        # optional decimals (#) drop trailing zeros; required ones (0, ?) stay
        frac_part = frac_part.ljust(len(frac), "0")
        required = max((i + 1 for i, p in enumerate(frac) if p in "0?"), default=0)
        kept = frac_part.rstrip("0")
        frac_part = kept.ljust(required, "0") if len(kept) < required else kept
        return f"{int_part}.{frac_part}" if frac_part else f"{int_part}."
    return int_part  # "#" shows nothing for zero, "0" shows 0 (min_int)


def _scientific(value: Decimal, placeholders: list[str]) -> str:
    cut = placeholders.index("E+") if "E+" in placeholders else placeholders.index("E-")
    mantissa, exponent = placeholders[:cut], placeholders[cut + 1:]
    point = mantissa.index(".") if "." in mantissa else len(mantissa)
    whole = [p for p in mantissa[:point] if p in "0#?"]
    decimals = len([p for p in mantissa[point + 1:] if p in "0#?"])
    digits = max(1, len([p for p in exponent if p in "0#?"]))
    exp = 0 if value == 0 else value.adjusted()
    if len(whole) > 1 and "#" in whole:
        exp -= exp % len(whole)  # engineering notation: the exponent is a multiple of the integer digits
    mant = (value.scaleb(-exp)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    if value != 0 and mant >= Decimal(10) ** max(1, len(whole) if "#" in whole else 1):
        exp += len(whole) if len(whole) > 1 and "#" in whole else 1  # rounding carried into a new digit
        mant = (value.scaleb(-exp)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    exp_sign = "-" if exp < 0 else ("+" if placeholders[cut] == "E+" else "")
    return f"{mant:f}E{exp_sign}{str(abs(exp)).rjust(digits, '0')}"
