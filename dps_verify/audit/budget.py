"""The audit's work and memory, estimated before it starts, and refused past a budget.

An audit's cost grows with the domain's ``max_size`` (the largest dataset it builds): every
candidate dataset is a tuple of up to ``max_size`` records, kept with a key of its records'
reprs to drop duplicates (:func:`dps_verify.audit.search.candidates`), and the statistical
phase draws Bernoulli samples of datasets that large, ``n_select`` runs per side for up to
``max_statistical_pairs`` pairs and ``n_confirm`` runs for three more
(:func:`dps_verify.audit.core._statistical`).  :func:`estimate` counts both in record slots
(a rough upper bound: the exact phase stops earlier on its own enumeration budget, and a
witness ends the search); :func:`check_audit_budget` refuses, with
:class:`~dps_verify.core.errors.BudgetError` (exit 5), an estimate past :data:`WORK_BUDGET`
record draws or :data:`MEMORY_BUDGET` bytes, naming the option that lowers it.
"""

from __future__ import annotations

from dataclasses import dataclass

from dps_verify.audit.domain import Domain
from dps_verify.core.errors import BudgetError

#: Record draws (statistical runs × dataset size) an audit may plan: about two minutes of
#: CPU in pure Python.
WORK_BUDGET = 600_000_000
#: Bytes the candidate datasets may take (tuples plus their duplicate-check keys).
MEMORY_BUDGET = 1 << 30
#: Bytes per record slot of a candidate: a tuple entry (8) and its repr in the key (~64).
BYTES_PER_SLOT = 72
#: Targets the candidate generator tries, and the shapes built per target and size.
TARGETS = 24
SHAPES_PER_SIZE = 3


@dataclass(frozen=True)
class AuditEstimate:
    """Record draws and bytes an audit of ``domain`` is expected to need (upper estimates)."""

    max_size: int
    draws: int
    slots: int

    @property
    def bytes(self) -> int:
        return self.slots * BYTES_PER_SLOT


def estimate(domain: Domain, *, cheap: bool = True, n_select: int = 1000, n_confirm: int = 10_000,
             max_statistical_pairs: int = 24) -> AuditEstimate:
    """Estimate the audit's work and memory (module docstring).  ``cheap``: the anonymizer
    has a sufficient statistic, so every size up to ``max_size`` is a candidate (worst case)."""
    n = domain.max_size
    if cheap:
        size_sum = n * (n + 1) // 2
    else:  # a few sizes around each n_m and a geometric spread: at most ~64 sizes
        size_sum = min(n, 64) * n
    targets = min(TARGETS, len(domain.records))
    slots = targets * SHAPES_PER_SIZE * size_sum
    draws = (2 * max_statistical_pairs * n_select + 6 * n_confirm) * n
    return AuditEstimate(n, draws, slots)


def is_cheap(anonymizer: object) -> bool:
    """Whether the audit treats ``anonymizer`` as cheap to evaluate (a sufficient statistic and
    ``from_counts``): then every size up to ``max_size`` is a candidate."""
    return callable(getattr(anonymizer, "sufficient_statistic", None)) and hasattr(anonymizer, "from_counts")


def check_audit_budget(domain: Domain, *, option: str = "max_size", cheap: bool = True,
                       work_budget: int = WORK_BUDGET, memory_budget: int = MEMORY_BUDGET) -> AuditEstimate:
    """Refuse (:class:`BudgetError`, exit 5) before any work an audit whose estimate is past the
    budget; ``option`` names what lowers it in the message.  Returns the estimate."""
    est = estimate(domain, cheap=cheap)
    if est.draws > work_budget or est.bytes > memory_budget:
        what = (f"~{est.draws:.2e} record draws (budget {work_budget:.1e})" if est.draws > work_budget
                else f"~{est.bytes / 2**30:.1f} GiB for the candidate datasets (budget "
                     f"{memory_budget / 2**30:.1f} GiB)")
        largest = _largest_fitting(domain, cheap, work_budget, memory_budget)
        raise BudgetError(
            f"refusing to start: an audit with max_size = {domain.max_size} would need {what}; "
            f"lower {option} (at most about {largest} fits)"
        )
    return est


def _largest_fitting(domain: Domain, cheap: bool, work_budget: int, memory_budget: int) -> int:
    lo, hi = 1, domain.max_size
    while lo < hi:
        mid = (lo + hi + 1) // 2
        est = estimate(Domain(domain.records, mid, domain.attributes), cheap=cheap)
        if est.draws <= work_budget and est.bytes <= memory_budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


__all__ = ["MEMORY_BUDGET", "WORK_BUDGET", "AuditEstimate", "check_audit_budget", "estimate", "is_cheap"]
