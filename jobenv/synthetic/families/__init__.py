"""Task families. Each module exposes FAMILY (name), TRAPS (trap kinds it can plant), SCENARIOS
(occupation-specific settings over one real dataset each) and ``build(rng, scenario, trap, raw) -> Draft``."""

from __future__ import annotations

from . import compare, kpi, rates, recon

__all__ = ["FAMILIES"]

FAMILIES = (kpi, rates, recon, compare)
