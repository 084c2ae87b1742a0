"""Certified discretised PLDs: every enclosure contains the exact δ of the
exact PLD on small cases; no hang for huge ``times``."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dps_verify import exact
from dps_verify import mechanisms as M
from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.inverse import pld_discrete as D
from dps_verify.measures.pld import PrivacyLossDistribution, pair_delta, pair_delta_enclosure

P = {"a": Fraction(1, 2), "b": Fraction(3, 8), "c": Fraction(1, 8)}
Q = {"a": Fraction(1, 4), "b": Fraction(1, 2), "c": Fraction(1, 4), "d": Fraction(0)}


def _group_laws(n, k, beta):
    A = M.StronglySafeKAnonymizer(lambda r: 0, k)
    return exact.distribution(A, range(n), beta).exact, exact.distribution(A, range(n - 1), beta).exact


@st.composite
def laws(draw):
    m = draw(st.integers(2, 5))
    ws = draw(st.lists(st.integers(1, 20), min_size=m, max_size=m))
    vs = draw(st.lists(st.integers(0, 20), min_size=m, max_size=m).filter(any))
    p = {i: Fraction(w, sum(ws)) for i, w in enumerate(ws)}
    q = {i: Fraction(v, sum(vs)) for i, v in enumerate(vs)}
    return p, q


@settings(max_examples=25, deadline=None)
@given(laws(), st.integers(1, 5), st.sampled_from([0, Fraction(1, 4), 1, 2]),
       st.sampled_from([-4, -7, -10]))
def test_enclosure_contains_exact(pq, times, eps, h_exp):
    p, q = pq
    for a, b in ((p, q), (q, p)):
        pld = PrivacyLossDistribution.from_pair(a, b)
        ex = pld.self_compose(times).delta_certified(eps)
        enc = D.discretised_delta(pld, eps, times, h_exp)
        assert enc.lower <= ex.lower and ex.upper <= enc.upper


@pytest.mark.parametrize("times", [2, 5, 8])
def test_group_output_of_sampled_k_anonymization(times):
    p, q = _group_laws(9, 3, Fraction(1, 4))
    composed = PrivacyLossDistribution.from_pair(p, q).self_compose(times)  # exact, one per times
    for eps in (Fraction(1, 2), 1, 2):
        ex = exact.delta_certified(p, q, 0)  # noqa: F841 - sanity: laws are valid
        fwd = PrivacyLossDistribution.from_pair(p, q)
        exact_value = composed.delta_certified(eps)
        enc = D.discretised_delta(fwd, eps, times, -10)
        assert enc.lower <= exact_value.lower <= exact_value.upper <= enc.upper
        assert enc.upper - enc.lower < Fraction(1, 20) * max(enc.upper, Fraction(1, 10**12))


def test_pair_enclosure_auto_mode_and_tightness():
    p, q = _group_laws(9, 3, Fraction(1, 4))
    small = pair_delta_enclosure(p, q, 1, times=2)
    assert small.details["mode"] == "exact"
    assert small.upper == exact.delta_certified(*_product2(p, q), 1).upper
    big = pair_delta_enclosure(p, q, 3, times=60)
    assert big.details["mode"] == "discretised"
    assert big.upper <= big.lower * Fraction(101, 100)
    assert "width" in big.how


def _product2(p, q):
    pp = {(x, y): p[x] * p[y] for x in p for y in p}
    qq = {(x, y): q.get(x, 0) * q.get(y, 0) for x in p for y in p}
    return pp, qq


def test_infinite_loss_mass_is_exact():
    p = {"x": Fraction(1, 2), "y": Fraction(1, 2)}
    q = {"x": Fraction(1)}
    pld = PrivacyLossDistribution.from_pair(p, q)
    enc = D.discretised_delta(pld, 100, 40, -6)
    true = 1 - Fraction(1, 2**40)
    assert enc.lower <= true <= enc.upper
    assert enc.upper - enc.lower < Fraction(1, 10**12)


def test_huge_times_never_hangs():
    """Once a hang: pair_delta(P, Q, 1, times=10**6) — a clear CertificationError naming `times`."""
    with pytest.raises(CertificationError, match="times"):
        pair_delta(P, Q, 1, times=10**6)
    with pytest.raises(ParameterError, match="times"):
        pair_delta(P, Q, 1, times=0)


def test_negative_control_rounding_the_wrong_way_is_caught(monkeypatch):
    """Swapping the outward rounding (down for the upper chain) must break the enclosure."""
    real = D._indices

    def swapped(pld, h_exp):
        r0, idx = real(pld, h_exp)
        return r0, {r: (hi, lo) for r, (lo, hi) in idx.items()}

    monkeypatch.setattr(D, "_indices", swapped)
    pld = PrivacyLossDistribution.from_pair(P, Q)
    ex = pld.self_compose(4).delta_certified(Fraction(1, 2))
    try:
        enc = D.discretised_delta(pld, Fraction(1, 2), 4, -3)
    except ValueError:  # lower > upper: the swap is detected outright
        return
    assert not (enc.lower <= ex.lower and ex.upper <= enc.upper)


def test_huge_times_raises_before_allocating_the_ffts():
    """Over-budget work is refused before the first convolution (it used to run 2^21-point FFTs,
    ~76 MB traced, before the bin check fired)."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(CertificationError, match="max_bins"):
            pair_delta(P, Q, 1, times=10**6)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 30 * 2**20
