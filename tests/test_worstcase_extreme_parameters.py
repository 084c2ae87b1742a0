"""Extreme parameters of the worst-case engine (tiny β, huge k, ε far outside the regime) give
values, not work-budget errors, checked against the independent reference
(properties/reference.py); the long-range paths (ball tails, runs of equal threshold, segments
of constant bad set, the scan's set-up in ball arithmetic) against the exact walk over n."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "properties"))
import reference as R  # noqa: E402

from dps_verify import bounds  # noqa: E402
from dps_verify.core.errors import CertificationError  # noqa: E402
from dps_verify.core.params import in_paper_regime  # noqa: E402
from dps_verify.worstcase import sdgs  # noqa: E402
from dps_verify.worstcase.ball_binomial import BallBinomial, arb_to_fractions  # noqa: E402
from dps_verify.worstcase.long_range import d_by_runs  # noqa: E402

F = Fraction


def _close_and_safe(got, ref, rel=None):
    with mpmath.workdps(R.DPS):
        rel = mpmath.mpf(10) ** -13 if rel is None else rel
        v = R.as_mpf(got)
        assert v >= ref * (1 - mpmath.mpf(10) ** -40), f"unsafe: {v} < {ref}"
        assert v <= ref * (1 + rel), f"loose: {v} > {ref}"


@pytest.mark.parametrize("args", [(5, F("1e-40"), F("2e-40")), (5, F("1e-12"), F("2e-12"))])
def test_d_tiny_beta_is_a_value(args):
    got = R.call_limited(bounds.d, *args, seconds=20)
    ref = R.d(*args)
    _close_and_safe(got, ref)
    # not ≈ 0.19 (a figure once quoted for this case): Poisson limit Pr[Poi(5/3) ≥ 5] ≈ 0.0273, reference 0.02754
    assert abs(float(got) - 0.02754) < 1e-5


def test_d_tiny_beta_says_how():
    c = bounds.d_certified(5, F("1e-40"), F("2e-40"))
    assert "runs of equal threshold" in c.how and c.details["argmax_n"] > 10**39
    assert c.relative_width() < 1e-18


def test_max_beta_large_epsilon_is_extremal():
    got = R.call_limited(bounds.max_beta, 20, 100, F("1e-6"), seconds=20)
    man, exp = got.man_exp
    b = F(int(man)) * F(2) ** int(exp)
    assert R.d(20, b, F(100)) <= R._mp(F("1e-6"))
    nb = b + F(1, 10**9) + F(1, 2**40)
    assert R.d(20, nb, F(100)) > R._mp(F("1e-6"))


def test_d_huge_k_near_edge_is_fast_enough():
    eps = F(7598530806880350757259371800458401885083634912474950820909983, 10**60)
    c = R.call_limited(bounds.d_certified, 10**6, F(999, 1000), eps, seconds=20)
    # U(k) = β^k: N_k = k here (k(1−γ)/γ < 1), and later runs are smaller
    with mpmath.workdps(60):
        ref = mpmath.mpf(999) ** 10**6 / mpmath.mpf(1000) ** 10**6
        assert abs(mpmath.mpf(c.upper.numerator) / c.upper.denominator / ref - 1) < mpmath.mpf(10) ** -15


def test_runs_budget_error_names_the_parameter():
    """Past the run budget (estimated after the first run, before the loop) the error names
    what made the count large and the estimate."""
    beta = F(999, 1000)
    eps = F(7598530806880350757259371800458401885083634912474950820909983, 10**60)
    with pytest.raises(CertificationError, match=r"RUN_BUDGET = 100 threshold runs, estimated 4\.\d+e\+03.*epsilon"):
        d_by_runs(10**6, beta, eps, sdgs._Exp(eps), sdgs.kl_lower(beta, eps), budget=100)


# --- ball binomial tails against exact rationals -------------------------------------------


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 300), t=st.integers(0, 301), num=st.integers(1, 99))
def test_ball_tails_enclose_exact(n, t, num):
    from dps_verify.core.binomial import cdf, upper_tail

    beta = F(num, 100)
    B = BallBinomial(beta, 64)
    lo, hi = arb_to_fractions(B.upper_tail(t, n))
    assert lo <= upper_tail(t, n, beta) <= hi
    lo, hi = arb_to_fractions(B.lower_cdf(t, n))
    assert lo <= cdf(t, n, beta) <= hi


def test_ball_tail_negative_control():
    """The enclosure check can fail: a shifted threshold is not enclosed."""
    from dps_verify.core.binomial import upper_tail

    lo, hi = arb_to_fractions(BallBinomial(F(1, 10), 64).upper_tail(31, 100))
    assert not lo <= upper_tail(30, 100, F(1, 10)) <= hi


# --- runs of equal threshold == the exact walk over n --------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(1, 40),
    beta=st.sampled_from([F(1, 20), F(1, 10), F(1, 5), F(1, 3), F(1, 2), F(7, 10), F(9, 10)]),
    extra=st.sampled_from([F(1, 100), F(1, 10), F(1, 4), F(1, 2), F(1), F(2), F(5)]),
)
def test_runs_equal_exact_scan(k, beta, extra):
    eps = sdgs.neg_log_upper(1 - beta) + extra
    assert in_paper_regime(beta, eps)
    exact_c = sdgs.scan(k, beta, eps, measure="paper-d", budget=10**12, long_range=False)
    runs_c = d_by_runs(k, beta, eps, sdgs._Exp(eps), sdgs.kl_lower(beta, eps))
    assert runs_c.lower <= exact_c.upper and exact_c.lower <= runs_c.upper
    assert runs_c.relative_width() < 2.0**-60
    assert runs_c.details["argmax_n"] == exact_c.details["argmax_n"] or (
        exact_c.upper == exact_c.lower and runs_c.lower <= exact_c.upper <= runs_c.upper
    )


def test_runs_negative_control():
    """A wrong variant (each run evaluated at its first group size instead of its last) gives a
    value the certified enclosure rejects."""
    from dps_verify.core.binomial import upper_tail

    beta, eps = F(1, 10), F(1, 4)
    c = d_by_runs(20, beta, eps, sdgs._Exp(eps), sdgs.kl_lower(beta, eps))
    assert c.details["argmax_n"] == sdgs.n_min(20, beta, eps)
    run_start = sdgs.n_min(19, beta, eps) + 1  # first n whose threshold is 20
    assert upper_tail(20, run_start, beta) < c.lower


# --- sdgs_delta by segments of constant bad set -------------------------------------------


@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
def test_sdgs_tiny_beta_is_a_value(definition):
    from dps_verify import exact

    c = R.call_limited(exact.sdgs_delta_certified, 5, F("1e-12"), F("1e-13"), definition, seconds=30)
    assert "segments of constant bad set" in c.how
    v = exact.sdgs_delta(5, F("1e-12"), F("1e-13"), definition)
    if definition == "pointwise":
        # every output is bad once the suppressed outcome is (n ≈ 2e12): the value is 1
        assert v == 1
    else:
        # δ/β tends to a Poisson limit as β → 0 with ε/β fixed (0.1); β = 1e-3 is computed by the
        # exact walk over n and lands within 1% of it
        v3 = exact.sdgs_delta(5, F("1e-3"), F("1e-4"), definition)
        assert abs(float(v) / 1e-12 / (float(v3) / 1e-3) - 1) < 0.01


def _segments(k, beta, eps, measure):
    return sdgs.scan_segments_for_test(k, beta, eps, measure)


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(1, 12),
    beta=st.sampled_from([F(1, 20), F(1, 10), F(1, 5), F(1, 3), F(1, 2), F(7, 10), F(9, 10)]),
    ratio=st.sampled_from([F(0), F(1, 10), F(1, 2), F(9, 10), F(1), F(11, 10), F(2), F(5)]),
    measure=st.sampled_from(["hockey-stick", "pointwise"]),
)
def test_segments_equal_exact_scan(k, beta, ratio, measure):
    """Old exact walk over n == segment scan, on both sides of CP Thm 5's edge."""
    eps = sdgs.neg_log_upper(1 - beta) * ratio + F(1, 1000)
    try:  # the old exact walk over n, where it is cheap (≤ about 1 s)
        exact_c = sdgs.scan(k, beta, eps, measure=measure, budget=10**9, long_range=False)
    except CertificationError:
        assume(False)
    seg = _segments(k, beta, eps, measure)
    assert seg.lower <= exact_c.upper and exact_c.lower <= seg.upper
    assert seg.relative_width() < 2.0**-55


def test_segments_negative_control():
    """A wrong variant (hockey-stick forward maximiser taken at the segment's end instead of
    the closed-form n = N_{T−1} + 1) misses the maximum and is rejected."""
    beta, eps = F(1, 10), F(1, 20)  # outside the regime
    c = _segments(5, beta, eps, "hockey-stick")
    from dps_verify.worstcase.long_range import _SegmentScan

    sc = _SegmentScan(5, beta, eps, "hockey-stick", sdgs._Exp(eps), True, 96)
    n = c.details["argmax_n"]
    T = sc.fwd_T(n)
    end = sc.th.last_below(T)
    lo, hi = arb_to_fractions(sc.fwd(T, end))
    assert hi < c.lower


# --- the scan's setup in ball arithmetic gives the same thresholds and exponents -----------


@settings(max_examples=60, deadline=None)
@given(
    k=st.integers(1, 300),
    n=st.integers(1, 2000),
    num=st.integers(1, 999),
    eps_milli=st.integers(1, 20000),
)
def test_fast_setup_equals_exact_definitions(k, n, num, eps_milli):
    """_n_min_E / _first_bad_E (integer comparisons against e^ε's dyadic enclosure) equal the
    exact-comparison n_min / first_bad; the arb KL lower bound is a lower bound, 19 bits tight."""
    beta, eps = F(num, 1000), F(eps_milli, 1000)
    E = sdgs._Exp(eps)
    q, r = beta.denominator, beta.denominator - beta.numerator

    def fwd_bad(nn, j):
        return j >= nn or E.less((nn - j) * q, nn * r)

    assert sdgs._first_bad_E(n, beta, eps, fwd_bad) == sdgs.first_bad(n, beta, eps)
    if in_paper_regime(beta, eps):
        assert sdgs._n_min_E(k, beta, eps, E) == sdgs.n_min(k, beta, eps)
    fast = sdgs._kl_lower_arb(beta, min(eps, F(64)), 128)
    assert fast is None or fast > 0
    if fast is not None:
        e = min(eps, F(64))
        with mpmath.workdps(60):
            bb = mpmath.mpf(beta.numerator) / beta.denominator
            ee = mpmath.mpf(e.numerator) / e.denominator
            gg = 1 - (1 - bb) * mpmath.exp(-ee)
            kl = gg * mpmath.log(gg / bb) + (1 - gg) * mpmath.log((1 - gg) / (1 - bb))
            assert mpmath.mpf(fast.numerator) / fast.denominator <= kl * (1 + mpmath.mpf(10) ** -30)
            assert mpmath.mpf(fast.numerator) / fast.denominator >= kl * (1 - mpmath.mpf(2) ** -19)


def test_sdgs_beta_1e40_outside_regime():
    """The suppressed outcome's switch point near n ≈ 2e40 needs more than the working
    precision: decided at raised precision, not given up.  δ/β matches the 1e-12 case (same
    ε/β = 0.1: the Poisson limit)."""
    from dps_verify import exact

    v40 = R.call_limited(exact.sdgs_delta, 5, F("1e-40"), F("1e-41"), seconds=30)
    v12 = exact.sdgs_delta(5, F("1e-12"), F("1e-13"))
    assert abs(float(v40 * 10**40) / float(v12 * 10**12) - 1) < 1e-9
    assert R.call_limited(exact.sdgs_delta, 5, F("1e-40"), F("1e-41"), "pointwise", seconds=30) == 1


def test_sdgs_segment_estimate_error_is_fast_and_names_parameters():
    from dps_verify import exact

    with pytest.raises(CertificationError, match=r"estimated [\d.]+e\+06\): k = 1000000, beta = 0\.5 and epsilon = 0\.1"):
        R.call_limited(exact.sdgs_delta, 10**6, F(1, 2), F(1, 10), "pointwise", seconds=30)


@pytest.mark.parametrize("args", [(10**6, F("1e-40"), F(10**30)), (10**6, F("1e-40"), F("2e-40")), (10**6, F(1, 2), F(1))])
def test_chernoff_tiny_values_fast_and_safe(args):
    """Values below e^-700 (mpmath.iv took seconds turning 10^8-bit ends into rationals) come
    from ball arithmetic: safe and within 1e-15 of the reference."""
    got = R.call_limited(bounds.chernoff_delta, *args, seconds=20)
    _close_and_safe(got, R.chernoff_delta(*args), rel=mpmath.mpf(10) ** -15)


@settings(max_examples=30, deadline=None)
@given(
    k=st.integers(1, 60),
    num=st.integers(1, 99),
    eps_milli=st.integers(1, 3000),
    measure=st.sampled_from(["paper-d", "hockey-stick", "pointwise"]),
)
def test_scan_identical_with_the_previous_setup(k, num, eps_milli, measure):
    """The scan with its arb / integer-comparison setup returns exactly the enclosure of
    the previous setup (mpmath.iv KL exponent and −ln best, exact-comparison n_m and first bad j)."""
    beta, eps = F(num, 100), F(eps_milli, 1000)
    if measure == "paper-d" and not in_paper_regime(beta, eps):
        return
    try:
        new = sdgs.scan(k, beta, eps, measure=measure, budget=10**9, long_range=False)
    except CertificationError:
        assume(False)
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(sdgs, "_kl_lower_arb", lambda *a: None)
        mp.setattr(sdgs, "_flint_or_none", lambda: None)
        mp.setattr(sdgs, "_n_min_E", lambda k, b, e, E: sdgs.n_min(k, b, e))
        mp.setattr(sdgs, "_first_bad_E", lambda n, b, e, fb: sdgs.first_bad(n, b, e))
        old = sdgs.scan(k, beta, eps, measure=measure, budget=10**9, long_range=False)
    finally:
        mp.undo()
    assert (new.lower, new.upper, new.details["argmax_n"]) == (old.lower, old.upper, old.details["argmax_n"])


def test_scan_identity_negative_control(monkeypatch):
    """The identity check can fail: a setup whose first bad count is one too high gives a
    different enclosure."""
    beta, eps = F(1, 10), F(1)
    good = sdgs.scan(20, beta, eps, measure="paper-d", long_range=False)
    monkeypatch.setattr(sdgs, "_first_bad_E", lambda n, b, e, fb: sdgs.first_bad(n, b, e) + 1)
    bad = sdgs.scan(20, beta, eps, measure="paper-d", long_range=False)
    assert (bad.lower, bad.upper) != (good.lower, good.upper)
