# ---- jobenv synthetic ground truth: reading the folder the way the house rules say, then the analysis ----
# Standard library and pandas only. PARAMS (defined above this code in solve.py) says which file holds the
# data, how records are keyed, the scope rule and the analysis; ``naive`` names shortcuts a careless analyst
# takes (used only to prove that each planted trap changes the graded answer).
import csv
import math
import os
import sqlite3
import sys
from decimal import ROUND_HALF_UP, Decimal

import pandas as pd


def rnd(x, decimals):
    """Round half away from zero on the decimal representation (what people do by hand)."""
    q = Decimal(1).scaleb(-int(decimals))
    return float(Decimal(repr(float(x))).quantize(q, rounding=ROUND_HALF_UP))


def fmt(x, decimals):
    return f"{rnd(x, decimals):.{int(decimals)}f}"


_TABLES = {}  # type: dict  # (path, layout, table, sheet, skipped sheets) -> frame; the generator clears it for every task


def read_table(folder, src):
    """One data source (csv, every data sheet of a workbook, or a SQLite table) as one frame of text cells."""
    path = os.path.join(folder, src["file"])
    key = (os.path.abspath(path), src["layout"], src.get("table"), src.get("sheet"), tuple(src.get("skip_sheets", [])))
    if key not in _TABLES:
        _TABLES[key] = _read_table(path, src)
    return _TABLES[key].copy()


def _read_table(path, src):
    layout = src["layout"]
    if layout == "csv":
        frames = [pd.read_csv(path, dtype=str, keep_default_na=False)]
    elif layout == "xlsx":
        # a lookup names its sheet (a workbook's other sheets are notes, not rows); a data source takes them all
        sheets = pd.read_excel(path, sheet_name=src.get("sheet"), dtype=str, keep_default_na=False)
        if src.get("sheet") is not None:
            sheets = {src["sheet"]: sheets}
        frames = []
        for name, df in sheets.items():
            if name in src.get("skip_sheets", []):
                continue
            df = df.copy()
            sheet_col = src.get("sheet_column")
            if sheet_col and sheet_col not in df.columns:
                df[sheet_col] = name
            frames.append(df)
    elif layout == "sqlite":
        con = sqlite3.connect(path)
        try:
            frames = [pd.read_sql_query(f'SELECT * FROM "{src["table"]}"', con).astype(str)]
        finally:
            con.close()
    else:
        raise SystemExit(f"unknown layout {layout}")
    for df in frames:
        df.columns = [str(c).strip() for c in df.columns]
    return pd.concat(frames, ignore_index=True)


def to_units(df, P, naive):
    """Bring every amount to the reporting unit: a ``unit`` column or a unit-suffixed header says the scale."""
    u = P.get("units")
    if not u:
        return df
    col = u["column"]
    for alt_header, factor in u.get("headers", {}).items():
        if alt_header in df.columns:
            alt = pd.to_numeric(df[alt_header], errors="coerce")
            scaled = alt if "units" in naive else alt / float(factor)
            base = pd.to_numeric(df[col], errors="coerce") if col in df.columns else None
            df[col] = scaled if base is None else base.where(base.notna(), scaled)
            df = df.drop(columns=[alt_header])
    df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)  # a converted whole number need not stay whole
    unit_col = u.get("unit_column")
    if unit_col and unit_col in df.columns and "units" not in naive:
        for label, factor in u.get("labels", {}).items():
            mask = df[unit_col].astype(str).str.strip() == label
            df.loc[mask, col] = df.loc[mask, col] / float(factor)
            df.loc[mask, unit_col] = u["reporting"]
    return df


def apply_scope(df, rules):
    for r in rules:
        col, op, val = r["column"], r["op"], r["value"]
        if isinstance(val, (int, float)) and not isinstance(val, bool):
            s = pd.to_numeric(df[col], errors="coerce")
        else:
            s = df[col].astype(str).str.strip()
        if op == "==":
            keep = s == val
        elif op == "!=":
            keep = s != val
        elif op == ">=":
            keep = s >= val
        elif op == "<=":
            keep = s <= val
        elif op == "in":
            keep = s.isin(val)
        elif op == "not in":
            keep = ~s.isin(val)
        else:
            raise SystemExit(f"unknown operator {op}")
        df = df[keep]
    return df.reset_index(drop=True)


def load_records(folder, P, naive=()):
    """The analysis population: the right file, amounts in the reporting unit, each record once, in scope."""
    src = P["naive_source"] if ("file" in naive and P.get("naive_source")) else P["source"]
    df = read_table(folder, src)
    df = to_units(df, P, naive)
    for c in P.get("numeric", []):
        if c in df.columns:
            df[c] = pd.to_numeric(df[c], errors="coerce")
    raw = len(df)
    if "duplicates" not in naive:
        df = df.drop_duplicates(subset=[P["id_col"]], keep="first").reset_index(drop=True)
    info = {"raw_rows": raw, "source_file": src["file"]}
    rules = [r for r in P.get("scope", []) if not ("scope" in naive and r.get("trap"))]
    df = apply_scope(df, rules)
    return df, info


# ---- analyses: each returns {"rows": [...table rows...], "facts": {...memo facts...}} ----

def _metric(part, A):
    m = A["metric"]
    v = A.get("value")
    if m == "mean":
        return float(part[v].mean())
    if m == "sum":
        return float(part[v].sum())
    if m == "ratio":
        den = float(part[A["den"]].sum())
        return float(part[v].sum()) / den * A.get("scale", 1.0) if den else float("nan")
    if m == "share":
        ev = A["event"]
        base = _base(part, A)
        hit = _compare(base[ev["column"]], ev["op"], ev["value"])
        return float(hit.sum()) / len(base) * A.get("scale", 100.0) if len(base) else float("nan")
    if m == "slope":
        x = pd.to_numeric(part[A["x"]])
        y = pd.to_numeric(part[v])
        xm, ym = x.mean(), y.mean()
        sxx = float(((x - xm) ** 2).sum())
        return float(((x - xm) * (y - ym)).sum()) / sxx if sxx else float("nan")
    if m == "peak_util":
        counts = part.groupby(A["period"]).size()
        return float(counts.max()) / float(A["capacity"][str(part[A["group"]].iloc[0])]) * 100.0
    raise SystemExit(f"unknown metric {m}")


def _base(part, A):
    """The records a group's share is a share of: all of them, or for survival to a horizon only those with a known
    outcome there (the event reached, or the terminal event seen before it; a record censored earlier is out)."""
    ev = A.get("event") or {}
    if A["metric"] != "share" or not ev.get("known"):
        return part
    k = ev["known"]
    return part[_compare(part[k["column"]], k["op"], k["value"]) | _compare(part[ev["column"]], ev["op"], ev["value"])]


def _compare(s, op, val):
    if isinstance(val, (int, float)) and not isinstance(val, bool):
        s = pd.to_numeric(s, errors="coerce")
    else:
        s = s.astype(str).str.strip()
    if op == ">":
        return s > val
    if op == ">=":
        return s >= val
    if op == "<":
        return s < val
    if op == "<=":
        return s <= val
    if op == "==":
        return s == val
    if op == "in":
        return s.isin(val)
    raise SystemExit(f"unknown operator {op}")


def top_gap(values, d):
    """How far the best of ``values`` (higher is better) leads the next, in units of the last graded place
    (10 ** -d), both rounded to ``d`` places first; None with fewer than two. A gap under 2 makes "the top" a
    coin toss for anyone whose rounding differs by a unit, so the generator refuses such a draw."""
    ranked = sorted((rnd(v, d) for v in values if v == v), reverse=True)  # NaN (no base) never leads
    return None if len(ranked) < 2 else round((ranked[0] - ranked[1]) * 10 ** d, 6)


def _flag(value, A):
    lim = float(A["limit"])
    return value > lim if A.get("direction", "above") == "above" else value < lim


def group_metric(df, P):
    A = P["analysis"]
    g, d = A["group"], int(A["decimals"])
    rows, stats = [], {}
    for name, part in sorted(df.groupby(g), key=lambda kv: str(kv[0])):
        n = len(_base(part, A))  # the row's count is its share's denominator
        val = _metric(part, A)
        small = n < int(A.get("min_n", 0))
        flagged = (not small) and _flag(rnd(val, d), A)
        stats[str(name)] = (n, val, small, flagged)
        rows.append({g: str(name), "n": n, "value": None if small else rnd(val, d),
                     "flag": "SUPPRESSED" if small else ("YES" if flagged else "NO")})
    eligible = {k: v for k, v in stats.items() if not v[2]}
    pick = max if A.get("direction", "above") == "above" else min
    top = pick(eligible, key=lambda k: eligible[k][1]) if eligible else ""
    flagged = sorted(k for k, v in stats.items() if v[3])
    sign = 1.0 if pick is max else -1.0
    facts = {"records": int(len(df)), "groups": len(stats), "top": top,
             "top_value": rnd(eligible[top][1], d) if top else None, "flagged": flagged,
             "decision": bool(flagged), "top_gap": top_gap([sign * v[1] for v in eligible.values()], d)}
    if A["metric"] in ("sum", "mean") and A.get("total", True):
        facts["total"] = rnd(float(df[A["value"]].sum()), 2)
    ex = A.get("exceptions")
    if ex:
        hit = df[_compare(df[ex["column"]], ex["op"], ex["value"])]
        hit = hit.sort_values([ex["column"], P["id_col"]], ascending=[ex["op"].startswith("<"), True])
        facts["exceptions"] = [str(x) for x in hit[P["id_col"]]]
        facts["exception_rows"] = [[str(r[c]) if c != ex["column"] else fmt(r[c], ex.get("decimals", d))
                                    for c in ex["columns"]] for _, r in hit.iterrows()]
    return facts, rows


def change(df, P):
    A = P["analysis"]
    g, d, v, pc = A["group"], int(A["decimals"]), A["value"], A["period"]
    base = df[df[pc].astype(str) == str(A["base"])]
    cur = df[df[pc].astype(str) == str(A["current"])]
    if A.get("budget") is not None:
        b = pd.Series(A["budget"], dtype=float)
    else:
        b = base.groupby(g).size().astype(float) if A.get("count") else base.groupby(g)[v].sum()
    c = cur.groupby(g).size().astype(float) if A.get("count") else cur.groupby(g)[v].sum()
    rows, moves = [], {}
    for name in sorted(set(b.index.astype(str)) | set(c.index.astype(str))):
        bv, cv = float(b.get(name, 0.0)), float(c.get(name, 0.0))
        pct = (cv - bv) / bv * 100.0 if bv else float("nan")
        flagged = bv != 0 and abs(rnd(pct, 1)) > float(A["limit"])
        moves[name] = (cv - bv, pct, flagged)
        rows.append({g: name, "base": rnd(bv, d), "current": rnd(cv, d), "change": rnd(cv - bv, d),
                     "pct": rnd(pct, 1) if bv else None, "flag": "YES" if flagged else "NO"})
    top = max(moves, key=lambda k: abs(moves[k][0])) if moves else ""
    flagged = sorted(k for k, m in moves.items() if m[2])
    tb, tc = float(b.sum()), float(c.sum())
    facts = {"records": int(len(base) + len(cur)), "groups": len(moves), "top": top,
             "top_value": rnd(moves[top][0], d) if top else None, "flagged": flagged, "decision": bool(flagged),
             "total_base": rnd(tb, d), "total": rnd(tc, d),
             "total_pct": rnd((tc - tb) / tb * 100.0, 1) if tb else None,
             "top_gap": top_gap([abs(m[0]) for m in moves.values()], d)}
    return facts, rows


def scoring(df, P):
    A = P["analysis"]
    idc, d = P["id_col"], int(A["decimals"])
    ok = df[_compare(df[A["constraint"]["column"]], A["constraint"]["op"], A["constraint"]["value"])]
    scores = pd.Series(0.0, index=ok.index)
    for c in A["criteria"]:
        s = pd.to_numeric(ok[c["column"]])
        lo, hi = float(s.min()), float(s.max())
        norm = (s - lo) / (hi - lo) if hi > lo else s * 0 + 1.0
        if c["better"] == "low":
            norm = 1.0 - norm
        scores = scores + float(c["weight"]) * norm
    ranked = sorted(((rnd(float(scores[i]), d), str(ok.loc[i, idc])) for i in ok.index), key=lambda t: (-t[0], t[1]))
    rank = {name: k + 1 for k, (_, name) in enumerate(ranked)}
    rows = []
    for _, r in df.sort_values(idc).iterrows():
        name = str(r[idc])
        rows.append({idc: name, "eligible": "YES" if name in rank else "NO",
                     "value": next((s for s, n in ranked if n == name), None), "rank": rank.get(name)})
    winner = ranked[0][1] if ranked else ""
    facts = {"records": int(len(df)), "groups": int(len(ok)), "top": winner, "top_value": ranked[0][0] if ranked else None,
             "flagged": sorted(str(x) for x in df[idc] if str(x) not in rank),
             "decision": winner == A["incumbent"], "top_gap": top_gap([t[0] for t in ranked], d)}
    return facts, rows


def matching(df, P, folder, naive):
    A = P["analysis"]
    other = read_table(folder, A["other"])
    for c in A["numeric"]:
        other[c] = pd.to_numeric(other[c], errors="coerce")
    return matching_frames(df, other, A, naive)


def matching_frames(df, other, A, naive):
    if "duplicates" not in naive:
        other = other.drop_duplicates(subset=[A["key"]], keep="first")
    other = other.copy()
    other[A["key"]] = other[A["key"]].astype(str).str.strip()
    df = df.copy()
    df[A["key"]] = df[A["key"]].astype(str).str.strip()
    key, amt, tol = A["key"], A["amount"], float(A["tolerance"])
    # a key listed twice (when repeated rows are kept) counts with its amounts added up
    left = pd.to_numeric(df[amt]).groupby(df[key]).sum()
    right = pd.to_numeric(other[A["other_amount"]]).groupby(other[key]).sum()
    rows, net, exposure = [], 0.0, 0.0
    counts = {"matched": 0, "amount_difference": 0, "missing_in_other": 0, "missing_in_source": 0}
    for k in sorted(set(left.index) | set(right.index)):
        a = float(left[k]) if k in left.index else None
        b = float(right[k]) if k in right.index else None
        if a is not None and b is not None:
            diff = rnd(b - a, 2)
            status = "matched" if abs(diff) <= tol else "amount_difference"
        elif a is not None:
            diff, status = rnd(-a, 2), "missing_in_other"
        else:
            diff, status = rnd(b, 2), "missing_in_source"
        counts[status] += 1
        if status != "matched":
            net += diff
            exposure += abs(diff)
            rows.append({key: k, "source": None if a is None else rnd(a, 2), "other": None if b is None else rnd(b, 2),
                         "difference": diff, "status": status})
    facts = {"records": int(len(df)), "groups": len(rows), "top": max(rows, key=lambda r: abs(r["difference"]))[key] if rows else "",
             "top_value": None, "flagged": sorted(r[key] for r in rows), "counts": counts,
             "net": rnd(net, 2), "exposure": rnd(exposure, 2), "total": rnd(float(df[amt].sum()), 2),
             "decision": rnd(exposure, 2) > float(A["materiality"]),
             "top_gap": top_gap([abs(r["difference"]) for r in rows], 2)}
    return facts, rows


def daily_demand(df, A):
    """Demand per group and period over the last ``window`` periods of the log (a period without events is 0)."""
    g, pc = A["group"], A["period"]
    periods = sorted(df[pc].unique(), key=lambda p: (len(str(p)), str(p)))[-int(A["window"]):]
    counts = df[df[pc].isin(periods)].groupby([g, pc]).size()
    return {str(name): [int(counts.get((name, p), 0)) for p in periods] for name in sorted(df[g].unique(), key=str)}


def reorder(df, P):
    A = P["analysis"]
    d = int(A["decimals"])
    g = A["group"]
    rows, flagged, stats = [], [], {}
    for name, series in daily_demand(df, A).items():
        s = pd.Series(series, dtype=float)
        mean = float(s.mean())
        sd = float(s.std(ddof=1)) if len(s) > 1 else 0.0
        lead = float(A["lead"][name])
        rop = mean * lead + float(A["z"]) * sd * math.sqrt(lead)
        on_hand = float(A["on_hand"][name])
        need = on_hand < rnd(rop, d)
        qty = max(0, math.ceil(rnd(rop, d) + mean * float(A["cover"]) - on_hand)) if need else 0
        stats[name] = (rop, on_hand - rop)
        if need:
            flagged.append(name)
        rows.append({g: name, "mean": rnd(mean, d), "rop": rnd(rop, d), "on_hand": rnd(on_hand, d),
                     "flag": "YES" if need else "NO", "qty": qty})
    top = min(stats, key=lambda k: stats[k][1]) if stats else ""
    facts = {"records": int(len(df)), "groups": len(rows), "top": top, "top_value": rnd(stats[top][0], d) if top else None,
             "flagged": sorted(flagged), "decision": bool(flagged),
             "total_qty": int(sum(r["qty"] for r in rows)),
             "top_gap": top_gap([-m[1] for m in stats.values()], d)}
    return facts, rows


def resolve_lookups(folder, P):
    """Replace ``"@name"`` values in the analysis by {key: number} maps read from the lookup files."""
    A = dict(P["analysis"])
    for name, spec in P.get("lookups", {}).items():
        t = read_table(folder, spec)
        t = t[t[spec["key"]].astype(str).str.strip() != ""]  # a blank row is no entry
        t = t.drop_duplicates(subset=[spec["key"]], keep="last")
        table = {str(k).strip(): float(v) for k, v in zip(t[spec["key"]], pd.to_numeric(t[spec["value"]]))}
        for k, v in list(A.items()):
            if v == "@" + name:
                A[k] = table
    return dict(P, analysis=A)


def analyse(folder, P, naive=()):
    """Facts and table rows of the analysis of ``folder`` (with the named shortcuts taken, if any)."""
    P = resolve_lookups(folder, P)
    df, info = load_records(folder, P, naive)
    facts, rows = run_analysis(df, P, folder, naive)
    facts.update(info)
    return facts, rows


def run_analysis(df, P, folder, naive=()):
    kind = P["analysis"]["kind"]
    if kind == "group_metric":
        facts, rows = group_metric(df, P)
    elif kind == "change":
        facts, rows = change(df, P)
    elif kind == "scoring":
        facts, rows = scoring(df, P)
    elif kind == "matching":
        facts, rows = matching(df, P, folder, naive)
    elif kind == "reorder":
        facts, rows = reorder(df, P)
    else:
        raise SystemExit(f"unknown analysis {kind}")
    claim = P["premise"]
    if claim["kind"] == "top":
        holds = facts["top"] == claim["value"]
    elif claim["kind"] == "flagged":
        holds = claim["value"] in facts["flagged"]
    else:
        holds = claim["value"] not in facts["flagged"]
    facts["premise"] = True if "premise" in naive else holds
    return facts, rows


# ---- deliverables ----

def _cell(v, decimals):
    if v is None:
        return ""
    if isinstance(v, float):
        return fmt(v, decimals)
    return str(v)


def write_outputs(output_dir, P, facts, rows):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    t = D["table"]
    with open(os.path.join(output_dir, t["file"]), "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow([c["header"] for c in t["columns"]])
        for r in rows:
            w.writerow([_cell(r.get(c["key"]), c.get("decimals", 2)) for c in t["columns"]])
    ex = D.get("exceptions")
    if ex:
        with open(os.path.join(output_dir, ex["file"]), "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(ex["headers"])
            w.writerows(facts.get("exception_rows", []))
    m = D["memo"]
    yes_no = {True: m["yes"], False: m["no"]}
    lines = [f"# {m['title']}", ""]
    for f in m["fields"]:
        val = facts.get(f["key"])
        if f["key"] == "decision":
            text = m["decision"][0] if val else m["decision"][1]
        elif f["key"] == "premise":
            text = yes_no[bool(val)]
        elif isinstance(val, list):
            text = "; ".join(val) if val else "none"
        elif isinstance(val, float):
            text = fmt(val, f.get("decimals", 2))
        else:
            text = str(val)
        lines.append(f"{f['label']}: {text}")
    lines += ["", "## Notes", "",
              f"Worked from {facts['source_file']} ({facts['raw_rows']} rows as delivered, {facts['records']} in the "
              "analysis after the house rules on scope, record identity and units were applied).",
              f"The request's premise about {P['premise']['value']} "
              + ("holds." if facts.get("premise") else "does not hold on these figures.")]
    with open(os.path.join(output_dir, m["file"]), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def main(task_folder, output_dir, naive=()):
    params = PARAMS  # type: ignore[name-defined]  # noqa: F821  (defined above this code in solve.py)
    facts, rows = analyse(task_folder, params, naive)
    write_outputs(output_dir, params, facts, rows)
    return facts


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: python solve.py TASK_FOLDER OUTPUT_DIR")
    main(sys.argv[1], sys.argv[2])
