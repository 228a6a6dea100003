# ---- jobenv workflow ground truth: inter-annotator agreement on a labelling pilot, with adjudication ----
# Standard library, pandas, openpyxl and python-pptx. PARAMS (defined above this code in solve.py) names the
# annotation export and its columns, the three annotators, the current guideline's labels and the v1 labels it
# merged (old -> new), the gold file, the alpha threshold, the label pair the requester suspects, and the
# deliverables; ``naive`` names the shortcuts a hurried analyst takes (each reproduces one planted mistake):
#   unmapped   labels given under the superseded v1 guideline kept as they are (the merged labels stay apart)
#   relabels   an annotator's first label of an item kept instead of the latest re-label
#   missing    a skipped item's blank label treated as one more category
#   gold       the gold subset ignored in adjudication (majority vote on gold items too)
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import itertools
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass

BLANK = "(blank)"


def cohen_kappa(pairs):
    """Cohen's kappa of (label_a, label_b) pairs: (po - pe) / (1 - pe), pe from each rater's own margins."""
    n = len(pairs)
    po = sum(a == b for a, b in pairs) / n
    cats = {a for a, _ in pairs} | {b for _, b in pairs}
    pe = sum((sum(a == c for a, _ in pairs) / n) * (sum(b == c for _, b in pairs) / n) for c in cats)
    return (po - pe) / (1 - pe)


def fleiss_kappa(units):
    """Fleiss' kappa of units that each carry the same number of labels (lists of labels)."""
    m = len(units[0])
    cats = sorted({v for u in units for v in u})
    p_i = [(sum(u.count(c) ** 2 for c in cats) - m) / (m * (m - 1)) for u in units]
    p_j = [sum(u.count(c) for u in units) / (len(units) * m) for c in cats]
    pbar, pe = sum(p_i) / len(p_i), sum(p * p for p in p_j)
    return (pbar - pe) / (1 - pe)


def krippendorff_alpha(units):
    """Krippendorff's alpha, nominal, from the coincidence matrix: units with fewer than two labels are not
    pairable and drop out; alpha = 1 - (n - 1) * sum of off-diagonal coincidences / sum over c != k of n_c n_k."""
    units = [u for u in units if len(u) >= 2]
    cats = sorted({v for u in units for v in u})
    off, n_c = 0.0, {c: 0.0 for c in cats}
    for u in units:
        m = len(u)
        off += (m * m - sum(u.count(c) ** 2 for c in cats)) / (m - 1)
        for c in cats:
            n_c[c] += u.count(c)
    n = sum(n_c.values())
    return 1 - (n - 1) * off / (n * n - sum(v * v for v in n_c.values()))


def final_labels(folder, P, naive=()):
    """{item: {annotator: label}}: the latest label of each annotator on each item, v1 labels mapped to v2; a
    skipped item has no label (or BLANK with the 'missing' shortcut)."""
    C, merge = P["columns"], P["merge"]
    rows = read_frame(folder, P["files"]["export"]).to_dict("records")
    rows.sort(key=lambda r: str(r[C["time"]]), reverse="relabels" in naive)  # the last row of a key wins
    out = {}  # type: dict
    for r in rows:
        item, who = str(r[C["item"]]).strip(), str(r[C["annotator"]]).strip()
        label = str(r[C["label"]]).strip().lower()
        if not label:
            if "missing" not in naive:
                out.setdefault(item, {}).pop(who, None)
                continue
            label = BLANK
        if "unmapped" not in naive:
            label = merge.get(label, label)
        out.setdefault(item, {})[who] = label
    return out


def analyse(folder, P, naive=()):
    labels = final_labels(folder, P, naive)
    who = list(P["annotators"])
    items = sorted(labels)
    pairs, confused = [], {}  # type: list, dict
    for a, b in itertools.combinations(who, 2):
        both = [(labels[i][a], labels[i][b]) for i in items if a in labels[i] and b in labels[i]]
        pairs.append({"a": a, "b": b, "n": len(both), "kappa": rnd(cohen_kappa(both), 3),
                      "raw": cohen_kappa(both)})
        for x, y in both:
            if x != y:
                key = tuple(sorted((x, y)))
                confused[key] = confused.get(key, 0) + 1
    complete = [[labels[i][w] for w in who] for i in items if all(w in labels[i] for w in who)]
    fk = fleiss_kappa(complete)
    ka = krippendorff_alpha([[labels[i][w] for w in who if w in labels[i]] for i in items])
    weakest = min(pairs, key=lambda p: (p["raw"], p["a"], p["b"]))
    top = sorted(confused.items(), key=lambda kv: (-kv[1], kv[0]))
    suspect = tuple(sorted(P["suspect"]))
    gold = {}
    if "gold" not in naive:
        for r in read_frame(folder, P["files"]["gold"]).to_dict("records"):
            g = str(r["gold_label"]).strip().lower()
            gold[str(r["item_id"]).strip()] = P["merge"].get(g, g)
    adjudicated = []
    for i in items:
        votes = [labels[i][w] for w in who if w in labels[i] and labels[i][w] != BLANK]
        major = [c for c in sorted(set(votes)) if votes.count(c) >= 2]
        final = gold.get(i) or (major[0] if major else "")
        adjudicated.append({"item": i, "labels": [labels[i].get(w, "") for w in who], "gold": gold.get(i, ""),
                            "final": final, "source": "gold" if i in gold else "majority" if major else "adjudicate"})
    todo = [r["item"] for r in adjudicated if not r["final"]]
    cats = list(P["categories"]) + sorted({r["final"] for r in adjudicated if r["final"]} - set(P["categories"]))
    counts = {c: sum(r["final"] == c for r in adjudicated) for c in cats}
    return {"pairs": pairs, "n_items": len(items), "n_complete": len(complete), "fleiss": rnd(fk, 3),
            "fleiss_raw": fk, "alpha": rnd(ka, 3), "alpha_raw": ka, "weakest": [weakest["a"], weakest["b"]],
            "weakest_kappa": weakest["kappa"], "confused": list(top[0][0]), "confused_n": top[0][1],
            "confusion": [[k[0], k[1], v] for k, v in top], "suspect_n": confused.get(suspect, 0), "adjudicated": adjudicated, "todo": todo,
            "n_todo": len(todo), "counts": counts, "categories": cats,
            "decision": bool(ka >= float(P["threshold"])), "premise": bool(tuple(top[0][0]) == suspect)}


def _memo_lines(P, facts):
    L = P["labels"]
    lines = [f"{L['cohen']} {p['a']} / {p['b']}: {p['kappa']:.3f}" for p in facts["pairs"]]
    return lines + [f"{L['complete']}: {facts['n_complete']}", f"{L['fleiss']}: {facts['fleiss']:.3f}",
                    f"{L['alpha']}: {facts['alpha']:.3f}", f"{L['weakest']}: {'; '.join(facts['weakest'])}",
                    f"{L['confused']}: {'; '.join(facts['confused'])}", f"{L['confused_n']}: {facts['confused_n']}",
                    f"{L['suspect_n']}: {facts['suspect_n']}", f"{L['todo']}: {facts['n_todo']}",
                    f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def _col(k):
    return chr(ord("A") + k)


def _workbook(path, P, facts):
    """Labels (one row per item: the three final labels typed, the gold label, the adjudicated label and the
    per-category counts as formulas), Agreement (Cohen per pair, Fleiss, alpha as formulas on Labels) and Summary
    (adjudicated counts per label and items to adjudicate)."""
    from openpyxl import Workbook

    S, cats, who = P["sheet_labels"], facts["categories"], P["annotators"]
    wb = Workbook()
    ws = wb.active
    ws.title = "Labels"
    head = [S["item"], *who, S["gold"], S["final"], S["adjudicate"]] + [f"n_{c}" for c in cats] + ["m", "sumsq"]
    ws.append(head)
    end = len(facts["adjudicated"]) + 1
    k0 = 7  # first category count column (H)
    mcol, scol = _col(k0 + len(cats)), _col(k0 + len(cats) + 1)
    for i, r in enumerate(facts["adjudicated"], 2):
        lab = [v if v != BLANK else "" for v in r["labels"]]
        major = (f'IF(AND(B{i}<>"",OR(B{i}=C{i},B{i}=D{i})),B{i},IF(AND(C{i}<>"",C{i}=D{i}),C{i},""))')
        counts = [f'=COUNTIF(B{i}:D{i},"{c}")' for c in cats]
        sq = "+".join(f"{_col(k0 + k)}{i}^2" for k in range(len(cats)))
        ws.append([r["item"], *[v or None for v in lab], r["gold"] or None, f'=IF(E{i}<>"",E{i},{major})',
                   f'=IF(F{i}="","yes","no")', *counts, f"=COUNTA(B{i}:D{i})", f"={sq}"])
    rng = {c: f"Labels!${_col(k0 + k)}$2:${_col(k0 + k)}${end}" for k, c in enumerate(cats)}
    m, sq = f"Labels!${mcol}$2:${mcol}${end}", f"Labels!${scol}$2:${scol}${end}"
    ag = wb.create_sheet("Agreement")
    ag.append(["Item", "Value"])
    L = P["labels"]
    col = {w: f"Labels!${_col(1 + k)}$2:${_col(1 + k)}${end}" for k, w in enumerate(who)}
    for p in facts["pairs"]:
        a, b = col[p["a"]], col[p["b"]]
        n = f'SUMPRODUCT(({a}<>"")*({b}<>""))'
        po = f'SUMPRODUCT(({a}<>"")*({b}<>"")*({a}={b}))/{n}'
        pe = "+".join(f'SUMPRODUCT(({a}="{c}")*({b}<>""))*SUMPRODUCT(({b}="{c}")*({a}<>""))' for c in cats)
        pe = f"({pe})/{n}^2"
        ag.append([f"{L['cohen']} {p['a']} / {p['b']}", f"=({po}-{pe})/(1-{pe})"])
    full = f"({m}=3)"
    ag.append([L["complete"], f"=SUMPRODUCT(--{full})"])  # B5
    ag.append(["Mean observed agreement (complete items)", f"=SUMPRODUCT({full}*({sq}-3))/6/B5"])  # B6
    pj = "+".join(f"(SUMPRODUCT({full}*{r})/(3*B5))^2" for r in rng.values())
    ag.append(["Expected agreement (Fleiss)", f"={pj}"])  # B7
    ag.append([L["fleiss"], "=(B6-B7)/(1-B7)"])  # B8
    pair = f"({m}>=2)"
    ag.append(["Pairable values n", f"=SUMPRODUCT({pair}*{m})"])  # B9
    ag.append(["Off-diagonal coincidences", f'=SUMPRODUCT({pair}*({m}^2-{sq})/({m}-1+2*({m}<2)))'])  # B10
    nc = "+".join(f"SUMPRODUCT({pair}*{r})^2" for r in rng.values())
    ag.append(["Sum of n_c squared", f"={nc}"])  # B11
    ag.append([L["alpha"], "=1-(B9-1)*B10/(B9^2-B11)"])  # B12
    ag.append(["Threshold for scale-up", float(P["threshold"])])  # B13
    ag.append([L["decision"], '=IF(B12>=B13,"yes","no")'])
    sm = wb.create_sheet("Summary")
    sm.append([S["label"], S["count"]])
    fin = f"Labels!$F$2:$F${end}"
    for c in cats:
        sm.append([c, f'=COUNTIF({fin},"{c}")'])
    sm.append([L["todo"], f'=COUNTIF(Labels!$G$2:$G${end},"yes")'])
    wb.save(path)
    _fixed_dates(path)


def _slides(path, P, facts):
    """Two slides: agreement (pairwise kappa chart, Fleiss, alpha, the scale-up call); ambiguity and adjudication
    (the most-confused label pairs, items left to adjudicate)."""
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches, Pt

    L = P["labels"]
    top = facts["confusion"][:6]
    pages = [
        (P["slide_titles"][0], [f"{p['a']}/{p['b']}" for p in facts["pairs"]], [p["kappa"] for p in facts["pairs"]],
         "Cohen's kappa", _memo_lines(P, facts)[:6] + [
             f"{L['decision']}: {yes_no(facts['decision'])}",
             f"Threshold: Krippendorff's alpha >= {P['threshold']} (nominal; skipped items are missing values)."]),
        (P["slide_titles"][1], [f"{x}/{y}" for x, y, _ in top], [v for _, _, v in top], "Disagreements",
         [f"{L['confused']}: {'; '.join(facts['confused'])}", f"{L['weakest']}: {'; '.join(facts['weakest'])}",
          f"{L['todo']}: {facts['n_todo']}", f"{L['premise']}: {yes_no(facts['premise'])}",
          "v1 labels mapped to the v2 guideline first; each annotator's latest label kept; gold items take the "
          "gold label."])]
    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    for title, cats, values, series, lines in pages:
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = title
        data = CategoryChartData()
        data.categories = cats
        data.add_series(series, values)
        slide.shapes.add_chart(XL_CHART_TYPE.BAR_CLUSTERED, Inches(0.4), Inches(1.4), Inches(7.4), Inches(5.6), data)
        box = slide.shapes.add_textbox(Inches(8.0), Inches(1.4), Inches(5.1), Inches(5.6)).text_frame
        box.word_wrap = True
        for k, line in enumerate(lines):
            para = box.paragraphs[0] if k == 0 else box.add_paragraph()
            para.text = line
            para.font.size = Pt(13)
    prs.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    _workbook(os.path.join(output_dir, D["workbook"]), P, facts)
    _slides(os.path.join(output_dir, D["slides"]), P, facts)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: each annotator's latest label per item; v1 labels mapped to the v2 guideline before any "
        "statistic; skipped items are missing values, not a category. Cohen's kappa per annotator pair on items both "
        "labelled; Fleiss' kappa on items all three labelled; Krippendorff's alpha (nominal) on every item with two "
        "or more labels. Adjudication: gold label where the item is in the gold subset, else a label given by at "
        "least two annotators; otherwise the item goes to adjudication."])
