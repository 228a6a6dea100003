"""Materials and generated load-extension curves for the tensile test report workflow (``tensile.py``).

A curve is Ramberg-Osgood, strain = stress / E + 0.002 (stress / yield)^n, up to the tensile strength at the uniform
elongation (n follows from both), then a parabolic fall to the fracture stress; a seating toe adds
delta (1 - exp(-stress / s_t)) to the measured strain. Rows are written as a test frame exports them: stress-controlled
to 75 % of the yield, then strain-controlled with the step widening after 1.5 % strain and after the uniform
elongation; the extensometer channel goes blank when the extensometer comes off; a slipped grip drops the load and
ends the test; a fracture ends it with two near-zero rows.
"""

from __future__ import annotations

import math
import random
from typing import Any

__all__ = ["MATERIALS", "pull_rows", "ro_stress"]

# key: product, geometry, modulus (GPa), nominal dimensions, gauge length, parallel length, extensometer gauge
# lengths, fit window (MPa), specification (current and superseded revisions), tensile-to-yield ratio range, uniform
# elongation as a share of the elongation after fracture, extensometer removal strain range (%)
MATERIALS: dict[str, dict[str, Any]] = {
    "al6061": {
        "material": "6061-T6 aluminium sheet", "geometry": "flat", "E": 68.9, "sizes": (1.6, 2.0, 2.5, 3.0),
        "L0": 50.0, "Lc": 57.0, "ext": (25.0, 50.0), "window": (40.0, 120.0), "ratio": (1.07, 1.14),
        "uniform": (0.55, 0.7), "ext_off": (2.0, 4.0), "drop": (0.82, 0.9),
        "spec": {"name": "MS-2207", "yield_min": 245.0, "uts_min": 290.0, "elong_min": 10.0, "elong_note": 8.0,
                 "note": "For sheet 0.50 to 3.20 mm thick inclusive the minimum elongation is 8 %."},
        "old_spec": {"name": "MS-2207", "yield_min": 240.0, "uts_min": 290.0, "elong_min": 10.0, "elong_note": None,
                     "note": ""},
        "elong_base": 8.0, "product": "sheet {size:.2f} mm"},
    "ss304": {
        "material": "304 stainless steel sheet, annealed", "geometry": "flat", "E": 193.0, "sizes": (0.8, 1.0, 1.2),
        "L0": 50.0, "Lc": 57.0, "ext": (25.0, 50.0), "window": (30.0, 90.0), "ratio": (2.05, 2.35),
        "uniform": (0.8, 0.9), "ext_off": (5.0, 10.0), "drop": (0.78, 0.86),
        "spec": {"name": "MS-3104", "yield_min": 215.0, "uts_min": 520.0, "elong_min": 40.0, "elong_note": 35.0,
                 "note": "For sheet under 1.50 mm thick the minimum elongation is 35 %."},
        "old_spec": {"name": "MS-3104", "yield_min": 205.0, "uts_min": 515.0, "elong_min": 40.0, "elong_note": None,
                     "note": ""},
        "elong_base": 35.0, "product": "sheet {size:.2f} mm"},
    "qt4140": {
        "material": "4140 quenched and tempered bar", "geometry": "round", "E": 205.0, "sizes": (63.5, 76.2, 88.9),
        "L0": 62.5, "Lc": 75.0, "ext": (50.0,), "window": (100.0, 300.0), "ratio": (1.14, 1.24),
        "uniform": (0.45, 0.6), "ext_off": (2.0, 3.0), "drop": (0.8, 0.88),
        "spec": {"name": "MS-4140QT", "yield_min": 655.0, "uts_min": 860.0, "elong_min": 15.0, "elong_note": 13.0,
                 "note": "For bar over 50 mm in diameter (specimens from mid-radius) the minimum elongation is 13 %."},
        "old_spec": {"name": "MS-4140QT", "yield_min": 620.0, "uts_min": 830.0, "elong_min": 15.0, "elong_note": None,
                     "note": ""},
        "elong_base": 13.0, "product": "bar {size:.1f} mm diameter"},
}


def ro_stress(strain: float, E: float, ys: float, n: float, uts: float) -> float:
    """The Ramberg-Osgood stress at a total strain (bisection; strain at most the uniform elongation's)."""
    lo, hi = 0.0, uts
    for _ in range(60):
        mid = (lo + hi) / 2
        if mid / E + 0.002 * (mid / ys) ** n < strain:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def pull_rows(rng: random.Random, *, E: float, ys: float, uts: float, elong: float, uniform: float, drop: float,
              area: float, gauge: float, ext_off: float, toe: tuple[float, float], parallel: float, newtons: bool,
              slip: float | None = None) -> tuple[list[list[Any]], float]:
    """The export's data rows (time s, extension mm or blank, load kN or N, crosshead mm) of one pull, and the
    maximum load in N. ``elong`` is the elongation after fracture (%), ``uniform`` its share that is uniform,
    ``slip`` the strain (if any) at which the grips slip and the test stops."""
    e_u = uniform * elong / 100
    n = math.log((e_u - uts / E) / 0.002) / math.log(uts / ys)
    s_f = drop * uts
    e_f = elong / 100 + s_f / E
    delta, s_t = toe
    strain_rows: list[tuple[float, float]] = []
    step = rng.uniform(1.2, 1.8)
    s = 0.0
    while s < 0.75 * ys:
        strain_rows.append((s / E + 0.002 * (s / ys) ** n, s))
        s += step
    e = strain_rows[-1][0]
    while e < e_f:
        e += 4e-5 if e < 0.015 else 4e-4 if e < e_u else (1e-3 if e_f < 0.25 else 2e-3)
        e = min(e, e_f)
        if slip is not None and e >= slip:
            break
        stress = ro_stress(e, E, ys, n, uts) if e <= e_u else uts - (uts - s_f) * ((e - e_u) / (e_f - e_u)) ** 2
        strain_rows.append((e, stress))
    noise = 0.0003 * uts * area
    rows: list[list[Any]] = []
    t, peak, last_e = 0.0, 0.0, 0.0
    for k, (e, stress) in enumerate(strain_rows):
        load = stress * area + (rng.gauss(0, noise) if k else 0.0)
        peak = max(peak, load)
        t += 0.15 if e < 0.015 else 0.6
        on = e * 100 < ext_off
        ext = (e + delta * (1 - math.exp(-stress / s_t))) * gauge + rng.gauss(0, 0.00015) if on else None
        rows.append(_row(t, ext, load, e * parallel + 0.25 + load / 80000, newtons))
        last_e = e
    if slip is not None:  # the load falls as the grip lets go; the operator stops the test
        for frac in (0.7, 0.66):
            stress = strain_rows[-1][1] * frac
            t += 0.3
            ext = (last_e - strain_rows[-1][1] * (1 - frac) / E) * gauge if last_e * 100 < ext_off else None
            rows.append(_row(t, ext, stress * area, last_e * parallel + 0.9, newtons))
    else:
        for frac in (0.03, 0.005):
            t += 0.1
            rows.append(_row(t, None, frac * s_f * area, e_f * parallel + 0.3, newtons))
    return rows, peak


def _row(t: float, ext: float | None, load: float, cross: float, newtons: bool) -> list[Any]:
    return [f"{t:.2f}", "" if ext is None else f"{ext:.5f}", f"{load:.1f}" if newtons else f"{load / 1000:.4f}",
            f"{cross:.3f}"]
