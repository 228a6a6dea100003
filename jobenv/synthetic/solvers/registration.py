# ---- jobenv workflow ground truth: patient registration batch validation before release (data entry keyers) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the export, the
# reference tables, the exception rule codes of the current registration rules (v2), the age limit, the held-share
# limit and the deliverables; ``naive`` names the shortcuts a hurried keyer takes:
#   no_prefix     the NPI check digit worked by plain Luhn over the 10 digits (without the 80840 prefix, constant 24)
#   v1_rules      the superseded v1 Medicare ID rule (legacy HICNs and any letter accepted)
#   serial_dob    DOBs keyed as Excel date serials not converted (read as invalid dates and held)
#   nicknames     duplicate patients matched on the first name as keyed (Bob and Robert stay two patients)
#   zip_zeros     ZIPs that lost their leading zeros not padded back to 5 digits before the ZIP-to-state check
#   no_directory  attending NPIs not looked up in the provider directory (a Luhn-valid transposition is released)
import datetime
import os
import re

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

_MBI_LETTER = "[AC-HJKMNP-RT-Y]"  # A-Z without S, L, O, I, B, Z
MBI_V2 = re.compile(f"^[1-9]{_MBI_LETTER}[0-9AC-HJKMNP-RT-Y][0-9]{_MBI_LETTER}[0-9AC-HJKMNP-RT-Y][0-9]"
                    f"{_MBI_LETTER}{{2}}[0-9]{{2}}$")
MBI_V1 = re.compile(r"^(\d{9}[A-Z][A-Z0-9]?|\d[A-Z][A-Z0-9]\d[A-Z][A-Z0-9]\d[A-Z]{2}\d{2})$")
EXCEL_EPOCH = datetime.date(1899, 12, 30)


def npi_valid(npi, prefix=True):
    """The NPI check digit: Luhn over the first 9 digits with the card-issuer prefix 80840 (which adds a constant
    24 to the sum); the 10th digit must bring the sum to a multiple of 10. ``prefix=False`` is plain Luhn."""
    s = str(npi).strip()
    if not re.fullmatch(r"\d{10}", s):
        return False
    total = 24 if prefix else 0
    for k, ch in enumerate(reversed(s[:9])):  # the rightmost of the 9 digits is doubled
        d = int(ch) * (2 if k % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return (total + int(s[9])) % 10 == 0


def mbi_valid(mbi, v1=False):
    """A Medicare Beneficiary Identifier in CMS's 11-position format (v2), or the superseded v1 rule."""
    return bool((MBI_V1 if v1 else MBI_V2).match(str(mbi).strip().upper()))


def parse_dob(text, serials=True):
    """(date or None, fixed): ISO yyyy-mm-dd, or a 5-digit Excel date serial (days since 1899-12-30)."""
    s = str(text).strip()
    if re.fullmatch(r"\d{5}", s):
        return (EXCEL_EPOCH + datetime.timedelta(days=int(s)), True) if serials else (None, False)
    try:
        return datetime.date.fromisoformat(s[:10]), False
    except ValueError:
        return None, False


def age_on(dob, day):
    """Age in completed years on ``day``."""
    return day.year - dob.year - ((day.month, day.day) < (dob.month, dob.day))


def analyse(folder, P, naive=()):
    """The graded facts. A missing file or column raises (OSError, KeyError)."""
    F, R = P["files"], P["codes"]
    regs = read_frame(folder, F["export"]).to_dict("records")
    directory = {str(r["npi"]).strip() for r in read_frame(folder, F["directory"]).to_dict("records")}
    zip3 = {str(r["zip3"]).strip().zfill(3): str(r["state"]).strip().upper()
            for r in read_frame(folder, F["zips"]).to_dict("records")}
    nick = {} if "nicknames" in naive else {str(r["nickname"]).strip().lower(): str(r["formal_name"]).strip().lower()
                                           for r in read_frame(folder, F["nicknames"]).to_dict("records")}
    medicare = {str(r["payer_code"]).strip() for r in read_frame(folder, F["payers"]).to_dict("records")
                if str(r["financial_class"]).strip().lower() == "medicare"}
    exceptions, rows = [], []
    for r in regs:
        r = {k: str(v).strip() for k, v in r.items()}
        dob, serial = parse_dob(r["dob"], "serial_dob" not in naive)
        if serial:
            r["dob"] = dob.isoformat()
            exceptions.append([r["reg_id"], R["dob_fix"], r["dob"]])
        z = r["zip"]
        if z.isdigit() and len(z) < 5 and "zip_zeros" not in naive:
            r["zip"] = z.zfill(5)
            exceptions.append([r["reg_id"], R["zip_fix"], r["zip"]])
        rows.append((r, dob))
    # duplicates: same DOB, SSN last 4, last name and first name after the nickname table; the earliest stays
    first: dict = {}
    kept, merged = [], 0
    for r, dob in sorted(rows, key=lambda x: (x[0]["registered_at"], x[0]["reg_id"])):
        name = r["first_name"].lower()
        key = (dob, r["ssn_last4"].zfill(4), r["last_name"].lower(), nick.get(name, name)) if dob else None
        if key and key in first:
            exceptions.append([r["reg_id"], R["dup"], f"merged into {first[key]}"])
            merged += 1
            continue
        if key:
            first[key] = r["reg_id"]
        kept.append((r, dob))
    kept.sort(key=lambda x: x[0]["reg_id"])
    clean, held, fails = [], set(), {k: 0 for k in ("npi", "npi_dir", "mbi", "dob", "zip_state")}
    for r, dob in kept:
        bad = []
        if not npi_valid(r["attending_npi"], "no_prefix" not in naive):
            bad.append("npi")
        elif r["attending_npi"] not in directory and "no_directory" not in naive:
            bad.append("npi_dir")
        if r["payer_code"] in medicare and not mbi_valid(r["mbi"], "v1_rules" in naive):
            bad.append("mbi")
        day = datetime.date.fromisoformat(r["registered_at"][:10])
        if dob is None or dob > day or age_on(dob, day) > P["max_age"]:
            bad.append("dob")
        if not re.fullmatch(r"\d{5}", r["zip"]) or zip3.get(r["zip"][:3]) != r["state"].upper():
            bad.append("zip_state")
        for b in bad:
            fails[b] += 1
            exceptions.append([r["reg_id"], R[b], "held"])
        if bad:
            held.add(r["reg_id"])
        else:
            clean.append(r)
    n = len(kept)
    held_pct = rnd(100 * len(held) / n, 2)
    named = next(r for r, _ in rows if r["reg_id"] == P["named_reg"])
    prem = next(r for r, _ in rows if r["reg_id"] == P["premise_reg"])
    exceptions.sort(key=lambda e: (e[0], e[1]))
    codes = {v: k for k, v in R.items()}
    counts = {k: 0 for k in R}
    for e in exceptions:
        counts[codes[e[1]]] += 1
    return {"counts": counts, "columns": list(regs[0].keys()), "clean": [[r[c] for c in regs[0].keys()] for r in clean],
            "exceptions": exceptions, "npi_fail": fails["npi"], "npi_dir": fails["npi_dir"], "mbi_invalid": fails["mbi"],
            "dob_invalid": fails["dob"], "zip_state": fails["zip_state"], "merged": merged, "after_merge": n,
            "released": len(clean), "held": len(held), "held_pct": held_pct, "named_dob": named["dob"],
            "decision": bool(held_pct <= P["held_limit"]), "premise": mbi_valid(prem["mbi"], "v1_rules" in naive)}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['npi_fail']}: {facts['npi_fail']}", f"{L['mbi_invalid']}: {facts['mbi_invalid']}",
            f"{L['merged']}: {facts['merged']}", f"{L['released']}: {facts['released']}",
            f"{L['held']}: {facts['held']}", f"{L['held_pct']}: {facts['held_pct']:.2f}",
            f"{L['named_dob']}: {facts['named_dob']}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    write_table(os.path.join(output_dir, D["clean"]), facts["columns"], facts["clean"])
    write_table(os.path.join(output_dir, D["exceptions"]), P["exception_columns"], facts["exceptions"])
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: registration rules v2 (v1 is superseded). ZIPs that lost their leading zeros were padded to 5 "
        "digits and DOBs keyed as Excel date serials converted before any check; duplicate patients (same DOB, SSN "
        "last 4, last name and first name after the nickname table) were merged into the earliest registration; "
        "NPIs were checked by the Luhn check digit with the 80840 prefix and then against the provider directory; "
        "Medicare IDs against the CMS MBI format; DOBs for range; ZIPs against the ZIP-to-state table. Registrations "
        "failing any check are held and returned to the front desk; the rest are in the clean batch."])
