"""``dyadic_fraction`` (core.numbers) and the ends of a ball (``arb_to_fractions``) against
Fraction's own normalising arithmetic.

Both build a reduced Fraction without a gcd (the odd part over a power of two), which the
certified inverses at k = 10^6 rely on for speed (numbers of millions of bits).  A Fraction
that is not reduced compares unequal to the same number reduced (``Fraction.__eq__`` compares
numerator and denominator), so each check below also catches an unreduced result; the
negative control shows it does.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import flint
import numpy as np
import pytest

from dps_verify.core.numbers import dyadic_fraction
from dps_verify.worstcase.ball_binomial import arb_to_fractions

MANTISSAS = (0, 1, -1, 2, -2, 3, -3, 12, -12, 5 << 70, -(5 << 70), (1 << 200) - 1, 1 << 200)
EXPONENTS = (-300, -70, -5, -2, -1, 0, 1, 2, 7, 300)


def reference(m: int, e: int) -> Fraction:
    """m·2^e by Fraction's own (normalising) arithmetic."""
    return Fraction(m) * Fraction(2) ** e


def assert_same_fraction(got: Fraction, want: Fraction) -> None:
    assert type(got) is Fraction
    assert type(got.numerator) is int and type(got.denominator) is int
    assert (got.numerator, got.denominator) == (want.numerator, want.denominator)
    assert got == want


@pytest.mark.parametrize(("m", "e"), list(itertools.product(MANTISSAS, EXPONENTS)))
def test_dyadic_fraction_is_the_reduced_value_of_m_times_two_to_the_e(m: int, e: int) -> None:
    assert_same_fraction(dyadic_fraction(m, e), reference(m, e))


def test_dyadic_fraction_at_a_million_bits_is_reduced_and_exact() -> None:
    m, e = (3 << 40) * 7, -2_000_000
    got = dyadic_fraction(m, e)
    assert got.denominator == 1 << (2_000_000 - 40) and got.numerator == 21
    assert_same_fraction(dyadic_fraction(-m, e), -got)


def test_dyadic_fraction_reads_integers_of_other_types_and_refuses_non_integers() -> None:
    assert_same_fraction(dyadic_fraction(flint.fmpz(-24), flint.fmpz(-5)), Fraction(-3, 4))
    assert_same_fraction(dyadic_fraction(np.int64(-24), np.int32(-5)), Fraction(-3, 4))
    for m, e in ((1.5, 0), (3, 0.9), (Fraction(1, 2), 0)):  # never truncated to an integer
        with pytest.raises(TypeError):
            dyadic_fraction(m, e)  # type: ignore[arg-type]


def test_an_unreduced_dyadic_is_rejected_by_the_same_check() -> None:
    """Negative control: m·2^e over 2^-e without stripping the common factor 2 (what the
    builder would give if it skipped the trailing zeros) fails the comparison above."""
    unreduced = Fraction(12, 1 << 5, _normalize=False)  # type: ignore[call-overload]
    with pytest.raises(AssertionError):
        assert_same_fraction(unreduced, reference(12, -5))


def _old_ends(x: flint.arb) -> tuple[Fraction, Fraction]:
    """The ends of ball x with Fraction's own gcd (the conversion before dyadic_fraction)."""
    (mm, me), (rm, re) = x.mid().man_exp(), x.rad().man_exp()
    mm, me, rm, re = int(mm), int(me), int(rm), int(re)
    e = min(me, re)
    m, r = mm << (me - e), rm << (re - e)
    return reference(m - r, e), reference(m + r, e)


@pytest.mark.parametrize("prec", [53, 200])
def test_ends_of_a_ball_are_the_reduced_midpoint_minus_and_plus_radius(prec: int) -> None:
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        balls = [
            flint.arb(0),
            flint.arb(5),
            flint.arb(-3) / 8,
            flint.arb(1) / 3,
            -flint.arb(2).exp(),
            flint.arb(10).exp(),
            flint.arb(2) ** -100_000 / 3,
            flint.arb(1) / 3 - flint.arb(1) / 3,  # a ball straddling 0
            # a midpoint finer than its radius (radius exponent above the midpoint's)
            flint.arb(flint.arb(1) + flint.arb(2) ** -100, flint.arb(2) ** -10),
        ]
        for x in balls:
            lo, hi = arb_to_fractions(x)
            want_lo, want_hi = _old_ends(x)
            assert_same_fraction(lo, want_lo)
            assert_same_fraction(hi, want_hi)
            assert lo <= hi
    finally:
        flint.ctx.prec = old
