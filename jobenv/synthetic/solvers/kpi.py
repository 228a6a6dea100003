# ---- family: kpi_review (group summary, exception list, decision memo) ----


def main(task_folder, output_dir):
    P = PARAMS
    os.makedirs(output_dir, exist_ok=True)
    spec = P["data"]
    g, v, idc = P["group_col"], spec["value_col"], spec["id_col"]
    df = load_table(task_folder, spec)
    before = len(df)
    df = df.drop_duplicates(subset=[c for c in df.columns]).reset_index(drop=True)
    dups = before - len(df)
    df = apply_filter(df, P["filter"])
    df[g] = df[g].astype(str)

    rows = []
    stats = {}
    for name, part in sorted(df.groupby(g), key=lambda kv: kv[0]):
        total = float(part[v].sum())
        avg = total / len(part)
        stats[name] = avg
        rows.append([name, len(part), fmt(total), fmt(avg)])
    write_csv(os.path.join(output_dir, "summary.csv"),
              [g, "record_count", f"total_{v}", f"average_{v}"], rows)

    limit = float(P["row_threshold"])
    exc = df[df[v] > limit].sort_values([v, idc], ascending=[False, True])
    write_csv(os.path.join(output_dir, "exceptions.csv"), [idc, g, v],
              [[r[idc], r[g], fmt(r[v], P["value_decimals"])] for _, r in exc.iterrows()])

    top = max(stats, key=lambda k: stats[k])
    above = sorted(k for k, a in stats.items() if round(a, 2) > float(P["group_limit"]))
    premise_ok = "yes" if top == P["premise_group"] else "no"
    decision = "ESCALATE" if above else "NO ESCALATION"
    lines = [
        f"# {P['memo_title']}",
        "",
        f"Records analysed: {len(df)}",
        f"Duplicates removed: {dups}",
        f"Total {v}: {fmt(df[v].sum())}",
        f"Highest average {v}: {top}",
        f"Groups above limit: {'; '.join(above) if above else 'none'}",
        f"Premise confirmed: {premise_ok}",
        f"Decision: {decision}",
        f"Source file: {spec['file']}",
        "",
        f"Rationale: {len(exc)} records exceed the {P['row_threshold']:g} threshold. "
        f"{len(above)} group(s) average above the limit of {P['group_limit']:g}. "
        + ("The premise in the request is not supported by the data. " if premise_ok == "no" else "")
        + ("Duplicate rows in the extract were counted once. " if dups else ""),
    ]
    with open(os.path.join(output_dir, "memo.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
