"""Hypothesis suites for the exact-log ε (``"ln(x)"``).

* ExactLog's exact comparisons and e^ε enclosures agree with 500-bit values;
* results at ε = ln x equal those at a 50-digit decimal just above ln x for the paper's d and the
  pointwise δ (both right-continuous in ε: bad sets are strict inequalities), and the
  hockey-stick δ (non-increasing in ε) lies between its values at the decimals just below and
  just above, whenever the decimal is in the same regime (CP Thm 5: ε ≥ −ln(1−β)) as ln x.
"""

from fractions import Fraction

import mpmath
from hypothesis import given
from hypothesis import strategies as st

from dps_verify import bounds, exact
from dps_verify.core.numbers import (
    ExactLog,
    exp_compare,
    exp_dyadic,
    exp_interval,
    iv_lower,
    iv_precision,
    iv_upper,
)
from dps_verify.core.params import epsilon_param, in_paper_regime

x_st = st.builds(Fraction, st.integers(min_value=2, max_value=60), st.integers(min_value=1, max_value=6)).filter(
    lambda x: 1 < x <= 30
)
q_st = st.fractions(min_value=Fraction(-40), max_value=Fraction(40), max_denominator=10**9)
beta_st = st.builds(Fraction, st.integers(min_value=1, max_value=11), st.just(12))


def _decimals_around(x: Fraction, digits: int = 50) -> tuple[Fraction, Fraction]:
    """50-digit decimals lo < ln x < hi (certified by interval arithmetic at 400 bits)."""
    with iv_precision(400):
        v = mpmath.iv.log(mpmath.iv.mpf(x.numerator) / x.denominator)
        lo, hi = iv_lower(v), iv_upper(v)
    s = 10**digits
    return Fraction((lo * s).__floor__(), s), Fraction((hi * s).__ceil__(), s)


@given(x_st, q_st)
def test_exact_log_compares_like_the_500_bit_value(x, q):
    e = ExactLog(x)
    with mpmath.workprec(500):
        v = mpmath.log(mpmath.mpf(x.numerator) / x.denominator)
        w = mpmath.mpf(q.numerator) / q.denominator
        assert (e < q) == (v < w) and (e > q) == (v > w)
        # e^(ln x + q) vs x·e^q: exp_compare of the shifted log against a rational
        r = Fraction(7, 3)
        assert exp_compare(e + q, r) == (1 if x * mpmath.exp(w) > 7 / mpmath.mpf(3) else -1)
    assert exp_interval(e) == (x, x)
    lo, hi, s = exp_dyadic(e)
    assert hi is not None and Fraction(lo, 2**s) <= x <= Fraction(hi, 2**s)


@given(st.integers(min_value=1, max_value=15), beta_st, x_st)
def test_exact_log_results_agree_with_nearby_decimals(k, beta, x):
    eps = epsilon_param(f"ln({x})")
    lo, hi = _decimals_around(x)
    assert lo < eps < hi
    inside = in_paper_regime(beta, eps)
    assert in_paper_regime(beta, hi) == inside  # no rational within 1e-50 of an edge ln(1/(1−β)) ≠ ln x
    for definition in ("pointwise", "hockey-stick"):
        c = exact.sdgs_delta_certified(k, beta, eps, definition)
        c_hi = exact.sdgs_delta_certified(k, beta, hi, definition)
        if definition == "pointwise":
            assert (c.lower, c.upper) == (c_hi.lower, c_hi.upper)
        else:
            assert c_hi.lower <= c.upper
            if in_paper_regime(beta, lo) == inside:
                c_lo = exact.sdgs_delta_certified(k, beta, lo, definition)
                assert c.lower <= c_lo.upper
    if inside:
        c, c_hi = bounds.d_certified(k, beta, eps), bounds.d_certified(k, beta, hi)
        assert c.exact and (c.lower, c.upper) == (c_hi.lower, c_hi.upper)
