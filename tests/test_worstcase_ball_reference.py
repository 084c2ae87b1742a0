"""Ball-arithmetic binomial laws and the error-carrying PLD vectors against exact references.

``BallBinomial`` (python-flint arb balls, used by the long-range scan and the release
accountants) must enclose the binomial law computed here from the definition with exact
integers or mpmath at high precision: ln C(n, j) on both sides of 4096 and up to n = 10^30, β next
to 0 and 1, both tails on both sides of the mean (the summed tail and its complement) to the
working precision, the exact trivial tails, the ends of a ball, ε balls of exact logs with an
offset, and the term limit on both sides.  The
discretised PLD vectors' norms must bound every vector within their stated error.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dps_verify.core.errors import CertificationError
from dps_verify.core.numbers import ExactLog
from dps_verify.worstcase.ball_binomial import BallBinomial, arb_to_fractions

BETA = Fraction(1, 3)
RISING_MAX = 4096  # a former switch between two formulas for ln C(n, j): both sides stay tested


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


# --- exact integer references for larger n, the precision contract, edges and work limits ------

def _exact_tail(n: int, T: int, beta: Fraction) -> Fraction:
    """Pr[Bin(n, β) ≥ T] from the definition, with integers: Σ_{j ≥ T} C(n, j) p^j r^(n−j) / q^n."""
    p, q = beta.numerator, beta.denominator
    r = q - p
    return Fraction(sum(math.comb(n, j) * p**j * r ** (n - j) for j in range(max(T, 0), n + 1)), q**n)


def _rel_radius(ball) -> Fraction:
    lo, hi = arb_to_fractions(ball)
    return (hi - lo) / (2 * abs(lo + hi) / 2) if lo + hi else Fraction(0)


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


@pytest.mark.parametrize("beta", [Fraction(1, 3), Fraction(1, 2), Fraction(9, 10)])
@pytest.mark.parametrize("n", [1, 2, 300])
def test_tails_enclose_exact_integer_sums_to_the_working_precision(beta, n):
    """Every threshold of Bin(n, β), both tails, on both sides of the mean (summed directly, or
    as 1 − the other tail), with the remainder-bound stop for n = 300: each ball encloses the
    exact sum and its relative radius is within 2^(4 − prec) (the class's precision contract)."""
    prec = 80
    B = BallBinomial(beta, prec)
    bound = Fraction(16, 1 << prec)
    p, q = beta.numerator, beta.denominator
    weights = [math.comb(n, j) * p**j * (q - p) ** (n - j) for j in range(n + 1)]
    suffix = [0] * (n + 2)
    for j in range(n, -1, -1):
        suffix[j] = suffix[j + 1] + weights[j]
    total = q**n
    for T in range(-1, n + 2):
        up = Fraction(suffix[min(max(T, 0), n + 1)], total)
        low = 1 - Fraction(suffix[min(max(T + 1, 0), n + 1)], total)
        for ball, exact in ((B.upper_tail(T, n), up), (B.lower_cdf(T, n), low)):
            lo, hi = arb_to_fractions(ball)
            assert lo <= exact <= hi, (T, float(exact))
            assert hi - lo <= bound * exact, T
        if 0 <= T <= n:
            f = Fraction(weights[T], total)
            lo, hi = arb_to_fractions(B.pmf(T, n))
            assert lo <= f <= hi and hi - lo <= bound * f, T


@pytest.mark.parametrize("n", [1, 30])
def test_trivial_tails_are_exact(n):
    """Pr[X ≥ T] for T ≤ 0 and Pr[X ≤ m] for m ≥ n are exactly 1, beyond the range exactly 0,
    for β on both sides of 1/2 (small and large odds β/(1−β))."""
    for beta in (Fraction(1, 3), Fraction(99, 100)):
        B = BallBinomial(beta, 64)
        for ball, value in ((B.upper_tail(0, n), 1), (B.upper_tail(-1, n), 1), (B.lower_cdf(n, n), 1),
                            (B.lower_cdf(n + 1, n), 1), (B.upper_tail(n + 1, n), 0),
                            (B.lower_cdf(-1, n), 0), (B.pmf(-1, n), 0), (B.pmf(n + 1, n), 0)):
            assert arb_to_fractions(ball) == (value, value)


@pytest.mark.parametrize("beta", [Fraction(1, 3), Fraction(1, 10**40), Fraction(10**40 - 1, 10**40)])
@pytest.mark.parametrize("j, n", [(0, 10**30), (10**30, 10**30), (3 * 10**29 + 7, 10**30),
                                  (5000, 10**12), (10**12 - 5000, 10**12), (1, 3)])
def test_log_pmf_at_huge_group_sizes_is_accurate_to_the_working_precision(j, n, beta):
    """ln f(j; n, β) for n up to 10^30 and β next to 0 or 1 against mpmath at 150 digits
    (ln C(n, j) through loggamma): enclosed, with an absolute radius within
    2^(4 − prec) · max(1, |ln f|)."""
    prec = 96
    B = BallBinomial(beta, prec)
    with mpmath.workdps(150):
        exact = (mpmath.loggamma(n + 1) - mpmath.loggamma(j + 1) - mpmath.loggamma(n - j + 1)
                 + j * mpmath.log(_mp(beta)) + (n - j) * mpmath.log(_mp(1 - beta)))
        lo, hi = arb_to_fractions(B.log_pmf(j, n))
        assert _mp(lo) <= exact <= _mp(hi)
        assert _mp(hi - lo) <= mpmath.mpf(2) ** (4 - prec) * max(1, abs(exact))


def test_large_group_size_tails_on_both_sides_of_the_mean_are_complements():
    """At n = 10^7 (standard deviation about 1490) the tails 6 deviations from the mean are
    summed from the side whose first term ratio is below 1 (the other side would take millions
    of terms, past the term limit); Pr[X ≥ T] + Pr[X ≤ T − 1] must contain 1, with both tight
    to the working precision."""
    n = 3 * 10**7
    prec = 64
    for T in (n // 3 - 9000, n // 3 + 9000):
        B = BallBinomial(BETA, prec)
        up, low = B.upper_tail(T, n), B.lower_cdf(T - 1, n)
        lo_u, hi_u = arb_to_fractions(up)
        lo_l, hi_l = arb_to_fractions(low)
        assert lo_u + lo_l <= 1 <= hi_u + hi_l
        for lo, hi in ((lo_u, hi_u), (lo_l, hi_l)):
            assert 0 < lo and hi - lo <= Fraction(16, 1 << prec) * hi


def test_beta_must_be_strictly_between_0_and_1():
    from dps_verify.core.errors import ParameterError

    for beta in (Fraction(0), Fraction(1), Fraction(-1, 2), Fraction(3, 2)):
        with pytest.raises(ParameterError):
            BallBinomial(beta, 64)
    for beta in (Fraction(1, 10**40), Fraction(10**40 - 1, 10**40)):
        B = BallBinomial(beta, 64)
        lo, hi = arb_to_fractions(B.pmf(1, 1))
        assert lo <= beta <= hi


def test_log_pmf_refuses_an_outcome_outside_0_to_n():
    B = BallBinomial(BETA, 64)
    for j in (-1, 6):
        with pytest.raises(ValueError):
            B.log_pmf(j, 5)


def test_ball_ends_are_the_exact_midpoint_minus_and_plus_radius():
    import flint

    with flint.ctx.workprec(60):
        x = flint.arb(1) / 3 + flint.arb(0, Fraction(1, 1 << 70).__float__())
        y = -flint.arb(10) ** 40 / 7
    for ball in (x, y, flint.arb(5), flint.arb(0)):
        lo, hi = arb_to_fractions(ball)
        mid, rad = ball.mid().man_exp(), ball.rad().man_exp()
        m = Fraction(int(mid[0])) * Fraction(2) ** int(mid[1])
        r = Fraction(int(rad[0])) * Fraction(2) ** int(rad[1])
        assert (lo, hi) == (m - r, m + r)
    assert arb_to_fractions(x)[0] < Fraction(1, 3) < arb_to_fractions(x)[1]
    with pytest.raises(CertificationError):
        arb_to_fractions(flint.arb(0, float("inf")))
    with pytest.raises(CertificationError):
        arb_to_fractions(flint.arb("nan"))


@pytest.mark.parametrize("eps", [ExactLog(Fraction(11)), ExactLog(Fraction(3, 2), Fraction(-5, 7)),
                                 Fraction(3, 10), 2])
def test_epsilon_balls_enclose_rationals_and_exact_logs_with_their_offset(eps):
    """ε = a + ln r (an exact log with a rational offset a, as ε − ε₁ in CP Thm 6) and a
    rational or integer ε, against mpmath at 60 digits: enclosed, radius below 10^−15."""
    import flint

    from dps_verify.worstcase.ball_binomial import arb_epsilon, arb_fraction

    with mpmath.workdps(60):
        if isinstance(eps, ExactLog):
            exact = _mp(eps.a) + mpmath.log(_mp(eps.r))
        else:
            exact = _mp(Fraction(eps))
        with flint.ctx.workprec(64):
            for ball in (arb_epsilon(eps), arb_fraction(eps)):
                lo, hi = arb_to_fractions(ball)
                assert _mp(lo) <= exact <= _mp(hi)
                assert _mp(hi - lo) <= mpmath.mpf(10) ** -15


def test_the_tail_sums_of_one_object_take_at_most_total_terms(monkeypatch):
    """The upper tail Pr[Bin(40, 1/3) ≥ 30] at a precision that never lets the remainder stop
    early takes exactly 10 terms after the first: a limit of 10 is enough, 9 is refused; the
    limit adds up over the sums of one object."""
    import dps_verify.worstcase.ball_binomial as bb

    n, T = 40, 30
    exact = _exact_tail(n, T, BETA)
    B = BallBinomial(BETA, 4000)
    lo, hi = arb_to_fractions(B.upper_tail(T, n))
    assert lo <= exact <= hi and B.terms == n - T
    B = BallBinomial(BETA, 4000)  # the lower tail Pr[X ≤ 10] walks down to 0: 10 terms
    lo, hi = arb_to_fractions(B.lower_cdf(10, n))
    assert lo <= 1 - _exact_tail(n, 11, BETA) <= hi and B.terms == 10
    monkeypatch.setattr(bb, "TOTAL_TERMS", n - T)
    lo, hi = arb_to_fractions(BallBinomial(BETA, 4000).upper_tail(T, n))
    assert lo <= exact <= hi
    monkeypatch.setattr(bb, "TOTAL_TERMS", n - T - 1)
    with pytest.raises(CertificationError, match="TOTAL_TERMS"):
        BallBinomial(BETA, 4000).upper_tail(T, n)
    monkeypatch.setattr(bb, "TOTAL_TERMS", 2 * (n - T) - 1)
    B = BallBinomial(BETA, 4000)
    B.upper_tail(T, n)
    with pytest.raises(CertificationError, match="TOTAL_TERMS"):
        B.upper_tail(T, n)


def test_the_lifetime_limit_is_500000_terms():
    """An object that has summed 500000 − 10 terms may still sum the 10 of Pr[Bin(40, 1/3) ≥ 30]
    at 4000 bits; with one more already summed the sum is refused, naming the limit."""
    n, T = 40, 30
    B = BallBinomial(BETA, 4000)
    B.terms = 500_000 - (n - T)
    lo, hi = arb_to_fractions(B.upper_tail(T, n))
    assert lo <= _exact_tail(n, T, BETA) <= hi and B.terms == 500_000
    B = BallBinomial(BETA, 4000)
    B.terms = 500_000 - (n - T) + 1
    with pytest.raises(CertificationError, match="TOTAL_TERMS = 500000 terms"):
        B.upper_tail(T, n)


def _ref_terms(n: int, T: int, beta: Fraction, prec: int, upper: bool) -> int:
    """Terms the documented rule sums (exact rationals) for Pr[X ≥ T] (upper) or Pr[X ≤ T]:
    trivial thresholds take none; otherwise the side whose first ratio is < 1 (upper: ρ_T =
    (n−T)β/((T+1)(1−β)), lower: τ_m = m(1−β)/((n−m+1)β)), else the complement's; from t = S =
    f(start) it adds t·r while the remainder bound t·r/(1 − r) exceeds S·2^−prec, up to the end."""
    odds = beta / (1 - beta)
    if upper:
        if T <= 0 or T > n:
            return 0
        if (n - T) * odds / (T + 1) >= 1:
            return _ref_terms(n, T - 1, beta, prec, upper=False)
        j, end, step = T, n, 1
    else:
        if T < 0 or T >= n:
            return 0
        if T / ((n - T + 1) * odds) >= 1:
            return _ref_terms(n, T + 1, beta, prec, upper=True)
        j, end, step = T, 0, -1
    t = Fraction(math.comb(n, j)) * beta**j * (1 - beta) ** (n - j)
    S, count = t, 0
    while j != end:
        r = (n - j) * odds / (j + 1) if upper else j / ((n - j + 1) * odds)
        if t * r / (1 - r) <= S / 2**prec:
            return count
        count += 1
        t *= r
        S += t
        j += step
    return count


@pytest.mark.parametrize("beta, n, thresholds", [
    (Fraction(1, 3), 32, [10, 11, 9, 12]),   # ρ_10 = 1 and τ_11 = 1 exactly: the complement is summed
    (Fraction(1, 2), 21, [10, 11, 9]),       # ρ_10 = 1 exactly
    (Fraction(1, 3), 300, [40, 90, 99, 100, 101, 110, 200, 290]),
    (Fraction(9, 10), 200, [150, 179, 180, 181, 195]),
])
def test_tails_take_exactly_the_terms_the_remainder_rule_needs(beta, n, thresholds):
    """The side summed (first ratio < 1, the complement at a ratio of exactly 1) and the stop
    (first remainder bound t·r/(1−r) ≤ 2^−prec of the sum) as documented: the work counter
    equals the exact-rational count, for both tails."""
    prec = 60
    for T in thresholds:
        for upper in (True, False):
            B = BallBinomial(beta, prec)
            (B.upper_tail if upper else B.lower_cdf)(T, n)
            assert B.terms == _ref_terms(n, T, beta, prec, upper), (T, upper)
