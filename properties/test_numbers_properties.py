"""Hypothesis suites for the trust base core/numbers.py.

Every enclosure contains the value computed independently at 500 bits; exp_compare has the right
sign next to ties; floats, Decimals, numpy scalars and strings are read exactly.
"""

from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from dps_verify.core.numbers import (
    exp_compare,
    exp_dyadic,
    exp_interval,
    format_down,
    format_up,
    round_outward,
    to_fraction,
)

eps_st = st.fractions(min_value=Fraction(-40), max_value=Fraction(40), max_denominator=10**12)
pos_st = st.builds(
    lambda n, d, e: Fraction(n, d) * Fraction(10) ** e,
    st.integers(min_value=1, max_value=10**15),
    st.integers(min_value=1, max_value=10**15),
    st.integers(min_value=-700, max_value=700),
)


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


@given(eps_st)
def test_exp_interval_contains_the_500_bit_value(eps):
    lo, hi = exp_interval(eps)
    with mpmath.workprec(500):
        e = mpmath.exp(_mp(eps))
        assert _mp(lo) <= e <= _mp(hi)


@given(eps_st.filter(lambda e: e >= 0))
def test_exp_dyadic_contains_the_500_bit_value(eps):
    lo, hi, s = exp_dyadic(eps)
    with mpmath.workprec(500):
        e = mpmath.exp(_mp(eps))
        assert mpmath.mpf(lo) / 2**s <= e <= mpmath.mpf(hi) / 2**s


@given(eps_st.filter(lambda e: e != 0), st.integers(min_value=-3, max_value=3))
def test_exp_compare_sign_next_to_a_tie(eps, nudge):
    with mpmath.workprec(500):
        e = mpmath.exp(_mp(eps))
        m, ex = mpmath.frexp(e)
        r = Fraction(int(mpmath.floor(m * 2**200)) + nudge, 2**200) * Fraction(2) ** int(ex)
        want = 1 if e > _mp(r) else -1
    assert exp_compare(eps, r) == want


@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_floats_are_read_as_their_shortest_decimal(x):
    assert to_fraction(x) == Fraction(repr(x))
    assert to_fraction(np.float64(x)) == Fraction(repr(x))


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_decimals_and_strings_are_read_exactly(d):
    assert to_fraction(d) == Fraction(d)
    assert to_fraction(str(d)) == Fraction(Decimal(str(d)))


@given(st.integers(min_value=-(2**62), max_value=2**62))
def test_numpy_integers_are_exact(i):
    assert to_fraction(np.int64(i)) == i


@given(pos_st, st.integers(min_value=1, max_value=20))
def test_format_up_down_bracket_the_value(x, digits):
    up, down = Fraction(format_up(x, digits)), Fraction(format_down(x, digits))
    assert down <= x <= up and up > 0


@given(st.integers(min_value=1, max_value=10**400), st.integers(min_value=1, max_value=10**400))
def test_round_outward_contains(num, den):
    lo, hi = round_outward(num, num, den, bits=64)
    assert lo <= Fraction(num, den) <= hi
