"""The exact thresholds of worstcase/sdgs.py against linear walks from their definitions (CP
Thm 5's setting): first_bad(n) is the least j > γn with γ = 1 − (1−β)e^−ε, and slack(n) the
largest m ≥ 0 with m < n(1−β)e^−ε, at small groups and large ε too (where n(1−β)e^−ε ≤ 1 and
the slack is 0), with e^ε at 60 digits or exact (an exact-log ε)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from dps_verify.core.numbers import exact_log
from dps_verify.worstcase.sdgs import first_bad, slack


def _mp(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


def _slack_reference(n: int, beta: Fraction, eps) -> int:
    with mpmath.workdps(60):
        e = _mp(eps.r) if hasattr(eps, "r") else mpmath.exp(_mp(eps))
        bound = n * (1 - _mp(beta)) / e  # m < n(1−β)e^−ε
        m = 0
        while m + 1 < bound:
            m += 1
        return m


@pytest.mark.parametrize("beta", [Fraction(1, 2), Fraction(1, 10), Fraction(9, 10)])
@pytest.mark.parametrize("eps", [Fraction(1, 10), Fraction(1), Fraction(3), Fraction(8)])
def test_slack_and_first_bad_equal_the_linear_walk(beta, eps):
    for n in range(1, 41):
        m = _slack_reference(n, beta, eps)
        assert slack(n, beta, eps) == m
        assert first_bad(n, beta, eps) == n - m


def test_slack_at_an_exact_tie_excludes_the_tie():
    """e^ε = 2 exactly and n(1−β) = 4: m < 4/2 = 2 gives m = 1 (m = 2 is the tie, not below)."""
    beta, eps = Fraction(1, 2), exact_log(Fraction(2))
    assert slack(8, beta, eps) == 1 == _slack_reference(8, beta, eps)
    assert first_bad(8, beta, eps) == 7
