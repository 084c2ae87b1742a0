"""The discretised PLD's two ways of composing releases: the FFT power (default; its float-error
term rests on an assumed error model of scipy's pocketfft, which every ``how`` must name) and
direct convolution (``fft=False``; proved float bounds, no window)."""

from fractions import Fraction

import numpy as np
import pytest

from dps_verify.core.errors import CertificationError
from dps_verify.inverse import pld_discrete as D
from dps_verify.inverse.releases import group_pair, releases_delta
from dps_verify.measures.pld import PrivacyLossDistribution


def _pld() -> PrivacyLossDistribution:
    # one group of 12 records against 11, sampled at 1/10, thresholded at k = 5 (CP §2.7)
    return PrivacyLossDistribution.from_pair(*group_pair(12, 5, Fraction(1, 10)))


@pytest.mark.parametrize("times", [2, 5])
def test_direct_convolution_and_fft_enclose_the_same_delta(times: int) -> None:
    pld = _pld()
    truth = D.direct_delta(pld, 1, times)  # every tuple of atoms, interval arithmetic
    fast = D.discretised_delta(pld, 1, times, -10)
    proved = D.discretised_delta(pld, 1, times, -10, fft=False)
    for c in (fast, proved):
        assert c.lower <= truth.upper and truth.lower <= c.upper, (c, truth)
        assert c.upper - c.lower < Fraction(1, 10) * c.lower  # not vacuous
    assert max(fast.lower, proved.lower) <= min(fast.upper, proved.upper)
    assert proved.details["fft"] is False and fast.details["fft"] is True


def test_how_names_the_fft_error_model_assumption_and_the_proved_mode_does_not() -> None:
    pld = _pld()
    fast = D.discretised_delta(pld, 1, 3, -9)
    assert "ASSUMED error model of scipy's pocketfft" in fast.how
    assert "not proved" in fast.how and "Higham" in fast.how
    assert "Higham Thm 24.2) on" not in fast.how  # never the theorem alone, as if it applied
    proved = D.discretised_delta(pld, 1, 3, -9, fft=False)
    assert "ASSUMED" not in proved.how and "direct convolutions" in proved.how
    assert "proved float error bounds" in proved.how
    # the wrapper that picks the mode keeps the text (no exact PLD: budget 0; no dominant atom
    # at beta = 1/2, so no sparse enclosure), and both modes enclose the same delta
    half = PrivacyLossDistribution.from_pair(*group_pair(12, 5, Fraction(1, 2)))
    enc = D.enclose_delta(half, 1, 6, exact_budget=0, fallback_budget=0)
    assert enc.details["mode"] == "discretised" and "ASSUMED error model" in enc.how
    enc2 = D.enclose_delta(half, 1, 6, exact_budget=0, fallback_budget=0, fft=False)
    assert enc2.details["mode"] == "discretised" and "ASSUMED" not in enc2.how
    assert max(enc.lower, enc2.lower) <= min(enc.upper, enc2.upper)


def test_releases_delta_passes_the_mode_through() -> None:
    res = releases_delta(5, Fraction(1, 10), Fraction(1, 2), 12, rtol=0.2, fft=False)
    assert "ASSUMED" not in res.delta.how
    fast = releases_delta(5, Fraction(1, 10), Fraction(1, 2), 12, rtol=0.2)
    assert fast.mode != "exact" and "ASSUMED error model of scipy's pocketfft" in fast.delta.how
    assert max(res.delta.lower, fast.delta.lower) <= min(res.delta.upper, fast.delta.upper)


def test_direct_convolution_error_bound_holds_against_exact_rationals() -> None:
    rng = np.random.default_rng(7)
    for n_a, n_b in [(1, 5), (7, 7), (40, 13)]:
        a = rng.random(n_a) ** 8 / n_a  # spread magnitudes, sub-probability
        b = rng.random(n_b) ** 8 / n_b
        va, vb = D._Vec(a, 0, 0.0, 0.0), D._Vec(b, 3, 0.0, 0.0)
        c = D._convolve(va, vb)
        exact = [Fraction(0)] * (n_a + n_b - 1)
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                exact[i + j] += Fraction(x) * Fraction(y)
        sq = sum((Fraction(float(v)) - e) ** 2 for v, e in zip(c.data, exact))
        assert sq <= Fraction(c.err2) ** 2
        assert c.err2 < 1e-14 and c.offset == 3
    # the input errors propagate (Young's inequality): a declared input error is charged
    v = D._Vec(np.array([0.5, 0.5]), 0, 1e-6, 0.0)
    assert D._convolve(v, v).err2 >= 1e-6


def test_direct_convolution_refuses_past_its_budget() -> None:
    assert D.direct_convolve_cost(100, 3) == 100 * 100 + 100 * 199
    pld = _pld()
    with pytest.raises(CertificationError, match="fft=False"):
        D.discretised_delta(pld, 1, 200, -12, fft=False)
