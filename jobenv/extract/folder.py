"""An output directory as one :class:`~jobenv.extract.Extraction`: which entries are deliverables and which are
refused (:func:`scan_output`), each deliverable's part (:func:`extract_entry`), and the whole document under a
total budget (:func:`assemble_output`). :func:`extract_output` runs the three in this process; graders use
:mod:`jobenv.extract.service`, which runs :func:`extract_entry` in bounded worker processes.

Failure behaviour: nothing here raises for a deliverable problem (see :func:`jobenv.extract.extract_output`).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from .files import (
    DEFAULT_CAP,
    REJECTED_MANIFEST,
    ExtractedFile,
    Extraction,
    ExtractMode,
    ImageRef,
    _extract_one,
    _image_group,
    _images_of,
)

__all__ = ["TOTAL_CAP", "TOTAL_MIN_SHARE", "scan_output", "extract_entry", "assemble_output", "extract_output"]

TOTAL_CAP = 600_000  # characters of all deliverables together in a judge's text (a request a judge accepts)
TOTAL_MIN_SHARE = 1_000  # a file is shown with at least this much, or not at all
_SECTION_OVERHEAD = 250  # a file's header line and cut marker, counted against the total


def _read_manifest(root: Path) -> tuple[list[str], bool]:
    """Entries of the sandbox export's rejection manifest, and whether the manifest itself was unreadable."""
    p = root / REJECTED_MANIFEST
    if not p.exists() and not p.is_symlink():
        return [], False
    try:
        if p.is_symlink() or not p.is_file():
            return [], True
        data = json.loads(p.read_text(encoding="utf-8"))
        if not isinstance(data, list):
            return [], True
        return [str(x) for x in data], False
    except (OSError, ValueError):
        return [], True


def _walk(root: Path) -> tuple[list[str], list[str]]:
    """Regular files (relative posix paths) and refused entries, never following links.

    os.walk without followlinks never descends into a linked directory; every entry is lstat-ed, and
    anything that is neither a regular file nor a real directory (symlink, fifo, socket, device) is refused.
    """
    files: list[str] = []
    rejected: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath)
        for name in dirnames + filenames:
            rel = (base / name).relative_to(root).as_posix()
            try:
                mode = os.lstat(base / name).st_mode
            except OSError:
                rejected.append(rel)
                continue
            if stat.S_ISREG(mode):
                files.append(rel)
            elif not stat.S_ISDIR(mode):
                rejected.append(rel)
    return sorted(files, key=path_order), sorted(rejected)


def path_order(rel: str) -> list[str]:
    """The official judge's file order, ``sorted(Path.rglob(...))``: paths compare folder by folder, so
    ``a/b.txt`` comes before ``a.txt`` (a plain string sort puts it after: ``.`` sorts before ``/``)."""
    return rel.split("/")


def scan_output(output_dir: Path) -> tuple[list[str], list[str]]:
    """(regular files to extract, refused entries) of an output directory, both as sorted relative paths.

    A missing directory is itself refused. Symlinks and special files are refused and never read; so are
    entries named in the sandbox export's ``.jobenv_rejected.json`` (an unreadable manifest refuses itself).
    """
    root = Path(output_dir)
    if root.is_symlink() or not root.is_dir():
        return [], [f"{root} (output directory missing or not a directory)"]
    files, rejected = _walk(root)
    manifest, bad_manifest = _read_manifest(root)
    if REJECTED_MANIFEST in rejected:
        rejected.remove(REJECTED_MANIFEST)
        bad_manifest = True
    if REJECTED_MANIFEST in files:
        files.remove(REJECTED_MANIFEST)
    if bad_manifest:
        rejected.append(f"{REJECTED_MANIFEST} (unreadable)")
    return files, sorted(set(rejected) | set(manifest))


def extract_entry(
    root: Path, rel: str, *, mode: ExtractMode = "values", cap: int | None = DEFAULT_CAP, with_images: bool = True
) -> tuple[ExtractedFile, list[ImageRef]]:
    """One deliverable of an output directory: its extracted part and its images. Never raises."""
    path = Path(root) / rel
    text, kind, truncated, failed = _extract_one(path, mode, cap)
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    images = _images_of(path, rel) if with_images else []
    return ExtractedFile(path=rel, kind=kind, text=text, size=size, truncated=truncated, failed=failed), images


def _total_allowances(sizes: list[int], total_cap: int) -> list[int]:
    """Characters each file may keep so that all of them, with their headers and markers, fit ``total_cap``:
    files smaller than an equal share are kept whole and what they leave is shared among the larger ones (as the
    official workbook budget shares its characters among sheets). Files past the first
    ``total_cap // (TOTAL_MIN_SHARE + _SECTION_OVERHEAD)`` keep nothing."""
    allow = [0] * len(sizes)
    shown = list(range(min(len(sizes), max(1, total_cap // (TOTAL_MIN_SHARE + _SECTION_OVERHEAD)))))
    left = max(0, total_cap - _SECTION_OVERHEAD * (len(shown) + 1))
    for k, i in enumerate(sorted(shown, key=lambda j: sizes[j])):
        share = left // (len(shown) - k)
        allow[i] = min(sizes[i], share)
        left -= allow[i]
    return allow


def assemble_output(
    root: Path,
    mode: str,
    rejected: list[str],
    entries: list[tuple[ExtractedFile, list[ImageRef]]],
    *,
    total_cap: int | None = TOTAL_CAP,
) -> Extraction:
    """The :class:`Extraction` of an output directory from its extracted entries (in path order).

    With ``total_cap``, the files' texts together keep at most that many characters (see
    :func:`_total_allowances`); a cut file keeps its first three quarters of its allowance and its last quarter
    around a marker, files left out entirely are named in one note,
    and a note heading the text says what was cut. Images are deduplicated by content.
    """
    ex = Extraction(root=Path(root), mode=mode, rejected=list(rejected))
    seen: set[str] = set()
    ex.files = [part for part, _ in entries]
    # the official order: standalone images, then docx images, then notebook outputs, each in path order
    for _part, images in sorted(entries, key=lambda e: (_image_group(e[0].path), path_order(e[0].path))):
        for img in images:
            if img.sha256 not in seen:
                seen.add(img.sha256)
                ex.images.append(img)
    texts = [f.text.rstrip() for f in ex.files]
    sizes = [len(t) for t in texts]
    if not total_cap or total_cap <= 0 or sum(sizes) <= total_cap:
        ex.text = "\n".join(f"===== FILE: {f.path} =====\n{t}\n" for f, t in zip(ex.files, texts, strict=True))
        return ex
    allow = _total_allowances(sizes, total_cap)
    sections, cut, left_out = [], [], []
    for f, t, a, n in zip(ex.files, texts, allow, sizes, strict=True):
        if a < n:
            f.truncated = True
            if a == 0:
                f.text = "[not shown: the deliverables' total budget was used by the files before this one]"
                left_out.append(f.path)
                continue
            cut.append(f.path)
            head = a * 3 // 4  # the head and the tail: totals and conclusions often close a file
            f.text = t[:head] + (f"\n[... cut by jobenv: {n - a:,} of this file's {n:,} characters left out here; the "
                                 f"deliverables' total budget of {total_cap:,} characters is shared across files ...]\n"
                                 ) + t[n - (a - head):]
        sections.append(f"===== FILE: {f.path} =====\n{f.text.rstrip()}\n")
    note = f"[jobenv: the deliverables hold {sum(sizes):,} characters of text, over the total budget of {total_cap:,}"
    if cut:
        note += f"; {len(cut)} file(s) cut: {_names(cut)}"
    if left_out:
        note += f"; {len(left_out)} file(s) left out: {_names(left_out)}"
        sections.append(f"[{len(left_out):,} more file(s) not shown: the deliverables' total budget was reached]\n")
    ex.text = "\n".join([note + "]\n", *sections])
    ex.budget_cut = cut + left_out
    return ex


def _names(paths: list[str], limit: int = 20) -> str:
    return ", ".join(paths[:limit]) + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def extract_output(
    output_dir: Path, *, mode: ExtractMode = "values", cap: int | None = DEFAULT_CAP, with_images: bool = True,
    total_cap: int | None = TOTAL_CAP,
) -> Extraction:
    """Extract every regular file under ``output_dir`` in sorted relative-path order, in this process.

    Never raises for deliverable problems. A missing directory gives an empty extraction with the
    directory itself in ``rejected`` (fail-closed: graders report an error, not a zero); see
    :func:`scan_output` for refused entries and :func:`assemble_output` for the total budget. Graders use
    :mod:`jobenv.extract.service`, which runs the same steps in worker processes with time and memory limits.
    """
    root = Path(output_dir)
    files, rejected = scan_output(root)
    entries = [extract_entry(root, rel, mode=mode, cap=cap, with_images=with_images) for rel in files]
    return assemble_output(root, mode, rejected, entries, total_cap=total_cap)
