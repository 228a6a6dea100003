# ---- jobenv workflow ground truth: is a model's gain over a tuned baseline significant (for a reviewer) ----
# Standard library and pandas. PARAMS (defined above this code in solve.py) names the split manifest, the runs
# (seed, run id, prediction file, and the file that re-sent rows missing from a seed's export), the file whose
# prediction columns were exported swapped (stated in the predictions README), the primary seed of the paired
# tests, alpha, the paper's claimed gain and the deliverables; ``naive`` names the shortcuts a hurried analyst
# takes (each reproduces one planted mistake):
#   leaky     the run whose predictions hold training ids (by the split manifest) kept in the seed statistics
#   swapped   the export with pred_base and pred_ours swapped read as headed
#   missing   the re-sent rows of the truncated seed export left out
#   chisq     McNemar by the superseded protocol's chi-square (b - c)^2 / (b + c), not the exact test
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import math
import os
import statistics

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass


def mcnemar_exact(b, c):
    """Two-sided exact McNemar p: twice the binomial(b + c, 1/2) tail at min(b, c), capped at 1."""
    n, k = b + c, min(b, c)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


def mcnemar_chisq(b, c):
    """The asymptotic McNemar p of the superseded protocol: (b - c)^2 / (b + c) on chi-square with 1 df."""
    if b + c == 0:
        return 1.0
    x = (b - c) ** 2 / (b + c)
    return math.erfc(math.sqrt(x / 2))


def paired_ci(b, c, n, z=1.96):
    """Wald 95 % interval of the paired accuracy difference (ours - base) in points:
    d = (c - b) / n, se = sqrt(b + c - (c - b)^2 / n) / n."""
    d = (c - b) / n
    se = math.sqrt(b + c - (c - b) ** 2 / n) / n
    return 100 * (d - z * se), 100 * (d + z * se)


def seed_rows(folder, P, run, naive=()):
    """The prediction rows of one run as (id, y_true, pred_base, pred_ours): the export plus its re-sent rows,
    the swapped export's columns read back the right way."""
    frames = [read_frame(folder, run["file"])]
    if run.get("resent") and "missing" not in naive:
        frames.append(read_frame(folder, run["resent"]))
    swap = run["file"] == P.get("swapped") and "swapped" not in naive
    out = {}
    for f in frames:
        for r in f.to_dict("records"):
            base, ours = str(r["pred_base"]).strip(), str(r["pred_ours"]).strip()
            if swap:
                base, ours = ours, base
            out[str(r["id"]).strip()] = (str(r["y_true"]).strip(), base, ours)
    return out


def analyse(folder, P, naive=()):
    split = {str(r["id"]).strip(): str(r["split"]).strip().lower()
             for r in read_frame(folder, P["files"]["manifest"]).to_dict("records")}
    runs = []
    for run in P["runs"]:
        rows = seed_rows(folder, P, run, naive)
        bad = sorted(i for i in rows if split.get(i) != "test")
        n = len(rows)
        ab = sum(t == b for t, b, _ in rows.values()) / n
        ao = sum(t == o for t, _, o in rows.values()) / n
        runs.append({"seed": int(run["seed"]), "run_id": run["run_id"], "n": n, "acc_base": rnd(100 * ab, 2),
                     "acc_ours": rnd(100 * ao, 2), "gain": rnd(100 * (ao - ab), 2), "raw_base": ab, "raw_ours": ao,
                     "non_test": len(bad), "included": not bad or "leaky" in naive, "rows": rows})
    used = [r for r in runs if r["included"]]
    leaky = [r["run_id"] for r in runs if r["non_test"]]
    mb = [100 * r["raw_base"] for r in used]
    mo = [100 * r["raw_ours"] for r in used]
    gain = statistics.mean(mo) - statistics.mean(mb)
    prim = next(r for r in runs if r["seed"] == int(P["primary_seed"]))
    rows = prim["rows"].values()
    b = sum(t == pb and t != po for t, pb, po in rows)
    c = sum(t != pb and t == po for t, pb, po in rows)
    p = mcnemar_chisq(b, c) if "chisq" in naive else mcnemar_exact(b, c)
    lo, hi = paired_ci(b, c, prim["n"])
    for r in runs:
        del r["rows"]
    return {"runs": runs, "n_seeds": len(used), "leaky": leaky[0] if leaky else "none",
            "mean_base": rnd(statistics.mean(mb), 2), "sd_base": rnd(statistics.stdev(mb), 2),
            "mean_ours": rnd(statistics.mean(mo), 2), "sd_ours": rnd(statistics.stdev(mo), 2),
            "gain": rnd(gain, 2), "gain_raw": gain, "n_primary": prim["n"], "b": b, "c": c, "p": rnd(p, 4),
            "p_raw": p, "ci_low": rnd(lo, 2), "ci_high": rnd(hi, 2), "ci_raw": [lo, hi],
            "decision": bool(p < float(P["alpha"])), "premise": bool(rnd(gain, 1) >= float(P["claim"]))}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['n_seeds']}: {facts['n_seeds']}", f"{L['leaky']}: {facts['leaky']}",
            f"{L['mean_base']}: {facts['mean_base']:.2f}", f"{L['sd_base']}: {facts['sd_base']:.2f}",
            f"{L['mean_ours']}: {facts['mean_ours']:.2f}", f"{L['sd_ours']}: {facts['sd_ours']:.2f}",
            f"{L['gain']}: {facts['gain']:.2f}", f"{L['n_primary']}: {facts['n_primary']}", f"{L['b']}: {facts['b']}",
            f"{L['c']}: {facts['c']}", f"{L['p']}: {facts['p']:.4f}", f"{L['ci_low']}: {facts['ci_low']:.2f}",
            f"{L['ci_high']}: {facts['ci_high']:.2f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, S = P["deliverables"], P["sheet_labels"]
    head = [S["seed"], S["run"], S["n"], S["base"], S["ours"], S["gain"], S["included"]]
    rows = [[r["seed"], r["run_id"], r["n"], f"{r['acc_base']:.2f}", f"{r['acc_ours']:.2f}", f"{r['gain']:.2f}",
             yes_no(r["included"])] for r in facts["runs"]]
    write_table(os.path.join(output_dir, D["table"]), head, rows)
    write_memo(os.path.join(output_dir, D["memo"]), ["# Response to the reviewer: gain over the tuned baseline", ""]
               + _memo_lines(P, facts) + [
        "", "Method: accuracy per seed on the test ids of the split manifest, each seed's re-sent rows added and the "
        "swapped export read the right way; a run whose predictions hold any id the manifest does not list as test "
        "is leaky and left out; mean and sample standard deviation over the remaining seeds. On the primary seed, "
        "b counts items the baseline gets right and ours wrong, c the reverse; the exact two-sided McNemar test on "
        "b + c discordant pairs, and a Wald 95 % interval of the paired accuracy difference."])
