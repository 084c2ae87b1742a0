"""An exact test of a linear hypothesis on two independent binomial proportions.

The statistical table audit (:mod:`dps_verify.audit.data`) bounds δ through two probabilities
of one event E: p_A, estimated from runs that should show E, and p_B, from runs that should not.
By the decomposition of a Bernoulli(β) sample over whether it holds the target row (CP Def. 3),
every event E gives δ ≥ a·p_A − b·p_B (CP Def. 2) with known coefficients a > 0, b ≥ 0
(:func:`dps_verify.audit.statistical.direction_coefficients`).  A claim δ is refuted at level α
when the hypothesis

    H0(δ):  a·p_A − b·p_B ≤ δ

is rejected by a valid level-α test on X ~ Bin(n_A, p_A) and Y ~ Bin(n_B, p_B), independent.

The test (:func:`rejects`): the statistic T(x, y) = a·x/n_A − b·y/n_B, the rejection region
R = {T ≥ T(observed)} and the p-value sup over H0 of Pr[R].  R grows with x and shrinks with y,
so Pr[R] is non-decreasing in p_A and non-increasing in p_B; the supremum over H0 is therefore on
its edge p_A = min(1, (δ + b·p_B)/a), and on a cell [u, v] of p_B it is at most
Pr[R] at (p_A(v), u).  Cells whose bound is above α are halved until every bound is at most α
(reject) or a point of H0 has Pr[R] > α (do not reject).  Every probability is computed exactly:
p_A and p_B are dyadic rationals k/2^M (p_A rounded up, p_B's cell end down, both in the
conservative direction), the binomial laws are integers over 2^(M·n), and the comparison with α
is exact.  So a rejection is certified, not a float estimate.

One joint test spends α once; the two separate Clopper–Pearson bounds it replaces spend it twice
(Bonferroni), and a refutation needs fewer runs: at β = 0.1, ε = 1 an event seen in every run
with the target and never without it refutes δ = 1e-6 at α = 0.025 with 11 + 66 runs, against
about 30 + 130 for the Bonferroni pair.

Inverting the test (:func:`lower_confidence_delta`) gives the largest δ it rejects: a lower
confidence bound on the true δ at level 1 − α.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

#: Bits of the dyadic grid for p_A and p_B (a rounding of 2^-32 moves Pr[R] by far less than
#: any α a report shows).
BITS = 32
_ONE = 1 << BITS
#: Largest number of cell halvings below one starting cell.
MAX_DEPTH = 40
#: Largest number of exact evaluations of Pr[R] in one test; a case that needs more (the
#: supremum within a hair of α) is not rejected — conservative, and it bounds the time.
MAX_EVALUATIONS = 600
_START_CELLS = 16


def _up(q: Fraction) -> int:
    """Numerator over 2^BITS of the smallest dyadic ≥ q, clipped to [0, 1]."""
    n = -((-q.numerator * _ONE) // q.denominator)
    return min(max(n, 0), _ONE)


def _down(q: Fraction) -> int:
    n = (q.numerator * _ONE) // q.denominator
    return min(max(n, 0), _ONE)


def _region_thresholds(t: Fraction, n_a: int, n_b: int, a: Fraction, b: Fraction) -> list[int]:
    """k(y): R holds x ≥ k(y) for each y (k(y) = n_A + 1 when no x qualifies).  k(y) does not
    decrease in y (a > 0, b ≥ 0), so from the first y where no x qualifies none does."""
    ks = []
    for y in range(n_b + 1):
        need = (t + b * Fraction(y, n_b)) * n_a / a
        k = max(0, -((-need.numerator) // need.denominator))
        if k > n_a:
            ks += [n_a + 1] * (n_b + 1 - y)
            break
        ks.append(k)
    return ks


def _prob_region(s: int, u: int, n_a: int, n_b: int, ks: list[int]) -> int:
    """2^(BITS·(n_A+n_B)) · Pr[R] with p_A = s/2^BITS, p_B = u/2^BITS (exact integers).

    Only the terms R reaches are formed: y below the first y with no qualifying x (``ks`` does
    not decrease), so the powers (1 − p_B)^(n_B − y) of those y only, the lowest by ``pow``; and
    the tail Pr[Bin(n_A, p_A) ≥ x] from x = k(0) up."""
    y_end = next((y for y, k in enumerate(ks) if k > n_a), n_b + 1)
    if y_end == 0:
        return 0
    x_lo = ks[0]
    # tail[x] for x_lo <= x <= n_a: ps[x] = s^x, qs[j] = (1 - s)^j for j <= n_a - x_lo
    ps = [pow(s, x_lo)]
    for _ in range(x_lo, n_a):
        ps.append(ps[-1] * s)
    qs = [1]
    for _ in range(n_a - x_lo):
        qs.append(qs[-1] * (_ONE - s))
    tail = [0] * (n_a + 2)
    acc = 0
    for x in range(n_a, x_lo - 1, -1):
        acc += math.comb(n_a, x) * ps[x - x_lo] * qs[n_a - x]
        tail[x] = acc
    # qu[y] = (1 - u)^(n_b - y) for y < y_end
    qu = [pow(_ONE - u, n_b - y_end + 1)]
    for _ in range(y_end - 1):
        qu.append(qu[-1] * (_ONE - u))
    qu.reverse()
    total = 0
    pu = 1
    for y in range(y_end):
        total += math.comb(n_b, y) * pu * qu[y] * tail[ks[y]]
        pu *= u
    return total


def rejects(x_a: int, n_a: int, x_b: int, n_b: int, a: Fraction, b: Fraction, delta: Fraction,
            alpha: float | Fraction) -> bool:
    """Whether H0(δ): a·p_A − b·p_B ≤ δ is rejected at level ``alpha`` by the exact test of the
    module docstring, after x_a of n_a and x_b of n_b runs showed the event.  Certified: every
    probability is exact, every rounding conservative; a case it cannot settle within
    :data:`MAX_DEPTH` halvings or :data:`MAX_EVALUATIONS` evaluations is not rejected.

    The answer is a function of the arguments (and of this module's limits) only, so it is
    cached: an audit asks the same questions again (its look plan's designs; the bisection of
    :func:`lower_confidence_delta` on counts that repeat when a run is repeated with its seed)."""
    if n_a < 1 or n_b < 1 or not (0 <= x_a <= n_a and 0 <= x_b <= n_b):
        raise ValueError("need 0 <= x <= n and n >= 1 for both binomials")
    a, b, delta = Fraction(a), Fraction(b), Fraction(delta)
    if a <= 0 or b < 0 or delta < 0:
        raise ValueError("need a > 0, b >= 0, delta >= 0")
    return _rejects(x_a, n_a, x_b, n_b, a, b, delta, alpha, (BITS, MAX_DEPTH, MAX_EVALUATIONS, _START_CELLS))


@functools.lru_cache(maxsize=4096)
def _rejects(x_a: int, n_a: int, x_b: int, n_b: int, a: Fraction, b: Fraction, delta: Fraction,
             alpha: float | Fraction, limits: tuple[int, int, int, int]) -> bool:
    """:func:`rejects` on checked arguments; ``limits`` (the module's search limits at the call)
    is part of the cache key only."""
    t = a * Fraction(x_a, n_a) - b * Fraction(x_b, n_b)
    if t <= delta or a <= delta:
        return False  # the observation itself is in H0's range (p-value ≥ 1/2 at best)
    ks = _region_thresholds(t, n_a, n_b, a, b)
    threshold = Fraction(alpha) * (1 << (BITS * (n_a + n_b)))
    p_b_max = min(Fraction(1), (a - delta) / b) if b > 0 else Fraction(0)
    hi = _up(p_b_max)
    cells = [(hi * i // _START_CELLS, hi * (i + 1) // _START_CELLS, 0) for i in range(_START_CELLS)]

    def edge(p_b: Fraction) -> Fraction:
        return min(Fraction(1), (delta + b * p_b) / a)

    evaluations = 0
    while cells:
        u, v, depth = cells.pop()
        evaluations += 2
        if evaluations > MAX_EVALUATIONS:
            return False
        if _prob_region(_up(edge(Fraction(v, _ONE))), u, n_a, n_b, ks) <= threshold:
            continue  # the whole cell is below alpha
        # a point of H0 (p_A at or below its edge at p_B = u) above alpha: not rejected
        if _prob_region(_down(edge(Fraction(u, _ONE))), u, n_a, n_b, ks) > threshold:
            return False
        if depth >= MAX_DEPTH or v - u <= 1:
            return False
        m = (u + v) // 2
        cells += [(u, m, depth + 1), (m, v, depth + 1)]
    return True


def lower_confidence_delta(x_a: int, n_a: int, x_b: int, n_b: int, a: Fraction, b: Fraction,
                           alpha: float | Fraction, *, steps: int = 14) -> Fraction:
    """The largest δ found (by bisection, ``steps`` halvings) whose H0(δ) :func:`rejects` —
    a lower confidence bound on a·p_A − b·p_B at level 1 − α; 0 when H0(0) is not rejected.
    Each returned value is itself certified rejected (the bisection only moves to tested δ)."""
    a, b = Fraction(a), Fraction(b)
    if not rejects(x_a, n_a, x_b, n_b, a, b, Fraction(0), alpha):
        return Fraction(0)
    lo = Fraction(0)
    hi = a * Fraction(x_a, n_a) - b * Fraction(x_b, n_b)  # never rejected at the observed value
    for _ in range(steps):
        mid = (lo + hi) / 2
        mid = Fraction(math.floor(mid * 2**60), 2**60)  # short numbers, still a tested value
        if mid <= lo:
            break
        if rejects(x_a, n_a, x_b, n_b, a, b, mid, alpha):
            lo = mid
        else:
            hi = mid
    return lo


def smallest_design(a: Fraction, b: Fraction, delta: Fraction, alpha: float | Fraction, *,
                    ratio: int, cap: int) -> tuple[int, int] | None:
    """The fewest runs (n_A, n_B), n_A = max(4, ⌈n_B/ratio⌉), with which a perfect observation
    (the event in all n_A runs, in none of the n_B) rejects H0(δ) at ``alpha``; None if more
    than ``cap`` runs would be needed.  Planned before any confirmation run (from the claim
    alone), so choosing it costs no confidence."""
    from dps_verify.core.errors import CertificationError
    from dps_verify.core.search import least_integer

    def n_a_of(n_b: int) -> int:
        return max(4, -(-n_b // ratio))

    # n_a_of(n) + n is strictly increasing, so the designs within the cap are n_B < first_over
    first_over = least_integer(lambda n: n_a_of(n) + n > cap, lo=0, guess=cap // 2,
                               limit=cap + 1, what="n_B")
    if first_over <= 5:
        return None
    try:
        # a perfect observation's evidence grows with n_B (and n_A with it), so the rejection
        # predicate is monotone and the least n_B is certified: ok(n_B) holds, ok(n_B - 1) fails
        n_b = least_integer(lambda n: rejects(n_a_of(n), n_a_of(n), 0, n, a, b, delta, alpha),
                            lo=5, guess=8, limit=first_over - 1, what="n_B")
    except CertificationError:
        return None
    return n_a_of(n_b), n_b


__all__ = ["BITS", "MAX_DEPTH", "MAX_EVALUATIONS", "lower_confidence_delta", "rejects", "smallest_design"]
