"""What worstcase/sdgs.py's scan says besides its numbers, and the route it takes: the same
enclosure for a β written with GMP integers as with Python ints, the segment route taken when
the estimate passes a budget below EXACT_SDGS_WORK (same enclosure as the exact walk), the
how-text naming the skipped range of a hockey-stick scan in CP Thm 5's regime, and the k the
value-size refusal suggests (never below 1).  Each case runs in well under a second."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import mpmath
import pytest

from dps_verify.worstcase import sdgs

F = Fraction


@pytest.mark.parametrize("measure", ["hockey-stick", "pointwise", "paper-d"])
def test_beta_with_gmp_terms_gives_the_same_enclosure_as_with_python_ints(measure):
    """β = 1/3 built from gmpy2 integers (as beta_edge's grid builds it): python-flint takes
    Python ints only, so the scan converts it first; the enclosure and maximiser are those of
    Fraction(1, 3)."""
    gmpy2 = pytest.importorskip("gmpy2")
    beta = F(gmpy2.mpz(1), gmpy2.mpz(3))
    assert type(beta.numerator) is not int  # the case under test
    got = sdgs.scan(3, beta, F(1), measure=measure)
    want = sdgs.scan(3, F(1, 3), F(1), measure=measure)
    assert (got.lower, got.upper, got.details["argmax_n"]) == (want.lower, want.upper, want.details["argmax_n"])


def test_beta_with_gmp_terms_reaches_the_segment_route():
    """The hockey-stick segment scan hands β's terms to python-flint balls, which refuse GMP
    integers: the scan's conversion lets a GMP-term β (here 1/2, the route forced by a budget of
    10^5 bit-steps) give the enclosure of Fraction(1, 2) instead of a TypeError."""
    gmpy2 = pytest.importorskip("gmpy2")
    beta = F(gmpy2.mpz(1), gmpy2.mpz(2))
    got = sdgs.scan(200, beta, F(1, 2), measure="hockey-stick", budget=1e5)
    want = sdgs.scan(200, F(1, 2), F(1, 2), measure="hockey-stick", budget=1e5)
    assert got.how.startswith("segments of constant bad set")
    assert (got.lower, got.upper) == (want.lower, want.upper)


def test_an_estimate_past_a_small_budget_takes_the_segment_route_with_the_same_enclosure():
    """The exact measures leave the exact walk for the segment scan once the estimated work
    passes the smaller of the budget and EXACT_SDGS_WORK: with a budget of 10^5 bit-steps
    (estimate about 6.4e5) the answer comes from segments (not a budget refusal) and encloses
    the exact walk's value."""
    k, beta, eps = 200, F(1, 2), F(1, 2)
    assert 1e5 < sdgs._estimate(k, beta, eps, "pointwise", True)["work"] < sdgs.EXACT_SDGS_WORK
    seg = sdgs.scan(k, beta, eps, measure="pointwise", budget=1e5)
    walk = sdgs.scan(k, beta, eps, measure="pointwise")
    assert seg.how.startswith("segments of constant bad set")
    assert walk.how.startswith("exact integer arithmetic")
    assert seg.lower <= walk.upper and walk.lower <= seg.upper
    assert walk.lower == walk.upper and seg.lower <= walk.lower <= seg.upper


def test_hockey_stick_how_text_names_the_skipped_range_below_the_start():
    """In the regime the hockey-stick walk starts at n_m (29 for k = 20, β = 1/10, ε = 1) and
    bounds k ≤ n < n_m without computing them all: the how-text says which sizes were bounded
    and which computed exactly (every certified number says how)."""
    c = sdgs.scan(20, F(1, 10), F(1), measure="hockey-stick")
    assert c.details["n_start"] == 29
    assert "for 20 ≤ n < 27 the value is ≤ β·f(k−1; n−1)" in c.how
    assert "27 ≤ n < 29 computed exactly" in c.how


def test_pointwise_how_text_names_the_skipped_range_below_the_start():
    """The pointwise walk in the regime also starts at n_m (29 for k = 20, β = 1/10, ε = 1) and
    skips k ≤ n < n_m, where the value is the suppressed-free tail Pr[Bin(n, β) ≥ k], increasing
    in n: the how-text says so, and the claim holds (the tail at n = 28, exact from the
    definition, is below the certified lower end)."""
    k, beta = 20, F(1, 10)
    c = sdgs.scan(k, beta, F(1), measure="pointwise")
    assert c.details["n_start"] == 29
    assert (
        "for 20 ≤ n < 29 the value is Pr[Bin(n, β) ≥ k], increasing in n, and at n = 28 below the best value"
        in c.how
    )
    tail_28 = sum((comb(28, j) * beta**j * (1 - beta) ** (28 - j) for j in range(k, 29)), F(0))
    assert tail_28 < c.lower


def _kl(c, b):
    return c * mpmath.log(c / b) + (1 - c) * mpmath.log((1 - c) / (1 - b))


def _backward_stop_reference(k: int, beta: Fraction, eps: Fraction, best: Fraction) -> tuple[int, int, float]:
    """The group size where the walk outside CP Thm 5's regime may stop, from the rule it
    documents (mpmath at 40 digits): the first N with N·KL(γ‖β) ≥ need, need = −ln(best) + ln 2,
    opens the backward checks; a check at N passes when c_N = max(k, γ'N)/(N − 1) < β and
    (N − 1)·KL(c_N‖β) ≥ need; after a failed check the next comes at N + max(1, ⌊N/64⌋).
    Returns the stop, the first check and the smallest distance of any compared quantity from need (the code
    decides with certified bounds 2^−20 tight, so a distance well above that makes the
    comparisons agree)."""
    with mpmath.workdps(40):
        b = mpmath.mpf(beta.numerator) / beta.denominator
        e = mpmath.mpf(eps.numerator) / eps.denominator
        g, gp = 1 - (1 - b) * mpmath.exp(-e), 1 - (1 - b) * mpmath.exp(e)
        need = -mpmath.log(mpmath.mpf(best.numerator) / best.denominator) + mpmath.log(2)
        N = first = int(mpmath.ceil(need / _kl(g, b)))
        margins = [N * _kl(g, b) - need, (N - 1) * _kl(g, b) - need]
        while True:
            c = max(k, gp * N) / (N - 1)
            if c < b:
                margins.append((N - 1) * _kl(c, b) - need)
                if margins[-1] >= 0:
                    return N, first, float(min(abs(m) for m in margins))
            N += max(1, N // 64)


@pytest.mark.parametrize("k, beta, eps, measure, stop", [
    (40, F(1, 2), F(1, 2), "hockey-stick", 132),
    (29, F(1, 4), F(1, 4), "pointwise", 207),
    (89, F(2, 3), F(1), "hockey-stick", 196),
])
def test_walk_outside_the_regime_stops_at_the_first_passing_backward_check(k, beta, eps, measure, stop):
    """Outside the regime the walk stops where both Chernoff–Hoeffding terms are below half the
    best value; the backward term is checked only at the scheduled group sizes (the next check
    ⌊N/64⌋ later), so the stop, n_scanned and the how-text are those of the documented schedule.
    The reference recomputes the schedule from the definitions of KL and c_N; the best value
    is reached before the first check, so it is the final one."""
    c = sdgs.scan(k, beta, eps, measure=measure, long_range=False)
    want, first, margin = _backward_stop_reference(k, beta, eps, c.lower)
    assert want == stop and margin > 1e-4
    assert c.details["argmax_n"] < first < stop  # the best was found before the checks began
    assert f"stopped at n = {stop}: for every n' ≥ {stop}, exp(−n'·KL(γ‖β)) + exp(−(N−1)·KL(c_N‖β))" in c.how
    assert c.details["n_scanned"] == stop - c.details["n_start"]


@pytest.mark.parametrize("rule", ["backward", "forward"])
def test_walk_outside_the_regime_stops_where_a_chernoff_product_ties_the_threshold(monkeypatch, rule):
    """The walk's stop at N = 132 (k = 40, β = 1/2, ε = 1/2, hockey-stick) with need = ℓ + ln 2,
    ℓ the certified upper bound of −ln(best lower end) (β = 1/2: every denominator a power of
    two, so the reduced best gives the walk's ℓ).  An exponent bound lowered so that the rule's
    product at N is exactly need — (N − 1)·KL(c_N‖β) (kl_lower_below), or N·KL(γ‖β) (kl_lower,
    which then lets no earlier N open the checks) — is still a valid bound (the walk's own one
    passed at N) and must still stop at N: the rules are ≥, equality included."""
    k, beta, eps, N = 40, F(1, 2), F(1, 2), 132
    ref = sdgs.scan(k, beta, eps, measure="hockey-stick", long_range=False)
    assert f"stopped at n = {N}:" in ref.how and ref.details["argmax_n"] < N
    need = sdgs._neg_ln_upper(ref.lower.numerator, ref.lower.denominator) + sdgs._LN2_UP
    if rule == "backward":
        real = sdgs.kl_lower_below
        monkeypatch.setattr(sdgs, "kl_lower_below", lambda c, b: min(real(c, b), need / (N - 1)))
    else:
        assert N * sdgs.kl_lower(beta, eps) >= need
        monkeypatch.setattr(sdgs, "kl_lower", lambda b, e, prec=128: need / N)
    got = sdgs.scan(k, beta, eps, measure="hockey-stick", long_range=False)
    assert f"stopped at n = {N}:" in got.how and got.details["n_scanned"] == ref.details["n_scanned"]
    assert (got.lower, got.upper) == (ref.lower, ref.upper)


def test_value_size_refusal_suggests_a_k_of_at_least_one():
    """A value needing more than k·MAX_VALUE_BITS bits would suggest k < 1: the message says
    'about 1 or less', never 0."""
    e = sdgs._value_size_error(1, F(1, 2), F(1), {"value_bits": 2.0 * sdgs.MAX_VALUE_BITS})
    assert "about 1 or less" in str(e)
    e = sdgs._value_size_error(8, F(1, 2), F(1), {"value_bits": 2.0 * sdgs.MAX_VALUE_BITS})
    assert "about 4 or less" in str(e)


def _routes(monkeypatch, n0_estimate: float) -> list[str]:
    """Which route scan takes (pointwise below CP Thm 5's edge, k = 3, β = 1/2, ε = 1/10) when
    its float estimate says the walk would start at ``n0_estimate`` with a tiny amount of work:
    the exact walk and the segment scan are replaced by spies that record their call."""
    from dps_verify.core.numbers import Certified
    from dps_verify.worstcase import long_range

    calls: list[str] = []
    real = sdgs._estimate
    done = Certified(lower=F(0), upper=F(0), how="spy", details={})

    def estimate(*args):
        return {**real(*args), "n0": n0_estimate, "work": 1.0}

    def walk(*args):
        calls.append("exact walk")
        return done

    def segments(*args, **kwargs):
        calls.append("segments")
        return done

    monkeypatch.setattr(sdgs, "_estimate", estimate)
    monkeypatch.setattr(sdgs, "_scan_from", walk)
    monkeypatch.setattr(long_range, "sdgs_by_segments", segments)
    return calls


@pytest.mark.parametrize("long_range_paths", [True, False])
def test_a_start_estimate_of_exactly_a_billion_still_takes_the_exact_walk(monkeypatch, long_range_paths):
    """The exact walk is left for group sizes past 10^9 (segment route, or a budget refusal
    without the long-range paths): an estimated start of exactly 1e9 is not past it, the next
    double above is."""
    import math

    from dps_verify.core.errors import CertificationError

    k, beta, eps = 3, F(1, 2), F(1, 10)
    calls = _routes(monkeypatch, 1e9)
    sdgs.scan(k, beta, eps, measure="pointwise", long_range=long_range_paths)
    assert calls == ["exact walk"]
    calls = _routes(monkeypatch, math.nextafter(1e9, math.inf))
    if long_range_paths:
        sdgs.scan(k, beta, eps, measure="pointwise")
        assert calls == ["segments"]
    else:
        with pytest.raises(CertificationError):
            sdgs.scan(k, beta, eps, measure="pointwise", long_range=False)
        assert calls == []
