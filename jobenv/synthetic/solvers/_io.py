# ---- shared reading helpers (stdlib + pandas only) ----
import csv
import os
import sqlite3
import sys

import pandas as pd


def _convert_units(df, value_col, alt_units):
    """Find the amount column (plain or in another unit) and return it in the reporting unit."""
    for col in list(df.columns):
        name = str(col).strip()
        if name == value_col:
            df[value_col] = pd.to_numeric(df[value_col])
            return df
        if name in alt_units:
            factor = float(alt_units[name])
            df[value_col] = (pd.to_numeric(df[col]) / factor).round(int(PARAMS["value_decimals"]))
            return df.drop(columns=[col])
    raise SystemExit(f"no amount column {value_col!r} in {list(df.columns)}")


def load_table(folder, spec):
    """Read one data source (csv, every data sheet of a workbook, or a SQLite table) as one frame."""
    path = os.path.join(folder, spec["file"])
    value_col = spec["value_col"]
    alt = spec.get("alt_units", {})
    id_col = spec["id_col"]
    if spec["layout"] == "csv":
        frames = [pd.read_csv(path, dtype={id_col: str})]
    elif spec["layout"] == "xlsx":
        sheets = pd.read_excel(path, sheet_name=None, dtype={id_col: str})
        frames = [df for name, df in sheets.items() if name not in spec.get("skip_sheets", [])]
    elif spec["layout"] == "sqlite":
        con = sqlite3.connect(path)
        try:
            frames = [pd.read_sql_query(f'SELECT * FROM "{spec["table"]}"', con)]
        finally:
            con.close()
        frames[0][id_col] = frames[0][id_col].astype(str)
    else:
        raise SystemExit(f"unknown layout {spec['layout']}")
    frames = [_convert_units(f.copy(), value_col, alt) for f in frames]
    df = pd.concat(frames, ignore_index=True)
    df[id_col] = df[id_col].astype(str).str.strip()
    return df


def apply_filter(df, flt):
    col, op, val = flt["column"], flt["op"], flt["value"]
    s = df[col]
    if isinstance(val, str):
        s = s.astype(str)
    if op == "==":
        return df[s == val]
    if op == "!=":
        return df[s != val]
    if op == ">=":
        return df[s >= val]
    if op == "<=":
        return df[s <= val]
    raise SystemExit(f"unknown operator {op}")


def fmt(x, decimals=2):
    from decimal import ROUND_HALF_UP, Decimal

    q = Decimal(1).scaleb(-decimals)
    return str(Decimal(repr(float(x))).quantize(q, rounding=ROUND_HALF_UP))


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
