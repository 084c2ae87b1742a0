"""The reference scan of the sdgs worst case: the generic divergence engine on each group size's
exact output laws (CP App. A.2, TR Alg. 4).

:func:`scan_generic` builds (P_n, Q_n) of t's recoding group for n = 1, 2, ... from the binomial
definitions (:func:`output_laws`) and takes their hockey-stick or pointwise δ with
:mod:`dps_verify.measures.divergence`, stopping by a bound non-increasing in n.  It is slow (O(n)
per group size) but obviously faithful to the definitions: the oracle that the fast exact walk of
:func:`dps_verify.worstcase.sdgs.scan` is tested against, and no part of that walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from dps_verify.core.binomial import cdf, max_pmf, pmf
from dps_verify.core.numbers import (
    BASE_PREC,
    Certified,
    fraction_to_mpf,
    iv_exp,
    iv_from_fraction,
    iv_lower,
    iv_precision,
    iv_upper,
)
from dps_verify.core.types import DefinitionLike
from dps_verify.measures.divergence import delta_certified, pointwise_delta_exact


@dataclass
class _GenericBest:
    lower: Fraction = Fraction(-1)
    upper: Fraction = Fraction(-1)
    n: int = 0


def output_laws(n: int, k: int, beta: Fraction) -> tuple[dict, dict]:
    """The exact output laws (P_n, Q_n) of t's recoding group (see module docstring)."""
    P: dict[int, Fraction] = {0: cdf(k - 1, n, beta)}
    Q: dict[int, Fraction] = {0: cdf(k - 1, n - 1, beta)}
    for j in range(k, n + 1):
        P[j] = pmf(j, n, beta)
        if j <= n - 1:
            Q[j] = pmf(j, n - 1, beta)
    return P, Q


def scan_generic(
    k: int,
    beta: Fraction,
    eps: Fraction,
    *,
    definition: DefinitionLike,
    max_n: int = 400,
) -> Certified:
    """Supremum over n of δ(P_n, Q_n) using the generic exact engine (any ε ≥ 0).

    Slow (O(n) per group size) but obviously faithful to the definitions; it is the oracle the
    fast :func:`scan` is tested against (its tail bound decays only like 1/√n).
    """

    best = _GenericBest()
    stop_note = None
    for n in range(1, max_n + 1):
        P, Q = output_laws(n, k, beta)
        if definition == "hockey-stick":
            c = delta_certified(P, Q, eps)
            lo, hi = c.lower, c.upper
        else:
            lo = hi = pointwise_delta_exact(P, Q, eps)
        if lo > best.lower:
            best.lower, best.n = lo, n
        best.upper = max(best.upper, hi)
        bound = _generic_tail_bound(n + 1, k, beta, eps, definition)
        if bound <= best.lower:
            stop_note = f"stopped at n = {n + 1}: a bound non-increasing in n fell below the best value"
            break
    upper = best.upper
    if stop_note is None:
        # min(..., 1) may yield the int 1 (== Fraction(1)) when the bound exceeds 1
        upper = max(upper, min(_generic_tail_bound(max_n + 1, k, beta, eps, definition), 1))  # type: ignore[assignment]
        stop_note = f"scan capped at n = {max_n}; enclosure includes a bound for larger n"
    return Certified(
        lower=max(best.lower, Fraction(0)),
        upper=upper,
        how=f"generic exact engine on the group's output laws; {stop_note}",
        details={"argmax_n": best.n},
    )


def _generic_tail_bound(
    n: int, k: int, beta: Fraction, eps: Fraction, definition: DefinitionLike
) -> Fraction:
    """An upper bound, valid for every n' ≥ n, on the per-n divergence (1 if nothing better)."""
    if definition == "hockey-stick":
        # H_ε ≤ TV(P_n, Q_n) ≤ TV(Bin(n), Bin(n−1)) = β·max pmf of Bin(n−1), non-increasing in n.
        return beta * max_pmf(n - 1, beta)
    # Pointwise: bad outputs lie in {X ≥ γn} (ratio above e^ε) or {X ≤ a_n}, a_n = max(k−1, γ'n)
    # with γ' = 1 − (1−β)e^ε (ratio below e^−ε).  Chernoff–Hoeffding bounds both masses, under
    # Bin(n) and under the stochastically smaller Bin(n−1); each bound is non-increasing in n.
    if n < 2 or eps == 0:
        return Fraction(1)
    with iv_precision(BASE_PREC):
        iv = mpmath.iv
        b = iv_from_fraction(beta)
        e = iv_exp(iv_from_fraction(eps))
        g_hi = 1 - iv_from_fraction(1 - beta) / e
        total = iv_exp(-n * _kl(g_hi, b))
        g_lo = 1 - iv_from_fraction(1 - beta) * e
        x_lo, x_hi = Fraction(k - 1, n - 1), Fraction(k - 1, n - 1)
        if iv_upper(g_lo) > 0:
            y = g_lo * n / (n - 1)
            x_lo, x_hi = max(x_lo, iv_lower(y)), max(x_hi, iv_upper(y))
        if x_hi >= iv_lower(b) or x_lo <= 0:
            return Fraction(1)
        x = iv.mpf([fraction_to_mpf(x_lo, "d"), fraction_to_mpf(x_hi, "u")])
        total += iv_exp(-(n - 1) * _kl(x, b))
        return iv_upper(total)


def _kl(a, b):  # interval KL(a‖b) for Bernoulli laws
    iv = mpmath.iv
    return a * iv.log(a / b) + (1 - a) * iv.log((1 - a) / (1 - b))
