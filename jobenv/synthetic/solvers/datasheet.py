# ---- jobenv workflow ground truth: a draft datasheet's electrical specs verified against characterisation ----
# Standard library, pandas, openpyxl and python-docx. PARAMS (defined above this code in solve.py) names the draft
# datasheet, the characterisation exports of both lots, the rated temperature range, each spec's published unit and
# decimal places, the premise threshold and the deliverables; ``naive`` names the shortcuts a hurried writer takes
# (each reproduces one planted mistake):
#   lot_a         the stale lot A export used instead of the released lot B
#   units         the unit column of the export ignored (site 2's currents logged in mA or A, shutdown current in nA)
#   typ_all_temps typ taken as the median over every temperature, not at 25 C (the superseded procedure)
#   out_of_range  readings beyond the rated junction-temperature range kept in the min/max statistics
#   invalid       contact-failure readings (status not OK, retested on the next row) kept
#   round_limits  min and max rounded to nearest instead of outward (the superseded style guide)
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import os
import statistics
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, write_memo, yes_no
except ImportError:
    pass

_PREFIX = {"n": 1e-9, "µ": 1e-6, "u": 1e-6, "m": 1e-3, "": 1.0}
LIMITS = ("min", "typ", "max")


def convert(value, unit_from, unit_to):
    """A reading in ``unit_from`` expressed in ``unit_to`` (SI prefixes n, µ/u, m on the same base unit)."""
    if unit_from == unit_to:
        return value
    base_f, base_t = unit_from[-1:], unit_to[-1:]
    pf, pt = unit_from[:-1], unit_to[:-1]
    if base_f != base_t or pf not in _PREFIX or pt not in _PREFIX:
        raise ValueError(f"cannot convert {unit_from} to {unit_to}")
    return value * _PREFIX[pf] / _PREFIX[pt]


def round_spec(x, decimals, limit, outward=True):
    """A spec value at the style guide's decimal places: typ half up; min down and max up (guard-banded)."""
    if not abs(x) < 1e12:  # an overflow reading kept by mistake: nothing sensible to round
        return float(x)
    q = Decimal(1).scaleb(-int(decimals))
    mode = ROUND_HALF_UP
    if outward and limit == "min":
        mode = ROUND_FLOOR
    elif outward and limit == "max":
        mode = ROUND_CEILING
    return float(Decimal(repr(float(x))).quantize(q, rounding=mode))


def spec_statistics(readings, rated, decimals, limits, outward=True, typ_all=False):
    """({limit: rounded value}, {limit: raw value}) from readings [(temp_c, value)]: typ = median at 25 C (of every
    reading with ``typ_all``), min/max = mean -/+ 3 sample sigma of every reading inside the rated range (``rated`` =
    (lo, hi) inclusive; None keeps all)."""
    inside = [v for t, v in readings if rated is None or rated[0] <= t <= rated[1]]
    mean, sd = statistics.fmean(inside), statistics.stdev(inside)
    raw = {"min": mean - 3 * sd, "max": mean + 3 * sd,
           "typ": statistics.median([v for t, v in readings if typ_all or t == 25])}
    return {lim: round_spec(raw[lim], decimals, lim, outward) for lim in limits}, raw


def read_draft(folder, P):
    """The draft's spec table: [{symbol, parameter, limit, text, value}] for every published min/typ/max cell."""
    import docx

    doc = docx.Document(os.path.join(folder, P["files"]["draft"]))
    for table in doc.tables:
        head = [c.text.strip().lower() for c in table.rows[0].cells]
        if not {"min", "typ", "max"} <= set(head):
            continue
        col = {h: k for k, h in enumerate(head)}
        out = []
        for row in table.rows[1:]:
            cells = [c.text.strip() for c in row.cells]
            for lim in LIMITS:
                text = cells[col[lim]]
                if text and text not in ("-", "\u2014", "\u2013"):
                    out.append({"symbol": cells[col["symbol"]], "parameter": cells[col["parameter"]], "limit": lim,
                                "text": text, "value": float(text.replace("\u2212", "-"))})
        return out
    raise ValueError("no spec table with Min, Typ and Max columns in the draft")


def readings(folder, P, naive=()):
    """{symbol: [(temp_c, value in the published unit)]} from the characterisation export of record."""
    F, C = P["files"], P["columns"]
    rel = F["lot_a"] if "lot_a" in naive else F["lot_b"]
    out: dict = {}
    for r in read_frame(folder, rel).to_dict("records"):
        sym = str(r[C["parameter"]]).strip()
        if sym not in P["specs"]:
            continue
        if str(r[C["status"]]).strip().upper() != "OK" and "invalid" not in naive:
            continue
        value = float(r[C["value"]])
        unit = P["specs"][sym]["unit"]
        if "units" not in naive:
            value = convert(value, str(r[C["unit"]]).strip(), unit)
        out.setdefault(sym, []).append((float(r[C["temp"]]), value))
    return out


def analyse(folder, P, naive=()):
    draft = read_draft(folder, P)
    data = readings(folder, P, naive)
    rated = None if "out_of_range" in naive else tuple(P["rated"])
    values, raws = {}, {}
    for sym, spec in P["specs"].items():
        values[sym], raws[sym] = spec_statistics(data[sym], rated, spec["decimals"], spec["limits"],
                                                 "round_limits" not in naive, "typ_all_temps" in naive)
    table, changes = [], []
    for d in draft:
        spec = P["specs"][d["symbol"]]
        new = values[d["symbol"]][d["limit"]]
        row = dict(d, new=new, unit=spec["unit"], decimals=spec["decimals"],
                   wrong=abs(new - d["value"]) > 0.5 * 10 ** -spec["decimals"])
        table.append(row)
        if row["wrong"]:
            # a published limit moved outward (max up, min down) is a guarantee the part no longer meets as drafted
            row["widened"] = (d["limit"] == "max" and new > d["value"]) or (d["limit"] == "min" and new < d["value"])
            changes.append(row)
    widened = [c for c in changes if c.get("widened")]
    return {"table": table, "changes": changes, "values": values, "raw": raws, "n_specs": len(table),
            "n_wrong": len(changes), "n_widened": len(widened),
            "decision": bool(widened), "premise": len(changes) <= int(P["premise_max"])}


def fmt(value, decimals):
    return f"{value:.{int(decimals)}f}"


def _label(P, c):
    return f"{c['symbol']} {c['limit']}"


def _datasheet(path, P, facts):
    """The corrected datasheet: the spec table as drafted with the corrected values, then the revision history
    (one 'SYMBOL limit: value unit' line per corrected spec and the count)."""
    import docx

    L = P["labels"]
    doc = docx.Document()
    doc.add_heading(P["title"], level=1)
    doc.add_paragraph(P["conditions_note"])
    rows: dict = {}
    for r in facts["table"]:
        rows.setdefault(r["symbol"], dict(parameter=r["parameter"], symbol=r["symbol"]))[r["limit"]] = fmt(
            r["new"], r["decimals"])
    t = doc.add_table(rows=1, cols=7)
    for cell, h in zip(t.rows[0].cells, ("Parameter", "Symbol", "Test conditions", "Min", "Typ", "Max", "Unit")):
        cell.text = h
    for sym, r in rows.items():
        cells = t.add_row().cells
        vals = [r["parameter"], sym, P["specs"][sym]["conditions"], r.get("min", "\u2014"), r.get("typ", "\u2014"),
                r.get("max", "\u2014"), P["specs"][sym]["unit"]]
        for cell, v in zip(cells, vals):
            cell.text = v
    doc.add_heading("Revision history", level=2)
    doc.add_paragraph(f"{L['wrong']}: {facts['n_wrong']}")
    for c in facts["changes"]:
        doc.add_paragraph(f"{_label(P, c)}: {fmt(c['new'], c['decimals'])} {c['unit']}")
    doc.save(path)
    _fixed_dates(path)


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['specs']}: {facts['n_specs']}", f"{L['wrong']}: {facts['n_wrong']}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    import csv

    os.makedirs(output_dir, exist_ok=True)
    D, H = P["deliverables"], P["log_columns"]
    _datasheet(os.path.join(output_dir, D["datasheet"]), P, facts)
    with open(os.path.join(output_dir, D["log"]), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([H["symbol"], H["limit"], H["old"], H["new"], H["unit"]])
        for c in facts["changes"]:
            w.writerow([c["symbol"], c["limit"], c["text"], fmt(c["new"], c["decimals"]), c["unit"]])
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "",
        "Method: lot B characterisation (contact-failure readings dropped, every reading in the published unit); "
        "typ = median at 25 C; min/max = mean -/+ 3 sample standard deviations over the rated range; typ rounded "
        "half up, min down and max up at the style guide's decimal places."])

