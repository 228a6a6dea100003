"""The deterministic check models: one check per rubric criterion, stored as ``jobenv_checks`` in RUBRICS.json.

A rubric may carry ``"jobenv_checks"``, a list with one check per criterion (same order), so the task can
be graded without an LLM (an extension the official tools ignore)::

    {"rubric": "Reports the Q3 total", "weight": 10,
     "criterion": ["States the Q3 total of 41,250", "Delivers summary.xlsx"],
     "jobenv_checks": [
        {"kind": "field", "file": "memo.md", "label": "Q3 total", "number": 41250, "tolerance": 0.5},
        {"kind": "file_exists", "file": "summary.xlsx"}]}

Every check that reads a deliverable names it with ``file`` (a path relative to the output directory,
compared case-insensitively; ``output/`` in front is ignored; glob characters allowed) and optionally
``alternatives`` (other names the task allows). Exactly one file may match: none fails as missing, and
several candidate files for one deliverable fail (copies cannot hedge). Kinds, and the rules that decide
them, are implemented once in :mod:`jobenv.judge.checks`:

``file_exists``, ``field`` (a labelled fact: a ``Label: value`` line or a table row), ``number``,
``text``, ``ids`` (real identifiers present or absent), ``columns``, ``cell``, ``row_count``, the
combinators ``all_of``, ``any_of``, ``not``, and ``llm`` (the criterion needs the LLM judge).

Models are frozen pydantic models; invalid definitions raise ``pydantic.ValidationError`` (the task
loader turns that into :class:`~jobenv.errors.TaskFormatError` naming the field).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

__all__ = [
    "Check",
    "CHECK_ADAPTER",
    "FileExistsCheck",
    "FieldCheck",
    "NumberCheck",
    "TextCheck",
    "IdsCheck",
    "ColumnsCheck",
    "CellCheck",
    "RowCountCheck",
    "AllOfCheck",
    "AnyOfCheck",
    "NotCheck",
    "LlmCheck",
    "parse_check",
    "check_json",
    "check_leaves",
    "needs_llm",
]

Sign = Literal["exact", "either"]


class _CheckBase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _FileCheck(_CheckBase):
    file: str = Field(min_length=1)
    alternatives: list[str] = Field(default_factory=list)

    @property
    def names(self) -> list[str]:
        """Every name the deliverable may have: ``file`` first, then the alternatives."""
        return [self.file, *self.alternatives]


class FileExistsCheck(_FileCheck):
    """The deliverable exists (exactly one file matches ``file`` or an alternative)."""

    kind: Literal["file_exists"] = "file_exists"


class FieldCheck(_FileCheck):
    """A labelled fact: the value given for ``label`` (or an alias) in ``Label: value`` lines or table rows.

    Exactly one way of judging the value must be given:
    ``equals`` (text; may be followed by an explanation), ``number`` (one number, or ``numbers`` for an
    interval), ``items`` (a list equal to these), ``contains``/``excludes`` (a list holding / not holding
    these), or ``mentions`` (the value names at least one of these). ``options`` are the answers the field
    allows (e.g. yes/no, or every group name): a value naming more than one of them fails. A label given
    two different values fails.
    """

    kind: Literal["field"] = "field"
    label: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    equals: str | None = None
    options: list[str] | None = None
    number: float | None = None
    numbers: list[float] | None = None
    tolerance: float = Field(default=0.0, ge=0)
    rel_tolerance: float = Field(default=0.0, ge=0)
    sign: Sign = "exact"
    items: list[str] | None = None
    contains: list[str] | None = None
    excludes: list[str] | None = None
    mentions: list[str] | None = None

    @model_validator(mode="after")
    def _one_judgement(self) -> FieldCheck:
        ways = [self.equals is not None, self.number is not None, self.numbers is not None,
                self.items is not None, self.contains is not None or self.excludes is not None,
                self.mentions is not None]
        if sum(ways) != 1:
            raise ValueError("a field check needs exactly one of equals, number, numbers, items, "
                             "contains/excludes, mentions")
        return self

    @property
    def labels(self) -> list[str]:
        return [self.label, *self.aliases]


class NumberCheck(_FileCheck):
    """A number within ``tolerance`` (absolute) or ``rel_tolerance`` of ``value`` appears in the deliverable.

    Professional formats are read (``$41,250``, ``(1,234)``, ``41.3%``, ``1.2 million``, ``41.25k``, small
    number words). ``sign="either"`` accepts the magnitude with either sign. Several distinct numbers close
    to ``value`` but outside the tolerance (candidate answers) make the check fail.
    """

    kind: Literal["number"] = "number"
    value: float
    tolerance: float = Field(default=0.0, ge=0)
    rel_tolerance: float = Field(default=0.0, ge=0)
    sign: Sign = "exact"


class TextCheck(_FileCheck):
    """``pattern`` appears (or, with ``absent``, does not appear) in the deliverable's text.

    Patterns that refer to lines (``^``, ``$``, ``\\n``, ``(?m)``) run only on text that keeps its lines;
    others also run on the text with whitespace collapsed.
    """

    kind: Literal["text"] = "text"
    pattern: str = Field(min_length=1)
    regex: bool = False
    case_sensitive: bool = False
    absent: bool = False


class IdsCheck(_FileCheck):
    """Real identifiers (``ids``, from the task's data) all appear (``present="all"``) or none does.

    An id matches as a whole token; with ``digits`` its digit part also matches as a bare number (so
    ``MRN-004512`` is found as ``004512`` or ``4512``).
    """

    kind: Literal["ids"] = "ids"
    ids: list[str] = Field(min_length=1)
    present: Literal["all", "none"] = "all"
    digits: bool = False


class ColumnsCheck(_FileCheck):
    """A table (csv/tsv file or workbook sheet) has every one of ``columns`` as a header."""

    kind: Literal["columns"] = "columns"
    columns: list[str] = Field(min_length=1)
    sheet: str | None = None


class CellCheck(_FileCheck):
    """In a table, every row whose key columns equal ``match`` has ``value`` in ``column``.

    Numbers compare within ``tolerance`` (percent-formatted cells read as percentages); text compares
    case-insensitively, trimmed. Rows that disagree for one key fail.
    """

    kind: Literal["cell"] = "cell"
    match: dict[str, str | float]
    column: str
    value: str | float
    tolerance: float = Field(default=0.0, ge=0)
    sign: Sign = "exact"
    sheet: str | None = None


class RowCountCheck(_FileCheck):
    """A table has exactly ``count`` data rows (optionally only rows equal to ``where``).

    Data rows are counted by the ``key`` column (default: the first header column): rows with a blank
    key, total rows ("Total", "Grand total", "Subtotal") and note rows ("Note: ...", "* ...") do not count.
    """

    kind: Literal["row_count"] = "row_count"
    count: int = Field(ge=0)
    where: dict[str, str | float] | None = None
    key: str | None = None
    sheet: str | None = None


class AllOfCheck(_CheckBase):
    """Every sub-check passes."""

    kind: Literal["all_of"] = "all_of"
    checks: list[Check] = Field(min_length=1)


class AnyOfCheck(_CheckBase):
    """At least one sub-check passes."""

    kind: Literal["any_of"] = "any_of"
    checks: list[Check] = Field(min_length=1)


class NotCheck(_CheckBase):
    """The sub-check fails."""

    kind: Literal["not"] = "not"
    check: Check


class LlmCheck(_CheckBase):
    """No sound deterministic check exists: the criterion is graded by the LLM judge (``judge="auto"``)."""

    kind: Literal["llm"] = "llm"
    reason: str = ""


Check = Annotated[
    FileExistsCheck | FieldCheck | NumberCheck | TextCheck | IdsCheck | ColumnsCheck | CellCheck | RowCountCheck | AllOfCheck | AnyOfCheck | NotCheck | LlmCheck,
    Field(discriminator="kind"),
]
for _model in (AllOfCheck, AnyOfCheck, NotCheck):
    _model.model_rebuild()
CHECK_ADAPTER: TypeAdapter[Any] = TypeAdapter(Check)


def check_json(check: Any) -> dict[str, Any]:
    """The JSON form of a check as written to RUBRICS.json: fields left at their defaults are omitted, ``kind`` kept."""
    out: dict[str, Any] = {"kind": check.kind}
    for name in type(check).model_fields:
        if name == "kind":
            continue
        value = getattr(check, name)
        if name in ("checks", "check"):
            out[name] = [check_json(c) for c in value] if name == "checks" else check_json(value)
        elif value != type(check).model_fields[name].get_default(call_default_factory=True):
            out[name] = value
    return out


def parse_check(data: Any) -> Any:
    """A check model from its JSON form; raises ``pydantic.ValidationError`` when invalid."""
    return CHECK_ADAPTER.validate_python(data)


def check_leaves(check: Any) -> list[Any]:
    """The non-combinator checks inside ``check`` (itself when it is one)."""
    if isinstance(check, (AllOfCheck, AnyOfCheck)):
        return [leaf for sub in check.checks for leaf in check_leaves(sub)]
    if isinstance(check, NotCheck):
        return check_leaves(check.check)
    return [check]


def needs_llm(check: Any) -> bool:
    """True when ``check`` (or a part of it) can only be graded by the LLM judge."""
    return any(isinstance(leaf, LlmCheck) for leaf in check_leaves(check))
