# ---- jobenv workflow ground truth: double-key verification of a keyed batch (data entry keyers) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the batch manifest, the
# first and second keying, the adjudication log, the QC source verification, the ANSI/ASQ Z1.4 tables, the keyer of
# the supervisor's claim, the retraining threshold and the deliverables; ``naive`` names the shortcuts a hurried QC
# lead takes:
#   dates_parsed    dates compared as calendar dates (the superseded v2 spec), so 3/7/2024 = 03/07/2024
#   lost_zeros      ZIP and group number read as numbers, so 02134 = 2134 (and the upload loses the zeros)
#   o_for_zero      letter O read as digit zero in ID fields (the superseded v2 spec)
#   raw_compare     values compared as exported, without the spec's case, space, phone and amount normalisation
#   agree_is_right  a value both keyers agree on taken as correct even where source verification differs
#   voids_in        voided documents kept in the lot (lot size, code letter, sample) and in the comparison
#   blame_second    every discrepancy charged to the second-pass keyer (first pass taken as the reference)
import datetime as dt
import os
from decimal import Decimal, InvalidOperation

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

FIELDS = ("last_name", "first_name", "middle_initial", "dob", "member_id", "street", "city", "state", "zip", "phone",
          "plan_code", "group_number", "premium", "effective_date", "signature_date")
DATES = {"dob", "effective_date", "signature_date"}
ZEROS = {"zip", "group_number"}  # text fields whose leading zeros are part of the value
O_FIELDS = {"member_id", "zip", "phone", "group_number"}


def _amount(v):
    try:
        return str(Decimal(v.replace("$", "").replace(",", "")).quantize(Decimal("0.01")))
    except InvalidOperation:
        return v


def _iso(v):
    for fmt in ("%m/%d/%Y", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(v.strip(), fmt).date().isoformat()
        except ValueError:
            pass
    return v


def norm(field, value, naive=()):
    """A keyed value in the current spec's comparison form: spaces trimmed and collapsed, upper case, phone without
    punctuation, premium as an amount to cents; dates as written; IDs as text (leading zeros kept, O is not 0)."""
    v = str(value)
    if "raw_compare" not in naive:
        v = " ".join(v.split()).upper()
        if field == "phone":
            v = "".join(ch for ch in v if ch.isalnum())
        elif field == "premium":
            v = _amount(v)
    if "o_for_zero" in naive and field in O_FIELDS:
        v = v.replace("O", "0").replace("o", "0")
    if "lost_zeros" in naive and field in ZEROS and v.strip().isdigit():
        v = str(int(v))
    if "dates_parsed" in naive and field in DATES:
        v = _iso(v)
    return v


def levenshtein(a, b):
    """Edits (insertions, deletions, substitutions) turning ``a`` into ``b``."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def z14_plan(lot, table1, table2, level="II", aql="1.0"):
    """Code letter, sample size, Ac and Re for ``lot`` (Table I then Table II-A, following the arrows; 100 %
    inspection when the sample is not smaller than the lot). Raises StopIteration for a lot outside Table I."""
    letter = next(str(r[level]).strip() for r in table1 if int(r["lot_from"]) <= lot <= int(r["lot_to"] or 10**12))
    rows = [(str(r["code_letter"]).strip(), int(r["sample_size"]), str(r[aql]).strip()) for r in table2]
    k = next(i for i, r in enumerate(rows) if r[0] == letter)
    j = k
    while rows[j][2] in ("↓", "↑"):
        j += 1 if rows[j][2] == "↓" else -1
    n = rows[j][1]
    ac, re = (int(x) for x in rows[j][2].split("/"))
    return letter, min(n, lot), ac, re


def analyse(folder, P, naive=()):
    F = P["files"]
    man = read_frame(folder, F["manifest"])
    void = {str(d).strip() for d, s in zip(man["doc_id"], man["status"]) if str(s).strip().upper() == "VOID"}
    docs = [str(d).strip() for d in man["doc_id"]]
    live = docs if "voids_in" in naive else [d for d in docs if d not in void]
    k1 = {str(r["doc_id"]).strip(): r for r in read_frame(folder, F["key1"]).to_dict("records")}
    k2 = {str(r["doc_id"]).strip(): r for r in read_frame(folder, F["key2"]).to_dict("records")}
    adj = {(str(r["doc_id"]).strip(), str(r["field_name"]).strip()): str(r["adjudicated_value"])
           for r in read_frame(folder, F["adjudicated"]).to_dict("records")}
    vt = read_frame(folder, F["verification"])
    ver = {str(r["doc_id"]).strip(): r for r in vt.to_dict("records")}
    queue = [d for _, d in sorted((int(q), str(d).strip()) for q, d in zip(vt["queue_pos"], vt["doc_id"]))]
    stats: dict = {}
    disc, base_of, final_of = 0, {}, {}
    for d in live:
        r1, r2 = k1[d], k2[d]
        s1 = stats.setdefault(str(r1["keyer_id"]).strip(), [0, 0, 0, 0])  # fields keyed, errors, edits, ref chars
        s2 = stats.setdefault(str(r2["keyer_id"]).strip(), [0, 0, 0, 0])
        for f in FIELDS:
            a, b = norm(f, r1[f], naive), norm(f, r2[f], naive)
            base = a if a == b else norm(f, adj.get((d, f), a), naive)
            final = norm(f, ver[d][f], naive) if d in ver and "agree_is_right" not in naive else base
            base_of[(d, f)], final_of[(d, f)] = base, final
            disc += a != b
            e1, e2 = a != final, b != final
            if "blame_second" in naive and a != b:
                e1, e2 = False, True
            for s, v, e in ((s1, a, e1), (s2, b, e2)):
                s[0] += 1
                s[1] += e
                s[2] += levenshtein(v, final) if v != final else 0
                s[3] += len(final)
    keyers = [{"keyer": k, "fields": s[0], "errors": s[1], "rate": rnd(100 * s[1] / s[0], 3), "edits": s[2],
               "chars": s[3], "cer": rnd(100 * s[2] / s[3], 3)} for k, s in sorted(stats.items())]
    letter, n, ac, re = z14_plan(len(live), read_frame(folder, F["table1"]).to_dict("records"),
                                 read_frame(folder, F["table2"]).to_dict("records"), P["level"], P["aql"])
    live_set = set(live)
    sample = [d for d in queue if d in live_set][:n]
    defects = sum(any(base_of[(d, f)] != norm(f, ver[d][f], naive) for f in FIELDS) for d in sample)
    by = {x["keyer"]: x for x in keyers}
    tot_e, tot_f = sum(x["errors"] for x in keyers), sum(x["fields"] for x in keyers)
    return {"lot": len(live), "voided": len(void), "letter": letter, "n": n, "ac": ac, "re": re, "defects": defects,
            "discrepancies": disc, "fields_compared": len(live) * len(FIELDS), "keyers": keyers,
            "batch_rate": rnd(100 * tot_e / tot_f, 3), "decision": defects <= ac,
            "premise": by[P["claim"]]["rate"] > P["threshold_pct"],
            "corrected": [[d] + [final_of[(d, f)] for f in FIELDS] for d in live]}


def _memo_lines(P, f):
    L = P["labels"]
    out = [f"{L['lot']}: {f['lot']}", f"{L['letter']}: {f['letter']}", f"{L['n']}: {f['n']}", f"{L['ac']}: {f['ac']}",
           f"{L['re']}: {f['re']}", f"{L['defects']}: {f['defects']}", f"{L['decision']}: {yes_no(f['decision'])}",
           f"{L['disc']}: {f['discrepancies']}", f"{L['batch_rate']}: {f['batch_rate']:.3f}",
           f"{L['premise']}: {yes_no(f['premise'])}", ""]
    for x in f["keyers"]:
        k = x["keyer"]
        out += [f"{k} {L['keyed']}: {x['fields']}", f"{k} {L['errors']}: {x['errors']}",
                f"{k} {L['rate']}: {x['rate']:.3f}", f"{k} {L['cer']}: {x['cer']:.3f}", ""]
    return out


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    write_table(os.path.join(output_dir, D["csv"]), [P["doc_col"], *FIELDS], facts["corrected"])
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "Method: first and second keying compared field by field after the v3 field spec's normalisation (dates as "
        "written, ZIP and group number as text, letter O distinct from zero); the final value of a field is the source "
        "verification where the document was verified, else the adjudicated value where the keyers disagreed, else the "
        "agreed value; a keyer erred where the keyer's value differs from the final value; character error rate is "
        "the Levenshtein distance over the final value's characters. Voided documents are out of the lot; the sample "
        "size code letter is from Z1.4 Table I at general level II and the plan from Table II-A at AQL 1.0; a sample "
        "document is defective when any agreed or adjudicated field differs from the source."])
