# ---- jobenv workflow ground truth: a product-page A/B test readout (SRM first, then the primary metric) ----
# Standard library, pandas and python-pptx. PARAMS (defined above this code in solve.py) names the analytics export
# (a gzip-compressed csv) and its columns, the arms' values in it and the planned split, the analysis window and minimum detectable effect of
# the test plan of record (revision 2) and of the superseded first plan, the bot signatures of the experimentation
# standards, IT's internal network list, the SRM threshold, alpha, the lift the requester quotes and the
# deliverables; ``naive`` names the shortcuts a hurried analyst takes (each reproduces one planted mistake):
#   bots      sessions whose user agent matches a bot signature kept
#   internal  sessions from IT's active internal networks (QA test orders) kept
#   retired   the network IT retired (now the ISP's customers) excluded as internal too
#   sessions  conversion counted per session, not per visitor (the plan's randomisation and analysis unit)
#   old_plan  the superseded plan: its window (from launch, ramp-up days in), add-to-cart per session, its MDE
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import ipaddress
import math
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def srm_chi_square(counts, shares):
    """Chi-square goodness of fit of the units per arm against the planned shares (percent): (chi2, p), 1 df for
    two arms: p = erfc(sqrt(chi2 / 2))."""
    n = sum(counts)
    chi2 = sum((o - n * s / 100.0) ** 2 / (n * s / 100.0) for o, s in zip(counts, shares))
    return chi2, math.erfc(math.sqrt(chi2 / 2))


def two_proportion_z(x_a, n_a, x_b, n_b):
    """Pooled two-proportion z test of p_b - p_a: (z, two-sided p)."""
    pooled = (x_a + x_b) / (n_a + n_b)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    z = (x_b / n_b - x_a / n_a) / se
    return z, math.erfc(abs(z) / math.sqrt(2))


def diff_interval(x_a, n_a, x_b, n_b, z=1.96):
    """95 % Wald interval (unpooled) of p_b - p_a, in percentage points."""
    pa, pb = x_a / n_a, x_b / n_b
    se = math.sqrt(pa * (1 - pa) / n_a + pb * (1 - pb) / n_b)
    return 100 * (pb - pa - z * se), 100 * (pb - pa + z * se)


def is_bot(agent, signatures):
    text = str(agent).lower()
    return any(s.lower() in text for s in signatures)


def internal_networks(folder, P, naive=()):
    """IT's internal networks to exclude: the active ones (a retired range is the ISP's again), or every listed
    range with the 'retired' shortcut."""
    rows = read_frame(folder, P["files"]["networks"]).to_dict("records")
    keep = [r for r in rows if "retired" in naive or str(r["status"]).strip().lower() == "active"]
    return [ipaddress.ip_network(str(r["cidr"]).strip()) for r in keep]


def eligible_sessions(folder, P, naive=()):
    """The export's sessions the plan analyses: in the window (UTC dates, inclusive), bots and internal traffic out;
    a frame with arm ('control' or 'treatment'), visitor, converted (0/1 on the metric)."""
    C, A = P["columns"], P["arms"]
    df = read_frame(folder, P["files"]["sessions"])
    plan = P["old_plan"] if "old_plan" in naive else P["plan"]
    day = df[C["start"]].str.slice(0, 10)
    df = df[(day >= plan["start"]) & (day <= plan["end"])]
    if "bots" not in naive:
        bot = {a: is_bot(a, P["bot_signatures"]) for a in df[C["agent"]].unique()}
        df = df[~df[C["agent"]].map(bot).astype(bool)]
    if "internal" not in naive:
        octets = df[C["ip"]].str.strip().str.split(".", expand=True).astype(int)
        ip = octets[0] * 16777216 + octets[1] * 65536 + octets[2] * 256 + octets[3]
        inside = ip < 0
        for net in internal_networks(folder, P, naive):
            inside |= (ip >= int(net.network_address)) & (ip <= int(net.broadcast_address))
        df = df[~inside]
    arm = {str(A["control"]): "control", str(A["treatment"]): "treatment"}
    df = df.assign(arm=df[C["variant"]].str.strip().map(arm))
    df = df[df["arm"].notna()]
    metric = C["atc"] if "old_plan" in naive else C["orders"]
    return df.assign(visitor=df[C["visitor"]].str.strip(),
                     converted=(df[metric].astype(float) > 0).astype(int))[["arm", "visitor", "converted"]]


def analyse(folder, P, naive=()):
    df = eligible_sessions(folder, P, naive)
    if "sessions" in naive or "old_plan" in naive:  # the unit is the session
        units = df
    else:  # the unit is the visitor: converted when any eligible session in the window converted
        units = df.groupby(["arm", "visitor"], as_index=False)["converted"].max()
    n = units.groupby("arm")["converted"].count()
    x = units.groupby("arm")["converted"].sum()
    n_a, n_b, x_a, x_b = int(n["control"]), int(n["treatment"]), int(x["control"]), int(x["treatment"])
    chi2, srm_p = srm_chi_square([n_a, n_b], [P["split"]["control"], P["split"]["treatment"]])
    z, p = two_proportion_z(x_a, n_a, x_b, n_b)
    lo, hi = diff_interval(x_a, n_a, x_b, n_b)
    cr_a, cr_b = 100 * x_a / n_a, 100 * x_b / n_b
    lift = 100 * (cr_b / cr_a - 1)
    mde = float((P["old_plan"] if "old_plan" in naive else P["plan"])["mde"])
    srm = srm_p < float(P["srm_alpha"])
    return {"n_a": n_a, "n_b": n_b, "x_a": x_a, "x_b": x_b, "chi2": rnd(chi2, 2), "srm_p": rnd(srm_p, 4),
            "srm_p_raw": srm_p, "srm": bool(srm), "cr_a": rnd(cr_a, 2), "cr_b": rnd(cr_b, 2), "lift": rnd(lift, 2),
            "lift_raw": lift, "z": rnd(z, 2), "p": rnd(p, 4), "p_raw": p, "ci_low": rnd(lo, 2), "ci_high": rnd(hi, 2),
            "mde": mde,
            # ship only on a valid test whose primary metric is significantly up by at least the plan's MDE
            "decision": bool(not srm and p < float(P["alpha"]) and lift > 0 and lift >= mde),
            "premise": bool(rnd(lift, 1) >= float(P["claim"]))}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['n_a']}: {facts['n_a']}", f"{L['n_b']}: {facts['n_b']}", f"{L['chi2']}: {facts['chi2']:.2f}",
            f"{L['srm_p']}: {facts['srm_p']:.4f}", f"{L['srm']}: {yes_no(facts['srm'])}",
            f"{L['x_a']}: {facts['x_a']}", f"{L['x_b']}: {facts['x_b']}", f"{L['cr_a']}: {facts['cr_a']:.2f}",
            f"{L['cr_b']}: {facts['cr_b']:.2f}", f"{L['lift']}: {facts['lift']:.2f}", f"{L['z']}: {facts['z']:.2f}",
            f"{L['p']}: {facts['p']:.4f}", f"{L['ci_low']}: {facts['ci_low']:.2f}",
            f"{L['ci_high']}: {facts['ci_high']:.2f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def _slides(path, P, facts):
    """Two slides: is the test valid (visitors per arm against the planned split, the SRM check); the result
    (conversion per arm, lift, interval, p, the ship call)."""
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches, Pt

    L, names = P["labels"], P["arm_names"]
    lines = _memo_lines(P, facts)
    pages = [
        (P["slide_titles"][0], "Visitors", [facts["n_a"], facts["n_b"]], lines[:5] + [
            f"Planned split {P['split']['control']}/{P['split']['treatment']}; SRM when p < {P['srm_alpha']}.",
            f"Window {P['plan']['start']} to {P['plan']['end']} (UTC); bots and internal networks excluded."]),
        (P["slide_titles"][1], "Conversion (%)", [facts["cr_a"], facts["cr_b"]], lines[5:15] + [
            f"Ship rule: valid test, p < {P['alpha']} and lift of at least {P['plan']['mde']:g} % (the plan's MDE).",
            f"{L['premise']}: {yes_no(facts['premise'])}"])]
    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    for title, series, values, text in pages:
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = title
        data = CategoryChartData()
        data.categories = [names["control"], names["treatment"]]
        data.add_series(series, values)
        slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(0.4), Inches(1.4), Inches(6.4), Inches(5.6), data)
        box = slide.shapes.add_textbox(Inches(7.0), Inches(1.4), Inches(6.1), Inches(5.6)).text_frame
        box.word_wrap = True
        for k, line in enumerate(text):
            para = box.paragraphs[0] if k == 0 else box.add_paragraph()
            para.text = line
            para.font.size = Pt(13)
    prs.save(path)
    _fixed_dates(path)


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, names, plan = P["deliverables"], P["arm_names"], P["plan"]
    _slides(os.path.join(output_dir, D["slides"]), P, facts)
    if facts["srm"]:
        call = "The split is off the plan (sample ratio mismatch): the result is not valid and the page does not ship."
    elif facts["decision"]:
        call = f"{names['treatment']} ships: significant and above the plan's minimum effect."
    else:
        call = f"{names['treatment']} does not ship: the plan's rule (significant and at least the MDE) is not met."
    write_memo(os.path.join(output_dir, D["memo"]), [f"# {P['test_id']} readout", ""] + _memo_lines(P, facts) + [
        "", call, "",
        f"Method: the test plan of record (revision 2): window {plan['start']} to {plan['end']} UTC inclusive; visitors "
        "as the unit (a visitor converts when any of their eligible sessions in the window has an order); sessions "
        "matching the bot signatures and sessions from IT's active internal networks excluded. SRM: chi-square "
        f"goodness of fit of visitors per arm against the planned {P['split']['control']}/{P['split']['treatment']} "
        f"split, mismatch when p < {P['srm_alpha']}. Pooled two-proportion z test (two-sided); 95 % interval of the "
        "difference in conversion (unpooled Wald), in percentage points; relative lift = treatment / control - 1."])
