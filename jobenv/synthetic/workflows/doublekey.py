"""Double-key verification of a keyed batch: discrepancies, error rates per keyer and Z1.4 lot acceptance, as a
corrected batch upload and a QC memo (data entry keyers).

A keying bureau's batch of member enrolment forms (15 fields each) was keyed twice by a pool of seven keyers (first
and second pass by different keyers). The lot is 476-497 documents; 4-31 more scans are voided in the
manifest, enough to push the count over the Z1.4 Table I boundary of 500. True values: names from a list,
USPS 3-digit ZIP prefixes of New England and the Mid-Atlantic (most with a leading zero), dates uniform, six-digit
group numbers (most with leading zeros). Each keyer slips on 0.15-0.9 % of fields (digit substitutions and
transpositions, dropped or swapped letters; a third of date slips are format changes, a third of ZIP/group slips drop
the leading zero, a quarter of ID slips key the letter O for a zero); 1.2 % of fields carry a harmless variant (case,
spaces, phone punctuation, premium format). The supervisor's keyer slips on exactly 0.62-0.85 % (claim holds) or
0.28-0.40 % (it does not) of fields. QC verified 150 documents from a random pull list against the images; the
decision is planted by the number of sample documents where both keyers agreed on a wrong value (Ac-1..Ac or
Re..Re+1), with 1-3 more such documents later in the pull list.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed or a planted trap moves no graded figure;
``recheck`` raises OSError, KeyError, ValueError or StopIteration on a folder that is not this workflow's.
"""

from __future__ import annotations

import datetime as dt
import random
import tempfile
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, llm, rubric
from ..compose import email_text, meeting_notes, person
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from . import doublekey_docs as docs
from .base import Draft, Facts, Workflow, iso, pick_labels, read_rows, write_files

__all__ = ["DOUBLE_KEY_VERIFICATION"]

SHORTCUTS = ("dates_parsed", "lost_zeros", "o_for_zero", "raw_compare", "agree_is_right", "voids_in", "blame_second")
FIELDS = docs.FIELDS
_LABELS = {
    "lot": ("Lot size (documents)", "Documents in the lot", "Lot size"),
    "letter": ("Sample size code letter", "Z1.4 code letter", "Code letter"),
    "n": ("Sample size", "Sample size n", "Documents sampled"),
    "ac": ("Acceptance number Ac", "Ac", "Accept number"),
    "re": ("Rejection number Re", "Re", "Reject number"),
    "defects": ("Defective documents in sample", "Sample defectives", "Defectives found in the sample"),
    "decision": ("Accept batch {b}", "Batch {b} accepted", "Lot {b} passes"),
    "disc": ("Field discrepancies", "Discrepant fields", "Fields where the keyings disagree"),
    "batch_rate": ("Batch field error rate (%)", "Overall field error rate (%)", "Field error rate, all keyers (%)"),
    "premise": ("{k} over the retraining threshold", "{k} above {t} %", "Supervisor's view of {k} holds"),
    "keyed": ("fields keyed", "fields keyed (count)", "keyed fields"),
    "errors": ("fields in error", "field errors", "errors (fields)"),
    "rate": ("field error rate (%)", "error rate (%)", "field error %"),
    "cer": ("character error rate (%)", "CER (%)", "char error rate (%)"),
}
_DIRS = {"batch": ("batch", "capture", "scans"), "keying": ("keying", "key_entry", "entry"),
         "qc": ("qc", "quality", "verification"), "spec": ("specs", "standards", "field_specs"),
         "mail": ("mail", "correspondence", "inbox")}
_DOC_COL = ("doc_id", "document_id", "dcn")
_DATE_FIELDS = set(docs.DATES)
_ZERO_FIELDS = {"zip", "group_number"}


# ---- the independent computation: csv only ----------------------------------------------------------------------

def _canon(field: str, raw: str) -> str:
    """The v3 comparison form, written apart from the solver's: split/join spaces, upper, per-field rules."""
    s = " ".join(raw.split()).upper()
    if field == "phone":
        return "".join(filter(str.isalnum, s))
    if field == "premium":
        try:
            return f"{Decimal(s.replace('$', '').replace(',', '')):.2f}"
        except InvalidOperation:
            return s
    return s


def _edits(x: str, y: str) -> int:
    """Levenshtein distance by the full (len+1) x (len+1) table."""
    t = [[i + j if i * j == 0 else 0 for j in range(len(y) + 1)] for i in range(len(x) + 1)]
    for i in range(1, len(x) + 1):
        for j in range(1, len(y) + 1):
            t[i][j] = min(t[i - 1][j] + 1, t[i][j - 1] + 1, t[i - 1][j - 1] + (x[i - 1] != y[j - 1]))
    return t[len(x)][len(y)]


def _pct(a: int, b: int) -> float:
    return float((Decimal(100 * a) / Decimal(b)).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code."""
    folder, F = Path(folder), P["files"]
    man = read_rows(folder / F["manifest"])
    lot = [r["doc_id"].strip() for r in man if r["status"].strip().upper() != "VOID"]
    one = {r["doc_id"].strip(): r for r in read_rows(folder / F["key1"])}
    two = {r["doc_id"].strip(): r for r in read_rows(folder / F["key2"])}
    adj = {(r["doc_id"].strip(), r["field_name"].strip()): r["adjudicated_value"] for r in read_rows(folder / F["adjudicated"])}
    vrows = sorted(read_rows(folder / F["verification"]), key=lambda r: int(r["queue_pos"]))
    ver = {r["doc_id"].strip(): r for r in vrows}
    tally: dict[str, list[int]] = {}
    disc, agreed, corrected = 0, {}, []
    for d in lot:
        out = [d]
        for f in FIELDS:
            a, b = _canon(f, one[d][f]), _canon(f, two[d][f])
            disc += a != b
            agreed[d, f] = a if a == b else _canon(f, adj[d, f])
            truth = _canon(f, ver[d][f]) if d in ver else agreed[d, f]
            out.append(truth)
            for row, v in ((one[d], a), (two[d], b)):
                t = tally.setdefault(row["keyer_id"].strip(), [0, 0, 0, 0])
                t[0], t[1], t[2], t[3] = t[0] + 1, t[1] + (v != truth), t[2] + (_edits(v, truth) if v != truth else 0), t[3] + len(truth)
        corrected.append(out)
    t1 = read_rows(folder / F["table1"])
    letter = [r[P["level"]] for r in t1 if int(r["lot_from"]) <= len(lot) and (not r["lot_to"] or len(lot) <= int(r["lot_to"]))][0]
    t2 = read_rows(folder / F["table2"])
    i = [r["code_letter"] for r in t2].index(letter)
    step = {"↓": 1, "↑": -1}
    while t2[i][P["aql"]] in step:
        i += step[t2[i][P["aql"]]]
    n = min(int(t2[i]["sample_size"]), len(lot))
    ac, re = map(int, t2[i][P["aql"]].split("/"))
    inlot = set(lot)
    sample = [r["doc_id"].strip() for r in vrows if r["doc_id"].strip() in inlot][:n]
    defects = len([d for d in sample if any(agreed[d, f] != _canon(f, ver[d][f]) for f in FIELDS)])
    keyers: list[dict[str, Any]] = [{"keyer": k, "fields": t[0], "errors": t[1], "rate": _pct(t[1], t[0]), "edits": t[2], "chars": t[3],
                                     "cer": _pct(t[2], t[3])} for k, t in sorted(tally.items())]
    claim = next(x for x in keyers if x["keyer"] == P["claim"])
    return {"lot": len(lot), "voided": len(man) - len(lot), "letter": letter, "n": n, "ac": ac, "re": re,
            "defects": defects, "discrepancies": disc, "fields_compared": len(lot) * len(FIELDS), "keyers": keyers,
            "batch_rate": _pct(sum(t[1] for t in tally.values()), sum(t[0] for t in tally.values())),
            "decision": defects <= ac, "premise": claim["rate"] > P["threshold_pct"], "corrected": corrected}


# ---- drawing a task ----------------------------------------------------------------------------------------

def _plan(lot: int) -> tuple[str, int, int, int]:
    from ..solvers.doublekey import z14_plan

    h1, r1 = docs.table_one()
    h2, r2 = docs.table_two()
    return z14_plan(lot, [dict(zip(h1, r)) for r in r1], [dict(zip(h2, r)) for r in r2])


def _keyings(rng: random.Random, W: dict[str, Any], targets: dict[str, bool]) -> None:
    """The two keyings of every document: the claim keyer's exact slips, the others' random slips, forced slips of
    each kind the spec rules on, the agreed wrong values in verified documents and harmless variants."""
    from ..solvers.doublekey import norm

    truth, who, X = W["truth"], W["who"], W["claim"]
    keyed: dict[tuple[str, int], dict[str, str]] = {(d, p): dict(truth[d]) for d in truth for p in (0, 1)}
    slipped: set[tuple[str, int, str]] = set()

    def put(d: str, p: int, f: str, kind: str = "") -> bool:
        v = docs.slip(rng, f, truth[d][f], kind)
        other = keyed[d, 1 - p][f]
        if norm(f, v) == norm(f, truth[d][f]) or norm(f, v) == norm(f, other):
            return False
        keyed[d, p][f] = v
        slipped.add((d, p, f))
        return True

    for d, f in W["agree"]:  # both keyers read the same wrong value (a misread on the form)
        v = docs.slip(rng, f, truth[d][f])
        keyed[d, 0][f] = keyed[d, 1][f] = v
        slipped |= {(d, 0, f), (d, 1, f)}
    live, rate = W["live"], W["rates"]
    others = [(d, p) for d in live for p in (0, 1) if who[d][p] != X]
    for kind, fields in (("date_format", docs.DATES), ("lost_zero", ("zip",)), ("o_zero", ("member_id", "phone")),
                         ("lost_zero", ("group_number",))):
        done = 0
        for d, p in rng.sample(others, len(others)):
            f = rng.choice(fields)
            if done < 2 and (d, p, f) not in slipped and (d, 1 - p, f) not in slipped and put(d, p, f, kind):
                W["forced"].setdefault(kind, []).append((d, f))
                done += 1
    mine = [(d, p, f) for d in live for p in (0, 1) if who[d][p] == X for f in FIELDS]
    want = round(W["claim_rate"] * len(mine) / 100)
    for d, p, f in rng.sample(mine, len(mine)):
        if want == 0:
            break
        want -= put(d, p, f, _kind(rng, f))
    if want:
        raise DegenerateTask("the claim keyer's slips could not be planted")
    for d in truth:
        for p in (0, 1):
            if who[d][p] == X and d in W["live_set"]:
                continue
            for f in FIELDS:
                if (d, p, f) not in slipped and (d, 1 - p, f) not in slipped and rng.random() < rate[who[d][p]]:
                    put(d, p, f, _kind(rng, f))
    for (d, p), row in keyed.items():
        for f in FIELDS:
            if (d, p, f) not in slipped and rng.random() < 0.012:
                row[f] = docs.benign(rng, f, row[f])
    W["keyed"] = keyed


def _kind(rng: random.Random, f: str) -> str:
    r = rng.random()
    if f in _DATE_FIELDS:
        return "date_format" if r < 0.35 else ""
    if f in _ZERO_FIELDS and r < 0.3:
        return "lost_zero"
    return "o_zero" if f in ("member_id", "zip", "phone", "group_number") and r < 0.55 else ""


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.doublekey import analyse

    dirs = pick_labels(rng, _DIRS)
    T = dt.date(2026, rng.randint(2, 10), rng.randint(1, 28))
    b = str(rng.randint(2100, 2899))
    edge = 500  # H (n 50, 1/2) below it, J (n 80, 2/3) above
    lot = rng.randint(edge - 24, edge - 3)
    voids = rng.randint(edge + 1 - lot, edge + 7 - lot)
    ids = [f"{b}-{k:04d}" for k in range(1, lot + voids + 1)]
    void = set(rng.sample(ids, voids))
    live = [d for d in ids if d not in void]
    keyers = [f"K-{n}" for n in rng.sample(range(101, 199), 7)]
    X = rng.choice(keyers)
    who = {d: tuple(rng.sample(keyers, 2)) for d in ids}
    letter, n, ac, re = _plan(lot)
    n_naive = _plan(lot + voids)[1]
    queue = rng.sample(live, 150)
    clean = [d for d in queue if X not in who[d]]
    d_in = rng.randint(max(0, ac - 1), ac) if targets["decision"] else rng.randint(re, re + 1)
    pool_in, pool_out = [d for d in clean if queue.index(d) < n], [d for d in clean if n <= queue.index(d) < n_naive]
    if len(pool_in) < d_in + 1 or len(pool_out) < 3:
        raise DegenerateTask("no room in the pull list for the agreed misreads")
    agree_docs = rng.sample(pool_in, d_in) + rng.sample(pool_out, rng.randint(1, 3))
    W: dict[str, Any] = {
        "truth": {d: docs.true_record(rng, T.year) for d in ids}, "who": who, "claim": X, "live": live,
        "live_set": set(live), "rates": {k: rng.uniform(0.0015, 0.009) for k in keyers}, "forced": {},
        "agree": [(d, rng.choice([f for f in FIELDS if f != "middle_initial"])) for d in agree_docs],
        "claim_rate": rng.uniform(0.62, 0.85) if targets["premise"] else rng.uniform(0.28, 0.40)}
    _keyings(rng, W, targets)
    P: dict[str, Any] = {
        "batch": b, "keyers": sorted(keyers), "level": "II", "aql": "1.0", "threshold_pct": 0.5, "claim": X, "doc_col": rng.choice(_DOC_COL),
        "v2_date": iso(T - dt.timedelta(days=rng.randint(700, 900))), "v3_date": iso(T - dt.timedelta(days=rng.randint(60, 200))),
        "files": {"manifest": f"{dirs['batch']}/batch_{b}_manifest.csv",
                  "key1": f"{dirs['keying']}/pass1/batch_{b}_key1.csv", "key2": f"{dirs['keying']}/pass2/batch_{b}_key2.csv",
                  "adjudicated": f"{dirs['keying']}/adjudication/batch_{b}_adjudicated.csv",
                  "verification": f"{dirs['qc']}/batch_{b}_source_verification.csv",
                  "table1": f"{dirs['qc']}/reference/z14_table_I_code_letters.csv",
                  "table2": f"{dirs['qc']}/reference/z14_table_IIA_normal_single.csv"},
        "deliverables": {"memo": rng.choice((f"qc_memo_batch_{b}.docx", f"batch_{b}_qc_memo.md")),
                         "csv": rng.choice((f"batch_{b}_corrected.csv", f"batch_{b}_upload.csv"))}}
    labels = pick_labels(rng, _LABELS)
    labels["decision"] = labels["decision"].format(b=b)
    labels["premise"] = labels["premise"].format(k=X, t="0.50")
    P["labels"] = labels
    files = _files(rng, P, W, dirs, T, queue, void)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), {k: files[k] for k in P["files"].values()})
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    if truth["decision"] != targets["decision"] or truth["premise"] != targets["premise"]:
        raise DegenerateTask("the targets are missed")
    by = {x["keyer"]: x for x in truth["keyers"]}
    if abs(by[X]["rate"] - P["threshold_pct"]) < 0.05:
        raise DegenerateTask("the claim keyer sits on the threshold")
    cells = _cells(W, truth)
    P.update(cells)
    where = {"dates_parsed": ("memo", "the v3 spec keeps dates as written (MM/DD/YYYY); v2's date conversion is withdrawn"),
             "lost_zeros": ("data", "ZIP and group number are text whose leading zeros a numeric read drops"),
             "o_for_zero": ("memo", "the v3 spec counts a keyed letter O for a zero as an error (v2 read it as zero)"),
             "raw_compare": ("data", "the adjudication log lists raw differences of case, spaces and format the spec "
                                     "normalises away"),
             "agree_is_right": ("data", "source verification shows values both keyers agreed on that are wrong"),
             "voids_in": ("header", "voided scans in the manifest are outside the lot and push it over a Table I "
                                    "boundary"),
             "blame_second": ("memo", "the procedure charges errors against the final value, neither pass being the "
                                      "reference")}
    graded = _graded(truth, P)
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s} for s, g in singles.items()
             if _graded(g, P) != graded]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    return Draft(subject=f"Double-key verification, batch {b}", instructions=_prompt(rng, P, files), files=files,
                 roles={k: ("data" if k in P["files"].values() else "distractor") for k in files} | {
                     f"{dirs['spec']}/field_spec_v3.pdf": "policy", f"{dirs['qc']}/qc_procedure_dk-04.docx": "policy",
                     f"{dirs['spec']}/archive/field_spec_v2.pdf": "stale"},
                 params=P, traps=traps, targets=dict(targets),
                 distributions="476-497 lot documents plus 4-31 voided scans, 15 fields each, keyed "
                               "twice by 7 keyers slipping on 0.15-0.9 % of fields (claim keyer exactly 0.28-0.40 or "
                               "0.62-0.85 %), 1.2 % harmless variants, 150 documents source-verified in random order")


def _cells(W: dict[str, Any], truth: Facts) -> dict[str, Any]:
    """The planted cells the upload is graded on and the keyers whose lines are graded."""
    d, f = W["forced"]["date_format"][0]
    agree = [(x, g) for x, g in W["agree"] if x in W["live_set"]]
    zd, _ = W["forced"]["lost_zero"][0]
    other = sorted({k for x, _ in agree for k in W["who"][x]} - {W["claim"]})
    return {"date_cell": [d, f, W["truth"][d][f]], "agree_cell": [agree[0][0], agree[0][1], W["truth"][agree[0][0]][agree[0][1]]],
            "zip_id": W["truth"][zd]["zip"], "graded_keyers": [W["claim"], other[0]]}


def _graded(f: Facts, P: dict[str, Any]) -> tuple[Any, ...]:
    by = {x["keyer"]: x for x in f["keyers"]}
    rows = {r[0]: r for r in f["corrected"]}

    def cell(c: list[str]) -> str:
        return rows[c[0]][1 + FIELDS.index(c[1])] if c[0] in rows else ""

    zips = {r[1 + FIELDS.index("zip")] for r in f["corrected"]}
    return (f["lot"], f["letter"], f["n"], f["ac"], f["re"], f["defects"], f["decision"], f["discrepancies"],
            f["batch_rate"], f["premise"], len(f["corrected"]), cell(P["date_cell"]), cell(P["agree_cell"]),
            P["zip_id"] in zips, *((by[k]["errors"], by[k]["rate"], by[k]["cer"]) for k in P["graded_keyers"]))


def _files(rng: random.Random, P: dict[str, Any], W: dict[str, Any], dirs: dict[str, str], T: dt.date,
           queue: list[str], void: set[str]) -> dict[str, Any]:
    F, b, truth, keyed, who = P["files"], P["batch"], W["truth"], W["keyed"], W["who"]
    r2 = random.Random(f"{b}{T}")
    reasons = ("duplicate scan", "blank page", "form withdrawn by member", "illegible - rescan requested")
    t0 = dt.datetime(T.year, T.month, T.day, 7, 0) - dt.timedelta(days=6)
    manifest = [[d, f"IMG{d.replace('-', '')}.tif", r2.choice((1, 1, 1, 2)), (t0 + dt.timedelta(seconds=37 * k)).isoformat(),
                 "VOID" if d in void else "OK", r2.choice(reasons) if d in void else ""] for k, d in enumerate(truth)]

    def keys(p: int) -> list[list[Any]]:
        return [[d, who[d][p], (t0 + dt.timedelta(days=1 + p, seconds=61 * k)).isoformat(), *(keyed[d, p][f] for f in FIELDS)]
                for k, d in enumerate(truth)]

    adj = [[d, f, keyed[d, 0][f], keyed[d, 1][f], truth[d][f], r2.choice(("A-02", "A-05")), iso(T - dt.timedelta(days=2))]
           for d in truth for f in FIELDS if keyed[d, 0][f] != keyed[d, 1][f]]
    ver = [[k, d, *(truth[d][f] for f in FIELDS), r2.choice(("Q-11", "Q-14"))] for k, d in enumerate(queue, 1)]
    h1, t1 = docs.table_one()
    h2, t2 = docs.table_two()
    sup, lead = person(r2), person(r2)
    kh = ["doc_id", "keyer_id", "keyed_at", *FIELDS]
    prior = [["2213", r2.randint(900, 1400), "K", 125, 3, 4, r2.randint(1, 3), "accept"],
             ["2212", r2.randint(400, 499), "H", 50, 1, 2, r2.randint(0, 1), "accept"]]
    return {
        F["manifest"]: lambda p: write_csv(p, ["doc_id", "image_file", "pages", "scanned_at", "status", "void_reason"],
                                           manifest),
        F["key1"]: lambda p: write_csv(p, kh, keys(0)),
        F["key2"]: lambda p: write_csv(p, kh, keys(1)),
        F["adjudicated"]: lambda p: write_csv(p, ["doc_id", "field_name", "pass1_value", "pass2_value",
                                                  "adjudicated_value", "adjudicator", "adjudicated_on"], adj),
        F["verification"]: lambda p: write_csv(p, ["queue_pos", "doc_id", *FIELDS, "verifier"], ver),
        F["table1"]: lambda p: write_csv(p, h1, t1),
        F["table2"]: lambda p: write_csv(p, h2, t2),
        f"{dirs['qc']}/reference/README.txt": lambda p: write_text(p, (
            "ANSI/ASQ Z1.4 extracts. Table I: sample size code letters by lot size for general inspection levels I, "
            "II and III (lot_to blank = and over). Table II-A: single sampling plans for normal inspection, cells "
            "Ac/Re by AQL (per cent defective); an arrow means use the first sampling plan below (↓) or above (↑) "
            "the arrow, with that plan's sample size. When the sample size equals or exceeds the lot size, inspect "
            "every unit.\n")),
        f"{dirs['spec']}/field_spec_v3.pdf": lambda p: write_pdf(p, "Field specification v3", docs.spec_lines(P, True)),
        f"{dirs['spec']}/archive/field_spec_v2.pdf": lambda p: write_pdf(p, "Field specification v2",
                                                                          docs.spec_lines(P, False)),
        f"{dirs['qc']}/qc_procedure_dk-04.docx": lambda p: write_docx(p, "QC procedure DK-04",
                                                                       docs.procedure_lines(P)),
        f"{dirs['mail']}/{iso(T - dt.timedelta(days=1))}_re_batch_{b}.txt": lambda p: write_text(p, email_text(
            sender=f"{sup}, Keying Supervisor", to="QC Lead", date=iso(T - dt.timedelta(days=1)),
            subject=f"Batch {b} - {P['claim']}",
            body=f"Looking at the discrepancy report, {P['claim']} is over our {P['threshold_pct']:.2f} % retraining "
                 f"line on this batch - most of the flagged fields on the second pass are theirs. Can you confirm "
                 f"before I book the retraining slot? Also the client wants the accept/reject call on {b} this week.")),
        f"{dirs['mail']}/{iso(T - dt.timedelta(days=3))}_qc_pull_list.txt": lambda p: write_text(p, email_text(
            sender=f"{lead}, QC Verifier", to="QC Lead", date=iso(T - dt.timedelta(days=3)),
            subject=f"Batch {b} source verification",
            body="We verified 150 documents against the images in the order of the random pull list (queue_pos), "
                 "skipping scans that capture had already voided, so the sample can be cut at n once the lot size "
                 "is settled. Values are keyed in the spec's stored form.")),
        f"{dirs['mail']}/{iso(T - dt.timedelta(days=8))}_overtime_rota.txt": lambda p: write_text(p, email_text(
            sender="Operations", to="Keying team", date=iso(T - dt.timedelta(days=8)), subject="Weekend rota",
            body="Saturday overtime is open for the open-enrolment backlog; sign up on the board by Thursday.")),
        f"{dirs['qc']}/history/qc_summary_prior_batches.csv": lambda p: write_csv(
            p, ["batch", "lot_size", "code_letter", "n", "ac", "re", "defectives", "result"], prior),
        f"{dirs['keying']}/productivity/keystrokes_week.xlsx": lambda p: write_xlsx(p, [(
            "Keystrokes", ["keyer_id", "hours", "keystrokes", "kph"],
            [[k, h, h * v, v] for k in sorted(W["rates"]) for h, v in [(r2.randint(28, 40), r2.randint(8000, 12500))]])]),
        f"meetings/{iso(T - dt.timedelta(days=5))}_ops_standup.md": lambda p: write_text(p, meeting_notes(
            r2, topic=f"batch {b} keying", people=[sup, lead, person(r2)], date=iso(T - dt.timedelta(days=5)))),
    }


def _prompt(rng: random.Random, P: dict[str, Any], files: dict[str, Any]) -> str:
    L, D, b, X = P["labels"], P["deliverables"], P["batch"], P["claim"]
    boss = person(rng)
    steps = [f"Compare the first and second keying of batch {b} field by field after the current field spec's "
             "normalisation (v3), over the documents of the lot only, and count the discrepant fields.",
             "Take each field's final value (the QC source verification where the document was verified, else the "
             "adjudicated value where the keyings disagree, else the agreed value) and charge an error to every keyer "
             "whose value differs from it. Per keyer: fields keyed, fields in error, field error rate (fields in error "
             "/ fields keyed) and character error rate (Levenshtein distance to the final value over the final "
             "value's characters), both in per cent to three decimals, rounded half up; also the batch rate over all keyers.",
             "Run lot acceptance under ANSI/ASQ Z1.4 (tables in the QC reference folder), general inspection level "
             "II, normal single sampling, AQL 1.0: lot size without voided scans, code letter, n, Ac and Re; the "
             "sample is the first n verified lot documents in pull-list order, and a sample document is defective "
             "when any agreed or adjudicated field differs from the source. Accept or reject the batch.",
             f"Check the supervisor's email about {X} against the {P['threshold_pct']:.2f} % retraining threshold."]
    memo = [f"{L['lot']}: <documents>", f"{L['letter']}: <letter>", f"{L['n']}: <documents>", f"{L['ac']}: <number>",
            f"{L['re']}: <number>", f"{L['defects']}: <number>", f"{L['decision']}: <yes or no>",
            f"{L['disc']}: <fields>", f"{L['batch_rate']}: <per cent, 3 decimals>", f"{L['premise']}: <yes or no>"]
    for k in P["keyers"]:
        memo += [f"{k} {L['keyed']}: <number>", f"{k} {L['errors']}: <number>",
                 f"{k} {L['rate']}: <per cent, 3 decimals>", f"{k} {L['cer']}: <per cent, 3 decimals>"]
    deliv = [f"{D['csv']}: the corrected batch for upload, one row per lot document, columns {P['doc_col']} then the "
             f"15 spec fields ({', '.join(FIELDS)}), each field's final value in the spec's stored form.",
             f"{D['memo']}: the QC memo, opening with these labelled lines (label: value), then a short note of the "
             "method and what the keyers should look at:\n" + "\n".join(f"   {x}" for x in memo)]
    return "\n\n".join([
        rng.choice((f"From: {boss}, Operations Manager\nSubject: Batch {b} keying audit\n\n", f"Hi - {boss} here.\n\n"))
        + rng.choice((f"Batch {b} has been keyed twice and adjudicated. Before it goes to the client, I need the "
                      "double-key audit: error rates per keyer and the accept/reject call.",
                      f"Please run the keying audit on batch {b}: compare the two keyings, rate each keyer, and tell "
                      "me whether the lot is accepted under our AQL.")),
        "Steps:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        "Please leave in the output folder:\n" + "\n".join(f"{k}. {t}" for k, t in enumerate(deliv, 1)),
        "Thanks.\n" + boss.split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(files)),
    ]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, IdsCheck, RowCountCheck

    D, L = P["deliverables"], P["labels"]
    memo, up = D["memo"], D["csv"]
    yes = lambda v: "yes" if v else "no"  # noqa: E731
    by = {x["keyer"]: x for x in facts["keyers"]}
    rows = {r[0]: r for r in facts["corrected"]}

    def num(label: str, v: float, tol: float = 0.0) -> tuple[str, Any]:
        shown = f"{v:.3f}" if tol else f"{int(v)}"
        return f"{label}: {shown}", FieldCheck(file=memo, label=label, number=float(v), tolerance=tol)

    def keyer(k: str, key: str) -> tuple[str, Any]:
        lab = {"errors": L["errors"], "rate": L["rate"], "cer": L["cer"], "fields": L["keyed"]}[key]
        return num(f"{k} {lab}", by[k][key], 0.0 if key in ("errors", "fields") else 0.001)

    def cell(c: list[str]) -> tuple[str, Any]:
        v = rows[c[0]][1 + FIELDS.index(c[1])]
        return (f"{up}: {c[0]} {c[1]} = {v}", CellCheck(file=up, match={P["doc_col"]: c[0]}, column=c[1], value=v))

    X, Y = P["graded_keyers"]
    return [
        rubric("Compares the keyings after the current spec's normalisation (dates as written, IDs as text, O not 0)",
               10, [num(L["disc"], facts["discrepancies"]), num(L["batch_rate"], facts["batch_rate"], 0.001)]),
        rubric("Charges errors to keyers against the final value, agreed-but-wrong fields included", 10, [
            keyer(X, "errors"), keyer(X, "rate"), keyer(Y, "errors"), keyer(Y, "rate")]),
        rubric("Computes character error rates by Levenshtein distance", 8, [keyer(X, "cer"), keyer(Y, "cer")]),
        rubric("Sizes the lot without voided scans and reads Z1.4 level II at AQL 1.0", 10, [
            num(L["lot"], facts["lot"]), (f"{L['letter']}: {facts['letter']}", fld(memo, L["letter"], facts["letter"])),
            num(L["n"], facts["n"]), num(L["ac"], facts["ac"]), num(L["re"], facts["re"])]),
        rubric("Counts defectives in the sample and decides the lot", 8, [
            num(L["defects"], facts["defects"]),
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Delivers the corrected batch in the spec's stored form", 8, [
            (f"{up} has {len(facts['corrected'])} rows", RowCountCheck(file=up, key=P["doc_col"], count=len(facts["corrected"]))),
            cell(P["date_cell"]), cell(P["agree_cell"]),
            (f"{up} keeps ZIP {P['zip_id']} with its leading zero", IdsCheck(file=up, ids=[P["zip_id"]]))]),
        rubric("Tests the supervisor's claim against the keyer's rate", 8, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            keyer(X, "rate")]),
    ] + ([rubric("Writes a QC memo the keying team can act on", 6, [
        ("Explains which errors the double keying could not catch and how verification found them", llm("content")),
        ("Says what each keyer with a high rate should work on", llm("explanation"))])] if judgement else [])


DOUBLE_KEY_VERIFICATION = Workflow(
    key="double_key_verification", family="double_key_verification",
    method="double-key verification: field compare after the spec's normalisation, errors per keyer against the "
           "verified/adjudicated value (field and Levenshtein character error rates), ANSI/ASQ Z1.4 level II single "
           "sampling at AQL 1.0 for lot acceptance",
    professions=("data_entry_keyers",), solver="doublekey", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated batch manifest, two keying exports, adjudication log and source verification "
                          "(stated distributions)")
