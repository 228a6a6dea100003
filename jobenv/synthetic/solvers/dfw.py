# ---- jobenv workflow ground truth: DFW rates by section, modality and Pell status, with the Pell gap ----
# Standard library, pandas, openpyxl and python-pptx. PARAMS (defined above this code in solve.py) names the
# registrar export and its columns, the term, the census-date calendar, the grade-change file, the DFW grades, the
# suppression threshold and the significance level, and the deliverables; ``naive`` names the shortcuts a hurried
# analyst takes (each reproduces one planted mistake):
#   duplicates     repeated enrolment rows of the export counted once per row, not once per student and section
#   precensus      drops on or before the census date kept and counted as W (last year's superseded rule)
#   incomplete     an unresolved incomplete (I) counted as a DFW grade (last year's superseded rule)
#   grade_changes  the registrar's grade-change file ignored (incompletes stay I, appeals stay as first graded)
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import datetime
import math
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _day(v):
    return datetime.date.fromisoformat(str(v).strip()[:10])


def dfw_rate(dfw, n):
    """DFW rate in per cent of census enrolment (None for an empty group)."""
    return 100.0 * dfw / n if n else None


def two_proportion_z(x1, n1, x2, n2):
    """Pooled two-proportion z test of p1 - p2: (z, two-sided p-value)."""
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    z = (x1 / n1 - x2 / n2) / se
    return z, math.erfc(abs(z) / math.sqrt(2))


def census_roster(folder, P, naive=()):
    """The census roster: one row per (section, student) enrolled at the end of the census date, with the final
    grade after the grade-change file. Rows are dicts of section, modality, instructor, student, pell, grade."""
    F, C = P["files"], P["columns"]
    census = {str(r["term"]).strip(): _day(r["census_date"]) for r in read_frame(folder, F["census"]).to_dict("records")}
    cut = census[P["term"]]
    changes = {}
    if "grade_changes" not in naive:
        rows = read_frame(folder, F["changes"]).to_dict("records")
        for r in sorted(rows, key=lambda r: str(r["effective_date"])):  # a later change replaces an earlier one
            changes[(str(r["section"]).strip(), str(r["student_id"]).strip())] = str(r["new_grade"]).strip().upper()
    seen, roster = set(), []
    for r in read_frame(folder, F["enrol"]).to_dict("records"):
        if str(r[C["term"]]).strip() != P["term"]:
            continue
        key = (str(r[C["section"]]).strip(), str(r[C["student"]]).strip())
        if key in seen and "duplicates" not in naive:
            continue
        seen.add(key)
        grade = str(r[C["grade"]]).strip().upper()
        drop = str(r[C["drop"]]).strip()
        if drop and _day(drop) <= cut:
            if "precensus" not in naive:
                continue
            grade = "W"
        grade = changes.get(key, grade)
        roster.append({"section": key[0], "modality": str(r[C["modality"]]).strip(),
                       "instructor": str(r[C["instructor"]]).strip(), "student": key[1],
                       "pell": "Y" if str(r[C["pell"]]).strip().upper() in ("Y", "YES", "1", "TRUE") else "N",
                       "grade": grade})
    return roster


def analyse(folder, P, naive=()):
    roster = census_roster(folder, P, naive)
    bad = set(P["dfw_grades"]) | ({"I"} if "incomplete" in naive else set())
    cut = int(P["min_cell"])

    def tally(rows):
        n = len(rows)
        d = sum(r["grade"] in bad for r in rows)
        rate = dfw_rate(d, n)
        return n, d, rate

    sections = []
    for s in sorted({r["section"] for r in roster}):
        rows = [r for r in roster if r["section"] == s]
        n, d, rate = tally(rows)
        pn, pd_, prate = tally([r for r in rows if r["pell"] == "Y"])
        nn, nd, nrate = tally([r for r in rows if r["pell"] == "N"])
        sections.append({"section": s, "modality": rows[0]["modality"], "instructor": rows[0]["instructor"],
                         "n": n, "dfw": d, "rate": rnd(rate, 1), "rate_raw": rate,
                         "pell_n": pn, "pell_rate": None if pn < cut else rnd(prate, 1),
                         "non_n": nn, "non_rate": None if nn < cut else rnd(nrate, 1)})
    modes = []
    for m in P["modalities"]:
        n, d, rate = tally([r for r in roster if r["modality"] == m])
        modes.append({"modality": m, "n": n, "dfw": d, "rate": rnd(rate, 1), "rate_raw": rate})
    n, d, rate = tally(roster)
    pn, pdfw, prate = tally([r for r in roster if r["pell"] == "Y"])
    nn, ndfw, nrate = tally([r for r in roster if r["pell"] == "N"])
    z, p = two_proportion_z(pdfw, pn, ndfw, nn)
    worst = min(sections, key=lambda s: (-s["rate_raw"], s["section"]))  # a tie goes to the lower section number
    by_mode = {m["modality"]: m for m in modes}
    online, inperson = by_mode[P["online"]], by_mode[P["inperson"]]
    suppressed = sum((s["pell_n"] < cut) + (s["non_n"] < cut) for s in sections)
    return {"roster": roster, "sections": sections, "modes": modes, "n": n, "dfw": d, "rate": rnd(rate, 1),
            "pell_n": pn, "pell_dfw": pdfw, "pell_rate": rnd(prate, 1), "non_n": nn, "non_dfw": ndfw,
            "non_rate": rnd(nrate, 1), "gap": rnd(prate - nrate, 1), "gap_raw": prate - nrate, "z": rnd(z, 2),
            "z_raw": z, "p": rnd(p, 3), "p_raw": p, "worst": worst["section"], "worst_rate": worst["rate"],
            "suppressed": suppressed, "online_rate": online["rate"], "inperson_rate": inperson["rate"],
            "incomplete_counted": "incomplete" in naive,
            "decision": bool(p < float(P["alpha"])), "premise": bool(online["rate_raw"] > inperson["rate_raw"])}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['n']}: {facts['n']}", f"{L['rate']}: {facts['rate']:.1f}", f"{L['worst']}: {facts['worst']}",
            f"{L['worst_rate']}: {facts['worst_rate']:.1f}", f"{L['pell_rate']}: {facts['pell_rate']:.1f}",
            f"{L['non_rate']}: {facts['non_rate']:.1f}", f"{L['gap']}: {facts['gap']:.1f}",
            f"{L['z']}: {facts['z']:.2f}", f"{L['p']}: {facts['p']:.3f}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['suppressed']}: {facts['suppressed']}",
            f"{L['online_rate']}: {facts['online_rate']:.1f}", f"{L['inperson_rate']}: {facts['inperson_rate']:.1f}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def _workbook(path, P, facts):
    """Roster (the census roster, typed), Sections and Modality (counts and rates as COUNTIFS formulas on the
    roster, Pell cells under the threshold suppressed), Summary (overall rate, Pell gap, z test, suppression)."""
    from openpyxl import Workbook

    W, cut = P["sheet_labels"], int(P["min_cell"])
    wb = Workbook()
    ros = wb.active
    ros.title = "Roster"
    ros.append(["section", "modality", "instructor", "student_id", "pell", "final_grade"])
    for r in facts["roster"]:
        ros.append([r["section"], r["modality"], r["instructor"], r["student"], r["pell"], r["grade"]])
    end = len(facts["roster"]) + 1
    sec, mod, pell, grd = (f"Roster!${c}$2:${c}${end}" for c in "ABEF")
    grades = list(P["dfw_grades"]) + (["I"] if facts["incomplete_counted"] else [])

    def dfw(*crit):
        head = "".join(c + "," for c in crit)
        return "+".join(f"COUNTIFS({head}{grd},\"{g}\")" for g in grades)

    ws = wb.create_sheet(P["sheet"])
    ws.append([W["section"], W["modality"], W["instructor"], W["n"], W["dfw"], W["rate"], W["pell_n"], W["pell_rate"],
               W["non_n"], W["non_rate"]])
    for i, s in enumerate(facts["sections"], 2):
        ws.append([s["section"], s["modality"], s["instructor"], f"=COUNTIFS({sec},A{i})", "=" + dfw(sec, f"A{i}"),
                   f"=100*E{i}/D{i}", f"=COUNTIFS({sec},A{i},{pell},\"Y\")",
                   f"=IF(G{i}<{cut},\"suppressed\",100*({dfw(sec, f'A{i}', pell, chr(34) + 'Y' + chr(34))})/G{i})",
                   f"=COUNTIFS({sec},A{i},{pell},\"N\")",
                   f"=IF(I{i}<{cut},\"suppressed\",100*({dfw(sec, f'A{i}', pell, chr(34) + 'N' + chr(34))})/I{i})"])
    k = len(facts["sections"]) + 1
    ms = wb.create_sheet("Modality")
    ms.append([W["modality"], W["n"], W["dfw"], W["rate"]])
    for i, m in enumerate(facts["modes"], 2):
        ms.append([m["modality"], f"=COUNTIFS({mod},A{i})", "=" + dfw(mod, f"A{i}"), f"=IF(B{i}>0,100*C{i}/B{i},0)"])
    sm = wb.create_sheet("Summary")
    q, t = chr(34), "'" + P["sheet"] + "'"  # the sheet name may hold spaces
    rows = [("Item", "Value"),
            (W["n"], f"=COUNTA({sec})"),  # B2
            (W["dfw"], "=" + dfw()),  # B3
            (P["labels"]["rate"], "=100*B3/B2"),  # B4
            ("Pell census enrolment", f"=COUNTIFS({pell},\"Y\")"),  # B5
            ("Pell DFW count", "=" + dfw(pell, q + "Y" + q)),  # B6
            (P["labels"]["pell_rate"], "=100*B6/B5"),  # B7
            ("Non-Pell census enrolment", f"=COUNTIFS({pell},\"N\")"),  # B8
            ("Non-Pell DFW count", "=" + dfw(pell, q + "N" + q)),  # B9
            (P["labels"]["non_rate"], "=100*B9/B8"),  # B10
            (P["labels"]["gap"], "=B7-B10"),  # B11
            ("Pooled DFW proportion", "=(B6+B9)/(B5+B8)"),  # B12
            (P["labels"]["z"], "=(B6/B5-B9/B8)/SQRT(B12*(1-B12)*(1/B5+1/B8))"),  # B13
            (P["labels"]["p"], "=2*(1-NORMSDIST(ABS(B13)))"),  # B14
            ("Significance level (two-sided)", float(P["alpha"])),  # B15
            (P["labels"]["decision"], "=IF(B14<B15,\"yes\",\"no\")"),  # B16
            (P["labels"]["suppressed"], f"=COUNTIF({t}!G2:G{k},\"<{cut}\")+COUNTIF({t}!I2:I{k},\"<{cut}\")"),
            (P["labels"]["worst"], f"=INDEX({t}!A2:A{k},MATCH(MAX({t}!F2:F{k}),{t}!F2:F{k},0))"),
            (P["labels"]["worst_rate"], f"=MAX({t}!F2:F{k})")]
    for row in rows:
        sm.append(list(row))
    wb.save(path)
    _fixed_dates(path)


def _slides(path, P, facts):
    """Two slides: DFW by section (bar chart, overall and worst section); modality and the Pell gap (bar chart,
    the z test and the suppression note)."""
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches, Pt

    L = P["labels"]
    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    pages = [
        (P["slide_titles"][0], [s["section"] for s in facts["sections"]], [s["rate"] for s in facts["sections"]],
         [f"{L['n']}: {facts['n']}", f"{L['rate']}: {facts['rate']:.1f}", f"{L['worst']}: {facts['worst']}",
          f"{L['worst_rate']}: {facts['worst_rate']:.1f}",
          "Rates are D, F and W grades over census-date enrolment; pre-census drops excluded; an unresolved "
          "incomplete counts in the denominator only."]),
        (P["slide_titles"][1], [m["modality"] for m in facts["modes"]] + ["Pell", "Non-Pell"],
         [m["rate"] for m in facts["modes"]] + [facts["pell_rate"], facts["non_rate"]],
         [f"{L['pell_rate']}: {facts['pell_rate']:.1f}", f"{L['non_rate']}: {facts['non_rate']:.1f}",
          f"{L['gap']}: {facts['gap']:.1f}", f"{L['z']}: {facts['z']:.2f}", f"{L['p']}: {facts['p']:.3f}",
          f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['suppressed']}: {facts['suppressed']}",
          f"Pooled two-proportion z test, two-sided, alpha = {P['alpha']}; section cells with n < {P['min_cell']} "
          "suppressed."])]
    for title, cats, values, lines in pages:
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = title
        data = CategoryChartData()
        data.categories = cats
        data.add_series("DFW rate (%)", values)
        slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(0.4), Inches(1.4), Inches(8.4), Inches(5.6), data)
        box = slide.shapes.add_textbox(Inches(9.0), Inches(1.4), Inches(4.1), Inches(5.6)).text_frame
        box.word_wrap = True
        for k, line in enumerate(lines):
            para = box.paragraphs[0] if k == 0 else box.add_paragraph()
            para.text = line
            para.font.size = Pt(14)
    prs.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    _slides(os.path.join(output_dir, D["slides"]), P, facts)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: census roster from the registrar export (one row per student and section; drops dated on or "
        "before the census date left out), final grades after the registrar's grade-change file; DFW rate = D, F "
        "and W grades / census enrolment, an unresolved incomplete in the denominator only; Pell gap = Pell rate "
        "minus non-Pell rate with a pooled two-proportion z test (two-sided); section cells by Pell status with "
        f"fewer than {P['min_cell']} students suppressed."])
