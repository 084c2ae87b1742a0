"""kl_lower: a certified lower bound on the Chernoff exponent KL(γ‖β), γ = 1 − (1−β)e^{−ε}
(CP Thm 5's stopping rule), checked against KL computed from its definition in mpmath at far
more digits than the bound claims; ε > 0 is a stated precondition (at ε = 0, γ = β and KL = 0,
so there is no exponent to bound)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.worstcase import sdgs


def _kl_reference(beta: Fraction, eps: Fraction) -> mpmath.mpf:
    """KL(γ‖β) from its definition at 1500 digits (enough for ε down to 10^-300: the value is
    about ε²/2 and the terms it cancels are about ε)."""
    with mpmath.workdps(1500):
        b = mpmath.mpf(beta.numerator) / beta.denominator
        g = 1 - (1 - b) * mpmath.exp(-(mpmath.mpf(eps.numerator) / eps.denominator))
        return +(g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b)))


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(-1), Fraction(-1, 10**30)])
def test_kl_lower_refuses_a_non_positive_epsilon(eps: Fraction) -> None:
    with pytest.raises(ParameterError, match="epsilon > 0"):
        sdgs.kl_lower(Fraction(1, 2), eps)


@pytest.mark.parametrize("beta", [Fraction(1), Fraction(0), Fraction(3, 2), Fraction(-1, 2)])
def test_kl_lower_refuses_beta_outside_the_open_unit_interval(beta: Fraction) -> None:
    # at beta = 1, gamma = 1 = beta and KL(gamma||beta) = 0: no exponent to bound (the ball of
    # KL is then exactly 0, which a lower bound must not report as usable)
    with pytest.raises(ParameterError, match="0 < beta < 1"):
        sdgs.kl_lower(beta, Fraction(1))


def test_kl_lower_accepts_beta_just_inside_the_open_unit_interval() -> None:
    for beta in (Fraction(1, 10**6), Fraction(10**6 - 1, 10**6)):
        got = sdgs.kl_lower(beta, Fraction(1))
        with mpmath.workdps(1500):
            assert 0 < mpmath.mpf(got.numerator) / got.denominator <= _kl_reference(beta, Fraction(1))


@pytest.mark.parametrize("measure", ["hockey-stick", "pointwise"])
def test_forced_segment_scan_refuses_epsilon_zero_instead_of_using_a_zero_exponent(measure: str) -> None:
    with pytest.raises(ParameterError, match="epsilon > 0"):
        sdgs.scan_segments_for_test(2, Fraction(1, 2), Fraction(0), measure)


@pytest.mark.parametrize(
    "beta, eps",
    [
        (Fraction(1, 2), Fraction(1, 10**60)),  # the ball route declines: the mpmath.iv route
        (Fraction(1, 2), Fraction(1, 10**300)),
        (Fraction(1, 3), Fraction(1, 3)),  # the ball route
        (Fraction(9, 10), Fraction(100)),  # ε capped at 64
    ],
)
def test_kl_lower_is_a_positive_lower_bound_with_twenty_bits(beta: Fraction, eps: Fraction) -> None:
    got = sdgs.kl_lower(beta, eps)
    ref = _kl_reference(beta, eps)
    with mpmath.workdps(1500):
        lo = mpmath.mpf(got.numerator) / got.denominator
        assert 0 < lo <= ref
        assert lo >= ref * (1 - mpmath.mpf(2) ** -19)


@pytest.mark.parametrize("eps", [Fraction(1, 2**9000), Fraction(1, 2**20000)])
def test_kl_lower_gives_no_bound_past_the_precision_limit(eps: Fraction) -> None:
    """For ε of 2^−9000 and below, KL(γ‖β) ≈ ε²/8 (β = 1/2) is the difference of terms of size
    ε: the ball route declines and interval arithmetic does not reach 20 bits within its 2^14-bit
    limit, so kl_lower answers 0, its documented "no usable bound", which every caller refuses.
    Any positive answer would be unsound unless checked: the reference value is below 2^−18000,
    so a bound of, say, 1 would stop the scans long before the true stopping point."""
    assert sdgs.kl_lower(Fraction(1, 2), eps) == 0
    with mpmath.workdps(50):
        e = mpmath.mpf(eps.numerator) / eps.denominator
        assert e * e / 8 < mpmath.mpf(2) ** -18000  # the true KL: positive but far below any usable bound


@pytest.mark.parametrize("beta, eps", [(Fraction(1, 3), Fraction(1, 3)), (Fraction(9, 10), Fraction(100))])
def test_kl_lower_takes_the_ball_route_when_it_is_certain_to_twenty_bits(monkeypatch, beta, eps) -> None:
    """python-flint is a dependency, so where its ball of KL(γ‖β) is positive with 20 certain bits
    kl_lower answers from it (about 50× cheaper) and never reaches mpmath.iv; the answer is still
    a lower bound within 2^−19 of the definition.  Control: for ε = 10^−60 the ball cancels too
    much and mpmath.iv is asked (so the stub below can tell the routes apart)."""

    def no_interval_route(*args, **kwargs):
        raise AssertionError("mpmath.iv route taken")

    monkeypatch.setattr(sdgs, "iv_adaptive", no_interval_route)
    got = sdgs.kl_lower(beta, eps)
    ref = _kl_reference(beta, eps)
    with mpmath.workdps(1500):
        lo = mpmath.mpf(got.numerator) / got.denominator
        assert 0 < lo <= ref and lo >= ref * (1 - mpmath.mpf(2) ** -19)
    with pytest.raises(AssertionError, match="mpmath.iv route taken"):
        sdgs.kl_lower(Fraction(1, 2), Fraction(1, 10**60))


@pytest.mark.parametrize("beta", [Fraction(1, 3), Fraction(9, 10)])
def test_kl_lower_takes_epsilon_at_most_64(beta: Fraction) -> None:
    """ε is capped at 64 (KL(γ‖β) grows with ε, so the capped value is a lower bound): every ε
    from 64 on gives the bound of ε = 64 itself, and ε just below 64 a smaller one."""
    at_cap = sdgs.kl_lower(beta, Fraction(64))
    assert sdgs.kl_lower(beta, Fraction(65)) == sdgs.kl_lower(beta, Fraction(10**6)) == at_cap
    assert sdgs.kl_lower(beta, Fraction(63)) < at_cap
    with mpmath.workdps(1500):
        assert mpmath.mpf(at_cap.numerator) / at_cap.denominator <= _kl_reference(beta, Fraction(65))


def test_capped_walk_refuses_an_exponent_that_is_not_certified_positive() -> None:
    """The walk asks for the certified Chernoff exponent only as a positive number: at
    ε = 2^−9000 (β = 1/2) kl_lower answers 0 ("no usable bound"), and a capped walk (which
    needs it for its tail bound past max_n, and first for its stop screen) refuses with
    CertificationError instead of going on with an exponent of 0 (a tail bound of 1)."""
    with pytest.raises(CertificationError, match="not certified positive"):
        sdgs.scan(3, Fraction(1, 2), Fraction(1, 2**9000), measure="hockey-stick", max_n=5)
