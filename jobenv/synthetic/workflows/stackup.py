"""A one-dimensional tolerance stack-up before a design freeze (mechanical engineers).

The stack is generated: an axial chain of 8-12 dimensions across a housing, cover, bearing, spacers and clips,
one or two closing dimensions positive and the rest negative, plus one diameter whose radius sits in the chain.
Nominals are drawn per feature (clip 1.0-2.5 mm, bearing width 10-25 mm, housing depth set so the stack closes);
tolerances 0.02-0.20 mm a side, symmetric for about half the rows and one-sided or unequal for the rest. The
export was built from the previous drawing revision; the current revision's notes change one row's nominal and
tolerance. The required minimum gap is 0.10-0.30 mm and the RSS minimum gap lands 0.03-0.12 mm above or below
it (the housing depth is set to make it so). The method follows the task's own stack-up guideline.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, place_away

__all__ = ["TOLERANCE_STACKUP"]

_PARTS = (("bearing outer race width", 10.0, 25.0), ("spacer sleeve length", 4.0, 20.0),
          ("gear hub length", 12.0, 30.0), ("retaining clip thickness", 1.0, 2.5), ("shim thickness", 0.3, 1.0),
          ("seal carrier flange", 3.0, 8.0), ("wave washer compressed height", 1.5, 3.0),
          ("thrust washer thickness", 1.0, 3.0), ("cover spigot height", 2.0, 6.0), ("sensor ring width", 3.0, 7.0))
_LABELS = {
    "nominal_gap": ("Nominal gap (mm)", "Gap at nominal (mm)", "Nominal clearance (mm)"),
    "mean_gap": ("Mean gap (mm)", "Mean-shifted gap (mm)", "Gap at mean dimensions (mm)"),
    "wc_min": ("Worst-case minimum gap (mm)", "Minimum gap, worst case (mm)", "WC minimum clearance (mm)"),
    "rss_min": ("RSS minimum gap (mm)", "Minimum gap, RSS (mm)", "Statistical minimum clearance (mm)"),
    "top": ("Top contributor", "Largest contributor", "Dimension to tighten first"),
    "top_share": ("Top contributor share of variance (%)", "Largest contribution (%)", "Contribution of the top row (%)"),
    "decision": ("Stack holds the minimum gap", "Minimum gap met (RSS)", "Design meets the clearance requirement"),
    "premise": ("{ref} is the top contributor", "{ref} dominates the stack", "Tightening {ref} helps most"),
}
_DIRS = {"cad": ("tolerance_analysis", "cad_exports/stack", "analysis/stackups"),
         "drawings": ("drawings", "plm/drawings", "engineering/drawings"), "std": ("standards", "design_guides", "eng_standards"),
         "mail": ("correspondence", "email", "inbox")}


def _tolerance(rng: random.Random) -> tuple[float, float]:
    t = rng.choice((0.02, 0.03, 0.05, 0.08, 0.10, 0.12, 0.15, 0.20))
    shape = rng.random()
    if shape < 0.5:
        return t, -t
    if shape < 0.75:
        return (t, 0.0) if rng.random() < 0.5 else (0.0, -t)
    return t, -rng.choice((0.02, 0.03, 0.05, 0.08))


def _stack(rng: random.Random) -> list[dict[str, Any]]:
    n = rng.randint(8, 12)
    parts = rng.sample(_PARTS, n - 3)
    rows = []
    for name, lo, hi in parts:
        plus, minus = _tolerance(rng)
        rows.append({"description": name.capitalize(), "direction": -1, "nominal": round(rng.uniform(lo, hi), 2),
                     "plus": plus, "minus": minus, "feature": "length"})
    rows.append({"description": "Locating pin diameter (contact at its surface)", "direction": -1,
                 "nominal": rng.choice((4.0, 5.0, 6.0, 8.0, 10.0)), "plus": 0.0,
                 "minus": -rng.choice((0.04, 0.06, 0.10, 0.16)), "feature": "diameter"})
    rows.append({"description": "Cover face to pin bore centre", "direction": 1, "nominal": 0.0, "plus": 0.05,
                 "minus": -0.05, "feature": "length"})
    plus, minus = _tolerance(rng)
    rows.append({"description": "Housing depth, datum A to cover seat", "direction": 1, "nominal": 0.0, "plus": plus,
                 "minus": minus, "feature": "length"})
    rng.shuffle(rows)
    for k, r in enumerate(rows, 1):
        r["ref"] = f"D{k}"
    return rows


def _set_closing(rows: list[dict[str, Any]], rng: random.Random) -> None:
    """Nominals of the two positive rows so the stack closes near zero before the target is set."""
    body = sum(r["direction"] * r["nominal"] * (0.5 if r["feature"] == "diameter" else 1.0) for r in rows
               if r["direction"] < 0)
    pin = next(r for r in rows if r["description"].startswith("Cover face"))
    pin["nominal"] = round(rng.uniform(3.0, 8.0), 2)
    house = next(r for r in rows if r["description"].startswith("Housing"))
    house["nominal"] = round(-body - pin["nominal"], 2)


# ---- the independent computation: csv only ---------------------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the export and the note in the parameters, without the solver's code."""
    with (Path(folder) / P["files"]["stack"]).open(newline="", encoding="utf-8") as f:
        export = list(csv.DictReader(f))
    note = P["override"]
    nominal = mean = 0.0
    tols: dict[str, float] = {}
    for r in export:
        nom, up, lo = float(r["nominal_mm"]), float(r["plus_tol_mm"]), float(r["minus_tol_mm"])
        if r["ref"] == note["ref"]:
            nom, up, lo = float(note["nominal"]), float(note["plus"]), float(note["minus"])
        k = 0.5 if r["feature"] == "diameter" else 1.0
        sign = 1 if float(r["direction"]) > 0 else -1
        nominal += sign * k * nom
        mean += sign * k * (nom + up / 2 + lo / 2)
        tols[r["ref"]] = k * (up - lo) / 2
    total = sum(t * t for t in tols.values())
    top = max(tols, key=lambda ref: tols[ref])
    rss_min = rnd(mean - math.sqrt(total), 3)
    return {"nominal_gap": rnd(nominal, 3), "mean_gap": rnd(mean, 3), "wc_min": rnd(mean - sum(tols.values()), 3),
            "wc_tol": rnd(sum(tols.values()), 3), "rss_tol": rnd(math.sqrt(total), 3),
            "tols": {ref: rnd(t, 4) for ref, t in tols.items()},
            "rss_min": rss_min, "top": top, "top_share": rnd(tols[top] ** 2 / total * 100, 1),
            "decision": rss_min >= float(P["min_gap"]), "premise": top == P["claimed_top"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    """One stack-up task on ``targets``; raises DegenerateTask when the RSS minimum gap lands on the wrong side,
    the top contributor leads by under 0.5 points or fewer than two planted items change a graded answer."""
    import tempfile

    from ..solvers.stackup import analyse

    prof = profession(occupation)
    rows = _stack(rng)
    _set_closing(rows, rng)
    dirs = pick_labels(rng, _DIRS)
    assy = f"A-{rng.randint(2000, 8999)}"
    rev = rng.choice("CDEF")
    old_rev = chr(ord(rev) - 1)
    changed = rng.choice([r for r in rows if r["feature"] == "length" and r["direction"] < 0])
    up, down = _tolerance(rng)
    while (up, down) == (changed["plus"], changed["minus"]):
        up, down = _tolerance(rng)
    note = {"ref": changed["ref"], "nominal": round(changed["nominal"] + rng.choice((-0.2, -0.1, 0.1, 0.2)), 2),
            "plus": up, "minus": down}
    labels = pick_labels(rng, _LABELS)
    min_gap = rng.choice((0.10, 0.15, 0.20, 0.25, 0.30))
    P: dict[str, Any] = {
        "files": {"stack": f"{dirs['cad']}/{assy}_axial_stack_rev{old_rev}.csv"}, "dirs": dirs, "override": note,
        "diameter_ref": next(r["ref"] for r in rows if r["feature"] == "diameter"),
        "min_gap": min_gap, "claimed_top": "", "labels": labels,
        "sheet_labels": {**labels, "wc_tol": "Worst-case tolerance (mm)", "rss_tol": "RSS tolerance (mm)",
                         "min_gap": "Required minimum gap (mm)"},
        "deliverables": {"workbook": rng.choice((f"{assy}_stackup.xlsx", "stackup_analysis.xlsx")),
                         "memo": rng.choice((f"{assy}_stackup_note.md", "stackup_summary.docx", "design_freeze_note.md"))},
    }
    house = next(r for r in rows if r["description"].startswith("Housing"))

    def export_rows() -> list[list[Any]]:
        return [[r["ref"], r["description"], r["direction"], f"{r['nominal']:.2f}", f"{r['plus']:+.2f}",
                 f"{r['minus']:+.2f}" if r["minus"] else "0.00", r["feature"]] for r in rows]

    header = ["ref", "description", "direction", "nominal_mm", "plus_tol_mm", "minus_tol_mm", "feature"]
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_csv(Path(tmp) / P["files"]["stack"], header, export_rows())
        first = analyse(tmp, P)
        target = min_gap + (1 if targets["decision"] else -1) * rng.uniform(0.03, 0.12)
        house["nominal"] = round(house["nominal"] + target - first["rss_min"], 2)
        write_csv(Path(tmp) / P["files"]["stack"], header, export_rows())
        truth = analyse(tmp, P)
        ranked = sorted(truth["shares"].items(), key=lambda kv: -kv[1])
        P["claimed_top"] = truth["top"] if targets["premise"] else ranked[1][0]
        truth = analyse(tmp, P)
        shortcuts = ("no_mean_shift", "diameter", "superseded_note")
        singles = {k: analyse(tmp, P, (k,)) for k in shortcuts}
    if ranked[0][1] - ranked[1][1] < 0.5:
        raise DegenerateTask("no clear top contributor")
    if truth["decision"] != targets["decision"] or abs(truth["rss_min"] - min_gap) < 0.01:
        raise DegenerateTask("the RSS minimum gap misses its target side")

    def moved(f: Facts) -> bool:
        return (f["top"] != truth["top"] or place_away(f["top_share"], [truth["top_share"]], 1)
                or any(place_away(f[k], [truth[k]], 3) for k in ("nominal_gap", "mean_gap", "wc_min", "rss_min")))

    where = {"no_mean_shift": ("data", "asymmetric tolerances need the mean shift, not the nominal"),
             "diameter": ("footnote", "the pin's diameter enters the stack as a radius"),
             "superseded_note": ("memo", f"the rev {rev} drawing note changes row {note['ref']}")}
    traps = [{"kind": k, "where": where[k][0], "description": where[k][1], "naive": k}
             for k, f in singles.items() if moved(f)]
    if len(traps) < 2:
        raise DegenerateTask("fewer than two planted items change a graded answer")
    labels["premise"] = labels["premise"].format(ref=P["claimed_top"])
    claimed = next(r for r in rows if r["ref"] == P["claimed_top"])
    today = dt.date(rng.choice((2024, 2025)), rng.randint(1, 12), rng.randint(1, 28))
    ctx = {"assy": assy, "rev": rev, "old_rev": old_rev, "claimed": claimed, "boss": person(rng), "day": today}
    writers, roles = _workspace(rng, P, rows, ctx, {P["files"]["stack"]: lambda p: write_csv(p, header, export_rows())})
    return Draft(subject=f"Tolerance stack-up, {assy}", instructions=_prompt(rng, P, ctx, writers),
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions=f"8-12 axial dimensions ({prof.title}'s stack), tolerances 0.02-0.20 mm a side, about "
                               "half symmetric; one diameter as a radius; one row changed by the current drawing note; "
                               "RSS minimum 0.03-0.12 mm either side of a 0.10-0.30 mm requirement")


def _workspace(rng: random.Random, P: dict[str, Any], rows: list[dict[str, Any]], c: dict[str, Any],
               data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w, roles = dict(data), {rel: "data" for rel in data}
    D, note = P["dirs"], P["override"]

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    changed = next(r for r in rows if r["ref"] == note["ref"])
    add(f"{D['drawings']}/{c['assy']}_rev{c['rev']}_drawing_notes.docx", "policy", lambda p: write_docx(
        p, f"{c['assy']} drawing notes, revision {c['rev']} (released)", [
            f"Revision {c['rev']} supersedes revision {c['old_rev']}. Changes:",
            f"- Note 4: {changed['description'].lower()} ({note['ref']} in the axial stack) is now {note['nominal']:.2f} mm "
            f"{note['plus']:+.2f} / {note['minus']:+.2f} mm.",
            "- Note 7: surface finish on the seal bore Ra 0.4 (was Ra 0.8).",
            f"- Minimum axial clearance at the cover (functional requirement): {P['min_gap']:.2f} mm."]))
    add(f"{D['drawings']}/archive/{c['assy']}_rev{c['old_rev']}_drawing_notes.pdf", "stale", lambda p: write_pdf(
        p, f"{c['assy']} drawing notes, revision {c['old_rev']}", [
            f"Note 4: {changed['description'].lower()} {changed['nominal']:.2f} mm {changed['plus']:+.2f} / "
            f"{changed['minus']:+.2f} mm.", "Note 7: surface finish on the seal bore Ra 0.8.",
            "Minimum axial clearance at the cover: 0.10 mm."]))
    add(f"{D['std']}/stackup_guideline.docx", "policy", lambda p: write_docx(p, "Tolerance stack-up guideline", [
        "- Convert every dimension with unequal tolerances to its mean (nominal plus the average of the two signed "
        "deviations) and a symmetric tolerance of half the band (upper deviation minus lower deviation, halved).",
        "- Sign each dimension by its direction in the loop (+1 opens the gap, -1 closes it).",
        "- A diameter in a linear stack contributes its radius: half its mean and half its tolerance.",
        "- Worst case: mean gap minus the sum of the tolerances. RSS: mean gap minus the square root of the sum of "
        "the squared tolerances. Contribution of a dimension: its t^2 / sum of t^2, in percent.",
        "- Acceptance for design freeze: the RSS minimum gap must be at least the required minimum on the current "
        "drawing; the worst case is reported for information.",
        "- The released drawing revision's notes override any value in an analysis export built from an earlier "
        "revision. Gaps in mm to 3 decimals, contributions in percent to 1 decimal, rounded half up."]))
    add(f"{D['cad']}/{c['assy']}_bom.xlsx", "reference", lambda p: write_xlsx(p, [(
        "BOM", ["item", "description", "qty", "material"],
        [[k, r["description"], 1, rng.choice(("steel", "aluminium 6082", "PA66-GF30", "spring steel"))]
         for k, r in enumerate(rows, 1)])]))
    add(f"{D['cad']}/{c['assy']}_radial_stack_rev{c['old_rev']}.csv", "distractor", lambda p: write_csv(
        p, ["ref", "description", "direction", "nominal_mm", "plus_tol_mm", "minus_tol_mm", "feature"],
        [["R1", "Housing bore diameter", 1, "52.00", "+0.03", "0.00", "diameter"],
         ["R2", "Bearing outer diameter", -1, "52.00", "0.00", "-0.013", "diameter"]]))
    add(f"{D['mail']}/freeze_request.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{c['boss']}, Engineering Manager", to="Design team", date=c["day"].isoformat(),
        subject=f"{c['assy']} design freeze",
        body=f"Design freeze is next week. I need to know whether the axial stack at the cover holds the minimum gap "
             f"and what to tighten. I think {c['claimed']['description'].lower()} ({P['claimed_top']}) is the one "
             "driving it.")))
    add(f"{D['mail']}/supplier_capability.txt", "distractor", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Supplier quality", to="Design team", date=(c["day"] - dt.timedelta(days=14)).isoformat(), subject="Clip supplier Cpk",
        body="The clip supplier reports Cpk 1.6 on thickness. No action needed.")))
    add(f"meetings/design_review_{rng.randint(10, 28)}.md", "distractor", lambda p: write_text(
        p, meeting_notes(rng, topic="design freeze", people=[person(rng) for _ in range(3)], date=(c["day"] - dt.timedelta(days=6)).isoformat())))
    add(f"{D['std']}/archive/stackup_practice_2016.pdf", "stale", lambda p: write_pdf(p, "Stack-up practice (2016)", [
        "Worst-case stacks on nominal dimensions with the larger deviation as a symmetric tolerance.",
        "Superseded by the tolerance stack-up guideline."]))
    return w, roles


def _prompt(rng: random.Random, P: dict[str, Any], c: dict[str, Any], writers: dict[str, Any]) -> str:
    L, D, W = P["labels"], P["deliverables"], P["sheet_labels"]
    lines = [(L["nominal_gap"], "mm, 3 decimals"), (L["mean_gap"], "mm, 3 decimals"), (L["wc_min"], "mm, 3 decimals"),
             (L["rss_min"], "mm, 3 decimals"), (L["top"], "the row's ref, e.g. D3"),
             (L["top_share"], "percent, 1 decimal"), (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    lines = [(k, h.replace("mm, 3 decimals", "number in mm, 3 decimals, no unit after it")) for k, h in lines]
    steps = [rng.choice(("Take the stack export and apply the current drawing revision's notes.",
                         "Start from the tolerance-analysis export; where the released drawing's notes differ, they win.",
                         "Check the export against the released revision's drawing notes before using it.")),
             rng.choice(("Convert each row to mean and symmetric tolerance as our stack-up guideline says (signs, "
                         "diameters).", "Mean-shift the unequal tolerances and sign each row per the guideline; "
                         "watch the diameter.", "Put every dimension on a mean and half-band basis, with the loop signs, "
                         "as the guideline sets out.")),
             rng.choice(("Worst case and RSS minimum gaps and each row's contribution.",
                         "Work out the worst-case and RSS minimum gaps and the t^2 / sum t^2 contributions.",
                         "Stack it both ways (worst case, RSS) and rank the contributors.")),
             rng.choice(("Say whether the stack holds the required minimum gap (guideline's acceptance) and what to "
                         "tighten.", "Tell me if we meet the minimum clearance under the guideline's rule and which "
                         "tolerance to tighten.", "Give me the verdict against the drawing's minimum gap and the "
                         "dimension worth tightening."))]
    ask = rng.choice((f"Design freeze on {c['assy']} is next week. Does the axial stack at the cover hold the minimum "
                      "gap, worst case and RSS, and what should we tighten?",
                      f"Before we freeze {c['assy']}, I need the axial clearance at the cover checked - worst case and "
                      "RSS - and a view on what to tighten.",
                      f"The freeze review for {c['assy']} wants numbers on the cover gap: worst-case and RSS minimum, "
                      "and the tolerance to tighten."))
    belief = rng.choice((f"I think {P['claimed_top']} drives it - check that.",
                         f"My bet is {P['claimed_top']} is the big one; confirm or correct me.",
                         f"Production reckons {P['claimed_top']} is what eats the clearance."))
    return "\n\n".join([
        rng.choice((f"From: {c['boss']}, Engineering Manager\n\n", f"Hi - {c['boss']} here.\n\n",
                    f"{c['boss']} (Engineering Manager) - design freeze\n\n")) + ask + " " + belief,
        rng.choice(("Steps:", "How I'd like it done:", "Please:")) + "\n"
        + "\n".join(f"{k}. {t}" for k, t in enumerate(steps, 1)),
        rng.choice(("Deliverables in the output folder:", "Leave in the output folder:", "Outputs:")) + "\n"
        f"1. {D['workbook']}: sheet Stack (ref, description, direction, nominal_mm, plus_tol_mm, minus_tol_mm, factor, "
        "mean_mm, tol_mm, contribution_pct; one row per dimension) and sheet Summary with an Item column and a Value "
        "column, live formulas (RSS as =SQRT(SUMSQ(...))), rows: " + "; ".join(
            W[k] for k in ("nominal_gap", "mean_gap", "wc_tol", "rss_tol", "wc_min", "rss_min", "min_gap", "decision"))
        + ".\n"
        f"2. {D['memo']}: a note starting with these lines (label: value), then what to tighten and why:\n"
        + "\n".join(f"   {k}: <{h}>" for k, h in lines),
        rng.choice(("Thanks.", "Cheers.", "Shout if the export looks off.")) + "\n" + c["boss"].split()[0],
        "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers)),
    ]) + "\n"


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, RowCountCheck

    D, L, W = P["deliverables"], P["labels"], P["sheet_labels"]
    book, memo = D["workbook"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def cell(key: str) -> tuple[str, Any]:
        return (f"{book} Summary: {W[key]} = {facts[key]:.3f}",
                CellCheck(file=book, sheet="Summary", match={"Item": W[key]}, column="Value", value=float(facts[key]),
                          tolerance=tol(3)))

    def num(key: str, d: int = 3) -> tuple[str, Any]:
        return f"{L[key]} = {facts[key]:.{d}f}", fld_num(memo, L[key], facts[key], d)

    def row_tol(ref: str) -> tuple[str, Any]:
        return (f"{book} Stack: {ref} tol_mm = {facts['tols'][ref]:.4f}",
                CellCheck(file=book, sheet="Stack", match={"ref": ref}, column="tol_mm", value=float(facts["tols"][ref]),
                          tolerance=tol(4)))

    note, dia = P["override"]["ref"], P["diameter_ref"]
    out = [
        rubric("Converts the stack to mean dimensions with the current drawing note", 10,
               [num("nominal_gap"), num("mean_gap"), cell("mean_gap")]),
        rubric("Lays out every row as a symmetric tolerance, the note's row and the pin's radius included", 8, [
            (f"{book} Stack has {len(facts['tols'])} rows",
             RowCountCheck(file=book, sheet="Stack", key="ref", count=len(facts["tols"]))), row_tol(note), row_tol(dia)]),
        rubric("Computes the worst-case minimum gap", 8, [num("wc_min"), cell("wc_min"), cell("wc_tol")]),
        rubric("Computes the RSS minimum gap", 10, [num("rss_min"), cell("rss_min"), cell("rss_tol")]),
        rubric("Names the top contributor by t^2 / sum t^2", 8, [
            (f"{L['top']}: {facts['top']}", fld(memo, L["top"], facts["top"])), num("top_share", 1)]),
        rubric("Answers whether the stack holds the minimum gap", 8, [
            num("rss_min"), (f"{L['decision']}: {yes(facts['decision'])}",
                             fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Checks the manager's guess about the driving dimension", 6, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            num("top_share", 1)]),
    ]
    if judgement:
        out.append(rubric("Recommends what to tighten", 6, [
            ("Names the dimension to tighten from the contributions, with its share", llm("reasoning")),
            ("Says the rev note replaced the export's row and the pin entered as a radius", llm("explanation")),
            ("Is concise enough for the freeze review", llm("writing"))]))
        out.append(rubric("Answers the manager plainly", 6, [
            ("States whether the stack holds the minimum gap, worst case and RSS, with the numbers", llm("reasoning")),
            ("Answers the guess about the driving dimension with the contributions", llm("tone and content")),
            ("Says which acceptance rule (RSS per the guideline) decides", llm("explanation"))]))
    return out


TOLERANCE_STACKUP = Workflow(
    key="tolerance_stackup", family="tolerance_stackup", method="worst-case and RSS tolerance stack-up",
    professions=("mechanical_engineers",), solver="stackup",
    shortcuts=("no_mean_shift", "diameter", "superseded_note"), draw=draw, recheck=recheck, rubrics=rubrics,
    data="generated axial stack (stated distributions)")
