# ---- jobenv workflow ground truth: survey weights by raking (IPF) with trimming; Kish deff, n_eff and MOE ----
# Standard library and pandas. PARAMS (defined above this code in solve.py) names the export, the frame, the
# population tables, the codebook's codes, the weighting memo's rules and the deliverables; ``naive`` names the
# shortcuts a hurried analyst takes (each proves that a planted trap changes the graded answer):
#   cleaning     partial interviews, speeders and straight-liners kept
#   unit_base    every respondent starts from weight 1, not from the inverse of the frame's selection probability
#   old_margins  raked to the archived population estimates
#   old_cap      trimmed at the superseded memo's cap
#   dk_codes     "don't know" and "refused" codes counted as answers
import math
import os
import statistics

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass


def _num(x):
    text = str(x).replace(",", "").strip()
    return float(text) if text else float("nan")


def clean(rows, P, naive=()):
    """The interviews the cleaning protocol keeps: complete, not faster than ``speeder_share`` of the median
    duration of all complete interviews, and not one identical answer to every grid item."""
    C = P["columns"]
    if "cleaning" in naive:
        return list(rows)
    complete = [r for r in rows if str(r[C["status"]]).strip().lower() == P["complete_status"]]
    median = statistics.median(_num(r[C["duration"]]) for r in complete)
    return [r for r in complete if _num(r[C["duration"]]) >= P["speeder_share"] * median
            and len({str(r[g]).strip() for g in P["grid"]}) > 1]


def margin_gap(w, groups, targets):
    """The largest relative difference between a weighted margin total and its target."""
    gap = 0.0
    for labels, target in zip(groups, targets):
        tot = dict.fromkeys(target, 0.0)
        for lab, x in zip(labels, w):
            tot[lab] += x
        gap = max(gap, max(abs(tot[c] / t - 1) for c, t in target.items()))
    return gap


def rake(weights, groups, targets, tol, max_cycles=2000):
    """Iterative proportional fitting: ``groups`` holds one list of category labels (one per respondent) per
    margin, ``targets`` one dict category -> target total per margin, in raking order. Each cycle scales the
    weights to every margin in turn; stops after the first cycle whose margins are all within ``tol`` (relative).
    Raises ValueError for a category without respondents (or a respondent outside the table) or no convergence."""
    w = list(weights)
    for _ in range(max_cycles):
        for labels, target in zip(groups, targets):
            tot = dict.fromkeys(target, 0.0)
            for lab, x in zip(labels, w):
                tot[lab] += x  # KeyError -> a respondent's category is not in the table
            if min(tot.values()) <= 0:
                raise ValueError("a margin category has no respondents")
            w = [x * target[lab] / tot[lab] for lab, x in zip(labels, w)]
        if margin_gap(w, groups, targets) <= tol:
            return w
    raise ValueError("raking did not converge")


def rake_and_trim(base, groups, targets, tol, cap, max_rounds=2000):
    """Rake; while a weight exceeds ``cap`` by more than ``tol`` (relative), cut every weight above the cap to the
    cap and rake again. Raises ValueError when the cap and the margins cannot both be met."""
    w = rake(base, groups, targets, tol)
    for _ in range(max_rounds):
        if max(w) <= cap * (1 + tol):
            return w
        w = rake([min(x, cap) for x in w], groups, targets, tol)
    raise ValueError("trimming and raking did not converge")


def kish(w):
    """(design effect 1 + CV^2 = n sum w^2 / (sum w)^2, effective sample size n / deff)."""
    n, s, s2 = len(w), sum(w), sum(x * x for x in w)
    deff = n * s2 / (s * s)
    return deff, n / deff


def _margins(folder, P, naive):
    M = P["margins"]
    table = read_frame(folder, P["files"]["archived_margins" if "old_margins" in naive else "margins"], M["sheet"])
    out: dict = {}
    for _, r in table.iterrows():
        out.setdefault(str(r[M["variable"]]).strip(), {})[str(r[M["category"]]).strip()] = _num(r[M["population"]])
    return out


def analyse(folder, P, naive=()):
    """The graded facts from the task folder. A missing file or column raises (OSError, KeyError); margins the
    weights cannot meet raise ValueError."""
    C, Q = P["columns"], P["items"]
    rows = clean(read_frame(folder, P["files"]["export"]).to_dict("records"), P, naive)
    frame = read_frame(folder, P["files"]["frame"], P["frame_sheet"])
    prob = {str(r[P["frame_columns"]["stratum"]]).strip(): _num(r[P["frame_columns"]["prob"]])
            for _, r in frame.iterrows()}
    base = [1.0 if "unit_base" in naive else 1 / prob[str(r[C["stratum"]]).strip()] for r in rows]
    pop = _margins(folder, P, naive)
    n = len(rows)
    groups, targets = [], []
    for var, column in P["rake"]:  # (the population table's characteristic, the export's column), in raking order
        total = sum(pop[var].values())
        groups.append([str(r[column]).strip() for r in rows])
        targets.append({c: n * v / total for c, v in pop[var].items()})
    cap = P["old_cap"] if "old_cap" in naive else P["cap"]
    w = rake_and_trim(base, groups, targets, P["tolerance"], cap)
    deff, neff = kish(w)
    valid_yes = set(Q["yes_codes"]) | set(Q["no_codes"])
    prop_rows = [(x, int(_num(r[C["binary"]]))) for x, r in zip(w, rows) if str(r[C["binary"]]).strip()]
    if "dk_codes" not in naive:
        prop_rows = [(x, v) for x, v in prop_rows if v in valid_yes]
    p = sum(x for x, v in prop_rows if v in Q["yes_codes"]) / sum(x for x, _ in prop_rows)
    moe = 1.96 * math.sqrt(deff * p * (1 - p) / len(prop_rows)) * 100
    scale = [(x, _num(r[C["scale"]])) for x, r in zip(w, rows) if str(r[C["scale"]]).strip()]
    if "dk_codes" not in naive:
        scale = [(x, v) for x, v in scale if Q["scale_min"] <= v <= Q["scale_max"]]
    mean = sum(x * v for x, v in scale) / sum(x for x, _ in scale)
    return {"n_retained": n, "n_valid": len(prop_rows), "deff": rnd(deff, 3), "n_eff": rnd(neff, 1),
            "prop": rnd(p * 100, 2), "moe": rnd(moe, 2), "mean": rnd(mean, 2), "max_weight": rnd(max(w), 3),
            "cap_used": cap, "n_at_cap": sum(x >= cap * (1 - P["tolerance"]) for x in w),
            "weights": [[str(r[C["id"]]), rnd(b, 6), rnd(x, 6)] for r, b, x in zip(rows, base, w)],
            "decision": bool(neff >= P["min_neff"]), "premise": bool(abs(p * 100 - P["hypothesis"]) <= moe)}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['n']}: {facts['n_retained']}", f"{L['deff']}: {facts['deff']:.3f}", f"{L['neff']}: {facts['n_eff']:.1f}",
            f"{L['prop']}: {facts['prop']:.2f}", f"{L['moe']}: {facts['moe']:.2f}", f"{L['mean']}: {facts['mean']:.2f}",
            f"{L['max_w']}: {facts['max_weight']:.3f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    write_table(os.path.join(output_dir, D["weights"]), P["weight_columns"], facts["weights"])
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"Method: design weights 1 / selection probability from the frame; raked (iterative proportional fitting) "
        f"to the current population estimates ({', '.join(v for v, _ in P['rake'])}, in that order) until every margin was "
        f"within {P['tolerance']:g} of its target; weights scaled to a mean of 1 and trimmed at {facts['cap_used']:g} "
        "and re-raked until none exceeded the cap. Incomplete interviews, speeders and straight-liners were excluded "
        "before weighting; don't know and refused codes are missing. Design effect 1 + CV^2 of the final weights; "
        "effective n = n / deff; margin of error 1.96 x sqrt(deff x p(1 - p) / n valid)."])
