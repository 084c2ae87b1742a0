"""The divergences of measures/divergence.py against the laws they are defined on, on the paths the
other tests reach rarely: two product laws that differ in more than one group (the cancellation
of the shared groups, without which the joint law would be expanded), each function checked
against the same measure of the expanded laws of only the differing groups (CP Def. 2,
TR Def. 2)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dps_verify
from dps_verify.measures.divergence import (
    delta_certified,
    delta_exceeds,
    epsilon,
    pointwise_delta_exact,
)
from dps_verify.mechanisms import StronglySafeKAnonymizer


def _group(r: int) -> int:
    return r % 16


ANON = StronglySafeKAnonymizer(_group, 2)
DATA = list(range(16 * 6))  # 16 groups of 6 records: 7^16 joint outputs, far past the budget
BETA = Fraction(1, 2)


@pytest.fixture(scope="module")
def pairs():
    """(P, Q) over all 16 groups, differing in groups 0 and 1 (records 0 and 1 removed), and the
    expanded laws of those two groups alone (the reference)."""
    P = dps_verify.distribution(ANON, DATA, BETA)
    Q = dps_verify.distribution(ANON, DATA[2:], BETA)
    two = [r for r in DATA if _group(r) in (0, 1)]
    Pr = dict(dps_verify.distribution(ANON, two, BETA).expand())
    Qr = dict(dps_verify.distribution(ANON, two[2:], BETA).expand())
    return P, Q, Pr, Qr


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 2), Fraction(1)])
def test_measures_of_product_laws_differing_in_two_groups_cancel_the_shared_ones(pairs, eps):
    """Every measure cancels the 14 shared groups (expanding them would be refused)."""
    P, Q, Pr, Qr = pairs
    ref = delta_certified(Pr, Qr, eps)
    assert delta_certified(P, Q, eps) == ref
    assert pointwise_delta_exact(P, Q, eps) == pointwise_delta_exact(Pr, Qr, eps)
    assert epsilon(P, Q, Fraction(1, 2)) == epsilon(Pr, Qr, Fraction(1, 2))
    # delta_exceeds on both sides of the value
    assert delta_exceeds(P, Q, eps, ref.lower - Fraction(1, 10**9))
    assert not delta_exceeds(P, Q, eps, ref.upper + Fraction(1, 10**9))


@pytest.mark.parametrize("d", [Fraction(0), Fraction(1, 64), Fraction(1, 30), Fraction(1, 10), Fraction(1, 5)])
def test_epsilon_of_product_laws_differing_in_one_group_equals_the_expanded_one(d):
    """The segments path (one differing group): finite ε, and ∞ when the mass at infinite loss
    exceeds δ, as for the expanded laws of that group."""
    small = [r for r in DATA if _group(r) in (0, 1)]
    P = dps_verify.distribution(ANON, DATA, BETA)
    Q = dps_verify.distribution(ANON, DATA[1:], BETA)  # record 0 removed: group 0 differs
    Pr = dict(dps_verify.distribution(ANON, small, BETA).expand())
    Qr = dict(dps_verify.distribution(ANON, small[1:], BETA).expand())
    assert epsilon(P, Q, d) == epsilon(Pr, Qr, d)
    assert epsilon(Q, P, d) == epsilon(Qr, Pr, d)


def test_epsilon_walks_the_likelihood_ratios_down_to_one():
    """least x = e^ε with Σ max(0, P − xQ) ≤ δ, against the brute force over the ratios."""
    from dps_verify.measures.divergence import least_exp_for_delta

    segs = [(Fraction(3), Fraction(3, 10), Fraction(1, 10)), (Fraction(3, 2), Fraction(3, 10),
                                                              Fraction(1, 5))]

    def delta_at(x):  # hockey-stick mass of the segments at e^ε = x, from the definition
        return sum(max(Fraction(0), a - x * b) for _, a, b in segs)

    for d in (Fraction(0), Fraction(1, 20), Fraction(1, 10), Fraction(1, 5), Fraction(2, 5)):
        x = least_exp_for_delta(segs, Fraction(0), d)
        assert x >= 1 and delta_at(x) <= d
        assert x == 1 or delta_at(x - Fraction(1, 10**9)) > d  # least
    assert least_exp_for_delta(segs, Fraction(1, 10), Fraction(1, 20)) is None


def test_measure_refuses_an_unknown_definition():
    from dps_verify.core.errors import ParameterError
    from dps_verify.measures.divergence import measure

    with pytest.raises(ParameterError, match="definition"):
        measure({0: 1}, {0: 1}, 1, "pointwize")


def test_float32_probabilities_get_the_float_tolerance_and_exact_ones_none():
    """Two float32 values whose exact sum is 1 + 2e-17 (binary rounding): accepted as a law given
    in floating point (tolerance 1e-12), refused when the same numbers are given exactly."""
    import numpy as np

    from dps_verify.core.errors import ParameterError
    from dps_verify.core.numbers import to_fraction

    a = np.float32(0.13436425)
    b = np.float32(1 - float(a))
    exact = to_fraction(a) + to_fraction(b)
    assert 1 < exact <= 1 + Fraction(1, 10**12)
    assert delta_certified({0: a, 1: b}, {0: a, 1: b}, 0).upper == 0
    with pytest.raises(ParameterError, match="sum to at most 1"):
        delta_certified({0: to_fraction(a), 1: to_fraction(b)}, {0: Fraction(1)}, 0)
    with pytest.raises(ParameterError, match="sum to at most 1"):  # numpy integers are exact
        delta_certified({0: np.int64(1), 1: np.int64(1)}, {0: Fraction(1)}, 0)


def test_delta_at_epsilon_zero_is_the_total_variation_distance():
    """ε = 0: hockey-stick δ = Σ max(0, P − Q) (the exact shortcut of e^0 = 1 ≥ r for r ≤ 1)."""
    P = {0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)}
    Q = {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}
    tv = sum(max(Fraction(0), P[y] - Q[y]) for y in P)
    c = delta_certified(P, Q, 0)
    assert c.lower == c.upper == tv
    assert delta_exceeds(P, Q, 0, tv - Fraction(1, 10**12)) and not delta_exceeds(P, Q, 0, tv)


def test_a_huge_likelihood_ratio_below_e_to_a_huge_epsilon_is_decided_without_enclosing_it():
    """ε = 1050000 and a ratio r = 2^1499999 (b = 1500000 bits, ε = 0.7·b exactly): e^ε > 2^ε·1.44
    > r, which the bit-length bound decides at once; e^ε itself is too large to enclose
    (|ε| > 2^20), so a weaker shortcut would refuse instead of answering."""
    tiny = Fraction(1, 2**1499999)
    P, Q = {0: Fraction(1)}, {0: tiny, 1: 1 - tiny}
    c = delta_certified(P, Q, 1050000)
    assert c.lower == c.upper == 1 - tiny  # only output 1 (P = 0 there) is bad, from Q's side
    assert not delta_exceeds(P, Q, 1050000, 1 - tiny) and delta_exceeds(P, Q, 1050000, 1 - 2 * tiny)
