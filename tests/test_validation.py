"""Input validation of the exact measures and of mechanism options.

One regression test per input that once slipped through:
- ``exact.delta({0: -0.5, 1: 1.5}, {0: 0.75, 1: 0.25}, 1)`` accepted negative probabilities;
- ``StronglySafeKAnonymizer(..., threshold=0)`` answered differently through ``from_counts``
  and ``__call__``;
- ``exact.delta(..., 1e30)`` raised ``OverflowError``.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dps_verify import exact
from dps_verify.core.errors import ParameterError
from dps_verify.engine.distribution import distribution
from dps_verify.measures.divergence import FLOAT_MASS_TOLERANCE
from dps_verify.mechanisms import StronglySafeKAnonymizer

P_OK = {0: Fraction(3, 4), 1: Fraction(1, 4)}
MEASURES = [
    lambda p, q: exact.delta(p, q, 1),
    lambda p, q: exact.delta_certified(p, q, 1),
    lambda p, q: exact.pointwise_delta(p, q, 1),
    lambda p, q: exact.pointwise_delta_exact(p, q, 1),
    lambda p, q: exact.epsilon(p, q, "1/10"),
    lambda p, q: exact.measure(p, q, 1, "hockey-stick"),
    lambda p, q: exact.measure(p, q, 1, "pointwise"),
]


@pytest.mark.parametrize("fn", MEASURES)
def test_repro_negative_probability_rejected(fn):
    """Once accepted: exact.delta({0: -0.5, 1: 1.5}, {0: 0.75, 1: 0.25}, 1) must raise."""
    with pytest.raises(ParameterError, match=">= 0"):
        fn({0: -0.5, 1: 1.5}, {0: 0.75, 1: 0.25})
    with pytest.raises(ParameterError, match=">= 0"):
        fn(P_OK, {0: Fraction(3, 2), 1: Fraction(-1, 2)})


@pytest.mark.parametrize("fn", MEASURES)
def test_mass_above_one_rejected(fn):
    with pytest.raises(ParameterError, match="sum to at most 1"):
        fn({0: Fraction(3, 4), 1: Fraction(1, 2)}, P_OK)
    with pytest.raises(ParameterError, match="sum to at most 1"):
        fn(P_OK, {0: "0.5", 1: "0.5000000000000000000001"})


def test_exact_inputs_get_no_tolerance():
    for half_plus in (Fraction(1, 2) + Fraction(1, 10**30), Decimal("0.500000000000000000000000000001"),
                      "0.500000000000000000000000000001"):
        with pytest.raises(ParameterError):
            exact.delta({0: Fraction(1, 2), 1: half_plus}, P_OK, 1)


def test_float_laws_get_the_stated_tolerance():
    """Floats are read exactly, so {0: 0.7, 1: 1 − 0.7} sums to 1 + 4e-17: accepted; a float
    excess above 1e-12 is not."""
    p = {0: 0.7, 1: 1 - 0.7}
    assert sum(Fraction(repr(v)) for v in p.values()) > 1
    assert exact.delta(p, P_OK, 0) >= 0
    assert exact.delta({0: mpmath.mpf(0.7), 1: mpmath.mpf(1) - mpmath.mpf(0.7)}, P_OK, 0) >= 0
    assert FLOAT_MASS_TOLERANCE == Fraction(1, 10**12)
    assert exact.delta({0: 0.5, 1: 0.500000000001}, P_OK, 1) >= 0  # exactly 1 + 1e-12
    with pytest.raises(ParameterError, match="tolerance"):
        exact.delta({0: 0.5, 1: 0.500000000002}, P_OK, 1)
    with pytest.raises(ParameterError, match="tolerance"):
        exact.delta({0: 0.5, 1: 0.5 + 2e-12}, P_OK, 1)


def test_sub_probability_laws_accepted():
    """Laws with total mass < 1 (e.g. restricted to an event) remain allowed."""
    assert exact.delta({0: Fraction(1, 2)}, {0: Fraction(1, 4)}, 0) == mpmath.mpf(1) / 4


def test_non_mapping_rejected():
    with pytest.raises(ParameterError, match="mapping"):
        exact.delta([0.5, 0.5], P_OK, 1)


def test_pld_validates_too():
    with pytest.raises(ParameterError):
        exact.delta(P_OK, {0: -1, 1: 2}, 1)
    from dps_verify.measures.pld import pair_delta

    with pytest.raises(ParameterError):
        pair_delta({0: -0.5, 1: 1.5}, P_OK, 1)


@pytest.mark.parametrize("eps", [1e30, "1e30", 10**40, 1e300, 745, 5000])
def test_repro_huge_epsilon_no_overflow(eps):
    """Once an error: exact.delta(..., 1e30) raised OverflowError.  A huge ε leaves only the mass
    on outputs impossible under the other law."""
    p = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    q = {0: Fraction(1, 4), 1: Fraction(3, 4)}
    assert exact.delta(p, q, eps) == 0
    assert exact.pointwise_delta(p, q, eps) == 0
    assert exact.delta(p, {1: Fraction(1)}, eps) == mpmath.mpf(1) / 2
    assert exact.pointwise_delta(p, {1: Fraction(1)}, eps) == mpmath.mpf(1) / 2
    assert exact.measure(p, q, eps, "pointwise").upper == 0


def test_huge_ratio_still_decided():
    """The shortcut for large ε never hides a ratio that really exceeds e^ε."""
    tiny = Fraction(1, 2**200)
    p = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    q = {0: tiny, 1: 1 - tiny}
    # ratio 2^199 > e^137 (ln 2^199 ≈ 137.9)
    assert exact.delta(p, q, 137) > 0
    assert exact.delta(p, q, 138) == 0
    assert exact.pointwise_delta(p, q, 137) > 0
    assert exact.pointwise_delta(p, q, 138) == 0


@pytest.mark.parametrize("bad", [0, -1, "1/2", 2.5])
def test_repro_threshold_below_one_rejected(bad):
    """Once inconsistent: StronglySafeKAnonymizer(..., threshold=0) disagreed between from_counts and
    __call__; thresholds must be integers >= 1."""
    with pytest.raises(ParameterError, match="threshold"):
        StronglySafeKAnonymizer(lambda r: r % 2, 2, threshold=bad)


def test_threshold_accepts_integral_values():
    assert StronglySafeKAnonymizer(lambda r: r, 3, threshold=2.0).threshold == 2
    assert StronglySafeKAnonymizer(lambda r: r, 3).threshold == 3


@given(
    k=st.integers(1, 4),
    threshold=st.integers(1, 5),
    data=st.lists(st.integers(0, 5), max_size=6),
    beta=st.sampled_from([Fraction(1, 3), Fraction(1, 2), Fraction(9, 10), Fraction(1)]),
)
def test_from_counts_agrees_with_call(k, threshold, data, beta):
    """For every valid threshold, the count fast path and the sample path give one law."""
    anon = StronglySafeKAnonymizer(lambda r: r % 3, k, threshold=threshold)

    class SlowPath:  # same anonymizer without from_counts / sufficient_statistic
        def __call__(self, sample):
            return anon(sample)

    fast = distribution(anon, data, beta).exact
    slow = distribution(SlowPath(), data, beta).exact
    assert fast == slow
    # and pointwise, on every sub-multiset of counts
    from collections import Counter

    counts = Counter(r % 3 for r in data)
    assert anon.from_counts(dict(counts)) == anon(tuple(data))
