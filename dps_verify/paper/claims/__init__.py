"""The registry of the paper's claims: CP = ASIACCS 2012, TR = 2011 technical report.

Each :class:`Claim` has a stable id, where it is in the paper, a paraphrase, the method used and
the verdict expected; ``check()`` recomputes the verdict from scratch.  Entries with
``source == "beyond"`` are our additions, not claims of the paper.
"""

from __future__ import annotations

from dps_verify.paper.claims import beyond, cp_appendix, cp_section2, cp_section3, informal, tr
from dps_verify.paper.claims.base import CONFIRMED, CORRECTED, NMC, REFUTED, VERDICTS, Claim, Result
from dps_verify.paper.claims.tables import table1_claims, table2_claims, trend_claims


def build_registry() -> list[Claim]:
    """All claims, in paper order (CP §1–3, CP appendix, TR, the informal statements of both
    versions (NOT-MACHINE-CHECKABLE, with reasons), then beyond-the-paper)."""
    regs = [
        *cp_section2.claims()[:2], *table1_claims(), *cp_section2.claims()[2:],
        *cp_section3.claims()[:5], *table2_claims(), *trend_claims(), *cp_section3.claims()[5:],
        *cp_appendix.claims(), *tr.claims(), *informal.claims(), *beyond.claims(),
    ]
    ids = [c.id for c in regs]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise AssertionError(f"duplicate claim ids: {sorted(dup)}")
    return regs


REGISTRY: list[Claim] = build_registry()

__all__ = ["CONFIRMED", "CORRECTED", "NMC", "REFUTED", "REGISTRY", "VERDICTS", "Claim", "Result",
           "build_registry"]
