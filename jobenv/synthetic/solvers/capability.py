# ---- jobenv workflow ground truth: process capability of a critical diameter for a PPAP submission ----
# Standard library, pandas, openpyxl and python-pptx. PARAMS (defined above this code in solve.py) names the files,
# the machine, the current and superseded drawing limits, the X-bar/R constants for the subgroup size and the
# customer's requirement; ``naive`` names the shortcuts a careless technician takes (each proves that a planted
# item changes the graded answer). Unreadable inputs raise (KeyError, ValueError) and no output is written.
import math
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _reading(v):
    text = str(v).strip()
    return float(text) if text else None


def study_subgroups(folder, P, naive=()):
    """The subgroups of the study, in run order: [(id, timestamp, [readings])]. A subgroup with a reading
    missing is left out (the n = 5 constants do not apply to it), and so is every subgroup produced before a tool
    change logged on the study machine during the run."""
    F, n = P["files"], int(P["n"])
    rows = read_frame(folder, F["subgroups"])
    cols = [f"x{k}" for k in range(1, n + 1)]
    groups = []
    for _, r in rows.iterrows():
        values = [_reading(r[c]) for c in cols]
        got = [v for v in values if v is not None]
        if len(got) < n and "short_subgroup" not in naive:
            continue
        groups.append((str(r["subgroup"]), str(r["timestamp"])[:16], got))
    if "tool_change" not in naive and groups:
        first, last = groups[0][1], groups[-1][1]
        log = read_frame(folder, F["tool_log"])
        changes = [str(r["timestamp"])[:16] for _, r in log.iterrows()
                   if str(r["machine"]) == P["machine"] and str(r["event"]) == P["tool_change_event"]
                   and first < str(r["timestamp"])[:16] <= last]
        if changes:
            cut = max(changes)
            groups = [g for g in groups if g[1] >= cut]
    return groups


def xbar_r(groups, K):
    """Grand mean, average range and the X-bar and R chart limits (unrounded)."""
    means = [sum(v) / len(v) for _, _, v in groups]
    ranges = [max(v) - min(v) for _, _, v in groups]
    xbb = sum(means) / len(means)
    rbar = sum(ranges) / len(ranges)
    return {"means": means, "ranges": ranges, "xbb": xbb, "rbar": rbar, "ucl_x": xbb + K["A2"] * rbar,
            "lcl_x": xbb - K["A2"] * rbar, "ucl_r": K["D4"] * rbar, "lcl_r": K["D3"] * rbar}


def capability(xbb, sigma, lsl, usl):
    """Cpk (or Ppk): the distance from the mean to the nearer limit in units of three sigma."""
    return min(usl - xbb, xbb - lsl) / (3 * sigma)


def analyse(folder, P, naive=()):
    K = P["constants"]
    groups = study_subgroups(folder, P, naive)
    ch = xbar_r(groups, K)
    ooc = [g[0] for g, m, r in zip(groups, ch["means"], ch["ranges"])
           if m > ch["ucl_x"] or m < ch["lcl_x"] or r > ch["ucl_r"] or r < ch["lcl_r"]]
    readings = [x for _, _, v in groups for x in v]
    mean_all = sum(readings) / len(readings)
    s_overall = math.sqrt(sum((x - mean_all) ** 2 for x in readings) / (len(readings) - 1))
    s_within = ch["rbar"] / K["d2"]
    spec = P["superseded_spec"] if "superseded_rev" in naive else P["spec"]
    lsl, usl = float(spec["lsl"]), float(spec["usl"])
    cpk = capability(ch["xbb"], s_overall if "overall_sigma" in naive else s_within, lsl, usl)
    ppk = capability(ch["xbb"], s_overall, lsl, usl)
    facts = {"n_subgroups": len(groups), "subgroups": [{"subgroup": g[0], "timestamp": g[1], "readings": g[2]}
                                                        for g in groups],
             "grand_mean": rnd(ch["xbb"], 4), "rbar": rnd(ch["rbar"], 4), "ucl_x": rnd(ch["ucl_x"], 4),
             "lcl_x": rnd(ch["lcl_x"], 4), "ucl_r": rnd(ch["ucl_r"], 4), "lcl_r": rnd(ch["lcl_r"], 4),
             "ooc": ooc, "ooc_count": len(ooc), "sigma_within": rnd(s_within, 5), "sigma_overall": rnd(s_overall, 5),
             "lsl": lsl, "usl": usl, "cpk": rnd(cpk, 2), "ppk": rnd(ppk, 2)}
    facts["decision"] = bool(facts["cpk"] >= float(P["cpk_min"]))
    facts["premise"] = not ooc
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['n_subgroups']}: {facts['n_subgroups']}", f"{L['grand_mean']}: {facts['grand_mean']:.4f}",
            f"{L['rbar']}: {facts['rbar']:.4f}", f"{L['ucl_x']}: {facts['ucl_x']:.4f}",
            f"{L['lcl_x']}: {facts['lcl_x']:.4f}", f"{L['ucl_r']}: {facts['ucl_r']:.4f}",
            f"{L['ooc']}: {'; '.join(facts['ooc']) or 'none'}", f"{L['ooc_count']}: {facts['ooc_count']}",
            f"{L['cpk']}: {facts['cpk']:.2f}", f"{L['ppk']}: {facts['ppk']:.2f}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def _workbook(path, P, facts):
    from openpyxl import Workbook

    W, K, n = P["sheet_labels"], P["constants"], int(P["n"])
    wb = Workbook()
    ws = wb.active
    ws.title = "Subgroups"
    cols = [f"x{k}" for k in range(1, n + 1)]
    ws.append(["subgroup", "timestamp"] + cols + ["mean", "range", "out_of_control"])
    first, last = "C", chr(ord("C") + n - 1)
    mcol, rcol, ocol = chr(ord(last) + 1), chr(ord(last) + 2), chr(ord(last) + 3)
    end = len(facts["subgroups"]) + 1
    for i, g in enumerate(facts["subgroups"], 2):
        span = f"{first}{i}:{last}{i}"
        ws.append([g["subgroup"], g["timestamp"]] + list(g["readings"]) + [
            f"=AVERAGE({span})", f"=MAX({span})-MIN({span})",
            f'=IF(OR({mcol}{i}>Limits!$B$8,{mcol}{i}<Limits!$B$9,{rcol}{i}>Limits!$B$10,{rcol}{i}<Limits!$B$11),'
            '"yes","no")'])
    lim = wb.create_sheet("Limits")
    lim.append(["Item", "Value"])
    for row in [(W["n_subgroups"], f"=COUNT(Subgroups!{mcol}2:{mcol}{end})"),  # B2
                (W["grand_mean"], f"=AVERAGE(Subgroups!{mcol}2:{mcol}{end})"),  # B3
                (W["rbar"], f"=AVERAGE(Subgroups!{rcol}2:{rcol}{end})"),  # B4
                ("A2", K["A2"]), ("D3", K["D3"]), ("D4", K["D4"]),  # B5-B7
                (W["ucl_x"], "=B3+B5*B4"), (W["lcl_x"], "=B3-B5*B4"),  # B8, B9
                (W["ucl_r"], "=B7*B4"), (W["lcl_r"], "=B6*B4"),  # B10, B11
                (W["ooc_count"], f'=COUNTIF(Subgroups!{ocol}2:{ocol}{end},"yes")')]:  # B12
        lim.append(list(row))
    cap = wb.create_sheet("Capability")
    cap.append(["Item", "Value"])
    for row in [(W["usl"], facts["usl"]), (W["lsl"], facts["lsl"]), ("d2", K["d2"]),  # B2-B4
                (W["sigma_within"], "=Limits!B4/B4"),  # B5
                (W["sigma_overall"], f"=STDEV(Subgroups!{first}2:{last}{end})"),  # B6
                (W["cpk"], "=MIN(B2-Limits!B3,Limits!B3-B3)/(3*B5)"),  # B7
                (W["ppk"], "=MIN(B2-Limits!B3,Limits!B3-B3)/(3*B6)"),  # B8
                (W["cpk_min"], float(P["cpk_min"])),  # B9
                (W["decision"], '=IF(ROUND(B7,2)>=B9,"yes","no")')]:  # B10
        cap.append(list(row))
    wb.save(path)
    _fixed_dates(path)


def _slide(path, P, facts):
    """One slide: the X-bar and R charts (native line charts with their limits) and the capability lines."""
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE, XL_LEGEND_POSITION
    from pptx.util import Inches, Pt

    L = P["labels"]
    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = P["slide_title"]
    ids = [g["subgroup"] for g in facts["subgroups"]]
    charts = [("X-bar", [rnd(sum(g["readings"]) / len(g["readings"]), 5) for g in facts["subgroups"]],
               facts["ucl_x"], facts["grand_mean"], facts["lcl_x"], Inches(1.3)),
              ("R", [rnd(max(g["readings"]) - min(g["readings"]), 5) for g in facts["subgroups"]],
               facts["ucl_r"], facts["rbar"], facts["lcl_r"], Inches(4.3))]
    for name, points, ucl, centre, lcl, top in charts:
        data = CategoryChartData()
        data.categories = ids
        data.add_series(name, points)
        data.add_series("UCL", [ucl] * len(ids))
        data.add_series("CL", [centre] * len(ids))
        data.add_series("LCL", [lcl] * len(ids))
        chart = slide.shapes.add_chart(XL_CHART_TYPE.LINE_MARKERS, Inches(0.4), top, Inches(8.6), Inches(2.9),
                                       data).chart
        chart.has_legend = True
        chart.legend.position = XL_LEGEND_POSITION.RIGHT
        chart.legend.include_in_layout = False
    box = slide.shapes.add_textbox(Inches(9.2), Inches(1.5), Inches(3.9), Inches(5.0)).text_frame
    box.word_wrap = True
    lines = [f"{L['cpk']}: {facts['cpk']:.2f}", f"{L['ppk']}: {facts['ppk']:.2f}",
             f"{L['ooc_count']}: {facts['ooc_count']}", f"{L['decision']}: {yes_no(facts['decision'])}",
             f"Spec {facts['lsl']:.3f} - {facts['usl']:.3f} mm ({P['drawing_rev']})"]
    for k, line in enumerate(lines):
        para = box.paragraphs[0] if k == 0 else box.add_paragraph()
        para.text = line
        para.font.size = Pt(16)
    prs.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    _slide(os.path.join(output_dir, D["slide"]), P, facts)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: X-bar and R chart of the study subgroups with the n = 5 constants; rule 1 (a subgroup mean or "
        "range beyond its control limit) flags a subgroup; Cpk from sigma within = R-bar / d2, Ppk from the overall "
        "sample standard deviation, both against the current drawing limits. The workbook's limits and indices are "
        "formulas."])
