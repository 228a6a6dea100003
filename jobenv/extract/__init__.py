"""Turning deliverables into text (and images) for judges and for the agent's ``read`` tool.

:func:`extract_file` renders one file as text; :func:`extract_output` walks an output directory and
builds one document with a section per file (sorted relative paths), plus the images a visual rubric
may be shown. Formats follow the JobBench grader: plain text types read as UTF-8, csv raw, xlsx/xlsm
workbooks laid out like the official extractor (formulas recalculated - LibreOffice or the pure-Python
``formulas`` engine -, formula evidence, values with row numbers and column letters, one budget shared
across sheets; see :mod:`jobenv.extract.sheets`), docx as Markdown, pdf per page with layout text, pptx
per slide, SQLite schema + row counts + up to 500 rows per table, notebooks as sources + saved outputs
(text, HTML rendered to text, tracebacks; never executed, :mod:`jobenv.extract.notebook`), images and
other binaries as placeholders. README "Comparability with the leaderboard" lists where the text differs
from the official one.

Failure behaviour: nothing here raises on a bad deliverable. A file that cannot be parsed becomes a
visible ``[extraction failed: ...]`` marker so a judge sees it rather than silence. Symlinks and special
files in an output directory are never followed or read; they are listed in ``Extraction.rejected`` and
the graders turn any rejected entry into a grading error (fail-closed).

Heavy libraries (pandas, openpyxl, mammoth, pdfplumber, python-pptx) are imported inside functions.
"""

from __future__ import annotations

from .files import (
    DEFAULT_CAP,
    EXTRACT_VERSION,
    IMAGE_EXTENSIONS,
    REJECTED_MANIFEST,
    SQLITE_EXTENSIONS,
    TEXT_EXTENSIONS,
    ExtractedFile,
    Extraction,
    ExtractMode,
    ImageRef,
    OverBudget,
    check_archive,
    extract_file,
    formula_values,
    is_visual_rubric,
    recalculate,
    select_images,
)
from .folder import TOTAL_CAP, assemble_output, extract_entry, extract_output, scan_output

__all__ = [
    "EXTRACT_VERSION",
    "DEFAULT_CAP",
    "REJECTED_MANIFEST",
    "TEXT_EXTENSIONS",
    "IMAGE_EXTENSIONS",
    "SQLITE_EXTENSIONS",
    "ExtractMode",
    "ExtractedFile",
    "ImageRef",
    "Extraction",
    "TOTAL_CAP",
    "OverBudget",
    "check_archive",
    "extract_file",
    "extract_output",
    "scan_output",
    "extract_entry",
    "assemble_output",
    "is_visual_rubric",
    "select_images",
    "recalculate",
    "formula_values",
]
