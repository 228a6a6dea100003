"""Deterministic checks: grade a task whose rubrics carry ``jobenv_checks`` with no network and no LLM.

This module is the one evaluator of check definitions (:mod:`jobenv.check_models`): the checks judge, the
hybrid ``auto`` judge and the synthetic generator's quality gate all call :func:`evaluate_rubrics`. How
deliverables are read (numbers, labelled facts, tables) is in :mod:`jobenv.judge.reading`.

Rules that decide scores:

* A check reads one deliverable: the single file matching ``file`` or one of its ``alternatives``
  (case-insensitive relative paths, ``output/`` ignored). No match fails; several candidate files for one
  deliverable fail ("copies cannot hedge"). Every check of a grading resolves a name the same way, so all
  sub-checks of one rubric read the same file.
* ``field``: every value given for the label must pass; none given fails. Text answers may be followed by
  an explanation; a value naming two of the field's ``options`` fails. Numbers: of the value's numbers
  outside asides ("(after removing 4 duplicates)"; an aside offering an alternative, "(or 41,300)", is
  read) in its first clause ("-5.47 mmHg, 95% CI ..." reads -5.47), one is within the tolerance and none of
  the same magnitude (a tenth to ten times) is outside it.
* ``number``: a number within the tolerance appears; another distinct number within 0.5 % of the value
  (a candidate answer), or more than ``SPRAY_LIMIT`` numbers near it, fails.
* ``text``: patterns that refer to lines run only on text that keeps its lines.
* Tables: the header is the first of the first 20 rows holding every column the check needs (a header
  cell may carry a unit in parentheses); ``row_count`` counts rows with a filled key column that are not
  total or note rows; ``cell`` needs every row (in every candidate sheet) matching the key to agree.
* A criterion that proves no work - structure (files, columns, stated counts), a prohibition, a choice
  (decision, yes/no, flag cell), "none", a keyword - is credited only when each deliverable it reads exists
  and carries substance: a criterion of the task that proves work passes on that same file (or, with none
  defined, the file is more than placeholders). The rule and what proves work: :mod:`jobenv.judge.substance`.
  Placeholders with the right names, headers, row count, guessed flags and the negative decision earn nothing.

Failure behaviour: evaluating a check never raises. A deliverable that cannot be read makes the criterion
fail with the reason as evidence; a task with criteria needing the LLM is a grading *error* here.
"""

from __future__ import annotations

import fnmatch
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..check_models import (
    AllOfCheck,
    AnyOfCheck,
    CellCheck,
    ColumnsCheck,
    FieldCheck,
    FileExistsCheck,
    IdsCheck,
    LlmCheck,
    NotCheck,
    NumberCheck,
    RowCountCheck,
    TextCheck,
    check_leaves,
)
from ..extract import Extraction, ExtractMode
from ..extract.service import extraction_service
from . import reading
from .base import Judge, empty_output_report, rejected_report
from .facts import Verdict, allowed, close, judge_field_value
from .reading import parse_numbers, to_number
from .report import CriterionResult, GradeReport, RubricResult, build_report
from .substance import (
    copied_cells,
    needs_substance,
    placeholder_only,
    proves_work,
    stated,
    work_leaves,
)
from .tables import check_cell, check_columns, check_row_count

__all__ = ["ChecksJudge", "CheckContext", "evaluate_check", "evaluate_rubrics", "recalculate_ahead",
           "parse_numbers", "SPRAY_LIMIT"]

_TABLE_EXTS = {"csv", "tsv", "xlsx", "xlsm", "xls"}
SPRAY_LIMIT = 25
_LINE_AWARE_RE = re.compile(r"\(\?[a-zA-Z]*m|\^|\$|\\n|\\r")


_DOC_EXTS = {"md", "txt", "docx", "doc", "pdf", "pptx", "html", "rtf", "odt", *_TABLE_EXTS}


def _stem(path: str) -> str:
    """A file's folder and name without extension, case or separators ("output/Rec Notes.docx" -> "recnotes")."""
    folder, _, name = _clean_name(path).rpartition("/")
    return folder + "/" + re.sub(r"[\W_]+", "", name.rsplit(".", 1)[0] if "." in name else name)


def _clean_name(pattern: str) -> str:
    p = pattern.strip().lower().removeprefix("./")
    return p.removeprefix("output/")


class CheckContext:
    """The deliverables of one grading: the extraction plus lazily read facts, numbers and tables."""

    def __init__(self, extraction: Extraction) -> None:
        self.extraction = extraction
        self._files = extraction.file_map()
        self._cache: dict[tuple[str, str], Any] = {}
        self.scales: frozenset[str] = frozenset()  # units the instructions name (set by evaluate_rubrics)

    def files(self, pattern: str) -> list[str]:
        pat = _clean_name(pattern)
        return [f.path for f in self.extraction.files if fnmatch.fnmatchcase(f.path.lower(), pat)]

    def resolve(self, check: Any) -> tuple[str | None, str]:
        """(the one file a check reads, "") or (None, why not). With no file of the name, the one file with the
        same name in the same folder in another document format is the deliverable (a memo asked as .md and written as .docx or
        .xlsx: the official judge reads every file of ``output/``)."""
        hits = sorted({rel for name in check.names for rel in self.files(name)})
        if not hits:
            stems = {_stem(n) for n in check.names if not any(ch in n for ch in "*?[")}
            hits = sorted(f.path for f in self.extraction.files if _stem(f.path) in stems
                          and f.path.rsplit(".", 1)[-1].lower() in _DOC_EXTS)
        names = " or ".join(repr(n) for n in check.names)
        if not hits:
            return None, f"no deliverable named {names}"
        if len(hits) > 1:
            return None, f"several candidate deliverables for {names}: {', '.join(hits[:6])} (copies cannot hedge)"
        return hits[0], ""

    def _memo(self, kind: str, rel: str, make: Any) -> Any:
        key = (kind, rel)
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def text(self, rel: str) -> str:
        return self._files[rel].text

    def lines_text(self, rel: str) -> str:
        """The text with Markdown escapes and emphasis removed, lines kept."""
        return self._memo("lines", rel, lambda: reading.strip_markup(self.text(rel)))

    def flat(self, rel: str) -> str:
        """:meth:`lines_text` with whitespace collapsed (a phrase broken across lines still matches)."""
        return self._memo("flat", rel, lambda: " ".join(self.lines_text(rel).split()))

    def others(self, rel: str) -> list[str]:
        """The deliverables other than ``rel`` (every file the official judge reads)."""
        return [f.path for f in self.extraction.files if f.path != rel]

    def is_table(self, rel: str) -> bool:
        return rel.rsplit(".", 1)[-1].lower() in _TABLE_EXTS

    def facts(self, rel: str) -> dict[str, list[str]]:
        def make() -> dict[str, list[str]]:
            f = self._files[rel]
            if self.is_table(rel):
                tabs = self.tables(rel)
                if not isinstance(tabs, str):  # the cells as parsed, not the extraction's row-numbered text
                    return reading.facts_from_lines(reading.sheet_lines(tabs))
            if self.is_table(rel) or f.kind == "workbook":
                return reading.facts_from_lines(reading.table_lines(f.text))
            if rel.lower().endswith(".docx"):
                # parsed in a bounded worker like every agent-written file (a str is a stopped job)
                lines = extraction_service().call_sync("docx_lines", self.extraction.root / rel)
                if isinstance(lines, list):
                    return reading.facts_from_lines(lines)
            return reading.facts_from_lines(f.text.splitlines())

        return self._memo("facts", rel, make)

    def numbers(self, rel: str) -> list[float]:
        """Numbers of one deliverable; tables are read cell by cell (with their number formats)."""

        def make() -> list[float]:
            if self.is_table(rel):
                tabs = self.tables(rel)
                if not isinstance(tabs, str):
                    out: list[float] = []
                    for _, rows in tabs:
                        for row in rows:
                            for v in row:
                                x = to_number(v)
                                if x is not None:
                                    out.append(x)
                                elif isinstance(v, str):
                                    out.extend(parse_numbers(v))
                    return out
            return parse_numbers(self.flat(rel))

        return self._memo("numbers", rel, make)

    def tables(self, rel: str) -> list[tuple[str, list[list[Any]]]] | str:
        # parsed in a bounded worker, like the extraction: a table file is agent-controlled bytes too
        return self._memo("tables", rel, lambda: extraction_service().call_sync("tables", self.extraction.root / rel))


def _check_field(c: FieldCheck, ctx: CheckContext) -> Verdict:
    rel, why = ctx.resolve(c)
    if rel is None:
        return False, why
    facts = ctx.facts(rel)
    values: list[str] = []
    for label in c.labels:
        values.extend(facts.get(reading.norm_label(label), []))
    if not values:
        return False, f"no '{c.label}:' line or table row in {rel}"
    verdicts = [judge_field_value(c, v, ctx.scales) for v in dict.fromkeys(values)]
    bad = [e for ok, e in verdicts if not ok]
    if bad:
        many = f" ({len(verdicts)} values given for one label)" if len(verdicts) > 1 else ""
        return False, f"{rel}: {c.label}: {bad[0]}{many}"
    for other in ctx.others(rel):  # one graded fact, one value: another deliverable may not offer a second
        for label in c.labels:
            for v in ctx.facts(other).get(reading.norm_label(label), []):
                ok, why = judge_field_value(c, v, ctx.scales)
                if not ok:
                    return False, f"{other} gives {c.label} another value beside {rel}: {why}"
    return True, f"{rel}: {c.label}: {verdicts[0][1]}"


def _check_number(c: NumberCheck, ctx: CheckContext, *, presence_only: bool = False) -> Verdict:
    rel, why = ctx.resolve(c)
    if rel is None:
        return False, why
    tol = allowed(c, c.value)
    nums = ctx.numbers(rel)
    hits = [x for x in nums if close(x, c.value, tol, c.sign)]
    if presence_only:
        return (True, f"{hits[0]:g} found in {rel}") if hits else (False, f"no {c.value:g} in {rel}")

    def dist(x: float) -> float:
        return abs(abs(x) - abs(c.value)) if c.sign == "either" else abs(x - c.value)

    near = {x for x in nums if dist(x) <= max(0.01 * abs(c.value), 50 * tol, 0.5)}
    if len(near) > SPRAY_LIMIT:
        return False, f"{len(near)} distinct numbers near {c.value:g} in {rel}: too many to credit (number spraying)"
    if not hits:
        closest = min(nums, key=lambda x: abs(x - c.value), default=None)
        return False, f"no number within {tol:g} of {c.value:g} in {rel}" + (
            f"; closest {closest:g}" if closest is not None else "")
    rivals = sorted({x for x in nums if dist(x) <= max(0.005 * abs(c.value), 10 * tol)
                     and not close(x, c.value, tol, c.sign)})
    if rivals:
        return False, f"{rel} gives {c.value:g} and competing candidates {', '.join(f'{x:g}' for x in rivals[:5])}"
    second = _second_value(c, ctx, rel, tol)
    if second:
        return False, second
    return True, f"{hits[0]:g} found in {rel} (expected {c.value:g} +/- {tol:g})"


def _second_value(c: NumberCheck, ctx: CheckContext, rel: str, tol: float) -> str:
    """Why the figure is offered twice, or "": a label whose value in ``rel`` gives the figure is given, in any
    deliverable, a value with another figure of the same quantity (half to twice it) and not the figure."""
    def gives(v: str) -> tuple[bool, bool]:
        xs = [n.value for n in reading.find_numbers(v)]
        return (any(close(x, c.value, tol, c.sign) for x in xs),
                any(c.value and 0.5 <= abs(x) / abs(c.value) <= 2 and not close(x, c.value, tol, c.sign) for x in xs))

    labels = [k for k, vs in ctx.facts(rel).items() if any(gives(v)[0] for v in vs)]
    for f in [rel, *ctx.others(rel)]:
        facts = ctx.facts(f)
        for k in labels:
            for v in facts.get(k, []):
                hit, rival = gives(v)
                if rival and not hit:
                    return f"{f} gives {k!r} another value ({v!r}) beside {c.value:g} in {rel}"
    return ""


def _check_text(c: TextCheck, ctx: CheckContext) -> Verdict:
    rel, why = ctx.resolve(c)
    if rel is None:
        return False, why
    flags = 0 if c.case_sensitive else re.IGNORECASE
    pat = re.compile(c.pattern if c.regex else re.escape(c.pattern), flags)
    variants = [ctx.lines_text(rel)]
    if not (c.regex and _LINE_AWARE_RE.search(c.pattern)):
        variants.append(ctx.flat(rel))
    found = None
    for text in variants:
        m = pat.search(text)
        if m:
            a, b = max(0, m.start() - 40), min(len(text), m.end() + 40)
            found = " ".join(text[a:b].split())
            break
    if c.absent:
        return (False, f"forbidden {c.pattern!r} in {rel}: ...{found}...") if found else (
            True, f"{c.pattern!r} absent from {rel}")
    return (True, f"{c.pattern!r} in {rel}: ...{found}...") if found else (False, f"{c.pattern!r} not in {rel}")


def _id_patterns(ident: str, digits: bool) -> list[re.Pattern[str]]:
    # an id is a token: an underscore or a dot around it (a file name) still separates it
    pats = [re.compile(r"(?<![^\W_])(?<!-)" + re.escape(ident) + r"(?![^\W_])(?!-)", re.IGNORECASE)]
    d = re.sub(r"\D", "", ident)
    if digits and d and d != ident:
        pats.append(re.compile(r"(?<![\d.,])0*" + str(int(d)) + r"(?!\d|[.,]\d)"))
    return pats


def _check_ids(c: IdsCheck, ctx: CheckContext) -> Verdict:
    rel, why = ctx.resolve(c)
    if rel is None:
        return False, why
    text = ctx.flat(rel)
    seen = [i for i in c.ids if any(p.search(text) for p in _id_patterns(i, c.digits))]
    if c.present == "none":
        return (False, f"{rel} shows {len(seen)} of the ids, e.g. {seen[:3]}") if seen else (
            True, f"none of {len(c.ids)} ids in {rel}")
    missing = [i for i in c.ids if i not in seen]
    return (False, f"{rel} lacks {missing[:5]}") if missing else (True, f"all {len(c.ids)} ids in {rel}")


# ---------------------------------------------------------------------------------------------- evaluation


def evaluate_check(check: Any, ctx: CheckContext) -> Verdict:
    """(passed, evidence) for one check. Never raises: an unexpected failure fails the check with its reason."""
    try:
        if isinstance(check, FileExistsCheck):
            rel, why = ctx.resolve(check)
            return (True, f"found {rel}") if rel else (False, why)
        if isinstance(check, FieldCheck):
            return _check_field(check, ctx)
        if isinstance(check, NumberCheck):
            return _check_number(check, ctx)
        if isinstance(check, TextCheck):
            return _check_text(check, ctx)
        if isinstance(check, IdsCheck):
            return _check_ids(check, ctx)
        if isinstance(check, ColumnsCheck):
            return check_columns(check, ctx)
        if isinstance(check, CellCheck):
            return check_cell(check, ctx)
        if isinstance(check, RowCountCheck):
            return check_row_count(check, ctx)
        if isinstance(check, AllOfCheck):
            subs = [evaluate_check(s, ctx) for s in check.checks]
            return all(p for p, _ in subs), "all of: " + " | ".join(("PASS " if p else "FAIL ") + e for p, e in subs)
        if isinstance(check, AnyOfCheck):
            subs = [evaluate_check(s, ctx) for s in check.checks]
            return any(p for p, _ in subs), "any of: " + " | ".join(("PASS " if p else "FAIL ") + e for p, e in subs)
        if isinstance(check, NotCheck):
            if isinstance(check.check, NumberCheck):  # "does not contain X": presence, not candidate rules
                p, e = _check_number(check.check, ctx, presence_only=True)
            else:
                p, e = evaluate_check(check.check, ctx)
            return (not p), f"not ({e})"
        if isinstance(check, LlmCheck):
            return False, "needs the LLM judge" + (f" ({check.reason})" if check.reason else "")
        return False, f"unknown check kind {getattr(check, 'kind', type(check).__name__)!r}"
    except Exception as exc:  # odd deliverables fail the criterion, they never crash grading
        return False, f"check could not be evaluated: {type(exc).__name__}: {str(exc)[:200]}"


def _substance(rel: str, work: list[Any], ctx: CheckContext, seen: dict[str, bool]) -> bool:
    """Whether deliverable ``rel`` carries a right fact: a check that proves work passes on it; with none defined
    for it, it is more than placeholders (:func:`jobenv.judge.substance.placeholder_only`). Decided once per file
    of a grading (``seen``)."""
    if rel not in seen:
        mine = [leaf for leaf in work if ctx.resolve(leaf)[0] == rel]
        seen[rel] = (any(evaluate_check(leaf, ctx)[0] for leaf in mine) if mine
                     else not placeholder_only(ctx.flat(rel)))
    return seen[rel]


def evaluate_rubrics(rubrics: Sequence[Any], source: CheckContext | Extraction | Path, *,
                     instructions: str = "", inputs: Path | None = None) -> list[list[Verdict | None]]:
    """Per rubric, per criterion: (passed, evidence), or None where the criterion needs the LLM judge.

    ``rubrics`` are :class:`jobenv.tasks.Rubric` models (a rubric without checks gives None for every
    criterion); ``source`` an output directory, its extraction or a context; ``instructions`` the task's text
    (a row count it states is no proof of work); ``inputs`` the task's input folder (a cell its tables state is no
    proof of work, :func:`jobenv.judge.substance.copied_cells`). Never raises for a bad
    deliverable. This is the one evaluator of check definitions (judges and the generator's gate).
    """
    if isinstance(source, CheckContext):
        ctx = source
    elif isinstance(source, Extraction):
        ctx = CheckContext(source)
    else:
        ctx = CheckContext(extraction_service().extract_output_sync(Path(source), with_images=False, total_cap=None))
    leaves = [leaf for r in rubrics for c in (r.checks or []) for leaf in check_leaves(c)]
    known = stated(instructions, copied_cells(leaves, inputs))
    ctx.scales = reading.stated_scales(instructions)
    work = [leaf for r in rubrics for c in (r.checks or []) for leaf in work_leaves(c) if proves_work(leaf, known)]
    substance: dict[str, bool] = {}
    out: list[list[Verdict | None]] = []
    for r in rubrics:
        row: list[Verdict | None] = []
        for j in range(len(r.criteria)):
            check = r.checks[j] if r.checks is not None else None
            if check is None or any(isinstance(leaf, LlmCheck) for leaf in check_leaves(check)):
                row.append(None)
                continue
            passed, evidence = evaluate_check(check, ctx)
            if passed and needs_substance(check, known):
                for leaf in check_leaves(check):
                    rel = ctx.resolve(leaf)[0] if hasattr(leaf, "names") else None
                    if rel is None and hasattr(leaf, "names"):
                        passed, evidence = False, f"not credited: {ctx.resolve(leaf)[1]}"
                        break
                    if rel is not None and not _substance(rel, work, ctx, substance):
                        passed, evidence = False, (f"not credited: {rel} carries no substance (no graded fact in "
                                                   "it that a guess cannot supply is right)")
                        break
            row.append((passed, evidence))
        out.append(row)
    return out


def check_results(task: Any, verdicts: list[list[Verdict | None]]) -> list[RubricResult]:
    """Rubric results of a fully checkable task from :func:`evaluate_rubrics` (every criterion decided)."""
    results = []
    for i, (rubric, row) in enumerate(zip(task.rubrics, verdicts, strict=True)):
        crit = []
        for j, (text, v) in enumerate(zip(rubric.criteria, row, strict=True)):
            assert v is not None
            kind = rubric.checks[j].kind if rubric.checks else "?"
            crit.append(CriterionResult(index=j, criterion=text, passed=v[0], reasoning=f"deterministic {kind} check",
                                        evidence=v[1], grader="checks"))
        results.append(RubricResult(index=i, rubric=rubric.text, weight=rubric.weight, criteria_results=crit))
    return results


class ChecksJudge(Judge):
    """Grades with the tasks' deterministic checks. A criterion without a sound check makes the report an error."""

    kind = "checks"

    def __init__(self, *, mode: ExtractMode = "values") -> None:
        self.mode = mode

    def unable(self, task: Any) -> str | None:
        if task.has_checks:
            return None
        return (f"{len(task.llm_criteria)} criteria have no sound deterministic check; use judge='auto' or 'llm' "
                "with an LLM endpoint (JOBENV_JUDGE_BASE_URL, JOBENV_JUDGE_API_KEY, JOBENV_JUDGE_MODEL)")

    async def grade(self, task: Any, output_dir: Path) -> GradeReport:
        """Never raises. The extraction is awaited, not waited for on a thread: a thread of the loop's small
        default executor blocked on the shared extraction workers would stall every other episode's file I/O."""
        import asyncio

        t0 = time.perf_counter()
        if not task.has_checks:
            return self.grade_blocking(task, output_dir, t0=t0)
        try:
            ex = await extraction_service().extract_output(Path(output_dir), mode=self.mode, with_images=False,
                                                           total_cap=None)  # checks fit no context window
        except Exception as exc:
            return self._failed(task, exc, t0)
        return await asyncio.to_thread(self.grade_blocking, task, output_dir, ex, t0=t0)

    def _failed(self, task: Any, exc: Exception, t0: float) -> GradeReport:
        return build_report(task, [], judge_kind=self.kind, judge_model=None, mode=self.mode,
                            extra_errors=[f"checks judge failed: {type(exc).__name__}: {exc}"],
                            latency_s=time.perf_counter() - t0)

    def grade_blocking(self, task: Any, output_dir: Path, extraction: Extraction | None = None, *,
                       t0: float | None = None) -> GradeReport:
        """Synchronous grading; never raises (an internal failure becomes ``status="error"``). ``t0`` is when
        grading began (for the report's latency), if before this call."""
        t0 = time.perf_counter() if t0 is None else t0
        try:
            if not task.has_checks:
                todo = task.llm_criteria
                return build_report(
                    task, [], judge_kind=self.kind, judge_model=None, mode=self.mode,
                    extra_errors=[f"the checks judge cannot grade {len(todo)} criteria of this task that need the LLM "
                                  f"judge (rubric, criterion): {todo[:8]}; use judge='auto' or 'llm' with an LLM "
                                  "configured"],
                    latency_s=time.perf_counter() - t0,
                )
            ex = extraction if extraction is not None else extraction_service().extract_output_sync(
                Path(output_dir), mode=self.mode, with_images=False, total_cap=None)
            if ex.rejected:
                return rejected_report(task, ex, self.kind, None, self.mode, t0)
            if ex.empty:
                return empty_output_report(task, self.kind, None, self.mode, t0)
            results = check_results(task, evaluate_rubrics(task.rubrics, CheckContext(ex),
                                                           instructions=getattr(task, "instructions", "") or "",
                                                           inputs=getattr(task, "task_folder", None)))
            return build_report(task, results, judge_kind=self.kind, judge_model=None, mode=self.mode,
                                latency_s=time.perf_counter() - t0)
        except Exception as exc:  # fail-closed: never a score from a crashed grader
            return self._failed(task, exc, t0)


def recalculate_ahead(*folders: Path) -> int:
    """Recalculate every workbook under ``folders`` in one engine run before several gradings read them one after
    another (a generator's gates, the probes): a workbook then costs a fraction of a second, not an engine start.
    Only a speed-up, never a change of reading: a worker that did not run it recalculates as usual. Returns how
    many were recalculated (0 without LibreOffice, or when a budget stopped the run)."""
    paths = sorted(str(p) for f in folders for p in Path(f).rglob("*")
                   if p.suffix.lower() in (".xlsx", ".xlsm") and p.is_file() and not p.is_symlink())
    done = extraction_service().call_sync("recalculate_batch", paths) if paths else 0
    return done if isinstance(done, int) else 0
