"""TR §6 Thm 6: for (k, β)-SDGS the Chernoff closed form bounds CP Thm 5's δ,
d(k, β, ε) ≤ exp(−k(ln(γ/β) − (γ − β)/γ)), γ = 1 − (1 − β)e^(−ε), for ε ≥ −ln(1 − β).

``bounds.d_certified`` encloses d exactly (rationals, certified tail cut); ``chernoff_delta``
is rounded up, so the property compares d's certified upper end with the closed form's upper
end: a strict violation at these enclosures would be a real counterexample up to the interval
width, which the negative control shows the same comparison detects.

Negative control: the exponent doubled (a bound twice as strong in the exponent, exp(−2k(…)))
is rejected on a fixed grid by the same comparison.
"""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from dps_verify.core.numbers import to_fraction
from dps_verify.worstcase.chernoff import chernoff_delta
from dps_verify.worstcase.closed_forms import d_certified

BETAS = [Fraction(1, 20), Fraction(1, 10), Fraction(1, 5), Fraction(3, 10), Fraction(1, 2)]


def _edge_plus(beta: Fraction, offset: Fraction) -> Fraction:
    """A rational ε ≥ −ln(1 − β): the float edge rounded up to 1/1024, plus ``offset``."""
    return Fraction(math.ceil(-math.log1p(-float(beta)) * 1024) + 1, 1024) + offset


@given(k=st.integers(1, 40), beta=st.sampled_from(BETAS),
       offset=st.fractions(min_value=0, max_value=3, max_denominator=8))
def test_chernoff_closed_form_bounds_d(k, beta, offset):
    eps = _edge_plus(beta, offset)
    d_up = d_certified(k, beta, eps).upper
    assert d_up <= to_fraction(chernoff_delta(k, beta, eps)), (k, beta, eps)


def test_negative_control_a_stronger_exponent_is_rejected():
    def doubled(k: int, beta: Fraction, eps: Fraction) -> float:
        return float(chernoff_delta(2 * k, beta, eps))  # exp(−2k(…)): too strong

    violated = [
        (k, b, e) for k in (2, 5, 10, 20) for b in BETAS[:3]
        for e in (_edge_plus(b, Fraction(1, 4)), _edge_plus(b, Fraction(1)))
        if d_certified(k, b, e).lower > Fraction(doubled(k, b, e))
    ]
    assert violated
