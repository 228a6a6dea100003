"""Rubrics from a task's ground truth: fact-anchored rubrics graded by checks, trap rubrics, judgement rubrics.

A trap rubric is built only from graded facts on which the trap's naive answer (the analysis with the
trap's shortcut taken) differs from the ground truth, so a solution that falls for the trap loses it;
a trap that changes no graded fact makes the draw degenerate.
"""

from __future__ import annotations

import random
import re
from typing import Any

from ..check_models import Check
from ..tasks import Rubric
from .common import (
    DegenerateTask,
    Plan,
    c_cell,
    c_columns,
    c_file,
    c_regex,
    c_rows,
    fld,
    fld_has,
    fld_list,
    fld_num,
    llm,
    num_text,
    rubric,
    tol,
)

__all__ = ["build_rubrics", "NAIVE_FLAG"]

# The shortcut a careless analyst takes for each trap kind (a flag understood by the ground-truth engine).
NAIVE_FLAG = {"duplicates": "duplicates", "stale_file": "file", "conflicting_versions": "file",
              "withdrawn_file": "file", "unit_scale": "units",
              "out_of_scope": "scope", "false_premise": "premise"}


def _cell_value(v: Any) -> Any:
    return "" if v is None else v


def _cell_check(table: dict[str, Any], key_col: dict[str, Any], col: dict[str, Any], row: dict[str, Any]) -> tuple[str, Check]:
    v = row.get(col["key"])
    key = str(row[key_col["key"]])
    if isinstance(v, float):
        text = f"{table['file']}: the row for {key} has {col['header']} = {num_text(v, col['decimals'])}"
        return text, c_cell(table["file"], {key_col["header"]: key}, col["header"], v, tol(col["decimals"]))
    text = f"{table['file']}: the row for {key} has {col['header']} = {_cell_value(v) or '(blank)'}"
    return text, c_cell(table["file"], {key_col["header"]: key}, col["header"], _cell_value(v))


def _field_items(memo: dict[str, Any], f: dict[str, Any], facts: dict[str, Any], *,
                 options: list[str] | None = None) -> list[tuple[str, Check]]:
    file, label, key = memo["file"], f["label"], f["key"]
    v = facts.get(key)
    if key == "decision":
        word = memo["decision"][0] if v else memo["decision"][1]
        return [(f"{file} states {label}: {word}", fld(file, label, word, options=list(memo["decision"])))]
    if key == "premise":
        word = memo["yes"] if v else memo["no"]
        return [(f"{file} answers {label}: {word}", fld(file, label, word, options=[memo["yes"], memo["no"]]))]
    if isinstance(v, list):
        if not v:
            return [(f"{file} states {label}: none", fld(file, label, "none"))]
        # the whole list, exactly: a memo that names every candidate (a hedge) must not pass
        return [(f"{file} lists exactly {'; '.join(v)} under {label}", fld_list(file, label, v))]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        d = int(f.get("decimals", 0 if isinstance(v, int) else 2))
        return [(f"{file} states {label}: {num_text(float(v), d)}", fld_num(file, label, float(v), d))]
    return [(f"{file} states {label}: {v}", fld(file, label, str(v), options=options))]


def _rows_by_key(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    return {str(r[key]): r for r in rows}


def _trap_items(plan: Plan, facts: dict[str, Any], rows: list[dict[str, Any]], nfacts: dict[str, Any],
                nrows: list[dict[str, Any]], rng: random.Random) -> list[tuple[str, Check]]:
    D = plan.params["deliverables"]
    table, memo = D["table"], D["memo"]
    key_col = table["columns"][0]
    cands: list[tuple[str, Check]] = []
    for f in memo["fields"]:
        if f["key"] in ("premise",):
            continue
        if _differs(facts.get(f["key"]), nfacts.get(f["key"]), int(f.get("decimals", 2))):
            cands.extend(_field_items(memo, f, facts, options=_names(rows, key_col)))
    if len(nrows) != len(rows):
        cands.append((f"{table['file']} has {len(rows)} data rows", c_rows(table["file"], len(rows))))
    naive_rows = _rows_by_key(nrows, key_col["key"])
    cells = []
    for r in rows:
        other = naive_rows.get(str(r[key_col["key"]]))
        for col in table["columns"][1:]:
            if other is None or _differs(r.get(col["key"]), other.get(col["key"]), col["decimals"]):
                if r.get(col["key"]) is not None:
                    cells.append(_cell_check(table, key_col, col, r))
    rng.shuffle(cells)
    items = cands[:2] + cells[: max(1, 3 - len(cands[:2]))]
    return items + cands[2:2 + max(0, 3 - len(items))]  # three where the trap moves enough facts


def _differs(a: Any, b: Any, decimals: int) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(float(a) - float(b)) > 10 ** (-decimals) * 1.5  # beyond the one-unit tolerance
    return a != b


def _names(rows: list[dict[str, Any]], key_col: dict[str, Any]) -> list[str] | None:
    names = sorted({str(r[key_col["key"]]) for r in rows})
    return names if len(names) > 1 else None


def build_rubrics(plan: Plan, facts: dict[str, Any], rows: list[dict[str, Any]],
                  naive: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]], role: str, *,
                  judgement: bool = True) -> tuple[list[Rubric], dict[str, int]]:
    """About ten rubrics for the task and the index of each trap's rubric.

    Fact-anchored rubrics carry deterministic checks; with ``judgement`` two rubrics of criteria marked for
    the LLM judge are added. Raises DegenerateTask when a planted trap changes no graded fact.
    """
    rng = random.Random(plan.probe_seed)
    D = plan.params["deliverables"]
    table, memo = D["table"], D["memo"]
    cols = table["columns"]
    key_col = cols[0]
    unit = key_col["header"]
    R: list[Rubric] = []
    trap_index: dict[str, int] = {}
    R.append(rubric(f"Delivers {table['file']} with the required structure", 6, [
        (f"{table['file']} exists in the output folder", c_file(table["file"])),
        (f"{table['file']} has the columns {', '.join(c['header'] for c in cols)}", c_columns(table["file"], [c["header"] for c in cols])),
        (f"{table['file']} has {len(rows)} data rows", c_rows(table["file"], len(rows))),
    ]))
    flagged_rows = [r for r in rows if r.get("flag") == "YES" or r.get("rank") == 1 or r.get("status", "matched") != "matched"]
    rest_rows = [r for r in rows if r not in flagged_rows[:1]]
    rng.shuffle(rest_rows)
    order = flagged_rows[:1] + rest_rows
    probes = [r for r in order if all(r.get(c["key"]) is not None for c in cols[1:3])][:3] or order[:3]
    for ci, weight in ((1, 8), (2, 10)):
        if ci >= len(cols):
            break
        col = cols[ci]
        items = [_cell_check(table, key_col, col, r) for r in probes if r.get(col["key"]) is not None]
        if items:
            R.append(rubric(f"{table['file']}: {col['header']} is correct for each {unit}", weight, items))
    rest = cols[3:]
    if rest:
        items = [_cell_check(table, key_col, c, r) for r in probes for c in rest if r.get(c["key"]) is not None][:4]
        if items:
            R.append(rubric(f"{table['file']}: {', '.join(c['header'] for c in rest)} follow the house rules", 8, items))
    head = [f for f in memo["fields"] if f["key"] not in ("flagged", "decision", "premise", "records", "source_file")]
    items = [(f"{memo['file']} exists", c_file(memo["file"]))]
    for f in head:
        items.extend(_field_items(memo, f, facts, options=_names(rows, key_col) if f["key"] == "top" else None))
    R.append(rubric(f"{memo['file']} states the headline figures", 8, items))
    items = [(f"{memo['file']} exists", c_file(memo["file"]))]
    for f in [f for f in memo["fields"] if f["key"] in ("records", "source_file")]:
        items.extend(_field_items(memo, f, facts))
    R.append(rubric("Works from the right extract and the right population of records", 8, items))
    items = []
    for f in [f for f in memo["fields"] if f["key"] in ("decision", "flagged")]:
        items.extend(_field_items(memo, f, facts))
    flag_field = next((f for f in memo["fields"] if f["key"] == "flagged"), None)
    clear = [str(r[key_col["key"]]) for r in rows if str(r[key_col["key"]]) not in facts.get("flagged", [])]
    if flag_field and clear:
        x = rng.choice(clear)
        items.append((f"{memo['file']} does not list {x} under {flag_field['label']}",
                      fld_has(memo["file"], flag_field["label"], x, present=False)))
    R.append(rubric(f"{memo['file']} reaches the decision the house rules require", 10, items))
    prem = next(f for f in memo["fields"] if f["key"] == "premise")
    claim = plan.params["premise"]["value"]
    false_premise = any(t["kind"] == "false_premise" for t in plan.traps)
    if false_premise:
        trap_index["false_premise"] = len(R)
    R.append(rubric("The memo confirms or corrects the requester's premise", 10 if false_premise else 6,
                    _field_items(memo, prem, facts) + [
                        (f"{memo['file']} discusses {claim}, the subject of the premise", c_regex(rf"(?<![\w]){re.escape(claim)}(?![\w])", memo["file"])),
                        (f"{memo['file']} exists", c_file(memo["file"]))]))
    ex = D.get("exceptions")
    if ex:
        n_ex = len(facts.get("exceptions", []))
        items = [(f"{ex['file']} exists", c_file(ex["file"])),
                 (f"{ex['file']} has the columns {', '.join(ex['headers'])}", c_columns(ex["file"], ex["headers"])),
                 (f"{ex['file']} lists {n_ex} records", c_rows(ex["file"], n_ex))]
        for first in facts.get("exceptions", [])[:2]:
            items.append((f"{ex['file']} includes {first}", c_cell(ex["file"], {ex["headers"][0]: first}, ex["headers"][0], first)))
        R.append(rubric("Lists exactly the exceptions the house rules define", 8, items))
    for t in plan.traps:
        if t["kind"] == "false_premise":
            continue
        nf, nr = naive[t["kind"]]
        items = _trap_items(plan, facts, rows, nf, nr, rng)
        if not items:
            raise DegenerateTask(f"trap {t['kind']} changes no graded fact")
        trap_index[t["kind"]] = len(R)
        R.append(rubric(_trap_text(t["kind"], plan), 10, items))
    if judgement:
        R.append(rubric("The memo explains the method and how data problems were handled", 6, [
            ("names the file and records the analysis used and why they are the right ones", llm("judgement of an explanation")),
            ("states the house-rule threshold that decides the outcome and applies it consistently", llm("judgement of reasoning")),
            ("says how duplicated, superseded, out-of-scope or differently scaled records were treated, or that none were found",
             llm("judgement of an explanation")),
        ]))
        R.append(rubric(f"The recommendation suits the reader ({role})", 6, [
            ("the recommendation follows from the figures reported in the deliverables", llm("judgement of a recommendation")),
            ("addresses the requester's stated belief directly rather than around it", llm("judgement of tone and content")),
            ("is concise and free of unexplained jargon", llm("judgement of writing")),
        ]))
    return R, trap_index


def _trap_text(kind: str, plan: Plan) -> str:
    return {
        "duplicates": "Counts each record once, so totals are not inflated by repeated rows",
        "stale_file": "Uses the current extract rather than the superseded one",
        "conflicting_versions": "Uses the version of the extract that the data owner confirmed",
        "withdrawn_file": "Works from the extract of record, not the newer re-cut that was withdrawn",
        "unit_scale": "Converts figures supplied in another unit before aggregating",
        "out_of_scope": "Applies the scope rule, excluding out-of-scope records",
    }[kind]
