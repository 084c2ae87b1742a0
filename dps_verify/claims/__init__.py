"""The registry of the paper's claims (CP = ASIACCS 2012, TR = 2011 technical report).

Each :class:`Claim` has a stable id, where it is in the paper, a paraphrase, the method used and
the verdict expected; ``check()`` recomputes the verdict from scratch.
"""

from __future__ import annotations

from .base import Claim, Result
from .tables import table1_claims, table2_claims

REGISTRY: list[Claim] = [*table1_claims(), *table2_claims()]

__all__ = ["Claim", "REGISTRY", "Result"]
