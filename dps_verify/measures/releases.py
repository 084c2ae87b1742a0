"""δ(ε) of T fresh-sample releases of sampled strongly-safe k-anonymization (CP §2.7, issue #15.4).

Each release samples the dataset afresh (CP Def. 3) and applies strongly-safe k-anonymization
(CP Def. 5), so releases are independent and their privacy losses add.  By the cancellation
theorem of :mod:`dps_verify.engine.factorised`, the neighbouring pair that matters is one group of
n records against n − 1 records (all other groups cancel); its part laws are those of the sampled
count thresholded at k.  For each scanned group size n the T-fold δ is computed by
:func:`dps_verify.measures.pld_discrete.pair_delta_enclosure` — exactly when cheap, otherwise as
a certified enclosure — and the worst scanned n is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dps_verify.core.numbers import Certified, Number
from dps_verify.core.params import beta_param, epsilon_param, k_param
from dps_verify.engine.protocol import thresholded_count_law
from dps_verify.measures.pld import pair_delta_enclosure
from dps_verify.measures.pld_discrete import _times_param


@dataclass(frozen=True)
class ReleasesResult:
    """Worst T-fold δ over the scanned group sizes, with the maximising n and the mode."""

    delta: Certified
    argmax_n: int
    scanned: tuple[int, int]
    mode: str  # "exact" or "discretised"


def group_pair(n: int, k: int, beta: Fraction) -> tuple[dict, dict]:
    """Part laws of one group with n versus n − 1 records (CP §3.2 Apply at threshold k)."""
    return thresholded_count_law(n, beta, k), thresholded_count_law(n - 1, beta, k)


def releases_delta(k: int, beta: Number, epsilon: Number, times: int, *, n_max: int | None = None,
                   rtol: float = 0.01) -> ReleasesResult:
    """Worst δ at ε of ``times`` fresh-sample releases over group sizes n ∈ [k, n_max]
    (default n_max = k + 6).  Each value is certified (exact or an enclosure); the maximum is
    over the scanned sizes only — a lower bound on the worst case over all n, which for one
    release is attained near the sdgs argmax (CP Thm 5)."""
    k = k_param(k)
    b = beta_param(beta)
    eps = epsilon_param(epsilon)
    times = _times_param(times)
    hi = n_max if n_max is not None else k + 6
    best: tuple[Certified, int] | None = None
    modes = set()
    for n in range(k, hi + 1):
        p, q = group_pair(n, k, b)
        c = pair_delta_enclosure(p, q, eps, times, rtol=rtol)
        modes.add(c.details.get("mode"))
        if best is None or c.upper > best[0].upper:
            best = (c, n)
    assert best is not None
    mode = "exact" if modes == {"exact"} else "discretised"
    return ReleasesResult(best[0], best[1], (k, hi), mode)


__all__ = ["ReleasesResult", "group_pair", "releases_delta"]
