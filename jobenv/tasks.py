"""Tasks and rubrics: the pydantic model of one JobBench-style task and the loader of one task directory.

A task directory holds ``task_folder/`` (what the agent sees: ``TASK_INSTRUCTIONS.txt`` plus reference
files) and host-side files the agent never sees: ``RUBRICS.json`` (or a rubric file under
``ground_truth/``), and optionally ``task_card.md``, ``files_required_to_search/``, ``meta.json``,
``ground_truth/`` and ``solution/``.

Rubric validation follows the official JobBench rules; anything malformed raises
:class:`~jobenv.errors.TaskFormatError` naming the file and the field.

jobenv extension (ignored by the official tools): a rubric may carry ``"jobenv_checks"``, one deterministic
check per criterion (models in :mod:`jobenv.check_models`, evaluated by :mod:`jobenv.judge.checks`).
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .check_models import (
    CHECK_ADAPTER,
    AllOfCheck,
    AnyOfCheck,
    CellCheck,
    Check,
    ColumnsCheck,
    FieldCheck,
    FileExistsCheck,
    IdsCheck,
    LlmCheck,
    NotCheck,
    NumberCheck,
    RowCountCheck,
    TextCheck,
    check_json,
    needs_llm,
)
from .errors import TaskFormatError, UnknownTaskError, first_problem
from .harbor.spec import HarborSpec

__all__ = [
    "task_from_rubrics",
    "SCHEMA_VERSION",
    "Check",
    "FileExistsCheck",
    "TextCheck",
    "NumberCheck",
    "ColumnsCheck",
    "CellCheck",
    "RowCountCheck",
    "AllOfCheck",
    "AnyOfCheck",
    "NotCheck",
    "FieldCheck",
    "IdsCheck",
    "LlmCheck",
    "Rubric",
    "Task",
    "parse_rubrics",
    "load_rubrics_file",
    "load_task_dir",
    "normalize_task_id",
    "task_folder_number",
    "find_task",
    "select_tasks",
]

SCHEMA_VERSION = 1
INSTRUCTIONS_FILE = "TASK_INSTRUCTIONS.txt"
RUBRICS_FILE = "RUBRICS.json"

_TASK_DIR_RE = re.compile(r"^task(\d+)$")
# folder names seen in the wild: task3, task_03, task-3
_TASK_FOLDER_RE = re.compile(r"^task[_-]?0*(\d+)$")


class Rubric(BaseModel):
    """One weighted rubric: it earns ``weight`` only when every criterion passes."""

    model_config = ConfigDict(frozen=True)

    text: str
    weight: float
    criteria: list[str]
    checks: list[Check] | None = None

    def to_json(self) -> dict[str, Any]:
        """The official RUBRICS.json shape (plus ``jobenv_checks`` when present)."""
        out: dict[str, Any] = {"rubric": self.text, "weight": self.weight, "criterion": list(self.criteria)}
        if self.checks is not None:
            out["jobenv_checks"] = [check_json(c) for c in self.checks]
        return out


class Task(BaseModel):
    """One task. ``task_folder`` is the only thing the agent may see; everything else stays on the host."""

    model_config = ConfigDict(frozen=True)

    schema_version: int = SCHEMA_VERSION
    split: str
    occupation: str
    number: int
    instructions: str
    task_folder: Path
    rubrics: list[Rubric]
    root: Path
    task_card: Path | None = None
    search_files: Path | None = None
    meta: dict[str, Any] | None = None
    ground_truth: Path | None = None
    solution: Path | None = None
    revision: str | None = None  # the dataset revision the task came from, recorded in grading reports
    harbor: HarborSpec | None = None  # a Harbor task directory's settings (its tests/ grade it; no rubrics)

    @property
    def id(self) -> str:
        """``<occupation>/taskN``."""
        return f"{self.occupation}/task{self.number}"

    @property
    def domain(self) -> str:
        """The group reports show the task under: its ``meta["domain"]`` when set (a DAYJOB domain, a Harbor
        task's ``[metadata]`` domain), else its occupation."""
        return str((self.meta or {}).get("domain") or self.occupation)

    @property
    def uid(self) -> str:
        """``<split>/<occupation>/taskN``: unique across splits."""
        return f"{self.split}/{self.id}"

    @property
    def max_score(self) -> float:
        return float(sum(r.weight for r in self.rubrics))

    @property
    def has_checks(self) -> bool:
        """True when every criterion has a deterministic check (none is marked ``llm``): no LLM needed."""
        return all(r.checks is not None and not any(needs_llm(c) for c in r.checks) for r in self.rubrics)

    @property
    def llm_criteria(self) -> list[tuple[int, int]]:
        """(rubric, criterion) indices the LLM judge must grade: no check, or a check marked ``llm``."""
        return [(i, j) for i, r in enumerate(self.rubrics) for j in range(len(r.criteria))
                if r.checks is None or needs_llm(r.checks[j])]


def normalize_task_id(task_id: str) -> str:
    """Accept ``<occupation>/taskN``, the Hub's ``<occupation>__taskN`` or ``<split>/<occupation>/taskN``.

    Returns the id unchanged in form except ``__`` turned into ``/``; raises TaskFormatError on anything else.
    """
    tid = task_id.strip().replace("__", "/")
    parts = tid.split("/")
    if len(parts) not in (2, 3) or not _TASK_DIR_RE.match(parts[-1]) or not all(parts):
        raise TaskFormatError(
            f"task id {task_id!r}: expected '<occupation>/taskN' (or '<occupation>__taskN')"
        )
    return tid


def find_task(tasks: Sequence[Task], key: str | int, *, where: str = "split") -> Task:
    """The task named by ``key`` within ``tasks``: the one rule for looking a task up.

    ``key`` is an index (an int, or a string of digits), ``<occupation>/taskN``, the Hub's
    ``<occupation>__taskN`` or ``<split>/<occupation>/taskN``; a bare id in a multi-split list names the first
    split's task. Raises :class:`UnknownTaskError` (naming ``where`` and a few ids that exist) otherwise.
    """
    if isinstance(key, bool):
        raise UnknownTaskError(f"{where}: task key {key!r} is neither an index nor a task id")
    if isinstance(key, str) and key.strip().isdigit():
        key = int(key.strip())
    if not isinstance(key, str):
        try:
            idx = operator.index(key)
        except TypeError:
            raise UnknownTaskError(f"{where}: task key {key!r} is neither an index nor a task id") from None
        if not 0 <= idx < len(tasks):
            raise UnknownTaskError(f"{where}: index {idx} out of range 0..{len(tasks) - 1}")
        return tasks[idx]
    for task in tasks:  # an exact id first: a Harbor task's directory name may itself hold "__"
        if key in (task.id, task.uid):
            return task
    try:
        tid = normalize_task_id(key)
    except TaskFormatError as exc:
        raise UnknownTaskError(f"{where}: {exc}") from None
    for task in tasks:
        if tid in (task.id, task.uid):
            return task
    some = ", ".join(t.id for t in tasks[:5])
    raise UnknownTaskError(f"{where}: no task {key!r} (tasks include: {some}{', ...' if len(tasks) > 5 else ''})")


def select_tasks(tasks: Sequence[Task], keys: Sequence[str | int] | None, *, where: str = "split") -> list[Task]:
    """The tasks named by ``keys`` (see :func:`find_task`), in the order given, each once; all of ``tasks`` when
    ``keys`` is None or empty. Raises :class:`UnknownTaskError` for the first key that names no task."""
    if not keys:
        return list(tasks)
    chosen: list[Task] = []
    for key in keys:
        task = find_task(tasks, key, where=where)
        if all(task is not c for c in chosen):
            chosen.append(task)
    return chosen


def task_folder_number(name: str) -> int | None:
    """N of a task folder named ``taskN`` (also ``task_03``, ``task-3``); None for any other name."""
    m = _TASK_FOLDER_RE.match(name)
    return int(m.group(1)) if m else None


def _fail(source: str, where: str, message: str) -> TaskFormatError:
    return TaskFormatError(f"{source}: {where}: {message}" if where else f"{source}: {message}")


def _weight(value: Any, source: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(source, where, f"must be a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise _fail(source, where, "must be finite")
    if value < 0:
        raise _fail(source, where, "must be >= 0")
    return float(value)


def parse_rubrics(data: Any, source: str = RUBRICS_FILE) -> list[Rubric]:
    """Validate a parsed RUBRICS.json document with the official rules and return the rubrics.

    Accepts the list key ``rubrics`` or ``evaluation_rubrics`` (or a bare list), and ``criterion`` as a
    list or a single string. Raises TaskFormatError naming ``source`` and the offending field.
    """
    if isinstance(data, dict):
        key = "rubrics" if "rubrics" in data else "evaluation_rubrics" if "evaluation_rubrics" in data else None
        if key is None:
            raise _fail(source, "", "no 'rubrics' (or 'evaluation_rubrics') list")
        items = data[key]
    elif isinstance(data, list):
        key, items = "rubrics", data
    else:
        raise _fail(source, "", f"expected a JSON object, got {type(data).__name__}")
    if not isinstance(items, list) or not items:
        raise _fail(source, key, "must be a non-empty list")

    rubrics: list[Rubric] = []
    for i, item in enumerate(items):
        where = f"{key}[{i}]"
        if not isinstance(item, dict):
            raise _fail(source, where, "must be an object")
        text = item.get("rubric")
        if not isinstance(text, str) or not text.strip():
            raise _fail(source, f"{where}.rubric", "must be non-empty text")
        if "weight" not in item:
            raise _fail(source, f"{where}.weight", "is missing")
        weight = _weight(item["weight"], source, f"{where}.weight")
        criteria = item.get("criterion", item.get("criteria"))
        if isinstance(criteria, str):
            criteria = [criteria]
        if not isinstance(criteria, list) or not criteria:
            raise _fail(source, f"{where}.criterion", "must be a non-empty list of text")
        for j, c in enumerate(criteria):
            if not isinstance(c, str) or not c.strip():
                raise _fail(source, f"{where}.criterion[{j}]", "must be non-empty text")
        checks = None
        if "jobenv_checks" in item:
            raw = item["jobenv_checks"]
            if not isinstance(raw, list) or len(raw) != len(criteria):
                raise _fail(
                    source, f"{where}.jobenv_checks", f"must be a list with one check per criterion ({len(criteria)})"
                )
            checks = []
            for j, c in enumerate(raw):
                try:
                    checks.append(CHECK_ADAPTER.validate_python(c))
                except ValidationError as exc:
                    loc, msg, _ = first_problem(exc)
                    raise _fail(source, f"{where}.jobenv_checks[{j}]" + (f".{loc}" if loc else ""), msg) from None
        rubrics.append(Rubric(text=text, weight=weight, criteria=list(criteria), checks=checks))
    if sum(r.weight for r in rubrics) <= 0:
        raise _fail(source, key, "total weight must be > 0")
    return rubrics


def load_rubrics_file(path: Path) -> list[Rubric]:
    """Read and validate one rubric file; TaskFormatError on unreadable or invalid JSON."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFormatError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TaskFormatError(f"{path}: not valid JSON: {exc}") from None
    return parse_rubrics(data, str(path))


def _find_rubric_file(task_dir: Path) -> Path | None:
    direct = task_dir / RUBRICS_FILE
    if direct.is_file():
        return direct
    gt = task_dir / "ground_truth"
    if gt.is_dir():
        candidates = sorted(p for p in gt.rglob("*.json") if "rubric" in p.name.lower())
        if candidates:
            return candidates[0]
    return None


def load_task_dir(
    task_dir: Path, split: str, occupation: str | None = None, *, revision: str | None = None
) -> Task:
    """Load ``<occupation>/taskN/`` from disk.

    The occupation is ``meta.json``'s ``occupation`` when it names one, else ``occupation``, else the
    parent folder's name. Raises TaskFormatError when the folder name is not ``taskN``,
    ``task_folder/TASK_INSTRUCTIONS.txt`` is missing, the rubric file is missing or invalid, or
    ``meta.json`` is not a JSON object.
    """
    task_dir = Path(task_dir)
    number = task_folder_number(task_dir.name)
    if number is None:
        raise TaskFormatError(f"{task_dir}: task folder name must be 'taskN'")
    folder = task_dir / "task_folder"
    instructions_path = folder / INSTRUCTIONS_FILE
    if not instructions_path.is_file():
        raise TaskFormatError(f"{instructions_path}: missing (every task needs task_folder/{INSTRUCTIONS_FILE})")
    rubric_path = _find_rubric_file(task_dir)
    if rubric_path is None:
        raise TaskFormatError(f"{task_dir / RUBRICS_FILE}: missing (no rubric file in the task or ground_truth/)")
    meta = None
    meta_path = task_dir / "meta.json"
    if meta_path.is_file():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise TaskFormatError(f"{meta_path}: not valid JSON: {exc}") from None
        if not isinstance(meta, dict):
            raise TaskFormatError(f"{meta_path}: must be a JSON object")
    meta_occupation = meta.get("occupation") if meta else None
    if isinstance(meta_occupation, str) and meta_occupation.strip():
        occupation = meta_occupation.strip()

    def optional(name: str, want_dir: bool) -> Path | None:
        p = task_dir / name
        return p if (p.is_dir() if want_dir else p.is_file()) else None

    return Task(
        split=split,
        occupation=occupation or task_dir.parent.name,
        number=number,
        instructions=instructions_path.read_text(encoding="utf-8", errors="replace"),
        task_folder=folder,
        rubrics=load_rubrics_file(rubric_path),
        root=task_dir,
        task_card=optional("task_card.md", False),
        search_files=optional("files_required_to_search", True),
        meta=meta,
        ground_truth=optional("ground_truth", True),
        solution=optional("solution", True),
        revision=revision,
    )


def task_from_rubrics(path: Path) -> Task:
    """A Task holding the rubrics of RUBRICS.json ``path``, with the ``TASK_INSTRUCTIONS.txt`` and ``meta.json``
    beside it when present (the checks read both); all the grader needs. TaskFormatError for bad rubrics."""
    path = Path(path)
    rubrics = load_rubrics_file(path)
    root = path.resolve().parent
    meta = None
    meta_path = root / "meta.json"
    if meta_path.is_file():
        try:
            loaded = json.loads(meta_path.read_text(encoding="utf-8"))
            meta = loaded if isinstance(loaded, dict) else None
        except (OSError, ValueError):
            meta = None
    instructions_path = root / "TASK_INSTRUCTIONS.txt"
    instructions = instructions_path.read_text(encoding="utf-8", errors="replace") if instructions_path.is_file() else ""
    return Task(split="adhoc", occupation=root.parent.name or "adhoc",
                number=int(root.name[4:]) if root.name.startswith("task") and root.name[4:].isdigit() else 0,
                instructions=instructions, task_folder=root / "task_folder", rubrics=rubrics, root=root, meta=meta)
