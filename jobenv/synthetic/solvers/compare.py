# ---- family: period_comparison (two-period workbook + Word briefing) ----
import io
import zipfile

_FIXED = (2024, 6, 28, 9, 0, 0)


def _pin_zip(path):
    """Rewrite an Office file with fixed zip dates and document times so reruns give identical bytes."""
    import re

    with open(path, "rb") as fh:
        src = zipfile.ZipFile(io.BytesIO(fh.read()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = re.sub(rb"(<dcterms:(?:modified|created)[^>]*>)[^<]*(</dcterms:)",
                              rb"\g<1>2024-06-28T09:00:00Z\g<2>", body)
            zi = zipfile.ZipInfo(info.filename, date_time=_FIXED)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            dst.writestr(zi, body)
    with open(path, "wb") as fh:
        fh.write(out.getvalue())


def _period_frames(task_folder, P):
    """(base frame, current frame), each with entity and metric inputs in reporting units."""
    spec = P["data"]
    ent = P["entity_col"]
    if spec["layout"] == "xlsx":
        sheets = pd.read_excel(os.path.join(task_folder, spec["file"]), sheet_name=None)
        frames = {str(n): df for n, df in sheets.items() if n != "Notes"}
    else:
        frames = {}
        for period in (P["base"], P["current"]):
            frames[str(period)] = pd.read_csv(os.path.join(task_folder, spec["files"][str(period)]))
    out = []
    for period in (P["base"], P["current"]):
        df = frames[str(period)].copy()
        for col, alts in P["alt_units"].items():
            if col not in df.columns:
                for alt, factor in alts.items():
                    if alt in df.columns:
                        df[col] = pd.to_numeric(df[alt]) / float(factor)
                        df = df.drop(columns=[alt])
        df[ent] = df[ent].astype(str)
        out.append(df)
    return out


def main(task_folder, output_dir):
    from docx import Document
    from openpyxl import Workbook

    P = PARAMS
    os.makedirs(output_dir, exist_ok=True)
    ent, num, den, scale = P["entity_col"], P["num_col"], P.get("den_col"), float(P["scale"])
    base_df, cur_df = _period_frames(task_folder, P)
    dups = 0
    cleaned = []
    for df in (base_df, cur_df):
        before = len(df)
        df = df.drop_duplicates().reset_index(drop=True)
        dups += before - len(df)
        cleaned.append(df)
    base_df, cur_df = cleaned

    def metric(df):
        g = df.groupby(ent)
        m = g[num].sum()
        if den:
            m = m / g[den].sum() * scale
        return m

    mb, mc = metric(base_df), metric(cur_df)
    ents = sorted(set(mb.index) & set(mc.index))
    thr = float(P["threshold_pct"])
    rows, changes = [], {}
    for e in ents:
        b, c = float(mb[e]), float(mc[e])
        pct = (c - b) / b * 100.0
        changes[e] = pct
        rows.append([e, float(fmt(b)), float(fmt(c)), float(fmt(c - b)), float(fmt(pct, 1)), "yes" if pct > thr else "no"])
    flagged = [r[0] for r in rows if r[5] == "yes"]
    top = max(changes, key=lambda k: changes[k])
    mcol = P["metric_col"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Comparison"
    ws.append([ent, f"{mcol}_{P['base']}", f"{mcol}_{P['current']}", "change", "change_pct", "flag"])
    for r in rows:
        ws.append(r)
    ws2 = wb.create_sheet("Summary")
    ws2.append(["measure", "value"])
    ws2.append(["entities_compared", len(rows)])
    ws2.append(["entities_flagged", len(flagged)])
    ws2.append(["largest_increase", top])
    wb.properties.creator = "ground truth"
    path = os.path.join(output_dir, "comparison.xlsx")
    wb.save(path)
    _pin_zip(path)

    premise_ok = "yes" if top == P["premise_entity"] else "no"
    decision = P["decision_yes"] if flagged else P["decision_no"]
    doc = Document()
    doc.add_heading(P["memo_title"], level=1)
    for line in [
        f"Entities compared: {len(rows)}",
        f"Duplicates removed: {dups}",
        f"Largest increase: {top}",
        f"Flagged: {'; '.join(flagged) if flagged else 'none'}",
        f"Premise confirmed: {premise_ok}",
        f"Decision: {decision}",
        f"Source file: {P['data']['cite']}",
        f"Rationale: {len(flagged)} of {len(rows)} rose by more than {thr:g} percent between {P['base']} and "
        f"{P['current']}." + (" The premise in the request is not supported by the data." if premise_ok == "no" else ""),
    ]:
        doc.add_paragraph(line)
    cp = doc.core_properties
    cp.author = "ground truth"
    cp.revision = 1
    path = os.path.join(output_dir, "briefing.docx")
    doc.save(path)
    _pin_zip(path)
