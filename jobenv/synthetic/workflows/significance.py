"""Whether a new model's accuracy gain over a tuned baseline is significant, for a reviewer's challenge (computer
and information research scientists).

A classification benchmark's test split (600-1,400 items, 3-6 classes) is generated with a split manifest that also
lists 3-4 times as many train and validation ids. Five seeds were run; each seed's export holds, per test item, the
true label and the predictions of the tuned baseline and of the new model. Each item's joint outcome is a
multinomial draw: baseline accuracy 0.76-0.88 per task (seed noise +-0.6 points), a discordance rate of 0.08-0.16 and
a gain set from a target z of the paired difference (2.5-3.1 when the gain is to be significant, 0.5-1.4
otherwise; the primary seed gets the expected counts exactly, the other seeds draw around a gain +-0.6 points from
it). A wrong prediction is a uniform other class.
Planted: one run is leaky (4-10 % of its rows are ids the manifest lists as train, which it scores almost always
right, and its new-model accuracy is 2-4 points higher); one seed's export is truncated (3-8 % of its rows missing,
re-sent in a separate file); one other seed's export has its two prediction columns swapped (stated in the
predictions README). The paper's draft claims the mean gain: the true one (rounded to 0.1) when the premise is to
hold, else the one computed with the leaky run in. The superseded protocol (archived) used McNemar's chi-square.

Failure behaviour: ``draw`` raises DegenerateTask when the drawn task misses a targeted answer, p lies in
0.035-0.075 (near the 0.05 level), the interval and the test disagree, the recomputed gain is under 0.3 points, a
false claim sits within 0.25 points of it, or a planted trap moves no graded figure; ``recheck`` raises OSError,
KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import math
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, place_away, read_rows, write_files

__all__ = ["SIGNIFICANCE_BASELINE"]

_BENCH = ({"name": "support-ticket routing", "slug": "ticket_route", "classes": ["billing", "tech", "account",
                                                                                "shipping", "other"]},
          {"name": "clinical-note section tagging", "slug": "note_sections",
           "classes": ["history", "medication", "assessment", "plan"]},
          {"name": "product-review sentiment", "slug": "review_sent", "classes": ["neg", "neu", "pos"]},
          {"name": "scientific-claim stance", "slug": "claim_stance",
           "classes": ["support", "refute", "neutral", "unrelated", "mixed", "no_claim"]})
_LABELS = {
    "n_seeds": ("Seeds in the analysis", "Runs kept for the seed statistics", "Seeds used"),
    "leaky": ("Run excluded for leakage", "Leaky run excluded", "Run left out (train ids in its predictions)"),
    "mean_base": ("Baseline accuracy, mean over seeds (%)", "Tuned baseline mean accuracy (%)",
                  "Baseline mean accuracy (%)"),
    "sd_base": ("Baseline accuracy, SD over seeds (points)", "Tuned baseline SD (points)", "Baseline SD (points)"),
    "mean_ours": ("Our model accuracy, mean over seeds (%)", "New model mean accuracy (%)", "Our mean accuracy (%)"),
    "sd_ours": ("Our model accuracy, SD over seeds (points)", "New model SD (points)", "Our SD (points)"),
    "gain": ("Mean gain over the baseline (points)", "Mean accuracy gain (points)", "Gain, mean over seeds (points)"),
    "n_primary": ("Test items scored, primary seed", "Primary seed test items", "Items in the paired test"),
    "b": ("Discordant b (baseline right, ours wrong)", "b (baseline correct, ours wrong)",
          "Pairs where only the baseline is right (b)"),
    "c": ("Discordant c (ours right, baseline wrong)", "c (ours correct, baseline wrong)",
          "Pairs where only our model is right (c)"),
    "p": ("McNemar exact p (two-sided)", "Exact McNemar p-value", "McNemar p, exact two-sided"),
    "ci_low": ("95% CI of the paired difference, lower (points)", "Paired difference 95% CI low (points)",
               "Lower 95% limit of the gain (points)"),
    "ci_high": ("95% CI of the paired difference, upper (points)", "Paired difference 95% CI high (points)",
                "Upper 95% limit of the gain (points)"),
    "decision": ("Gain is significant at the protocol's alpha", "Significant improvement over the baseline",
                 "Reject no-difference on the primary seed"),
    "premise": ("The paper's claimed gain stands", "Draft table's gain confirmed", "Claimed gain holds"),
}
_SHEET = {"seed": ("seed", "random_seed"), "run": ("run_id", "run"), "n": ("n_test", "items_scored"),
          "base": ("acc_baseline_pct", "baseline_acc"), "ours": ("acc_ours_pct", "ours_acc"),
          "gain": ("gain_points", "delta_pts"), "included": ("included", "kept")}
_DIRS = {"pred": ("predictions", "eval_outputs", "results/predictions"), "data": ("data", "dataset"),
         "paper": ("paper", "manuscript"), "mail": ("mail", "correspondence"), "proto": ("protocol", "docs")}
SHORTCUTS = ("leaky", "swapped", "missing", "chisq")


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the folder without the solver's code: rows per run (re-sent rows added, the swapped
    export's columns exchanged), the manifest test set, the tallies, the exact binomial tail and the Wald interval."""
    folder = Path(folder)
    test = {r["id"].strip() for r in read_rows(folder / P["files"]["manifest"]) if r["split"].strip().lower() == "test"}
    per = []
    for run in P["runs"]:
        rows: dict[str, tuple[str, str, str]] = {}
        for rel in [run["file"]] + ([run["resent"]] if run.get("resent") else []):
            for r in read_rows(folder / rel):
                a, o = r["pred_base"].strip(), r["pred_ours"].strip()
                rows[r["id"].strip()] = (r["y_true"].strip(), *((o, a) if run["file"] == P.get("swapped") else (a, o)))
        n = len(rows)
        per.append((run, rows, n, sum(v[0] == v[1] for v in rows.values()) * 100 / n,
                    sum(v[0] == v[2] for v in rows.values()) * 100 / n, any(i not in test for i in rows)))
    kept = [x for x in per if not x[5]]
    mb, mo = [x[3] for x in kept], [x[4] for x in kept]
    prim = next(x for x in per if int(x[0]["seed"]) == int(P["primary_seed"]))
    b = sum(1 for t, x, y in prim[1].values() if t == x != y)
    c = sum(1 for t, x, y in prim[1].values() if t == y != x)
    d = b + c
    p = min(1.0, sum(math.comb(d, k) for k in range(min(b, c) + 1)) * 2 / 2**d)
    n = prim[2]
    half = 1.96 * math.sqrt(d - (c - b) ** 2 / n) / n * 100
    gain = sum(mo) / len(mo) - sum(mb) / len(mb)
    return {"runs": [{"seed": int(x[0]["seed"]), "run_id": x[0]["run_id"], "n": x[2], "acc_base": rnd(x[3], 2),
                      "acc_ours": rnd(x[4], 2), "included": not x[5]} for x in per],
            "n_seeds": len(kept), "leaky": next((x[0]["run_id"] for x in per if x[5]), "none"),
            "mean_base": rnd(sum(mb) / len(mb), 2), "sd_base": rnd(statistics.stdev(mb), 2),
            "mean_ours": rnd(sum(mo) / len(mo), 2), "sd_ours": rnd(statistics.stdev(mo), 2), "gain": rnd(gain, 2),
            "n_primary": n, "b": b, "c": c, "p": rnd(p, 4), "ci_low": rnd((c - b) / n * 100 - half, 2),
            "ci_high": rnd((c - b) / n * 100 + half, 2), "decision": p < float(P["alpha"]),
            "premise": rnd(gain, 1) >= float(P["claim"])}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _outcomes(rng: random.Random, n: int, acc: float, disc: float, gain: float, exact: bool = False) -> list[int]:
    """Joint outcome per item: 3 both right, 2 baseline only, 1 ours only, 0 both wrong; with ``exact`` the counts
    are the expected ones, shuffled (the primary seed's discordant pairs land where the target z puts them)."""
    p10, p01 = (disc - gain) / 2, (disc + gain) / 2
    if exact:
        b, c = round(p10 * n), round(p01 * n)
        both = round(acc * n) - b
        if min(b, c, both, n - both - b - c) <= 0:
            raise DegenerateTask("outcome counts out of range")
        out = [3] * both + [2] * b + [1] * c + [0] * (n - both - b - c)
        rng.shuffle(out)
        return out
    p11 = acc - p10
    if min(p10, p01, p11, 1 - p11 - p10 - p01) <= 0:
        raise DegenerateTask("outcome probabilities out of range")
    return rng.choices((3, 2, 1, 0), weights=(p11, p10, p01, 1 - p11 - p10 - p01), k=n)


def _simulate(rng: random.Random, targets: dict[str, bool]) -> dict[str, Any]:
    bench = rng.choice(_BENCH)
    cls = list(bench["classes"])
    n = rng.randint(600, 1400)
    first = rng.randint(10000, 60000)
    ids = [f"{str(bench['slug'])[:2].upper()}{first + k:06d}" for k in range(n * 5)]
    rng.shuffle(ids)
    test = sorted(ids[:n])
    rest = ids[n:n * rng.choice((4, 5))]
    n_val = len(rest) // 8
    manifest = [[i, "test"] for i in test] + [[i, "val"] for i in rest[:n_val]] + [[i, "train"] for i in rest[n_val:]]
    manifest.sort()
    truth = {i: rng.choice(cls) for i in test + rest}
    seeds = sorted(rng.sample((0, 1, 7, 13, 17, 21, 42, 123, 1234, 2024, 31337), 5))
    acc, disc = rng.uniform(0.76, 0.88), rng.uniform(0.08, 0.16)
    z = rng.uniform(2.5, 3.1) if targets["decision"] else rng.uniform(0.5, 1.4)
    g0 = z * math.sqrt(disc / n)
    leaky, trunc, swap = rng.sample(seeds, 3)
    primary = rng.choice([s for s in seeds if s != leaky])

    def wrong(t: str) -> str:
        return rng.choice([c for c in cls if c != t])

    runs: dict[int, list[list[Any]]] = {}
    for s in seeds:
        g = g0 if s == primary else g0 + rng.uniform(-0.006, 0.006)
        if s == leaky:
            g += rng.uniform(0.02, 0.04)
        outs = _outcomes(rng, n, acc + rng.uniform(-0.006, 0.006), disc, g, s == primary)
        rows = [[i, s, truth[i], truth[i] if o >= 2 else wrong(truth[i]), truth[i] if o in (1, 3) else wrong(truth[i])]
                for i, o in zip(test, outs, strict=True)]
        if s == leaky:
            for k in rng.sample(range(n), round(n * rng.uniform(0.04, 0.10))):
                j = rng.choice(rest[n_val:])
                rows[k] = [j, s, truth[j], truth[j] if rng.random() < acc + 0.05 else wrong(truth[j]),
                           truth[j] if rng.random() < 0.99 else wrong(truth[j])]
        runs[s] = rows
    return {"bench": bench, "n": n, "manifest": manifest, "seeds": seeds, "runs": runs, "leaky": leaky,
            "trunc": trunc, "swap": swap, "primary": primary}


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.significance import analyse

    prof = profession(occupation)
    t = _simulate(rng, targets)
    dirs = pick_labels(rng, _DIRS)
    bench, pred = t["bench"], dirs["pred"]
    org = rng.choice(("Halden Applied AI Lab", "Northwind Research", "Corvid ML Group", "Ashgrove Labs"))
    run_ids = {s: f"run-{rng.randint(1000, 9999)}{chr(97 + k)}" for k, s in enumerate(t["seeds"])}
    files = {s: f"{pred}/{bench['slug']}_seed{s}.csv" for s in t["seeds"]}
    resent = f"{pred}/{bench['slug']}_seed{t['trunc']}_resent_rows.csv"
    P: dict[str, Any] = {
        "files": {"manifest": f"{dirs['data']}/{bench['slug']}_split_manifest.csv", "runs": f"{pred}/runs.csv"},
        "runs": [{"seed": s, "run_id": run_ids[s], "file": files[s], "resent": resent if s == t["trunc"] else ""}
                 for s in t["seeds"]],
        "swapped": files[t["swap"]], "primary_seed": t["primary"], "alpha": 0.05, "claim": 0.0,
        "dirs": dirs, "sheet_labels": pick_labels(rng, _SHEET), "labels": pick_labels(rng, _LABELS),
        "deliverables": {"memo": rng.choice(("rebuttal_note.md", "reviewer_response.md", "significance_note.md")),
                         "table": rng.choice(("seed_summary.csv", "per_seed_accuracy.csv", "runs_summary.csv"))}}
    head = ["id", "seed", "y_true", "pred_base", "pred_ours"]
    cut = set(rng.sample(range(t["n"]), round(t["n"] * rng.uniform(0.03, 0.08))))
    trunc_rows = t["runs"][t["trunc"]]
    data: dict[str, Any] = {P["files"]["manifest"]: lambda p: write_csv(p, ["id", "split"], t["manifest"]),
                            resent: lambda p: write_csv(p, head, [r for k, r in enumerate(trunc_rows) if k in cut])}
    for s in t["seeds"]:
        rows = [r for k, r in enumerate(t["runs"][s]) if not (s == t["trunc"] and k in cut)]
        if s == t["swap"]:
            rows = [[a, b, c, e, d] for a, b, c, d, e in rows]
        data[files[s]] = (lambda rr: lambda p: write_csv(p, head, rr))(rows)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), data)
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
    inflated = singles["leaky"]["gain_raw"]
    P["claim"] = rnd(truth["gain_raw"], 1) if targets["premise"] else rnd(inflated, 1)
    truth["premise"] = rnd(truth["gain_raw"], 1) >= P["claim"]
    if (truth["decision"], truth["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the drawn task misses a targeted answer")
    if 0.035 < truth["p_raw"] < 0.075 or (truth["ci_raw"][0] > 0) != truth["decision"]:
        raise DegenerateTask("p sits near alpha or the interval disagrees with the test")
    if truth["gain_raw"] < 0.3 or not targets["premise"] and P["claim"] - truth["gain_raw"] < 0.25:
        raise DegenerateTask("the claim sits too near the recomputed gain")
    keys = ("mean_base", "mean_ours", "gain", "b", "c", "p", "n_seeds", "sd_ours", "sd_base")
    where = {"leaky": ("data", "a run whose predictions hold training ids of the split manifest is excluded"),
             "swapped": ("memo", "the export noted in the README has its two prediction columns swapped"),
             "missing": ("email", "the truncated seed export's missing rows were re-sent in a separate file"),
             "chisq": ("memo", "the current protocol uses the exact McNemar test; the chi-square is superseded")}
    def moved(nf: Facts, x: str) -> bool:
        if x in ("b", "c", "n_seeds"):  # counts are graded exactly
            return bool(nf[x] != truth[x])
        return place_away(float(nf[x]), [float(truth[x])], 4 if x == "p" else 2)

    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k} for k, nf in singles.items()
             if any(moved(nf, x) for x in keys) or any(
                 a["n"] != b["n"] or place_away(a["acc_ours"], [b["acc_ours"]], 2) for a, b in zip(
                     nf["runs"], truth["runs"], strict=True) if b["included"])]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    writers, roles = _workspace(rng, P, t, org, data, run_ids)
    prompt = _prompt(rng, P, t, prof, org, writers)
    return Draft(subject=f"Significance of the gain on {bench['name']}", instructions=prompt, files=writers,
                 roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="600-1,400 test items, 5 seeds; joint outcome multinomial (baseline accuracy 0.76-0.88, "
                               "discordance 0.08-0.16, gain from a target z of 2.5-3.1 or 0.5-1.4); leaky run with "
                               "4-10 % train ids and +2-4 points; 3-8 % rows missing from one seed, re-sent; one "
                               "export with swapped prediction columns")


def _protocol(P: dict[str, Any]) -> list[str]:
    return [
        "Evaluation protocol v2 - comparing a model with a baseline (current; replaces v1)",
        "- Test set: the ids the split manifest marks test. A run whose prediction file contains any id the manifest "
        "marks train or val is leaky: it is excluded from every statistic and reported by run id.",
        "- A seed's predictions are its export plus any rows re-sent for that export; each id counts once. Accuracy "
        "= correct predictions / rows scored, in percent.",
        "- Across seeds: the mean and the sample standard deviation (n - 1) of each model's accuracy over the runs "
        "kept; the gain is mean(ours) - mean(baseline) in points.",
        f"- Paired test on the primary seed ({P['primary_seed']}): b = items the baseline predicts right and the new "
        "model wrong, c = the reverse. McNemar's exact test: p = min(1, 2 x P(X <= min(b, c))), X ~ Binomial(b + c, "
        f"1/2). The gain is significant when p < {P['alpha']}.",
        "- Interval: 95 % Wald interval of the paired difference d = (c - b) / n on the primary seed, "
        "se = sqrt(b + c - (c - b)^2 / n) / n, d +- 1.96 se, in points. (It replaces the bootstrap interval of v1, "
        "which did not reproduce across implementations.)",
        "- A figure in a draft table stands when the recomputed figure, rounded to one decimal, is at least the "
        "figure claimed; otherwise the table is corrected.",
        "- Rounding: half up; accuracies, SDs, gains and limits to 2 decimals; p to 4 decimals; counts whole."]


def _workspace(rng: random.Random, P: dict[str, Any], t: dict[str, Any], org: str, data: dict[str, Any],
               run_ids: dict[int, str]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    d, bench = P["dirs"], t["bench"]
    pred, name = d["pred"], bench["name"]
    swapped = P["swapped"].rsplit("/", 1)[1]
    runs_rows = [[run_ids[s], s, P["runs"][k]["file"].rsplit("/", 1)[1], f"{rng.getrandbits(28):07x}",
                  f"{rng.uniform(3, 9):.1f}", "finished"] for k, s in enumerate(t["seeds"])]
    add(P["files"]["runs"], "reference", lambda p: write_csv(
        p, ["run_id", "seed", "prediction_file", "git_commit", "gpu_hours", "status"], runs_rows))
    add(f"{pred}/README.md", "policy", lambda p: write_text(p, (
        f"# Prediction exports, {name}\n\nOne file per seed: id, seed, y_true, pred_base (tuned logistic-regression "
        f"baseline), pred_ours.\n\nKnown issue: {swapped} was written by the old export script, which put the new "
        "model's predictions under pred_base and the baseline's under pred_ours. Read its two prediction columns "
        "the other way round; the file is kept as exported.\n")))
    add(f"{d['proto']}/evaluation_protocol_v2.docx", "policy",
        lambda p: write_docx(p, f"{org} - evaluation protocol v2", _protocol(P)))
    add(f"{d['proto']}/archive/evaluation_protocol_v1.pdf", "stale", lambda p: write_pdf(
        p, "Evaluation protocol v1 (superseded by v2)", [
            "Paired test: McNemar's chi-square, (b - c)^2 / (b + c), 1 df.",
            "Interval: percentile bootstrap, 1,000 resamples.", "Report every run that finished.",
            "Superseded by v2; kept for the record."]))
    claim, gain_b = P["claim"], rng.uniform(80, 88)
    add(f"{d['paper']}/draft_table2.md", "conflict", lambda p: write_text(p, (
        f"Table 2 (draft). Accuracy on the {name} test split, mean +- sd over 5 seeds.\n\n| Model | Accuracy (%) |\n"
        f"|---|---|\n| Tuned LR baseline | {gain_b:.1f} +- {rng.uniform(0.3, 0.8):.1f} |\n| Ours | "
        f"{gain_b + claim:.1f} +- {rng.uniform(0.3, 0.9):.1f} |\n\nText: \"our model improves on the tuned baseline "
        f"by +{claim:.1f} points (significant).\"\n")))
    sent = f"{rng.choice((2025, 2026))}-{rng.randint(1, 12):02d}-{rng.randint(10, 28):02d}"
    rev = person(rng)
    add(f"{d['mail']}/{sent}_reviewer2.txt", "email", lambda p: write_text(p, email_text(
        sender=f"Program committee (Reviewer 2, {rev.split()[0][0]}.)", to="authors", date=sent,
        subject="Reviewer 2 - baseline comparison", body=f"The claimed +{claim:.1f} points over the tuned baseline "
        "may be within seed noise. Please report per-seed accuracies, a paired significance test and an interval "
        "for the difference, and confirm that no run saw test items in training.")))
    trunc = next(r for r in P["runs"] if r["resent"])
    add(f"{d['mail']}/{sent}_export_rows.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, ML Platform", to="research team", date=sent, subject="Missing rows in one export",
        body=f"The export for seed {trunc['seed']} ({trunc['file'].rsplit('/', 1)[1]}) was cut short by a disk "
        f"quota. The missing rows are in {trunc['resent'].rsplit('/', 1)[1]}; use both files together.")))
    add(f"{d['mail']}/{sent}_compute_quota.txt", "distractor", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Infrastructure", to="research team", date=sent, subject="Cluster quota next month",
        body=f"Your group's quota next month is {rng.randint(2, 8) * 500} GPU-hours.")))
    add(f"{d['proto']}/meetings/{sent}_sync.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{name} paper", people=[person(rng) for _ in range(3)], date=sent)))
    add(f"{pred}/baseline_tuning_grid.xlsx", "reference", lambda p: write_xlsx(p, [(
        "Grid", ["C", "penalty", "val_acc"], [[c, pen, round(rng.uniform(0.75, 0.88), 4)]
                                              for c in (0.01, 0.1, 1, 10) for pen in ("l1", "l2")])]))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], t: dict[str, Any], prof: Any, org: str,
            writers: dict[str, Any]) -> str:
    L, D, S = P["labels"], P["deliverables"], P["sheet_labels"]
    k2 = "2 decimal places"
    memo_labels = [(L["n_seeds"], "whole number"), (L["leaky"], "run id, or none"), (L["mean_base"], k2),
                   (L["sd_base"], k2), (L["mean_ours"], k2), (L["sd_ours"], k2), (L["gain"], k2),
                   (L["n_primary"], "whole number"), (L["b"], "whole number"), (L["c"], "whole number"),
                   (L["p"], "4 decimal places"), (L["ci_low"], k2), (L["ci_high"], k2), (L["decision"], "yes or no"),
                   (L["premise"], f"yes or no, the +{P['claim']:.1f} points")]
    return instructions(
        rng, prof=prof, requester=person(rng), role="Research Lead", org=org,
        subject=f"Reviewer 2 on our {t['bench']['name']} gain",
        purpose=rng.choice(("a reviewer challenged our baseline comparison: is our gain over the tuned LR baseline "
                            "significant, and does the number in the draft table hold?",
                            "I need a rebuttal note on whether our improvement over the tuned baseline is real or "
                            "seed noise, with the paired test the reviewer asked for.")),
        about="the per-seed prediction exports, the runs list, the split manifest, the draft table and the review",
        belief=f"The draft says +{P['claim']:.1f} points; I'd like to know whether the record bears that out.",
        table={"file": D["table"], "headers": [S[k] for k in ("seed", "run", "n", "base", "ours", "gain", "included")],
               "unit": "run (all five, accuracies in percent to 2 decimals, included yes or no)"},
        memo_file=D["memo"], memo_labels=memo_labels, extra_deliverables=(),
        policy=f"the evaluation protocol in {P['dirs']['proto']}/", files=sorted(writers))


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck

    D, L, S = P["deliverables"], P["labels"], P["sheet_labels"]
    memo, table = D["memo"], D["table"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def num(key: str, decimals: int) -> tuple[str, Any]:
        return f"{memo}: {L[key]} = {facts[key]:.{decimals}f}", fld_num(memo, L[key], facts[key], decimals)

    def count(key: str) -> tuple[str, Any]:
        return f"{memo}: {L[key]} = {facts[key]}", FieldCheck(file=memo, label=L[key], number=float(facts[key]),
                                                               tolerance=0.0)

    def flag(key: str) -> tuple[str, Any]:
        return f"{memo}: {L[key]}: {yes(facts[key])}", fld(memo, L[key], yes(facts[key]), ["yes", "no"])

    def cell(r: dict[str, Any], col: str, value: Any, tolerance: float) -> tuple[str, Any]:
        shown = value if isinstance(value, str) else f"{value:.0f}" if tolerance == 0 else f"{value:.2f}"
        return (f"{table}: seed {r['seed']} {S[col]} = {shown}",
                CellCheck(file=table, match={S["run"]: r["run_id"]}, column=S[col], value=value, tolerance=tolerance))

    kept = [r for r in facts["runs"] if r["included"]]
    out = [
        rubric("Scores each kept seed on its full test rows (re-sent rows added, swapped columns read right)", 10, [
            *[cell(r, "n", float(r["n"]), 0.0) for r in kept], *[cell(r, "base", r["acc_base"], tol(2)) for r in kept],
            *[cell(r, "ours", r["acc_ours"], tol(2)) for r in kept]]),
        rubric("Excludes the leaky run", 8, [
            (f"{memo}: {L['leaky']}: {facts['leaky']}", fld(memo, L["leaky"], facts["leaky"])), count("n_seeds"),
            *[cell(r, "included", "no", 0.0) for r in facts["runs"] if not r["included"]]]),
        rubric("Reports mean and sample SD over the kept seeds, and the mean gain", 10, [
            num("mean_base", 2), num("sd_base", 2), num("mean_ours", 2), num("sd_ours", 2), num("gain", 2)]),
        rubric("Tallies the discordant pairs on the primary seed", 8, [count("n_primary"), count("b"), count("c")]),
        rubric("Runs McNemar's exact test and the paired interval", 10, [num("p", 4), num("ci_low", 2),
                                                                        num("ci_high", 2)]),
        rubric("Decides whether the gain is significant", 8, [flag("decision")]),
        rubric("Answers whether the draft table's gain stands", 8, [flag("premise"), num("gain", 2)]),
    ]
    if judgement:
        out.append(rubric("Writes a rebuttal the reviewer can check", 6, [
            ("Says which run was excluded for leakage and why (training ids by the split manifest)", llm("content")),
            ("States that the exact McNemar test and the paired interval are on the primary seed", llm("explanation")),
            ("Corrects the draft table where the record does not support it, without overclaiming", llm("tone"))]))
    return out


SIGNIFICANCE_BASELINE = Workflow(
    key="significance_vs_baseline", family="model_evaluation",
    method="per-seed accuracy on the manifest's test ids with leaky runs excluded, mean and sample SD over seeds, "
           "McNemar's exact test on the primary seed's discordant pairs, Wald 95 % interval of the paired difference",
    professions=("computer_and_information_research_scientists",), solver="significance", shortcuts=SHORTCUTS,
    draw=draw, recheck=recheck, rubrics=rubrics, data="generated prediction exports (stated distributions)")
