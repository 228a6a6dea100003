"""Inter-annotator agreement on a labelling pilot before more labelling is funded, with the ambiguous guideline
label and majority adjudication (computer and information research scientists).

One pilot of a labelling project (support-ticket intent, claim stance or toxicity; 4-5 labels under the current
guideline v2) is generated: 240-420 items, each labelled by the same three annotators. True labels follow a
per-task prior (weights uniform 0.5-1.5, normalised); each annotator's labels are Dawid-Skene draws: correct with
a per-annotator accuracy (0.93-0.98 when the pilot is to clear the alpha threshold, 0.72-0.84 otherwise; the
third annotator 3-8 points below the others), errors going to the planted ambiguous pair's partner with
probability 0.75 when the true label is in that pair (whose accuracy is 8 points lower), otherwise uniformly to
the other labels. Labels submitted before guideline v2's effective date (about 35-60 % of the pilot) use the v1
vocabulary, in which the v2 merged label was two labels that annotators split almost at random (30 % flip from the
item's v1 subtype). 2-5 % of (item, annotator) slots are skipped (a row with a blank label), 2-4 % are
re-labelled (an earlier row with another label, superseded by a later one). A gold subset of 40-60 items carries
the true v2 label. The requester names the label pair they suspect is ambiguous; it is the planted pair when the
premise is to hold.

Failure behaviour: ``draw`` raises DegenerateTask when the drawn pilot misses a targeted answer, alpha sits within
0.015 of the threshold, the most-confused pair leads the next by fewer than 3 disagreements, the two weakest
annotator pairs are within 0.005 kappa, or a planted trap moves no graded figure; ``recheck`` raises OSError,
KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_list, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, read_rows, write_files

__all__ = ["ANNOTATOR_AGREEMENT"]

# each project: the v2 labels, the v2 label that merged two v1 labels, and those two v1 labels
_PROJECTS: tuple[dict[str, Any], ...] = (
    {"name": "support-ticket intent", "slug": "ticket_intent", "unit": "ticket",
     "labels": ["billing_dispute", "technical_issue", "account_access", "cancellation", "feature_request"],
     "merged": "billing_dispute", "v1": ["refund_request", "charge_dispute"]},
    {"name": "claim stance", "slug": "claim_stance", "unit": "claim-evidence pair",
     "labels": ["supports", "refutes", "not_enough_info", "off_topic"],
     "merged": "supports", "v1": ["supports", "partially_supports"]},
    {"name": "comment toxicity", "slug": "toxicity", "unit": "comment",
     "labels": ["not_toxic", "harassment", "threat", "profanity", "identity_attack"],
     "merged": "harassment", "v1": ["insult", "harassment"]},
)
_LABELS = {
    "cohen": ("Cohen's kappa", "Pairwise Cohen's kappa", "Cohen kappa"),
    "complete": ("Items labelled by all three", "Items with three labels", "Fully labelled items"),
    "fleiss": ("Fleiss' kappa", "Fleiss kappa (three annotators)", "Fleiss' kappa, all annotators"),
    "alpha": ("Krippendorff's alpha (nominal)", "Krippendorff alpha", "Krippendorff's alpha"),
    "weakest": ("Weakest annotator pair", "Annotator pair with the lowest kappa", "Lowest-agreement pair"),
    "confused": ("Most-confused label pair", "Most often confused labels", "Ambiguous label pair"),
    "confused_n": ("Disagreements on that pair", "Disagreements between those two labels",
                   "Pairwise disagreements on the most-confused pair"),
    "suspect_n": ("Disagreements on the suspected pair", "Disagreements between the suspected labels",
                  "Pairwise disagreements on the pair you suspected"),
    "todo": ("Items left to adjudicate", "Items needing adjudication", "Items for the adjudicator"),
    "decision": ("Agreement clears the bar to scale labelling", "Pilot meets the alpha threshold",
                 "Fund the next labelling batch on current guidelines"),
    "premise": ("The suspected pair is the most confused", "Suspected label pair confirmed as most confused",
                "Ambiguity is where it was suspected"),
}
_SHEET = {"item": ("item_id", "item"), "gold": ("gold_label", "gold"), "final": ("adjudicated_label", "final_label"),
          "adjudicate": ("needs_adjudication", "to_adjudicate"), "label": ("label", "category"),
          "count": ("items", "n_items")}
_EXPORT = ({"id": "annotation_id", "item": "item_id", "annotator": "annotator_id", "label": "label",
            "time": "submitted_at", "status": "status"},
           {"id": "id", "item": "task_id", "annotator": "worker", "label": "choice", "time": "created_utc",
            "status": "state"})
_DIRS = {"export": ("exports", "labelling_tool", "annotation_platform"), "guide": ("guidelines", "docs/guidelines"),
         "eval": ("eval", "evaluation", "quality"), "mail": ("mail", "correspondence", "email")}
SHORTCUTS = ("unmapped", "relabels", "missing", "gold")


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: latest label per slot by timestamp, v1
    labels mapped, then the kappas from agreement tables, alpha from the coincidence matrix, majority by hand."""
    folder, C, who = Path(folder), P["columns"], list(P["annotators"])
    latest: dict[tuple[str, str], tuple[str, str]] = {}
    for r in read_rows(folder / P["files"]["export"]):
        key, stamp = (r[C["item"]], r[C["annotator"]]), r[C["time"]]
        if key not in latest or stamp >= latest[key][0]:
            latest[key] = (stamp, r[C["label"]].strip().lower())
    lab: dict[str, dict[str, str]] = {}
    for (item, w), (_, v) in latest.items():
        lab.setdefault(item, {})
        if v:
            lab[item][w] = P["merge"].get(v, v)
    cats = sorted({v for d in lab.values() for v in d.values()})
    kap: dict[tuple[str, str], float] = {}
    dis: dict[tuple[str, str], int] = {}
    for a, b in itertools.combinations(who, 2):
        tab: dict[tuple[str, str], int] = {}
        for d in lab.values():
            if a in d and b in d:
                tab[(d[a], d[b])] = tab.get((d[a], d[b]), 0) + 1
                if d[a] != d[b]:
                    k2 = (min(d[a], d[b]), max(d[a], d[b]))
                    dis[k2] = dis.get(k2, 0) + 1
        n = sum(tab.values())
        po = sum(tab.get((c, c), 0) for c in cats) / n
        pe = sum(sum(v for (x, _), v in tab.items() if x == c) * sum(v for (_, y), v in tab.items() if y == c)
                 for c in cats) / n / n
        kap[(a, b)] = (po - pe) / (1 - pe)
    full = [[d[w] for w in who] for d in lab.values() if len(d) == 3]
    pi = sum((sum(u.count(c) ** 2 for c in cats) - 3) / 6 for u in full) / len(full)
    pe = sum((sum(u.count(c) for u in full) / (3 * len(full))) ** 2 for c in cats)
    fleiss = (pi - pe) / (1 - pe)
    units = [list(d.values()) for d in lab.values() if len(d) >= 2]
    n_c = {c: sum(u.count(c) for u in units) for c in cats}
    n = sum(n_c.values())
    do = sum((len(u) ** 2 - sum(u.count(c) ** 2 for c in cats)) / (len(u) - 1) for u in units)
    alpha = 1 - (n - 1) * do / (n * n - sum(v * v for v in n_c.values()))
    gold = {r["item_id"]: P["merge"].get(r["gold_label"].lower(), r["gold_label"].lower())
            for r in read_rows(folder / P["files"]["gold"])}
    final: dict[str, str] = {}
    for item, d in lab.items():
        votes = list(d.values())
        top = [c for c in cats if votes.count(c) >= 2]
        final[item] = gold.get(item) or (top[0] if top else "")
    order = sorted(dis.items(), key=lambda kv: (-kv[1], kv[0]))
    weak = min(kap, key=lambda k: kap[k])
    sus = tuple(sorted(P["suspect"]))
    return {"pairs": [{"a": a, "b": b, "kappa": rnd(v, 3)} for (a, b), v in kap.items()], "n_complete": len(full),
            "fleiss": rnd(fleiss, 3), "alpha": rnd(alpha, 3), "weakest": list(weak), "confused": list(order[0][0]),
            "confused_n": order[0][1], "suspect_n": dis.get(sus, 0),  # type: ignore[call-overload]
            "n_todo": sum(not v for v in final.values()),
            "counts": {c: sum(v == c for v in final.values()) for c in P["categories"]},
            "decision": alpha >= float(P["threshold"]), "premise": order[0][0] == sus}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _pilot(rng: random.Random, proj: dict[str, Any], targets: dict[str, bool]) -> dict[str, Any]:
    """The pilot's items, true labels, the annotators' export rows (v1 vocabulary before the v2 date, skips,
    re-labels) and the gold subset."""
    cats = list(proj["labels"])
    weights = [rng.uniform(0.5, 1.5) for _ in cats]
    pairs = [tuple(sorted(p)) for p in itertools.combinations(cats, 2)]
    planted = rng.choice(pairs)
    suspect = planted if targets["premise"] else rng.choice([p for p in pairs if p != planted])
    lo, hi = (0.93, 0.98) if targets["decision"] else (0.72, 0.84)
    acc = [rng.uniform(lo, hi), rng.uniform(lo, hi)]
    acc.append(min(acc) - rng.uniform(0.03, 0.08))
    who = sorted(f"ANN-{k:04d}" for k in rng.sample(range(100, 9999), 3))
    rng.shuffle(who)
    start = dt.datetime(rng.choice((2025, 2026)), rng.randint(1, 10), rng.randint(1, 20), 9, 0)
    days = rng.randint(15, 25)
    v2_day = (start + dt.timedelta(days=round(days * rng.uniform(0.35, 0.6)))).date()
    n_items = rng.randint(240, 420)
    first = rng.randint(10000, 90000)
    items = [f"{proj['slug'][:3].upper()}-{first + k}" for k in range(n_items)]
    truth = {i: rng.choices(cats, weights=weights)[0] for i in items}
    subtype = {i: rng.randrange(2) for i in items}
    rows: list[list[Any]] = []

    def stamp() -> dt.datetime:
        return start + dt.timedelta(days=rng.randint(0, days - 1), hours=rng.randint(0, 8), minutes=rng.randint(0, 59),
                                    seconds=rng.randint(0, 59))

    def word(label: str, when: dt.datetime, item: str) -> str:
        if label != proj["merged"] or when.date() >= v2_day:
            return label
        k = subtype[item] if rng.random() >= 0.3 else 1 - subtype[item]
        return str(proj["v1"][k])

    def emit(t: str, a: float) -> str:
        if t in planted:
            a -= 0.08
        if rng.random() < a:
            return t
        if t in planted and rng.random() < 0.75:
            return planted[1] if t == planted[0] else planted[0]
        return rng.choice([c for c in cats if c != t])

    skip_p, relabel_p = rng.uniform(0.02, 0.05), rng.uniform(0.02, 0.04)
    for i in items:
        for w, a in zip(who, acc, strict=True):
            when = stamp()
            if rng.random() < skip_p:
                rows.append([i, w, "", when, "skipped"])
                continue
            label = emit(truth[i], a)
            if rng.random() < relabel_p:
                wrong = rng.choice([c for c in cats if c != label])
                later = when + dt.timedelta(days=rng.randint(1, 6), minutes=rng.randint(1, 300))
                rows.append([i, w, word(wrong, when, i), when, "labelled"])
                rows.append([i, w, word(label, later, i), later, "relabelled"])
                continue
            rows.append([i, w, word(label, when, i), when, "labelled"])
    rng.shuffle(rows)
    rows.sort(key=lambda r: r[3])
    gold = sorted(rng.sample(items, rng.randint(40, 60)))
    return {"items": items, "truth": truth, "rows": rows, "who": who, "start": start, "days": days, "v2": v2_day,
            "gold": [[g, truth[g], rng.choice(("lead annotator", "guideline author"))] for g in gold],
            "planted": list(planted), "suspect": list(suspect), "acc": acc}


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.agreement import analyse

    # the trigger is the labelling budget, whatever else the profession's requests are about
    prof = dataclasses.replace(profession(occupation), occasions=(
        "the vendor's quote for the next labelling batch expires on Friday",
        "the steering committee decides on funding more labelling this week"))
    proj = dict(rng.choice(_PROJECTS))
    t = _pilot(rng, proj, targets)
    dirs = pick_labels(rng, _DIRS)
    cols = _EXPORT[rng.randrange(2)]
    org = rng.choice(("Halden Applied AI Lab", "Northwind Research", "Corvid Data Platform", "Ashgrove Labs"))
    stamp = t["start"].strftime("%Y%m%d")
    merge = {old: proj["merged"] for old in proj["v1"]}
    P: dict[str, Any] = {
        "files": {"export": f"{dirs['export']}/{proj['slug']}_pilot_{stamp}_annotations.csv",
                  "gold": f"{dirs['eval']}/gold_{len(t['gold'])}.csv"},
        "columns": cols, "annotators": list(t["who"]), "categories": list(proj["labels"]), "merge": merge,
        "threshold": rng.choice((0.667, 0.7)), "suspect": list(t["suspect"]), "labels": {},
        "guide_dir": dirs["guide"], "mail_dir": dirs["mail"], "eval_dir": dirs["eval"],
        "sheet_labels": pick_labels(rng, _SHEET),
        "slide_titles": [f"{proj['name'].capitalize()} pilot: annotator agreement",
                         f"{proj['name'].capitalize()} pilot: ambiguous labels and adjudication"],
        "deliverables": {"workbook": rng.choice(("agreement_pilot.xlsx", "adjudicated_labels.xlsx", "iaa_pilot.xlsx")),
                         "slides": rng.choice(("agreement_slides.pptx", "pilot_iaa.pptx")),
                         "memo": rng.choice(("agreement_memo.docx", "iaa_summary.md", "note_to_staff_scientist.docx"))}}
    data = _data(P, t, cols)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        root = Path(tmp)
        write_files(root, data)
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in SHORTCUTS}
    if (truth["decision"], truth["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the drawn pilot misses a targeted answer")
    if abs(truth["alpha_raw"] - P["threshold"]) < 0.015:
        raise DegenerateTask("alpha sits near the threshold")
    conf = [v for _, _, v in truth["confusion"]] + [0]
    if conf[0] - conf[1] < 3:
        raise DegenerateTask("the most-confused pair leads the next by fewer than 3 disagreements")
    ks = sorted(p["raw"] for p in truth["pairs"])
    if ks[1] - ks[0] < 0.005:
        raise DegenerateTask("the two weakest annotator pairs are too close")
    keys = ("fleiss", "alpha", "n_complete", "n_todo", "confused", "counts")
    where = {"unmapped": ("memo", "labels given under the superseded v1 guideline must be mapped to the v2 labels"),
             "relabels": ("data", "a re-labelled item keeps the annotator's latest label"),
             "missing": ("data", "a skipped item is a missing value, not a category"),
             "gold": ("data", "gold items take the gold label instead of the majority")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k} for k, nf in singles.items()
             if any(nf[x] != truth[x] for x in keys) or [p["kappa"] for p in nf["pairs"]] != [
                 p["kappa"] for p in truth["pairs"]]]
    if len(traps) < len(SHORTCUTS) or singles["gold"]["n_todo"] == truth["n_todo"] and \
            singles["gold"]["counts"] == truth["counts"]:
        raise DegenerateTask("a planted trap moves no graded figure")
    P["labels"] = pick_labels(rng, _LABELS)
    writers, roles = _workspace(rng, P, t, proj, org, data)
    prompt = _prompt(rng, P, t, proj, prof, org, writers)
    return Draft(subject=f"Annotator agreement on the {proj['name']} pilot", instructions=prompt, files=writers,
                 roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="240-420 items x 3 annotators; Dawid-Skene labels (accuracy 0.93-0.98 or 0.72-0.84, "
                               "third annotator 3-8 pts lower, planted ambiguous pair 8 pts lower with 75 % of its "
                               "errors to the partner); v1 vocabulary before the v2 date (35-60 % of the pilot); "
                               "skips 2-5 %; re-labels 2-4 %; gold subset 40-60 items")


def _data(P: dict[str, Any], t: dict[str, Any], cols: dict[str, str]) -> dict[str, Any]:
    F = P["files"]
    head = [cols[k] for k in ("id", "item", "annotator", "label", "time", "status")]
    base = int(t["start"].strftime("%j")) * 1000
    rows = [[base + k, r[0], r[1], r[2], r[3].strftime("%Y-%m-%dT%H:%M:%SZ"), r[4]] for k, r in enumerate(t["rows"])]
    return {F["export"]: lambda p: write_csv(p, head, rows),
            F["gold"]: lambda p: write_csv(p, ["item_id", "gold_label", "adjudicated_by"], t["gold"])}


def _procedure(P: dict[str, Any]) -> list[str]:
    who = ", ".join(P["annotators"])
    return [
        "Data quality team - agreement and adjudication procedure for labelling pilots (current)",
        f"- Annotators in scope: {who}. Every statistic uses the labels as they stand under the current guideline "
        "(v2): a label given under an earlier guideline version is first mapped to its v2 label using the mapping "
        "table in the v2 guideline.",
        "- One label per annotator per item: when the export holds more than one row for the same annotator and item "
        "(a re-label), the row with the latest submission time stands and earlier rows are ignored.",
        "- A skipped item (status skipped, blank label) is a missing value for that annotator; it is not a category.",
        "- Cohen's kappa for each pair of annotators, on the items both of them labelled: (po - pe) / (1 - pe), pe "
        "from each annotator's own label proportions on those items.",
        "- Fleiss' kappa on the items labelled by all three annotators.",
        "- Krippendorff's alpha, nominal metric, on every item with at least two labels (items with one label are "
        "not pairable): alpha = 1 - Do / De from the coincidence matrix.",
        "- Weakest pair: the annotator pair with the lowest Cohen's kappa.",
        "- Most-confused label pair: for every item and every pair of annotators who both labelled it with different "
        "labels, count one disagreement for that unordered pair of labels; the pair with the most disagreements is "
        "the most confused (the guideline text to revisit; a tie goes to the pair whose labels sort first "
        "alphabetically). Report its count.",
        "- Adjudicated label: an item in the gold subset takes its gold label; otherwise the label given by at "
        "least two annotators (majority); an item with no such label goes to the adjudicator and has no adjudicated "
        "label yet.",
        f"- Scale-up rule: more labelling on the current guideline is funded only when Krippendorff's alpha is at "
        f"least {P['threshold']}; below that the guideline is revised and re-piloted first.",
        "- Rounding: half up; kappa and alpha to 3 decimal places; counts are whole numbers.",
        "- Data handling: item text stays in the labelling tool; reports carry ids, labels and counts only."]


def _workspace(rng: random.Random, P: dict[str, Any], t: dict[str, Any], proj: dict[str, Any], org: str,
               data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    g, ev, mail = P["guide_dir"], P["eval_dir"], P["mail_dir"]
    exp = P["files"]["export"].rsplit("/", 1)[0]
    v2, name = t["v2"].isoformat(), proj["name"]
    old = ", ".join(proj["v1"])
    v1_labels = [c for c in proj["labels"] if c != proj["merged"]] + list(proj["v1"])
    add(f"{g}/{proj['slug']}_guideline_v2.docx", "policy", lambda p: write_docx(p, f"{name.capitalize()} labelling "
        f"guideline v2 (effective {v2})", [
            f"This version replaces v1 for every label submitted on or after {v2}.",
            f"Labels: {', '.join(proj['labels'])}.",
            f"Change from v1: the v1 labels {old} are merged into {proj['merged']}; annotators could not tell them "
            "apart reliably.",
            "Mapping table for labels given under v1 (use it before comparing or pooling labels):",
            *[f"- {o} -> {proj['merged']}" for o in proj["v1"] if o != proj["merged"]],
            *[f"- {c} -> {c}" for c in proj["labels"] if c != proj["merged"]],
            "Skip an item only when it cannot be read; a skip is recorded with a blank label."]))
    add(f"{g}/archive/{proj['slug']}_guideline_v1.pdf", "stale", lambda p: write_pdf(
        p, f"{name.capitalize()} labelling guideline v1 (superseded {v2})", [
            f"Labels: {', '.join(v1_labels)}.", f"Use {proj['v1'][0]} or {proj['v1'][1]} as described in section 3.",
            "Superseded by guideline v2; kept for the record."]))
    add(f"{ev}/procedures/agreement_and_adjudication.docx", "policy",
        lambda p: write_docx(p, f"{org} - agreement and adjudication procedure", _procedure(P)))
    add(f"{ev}/archive/{proj['slug']}_pilot0_agreement.pdf", "stale", lambda p: write_pdf(
        p, f"{name.capitalize()} pilot 0 - agreement report (v1 labels, superseded)", [
            f"Computed on v1 labels ({len(v1_labels)} categories), first label per annotator, skips as a category.",
            f"Fleiss' kappa {rng.uniform(0.45, 0.6):.3f}; Krippendorff's alpha {rng.uniform(0.45, 0.6):.3f}.",
            f"Most-confused pair: {proj['v1'][0]} / {proj['v1'][1]}. This led to guideline v2."]))
    add(f"{exp}/README_export.txt", "reference", lambda p: write_text(p, (
        "Labelling tool export: one row per submission. A re-label adds a new row (status relabelled) and leaves "
        "the earlier row in place. A skip is a row with status skipped and no label. Times are UTC (ISO 8601).\n")))
    add(f"{exp}/annotator_roster.csv", "reference", lambda p: write_csv(
        p, ["annotator_id", "vendor", "started", "hourly_rate_usd"],
        [[a, rng.choice(("in-house", "LabelCo", "Tasklane")), t["start"].date().isoformat(),
          f"{rng.uniform(14, 32):.2f}"] for a in P["annotators"]]))
    sent = (t["start"] + dt.timedelta(days=t["days"] + rng.randint(2, 6))).date().isoformat()
    add(f"{mail}/{sent}_pilot_done.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Labelling Operations", to="research team", date=sent,
        subject=f"{name} pilot finished", body=f"The three annotators finished the {name} pilot. Guideline v2 went "
        f"live on {v2} part-way through; labels before that are v1 labels. Gold labels for a subset are in "
        f"{P['files']['gold']}. Some annotators re-labelled items after the v2 briefing.")))
    add(f"{mail}/{sent}_vendor_quote.txt", "distractor", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, LabelCo", to="research team", date=sent, subject="Quote for the next batch",
        body=f"For 20,000 further items at three labels each we quote USD {rng.randint(18, 40)},000, delivery in "
        "six weeks.")))
    add(f"{ev}/meetings/{sent}_sync.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{name} pilot", people=[person(rng) for _ in range(3)], date=sent)))
    add(f"{ev}/model_baseline_{proj['slug']}.csv", "distractor", lambda p: write_csv(
        p, ["model", "macro_f1", "eval_set"], [[m, f"{rng.uniform(0.5, 0.8):.3f}", "pilot gold"]
                                               for m in ("tfidf_lr", "distilbert_ft", "zero_shot_prompt")]))
    add(f"{g}/labelling_tool_config.xlsx", "reference", lambda p: write_xlsx(p, [(
        "Config", ["setting", "value"], [["labels (v2)", ", ".join(proj["labels"])], ["labels per item", 3],
                                         ["skip allowed", "yes"], ["guideline v2 live", v2]])]))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], t: dict[str, Any], proj: dict[str, Any], prof: Any, org: str,
            writers: dict[str, Any]) -> str:
    L, D, S = P["labels"], P["deliverables"], P["sheet_labels"]
    k3 = "3 decimal places"
    sus = f"{P['suspect'][0]} and {P['suspect'][1]}"
    memo_labels = [(f"{L['cohen']} {a} / {b}", k3) for a, b in itertools.combinations(P["annotators"], 2)] + [
        (L["complete"], "whole number"), (L["fleiss"], k3), (L["alpha"], k3),
        (L["weakest"], "two annotator ids separated by ;"), (L["confused"], "two labels separated by ;"),
        (L["confused_n"], "whole number"), (L["suspect_n"], f"whole number, {sus}"), (L["todo"], "whole number"),
        (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    return instructions(
        rng, prof=prof, requester=person(rng), role="Staff Scientist", org=org,
        subject=f"Agreement on the {proj['name']} pilot",
        purpose=rng.choice((f"before we fund more labelling I need the agreement figures on the {proj['name']} pilot "
                            "and which guideline label is ambiguous.",
                            f"please work out inter-annotator agreement on the {proj['name']} pilot, adjudicate the "
                            "labels and tell me where the guideline is ambiguous.")),
        about=f"the labelling tool's export of the {proj['name']} pilot (three annotators), the guidelines and the "
              "gold subset",
        belief=f"My guess is that the trouble is between {sus}; I'd like to know whether the record bears that out.",
        table={"file": D["workbook"], "headers": [S["item"], *P["annotators"], S["gold"], S["final"],
                                                   S["adjudicate"]], "unit": "item"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(
            f"In {D['workbook']} that table is a sheet named Labels (each annotator's final v2 label, blank where "
            f"skipped; {S['adjudicate']} yes or no; {S['final']} blank for an item left to adjudicate); add a sheet "
            f"Agreement (columns Item, Value) whose rows include the three {L['cohen']} lines, {L['fleiss']} and "
            f"{L['alpha']} as named in the memo, and a sheet Summary (columns {S['label']}, {S['count']}: one row "
            f"per v2 label with its adjudicated items, and a row {L['todo']}). Keep the statistics and counts as "
            "live formulas where you can.",
            f"{D['slides']}: two slides for the funding discussion - agreement (the pairwise kappas, {L['fleiss']}, "
            f"{L['alpha']} and {L['decision']}) and ambiguity and adjudication ({L['confused']}, {L['todo']} and "
            f"{L['premise']}), each as 'label: value' lines."),
        policy=f"the agreement and adjudication procedure in {P['eval_dir']}/procedures/", files=sorted(writers))


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck

    D, L, S = P["deliverables"], P["labels"], P["sheet_labels"]
    book, memo, slides = D["workbook"], D["memo"], D["slides"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def num(label: str, value: float, file: str = memo) -> tuple[str, Any]:
        return f"{file}: {label} = {value:.3f}", fld_num(file, label, value, 3)

    def count(key: str, file: str = memo) -> tuple[str, Any]:
        v = facts[{"complete": "n_complete", "todo": "n_todo"}.get(key, key)]
        return f"{file}: {L[key]} = {v}", FieldCheck(file=file, label=L[key], number=float(v), tolerance=0.0)

    def agree(label: str, value: float) -> tuple[str, Any]:
        return (f"{book} Agreement: {label} = {value:.3f}",
                CellCheck(file=book, sheet="Agreement", match={"Item": label}, column="Value", value=float(value),
                          tolerance=tol(3)))

    def summary(label: str, value: int) -> tuple[str, Any]:
        return (f"{book} Summary: {label} = {value}",
                CellCheck(file=book, sheet="Summary", match={S["label"]: label}, column=S["count"], value=float(value),
                          tolerance=0.0))

    def listed(key: str, file: str = memo) -> tuple[str, Any]:
        return f"{file}: {L[key]}: {'; '.join(facts[key])}", fld_list(file, L[key], list(facts[key]))

    def flag(key: str, file: str = memo) -> tuple[str, Any]:
        return f"{file}: {L[key]}: {yes(facts[key])}", fld(file, L[key], yes(facts[key]), ["yes", "no"])

    cohen = [(f"{L['cohen']} {p['a']} / {p['b']}", p["kappa"]) for p in facts["pairs"]]
    out = [
        rubric("Keeps each annotator's latest label in v2 terms and gives Cohen's kappa for every pair", 10, [
            *[num(k, v) for k, v in cohen], *[agree(k, v) for k, v in cohen]]),
        rubric("Computes Fleiss' kappa on the items all three annotators labelled", 8, [
            count("complete"), num(L["fleiss"], facts["fleiss"]), agree(L["fleiss"], facts["fleiss"]),
            num(L["fleiss"], facts["fleiss"], slides)]),
        rubric("Computes Krippendorff's alpha (nominal) with skipped items as missing values", 10, [
            num(L["alpha"], facts["alpha"]), agree(L["alpha"], facts["alpha"]), num(L["alpha"], facts["alpha"], slides)]),
        rubric("Names the weakest annotator pair", 6, [listed("weakest")]),
        rubric("Finds the most-confused label pair after the v1 labels are mapped", 10, [
            listed("confused"), count("confused_n"), listed("confused", slides)]),
        rubric("Adjudicates by gold label, then majority, and counts the items left to adjudicate", 10, [
            count("todo"), count("todo", slides), summary(L["todo"], facts["n_todo"]),
            *[summary(c, facts["counts"][c]) for c in P["categories"]]]),
        rubric("Decides whether agreement clears the scale-up threshold", 8, [
            flag("decision"), flag("decision", slides), num(L["alpha"], facts["alpha"])]),
        rubric("Answers the requester's suspicion about the ambiguous pair", 8, [
            flag("premise"), flag("premise", slides), count("suspect_n"), count("confused_n")]),
    ]
    if judgement:
        out.append(rubric("Explains how the pilot's labels were prepared before any statistic", 6, [
            ("Says that v1 labels were mapped to the v2 guideline before comparing labels", llm("explanation")),
            ("Says that re-labels keep the latest label and skips are missing, not a category", llm("explanation")),
            ("States the alpha threshold and what it means for funding more labelling", llm("content"))]))
        out.append(rubric("Recommends what to do about the ambiguous label", 6, [
            ("Points to the guideline text for the most-confused pair as what to revise", llm("reasoning")),
            ("Keeps to what agreement statistics can show (no claims about annotators' effort)", llm("tone")),
            ("Is short enough for two slides and a note", llm("writing"))]))
    return out


ANNOTATOR_AGREEMENT = Workflow(
    key="annotator_agreement", family="label_quality",
    method="pairwise Cohen's kappa, Fleiss' kappa and Krippendorff's alpha (nominal, missing values) on a labelling "
           "pilot mapped to the current guideline, the most-confused label pair, gold-then-majority adjudication",
    professions=("computer_and_information_research_scientists",), solver="agreement", shortcuts=SHORTCUTS,
    draw=draw, recheck=recheck, rubrics=rubrics, data="generated labelling-tool export (stated distributions)")
