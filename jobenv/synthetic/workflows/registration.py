"""Patient registration batch validation before release to the billing system (data entry keyers).

A hospital registration office's daily batch of 300-450 registrations, keyed at the front desks and a self-service
kiosk over the one or two days before the release date, is generated. Patients' ages are uniform over 0-94 years;
about 80 % of those aged 65 or more are on a Medicare payer (and carry an MBI), the rest of the batch is on
commercial, Medicaid or self-pay. Patients live in the hospital's state (70 %) or one of its neighbours, ZIPs drawn
from the states' 3-digit prefixes. Attending NPIs come from a provider directory of 25-45 clinicians. Planted in
disjoint sets of rows: 2-4 NPIs with one mistyped digit (the check digit fails) and one NPI with an adjacent 0/9
transposition (passes the check digit, is not in the directory); 1-2 legacy HICNs, 1-2 MBIs with a letter CMS
excludes and 1-2 malformed Medicare IDs; 1-2 impossible DOBs (after the registration date or over the age limit);
2-4 ZIPs whose state was keyed wrong; a kiosk block of 5-12 DOBs written as Excel date serials; 4-9 ZIPs of
leading-zero states that lost their leading zero; 3-5 duplicate patients registered twice, at least two under a
nickname (Bob / Robert). The held-share limit is set 3-30 % above or below the batch's held share.

Failure behaviour: ``draw`` raises DegenerateTask when a planted trap moves no graded figure, the transposition
cannot be planted or the held share sits within 0.02 points of the limit; ``recheck`` raises OSError, KeyError or
ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, nice_between, rnd, rubric
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, read_rows, write_files

__all__ = ["REGISTRATION_VALIDATION"]

# real USPS 3-digit prefix ranges of the states the hospital's patients come from
_ZIP3 = {"MA": [(10, 27)], "RI": [(28, 29)], "NH": [(30, 38)], "CT": [(60, 69)], "NJ": [(70, 89)],
         "NY": [(100, 149)], "PA": [(150, 196)]}
_HOME = {"MA": ("RI", "NH", "CT"), "CT": ("MA", "NY", "RI"), "NJ": ("NY", "PA")}
_NICK = (("Bob", "Robert"), ("Rob", "Robert"), ("Bill", "William"), ("Will", "William"), ("Liz", "Elizabeth"),
         ("Beth", "Elizabeth"), ("Peggy", "Margaret"), ("Maggie", "Margaret"), ("Jim", "James"), ("Jimmy", "James"),
         ("Kate", "Katherine"), ("Dick", "Richard"), ("Rick", "Richard"), ("Tony", "Anthony"), ("Sue", "Susan"),
         ("Chuck", "Charles"), ("Charlie", "Charles"), ("Ted", "Edward"), ("Ed", "Edward"), ("Patty", "Patricia"),
         ("Jack", "John"), ("Mike", "Michael"), ("Tom", "Thomas"), ("Joe", "Joseph"), ("Dave", "David"))
_FIRST = ("Robert", "William", "Elizabeth", "Margaret", "James", "Katherine", "Richard", "Anthony", "Susan", "Charles",
          "Edward", "Patricia", "John", "Michael", "Thomas", "Joseph", "David", "Maria", "Linda", "Ana", "Kevin", "Priya",
          "Wei", "Grace", "Omar", "Fatima", "Luis", "Hannah", "Noah", "Chloe", "Marcus", "Aisha", "Irene", "Tariq")
_LAST = ("Okafor", "Lindqvist", "Marchetti", "Brennan", "Castellano", "Nakamura", "Oyelaran", "Whitcombe", "Delacroix",
         "Haverford", "Kowalczyk", "Pemberton", "Ashdown", "Varga", "Quintero", "Sorensen", "Mbeki", "Farrow", "Tran",
         "Galloway", "Ruiz", "Halvorsen", "Esposito", "Abernathy", "Lachance", "Moreau", "Petrakis", "Duarte")
_FEMALE = {"Elizabeth", "Margaret", "Katherine", "Susan", "Patricia", "Maria", "Linda", "Ana", "Priya", "Grace",
           "Fatima", "Hannah", "Chloe", "Aisha", "Irene"}
_PAYERS = (("MCR", "Medicare Part A/B", "Medicare"), ("MCRRR", "Railroad Medicare", "Medicare"),
           ("MCD", "State Medicaid", "Medicaid"), ("BLU", "Bluecrest Health Plan", "Commercial"),
           ("KEY", "Keystone Mutual", "Commercial"), ("HAR", "Harborview Health", "Commercial"),
           ("SELF", "Self-pay", "Self-pay"))
_SPEC = ("Internal Medicine", "Family Medicine", "Emergency Medicine", "Cardiology", "Orthopaedic Surgery",
         "Obstetrics and Gynecology", "Pediatrics", "General Surgery", "Neurology", "Radiology")
_COLS = ["reg_id", "registered_at", "source", "last_name", "first_name", "dob", "sex", "ssn_last4", "street", "city",
         "state", "zip", "payer_code", "mbi", "attending_npi"]
_CODES = ({"npi": "NPI_CHECK_DIGIT", "npi_dir": "NPI_NOT_IN_DIRECTORY", "mbi": "MBI_FORMAT", "dob": "DOB_RANGE",
           "zip_state": "ZIP_STATE", "dob_fix": "DOB_EXCEL_SERIAL", "zip_fix": "ZIP_LEADING_ZERO", "dup": "DUPLICATE"},
          {"npi": "R1-NPI", "npi_dir": "R2-NPI-DIR", "mbi": "R3-MBI", "dob": "R4-DOB", "zip_state": "R5-ZIP",
           "dob_fix": "F1-DOB", "zip_fix": "F2-ZIP", "dup": "F3-DUP"})
_LABELS = {
    "npi_fail": ("NPI check-digit failures", "Registrations failing the NPI check digit", "Invalid NPIs (check digit)"),
    "mbi_invalid": ("Invalid MBIs", "Medicare IDs failing the MBI format", "MBI format failures"),
    "merged": ("Duplicates merged", "Duplicate registrations merged", "Duplicate patient records merged"),
    "released": ("Registrations released", "Rows in the clean batch", "Released in the clean batch"),
    "held": ("Registrations held", "Held for the front desk", "Registrations on hold"),
    "held_pct": ("Held share of the batch (%)", "Percent of batch held", "Held rate (%)"),
    "named_dob": ("Corrected DOB for {reg}", "{reg} date of birth after correction", "DOB fix, {reg}"),
    "decision": ("Held rate within the release limit", "Batch within the held-rate limit",
                 "Release without supervisor sign-off"),
    "premise": ("Medicare ID valid for {reg}", "{reg} MBI passes the current rule", "MBI on {reg} acceptable"),
}
_DIRS = {"exports": ("exports", "adt_exports", "registration/exports"), "ref": ("reference", "ref_tables", "lookups"),
         "rules": ("policies", "procedures", "registration_rules"), "mail": ("mail", "correspondence", "inbox")}
SHORTCUTS = ("no_prefix", "v1_rules", "serial_dob", "nicknames", "zip_zeros", "no_directory")
_MBI_OK = "ACDEFGHJKMNPQRTUVWXY"
_EPOCH = dt.date(1899, 12, 30)


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def _npi_ok(npi: str) -> bool:
    """The NPI standard's own statement: prefix 80840 to the 10 digits and run the full Luhn test on all 15."""
    if not re.fullmatch(r"\d{10}", npi):
        return False
    digits = [int(c) for c in "80840" + npi][::-1]
    return sum(sum(divmod(d * 2, 10)) if k % 2 else d for k, d in enumerate(digits)) % 10 == 0


def _mbi_ok(m: str) -> bool:
    kinds = "NAXNAXNAANN"  # N digit (position 1: 1-9), A allowed letter, X either
    m = m.strip().upper()
    return len(m) == 11 and m[0] != "0" and all(
        (c.isdigit() if k == "N" else c in _MBI_OK if k == "A" else (c.isdigit() or c in _MBI_OK))
        for c, k in zip(m, kinds))


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the folder without the solver's code: fixes, the merge, then each rule per row."""
    folder, F = Path(folder), P["files"]
    regs = read_rows(folder / F["export"])
    directory = {r["npi"] for r in read_rows(folder / F["directory"])}
    states = {r["zip3"].rjust(3, "0"): r["state"] for r in read_rows(folder / F["zips"])}
    formal = {r["nickname"].lower(): r["formal_name"].lower() for r in read_rows(folder / F["nicknames"])}
    medicare = {r["payer_code"] for r in read_rows(folder / F["payers"]) if r["financial_class"] == "Medicare"}
    fixed: dict[str, dict[str, str]] = {}
    for r in regs:
        r = dict(r)
        if r["dob"].isdigit():
            r["dob"] = iso(_EPOCH + dt.timedelta(days=int(r["dob"])))
        r["zip"] = r["zip"].rjust(5, "0") if r["zip"].isdigit() else r["zip"]
        fixed[r["reg_id"]] = r
    seen: set[tuple[str, ...]] = set()
    merged, survivors = 0, []
    for r in sorted(fixed.values(), key=lambda x: (x["registered_at"], x["reg_id"])):
        key = (r["dob"], r["ssn_last4"], r["last_name"].lower(), formal.get(r["first_name"].lower(), r["first_name"].lower()))
        if key in seen:
            merged += 1
        else:
            seen.add(key)
            survivors.append(r)
    counts = {k: 0 for k in ("npi", "npi_dir", "mbi", "dob", "zip_state")}
    counts["dob_fix"] = sum(r["dob"].isdigit() for r in regs)
    counts["zip_fix"] = sum(r["zip"].isdigit() and len(r["zip"]) < 5 for r in regs)
    counts["dup"] = merged
    held = 0
    for r in survivors:
        bad = {"npi": not _npi_ok(r["attending_npi"])}
        bad["npi_dir"] = not bad["npi"] and r["attending_npi"] not in directory
        bad["mbi"] = r["payer_code"] in medicare and not _mbi_ok(r["mbi"])
        dob, day = dt.date.fromisoformat(r["dob"]), dt.date.fromisoformat(r["registered_at"][:10])
        years = day.year - dob.year - ((day.month, day.day) < (dob.month, dob.day))
        bad["dob"] = dob > day or years > P["max_age"]
        bad["zip_state"] = states.get(r["zip"][:3]) != r["state"]
        for k, v in bad.items():
            counts[k] += v
        held += any(bad.values())
    pct = rnd(100 * held / len(survivors), 2)
    return {"counts": counts, "npi_fail": counts["npi"], "mbi_invalid": counts["mbi"], "merged": merged,
            "released": len(survivors) - held, "held": held, "held_pct": pct,
            "named_dob": fixed[P["named_reg"]]["dob"], "decision": pct <= P["held_limit"],
            "premise": _mbi_ok(fixed[P["premise_reg"]]["mbi"])}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _luhn_digit(body: str) -> str:
    total = 24
    for k, ch in enumerate(reversed(body)):
        d = int(ch) * (2 if k % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return str((10 - total % 10) % 10)


def _npi(rng: random.Random, force09: bool = False) -> str:
    body = rng.choice("12") + "".join(rng.choice("0123456789") for _ in range(8))
    if force09:
        k = rng.randint(1, 7)
        body = body[:k] + "09" + body[k + 2:]
    return body + _luhn_digit(body)


def _mbi(rng: random.Random) -> str:
    a, d = lambda: rng.choice(_MBI_OK), lambda: rng.choice("0123456789")  # noqa: E731
    x = lambda: rng.choice(_MBI_OK + "0123456789")  # noqa: E731
    return rng.choice("123456789") + a() + x() + d() + a() + x() + d() + a() + a() + d() + d()


def _batch(rng: random.Random) -> dict[str, Any]:
    home = rng.choice(sorted(_HOME))
    release = dt.date(rng.choice((2025, 2026)), rng.randint(1, 12), rng.randint(1, 28))
    providers = [{"npi": _npi(rng, force09=k == 0), "name": f"Dr {rng.choice(_FIRST)} {rng.choice(_LAST)}",
                  "spec": rng.choice(_SPEC)} for k in range(rng.randint(25, 45))]
    n = rng.randint(300, 450)
    rows: list[dict[str, Any]] = []
    ids = sorted(rng.sample(range(100000, 999999), n))
    for k in range(n):
        day = release - dt.timedelta(days=rng.randint(1, 2))
        at = dt.datetime.combine(day, dt.time(6)) + dt.timedelta(minutes=rng.randint(0, 14 * 60))
        age = rng.randint(0, 94)
        dob = day - dt.timedelta(days=age * 365 + rng.randint(10, 355))
        state = home if rng.random() < 0.7 else rng.choice(_HOME[home])
        lo, hi = rng.choice(_ZIP3[state])
        payer = (rng.choice(("MCR", "MCR", "MCR", "MCRRR")) if age >= 65 and rng.random() < 0.8
                 else rng.choice(("MCD", "BLU", "KEY", "HAR", "SELF", "BLU", "KEY")))
        first = rng.choice(_FIRST)
        rows.append({"reg_id": f"R-{ids[k]}", "registered_at": at, "source": "front desk",
                     "last_name": rng.choice(_LAST), "first_name": first, "dob": iso(dob),
                     "sex": "F" if first in _FEMALE else "M", "ssn_last4": f"{rng.randint(0, 9999):04d}",
                     "street": f"{rng.randint(1, 999)} {rng.choice(('Elm', 'Maple', 'Harbor', 'Mill', 'Union', 'Park'))} "
                               f"{rng.choice(('St', 'Ave', 'Rd', 'Ln'))}",
                     "city": rng.choice(("Riverton", "Fairhaven", "Millbrook", "Eastfield", "Lakeside", "Oakdale")),
                     "state": state, "zip": f"{rng.randint(lo, hi):03d}{rng.randint(0, 99):02d}", "payer_code": payer,
                     "mbi": _mbi(rng) if payer.startswith("MCR") else "",
                     "attending_npi": rng.choice(providers)["npi"]})
    pool = list(range(n))
    rng.shuffle(pool)
    take = lambda m: [pool.pop() for _ in range(m)]  # noqa: E731  (disjoint sets of rows)
    plant: dict[str, list[Any]] = {}
    for k in take(1):  # the transposition: adjacent 0 and 9 swapped, the check digit still holds
        good = providers[0]["npi"]
        j = good.index("09")
        rows[k]["attending_npi"] = good[:j] + "90" + good[j + 2:]
        plant["transposed"] = [k]
    plant["npi"] = take(rng.randint(2, 4))
    for k in plant["npi"]:
        s = rows[k]["attending_npi"]
        j = rng.randint(0, 9)
        rows[k]["attending_npi"] = s[:j] + str((int(s[j]) + rng.randint(1, 9)) % 10) + s[j + 1:]
    medicare = [k for k in pool if rows[k]["payer_code"].startswith("MCR")]
    rng.shuffle(medicare)
    plant["hicn"] = [medicare.pop() for _ in range(rng.randint(1, 2))]
    plant["letter"] = [medicare.pop() for _ in range(rng.randint(1, 2))]
    plant["malformed"] = [medicare.pop() for _ in range(rng.randint(1, 2))]
    plant["mbi_ok"] = [medicare.pop()]
    for k in plant["hicn"] + plant["letter"] + plant["malformed"] + plant["mbi_ok"]:
        pool.remove(k)
    for k in plant["hicn"]:
        rows[k]["mbi"] = f"{rng.randint(10**8, 10**9 - 1)}{rng.choice('ABCDMT')}"
    for k in plant["letter"]:
        m = rows[k]["mbi"]
        j = rng.choice((1, 4, 7, 8))
        rows[k]["mbi"] = m[:j] + rng.choice("SLOIBZ") + m[j + 1:]
    for k in plant["malformed"]:
        m = rows[k]["mbi"]
        rows[k]["mbi"] = rng.choice((m[:10], m[:1] + str(rng.randint(0, 9)) + m[2:]))
    plant["dob"] = take(rng.randint(1, 2))
    for i, k in enumerate(plant["dob"]):
        day = rows[k]["registered_at"].date()
        rows[k]["dob"] = iso(day + dt.timedelta(days=rng.randint(30, 900)) if i == 0 else
                             day.replace(year=day.year - rng.randint(119, 130)))
    plant["state"] = take(rng.randint(2, 4))
    for k in plant["state"]:
        rows[k]["state"] = rng.choice([s for s in _ZIP3 if s != rows[k]["state"]])
    zero = [k for k in pool if rows[k]["zip"].startswith("0")]
    plant["zip"] = zero[: rng.randint(4, 9)]
    for k in plant["zip"]:
        pool.remove(k)
        rows[k]["zip"] = rows[k]["zip"][1:]
    start = rng.randint(0, n - 20)
    block = [k for k in pool if start <= k < start + 40][: rng.randint(5, 12)]
    for k in block:
        pool.remove(k)
        rows[k]["source"] = "kiosk"
        rows[k]["dob"] = str((dt.date.fromisoformat(rows[k]["dob"]) - _EPOCH).days)
    plant["serial"] = block
    dups = []
    for i in range(rng.randint(3, 5)):
        k = pool.pop()
        orig = rows[k]
        twin = dict(orig, registered_at=orig["registered_at"] + dt.timedelta(minutes=rng.randint(20, 600)))
        if i < 2:  # one registration under the nickname, the other under the formal name
            nick, name = rng.choice([x for x in _NICK if (x[1] in _FEMALE) == (orig["sex"] == "F")])
            orig["first_name"] = name
            twin["first_name"] = nick
            if rng.random() < 0.5:
                orig["first_name"], twin["first_name"] = nick, name
        dups.append((k, twin))
    plant["dup_nick"], plant["dup"] = [], []
    taken = {r["reg_id"] for r in rows}
    for i, (k, twin) in enumerate(dups):
        new = rng.choice([x for x in range(100000, 999999) if f"R-{x}" not in taken][:5000])
        twin["reg_id"] = f"R-{new}"
        taken.add(twin["reg_id"])
        rows.append(twin)
        later = max((rows[k], twin), key=lambda r: (r["registered_at"], r["reg_id"]))
        plant["dup_nick" if i < 2 else "dup"].append(later["reg_id"])
    ids_of = {k: [v if isinstance(v, str) else rows[v]["reg_id"] for v in vs] for k, vs in plant.items()}
    rows.sort(key=lambda r: r["reg_id"])
    return {"home": home, "release": release, "providers": providers, "rows": rows, "plant": ids_of}


def _data(P: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    F = P["files"]
    zips = sorted((f"{z:03d}", s) for s, ranges in _ZIP3.items() for lo, hi in ranges for z in range(lo, hi + 1))
    return {
        F["export"]: lambda p: write_csv(p, _COLS, [
            [r["registered_at"].strftime("%Y-%m-%d %H:%M") if c == "registered_at" else r[c] for c in _COLS]
            for r in b["rows"]]),
        F["directory"]: lambda p: write_xlsx(p, [("Providers", ["npi", "provider_name", "specialty", "status"], [
            [x["npi"], x["name"], x["spec"], "active"] for x in sorted(b["providers"], key=lambda x: x["name"])])]),
        F["zips"]: lambda p: write_csv(p, ["zip3", "state"], zips),
        F["nicknames"]: lambda p: write_csv(p, ["nickname", "formal_name"], [list(x) for x in _NICK]),
        F["payers"]: lambda p: write_csv(p, ["payer_code", "payer_name", "financial_class"], [list(x) for x in _PAYERS]),
    }


def _rules(P: dict[str, Any], current: bool) -> list[str]:
    C = P["codes"]
    if not current:
        return ["Patient registration rules, version 1 (2019) - SUPERSEDED by version 2",
                "- Attending NPI: 10 digits.",
                "- Medicare ID: the HICN (9 digits and a 1-2 character suffix) or the 11-character MBI "
                "(digit, letter, letter or digit, digit, letter, letter or digit, digit, letter, letter, digit, digit).",
                "- Duplicates: same last name, first name and date of birth.",
                "- Hold any registration with an error; there is no limit on the held share."]
    return [
        f"Patient registration rules, version 2 (current; effective {P['v2_date']}, supersedes version 1)",
        "Order of work: (1) fix what can be fixed, (2) merge duplicate patients, (3) check every remaining "
        "registration against rules R1-R5, (4) release the registrations that pass every rule; hold the rest for "
        "the front desk.",
        f"Fix F1 ({C['dob_fix']}): a DOB keyed as a 5-digit number is an Excel date serial written by the kiosk "
        "bridge: convert it to the date that many days after 1899-12-30 and write it as YYYY-MM-DD.",
        f"Fix F2 ({C['zip_fix']}): a ZIP of fewer than 5 digits lost its leading zeros in a spreadsheet: pad it with "
        "zeros on the left to 5 digits.",
        f"Merge F3 ({C['dup']}): registrations with the same DOB (after F1), the same SSN last 4, the same last name "
        "and the same first name after the nickname table (a nickname counts as its formal name; case ignored) are "
        "one patient: keep the earliest registration (registered_at, then reg_id) and merge the others into it; "
        "a merged registration is not checked, released or held.",
        f"R1 ({C['npi']}): the attending NPI's 10th digit is the check digit of the Luhn formula over the first 9 "
        "digits with the prefix 80840 (equivalently: double every other digit starting with the 9th, add the digits, "
        "add the constant 24; the check digit brings the total to the next multiple of 10).",
        f"R2 ({C['npi_dir']}): an NPI that passes R1 must be in the provider directory (reference tables); a keying "
        "error can pass the check digit. An NPI failing R1 is reported under R1 only.",
        f"R3 ({C['mbi']}): for a registration whose payer's financial class is Medicare (payer master), the Medicare "
        "ID must be an MBI of 11 characters in CMS's positions: 1 numeric 1-9; 2 alphabetic; 3 alphanumeric; 4 numeric; "
        "5 alphabetic; 6 alphanumeric; 7 numeric; 8 and 9 alphabetic; 10 and 11 numeric. Letters S, L, O, I, B and Z "
        "are never used; no dashes or spaces. Legacy HICNs are no longer accepted. Other payers: the field is ignored.",
        f"R4 ({C['dob']}): the DOB must not be after the registration date, and the age in completed years on the "
        f"registration date must be at most {P['max_age']}.",
        f"R5 ({C['zip_state']}): the first 3 digits of the ZIP (after F2) must belong to the registration's state in "
        "the ZIP-to-state table.",
        "Exceptions file: one row per registration and rule or fix applied (a registration failing two rules has two "
        "rows), with the columns " + ", ".join(P["exception_columns"]) + "; the fix is the corrected value (F1, F2), "
        "'merged into <kept reg_id>' (F3) or 'held' for a rule failure.",
        "Clean batch (the billing upload): the released registrations only, with the export's columns in the same "
        "order and the fixes applied.",
        "Counts in the release note are of registrations (not exception rows). Held share = registrations held / "
        "registrations left after merging duplicates x 100, rounded half up to 2 decimal places."]


def _workspace(rng: random.Random, P: dict[str, Any], b: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in _data(P, b).items():
        add(rel, "data" if rel == P["files"]["export"] else "reference", write)
    D, rel = P["dirs"], b["release"]
    day = lambda k: iso(rel - dt.timedelta(days=k))  # noqa: E731
    add(f"{D['rules']}/registration_rules_v2.docx", "policy", lambda p: write_docx(p, "Registration rules v2", _rules(P, True)))
    add(f"{D['rules']}/archive/registration_rules_v1.pdf", "stale", lambda p: write_pdf(p, "Registration rules v1",
                                                                                       _rules(P, False)))
    add(f"{D['mail']}/{iso(rel)}_records_manager.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{P['manager']}, Records Manager", to="Registration data team", date=iso(rel),
        subject="Today's registration batch",
        body=f"The batch goes to billing today. Our quality target with the revenue cycle team is that no more than "
             f"{P['held_limit']:.2f} % of a batch (after duplicates are merged) is held; if we are over it the "
             "release needs the supervisor's sign-off, so tell me where we stand.")))
    add(f"{D['mail']}/{day(1)}_front_desk_{P['premise_reg']}.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Patient Access Representative", to=P["manager"], date=day(1),
        subject=f"Registration {P['premise_reg']}",
        body=f"The Medicare number on {P['premise_reg']} is fine - it passed the registration check last year. "
             "Please don't hold it.")))
    add(f"{D['mail']}/{day(2)}_kiosk_vendor.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Kiosk Support", to="Registration data team", date=day(2),
        subject="Kiosk export bridge", body="After last night's update the kiosk-to-ADT bridge passes dates through a "
        "spreadsheet step. Some dates of birth may arrive as plain numbers; the patch is scheduled for next week.")))
    prev = rel - dt.timedelta(days=rng.randint(7, 20))
    add(f"{D['exports']}/archive/exceptions_{iso(prev)}.csv", "stale", lambda p: write_csv(
        p, P["exception_columns"], [[f"R-{rng.randint(100000, 999999)}", rng.choice(list(P["codes"].values())), "held"]
                                    for _ in range(rng.randint(8, 20))]))
    add(f"reports/registration_volume_{rel:%Y_%m}.csv", "distractor", lambda p: write_csv(
        p, ["week", "front_desk", "kiosk", "online"],
        [[f"W{k}", rng.randint(900, 1600), rng.randint(100, 400), rng.randint(50, 300)] for k in range(1, 5)]))
    add("training/front_desk_training_schedule.docx", "distractor", lambda p: write_docx(
        p, "Front desk training schedule", ["Insurance card scanning refresher: first Monday of the month.",
                                            "Patient identity verification (two identifiers) for new starters.",
                                            "Downtime procedures drill each quarter."]))
    add(f"meetings/{day(3)}_patient_access_huddle.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="registration batch backlog", people=[person(rng) for _ in range(3)], date=day(3))))
    return w, roles


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.registration import analyse

    prof = profession(occupation)
    b = _batch(rng)
    rel = iso(b["release"])
    dirs = pick_labels(rng, _DIRS)
    pl = b["plant"]
    P: dict[str, Any] = {
        "files": {"export": f"{dirs['exports']}/registrations_{rel}.csv",
                  "directory": f"{dirs['ref']}/provider_directory.xlsx", "zips": f"{dirs['ref']}/zip3_to_state.csv",
                  "nicknames": f"{dirs['ref']}/nickname_table.csv", "payers": f"{dirs['ref']}/payer_master.csv"},
        "dirs": dirs, "codes": dict(rng.choice(_CODES)), "max_age": 115, "held_limit": 100.0,
        "exception_columns": list(rng.choice((["reg_id", "rule", "fix"], ["registration_id", "rule_code", "fix_applied"]))),
        "named_reg": rng.choice(pl["serial"]),
        "premise_reg": pl["mbi_ok"][0] if targets["premise"] else rng.choice(pl["hicn"] + pl["letter"]),
        "probe": {"transposed": pl["transposed"][0], "dup_nick": pl["dup_nick"][0], "zip": rng.choice(pl["zip"])},
        "v2_date": iso(b["release"] - dt.timedelta(days=rng.randint(30, 200))), "manager": person(rng), "labels": {},
        "deliverables": {"clean": rng.choice((f"clean_batch_{rel}.csv", "release_upload.csv")),
                         "exceptions": rng.choice((f"exceptions_{rel}.csv", "registration_exceptions.csv")),
                         "memo": rng.choice(("release_note.md", "batch_release_note.docx", "validation_note.md"))}}
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), _data(P, b))
        truth = analyse(tmp, P)
        pct = truth["held_pct"]
        P["held_limit"] = nice_between(pct * 1.03, pct * 1.3, 2) if targets["decision"] else nice_between(
            pct * 0.7, pct * 0.97, 2)
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
    keys = ("npi_fail", "mbi_invalid", "merged", "released", "held_pct", "named_dob", "premise", "exceptions")
    for k, f in singles.items():
        if all(f[x] == truth[x] for x in keys):
            raise DegenerateTask(f"the shortcut {k} moves no graded figure")
    labels = pick_labels(rng, _LABELS)
    labels["named_dob"] = labels["named_dob"].format(reg=P["named_reg"])
    labels["premise"] = labels["premise"].format(reg=P["premise_reg"])
    P["labels"] = labels
    traps = [{"kind": "npi_prefix", "where": "memo", "naive": "no_prefix",
              "description": "the NPI check digit is Luhn with the 80840 prefix (constant 24)"},
             {"kind": "superseded_rules", "where": "memo", "naive": "v1_rules",
              "description": "rules v2 supersede v1: HICNs and the letters S, L, O, I, B, Z are no longer valid"},
             {"kind": "excel_serial", "where": "data", "naive": "serial_dob",
              "description": "kiosk DOBs arrive as Excel date serials"},
             {"kind": "nicknames", "where": "data", "naive": "nicknames",
              "description": "duplicate patients registered under a nickname (Bob / Robert)"},
             {"kind": "zip_zeros", "where": "data", "naive": "zip_zeros", "description": "ZIPs lost their leading zeros"},
             {"kind": "luhn_transposition", "where": "data", "naive": "no_directory",
              "description": f"{P['probe']['transposed']}'s NPI has a 0/9 transposition the check digit cannot see"}]
    writers, roles = _workspace(rng, P, b)
    L, D = labels, P["deliverables"]
    memo_labels = [(L["npi_fail"], "whole number of registrations"), (L["mbi_invalid"], "whole number of registrations"),
                   (L["merged"], "whole number of registrations merged away"), (L["released"], "whole number"),
                   (L["held"], "whole number"), (L["held_pct"], "percent, 2 decimal places"),
                   (L["named_dob"], "YYYY-MM-DD"), (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=P["manager"], role="Records Manager",
        org=rng.choice(("a hospital registration office", "a community hospital's patient access department")),
        subject=f"Registration batch {rel}: validate and release",
        purpose=rng.choice(("validate the patient registrations and fix what can be fixed before the batch is released.",
                            "please run today's registrations through the checks, fix what can be fixed and release "
                            "the rest.", "I need the registration batch validated and the clean part released today.")),
        about="the ADT registration export, the provider directory and the reference tables",
        belief=f"The front desk says the Medicare ID on {P['premise_reg']} is fine and should not be held - please check.",
        table={"file": D["clean"], "headers": list(_COLS), "unit": "released registration"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"{D['exceptions']}: the exceptions, columns {', '.join(P['exception_columns'])}, one row "
                            "per registration and rule or fix as the registration rules describe.",),
        policy=f"the registration rules in {dirs['rules']}/", files=sorted(writers))
    return Draft(subject=f"Patient registration batch {rel}: validation and release", instructions=prompt,
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="300-450 registrations; ages uniform 0-94; Medicare for 80 % of 65+; 70 % home state; "
                               "25-45 providers; 2-4 NPI typos + 1 0/9 transposition; 3-6 bad Medicare IDs; "
                               "1-2 bad DOBs; 2-4 ZIP-state mismatches; 5-12 Excel-serial DOBs; 4-9 ZIPs without "
                               "leading zero; 3-5 duplicates (2 by nickname); held limit 3-30 % off the held share")


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, C, E = P["deliverables"], P["labels"], P["codes"], P["exception_columns"]
    clean, exc, memo, pr, n = D["clean"], D["exceptions"], D["memo"], P["probe"], facts["counts"]
    yes = lambda x: "yes" if x else "no"  # noqa: E731

    def whole(k: str) -> tuple[str, Any]:
        return f"{L[k]} = {facts[k]}", FieldCheck(file=memo, label=L[k], number=float(facts[k]), tolerance=0.0)

    def rule_rows(k: str) -> tuple[str, Any]:
        return (f"{exc} has {n[k]} {C[k]} rows", RowCountCheck(file=exc, key=E[0], where={E[1]: C[k]}, count=n[k]))

    def in_clean(reg: str, present: bool) -> tuple[str, Any]:
        return (f"{clean} {'has' if present else 'has no'} row {reg}",
                RowCountCheck(file=clean, key="reg_id", where={"reg_id": reg}, count=int(present)))

    def flagged(reg: str, k: str, present: bool) -> tuple[str, Any]:
        return (f"{exc} {'lists' if present else 'does not list'} {reg} under {C[k]}",
                RowCountCheck(file=exc, key=E[0], where={E[0]: reg, E[1]: C[k]}, count=int(present)))

    out = [
        rubric("Checks NPIs by the Luhn check digit with the 80840 prefix", 10, [whole("npi_fail"), rule_rows("npi")]),
        rubric("Looks NPIs that pass the check digit up in the provider directory", 6, [
            in_clean(pr["transposed"], False), flagged(pr["transposed"], "npi_dir", True)]),
        rubric("Applies the current (v2) MBI format, not the superseded v1 rule", 10, [whole("mbi_invalid"),
                                                                                        rule_rows("mbi")]),
        rubric("Converts DOBs keyed as Excel date serials", 8, [
            (f"{L['named_dob']}: {facts['named_dob']}", fld(memo, L["named_dob"], facts["named_dob"])),
            (f"{clean}: {P['named_reg']} dob = {facts['named_dob']}",
             CellCheck(file=clean, match={"reg_id": P["named_reg"]}, column="dob", value=facts["named_dob"])),
            in_clean(P["named_reg"], True), rule_rows("dob_fix")]),
        rubric("Restores ZIP leading zeros before the ZIP-to-state check", 8, [
            in_clean(pr["zip"], True), rule_rows("zip_fix"), rule_rows("zip_state")]),
        rubric("Merges duplicate patients after the nickname table", 10, [whole("merged"), rule_rows("dup"),
                                                                          in_clean(pr["dup_nick"], False)]),
        rubric("Releases exactly the registrations that pass every rule", 10, [
            whole("released"), whole("held"), (f"{clean} has {facts['released']} rows",
                                              RowCountCheck(file=clean, key="reg_id", count=facts["released"]))]),
        rubric("Answers the held-rate question", 8, [
            (f"{L['held_pct']} = {facts['held_pct']:.2f}", fld_num(memo, L["held_pct"], facts["held_pct"], 2)),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Answers the front desk's claim about the Medicare ID", 6, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            flagged(P["premise_reg"], "mbi", not facts["premise"])]),
    ]
    if judgement:
        out.append(rubric("Writes a release note the records manager can act on", 6, [
            ("Says which rules were applied (v2 over the superseded v1) and how each fix was made", llm("explanation")),
            ("Tells the front desk what to correct for the held registrations", llm("content"))]))
    return out


REGISTRATION_VALIDATION = Workflow(
    key="registration_validation", family="registration_validation",
    method="NPI Luhn check digit (80840 prefix), CMS MBI format, DOB/age, ZIP-to-state and nickname-aware duplicate merge",
    professions=("data_entry_keyers",), solver="registration", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated hospital registration batch (stated distributions)")
