"""The sparse composition's clamps at 1: a ball of a number at most 1 may end above 1.

``1 − e^(ε − loss)`` and ``1 − (1 − p∞)^T`` are at most 1, but when they lie within the ball
precision (2^-128) of 1 their balls end above 1; sparse_delta clamps both at 1 (f ≤ 1 in the
module's proof), so a term never adds more than its mass.  Reference: the exact δ of one
release from the definition (CP Def. 2): δ = Σ_y max(0, P(y) − e^ε Q(y)), and 1 − (1 − p∞)^T
for mass at infinite loss only.
"""

from __future__ import annotations

from fractions import Fraction as F

from dps_verify.inverse.pld_sparse import sparse_delta
from dps_verify.measures.pld import PrivacyLossDistribution


def test_a_loss_far_above_epsilon_adds_at_most_its_mass():
    """P = {a: 1/2, b: 1/2}, Q = {a: 2^-202, b: 1 − 2^-202}, ε = 1, one release: δ = 1/2 −
    e·2^-202 (b's ratio is below 1).  a's loss is about 139, so 1 − e^(ε − loss) is within
    2^-198 of 1 and its ball reaches above 1: unclamped, the upper end would pass 1/2."""
    qa = F(1, 2**202)
    pld = PrivacyLossDistribution.from_exact_laws({"a": F(1, 2), "b": F(1, 2)},
                                                  {"a": qa, "b": 1 - qa})
    c = sparse_delta(pld, 1, 1)
    # 2 < e < 3 brackets the exact δ; the ends are 128-bit balls
    assert F(1, 2) - F(1, 2**120) <= c.lower <= F(1, 2) - 2 * qa
    assert F(1, 2) - 2 * qa < c.upper <= F(1, 2)


def test_mass_only_at_infinite_loss_is_clamped_at_one():
    """A sub-probability direction with all its mass (1/2) at infinite loss, 200 releases:
    δ = 1 − 2^-200, within the ball precision of 1, so the ball ends above 1."""
    pld = PrivacyLossDistribution(ratios={}, infinity_mass=F(1, 2))
    c = sparse_delta(pld, F(1, 2), 200)
    exact = 1 - F(1, 2**200)
    assert c.lower <= exact <= c.upper <= 1
    assert c.details["terms"] == 0


def test_a_ratio_within_two_to_the_minus_250_of_e_gives_a_lower_end_of_zero():
    """A near-tie: one atom whose ratio r_d lies 2^-250 above e^ε (ε = 1, one release), so
    1 − e^(ε − ln r_d) ≈ 2e-76 and its ball straddles 0.  The term then adds nothing to the
    lower end (never a negative amount): 0 <= lower <= δ <= upper, δ = 1 − e/r_d (mpmath at
    400 bits, far from a tie at that precision)."""
    import mpmath

    with mpmath.workprec(400):
        m, ex = mpmath.frexp(mpmath.e)
        rd = F(int(mpmath.floor(m * 2**260)), 2**260) * F(2) ** ex + F(1, 2**250)
        exact = 1 - mpmath.e / (mpmath.mpf(rd.numerator) / rd.denominator)
        assert mpmath.mpf(2) ** -260 < exact < mpmath.mpf(2) ** -240
    pld = PrivacyLossDistribution.from_exact_laws({"a": F(1)}, {"a": 1 / rd, "b": 1 - 1 / rd})
    c = sparse_delta(pld, 1, 1)
    assert c.lower == 0 and c.details["terms"] == 1
    assert F(2**-240) < c.upper < F(2**-100)


def test_a_union_bound_remainder_above_one_leaves_an_upper_end_of_one():
    """δ ≤ 1: a sum cut at j = 0 (max_atoms = 0: R^{*1} already has too many atoms) keeps the
    union bound C(T, 1)·q = 50 · 1/2 = 25 as its remainder, and the upper end is clamped at 1.
    P/Q ratios 2 and 1/2, mass 1/2 each, T = 50, ε = 0: with k releases at ratio 2 the loss is
    (2k − 50) ln 2, so δ = Σ_k C(50, k) 2^-50 max(0, 1 − 2^(50 − 2k)) (CP Def. 2)."""
    from math import comb

    pld = PrivacyLossDistribution({F(2): F(1, 2), F(1, 2): F(1, 2)})
    c = sparse_delta(pld, 0, 50, rtol=0, max_atoms=0)
    exact = sum((comb(50, k) * max(F(0), 1 - F(2) ** (50 - 2 * k)) for k in range(51)),
                F(0)) / 2**50
    assert c.details["terms"] == 1 and c.details["remainder"] == 25
    assert 0 <= c.lower <= exact < c.upper == 1
