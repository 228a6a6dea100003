"""Documents and keying noise of the double-key verification workflow: the Z1.4 tables, the field spec (current v3
and superseded v2), the QC procedure, the enrolment forms' true values and the keyers' slips.

Failure behaviour: pure functions of their arguments; none raises on the inputs ``doublekey.draw`` gives them.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

__all__ = ["FIELDS", "DATES", "table_one", "table_two", "spec_lines", "procedure_lines", "true_record", "slip",
           "benign"]

FIELDS = ("last_name", "first_name", "middle_initial", "dob", "member_id", "street", "city", "state", "zip", "phone",
          "plan_code", "group_number", "premium", "effective_date", "signature_date")
DATES = ("dob", "effective_date", "signature_date")

# ANSI/ASQ Z1.4 Table I (sample size code letters), general inspection levels I-III
_TABLE_I = ((2, 8, "AAB"), (9, 15, "ABC"), (16, 25, "BCD"), (26, 50, "CDE"), (51, 90, "CEF"), (91, 150, "DFG"),
            (151, 280, "EGH"), (281, 500, "FHJ"), (501, 1200, "GJK"), (1201, 3200, "HKL"), (3201, 10000, "JLM"),
            (10001, 35000, "KMN"), (35001, 150000, "LNP"), (150001, 500000, "MPQ"), (500001, None, "NQR"))
_LETTERS = "ABCDEFGHJKLMNPQR"
_SIZES = (2, 3, 5, 8, 13, 20, 32, 50, 80, 125, 200, 315, 500, 800, 1250, 2000)
# Table II-A (single sampling, normal inspection): the row of each AQL's 0/1 plan; down the column the plans follow
# 0/1, up-arrow, down-arrow, 1/2, 2/3, 3/4, 5/6, 7/8, 10/11, 14/15, 21/22, then up-arrows
_AQL_FIRST = {"0.40": "G", "0.65": "F", "1.0": "E", "1.5": "D", "2.5": "C", "4.0": "B"}
_RUN = ("0/1", "↑", "↓", "1/2", "2/3", "3/4", "5/6", "7/8", "10/11", "14/15", "21/22")


def table_one() -> tuple[list[str], list[list[Any]]]:
    return ["lot_from", "lot_to", "I", "II", "III"], [[a, "" if b is None else b, *ls] for a, b, ls in _TABLE_I]


def table_two() -> tuple[list[str], list[list[Any]]]:
    head = ["code_letter", "sample_size", *_AQL_FIRST]
    rows = []
    for i, (c, n) in enumerate(zip(_LETTERS, _SIZES)):
        row: list[Any] = [c, n]
        for first in _AQL_FIRST.values():
            k = i - _LETTERS.index(first)
            row.append("↓" if k < 0 else _RUN[k] if k < len(_RUN) else "↑")
        rows.append(row)
    return head, rows


def spec_lines(P: dict[str, Any], current: bool) -> list[str]:
    b = P["batch"]
    if not current:
        return [f"Member enrolment form keying - field specification v2 (issued {P['v2_date']}; SUPERSEDED by v3 on "
                f"{P['v3_date']})",
                "Comparison of first and second keying:",
                "- Leading and trailing spaces ignored; letters compared without regard to case.",
                "- Dates (DOB, effective date, signature date): converted to a calendar date before comparison, so "
                "3/7/2024 and 03/07/2024 are the same value; dates are loaded as YYYY-MM-DD.",
                "- Numeric and ID fields (member ID, ZIP, phone, group number): the letter O is read as the digit zero "
                "(the OCR pre-fill cannot tell them apart), so a keyed O is not a discrepancy.",
                "- Phone: digits only. Premium: as an amount to cents.",
                "Error rate: discrepancies divided by fields keyed."]
    return [
        f"Member enrolment form keying - field specification v3 (effective {P['v3_date']}; replaces v2). Applies to "
        f"every batch keyed on or after that date, batch {b} included.",
        "General: key every field exactly as written on the form. Before first and second keying are compared, each "
        "value is normalised: leading and trailing spaces removed, runs of spaces inside a value reduced to one, "
        "letters compared in upper case. Nothing else is changed unless the field's rule below says so.",
        "last_name, first_name, middle_initial, street, city: text, upper case. state: two-letter USPS code. "
        "plan_code: as printed (e.g. PPO-2).",
        "dob, effective_date, signature_date: keep dates as written on the form, MM/DD/YYYY with two-digit month and "
        "day. Dates are compared as keyed text: 3/7/2024 or 2024-03-07 for a form reading 03/07/2024 is a keying "
        "error. (The v2 conversion to calendar dates is withdrawn: it hid format errors the claims system rejects.)",
        "member_id: three letters then six digits; the letters never include I or O. zip: five-digit text. "
        "group_number: six-digit text. Leading zeros are part of these values (02134, 004417) and must never be "
        "dropped; open keying exports as text, not numbers. The letter O and the digit 0 are different characters "
        "in every field: a keyed O in place of a zero is an error (v2's O-as-zero reading is withdrawn).",
        "phone: compared on its letters and digits only (parentheses, dashes, dots and spaces removed); the upload "
        "carries the ten digits.",
        "premium: dollar sign and thousands separators removed and compared as an amount to cents (125.5 = 125.50); "
        "the upload carries two decimals.",
        "Stored (upload) form of every field: the normalised value above.",
    ]


def procedure_lines(P: dict[str, Any]) -> list[str]:
    return [
        f"QC procedure DK-04 (rev. {P['v3_date']}): double-key verification and lot acceptance",
        "1. Discrepancies: a field is a discrepancy when the first and second keying differ after the current field "
        "spec's normalisation. The adjudication log lists every field whose raw exports differ (spaces and case "
        "included); an adjudicator keyed the value from the image.",
        "2. Final value of a field: the QC source-verification value where the document was verified against the "
        "image; otherwise the adjudicated value where the keyings disagree; otherwise the value both keyers agree "
        "on. A field both keyers agree on can still be wrong: verification against the image decides.",
        "3. Keyer error: a keyer erred on a field when the keyer's normalised value differs from the final value, "
        "whichever pass the keyer keyed (first and second keying are independent; neither is the reference). "
        "Field error rate = fields in error / fields keyed by the keyer (15 per document keyed), in per cent to "
        "three decimals. Character error rate = sum of Levenshtein distances between the keyer's normalised value "
        "and the final value / total characters of the final values of the fields the keyer keyed, in per cent to "
        "three decimals.",
        f"4. Lot: the batch's documents with status other than VOID in the manifest (voided scans - duplicates, "
        f"blank pages, withdrawn forms - are not part of the lot and are not compared). Inspection: ANSI/ASQ Z1.4, "
        f"general inspection level {P['level']}, normal inspection, single sampling, AQL {P['aql']} (defective "
        "documents). Sample size code letter from Table I; sample size, Ac and Re from Table II-A (follow an arrow "
        "to the first plan below or above it and use that plan's sample size).",
        "5. Sample: QC verifies documents in the order of the random pull list (queue_pos); the sample is the first "
        "n verified documents of the lot in that order. A sample document is defective when any of its fields in "
        "the double-keyed batch (agreed or adjudicated value) differs from the source. Accept the lot when the "
        "defectives are at most Ac; reject when they are Re or more.",
        f"6. Retraining: a keyer whose field error rate exceeds {P['threshold_pct']:.2f} % on a batch is referred "
        "for retraining.",
    ]


# ---- the forms' true values and the keyers' slips ------------------------------------------------------------

_LAST = ("OKAFOR", "LINDQVIST", "MARCHETTI", "BRENNAN", "CASTELLANO", "NAKAMURA", "WHITCOMBE", "DELACROIX", "KOWALCZYK",
         "PEMBERTON", "ASHDOWN", "VARGA", "QUINTERO", "SORENSEN", "FARROW", "TRAN", "GALLOWAY", "RUIZ", "HALVORSEN",
         "ESPOSITO", "ABERNATHY", "LACHANCE", "MOREAU", "PETRAKIS", "DUARTE", "O BRIEN", "MC CARTHY", "SULLIVAN")
_FIRST = ("ROBERT", "WILLIAM", "ELIZABETH", "MARGARET", "JAMES", "KATHERINE", "RICHARD", "ANTHONY", "SUSAN", "CHARLES",
          "EDWARD", "PATRICIA", "JOHN", "MICHAEL", "THOMAS", "MARIA", "LINDA", "KEVIN", "PRIYA", "GRACE", "OMAR",
          "FATIMA", "LUIS", "HANNAH", "NOAH", "CHLOE", "MARCUS", "AISHA", "IRENE")
_STREETS = ("MAIN ST", "ELM ST", "MAPLE AVE", "OAK ST", "PLEASANT ST", "WASHINGTON ST", "CHESTNUT ST", "HIGH ST",
            "PROSPECT AVE", "CENTER ST", "SCHOOL ST", "WATER ST", "UNION ST", "PARK AVE", "CHURCH ST")
# real USPS 3-digit prefixes: most of the book is in leading-zero states
_PLACES = (("MA", "WORCESTER", (15, 16)), ("MA", "SPRINGFIELD", (10, 11)), ("MA", "LOWELL", (18, 18)),
           ("RI", "PROVIDENCE", (28, 29)), ("NH", "MANCHESTER", (30, 31)), ("CT", "HARTFORD", (60, 61)),
           ("CT", "NEW HAVEN", (64, 65)), ("NJ", "NEWARK", (70, 71)), ("NJ", "TRENTON", (85, 86)),
           ("NY", "ALBANY", (120, 122)), ("PA", "SCRANTON", (184, 185)))
_PLANS = ("PPO-2", "PPO-5", "HMO-1", "HMO-3", "EPO-4", "HDHP-6")
_ID_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"


def _date(d: dt.date) -> str:
    return f"{d.month:02d}/{d.day:02d}/{d.year}"


def true_record(rng: random.Random, year: int) -> dict[str, str]:
    """One form's values in the spec's stored form (dates MM/DD/YYYY, IDs as text, phone ten digits)."""
    st, city, (lo, hi) = rng.choice(_PLACES)
    born = dt.date(rng.randint(1942, 2005), rng.randint(1, 12), rng.randint(1, 28))
    eff = dt.date(year, rng.randint(1, 12), 1)
    sig = eff - dt.timedelta(days=rng.randint(5, 60))
    return {"last_name": rng.choice(_LAST), "first_name": rng.choice(_FIRST),
            "middle_initial": rng.choice("ABCDEFGHJKLMNPRSTW") if rng.random() < 0.7 else "",
            "dob": _date(born), "member_id": "".join(rng.choice(_ID_LETTERS) for _ in range(3))
            + f"{rng.randint(0, 999999):06d}", "street": f"{rng.randint(1, 2400)} {rng.choice(_STREETS)}",
            "city": city, "state": st, "zip": f"{rng.randint(lo, hi):03d}{rng.randint(1, 99):02d}",
            "phone": f"{rng.choice((413, 508, 617, 401, 603, 860, 203, 973, 609, 518, 570))}{rng.randint(2000000, 9999999)}",
            "plan_code": rng.choice(_PLANS), "group_number": f"{rng.choice((0, 0, 0, 1, 2, 4, 7))}0{rng.randint(1000, 9999)}",
            "premium": f"{rng.choice((89, 124, 212, 318, 455, 612, 1048, 1310))}.{rng.choice(('00', '50', '25', '75'))}",
            "effective_date": _date(eff), "signature_date": _date(sig)}


_NEAR = {"0": "9", "1": "2", "2": "3", "3": "2", "4": "5", "5": "6", "6": "5", "7": "8", "8": "9", "9": "8"}


def _digit_slip(rng: random.Random, v: str) -> str:
    idx = [i for i, c in enumerate(v) if c.isdigit()]
    if len(idx) >= 2 and rng.random() < 0.4:  # transposition of two neighbouring digits
        i = rng.choice(idx[:-1])
        if i + 1 in idx and v[i] != v[i + 1]:
            return v[:i] + v[i + 1] + v[i] + v[i + 2:]
    i = rng.choice(idx)
    return v[:i] + _NEAR[v[i]] + v[i + 1:]


def slip(rng: random.Random, field: str, v: str, kind: str = "") -> str:
    """One substantive keying error of ``kind`` (or a kind natural to the field): a changed value under the current
    spec. Returns ``v`` unchanged when the kind cannot apply to this value (the caller checks)."""
    if kind == "date_format" and field in DATES:
        m, d, y = v.split("/")
        if m.startswith("0") or d.startswith("0"):
            return f"{int(m)}/{int(d)}/{y}" if rng.random() < 0.6 else f"{y}-{m}-{d}"
        return f"{y}-{m}-{d}"
    if kind == "lost_zero" and field in ("zip", "group_number"):
        return v.lstrip("0") if v.startswith("0") else v
    if kind == "o_zero" and field in ("member_id", "zip", "phone", "group_number"):
        idx = [i for i, c in enumerate(v) if c == "0"]
        return v if not idx else (lambda i: v[:i] + "O" + v[i + 1:])(rng.choice(idx))
    if not v:
        return rng.choice("ABEHKLMNRST")
    if any(c.isdigit() for c in v) and (field not in ("last_name", "first_name", "city", "street") or rng.random() < 0.5):
        return _digit_slip(rng, v)
    letters = [i for i, c in enumerate(v) if c.isalpha()]
    i = rng.choice(letters)
    r = rng.random()
    if r < 0.35 and i + 1 < len(v) and v[i + 1].isalpha() and v[i] != v[i + 1]:
        return v[:i] + v[i + 1] + v[i] + v[i + 2:]
    if r < 0.6 and len(letters) > 3:
        return v[:i] + v[i + 1:]
    return v[:i] + rng.choice([c for c in "AEIOUNRSTLM" if c != v[i]]) + v[i + 1:]


def benign(rng: random.Random, field: str, v: str) -> str:
    """A harmless variant the normalisation removes (case, spaces, phone punctuation, premium format)."""
    if field == "phone" and len(v) == 10:
        return rng.choice((f"({v[:3]}) {v[3:6]}-{v[6:]}", f"{v[:3]}-{v[3:6]}-{v[6:]}", f"{v[:3]}.{v[3:6]}.{v[6:]}"))
    if field == "premium":
        whole, cents = v.split(".")
        return rng.choice((f"${int(whole):,}.{cents}", f"{whole}.{cents.rstrip('0') or '0'}"))
    if any(c.isalpha() for c in v):
        return rng.choice((v.title(), v.lower(), f" {v}", f"{v} ", v.replace(" ", "  ")))
    return rng.choice((f" {v}", f"{v} "))
