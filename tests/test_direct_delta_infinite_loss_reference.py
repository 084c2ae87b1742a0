"""The infinite-loss part of the direct T-fold delta, 1 − (1 − p∞)^T (CP Def. 2 for T independent
releases: a tuple with one output Q never produces is a violation of any ε), stays a tight
enclosure for a tiny p∞ (1e-30 and below, where 1 − (1 − p∞)^T in 128-bit balls cancels to an
absolute error near 2^-128) and for p∞ within far less than 2^-128 of 1.  References: the exact
rational T-fold hockey-stick delta, every T-tuple of outputs enumerated (milliseconds)."""

from fractions import Fraction

import pytest

from dps_verify.inverse import pld_discrete as D
from dps_verify.measures.pld import PrivacyLossDistribution
from tests.test_inverse_edges_reference import _hs as exact_t_fold_delta  # every T-tuple enumerated

TINY = [Fraction(1, 10**30), Fraction(1, 10**45), Fraction(7, 10**300)]


@pytest.mark.parametrize("p_inf", TINY)
def test_a_tiny_infinite_loss_mass_keeps_the_direct_delta_tight(p_inf: Fraction) -> None:
    # P puts p∞ on an output Q never produces; the finite ratios (about 2/3 and 2) compose to at
    # most 2^4 < e^ε = 20, so δ_T(ln 20) is the infinite-loss part alone: 1 − (1 − p∞)^T ≈ T·p∞
    p = {0: Fraction(1, 2) - p_inf, 1: Fraction(1, 2), 2: p_inf}
    q = {0: Fraction(3, 4), 1: Fraction(1, 4)}
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    assert pld.infinity_mass == p_inf and pld.ratios
    for times in (1, 2, 4):
        exact = exact_t_fold_delta(p, q, Fraction(20), times)
        c = D.direct_delta(pld, "ln(20)", times)
        assert 0 < c.lower <= exact <= c.upper
        assert c.upper - c.lower <= exact * Fraction(1, 10**12)  # the documented relative width


@pytest.mark.parametrize("p_inf", TINY)
def test_a_tiny_infinite_loss_mass_beside_a_finite_violation(p_inf: Fraction) -> None:
    # P = {0: 1/2, 1: 1/2 − p∞, 2: p∞}, Q = {0: 1/4, 1: 3/4}: at e^ε = 3/2 the finite part
    # (1/2 − 3/8 per coordinate, composed) dominates; the tiny infinite part must not widen it
    p = {0: Fraction(1, 2), 1: Fraction(1, 2) - p_inf, 2: p_inf}
    q = {0: Fraction(1, 4), 1: Fraction(3, 4)}
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    for times in (1, 3):
        exact = exact_t_fold_delta(p, q, Fraction(3, 2), times)
        c = D.direct_delta(pld, "ln(3/2)", times)
        assert c.lower <= exact <= c.upper
        assert c.upper - c.lower <= exact * Fraction(1, 10**9)


@pytest.mark.parametrize("p_inf", [Fraction(1, 2), Fraction(1, 2) + Fraction(1, 10**50),
                                   1 - Fraction(1, 10**40), 1 - Fraction(1, 10**400),
                                   Fraction(1)])
def test_the_infinite_loss_part_near_and_at_one(p_inf: Fraction) -> None:
    # 1 − p∞ far below 2^-128: log1p(−p∞) would lose it; the part is then 1 − (1 − p∞)^T exactly
    # enclosed from the rational 1 − p∞
    pld = PrivacyLossDistribution({}, p_inf)
    for times in (1, 3):
        exact = 1 - (1 - p_inf) ** times
        c = D.direct_delta(pld, 0, times)
        assert c.lower <= exact <= c.upper <= 1
        assert c.upper - c.lower <= exact * Fraction(1, 10**30)


@pytest.mark.parametrize("p_inf", TINY)
def test_a_tiny_infinite_loss_mass_keeps_the_sparse_delta_tight(p_inf: Fraction) -> None:
    # the sparse enclosure (releases off the dominant atom) adds the same infinite-loss part
    from dps_verify.inverse.pld_sparse import sparse_delta

    p = {0: Fraction(1, 2) - p_inf, 1: Fraction(1, 2), 2: p_inf}
    q = {0: Fraction(3, 4), 1: Fraction(1, 4)}
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    for times in (1, 2, 4):
        exact = exact_t_fold_delta(p, q, Fraction(20), times)
        c = sparse_delta(pld, "ln(20)", times)
        assert 0 < c.lower <= exact <= c.upper
        assert c.upper - c.lower <= exact * Fraction(1, 10**12)
