"""Ball-arithmetic binomial laws and the error-carrying PLD vectors against exact references.

``BallBinomial`` (python-flint arb balls, used by the long-range scan and the release
accountants) must enclose the binomial law computed here from the definition with exact
integers: both ways of computing ln C(n, j) (rising factorial up to ``RISING_MAX``, lgamma past
it), and both tails on both sides of the mean (the summed tail and its complement).  The
discretised PLD vectors' norms must bound every vector within their stated error.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dps_verify.worstcase.ball_binomial import RISING_MAX, BallBinomial, arb_to_fractions

BETA = Fraction(1, 3)


def _exact_log_pmf(j: int, n: int, beta: Fraction) -> mpmath.mpf:
    with mpmath.workdps(60):
        return (mpmath.log(math.comb(n, j)) + j * mpmath.log(mpmath.mpf(beta.numerator) / beta.denominator)
                + (n - j) * mpmath.log(mpmath.mpf(beta.denominator - beta.numerator) / beta.denominator))


def _encloses(ball, x: mpmath.mpf) -> bool:
    lo, hi = arb_to_fractions(ball)
    with mpmath.workdps(60):
        slack = abs(x) * mpmath.mpf(10) ** -40 + mpmath.mpf(10) ** -300
        return (mpmath.mpf(lo.numerator) / lo.denominator <= x + slack
                and x - slack <= mpmath.mpf(hi.numerator) / hi.denominator)


@pytest.mark.parametrize("j, n", [
    (0, 50), (50, 50), (17, 50),                      # s = 0 and the rising factorial
    (RISING_MAX, 2 * RISING_MAX),                     # the last rising-factorial case
    (RISING_MAX + 1, 2 * RISING_MAX + 5),             # lgamma: s > RISING_MAX
    (2 * RISING_MAX + 900, 3 * RISING_MAX + 1000),    # lgamma, j above the middle
])
def test_log_pmf_encloses_the_exact_binomial_log_probability(j, n):
    B = BallBinomial(BETA, 128)
    assert _encloses(B.log_pmf(j, n), _exact_log_pmf(j, n, BETA))


@pytest.mark.parametrize("n", [30, 61])
def test_tails_enclose_the_exact_sums_on_both_sides_of_the_mean(n):
    """Pr[Bin(n, β) ≥ T] and Pr[Bin(n, β) ≤ m] for every threshold: below the mean the
    upper tail is taken as 1 − the lower cdf (and the reverse), both must hold."""
    B = BallBinomial(BETA, 128)
    pmf = [Fraction(math.comb(n, j)) * BETA**j * (1 - BETA) ** (n - j) for j in range(n + 1)]
    with mpmath.workdps(60):
        for t in range(-1, n + 2):
            up = sum(pmf[max(t, 0):], Fraction(0))
            low = sum(pmf[:max(t + 1, 0)], Fraction(0))
            assert _encloses(B.upper_tail(t, n), mpmath.mpf(up.numerator) / up.denominator), t
            assert _encloses(B.lower_cdf(t, n), mpmath.mpf(low.numerator) / low.denominator), t


def test_pld_vector_norms_bound_every_vector_within_the_stated_error():
    """A vector known up to an error of 2-norm err2: its 2-norm is at most ‖data‖₂ + err2 and
    its 1-norm at most Σ data + √n·err2, for the worst perturbation (all of err2 on one
    direction) — the bounds must cover that worst case."""
    from dps_verify.inverse.pld_discrete import _Vec

    data = np.array([0.5, 0.25, 0.125, 0.0625])
    err2 = 1e-3
    v = _Vec(data=data, offset=0, err2=err2, extra=0.0)
    n = len(data)
    with mpmath.workdps(40):
        two = mpmath.sqrt(sum(mpmath.mpf(x) ** 2 for x in data)) + err2
        one = sum(mpmath.mpf(x) for x in data) + mpmath.sqrt(n) * err2
        assert v.norm2() >= two
        assert v.norm1() >= one
        # and they are bounds, not a blanket: within 1e-12 of the worst case
        assert v.norm2() <= two * (1 + mpmath.mpf(10) ** -12)
        assert v.norm1() <= one * (1 + mpmath.mpf(10) ** -12)
