"""Datasheet verification before print: every electrical spec of a draft LDO regulator datasheet checked against
the released characterisation lot, with a corrected datasheet and a change log (technical writers).

A fictional low-dropout regulator is generated with 8-10 of ten catalogue parameters (output voltage, quiescent,
shutdown and ground current, dropout, current limit, PSRR, enable threshold, line and load regulation), each with
published limits (min/typ/max per the catalogue), a unit and decimal places from the style guide. The rated junction
range is -40 to 125 C (readings at -40, 25, 85, 125 and 150 C) or -40 to 85 C (readings at -40, 25, 85 and 125 C).
Lot B has 28-40 devices; a reading is the parameter's mean (drawn per task) plus a device effect (normal, the
parameter's sd), a linear temperature drift of up to 1.5 sd per 50 C and measurement noise (0.25 sd). Tester site 2
(30-50 % of devices) logs quiescent and ground current in mA and current limit in A; shutdown current is logged in nA
throughout. About 1.5 % of readings have a contact-failure row (status CONT, value 0 or 9.9E+37) before the retest.
Lot A (stale, pre-production mask) has 20-30 devices with every mean shifted 1-2.5 sd. The draft is the correct table
with 1-2 wrong values (when the requester's expectation is to hold) or 3-6 (otherwise), each copied from lot A when
that fits, else off by 3-9 units of the last place; when sign-off is to be needed one guaranteed limit is drafted
tighter than the data supports, otherwise every wrong limit is looser. A superseded procedure (typ over all
temperatures) and a superseded style guide (limits rounded to nearest) sit in archive folders.

Failure behaviour: ``draw`` raises DegenerateTask when a raw statistic sits within 1e-6 of a rounding boundary, the
targets are missed or a planted trap moves no graded figure; ``recheck`` raises OSError, KeyError or ValueError on a
folder that is not this workflow's.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import math
import random
import re
import statistics
import tempfile
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import normalize_zip, write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, iso, pick_labels, write_files

__all__ = ["DATASHEET_VERIFICATION"]

# symbol: name, conditions, published unit, decimals, limits, mean range, sd range, unit logged at site 2
_CATALOGUE: dict[str, tuple[str, str, str, int, tuple[str, ...], tuple[float, float], tuple[float, float], str]] = {
    "VOUT": ("Output voltage", "IOUT = 1 mA", "V", 3, ("min", "typ", "max"), (3.296, 3.304),
             (0.004, 0.007), "V"),
    "IQ": ("Quiescent current", "IOUT = 0 mA, VEN = VIN", "µA", 1, ("typ", "max"), (35.0, 60.0), (1.5, 3.0), "mA"),
    "ISHDN": ("Shutdown current", "VEN = 0 V", "µA", 2, ("typ", "max"), (0.25, 0.5), (0.03, 0.06), "nA"),
    "IGND": ("Ground current", "IOUT = 300 mA", "µA", 0, ("typ", "max"), (180.0, 260.0), (8.0, 14.0), "mA"),
    "VDO": ("Dropout voltage", "IOUT = 300 mA", "mV", 0, ("typ", "max"), (150.0, 220.0), (6.0, 10.0), "mV"),
    "ILIM": ("Output current limit", "VOUT = 90 % of nominal", "mA", 0, ("min", "typ", "max"), (420.0, 520.0),
             (12.0, 18.0), "A"),
    "PSRR": ("Power-supply rejection ratio", "f = 1 kHz, IOUT = 10 mA", "dB", 0, ("min", "typ"), (62.0, 72.0),
             (1.2, 2.0), "dB"),
    "VENH": ("Enable threshold, rising", "VIN = 2.5 V to 6 V", "V", 2, ("min", "typ", "max"), (0.85, 1.05),
             (0.02, 0.03), "V"),
    "REGLINE": ("Line regulation", "VIN = VOUT + 0.5 V to 6 V", "%/V", 3, ("typ", "max"), (0.010, 0.025),
                (0.002, 0.004), "%/V"),
    "REGLOAD": ("Load regulation", "IOUT = 1 mA to 300 mA", "%", 2, ("typ", "max"), (0.15, 0.35), (0.03, 0.05), "%"),
}
_ALWAYS = ("VOUT", "IQ", "ISHDN", "ILIM")
_COLUMNS = ({"lot": "LOT_ID", "device": "DUT_ID", "site": "SITE", "temp": "TEMP_C", "parameter": "PARAM",
             "value": "RESULT", "unit": "UNITS", "status": "STATUS"},
            {"lot": "lot", "device": "device", "site": "tester_site", "temp": "tj_c", "parameter": "symbol",
             "value": "value", "unit": "unit", "status": "flag"})
_LABELS = {
    "specs": ("Published values checked", "Spec values verified", "Datasheet values checked (min/typ/max)"),
    "wrong": ("Wrong specs", "Specs corrected", "Values changed from the draft"),
    "decision": ("Engineering sign-off needed before print", "Product engineering sign-off required",
                 "Widened limit needs engineering approval"),
    "premise": ("At most two corrections, as the apps team expected", "Only a couple of fixes needed (two or fewer)",
                "Apps team's 'two fixes at most' holds"),
}
_LOG = {"symbol": ("symbol", "spec_symbol"), "limit": ("limit", "min_typ_max"), "old": ("old_value", "draft_value"),
        "new": ("new_value", "corrected_value"), "unit": ("unit", "units")}
_DIRS = {"char": ("characterisation", "product_engineering/characterisation", "pe/char_data"),
         "docs": ("documentation", "techpubs", "docs"), "mail": ("mail", "correspondence", "email")}
SHORTCUTS = ("lot_a", "units", "typ_all_temps", "out_of_range", "invalid", "round_limits")
_PREFIX = {"n": 1e-9, "µ": 1e-6, "m": 1e-3, "": 1.0}


# ---- the independent computation: csv, zipfile and the standard library only ------------------------------------

def _docx_table(path: Path) -> list[list[str]]:
    """The rows of the first table in a Word file whose header names Min, Typ and Max, read from its XML."""
    ns = {"w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main"}
    with zipfile.ZipFile(path) as z:
        root = ElementTree.fromstring(z.read("word/document.xml"))
    for tbl in root.iter(f"{{{ns['w']}}}tbl"):
        rows = [["".join(t.text or "" for t in tc.iter(f"{{{ns['w']}}}t")).strip() for tc in tr.findall("w:tc", ns)]
                for tr in tbl.findall("w:tr", ns)]
        if rows and {"min", "typ", "max"} <= {c.lower() for c in rows[0]}:
            return rows
    raise ValueError(f"{path.name}: no spec table")


def _to_unit(value: float, unit: str, want: str) -> float:
    if unit == want:
        return value
    return value * _PREFIX[unit[:-1]] / _PREFIX[want[:-1]]


def _round(x: float, decimals: int, limit: str) -> float:
    scaled = x * 10 ** decimals
    if limit == "min":
        return math.floor(scaled + 1e-9) / 10 ** decimals
    if limit == "max":
        return math.ceil(scaled - 1e-9) / 10 ** decimals
    return math.floor(scaled + 0.5 + 1e-9) / 10 ** decimals


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the folder without the solver's code: lot B read with csv, the draft's table from the
    docx XML, statistics with the statistics module, rounding by floor and ceiling."""
    folder, C = Path(folder), P["columns"]
    lo, hi = P["rated"]
    by: dict[str, list[tuple[float, float]]] = {}
    with (folder / P["files"]["lot_b"]).open(newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            sym = r[C["parameter"]]
            if sym in P["specs"] and r[C["status"]] == "OK":
                by.setdefault(sym, []).append(
                    (float(r[C["temp"]]), _to_unit(float(r[C["value"]]), r[C["unit"]], P["specs"][sym]["unit"])))
    rows = _docx_table(folder / P["files"]["draft"])
    head = [h.lower() for h in rows[0]]
    changes = []
    n = 0
    for row in rows[1:]:
        sym = row[head.index("symbol")]
        spec = P["specs"][sym]
        pts = by[sym]
        inside = [v for t, v in pts if lo <= t <= hi]
        m, s = sum(inside) / len(inside), statistics.stdev(inside)
        raw = {"min": m - 3 * s, "max": m + 3 * s, "typ": statistics.median(v for t, v in pts if t == 25)}
        for lim in ("min", "typ", "max"):
            text = row[head.index(lim)]
            if not re.fullmatch(r"-?\d+(\.\d+)?", text):
                continue
            n += 1
            new = _round(raw[lim], spec["decimals"], lim)
            if abs(new - float(text)) > 0.5 * 10 ** -spec["decimals"]:
                changes.append({"symbol": sym, "limit": lim, "text": text, "new": new, "decimals": spec["decimals"],
                                "unit": spec["unit"], "widened": (lim == "max" and new > float(text))
                                or (lim == "min" and new < float(text))})
    return {"changes": changes, "n_specs": n, "n_wrong": len(changes),
            "decision": any(c["widened"] for c in changes), "premise": len(changes) <= int(P["premise_max"])}


# ---- drawing a task ----------------------------------------------------------------------------------------------

def _lot(rng: random.Random, chip: dict[str, Any], lot: str, n_dev: int, shift: dict[str, float],
         C: dict[str, str]) -> list[list[Any]]:
    """One lot's export rows: every device at every temperature for every parameter, with contact-failure rows."""
    rows: list[list[Any]] = []
    site2 = set(rng.sample(range(n_dev), round(n_dev * rng.uniform(0.3, 0.5))))
    for sym in chip["symbols"]:
        mean, sd, slope = chip["mean"][sym] + shift.get(sym, 0.0), chip["sd"][sym], chip["slope"][sym]
        unit = _CATALOGUE[sym][2]
        for d in range(n_dev):
            dev = rng.gauss(0, sd)
            site = 2 if d in site2 else 1
            for t in chip["temps"]:
                v = mean + dev + slope * (t - 25) + rng.gauss(0, 0.25 * sd)
                logged = _CATALOGUE[sym][7] if (site == 2 or sym == "ISHDN") else unit
                v = _to_unit(v, unit, logged) if logged != unit else v
                ident = f"{lot}{d + 1:03d}"
                if rng.random() < 0.015:
                    rows.append([chip["lots"][lot], ident, site, t, sym, rng.choice(("0", "9.9E+37")), logged, "CONT"])
                rows.append([chip["lots"][lot], ident, site, t, sym, f"{v:.6g}", logged, "OK"])
    return rows


def _plant(rng: random.Random, truth: list[dict[str, Any]], stale: dict[tuple[str, str], float],
           targets: dict[str, bool]) -> dict[tuple[str, str], str]:
    """Draft texts for the wrong specs: k of them, one guaranteed limit tighter than the data when sign-off is to be
    needed, every other wrong limit looser."""
    k = rng.randint(1, 2) if targets["premise"] else rng.randint(3, 6)
    limits = [c for c in truth if c["limit"] != "typ"]
    first = [rng.choice(limits)] if targets["decision"] else []
    rest = [c for c in truth if c not in first]
    chosen = first + rng.sample(rest, k - len(first))
    out: dict[tuple[str, str], str] = {}
    for c in chosen:
        d, new = c["decimals"], c["new"]
        unit = 10 ** -d
        want = 0 if c["limit"] == "typ" else (1 if c is chosen[0] and targets["decision"] else -1)  # +1 = tighter
        sign = {"max": -1, "min": 1}.get(c["limit"], 0)  # tighter = below a max, above a min
        old = stale.get((c["symbol"], c["limit"]))
        ok = old is not None and abs(old - new) >= 3 * unit - 1e-9 and abs(old - new) <= 0.3 * abs(new) + 10 * unit
        if ok and want and old is not None:
            ok = (old - new) * sign * want > 0
        if not ok:
            step = rng.randint(3, 9) * unit
            direction = sign * want if want else rng.choice((-1, 1))
            old = new + direction * step
        out[(c["symbol"], c["limit"])] = f"{old:.{d}f}"
    return out


def _write_datasheet(path: Path, title: str, note: str, rows: list[list[str]], extra: list[str]) -> None:
    import docx

    doc = docx.Document()
    doc.add_heading(title, level=1)
    doc.add_paragraph(note)
    t = doc.add_table(rows=1, cols=len(rows[0]))
    t.style = "Table Grid"
    for cell, h in zip(t.rows[0].cells, rows[0], strict=True):
        cell.text = h
    for r in rows[1:]:
        for cell, v in zip(t.add_row().cells, r, strict=True):
            cell.text = v
    for p in extra:
        doc.add_paragraph(p)
    path.parent.mkdir(parents=True, exist_ok=True)
    cp = doc.core_properties
    cp.author, cp.revision = "Technical Publications", 3
    cp.created = cp.modified = dt.datetime(2024, 6, 28, 9, 0, 0)
    buf = io.BytesIO()
    doc.save(buf)
    path.write_bytes(normalize_zip(buf.getvalue()))


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.datasheet import analyse, readings, spec_statistics

    # the trigger is the print date, whatever else the profession's requests are about
    prof = dataclasses.replace(profession(occupation), occasions=("the datasheet goes to print next week",
                                                                  "the printer needs the final files next week"))
    auto = rng.random() < 0.5
    symbols = list(_ALWAYS) + rng.sample([s for s in _CATALOGUE if s not in _ALWAYS], rng.randint(4, 6))
    symbols.sort(key=list(_CATALOGUE).index)
    part = f"{rng.choice(('TPL', 'AXR', 'MLD', 'NVR'))}{rng.randint(70, 79)}{rng.randint(10, 99)}-33"
    chip: dict[str, Any] = {
        "symbols": symbols, "temps": [-40, 25, 85, 125, 150] if auto else [-40, 25, 85, 125],
        "mean": {s: rng.uniform(*_CATALOGUE[s][5]) for s in symbols},
        "sd": {s: rng.uniform(*_CATALOGUE[s][6]) for s in symbols},
        "lots": {"A": f"{part[:3]}{rng.randint(1000, 4999)}A", "B": f"{part[:3]}{rng.randint(5000, 9999)}B"}}
    chip["slope"] = {s: rng.uniform(-1.5, 1.5) * chip["sd"][s] / 50 for s in symbols}
    C = _COLUMNS[rng.randrange(2)]
    dirs = pick_labels(rng, _DIRS)
    rev = rng.choice("CDE")
    when = dt.date(2025, rng.randint(2, 10), rng.randint(1, 28))
    P: dict[str, Any] = {
        "files": {"lot_b": f"{dirs['char']}/lot_B/{part.lower()}_char_{chip['lots']['B'].lower()}.csv",
                  "lot_a": f"{dirs['char']}/lot_A/{part.lower()}_char_{chip['lots']['A'].lower()}.csv",
                  "draft": f"{dirs['docs']}/drafts/{part}_datasheet_rev{rev}_draft.docx"},
        "columns": C, "rated": [-40, 125 if auto else 85], "premise_max": 2, "part": part,
        "title": f"{part} 300-mA low-dropout regulator - electrical characteristics",
        "conditions_note": f"TJ = -40 C to +{125 if auto else 85} C, VIN = VOUT + 0.5 V, unless otherwise noted; "
                           "typical values at TJ = 25 C.",
        "specs": {s: {"unit": _CATALOGUE[s][2], "decimals": _CATALOGUE[s][3], "limits": list(_CATALOGUE[s][4]),
                      "conditions": _CATALOGUE[s][1], "name": _CATALOGUE[s][0]} for s in symbols},
        "labels": pick_labels(rng, _LABELS), "log_columns": pick_labels(rng, _LOG), "mail_dir": dirs["mail"],
        "docs_dir": dirs["docs"], "char_dir": dirs["char"],
        "deliverables": {"datasheet": f"{part}_datasheet_rev{rev}.docx",
                         "log": rng.choice(("datasheet_change_log.csv", f"{part.lower()}_spec_changes.csv")),
                         "memo": rng.choice(("verification_note.md", "note_to_documentation_manager.md"))}}
    shift = {s: rng.choice((-1, 1)) * rng.uniform(1.0, 2.5) * chip["sd"][s] for s in symbols}
    rows_b = _lot(rng, chip, "B", rng.randint(28, 40), {}, C)
    rows_a = _lot(rng, chip, "A", rng.randint(20, 30), shift, C)
    head = [C[k] for k in ("lot", "device", "site", "temp", "parameter", "value", "unit", "status")]
    data = {P["files"]["lot_b"]: lambda p: write_csv(p, head, rows_b),
            P["files"]["lot_a"]: lambda p: write_csv(p, head, rows_a)}
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, data)
        stats = {}
        for lot in ("B", "A"):
            got = readings(tmp, P, ("lot_a",) if lot == "A" else ())
            stats[lot] = {s: spec_statistics(got[s], tuple(P["rated"]), P["specs"][s]["decimals"],
                                             P["specs"][s]["limits"]) for s in symbols}
        for s in symbols:
            d = P["specs"][s]["decimals"]
            for lim, x in stats["B"][s][1].items():
                scaled = abs(x) * 10 ** d
                frac = scaled - math.floor(scaled)
                if min(abs(frac - 0.5), frac, 1 - frac) < 1e-6:
                    raise DegenerateTask(f"{s} {lim} sits on a rounding boundary")
        truth = [{"symbol": s, "limit": lim, "new": stats["B"][s][0][lim], "decimals": P["specs"][s]["decimals"]}
                 for s in symbols for lim in P["specs"][s]["limits"]]
        stale = {(s, lim): v for s in symbols for lim, v in stats["A"][s][0].items()}
        wrong = _plant(rng, truth, stale, targets)
        table = [["Parameter", "Symbol", "Test conditions", "Min", "Typ", "Max", "Unit"]]
        for s in symbols:
            spec = P["specs"][s]
            cells = {c["limit"]: wrong.get((s, c["limit"]), f"{c['new']:.{c['decimals']}f}") for c in truth
                     if c["symbol"] == s}
            table.append([spec["name"], s, spec["conditions"], *(cells.get(k, "\u2014") for k in ("min", "typ", "max")),
                          spec["unit"]])
        draft_note = P["conditions_note"]
        P["draft_rows"] = len(table) - 1
        data[P["files"]["draft"]] = lambda p: _write_datasheet(p, f"{part} datasheet, rev {rev} (DRAFT)", draft_note,
                                                               table, ["Draft for review - not for distribution."])
        (root / P["files"]["draft"]).parent.mkdir(parents=True, exist_ok=True)
        data[P["files"]["draft"]](root / P["files"]["draft"])
        facts = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
    del P["draft_rows"]
    if (facts["decision"], facts["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the drawn draft misses a targeted answer")

    def graded(f: Facts) -> tuple[Any, ...]:
        return f["n_wrong"], tuple((c["symbol"], c["limit"], c["new"]) for c in f["changes"])

    where = {"lot_a": ("memo", "lot B is the released characterisation; lot A is the pre-production mask"),
             "units": ("data", "site 2 logs currents in mA or A and shutdown current is logged in nA"),
             "typ_all_temps": ("memo", "typ is the median at 25 C (the superseded procedure used every temperature)"),
             "out_of_range": ("data", "readings beyond the rated junction range are margin data, not limits"),
             "invalid": ("data", "contact-failure rows (status CONT) are retested on the next row"),
             "round_limits": ("memo", "min rounds down and max up (the superseded style guide rounded to nearest)")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k} for k, nf in singles.items()
             if graded(nf) != graded(facts)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    writers, roles = _workspace(rng, P, data, when, chip)
    return Draft(subject=f"{part} datasheet verification before print", instructions=_prompt(rng, P, prof, writers),
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="8-10 LDO parameters; lot B 28-40 devices x 4-5 temperatures; device sd per parameter, "
                               "drift up to 1.5 sd per 50 C, noise 0.25 sd; site 2 (30-50 %) logs currents in mA/A, "
                               "shutdown current in nA; 1.5 % contact-failure rows; lot A 20-30 devices shifted "
                               "1-2.5 sd; 1-2 or 3-6 wrong draft values")


def _procedure(P: dict[str, Any]) -> list[str]:
    lo, hi = P["rated"]
    return [
        "Technical Publications - verifying datasheet electrical specifications (current procedure; replaces "
        "procedure v1)",
        "- Source: the characterisation lot product engineering has released for the datasheet (see their release "
        "note). Earlier lots are not used, even where they hold more devices.",
        "- Valid readings: only rows whose status is OK. A contact-failure row (status CONT) is an invalid touchdown "
        "and the device is retested on the next row.",
        "- Units: the export records each reading's unit; express every reading in the unit the style guide "
        "publishes before any statistic is taken.",
        "- Typical (typ) = the median of the valid readings at TJ = 25 C.",
        f"- Min and max = mean minus / plus 3 standard deviations (sample standard deviation, n - 1) of all valid "
        f"readings over the rated junction range, {lo} C to {hi} C inclusive, all devices and temperatures pooled. "
        "Readings outside the rated range are margin data and are left out.",
        "- Rounding: as the style guide states (decimal places per parameter; typ half up, min down, max up).",
        "- A spec value is one published min, typ or max cell. It is wrong when the draft differs from the "
        "characterised value at the published decimal places; the characterised value then replaces it.",
        "- A correction that widens a guaranteed limit (a max raised or a min lowered) needs product engineering "
        "sign-off before print; corrections to typ values or that tighten a limit do not.",
        "- Change log: one row per wrong spec value with the symbol, the limit (min, typ or max), the draft value, "
        "the corrected value and the unit. Values that were right are not listed.",
    ]


def _style(P: dict[str, Any], current: bool) -> list[str]:
    rows = [f"- {s} ({v['name']}): published in {v['unit']}, {v['decimals']} decimal place"
            f"{'' if v['decimals'] == 1 else 's'}" for s, v in P["specs"].items()]
    rule = ("Rounding: typical values round half up; a min limit rounds down and a max limit rounds up at the stated "
            "decimal places, so the published limit never claims more than the data supports." if current else
            "Rounding: every value (min, typ and max) rounds to the nearest at the stated decimal places.")
    return ["Scope: electrical-characteristics tables of product datasheets.", rule, *rows,
            "Symbols use the uppercase names of the table (VOUT, IQ...). An unpublished limit shows an em dash.",
            "Typical values are not guaranteed and carry no test coverage note."]


def _workspace(rng: random.Random, P: dict[str, Any], data: dict[str, Any], when: dt.date,
               chip: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "stale" if rel == P["files"]["lot_a"] else "data", write)
    docs, mail, char, part = P["docs_dir"], P["mail_dir"], P["char_dir"], P["part"]
    lot_a, lot_b = chip["lots"]["A"], chip["lots"]["B"]
    add(f"{docs}/procedures/spec_verification_procedure_v2.docx", "policy",
        lambda p: write_docx(p, "Datasheet spec verification procedure, v2", _procedure(P)))
    add(f"{docs}/procedures/archive/spec_verification_procedure_v1.pdf", "stale", lambda p: write_pdf(
        p, "Datasheet spec verification procedure, v1 (superseded by v2)", [
            "Typical (typ) = the median of all readings of the lot, every temperature pooled.",
            "Min and max = mean -/+ 3 standard deviations of the readings.",
            "Superseded: v2 takes typ at 25 C only and limits over the rated range."]))
    add(f"{docs}/style/datasheet_style_guide_rev4.pdf", "policy",
        lambda p: write_pdf(p, "Datasheet style guide, rev 4 (current)", _style(P, True)))
    add(f"{docs}/style/archive/datasheet_style_guide_rev3.pdf", "stale",
        lambda p: write_pdf(p, "Datasheet style guide, rev 3 (superseded by rev 4)", _style(P, False)))
    sent = iso(when)
    add(f"{mail}/{iso(when - dt.timedelta(days=rng.randint(10, 30)))}_lot_b_release.txt", "email",
        lambda p: write_text(p, email_text(
            sender=f"{person(rng)}, Product Engineering", to="Technical Publications", date=iso(when - dt.timedelta(
                days=9)), subject=f"{part} characterisation lot {lot_b} released for the datasheet",
            body=f"Lot {lot_b} (production mask) is the characterisation of record for the {part} datasheet and "
                 f"supersedes lot {lot_a}, which was built on the pre-production mask. Note the tester: site 2 "
                 "logs IQ and IGND in mA and the current limit in A (see the unit column), and ISHDN comes out in "
                 f"nA. We also ran {max(chip['temps'])} C as margin data. CONT rows are contact failures; the retest "
                 "is the next row.")))
    add(f"{mail}/{sent}_print_request.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Documentation Manager", to="Technical Writer", date=sent,
        subject=f"{part} datasheet to the printer next week",
        body="The draft goes to print next week. Please verify every spec in the electrical characteristics "
             "against the latest characterisation. Apps told me they already checked it, so I expect two fixes at "
             "most.")))
    add(f"{char}/test_program_notes.txt", "reference", lambda p: write_text(p, (
        f"{part} characterisation test program\nColumns: {', '.join(P['columns'].values())}.\n"
        f"Temperatures are junction temperatures set by the thermal head: {', '.join(map(str, chip['temps']))} C.\n"
        "Each device is measured once per temperature and parameter; an invalid touchdown is retried.\n")))
    add(f"{char}/final_test_limits_{part.lower()}.xlsx", "reference", lambda p: write_xlsx(p, [
        ("Final test", ["symbol", "test_temp_c", "lower_limit", "upper_limit", "unit", "note"],
         [[s, 25, f"{chip['mean'][s] - 4.5 * chip['sd'][s]:.{v['decimals']}f}" if "min" in v["limits"] else "",
          f"{chip['mean'][s] + 4.5 * chip['sd'][s]:.{v['decimals']}f}", v["unit"],
          "production screen at 25 C; not a datasheet value"] for s, v in P["specs"].items()])]))
    add(f"{docs}/drafts/{part}_ordering_information.docx", "distractor", lambda p: write_docx(
        p, f"{part} ordering information", [f"{part}DBVR: SOT-23-5, tape and reel of 3000.",
                                            f"{part}DRVR: 2 mm x 2 mm WSON-6, tape and reel of 3000."]))
    add(f"{docs}/translation/quote_japanese_datasheet.pdf", "distractor", lambda p: write_pdf(
        p, "Translation quote", [f"Japanese translation of the {part} datasheet: {rng.randint(9, 16)} pages, "
                                 f"delivery in {rng.randint(8, 15)} working days after sign-off."]))
    add(f"{docs}/meetings/{sent}_docs_standup.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{part} datasheet schedule", people=[person(rng) for _ in range(3)], date=sent)))
    add(f"{char}/competitor_summary.csv", "distractor", lambda p: write_csv(
        p, ["part", "iq_typ_ua", "vdo_mv_300ma", "psrr_db_1khz"],
        [[f"X{rng.randint(100, 999)}", f"{rng.uniform(20, 80):.0f}", f"{rng.uniform(120, 260):.0f}",
          f"{rng.uniform(55, 75):.0f}"] for _ in range(4)]))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], prof: Any, writers: dict[str, Any]) -> str:
    L, D, H = P["labels"], P["deliverables"], P["log_columns"]
    return instructions(
        rng, prof=prof, requester=person(rng), role="Documentation Manager", org="Technical Publications",
        subject=f"{P['part']} datasheet: verify the specs before print",
        purpose=rng.choice(("please verify every spec of the draft datasheet against the latest characterisation.",
                            "I need every electrical spec in the draft checked against the released "
                            "characterisation data before it goes to the printer.")),
        about=f"product engineering's characterisation exports for the {P['part']} and the draft datasheet",
        belief="Apps says they already checked the table against the new lot, so I expect two corrections at most.",
        table={"file": D["log"], "headers": [H[k] for k in ("symbol", "limit", "old", "new", "unit")],
               "unit": "wrong spec value (limit is min, typ or max)"},
        memo_file=D["memo"],
        memo_labels=[(L["specs"], "whole number"), (L["wrong"], "whole number"), (L["decision"], "yes or no"),
                     (L["premise"], "yes or no")],
        extra_deliverables=(
            f"{D['datasheet']}: the corrected datasheet - the electrical-characteristics table as in the draft "
            "(Parameter, Symbol, Test conditions, Min, Typ, Max, Unit) with every value as verified, then a "
            f"Revision history section with the line '{L['wrong']}: <n>' and one line per corrected value written "
            "'<SYMBOL> <limit>: <value> <unit>' (for example 'IQ max: 61.2 µA').",),
        policy=f"the verification procedure in {P['docs_dir']}/procedures/ and the style guide in "
               f"{P['docs_dir']}/style/", files=sorted(writers))


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, H = P["deliverables"], P["labels"], P["log_columns"]
    log, memo, sheet = D["log"], D["memo"], D["datasheet"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    ch = facts["changes"]

    def cell(c: dict[str, Any], key: str) -> tuple[str, Any]:
        v = c["new"] if key == "new" else float(c["text"])
        text = f"{v:.{c['decimals']}f}"
        return (f"{log}: {c['symbol']} {c['limit']} {H[key]} = {text}",
                CellCheck(file=log, match={H["symbol"]: c["symbol"], H["limit"]: c["limit"]}, column=H[key],
                          value=v, tolerance=tol(c["decimals"])))

    def line(c: dict[str, Any]) -> tuple[str, Any]:
        lab = f"{c['symbol']} {c['limit']}"
        return f"{sheet}: {lab}: {c['new']:.{c['decimals']}f} {c['unit']}", fld_num(sheet, lab, c["new"],
                                                                                       c["decimals"])

    def count(key: str, file: str) -> tuple[str, Any]:
        n = facts["n_specs" if key == "specs" else "n_wrong"]
        return f"{file}: {L[key]} = {n}", FieldCheck(file=file, label=L[key], number=float(n), tolerance=0.0)

    out = [
        rubric("Finds every wrong spec value and no right one", 10, [
            count("wrong", memo), count("wrong", sheet),
            (f"{log} lists {facts['n_wrong']} wrong values", RowCountCheck(file=log, count=int(facts["n_wrong"])))]),
        rubric("Gives each wrong value's characterised replacement and the draft value in the change log", 10,
               [*(cell(c, "new") for c in ch), *(cell(c, "old") for c in ch)]),
        rubric("Corrects the datasheet itself", 10, [line(c) for c in ch]),
        rubric("Checks every published value of the table", 6, [count("specs", memo)]),
        rubric("Says whether a widened guaranteed limit needs engineering sign-off", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]),
                                                               ["yes", "no"]))]),
        rubric("Answers the expectation that two corrections at most are needed", 8, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]),
                                                             ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Explains the verification so the manager can release the datasheet", 6, [
            ("Says lot B was used and why lot A was not", llm("explanation")),
            ("States how typ and the min/max limits were derived and rounded", llm("content")),
            ("Mentions the unit conversions and the invalid or out-of-range readings left out", llm("explanation"))]))
    return out


DATASHEET_VERIFICATION = Workflow(
    key="datasheet_verification", family="datasheet_specs",
    method="typ = median at 25 C, min/max = mean -/+ 3 sigma over the rated range with guard-banded rounding, "
           "checked against a draft datasheet",
    professions=("technical_writers",), solver="datasheet", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated characterisation exports and draft datasheet (stated distributions)")
