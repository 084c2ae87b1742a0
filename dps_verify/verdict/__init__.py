"""Verdicts shared by :mod:`dps_verify.testing` and :mod:`dps_verify.audit`.

- :mod:`.witness` — the one :class:`Witness` class and the worst event of two exact laws (the bad
  set itself is :func:`dps_verify.measures.divergence` 's).
- :mod:`.exact_search` — the exhaustive search, smallest witness first, with a float screen
  (:mod:`.screen`) confirmed in exact arithmetic, each distinct sample anonymized once
  (:mod:`dps_verify.engine.count_vectors`), on the executor of :mod:`.executor`.
- :mod:`.shapes` — datasets of the shapes that leak beyond small sizes (multi-bulk, rank and
  median movers, geometric sizes, groups around n_m).
- :mod:`.montecarlo` — the one Monte-Carlo + Clopper–Pearson engine (e^ε rounded up).
"""

from dps_verify.verdict.exact_search import SearchResult, estimate_work, exhaustive_search
from dps_verify.verdict.witness import Witness, witness_from_laws

__all__ = ["SearchResult", "Witness", "estimate_work", "exhaustive_search", "witness_from_laws"]
