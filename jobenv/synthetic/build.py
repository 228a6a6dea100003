"""From a scenario, a profession and the split's answer targets to a task plan with its traps planted.

:func:`plan_task` draws the population (real records, sampled and scoped), sets the graded thresholds so
that the decision comes out as the split needs, plants 0-3 traps in the files for real, and composes the
request, the house-rules memo, e-mails and distractors. It raises :class:`DegenerateTask` when a draw
would make a graded answer ill-posed (ties at a threshold, values on a rounding boundary, a trap that
changes nothing); the generator then redraws.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import pandas as pd

from .common import DegenerateTask, Plan, RefFile, near_rounding_boundary
from .compose import IDENTITY_NOTE, email_text, instructions, meeting_notes, person, policy_paragraphs
from .families import KINDS
from .professions import profession
from .records import Scenario
from .solvers import engine
from .sources import load_raw, source_meta
from .writers import write_csv, write_docx, write_pdf, write_sqlite, write_text, write_xlsx

__all__ = ["plan_task", "prepared_records", "TRAP_KINDS"]

TRAP_KINDS = ("duplicates", "stale_file", "conflicting_versions", "withdrawn_file", "unit_scale", "out_of_scope",
              "false_premise")
_VERSION_TRAPS = ("stale_file", "conflicting_versions", "withdrawn_file")  # two extracts, one of them wrong
_DATES = ("2024-03-31", "2024-06-30", "2024-09-30", "2024-12-31", "2025-03-31")


_PREPARED: dict[str, Any] = {}


def prepared_records(sc: Scenario) -> Any:
    """The scenario's records (prepared once per process; a fresh copy each call)."""
    if sc.key not in _PREPARED:
        _PREPARED[sc.key] = sc.prep(load_raw(sc.source))
    return _PREPARED[sc.key].copy()


def _sample(rng: random.Random, df: Any, n: int) -> Any:
    if len(df) > n:
        df = df.sample(n=n, random_state=rng.randrange(2**31))
    return df.sort_values(df.columns[0]).reset_index(drop=True)


def _subset(rng: random.Random, sc: Scenario, df: Any) -> Any:
    ex = sc.extra
    if ex.get("subset"):
        col = ex["subset"]
        choice = rng.choice(sorted(df[col].unique()))
        df = df[df[col] == choice]
        groups = sorted(df[sc.group].unique())
        if len(groups) > 10:
            df = df[df[sc.group].isin(rng.sample(groups, rng.randint(6, 10)))]
    if ex.get("subset_groups"):
        groups = sorted(df[sc.group].unique())
        df = df[df[sc.group].isin(rng.sample(groups, min(len(groups), ex["subset_groups"])))]
    return df.reset_index(drop=True)


def plan_task(rng: random.Random, sc: Scenario, occupation: str, *, decision: bool, premise: bool,
              extra_traps: int, traps: Sequence[str] | None = None) -> Plan:
    """The plan of one task (see the module docstring); raises DegenerateTask when the draw is ill-posed.

    ``traps`` forces the planted traps other than false_premise (which follows ``premise``); a kind the
    scenario cannot carry raises DegenerateTask.
    """
    kind = KINDS[sc.family]
    prof = profession(occupation)
    full = _subset(rng, sc, prepared_records(sc))
    full = _sample(rng, full, sc.max_rows)
    for c in sc.numeric:
        full[c] = pd.to_numeric(full[c], errors="coerce")

    # -- scope: a house rule always; records it excludes are in the extract only when that is the trap --
    scope, scope_text = (None, "")
    if sc.scopes and rng.random() < 0.8:
        scope, scope_text = rng.choice(sc.scopes)
    if traps is not None and "out_of_scope" in traps and sc.scopes:
        scope, scope_text = rng.choice(sc.scopes)
    drawn = _draw_traps(rng, sc, kind, extra_traps, scoped=scope is not None)
    if traps is not None:
        possible = set(_draw_traps(random.Random(0), sc, kind, 9, scoped=scope is not None)) | set(_VERSION_TRAPS)
        if not set(traps) <= possible:
            raise DegenerateTask(f"scenario {sc.key} cannot carry {sorted(set(traps) - possible)}")
        drawn = sorted(traps)
    traps = drawn
    pop = engine.apply_scope(full, [scope]) if scope else full
    if scope and "out_of_scope" in traps:
        share_out = 1 - len(pop) / max(1, len(full))
        if not 0.03 <= share_out <= 0.9:
            raise DegenerateTask(f"scope removes {share_out:.0%} of the records")
        written = full
    else:
        written = pop
    if len(pop) < 8:
        raise DegenerateTask("fewer than 8 records in scope")

    stem = kind.stem(rng, sc)
    ctx = kind.setup(rng, sc, pop, written, decision=decision, stem=stem)
    written, params, lookups = ctx["written"], ctx["params"], ctx["lookups"]
    params.update({"id_col": sc.id, "numeric": list(sc.numeric), "scope": [], "units": None})
    if scope:
        params["scope"] = [dict(scope, trap="out_of_scope" in traps)]

    # -- premise: what the requester believes, true or false as the split needs --
    claim, belief = kind.premise(rng, sc, ctx["truth"], holds=premise, requester_first="")
    params["premise"] = claim
    if not premise:
        traps.append("false_premise")

    # -- layout and the planted traps --
    layout = rng.choice(("csv", "xlsx", "sqlite") if len(written) <= 2500 else ("csv", "sqlite"))
    # a stale extract is older than the current one; a withdrawn re-cut is newer (so "the latest" is wrong)
    date = rng.choice(_DATES[1:] if "stale_file" in traps else _DATES[:-1] if "withdrawn_file" in traps else _DATES)
    ext = {"csv": "csv", "xlsx": "xlsx", "sqlite": "db"}[layout]
    records = written.copy()
    planted: list[dict[str, Any]] = []
    if "unit_scale" in traps:
        records, info = _plant_units(rng, sc, records, pop)
        planted.append(info)
    if sc.unit_alt:
        if "unit" not in records.columns:
            records["unit"] = sc.unit
        params["units"] = {"column": sc.value, "unit_column": "unit", "reporting": sc.unit,
                           "labels": {sc.unit_alt[0]: sc.unit_alt[1]}}
    if "duplicates" in traps:
        records, info = _plant_duplicates(rng, sc, records, pop)
        planted.append(info)
    if "out_of_scope" in traps:
        planted.append({"kind": "out_of_scope", "rule": scope_text, "excluded": int(len(written) - len(pop))})
    main_name = f"{stem}_{date}.{ext}"
    files: list[RefFile] = []
    src = {"file": main_name, "layout": layout, "table": stem, "skip_sheets": ["Notes", "Dictionary"]}
    params["source"] = src
    emails: list[tuple[str, str]] = []
    if set(traps) & set(_VERSION_TRAPS):
        wrong = _perturb(rng, sc, records)
        if "withdrawn_file" in traps:
            later = _DATES[min(len(_DATES) - 1, _DATES.index(date) + rng.randint(1, 2))]
            wrong_name = f"{stem}_{later}.{ext}"
            planted.append({"kind": "withdrawn_file", "withdrawn": wrong_name, "current": main_name})
            emails.append(_withdrawal_email(rng, sc, main_name, wrong_name, later))
        elif "stale_file" in traps:
            old_date = _DATES[max(0, _DATES.index(date) - rng.randint(1, 2))]
            if old_date == date:
                raise DegenerateTask("no earlier date for the stale extract")
            wrong_name = f"{stem}_{old_date}.{ext}"
            planted.append({"kind": "stale_file", "stale": wrong_name, "current": main_name})
        else:
            names = [f"{stem}_{date}_export.{ext}", f"{stem}_{date}_rerun.{ext}"]
            rng.shuffle(names)
            main_name, wrong_name = names
            src["file"] = main_name
            planted.append({"kind": "conflicting_versions", "wrong": wrong_name, "right": main_name})
            emails.append(_version_email(rng, sc, main_name, wrong_name, date))
        params["naive_source"] = dict(src, file=wrong_name)
        files.append(_data_file(wrong_name, layout, wrong, sc, stem, role="stale"))
    files.insert(0, _data_file(main_name, layout, records, sc, stem, role="data"))
    for name, (lk_spec, frame) in lookups.items():
        params.setdefault("lookups", {})[name] = lk_spec
        if all(f.name != lk_spec["file"] for f in files):  # two lookups may read one file (lead times, stock)
            files.append(_lookup_file(lk_spec, frame))
    if "false_premise" in traps:
        planted.append({"kind": "false_premise", "claim": claim})

    # -- people, house rules, e-mails, distractors --
    requester = person(rng)
    role, org = rng.choice(prof.requesters), rng.choice(prof.orgs)
    specific = ([f"Scope: {scope_text}."] if scope else []) + ctx["rules"]
    policy_name = f"{rng.choice(('analysis_rules', 'house_rules', 'working_rules', 'policy_memo', 'guidance'))}_{stem}." + rng.choice(("pdf", "docx"))
    # the standing rules differ by task: record identity in the memo or in the delivery e-mail, versions sometimes
    identity, versions = rng.random() < 0.5, rng.random() < 0.4
    files.append(_policy_file(rng, policy_name, f"{kind.title} - working rules", sc, specific, identity=identity,
                              versions=versions))
    emails.insert(0, _delivery_email(rng, sc, main_name, date, requester, identity_note=not identity))
    for i, (subject, text) in enumerate(emails):
        files.append(RefFile(name=f"email_{i + 1:02d}_{_slug(subject)}.eml", role="email",
                             write=_text_writer(text), description="e-mail"))
    files.extend(_distractors(rng, sc, stem, requester, date))
    subject = kind.subject(rng, sc)
    table, memo_file, labels, extra = kind.deliverables(rng, sc, params)
    text = instructions(
        rng, prof=prof, requester=requester, role=role, org=org, subject=subject, purpose=kind.purpose(rng, sc, params),
        about=sc.about, belief=belief, table=table, memo_file=memo_file, memo_labels=labels,
        extra_deliverables=extra, policy=policy_name, files=[f.name for f in files])
    if not 4 <= len(files) <= 12:
        raise DegenerateTask(f"{len(files)} reference files")
    return Plan(family=sc.family, scenario=sc.key, occupation=occupation, instructions=text, files=files, params=params,
                source=source_meta(sc.source), traps=planted, subject=subject, probe_seed=rng.randrange(2**31),
                truth=ctx["truth"],
                meta={"layout": layout, "scope": scope_text or None, "premise_holds": premise, "decision": decision,
                      "role": role, "requester": requester, "org": org})


def _draw_traps(rng: random.Random, sc: Scenario, kind: Any, n: int, *, scoped: bool) -> list[str]:
    pool = ["duplicates", rng.choice(_VERSION_TRAPS)]
    if sc.unit_alt and kind.units_ok:
        pool.append("unit_scale")
    if scoped:
        pool.append("out_of_scope")
    rng.shuffle(pool)
    return sorted(pool[: min(n, len(pool))])


def _plant_units(rng: random.Random, sc: Scenario, records: Any, pop: Any) -> tuple[Any, dict[str, Any]]:
    label, factor = sc.unit_alt or ("", 1.0)
    records = records.copy()
    records["unit"] = sc.unit
    groups = sorted(pop[sc.group].astype(str).unique())
    target = rng.choice(groups)
    mask = records[sc.group].astype(str) == target
    records[sc.value] = records[sc.value].astype(object)
    records.loc[mask, sc.value] = [round(float(v) * factor, 6) for v in records.loc[mask, sc.value]]
    records.loc[mask, "unit"] = label
    return records, {"kind": "unit_scale", "group": target, "unit": label, "factor": factor, "rows": int(mask.sum())}


def _plant_duplicates(rng: random.Random, sc: Scenario, records: Any, pop: Any) -> tuple[Any, dict[str, Any]]:
    ids = set(pop[sc.id].astype(str))
    cand = records[records[sc.id].astype(str).isin(ids)]
    k = min(len(cand), rng.randint(3, 8))
    pick = cand.sample(n=k, random_state=rng.randrange(2**31))
    out = pd.concat([records, pick], ignore_index=True).sample(frac=1.0, random_state=rng.randrange(2**31))
    return out.reset_index(drop=True), {"kind": "duplicates", "count": k, "ids": sorted(pick[sc.id].astype(str))}


def _perturb(rng: random.Random, sc: Scenario, records: Any) -> Any:
    """An earlier or mistaken version: some records missing and some analysis values different."""
    out = records.drop(records.sample(frac=rng.uniform(0.04, 0.1), random_state=rng.randrange(2**31)).index)
    idx = out.sample(frac=rng.uniform(0.15, 0.3), random_state=rng.randrange(2**31)).index
    cols = [c for c in sc.numeric if c in out.columns and c != sc.id]
    for i in idx:
        c = rng.choice(cols) if cols else None
        if c is None or pd.isna(out.at[i, c]):
            continue
        v = float(out.at[i, c])
        nv = v * (1 + rng.choice((-1, 1)) * rng.uniform(0.05, 0.25)) if v else rng.choice((1.0, 2.0))
        out.at[i, c] = int(round(nv)) if float(v).is_integer() else round(nv, 2)
    return out.reset_index(drop=True)


def _text_writer(text: str) -> Any:
    def write(path: Any) -> None:
        write_text(path, text)

    return write


def _slug(s: str) -> str:
    return "_".join("".join(ch for ch in w.lower() if ch.isalnum()) for w in s.split()[:4]).strip("_")[:40]


def _sql_type(s: Any) -> str:
    k = getattr(s.dtype, "kind", "O")
    return "INTEGER" if k in "iub" else "REAL" if k == "f" else "TEXT"


def _rows(df: Any) -> list[list[Any]]:
    return [[None if (isinstance(v, float) and math.isnan(v)) else (v.item() if hasattr(v, "item") else v)
             for v in row] for row in df.itertuples(index=False, name=None)]


def _data_file(name: str, layout: str, df: Any, sc: Scenario, stem: str, role: str) -> RefFile:
    header = [str(c) for c in df.columns]
    notes = (f"Extract of {sc.entity} records ({sc.about}). Amounts are in {sc.unit} unless the row's unit says "
             "otherwise. Prepared by the data office; see the e-mail for the delivery note.")

    def write(path: Any) -> None:
        if layout == "csv":
            write_csv(path, header, _rows(df))
        elif layout == "sqlite":
            write_sqlite(path, stem, header, _rows(df), [_sql_type(df[c]) for c in df.columns])
        else:
            groups = sorted(df[sc.group].astype(str).unique())
            if len(groups) <= 10:
                sheets = [(g[:31].replace("/", "-"), header, _rows(df[df[sc.group].astype(str) == g])) for g in groups]
            else:
                n = max(1, math.ceil(len(df) / 3))
                sheets = [(f"Part {i + 1}", header, _rows(df.iloc[i * n:(i + 1) * n])) for i in range(3)]
            sheets.append(("Notes", ["note"], [[notes]]))
            sheets.append(("Dictionary", ["column", "description"], [[c, c.replace("_", " ")] for c in header]))
            write_xlsx(path, sheets)

    return RefFile(name=name, role=role, write=write, description=f"{layout} extract")


def _lookup_file(spec: dict[str, Any], frame: Any) -> RefFile:
    header = [str(c) for c in frame.columns]

    def write(path: Any) -> None:
        if spec["layout"] == "csv":
            write_csv(path, header, _rows(frame))
        else:
            write_xlsx(path, [(spec.get("sheet", "Sheet1"), header, _rows(frame)),
                                      ("Notes", ["note"], [[spec.get("note", "")]])])

    return RefFile(name=spec["file"], role="lookup", write=write, description="reference table")


def _policy_file(rng: random.Random, name: str, title: str, sc: Scenario, specific: list[str], *, identity: bool,
                 versions: bool) -> RefFile:
    paras = policy_paragraphs(rng, title=title, ident=sc.id, entity=sc.entity, unit=sc.unit, specific=specific,
                              units_rule=sc.unit_alt is not None, identity=identity, versions=versions)

    def write(path: Any) -> None:
        (write_pdf if name.endswith(".pdf") else write_docx)(path, title, paras)

    return RefFile(name=name, role="policy", write=write, description="house-rules memo")


def _delivery_email(rng: random.Random, sc: Scenario, file: str, date: str, requester: str, *,
                    identity_note: bool = False) -> tuple[str, str]:
    sender = person(rng)
    subject = rng.choice(("Extract delivered", "Data pull for your request", "Files for the review", "Your data request"))
    note = (" " + IDENTITY_NOTE.format(id=sc.id, entity=sc.entity)) if identity_note else ""
    body = rng.choice((
        f"Hi,\n\nThe extract you asked for is in the folder as {file}. It was pulled on {date}.{note}\n\n{sender}, Data Office",
        f"Hello,\n\nAs requested, here is the {sc.entity} extract ({file}).{note} Let me know if a column is unclear.\n\n{sender}",
        f"{requester.split()[0]},\n\nSaved {file} to the shared folder this morning. Same layout as last time.{note}\n\n"
        f"Regards,\n{sender}",
    ))
    return subject, email_text(sender=sender, to=requester, subject=subject, date=date, body=body)


def _version_email(rng: random.Random, sc: Scenario, right: str, wrong: str, date: str) -> tuple[str, str]:
    sender = person(rng)
    subject = rng.choice(("Correction to the extract", "Which file to use", "Re: extract - please read"))
    body = rng.choice((
        f"Hi,\n\nTwo files went out today. {wrong} was produced with the wrong filter and should not be used; "
        f"{right} is the correct one.\n\n{sender}",
        f"Quick note: please disregard {wrong}. It was an intermediate run. The approved extract is {right}.\n\n{sender}",
        f"Hello,\n\nI have double-checked both files. {right} reconciles to the system totals; {wrong} does not, so "
        f"please work from {right}.\n\n{sender}, Data Office",
    ))
    return subject, email_text(sender=sender, to="analysis team", subject=subject, date=date, body=body)


def _withdrawal_email(rng: random.Random, sc: Scenario, right: str, withdrawn: str, date: str) -> tuple[str, str]:
    """The data owner recalls the newer re-cut: the evidence lives here, not in a naming or dating rule."""
    sender = person(rng)
    reason = rng.choice((f"it picked up {sc.entity}s from a test environment", "the load job ran twice for part of the period",
                         "a filter change has not been signed off yet", "the unit column was mapped incorrectly"))
    subject = rng.choice(("Recall of the re-cut extract", "Please do not use the latest extract", "Re-cut withdrawn"))
    body = rng.choice((
        f"Hi all,\n\nWe are withdrawing {withdrawn}: {reason}. Until a corrected re-cut is issued, {right} remains the "
        f"extract of record.\n\n{sender}, Data Office",
        f"Hello,\n\nPlease ignore {withdrawn} for any reporting. On review, {reason}. Keep working from {right}.\n\n{sender}",
    ))
    return subject, email_text(sender=sender, to="analysis team", subject=subject, date=date, body=body)


def _distractors(rng: random.Random, sc: Scenario, stem: str, requester: str, date: str) -> list[RefFile]:
    out: list[RefFile] = []
    people = [requester] + [person(rng) for _ in range(rng.randint(2, 4))]
    notes = meeting_notes(rng, topic=sc.metric_noun + " review", people=people, date=date)
    out.append(RefFile(name=rng.choice(("meeting_notes.txt", "team_minutes.txt", "standup_notes.md", "notes_from_call.txt")),
                       role="distractor", write=_text_writer(notes), description="meeting notes"))
    if rng.random() < 0.7:
        from .scenarios import SCENARIOS

        other = rng.choice([s for s in SCENARIOS if s.source != sc.source])
        frame = _sample(rng, prepared_records(other), rng.randint(40, 150))
        name = rng.choice(("reference_", "background_", "previous_request_", "other_team_")) + other.key + ".csv"
        def write_frame(p: Any, f: Any = frame) -> None:
            write_csv(p, [str(c) for c in f.columns], _rows(f))

        out.append(RefFile(name=name, role="distractor", write=write_frame,
                           description=f"unrelated extract ({other.about})"))
    if rng.random() < 0.5:
        lines = [f"# Data dictionary: {stem}", ""] + [f"- {c}: {c.replace('_', ' ')}" for c in sc.numeric] + [
            "", f"Source: {sc.about}.", ""]
        out.append(RefFile(name=f"{stem}_data_dictionary.md", role="distractor",
                           write=_text_writer("\n".join(lines)), description="data dictionary"))
    return out


def graded_close(values: list[float], decimals: int) -> bool:
    """True when a graded value sits on a rounding boundary (the draw is then rejected)."""
    return any(near_rounding_boundary(v, decimals) for v in values if v is not None and not math.isnan(v))
