"""The exact test behind a statistical table-audit FAIL (dps_verify.audit.two_binomials): its
level checked by brute force over every outcome, its perfect-outcome answer against the closed
form, its inversion (the reported lower bound on delta), and a naive rule as negative control."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from dps_verify.audit import two_binomials as tb


def _pmf(n: int, k: int, p: Fraction) -> Fraction:
    return math.comb(n, k) * p**k * (1 - p) ** (n - k)


def _rejection_probability(rule, n_a: int, n_b: int, p_a: Fraction, p_b: Fraction) -> Fraction:
    return sum((_pmf(n_a, x, p_a) * _pmf(n_b, y, p_b)
                for x in range(n_a + 1) for y in range(n_b + 1) if rule(x, y)), Fraction(0))


def _boundary(a: Fraction, b: Fraction, d: Fraction, points: int = 24) -> list[tuple[Fraction, Fraction]]:
    """Points (p_A, p_B) on the edge of H0: a p_A - b p_B = delta (p_A capped at 1)."""
    out = []
    for i in range(points + 1):
        p_b = Fraction(i, points)
        out.append((min(Fraction(1), (d + b * p_b) / a), p_b))
    return out


CASES = [  # (n_A, n_B, a, b, delta, alpha): add-like and remove-like coefficients
    (4, 9, Fraction(1, 2), Fraction(3, 5), Fraction(1, 50), Fraction(1, 10)),
    (3, 12, Fraction(1, 10), Fraction(9, 50), Fraction(0), Fraction(1, 20)),
    (6, 5, Fraction(1, 4), Fraction(3, 4), Fraction(1, 100), Fraction(1, 5)),
]


@pytest.mark.parametrize("n_a, n_b, a, b, d, alpha", CASES)
def test_level_is_at_most_alpha_on_the_edge_of_the_hypothesis(n_a, n_b, a, b, d, alpha) -> None:
    rejected = {(x, y) for x in range(n_a + 1) for y in range(n_b + 1)
                if tb.rejects(x, n_a, y, n_b, a, b, d, alpha)}
    assert rejected, "the case must be able to reject something"
    worst = max(_rejection_probability(lambda x, y: (x, y) in rejected, n_a, n_b, pa, pb)
                for pa, pb in _boundary(a, b, d))
    assert worst <= alpha
    # negative control: rejecting whenever the plug-in value exceeds delta is far above alpha
    naive = max(_rejection_probability(lambda x, y: a * Fraction(x, n_a) - b * Fraction(y, n_b) > d,
                                       n_a, n_b, pa, pb) for pa, pb in _boundary(a, b, d))
    assert naive > alpha


def test_perfect_outcome_matches_the_closed_form_on_both_sides_of_alpha() -> None:
    """Event in every run with the row, never without: the p-value is
    sup over p_B of min(1, (delta + b p_B)/a)^n_A (1 - p_B)^n_B."""
    a, b, d = Fraction(1, 10), Fraction(1818, 1000), Fraction(1, 10**6)

    fd, fb, fa = float(d), float(b), float(a)  # the same doubles at every grid point

    def p_value(n_a: int, n_b: int) -> float:
        grid = [i / 20000 for i in range(20001)]
        return max(min(1.0, (fd + fb * q) / fa) ** n_a * (1 - q) ** n_b for q in grid)

    for n_a, n_b in ((11, 66), (11, 60), (4, 54), (4, 50), (16, 64)):
        p = p_value(n_a, n_b)
        for alpha in (p * 1.02, p * 0.98):
            assert tb.rejects(n_a, n_a, 0, n_b, a, b, d, alpha) == (alpha > p), (n_a, n_b, alpha, p)


def test_smallest_design_for_the_adult_claim() -> None:
    """beta = 0.1, eps = 1 (e^eps rounded up), delta = 1e-6, first look at alpha/2 = 0.025."""
    from dps_verify.verdict.montecarlo import exp_upper_float

    e = Fraction(exp_upper_float(Fraction(1)))
    a, b = Fraction(1, 10), e - 1 + Fraction(1, 10)
    n_a, n_b = tb.smallest_design(a, b, Fraction(1, 10**6), 0.025, ratio=6, cap=1000)
    assert (n_a, n_b) == (11, 66)
    assert tb.rejects(n_a, n_a, 0, n_b, a, b, Fraction(1, 10**6), 0.025)
    assert not tb.rejects(n_a, n_a, 0, n_b - 1, a, b, Fraction(1, 10**6), 0.025)
    assert tb.smallest_design(a, b, Fraction(1, 10**6), 0.025, ratio=6, cap=60) is None
    # one hit without the row is enough to stop the refutation at this size
    assert not tb.rejects(n_a, n_a, 1, n_b, a, b, Fraction(1, 10**6), 0.025)


def test_smallest_design_is_the_least_within_the_cap_even_where_doubling_would_overshoot_it() -> None:
    """The design is the least n_B >= 5 whose perfect observation rejects, checked against a
    linear scan; a design that fits the cap exactly is found even when the next power-of-two
    probe (here 128 + 128 > 200) would not fit, and one run less of cap gives None."""
    a = Fraction(9, 10)
    b = Fraction(20) + Fraction(9, 10)  # any b > e^3 - 1 + a behaves alike; exact and larger
    d = Fraction(1, 10**6)

    def n_a_of(n_b: int, ratio: int) -> int:
        return max(4, -(-n_b // ratio))

    for ratio in (1, 6):
        scan = next(n for n in range(5, 400)
                    if tb.rejects(n_a_of(n, ratio), n_a_of(n, ratio), 0, n, a, b, d, 0.025))
        need = n_a_of(scan, ratio) + scan
        assert tb.smallest_design(a, b, d, 0.025, ratio=ratio, cap=need) == (n_a_of(scan, ratio), scan)
        assert tb.smallest_design(a, b, d, 0.025, ratio=ratio, cap=200) == (
            (n_a_of(scan, ratio), scan) if need <= 200 else None)
        assert tb.smallest_design(a, b, d, 0.025, ratio=ratio, cap=need - 1) is None


def test_lower_confidence_delta_is_certified_and_below_the_plug_in_value() -> None:
    a, b = Fraction(1, 10), Fraction(1818, 1000)
    lo = tb.lower_confidence_delta(30, 32, 2, 300, a, b, 0.025)
    plug_in = a * Fraction(30, 32) - b * Fraction(2, 300)
    assert 0 < lo < plug_in
    assert tb.rejects(30, 32, 2, 300, a, b, lo, 0.025)
    assert not tb.rejects(30, 32, 2, 300, a, b, plug_in, 0.025)
    # more runs of the same frequencies give a larger bound; nothing to refute gives 0
    assert tb.lower_confidence_delta(60, 64, 4, 600, a, b, 0.025) > lo
    assert tb.lower_confidence_delta(5, 32, 50, 300, a, b, 0.025) == 0
