"""Brute force: sdgs_delta versus the generic engine (per-n laws, divergence.py) on random
(k, β, ε) on BOTH sides of CP Thm 5's edge ε = −ln(1−β)."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from dps_verify import exact
from dps_verify.core.params import beta_edge, in_paper_regime
from dps_verify.worstcase.sdgs_generic import scan_generic

cases = st.tuples(
    st.integers(min_value=1, max_value=4),
    st.fractions(min_value=Fraction(1, 8), max_value=Fraction(3, 4), max_denominator=20),
    st.fractions(min_value=Fraction(1, 4), max_value=Fraction(7, 4), max_denominator=8),  # ε / edge-ε ratio
    st.sampled_from(["hockey-stick", "pointwise"]),
)


@settings(max_examples=12, deadline=None)
@given(cases)
def test_sdgs_equals_engine_both_sides_of_the_edge(case):
    k, beta, ratio, definition = case
    # ε a short rational near ratio × (−ln(1−β)): ratio < 1 outside CP Thm 5's regime, > 1 inside
    import math

    eps = Fraction(round(ratio * -math.log1p(-float(beta)) * 64), 64)
    if eps <= 0:
        eps = Fraction(1, 64)
    fast = exact.sdgs_delta_certified(k, beta, eps, definition)
    if fast.details["argmax_n"] > 120:
        return
    slow = scan_generic(k, beta, eps, definition=definition, max_n=160)
    tol = Fraction(1, 10**25) * max(fast.upper, Fraction(1, 10**300))
    assert abs(slow.lower - fast.lower) <= tol
    assert fast.lower <= slow.upper


def test_the_strategy_reaches_both_sides():
    assert not in_paper_regime(Fraction(1, 2), Fraction(1, 4))
    assert in_paper_regime(beta_edge(Fraction(1)), Fraction(1))
