# ---- jobenv workflow ground truth: pre/post evaluation of a course (paired t, d_z, Hake gain, item analysis) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the response export,
# the answer keys, the review standard and the deliverables; ``naive`` names the shortcuts a careless evaluator
# takes (each proves that a planted item changes the graded answer):
#   old_key    items scored with the original answer key, ignoring the revision
#   unpaired   learners with only a pre-test or only a post-test stay in the means and the item analysis
import math
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz), to 1e-14 relative."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-14:
            break
    return h


def beta_inc(a, b, x):
    """Regularised incomplete beta I_x(a, b) for 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t, df):
    """Two-sided p of Student's t with ``df`` degrees of freedom: I_{df/(df+t^2)}(df/2, 1/2)."""
    return beta_inc(df / 2.0, 0.5, df / (df + t * t))


def paired_t(pre, post):
    """(mean difference, sd of differences (n - 1), t, df, two-sided p, d_z) for paired scores."""
    diffs = [b - a for a, b in zip(pre, post)]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    t = mean / (sd / math.sqrt(n))
    return mean, sd, t, n - 1, t_two_sided_p(t, n - 1), mean / sd


def kr20(matrix):
    """KR-20 of a 0/1 matrix (rows learners, columns items), population variance of the totals."""
    n, k = len(matrix), len(matrix[0])
    totals = [sum(r) for r in matrix]
    mean = sum(totals) / n
    var = sum((x - mean) ** 2 for x in totals) / n
    pq = sum((p := sum(r[j] for r in matrix) / n) * (1 - p) for j in range(k))
    return k / (k - 1) * (1 - pq / var)


def point_biserial(item, totals):
    """Pearson correlation of a 0/1 item with the total score (the total includes the item)."""
    n = len(item)
    mi, mt = sum(item) / n, sum(totals) / n
    cov = sum((a - mi) * (b - mt) for a, b in zip(item, totals))
    vi = sum((a - mi) ** 2 for a in item)
    vt = sum((b - mt) ** 2 for b in totals)
    return cov / math.sqrt(vi * vt) if vi and vt else 0.0


def _key(folder, P, naive):
    keys = read_frame(folder, P["files"]["key"])
    key = {str(r["item"]): str(r["key"]).strip().upper() for _, r in keys.iterrows()}
    if "old_key" not in naive:
        for _, r in read_frame(folder, P["files"]["revision"]).iterrows():
            key[str(r["item"])] = str(r["revised_key"]).strip().upper()
    return key


def analyse(folder, P, naive=()):
    key = _key(folder, P, naive)
    items = list(P["items"])
    resp = read_frame(folder, P["files"]["responses"])
    scored: dict = {"pre": {}, "post": {}}
    for _, r in resp.iterrows():
        phase = str(r["phase"]).strip().lower()
        scored[phase][str(r["learner_id"])] = [int(str(r[i]).strip().upper() == key[i]) for i in items]
    pre, post = scored["pre"], scored["post"]
    paired = sorted(set(pre) & set(post))
    k = len(items)
    if "unpaired" in naive:
        pre_scores = [100 * sum(v) / k for v in pre.values()]
        post_scores = [100 * sum(v) / k for v in post.values()]
        matrix = list(post.values())
    else:
        pre_scores = [100 * sum(pre[x]) / k for x in paired]
        post_scores = [100 * sum(post[x]) / k for x in paired]
        matrix = [post[x] for x in paired]
    mean_pre, mean_post = sum(pre_scores) / len(pre_scores), sum(post_scores) / len(post_scores)
    mean, sd, t, df, p, dz = paired_t([100 * sum(pre[x]) / k for x in paired], [100 * sum(post[x]) / k for x in paired])
    if "unpaired" in naive:
        mean = mean_post - mean_pre
    gain = (mean_post - mean_pre) / (100 - mean_pre)
    totals = [sum(r) for r in matrix]
    stats = []
    for j, item in enumerate(items):
        col = [r[j] for r in matrix]
        stats.append({"item": item, "key": key[item], "p": rnd(sum(col) / len(col), 4),
                      "rpb": rnd(point_biserial(col, totals), 4)})
    worst = min(stats, key=lambda s: (s["rpb"], s["item"]))
    hardest = min(stats, key=lambda s: (s["p"], s["item"]))
    facts = {"n_paired": len(paired), "n_excluded": len(set(pre) ^ set(post)), "mean_pre": rnd(mean_pre, 2),
             "mean_post": rnd(mean_post, 2), "mean_gain": rnd(mean, 2), "t": rnd(t, 2), "df": df, "p": rnd(p, 4),
             "dz": rnd(dz, 2), "hake": rnd(gain, 3), "kr20": rnd(kr20(matrix), 3), "items": stats,
             "worst": worst["item"], "hardest": hardest["item"],
             "matrix": [[x] + post[x] for x in (paired if "unpaired" not in naive else sorted(post))]}
    facts["decision"] = bool(gain >= P["min_gain"] and p < P["alpha"])
    facts["premise"] = hardest["item"] == P["premise_item"]
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['n_paired']}: {facts['n_paired']}", f"{L['mean_gain']}: {facts['mean_gain']:.2f}",
            f"{L['t']}: {facts['t']:.2f}", f"{L['p']}: {facts['p']:.4f}", f"{L['dz']}: {facts['dz']:.2f}",
            f"{L['hake']}: {facts['hake']:.3f}", f"{L['kr20']}: {facts['kr20']:.3f}", f"{L['worst']}: {facts['worst']}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    """The workbook (Scored: the post-test 0/1 matrix of paired learners; Items: difficulty and point-biserial as
    AVERAGE/CORREL formulas over Scored, KR-20 as a formula) and the report."""
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    from openpyxl import Workbook
    from openpyxl.utils import get_column_letter

    wb = Workbook()
    items_ws = wb.active
    items_ws.title = "Items"
    sc = wb.create_sheet("Scored")
    k = len(P["items"])
    sc.append(["learner_id"] + list(P["items"]) + ["total"])
    tot = get_column_letter(k + 2)
    for i, row in enumerate(facts["matrix"], 2):
        sc.append(row + [f"=SUM(B{i}:{get_column_letter(k + 1)}{i})"])
    last = len(facts["matrix"]) + 1
    items_ws.append(["item", "key", "difficulty_p", "point_biserial", "pq"])
    for j, s in enumerate(facts["items"]):
        col = get_column_letter(j + 2)
        r = j + 2
        items_ws.append([s["item"], s["key"], f"=AVERAGE(Scored!{col}2:{col}{last})",
                         f"=CORREL(Scored!{col}2:{col}{last},Scored!{tot}2:{tot}{last})", f"=C{r}*(1-C{r})"])
    items_ws.append([])
    items_ws.append(["KR-20", f"=({k}/({k}-1))*(1-SUM(E2:E{k + 1})/VARP(Scored!{tot}2:{tot}{last}))"])
    book = os.path.join(output_dir, D["workbook"])
    wb.save(book)
    _fixed_dates(book)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: paired learners only (both a pre-test and a post-test); scores are percent correct under the "
        "revised answer key; paired t on the differences (two-sided), d_z = mean difference / SD of differences; "
        "Hake's normalised gain from the class means; item difficulty and point-biserial on the post-test; KR-20 with "
        "the population variance of totals."])
