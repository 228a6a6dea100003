# ---- family: reconciliation (ledger workbook vs statement, exception list, sign-off memo) ----


def _statement(task_folder, P):
    spec = P["statement"]
    path = os.path.join(task_folder, spec["file"])
    if spec["layout"] == "csv":
        df = pd.read_csv(path, dtype={"record_id": str})
    else:
        con = sqlite3.connect(path)
        try:
            df = pd.read_sql_query(f'SELECT * FROM "{spec["table"]}"', con)
        finally:
            con.close()
    df["record_id"] = df["record_id"].astype(str).str.strip()
    if "amount_cents" in df.columns:  # the statement may be exported in cents
        df["amount"] = pd.to_numeric(df["amount_cents"]) / 100.0
        df = df.drop(columns=["amount_cents"])
    df["amount"] = pd.to_numeric(df["amount"]).round(2)
    return df


def main(task_folder, output_dir):
    P = PARAMS
    os.makedirs(output_dir, exist_ok=True)
    sheets = pd.read_excel(os.path.join(task_folder, P["ledger"]), sheet_name=None, dtype={"record_id": str})
    ledger = pd.concat([df for name, df in sheets.items() if name != "Notes"], ignore_index=True)
    ledger["record_id"] = ledger["record_id"].astype(str).str.strip()
    ledger["amount"] = pd.to_numeric(ledger["amount"]).round(2)
    stmt = _statement(task_folder, P)
    before = len(stmt)
    stmt = stmt.drop_duplicates().reset_index(drop=True)
    dups = before - len(stmt)

    tol = float(P["tolerance"])
    merged = ledger[["record_id", "amount"]].merge(stmt[["record_id", "amount"]], on="record_id", how="outer",
                                                   suffixes=("_ledger", "_statement"), indicator=True)
    rows, exposure = [], 0.0
    for _, r in merged.sort_values("record_id").iterrows():
        a, b = r["amount_ledger"], r["amount_statement"]
        if r["_merge"] == "left_only":
            rows.append([r["record_id"], "missing from statement", fmt(a), "", ""])
            exposure += abs(a)
        elif r["_merge"] == "right_only":
            rows.append([r["record_id"], "missing from ledger", "", fmt(b), ""])
            exposure += abs(b)
        else:
            d = round(a - b, 2)
            if abs(d) > tol + 1e-9:
                rows.append([r["record_id"], "amount mismatch", fmt(a), fmt(b), fmt(d)])
                exposure += abs(d)
    write_csv(os.path.join(output_dir, "exceptions.csv"),
              ["record_id", "issue", "ledger_amount", "statement_amount", "difference"], rows)

    lt, st = float(ledger["amount"].sum()), float(stmt["amount"].sum())
    higher = "ledger" if lt > st else "statement"
    premise_ok = "yes" if higher == P["premise_higher"] else "no"
    decision = "HOLD" if exposure > float(P["materiality"]) else "SIGN OFF"
    lines = [
        f"# {P['memo_title']}",
        "",
        f"Ledger total: {fmt(lt)}",
        f"Statement total: {fmt(st)}",
        f"Net difference: {fmt(lt - st)}",
        f"Exceptions: {len(rows)}",
        f"Duplicates removed: {dups}",
        f"Exception exposure: {fmt(exposure)}",
        f"Premise confirmed: {premise_ok}",
        f"Decision: {decision}",
        f"Source file: {P['statement']['file']}",
        "",
        f"Rationale: differences of {tol:.2f} or less were treated as rounding and not listed. "
        f"The exposure of {fmt(exposure)} is {'above' if decision == 'HOLD' else 'within'} the materiality "
        f"limit of {float(P['materiality']):.2f}. "
        + ("The premise in the request is not supported by the totals. " if premise_ok == "no" else "")
        + ("Duplicate statement lines were counted once. " if dups else ""),
    ]
    with open(os.path.join(output_dir, "memo.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
