# ---- family: rate_table (event rates by group with small-cell suppression, benchmark memo) ----


def main(task_folder, output_dir):
    P = PARAMS
    os.makedirs(output_dir, exist_ok=True)
    spec = P["data"]
    g, ev, idc = P["group_col"], spec["value_col"], spec["id_col"]
    df = load_table(task_folder, spec)
    before = len(df)
    df = df.drop_duplicates().reset_index(drop=True)
    dups = before - len(df)
    df = apply_filter(df, P["filter"])
    df[g] = df[g].astype(str)
    df[ev] = pd.to_numeric(df[ev]).astype(int)

    bench = float(P["benchmark"])
    rows, reportable, above, suppressed = [], {}, [], []
    for name, part in sorted(df.groupby(g), key=lambda kv: kv[0]):
        n, e = len(part), int(part[ev].sum())
        if n < int(P["min_n"]):
            rows.append([name, n, e, "", "suppressed"])
            suppressed.append(name)
            continue
        rate = 100.0 * e / n
        reportable[name] = rate
        status = "above benchmark" if rate > bench else "within benchmark"
        if rate > bench:
            above.append(name)
        rows.append([name, n, e, fmt(rate, 1), status])
    write_csv(os.path.join(output_dir, "rates.csv"), [g, "n", "events", "rate_pct", "status"], rows)

    top = max(reportable, key=lambda k: reportable[k])
    overall = 100.0 * int(df[ev].sum()) / len(df)
    premise_ok = "yes" if top == P["premise_group"] else "no"
    decision = P["decision_yes"] if above else P["decision_no"]
    lines = [
        f"# {P['memo_title']}",
        "",
        f"Records analysed: {len(df)}",
        f"Duplicates removed: {dups}",
        f"Overall rate: {fmt(overall, 1)}%",
        f"Highest rate: {top}",
        f"Groups above benchmark: {'; '.join(above) if above else 'none'}",
        f"Suppressed groups: {'; '.join(suppressed) if suppressed else 'none'}",
        f"Premise confirmed: {premise_ok}",
        f"Decision: {decision}",
        f"Source file: {spec['file']}",
        "",
        f"Rationale: rates are events per 100 in-scope records; groups with fewer than {P['min_n']} records are "
        f"suppressed and not compared. {len(above)} reportable group(s) exceed the {P['benchmark']:g}% benchmark. "
        + ("The premise in the request is not supported by the data. " if premise_ok == "no" else "")
        + ("Duplicate rows in the extract were counted once. " if dups else ""),
    ]
    with open(os.path.join(output_dir, "memo.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
