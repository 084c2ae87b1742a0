"""Exact binomial probabilities for a rational success probability β = p/q.

``f(j; n, β)`` and ``F(j; n, β)`` are the paper's notation (CP §3.3) for the binomial pmf and
cdf.  Everything here is exact: values are :class:`fractions.Fraction`, and the ``*_num``
helpers return integer numerators over the common denominator ``q**n``.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb


def pmf_num(n: int, j: int, p: int, q: int) -> int:
    """Numerator of f(j; n, p/q) over the denominator q**n (0 outside 0..n)."""
    if j < 0 or j > n or n < 0:
        return 0
    return comb(n, j) * p**j * (q - p) ** (n - j)


def pmf(j: int, n: int, beta: Fraction) -> Fraction:
    """f(j; n, β): probability of exactly j successes in n trials."""
    p, q = beta.numerator, beta.denominator
    return Fraction(pmf_num(n, j, p, q), q**n)


def cdf(j: int, n: int, beta: Fraction) -> Fraction:
    """F(j; n, β) = Σ_{i ≤ j} f(i; n, β)."""
    if j < 0:
        return Fraction(0)
    p, q = beta.numerator, beta.denominator
    return Fraction(sum(pmf_num(n, i, p, q) for i in range(0, min(j, n) + 1)), q**n)


def upper_tail(j0: int, n: int, beta: Fraction) -> Fraction:
    """Pr[Bin(n, β) ≥ j0], summed term by term (the slow, obviously-correct reference)."""
    p, q = beta.numerator, beta.denominator
    lo = max(j0, 0)
    return Fraction(sum(pmf_num(n, j, p, q) for j in range(lo, n + 1)), q**n)


def max_pmf(n: int, beta: Fraction) -> Fraction:
    """max_j f(j; n, β), attained at j = ⌊(n+1)β⌋ (the mode)."""
    mode = min(n, int((n + 1) * beta))
    return max(pmf(j, n, beta) for j in {max(mode - 1, 0), mode, min(mode + 1, n)})
