"""Exact PLDs: agreement with the direct hockey-stick δ and with product distributions."""

import itertools
from fractions import Fraction

import mpmath
import pytest

from dps_verify import exact
from dps_verify import mechanisms as M
from dps_verify.measures.pld import PrivacyLossDistribution, pair_delta, pair_epsilon

P = {"a": Fraction(1, 2), "b": Fraction(3, 8), "c": Fraction(1, 8)}
Q = {"a": Fraction(1, 4), "b": Fraction(1, 2), "c": Fraction(1, 4), "d": Fraction(0)}


def product(p, q, m):
    """m-fold product laws, enumerated directly (reference for composition)."""
    ys = list(p)
    out_p, out_q = {}, {}
    for combo in itertools.product(ys, repeat=m):
        pp, qq = Fraction(1), Fraction(1)
        for y in combo:
            pp *= p[y]
            qq *= q.get(y, Fraction(0))
        out_p[combo], out_q[combo] = pp, qq
    return out_p, out_q


@pytest.mark.parametrize("eps", [0, Fraction(1, 3), 1])
def test_single_release_delta_matches_direct(eps):
    fwd = PrivacyLossDistribution.from_pair(P, Q)
    bwd = PrivacyLossDistribution.from_pair(Q, P)
    assert max(fwd.delta_certified(eps).upper, bwd.delta_certified(eps).upper) == pytest.approx(
        float(exact.delta_certified(P, Q, eps).upper), abs=1e-30
    ) or abs(max(fwd.delta(eps), bwd.delta(eps)) - exact.delta(P, Q, eps)) < 1e-15


@pytest.mark.parametrize("m", [2, 3])
@pytest.mark.parametrize("eps", [Fraction(1, 2), 1, 2])
def test_self_composition_equals_product_distribution(m, eps):
    pm, qm = product(P, Q, m)
    assert abs(pair_delta(P, Q, eps, times=m) - exact.delta(pm, qm, eps)) < 1e-14


def test_infinite_loss_mass_composes():
    p = {"x": Fraction(1, 2), "y": Fraction(1, 2)}
    q = {"x": Fraction(1)}
    pld = PrivacyLossDistribution.from_pair(p, q).self_compose(3)
    assert pld.infinity_mass == 1 - Fraction(1, 8)
    assert pld.total_mass() == 1


def test_epsilon_inverts_delta():
    pld = PrivacyLossDistribution.from_pair(P, Q).self_compose(4)
    for d in [Fraction(1, 100), Fraction(1, 10)]:
        e = pld.epsilon(d)
        assert pld.delta(e) <= float(d) + 1e-15
        assert pld.delta(e - mpmath.mpf("1e-9")) > float(d)


def test_fresh_sample_releases_of_sampled_k_anonymization():
    """CP §2.7: repeated releases on fresh samples compose; the PLD accounts them exactly."""
    A = M.StronglySafeKAnonymizer(lambda r: 0, 2)
    p = exact.distribution(A, [1, 2, 3, 4], Fraction(1, 2))
    q = exact.distribution(A, [1, 2, 3], Fraction(1, 2))
    one = pair_epsilon(p, q, Fraction(1, 10))
    five = pair_epsilon(p, q, Fraction(1, 10), times=5)
    assert five > one  # composition costs privacy
    pm, qm = product(p.exact, q.exact, 2)
    assert abs(pair_delta(p, q, 1, times=2) - exact.delta(pm, qm, 1)) < 1e-14


def test_negative_control_wrong_composition_rule_is_rejected():
    """The product-distribution check must reject a composition that adds ratios instead of
    multiplying them (i.e. adds e^loss instead of adding losses)."""
    pld = PrivacyLossDistribution.from_pair(P, Q)
    wrong: dict = {}
    for r1, p1 in pld.ratios.items():
        for r2, p2 in pld.ratios.items():
            wrong[r1 + r2] = wrong.get(r1 + r2, Fraction(0)) + p1 * p2
    wrong_pld = PrivacyLossDistribution(wrong, Fraction(0))
    pm, qm = product(P, Q, 2)
    fwd_true = PrivacyLossDistribution.from_pair(pm, qm)
    assert abs(pld.self_compose(2).delta(1) - fwd_true.delta(1)) < 1e-15
    assert abs(wrong_pld.delta(1) - fwd_true.delta(1)) > 1e-3
